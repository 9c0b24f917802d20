/* bench_parity: our generated code against TVM's, config for config (issue 22). For each line of
 * the data file (template, args, config, TVM's GFLOPS for that config) it measures the config
 * through measure/'s OpenCL pool with output verification and prints our GFLOPS beside TVM's and
 * the ratio; a config of "tophub" is the TopHub pack's fastest record for that workload. Every
 * distinct task also gets --sample seeded random configs (no TVM figure: they show the spread).
 * Times: median of --repeat rounds, each grown to --min-repeat-ms (min and max dropped first, as
 * TVM does); GFLOPS = task FLOPs / time.
 *
 * usage: bench_parity [--data FILE] [--tophub PATH|none] [--sample N] [--seed S] [--repeat R]
 *                     [--min-repeat-ms M] [--workers W] [--device SPEC]
 * (defaults: bench/data/parity_mali.tsv, ../shared's mali_v0.06.log, 8 samples, seed 1, 5 rounds of
 * at least 100 ms, one worker so configs never share the CPU) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_ocl_util.h"
#include "core/alloc.h"
#include "core/rng.h"
#include "records/log.h"

#ifndef AT_BENCH_DATA_DIR
#error "AT_BENCH_DATA_DIR must name bench/data"
#endif

enum { MAX_LINES = 256, MAX_FIELD = 512 };

typedef struct parity_line {
    char    tmpl[128], args[MAX_FIELD], config[32], tvm[32], source[MAX_FIELD];
    size_t  line;
} parity_line;

/* Splits one tab-separated data line into its five fields; false when it has fewer. */
static bool parse_line(char *text, parity_line *out)
{
    char *f[5];
    size_t n = 0;
    for (char *p = text; n < 5;) {
        f[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab) break;
        *tab = '\0';
        p = tab + 1;
    }
    if (n < 5 || strlen(f[0]) >= sizeof out->tmpl || strlen(f[1]) >= sizeof out->args ||
        strlen(f[2]) >= sizeof out->config || strlen(f[3]) >= sizeof out->tvm)
        return false;
    char *nl = strpbrk(f[4], "\r\n");
    if (nl) *nl = '\0';
    memcpy(out->tmpl, f[0], strlen(f[0]) + 1);
    memcpy(out->args, f[1], strlen(f[1]) + 1);
    memcpy(out->config, f[2], strlen(f[2]) + 1);
    memcpy(out->tvm, f[3], strlen(f[3]) + 1);
    snprintf(out->source, sizeof out->source, "%.*s", (int)sizeof out->source - 1, f[4]);
    return true;
}

static size_t load_data(const char *path, parity_line *lines)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(1);
    }
    char buf[2048];
    size_t n = 0, no = 0;
    while (fgets(buf, sizeof buf, f)) {
        no++;
        if (buf[0] == '#' || buf[0] == '\n') continue;
        if (n == MAX_LINES) {
            fprintf(stderr, "%s:%zu: more than %d configs\n", path, no, MAX_LINES);
            exit(1);
        }
        if (!parse_line(buf, &lines[n])) {
            fprintf(stderr, "%s:%zu: expected 5 tab-separated fields (template, args, config, TVM GFLOPS, source), each within its size\n",
                    path, no);
            exit(1);
        }
        lines[n++].line = no;
    }
    fclose(f);
    return n;
}

/* The index of the pack's fastest successful record for task t, or -1. */
static int64_t tophub_index(const at_rec_log *log, const at_task *t)
{
    const at_template *tm = at_task_template(t);
    const at_rec *best = NULL;
    for (size_t i = 0; log && i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        if (r->result.err == AT_MEAS_OK && at_bench_same_workload(tm, at_task_args(t), r) &&
            (!best || at_rec_cost(r) < at_rec_cost(best)))
            best = r;
    }
    int64_t idx = -1;
    if (best && at_space_index_of(at_task_space(t), best->config, &idx) != AT_OK) idx = -1;
    return idx;
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--data FILE] [--tophub PATH|none] [--sample N] [--seed S] [--repeat R] "
                    "[--min-repeat-ms M] [--workers W] [--device SPEC]\n", prog);
}

