/* bench_measure: measurement throughput through the OpenCL worker pool, two ways.
 *
 * Default (testing/matmul, 512^3): batches of distinct configs, a cold kernel cache per run (every
 * config compiles), trials/s with 1 and with N worker processes, and the host overhead per trial
 * outside the device compile and run. Each figure is the median of several runs.
 *
 * --template NAME (issue 18's T1): `autotvm tune-task NAME --tuner random` as the CLI runs it (the
 * same tune loop, tuner, pool and default measure options: TVM's LocalRunner, number 4, repeat 3,
 * min_repeat_ms 0, cooldown 0.1 s, builders = cores), a cold kernel cache per run, and where each
 * run's wall time went: pool start, the tuner's process, build phases (instantiate, codegen,
 * clBuildProgram, first launch = PoCL's code generation, a built program waiting for its run), runs,
 * cooldown.
 *
 * usage: bench_measure [--device SPEC] [--args N,L,M] [--configs K] [--runs R] [--workers 1,2]
 *                      [--number N] [--repeat N] [--check] [--keep-cache]
 *        bench_measure --template NAME [--target opencl|mali] --args ARGS [--trials N] [--seed S]
 *                      [--tuner random] [--runs R] [--workers N] [--number N] [--repeat N]
 *                      [--cooldown-ms N] [--keep-cache] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/rng.h"
#include "measure/ocl.h"
#include "tune/tune.h"
#include "tuners/tuner.h"

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

/* ---- --template: the CLI's tune loop, and where its wall time goes ---------------------------- */

typedef struct tmode {
    const char *name, *target, *args, *tuner, *device;
    int         trials, seed, runs, workers, number, repeat, cooldown_ms, keep_cache;
} tmode;

/* Per-trial stage times of every measure call of one run (at_meas_ocl_last_times is per call). */
typedef struct trial_log {
    at_meas_runner *inner;
    at_meas_times  *t;
    bool           *ok;
    size_t          n, cap;
    size_t          n_calls, n_short_calls; /* measure calls, of which with fewer inputs than workers */
    int             runs_per_trial; /* number x repeat: the timed kernel runs after the warm-up */
    double          kernel_s;       /* device time of every run, warm-up included (estimated from
                                       the results' mean costs) */
} trial_log;

static at_status logging_measure(void *ctx, const at_meas_input *in, size_t n, at_result *res)
{
    trial_log *tl = ctx;
    at_status st = at_meas_runner_measure(tl->inner, in, n, res);
    tl->n_calls++;
    if (n < at_meas_runner_batch_size(tl->inner)) tl->n_short_calls++;
    size_t nt;
    const at_meas_times *t = at_meas_ocl_last_times(at_meas_ocl_of(tl->inner), &nt);
    for (size_t i = 0; i < nt && tl->n < tl->cap; i++, tl->n++) {
        tl->t[tl->n] = t[i];
        tl->ok[tl->n] = res[i].err == AT_MEAS_OK;
        if (res[i].err == AT_MEAS_OK && res[i].n_costs > 0) {
            double mean = 0;
            for (size_t c = 0; c < res[i].n_costs; c++) mean += res[i].costs_s[c] / (double)res[i].n_costs;
            tl->kernel_s += (double)(1 + tl->runs_per_trial) * mean;
        }
    }
    return st;
}

static size_t logging_batch(void *ctx)
{
    return at_meas_runner_batch_size(((trial_log *)ctx)->inner);
}

static at_status logging_check(void *ctx, const at_ir_program *p)
{
    return at_meas_runner_check(((trial_log *)ctx)->inner, p);
}

static const at_meas_runner_i logging_i = {
    .name = "opencl", .measure = logging_measure, .batch_size = logging_batch, .check = logging_check,
};

/* A new PoCL kernel cache directory from the mkdtemp template dir (a cold cache per run). */
static bool fresh_dir(char *dir)
{
    if (mkdtemp(dir)) return true;
    fprintf(stderr, "bench_measure: mkdtemp: %s\n", strerror(errno));
    return false;
}

/* One run's sums (seconds) and medians (ms). */
enum { F_WALL, F_TPS, F_CALLS, F_SHORT, F_START, F_HOST, F_BUILD, F_BARRIER, F_RUNS, F_KERNEL, F_COOL, F_OTHER, F_PREP, F_INST, F_CODEGEN,
       F_COMPILE, F_LAUNCH, F_TIMED, F_CHECK, F_MED_COMPILE, F_MED_LAUNCH, F_MED_TIMED, F_COUNT };

