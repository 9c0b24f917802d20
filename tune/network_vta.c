/* VTA network flows: tune_tasks over the packed resnet's conv2d_packed.vta tasks with the simulator
 * runner, and an executor that runs every packed conv on one simulator (each layer's program
 * lowered once with its dispatched config and its own ALU epilogue) and the other layers on the
 * host over the same simulated DRAM. The VTA part is simulated once, functionally -- its cycle
 * count is deterministic -- and the host layers are re-timed on every run: run latency =
 * simulated VTA time + that run's measured CPU time. The host layers run through LLVM (programs
 * on tune/llvm_backend's vtable, one thread pool, weights uploaded once) or the naive C reference
 * layers; --check then compares the packed region from the executor's own int8 stem output, so a
 * quantize flip of the float stem cannot hide a packed-region bug. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/vta/vtagen.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "measure/vta_runner.h"
#include "templates/ops.h"
#include "tune/internal.h"
#include "tune/llvm_backend.h"
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

/* Tunes one task into the tmp log: the task's own records in it (an interrupted run's, resume)
 * are never measured again, the other tasks' records are its transfer-learning history. */
static at_status tune_one(const at_tune_network_opts *o, const at_task *task, const char *args_json, size_t no,
                          size_t n, const char *tmp_path, at_meas_runner *runner, at_tune_network_result *sum)
{
    char prefix[32];
    at_tune_task_prefix(no, n, prefix);
    size_t n_trial = o->n_trial ? o->n_trial : 1000;
    int64_t len = at_space_len(at_task_space(task));
    if ((int64_t)n_trial > len) n_trial = (size_t)len;
    at_rec_log *tmp = NULL;
    if (access(tmp_path, F_OK) == 0) AT_TRY(at_rec_log_load_file(tmp_path, &tmp));
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
    if (!skipped) {
        st = at_tuner_new(o->tuner, task, &o->tuner_opts, &tuner);
        if (st == AT_OK && !o->no_transfer && others.n) {
            st = at_tune_history_new(task, &others, &hist);
            size_t nh = 0;
            const at_tuner_record *recs = st == AT_OK ? at_tune_history_records(hist, &nh) : NULL;
            if (st == AT_OK && nh) st = at_tuner_load_history(tuner, recs, nh, &n_hist);
        }
    }
    relay rl = {o, {.kind = AT_TUNE_NET_TASK_BEGIN, .task_no = no, .n_tasks = n, .prefix = prefix, .task = task,
                    .n_history = n_hist, .n_resumed = n_own}};
    if (st == AT_OK) emit(o, &rl.ev);
    if (st == AT_OK && !skipped) st = at_rec_appender_open(tmp_path, &app);
    if (st == AT_OK && !skipped) {
        at_tune_opts to = {.n_trial = n_trial,
                           .early_stopping = o->early_stopping,
                           .target_str = AT_MEAS_VTA_TARGET,
                           .log = app,
                           .on_progress = on_progress,
                           .user = &rl,
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
        rl.ev.kind = AT_TUNE_NET_TASK_END;
        rl.ev.result = &r;
        rl.ev.skipped = skipped;
        emit(o, &rl.ev);
    }
    at_tune_history_free(hist);
    at_tuner_free(tuner);
    at_tune_own_free(idx, res, n_own);
    at_free(others.recs);
    at_rec_log_free(tmp);
    return st;
}

at_status at_tune_vta_network(const at_tune_network_opts *o, at_tune_network_result *out)
{
    AT_ASSERT(o);
    if (!o->network || !o->tuner || !o->log_path)
        return AT_FAIL(AT_EINVAL, "tuning a network needs a network, a tuner and a log path");
    if (o->rpc) return AT_FAIL(AT_EINVAL, "--target vta tunes on the local VTA simulator: RPC is not supported");
    if (!at_tuner_kind_find(o->tuner)) return AT_FAIL(AT_ENOTFOUND, "unknown tuner '%s'", o->tuner);
    char *tmp_path = at_tune_tmp_path(o->log_path);
    if (!tmp_path) return AT_OOM();
    at_status st = at_tune_tmp_prepare(tmp_path, o->resume, o->overwrite);
    if (st != AT_OK) {
        at_free(tmp_path);
        return st;
    }
    at_net_vta_opts no = {.image_hw = o->net.image_shape[1], .num_classes = o->net.num_classes, .no_weights = true,
                          .input_name = o->net.input_name, .input_rank = o->net.input_rank};
    memcpy(no.input_shape, o->net.input_shape, sizeof no.input_shape);
    at_net_vta *net = NULL;
    at_meas_runner *runner = NULL;
    at_tune_network_result sum = {0};
    size_t conv[64], n = 0;
    st = at_net_vta_build(o->network, &no, &net);
    /* the tutorial's 10 conv tasks; with ops "all" (AT_NET_OPS_ALL given) the add.vta tasks too */
    bool with_conv = o->ops == 0 || (o->ops & AT_NET_OPS_CONV2D), with_alu = o->ops == AT_NET_OPS_ALL;
    if (st == AT_OK) {
        for (size_t i = 0; i < at_net_vta_n_tasks(net) && n < 64; i++)
            if (at_net_vta_task_is_alu(net, i) ? with_alu : with_conv) conv[n++] = i;
        sum.n_tasks = n;
        at_tune_net_event ev = {.kind = AT_TUNE_NET_EXTRACTED, .n_tasks = n};
        emit(o, &ev);
    }
    if (st == AT_OK) st = at_meas_vta_runner_new(NULL, &o->measure, &runner);
    for (size_t k = 0; st == AT_OK && k < n; k++) {
        size_t i = conv[n - 1 - k];
        st = tune_one(o, at_net_vta_task(net, i), at_net_vta_task_args_json(net, i), k + 1, n, tmp_path, runner, &sum);
    }
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

/* ---- host layers through LLVM ----------------------------------------------------------------- */

typedef const at_ir_expr *E;

/* One compiled program and its buffers: the signature's borrowed from the host's table, the
 * temporaries owned. */
typedef struct host_prog {
    const at_ir_program *p;
    void                *prog;
    void               **bufs;
    size_t               n_bufs, n_params;
    bool                 prepared; /* its preparation kernels ran once */
} host_prog;

enum { HB_IMAGE, HB_STEM_W, HB_CONV, HB_STEM_B, HB_Q, HB_VALUE0, HB_LAST, HB_FEAT, HB_DENSE_W, HB_DENSE_Y, HB_DENSE_B,
       HB_LOGITS, HB_COUNT };

enum { HP_CONV, HP_QUANT, HP_POOL, HP_GAP, HP_DENSE, HP_BIAS, HP_COUNT };

struct at_tune_vta_host {
    const at_net_vta       *net;
    const at_net_backend_i *be;
    at_llvm_pool           *pool;
    at_arena               *arena;
    at_tune_dispatch       *d;
    void                   *buf[HB_COUNT];
    size_t                  bytes[HB_COUNT];
    host_prog               prog[HP_COUNT];
    at_tune_vta_host_report rep[AT_TUNE_VTA_N_HOST];
    at_tune_dispatch_stats  stats;
};

static const char *const host_names[AT_TUNE_VTA_N_HOST] = {"conv0", "relu+quantize", "max_pool2d+pack",
                                                          "dequantize+global_avg_pool2d", "dense"};

static void host_reports(at_tune_vta_host_report *rep, bool naive)
{
    for (int i = 0; i < AT_TUNE_VTA_N_HOST; i++) {
        rep[i] = (at_tune_vta_host_report){.config_index = -1};
        snprintf(rep[i].name, sizeof rep[i].name, "%s", host_names[i]);
        snprintf(rep[i].impl, sizeof rep[i].impl, "%s", naive ? "naive" : "ir");
        snprintf(rep[i].source, sizeof rep[i].source, "-");
    }
}

static E ci32(at_ir_sched *s, int64_t v)
{
    return at_ir_i32(s, v);
}

static E cf64(at_ir_sched *s, double v)
{
    return at_ir_float(s, AT_IR_F64, v);
}

static at_status finish_prog(at_ir_sched *s, const at_ir_program **out)
{
    AT_TRY(at_ir_sched_finish(s, out));
    return at_ir_verify(*out);
}

/* q[c][i] = quantize(conv[c][i] + bias[c]) exactly as at_net_vta_quantize: relu, then
 * floor(16 x + 0.5) in double, clipped to +-127; parallel over channels. */
static at_status prog_quantize(at_arena *arena, int64_t plane, const at_ir_program **out)
{
    at_ir_sched *s = at_ir_sched_begin(arena, "vta_relu_quantize");
    if (!s) return AT_OOM();
    const at_ir_buffer *conv = at_ir_param(s, "conv", AT_IR_F32, 64 * plane, AT_IR_INPUT);
    const at_ir_buffer *bias = at_ir_param(s, "bias", AT_IR_F32, 64, AT_IR_INPUT);
    const at_ir_buffer *q = at_ir_param(s, "q", AT_IR_I8, 64 * plane, AT_IR_OUTPUT);
    const at_ir_var *c = at_ir_var_new(s, "c", AT_IR_I32), *i = at_ir_var_new(s, "i", AT_IR_I32);
    E idx = at_ir_add(s, at_ir_mul(s, at_ir_v(s, c), ci32(s, plane)), at_ir_v(s, i));
    E v = at_ir_add(s, at_ir_load(s, conv, idx, 1), at_ir_load(s, bias, at_ir_v(s, c), 1));
    v = at_ir_max(s, v, at_ir_f32(s, 0));
    E arg = at_ir_add(s, at_ir_mul(s, at_ir_cast(s, AT_IR_F64, v), cf64(s, 1 << AT_NET_VTA_INPUT_SHIFT)), cf64(s, 0.5));
    E d = at_ir_call(s, "floor", AT_IR_F64, &arg, 1);
    d = at_ir_min(s, at_ir_max(s, d, cf64(s, -127)), cf64(s, 127));
    const at_ir_stmt *st = at_ir_store(s, q, idx, at_ir_cast(s, AT_IR_I8, at_ir_cast(s, AT_IR_I32, d)));
    st = at_ir_for(s, i, plane, AT_IR_SERIAL, st);
    at_ir_add_kernel(s, "vta_relu_quantize", at_ir_for(s, c, 64, AT_IR_PARALLEL, st));
    return finish_prog(s, out);
}

/* One region of the pool's output: rows y0 + [0, ny), columns x0 + [0, nx), clamping tap rows /
 * columns to 0 only where the region touches the top / left border. */
static const at_ir_stmt *pool_region(at_ir_sched *s, const at_ir_buffer *q, const at_ir_buffer *y, const at_ir_var *c,
                                     int64_t oh, int64_t y0, int64_t ny, int64_t x0, int64_t nx)
{
    const int64_t ph = oh / 2, B16 = AT_NET_VTA_BLOCK;
    const at_ir_var *py = at_ir_var_new(s, "y", AT_IR_I32), *px = at_ir_var_new(s, "x", AT_IR_I32);
    E zero = ci32(s, 0), m = NULL;
    E yy = at_ir_add(s, at_ir_v(s, py), ci32(s, y0)), xx = at_ir_add(s, at_ir_v(s, px), ci32(s, x0));
    for (int ky = 0; ky < 3; ky++)
        for (int kx = 0; kx < 3; kx++) {
            E iy = at_ir_add(s, at_ir_mul(s, yy, ci32(s, 2)), ci32(s, ky - 1));
            E ix = at_ir_add(s, at_ir_mul(s, xx, ci32(s, 2)), ci32(s, kx - 1));
            if (y0 == 0) iy = at_ir_max(s, iy, zero);
            if (x0 == 0) ix = at_ir_max(s, ix, zero);
            E src = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_v(s, c), ci32(s, oh)), iy), ci32(s, oh)), ix);
            E v = at_ir_load(s, q, src, 1);
            m = m ? at_ir_max(s, m, v) : v;
        }
    E cb = at_ir_div(s, at_ir_v(s, c), ci32(s, B16)), cl = at_ir_mod(s, at_ir_v(s, c), ci32(s, B16));
    E row = at_ir_add(s, at_ir_mul(s, cb, ci32(s, ph)), yy);
    E pix = at_ir_add(s, at_ir_mul(s, row, ci32(s, ph)), xx);
    E dst = at_ir_add(s, at_ir_mul(s, pix, ci32(s, B16)), cl);
    return at_ir_for(s, py, ny, AT_IR_SERIAL, at_ir_for(s, px, nx, AT_IR_SERIAL, at_ir_store(s, y, dst, m)));
}

