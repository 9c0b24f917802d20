/* bench_convergence: how fast each tuner converges on real resnet-18 Mali tasks, or, with
 * --oracle, on the tasks of a cost oracle (bench_oracle.h: logs that measured every config of
 * their tasks, replayed instead of measuring). Every (tuner, seed, task) run writes its own log;
 * the per-trial GFLOPS are read back from it in order, and the transfer-learning pass gives task
 * t the logs of the OTHER tasks of the same tuner and seed as history. Reported per task: the
 * best GFLOPS seen by any run (with --oracle: the best of the oracle, i.e. of the space), and per
 * tuner the median over seeds of the trials needed to reach 95 % of it, without and with transfer
 * learning.
 *
 *   bench_convergence [--device SPEC] [--workers N] [--n-trial N] [--seeds N] [--tuners LIST]
 *                     [--tasks LIST] [--number N] [--repeat N] [--log-dir DIR]
 *                     [--oracle DIR|LOG [--full] [--pct P]] [--in-order] [--first-seed K] [--per-run]
 *
 * With --oracle the tuners, the tuning loop and its trial counting are the real ones (a config
 * that cannot instantiate is no trial; one the oracle lacks is an error trial, and the report
 * says how many there were); a run stops once it reaches 95 % of the oracle's best, the one
 * figure reported, unless --full asks for every trial (transfer runs then learn from complete
 * logs). Defaults there: 1000 trials (capped at the space), 10 seeds, batches of 8 (--workers);
 * --pct P moves the target to P % of the oracle's best.
 *
 * --tasks takes the 1-based numbers of `autotvm tasks resnet-18 --ops all` (with --oracle: of the
 * oracle's workloads in order of appearance). A transfer run is
 * skipped (shown "-") when the tuner ignores history (random, ga, gridsearch) or the other
 * tasks gave it no record of the task's template: it would repeat the run without history.
 * Logs go to a temp dir removed at the end; with --log-dir they stay, and a complete run already
 * logged there is read instead of measured, so a long benchmark can be split over several
 * invocations (e.g. one per tuner) and reported whole by a last one with every tuner. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "bench/bench_oracle.h"
#include "core/log.h"
#include "measure/ocl.h"
#include "networks/extract.h"
#include "records/log.h"
#include "tune/tune.h"
#include "tuners/tuner.h"

enum { MAX_TASKS = 32, MAX_TUNERS = 16, MAX_SEEDS = 64 };

/* The per-trial GFLOPS of one run, in trial order; ran is false for a skipped run. */
typedef struct trace {
    double *gflops;
    size_t  n;
    size_t  n_hist;   /* history records the tuner learned from */
    size_t  n_missed; /* --oracle: trials the oracle had no record for */
    size_t  n_invalid;/* proposals that could not instantiate (no trials) */
    bool    ran;
} trace;

typedef struct bench {
    const at_net_tasks *ts;
    at_bench_oracle    *oracle;             /* --oracle; NULL: measure on OpenCL */
    bool                full;               /* --oracle --full: no stop at the target */
    bool                in_order;           /* --in-order: transfer from the tasks listed earlier */
    size_t              first_seed;         /* --first-seed: tuner seeds first_seed, first_seed + 1, ... */
    bool                per_run;            /* --per-run: one line per run (to merge split invocations) */
    double              frac;               /* --oracle: the target, a fraction of the best (--pct) */
    size_t              task_no[MAX_TASKS]; /* 1-based extraction (or oracle) numbers */
    size_t              n_tasks;
    const char         *tuner[MAX_TUNERS];
    size_t              n_tuners, n_seeds, n_trial;
    char                dir[512];
    bool                reuse;       /* --log-dir: read complete runs already there */
    size_t              n_measured;  /* trials measured by this invocation */
    at_meas_runner     *runner;
    trace               runs[2][MAX_TUNERS][MAX_SEEDS][MAX_TASKS]; /* [transfer][tuner][seed][task] */
} bench;

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_convergence [--device SPEC] [--workers N] [--n-trial N] [--seeds N]\n"
            "                         [--tuners random,ga,xgb,xgb_knob,xgb_rank,xgb_rank_knob]\n"
            "                         [--tasks 7,9,12,17] [--number N] [--repeat N] [--log-dir DIR]\n"
            "                         [--oracle DIR|LOG [--full] [--pct P]] [--in-order]\n"
            "                         [--first-seed K] [--per-run]\n"
            "--tasks: 1-based numbers of `autotvm tasks resnet-18 --ops all`; --log-dir keeps the logs\n"
            "and reuses the complete runs already logged there (not with --oracle); --oracle replays the\n"
            "logs of DIR (or LOG) instead of measuring, --full runs every trial instead of stopping at the\n"
            "target, --pct sets the target (default 95 %% of the oracle's best); --in-order gives each\n"
            "transfer run the transfer logs of the tasks listed before it (the order `tune` runs them in);\n"
            "--first-seed K seeds the tuners K, K+1, ...; --per-run prints each run's trials to the target\n"
            "(`run TUNER TASK TRANSFER SEED TRIALS`, -1: never), so split invocations can be merged\n");
    exit(2);
}

