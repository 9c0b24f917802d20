/* depthwise_conv2d_nchw.mali: TVM v0.18's Mali depthwise schedule (topi/mali/depthwise_conv2d.py)
 * on topi's nn.depthwise_conv2d_nchw. Knobs tile_c, tile_y, tile_x (3-way splits of the output's
 * channels, rows and columns: blocks, threads, per-thread) and ann_spatial on the per-thread
 * parts (try_unroll_vec; max unroll 16, vector sizes 1 2 4 8 16).
 *
 * Two kernels. PaddedInput is its own stage under this file's tile_and_bind3d(c, h, w, tile_c[1],
 * 1, 1) (split and bind, no reorder; channels not divisible by tile_c[1] are guarded). The conv
 * output binds (n.bc, tc) to z, (bh, th) to y, (bw, tw) to x; with no reorder the per-thread ci
 * and hi loops stay outside the x binding, so the cached stage OL attached at tx covers one row
 * strip of tile_x[2] outputs per (ci, hi): OL's spatial loops carry ann_spatial (the c and h ones
 * have extent 1), its reduce loops di, dj are unrolled, and the strip is then written out.
 * Fallback: TVM's reference-log fallback over TopHub's rk3399 records of this template. */
#include <string.h>

#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_C, TILE_Y, TILE_X, ANN_SPATIAL, N_KNOBS };

enum { MAX_UNROLL = 16 };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    AT_TRY(at_space_split_ex(s, TILE_C, "tile_c", g.co, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, TILE_Y, "tile_y", g.oh, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, TILE_X, "tile_x", g.ow, &(at_split_opts){.num_outputs = 3}));
    return at_space_annotate(s, ANN_SPATIAL, "ann_spatial", 3, "try_unroll_vec");
}

