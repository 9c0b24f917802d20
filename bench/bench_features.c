/* bench_features: the cost of the xgb tuners' features (issue 18: simulated annealing scores
 * thousands of configs per plan, each one instantiated and analyzed). For every Mali task of a
 * network, N seeded random configs are featurized; prints per task the template, configs/s and
 * an FNV-1a hash of the rows, so two builds can be checked to give the same bytes.
 *
 *   bench_features [--network resnet-18] [--image-shape 3,32,32] [--feature itervar|curve|knob] [--n N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/rng.h"
#include "networks/extract.h"
#include "tuners/feature.h"

static void usage(void)
{
    fprintf(stderr, "usage: bench_features [--network NET] [--image-shape C,H,W] [--feature itervar|curve|knob] [--n N]\n");
    exit(2);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

int main(int argc, char **argv)
{
    const char *network = "resnet-18";
    at_feature feat = AT_FEAT_ITERVAR;
    long long shape[3] = {3, 32, 32};
    size_t n = 200;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        if (!strcmp(argv[i], "--network"))
            network = argv[++i];
        else if (!strcmp(argv[i], "--n"))
            n = (size_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--feature")) {
            const char *f = argv[++i];
            feat = !strcmp(f, "knob") ? AT_FEAT_KNOB : !strcmp(f, "curve") ? AT_FEAT_CURVE : AT_FEAT_ITERVAR;
        } else if (!strcmp(argv[i], "--image-shape")) {
            if (sscanf(argv[++i], "%lld,%lld,%lld", &shape[0], &shape[1], &shape[2]) != 3) usage();
        } else
            usage();
    }
    at_log_set_level(AT_LOG_ERROR);
    at_net_opts no = {0};
    no.image_shape[0] = shape[0];
    no.image_shape[1] = shape[1];
    no.image_shape[2] = shape[2];
    at_net *net = NULL;
    at_net_tasks *ts = NULL;
    if (at_net_load(network, &no, &net) != AT_OK || at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts) != AT_OK) {
        fprintf(stderr, "bench_features: %s\n", at_last_error());
        return 1;
    }
    printf("%-4s %-32s %8s %10s %18s\n", "task", "template", "configs", "configs/s", "hash");
    double total_s = 0;
    size_t total_n = 0;
    for (size_t t = 0; t < at_net_tasks_count(ts); t++) {
        const at_task *task = at_net_tasks_at(ts, t);
        size_t w = at_tuner_feat_len(feat, task), m = n;
        if ((int64_t)m > at_space_len(at_task_space(task))) m = (size_t)at_space_len(at_task_space(task));
        int64_t *xs = at_malloc(n * sizeof *xs);
        float *row = at_malloc(w * sizeof *row);
        at_rng rng;
        at_rng_seed(&rng, t);
        if (!xs || !row || at_space_sample_ints(at_task_space(task), &rng, m, xs) != AT_OK) return 1;
        uint64_t h = 0xcbf29ce484222325ULL;
        double t0 = at_clock_mono_s();
        for (size_t i = 0; i < m; i++) {
            at_status st = at_tuner_feat_extract(feat, task, xs[i], row);
            if (st == AT_EINVAL) memset(row, 0, w * sizeof *row);
            else if (st != AT_OK) return 1;
            h = fnv(h, row, w * sizeof *row);
        }
        double s = at_clock_mono_s() - t0;
        total_s += s;
        total_n += m;
        printf("%-4zu %-32s %8zu %10.0f %018llx\n", t, at_task_template(task)->name, m, (double)m / s,
               (unsigned long long)h);
        at_free(xs);
        at_free(row);
    }
    printf("all: %zu configs in %.2f s (%.0f configs/s)\n", total_n, total_s, (double)total_n / total_s);
    at_net_tasks_free(ts);
    at_net_free(net);
    return 0;
}
