/* dense_nopack.x86 and dense_pack.x86: TVM v0.18's x86 dense templates (topi/x86/dense.py), the
 * dense implementations TVM's arm_cpu strategy registers (no arm_cpu dense is tunable). v0.18 calls
 * them without a bias (relay's bias_add is its own op), so workloads with one are refused.
 *
 * dense_nopack: knobs tile_y, tile_x, tile_k (2-way). Its compute sums K in tile_k[-1] lanes
 * (CC[m][n][v] = sum_k data[m][k V + v] weight[n][k V + v]) and then the lanes (an extra M N
 * FLOPs at the space's entity 0, which is where TVM counts). One kernel: (yo, xo) fused and
 * parallel; CC computed there in private memory (k, then the fused (y, x) unrolled, the lanes
 * vectorized), then each output is the unrolled sum of its lanes.
 *
 * dense_pack: knobs tile_y, tile_x (3-way), tile_k (2-way), tile_inner (2-way on M, last size at
 * most 16). The weight is packed to (N/bn, K, bn) with bn = tile_x[-1], a placeholder while TVM
 * tunes, so a preparation kernel here. One kernel: (xt, yt) fused and parallel, then (yo, xo)
 * fused; CC (the cache-written output block, yi x xi) computed there in private memory over
 * ko, ki with the inner y split by tile_inner (guarded where it does not divide), x vectorized;
 * then the block is written with yi unrolled and xi vectorized.
 *
 * Fallbacks: TVM's _default_dense_nopack_config / _default_dense_pack_config with the vector
 * width get_simd_32bit_lanes() gives an ARM target (4). */
#include "templates/internal.h"
#include "templates/template.h"

enum { VEC_WIDTH = 4 }; /* get_simd_32bit_lanes() without avx2/avx512 */

static at_status check_no_bias(const at_dense_args *a, const char *name)
{
    if (a->has_bias)
        return AT_FAIL(AT_EINVAL, "%s: TVM >= 0.7 workloads carry no bias (relay adds it in its own op)", name);
    return AT_OK;
}

/* ---- dense_nopack.x86 ------------------------------------------------------------------------ */

enum { NP_TILE_Y, NP_TILE_X, NP_TILE_K, NP_N_KNOBS };

static at_status nopack_space(const at_args *args, at_space *s)
{
    const at_dense_args *a = &args->u.dense;
    AT_TRY(check_no_bias(a, "dense_nopack.x86"));
    AT_TRY(at_space_split_ex(s, NP_TILE_Y, "tile_y", a->m, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, NP_TILE_X, "tile_x", a->n, &(at_split_opts){.num_outputs = 2}));
    return at_space_split_ex(s, NP_TILE_K, "tile_k", a->k, &(at_split_opts){.num_outputs = 2});
}

/* compute_flop at entity 0 (tile_k = [-1, 1]): 2 per multiply-add of CC, 1 per lane sum of C. */
static double nopack_flop(const at_args *args)
{
    const at_dense_args *a = &args->u.dense;
    return 2.0 * (double)a->m * (double)a->n * (double)a->k + (double)a->m * (double)a->n;
}

static at_status nopack_fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                                 at_config **c)
{
    (void)refs, (void)n_refs;
    const at_dense_args *a = &args->u.dense;
    int64_t bn = 1;
    for (int64_t v = VEC_WIDTH * 2; v >= 1; v--)
        if (a->k % v == 0) {
            bn = v;
            break;
        }
    const int64_t tk[2] = {a->k / bn, bn}, tx[2] = {a->n, 1}, ty[2] = {1, a->m};
    AT_TRY(at_tmpl_fallback_split(s, c, NP_TILE_K, tk, 2));
    AT_TRY(at_tmpl_fallback_split(s, c, NP_TILE_X, tx, 2));
    return at_tmpl_fallback_split(s, c, NP_TILE_Y, ty, 2);
}