static const char *const field_name[F_COUNT] = {
    [F_WALL] = "wall time of the tune loop (s)",
    [F_TPS] = "trials/s",
    [F_CALLS] = "measure calls (chunks)",
    [F_SHORT] = "  of which with fewer inputs than workers",
    [F_START] = "pool start: fork + PoCL init (s)",
    [F_HOST] = "tuner's process between measure calls (s)",
    [F_BUILD] = "builds with no run going, wall (s)",
    [F_BARRIER] = "  built programs waiting for their run (worker s)",
    [F_RUNS] = "runs, wall: RUN sent to result (s)",
    [F_KERNEL] = "  kernels on the device: (1 + number x repeat) x mean cost (s)",
    [F_COOL] = "cooldown slept before a run (s)",
    [F_OTHER] = "rest of measure calls (dispatch, revive) (s)",
    [F_PREP] = "  per build: task data (worker s, summed)",
    [F_INST] = "  per build: instantiate (worker s, summed)",
    [F_CODEGEN] = "  per build: OpenCL C codegen + limits (worker s, summed)",
    [F_COMPILE] = "  per build: clBuildProgram (worker s, summed)",
    [F_LAUNCH] = "  per build: first launch = PoCL codegen (worker s, summed)",
    [F_TIMED] = "  per run: warm-up + timed rounds (worker s, summed)",
    [F_CHECK] = "  per run: output check (worker s, summed)",
    [F_MED_COMPILE] = "median clBuildProgram per trial (ms)",
    [F_MED_LAUNCH] = "median first launch per trial (ms)",
    [F_MED_TIMED] = "median timed run per trial (ms)",
};

