/* The worker process's backend-independent half, shared by the OpenCL (worker.c) and the CPU
 * (cpu_worker.c) workers: the request loop, the task's host data (random inputs, the reference
 * when checking, kept while consecutive jobs share the task), instantiation, the run's checks and
 * every reply. The device-specific steps are the hooks of an at_meas_wk_ops table, so both
 * workers answer the parent with the same messages, stages and error classes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/json.h"
#include "measure/internal.h"

void at_meas_wk_fail(at_meas_wk_outcome *o, at_meas_err err, const char *fmt, ...)
{
    o->err = err;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->msg, sizeof o->msg, fmt, ap);
    va_end(ap);
}

at_meas_err at_meas_wk_err_of(at_status st)
{
    return st == AT_EDEVICE ? AT_MEAS_RUNTIME_DEVICE : AT_MEAS_UNKNOWN_ERROR;
}

static void send_frame(at_meas_wk *w)
{
    at_meas_frame_end(&w->tx);
    if (w->tx.failed) return; /* out of memory: the parent's deadline reports the loss */
    (void)at_meas_send_all(w->fd, w->tx.data, w->tx.len);
}

static void send_stage(at_meas_wk *w, uint64_t job, uint32_t stage)
{
    at_meas_frame_begin(&w->tx, AT_MSG_STAGE);
    at_meas_put_u64(&w->tx, job);
    at_meas_put_u32(&w->tx, stage);
    send_frame(w);
}

static void free_task(at_meas_wk *w)
{
    at_meas_wk_task *ts = &w->ts;
    if (w->ops->drop_task) w->ops->drop_task(w);
    at_free(ts->key);
    at_task_free(ts->task);
    for (size_t i = 0; i < AT_OP_MAX_TENSORS; i++) {
        at_free(ts->host[i]);
        at_free(ts->ref[i]);
    }
    memset(ts, 0, sizeof *ts);
}

static void free_artifact(at_meas_wk *w)
{
    if (w->ops->drop_art) w->ops->drop_art(w);
    at_arena_free(w->art.arena);
    memset(&w->art, 0, sizeof w->art);
}

static const at_template *find_template(const at_meas_wk *w, const char *name, uint32_t target)
{
    if (target < AT_TARGET_FAMILY_COUNT) {
        const at_template *t = at_tmpl_find(name, (at_target_family)target);
        if (t) return t;
    }
    for (size_t i = 0; i < w->o->n_extra_templates; i++) {
        const at_template *t = w->o->extra_templates[i];
        if (!strcmp(t->name, name) && (uint32_t)t->target == target) return t;
    }
    return NULL;
}

/* Makes ts hold the task of (t, args_json): random inputs (handed to the upload hook), the
 * reference when checking. */
static bool prepare_task(at_meas_wk *w, const at_template *t, const char *args_json, at_meas_wk_outcome *oc)
{
    char key[4096];
    snprintf(key, sizeof key, "%s\n%d\n%s", t->name, (int)t->target, args_json);
    if (w->ts.key && !strcmp(w->ts.key, key)) return true;
    free_task(w);
    at_meas_wk_task *ts = &w->ts;
    cJSON *j = NULL;
    at_args args;
    at_status st = at_json_parse(args_json, strlen(args_json), &j);
    if (st == AT_OK) st = at_op_args_from_json(t->op, j, &args);
    at_json_free(j);
    if (st == AT_OK) st = at_task_new(t, &args, &ts->task);
    if (st != AT_OK) {
        at_meas_wk_fail(oc, AT_MEAS_INSTANTIATION_ERROR, "task %s: %s", t->name, at_last_error());
        free_task(w);
        return false;
    }
    ts->n_tensors = at_op_tensors(&args, ts->desc);
    at_rng rng;
    at_rng_seed(&rng, w->o->seed);
    for (size_t i = 0; i < ts->n_tensors && st == AT_OK; i++) {
        ts->bytes[i] = (size_t)ts->desc[i].n_elems * at_ir_type_bytes(ts->desc[i].dtype);
        ts->host[i] = at_malloc(ts->bytes[i]);
        if (!ts->host[i]) {
            st = AT_OOM();
            break;
        }
        if (!ts->desc[i].is_output) at_meas_random_fill(ts->desc[i].dtype, ts->host[i], ts->desc[i].n_elems, &rng);
        if (w->ops->upload) st = w->ops->upload(w, i);
        if (st == AT_OK && ts->desc[i].is_output && w->o->check_correctness) {
            ts->ref[i] = at_malloc(ts->bytes[i]);
            if (!ts->ref[i]) st = AT_OOM();
        }
    }
    if (st == AT_OK && w->o->check_correctness) {
        const void *in[AT_OP_MAX_TENSORS];
        void *out[AT_OP_MAX_TENSORS];
        size_t n_in = 0, n_out = 0;
        for (size_t i = 0; i < ts->n_tensors; i++) {
            if (ts->desc[i].is_output)
                out[n_out++] = ts->ref[i];
            else
                in[n_in++] = ts->host[i];
        }
        at_op_reference(&args, in, out);
    }
    if (st == AT_OK) ts->key = at_strdup(key);
    if (st == AT_OK && !ts->key) st = AT_OOM();
    if (st != AT_OK) {
        at_meas_wk_fail(oc, at_meas_wk_err_of(st), "preparing the data of %s: %s", t->name, at_last_error());
        free_task(w);
        return false;
    }
    return true;
}