/* max_pool2d 3x3 stride 2 pad 1 on int8, written packed NCHW1n16c, per channel in four regions
 * (first row and column, or not) so the interior runs without bounds logic. A window only leaves
 * the input at the top or left (oh is even: the last window ends on the last row), and there the
 * tap clamped to row / column 0 reads an element the window holds anyway, so clamping gives the
 * max over the in-bounds taps (padding never wins) with every load unconditional. */
static at_status prog_pool(at_arena *arena, int64_t oh, const at_ir_program **out)
{
    const int64_t ph = oh / 2;
    AT_ASSERT(oh % 2 == 0 && ph >= 2);
    at_ir_sched *s = at_ir_sched_begin(arena, "vta_max_pool_pack");
    if (!s) return AT_OOM();
    const at_ir_buffer *q = at_ir_param(s, "q", AT_IR_I8, 64 * oh * oh, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "value0", AT_IR_I8, 64 * ph * ph, AT_IR_OUTPUT);
    const at_ir_var *c = at_ir_var_new(s, "c", AT_IR_I32);
    const at_ir_stmt *parts[3] = {
        pool_region(s, q, y, c, oh, 0, 1, 0, ph),          /* first row */
        pool_region(s, q, y, c, oh, 1, ph - 1, 0, 1),      /* first column below it */
        pool_region(s, q, y, c, oh, 1, ph - 1, 1, ph - 1), /* interior */
    };
    at_ir_add_kernel(s, "vta_max_pool_pack", at_ir_for(s, c, 64, AT_IR_PARALLEL, at_ir_seq(s, parts, 3)));
    return finish_prog(s, out);
}

