/* bench_measure: measurement throughput of testing/matmul (512^3 by default) through the OpenCL
 * worker pool, as a tuner drives it: batches of distinct configs, a cold kernel cache per run
 * (every config compiles), trials/s with 1 and with N worker processes, and the host overhead
 * per trial outside the device compile and run. Each figure is the median of several runs.
 *
 * usage: bench_measure [--device SPEC] [--args N,L,M] [--configs K] [--runs R] [--workers 1,2]
 *                      [--number N] [--repeat N] [--check] [--keep-cache] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/rng.h"
#include "measure/ocl.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* K distinct indices of configs whose work-group fits the device, drawn with seed. */
static size_t pick_configs(const at_task *t, const at_ocl_device_info *dev, uint64_t seed, int64_t *out, size_t k)
{
    const at_space *s = at_task_space(t);
    int64_t len = at_space_len(s);
    int64_t *perm = at_malloc((size_t)len * sizeof *perm);
    if (!perm) return 0;
    at_rng rng;
    at_rng_seed(&rng, seed);
    if (at_space_sample_ints(s, &rng, (size_t)len, perm) != AT_OK) {
        at_free(perm);
        return 0;
    }
    size_t n = 0;
    for (int64_t i = 0; i < len && n < k; i++) {
        at_config *c;
        if (at_task_config(t, perm[i], &c) != AT_OK) continue;
        int64_t y[2], x[2];
        at_config_split(c, 0, y, 2);
        at_config_split(c, 1, x, 2);
        at_config_free(c);
        if ((size_t)(y[1] * x[1]) <= dev->max_work_group_size && (size_t)x[1] <= dev->max_work_item_sizes[0] &&
            (size_t)y[1] <= dev->max_work_item_sizes[1])
            out[n++] = perm[i];
    }
    at_free(perm);
    return n;
}

static int remove_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

