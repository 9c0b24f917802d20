/* conv2d_nchw_spatial_pack.mali: TVM v0.18's Mali spatial-pack conv2d (compute
 * arm_cpu/conv2d_spatial_pack.py with num_tile=3, schedule topi/mali/conv2d.py). Knobs, in TVM's
 * order: tile_co/tile_oh/tile_ow (3-way splits: blocks, threads, per-thread VC/VH/VW), reorder_0
 * (vh,vw,vc or vc,vh,vw innermost), ann_reduce on (kh, kw), ann_spatial on (vh, vw, vc).
 *
 * Four kernels, as TVM compiles the task for an unpacked kernel: kernel_vec packs the weights
 * (CO/VC, CI, KH, KW, VC) - during tuning TVM feeds a placeholder instead, so this stage is a
 * weight-layout preparation; data_vec copies each output tile's input window (zero-padded) with
 * one work-item per (h, w, ci) tile and the window unrolled when under 16; conv accumulates
 * VH x VW x VC outputs per work-item straight into the global conv buffer (TVM has no cache_write
 * here) under tile_and_bind3d(c, h, w, TC, TH, TW), reduce loops ci, kh, kw with ann_reduce, the
 * spatial loops in reorder_0's order with ann_spatial (max unroll 16, vector sizes 1 2 4 8 16);
 * output_unpack writes NCHW with the same thread tile. Fallback: TVM's reference-log fallback
 * over TopHub's rk3399 records of this template. */
#include <string.h>

#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_CO, TILE_OH, TILE_OW, REORDER_0, ANN_REDUCE, ANN_SPATIAL, N_KNOBS };

enum { MAX_UNROLL = 16, MAX_THREADS = 256 /* opencl's max_num_threads */ };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    /* axes [n, co, oh, ow, ci, kh, kw, vh, vw, vc]; candidates keep vh, vw, vc or put vc first */
    static const int64_t cands[2 * 10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 9, 7, 8};
    AT_TRY(at_space_split_ex(s, TILE_CO, "tile_co", g.co, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, TILE_OH, "tile_oh", g.oh, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, TILE_OW, "tile_ow", g.ow, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_reorder_ex(s, REORDER_0, "reorder_0", 10,
                               &(at_reorder_opts){.policy = AT_REORDER_CANDIDATE, .candidates = cands, .n_candidates = 2}));
    AT_TRY(at_space_annotate(s, ANN_REDUCE, "ann_reduce", 2, "try_unroll"));
    return at_space_annotate(s, ANN_SPATIAL, "ann_spatial", 3, "try_unroll_vec");
}

static at_status fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c)
{
    (void)args;
    return at_space_fallback_with_reference_log(s, c, refs, n_refs);
}

/* The order of vh, vw, vc (0, 1, 2) from reorder_0: the perm must keep the first 7 axes. */
static at_status spatial_order(const at_config *c, int order[3])
{
    const at_entity *e = at_config_at(c, REORDER_0);
    AT_ASSERT(e->kind == AT_KNOB_REORDER);
    bool ok = e->n == 10;
    for (size_t i = 0; ok && i < 7; i++) ok = e->ints[i] == (int64_t)i;
    int seen = 0;
    for (size_t i = 7; ok && i < 10; i++) {
        int64_t v = e->ints[i];
        ok = v >= 7 && v <= 9 && !(seen & (1 << (v - 7)));
        if (ok) {
            seen |= 1 << (v - 7);
            order[i - 7] = (int)(v - 7);
        }
    }
    if (!ok) return AT_FAIL(AT_EINVAL, "reorder_0: expected a permutation of [n, co, oh, ow, ci, kh, kw, vh, vw, vc] "
                            "that moves only vh, vw, vc");
    return AT_OK;
}

typedef struct sp {
    at_conv2d_geom g;
    at_ir_type     dt, kt, ot;
    int64_t        bc, tc, vc, bh, th, vh, bw, tw, vw;
    int64_t        dvh, dvw; /* data_vec window (undilated); dilated: KH x KW x VH x VW per tile */
    bool           dilated;
} sp;

/* kernel_vec[co][ci][kh][kw][vc] = kernel[co VC + vc][ci][kh][kw]: all axes fused, split by VC
 * (vectorized when VC is a vector size), the rest split by 256 onto blockIdx.x / threadIdx.x. */
