/* VTA network flows: tune_tasks over the packed resnet's conv2d_packed.vta tasks with the simulator
 * runner, and an executor that runs every packed conv on one simulator (each layer's program
 * lowered once with its dispatched config and its own ALU epilogue) and the other layers on the
 * host over the same simulated DRAM. The VTA part is simulated once, functionally -- its cycle
 * count is deterministic -- and the host layers are re-timed on every run: run latency =
 * simulated VTA time + that run's measured CPU time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/vta/vtagen.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "measure/vta_runner.h"
#include "tune/network_vta.h"
#include "vta/sim.h"

/* ---- tuning ----------------------------------------------------------------------------------- */

typedef struct relay {
    const at_tune_network_opts *o;
    at_tune_net_event           ev;
} relay;

static void emit(const at_tune_network_opts *o, const at_tune_net_event *ev)
{
    if (o->on_event) o->on_event(o->user, ev);
}

static void on_progress(void *user, const at_tune_progress *p)
{
    relay *r = user;
    at_tune_net_event ev = r->ev;
    ev.kind = AT_TUNE_NET_PROGRESS;
    ev.progress = p;
    emit(r->o, &ev);
}

static at_status tune_one(const at_tune_network_opts *o, const at_task *task, size_t no, size_t n, const char *tmp_path,
                          at_meas_runner *runner, at_tune_network_result *sum)
{
    char prefix[32];
    at_tune_task_prefix(no, n, prefix);
    size_t n_trial = o->n_trial ? o->n_trial : 1000;
    int64_t len = at_space_len(at_task_space(task));
    if ((int64_t)n_trial > len) n_trial = (size_t)len;
    at_rec_log *tmp = NULL;
    at_tuner *tuner = NULL;
    at_tune_history *hist = NULL;
    at_rec_appender *app = NULL;
    at_tune_result r = {.best_index = -1};
    size_t n_hist = 0;
    at_status st = at_tuner_new(o->tuner, task, &o->tuner_opts, &tuner);
    if (st == AT_OK && !o->no_transfer && access(tmp_path, F_OK) == 0) {
        st = at_rec_log_load_file(tmp_path, &tmp);
        if (st == AT_OK && tmp->n) st = at_tune_history_new(task, tmp, &hist);
        size_t nh = 0;
        const at_tuner_record *recs = st == AT_OK && hist ? at_tune_history_records(hist, &nh) : NULL;
        if (st == AT_OK && nh) st = at_tuner_load_history(tuner, recs, nh, &n_hist);
    }
    relay rl = {o, {.kind = AT_TUNE_NET_TASK_BEGIN, .task_no = no, .n_tasks = n, .prefix = prefix, .task = task,
                    .n_history = n_hist}};
    if (st == AT_OK) emit(o, &rl.ev);
    if (st == AT_OK) st = at_rec_appender_open(tmp_path, &app);
    if (st == AT_OK) {
        at_tune_opts to = {.n_trial = n_trial,
                           .early_stopping = o->early_stopping,
                           .target_str = AT_MEAS_VTA_TARGET,
                           .log = app,
                           .on_progress = on_progress,
                           .user = &rl};
        st = at_tune_task(task, tuner, runner, &to, &r);
        at_status cst = at_rec_appender_close(app);
        if (st == AT_OK) st = cst;
    }
    if (st == AT_OK) {
        sum->n_measured += r.n_trials;
        rl.ev.kind = AT_TUNE_NET_TASK_END;
        rl.ev.result = &r;
        emit(o, &rl.ev);
    }
    at_tune_history_free(hist);
    at_tuner_free(tuner);
    at_rec_log_free(tmp);
    return st;
}