/* PaddedInput[n][c][h][w] under tile_and_bind3d(c, h, w, tile_c[1], 1, 1). */
static void pad_stage(at_ir_sched *s, const at_conv2d_geom *g, int64_t tcf, const at_ir_buffer *data,
                      const at_ir_buffer *pad)
{
    int64_t zo = (g->ci + tcf - 1) / tcf;
    at_tmpl_loop l[7] = {at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL),        at_tmpl_loop_new(s, "c_o", zo, AT_IR_BLOCK_Z),
                         at_tmpl_loop_new(s, "h_o", g->ihp, AT_IR_BLOCK_Y),   at_tmpl_loop_new(s, "w_o", g->iwp, AT_IR_BLOCK_X),
                         at_tmpl_loop_new(s, "c_i", tcf, AT_IR_THREAD_Z),     at_tmpl_loop_new(s, "h_i", 1, AT_IR_THREAD_Y),
                         at_tmpl_loop_new(s, "w_i", 1, AT_IR_THREAD_X)};
    const at_ir_var *cv[2] = {l[1].var, l[4].var};
    const int64_t ce[2] = {zo, tcf};
    const at_ir_expr *nn = at_ir_v(s, l[0].var), *c = at_ir_fuse(s, cv, ce, 2), *h = at_ir_v(s, l[2].var),
                     *w = at_ir_v(s, l[3].var);
    const at_ir_expr *pi[4] = {nn, c, h, w};
    const int64_t pd[4] = {g->n, g->ci, g->ihp, g->iwp};
    const at_ir_stmt *st = at_ir_store(s, pad, at_tmpl_index(s, pi, pd, 4), at_tmpl_pad_load(s, data, g, nn, c, h, w, g->ihp - 1, g->iwp - 1));
    if (g->ci % tcf) st = at_ir_if(s, at_ir_bin(s, AT_IR_LT, c, at_tmpl_i(s, g->ci)), st, NULL);
    at_ir_add_kernel(s, "pad_kernel", at_tmpl_nest(s, l, 7, st));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, a, &g);
    int64_t tc[3], ty[3], tx[3];
    AT_TRY(at_tmpl_split_parts(c, TILE_C, g.co, 3, tc));
    AT_TRY(at_tmpl_split_parts(c, TILE_Y, g.oh, 3, ty));
    AT_TRY(at_tmpl_split_parts(c, TILE_X, g.ow, 3, tx));
    at_ir_for_kind kinds[3];
    const int64_t lens[3] = {tc[2], ty[2], tx[2]};
    AT_TRY(at_tmpl_annotate(c, ANN_SPATIAL, 3, lens, MAX_UNROLL, at_tmpl_mali_vec_size, 5, kinds));
    at_ir_type ot = a->out_dtype;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, g.n * g.ci * g.ih * g.iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, g.co * g.kh * g.kw, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", ot, g.n * g.co * g.oh * g.ow, AT_IR_OUTPUT);
    const at_ir_buffer *pad = at_ir_temp(s, "PaddedInput", a->dtype, g.n * g.ci * g.ihp * g.iwp);
    pad_stage(s, &g, tc[1], data, pad);

    /* output leaf order n.bc, tc, ci, bh, th, hi, bw, tw, wi; the bindings go first */
    const at_ir_buffer *ol = at_ir_alloc(s, "DepthwiseConv2d_local", ot, tx[2], AT_IR_PRIVATE);
    at_tmpl_loop bind[6] = {at_tmpl_loop_new(s, "n_bc", g.n * tc[0], AT_IR_BLOCK_Z), at_tmpl_loop_new(s, "bh", ty[0], AT_IR_BLOCK_Y),
                            at_tmpl_loop_new(s, "bw", tx[0], AT_IR_BLOCK_X),         at_tmpl_loop_new(s, "tc", tc[1], AT_IR_THREAD_Z),
                            at_tmpl_loop_new(s, "th", ty[1], AT_IR_THREAD_Y),        at_tmpl_loop_new(s, "tw", tx[1], AT_IR_THREAD_X)};
    at_tmpl_loop outer[2] = {at_tmpl_loop_new(s, "ci", tc[2], AT_IR_SERIAL), at_tmpl_loop_new(s, "hi", ty[2], AT_IR_SERIAL)};
    const at_ir_expr *nbc = at_ir_v(s, bind[0].var);
    const at_ir_expr *nn = at_ir_div(s, nbc, at_tmpl_i(s, tc[0]));
    const at_ir_expr *cc = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_mod(s, nbc, at_tmpl_i(s, tc[0])), at_tmpl_i(s, tc[1])),
                                                               at_ir_v(s, bind[3].var)),
                                                  at_tmpl_i(s, tc[2])),
                                     at_ir_v(s, outer[0].var));
    const at_ir_var *hv[3] = {bind[1].var, bind[4].var, outer[1].var};
    const int64_t he[3] = {ty[0], ty[1], ty[2]};
    const at_ir_expr *hh = at_ir_fuse(s, hv, he, 3);
    const at_ir_var *wv[2] = {bind[2].var, bind[5].var};
    const int64_t we[2] = {tx[0], tx[1]};
    const at_ir_expr *w0 = at_ir_mul(s, at_ir_fuse(s, wv, we, 2), at_tmpl_i(s, tx[2]));

    /* OL at tw: loops n, c, h (extent 1) and w (tile_x[2]) with ann_spatial, reduce di, dj unrolled */
    at_tmpl_loop wi_init = at_tmpl_loop_new(s, "w_c_init", tx[2], kinds[2]);
    const at_ir_stmt *init = at_tmpl_nest(s, &wi_init, 1, at_ir_store(s, ol, at_ir_v(s, wi_init.var), at_tmpl_f(s, ot, 0)));
    at_tmpl_loop red[3] = {at_tmpl_loop_new(s, "di", g.kh, AT_IR_UNROLLED), at_tmpl_loop_new(s, "dj", g.kw, AT_IR_UNROLLED),
                           at_tmpl_loop_new(s, "w_c", tx[2], kinds[2])};
    const at_ir_expr *di = at_ir_v(s, red[0].var), *dj = at_ir_v(s, red[1].var), *wc = at_ir_v(s, red[2].var);
    const at_ir_expr *ic = at_ir_div(s, cc, at_tmpl_i(s, g.mult));
    const at_ir_expr *ph = at_ir_add(s, at_ir_mul(s, hh, at_tmpl_i(s, g.sh)), at_ir_mul(s, di, at_tmpl_i(s, g.dh)));
    const at_ir_expr *pw = at_ir_add(s, at_ir_mul(s, at_ir_add(s, w0, wc), at_tmpl_i(s, g.sw)), at_ir_mul(s, dj, at_tmpl_i(s, g.dw)));
    const at_ir_expr *pi[4] = {nn, ic, ph, pw};
    const int64_t pd[4] = {g.n, g.ci, g.ihp, g.iwp};
    const at_ir_expr *ki[4] = {ic, at_ir_mod(s, cc, at_tmpl_i(s, g.mult)), di, dj};
    const int64_t kd[4] = {g.ci, g.mult, g.kh, g.kw};
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, ot, at_ir_load(s, pad, at_tmpl_index(s, pi, pd, 4), 1)),
                                       at_tmpl_cast(s, ot, at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1)));
    const at_ir_stmt *upd = at_tmpl_nest(s, red, 3, at_ir_store(s, ol, wc, at_ir_add(s, at_ir_load(s, ol, wc, 1), prod)));

    /* the output strip: wi is a plain loop (ann_spatial annotates OL only) */
    at_tmpl_loop wi = at_tmpl_loop_new(s, "wi", tx[2], AT_IR_SERIAL);
    const at_ir_expr *oi[4] = {nn, cc, hh, at_ir_add(s, w0, at_ir_v(s, wi.var))};
    const int64_t od[4] = {g.n, g.co, g.oh, g.ow};
    const at_ir_stmt *store =
        at_tmpl_nest(s, &wi, 1, at_ir_store(s, out, at_tmpl_index(s, oi, od, 4), at_ir_load(s, ol, at_ir_v(s, wi.var), 1)));

    const at_ir_stmt *items[3] = {init, upd, store};
    const at_ir_stmt *body = at_tmpl_nest(s, outer, 2, at_ir_seq(s, items, 3));
    at_ir_add_kernel(s, "depthwise_conv2d_kernel", at_tmpl_nest(s, bind, 6, body));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_depthwise_conv2d_nchw_mali = {
    .name = "depthwise_conv2d_nchw.mali",
    .op = AT_OP_DEPTHWISE_CONV2D_NCHW,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = at_tmpl_fallback_reference_log,
    .ref_backend = "mali",
    .ref_model = "rk3399",
};
