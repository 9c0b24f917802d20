/* conv2d_nchw_spatial_pack.arm_cpu: TVM v0.18's ARM CPU spatial-pack conv2d (compute
 * arm_cpu/conv2d_spatial_pack.py with num_tile=2, schedule schedule_conv2d_spatial_pack_nchw).
 * Knobs, in TVM's order: tile_co, tile_oh, tile_ow (2-way splits: blocks, per-block VC/VH/VW),
 * reorder_0 (vh,vw,vc or vc,vh,vw innermost), ann_reduce on (kh, kw) (try_unroll), ann_spatial on
 * (vh, vw, vc) (try_unroll_vec), both without an unroll limit or a lane list, as TVM applies them.
 *
 * Three kernels, as TVM compiles the tuning task: kernel_vec packs the weights (CO/VC, CI, KH, KW,
 * VC), a placeholder while TVM tunes, so a preparation kernel here (parallel over co, as TVM's
 * deployed schedule); data_vec copies each output tile's zero-padded input window, parallel over
 * the tile rows h; then output_unpack, split by the tiles and ordered n, co, oh, ow, vh, vw, vc with
 * co parallel, holds conv computed at ow: a VH x VW x VC block in private memory, initialised,
 * accumulated over ci, kh, kw and the spatial loops in reorder_0's order with their annotations,
 * then written out NCHW. Fallback: TVM's reference-log fallback over TopHub's arm_cpu rk3399
 * records of this template.
 * The compute's knobs, tiles, data_vec and conv's update term are spatial_pack.c's (shared with
 * the Mali template, as TVM shares the compute); this file holds the schedule. */
#include "templates/internal.h"
#include "templates/template.h"

static at_status define_space(const at_args *args, at_space *s)
{
    return at_tmpl_sp_define_space(args, s, 2);
}

/* kernel_vec[co][ci][kh][kw][vc] = kernel[co VC + vc][ci][kh][kw], parallel over co. */
static void kernel_vec_stage(at_ir_sched *s, const at_tmpl_sp *p)
{
    const at_ir_buffer *kernel = p->kernel, *kvec = p->kvec;
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop l[5] = {at_tmpl_loop_new(s, "co", p->bc, AT_IR_PARALLEL), at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL), at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "vc", p->vc, AT_IR_SERIAL)};
    const at_ir_expr *v[5];
    for (int i = 0; i < 5; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *ki[4] = {at_ir_add(s, at_ir_mul(s, v[0], at_tmpl_i(s, p->vc)), v[4]), v[1], v[2], v[3]};
    const int64_t kd[4] = {g->co, g->ci, g->kh, g->kw};
    const int64_t vd[5] = {p->bc, g->ci, g->kh, g->kw, p->vc};
    const at_ir_stmt *st = at_ir_store(s, kvec, at_tmpl_index(s, v, vd, 5), at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1));
    at_ir_add_prepare_kernel(s, "kernel_vec_kernel", at_tmpl_nest(s, l, 5, st));
}

/* data_vec, parallel over its tile rows h (axis 1), the rest serial. */
static void data_vec_stage(at_ir_sched *s, const at_tmpl_sp *p)
{
    at_tmpl_loop l[8];
    l[0] = at_tmpl_loop_new(s, "n", p->g.n, AT_IR_SERIAL);
    l[1] = at_tmpl_loop_new(s, "h", p->bh, AT_IR_PARALLEL);
    l[2] = at_tmpl_loop_new(s, "w", p->bw, AT_IR_SERIAL);
    l[3] = at_tmpl_loop_new(s, "ci", p->g.ci, AT_IR_SERIAL);
    at_tmpl_sp_data_vec(s, p, l, 4, 0);
}

/* output_unpack (n, co parallel, oh, ow, vh, vw, vc) with conv computed at ow in private memory;
 * the transposed convolution's template shares it with its own update term. */