at_status at_tune_vta_network(const at_tune_network_opts *o, at_tune_network_result *out)
{
    AT_ASSERT(o);
    if (!o->network || !o->tuner || !o->log_path)
        return AT_FAIL(AT_EINVAL, "tuning a network needs a network, a tuner and a log path");
    if (o->resume || o->rpc)
        return AT_FAIL(AT_EINVAL, "--target vta tunes on the local VTA simulator: --resume and RPC are not supported");
    if (!at_tuner_kind_find(o->tuner)) return AT_FAIL(AT_ENOTFOUND, "unknown tuner '%s'", o->tuner);
    size_t len = strlen(o->log_path);
    char *tmp_path = at_malloc(len + 5);
    if (!tmp_path) return AT_OOM();
    memcpy(tmp_path, o->log_path, len);
    memcpy(tmp_path + len, ".tmp", 5);
    at_net_vta_opts no = {.image_hw = o->net.image_shape[1], .num_classes = o->net.num_classes, .no_weights = true};
    at_net_vta *net = NULL;
    at_meas_runner *runner = NULL;
    at_tune_network_result sum = {0};
    size_t conv[64], n = 0;
    at_status st = at_net_vta_build(o->network, &no, &net);
    /* the tutorial's 10 conv tasks; with ops "all" (AT_NET_OPS_ALL given) the add.vta tasks too */
    bool with_conv = o->ops == 0 || (o->ops & AT_NET_OPS_CONV2D), with_alu = o->ops == AT_NET_OPS_ALL;
    if (st == AT_OK) {
        for (size_t i = 0; i < at_net_vta_n_tasks(net) && n < 64; i++)
            if (at_net_vta_task_is_alu(net, i) ? with_alu : with_conv) conv[n++] = i;
        sum.n_tasks = n;
        at_tune_net_event ev = {.kind = AT_TUNE_NET_EXTRACTED, .n_tasks = n};
        emit(o, &ev);
        if (unlink(tmp_path) != 0 && errno != ENOENT) st = AT_FAIL(AT_EIO, "cannot remove %s: %s", tmp_path, strerror(errno));
    }
    if (st == AT_OK) st = at_meas_vta_runner_new(NULL, &o->measure, &runner);
    for (size_t k = 0; st == AT_OK && k < n; k++)
        st = tune_one(o, at_net_vta_task(net, conv[n - 1 - k]), k + 1, n, tmp_path, runner, &sum);
    at_meas_runner_free(runner);
    if (st == AT_OK && access(tmp_path, F_OK) == 0) {
        at_rec_pick_stats ps;
        st = at_rec_pick_best(tmp_path, o->log_path, &ps);
        if (st == AT_OK) {
            sum.n_written = ps.written;
            at_tune_net_event ev = {.kind = AT_TUNE_NET_PICKED, .n_tasks = n, .pick = &ps};
            emit(o, &ev);
            if (!o->keep_tmp && unlink(tmp_path) != 0)
                st = AT_FAIL(AT_EIO, "cannot remove %s: %s", tmp_path, strerror(errno));
        }
    }
    at_net_vta_free(net);
    at_free(tmp_path);
    if (st == AT_OK && out) *out = sum;
    return st;
}

/* ---- evaluation ------------------------------------------------------------------------------- */

/* A conv layer's program on the simulator. */
typedef struct vta_layer {
    uint64_t *words;
    size_t    n_insns;
    uint64_t  cycles;
} vta_layer;

typedef struct executor {
    at_vta_hw   hw;
    at_vta_sim *sim;
    uint64_t   *value_addr; /* n_layers + 1 */
    vta_layer  *vl;         /* n_layers (used for convs) */
} executor;

static void emit_eval(const at_tune_vta_eval_opts *o, at_tune_net_event_kind kind, const at_tophub_package *pack,
                      size_t n)
{
    at_tune_net_event ev = {.kind = kind, .pack = pack, .n_records = n};
    if (o->on_event) o->on_event(o->user, &ev);
}

/* The network epilogue of conv layer l on the ALU: + bias, relu, + 2^(s-1), >> s, clip. */
static void layer_epilogue(const at_net_vta_layer *l, at_vtagen_conv2d *c)
{
    size_t k = 0;
    c->epi[k++] = (at_vtagen_epi){AT_VTA_ALU_ADD, true, 0};
    if (l->relu) c->epi[k++] = (at_vtagen_epi){AT_VTA_ALU_MAX, false, 0};
    if (l->shift > 0) {
        c->epi[k++] = (at_vtagen_epi){AT_VTA_ALU_ADD, false, 1 << (l->shift - 1)};
        c->epi[k++] = (at_vtagen_epi){AT_VTA_ALU_SHR, false, l->shift};
    }
    c->epi[k++] = (at_vtagen_epi){AT_VTA_ALU_MIN, false, 127};
    c->epi[k++] = (at_vtagen_epi){AT_VTA_ALU_MAX, false, -127};
    c->n_epi = k;
}

static at_status load_prog(executor *x, size_t li, at_vtagen_prog *prog);

/* The config dispatch gives layer li's task: *config owned by the caller; rep gets its source,
 * task and index. */