static void kernel_vec_stage(at_ir_sched *s, const sp *p, const at_ir_buffer *kernel, const at_ir_buffer *kvec)
{
    const at_conv2d_geom *g = &p->g;
    int64_t total = g->co / p->vc * g->ci * g->kh * g->kw; /* fused extent without vc */
    int64_t groups = (total + MAX_THREADS - 1) / MAX_THREADS;
    bool vec = false;
    for (size_t i = 0; i < 5; i++) vec |= at_tmpl_mali_vec_size[i] == p->vc;
    at_tmpl_loop l[3] = {at_tmpl_loop_new(s, "bb", groups, AT_IR_BLOCK_X), at_tmpl_loop_new(s, "tt", MAX_THREADS, AT_IR_THREAD_X),
                         at_tmpl_loop_new(s, "vec", p->vc, vec ? AT_IR_VECTORIZED : AT_IR_SERIAL)};
    const at_ir_var *fv[2] = {l[0].var, l[1].var};
    const int64_t fe[2] = {groups, MAX_THREADS};
    const at_ir_expr *f = at_ir_fuse(s, fv, fe, 2), *vc = at_ir_v(s, l[2].var);
    /* f = ((co CI + ci) KH + kh) KW + kw */
    const at_ir_expr *kw = at_ir_mod(s, f, at_tmpl_i(s, g->kw));
    const at_ir_expr *kh = at_ir_mod(s, at_ir_div(s, f, at_tmpl_i(s, g->kw)), at_tmpl_i(s, g->kh));
    const at_ir_expr *ci = at_ir_mod(s, at_ir_div(s, f, at_tmpl_i(s, g->kw * g->kh)), at_tmpl_i(s, g->ci));
    const at_ir_expr *co = at_ir_div(s, f, at_tmpl_i(s, g->kw * g->kh * g->ci));
    const at_ir_expr *ki[4] = {at_ir_add(s, at_ir_mul(s, co, at_tmpl_i(s, p->vc)), vc), ci, kh, kw};
    const int64_t kd[4] = {g->co, g->ci, g->kh, g->kw};
    const at_ir_stmt *st = at_ir_store(s, kvec, at_ir_add(s, at_ir_mul(s, f, at_tmpl_i(s, p->vc)), vc),
                                       at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1));
    if (total % MAX_THREADS) st = at_ir_if(s, at_ir_bin(s, AT_IR_LT, f, at_tmpl_i(s, total)), st, NULL);
    at_ir_add_prepare_kernel(s, "kernel_vec_kernel", at_tmpl_nest(s, l, 3, st));
}

/* data_vec: tile_and_bind3d(data_vec, h, w, ci, 1): blockIdx.z/y/x = h, w, ci tiles, one work-item
 * each; the window loops unrolled when shorter than 16. */
