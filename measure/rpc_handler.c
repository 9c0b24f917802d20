/* The rpc-server's measurement handler: request -> (template, args, config) checked against this
 * server's own registry -> one-worker OpenCL pool (a CPU pool for LLVM templates), or for VTA the
 * simulator in-process (it runs no device code, so it needs neither a pool nor an OpenCL device)
 * -> reply. Nothing from the wire reaches a
 * template unchecked: the config must be the point of the server's space that its index names,
 * so a template's AT_ASSERTs on knob kinds and positions cannot fire. */
#include "measure/rpc_handler.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "measure/ocl.h"
#include "measure/rpc_proto.h"
#include "measure/cpu.h"
#include "measure/vta_runner.h"

struct at_meas_rpc_handler {
    char                     *device, *cache_dir;
    const at_template       **extra;
    size_t                    n_extra;
    at_ocl_device_info        dev;
    bool                      probed;
    /* the session's pool and the settings it runs with */
    at_meas_ocl              *pool;
    bool                      pool_on_cpu; /* a CPU pool (LLVM templates), else OpenCL */
    at_measure_opts           pool_opts;
    char                     *pool_build_options;
};

static char *dup_opt(const char *s, bool *oom)
{
    if (!s) return NULL;
    char *d = at_strdup(s);
    if (!d) *oom = true;
    return d;
}

at_status at_meas_rpc_handler_new(const at_meas_rpc_handler_opts *opts, at_meas_rpc_handler **out)
{
    *out = NULL;
    at_meas_rpc_handler_opts none = {0};
    if (!opts) opts = &none;
    at_meas_rpc_handler *h = at_calloc(1, sizeof *h);
    if (!h) return AT_OOM();
    bool oom = false;
    h->device = dup_opt(opts->device, &oom);
    h->cache_dir = dup_opt(opts->cache_dir, &oom);
    if (opts->n_extra_templates) {
        h->extra = at_calloc(opts->n_extra_templates, sizeof *h->extra);
        if (h->extra)
            memcpy(h->extra, opts->extra_templates, opts->n_extra_templates * sizeof *h->extra);
        else
            oom = true;
        h->n_extra = opts->n_extra_templates;
    }
    if (oom) {
        at_meas_rpc_handler_free(h);
        return AT_OOM();
    }
    if (!opts->no_probe) {
        at_measure_opts po = {.n_parallel = 1, .device = h->device, .cache_dir = h->cache_dir};
        at_meas_ocl *pool;
        at_status st = at_meas_ocl_new(&po, &pool);
        if (st != AT_OK) {
            at_meas_rpc_handler_free(h);
            return st;
        }
        h->dev = *at_meas_ocl_device(pool);
        h->probed = true;
        at_meas_ocl_free(pool);
    }
    *out = h;
    return AT_OK;
}

void at_meas_rpc_handler_reset(void *ctx)
{
    at_meas_rpc_handler *h = ctx;
    at_meas_ocl_free(h->pool);
    h->pool = NULL;
    at_free(h->pool_build_options);
    h->pool_build_options = NULL;
}

void at_meas_rpc_handler_free(at_meas_rpc_handler *h)
{
    if (!h) return;
    at_meas_rpc_handler_reset(h);
    at_free(h->device);
    at_free(h->cache_dir);
    at_free(h->extra);
    at_free(h);
}

const at_ocl_device_info *at_meas_rpc_handler_device(const at_meas_rpc_handler *h)
{
    return h->probed ? &h->dev : NULL;
}

at_rpc_session_handler at_meas_rpc_handler_hooks(at_meas_rpc_handler *h)
{
    return (at_rpc_session_handler){
        .measure = at_meas_rpc_handler_measure,
        .session_end = at_meas_rpc_handler_reset,
        .ctx = h,
    };
}

/* ---- checking a request against this server --------------------------------------------------- */

static const at_template *find_template(const at_meas_rpc_handler *h, const char *name, at_target_family target)
{
    const at_template *t = at_tmpl_find(name, target);
    for (size_t i = 0; !t && i < h->n_extra; i++)
        if (!strcmp(h->extra[i]->name, name) && h->extra[i]->target == target) t = h->extra[i];
    return t;
}

