/* conv2d_transpose_nchw.arm_cpu: TVM v0.18's ARM CPU transposed convolution (_decl_spatial_pack
 * in topi/arm_cpu/conv2d_transpose.py with num_tile 2, scheduled by the spatial pack's
 * schedule_conv2d_spatial_pack_nchw). The compute is the spatial pack's over the dilated, padded
 * input with the kernel transposed and flipped, so the knobs are the spatial pack's, in its order,
 * over CO, OH, OW: tile_co, tile_oh, tile_ow, reorder_0, ann_reduce (kh, kw), ann_spatial (vh, vw,
 * vc). No cfg.is_fallback branch: the untuned config is entity 0 of every knob.
 *
 * Three kernels, as the schedule leaves them: kernel_vec_conv2d_transpose (CO/VC, CI, KH, KW, VC)
 * from the (CI, CO, KH, KW) kernel, parallel over co and timed (TVM skips only a kernel_vec named
 * "kernel_vec"); data_vec, each output tile's window of the dilated, padded input (nn.dilate and
 * nn.pad inlined), parallel over the tile rows; conv and output_unpack as the arm_cpu spatial pack
 * (at_tmpl_sp_arm_cpu_conv), with the term data_vec[n, h, w, ci, vh + kh, vw + kw] times
 * kernel_vec[co, ci, KH - 1 - kh, KW - 1 - kw, vc], both cast to out_dtype. */
#include <string.h>

#include "templates/internal.h"
#include "templates/template.h"

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_transpose_geom t;
    at_op_conv2d_transpose_geom(&args->u.conv2d_transpose, &t);
    return at_tmpl_sp_define_space_geom(&t.g, s, 2);
}

/* kernel_vec[co][ci][kh][kw][vc] = kernel[ci][co VC + vc][kh][kw], parallel over co. */
static void kernel_vec_stage(at_ir_sched *s, const at_tmpl_sp *p)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop l[5] = {at_tmpl_loop_new(s, "co", p->bc, AT_IR_PARALLEL), at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL), at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "vc", p->vc, AT_IR_SERIAL)};
    const at_ir_expr *v[5];
    for (int i = 0; i < 5; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *ki[4] = {v[1], at_ir_add(s, at_ir_mul(s, v[0], at_tmpl_i(s, p->vc)), v[4]), v[2], v[3]};
    const int64_t kd[4] = {g->ci, g->co, g->kh, g->kw};
    const int64_t vd[5] = {p->bc, g->ci, g->kh, g->kw, p->vc};
    const at_ir_stmt *st =
        at_ir_store(s, p->kvec, at_tmpl_index(s, v, vd, 5), at_ir_load(s, p->kernel, at_tmpl_index(s, ki, kd, 4), 1));
    at_ir_add_kernel(s, "kernel_vec_conv2d_transpose_kernel", at_tmpl_nest(s, l, 5, st));
}

/* data_vec[n][h][w][ci][vh][vw] = data_pad[n][ci][h VH + vh][w VW + vw], parallel over h. */
static void data_vec_stage(at_ir_sched *s, const at_tmpl_sp *p, const at_conv2d_transpose_geom *t)
{
    const at_conv2d_geom *g = &p->g;
    int64_t oh_b = g->oh / p->vh, ow_b = g->ow / p->vw;
    at_tmpl_loop l[6] = {at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL),    at_tmpl_loop_new(s, "h", oh_b, AT_IR_PARALLEL),
                         at_tmpl_loop_new(s, "w", ow_b, AT_IR_SERIAL),    at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "vh", p->dvh, AT_IR_SERIAL), at_tmpl_loop_new(s, "vw", p->dvw, AT_IR_SERIAL)};
    const at_ir_expr *v[6];
    for (int i = 0; i < 6; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *y = at_ir_add(s, at_ir_mul(s, v[1], at_tmpl_i(s, p->vh)), v[4]);
    const at_ir_expr *x = at_ir_add(s, at_ir_mul(s, v[2], at_tmpl_i(s, p->vw)), v[5]);
    const int64_t dd[6] = {g->n, oh_b, ow_b, g->ci, p->dvh, p->dvw};
    const at_ir_stmt *st =
        at_ir_store(s, p->dvec, at_tmpl_index(s, v, dd, 6), at_op_conv2d_transpose_load(s, p->data, t, v[0], v[3], y, x));
    at_ir_add_kernel(s, "data_vec_kernel", at_tmpl_nest(s, l, 6, st));
}