static void data_vec_stage(at_ir_sched *s, const sp *p, const at_ir_buffer *data, const at_ir_buffer *dvec)
{
    const at_conv2d_geom *g = &p->g;
    int64_t oh_b = g->oh / p->vh, ow_b = g->ow / p->vw;
    at_tmpl_loop l[11];
    size_t n = 0;
    l[n++] = at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL);
    l[n++] = at_tmpl_loop_new(s, "h", oh_b, AT_IR_BLOCK_Z);
    l[n++] = at_tmpl_loop_new(s, "w", ow_b, AT_IR_BLOCK_Y);
    l[n++] = at_tmpl_loop_new(s, "ci", g->ci, AT_IR_BLOCK_X);
    l[n++] = at_tmpl_loop_new(s, "h_i", 1, AT_IR_THREAD_Z);
    l[n++] = at_tmpl_loop_new(s, "w_i", 1, AT_IR_THREAD_Y);
    l[n++] = at_tmpl_loop_new(s, "ci_i", 1, AT_IR_THREAD_X);
    const at_ir_expr *nn = at_ir_v(s, l[0].var), *h = at_ir_v(s, l[1].var), *w = at_ir_v(s, l[2].var), *ci = at_ir_v(s, l[3].var);
    const at_ir_expr *hp, *wp, *idx;
    int64_t h_max, w_max;
    if (!p->dilated) {
        l[n++] = at_tmpl_loop_new(s, "vh", p->dvh, p->dvh < MAX_UNROLL ? AT_IR_UNROLLED : AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "vw", p->dvw, p->dvw < MAX_UNROLL ? AT_IR_UNROLLED : AT_IR_SERIAL);
        const at_ir_expr *vh = at_ir_v(s, l[7].var), *vw = at_ir_v(s, l[8].var);
        hp = at_ir_add(s, at_ir_mul(s, h, at_tmpl_i(s, p->vh * g->sh)), vh);
        wp = at_ir_add(s, at_ir_mul(s, w, at_tmpl_i(s, p->vw * g->sw)), vw);
        h_max = (oh_b - 1) * p->vh * g->sh + p->dvh - 1;
        w_max = (ow_b - 1) * p->vw * g->sw + p->dvw - 1;
        const at_ir_expr *di[6] = {nn, h, w, ci, vh, vw};
        const int64_t dd[6] = {g->n, oh_b, ow_b, g->ci, p->dvh, p->dvw};
        idx = at_tmpl_index(s, di, dd, 6);
    } else {
        l[n++] = at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "vh", p->vh, p->vh < MAX_UNROLL ? AT_IR_UNROLLED : AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "vw", p->vw, p->vw < MAX_UNROLL ? AT_IR_UNROLLED : AT_IR_SERIAL);
        const at_ir_expr *kh = at_ir_v(s, l[7].var), *kw = at_ir_v(s, l[8].var), *vh = at_ir_v(s, l[9].var),
                         *vw = at_ir_v(s, l[10].var);
        hp = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, h, at_tmpl_i(s, p->vh)), vh), at_tmpl_i(s, g->sh)),
                       at_ir_mul(s, kh, at_tmpl_i(s, g->dh)));
        wp = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, w, at_tmpl_i(s, p->vw)), vw), at_tmpl_i(s, g->sw)),
                       at_ir_mul(s, kw, at_tmpl_i(s, g->dw)));
        h_max = (g->oh - 1) * g->sh + (g->kh - 1) * g->dh;
        w_max = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw;
        const at_ir_expr *di[8] = {nn, h, w, ci, kh, kw, vh, vw};
        const int64_t dd[8] = {g->n, oh_b, ow_b, g->ci, g->kh, g->kw, p->vh, p->vw};
        idx = at_tmpl_index(s, di, dd, 8);
    }
    const at_ir_expr *val = at_tmpl_pad_load(s, data, g, nn, ci, hp, wp, h_max, w_max);
    at_ir_add_kernel(s, "data_vec_kernel", at_tmpl_nest(s, l, n, at_ir_store(s, dvec, idx, val)));
}

