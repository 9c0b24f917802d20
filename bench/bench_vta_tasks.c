/* bench_vta_tasks: per resnet-18 VTA conv task (spec templates_vta.md §5.6), GOPS and % of the
 * GEMM peak on the VTA simulator for (a) the TopHub config (the fastest pynq record of the pack
 * for that workload) and (b) the best of N trials of xgb_rank tuned on the simulator; for each,
 * with its virtual threads as configured and with them switched (oc_nthread = h_nthread = 1 when
 * it has them, else the best valid of 2x1 / 1x2 / 2x2, same tiles); plus the simulator's speed
 * (simulated cycles per wall second of one measurement, median) and the tuning wall time per
 * trial. Every figure is measured at run time (the cycle model's constants are vta/timing.c's);
 * the only numbers in this file are the workloads.
 *
 * usage: bench_vta_tasks [--trials N] [--tasks LIST] [--seed S] [--tophub PATH]
 *                        [--vta-config FILE] [--reps R]
 * (defaults: 200 trials, tasks 1-10, seed 0, ../shared/data/tophub/vta_v0.10.log or
 * $AT_SHARED_DIR's, the pynq 1x16 config, 5 timed measurements per config for the speed) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime(CLOCK_PROCESS_CPUTIME_ID) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/strbuf.h"
#include "measure/vta_runner.h"
#include "records/log.h"
#include "records/record.h"
#include "templates/ops.h"
#include "tune/tune.h"
#include "tuners/tuner.h"
#include "vta/hw.h"

/* The 10 conv2d tasks of the VTA tutorial in extraction order: packed data (CI/16, H = W),
 * packed kernel (CO/16, K), stride, padding. */
static const struct {
    int ci_b, hw, co_b, k, stride, pad;
} tasks[10] = {
    {16, 14, 32, 1, 2, 0}, {8, 28, 16, 1, 2, 0}, {4, 56, 8, 1, 2, 0}, {4, 56, 4, 3, 1, 1},  {8, 28, 8, 3, 1, 1},
    {4, 56, 8, 3, 2, 1},   {16, 14, 16, 3, 1, 1}, {8, 28, 16, 3, 2, 1}, {32, 7, 32, 3, 1, 1}, {16, 14, 32, 3, 2, 1},
};

static void die(const char *what)
{
    fprintf(stderr, "bench_vta_tasks: %s: %s\n", what, at_last_error());
    exit(1);
}

/* This process's CPU seconds: on a loaded machine wall time overstates the work. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One config's simulated run. */
typedef struct run {
    int64_t  index;     /* -1: none */
    int      oc, h;     /* oc_nthread, h_nthread */
    bool     ok;        /* ran (and, when checked, bit-exact) */
    uint64_t cycles;
    double   gops;
    double   mcyc_per_s;     /* median simulated cycles per wall second of one measurement */
    double   mcyc_per_cpu_s; /* the same per CPU second of this process */
    at_meas_err err;
} run;

typedef struct ctx {
    const at_vta_hw *hw;
    const at_task   *task;
    size_t           k_oc, k_h; /* knob positions of oc_nthread, h_nthread */
    size_t           n_checked, n_wrong; /* runs compared with the reference / not bit-exact */
} ctx;

