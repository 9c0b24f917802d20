/* A network's tasks tuned under the trial scheduler: a round is a bounded at_tune_task call on the
 * task's own tuner, which lives from its first round to the end of the run (what it has visited
 * and learned carries over, as each auto_scheduler SearchPolicy keeps its state). Every record is
 * appended to FILE.tmp as it is measured, in round order, so a killed run leaves a log that
 * evaluates, and resuming rebuilds the scheduler's state from it (TVM's _restore_status). */
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "tune/internal.h"
#include "tune/network.h"
#include "tune/scheduler.h"

typedef struct sched_task {
    at_tuner  *tuner;   /* made at the task's first round */
    int64_t   *own_idx; /* resumed measurements, handed to the first round */
    at_result *own_res;
    size_t     n_own;
} sched_task;

typedef struct sched_run {
    const at_tune_network_opts *o;
    const at_net_tasks         *ts;
    const char                 *tmp_path;
    at_meas_runner             *runner;
    at_rec_appender            *app;
    sched_task                 *tasks;
    double                      t0;
    at_tune_network_result     *sum;
} sched_run;

/* A new tuner for task i that has learned the other tasks' records in the tmp log (TVM's
 * transfer learning of tune_tasks, here at a task's first round). */
static at_status make_tuner(sched_run *run, size_t i, at_tuner **out)
{
    const at_task *task = at_net_tasks_at(run->ts, i);
    AT_TRY(at_tuner_new(run->o->tuner, task, &run->o->tuner_opts, out));
    if (run->o->no_transfer || access(run->tmp_path, F_OK) != 0) return AT_OK;
    at_rec_log *tmp = NULL;
    at_tune_history *hist = NULL;
    int64_t *idx = NULL;
    at_result *res = NULL;
    size_t n_own = 0, nh = 0, n_used = 0;
    at_rec_log others = {0};
    at_status st = at_rec_log_load_file(run->tmp_path, &tmp);
    if (st == AT_OK) st = at_tune_split_tmp(tmp, task, at_net_tasks_args_json(run->ts, i), &idx, &res, &n_own, &others);
    if (st == AT_OK && others.n) st = at_tune_history_new(task, &others, &hist);
    const at_tuner_record *recs = st == AT_OK && hist ? at_tune_history_records(hist, &nh) : NULL;
    if (st == AT_OK && nh) st = at_tuner_load_history(*out, recs, nh, &n_used);
    at_tune_history_free(hist);
    at_tune_own_free(idx, res, n_own);
    at_free(others.recs);
    at_rec_log_free(tmp);
    if (st != AT_OK) {
        at_tuner_free(*out);
        *out = NULL;
    }
    return st;
}

static at_status round_fn(void *user, size_t i, size_t n_trials, at_tune_sched_round *out)
{
    sched_run *run = user;
    sched_task *t = &run->tasks[i];
    double t0 = at_clock_mono_s();
    if (!t->tuner) AT_TRY(make_tuner(run, i, &t->tuner));
    double setup_s = at_clock_mono_s() - t0;
    at_tune_opts to = {.n_trial = t->n_own + n_trials,
                       .target_str = at_net_target_string(run->o->target),
                       .log = run->app,
                       .measured = t->own_idx,
                       .measured_results = t->own_res,
                       .n_measured = t->n_own};
    at_tune_result r;
    at_status st = at_tune_task(at_net_tasks_at(run->ts, i), t->tuner, run->runner, &to, &r);
    /* the resumed records are the tuner's now: later rounds start from its state */
    at_tune_own_free(t->own_idx, t->own_res, t->n_own);
    t->own_idx = NULL;
    t->own_res = NULL;
    t->n_own = 0;
    if (st != AT_OK) return st;
    out->n_trials = r.n_trials - r.n_resumed;
    out->best_cost_s = r.best_index >= 0 ? r.best_cost_s : AT_TUNE_SCHED_NO_COST;
    out->exhausted = !at_tuner_has_next(t->tuner);
    run->sum->n_measured += out->n_trials;
    if (run->o->on_event) {
        at_tune_net_event ev = {.kind = AT_TUNE_NET_SCHED_ROUND,
                                .n_tasks = at_net_tasks_count(run->ts),
                                .task = at_net_tasks_at(run->ts, i),
                                .result = &r,
                                .next_id = i,
                                .setup_s = setup_s,
                                .elapsed_s = at_clock_mono_s() - run->t0};
        run->o->on_event(run->o->user, &ev);
    }
    return AT_OK;
}

static void on_table(void *user, const at_tune_sched *s, size_t next)
{
    sched_run *run = user;
    if (!run->o->on_event) return;
    at_tune_net_event ev = {.kind = AT_TUNE_NET_SCHED_TABLE,
                            .n_tasks = at_tune_sched_n_tasks(s),
                            .sched = s,
                            .next_id = next,
                            .elapsed_s = at_clock_mono_s() - run->t0};
    run->o->on_event(run->o->user, &ev);
}

