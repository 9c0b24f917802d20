/* bench_convergence: how fast each tuner converges on real resnet-18 Mali tasks. Every (tuner,
 * seed, task) run writes its own log; the per-trial GFLOPS are read back from it in order, and
 * the transfer-learning pass gives task t the logs of the OTHER tasks of the same tuner and seed
 * as history. Reported per task: the best GFLOPS seen by any run, and per tuner the median over
 * seeds of the trials needed to reach 95 % of it, without and with transfer learning.
 *
 *   bench_convergence [--device SPEC] [--workers N] [--n-trial N] [--seeds N] [--tuners LIST]
 *                     [--tasks LIST] [--number N] [--repeat N] [--log-dir DIR]
 *
 * --tasks takes the 1-based numbers of `autotvm tasks resnet-18 --ops all`. A transfer run is
 * skipped (shown "-") when the tuner ignores history (random, ga, gridsearch) or the other
 * tasks gave it no record of the task's template: it would repeat the run without history.
 * Logs go to a temp dir removed at the end; with --log-dir they stay, and a complete run already
 * logged there is read instead of measured, so a long benchmark can be split over several
 * invocations (e.g. one per tuner) and reported whole by a last one with every tuner. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "measure/ocl.h"
#include "networks/extract.h"
#include "records/log.h"
#include "tune/tune.h"
#include "tuners/tuner.h"

enum { MAX_TASKS = 8, MAX_TUNERS = 16, MAX_SEEDS = 64 };

/* The per-trial GFLOPS of one run, in trial order; ran is false for a skipped run. */
typedef struct trace {
    double *gflops;
    size_t  n;
    size_t  n_hist; /* history records the tuner learned from */
    bool    ran;
} trace;

typedef struct bench {
    const at_net_tasks *ts;
    size_t              task_no[MAX_TASKS]; /* 1-based extraction numbers */
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
            "--tasks: 1-based numbers of `autotvm tasks resnet-18 --ops all`; --log-dir keeps the logs\n"
            "and reuses the complete runs already logged there\n");
    exit(2);
}

static const at_task *task_of(const bench *b, size_t k)
{
    return at_net_tasks_at(b->ts, b->task_no[k] - 1);
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
 * tuner and seed (without transfer), merged into one log view (records borrowed from logs[]). */
static at_status load_others(const bench *b, size_t ti, size_t s, size_t k, at_rec_log *logs[MAX_TASKS],
                             at_rec_log *view)
{
    size_t total = 0;
    char path[1024];
    for (size_t j = 0; j < b->n_tasks; j++) {
        if (j == k) continue;
        log_path(b, ti, s, j, 0, path, sizeof path);
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
    bool run = st == AT_OK && (!tl || tr->n_hist); /* without history a transfer run repeats the first */
    if (run && b->reuse && access(path, F_OK) == 0) { /* logged complete (its first trials) or measured again */
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
    at_tuner_opts tu = {.seed = s};
    if (run) st = at_tuner_new(b->tuner[ti], task, &tu, &tuner);
    if (run && st == AT_OK && tl) st = at_tuner_load_history(tuner, recs, tr->n_hist, NULL);
    if (run && st == AT_OK && unlink(path) != 0 && errno != ENOENT)
        st = AT_FAIL(AT_EIO, "cannot remove %s: %s", path, strerror(errno));
    if (run && st == AT_OK) st = at_rec_appender_open(path, &app);
    if (run && st == AT_OK) {
        snprintf(prefix, sizeof prefix, "[%s seed %zu task %zu%s] ", b->tuner[ti], s, b->task_no[k],
                 tl ? " transfer" : "");
        at_tune_opts to = {.n_trial = b->n_trial,
                           .target_str = at_net_target_string(AT_NET_TARGET_MALI),
                           .log = app,
                           .on_progress = show_progress,
                           .user = prefix};
        at_tune_result r;
        st = at_tune_task(task, tuner, b->runner, &to, &r);
        at_status cst = at_rec_appender_close(app);
        if (st == AT_OK) st = cst;
        fprintf(stderr, " Done.\n");
        if (st == AT_OK) st = read_trace(task, path, tr);
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
    char tuners[256] = "random,ga,xgb,xgb_knob,xgb_rank,xgb_rank_knob", tasks[256] = "7,9,12,17";
    const char *log_dir = NULL;
    at_measure_opts mo = {.number = 4, .repeat = 2, .cooldown_ms = -1};
    b.n_trial = 200;
    b.n_seeds = 3;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char *opt = argv[i], *val = argv[++i];
        if (!strcmp(opt, "--device"))
            mo.device = val;
        else if (!strcmp(opt, "--workers"))
            mo.n_parallel = (int)parse_pos(val);
        else if (!strcmp(opt, "--n-trial"))
            b.n_trial = parse_pos(val);
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
    if (b.n_seeds > MAX_SEEDS || mo.repeat > 64) usage();
    b.n_tuners = parse_list(tuners, b.tuner, MAX_TUNERS);
    for (size_t i = 0; i < b.n_tuners; i++)
        if (!at_tuner_kind_find(b.tuner[i])) {
            fprintf(stderr, "bench_convergence: unknown tuner '%s'\n", b.tuner[i]);
            return 2;
        }
    const char *task_items[MAX_TASKS];
    b.n_tasks = parse_list(tasks, task_items, MAX_TASKS);
    for (size_t k = 0; k < b.n_tasks; k++) b.task_no[k] = parse_pos(task_items[k]);
    at_log_set_level(AT_LOG_ERROR);

    double t0 = at_clock_mono_s();
    at_net *net = NULL;
    at_net_tasks *ts = NULL;
    at_net_opts no = {0};
    at_status st = at_net_load("resnet-18", &no, &net);
    if (st == AT_OK) st = at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts);
    for (size_t k = 0; st == AT_OK && k < b.n_tasks; k++)
        if (b.task_no[k] > at_net_tasks_count(ts))
            st = AT_FAIL(AT_EINVAL, "task %zu: resnet-18 has %zu tasks", b.task_no[k], at_net_tasks_count(ts));
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
    /* the workers fork before XGBoost trains anything in this process */
    if (st == AT_OK) st = at_meas_ocl_runner_new(&mo, &b.runner);
    if (st == AT_OK) {
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
    return st == AT_OK ? 0 : 1;
}
