/* depthwise_conv2d_nchw.arm_cpu: TVM v0.18's ARM CPU depthwise schedule (topi/arm_cpu/
 * depthwise_conv2d.py) on topi's nn.depthwise_conv2d_nchw. Knobs, defined in the schedule in this
 * order: tile_c, tile_h, tile_w (2-way splits of the output's channels, rows and columns) and ann
 * on (ih, iw, vc) (try_unroll_vec, max unroll 16, any lane count).
 *
 * Three kernels, all timed as in TVM (no stage is a placeholder here): the kernel packed to
 * (C/VC, KH, KW, VC) (TVM's B1, parallel over the channel blocks); the conv in the packed layout
 * (TVM's C0: n, c parallel, oh, ow, dh, dw, ih, iw, vc) with the padded input block it reads (TVM's A1,
 * computed at oh: rows (VH-1) SH + (KH-1) DH + 1 by the whole used width by VC channels) in private
 * memory; and the unpack to NCHW (TVM's C, the task's output, parallel over channels). With a
 * channel multiplier M, lane vc of block c reads input channel (c VC + vc) / M (TVM's tile_c splits
 * the input channels there; the sums are the same). Fallback: TVM's reference-log fallback over
 * TopHub's arm_cpu rk3399 records of this template. */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_C, TILE_H, TILE_W, ANN, N_KNOBS };

enum { MAX_UNROLL = 16 };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    AT_TRY(at_space_split_ex(s, TILE_C, "tile_c", g.co, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, TILE_H, "tile_h", g.oh, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, TILE_W, "tile_w", g.ow, &(at_split_opts){.num_outputs = 2}));
    return at_space_annotate(s, ANN, "ann", 3, "try_unroll_vec");
}