static at_status conv_stage(at_ir_sched *s, const sp *p, const at_config *c, const at_ir_buffer *dvec,
                            const at_ir_buffer *kvec, const at_ir_buffer *conv)
{
    const at_conv2d_geom *g = &p->g;
    int order[3];
    AT_TRY(spatial_order(c, order));
    at_ir_for_kind red_kind[2], sp_kind[3];
    const int64_t red_lens[2] = {g->kh, g->kw}, sp_lens[3] = {p->vh, p->vw, p->vc};
    AT_TRY(at_tmpl_annotate(c, ANN_REDUCE, 2, red_lens, MAX_UNROLL, NULL, 0, red_kind));
    AT_TRY(at_tmpl_annotate(c, ANN_SPATIAL, 3, sp_lens, MAX_UNROLL, at_tmpl_mali_vec_size, 5, sp_kind));

    /* reorder_0, then tile_and_bind3d(c, h, w, TC, TH, TW): n, c.o, h.o, w.o, c.i, h.i, w.i (bound),
     * ci, kh, kw, then vh/vw/vc in reorder_0's order */
    at_tmpl_loop bind[7] = {at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL),      at_tmpl_loop_new(s, "c_o", p->bc, AT_IR_BLOCK_Z),
                            at_tmpl_loop_new(s, "h_o", p->bh, AT_IR_BLOCK_Y),  at_tmpl_loop_new(s, "w_o", p->bw, AT_IR_BLOCK_X),
                            at_tmpl_loop_new(s, "c_i", p->tc, AT_IR_THREAD_Z), at_tmpl_loop_new(s, "h_i", p->th, AT_IR_THREAD_Y),
                            at_tmpl_loop_new(s, "w_i", p->tw, AT_IR_THREAD_X)};
    const char *sp_names[3] = {"vh", "vw", "vc"}, *init_names[3] = {"vh_init", "vw_init", "vc_init"};
    at_tmpl_loop spl[3], initl[3];
    const at_ir_expr *spv[3], *initv[3];
    for (int i = 0; i < 3; i++) {
        int ax = order[i];
        spl[i] = at_tmpl_loop_new(s, sp_names[ax], sp_lens[ax], sp_kind[ax]);
        initl[i] = at_tmpl_loop_new(s, init_names[ax], sp_lens[ax], sp_kind[ax]);
        spv[ax] = at_ir_v(s, spl[i].var);
        initv[ax] = at_ir_v(s, initl[i].var);
    }
    at_tmpl_loop red[3] = {at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL), at_tmpl_loop_new(s, "kh", g->kh, red_kind[0]),
                           at_tmpl_loop_new(s, "kw", g->kw, red_kind[1])};
    const at_ir_expr *nn = at_ir_v(s, bind[0].var);
    const at_ir_var *cvars[2] = {bind[1].var, bind[4].var}, *hvars[2] = {bind[2].var, bind[5].var},
                    *wvars[2] = {bind[3].var, bind[6].var};
    const int64_t ce[2] = {p->bc, p->tc}, he[2] = {p->bh, p->th}, we[2] = {p->bw, p->tw};
    const at_ir_expr *cc = at_ir_fuse(s, cvars, ce, 2), *hh = at_ir_fuse(s, hvars, he, 2), *ww = at_ir_fuse(s, wvars, we, 2);
    const int64_t cdims[7] = {g->n, g->co / p->vc, g->oh / p->vh, g->ow / p->vw, p->vh, p->vw, p->vc};

    const at_ir_expr *ii[7] = {nn, cc, hh, ww, initv[0], initv[1], initv[2]};
    const at_ir_stmt *init = at_tmpl_nest(s, initl, 3, at_ir_store(s, conv, at_tmpl_index(s, ii, cdims, 7), at_tmpl_f(s, p->ot, 0)));

    const at_ir_expr *ci = at_ir_v(s, red[0].var), *kh = at_ir_v(s, red[1].var), *kw = at_ir_v(s, red[2].var);
    const at_ir_expr *oi[7] = {nn, cc, hh, ww, spv[0], spv[1], spv[2]};
    const at_ir_expr *oidx = at_tmpl_index(s, oi, cdims, 7);
    const at_ir_expr *didx;
    int64_t oh_b = g->oh / p->vh, ow_b = g->ow / p->vw;
    if (!p->dilated) {
        const at_ir_expr *di[6] = {nn, hh, ww, ci, at_ir_add(s, at_ir_mul(s, spv[0], at_tmpl_i(s, g->sh)), kh),
                                   at_ir_add(s, at_ir_mul(s, spv[1], at_tmpl_i(s, g->sw)), kw)};
        const int64_t dd[6] = {g->n, oh_b, ow_b, g->ci, p->dvh, p->dvw};
        didx = at_tmpl_index(s, di, dd, 6);
    } else {
        const at_ir_expr *di[8] = {nn, hh, ww, ci, kh, kw, spv[0], spv[1]};
        const int64_t dd[8] = {g->n, oh_b, ow_b, g->ci, g->kh, g->kw, p->vh, p->vw};
        didx = at_tmpl_index(s, di, dd, 8);
    }
    const at_ir_expr *ki[5] = {cc, ci, kh, kw, spv[2]};
    const int64_t kd[5] = {g->co / p->vc, g->ci, g->kh, g->kw, p->vc};
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, p->ot, at_ir_load(s, dvec, didx, 1)),
                                       at_tmpl_cast(s, p->ot, at_ir_load(s, kvec, at_tmpl_index(s, ki, kd, 5), 1)));
    const at_ir_stmt *upd = at_tmpl_nest(s, spl, 3, at_ir_store(s, conv, oidx, at_ir_add(s, at_ir_load(s, conv, oidx, 1), prod)));
    upd = at_tmpl_nest(s, red, 3, upd);
    at_ir_add_kernel(s, "conv_kernel", at_tmpl_nest(s, bind, 7, at_ir_seq2(s, init, upd)));
    return AT_OK;
}