static at_status make_task(const at_meas_rpc_handler *h, const at_meas_rpc_request *q, at_task **out)
{
    if (q->target != AT_TARGET_OPENCL && q->target != AT_TARGET_VTA && q->target != AT_TARGET_LLVM)
        return AT_FAIL(AT_EUNSUPPORTED, "this rpc-server measures OpenCL, LLVM and VTA templates; the request is for target %lu",
                       (unsigned long)q->target);
    at_target_family target = (at_target_family)q->target;
    const at_template *t = find_template(h, q->template_name, target);
    if (!t)
        return AT_FAIL(AT_ENOTFOUND, "this rpc-server has no %s template '%s'",
                       target == AT_TARGET_VTA ? "VTA" : target == AT_TARGET_LLVM ? "LLVM" : "OpenCL", q->template_name);
    cJSON *j = NULL;
    at_status st = at_json_parse(q->args_json, strlen(q->args_json), &j);
    if (st != AT_OK) return AT_FAIL_WRAP(AT_EPARSE, "measure request: args");
    if (!cJSON_IsArray(j)) {
        at_json_free(j);
        return AT_FAIL(AT_EPARSE, "measure request: args are not a JSON list");
    }
    at_args args;
    st = at_op_args_from_json(t->op, j, &args);
    at_json_free(j);
    if (st == AT_OK) st = at_task_new(t, &args, out);
    if (st != AT_OK && st != AT_ENOMEM) st = AT_FAIL_WRAP(st, "measure request: args of %s", t->name);
    return st;
}

static at_status make_config(const at_meas_rpc_request *q, const at_task *task, at_config **out)
{
    cJSON *j = NULL;
    at_config *c = NULL;
    at_status st = at_json_parse(q->config_json, strlen(q->config_json), &j);
    if (st == AT_OK) st = at_config_from_json(j, &c);
    at_json_free(j);
    if (st != AT_OK) return st == AT_ENOMEM ? st : AT_FAIL_WRAP(AT_EPARSE, "measure request: config");
    const at_space *s = at_task_space(task);
    if (at_config_index(c) != q->config_index)
        st = AT_FAIL(AT_EINVAL, "measure request: config index %lld differs from the request's %lld",
                     (long long)at_config_index(c), (long long)q->config_index);
    else if (at_space_range_len(s) != q->space_len)
        st = AT_FAIL(AT_EINVAL,
                     "measure request: %s's space has %lld configs here and %lld at the runner (different autotvm versions?)",
                     at_task_template(task)->name, (long long)at_space_range_len(s), (long long)q->space_len);
    else {
        int64_t idx = -1;
        st = at_space_index_of(s, c, &idx);
        if (st == AT_OK && idx != q->config_index)
            st = AT_FAIL(AT_EINVAL, "measure request: the config's knobs are point %lld of this server's space, not %lld",
                         (long long)idx, (long long)q->config_index);
        else if (st != AT_OK && st != AT_ENOMEM)
            st = AT_FAIL_WRAP(AT_EINVAL, "measure request: the config is not in this server's space");
    }
    if (st != AT_OK) {
        at_config_free(c);
        return st;
    }
    *out = c;
    return AT_OK;
}

/* ---- the pool ------------------------------------------------------------------------------- */

static bool same_settings(const at_meas_rpc_handler *h, const at_measure_opts *o)
{
    const at_measure_opts *p = &h->pool_opts;
    const char *a = h->pool_build_options ? h->pool_build_options : "", *b = o->build_options ? o->build_options : "";
    return p->number == o->number && p->repeat == o->repeat && p->min_repeat_ms == o->min_repeat_ms &&
           p->timeout_ms == o->timeout_ms && p->build_timeout_ms == o->build_timeout_ms && p->cooldown_ms == o->cooldown_ms &&
           p->check_correctness == o->check_correctness && p->seed == o->seed && !strcmp(a, b);
}