/* Measures config index of the task (reps > 0: timed that many times for the speed). */
static run measure(ctx *c, int64_t index, bool check, int reps)
{
    run r = {.index = index, .err = AT_MEAS_UNKNOWN_ERROR};
    at_config *cfg = NULL;
    if (at_task_config(c->task, index, &cfg) != AT_OK) die("config");
    r.oc = (int)at_config_other_int(cfg, c->k_oc);
    r.h = (int)at_config_other_int(cfg, c->k_h);
    double wall[64], cpu[64];
    int n = reps > 0 ? (reps < 64 ? reps : 64) : 1;
    /* run 0 checks the output against the reference (untimed when reps > 0); runs 1..n are timed */
    int first = check && reps > 0 ? -1 : 0;
    for (int i = first; i < n; i++) {
        at_result res;
        at_result_init(&res);
        at_vta_stats st;
        double t0 = at_clock_mono_s(), c0 = cpu_s();
        if (at_meas_vta_measure_one(c->hw, c->task, cfg, check && i == first, 1, &res, &st) != AT_OK) die("measure");
        if (i >= 0) {
            wall[i] = at_clock_mono_s() - t0;
            cpu[i] = cpu_s() - c0;
        }
        if (check && i == first && (res.err == AT_MEAS_OK || res.err == AT_MEAS_WRONG_ANSWER)) {
            c->n_checked++;
            c->n_wrong += res.err == AT_MEAS_WRONG_ANSWER;
        }
        r.err = res.err;
        r.ok = res.err == AT_MEAS_OK;
        if (r.ok) {
            r.cycles = st.cycles;
            r.gops = at_tuner_result_flops(c->task, &res) / 1e9;
        }
        at_result_fini(&res);
        if (!r.ok) break;
    }
    if (r.ok) {
        double v[64], u[64];
        for (int i = 0; i < n; i++) {
            v[i] = (double)r.cycles / wall[i] / 1e6;
            u[i] = (double)r.cycles / cpu[i] / 1e6;
        }
        r.mcyc_per_s = median(v, n);
        r.mcyc_per_cpu_s = median(u, n);
    }
    at_config_free(cfg);
    return r;
}

/* index with oc_nthread / h_nthread set to the candidates oc_i / h_i (0: 1, 1: 2). */
static int64_t with_vthreads(ctx *c, int64_t index, int64_t oc_i, int64_t h_i)
{
    const at_space *sp = at_task_space(c->task);
    int64_t knobs[16];
    at_space_point_to_knobs(sp, index, knobs);
    knobs[c->k_oc] = oc_i;
    knobs[c->k_h] = h_i;
    return at_space_knobs_to_point(sp, knobs);
}

/* The other side of index's virtual threads: off (1x1) when it has them, else the fastest valid
 * of 2x1, 1x2, 2x2 (r.index -1 and !ok when none runs). */
static run switched(ctx *c, const run *own)
{
    if (own->oc > 1 || own->h > 1) return measure(c, with_vthreads(c, own->index, 0, 0), true, 0);
    run best = {.index = -1};
    static const int64_t v[3][2] = {{1, 0}, {0, 1}, {1, 1}};
    for (int i = 0; i < 3; i++) {
        run r = measure(c, with_vthreads(c, own->index, v[i][0], v[i][1]), true, 0);
        if (r.ok && (!best.ok || r.gops > best.gops)) best = r;
    }
    if (!best.ok) best.index = -2; /* no virtual-thread variant of these tiles runs */
    return best;
}

static void fmt_run(char *buf, size_t n, const run *r, double peak, bool with_index)
{
    char idx[32] = "";
    if (with_index) snprintf(idx, sizeof idx, "%6lld ", (long long)r->index);
    if (r->index == -2)
        snprintf(buf, n, "%s%s", idx, "no vt variant fits");
    else if (r->index < 0)
        snprintf(buf, n, "%s%3s %6s %6s", idx, "-", "-", "-");
    else if (!r->ok) /* the error's name (e.g. INSTANTIATION_ERROR) in place of the figures */
        snprintf(buf, n, "%s%dx%d %.13s", idx, r->oc, r->h, at_meas_err_name(r->err));
    else
        snprintf(buf, n, "%s%dx%d %6.2f %5.1f%%", idx, r->oc, r->h, r->gops, 100.0 * r->gops / peak);
}