static at_status nopack_schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_dense_args *a = &args->u.dense;
    int64_t ty[2], tx[2], tk[2];
    AT_TRY(at_tmpl_split_inner(c, NP_TILE_Y, a->m, 2, ty));
    AT_TRY(at_tmpl_split_inner(c, NP_TILE_X, a->n, 2, tx));
    AT_TRY(at_tmpl_split_inner(c, NP_TILE_K, a->k, 2, tk));
    const int64_t TY = ty[1], TX = tx[1], V = tk[1];
    at_ir_type ot = a->out_dtype;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, a->m * a->k, AT_IR_INPUT);
    const at_ir_buffer *weight = at_ir_param(s, "weight", a->weight_dtype, a->n * a->k, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", ot, a->m * a->n, AT_IR_OUTPUT);
    const at_ir_buffer *cc = at_ir_alloc(s, "CC", ot, TY * TX * V, AT_IR_PRIVATE);

    at_tmpl_loop xyo = at_tmpl_loop_new(s, "xyo", ty[0] * tx[0], AT_IR_PARALLEL);
    const at_ir_expr *f = at_ir_v(s, xyo.var);
    const at_ir_expr *y0 = at_ir_mul(s, at_ir_div(s, f, at_tmpl_i(s, tx[0])), at_tmpl_i(s, TY));
    const at_ir_expr *x0 = at_ir_mul(s, at_ir_mod(s, f, at_tmpl_i(s, tx[0])), at_tmpl_i(s, TX));

    /* CC at xyo: init (yz, x), then k, yz (unrolled), x (vectorized) */
    at_tmpl_loop il[3];
    il[0] = at_tmpl_loop_new(s, "yz_init", TY * TX, AT_IR_UNROLLED);
    at_tmpl_axis ix = at_tmpl_cpu_axis(s, "x_init", V, AT_IR_VECTORIZED);
    size_t ni = 1 + at_tmpl_axes_loops(&ix, 1, il + 1);
    const at_ir_expr *iidx = at_ir_add(s, at_ir_mul(s, at_ir_v(s, il[0].var), at_tmpl_i(s, V)), ix.index);
    const at_ir_stmt *init = at_tmpl_nest(s, il, ni, at_ir_store(s, cc, iidx, at_tmpl_f(s, ot, 0)));

    at_tmpl_loop ul[4];
    ul[0] = at_tmpl_loop_new(s, "k", tk[0], AT_IR_SERIAL);
    ul[1] = at_tmpl_loop_new(s, "yz", TY * TX, AT_IR_UNROLLED);
    at_tmpl_axis ux = at_tmpl_cpu_axis(s, "x", V, AT_IR_VECTORIZED);
    size_t nu = 2 + at_tmpl_axes_loops(&ux, 1, ul + 2);
    const at_ir_expr *yz = at_ir_v(s, ul[1].var);
    const at_ir_expr *kk = at_ir_add(s, at_ir_mul(s, at_ir_v(s, ul[0].var), at_tmpl_i(s, V)), ux.index);
    const at_ir_expr *row = at_ir_add(s, y0, at_ir_div(s, yz, at_tmpl_i(s, TX)));
    const at_ir_expr *col = at_ir_add(s, x0, at_ir_mod(s, yz, at_tmpl_i(s, TX)));
    const at_ir_expr *cidx = at_ir_add(s, at_ir_mul(s, yz, at_tmpl_i(s, V)), ux.index);
    const at_ir_expr *prod =
        at_ir_mul(s, at_tmpl_cast(s, ot, at_ir_load(s, data, at_ir_add(s, at_ir_mul(s, row, at_tmpl_i(s, a->k)), kk), 1)),
                  at_tmpl_cast(s, ot, at_ir_load(s, weight, at_ir_add(s, at_ir_mul(s, col, at_tmpl_i(s, a->k)), kk), 1)));
    const at_ir_stmt *upd = at_tmpl_nest(s, ul, nu, at_ir_store(s, cc, cidx, at_ir_add(s, at_ir_load(s, cc, cidx, 1), prod)));

    /* C: yi, xi, then its init and the unrolled lane sum kk */
    at_tmpl_loop cl[2] = {at_tmpl_loop_new(s, "yi", TY, AT_IR_SERIAL), at_tmpl_loop_new(s, "xi", TX, AT_IR_SERIAL)};
    at_tmpl_loop kl = at_tmpl_loop_new(s, "kk", V, AT_IR_UNROLLED);
    const at_ir_expr *yi = at_ir_v(s, cl[0].var), *xi = at_ir_v(s, cl[1].var);
    const at_ir_expr *oidx = at_ir_add(s, at_ir_mul(s, at_ir_add(s, y0, yi), at_tmpl_i(s, a->n)), at_ir_add(s, x0, xi));
    const at_ir_expr *lidx = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, yi, at_tmpl_i(s, TX)), xi), at_tmpl_i(s, V)),
                                       at_ir_v(s, kl.var));
    const at_ir_stmt *sum = at_tmpl_nest(s, &kl, 1, at_ir_store(s, out, oidx, at_ir_add(s, at_ir_load(s, out, oidx, 1), at_ir_load(s, cc, lidx, 1))));
    const at_ir_stmt *cst = at_tmpl_nest(s, cl, 2, at_ir_seq2(s, at_ir_store(s, out, oidx, at_tmpl_f(s, ot, 0)), sum));

    const at_ir_stmt *items[3] = {init, upd, cst};
    at_ir_add_kernel(s, "dense_nopack_kernel", at_tmpl_nest(s, &xyo, 1, at_ir_seq(s, items, 3)));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_dense_nopack_x86 = {
    .name = "dense_nopack.x86",
    .op = AT_OP_DENSE,
    .target = AT_TARGET_LLVM,
    .n_knobs = NP_N_KNOBS,
    .define_space = nopack_space,
    .schedule = nopack_schedule,
    .fallback = nopack_fallback,
    .entities_as_given = true,
    .flop = nopack_flop,
};