static int template_mode(const tmode *tm)
{
    at_task *task;
    if (at_task_create(tm->name, AT_TARGET_OPENCL, tm->args, &task) != AT_OK) {
        fprintf(stderr, "bench_measure: %s\n", at_last_error());
        return 1;
    }
    const char *target_str = strcmp(tm->target, "mali") ? "opencl" : "opencl -device=mali";
    printf("%s %s, tuner %s seed %d, %d trials, workers %d, number %d repeat %d cooldown %d ms "
           "(0 = TVM's defaults: 4, 3, 100), %s kernel cache per run\n",
           tm->name, tm->args, tm->tuner, tm->seed, tm->trials, tm->workers, tm->number, tm->repeat, tm->cooldown_ms,
           tm->keep_cache ? "warm (kept)" : "cold");
    double f[64][F_COUNT];
    int rc = 0, runs = tm->runs > 64 ? 64 : tm->runs;
    for (int r = 0; r < runs && rc == 0; r++) {
        char dir[] = "/tmp/autotvm_bench_XXXXXX";
        if (!fresh_dir(dir)) {
            rc = 1;
            break;
        }
        at_measure_opts o = {.number = tm->number, .repeat = tm->repeat, .cooldown_ms = tm->cooldown_ms,
                             .n_parallel = tm->workers, .device = tm->device,
                             .cache_dir = tm->keep_cache ? "/tmp/autotvm_bench_cache" : dir};
        trial_log tl = {.cap = (size_t)tm->trials + 64,
                        .runs_per_trial = (tm->number ? tm->number : 4) * (tm->repeat ? tm->repeat : 3)};
        tl.t = at_calloc(tl.cap, sizeof *tl.t);
        tl.ok = at_calloc(tl.cap, sizeof *tl.ok);
        at_tuner_opts tu = {.seed = (uint64_t)tm->seed};
        at_tuner *tuner = NULL;
        at_meas_runner *runner = NULL;
        at_tune_result res;
        double t0 = at_clock_mono_s(), t1 = t0, t2 = t0;
        at_status st = tl.t && tl.ok ? AT_OK : AT_ENOMEM;
        if (st == AT_OK) st = at_tuner_new(tm->tuner, task, &tu, &tuner);
        if (st == AT_OK) st = at_meas_ocl_runner_new(&o, &tl.inner);
        t1 = at_clock_mono_s();
        if (st == AT_OK) st = at_meas_runner_new(&logging_i, &tl, &runner);
        at_tune_opts to = {.n_trial = (size_t)tm->trials, .target_str = target_str};
        if (st == AT_OK) st = at_tune_task(task, tuner, runner, &to, &res);
        t2 = at_clock_mono_s();
        if (st != AT_OK) {
            fprintf(stderr, "bench_measure: %s\n", at_last_error());
            rc = 1;
        } else {
            at_meas_ocl_stats s;
            at_meas_ocl_stats_get(at_meas_ocl_of(tl.inner), &s);
            double *v = f[r];
            memset(v, 0, sizeof f[r]);
            v[F_WALL] = t2 - t0;
            v[F_TPS] = (double)res.n_trials / (t2 - t0);
            v[F_START] = t1 - t0;
            v[F_CALLS] = (double)tl.n_calls;
            v[F_SHORT] = (double)tl.n_short_calls;
            v[F_HOST] = (t2 - t1) - s.measure_s;
            v[F_BUILD] = s.build_phase_s;
            v[F_BARRIER] = s.barrier_s;
            v[F_RUNS] = s.run_phase_s;
            v[F_KERNEL] = tl.kernel_s;
            v[F_COOL] = s.cooldown_s;
            v[F_OTHER] = s.measure_s - s.build_phase_s - s.run_phase_s - s.cooldown_s;
            double *comp = at_calloc(tl.n + 1, sizeof *comp), *launch = at_calloc(tl.n + 1, sizeof *launch),
                   *timed = at_calloc(tl.n + 1, sizeof *timed);
            size_t nc = 0, nl = 0, nr = 0;
            for (size_t i = 0; i < tl.n; i++) {
                const at_meas_times *x = &tl.t[i];
                v[F_PREP] += x->prepare_s;
                v[F_INST] += x->instantiate_s;
                v[F_CODEGEN] += x->codegen_s;
                v[F_COMPILE] += x->compile_s;
                v[F_LAUNCH] += x->first_launch_s;
                v[F_TIMED] += x->run_s;
                v[F_CHECK] += x->check_s;
                if (comp && x->compiled) comp[nc++] = x->compile_s;
                if (launch && x->compiled) launch[nl++] = x->first_launch_s;
                if (timed && tl.ok[i]) timed[nr++] = x->run_s;
            }
            v[F_MED_COMPILE] = median(comp, nc) * 1e3;
            v[F_MED_LAUNCH] = median(launch, nl) * 1e3;
            v[F_MED_TIMED] = median(timed, nr) * 1e3;
            at_free(comp);
            at_free(launch);
            at_free(timed);
            printf("run %d: %zu trials (%zu failed, %zu proposals could not instantiate) in %.2f s = %.3f trials/s\n", r + 1,
                   res.n_trials, res.n_errors, res.n_invalid, v[F_WALL], v[F_TPS]);
            fflush(stdout);
        }
        at_meas_runner_free(runner); /* not the inner one: the wrapper does not own it */
        at_meas_runner_free(tl.inner);
        at_tuner_free(tuner);
        at_free(tl.t);
        at_free(tl.ok);
        if (!tm->keep_cache) remove_tree(dir);
    }
    if (rc == 0) {
        printf("\nmedian of %d runs (each run's figure in brackets)\n", runs);
        for (int k = 0; k < F_COUNT; k++) {
            double col[64];
            for (int r = 0; r < runs; r++) col[r] = f[r][k];
            printf("  %-58s %9.3f  [", field_name[k], median(col, (size_t)runs));
            for (int r = 0; r < runs; r++) printf("%s%.3f", r ? " " : "", f[r][k]);
            printf("]\n");
        }
    }
    at_task_free(task);
    return rc;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *args = NULL, *workers_text = NULL;
    int n_configs = 8, n_runs = 3, number = -1, repeat = -1, check = 0, keep_cache = 0;
    tmode tm = {.target = "mali", .tuner = "random", .trials = 64, .seed = 1};
    bool matmul_only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--template") && v) tm.name = argv[++i];
        else if (!strcmp(a, "--target") && v) tm.target = argv[++i];
        else if (!strcmp(a, "--trials") && v) tm.trials = atoi(argv[++i]);
        else if (!strcmp(a, "--seed") && v) tm.seed = atoi(argv[++i]);
        else if (!strcmp(a, "--tuner") && v) tm.tuner = argv[++i];
        else if (!strcmp(a, "--cooldown-ms") && v) tm.cooldown_ms = atoi(argv[++i]) ? atoi(argv[i]) : -1; /* 0: none */
        else if (!strcmp(a, "--device") && v) device = argv[++i];
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
                            "[--number N] [--repeat N] [--check] [--keep-cache]\n"
                            "       %s --template NAME [--target opencl|mali] --args ARGS [--trials N] [--seed S] "
                            "[--tuner random] [--runs R] [--workers N] [--number N] [--repeat N] [--cooldown-ms N] "
                            "[--keep-cache]\n", argv[0], argv[0]);
            return 2;
        }
        matmul_only |= !strcmp(a, "--configs") || !strcmp(a, "--check");
    }
    if (tm.name) {
        /* zero options are the pool's defaults (TVM's LocalRunner); a cooldown of 0 asks for none */
        tm.args = args;
        tm.device = device;
        tm.runs = n_runs;
        tm.keep_cache = keep_cache;
        tm.number = number < 0 ? 0 : number;
        tm.repeat = repeat < 0 ? 0 : repeat;
        tm.workers = workers_text ? atoi(workers_text) : 0;
        if (!args || matmul_only || (strcmp(tm.target, "mali") && strcmp(tm.target, "opencl")) || tm.trials < 1 ||
            n_runs < 1 || tm.number < 0 || tm.repeat < 0 || tm.workers < 0) {
            fprintf(stderr, "bench_measure: --template needs --args, --target opencl or mali, and no --configs/--check\n");
            return 2;
        }
        return template_mode(&tm);
    }
    if (!args) args = "512,512,512";
    if (number < 0) number = 1;
    if (repeat < 0) repeat = 1;
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
            if (!fresh_dir(dir)) {
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