static const at_task *task_of(const bench *b, size_t k)
{
    if (b->oracle) return at_bench_oracle_at(b->oracle, b->task_no[k] - 1)->task;
    return at_net_tasks_at(b->ts, b->task_no[k] - 1);
}

/* --oracle: the throughput a run must reach (--pct, 95 % of the oracle's best); 0 otherwise. */
static double oracle_target_flops(const bench *b, size_t k)
{
    return b->oracle ? b->frac * at_bench_oracle_at(b->oracle, b->task_no[k] - 1)->best_flops : 0;
}

/* A tuner that ends its run once a result reaches target FLOP/s (the --oracle runs: past that
 * point a run no longer changes the figure reported). Everything else is the inner tuner's. */
typedef struct until_target {
    at_tuner      *inner;
    const at_task *task;
    double         target_flops;
    bool           hit;
} until_target;

static at_status ut_next_batch(void *ctx, size_t n, int64_t *out, size_t *n_out)
{
    until_target *u = ctx;
    return at_tuner_next_batch(u->inner, n, out, n_out);
}

static at_status ut_update(void *ctx, const int64_t *indices, const at_result *results, size_t n)
{
    until_target *u = ctx;
    for (size_t i = 0; i < n; i++)
        if (at_tuner_result_flops(u->task, &results[i]) >= u->target_flops) u->hit = true;
    return at_tuner_update(u->inner, indices, results, n);
}

static bool ut_has_next(void *ctx)
{
    until_target *u = ctx;
    return !u->hit && at_tuner_has_next(u->inner);
}

static at_status ut_load_history(void *ctx, const at_tuner_record *recs, size_t n, size_t *n_used)
{
    until_target *u = ctx;
    return at_tuner_load_history(u->inner, recs, n, n_used);
}

static void ut_free(void *ctx)
{
    until_target *u = ctx;
    at_tuner_free(u->inner);
    at_free(u);
}

static const at_tuner_i until_target_i = {.next_batch = ut_next_batch,
                                          .update = ut_update,
                                          .has_next = ut_has_next,
                                          .load_history = ut_load_history,
                                          .free = ut_free};

/* Wraps *t (taken) so that its run ends at target_flops. AT_ENOMEM (*t freed). */
static at_status wrap_until(at_tuner **t, const at_task *task, double target_flops)
{
    until_target *u = at_calloc(1, sizeof *u);
    if (!u) {
        at_tuner_free(*t);
        *t = NULL;
        return AT_OOM();
    }
    *u = (until_target){.inner = *t, .task = task, .target_flops = target_flops};
    *t = NULL;
    return at_tuner_new_impl(at_tuner_name(u->inner), &until_target_i, u, t);
}

static void log_path(const bench *b, size_t ti, size_t s, size_t k, int tl, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s_s%zu_t%zu%s.log", b->dir, b->tuner[ti], s, b->task_no[k], tl ? "_tl" : "");
}

static void show_progress(void *user, const at_tune_progress *p)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_tune_format_progress(user, p, &sb);
    fprintf(stderr, "\r%s", at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
}