static at_status dispatch_layer(const at_net_vta *net, size_t li, at_tune_dispatch *d, at_tune_vta_layer_report *rep,
                                at_config **config)
{
    size_t ti = at_net_vta_layer_task(net, li);
    AT_ASSERT(ti != SIZE_MAX);
    const at_task *task = at_net_vta_task(net, ti);
    at_tune_dispatch_stats before = at_tune_dispatch_get_stats(d);
    at_net_choice ch = {0};
    AT_TRY(at_tune_dispatch_fn(d, task, at_net_vta_task_args_json(net, ti), &ch));
    at_tune_dispatch_stats after = at_tune_dispatch_get_stats(d);
    snprintf(rep->source, sizeof rep->source, "%s",
             after.n_user > before.n_user ? "log" : after.n_tophub > before.n_tophub ? "tophub" : "fallback");
    rep->task = ti;
    rep->on_vta = true;
    int64_t idx = -1;
    if (at_space_index_of_as_given(at_task_space(task), ch.config, &idx) != AT_OK) idx = -1;
    rep->config_index = idx;
    *config = ch.config;
    return AT_OK;
}

/* A residual add on VTA (add.vta's lowering): both int8 values loaded into ACC (ACC_8BIT, the
 * casts of the relay program), ADD in place, then relu, requant and clip as immediate stages. */
static at_status prepare_add(executor *x, const at_net_vta *net, size_t li, at_tune_dispatch *d,
                             at_tune_vta_layer_report *rep)
{
    const at_net_vta_layer *l = at_net_vta_layer_at(net, li);
    at_config *cfg = NULL;
    AT_TRY(dispatch_layer(net, li, d, rep, &cfg));
    const at_task *task = at_net_vta_task(net, rep->task);
    at_vtagen_alu plan;
    at_status st = at_meas_vta_alu_plan(&x->hw, task, cfg, &plan);
    at_config_free(cfg);
    AT_TRY(st);
    plan.int8 = true;
    size_t k = 0;
    if (l->relu) plan.imm[k++] = (at_vtagen_alu_imm){AT_VTA_ALU_MAX, 0};
    if (l->shift > 0) {
        plan.imm[k++] = (at_vtagen_alu_imm){AT_VTA_ALU_ADD, 1 << (l->shift - 1)};
        plan.imm[k++] = (at_vtagen_alu_imm){AT_VTA_ALU_SHR, l->shift};
    }
    plan.imm[k++] = (at_vtagen_alu_imm){AT_VTA_ALU_MIN, 127};
    plan.imm[k++] = (at_vtagen_alu_imm){AT_VTA_ALU_MAX, -127};
    plan.n_imm = k;
    at_vtagen_alu_addrs addrs = {x->value_addr[l->in[0]], x->value_addr[l->in[1]], x->value_addr[li + 1]};
    at_vtagen_prog *prog = NULL;
    st = at_vtagen_alu_lower(&x->hw, &plan, &addrs, &prog);
    if (st != AT_OK)
        return AT_FAIL_WRAP(st, "layer %s (add.vta, config %lld from %s)", l->name, (long long)rep->config_index,
                            rep->source);
    return load_prog(x, li, prog);
}

