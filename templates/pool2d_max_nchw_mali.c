/* pool2d_max_nchw.mali: max pooling (topi's nn.pool2d, "max", NCHW) for Mali-class OpenCL GPUs.
 * TVM's AutoTVM has no pooling template (its schedule_pool is fixed), so this one is ours, written
 * in the style of the Mali depthwise schedule it resembles (one channel per window, no reduction
 * over channels). Knobs, in definition order: tile_c, tile_y, tile_x (3-way splits of the output's
 * channels, rows and columns: blocks, threads, per-thread), ann_reduce (the window's rows and
 * columns: try_unroll) and ann_spatial (the per-thread channels, rows and columns:
 * try_unroll_vec; max unroll 16, vector sizes 1 2 4 8 16).
 *
 * One kernel: (n.bc, tc) bind to z, (bh, th) to y, (bw, tw) to x; each work-item keeps its
 * per-thread tile in a private accumulator, starts it at the lowest value, folds the window in
 * (window loops outside the spatial ones, as a cache_write stage attached at tw would), then
 * writes the tile out. topi's pad stage is inlined as a guarded load of the lowest value, with the
 * read clamped into the tensor when a loop is vectorized (a vector select evaluates both arms). */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_C, TILE_Y, TILE_X, ANN_REDUCE, ANN_SPATIAL, N_KNOBS };