/* ---- dense_pack.x86 -------------------------------------------------------------------------- */

enum { P_TILE_Y, P_TILE_X, P_TILE_K, P_TILE_INNER, P_N_KNOBS };

static bool inner_at_most_16(const int64_t *sizes, size_t n, void *ctx)
{
    (void)ctx;
    return sizes[n - 1] <= 16;
}

static at_status pack_space(const at_args *args, at_space *s)
{
    const at_dense_args *a = &args->u.dense;
    AT_TRY(check_no_bias(a, "dense_pack.x86"));
    AT_TRY(at_space_split_ex(s, P_TILE_Y, "tile_y", a->m, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, P_TILE_X, "tile_x", a->n, &(at_split_opts){.num_outputs = 3}));
    AT_TRY(at_space_split_ex(s, P_TILE_K, "tile_k", a->k, &(at_split_opts){.num_outputs = 2}));
    return at_space_split_ex(s, P_TILE_INNER, "tile_inner", a->m,
                             &(at_split_opts){.num_outputs = 2, .filter = inner_at_most_16});
}

/* TVM's halving rule: the largest power-of-two oi with n / oi > 4 steps taken only while even. */
static int64_t outer_inner(int64_t n)
{
    int64_t oi = 1;
    while (n / oi > 4) {
        if ((n / oi) % 2 == 1) break;
        oi *= 2;
    }
    return oi;
}

static at_status pack_fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                               at_config **c)
{
    (void)refs, (void)n_refs;
    const at_dense_args *a = &args->u.dense;
    int64_t tilex_ii = 1;
    for (int64_t bn = VEC_WIDTH * 2; bn >= 1; bn--)
        if (a->n % bn == 0) {
            tilex_ii = bn;
            break;
        }
    int64_t nn = a->n / tilex_ii, tilex_oi = outer_inner(nn);
    int64_t tiley_ii = 8;
    while (a->m % tiley_ii != 0) tiley_ii /= 2;
    int64_t mm = a->m / tiley_ii, tiley_oi = outer_inner(mm);
    const int64_t ty[3] = {mm / tiley_oi, tiley_oi, tiley_ii}, tx[3] = {nn / tilex_oi, tilex_oi, tilex_ii};
    const int64_t tk[2] = {a->k, 1}, ti[2] = {a->m / tiley_ii, tiley_ii};
    AT_TRY(at_tmpl_fallback_split(s, c, P_TILE_Y, ty, 3));
    AT_TRY(at_tmpl_fallback_split(s, c, P_TILE_X, tx, 3));
    AT_TRY(at_tmpl_fallback_split(s, c, P_TILE_K, tk, 2));
    return at_tmpl_fallback_split(s, c, P_TILE_INNER, ti, 2);
}

