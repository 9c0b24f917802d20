/* The network tuning flow (TVM's tune_tasks) and end-to-end evaluation. Resuming reads FILE.tmp
 * once per task and hands the task's own earlier measurements to at_tune_task (measured, never
 * again measured); its other records are the transfer-learning history, as TVM reloads the tmp
 * log before every task. The appender is opened per task so every finished line is on disk. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/stats.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/rng.h"
#include "measure/cpu.h"
#include "measure/ocl.h"
#include "tune/internal.h"
#include "tune/llvm_backend.h"
#include "tune/network.h"
#include "tune/ocl_backend.h"

static void emit(const at_tune_network_opts *o, const at_tune_net_event *ev)
{
    if (o->on_event) o->on_event(o->user, ev);
}

typedef struct progress_relay {
    const at_tune_network_opts *o;
    at_tune_net_event           ev;
} progress_relay;

static void on_progress(void *user, const at_tune_progress *p)
{
    progress_relay *r = user;
    at_tune_net_event ev = r->ev;
    ev.kind = AT_TUNE_NET_PROGRESS;
    ev.progress = p;
    emit(r->o, &ev);
}

static bool file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Tunes task i (extraction order) as task number no of n. */
static at_status tune_one(const at_tune_network_opts *o, const at_net_tasks *ts, size_t i, size_t no, size_t n,
                          const char *tmp_path, at_meas_runner *runner, at_tune_network_result *sum)
{
    const at_task *task = at_net_tasks_at(ts, i);
    const char *args_json = at_net_tasks_args_json(ts, i);
    char prefix[32];
    at_tune_task_prefix(no, n, prefix);
    size_t n_trial = o->n_trial ? o->n_trial : 1000;
    int64_t len = at_space_len(at_task_space(task));
    if ((int64_t)n_trial > len) n_trial = (size_t)len;

    at_rec_log *tmp = NULL;
    if (file_exists(tmp_path)) AT_TRY(at_rec_log_load_file(tmp_path, &tmp));
    int64_t *idx = NULL;
    at_result *res = NULL;
    size_t n_own = 0;
    at_rec_log others;
    at_status st = at_tune_split_tmp(tmp, task, args_json, &idx, &res, &n_own, &others);
    if (st != AT_OK) {
        at_rec_log_free(tmp);
        return st;
    }
    at_tuner *tuner = NULL;
    at_tune_history *hist = NULL;
    at_rec_appender *app = NULL;
    at_tune_result r = {.best_index = -1};
    size_t n_hist = 0;
    bool skipped = n_own >= n_trial;
    progress_relay relay = {o, {.task_no = no, .n_tasks = n, .prefix = prefix, .task = task, .n_resumed = n_own}};
    if (!skipped) {
        st = at_tuner_new(o->tuner, task, &o->tuner_opts, &tuner);
        if (st == AT_OK && !o->no_transfer && others.n) {
            st = at_tune_history_new(task, &others, &hist);
            size_t nh = 0;
            const at_tuner_record *recs = st == AT_OK ? at_tune_history_records(hist, &nh) : NULL;
            if (st == AT_OK && nh) st = at_tuner_load_history(tuner, recs, nh, &n_hist);
        }
    }
    relay.ev.kind = AT_TUNE_NET_TASK_BEGIN;
    relay.ev.n_history = n_hist;
    if (st == AT_OK) emit(o, &relay.ev);
    if (st == AT_OK && !skipped) st = at_rec_appender_open(tmp_path, &app);
    if (st == AT_OK && !skipped) {
        at_tune_opts to = {.n_trial = n_trial,
                           .early_stopping = o->early_stopping,
                           .target_str = at_net_target_string(o->target),
                           .log = app,
                           .on_progress = on_progress,
                           .user = &relay,
                           .measured = idx,
                           .measured_results = res,
                           .n_measured = n_own};
        st = at_tune_task(task, tuner, runner, &to, &r);
        at_status cst = at_rec_appender_close(app);
        if (st == AT_OK) st = cst;
    }
    if (st == AT_OK) {
        if (skipped) {
            r.n_trials = r.n_resumed = n_own;
            sum->n_skipped++;
        }
        sum->n_measured += r.n_trials - r.n_resumed;
        sum->n_resumed += n_own;
        relay.ev.kind = AT_TUNE_NET_TASK_END;
        relay.ev.result = &r;
        relay.ev.skipped = skipped;
        emit(o, &relay.ev);
    }
    at_tune_history_free(hist);
    at_tuner_free(tuner);
    at_tune_own_free(idx, res, n_own);
    at_free(others.recs);
    at_rec_log_free(tmp);
    return st;
}