/* feat[c] = (float)(sum_p last[c/16][p][c%16] / 16.0 / plane): an exact int32 sum, then the
 * reference's two double divisions, so the result is bit-identical to at_net_vta_head_pool. */
static at_status prog_gap(at_arena *arena, int64_t ch, int64_t plane, const at_ir_program **out)
{
    const int64_t B16 = AT_NET_VTA_BLOCK;
    at_ir_sched *s = at_ir_sched_begin(arena, "vta_dequantize_avg_pool");
    if (!s) return AT_OOM();
    const at_ir_buffer *x = at_ir_param(s, "last", AT_IR_I8, ch * plane, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "feat", AT_IR_F32, ch, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_I32, 1, AT_IR_PRIVATE);
    const at_ir_var *c = at_ir_var_new(s, "c", AT_IR_I32), *p = at_ir_var_new(s, "p", AT_IR_I32);
    E zero = ci32(s, 0);
    E cb = at_ir_div(s, at_ir_v(s, c), ci32(s, B16)), cl = at_ir_mod(s, at_ir_v(s, c), ci32(s, B16));
    E src = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, cb, ci32(s, plane)), at_ir_v(s, p)), ci32(s, B16)), cl);
    E sum = at_ir_cast(s, AT_IR_F64, at_ir_load(s, acc, zero, 1));
    E mean = at_ir_div(s, at_ir_div(s, sum, cf64(s, 1 << AT_NET_VTA_INPUT_SHIFT)), cf64(s, (double)plane));
    const at_ir_stmt *items[3] = {
        at_ir_store(s, acc, zero, zero),
        at_ir_for(s, p, plane, AT_IR_SERIAL,
                  at_ir_store(s, acc, zero,
                              at_ir_add(s, at_ir_load(s, acc, zero, 1), at_ir_cast(s, AT_IR_I32, at_ir_load(s, x, src, 1))))),
        at_ir_store(s, y, at_ir_v(s, c), at_ir_cast(s, AT_IR_F32, mean)),
    };
    /* serial: 512 x 49 int8 adds at 224 take ~10 us, less than sharing a loop out over the pool */
    at_ir_add_kernel(s, "vta_dequantize_avg_pool", at_ir_for(s, c, ch, AT_IR_SERIAL, at_ir_seq(s, items, 3)));
    return finish_prog(s, out);
}

