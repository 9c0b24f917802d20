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
 * over TopHub's rk3399 records of this template.
 * The compute's knobs, tiles, data_vec and conv's update term are spatial_pack.c's (shared with
 * the arm_cpu template, as TVM shares the compute); this file holds the schedule. */
#include "templates/internal.h"
#include "templates/template.h"

enum { MAX_UNROLL = 16, MAX_THREADS = 256 /* opencl's max_num_threads */ };

static at_status define_space(const at_args *args, at_space *s)
{
    return at_tmpl_sp_define_space(args, s, 3);
}

/* kernel_vec[co][ci][kh][kw][vc] = kernel[co VC + vc][ci][kh][kw]: all axes fused, split by VC
 * (vectorized when VC is a vector size), the rest split by 256 onto blockIdx.x / threadIdx.x. */
static void kernel_vec_stage(at_ir_sched *s, const at_tmpl_sp *p)
{
    const at_ir_buffer *kernel = p->kernel, *kvec = p->kvec;
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
static void data_vec_stage(at_ir_sched *s, const at_tmpl_sp *p)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop l[11];
    l[0] = at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL);
    l[1] = at_tmpl_loop_new(s, "h", g->oh / p->vh, AT_IR_BLOCK_Z);
    l[2] = at_tmpl_loop_new(s, "w", g->ow / p->vw, AT_IR_BLOCK_Y);
    l[3] = at_tmpl_loop_new(s, "ci", g->ci, AT_IR_BLOCK_X);
    l[4] = at_tmpl_loop_new(s, "h_i", 1, AT_IR_THREAD_Z);
    l[5] = at_tmpl_loop_new(s, "w_i", 1, AT_IR_THREAD_Y);
    l[6] = at_tmpl_loop_new(s, "ci_i", 1, AT_IR_THREAD_X);
    at_tmpl_sp_data_vec(s, p, l, 7, MAX_UNROLL);
}

static at_status conv_stage(at_ir_sched *s, const at_tmpl_sp *p, const at_config *c, const at_ir_buffer *conv)
{
    const at_conv2d_geom *g = &p->g;
    int order[3];
    at_ir_for_kind red_kind[2], sp_kind[3];
    AT_TRY(at_tmpl_sp_conv_kinds(c, p, MAX_UNROLL, at_tmpl_mali_vec_size, 5, order, red_kind, sp_kind));
    const int64_t sp_lens[3] = {p->vh, p->vw, p->vc};

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
    const at_ir_expr *prod = at_tmpl_sp_conv_term(s, p, nn, hh, ww, cc, ci, kh, kw, spv);
    const at_ir_stmt *upd = at_tmpl_nest(s, spl, 3, at_ir_store(s, conv, oidx, at_ir_add(s, at_ir_load(s, conv, oidx, 1), prod)));
    upd = at_tmpl_nest(s, red, 3, upd);
    at_ir_add_kernel(s, "conv_kernel", at_tmpl_nest(s, bind, 7, at_ir_seq2(s, init, upd)));
    return AT_OK;
}

/* output_unpack under tile_and_bind3d(output, co, oh, ow, TC, TH, TW): one element per work-item. */
static void unpack_stage(at_ir_sched *s, const at_tmpl_sp *p, const at_ir_buffer *conv)
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
                     at_tmpl_nest(s, l, 7, at_ir_store(s, p->out, at_tmpl_index(s, oi, od, 4),
                                                       at_ir_load(s, conv, at_tmpl_index(s, ci, cd, 7), 1))));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    at_tmpl_sp p;
    AT_TRY(at_tmpl_sp_init(args, c, 3, false, s, &p));
    const at_conv2d_geom *g = &p.g;
    const at_ir_buffer *conv = at_ir_temp(s, "conv", p.ot, g->n * g->co * g->oh * g->ow);
    kernel_vec_stage(s, &p);
    data_vec_stage(s, &p);
    AT_TRY(conv_stage(s, &p, c, conv));
    unpack_stage(s, &p, conv);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_nchw_spatial_pack_mali = {
    .name = "conv2d_nchw_spatial_pack.mali",
    .op = AT_OP_CONV2D_NCHW,
    .target = AT_TARGET_OPENCL,
    .n_knobs = AT_TMPL_SP_N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = at_tmpl_fallback_reference_log,
    .ref_backend = "mali",
    .ref_model = "rk3399",
};