at_status at_tmpl_sp_arm_cpu_conv(at_ir_sched *s, const at_tmpl_sp *p, const at_config *c, at_tmpl_sp_term term, void *ctx)
{
    const at_conv2d_geom *g = &p->g;
    int order[3];
    at_ir_for_kind red_kind[2], sp_kind[3];
    AT_TRY(at_tmpl_sp_conv_kinds(c, p, 0, NULL, 0, order, red_kind, sp_kind));
    const int64_t sp_lens[3] = {p->vh, p->vw, p->vc};

    const at_ir_buffer *conv = at_ir_alloc(s, "conv", p->ot, p->vh * p->vw * p->vc, AT_IR_PRIVATE);
    at_tmpl_loop outer[4] = {at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL), at_tmpl_loop_new(s, "co", p->bc, AT_IR_PARALLEL),
                             at_tmpl_loop_new(s, "oh", p->bh, AT_IR_SERIAL), at_tmpl_loop_new(s, "ow", p->bw, AT_IR_SERIAL)};
    const at_ir_expr *nn = at_ir_v(s, outer[0].var), *co = at_ir_v(s, outer[1].var), *oh = at_ir_v(s, outer[2].var),
                     *ow = at_ir_v(s, outer[3].var);
    const int64_t ldims[3] = {p->vh, p->vw, p->vc};

    /* the spatial loops in reorder_0's order, for the init nest and for the update */
    const char *sp_names[3] = {"vh", "vw", "vc"}, *init_names[3] = {"vh_init", "vw_init", "vc_init"};
    at_tmpl_axis spa[3], inita[3];
    const at_ir_expr *spv[3], *initv[3];
    for (int i = 0; i < 3; i++) {
        int ax = order[i];
        spa[i] = at_tmpl_cpu_axis(s, sp_names[ax], sp_lens[ax], sp_kind[ax]);
        inita[i] = at_tmpl_cpu_axis(s, init_names[ax], sp_lens[ax], sp_kind[ax]);
        spv[ax] = spa[i].index;
        initv[ax] = inita[i].index;
    }
    at_tmpl_loop loops[6];
    size_t nl = at_tmpl_axes_loops(inita, 3, loops);
    const at_ir_stmt *init = at_tmpl_nest(s, loops, nl, at_ir_store(s, conv, at_tmpl_index(s, initv, ldims, 3), at_tmpl_f(s, p->ot, 0)));

    at_tmpl_loop red[3] = {at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL), at_tmpl_loop_new(s, "kh", g->kh, red_kind[0]),
                           at_tmpl_loop_new(s, "kw", g->kw, red_kind[1])};
    const at_ir_expr *ci = at_ir_v(s, red[0].var), *kh = at_ir_v(s, red[1].var), *kw = at_ir_v(s, red[2].var);
    const at_ir_expr *lidx = at_tmpl_index(s, spv, ldims, 3);
    const at_ir_expr *prod = term(s, p, nn, oh, ow, co, ci, kh, kw, spv, ctx);
    nl = at_tmpl_axes_loops(spa, 3, loops);
    const at_ir_stmt *upd = at_tmpl_nest(s, loops, nl, at_ir_store(s, conv, lidx, at_ir_add(s, at_ir_load(s, conv, lidx, 1), prod)));
    upd = at_tmpl_nest(s, red, 3, upd);

    /* output_unpack's own vh, vw, vc (no annotation: the tuning task's output is output_unpack) */
    at_tmpl_loop ul[3] = {at_tmpl_loop_new(s, "vh.u", p->vh, AT_IR_SERIAL), at_tmpl_loop_new(s, "vw.u", p->vw, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "vc.u", p->vc, AT_IR_SERIAL)};
    const at_ir_expr *uv[3] = {at_ir_v(s, ul[0].var), at_ir_v(s, ul[1].var), at_ir_v(s, ul[2].var)};
    const at_ir_expr *oi[4] = {nn, at_ir_add(s, at_ir_mul(s, co, at_tmpl_i(s, p->vc)), uv[2]),
                               at_ir_add(s, at_ir_mul(s, oh, at_tmpl_i(s, p->vh)), uv[0]),
                               at_ir_add(s, at_ir_mul(s, ow, at_tmpl_i(s, p->vw)), uv[1])};
    const int64_t od[4] = {g->n, g->co, g->oh, g->ow};
    const at_ir_stmt *unpack = at_tmpl_nest(
        s, ul, 3, at_ir_store(s, p->out, at_tmpl_index(s, oi, od, 4), at_ir_load(s, conv, at_tmpl_index(s, uv, ldims, 3), 1)));

    const at_ir_stmt *items[3] = {init, upd, unpack};
    at_ir_add_kernel(s, "conv_kernel", at_tmpl_nest(s, outer, 4, at_ir_seq(s, items, 3)));
    return AT_OK;
}

static const at_ir_expr *conv_term(at_ir_sched *s, const at_tmpl_sp *p, const at_ir_expr *nn, const at_ir_expr *h,
                                   const at_ir_expr *w, const at_ir_expr *co, const at_ir_expr *ci, const at_ir_expr *kh,
                                   const at_ir_expr *kw, const at_ir_expr *const spv[3], void *ctx)
{
    (void)ctx;
    return at_tmpl_sp_conv_term(s, p, nn, h, w, co, ci, kh, kw, spv);
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    at_tmpl_sp p;
    AT_TRY(at_tmpl_sp_init(args, c, 2, true, s, &p));
    kernel_vec_stage(s, &p);
    data_vec_stage(s, &p);
    AT_TRY(at_tmpl_sp_arm_cpu_conv(s, &p, c, conv_term, NULL));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_nchw_spatial_pack_arm_cpu = {
    .name = "conv2d_nchw_spatial_pack.arm_cpu",
    .op = AT_OP_CONV2D_NCHW,
    .target = AT_TARGET_LLVM,
    .n_knobs = AT_TMPL_SP_N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = at_tmpl_fallback_reference_log,
    .ref_backend = "arm_cpu",
    .ref_model = "rk3399",
    .entities_as_given = true,
};