/* logits = y + bias (the dense template has no bias). */
static at_status prog_bias(at_arena *arena, int64_t n, const at_ir_program **out)
{
    at_ir_sched *s = at_ir_sched_begin(arena, "vta_dense_bias");
    if (!s) return AT_OOM();
    const at_ir_buffer *x = at_ir_param(s, "y", AT_IR_F32, n, AT_IR_INPUT);
    const at_ir_buffer *b = at_ir_param(s, "bias", AT_IR_F32, n, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "logits", AT_IR_F32, n, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32);
    E iv = at_ir_v(s, i);
    E sum = at_ir_add(s, at_ir_load(s, x, iv, 1), at_ir_load(s, b, iv, 1));
    at_ir_add_kernel(s, "vta_dense_bias", at_ir_for(s, i, n, AT_IR_SERIAL, at_ir_store(s, y, iv, sum)));
    return finish_prog(s, out);
}

/* A task of template name for the CPU with args text, and its args as a log stores them. */
static at_status host_task(const char *name, const char *args_text, at_task **task, char **args_json)
{
    AT_TRY(at_task_create(name, AT_TARGET_LLVM, args_text, task));
    at_strbuf js;
    at_strbuf_init(&js);
    at_strbuf_putc(&js, '[');
    at_op_args_write_json(at_task_args(*task), &js);
    at_strbuf_putc(&js, ']');
    *args_json = js.failed ? NULL : at_strbuf_take(&js);
    at_strbuf_fini(&js);
    if (!*args_json) {
        at_task_free(*task);
        *task = NULL;
        return AT_OOM();
    }
    return AT_OK;
}

/* A config naming the space's knobs in another order (TopHub's TVM 0.6 dense_nopack.x86 records)
 * is rebuilt in the space's order, so the report's index is the one it maps to. */
static at_status reorder_by_name(const at_space *sp, at_config **c)
{
    at_config *r = NULL;
    AT_TRY(at_space_config_in_space_order(sp, *c, &r));
    if (r) {
        at_config_free(*c);
        *c = r;
    }
    return AT_OK;
}

/* Dispatches a template layer and instantiates its config (the template's fallback when the
 * dispatched one cannot be instantiated, with a warning). */
static at_status host_template(at_tune_vta_host *h, const char *name, const char *args_text, at_tune_vta_host_report *rep,
                               const at_ir_program **prog)
{
    at_task *task = NULL;
    char *args = NULL;
    AT_TRY(host_task(name, args_text, &task, &args));
    at_tune_dispatch_stats before = at_tune_dispatch_get_stats(h->d);
    at_net_choice ch = {0};
    at_status st = at_tune_dispatch_fn(h->d, task, args, &ch);
    at_tune_dispatch_stats after = at_tune_dispatch_get_stats(h->d);
    snprintf(rep->impl, sizeof rep->impl, "%s", name);
    snprintf(rep->source, sizeof rep->source, "%s",
             after.n_user > before.n_user ? "log" : after.n_tophub > before.n_tophub ? "tophub" : "fallback");
    if (st == AT_OK) st = reorder_by_name(at_task_space(task), &ch.config);
    if (st == AT_OK) {
        int64_t idx = -1;
        if (at_space_index_of_as_given(at_task_space(task), ch.config, &idx) != AT_OK) idx = -1;
        rep->config_index = idx;
        st = at_task_instantiate(task, ch.config, h->arena, prog);
        if (st == AT_EINVAL && strcmp(rep->source, "fallback") != 0) {
            at_log(AT_LOG_WARN, "%s: config %lld from %s cannot be instantiated (%s); the template's fallback runs instead",
                   name, (long long)idx, rep->source, at_last_error());
            at_config_free(ch.config);
            ch.config = NULL;
            st = at_task_fallback_config(task, NULL, 0, &ch.config);
            if (st == AT_OK && at_space_index_of_as_given(at_task_space(task), ch.config, &idx) != AT_OK) idx = -1;
            rep->config_index = idx;
            snprintf(rep->source, sizeof rep->source, "fallback");
            if (st == AT_OK) st = at_task_instantiate(task, ch.config, h->arena, prog);
        }
    }
    at_config_free(ch.config);
    at_task_free(task);
    at_free(args);
    return st;
}

/* Compiles p and binds its signature to the host buffers ids[0..n); allocates its temporaries. */
static at_status host_prog_setup(at_tune_vta_host *h, host_prog *hp, const at_ir_program *p, const int *ids, size_t n)
{
    hp->p = p;
    hp->n_bufs = p->n_bufs;
    hp->n_params = at_ir_program_n_params(p);
    AT_ASSERT(hp->n_params == n);
    hp->bufs = at_calloc(p->n_bufs, sizeof *hp->bufs);
    if (!hp->bufs) return AT_OOM();
    for (size_t i = 0; i < n; i++) hp->bufs[i] = h->buf[ids[i]];
    for (size_t i = n; i < p->n_bufs; i++) {
        const at_ir_buffer *b = p->bufs[i];
        size_t bytes = (size_t)b->size * (size_t)((b->elem.bits + 7) / 8);
        AT_TRY(h->be->buf_new(h->pool, bytes, &hp->bufs[i]));
    }
    return h->be->prog_new(h->pool, p, &hp->prog);
}

static void host_prog_fini(at_tune_vta_host *h, host_prog *hp)
{
    if (hp->prog) h->be->prog_free(h->pool, hp->prog);
    for (size_t i = hp->n_params; hp->bufs && i < hp->n_bufs; i++)
        if (hp->bufs[i]) h->be->buf_free(h->pool, hp->bufs[i]);
    at_free(hp->bufs);
}