at_status at_tune_network(const at_tune_network_opts *o, at_tune_network_result *out)
{
    AT_ASSERT(o);
    if (!o->network || !o->tuner || !o->log_path)
        return AT_FAIL(AT_EINVAL, "tuning a network needs a network, a tuner and a log path");
    if (!at_tuner_kind_find(o->tuner)) return AT_FAIL(AT_ENOTFOUND, "unknown tuner '%s'", o->tuner);
    char *tmp_path = at_tune_tmp_path(o->log_path);
    if (!tmp_path) return AT_OOM();
    at_status st = at_tune_tmp_prepare(tmp_path, o->resume, o->overwrite);
    if (st != AT_OK) {
        at_free(tmp_path);
        return st;
    }
    at_net_opts no = o->net;
    no.params = false;
    at_net *net = NULL;
    at_net_tasks *ts = NULL;
    at_meas_runner *runner = NULL;
    at_tune_network_result sum = {0};
    st = at_net_load(o->network, &no, &net);
    if (st == AT_OK) st = at_net_extract(net, o->target, o->ops ? o->ops : AT_NET_OPS_ALL, &ts);
    if (st == AT_OK) {
        sum.n_tasks = at_net_tasks_count(ts);
        at_tune_net_event ev = {.kind = AT_TUNE_NET_EXTRACTED, .n_tasks = sum.n_tasks};
        emit(o, &ev);
    }
    if (st == AT_OK && o->rpc) {
        at_meas_rpc_opts ro = *o->rpc;
        ro.measure = o->measure;
        st = at_meas_rpc_runner_new(&ro, &runner);
    } else if (st == AT_OK) {
        /* the target's template family picks the pool: OpenCL workers, or CPU workers (LLVM) */
        st = at_meas_local_runner_new(at_net_target_family(o->target), &o->measure, &runner);
    }
    if (st == AT_OK && o->total_trials)
        st = at_tune_network_scheduled(o, net, ts, tmp_path, runner, &sum);
    for (size_t k = 0; st == AT_OK && !o->total_trials && k < sum.n_tasks; k++)
        st = tune_one(o, ts, sum.n_tasks - 1 - k, k + 1, sum.n_tasks, tmp_path, runner, &sum);
    at_meas_runner_free(runner);
    if (st == AT_OK && file_exists(tmp_path)) {
        at_rec_pick_stats ps;
        st = at_rec_pick_best(tmp_path, o->log_path, &ps);
        if (st == AT_OK) {
            sum.n_written = ps.written;
            at_tune_net_event ev = {.kind = AT_TUNE_NET_PICKED, .n_tasks = sum.n_tasks, .pick = &ps};
            emit(o, &ev);
            if (!o->keep_tmp && unlink(tmp_path) != 0) st = AT_FAIL(AT_EIO, "cannot remove %s: %s", tmp_path, strerror(errno));
        }
    }
    at_net_tasks_free(ts);
    at_net_free(net);
    at_free(tmp_path);
    if (st == AT_OK && out) *out = sum;
    return st;
}

/* ---- evaluation ------------------------------------------------------------------------------ */

static void emit_eval(const at_tune_eval_opts *o, at_tune_net_event *ev)
{
    if (o->on_event) o->on_event(o->user, ev);
}

static at_tune_eval_layer *add_layer(at_tune_eval_result *res, const char *name, const char *suffix, const char *op,
                                     double ms)
{
    at_tune_eval_layer *l = &res->layers[res->n_layers++];
    snprintf(l->name, sizeof l->name, "%s%s", name, suffix);
    l->op = op;
    l->ms = ms;
    l->config = -1;
    return l;
}

/* Median per-node device times of `repeat` profiled runs, for the nodes that run a program; the
 * layout transforms made for a node's inputs get a row of their own before it. */
static at_status profile_layers(const at_net *net, const at_net_plan *plan, const at_net_tasks *ts, at_net_exec *e,
                                size_t repeat, at_tune_eval_result *res)
{
    size_t nn = at_net_n_nodes(net);
    double *ms = at_calloc(nn * repeat, sizeof *ms), *cms = at_calloc(nn * repeat, sizeof *cms),
           *col = at_calloc(repeat, sizeof *col);
    res->layers = at_calloc(2 * nn, sizeof *res->layers);
    at_status st = ms && cms && col && res->layers ? AT_OK : AT_OOM();
    for (size_t r = 0; st == AT_OK && r < repeat; r++) {
        double *node_ms = at_calloc(2 * nn, sizeof *node_ms);
        st = node_ms ? at_net_exec_profile(e, node_ms, node_ms + nn) : AT_OOM();
        for (size_t i = 0; st == AT_OK && i < nn; i++) {
            ms[i * repeat + r] = node_ms[i];
            cms[i * repeat + r] = node_ms[nn + i];
        }
        at_free(node_ms);
    }
    for (size_t i = 1; st == AT_OK && i < nn; i++) {
        const at_net_node *n = at_net_node_at(net, i);
        memcpy(col, &cms[i * repeat], repeat * sizeof *col);
        double tc = at_median(col, repeat);
        if (tc > 0) add_layer(res, n->name, ".layout_transform", "layout_transform", tc);
        memcpy(col, &ms[i * repeat], repeat * sizeof *col);
        double t = at_median(col, repeat);
        at_net_pick pick;
        bool anchor = at_net_plan_pick(plan, i, &pick);
        if (t <= 0 && !anchor) continue; /* aliases and nodes fused away */
        at_tune_eval_layer *l = add_layer(res, n->name, "", at_net_op_name(n->op), t);
        if (anchor) {
            const at_task *task = at_net_tasks_at(ts, pick.task);
            l->tmpl = at_task_template(task);
            l->config = pick.tuned ? at_config_index(pick.config) : -1;
            l->tuned = pick.tuned;
            l->flop = at_task_flop(task);
        }
    }
    at_free(ms);
    at_free(cms);
    at_free(col);
    return st;
}

