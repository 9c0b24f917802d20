/* The scheduler benches' shared options (bench_sched_args.h). */
#include "bench/bench_sched_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_sched_arg(bench_sched_args *a, int argc, char **argv, int i)
{
    if (i + 1 >= argc) return -1;
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--network"))
        a->network = v;
    else if (!strcmp(k, "--ops"))
        a->ops = v;
    else if (!strcmp(k, "--tuner"))
        a->tuner = v;
    else if (!strcmp(k, "--workdir"))
        a->dir = v;
    else if (!strcmp(k, "--device"))
        a->device = v;
    else if (!strcmp(k, "--total"))
        a->total = (size_t)strtoul(v, NULL, 10);
    else if (!strcmp(k, "--per-round"))
        a->per_round = (size_t)strtoul(v, NULL, 10);
    else if (!strcmp(k, "--seed"))
        a->seed = strtoull(v, NULL, 10);
    else if (!strcmp(k, "--image-shape")) {
        if (sscanf(v, "%lld,%lld,%lld", &a->shape[0], &a->shape[1], &a->shape[2]) != 3) return -1;
    } else
        return -1;
    return i + 1;
}

int bench_sched_opts(const bench_sched_args *a, at_tune_network_opts *o)
{
    *o = (at_tune_network_opts){.network = a->network, .target = AT_NET_TARGET_MALI, .tuner = a->tuner};
    for (int d = 0; d < 3; d++) o->net.image_shape[d] = a->shape[d];
    o->tuner_opts.seed = a->seed;
    o->measure.device = a->device;
    return at_net_ops_parse(a->ops, &o->ops) == AT_OK ? 0 : -1;
}