static at_status pack_schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_dense_args *a = &args->u.dense;
    int64_t ty[3], tx[3], tk[2], tin[2];
    AT_TRY(at_tmpl_split_inner(c, P_TILE_Y, a->m, 3, ty));
    AT_TRY(at_tmpl_split_inner(c, P_TILE_X, a->n, 3, tx));
    AT_TRY(at_tmpl_split_inner(c, P_TILE_K, a->k, 2, tk));
    int64_t inner_sizes[2];
    at_config_split(c, P_TILE_INNER, inner_sizes, 2);
    tin[1] = inner_sizes[1];
    if (tin[1] < 1) return AT_FAIL(AT_EINVAL, "tile_inner: size %lld is not positive", (long long)tin[1]);
    const int64_t TY3 = ty[2], TX3 = tx[2], bn = TX3;
    at_ir_type ot = a->out_dtype;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, a->m * a->k, AT_IR_INPUT);
    const at_ir_buffer *weight = at_ir_param(s, "weight", a->weight_dtype, a->n * a->k, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", ot, a->m * a->n, AT_IR_OUTPUT);
    const at_ir_buffer *packw = at_ir_temp(s, "packed_weight", a->weight_dtype, a->n * a->k);

    /* packed_weight[z][y][x] = weight[z bn + x][y] (an unscheduled stage) */
    {
        at_tmpl_loop pl[3] = {at_tmpl_loop_new(s, "z", a->n / bn, AT_IR_SERIAL), at_tmpl_loop_new(s, "y", a->k, AT_IR_SERIAL),
                              at_tmpl_loop_new(s, "x", bn, AT_IR_SERIAL)};
        const at_ir_expr *z = at_ir_v(s, pl[0].var), *y = at_ir_v(s, pl[1].var), *x = at_ir_v(s, pl[2].var);
        const at_ir_expr *pi[3] = {z, y, x};
        const int64_t pd[3] = {a->n / bn, a->k, bn};
        const at_ir_expr *wi = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, z, at_tmpl_i(s, bn)), x), at_tmpl_i(s, a->k)), y);
        at_ir_add_prepare_kernel(s, "packed_weight_kernel",
                                 at_tmpl_nest(s, pl, 3, at_ir_store(s, packw, at_tmpl_index(s, pi, pd, 3), at_ir_load(s, weight, wi, 1))));
    }

    /* C: xyt = fuse(xt, yt) parallel, xyo = fuse(yo, xo), CC at xyo, then yi (unrolled), xi (vec) */
    const at_ir_buffer *cc = at_ir_alloc(s, "CC", ot, TY3 * TX3, AT_IR_PRIVATE);
    at_tmpl_loop outer[2] = {at_tmpl_loop_new(s, "xyt", tx[0] * ty[0], AT_IR_PARALLEL),
                             at_tmpl_loop_new(s, "xyo", ty[1] * tx[1], AT_IR_SERIAL)};
    const at_ir_expr *xyt = at_ir_v(s, outer[0].var), *xyo = at_ir_v(s, outer[1].var);
    const at_ir_expr *xt = at_ir_div(s, xyt, at_tmpl_i(s, ty[0])), *yt = at_ir_mod(s, xyt, at_tmpl_i(s, ty[0]));
    const at_ir_expr *yo = at_ir_div(s, xyo, at_tmpl_i(s, tx[1])), *xo = at_ir_mod(s, xyo, at_tmpl_i(s, tx[1]));
    const at_ir_expr *y0 = at_ir_mul(s, at_ir_add(s, at_ir_mul(s, yt, at_tmpl_i(s, ty[1])), yo), at_tmpl_i(s, TY3));
    const at_ir_expr *xblk = at_ir_add(s, at_ir_mul(s, xt, at_tmpl_i(s, tx[1])), xo); /* packed block of x */

    /* CC's loops: ko, [yo', ki, yi' | ki, y], x; the init holds the spatial ones after ko */
    const int64_t ti = tin[1];
    const bool split_y = ti > 1;
    const int64_t y_outer = split_y ? (TY3 + ti - 1) / ti : TY3;
    const bool guard = split_y && TY3 % ti != 0;
    const at_ir_stmt *init, *upd;
    {
        at_tmpl_loop l[2];
        size_t n = 0;
        l[n++] = at_tmpl_loop_new(s, split_y ? "y.o_init" : "y_init", y_outer, AT_IR_UNROLLED);
        if (split_y) l[n++] = at_tmpl_loop_new(s, "y.i_init", ti, AT_IR_UNROLLED);
        const at_ir_expr *yy = split_y ? at_ir_add(s, at_ir_mul(s, at_ir_v(s, l[0].var), at_tmpl_i(s, ti)), at_ir_v(s, l[1].var))
                                       : at_ir_v(s, l[0].var);
        at_tmpl_axis xa = at_tmpl_cpu_axis(s, "x_init", TX3, AT_IR_VECTORIZED);
        at_tmpl_loop xl[2];
        size_t nx = at_tmpl_axes_loops(&xa, 1, xl);
        const at_ir_stmt *st = at_tmpl_nest(
            s, xl, nx, at_ir_store(s, cc, at_ir_add(s, at_ir_mul(s, yy, at_tmpl_i(s, TX3)), xa.index), at_tmpl_f(s, ot, 0)));
        if (guard) st = at_ir_if(s, at_ir_bin(s, AT_IR_LT, yy, at_tmpl_i(s, TY3)), st, NULL);
        init = at_tmpl_nest(s, l, n, st);
    }
    {
        at_tmpl_loop l[4];
        size_t n = 0;
        at_tmpl_loop ko = at_tmpl_loop_new(s, "ko", tk[0], AT_IR_SERIAL), ki = at_tmpl_loop_new(s, "ki", tk[1], AT_IR_UNROLLED);
        at_tmpl_loop yl0 = at_tmpl_loop_new(s, split_y ? "y.o" : "y", y_outer, AT_IR_UNROLLED);
        at_tmpl_loop yl1 = split_y ? at_tmpl_loop_new(s, "y.i", ti, AT_IR_UNROLLED) : yl0;
        l[n++] = ko;
        if (split_y) {
            l[n++] = yl0;
            l[n++] = ki;
            l[n++] = yl1;
        } else {
            l[n++] = ki;
            l[n++] = yl0;
        }
        const at_ir_expr *yy = split_y ? at_ir_add(s, at_ir_mul(s, at_ir_v(s, yl0.var), at_tmpl_i(s, ti)), at_ir_v(s, yl1.var))
                                       : at_ir_v(s, yl0.var);
        const at_ir_expr *k = at_ir_add(s, at_ir_mul(s, at_ir_v(s, ko.var), at_tmpl_i(s, tk[1])), at_ir_v(s, ki.var));
        at_tmpl_axis xa = at_tmpl_cpu_axis(s, "x", TX3, AT_IR_VECTORIZED);
        at_tmpl_loop xl[2];
        size_t nx = at_tmpl_axes_loops(&xa, 1, xl);
        const at_ir_expr *cidx = at_ir_add(s, at_ir_mul(s, yy, at_tmpl_i(s, TX3)), xa.index);
        const at_ir_expr *di = at_ir_add(s, at_ir_mul(s, at_ir_add(s, y0, yy), at_tmpl_i(s, a->k)), k);
        const at_ir_expr *pi[3] = {xblk, k, xa.index};
        const int64_t pd[3] = {a->n / bn, a->k, bn};
        const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, ot, at_ir_load(s, data, di, 1)),
                                           at_tmpl_cast(s, ot, at_ir_load(s, packw, at_tmpl_index(s, pi, pd, 3), 1)));
        const at_ir_stmt *st = at_tmpl_nest(s, xl, nx, at_ir_store(s, cc, cidx, at_ir_add(s, at_ir_load(s, cc, cidx, 1), prod)));
        if (guard) st = at_ir_if(s, at_ir_bin(s, AT_IR_LT, yy, at_tmpl_i(s, TY3)), st, NULL);
        upd = at_tmpl_nest(s, l, n, st);
    }
    const at_ir_stmt *wr;
    {
        at_tmpl_loop l[3];
        l[0] = at_tmpl_loop_new(s, "yi", TY3, AT_IR_UNROLLED);
        at_tmpl_axis xa = at_tmpl_cpu_axis(s, "xi", TX3, AT_IR_VECTORIZED);
        size_t n = 1 + at_tmpl_axes_loops(&xa, 1, l + 1);
        const at_ir_expr *yi = at_ir_v(s, l[0].var);
        const at_ir_expr *oidx = at_ir_add(s, at_ir_mul(s, at_ir_add(s, y0, yi), at_tmpl_i(s, a->n)),
                                           at_ir_add(s, at_ir_mul(s, xblk, at_tmpl_i(s, TX3)), xa.index));
        wr = at_tmpl_nest(s, l, n,
                          at_ir_store(s, out, oidx, at_ir_load(s, cc, at_ir_add(s, at_ir_mul(s, yi, at_tmpl_i(s, TX3)), xa.index), 1)));
    }
    const at_ir_stmt *items[3] = {init, upd, wr};
    at_ir_add_kernel(s, "dense_pack_kernel", at_tmpl_nest(s, outer, 2, at_ir_seq(s, items, 3)));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_dense_pack_x86 = {
    .name = "dense_pack.x86",
    .op = AT_OP_DENSE,
    .target = AT_TARGET_LLVM,
    .n_knobs = P_N_KNOBS,
    .define_space = pack_space,
    .schedule = pack_schedule,
    .fallback = pack_fallback,
    .entities_as_given = true,
};