/* Reads the GFLOPS of every record of path, in order, into tr. */
static at_status read_trace(const at_task *task, const char *path, trace *tr)
{
    at_rec_log *log = NULL;
    AT_TRY(at_rec_log_load_file(path, &log));
    tr->gflops = at_malloc((log->n ? log->n : 1) * sizeof *tr->gflops);
    if (!tr->gflops) {
        at_rec_log_free(log);
        return AT_OOM();
    }
    for (size_t i = 0; i < log->n; i++) tr->gflops[i] = at_tuner_result_flops(task, &log->recs[i].result) / 1e9;
    tr->n = log->n;
    at_rec_log_free(log);
    return AT_OK;
}

/* The history of task k for a transfer run: the records of the other tasks' logs of the same
 * tuner and seed (without transfer), merged into one log view (records borrowed from logs[]).
 * --in-order: the transfer logs of the tasks listed before k, as `tune` reloads the tmp log of
 * the tasks it tuned before this one. */
static at_status load_others(const bench *b, size_t ti, size_t s, size_t k, at_rec_log *logs[MAX_TASKS],
                             at_rec_log *view)
{
    size_t total = 0;
    char path[1024];
    for (size_t j = 0; j < (b->in_order ? k : b->n_tasks); j++) {
        if (j == k) continue;
        log_path(b, ti, s, j, b->in_order, path, sizeof path);
        AT_TRY(at_rec_log_load_file(path, &logs[j]));
        total += logs[j]->n;
    }
    static char name[] = "the other tasks' logs";
    *view = (at_rec_log){.name = name};
    view->recs = at_malloc((total ? total : 1) * sizeof *view->recs);
    if (!view->recs) return AT_OOM();
    for (size_t j = 0; j < b->n_tasks; j++)
        for (size_t i = 0; logs[j] && i < logs[j]->n; i++) view->recs[view->n++] = logs[j]->recs[i];
    return AT_OK;
}

/* Trials a complete run of task has: n_trial, or the whole space when it is smaller. */
static size_t run_len(const bench *b, const at_task *task)
{
    int64_t len = at_space_len(at_task_space(task));
    return (int64_t)b->n_trial > len ? (size_t)len : b->n_trial;
}

/* One run: tuner ti, seed s, task k, with (tl) or without transfer learning. With --log-dir, a
 * log there that already holds the complete run is read instead of measuring again. */
static at_status run_one(bench *b, size_t ti, size_t s, size_t k, int tl)
{
    const at_task *task = task_of(b, k);
    trace *tr = &b->runs[tl][ti][s][k];
    at_rec_log *logs[MAX_TASKS] = {0}, view = {0};
    at_tune_history *hist = NULL;
    at_tuner *tuner = NULL;
    at_rec_appender *app = NULL;
    const at_tuner_record *recs = NULL;
    char path[1024], prefix[96];
    log_path(b, ti, s, k, tl, path, sizeof path);
    at_status st = AT_OK;
    if (tl) {
        st = load_others(b, ti, s, k, logs, &view);
        if (st == AT_OK) st = at_tune_history_new(task, &view, &hist);
        if (st == AT_OK) recs = at_tune_history_records(hist, &tr->n_hist);
    }
    /* without history a transfer run repeats the first; --in-order counts it as the flow's first task */
    bool run = st == AT_OK && (!tl || tr->n_hist || b->in_order);
    if (run && b->reuse && !b->oracle && access(path, F_OK) == 0) { /* logged complete (its first trials) or measured again */
        if (read_trace(task, path, tr) == AT_OK && tr->n >= run_len(b, task)) {
            tr->n = run_len(b, task);
            tr->ran = true;
            run = false;
        } else {
            at_free(tr->gflops);
            tr->gflops = NULL;
            tr->n = 0;
        }
    }
    at_tuner_opts tu = {.seed = b->first_seed + s};
    if (run) st = at_tuner_new(b->tuner[ti], task, &tu, &tuner);
    if (run && st == AT_OK && b->oracle && !b->full) st = wrap_until(&tuner, task, oracle_target_flops(b, k));
    size_t missed0 = b->oracle ? at_bench_oracle_at(b->oracle, b->task_no[k] - 1)->n_missed : 0;
    if (run && st == AT_OK && tl) st = at_tuner_load_history(tuner, recs, tr->n_hist, NULL);
    if (run && st == AT_OK && unlink(path) != 0 && errno != ENOENT)
        st = AT_FAIL(AT_EIO, "cannot remove %s: %s", path, strerror(errno));
    if (run && st == AT_OK) st = at_rec_appender_open(path, &app);
    if (run && st == AT_OK) {
        snprintf(prefix, sizeof prefix, "[%s seed %zu task %zu%s] ", b->tuner[ti], s, b->task_no[k],
                 tl ? " transfer" : "");
        at_tune_opts to = {.n_trial = b->n_trial,
                           .target_str = b->oracle ? at_bench_oracle_at(b->oracle, b->task_no[k] - 1)->target_str
                                                   : at_net_target_string(AT_NET_TARGET_MALI),
                           .log = app,
                           .on_progress = b->oracle ? NULL : show_progress,
                           .user = prefix};
        at_tune_result r;
        st = at_tune_task(task, tuner, b->runner, &to, &r);
        at_status cst = at_rec_appender_close(app);
        if (st == AT_OK) st = cst;
        if (!b->oracle) fprintf(stderr, " Done.\n");
        if (st == AT_OK) st = read_trace(task, path, tr);
        tr->n_invalid = r.n_invalid;
        if (b->oracle) tr->n_missed = at_bench_oracle_at(b->oracle, b->task_no[k] - 1)->n_missed - missed0;
        tr->ran = st == AT_OK;
        b->n_measured += tr->n;
    }
    at_tuner_free(tuner);
    at_tune_history_free(hist);
    at_free(view.recs);
    for (size_t j = 0; j < MAX_TASKS; j++) at_rec_log_free(logs[j]);
    return st;
}

