/* dense.mali: TVM v0.18's Mali dense schedule (topi/mali/dense.py). Knobs tile_y and tile_x split
 * the output rows and columns three ways (blockIdx, threadIdx, per-thread), c_unroll splits the
 * reduction two ways (at most 64 unrolled). Leaf order by, ty, yi, bx, tx, xi with the dense stage
 * attached at tx: each work-item walks its yi rows (unrolled when fewer than 32) and for each one
 * accumulates a 1 x tile_x[2] strip in private memory (vectorized when tile_x[2] is 1, 2, 4, 8 or
 * 16), the k_unroll loop unrolled, then writes it (adding the bias of old workloads). Fallback:
 * TVM's reference-log fallback over TopHub's rk3399 dense records. */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_Y, TILE_X, C_UNROLL, N_KNOBS };

enum { MAX_UNROLL = 32 };

static at_status define_space(const at_args *args, at_space *s)
{
    const at_dense_args *a = &args->u.dense;
    AT_TRY(at_space_split_ex(s, TILE_Y, "tile_y", a->m, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, TILE_X, "tile_x", a->n, &(at_split_opts){.num_outputs = 3}));
    return at_space_split_ex(s, C_UNROLL, "c_unroll", a->k, &(at_split_opts){.num_outputs = 2, .max_factor = 64});
}

static bool in_vec_size(int64_t v)
{
    for (size_t i = 0; i < 5; i++)
        if (at_tmpl_mali_vec_size[i] == v) return true;
    return false;
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_dense_args *a = &args->u.dense;
    int64_t ty[3], tx[3], cu[2];
    AT_TRY(at_tmpl_split_parts(c, TILE_Y, a->m, 3, ty));
    AT_TRY(at_tmpl_split_parts(c, TILE_X, a->n, 3, tx));
    AT_TRY(at_tmpl_split_parts(c, C_UNROLL, a->k, 2, cu));
    at_ir_type ot = a->out_dtype;
    /* unroll(yi) if tile_y[2] < 32; vectorize(xi) if tile_x[2] is a vector size, on the output and
     * on the dense stage alike */
    at_ir_for_kind y_kind = ty[2] < MAX_UNROLL ? AT_IR_UNROLLED : AT_IR_SERIAL;
    at_ir_for_kind x_kind = in_vec_size(tx[2]) ? AT_IR_VECTORIZED : AT_IR_SERIAL;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, a->m * a->k, AT_IR_INPUT);
    const at_ir_buffer *weight = at_ir_param(s, "weight", a->weight_dtype, a->n * a->k, AT_IR_INPUT);
    const at_ir_buffer *bias = a->has_bias ? at_ir_param(s, "bias", a->bias_dtype, a->n, AT_IR_INPUT) : NULL;
    const at_ir_buffer *out = at_ir_param(s, "output", ot, a->m * a->n, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "dense_local", ot, tx[2], AT_IR_PRIVATE);

    /* output leaf order by, ty, yi, bx, tx, xi; bindings need no loop, so they go first */
    at_tmpl_loop bind[4] = {at_tmpl_loop_new(s, "by", ty[0], AT_IR_BLOCK_Y), at_tmpl_loop_new(s, "bx", tx[0], AT_IR_BLOCK_X),
                            at_tmpl_loop_new(s, "ty", ty[1], AT_IR_THREAD_Y), at_tmpl_loop_new(s, "tx", tx[1], AT_IR_THREAD_X)};
    at_tmpl_loop yi = at_tmpl_loop_new(s, "yi", ty[2], y_kind);
    const at_ir_var *yv[3] = {bind[0].var, bind[2].var, yi.var}, *xv[2] = {bind[1].var, bind[3].var};
    const int64_t ye[3] = {ty[0], ty[1], ty[2]}, xe[2] = {tx[0], tx[1]};
    const at_ir_expr *row = at_ir_fuse(s, yv, ye, 3);
    const at_ir_expr *col0 = at_ir_mul(s, at_ir_fuse(s, xv, xe, 2), at_tmpl_i(s, tx[2])); /* first column of the strip */

    /* dense stage at tx: region 1 x tile_x[2]; init, then k, k_unroll (unrolled), y (1), x */
    at_tmpl_loop xi_init = at_tmpl_loop_new(s, "x_c_init", tx[2], x_kind);
    const at_ir_stmt *init = at_tmpl_nest(s, &xi_init, 1, at_ir_store(s, acc, at_ir_v(s, xi_init.var), at_tmpl_f(s, ot, 0)));
    at_tmpl_loop red[3] = {at_tmpl_loop_new(s, "k_outer", cu[0], AT_IR_SERIAL), at_tmpl_loop_new(s, "k_inner", cu[1], AT_IR_UNROLLED),
                           at_tmpl_loop_new(s, "x_c", tx[2], x_kind)};
    const at_ir_expr *k = at_ir_add(s, at_ir_mul(s, at_ir_v(s, red[0].var), at_tmpl_i(s, cu[1])), at_ir_v(s, red[1].var));
    const at_ir_expr *col = at_ir_add(s, col0, at_ir_v(s, red[2].var));
    const at_ir_expr *x = at_ir_load(s, data, at_ir_add(s, at_ir_mul(s, row, at_tmpl_i(s, a->k)), k), 1);
    const at_ir_expr *w = at_ir_load(s, weight, at_ir_add(s, at_ir_mul(s, col, at_tmpl_i(s, a->k)), k), 1);
    const at_ir_expr *ai = at_ir_v(s, red[2].var);
    const at_ir_stmt *update = at_tmpl_nest(
        s, red, 3,
        at_ir_store(s, acc, ai, at_ir_add(s, at_ir_load(s, acc, ai, 1), at_ir_mul(s, at_tmpl_cast(s, ot, x), at_tmpl_cast(s, ot, w)))));

    /* output strip (bias added here when the workload has one) */
    at_tmpl_loop xi = at_tmpl_loop_new(s, "xi", tx[2], x_kind);
    const at_ir_expr *ocol = at_ir_add(s, col0, at_ir_v(s, xi.var));
    const at_ir_expr *val = at_ir_load(s, acc, at_ir_v(s, xi.var), 1);
    if (bias) val = at_ir_add(s, val, at_tmpl_cast(s, ot, at_ir_load(s, bias, ocol, 1)));
    const at_ir_stmt *store =
        at_tmpl_nest(s, &xi, 1, at_ir_store(s, out, at_ir_add(s, at_ir_mul(s, row, at_tmpl_i(s, a->n)), ocol), val));

    const at_ir_stmt *items[3] = {init, update, store};
    const at_ir_stmt *body = at_tmpl_nest(s, &yi, 1, at_ir_seq(s, items, 3));
    at_ir_add_kernel(s, "dense_kernel", at_tmpl_nest(s, bind, 4, body));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_dense_mali = {
    .name = "dense.mali",
    .op = AT_OP_DENSE,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = at_tmpl_fallback_reference_log,
    .ref_backend = "mali",
    .ref_model = "rk3399",
};