static const at_ir_expr *transpose_term(at_ir_sched *s, const at_tmpl_sp *p, const at_ir_expr *nn, const at_ir_expr *h,
                                        const at_ir_expr *w, const at_ir_expr *co, const at_ir_expr *ci,
                                        const at_ir_expr *kh, const at_ir_expr *kw, const at_ir_expr *const spv[3], void *ctx)
{
    (void)ctx;
    const at_conv2d_geom *g = &p->g;
    const at_ir_expr *di[6] = {nn, h, w, ci, at_ir_add(s, spv[0], kh), at_ir_add(s, spv[1], kw)};
    const int64_t dd[6] = {g->n, g->oh / p->vh, g->ow / p->vw, g->ci, p->dvh, p->dvw};
    const at_ir_expr *ki[5] = {co, ci, at_ir_sub(s, at_tmpl_i(s, g->kh - 1), kh), at_ir_sub(s, at_tmpl_i(s, g->kw - 1), kw), spv[2]};
    const int64_t kd[5] = {g->co / p->vc, g->ci, g->kh, g->kw, p->vc};
    return at_ir_mul(s, at_tmpl_cast(s, p->ot, at_ir_load(s, p->dvec, at_tmpl_index(s, di, dd, 6), 1)),
                     at_tmpl_cast(s, p->ot, at_ir_load(s, p->kvec, at_tmpl_index(s, ki, kd, 5), 1)));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_transpose_args *a = &args->u.conv2d_transpose;
    at_conv2d_transpose_geom t;
    at_op_conv2d_transpose_geom(a, &t);
    at_tmpl_sp p;
    memset(&p, 0, sizeof p);
    p.g = t.g;
    const at_conv2d_geom *g = &p.g;
    p.dt = a->dtype;
    p.kt = a->kernel_dtype;
    p.ot = a->out_dtype;
    int64_t co[2], oh[2], ow[2];
    AT_TRY(at_tmpl_split_parts(c, AT_TMPL_SP_TILE_CO, g->co, 2, co));
    AT_TRY(at_tmpl_split_parts(c, AT_TMPL_SP_TILE_OH, g->oh, 2, oh));
    AT_TRY(at_tmpl_split_parts(c, AT_TMPL_SP_TILE_OW, g->ow, 2, ow));
    p.bc = co[0], p.tc = 1, p.vc = co[1];
    p.bh = oh[0], p.th = 1, p.vh = oh[1];
    p.bw = ow[0], p.tw = 1, p.vw = ow[1];
    p.dvh = p.vh + g->kh - 1;
    p.dvw = p.vw + g->kw - 1;
    double dvec_size = (double)g->n * p.bh * p.bw * g->ci * p.dvh * p.dvw;
    if (dvec_size > (double)(1LL << 31) - 1) return AT_FAIL(AT_EINVAL, "data_vec of %.0f elements is too large", dvec_size);

    p.data = at_ir_param(s, "data", p.dt, g->n * g->ci * t.ih * t.iw, AT_IR_INPUT);
    p.kernel = at_ir_param(s, "kernel", p.kt, g->ci * g->co * g->kh * g->kw, AT_IR_INPUT);
    p.out = at_ir_param(s, "output", p.ot, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    p.kvec = at_ir_temp(s, "kernel_vec_conv2d_transpose", p.kt, g->co * g->ci * g->kh * g->kw);
    p.dvec = at_ir_temp(s, "data_vec", p.dt, (int64_t)dvec_size);
    kernel_vec_stage(s, &p);
    data_vec_stage(s, &p, &t);
    AT_TRY(at_tmpl_sp_arm_cpu_conv(s, &p, c, transpose_term, NULL));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_transpose_nchw_arm_cpu = {
    .name = "conv2d_transpose_nchw.arm_cpu",
    .op = AT_OP_CONV2D_TRANSPOSE_NCHW,
    .target = AT_TARGET_LLVM,
    .n_knobs = AT_TMPL_SP_N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
};