/* The network output as .npy: in the model's ONNX shape for imported models, else the graph's. */
static at_status save_output(const at_net *net, at_net_exec *e, const char *path)
{
    size_t out = at_net_output(net);
    const at_net_node *n = at_net_node_at(net, out);
    int64_t dims[4];
    size_t rank = at_net_onnx_rank(net, true, dims);
    if (!rank) {
        rank = n->ndim;
        memcpy(dims, n->shape, rank * sizeof *dims);
    }
    float *y = at_malloc((size_t)at_net_node_numel(n) * sizeof *y);
    if (!y) return AT_OOM();
    at_status st = at_net_exec_get(e, out, y);
    if (st == AT_OK) st = at_net_npy_write(path, y, dims, rank);
    at_free(y);
    return st;
}

at_status at_tune_evaluate(const at_tune_eval_opts *o, at_tune_eval_result *out)
{
    AT_ASSERT(o && out);
    if (!o->network) return AT_FAIL(AT_EINVAL, "evaluating needs a network");
    size_t repeat = o->repeat ? o->repeat : 10;
    at_net_opts no = o->net;
    no.params = true;
    at_tune_eval_result res = {0};
    at_net *net = NULL;
    at_net_tasks *ts = NULL;
    at_tune_dispatch *d = NULL;
    at_net_plan *plan = NULL;
    at_ocl_ctx *ctx = NULL;
    at_llvm_pool *pool = NULL;
    bool on_cpu = at_net_target_family(o->target) == AT_TARGET_LLVM;
    at_net_exec *e = NULL;
    float *x = NULL;
    double *wall = at_malloc(repeat * sizeof *wall), *dev = at_malloc(repeat * sizeof *dev);
    at_status st = wall && dev ? at_net_load(o->network, &no, &net) : AT_OOM();
    if (st == AT_OK) st = at_net_extract(net, o->target, AT_NET_OPS_ALL, &ts);
    if (st == AT_OK) st = at_tune_dispatch_new(at_net_target_string(o->target), &d);
    if (st == AT_OK && o->log_path) st = at_tune_dispatch_add_log(d, o->log_path, NULL);
    if (st == AT_OK && !o->no_tophub) {
        const at_tophub_package *pack = NULL;
        size_t n = 0;
        st = at_tune_dispatch_use_tophub(d, &o->tophub, &pack, &n);
        at_tune_net_event ev = {.kind = AT_TUNE_NET_TOPHUB, .pack = pack, .n_records = n};
        if (st == AT_OK) emit_eval(o, &ev);
    }
    if (st == AT_OK) st = at_net_plan_new(net, ts, at_tune_dispatch_fn, d, &plan);
    if (st == AT_OK) {
        res.n_anchors_fallback = at_net_plan_n_fallback(plan);
        res.dispatch = at_tune_dispatch_get_stats(d);
        at_tune_net_event ev = {.kind = AT_TUNE_NET_COMPILE};
        emit_eval(o, &ev);
        st = on_cpu ? at_tune_llvm_pool_new(o->n_threads, &pool) : at_ocl_runtime_init(o->cache_dir);
    }
    if (st == AT_OK && !on_cpu) {
        at_ocl_device_info *devs = NULL;
        size_t n = 0, index = 0;
        st = at_ocl_devices(&devs, &n);
        if (st == AT_OK && n == 0) st = AT_FAIL(AT_ENOTFOUND, "no OpenCL device");
        if (st == AT_OK) st = at_ocl_device_select(devs, n, o->device, &index);
        at_free(devs);
        if (st == AT_OK) st = at_ocl_ctx_new(index, &ctx);
    }
    if (st == AT_OK && o->graph_log) st = at_tune_graph_apply(net, plan, o->graph_log, &res.graph_applied);
    if (st == AT_OK && o->graph_tune) {
        if (!o->log_path) st = AT_FAIL(AT_EINVAL, "the graph tuner reads the tuning records of --log");
        const at_net_backend_i *be = on_cpu ? at_tune_llvm_backend() : at_tune_ocl_backend();
        if (st == AT_OK)
            st = at_tune_graph_tune(net, plan, o->log_path, o->graph_top_k, be, on_cpu ? (void *)pool : (void *)ctx,
                                    o->graph_no_refine ? NULL : &(at_net_refine_opts){.seed = no.seed + 11},
                                    o->graph_tune, &res.graph);
        res.graph_tuned = st == AT_OK;
        res.n_anchors_fallback = at_net_plan_n_fallback(plan);
    }
    if (st == AT_OK && on_cpu) st = at_net_exec_new(net, plan, at_tune_llvm_backend(), pool, &e);
    if (st == AT_OK && !on_cpu) st = at_net_exec_new(net, plan, at_tune_ocl_backend(), ctx, &e);
    if (st == AT_OK) res.value_bytes_own = at_net_exec_value_bytes(e);
    if (st == AT_OK) st = at_net_exec_share_buffers(e); /* only the output is read back */
    if (st == AT_OK) res.value_bytes = at_net_exec_value_bytes(e);
    if (st == AT_OK) res.layout_copies = at_net_exec_n_layout_copies(e);
    int64_t n_in = net ? at_net_node_numel(at_net_node_at(net, 0)) : 0;
    if (st == AT_OK && o->input_path) {
        int64_t dims[8], n = 1;
        size_t rank;
        st = at_net_npy_read(o->input_path, &x, dims, &rank);
        for (size_t k = 0; st == AT_OK && k < rank; k++) n *= dims[k];
        if (st == AT_OK && n != n_in)
            st = AT_FAIL(AT_EINVAL, "%s: %" PRId64 " values, the network input takes %" PRId64, o->input_path, n, n_in);
    } else if (st == AT_OK) {
        x = at_malloc((size_t)n_in * sizeof *x);
        if (!x) st = AT_OOM();
        at_rng r;
        at_rng_seed(&r, no.seed + 7);
        for (int64_t i = 0; x && i < n_in; i++) x[i] = (float)(2 * at_rng_uniform(&r) - 1);
    }
    if (st == AT_OK) {
        at_tune_net_event ev = {.kind = AT_TUNE_NET_EVALUATE};
        emit_eval(o, &ev);
        st = at_net_exec_set_input(e, x);
    }
    if (st == AT_OK) st = at_net_exec_run(e, NULL); /* warm-up: weight packing, first launches */
    /* wall times without profiling (events cost host time), then device times on their own */
    for (size_t i = 0; st == AT_OK && i < repeat; i++) {
        if (o->before_run) o->before_run(o->user, i);
        double t0 = at_clock_mono_s();
        st = at_net_exec_run(e, NULL);
        wall[i] = (at_clock_mono_s() - t0) * 1e3;
    }
    if (st == AT_OK && o->run_ms) memcpy(o->run_ms, wall, repeat * sizeof *wall);
    for (size_t i = 0; st == AT_OK && i < repeat; i++) st = at_net_exec_run(e, &dev[i]);
    if (st == AT_OK) {
        double sum = 0, sq = 0;
        for (size_t i = 0; i < repeat; i++) sum += wall[i];
        res.mean_ms = sum / (double)repeat;
        for (size_t i = 0; i < repeat; i++) sq += (wall[i] - res.mean_ms) * (wall[i] - res.mean_ms);
        res.std_ms = sqrt(sq / (double)repeat); /* numpy's std (ddof 0), as the tutorials print */
        res.median_ms = at_median(wall, repeat);
        res.device_ms = at_median(dev, repeat);
    }
    if (st == AT_OK && o->save_output) st = save_output(net, e, o->save_output);
    if (st == AT_OK && o->profile) st = profile_layers(net, plan, ts, e, repeat, &res);
    if (st == AT_OK && o->check) {
        res.checked = true;
        st = at_net_exec_check(e, x, 1e-4, 1e-3, false, &res.check);
    }
    at_free(x);
    at_net_exec_free(e);
    at_ocl_ctx_free(ctx);
    at_tune_llvm_pool_free(pool);
    at_net_plan_free(plan);
    at_tune_dispatch_free(d);
    at_net_tasks_free(ts);
    at_net_free(net);
    at_free(dev);
    at_free(wall);
    if (st == AT_OK)
        *out = res;
    else
        at_tune_eval_result_fini(&res);
    return st;
}

void at_tune_eval_result_fini(at_tune_eval_result *r)
{
    at_free(r->layers);
    r->layers = NULL;
    r->n_layers = 0;
}
