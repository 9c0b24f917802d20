/* bench_mali: per Mali template, on one resnet-18 / mobilenet workload, the GFLOPS of the TopHub
 * config (the pack's fastest record for that workload), of the fallback config (TVM's: TopHub
 * reference records for the spatial pack, depthwise and dense templates, Winograd's own choice),
 * and of the best of N random configs (seeded), measured through measure/'s OpenCL pool with
 * output verification. Each config's time is the median of --repeat timed rounds (number grown
 * until a round lasts --min-repeat-ms; min and max dropped first, as TVM does); GFLOPS = task
 * FLOPs / time.
 *
 * usage: bench_mali [--device SPEC] [--tophub PATH] [--random N] [--seed S] [--repeat R]
 *                   [--timeout-ms T] [--min-repeat-ms M] [--workers W] [--only NAME]
 * (defaults: 64 random configs, seed 1, 5 rounds each at least 100 ms long, 10 s run timeout) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_ocl_util.h"
#include "core/alloc.h"
#include "core/json.h"
#include "core/rng.h"
#include "measure/ocl.h"
#include "records/log.h"

static const struct {
    const char *tmpl, *network, *args;
} workloads[] = {
    {"conv2d_nchw_spatial_pack.mali", "resnet-18 #5",
     "[[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [128, 64, 3, 3], \"float32\"], [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"]"},
    {"conv2d_nchw_winograd.mali", "resnet-18 #3",
     "[[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [64, 64, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]"},
    {"depthwise_conv2d_nchw.mali", "mobilenet #2",
     "[[\"TENSOR\", [1, 32, 112, 112], \"float32\"], [\"TENSOR\", [32, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]"},
    {"dense.mali", "resnet-18 dense", "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"]"},
};

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--device SPEC] [--tophub PATH] [--random N] [--seed S] [--repeat R] [--timeout-ms T] "
                    "[--min-repeat-ms M] [--workers W] [--only NAME]\n", prog);
}

int main(int argc, char **argv)
{
    const char *device = NULL, *only = NULL, *tophub = NULL;
    int n_random = 64, repeat = 5, timeout_ms = 10000, workers = 0, min_repeat_ms = 100;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            usage(argv[0]);
            return 2;
        }
        if (!strcmp(a, "--device")) device = v;
        else if (!strcmp(a, "--tophub")) tophub = v;
        else if (!strcmp(a, "--random")) n_random = atoi(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--repeat")) repeat = atoi(v);
        else if (!strcmp(a, "--timeout-ms")) timeout_ms = atoi(v);
        else if (!strcmp(a, "--workers")) workers = atoi(v);
        else if (!strcmp(a, "--min-repeat-ms")) min_repeat_ms = atoi(v);
        else if (!strcmp(a, "--only")) only = v;
        else {
            usage(argv[0]);
            return 2;
        }
        i++;
    }
    if (n_random < 1 || n_random > 4096 || repeat < 1 || repeat > 64 || timeout_ms < 1) {
        fprintf(stderr, "bench_mali: bad option value\n");
        return 2;
    }
    char path[4096];
    if (!tophub) {
        const char *shared = getenv("AT_SHARED_DIR");
        snprintf(path, sizeof path, "%s/data/tophub/mali_v0.06.log", shared && *shared ? shared : "../shared");
        tophub = path;
    }
    at_rec_log *log;
    if (at_rec_log_load_file(tophub, &log) != AT_OK) {
        fprintf(stderr, "bench_mali: %s\n", at_last_error());
        return 1;
    }
    char cache[] = "/tmp/autotvm_bench_mali_XXXXXX";
    if (!mkdtemp(cache)) {
        perror("bench_mali: mkdtemp");
        return 1;
    }
    at_measure_opts o = {.number = 1, .repeat = repeat, .min_repeat_ms = min_repeat_ms, .timeout_ms = timeout_ms,
                         .build_timeout_ms = 120000, .cooldown_ms = -1, .n_parallel = workers,
                         .check_correctness = true, .device = device, .cache_dir = cache};
    at_meas_ocl *m;
    if (at_meas_ocl_new(&o, &m) != AT_OK) {
        fprintf(stderr, "bench_mali: %s\n", at_last_error());
        return 1;
    }
    const at_ocl_device_info *dev = at_meas_ocl_device(m);
    printf("device: %s / %s; TopHub pack %s; %d random configs (seed %llu); times: median of %d rounds "
           "of >= %d ms (min and max dropped); outputs verified\n\n",
           dev->platform, dev->name, tophub, n_random, (unsigned long long)seed, repeat, min_repeat_ms);
    printf("%-30s %-16s %9s %14s %14s %22s\n", "template", "workload", "MFLOP", "TopHub GFLOPS", "fallback GFLOPS",
           "best random GFLOPS");
    int rc = 0;
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0] && rc == 0; w++) {
        if (only && !strstr(workloads[w].tmpl, only)) continue;
        const at_template *tm = at_tmpl_find(workloads[w].tmpl, AT_TARGET_OPENCL);
        at_task *t;
        if (!tm || at_task_create(workloads[w].tmpl, AT_TARGET_OPENCL, workloads[w].args, &t) != AT_OK) {
            fprintf(stderr, "bench_mali: %s\n", at_last_error());
            rc = 1;
            break;
        }
        const at_space *sp = at_task_space(t);
        /* TopHub: the fastest successful record of this workload */
        const at_rec *best = NULL;
        const at_config **refs = at_calloc(log->n + 1, sizeof *refs);
        size_t n_refs = 0;
        for (size_t i = 0; i < log->n; i++) {
            const at_rec *r = &log->recs[i];
            if (!strcmp(r->task_name, tm->name)) refs[n_refs++] = r->config;
            if (r->result.err == AT_MEAS_OK && at_bench_same_workload(tm, at_task_args(t), r) && (!best || at_rec_cost(r) < at_rec_cost(best)))
                best = r;
        }
        at_config *cfg[3] = {NULL, NULL, NULL};
        size_t nc = 0;
        int64_t tophub_index = -1;
        if (best && at_space_index_of(sp, best->config, &tophub_index) == AT_OK && at_task_config(t, tophub_index, &cfg[nc]) == AT_OK)
            nc++;
        size_t fb_at = nc;
        /* the fallback config (index -1) as the point of the space it names, so the pool can ship it */
        at_config *fb = NULL;
        int64_t fb_index = -1;
        if (at_task_fallback_config(t, tm->ref_backend ? refs : NULL, tm->ref_backend ? n_refs : 0, &fb) != AT_OK ||
            at_space_index_of(sp, fb, &fb_index) != AT_OK || at_task_config(t, fb_index, &cfg[nc]) != AT_OK) {
            fprintf(stderr, "bench_mali: fallback config: %s\n", at_last_error());
            rc = 1;
        } else {
            nc++;
        }
        at_config_free(fb);
        double g[3] = {0, 0, 0};
        if (rc == 0) at_bench_measure_gflops(m, t, cfg, nc, g, 1, "bench_mali");
        double g_top = fb_at == 1 ? g[0] : -1, g_fb = g[fb_at];
        /* the best of n_random distinct random configs */
        size_t nr = (size_t)n_random < (size_t)at_space_len(sp) ? (size_t)n_random : (size_t)at_space_len(sp);
        int64_t *idx = at_calloc(nr, sizeof *idx);
        at_config **rc_cfg = at_calloc(nr, sizeof *rc_cfg);
        double *gr = at_calloc(nr, sizeof *gr);
        at_rng rng;
        at_rng_seed(&rng, seed + w);
        size_t ok = 0;
        double g_best = 0;
        int64_t best_idx = -1;
        if (rc == 0 && at_space_sample_ints(sp, &rng, nr, idx) == AT_OK) {
            for (size_t i = 0; i < nr; i++)
                if (at_task_config(t, idx[i], &rc_cfg[i]) != AT_OK) abort();
            at_bench_measure_gflops(m, t, rc_cfg, nr, gr, 0, "bench_mali");
            for (size_t i = 0; i < nr; i++) {
                if (gr[i] > 0) ok++;
                if (gr[i] > g_best) {
                    g_best = gr[i];
                    best_idx = idx[i];
                }
            }
        }
        char top_text[32], rnd_text[64];
        if (g_top < 0)
            snprintf(top_text, sizeof top_text, "none");
        else
            snprintf(top_text, sizeof top_text, "%.3f", g_top);
        snprintf(rnd_text, sizeof rnd_text, "%.3f (%zu/%zu ran)", g_best, ok, nr);
        printf("%-30s %-16s %9.1f %14s %14.3f %22s\n", tm->name, workloads[w].network, at_task_flop(t) / 1e6, top_text, g_fb,
               rnd_text);
        printf("%-30s   TopHub index %lld (mali_v0.06.log line %zu), fallback index %lld (%s), best random index %lld\n", "",
               (long long)tophub_index, best ? best->line : 0, (long long)fb_index,
               tm->ref_backend ? "from reference records" : "template's own", (long long)best_idx);
        fflush(stdout);
        for (size_t i = 0; i < nr; i++) at_config_free(rc_cfg[i]);
        for (size_t i = 0; i < nc; i++) at_config_free(cfg[i]);
        at_free(idx);
        at_free(rc_cfg);
        at_free(gr);
        at_free(refs);
        at_task_free(t);
    }
    at_meas_ocl_free(m);
    at_rec_log_free(log);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
    if (system(cmd) != 0) fprintf(stderr, "bench_mali: could not remove %s\n", cache);
    return rc;
}