/* output_unpack under tile_and_bind3d(output, co, oh, ow, TC, TH, TW): one element per work-item. */
static void unpack_stage(at_ir_sched *s, const sp *p, const at_ir_buffer *conv, const at_ir_buffer *out)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop l[7] = {at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "co_o", g->co / p->tc, AT_IR_BLOCK_Z),
                         at_tmpl_loop_new(s, "oh_o", g->oh / p->th, AT_IR_BLOCK_Y),
                         at_tmpl_loop_new(s, "ow_o", g->ow / p->tw, AT_IR_BLOCK_X),
                         at_tmpl_loop_new(s, "co_i", p->tc, AT_IR_THREAD_Z),
                         at_tmpl_loop_new(s, "oh_i", p->th, AT_IR_THREAD_Y),
                         at_tmpl_loop_new(s, "ow_i", p->tw, AT_IR_THREAD_X)};
    const at_ir_var *cv[2] = {l[1].var, l[4].var}, *hv[2] = {l[2].var, l[5].var}, *wv[2] = {l[3].var, l[6].var};
    const int64_t ce[2] = {g->co / p->tc, p->tc}, he[2] = {g->oh / p->th, p->th}, we[2] = {g->ow / p->tw, p->tw};
    const at_ir_expr *nn = at_ir_v(s, l[0].var), *co = at_ir_fuse(s, cv, ce, 2), *oh = at_ir_fuse(s, hv, he, 2),
                     *ow = at_ir_fuse(s, wv, we, 2);
    const at_ir_expr *ivc = at_tmpl_i(s, p->vc), *ivh = at_tmpl_i(s, p->vh), *ivw = at_tmpl_i(s, p->vw);
    const at_ir_expr *ci[7] = {nn, at_ir_div(s, co, ivc), at_ir_div(s, oh, ivh), at_ir_div(s, ow, ivw),
                               at_ir_mod(s, oh, ivh), at_ir_mod(s, ow, ivw), at_ir_mod(s, co, ivc)};
    const int64_t cd[7] = {g->n, g->co / p->vc, g->oh / p->vh, g->ow / p->vw, p->vh, p->vw, p->vc};
    const at_ir_expr *oi[4] = {nn, co, oh, ow};
    const int64_t od[4] = {g->n, g->co, g->oh, g->ow};
    at_ir_add_kernel(s, "output_unpack_kernel",
                     at_tmpl_nest(s, l, 7, at_ir_store(s, out, at_tmpl_index(s, oi, od, 4),
                                                       at_ir_load(s, conv, at_tmpl_index(s, ci, cd, 7), 1))));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    sp p;
    memset(&p, 0, sizeof p);
    at_op_conv2d_geom(args->op, a, &p.g);
    const at_conv2d_geom *g = &p.g;
    p.dt = a->dtype;
    p.kt = a->kernel_dtype;
    p.ot = a->out_dtype;
    int64_t co[3], oh[3], ow[3];
    AT_TRY(at_tmpl_split_parts(c, TILE_CO, g->co, 3, co));
    AT_TRY(at_tmpl_split_parts(c, TILE_OH, g->oh, 3, oh));
    AT_TRY(at_tmpl_split_parts(c, TILE_OW, g->ow, 3, ow));
    p.bc = co[0], p.tc = co[1], p.vc = co[2];
    p.bh = oh[0], p.th = oh[1], p.vh = oh[2];
    p.bw = ow[0], p.tw = ow[1], p.vw = ow[2];
    p.dilated = g->dh != 1 || g->dw != 1;
    p.dvh = p.vh * g->sh + g->kh - 1;
    p.dvw = p.vw * g->sw + g->kw - 1;
    int64_t dvec_size = p.dilated ? g->n * g->oh * g->ow * g->ci * g->kh * g->kw
                                  : g->n * (g->oh / p.vh) * (g->ow / p.vw) * g->ci * p.dvh * p.dvw;
    if ((double)dvec_size > (double)(1LL << 31) - 1)
        return AT_FAIL(AT_EINVAL, "data_vec of %lld elements is too large", (long long)dvec_size);

    const at_ir_buffer *data = at_ir_param(s, "data", p.dt, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", p.kt, g->co * g->ci * g->kh * g->kw, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", p.ot, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    const at_ir_buffer *kvec = at_ir_temp(s, "kernel_vec", p.kt, g->co * g->ci * g->kh * g->kw);
    const at_ir_buffer *dvec = at_ir_temp(s, p.dilated ? "data_vec_undilated" : "data_vec", p.dt, dvec_size);
    const at_ir_buffer *conv = at_ir_temp(s, "conv", p.ot, g->n * g->co * g->oh * g->ow);

    kernel_vec_stage(s, &p, kernel, kvec);
    data_vec_stage(s, &p, data, dvec);
    AT_TRY(conv_stage(s, &p, c, dvec, kvec, conv));
    unpack_stage(s, &p, conv, out);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_nchw_spatial_pack_mali = {
    .name = "conv2d_nchw_spatial_pack.mali",
    .op = AT_OP_CONV2D_NCHW,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = fallback,
    .ref_backend = "mali",
    .ref_model = "rk3399",
};