/* B1[c][kh][kw][vc] = kernel[(c VC + vc) / M][(c VC + vc) % M][kh][kw], parallel over c. */
static void pack_kernel_stage(at_ir_sched *s, const at_conv2d_geom *g, int64_t vc, const at_ir_buffer *kernel,
                              const at_ir_buffer *b1)
{
    at_tmpl_loop l[4] = {at_tmpl_loop_new(s, "c", g->co / vc, AT_IR_PARALLEL), at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL), at_tmpl_loop_new(s, "vc", vc, AT_IR_SERIAL)};
    const at_ir_expr *v[4];
    for (int i = 0; i < 4; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *oc = at_ir_add(s, at_ir_mul(s, v[0], at_tmpl_i(s, vc)), v[3]);
    const at_ir_expr *ki[4] = {at_ir_div(s, oc, at_tmpl_i(s, g->mult)), at_ir_mod(s, oc, at_tmpl_i(s, g->mult)), v[1], v[2]};
    const int64_t kd[4] = {g->ci, g->mult, g->kh, g->kw}, bd[4] = {g->co / vc, g->kh, g->kw, vc};
    at_ir_add_kernel(s, "kernel_pack_kernel",
                     at_tmpl_nest(s, l, 4, at_ir_store(s, b1, at_tmpl_index(s, v, bd, 4), at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1))));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, a, &g);
    int64_t tc[2], th[2], tw[2];
    AT_TRY(at_tmpl_split_inner(c, TILE_C, g.co, 2, tc));
    AT_TRY(at_tmpl_split_inner(c, TILE_H, g.oh, 2, th));
    AT_TRY(at_tmpl_split_inner(c, TILE_W, g.ow, 2, tw));
    const int64_t vc = tc[1], vh = th[1], vw = tw[1];
    at_ir_for_kind kinds[3];
    const int64_t lens[3] = {vh, vw, vc};
    AT_TRY(at_tmpl_annotate(c, ANN, 3, lens, MAX_UNROLL, NULL, 0, kinds));
    at_ir_type ot = a->out_dtype;
    int64_t rows = (vh - 1) * g.sh + (g.kh - 1) * g.dh + 1, cols = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, g.n * g.ci * g.ih * g.iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, g.co * g.kh * g.kw, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", ot, g.n * g.co * g.oh * g.ow, AT_IR_OUTPUT);
    const at_ir_buffer *b1 = at_ir_temp(s, "kernel_vec", a->kernel_dtype, g.co * g.kh * g.kw);
    const at_ir_buffer *c0 = at_ir_temp(s, "conv_vec", ot, g.n * g.co * g.oh * g.ow);
    pack_kernel_stage(s, &g, vc, kernel, b1);

    /* C0: n, c (parallel), oh, [A1], ow, init (ih, iw, vc), dh, dw, ih, iw, vc */
    const at_ir_buffer *a1 = at_ir_alloc(s, "data_vec", a->dtype, rows * cols * vc, AT_IR_PRIVATE);
    at_tmpl_loop outer[3] = {at_tmpl_loop_new(s, "n", g.n, AT_IR_SERIAL), at_tmpl_loop_new(s, "c", g.co / vc, AT_IR_PARALLEL),
                             at_tmpl_loop_new(s, "oh", th[0], AT_IR_SERIAL)};
    const at_ir_expr *nn = at_ir_v(s, outer[0].var), *cb = at_ir_v(s, outer[1].var), *oh = at_ir_v(s, outer[2].var);

    /* A1 at oh: the padded input rows of this row block, every used column, VC channel lanes */
    at_tmpl_loop al[3] = {at_tmpl_loop_new(s, "h.a", rows, AT_IR_SERIAL), at_tmpl_loop_new(s, "w.a", cols, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "vc.a", vc, AT_IR_SERIAL)};
    const at_ir_expr *av[3] = {at_ir_v(s, al[0].var), at_ir_v(s, al[1].var), at_ir_v(s, al[2].var)};
    const at_ir_expr *ic = at_ir_div(s, at_ir_add(s, at_ir_mul(s, cb, at_tmpl_i(s, vc)), av[2]), at_tmpl_i(s, g.mult));
    const at_ir_expr *ph = at_ir_add(s, at_ir_mul(s, oh, at_tmpl_i(s, vh * g.sh)), av[0]);
    const int64_t adims[3] = {rows, cols, vc};
    const at_ir_stmt *fill = at_tmpl_nest(
        s, al, 3,
        at_ir_store(s, a1, at_tmpl_index(s, av, adims, 3),
                    at_tmpl_pad_load(s, data, &g, nn, ic, ph, av[1], (th[0] - 1) * vh * g.sh + rows - 1, cols - 1)));

    at_tmpl_loop ow = at_tmpl_loop_new(s, "ow", tw[0], AT_IR_SERIAL);
    const at_ir_expr *owv = at_ir_v(s, ow.var);
    const char *names[3] = {"ih", "iw", "vc"}, *init_names[3] = {"ih_init", "iw_init", "vc_init"};
    at_tmpl_axis spa[3], inita[3];
    const at_ir_expr *spv[3], *initv[3];
    for (int i = 0; i < 3; i++) {
        spa[i] = at_tmpl_cpu_axis(s, names[i], lens[i], kinds[i]);
        inita[i] = at_tmpl_cpu_axis(s, init_names[i], lens[i], kinds[i]);
        spv[i] = spa[i].index;
        initv[i] = inita[i].index;
    }
    /* C0[n][c][oh VH + ih][ow VW + iw][vc] */
    const int64_t cdims[5] = {g.n, g.co / vc, g.oh, g.ow, vc};
    const at_ir_expr *ci0[5] = {nn, cb, at_ir_add(s, at_ir_mul(s, oh, at_tmpl_i(s, vh)), initv[0]),
                                at_ir_add(s, at_ir_mul(s, owv, at_tmpl_i(s, vw)), initv[1]), initv[2]};
    at_tmpl_loop loops[6];
    size_t nl = at_tmpl_axes_loops(inita, 3, loops);
    const at_ir_stmt *init = at_tmpl_nest(s, loops, nl, at_ir_store(s, c0, at_tmpl_index(s, ci0, cdims, 5), at_tmpl_f(s, ot, 0)));

    at_tmpl_loop red[2] = {at_tmpl_loop_new(s, "dh", g.kh, AT_IR_SERIAL), at_tmpl_loop_new(s, "dw", g.kw, AT_IR_SERIAL)};
    const at_ir_expr *dh = at_ir_v(s, red[0].var), *dw = at_ir_v(s, red[1].var);
    const at_ir_expr *ci1[5] = {nn, cb, at_ir_add(s, at_ir_mul(s, oh, at_tmpl_i(s, vh)), spv[0]),
                                at_ir_add(s, at_ir_mul(s, owv, at_tmpl_i(s, vw)), spv[1]), spv[2]};
    const at_ir_expr *cidx = at_tmpl_index(s, ci1, cdims, 5);
    const at_ir_expr *ai[3] = {at_ir_add(s, at_ir_mul(s, spv[0], at_tmpl_i(s, g.sh)), at_ir_mul(s, dh, at_tmpl_i(s, g.dh))),
                               at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, owv, at_tmpl_i(s, vw)), spv[1]), at_tmpl_i(s, g.sw)),
                                         at_ir_mul(s, dw, at_tmpl_i(s, g.dw))),
                               spv[2]};
    const at_ir_expr *bi[4] = {cb, dh, dw, spv[2]};
    const int64_t bd[4] = {g.co / vc, g.kh, g.kw, vc};
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, ot, at_ir_load(s, a1, at_tmpl_index(s, ai, adims, 3), 1)),
                                       at_tmpl_cast(s, ot, at_ir_load(s, b1, at_tmpl_index(s, bi, bd, 4), 1)));
    nl = at_tmpl_axes_loops(spa, 3, loops);
    const at_ir_stmt *upd = at_tmpl_nest(s, loops, nl, at_ir_store(s, c0, cidx, at_ir_add(s, at_ir_load(s, c0, cidx, 1), prod)));
    upd = at_tmpl_nest(s, red, 2, upd);
    const at_ir_stmt *tile = at_tmpl_nest(s, &ow, 1, at_ir_seq2(s, init, upd));
    at_ir_add_kernel(s, "depthwise_conv2d_kernel", at_tmpl_nest(s, outer, 3, at_ir_seq2(s, fill, tile)));

    /* C: output[n][c][h][w] = C0[n][c / VC][h][w][c % VC], parallel over c */
    at_tmpl_loop ol[4] = {at_tmpl_loop_new(s, "n", g.n, AT_IR_SERIAL), at_tmpl_loop_new(s, "c", g.co, AT_IR_PARALLEL),
                          at_tmpl_loop_new(s, "h", g.oh, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", g.ow, AT_IR_SERIAL)};
    const at_ir_expr *o[4];
    for (int i = 0; i < 4; i++) o[i] = at_ir_v(s, ol[i].var);
    const at_ir_expr *ui[5] = {o[0], at_ir_div(s, o[1], at_tmpl_i(s, vc)), o[2], o[3], at_ir_mod(s, o[1], at_tmpl_i(s, vc))};
    const int64_t od[4] = {g.n, g.co, g.oh, g.ow};
    at_ir_add_kernel(s, "output_unpack_kernel",
                     at_tmpl_nest(s, ol, 4, at_ir_store(s, out, at_tmpl_index(s, o, od, 4), at_ir_load(s, c0, at_tmpl_index(s, ui, cdims, 5), 1))));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_depthwise_conv2d_nchw_arm_cpu = {
    .name = "depthwise_conv2d_nchw.arm_cpu",
    .op = AT_OP_DEPTHWISE_CONV2D_NCHW,
    .target = AT_TARGET_LLVM,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = at_tmpl_fallback_reference_log,
    .ref_backend = "arm_cpu",
    .ref_model = "rk3399",
    .entities_as_given = true,
};