/* Dispatches, plans and lowers conv layer li; writes its weights, bias and uops to DRAM. */
static at_status prepare_conv(executor *x, const at_net_vta *net, size_t li, at_tune_dispatch *d,
                              at_tune_vta_layer_report *rep)
{
    const at_net_vta_layer *l = at_net_vta_layer_at(net, li);
    at_config *cfg = NULL;
    AT_TRY(dispatch_layer(net, li, d, rep, &cfg));
    const at_task *task = at_net_vta_task(net, rep->task);
    int64_t idx = rep->config_index;
    at_vtagen_conv2d plan;
    at_status st = at_meas_vta_conv2d_plan(&x->hw, task, cfg, &plan);
    at_config_free(cfg);
    AT_TRY(st);
    layer_epilogue(l, &plan);
    if (at_vtagen_conv2d_check(&x->hw, &plan) == AT_EINVAL && strcmp(rep->source, "fallback") != 0) {
        /* the tuning template has no bias: a config that fills the ACC buffer there leaves no room
         * for the layer's bias blocks; TVM would fail to build, we run the template's fallback */
        at_log(AT_LOG_WARN, "%s: config %lld from %s does not fit with the layer's epilogue (%s); the template's "
                            "fallback config runs instead", l->name, (long long)idx, rep->source, at_last_error());
        AT_TRY(at_task_fallback_config(task, NULL, 0, &cfg));
        if (at_space_index_of_as_given(at_task_space(task), cfg, &idx) != AT_OK) idx = -1;
        st = at_meas_vta_conv2d_plan(&x->hw, task, cfg, &plan);
        at_config_free(cfg);
        AT_TRY(st);
        layer_epilogue(l, &plan);
        rep->config_index = idx;
        snprintf(rep->source, sizeof rep->source, "fallback");
    }
    size_t wbytes = (size_t)(l->co_b * l->c_b * l->k * l->k * AT_NET_VTA_BLOCK * AT_NET_VTA_BLOCK);
    size_t bbytes = (size_t)l->co_b * (size_t)at_vta_hw_dram_elem_bytes(&x->hw, AT_VTA_MEM_ACC);
    at_vtagen_addrs addrs = {.data = x->value_addr[l->in[0]], .out = x->value_addr[li + 1]};
    AT_TRY(at_vta_sim_dram_alloc(x->sim, wbytes, &addrs.kernel));
    AT_TRY(at_vta_sim_dram_alloc(x->sim, bbytes, &addrs.bias));
    AT_TRY(at_vta_sim_dram_write(x->sim, addrs.kernel, l->weight, wbytes));
    AT_TRY(at_vta_sim_dram_write(x->sim, addrs.bias, l->bias, (size_t)l->co_b * AT_NET_VTA_BLOCK * sizeof(int32_t)));
    at_vtagen_prog *prog = NULL;
    st = at_vtagen_conv2d_lower(&x->hw, &plan, &addrs, &prog);
    if (st != AT_OK)
        return AT_FAIL_WRAP(st, "layer %s (%s, config %lld from %s)", l->name, at_task_template(task)->name,
                            (long long)idx, rep->source);
    return load_prog(x, li, prog);
}

/* Encodes prog (taken) into layer li's instruction words, its uops into DRAM. */
static at_status load_prog(executor *x, size_t li, at_vtagen_prog *prog)
{
    at_status st;
    size_t ni = at_vtagen_prog_n_insns(prog), nu = at_vtagen_prog_n_uops(prog);
    uint32_t *uops = at_malloc((nu ? nu : 1) * sizeof *uops);
    uint64_t *words = at_malloc(2 * ni * sizeof *words);
    uint64_t uop_phys = 0;
    st = uops && words ? AT_OK : AT_OOM();
    if (st == AT_OK) st = at_vta_sim_dram_alloc(x->sim, (nu ? nu : 1) * sizeof *uops, &uop_phys);
    if (st == AT_OK) st = at_vtagen_prog_encode(&x->hw, prog, uop_phys, words, uops);
    if (st == AT_OK) st = at_vta_sim_dram_write(x->sim, uop_phys, uops, nu * sizeof *uops);
    at_vtagen_prog_free(prog);
    at_free(uops);
    if (st != AT_OK) {
        at_free(words);
        return st;
    }
    x->vl[li] = (vta_layer){words, ni, 0};
    return AT_OK;
}

static int8_t *value_ptr(executor *x, const at_net_vta *net, size_t v)
{
    uint8_t *p = at_vta_sim_dram_ptr(x->sim, x->value_addr[v], (size_t)at_net_vta_value_numel(net, v));
    AT_ASSERT(p); /* allocated before the runs, never moved after */
    return (int8_t *)p;
}

/* The CPU part of one run (stem, adds, head); per-layer seconds into cpu_s[n_layers + 2]. With
 * vta, the conv layers run on the simulator in between (the functional run). */
static at_status run_once(executor *x, const at_net_vta *net, const float *image, float *logits, bool vta, double *cpu_s)
{
    size_t nl = at_net_vta_n_layers(net);
    double t0 = at_clock_mono_s();
    AT_TRY(at_net_vta_stem(net, image, value_ptr(x, net, 0)));
    cpu_s[0] = at_clock_mono_s() - t0;
    for (size_t i = 0; i < nl; i++) {
        const at_net_vta_layer *l = at_net_vta_layer_at(net, i);
        cpu_s[i + 1] = 0;
        if (x->vl[i].words) {
            if (!vta) continue;
            at_vta_stats s;
            at_status st = at_vta_sim_run(x->sim, x->vl[i].words, x->vl[i].n_insns, &s);
            if (st != AT_OK) return AT_FAIL_WRAP(st, "layer %s on the VTA simulator", l->name);
            x->vl[i].cycles = s.cycles;
            continue;
        }
        const int8_t *in[2] = {value_ptr(x, net, l->in[0]), value_ptr(x, net, l->in[1])};
        t0 = at_clock_mono_s();
        AT_TRY(at_net_vta_layer_ref(l, in, value_ptr(x, net, i + 1)));
        cpu_s[i + 1] = at_clock_mono_s() - t0;
    }
    t0 = at_clock_mono_s();
    at_net_vta_head(net, value_ptr(x, net, nl), logits);
    cpu_s[nl + 1] = at_clock_mono_s() - t0;
    return AT_OK;
}

