/* bench_sched_rounds: where a scheduler round's wall time goes (issue 18). Runs tune
 * --total-trials N on one OpenCL device and prints, per round, the task, its trials, the seconds
 * spent making the task's tuner (setup: transfer learning included, first round only), in the
 * tuner (next_batch + update: fits, plans, features), in the runner (build + run), and the rest;
 * then the medians and sums of those columns. Run it with and without --no-transfer, and
 * interleave builds (A/B/A/B) to compare versions on a shared machine.
 *
 *   bench_sched_rounds [--network resnet-18] [--image-shape 3,32,32] [--ops conv2d] [--tuner xgb_rank]
 *                      [--total N] [--per-round K] [--seed S] [--no-transfer] [--workdir DIR]
 *                      [--device SPEC] [--quiet] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "bench/bench_sched_args.h"
#include "tune/network.h"

static void usage(void)
{
    fprintf(stderr, "usage: bench_sched_rounds [--network NET] [--image-shape C,H,W] [--ops LIST] [--tuner NAME]\n"
                    "                          [--total N] [--per-round K] [--seed S] [--no-transfer] [--workdir DIR]\n"
                    "                          [--device SPEC] [--quiet]\n");
    exit(2);
}

#define MAX_ROUNDS 4096

typedef struct rounds {
    double setup[MAX_ROUNDS], tuner[MAX_ROUNDS], measure[MAX_ROUNDS], rest[MAX_ROUNDS];
    size_t n;
    double last_end; /* elapsed_s at the end of the previous round */
    bool   quiet;
} rounds;

static void on_event(void *user, const at_tune_net_event *ev)
{
    rounds *r = user;
    if (ev->kind != AT_TUNE_NET_SCHED_ROUND || r->n == MAX_ROUNDS) return;
    const at_tune_result *res = ev->result;
    double wall = ev->elapsed_s - r->last_end;
    r->last_end = ev->elapsed_s;
    size_t k = r->n++;
    r->setup[k] = ev->setup_s;
    r->tuner[k] = res->tuner_s;
    r->measure[k] = res->measure_s;
    r->rest[k] = wall - ev->setup_s - res->tuner_s - res->measure_s;
    if (!r->quiet)
        printf("%5zu %5zu %7zu %8.2f %8.2f %9.2f %7.2f %8.1f\n", k, ev->next_id, res->n_trials - res->n_resumed,
               r->setup[k], r->tuner[k], r->measure[k], r->rest[k], ev->elapsed_s);
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats(const char *name, const double *v, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s), sum = 0;
    if (!s) return;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    for (size_t i = 0; i < n; i++) sum += s[i];
    double med = n ? (n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : 0;
    printf("%-8s median %7.2f s  max %7.2f s  sum %8.1f s\n", name, med, n ? s[n - 1] : 0, sum);
    free(s);
}

int main(int argc, char **argv)
{
    bench_sched_args a = {.network = "resnet-18", .ops = "conv2d", .tuner = "xgb_rank", .dir = ".",
                          .shape = {3, 32, 32}, .per_round = 8};
    bool no_transfer = false;
    static rounds r;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-transfer")) {
            no_transfer = true;
            continue;
        }
        if (!strcmp(argv[i], "--quiet")) {
            r.quiet = true;
            continue;
        }
        if ((i = bench_sched_arg(&a, argc, argv, i)) < 0) usage();
    }
    at_log_set_level(AT_LOG_ERROR);
    at_tune_network_opts o;
    if (bench_sched_opts(&a, &o)) usage();
    o.measure.number = 1;
    o.measure.repeat = 1;
    o.measure.cooldown_ms = -1;
    o.no_transfer = no_transfer;
    o.on_event = on_event;
    o.user = &r;
    if (a.total == 0) a.total = 128;
    o.total_trials = a.total;
    o.trials_per_round = a.per_round;
    char log[1024];
    snprintf(log, sizeof log, "%s/bench_sched_rounds.log", a.dir);
    unlink(log);
    o.log_path = log;
    o.overwrite = true;
    printf("%s %lldx%lldx%lld (%s), tuner %s%s, seed %llu, %zu trials in rounds of %zu\n", a.network, a.shape[0],
           a.shape[1], a.shape[2], a.ops, a.tuner, no_transfer ? " (no transfer)" : "", a.seed, a.total, a.per_round);
    if (!r.quiet) printf("round  task  trials  setup_s  tuner_s  measure_s  rest_s  elapsed\n");
    fflush(stdout);
    double t0 = at_clock_mono_s();
    at_tune_network_result res;
    at_status st = at_tune_network(&o, &res);
    if (st != AT_OK) {
        fprintf(stderr, "bench_sched_rounds: %s: %s\n", at_status_str(st), at_last_error());
        return 1;
    }
    printf("%zu rounds, %zu trials measured in %.1f s\n", r.n, res.n_measured, at_clock_mono_s() - t0);
    double tuner_total[MAX_ROUNDS];
    for (size_t k = 0; k < r.n; k++) tuner_total[k] = r.setup[k] + r.tuner[k];
    stats("setup", r.setup, r.n);
    stats("tuner", r.tuner, r.n);
    stats("setup+tuner", tuner_total, r.n);
    stats("measure", r.measure, r.n);
    stats("rest", r.rest, r.n);
    return 0;
}