static at_status host_run(at_tune_vta_host *h, host_prog *hp)
{
    AT_TRY(h->be->prog_run(h->pool, hp->prog, hp->bufs, hp->n_bufs, hp->prepared, NULL));
    hp->prepared = true;
    return AT_OK;
}

void at_tune_vta_host_free(at_tune_vta_host *h)
{
    if (!h) return;
    for (int i = 0; i < HP_COUNT; i++) host_prog_fini(h, &h->prog[i]);
    for (int i = 0; i < HB_COUNT; i++)
        if (h->buf[i]) h->be->buf_free(h->pool, h->buf[i]);
    at_tune_dispatch_free(h->d);
    at_arena_free(h->arena);
    at_tune_llvm_pool_free(h->pool);
    at_free(h);
}

static at_status host_build(at_tune_vta_host *h, const at_tune_vta_host_opts *o)
{
    const at_net_vta *net = h->net;
    const float *stem_b, *dense_b;
    int64_t hw;
    const float *stem_w = at_net_vta_stem_params(net, &stem_b, &hw);
    const float *dense_w = at_net_vta_dense_params(net, &dense_b);
    const at_net_vta_layer *lastl = at_net_vta_layer_at(net, at_net_vta_n_layers(net) - 1);
    const int64_t oh = hw / 2, ph = oh / 2, classes = at_net_vta_num_classes(net), feat = lastl->co_b * AT_NET_VTA_BLOCK;
    const int64_t plane = lastl->oh * lastl->ow;
    AT_TRY(at_tune_llvm_pool_new(o->n_threads, &h->pool));
    AT_TRY(at_arena_new(0, &h->arena));
    AT_TRY(at_tune_dispatch_new(AT_TUNE_VTA_CPU_TARGET, &h->d));
    if (o->log_path) AT_TRY(at_tune_dispatch_add_log(h->d, o->log_path, NULL));
    if (!o->no_tophub) AT_TRY(at_tune_dispatch_use_tophub_of(h->d, AT_MEAS_VTA_TARGET, &o->tophub, NULL, NULL));
    const size_t bytes[HB_COUNT] = {
        [HB_IMAGE] = (size_t)(3 * hw * hw) * 4, [HB_STEM_W] = 64 * 147 * 4, [HB_CONV] = (size_t)(64 * oh * oh) * 4,
        [HB_STEM_B] = 64 * 4, [HB_Q] = (size_t)(64 * oh * oh), [HB_VALUE0] = (size_t)(64 * ph * ph),
        [HB_LAST] = (size_t)(feat * plane), [HB_FEAT] = (size_t)feat * 4, [HB_DENSE_W] = (size_t)(classes * feat) * 4,
        [HB_DENSE_Y] = (size_t)classes * 4, [HB_DENSE_B] = (size_t)classes * 4, [HB_LOGITS] = (size_t)classes * 4};
    for (int i = 0; i < HB_COUNT; i++) {
        h->bytes[i] = bytes[i];
        AT_TRY(h->be->buf_new(h->pool, bytes[i], &h->buf[i]));
    }
    AT_TRY(h->be->buf_write(h->pool, h->buf[HB_STEM_W], stem_w));
    AT_TRY(h->be->buf_write(h->pool, h->buf[HB_STEM_B], stem_b));
    AT_TRY(h->be->buf_write(h->pool, h->buf[HB_DENSE_W], dense_w));
    AT_TRY(h->be->buf_write(h->pool, h->buf[HB_DENSE_B], dense_b));
    char args[256];
    const at_ir_program *p = NULL;
    snprintf(args, sizeof args,
             "[[\"TENSOR\", [1, 3, %lld, %lld], \"float32\"], [\"TENSOR\", [64, 3, 7, 7], \"float32\"], [2, 2], "
             "[3, 3, 3, 3], [1, 1], \"float32\"]",
             (long long)hw, (long long)hw);
    AT_TRY(host_template(h, "conv2d_nchw_spatial_pack.arm_cpu", args, &h->rep[AT_TUNE_VTA_HOST_CONV], &p));
    AT_TRY(host_prog_setup(h, &h->prog[HP_CONV], p, (const int[]){HB_IMAGE, HB_STEM_W, HB_CONV}, 3));
    AT_TRY(prog_quantize(h->arena, oh * oh, &p));
    AT_TRY(host_prog_setup(h, &h->prog[HP_QUANT], p, (const int[]){HB_CONV, HB_STEM_B, HB_Q}, 3));
    AT_TRY(prog_pool(h->arena, oh, &p));
    AT_TRY(host_prog_setup(h, &h->prog[HP_POOL], p, (const int[]){HB_Q, HB_VALUE0}, 2));
    AT_TRY(prog_gap(h->arena, feat, plane, &p));
    AT_TRY(host_prog_setup(h, &h->prog[HP_GAP], p, (const int[]){HB_LAST, HB_FEAT}, 2));
    snprintf(args, sizeof args,
             "[[\"TENSOR\", [1, %lld], \"float32\"], [\"TENSOR\", [%lld, %lld], \"float32\"], null, \"float32\"]",
             (long long)feat, (long long)classes, (long long)feat);
    AT_TRY(host_template(h, "dense_nopack.x86", args, &h->rep[AT_TUNE_VTA_HOST_DENSE], &p));
    AT_TRY(host_prog_setup(h, &h->prog[HP_DENSE], p, (const int[]){HB_FEAT, HB_DENSE_W, HB_DENSE_Y}, 3));
    AT_TRY(prog_bias(h->arena, classes, &p));
    AT_TRY(host_prog_setup(h, &h->prog[HP_BIAS], p, (const int[]){HB_DENSE_Y, HB_DENSE_B, HB_LOGITS}, 3));
    h->stats = at_tune_dispatch_get_stats(h->d);
    return AT_OK;
}