static at_status check(executor *x, const at_net_vta *net, const float *image, const float *logits,
                       at_tune_vta_eval_result *res)
{
    size_t nc = (size_t)at_net_vta_num_classes(net);
    float *want = at_malloc(nc * sizeof *want);
    if (!want) return AT_OOM();
    at_net_vta_values ref = {0};
    at_status st = at_net_vta_run_reference(net, image, want, &ref);
    if (st == AT_OK) {
        res->checked = true;
        res->first_bad_layer = SIZE_MAX;
        for (size_t v = 0; v < ref.n; v++) {
            const int8_t *got = value_ptr(x, net, v);
            size_t bad = 0;
            for (int64_t i = 0; i < at_net_vta_value_numel(net, v); i++) bad += got[i] != ref.v[v][i];
            if (bad && res->first_bad_layer == SIZE_MAX) res->first_bad_layer = v == 0 ? SIZE_MAX - 1 : v - 1;
            res->n_bad += bad;
        }
        for (size_t i = 0; i < nc; i++) res->n_bad_logits += memcmp(&logits[i], &want[i], sizeof *want) != 0;
    }
    at_net_vta_values_fini(&ref);
    at_free(want);
    return st;
}

void at_tune_vta_eval_result_fini(at_tune_vta_eval_result *r)
{
    if (!r) return;
    at_free(r->layers);
    r->layers = NULL;
    r->n_layers = 0;
}