int main(int argc, char **argv)
{
    const char *data = AT_BENCH_DATA_DIR "/parity_mali.tsv", *tophub = NULL, *device = NULL;
    int n_sample = 8, repeat = 5, min_repeat_ms = 100, workers = 1;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            usage(argv[0]);
            return 2;
        }
        if (!strcmp(a, "--data")) data = v;
        else if (!strcmp(a, "--tophub")) tophub = v;
        else if (!strcmp(a, "--sample")) n_sample = atoi(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--repeat")) repeat = atoi(v);
        else if (!strcmp(a, "--min-repeat-ms")) min_repeat_ms = atoi(v);
        else if (!strcmp(a, "--workers")) workers = atoi(v);
        else if (!strcmp(a, "--device")) device = v;
        else {
            usage(argv[0]);
            return 2;
        }
    }
    if (n_sample < 0 || n_sample > 1024 || repeat < 1 || repeat > 64 || workers < 1) {
        fprintf(stderr, "bench_parity: bad option value\n");
        return 2;
    }
    static parity_line lines[MAX_LINES];
    size_t n_lines = load_data(data, lines);
    char pack[4096];
    if (!tophub) {
        const char *shared = getenv("AT_SHARED_DIR");
        snprintf(pack, sizeof pack, "%s/data/tophub/mali_v0.06.log", shared && *shared ? shared : "../shared");
        tophub = pack;
    }
    at_rec_log *pack_log = NULL;
    if (strcmp(tophub, "none") && at_rec_log_load_file(tophub, &pack_log) != AT_OK) {
        fprintf(stderr, "bench_parity: %s\n", at_last_error());
        return 1;
    }
    char cache[] = "/tmp/autotvm_bench_parity_XXXXXX";
    if (!mkdtemp(cache)) {
        perror("bench_parity: mkdtemp");
        return 1;
    }
    at_measure_opts o = {.number = 1, .repeat = repeat, .min_repeat_ms = min_repeat_ms, .timeout_ms = 10000,
                         .build_timeout_ms = 120000, .cooldown_ms = -1, .n_parallel = workers,
                         .check_correctness = true, .device = device, .cache_dir = cache};
    at_meas_ocl *m;
    if (at_meas_ocl_new(&o, &m) != AT_OK) {
        fprintf(stderr, "bench_parity: %s\n", at_last_error());
        return 1;
    }
    const at_ocl_device_info *dev = at_meas_ocl_device(m);
    printf("device: %s / %s; data %s; %d seeded samples per task (seed %llu); median of %d rounds of >= %d ms; "
           "outputs verified\n",
           dev->platform, dev->name, data, n_sample, (unsigned long long)seed, repeat, min_repeat_ms);
    double log_ratio_sum = 0, worst = INFINITY;
    size_t n_ratio = 0;
    bool *done = calloc(n_lines, sizeof *done);
    int rc = 0;
    for (size_t first = 0; first < n_lines && rc == 0; first++) {
        if (done[first]) continue;
        at_task *t = NULL;
        if (at_task_create(lines[first].tmpl, AT_TARGET_OPENCL, lines[first].args, &t) != AT_OK) {
            fprintf(stderr, "%s:%zu: %s\n", data, lines[first].line, at_last_error());
            rc = 1;
            break;
        }
        const at_space *sp = at_task_space(t);
        size_t n_cfg = 0, cap = n_lines + (size_t)n_sample;
        at_config **cfg = at_calloc(cap, sizeof *cfg);
        const parity_line **from = at_calloc(cap, sizeof *from);
        double *g = at_calloc(cap, sizeof *g);
        /* this task's lines */
        for (size_t i = first; i < n_lines && rc == 0; i++) {
            if (done[i] || strcmp(lines[i].tmpl, lines[first].tmpl) || strcmp(lines[i].args, lines[first].args)) continue;
            done[i] = true;
            int64_t idx = !strcmp(lines[i].config, "tophub") ? tophub_index(pack_log, t) : strtoll(lines[i].config, NULL, 10);
            if (idx < 0 || at_task_config(t, idx, &cfg[n_cfg]) != AT_OK) {
                fprintf(stderr, "%s:%zu: config '%s' is not in the space of %s (%lld points)\n", data, lines[i].line,
                        lines[i].config, lines[i].tmpl, (long long)at_space_range_len(sp));
                rc = 1;
                break;
            }
            from[n_cfg++] = &lines[i];
        }
        /* the seeded sample */
        size_t ns = (size_t)n_sample < (size_t)at_space_len(sp) ? (size_t)n_sample : (size_t)at_space_len(sp);
        int64_t *idx = at_calloc(ns + 1, sizeof *idx);
        at_rng rng;
        at_rng_seed(&rng, seed);
        if (rc == 0 && ns && at_space_sample_ints(sp, &rng, ns, idx) == AT_OK)
            for (size_t i = 0; i < ns; i++)
                if (at_task_config(t, idx[i], &cfg[n_cfg]) == AT_OK) from[n_cfg++] = NULL;
        if (rc == 0) at_bench_measure_gflops(m, t, cfg, n_cfg, g, 1, "bench_parity");
        printf("\n%s [%s] (%.1f MFLOP, %lld configs)\n", lines[first].tmpl, lines[first].args, at_task_flop(t) / 1e6,
               (long long)at_space_len(sp));
        printf("  %10s %12s %12s %9s  %s\n", "config", "ours GFLOPS", "TVM GFLOPS", "ours/TVM", "source");
        for (size_t i = 0; i < n_cfg && rc == 0; i++) {
            const parity_line *l = from[i];
            char tvm[32] = "-", ratio[32] = "-";
            if (l && strcmp(l->tvm, "-")) {
                double tg = strtod(l->tvm, NULL);
                snprintf(tvm, sizeof tvm, "%.1f", tg);
                if (g[i] > 0 && tg > 0) {
                    snprintf(ratio, sizeof ratio, "%.2f", g[i] / tg);
                    log_ratio_sum += log(g[i] / tg);
                    worst = g[i] / tg < worst ? g[i] / tg : worst;
                    n_ratio++;
                }
            }
            char ours[32];
            if (g[i] > 0)
                snprintf(ours, sizeof ours, "%.1f", g[i]);
            else
                snprintf(ours, sizeof ours, "failed");
            printf("  %10lld %12s %12s %9s  %s\n", (long long)at_config_index(cfg[i]), ours, tvm, ratio,
                   l ? l->source : "seeded sample");
        }
        fflush(stdout);
        for (size_t i = 0; i < n_cfg; i++) at_config_free(cfg[i]);
        at_free(cfg);
        at_free(from);
        at_free(g);
        at_free(idx);
        at_task_free(t);
    }
    if (n_ratio)
        printf("\nconfigs with a TVM figure: %zu; geometric mean ours/TVM %.2f; worst %.2f\n", n_ratio,
               exp(log_ratio_sum / (double)n_ratio), worst);
    free(done);
    at_meas_ocl_free(m);
    at_rec_log_free(pack_log);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
    if (system(cmd) != 0) fprintf(stderr, "bench_parity: could not remove %s\n", cache);
    return rc;
}