/* The network's nodes as the objective sees them: each anchor with the tasks implementing it. */
static at_status add_nodes(at_tune_sched *s, const at_net *net, const at_net_tasks *ts)
{
    size_t n_nodes = at_net_n_nodes(net), cap = 0;
    size_t *ids = NULL;
    at_status st = AT_OK;
    for (size_t node = 0; node < n_nodes && st == AT_OK; node++) {
        const at_net_impl *impls = NULL;
        size_t n = at_net_tasks_node_impls(ts, node, &impls), m = 0;
        if (n > cap) {
            size_t *p = at_realloc(ids, n * sizeof *p);
            if (!p) {
                st = AT_OOM();
                break;
            }
            ids = p;
            cap = n;
        }
        for (size_t j = 0; j < n; j++) {
            bool seen = false;
            for (size_t k = 0; k < m; k++) seen |= ids[k] == impls[j].task;
            if (impls[j].task != SIZE_MAX && !seen) ids[m++] = impls[j].task;
        }
        if (m) st = at_tune_sched_add_node(s, ids, m);
    }
    at_free(ids);
    return st;
}

/* Resuming: each task's own records in the tmp log become its restored state and the
 * measurements its first round hands to its tuner. */
static at_status restore(sched_run *run, at_tune_sched *s)
{
    if (access(run->tmp_path, F_OK) != 0) return AT_OK;
    at_rec_log *tmp = NULL;
    AT_TRY(at_rec_log_load_file(run->tmp_path, &tmp));
    at_status st = AT_OK;
    for (size_t i = 0; i < at_net_tasks_count(run->ts) && st == AT_OK; i++) {
        sched_task *t = &run->tasks[i];
        at_rec_log others;
        st = at_tune_split_tmp(tmp, at_net_tasks_at(run->ts, i), at_net_tasks_args_json(run->ts, i), &t->own_idx,
                               &t->own_res, &t->n_own, &others);
        at_free(others.recs);
        if (st != AT_OK || t->n_own == 0) continue;
        double best = AT_TUNE_SCHED_NO_COST;
        size_t at_best = 0;
        for (size_t k = 0; k < t->n_own; k++) {
            const at_result *r = &t->own_res[k];
            if (r->err == AT_MEAS_OK && at_result_mean_cost(r) < best) {
                best = at_result_mean_cost(r);
                at_best = k + 1;
            }
        }
        at_tune_sched_restore(s, i, t->n_own, at_best, best);
        run->sum->n_resumed += t->n_own;
    }
    at_rec_log_free(tmp);
    return st;
}

at_status at_tune_network_scheduled(const at_tune_network_opts *o, const at_net *net, const at_net_tasks *ts,
                                    const char *tmp_path, at_meas_runner *runner, at_tune_network_result *sum)
{
    size_t n = at_net_tasks_count(ts);
    at_tune_sched_opts so = {.total_trials = o->total_trials,
                             .trials_per_round = o->trials_per_round,
                             .early_stopping = o->early_stopping,
                             .epsilon = o->sched_epsilon,
                             .seed = o->tuner_opts.seed};
    at_tune_sched *s = NULL;
    sched_run run = {.o = o, .ts = ts, .tmp_path = tmp_path, .runner = runner, .sum = sum,
                     .t0 = at_clock_mono_s()};
    at_status st = at_tune_sched_new(&so, n, &s);
    if (st == AT_OK && !(run.tasks = at_calloc(n, sizeof *run.tasks))) st = AT_OOM();
    for (size_t i = 0; i < n && st == AT_OK; i++) {
        const at_task *task = at_net_tasks_at(ts, i);
        st = at_tune_sched_set_task(s, i, at_task_flop(task), at_task_template(task)->name);
    }
    if (st == AT_OK) st = add_nodes(s, net, ts);
    if (st == AT_OK && o->resume) st = restore(&run, s);
    if (st == AT_OK) st = at_rec_appender_open(tmp_path, &run.app);
    if (st == AT_OK) {
        at_tune_sched_hooks h = {.round = round_fn, .on_table = on_table, .user = &run};
        st = at_tune_sched_run(s, &h);
    }
    at_status cst = at_rec_appender_close(run.app);
    if (st == AT_OK) st = cst;
    for (size_t i = 0; run.tasks && i < n; i++) {
        at_tuner_free(run.tasks[i].tuner);
        at_tune_own_free(run.tasks[i].own_idx, run.tasks[i].own_res, run.tasks[i].n_own);
    }
    at_free(run.tasks);
    at_tune_sched_free(s);
    return st;
}