int main(int argc, char **argv)
{
    const char *device = NULL, *args = "512,512,512", *workers_text = NULL;
    int n_configs = 8, n_runs = 3, number = 1, repeat = 1, check = 0, keep_cache = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && v) device = argv[++i];
        else if (!strcmp(a, "--args") && v) args = argv[++i];
        else if (!strcmp(a, "--configs") && v) n_configs = atoi(argv[++i]);
        else if (!strcmp(a, "--runs") && v) n_runs = atoi(argv[++i]);
        else if (!strcmp(a, "--workers") && v) workers_text = argv[++i];
        else if (!strcmp(a, "--number") && v) number = atoi(argv[++i]);
        else if (!strcmp(a, "--repeat") && v) repeat = atoi(argv[++i]);
        else if (!strcmp(a, "--check")) check = 1;
        else if (!strcmp(a, "--keep-cache")) keep_cache = 1;
        else {
            fprintf(stderr, "usage: %s [--device SPEC] [--args N,L,M] [--configs K] [--runs R] [--workers 1,2] "
                            "[--number N] [--repeat N] [--check] [--keep-cache]\n", argv[0]);
            return 2;
        }
    }
    if (n_configs < 1 || n_configs > 64 || n_runs < 1 || number < 1 || repeat < 1) {
        fprintf(stderr, "bench_measure: bad option value\n");
        return 2;
    }
    /* cold compiles on NVIDIA too: its driver keeps a compute cache of its own */
    if (!keep_cache) setenv("CUDA_CACHE_DISABLE", "1", 1);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int worker_counts[8], n_counts = 0;
    if (workers_text) {
        for (const char *p = workers_text; *p && n_counts < 8;) {
            worker_counts[n_counts++] = atoi(p);
            p += strcspn(p, ",");
            if (*p) p++;
        }
    } else {
        worker_counts[n_counts++] = 1;
        if (cores > 1) worker_counts[n_counts++] = (int)cores;
    }

    at_task *task;
    if (at_task_create("testing/matmul", AT_TARGET_OPENCL, args, &task) != AT_OK) {
        fprintf(stderr, "bench_measure: %s\n", at_last_error());
        return 1;
    }
    printf("testing/matmul %s float32, %d configs per run, %d runs per worker count, number=%d repeat=%d, "
           "cooldown none, check_correctness=%s, cold kernel cache per run%s\n",
           args, n_configs, n_runs, number, repeat, check ? "on" : "off", keep_cache ? " (kept: warm)" : "");
    int rc = 0;
    for (int wc = 0; wc < n_counts && rc == 0; wc++) {
        int w = worker_counts[wc];
        double *tps = at_calloc((size_t)n_runs, sizeof *tps);
        size_t cap = (size_t)n_runs * (size_t)n_configs;
        double *over = at_calloc(cap, sizeof *over), *comp = at_calloc(cap, sizeof *comp),
               *launch = at_calloc(cap, sizeof *launch), *run = at_calloc(cap, sizeof *run),
               *other = at_calloc(cap, sizeof *other), *startup = at_calloc((size_t)n_runs, sizeof *startup);
        size_t n_t = 0, n_failed = 0;
        char devname[300] = "";
        for (int r = 0; r < n_runs && rc == 0; r++) {
            char dir[] = "/tmp/autotvm_bench_XXXXXX";
            if (!mkdtemp(dir)) {
                fprintf(stderr, "bench_measure: mkdtemp: %s\n", strerror(errno));
                rc = 1;
                break;
            }
            at_measure_opts o = {.number = number, .repeat = repeat, .cooldown_ms = -1, .n_parallel = w,
                                 .check_correctness = check != 0, .device = device,
                                 .cache_dir = keep_cache ? "/tmp/autotvm_bench_cache" : dir};
            double t0 = at_clock_mono_s();
            at_meas_ocl *m;
            if (at_meas_ocl_new(&o, &m) != AT_OK) {
                fprintf(stderr, "bench_measure: %s\n", at_last_error());
                remove_tree(dir);
                rc = 1;
                break;
            }
            startup[r] = at_clock_mono_s() - t0;
            const at_ocl_device_info *dev = at_meas_ocl_device(m);
            snprintf(devname, sizeof devname, "%s / %s", dev->platform, dev->name);
            int64_t idx[64];
            size_t k = pick_configs(task, dev, 1000 + (uint64_t)r, idx, (size_t)n_configs);
            at_config *cfg[64];
            at_meas_input in[64];
            at_result res[64];
            for (size_t i = 0; i < k; i++) {
                if (at_task_config(task, idx[i], &cfg[i]) != AT_OK) abort();
                in[i] = (at_meas_input){task, cfg[i]};
                at_result_init(&res[i]);
            }
            double t1 = at_clock_mono_s();
            at_status st = at_meas_ocl_measure(m, in, k, res);
            double wall = at_clock_mono_s() - t1;
            if (st != AT_OK) {
                fprintf(stderr, "bench_measure: %s\n", at_last_error());
                rc = 1;
            }
            tps[r] = (double)k / wall;
            size_t nt;
            const at_meas_times *times = at_meas_ocl_last_times(m, &nt);
            for (size_t i = 0; i < k; i++) {
                if (res[i].err != AT_MEAS_OK) {
                    n_failed++;
                    fprintf(stderr, "config %lld: %s: %s\n", (long long)idx[i], at_meas_err_name(res[i].err), res[i].msg);
                } else if (n_t < cap) {
                    const at_meas_times *x = &times[i];
                    comp[n_t] = x->compile_s;
                    launch[n_t] = x->first_launch_s;
                    run[n_t] = x->run_s;
                    over[n_t] = x->total_s - x->compile_s - x->first_launch_s - x->run_s;
                    other[n_t] = x->prepare_s + x->instantiate_s + x->codegen_s + x->check_s;
                    n_t++;
                }
                at_result_fini(&res[i]);
                at_config_free(cfg[i]);
            }
            at_meas_ocl_free(m);
            if (!keep_cache) remove_tree(dir);
        }
        if (rc == 0) {
            double per_run[64];
            memcpy(per_run, tps, (size_t)n_runs * sizeof *tps);
            printf("\ndevice: %s\n", devname);
            printf("workers=%d: %.3f trials/s (median of %d runs:", w, median(per_run, (size_t)n_runs), n_runs);
            for (int r = 0; r < n_runs; r++) printf(" %.3f", tps[r]);
            printf("), pool start %.2f s, %zu failed trials\n", median(startup, (size_t)n_runs), n_failed);
            printf("  per trial (median over %zu trials): clBuildProgram %.1f ms, first launch (one work-group: PoCL codegen) "
                   "%.1f ms, timed run (warm-up + number x repeat) %.1f ms\n",
                   n_t, median(comp, n_t) * 1e3, median(launch, n_t) * 1e3, median(run, n_t) * 1e3);
            if (w == 1) { /* with more workers a trial's wall time also holds waiting for the others */
                double mean = 0;
                for (size_t i = 0; i < n_t; i++) mean += over[i] / (double)(n_t ? n_t : 1);
                printf("  host overhead per trial outside device compile and run: %.2f ms median, %.2f ms mean "
                       "(schedule+codegen+data+check inside it: %.2f ms median; target <= 10 ms)\n",
                       median(over, n_t) * 1e3, mean * 1e3, median(other, n_t) * 1e3);
            }
        }
        at_free(tps);
        at_free(over);
        at_free(comp);
        at_free(launch);
        at_free(run);
        at_free(other);
        at_free(startup);
    }
    at_task_free(task);
    return rc;
}