at_status at_tune_vta_host_new(const at_net_vta *net, const at_tune_vta_host_opts *o, at_tune_vta_host **out)
{
    AT_ASSERT(net && out);
    *out = NULL;
    if (!at_net_vta_has_weights(net)) return AT_FAIL(AT_EINVAL, "the VTA host layers need the network's weights");
    at_tune_vta_host_opts def = {0};
    at_tune_vta_host *h = at_calloc(1, sizeof *h);
    if (!h) return AT_OOM();
    h->net = net;
    h->be = at_tune_llvm_backend();
    host_reports(h->rep, false);
    at_status st = host_build(h, o ? o : &def);
    if (st != AT_OK) {
        at_tune_vta_host_free(h);
        return st;
    }
    *out = h;
    return AT_OK;
}

const at_tune_vta_host_report *at_tune_vta_host_layers(const at_tune_vta_host *h)
{
    return h->rep;
}

at_tune_dispatch_stats at_tune_vta_host_dispatch_stats(const at_tune_vta_host *h)
{
    return h->stats;
}

at_status at_tune_vta_host_stem(at_tune_vta_host *h, const float *image, int8_t *value0, double *ms)
{
    double t0 = at_clock_mono_s(), t1, t2;
    AT_TRY(h->be->buf_write(h->pool, h->buf[HB_IMAGE], image));
    AT_TRY(host_run(h, &h->prog[HP_CONV]));
    t1 = at_clock_mono_s();
    AT_TRY(host_run(h, &h->prog[HP_QUANT]));
    t2 = at_clock_mono_s();
    AT_TRY(host_run(h, &h->prog[HP_POOL]));
    AT_TRY(h->be->buf_read(h->pool, h->buf[HB_VALUE0], value0));
    if (ms) {
        ms[0] = (t1 - t0) * 1e3;
        ms[1] = (t2 - t1) * 1e3;
        ms[2] = (at_clock_mono_s() - t2) * 1e3;
    }
    return AT_OK;
}

at_status at_tune_vta_host_head(at_tune_vta_host *h, const int8_t *last, float *logits, double *ms)
{
    double t0 = at_clock_mono_s(), t1;
    AT_TRY(h->be->buf_write(h->pool, h->buf[HB_LAST], last));
    AT_TRY(host_run(h, &h->prog[HP_GAP]));
    t1 = at_clock_mono_s();
    AT_TRY(host_run(h, &h->prog[HP_DENSE]));
    AT_TRY(host_run(h, &h->prog[HP_BIAS]));
    AT_TRY(h->be->buf_read(h->pool, h->buf[HB_LOGITS], logits));
    if (ms) {
        ms[0] = (t1 - t0) * 1e3;
        ms[1] = (at_clock_mono_s() - t1) * 1e3;
    }
    return AT_OK;
}