enum { MAX_UNROLL = 16 };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_pool2d_geom(&args->u.pool2d, &g);
    AT_TRY(at_space_split_ex(s, TILE_C, "tile_c", g.ci, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, TILE_Y, "tile_y", g.oh, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, TILE_X, "tile_x", g.ow, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_annotate(s, ANN_REDUCE, "ann_reduce", 2, "try_unroll"));
    return at_space_annotate(s, ANN_SPATIAL, "ann_spatial", 3, "try_unroll_vec");
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_pool2d_args *a = &args->u.pool2d;
    at_conv2d_geom g;
    at_op_pool2d_geom(a, &g);
    int64_t tc[3], ty[3], tx[3];
    AT_TRY(at_tmpl_split_parts(c, TILE_C, g.ci, 3, tc));
    AT_TRY(at_tmpl_split_parts(c, TILE_Y, g.oh, 3, ty));
    AT_TRY(at_tmpl_split_parts(c, TILE_X, g.ow, 3, tx));
    at_ir_for_kind red[2], sp[3];
    const int64_t red_lens[2] = {g.kh, g.kw}, sp_lens[3] = {tc[2], ty[2], tx[2]};
    AT_TRY(at_tmpl_annotate(c, ANN_REDUCE, 2, red_lens, MAX_UNROLL, NULL, 0, red));
    AT_TRY(at_tmpl_annotate(c, ANN_SPATIAL, 3, sp_lens, MAX_UNROLL, at_tmpl_mali_vec_size, 5, sp));
    bool vectorized = sp[0] == AT_IR_VECTORIZED || sp[1] == AT_IR_VECTORIZED || sp[2] == AT_IR_VECTORIZED;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, g.n * g.ci * g.ih * g.iw, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", a->dtype, g.n * g.ci * g.oh * g.ow, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "pool_max_local", a->dtype, tc[2] * ty[2] * tx[2], AT_IR_PRIVATE);
    const at_ir_expr *lowest = at_tmpl_f(s, a->dtype, at_op_pool2d_lowest(a->dtype));

    at_tmpl_loop bind[6] = {at_tmpl_loop_new(s, "n_bc", g.n * tc[0], AT_IR_BLOCK_Z), at_tmpl_loop_new(s, "bh", ty[0], AT_IR_BLOCK_Y),
                            at_tmpl_loop_new(s, "bw", tx[0], AT_IR_BLOCK_X),         at_tmpl_loop_new(s, "tc", tc[1], AT_IR_THREAD_Z),
                            at_tmpl_loop_new(s, "th", ty[1], AT_IR_THREAD_Y),        at_tmpl_loop_new(s, "tw", tx[1], AT_IR_THREAD_X)};
    const at_ir_expr *nbc = at_ir_v(s, bind[0].var);
    const at_ir_expr *nn = at_ir_div(s, nbc, at_tmpl_i(s, tc[0]));
    /* the first channel, row and column of this work-item's tile */
    const at_ir_expr *c0 = at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_mod(s, nbc, at_tmpl_i(s, tc[0])), at_tmpl_i(s, tc[1])),
                                                  at_ir_v(s, bind[3].var)),
                                     at_tmpl_i(s, tc[2]));
    const at_ir_var *hv[2] = {bind[1].var, bind[4].var}, *wv[2] = {bind[2].var, bind[5].var};
    const int64_t he[2] = {ty[0], ty[1]}, we[2] = {tx[0], tx[1]};
    const at_ir_expr *h0 = at_ir_mul(s, at_ir_fuse(s, hv, he, 2), at_tmpl_i(s, ty[2]));
    const at_ir_expr *w0 = at_ir_mul(s, at_ir_fuse(s, wv, we, 2), at_tmpl_i(s, tx[2]));
    const int64_t ad[3] = {tc[2], ty[2], tx[2]};

    /* init: acc = lowest over the tile, with ann_spatial */
    at_tmpl_loop il[3] = {at_tmpl_loop_new(s, "c_init", tc[2], sp[0]), at_tmpl_loop_new(s, "h_init", ty[2], sp[1]),
                          at_tmpl_loop_new(s, "w_init", tx[2], sp[2])};
    const at_ir_expr *ii[3] = {at_ir_v(s, il[0].var), at_ir_v(s, il[1].var), at_ir_v(s, il[2].var)};
    const at_ir_stmt *init = at_tmpl_nest(s, il, 3, at_ir_store(s, acc, at_tmpl_index(s, ii, ad, 3), lowest));

    /* update: window rows and columns (ann_reduce) outside the tile (ann_spatial) */
    at_tmpl_loop ul[5] = {at_tmpl_loop_new(s, "rv0", g.kh, red[0]), at_tmpl_loop_new(s, "rv1", g.kw, red[1]),
                          at_tmpl_loop_new(s, "c_c", tc[2], sp[0]), at_tmpl_loop_new(s, "h_c", ty[2], sp[1]),
                          at_tmpl_loop_new(s, "w_c", tx[2], sp[2])};
    const at_ir_expr *rh = at_ir_v(s, ul[0].var), *rw = at_ir_v(s, ul[1].var);
    const at_ir_expr *ui[3] = {at_ir_v(s, ul[2].var), at_ir_v(s, ul[3].var), at_ir_v(s, ul[4].var)};
    const at_ir_expr *ph = at_ir_add(s, at_ir_mul(s, at_ir_add(s, h0, ui[1]), at_tmpl_i(s, g.sh)), at_ir_mul(s, rh, at_tmpl_i(s, g.dh)));
    const at_ir_expr *pw = at_ir_add(s, at_ir_mul(s, at_ir_add(s, w0, ui[2]), at_tmpl_i(s, g.sw)), at_ir_mul(s, rw, at_tmpl_i(s, g.dw)));
    at_tmpl_pad pad = at_tmpl_pad_of(&g);
    pad.value = lowest;
    pad.clamp = vectorized;
    const at_ir_expr *x = at_tmpl_pad_load_ex(s, data, &pad, nn, at_ir_add(s, c0, ui[0]), ph, pw, g.ihp - 1, g.iwp - 1);
    const at_ir_expr *aidx = at_tmpl_index(s, ui, ad, 3);
    const at_ir_stmt *upd = at_tmpl_nest(s, ul, 5, at_ir_store(s, acc, aidx, at_ir_max(s, at_ir_load(s, acc, aidx, 1), x)));

    /* the tile written out: plain loops (ann_spatial annotates the accumulator's stages) */
    at_tmpl_loop ol[3] = {at_tmpl_loop_new(s, "ci", tc[2], AT_IR_SERIAL), at_tmpl_loop_new(s, "hi", ty[2], AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "wi", tx[2], AT_IR_SERIAL)};
    const at_ir_expr *oi3[3] = {at_ir_v(s, ol[0].var), at_ir_v(s, ol[1].var), at_ir_v(s, ol[2].var)};
    const at_ir_expr *oi[4] = {nn, at_ir_add(s, c0, oi3[0]), at_ir_add(s, h0, oi3[1]), at_ir_add(s, w0, oi3[2])};
    const int64_t od[4] = {g.n, g.ci, g.oh, g.ow};
    const at_ir_stmt *store = at_tmpl_nest(s, ol, 3, at_ir_store(s, out, at_tmpl_index(s, oi, od, 4),
                                                                 at_ir_load(s, acc, at_tmpl_index(s, oi3, ad, 3), 1)));

    const at_ir_stmt *items[3] = {init, upd, store};
    at_ir_add_kernel(s, "pool_max_kernel", at_tmpl_nest(s, bind, 6, at_ir_seq(s, items, 3)));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_pool2d_max_nchw_mali = {
    .name = "pool2d_max_nchw.mali",
    .op = AT_OP_POOL2D_MAX_NCHW,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
};