static at_status ensure_pool(at_meas_rpc_handler *h, const at_meas_rpc_request *q)
{
    at_measure_opts o = {
        .number = q->number,
        .repeat = q->repeat,
        .min_repeat_ms = q->min_repeat_ms,
        .timeout_ms = q->timeout_ms,
        .build_timeout_ms = q->build_timeout_ms,
        .cooldown_ms = q->cooldown_ms > 0 ? q->cooldown_ms : -1,
        .n_parallel = 1,
        .check_correctness = q->check_correctness,
        .device = h->device,
        .cache_dir = h->cache_dir,
        .build_options = q->build_options && *q->build_options ? q->build_options : NULL,
        .seed = q->seed,
        .extra_templates = (const at_template *const *)h->extra,
        .n_extra_templates = h->n_extra,
    };
    bool on_cpu = q->target == AT_TARGET_LLVM; /* LLVM templates: compiled and run on this host's CPU */
    if (h->pool && h->pool_on_cpu == on_cpu && same_settings(h, &o)) return AT_OK;
    at_meas_rpc_handler_reset(h);
    if (o.build_options && !(h->pool_build_options = at_strdup(o.build_options))) return AT_OOM();
    o.build_options = h->pool_build_options;
    h->pool_on_cpu = on_cpu;
    at_status st = on_cpu ? at_meas_cpu_new(&o, &h->pool) : at_meas_ocl_new(&o, &h->pool);
    if (st != AT_OK) {
        at_free(h->pool_build_options);
        h->pool_build_options = NULL;
        return st;
    }
    h->pool_opts = o;
    return AT_OK;
}

/* ---- measure -------------------------------------------------------------------------------- */

at_status at_meas_rpc_handler_measure(void *ctx, const unsigned char *req, size_t len, at_strbuf *reply)
{
    at_meas_rpc_handler *h = ctx;
    at_meas_rpc_request q;
    AT_TRY(at_meas_rpc_request_decode(req, len, &q));
    at_task *task = NULL;
    at_config *cfg = NULL;
    at_result res;
    at_result_init(&res);
    at_status st = make_task(h, &q, &task);
    if (st == AT_OK) st = make_config(&q, task, &cfg);
    bool vta = q.target == AT_TARGET_VTA;
    char device[AT_MEAS_RPC_MAX_DEVICE + 1] = "";
    if (st == AT_OK && vta) {
        /* the default pynq 1x16 simulator, as the local VTA runner measures */
        at_vta_hw hw;
        at_vta_hw_default(&hw);
        snprintf(device, sizeof device, "VTA simulator %s", hw.model);
        st = at_meas_vta_measure_one(&hw, task, cfg, q.check_correctness, q.seed, &res, NULL);
    }
    if (st == AT_OK && !vta) st = ensure_pool(h, &q);
    if (st == AT_OK && !vta) {
        snprintf(device, sizeof device, "%s", at_meas_ocl_device(h->pool)->name);
        at_meas_input in = {task, cfg};
        st = at_meas_ocl_measure(h->pool, &in, 1, &res);
        /* a pool that lost its device is useless for the next request too */
        if (st != AT_OK) {
            at_status keep = st;
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", at_last_error());
            at_meas_rpc_handler_reset(h);
            st = AT_FAIL(keep, "%s", msg);
        }
    }
    if (st == AT_OK) {
        const char *msg = res.err == AT_MEAS_OK ? "" : (res.msg && *res.msg ? res.msg : at_meas_err_name(res.err));
        char *cut = NULL;
        if (strlen(msg) > AT_MEAS_RPC_MAX_MSG) {
            if (!(cut = at_strndup(msg, AT_MEAS_RPC_MAX_MSG))) st = AT_OOM();
            msg = cut;
        }
        at_meas_rpc_reply rep = {
            .id = q.id,
            .config_index = q.config_index,
            .err = res.err,
            .n_costs = res.err == AT_MEAS_OK ? res.n_costs : 0,
            .costs_s = res.costs_s,
            .all_cost_s = res.all_cost_s,
            .all_cost_is_int = res.all_cost_is_int,
            .msg = msg,
            .device = device,
        };
        if (st == AT_OK) st = at_meas_rpc_reply_encode(&rep, reply);
        at_free(cut);
        at_log(AT_LOG_DEBUG, "rpc handler: %s config %lld: %s", q.template_name, (long long)q.config_index,
               at_meas_err_name(res.err));
    }
    at_result_fini(&res);
    at_config_free(cfg);
    at_task_free(task);
    at_meas_rpc_request_fini(&q);
    return st;
}