int main(int argc, char **argv)
{
    size_t n_trial = 200;
    uint64_t seed = 0;
    int reps = 5;
    const char *tophub = NULL, *only = NULL, *vta_config = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) goto usage;
        if (!strcmp(a, "--trials")) n_trial = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--tasks")) only = v;
        else if (!strcmp(a, "--tophub")) tophub = v;
        else if (!strcmp(a, "--vta-config")) vta_config = v;
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else goto usage;
        i++;
    }
    if (n_trial == 0 || reps < 1) goto usage;
    bool want[10];
    for (int t = 0; t < 10; t++) want[t] = only == NULL;
    for (const char *p = only; p && *p;) {
        char *end;
        long t = strtol(p, &end, 10);
        if (end == p || t < 1 || t > 10) goto usage;
        want[t - 1] = true;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') goto usage;
    }
    char path[1024];
    if (!tophub) {
        const char *shared = getenv("AT_SHARED_DIR");
        snprintf(path, sizeof path, "%s/data/tophub/vta_v0.10.log", shared && *shared ? shared : "../shared");
        tophub = path;
    }
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    if (vta_config && at_vta_hw_load(vta_config, &hw) != AT_OK) die(vta_config);
    at_rec_log *log = NULL;
    if (at_rec_log_load_file(tophub, &log) != AT_OK) die(tophub);
    char pack_model[AT_VTA_MODEL_MAX + 8];
    snprintf(pack_model, sizeof pack_model, "pynq_%s", hw.bitstream);
    char target[128];
    snprintf(target, sizeof target, "ext_dev -device=vta -keys=cpu -model=sim_%s", hw.bitstream);
    printf("bench_vta_tasks: simulator %s (%d MHz, GEMM peak %.1f GOPS), TopHub %s (%s records), xgb_rank %zu trials, "
           "seed %llu\n",
           hw.bitstream, hw.fpga_freq_mhz, hw.gemm_peak_gops, tophub, pack_model, n_trial, (unsigned long long)seed);
    printf("GOPS on the simulator: config index, virtual threads oc x h, simulated GOPS, %% of peak;\n"
           "'switched' = the same tiles with virtual threads off (1x1) when the config has them, else the\n"
           "fastest of 2x1/1x2/2x2; pynq = TopHub's measured GOPS on the board; best = trial that found\n"
           "the tuned best; exact = of the configs in the row that ran, how many gave output bit-exact to\n"
           "the int8 reference (all are checked)\n\n");
    printf("%-2s %-19s %6s | %-24s %-17s %6s | %-24s %-17s | %5s %5s\n", "", "", "", "TopHub config (pynq)",
           "switched", "pynq", "xgb_rank best", "switched", "best", "");
    printf("%-2s %-19s %6s | %6s %3s %6s %6s %3s %6s %6s %6s | %6s %3s %6s %6s %3s %6s %6s | %5s %5s\n", "#",
           "CI,HW->CO,KxK,s", "MFLOP", "idx", "vt", "GOPS", "%peak", "vt", "GOPS", "%peak", "GOPS", "idx", "vt", "GOPS",
           "%peak", "vt", "GOPS", "%peak", "trial", "exact");
    /* speed per task: tuning wall and CPU s/trial, measurement Mcyc per wall and CPU second */
    double speed[10][4];
    /* simulated seconds summed over the tasks: [TopHub, tuned] x [vt off, vt on] (on = the config
     * itself or its best vthread variant; off when none fits) */
    double tot[2][2] = {{0, 0}, {0, 0}}, tot_flop = 0;
    for (int t = 0; t < 10; t++) {
        if (!want[t]) continue;
        char args[512];
        snprintf(args, sizeof args,
                 "[[\"TENSOR\", [1, %d, %d, %d, 1, 16], \"int8\"], [\"TENSOR\", [%d, %d, %d, %d, 16, 16], \"int8\"], "
                 "[%d, %d], [%d, %d, %d, %d], [1, 1], \"NCHW1n16c\", \"int32\"]",
                 tasks[t].ci_b, tasks[t].hw, tasks[t].hw, tasks[t].co_b, tasks[t].ci_b, tasks[t].k, tasks[t].k,
                 tasks[t].stride, tasks[t].stride, tasks[t].pad, tasks[t].pad, tasks[t].pad, tasks[t].pad);
        at_task *task = NULL;
        if (at_task_create("conv2d_packed.vta", AT_TARGET_VTA, args, &task) != AT_OK) die("task");
        ctx c = {.hw = &hw, .task = task};
        if (!at_space_find_knob(at_task_space(task), "oc_nthread", &c.k_oc) ||
            !at_space_find_knob(at_task_space(task), "h_nthread", &c.k_h))
            die("knobs");
        if (at_space_n_knobs(at_task_space(task)) > 16) die("more than 16 knobs");
        double flop = at_task_flop(task);

        /* (a) TopHub: the pack's fastest valid record of this workload on the pynq model */
        at_strbuf canon;
        at_strbuf_init(&canon);
        at_strbuf_putc(&canon, '[');
        at_op_args_write_json(at_task_args(task), &canon);
        at_strbuf_putc(&canon, ']');
        const at_rec *best_rec = NULL;
        for (size_t i = 0; i < log->n; i++) {
            const at_rec *r = &log->recs[i];
            if (strcmp(r->task_name, "conv2d_packed.vta") || strcmp(r->target.model, pack_model) ||
                strcmp(r->args_json, at_strbuf_cstr(&canon)) || r->result.err != AT_MEAS_OK)
                continue;
            if (!best_rec || at_rec_cost(r) < at_rec_cost(best_rec)) best_rec = r;
        }
        at_strbuf_fini(&canon);
        run th = {.index = -1}, th_sw = {.index = -1};
        double pynq_gops = 0;
        if (best_rec) {
            int64_t idx;
            if (at_space_index_of_as_given(at_task_space(task), best_rec->config, &idx) != AT_OK) die("TopHub config");
            pynq_gops = flop / at_rec_cost(best_rec) / 1e9;
            th = measure(&c, idx, true, reps);
            th_sw = switched(&c, &th);
        }

        /* (b) xgb_rank on the simulator */
        at_tuner *tuner = NULL;
        at_meas_runner *runner = NULL;
        at_tuner_opts tu = {.seed = seed};
        at_measure_opts mo = {0};
        if (at_tuner_new("xgb_rank", task, &tu, &tuner) != AT_OK) die("tuner");
        if (at_meas_vta_runner_new(&hw, &mo, &runner) != AT_OK) die("runner");
        at_tune_opts to = {.n_trial = n_trial, .target_str = target};
        at_tune_result res;
        double t0 = at_clock_mono_s(), c0 = cpu_s();
        if (at_tune_task(task, tuner, runner, &to, &res) != AT_OK) die("tune");
        double tune_s = at_clock_mono_s() - t0, tune_cpu_s = cpu_s() - c0;
        at_meas_runner_free(runner);
        at_tuner_free(tuner);
        run tu_r = {.index = -1}, tu_sw = {.index = -1};
        if (res.best_index >= 0) {
            tu_r = measure(&c, res.best_index, true, reps);
            tu_sw = switched(&c, &tu_r);
        }

        char wl[64], a[64], as[64], b[64], bs[64];
        snprintf(wl, sizeof wl, "%d,%d->%d,%dx%d,s%d", tasks[t].ci_b * 16, tasks[t].hw, tasks[t].co_b * 16, tasks[t].k,
                 tasks[t].k, tasks[t].stride);
        fmt_run(a, sizeof a, &th, hw.gemm_peak_gops, true);
        fmt_run(as, sizeof as, &th_sw, hw.gemm_peak_gops, false);
        fmt_run(b, sizeof b, &tu_r, hw.gemm_peak_gops, true);
        fmt_run(bs, sizeof bs, &tu_sw, hw.gemm_peak_gops, false);
        /* speed: the mean of the TopHub and tuned configs' medians */
        double n_sp = (double)(th.ok + tu_r.ok), trials = (double)(res.n_trials ? res.n_trials : 1);
        speed[t][0] = tune_s / trials;
        speed[t][1] = tune_cpu_s / trials;
        speed[t][2] = n_sp ? ((th.ok ? th.mcyc_per_s : 0) + (tu_r.ok ? tu_r.mcyc_per_s : 0)) / n_sp : 0;
        speed[t][3] = n_sp ? ((th.ok ? th.mcyc_per_cpu_s : 0) + (tu_r.ok ? tu_r.mcyc_per_cpu_s : 0)) / n_sp : 0;
        char exact[32]; /* configs that ran, all compared with the int8 reference */
        snprintf(exact, sizeof exact, "%zu/%zu", c.n_checked - c.n_wrong, c.n_checked);
        printf("%-2d %-19s %6.1f | %-24s %-17s %6.2f | %-24s %-17s | %5zu %5s\n", t + 1, wl, flop / 1e6, a, as,
               pynq_gops, b, bs, res.best_iter + 1, exact);
        fflush(stdout);
        if (th.ok && tu_r.ok) {
            const run *own[2] = {&th, &tu_r}, *sw[2] = {&th_sw, &tu_sw};
            tot_flop += flop;
            for (int k = 0; k < 2; k++) {
                bool own_on = own[k]->oc > 1 || own[k]->h > 1;
                const run *off = own_on ? sw[k] : own[k], *on = own_on ? own[k] : sw[k]->ok ? sw[k] : own[k];
                tot[k][0] += flop / ((off->ok ? off->gops : on->gops) * 1e9);
                tot[k][1] += flop / (on->gops * 1e9);
            }
        }
        at_task_free(task);
    }
    if (tot_flop > 0)
        printf("\nsum over the tasks listed (simulated): TopHub configs %.3f ms (%.2f GOPS) with virtual threads, %.3f "
               "ms (%.2f GOPS) without;\n  xgb_rank best %.3f ms (%.2f GOPS) with, %.3f ms (%.2f GOPS) without\n",
               tot[0][1] * 1e3, tot_flop / tot[0][1] / 1e9, tot[0][0] * 1e3, tot_flop / tot[0][0] / 1e9,
               tot[1][1] * 1e3, tot_flop / tot[1][1] / 1e9, tot[1][0] * 1e3, tot_flop / tot[1][0] / 1e9);
    printf("\nspeed: tuning time per trial (measurement, XGBoost fits and SA), wall and CPU seconds of this\n"
           "process; simulator speed = simulated cycles per second of one measurement (instantiate, lower,\n"
           "simulate), median of %d runs per config, mean over the TopHub and tuned configs\n\n",
           reps);
    printf("%-2s %12s %12s %14s %14s\n", "#", "wall s/trial", "CPU s/trial", "Mcycles/wall-s", "Mcycles/CPU-s");
    double col[4][10];
    int n_rows = 0;
    for (int t = 0; t < 10; t++) {
        if (!want[t]) continue;
        printf("%-2d %12.4f %12.4f %14.2f %14.2f\n", t + 1, speed[t][0], speed[t][1], speed[t][2], speed[t][3]);
        for (int k = 0; k < 4; k++) col[k][n_rows] = speed[t][k];
        n_rows++;
    }
    if (n_rows > 1)
        printf("%-2s %12.4f %12.4f %14.2f %14.2f\n", "md", median(col[0], n_rows), median(col[1], n_rows),
               median(col[2], n_rows), median(col[3], n_rows));
    at_rec_log_free(log);
    return 0;
usage:
    fprintf(stderr,
            "usage: %s [--trials N] [--tasks 1,4,9] [--seed S] [--tophub PATH] [--vta-config FILE] [--reps R]\n",
            argv[0]);
    return 2;
}
