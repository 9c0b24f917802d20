/* dense_small_batch.gpu: TVM v0.18's GPU dense schedule for small batches (topi/gpu/dense.py) on
 * topi's nn.dense. One knob, tile_k: a 2-way split of the reduction, whose inner part is rfactored
 * and bound to threadIdx.x.
 *
 * One work-group per output element (blockIdx.y the row, blockIdx.x the column), tile_k[1]
 * work-items: each accumulates the rfactor stage over k = ko tile_k[1] + tx, then the group sums
 * the partials as TVM lowers a cross-thread allreduce for OpenCL: through a local buffer, a tree of
 * halving steps (the first folding the part above the largest power of two below the extent), a
 * barrier after each; work-item 0 stores (TVM's store predicate), adding the bias of old
 * workloads. A tile_k[1] that does not divide K (TVM's fallback [-1, 64] or [1, 64]) leaves the
 * last ko step guarded, as TVM's split does. Fallback: TVM's fixed tile_k. */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_K, N_KNOBS };

static at_status define_space(const at_args *args, at_space *s)
{
    return at_space_split_ex(s, TILE_K, "tile_k", args->u.dense.k, &(at_split_opts){.num_outputs = 2});
}

static at_status fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c)
{
    (void)refs, (void)n_refs;
    const int64_t sizes[2] = {args->u.dense.k > 64 ? -1 : 1, 64};
    return at_tmpl_fallback_split(s, c, TILE_K, sizes, 2);
}

/* The partial sums red[0..n) of the group folded into red[0], as TVM's allreduce lowering for
 * targets without warp shuffles: each step adds red[tx + off] into red[tx] for tx < off (and
 * tx + off < n on the first step), then a barrier. */
static const at_ir_stmt *tree_reduce(at_ir_sched *s, const at_ir_buffer *red, const at_ir_expr *tx, int64_t n)
{
    int64_t align = 1;
    while (2 * align < n) align *= 2;
    const at_ir_stmt *steps[2 * 32];
    size_t k = 0;
    for (int64_t off = align; n > 1 && off >= 1; off /= 2) {
        int64_t lim = off == align ? n - off : off; /* tx + off < n and tx < off */
        const at_ir_expr *src = at_ir_add(s, tx, at_tmpl_i(s, off));
        const at_ir_stmt *add = at_ir_store(s, red, tx, at_ir_add(s, at_ir_load(s, red, tx, 1), at_ir_load(s, red, src, 1)));
        steps[k++] = at_ir_if(s, at_ir_bin(s, AT_IR_LT, tx, at_tmpl_i(s, lim)), add, NULL);
        steps[k++] = at_ir_barrier(s, AT_IR_LOCAL);
    }
    return k ? at_ir_seq(s, steps, k) : NULL;
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_dense_args *a = &args->u.dense;
    int64_t tk[2];
    at_config_split(c, TILE_K, tk, 2);
    /* TVM splits by the inner size alone */
    if (tk[1] < 1) return AT_FAIL(AT_EINVAL, "tile_k: inner size %lld < 1", (long long)tk[1]);
    int64_t kf = tk[1], ko = (a->k + kf - 1) / kf;
    at_ir_type ot = a->out_dtype;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, a->m * a->k, AT_IR_INPUT);
    const at_ir_buffer *weight = at_ir_param(s, "weight", a->weight_dtype, a->n * a->k, AT_IR_INPUT);
    const at_ir_buffer *bias = a->has_bias ? at_ir_param(s, "bias", a->bias_dtype, a->n, AT_IR_INPUT) : NULL;
    const at_ir_buffer *out = at_ir_param(s, "output", ot, a->m * a->n, AT_IR_OUTPUT);
    const at_ir_buffer *cf = at_ir_alloc(s, "T_dense_rf", ot, 1, AT_IR_PRIVATE);
    const at_ir_buffer *red = at_ir_alloc(s, "red_buf", ot, kf, AT_IR_LOCAL);

    at_tmpl_loop bind[3] = {at_tmpl_loop_new(s, "i", a->m, AT_IR_BLOCK_Y), at_tmpl_loop_new(s, "j", a->n, AT_IR_BLOCK_X),
                            at_tmpl_loop_new(s, "k_inner", kf, AT_IR_THREAD_X)};
    const at_ir_expr *row = at_ir_v(s, bind[0].var), *col = at_ir_v(s, bind[1].var), *tx = at_ir_v(s, bind[2].var);
    const at_ir_expr *zero = at_tmpl_i(s, 0);

    /* the rfactor stage at tx: cf = sum over ko of data[i, ko kf + tx] weight[j, ko kf + tx] */
    at_tmpl_loop lko = at_tmpl_loop_new(s, "k_outer", ko, AT_IR_SERIAL);
    const at_ir_expr *k = at_ir_add(s, at_ir_mul(s, at_ir_v(s, lko.var), at_tmpl_i(s, kf)), tx);
    const at_ir_expr *x = at_ir_load(s, data, at_ir_add(s, at_ir_mul(s, row, at_tmpl_i(s, a->k)), k), 1);
    const at_ir_expr *w = at_ir_load(s, weight, at_ir_add(s, at_ir_mul(s, col, at_tmpl_i(s, a->k)), k), 1);
    const at_ir_stmt *upd =
        at_ir_store(s, cf, zero, at_ir_add(s, at_ir_load(s, cf, zero, 1), at_ir_mul(s, at_tmpl_cast(s, ot, x), at_tmpl_cast(s, ot, w))));
    if (ko * kf != a->k) upd = at_ir_if(s, at_ir_bin(s, AT_IR_LT, k, at_tmpl_i(s, a->k)), upd, NULL);

    /* the cross-thread reduction, then work-item 0 writes the element */
    const at_ir_expr *val = at_ir_load(s, red, zero, 1);
    if (bias) val = at_ir_add(s, val, at_tmpl_cast(s, ot, at_ir_load(s, bias, col, 1)));
    const at_ir_stmt *store = at_ir_if(s, at_ir_bin(s, AT_IR_EQ, tx, zero),
                                       at_ir_store(s, out, at_ir_add(s, at_ir_mul(s, row, at_tmpl_i(s, a->n)), col), val), NULL);
    const at_ir_stmt *items[6] = {at_ir_store(s, cf, zero, at_tmpl_f(s, ot, 0)), at_tmpl_nest(s, &lko, 1, upd),
                                  at_ir_store(s, red, tx, at_ir_load(s, cf, zero, 1)), at_ir_barrier(s, AT_IR_LOCAL), NULL, NULL};
    size_t n = 4;
    const at_ir_stmt *tree = tree_reduce(s, red, tx, kf);
    if (tree) items[n++] = tree;
    items[n++] = store;
    at_ir_add_kernel(s, "dense_kernel", at_tmpl_nest(s, bind, 3, at_ir_seq(s, items, n)));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_dense_small_batch_gpu = {
    .name = "dense_small_batch.gpu",
    .op = AT_OP_DENSE,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = fallback,
};