at_status at_tune_vta_host_stem_outputs(at_tune_vta_host *h, float *conv, int8_t *q)
{
    if (conv) {
        AT_TRY(h->be->buf_read(h->pool, h->buf[HB_CONV], conv));
        const float *bias;
        int64_t hw;
        (void)at_net_vta_stem_params(h->net, &bias, &hw);
        int64_t plane = (hw / 2) * (hw / 2);
        for (int64_t i = 0; i < 64 * plane; i++) conv[i] += bias[i / plane];
    }
    if (q) AT_TRY(h->be->buf_read(h->pool, h->buf[HB_Q], q));
    return AT_OK;
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
    at_tune_vta_host *host; /* LLVM host layers; NULL: naive C */
    float      *wt, *conv;  /* naive host: transposed stem weights, the stem conv output */
    int8_t     *q;          /* naive host: the quantized stem output */
    float       feat[AT_NET_VTA_MAX_FEAT];
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

/* The host layers of the stem and the head; per-layer milliseconds into hs[AT_TUNE_VTA_N_HOST]. */
static at_status run_stem(executor *x, const at_net_vta *net, const float *image, double *hs)
{
    int8_t *v0 = value_ptr(x, net, 0);
    if (x->host) return at_tune_vta_host_stem(x->host, image, v0, hs);
    double t0 = at_clock_mono_s(), t1, t2;
    at_net_vta_stem_conv(net, image, x->wt, x->conv);
    t1 = at_clock_mono_s();
    at_net_vta_stem_quantize(net, x->conv, x->q);
    t2 = at_clock_mono_s();
    at_net_vta_stem_pool(net, x->q, v0);
    hs[0] = (t1 - t0) * 1e3;
    hs[1] = (t2 - t1) * 1e3;
    hs[2] = (at_clock_mono_s() - t2) * 1e3;
    return AT_OK;
}

static at_status run_head(executor *x, const at_net_vta *net, float *logits, double *hs)
{
    const int8_t *last = value_ptr(x, net, at_net_vta_n_layers(net));
    if (x->host) return at_tune_vta_host_head(x->host, last, logits, hs + AT_TUNE_VTA_HOST_GAP);
    double t0 = at_clock_mono_s(), t1;
    at_net_vta_head_pool(net, last, x->feat);
    t1 = at_clock_mono_s();
    at_net_vta_head_dense(net, x->feat, logits);
    hs[AT_TUNE_VTA_HOST_GAP] = (t1 - t0) * 1e3;
    hs[AT_TUNE_VTA_HOST_DENSE] = (at_clock_mono_s() - t1) * 1e3;
    return AT_OK;
}

/* The CPU part of one run (stem, adds, head); per-layer seconds into cpu_s[n_layers + 2], the host
 * layers' milliseconds into hs. With vta, the conv layers run on the simulator in between (the
 * functional run). */
static at_status run_once(executor *x, const at_net_vta *net, const float *image, float *logits, bool vta, double *cpu_s,
                          double *hs)
{
    size_t nl = at_net_vta_n_layers(net);
    double t0 = at_clock_mono_s();
    AT_TRY(run_stem(x, net, image, hs));
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
    AT_TRY(run_head(x, net, logits, hs));
    cpu_s[nl + 1] = at_clock_mono_s() - t0;
    return AT_OK;
}

/* The host-layer checks of at_tune_vta_host_check on the executor's stem outputs (conv + bias,
 * q) against the reference float stem (rconv). */
static void check_stem(const at_net_vta *net, const float *conv, const int8_t *q, const float *rconv,
                       at_tune_vta_host_check *hc)
{
    int64_t oh = at_net_vta_stem_hw(net), m = 64 * oh * oh;
    for (int64_t i = 0; i < m; i++) {
        double want = rconv[i], err = fabs((double)conv[i] - want);
        double tol = AT_TUNE_VTA_STEM_ATOL + AT_TUNE_VTA_STEM_RTOL * fabs(want);
        if (err > hc->stem_max_err) hc->stem_max_err = err;
        hc->stem_n_bad += err > tol;
        int8_t rq = at_net_vta_quantize(rconv[i]);
        if (q[i] == rq) continue;
        hc->quant_n_diff++;
        /* explained: some float within the tolerance of the reference quantizes to q[i], i.e. a
         * rounding boundary lies within it (quantize is monotone) */
        int8_t lo = at_net_vta_quantize((float)(want - tol)), hi = at_net_vta_quantize((float)(want + tol));
        hc->quant_n_unexplained += !(q[i] >= lo && q[i] <= hi && abs(q[i] - rq) == 1);
    }
}

static at_status check(executor *x, const at_net_vta *net, const float *image, const float *logits,
                       at_tune_vta_eval_result *res)
{
    at_tune_vta_host_check *hc = &res->host_check;
    size_t nc = (size_t)at_net_vta_num_classes(net), nl = at_net_vta_n_layers(net);
    int64_t oh = at_net_vta_stem_hw(net), m = 64 * oh * oh;
    float *want = at_malloc(nc * sizeof *want), *full = at_malloc(nc * sizeof *full);
    float *rconv = at_malloc((size_t)m * sizeof *rconv), *conv = x->host ? at_malloc((size_t)m * sizeof *conv) : x->conv;
    int8_t *q = x->host ? at_malloc((size_t)m) : x->q;
    int8_t *pooled = at_malloc((size_t)at_net_vta_value_numel(net, 0));
    float *wt = NULL;
    at_net_vta_values ref = {0}, reg = {0};
    at_status st = want && full && rconv && conv && q && pooled ? AT_OK : AT_OOM();
    if (st == AT_OK) st = at_net_vta_stem_weights_t(net, &wt);
    if (st == AT_OK && x->host) st = at_tune_vta_host_stem_outputs(x->host, conv, q);
    if (st == AT_OK) st = at_net_vta_run_reference(net, image, full, &ref);
    /* the packed region from the executor's own value 0 */
    if (st == AT_OK) {
        reg.n = nl + 1;
        reg.v = at_calloc(reg.n, sizeof *reg.v);
        st = reg.v ? AT_OK : AT_OOM();
        for (size_t v = 1; st == AT_OK && v <= nl; v++)
            if (!(reg.v[v] = at_malloc((size_t)at_net_vta_value_numel(net, v)))) st = AT_OOM();
    }
    for (size_t i = 0; st == AT_OK && i < nl; i++) {
        const at_net_vta_layer *l = at_net_vta_layer_at(net, i);
        const int8_t *in[2];
        for (int k = 0; k < 2; k++) in[k] = l->in[k] == 0 ? value_ptr(x, net, 0) : reg.v[l->in[k]];
        st = at_net_vta_layer_ref(l, in, reg.v[i + 1]);
    }
    if (st == AT_OK) {
        res->checked = true;
        res->first_bad_layer = SIZE_MAX;
        at_net_vta_stem_conv(net, image, wt, rconv);
        check_stem(net, conv, q, rconv, hc);
        at_net_vta_stem_pool(net, q, pooled);
        const int8_t *v0 = value_ptr(x, net, 0);
        for (int64_t i = 0; i < at_net_vta_value_numel(net, 0); i++) {
            hc->pool_n_bad += v0[i] != pooled[i];
            hc->value0_n_diff += v0[i] != ref.v[0][i];
        }
        if (hc->pool_n_bad) res->first_bad_layer = SIZE_MAX - 1;
        for (size_t v = 1; v <= nl; v++) {
            const int8_t *got = value_ptr(x, net, v);
            size_t bad = 0;
            for (int64_t i = 0; i < at_net_vta_value_numel(net, v); i++) bad += got[i] != reg.v[v][i];
            if (bad && res->first_bad_layer == SIZE_MAX) res->first_bad_layer = v - 1;
            hc->region_n_bad += bad;
        }
        res->n_bad = hc->pool_n_bad + hc->region_n_bad;
        /* the naive stem is the reference's: value 0 must then be bit-exact too */
        if (!x->host) {
            res->n_bad += hc->value0_n_diff;
            if (hc->value0_n_diff && res->first_bad_layer == SIZE_MAX) res->first_bad_layer = SIZE_MAX - 1;
        }
        at_net_vta_head(net, reg.v[nl], want);
        for (size_t i = 0; i < nc; i++) {
            double e = fabs((double)logits[i] - want[i]), ef = fabs((double)logits[i] - full[i]);
            if (e > hc->logits_max_err) hc->logits_max_err = e;
            if (ef > hc->logits_ref_max_err) hc->logits_ref_max_err = ef;
            bool bad = x->host ? e > AT_TUNE_VTA_LOGIT_ATOL + AT_TUNE_VTA_LOGIT_RTOL * fabs((double)want[i])
                               : memcmp(&logits[i], &want[i], sizeof *want) != 0;
            hc->logits_n_bad += bad;
        }
        res->n_bad_logits = hc->logits_n_bad;
    }
    at_net_vta_values_fini(&reg);
    at_net_vta_values_fini(&ref);
    at_free(wt);
    at_free(pooled);
    if (x->host) {
        at_free(q);
        at_free(conv);
    }
    at_free(rconv);
    at_free(full);
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0], v[stride], ... (n values) into *out. AT_ENOMEM. */
static at_status median_of(const double *v, size_t n, size_t stride, double *out)
{
    *out = 0;
    if (!n) return AT_OK;
    double *tmp = at_malloc(n * sizeof *tmp);
    if (!tmp) return AT_OOM();
    for (size_t i = 0; i < n; i++) tmp[i] = v[i * stride];
    qsort(tmp, n, sizeof *tmp, cmp_double);
    *out = n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
    at_free(tmp);
    return AT_OK;
}

/* --input FILE.npy: any shape holding the image's 3 * H * W values (the model's [1, 3, H, W]). */
static at_status read_image(const char *path, int64_t numel, float *image)
{
    float *x = NULL;
    int64_t dims[8], n = 1;
    size_t rank;
    AT_TRY(at_net_npy_read(path, &x, dims, &rank));
    for (size_t k = 0; k < rank; k++) n *= dims[k];
    at_status st = AT_OK;
    if (n != numel)
        st = AT_FAIL(AT_EINVAL, "%s: %" PRId64 " values, the network input takes %" PRId64, path, n, numel);
    else
        memcpy(image, x, (size_t)n * sizeof *image);
    at_free(x);
    return st;
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
    double *cpu_s = NULL, *run_ms = NULL, *cpu_sum = NULL, *hs = NULL;
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
        hs = at_calloc((repeat + 1) * AT_TUNE_VTA_N_HOST, sizeof *hs);
        if (!res.layers || !x.value_addr || !x.vl || !image || !logits || !cpu_s || !cpu_sum || !run_ms || !hs)
            st = AT_OOM();
    }
    res.host = o->host;
    host_reports(res.host_layers, o->host == AT_TUNE_VTA_HOST_NAIVE);
    if (st == AT_OK && o->host == AT_TUNE_VTA_HOST_NAIVE) {
        int64_t m = 64 * at_net_vta_stem_hw(net) * at_net_vta_stem_hw(net);
        x.conv = at_malloc((size_t)m * sizeof *x.conv);
        x.q = at_malloc((size_t)m);
        st = x.conv && x.q ? at_net_vta_stem_weights_t(net, &x.wt) : AT_OOM();
    } else if (st == AT_OK) {
        at_tune_vta_host_opts ho = {.log_path = o->log_path, .no_tophub = o->no_tophub, .tophub = o->tophub,
                                    .n_threads = o->host_threads};
        st = at_tune_vta_host_new(net, &ho, &x.host);
        if (st == AT_OK) {
            memcpy(res.host_layers, at_tune_vta_host_layers(x.host), sizeof res.host_layers);
            res.host_dispatch = at_tune_vta_host_dispatch_stats(x.host);
        }
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
        if (o->input_path)
            st = read_image(o->input_path, at_net_vta_image_numel(net), image);
        else
            at_net_vta_fill_image(net, o->input_seed, image);
    }
    if (st == AT_OK) {
        emit_eval(o, AT_TUNE_NET_EVALUATE, NULL, 0);
        /* functional VTA run + CPU warm-up */
        st = run_once(&x, net, image, logits, true, cpu_s, hs + repeat * AT_TUNE_VTA_N_HOST);
    }
    if (st == AT_OK && o->save_output)
        st = at_net_npy_write(o->save_output, logits, (const int64_t[]){1, at_net_vta_num_classes(net)}, 2);
    if (st == AT_OK && o->check) st = check(&x, net, image, logits, &res);
    for (size_t i = 0; st == AT_OK && i < nl; i++) res.cycles += x.vl[i].cycles;
    double freq = (double)x.hw.fpga_freq_mhz * 1e6;
    res.vta_ms = (double)res.cycles / freq * 1e3;
    for (size_t r = 0; st == AT_OK && r < repeat; r++) {
        st = run_once(&x, net, image, logits, false, cpu_s, hs + r * AT_TUNE_VTA_N_HOST);
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
        st = median_of(run_ms, repeat, 1, &res.median_ms);
        for (size_t k = 0; st == AT_OK && k < AT_TUNE_VTA_N_HOST; k++)
            st = median_of(hs + k, repeat, AT_TUNE_VTA_N_HOST, &res.host_layers[k].ms);
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
    at_tune_vta_host_free(x.host);
    at_free(x.wt);
    at_free(x.conv);
    at_free(x.q);
    at_free(hs);
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
