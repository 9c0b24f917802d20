/* The options bench_sched and bench_sched_rounds share: the network, its tasks, the tuner and where
 * the logs go, and the network-tuning options they set. */
#ifndef AT_BENCH_SCHED_ARGS_H
#define AT_BENCH_SCHED_ARGS_H

#include <stddef.h>

#include "tune/network.h"

typedef struct bench_sched_args {
    const char        *network, *ops, *tuner, *dir, *device;
    long long          shape[3];
    size_t             total, per_round;
    unsigned long long seed;
} bench_sched_args;

/* Reads the shared option at argv[i] and its value: the index of the value, or -1 when argv[i] is
 * not one of them (or lacks its value, or an image shape is not C,H,W). */
int bench_sched_arg(bench_sched_args *a, int argc, char **argv, int i);

/* Network-tuning options of a for the scheduler benches (mali target, a's tuner, seed, device and
 * ops); -1 when the ops list does not parse. */
int bench_sched_opts(const bench_sched_args *a, at_tune_network_opts *o);

#endif