at_status at_tune_vta_evaluate(const at_tune_vta_eval_opts *o, at_tune_vta_eval_result *out)
{
    AT_ASSERT(o && out);
    if (!o->network) return AT_FAIL(AT_EINVAL, "evaluating needs a network");
    size_t repeat = o->repeat ? o->repeat : 10;
    at_tune_vta_eval_result res = {0};
    executor x = {0};
    at_vta_hw_default(&x.hw);
    at_net_vta *net = NULL;
    at_tune_dispatch *d = NULL;
    float *image = NULL, *logits = NULL;
    double *cpu_s = NULL, *run_ms = NULL, *cpu_sum = NULL;
    at_status st = at_net_vta_build(o->network, &o->net, &net);
    if (st == AT_OK && !at_net_vta_has_weights(net)) st = AT_FAIL(AT_EINVAL, "evaluating needs the network's weights");
    size_t nl = net ? at_net_vta_n_layers(net) : 0;
    if (st == AT_OK) st = at_tune_dispatch_new(AT_MEAS_VTA_TARGET, &d);
    if (st == AT_OK && o->log_path) st = at_tune_dispatch_add_log(d, o->log_path, NULL);
    if (st == AT_OK && !o->no_tophub) {
        const at_tophub_package *pack = NULL;
        size_t n = 0;
        st = at_tune_dispatch_use_tophub(d, &o->tophub, &pack, &n);
        if (st == AT_OK) emit_eval(o, AT_TUNE_NET_TOPHUB, pack, n);
    }
    if (st == AT_OK) {
        res.n_layers = nl + 2;
        res.layers = at_calloc(nl + 2, sizeof *res.layers);
        x.value_addr = at_calloc(nl + 1, sizeof *x.value_addr);
        x.vl = at_calloc(nl, sizeof *x.vl);
        image = at_malloc((size_t)at_net_vta_image_numel(net) * sizeof *image);
        logits = at_malloc((size_t)at_net_vta_num_classes(net) * sizeof *logits);
        cpu_s = at_calloc(nl + 2, sizeof *cpu_s);
        cpu_sum = at_calloc(nl + 2, sizeof *cpu_sum);
        run_ms = at_calloc(repeat, sizeof *run_ms);
        if (!res.layers || !x.value_addr || !x.vl || !image || !logits || !cpu_s || !cpu_sum || !run_ms) st = AT_OOM();
    }
    if (st == AT_OK) {
        emit_eval(o, AT_TUNE_NET_COMPILE, NULL, 0);
        st = at_vta_sim_new(&x.hw, NULL, &x.sim);
    }
    for (size_t v = 0; st == AT_OK && v <= nl; v++)
        st = at_vta_sim_dram_alloc(x.sim, (size_t)at_net_vta_value_numel(net, v), &x.value_addr[v]);
    if (st == AT_OK) {
        snprintf(res.layers[0].name, sizeof res.layers[0].name, "conv0+max_pool2d");
        snprintf(res.layers[nl + 1].name, sizeof res.layers[nl + 1].name, "global_avg_pool2d+dense");
        snprintf(res.layers[0].source, sizeof res.layers[0].source, "cpu");
        snprintf(res.layers[nl + 1].source, sizeof res.layers[nl + 1].source, "cpu");
    }
    for (size_t i = 0; st == AT_OK && i < nl; i++) {
        at_tune_vta_layer_report *rep = &res.layers[i + 1];
        const at_net_vta_layer *l = at_net_vta_layer_at(net, i);
        snprintf(rep->name, sizeof rep->name, "%s", l->name);
        rep->config_index = -1;
        rep->task = SIZE_MAX;
        if (l->kind == AT_NET_VTA_CONV)
            st = prepare_conv(&x, net, i, d, rep);
        else if (!o->adds_on_cpu && at_net_vta_layer_task(net, i) != SIZE_MAX && !l->lshift[0] && !l->lshift[1])
            st = prepare_add(&x, net, i, d, rep);
        else
            snprintf(rep->source, sizeof rep->source, "cpu");
    }
    if (st == AT_OK) {
        res.dispatch = at_tune_dispatch_get_stats(d);
        at_net_vta_fill_image(net, o->input_seed, image);
        emit_eval(o, AT_TUNE_NET_EVALUATE, NULL, 0);
        st = run_once(&x, net, image, logits, true, cpu_s); /* functional VTA run + CPU warm-up */
    }
    if (st == AT_OK && o->check) st = check(&x, net, image, logits, &res);
    for (size_t i = 0; st == AT_OK && i < nl; i++) res.cycles += x.vl[i].cycles;
    double freq = (double)x.hw.fpga_freq_mhz * 1e6;
    res.vta_ms = (double)res.cycles / freq * 1e3;
    for (size_t r = 0; st == AT_OK && r < repeat; r++) {
        st = run_once(&x, net, image, logits, false, cpu_s);
        double c = 0;
        for (size_t i = 0; i < nl + 2; i++) c += cpu_s[i], cpu_sum[i] += cpu_s[i];
        run_ms[r] = res.vta_ms + c * 1e3;
    }
    if (st == AT_OK) {
        double sum = 0, sq = 0;
        for (size_t r = 0; r < repeat; r++) sum += run_ms[r];
        res.mean_ms = sum / (double)repeat;
        for (size_t r = 0; r < repeat; r++) sq += (run_ms[r] - res.mean_ms) * (run_ms[r] - res.mean_ms);
        res.std_ms = sqrt(sq / (double)repeat);
        res.cpu_ms = res.mean_ms - res.vta_ms;
        for (size_t i = 0; i < nl + 2; i++) {
            at_tune_vta_layer_report *rep = &res.layers[i];
            if (i >= 1 && i <= nl && rep->on_vta) {
                rep->cycles = x.vl[i - 1].cycles;
                rep->ms = (double)rep->cycles / freq * 1e3;
                if (at_net_vta_layer_at(net, i - 1)->kind == AT_NET_VTA_CONV)
                    rep->gops = at_task_flop(at_net_vta_task(net, rep->task)) / (rep->ms * 1e-3) / 1e9;
            } else {
                rep->ms = cpu_sum[i] / (double)repeat * 1e3;
            }
        }
    }
    for (size_t i = 0; x.vl && i < nl; i++) at_free(x.vl[i].words);
    at_free(x.vl);
    at_free(x.value_addr);
    at_vta_sim_free(x.sim);
    at_free(run_ms);
    at_free(cpu_sum);
    at_free(cpu_s);
    at_free(logits);
    at_free(image);
    at_tune_dispatch_free(d);
    at_net_vta_free(net);
    if (st != AT_OK) {
        at_tune_vta_eval_result_fini(&res);
        return st;
    }
    *out = res;
    return AT_OK;
}