/* 1-based trial at which tr first reached target GFLOPS; SIZE_MAX if never. */
static size_t trials_to(const trace *tr, double target)
{
    for (size_t i = 0; i < tr->n; i++)
        if (tr->gflops[i] >= target) return i + 1;
    return SIZE_MAX;
}

static double trace_best(const trace *tr)
{
    double best = 0;
    for (size_t i = 0; i < tr->n; i++)
        if (tr->gflops[i] > best) best = tr->gflops[i];
    return best;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The "trials to 95 %" cell of tuner ti, pass tl, task k: the median over seeds ("> N" when the
 * median run never got there; with an even count, when the upper middle one never did), "-" when
 * the runs were skipped. */
static void cell(const bench *b, size_t ti, int tl, size_t k, double target, char *buf, size_t cap)
{
    double v[MAX_SEEDS], h[MAX_SEEDS];
    size_t n = 0;
    for (size_t s = 0; s < b->n_seeds; s++) {
        const trace *tr = &b->runs[tl][ti][s][k];
        if (!tr->ran) continue;
        size_t t = trials_to(tr, target);
        v[n] = t == SIZE_MAX ? 1e300 : (double)t;
        h[n++] = (double)tr->n_hist;
    }
    if (n == 0) {
        snprintf(buf, cap, "-");
        return;
    }
    double m = median(v, n);
    int len = m > (double)b->n_trial ? snprintf(buf, cap, "> %zu", b->n_trial) : snprintf(buf, cap, "%g", m);
    if (tl && len > 0 && (size_t)len < cap) snprintf(buf + len, cap - (size_t)len, " (%g)", median(h, n));
}

static void report(const bench *b)
{
    for (size_t k = 0; k < b->n_tasks; k++) {
        const at_task *task = task_of(b, k);
        double best = 0;
        const char *who = "none";
        size_t who_s = 0;
        int who_tl = 0;
        for (int tl = 0; tl < 2; tl++)
            for (size_t ti = 0; ti < b->n_tuners; ti++)
                for (size_t s = 0; s < b->n_seeds; s++) {
                    double x = trace_best(&b->runs[tl][ti][s][k]);
                    if (x > best) best = x, who = b->tuner[ti], who_s = s, who_tl = tl;
                }
        printf("\ntask %zu  %s  %s  space %lld  %.0f FLOP\n", b->task_no[k], at_task_template(task)->name,
               at_net_tasks_args_json(b->ts, b->task_no[k] - 1), (long long)at_space_len(at_task_space(task)),
               at_task_flop(task));
        printf("  best of any run: %.2f GFLOPS (%s, seed %zu%s); 95 %% = %.2f GFLOPS\n", best, who, who_s,
               who_tl ? ", transfer" : "", 0.95 * best);
        printf("  %-16s %12s  %-22s %-22s\n", "tuner", "best GFLOPS", "trials to 95 %", "with transfer (records)");
        for (size_t ti = 0; ti < b->n_tuners; ti++) {
            double bs[MAX_SEEDS];
            for (size_t s = 0; s < b->n_seeds; s++) bs[s] = trace_best(&b->runs[0][ti][s][k]);
            char c0[64], c1[64];
            cell(b, ti, 0, k, 0.95 * best, c0, sizeof c0);
            cell(b, ti, 1, k, 0.95 * best, c1, sizeof c1);
            printf("  %-16s %12.2f  %-22s %-22s\n", b->tuner[ti], median(bs, b->n_seeds), c0, c1);
        }
    }
    printf("\n(medians over %zu seed%s; best GFLOPS: without transfer; (N): history records of the template;\n"
           " -: not run, the tuner ignores history or the other tasks have no record of the template)\n",
           b->n_seeds, b->n_seeds == 1 ? "" : "s");
}

/* Median over seeds of trials to target of tuner ti, pass tl, task k (INFINITY when the median
 * run never got there; -1 when nothing ran); *reached = seeds that got there. */
static double median_trials(const bench *b, size_t ti, int tl, size_t k, double target, size_t *reached)
{
    double v[MAX_SEEDS];
    size_t n = 0;
    *reached = 0;
    for (size_t s = 0; s < b->n_seeds; s++) {
        const trace *tr = &b->runs[tl][ti][s][k];
        if (!tr->ran) continue;
        size_t t = trials_to(tr, target);
        *reached += t != SIZE_MAX;
        v[n++] = t == SIZE_MAX ? INFINITY : (double)t;
    }
    return n ? median(v, n) : -1;
}

static void fmt_trials(double m, char *buf, size_t cap)
{
    if (m < 0)
        snprintf(buf, cap, "-");
    else if (isinf(m))
        snprintf(buf, cap, "never");
    else
        snprintf(buf, cap, "%g", m);
}

/* --oracle: per task the oracle's best and per tuner the median trials to 95 % of it, then per
 * tuner the median of those over the tasks (issue 18's C1). */
static void report_oracle(const bench *b)
{
    double per_task[2][MAX_TUNERS][MAX_TASKS];
    for (size_t k = 0; k < b->n_tasks; k++) {
        at_bench_oracle_task *ot = at_bench_oracle_at(b->oracle, b->task_no[k] - 1);
        const at_task *task = ot->task;
        double target = b->frac * ot->best_flops / 1e9, pct = 100 * b->frac;
        printf("\ntask %zu  %s  %s  space %lld  %.0f FLOP\n", b->task_no[k], at_task_template(task)->name, ot->args_json,
               (long long)at_space_len(at_task_space(task)), at_task_flop(task));
        size_t n_within = 0;
        for (int64_t i = 0; i < at_space_range_len(at_task_space(task)); i++)
            n_within += ot->by_index[i] && at_tuner_result_flops(task, ot->by_index[i]) >= b->frac * ot->best_flops;
        printf("  oracle: %zu configs (%zu ok), best %.2f GFLOPS (index %lld); %g %% = %.2f GFLOPS, reached by %zu "
               "configs\n",
               ot->n_configs, ot->n_ok, ot->best_flops / 1e9, (long long)ot->best_index, pct, target, n_within);
        printf("  %-16s %-16s %-8s %-22s %8s %8s\n", "tuner", "trials to target", "reached", "with transfer (records)",
               "invalid", "missing");
        for (size_t ti = 0; ti < b->n_tuners && b->per_run; ti++)
            for (int tl = 0; tl < 2; tl++)
                for (size_t s = 0; s < b->n_seeds; s++) {
                    const trace *tr = &b->runs[tl][ti][s][k];
                    size_t t = trials_to(tr, target);
                    if (tr->ran) /* run TUNER TASK TRANSFER SEED TRIALS (-1: never) */
                        printf("  run %s %zu %d %zu %lld\n", b->tuner[ti], b->task_no[k], tl, b->first_seed + s,
                               t == SIZE_MAX ? -1LL : (long long)t);
                }
        for (size_t ti = 0; ti < b->n_tuners; ti++) {
            size_t reached, reached_tl, invalid = 0, missed = 0;
            per_task[0][ti][k] = median_trials(b, ti, 0, k, target, &reached);
            per_task[1][ti][k] = median_trials(b, ti, 1, k, target, &reached_tl);
            for (size_t s = 0; s < b->n_seeds; s++) {
                invalid += b->runs[0][ti][s][k].n_invalid;
                missed += b->runs[0][ti][s][k].n_missed;
            }
            char c0[32], c1[64], rs[32];
            fmt_trials(per_task[0][ti][k], c0, sizeof c0);
            fmt_trials(per_task[1][ti][k], c1, sizeof c1);
            snprintf(rs, sizeof rs, "%zu/%zu", reached, b->n_seeds);
            printf("  %-16s %-16s %-8s %-22s %8zu %8zu\n", b->tuner[ti], c0, rs, c1, invalid, missed);
        }
    }
    printf("\nmedian over the %zu tasks of the per-task median trials to %g %% of the best of the space\n",
           b->n_tasks, 100 * b->frac);
    printf("  %-16s %12s %14s\n", "tuner", "no transfer", "with transfer");
    double over_tasks[2][MAX_TUNERS];
    for (size_t ti = 0; ti < b->n_tuners; ti++) {
        char c[2][32];
        for (int tl = 0; tl < 2; tl++) {
            double v[MAX_TASKS];
            size_t n = 0;
            for (size_t k = 0; k < b->n_tasks; k++)
                if (per_task[tl][ti][k] >= 0) v[n++] = per_task[tl][ti][k];
            over_tasks[tl][ti] = n ? median(v, n) : -1;
            fmt_trials(over_tasks[tl][ti], c[tl], sizeof c[tl]);
        }
        printf("  %-16s %12s %14s\n", b->tuner[ti], c[0], c[1]);
    }
    /* issue 18's C1: xgb_rank <= 125 trials, random >= 3x as many */
    size_t xr = SIZE_MAX, rd = SIZE_MAX;
    for (size_t ti = 0; ti < b->n_tuners; ti++) {
        if (!strcmp(b->tuner[ti], "xgb_rank")) xr = ti;
        if (!strcmp(b->tuner[ti], "random")) rd = ti;
    }
    for (int tl = 0; tl < 2 && xr != SIZE_MAX && rd != SIZE_MAX; tl++) {
        double x = over_tasks[tl][xr], r = over_tasks[0][rd];
        if (x <= 0 || r <= 0) continue;
        printf("C1%s: xgb_rank %g trials (goal <= 125), random %g: %.2fx (goal >= 3x)\n",
               tl ? " with transfer" : "", x, r, r / x);
    }
    printf("(medians over %zu seeds, at most %zu trials per run; invalid: proposals that could not instantiate, "
           "no trials; missing: trials the oracle had no record for, counted as errors)\n",
           b->n_seeds, b->n_trial);
}

static size_t parse_list(char *text, const char **out, size_t cap)
{
    size_t n = 0;
    for (char *save = NULL, *p = strtok_r(text, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        if (n == cap) usage();
        out[n++] = p;
    }
    return n;
}

static size_t parse_pos(const char *text)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (!text[0] || *end || v < 1 || v > 1000000) usage();
    return (size_t)v;
}

int main(int argc, char **argv)
{
    static bench b; /* large: the traces table */
    char tuners[256] = "random,ga,xgb,xgb_knob,xgb_rank,xgb_rank_knob", tasks[256] = "";
    const char *log_dir = NULL, *oracle = NULL;
    at_measure_opts mo = {.number = 4, .repeat = 2, .cooldown_ms = -1};
    b.n_trial = 0;
    b.n_seeds = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full")) {
            b.full = true;
            continue;
        }
        if (!strcmp(argv[i], "--in-order")) {
            b.in_order = true;
            continue;
        }
        if (!strcmp(argv[i], "--per-run")) {
            b.per_run = true;
            continue;
        }
        if (i + 1 >= argc) usage();
        const char *opt = argv[i], *val = argv[++i];
        if (!strcmp(opt, "--oracle"))
            oracle = val;
        else if (!strcmp(opt, "--pct")) {
            b.frac = (double)parse_pos(val) / 100;
            if (b.frac > 1) usage();
        }
        else if (!strcmp(opt, "--device"))
            mo.device = val;
        else if (!strcmp(opt, "--workers"))
            mo.n_parallel = (int)parse_pos(val);
        else if (!strcmp(opt, "--n-trial"))
            b.n_trial = parse_pos(val);
        else if (!strcmp(opt, "--first-seed"))
            b.first_seed = parse_pos(val);
        else if (!strcmp(opt, "--seeds"))
            b.n_seeds = parse_pos(val);
        else if (!strcmp(opt, "--number"))
            mo.number = (int)parse_pos(val);
        else if (!strcmp(opt, "--repeat"))
            mo.repeat = (int)parse_pos(val);
        else if (!strcmp(opt, "--log-dir"))
            log_dir = val;
        else if (!strcmp(opt, "--tuners") && strlen(val) < sizeof tuners)
            strcpy(tuners, val);
        else if (!strcmp(opt, "--tasks") && strlen(val) < sizeof tasks)
            strcpy(tasks, val);
        else
            usage();
    }
    if (!b.n_trial) b.n_trial = oracle ? 1000 : 200;
    if (b.frac == 0) b.frac = 0.95;
    if (b.frac != 0.95 && !oracle) usage();
    if (!b.n_seeds) b.n_seeds = oracle ? 10 : 3;
    if (!oracle && !tasks[0]) strcpy(tasks, "7,9,12,17");
    if (b.n_seeds > MAX_SEEDS || mo.repeat > 64 || (b.full && !oracle)) usage();
    b.n_tuners = parse_list(tuners, b.tuner, MAX_TUNERS);
    for (size_t i = 0; i < b.n_tuners; i++)
        if (!at_tuner_kind_find(b.tuner[i])) {
            fprintf(stderr, "bench_convergence: unknown tuner '%s'\n", b.tuner[i]);
            return 2;
        }
    const char *task_items[MAX_TASKS];
    b.n_tasks = parse_list(tasks, task_items, MAX_TASKS);
    for (size_t k = 0; k < b.n_tasks; k++) b.task_no[k] = parse_pos(task_items[k]);
    at_log_set_level(oracle ? AT_LOG_WARN : AT_LOG_ERROR);

    double t0 = at_clock_mono_s();
    at_net *net = NULL;
    at_net_tasks *ts = NULL;
    at_net_opts no = {0};
    at_status st = AT_OK;
    if (oracle) {
        st = at_bench_oracle_load(oracle, &b.oracle);
        size_t n = st == AT_OK ? at_bench_oracle_count(b.oracle) : 0;
        if (st == AT_OK && b.n_tasks == 0) /* every workload of the oracle */
            for (; b.n_tasks < n && b.n_tasks < MAX_TASKS; b.n_tasks++) b.task_no[b.n_tasks] = b.n_tasks + 1;
        for (size_t k = 0; st == AT_OK && k < b.n_tasks; k++)
            if (b.task_no[k] > n) st = AT_FAIL(AT_EINVAL, "task %zu: the oracle has %zu workloads", b.task_no[k], n);
    } else {
        st = at_net_load("resnet-18", &no, &net);
        if (st == AT_OK) st = at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts);
        for (size_t k = 0; st == AT_OK && k < b.n_tasks; k++)
            if (b.task_no[k] > at_net_tasks_count(ts))
                st = AT_FAIL(AT_EINVAL, "task %zu: resnet-18 has %zu tasks", b.task_no[k], at_net_tasks_count(ts));
    }
    b.ts = ts;
    if (st == AT_OK) {
        if (log_dir) {
            snprintf(b.dir, sizeof b.dir, "%s", log_dir);
            b.reuse = true;
            if (mkdir(b.dir, 0755) != 0 && errno != EEXIST)
                st = AT_FAIL(AT_EIO, "cannot create %s: %s", b.dir, strerror(errno));
        } else {
            snprintf(b.dir, sizeof b.dir, "/tmp/bench_convergence.XXXXXX");
            if (!mkdtemp(b.dir)) st = AT_FAIL(AT_EIO, "cannot create a temp dir: %s", strerror(errno));
        }
    }
    if (st == AT_OK && b.oracle) {
        st = at_bench_oracle_runner_new(b.oracle, mo.n_parallel ? (size_t)mo.n_parallel : 8, &b.runner);
        if (st == AT_OK) {
            printf("oracle: %s, %zu workloads (%zu records skipped)   batch %zu   n_trial %zu   seeds %zu%s\n", oracle,
                   at_bench_oracle_count(b.oracle), at_bench_oracle_skipped(b.oracle),
                   at_meas_runner_batch_size(b.runner), b.n_trial, b.n_seeds,
                   b.full ? "   full runs" : "   runs stop at the target");
            fflush(stdout);
        }
    } else if (st == AT_OK) {
        /* the workers fork before XGBoost trains anything in this process */
        st = at_meas_ocl_runner_new(&mo, &b.runner);
    }
    if (st == AT_OK && !b.oracle) {
        const at_ocl_device_info *dev = at_meas_ocl_device(at_meas_ocl_of(b.runner));
        printf("device: %s / %s   workers: %zu   number %d repeat %d   n_trial %zu   seeds %zu   logs: %s\n",
               dev->platform, dev->name, at_meas_runner_batch_size(b.runner), mo.number, mo.repeat, b.n_trial,
               b.n_seeds, b.dir);
        fflush(stdout);
    }
    double t_pass[2] = {0, 0};
    size_t n_runs[2] = {0, 0}, n_trials[2] = {0, 0};
    for (int tl = 0; tl < 2 && st == AT_OK; tl++) {
        double t1 = at_clock_mono_s();
        for (size_t ti = 0; ti < b.n_tuners && st == AT_OK; ti++) {
            if (tl && at_tuner_kind_find(b.tuner[ti])->algo != AT_TUNER_XGB) continue; /* ignores history */
            for (size_t s = 0; s < b.n_seeds && st == AT_OK; s++)
                for (size_t k = 0; k < b.n_tasks && st == AT_OK; k++) {
                    st = run_one(&b, ti, s, k, tl);
                    n_runs[tl] += b.runs[tl][ti][s][k].ran;
                    n_trials[tl] += b.runs[tl][ti][s][k].n;
                }
        }
        t_pass[tl] = at_clock_mono_s() - t1;
    }
    at_meas_runner_free(b.runner);
    if (st == AT_OK) {
        if (b.oracle)
            report_oracle(&b);
        else
            report(&b);
        printf("without transfer: %zu runs, %zu trials, %.1f s;  with transfer: %zu runs, %zu trials, %.1f s;  "
               "measured now: %zu trials\n",
               n_runs[0], n_trials[0], t_pass[0], n_runs[1], n_trials[1], t_pass[1], b.n_measured);
        printf("total wall time: %.1f s\n", at_clock_mono_s() - t0);
    } else
        fprintf(stderr, "bench_convergence: %s: %s\n", at_status_str(st), at_last_error());
    if (!log_dir && b.dir[0]) { /* remove the logs this run wrote, then its temp dir */
        char path[1024];
        for (int tl = 0; tl < 2; tl++)
            for (size_t ti = 0; ti < b.n_tuners; ti++)
                for (size_t s = 0; s < b.n_seeds; s++)
                    for (size_t k = 0; k < b.n_tasks; k++) {
                        log_path(&b, ti, s, k, tl, path, sizeof path);
                        unlink(path);
                    }
        rmdir(b.dir);
    }
    for (int tl = 0; tl < 2; tl++)
        for (size_t ti = 0; ti < MAX_TUNERS; ti++)
            for (size_t s = 0; s < MAX_SEEDS; s++)
                for (size_t k = 0; k < MAX_TASKS; k++) at_free(b.runs[tl][ti][s][k].gflops);
    at_net_tasks_free(ts);
    at_net_free(net);
    at_bench_oracle_free(b.oracle);
    return st == AT_OK ? 0 : 1;
}