static void build(at_meas_wk *w, uint64_t job, const char *name, uint32_t target, const char *args_json,
                  const char *config_json)
{
    at_meas_wk_outcome oc = {.err = AT_MEAS_OK};
    double t_codegen = 0;
    bool compiled = false;
    free_artifact(w);
    at_meas_wk_art *a = &w->art;
    double t0 = at_clock_mono_s();
    const at_template *t = find_template(w, name, target);
    if (!t) at_meas_wk_fail(&oc, AT_MEAS_UNKNOWN_ERROR, "worker knows no template '%s' for target %u", name, target);
    if (oc.err == AT_MEAS_OK) prepare_task(w, t, args_json, &oc);
    double t1 = at_clock_mono_s();
    send_stage(w, job, AT_STAGE_PREPARED);

    at_config *cfg = NULL;
    if (oc.err == AT_MEAS_OK) {
        cJSON *j = NULL;
        at_status st = at_json_parse(config_json, strlen(config_json), &j);
        if (st == AT_OK) st = at_config_from_json(j, &cfg);
        at_json_free(j);
        if (st == AT_OK) st = at_arena_new(0, &a->arena);
        if (st == AT_OK) st = at_task_instantiate(w->ts.task, cfg, a->arena, &a->prog);
        if (st == AT_EINVAL)
            at_meas_wk_fail(&oc, AT_MEAS_INSTANTIATION_ERROR, "%s", at_last_error());
        else if (st != AT_OK)
            at_meas_wk_fail(&oc, AT_MEAS_COMPILE_HOST, "instantiating: %s", at_last_error());
    }
    at_config_free(cfg);
    double t2 = at_clock_mono_s(), t3 = t2;
    if (w->ops->codegen) {
        if (oc.err == AT_MEAS_OK) w->ops->codegen(w, &oc);
        t3 = at_clock_mono_s();
        t_codegen = t3 - t2;
    }
    w->kernels_built = 0;
    if (oc.err == AT_MEAS_OK) {
        compiled = true;
        w->ops->compile(w, &oc);
    }
    double t4 = at_clock_mono_s();
    if (oc.err == AT_MEAS_OK) {
        send_stage(w, job, AT_STAGE_COMPILED);
        w->ops->launch(w, &oc);
    }
    double t5 = at_clock_mono_s();
    if (oc.err == AT_MEAS_OK) {
        a->valid = true;
        a->job = job;
    } else {
        free_artifact(w);
    }
    at_meas_frame_begin(&w->tx, AT_MSG_BUILT);
    at_meas_put_u64(&w->tx, job);
    at_meas_put_u32(&w->tx, (uint32_t)oc.err);
    at_meas_put_str(&w->tx, oc.err == AT_MEAS_OK ? "" : oc.msg);
    at_meas_put_f64(&w->tx, t1 - t0);
    at_meas_put_f64(&w->tx, t2 - t1);
    at_meas_put_f64(&w->tx, t_codegen);
    at_meas_put_f64(&w->tx, t4 - t3);
    at_meas_put_f64(&w->tx, t5 - t4);
    at_meas_put_u32(&w->tx, compiled);
    at_meas_put_u32(&w->tx, w->kernels_built);
    send_frame(w);
}

static void run(at_meas_wk *w, uint64_t job)
{
    at_meas_wk_outcome oc = {.err = AT_MEAS_OK};
    const at_meas_wk_art *a = &w->art;
    const at_measure_opts *o = w->o;
    double *costs = at_calloc((size_t)o->repeat, sizeof *costs);
    size_t n_costs = 0;
    double t0 = at_clock_mono_s(), t1 = t0, t2 = t0;
    if (!costs)
        at_meas_wk_fail(&oc, AT_MEAS_UNKNOWN_ERROR, "out of memory");
    else if (!a->valid || a->job != job)
        at_meas_wk_fail(&oc, AT_MEAS_UNKNOWN_ERROR, "worker has no built program for job %llu", (unsigned long long)job);
    if (oc.err == AT_MEAS_OK) {
        at_meas_err err = w->ops->time(w, costs);
        if (err != AT_MEAS_OK) at_meas_wk_fail(&oc, err, "%s", at_last_error());
        n_costs = at_meas_trim_costs(costs, (size_t)o->repeat);
        t1 = at_clock_mono_s();
    }
    if (oc.err == AT_MEAS_OK && o->check_correctness) {
        for (size_t i = 0; i < w->ts.n_tensors && oc.err == AT_MEAS_OK; i++) {
            const at_tensor_desc *d = &w->ts.desc[i];
            if (!d->is_output) continue;
            at_status st = w->ops->read_output ? w->ops->read_output(w, i) : AT_OK;
            if (st != AT_OK) {
                at_meas_wk_fail(&oc, at_meas_wk_err_of(st), "reading %s: %s", d->name, at_last_error());
                break;
            }
            at_meas_mismatch mm;
            at_op_tolerance tol = at_op_tolerance_of(at_task_args(w->ts.task));
            if (!at_meas_compare(d->dtype, w->ts.host[i], w->ts.ref[i], d->n_elems, tol, &mm))
                at_meas_wk_fail(&oc, AT_MEAS_WRONG_ANSWER,
                                "output %s differs from the reference: max error %.6g at element %lld (got %.9g, expected %.9g); "
                                "%lld of %lld elements outside atol=%g rtol=%g",
                                d->name, mm.abs_err, (long long)mm.index, mm.got, mm.want, (long long)mm.n_bad,
                                (long long)d->n_elems, tol.atol, tol.rtol);
        }
    }
    t2 = at_clock_mono_s();
    at_meas_frame_begin(&w->tx, AT_MSG_RAN);
    at_meas_put_u64(&w->tx, job);
    at_meas_put_u32(&w->tx, (uint32_t)oc.err);
    at_meas_put_str(&w->tx, oc.err == AT_MEAS_OK ? "" : oc.msg);
    at_meas_put_u32(&w->tx, oc.err == AT_MEAS_OK ? (uint32_t)n_costs : 0);
    for (size_t i = 0; oc.err == AT_MEAS_OK && i < n_costs; i++) at_meas_put_f64(&w->tx, costs[i]);
    at_meas_put_f64(&w->tx, t1 - t0);
    at_meas_put_f64(&w->tx, t2 - t1);
    send_frame(w);
    at_free(costs);
    free_artifact(w);
}

/* Opens the device and says so: HELLO with its record, or the failure. True when it opened. */
static bool hello(at_meas_wk *w)
{
    at_ocl_device_info info;
    memset(&info, 0, sizeof info);
    at_status st = w->ops->open(w, &info);
    at_meas_frame_begin(&w->tx, AT_MSG_HELLO);
    at_meas_put_u32(&w->tx, st == AT_OK);
    at_meas_put_u32(&w->tx, (uint32_t)st);
    if (st == AT_OK)
        at_meas_put_bytes(&w->tx, &info, sizeof info);
    else
        at_meas_put_str(&w->tx, at_last_error());
    send_frame(w);
    return st == AT_OK;
}

void at_meas_wk_main(at_meas_wk *w)
{
    at_strbuf_init(&w->tx);
    bool open = hello(w);
    while (open) {
        uint32_t type;
        size_t len;
        if (at_meas_recv_frame(w->fd, &w->rx, &w->rx_cap, &type, &len) != AT_OK) break;
        at_meas_reader r = {.p = w->rx, .len = len};
        if (type == AT_MSG_BUILD) {
            uint64_t job = at_meas_get_u64(&r);
            char *name = at_meas_get_str(&r);
            uint32_t target = at_meas_get_u32(&r);
            char *args = at_meas_get_str(&r), *config = at_meas_get_str(&r);
            if (!r.bad) build(w, job, name, target, args, config);
            at_free(name);
            at_free(args);
            at_free(config);
            if (r.bad) break;
        } else if (type == AT_MSG_RUN) {
            uint64_t job = at_meas_get_u64(&r);
            if (r.bad) break;
            run(w, job);
        } else {
            break; /* AT_MSG_QUIT or a frame we do not know */
        }
    }
    free_artifact(w);
    free_task(w);
    w->ops->close(w);
    at_strbuf_fini(&w->tx);
    at_free(w->rx);
}
