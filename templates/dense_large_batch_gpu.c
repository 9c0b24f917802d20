/* dense_large_batch.gpu: TVM v0.18's GPU dense schedule for large batches (topi/gpu/dense.py) on
 * topi's nn.dense. Knobs tile_x (batch) and tile_y (output features), 4-way splits (blocks,
 * virtual threads, threads, per-thread), and tile_k, a 3-way split of the reduction.
 *
 * TVM defines the three knobs with filters (power-of-two vthreads and threads, 64 or 128 rows a
 * block; tile_k's x.size[0] > 2) and, when a filter leaves no entity (IndexError), again without
 * any. Generated split entities start with -1, so tile_k's filter rejects every one of them and
 * the unfiltered definitions are the space TVM tunes, for every workload; they are defined here.
 *
 * One kernel, leaf order by, bx, vy, vx, ty, tx, yi, xi with the local accumulator CC attached at
 * tx (tile_x[3] x tile_y[3] outputs per virtual thread). Its reduction ko, kt (unrolled), ki:
 * each ko step fetches the block's rows of data and weight over tile_k[1] tile_k[2] columns into
 * shared memory (rows split over threadIdx.y, columns in chunks of 4 x threads over
 * threadIdx.x, as TVM's schedule splits them by the launch's thread extents), between barriers;
 * each kt step copies the thread's rows into registers (AL, BL) and accumulates. TVM's double
 * buffering of the shared stages is not applied: each ko step has a barrier before the fetch
 * instead. TVM's fallback tiles ([-1, 2, 16, 2], tile_k [-1, 8, 1]) need not divide the extents:
 * as TVM's split they round the outer extent up, guard the stores and read zeros past the end. */
#include <stdio.h>

#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_X, TILE_Y, TILE_K, N_KNOBS };

static at_status define_space(const at_args *args, at_space *s)
{
    const at_dense_args *a = &args->u.dense;
    AT_TRY(at_space_split_ex(s, TILE_X, "tile_x", a->m, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_split_ex(s, TILE_Y, "tile_y", a->n, &(at_split_opts){.num_outputs = 4}));
    return at_space_split_ex(s, TILE_K, "tile_k", a->k, &(at_split_opts){.num_outputs = 3});
}

static at_status fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c)
{
    (void)refs, (void)n_refs;
    const at_dense_args *a = &args->u.dense;
    static const int64_t tile[4] = {-1, 2, 16, 2}, one[4] = {1, 1, 1, 1}, k8[3] = {-1, 8, 1}, k1[3] = {-1, 1, 1};
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_X, a->m > 1 ? tile : one, 4));
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_Y, a->n > 1 ? tile : one, 4));
    return at_tmpl_fallback_split(s, c, TILE_K, a->k > 8 ? k8 : k1, 3);
}

/* SplitEntity.apply's extents: parts[1..n) the config's inner sizes, parts[0] the outer extent
 * rounded up. AT_EINVAL when an inner size is < 1. */
static at_status split_parts(const at_config *c, size_t knob, int64_t extent, size_t n, int64_t *parts)
{
    at_config_split(c, knob, parts, n);
    int64_t inner = 1;
    for (size_t i = 1; i < n; i++) {
        if (parts[i] < 1) return AT_FAIL(AT_EINVAL, "%s: size %lld < 1", at_config_at(c, knob)->name, (long long)parts[i]);
        inner *= parts[i];
    }
    parts[0] = (extent + inner - 1) / inner;
    return AT_OK;
}

typedef struct lb {
    const at_dense_args *a;
    int64_t              tx[4], ty[4], tk[3];
    int64_t              xb, yb, kc; /* rows of data and weight a block covers, columns a ko step */
    const at_ir_expr    *ko;
    at_tmpl_loop         bind[4];    /* blockIdx y x, threadIdx y x */
} lb;

/* sh[r][c] = src[base + r][ko kc + c] (zero past the tensor) for the block's `rows` rows: rows over
 * threadIdx.y (nparts), columns in chunks of 4 TX, each split over threadIdx.x (nparts). */
static const at_ir_stmt *fetch(at_ir_sched *s, const lb *d, const at_ir_buffer *sh, const at_ir_buffer *src, int64_t rows,
                               int64_t blocks, int64_t limit, const at_ir_expr *base, const char *tag)
{
    int64_t nty = d->ty[2], ntx = d->tx[2];
    int64_t rpt = (rows + nty - 1) / nty, f4 = 4 * ntx, e = d->kc < f4 ? d->kc : f4, cpt = (e + ntx - 1) / ntx;
    char nm[3][16];
    snprintf(nm[0], sizeof nm[0], "%s_r", tag);
    snprintf(nm[1], sizeof nm[1], "%s_co", tag);
    snprintf(nm[2], sizeof nm[2], "%s_ci", tag);
    at_tmpl_loop l[3] = {at_tmpl_loop_new(s, nm[0], rpt, AT_IR_SERIAL), at_tmpl_loop_new(s, nm[1], (d->kc + f4 - 1) / f4, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, nm[2], cpt, AT_IR_SERIAL)};
    const at_ir_expr *r = at_ir_add(s, at_ir_mul(s, at_ir_v(s, d->bind[2].var), at_tmpl_i(s, rpt)), at_ir_v(s, l[0].var));
    const at_ir_expr *ci = at_ir_add(s, at_ir_mul(s, at_ir_v(s, d->bind[3].var), at_tmpl_i(s, cpt)), at_ir_v(s, l[2].var));
    const at_ir_expr *col = at_ir_add(s, at_ir_mul(s, at_ir_v(s, l[1].var), at_tmpl_i(s, f4)), ci);
    const at_ir_expr *grow = at_ir_add(s, base, r);
    const at_ir_expr *gcol = at_ir_add(s, at_ir_mul(s, d->ko, at_tmpl_i(s, d->kc)), col);
    const at_ir_expr *in = NULL;
    if (blocks * rows != limit) in = at_ir_bin(s, AT_IR_LT, grow, at_tmpl_i(s, limit));
    if (d->a->k % d->kc) in = at_tmpl_and(s, in, at_ir_bin(s, AT_IR_LT, gcol, at_tmpl_i(s, d->a->k)));
    const at_ir_expr *v = at_ir_load(s, src, at_ir_add(s, at_ir_mul(s, grow, at_tmpl_i(s, d->a->k)), gcol), 1);
    if (in) v = at_ir_select(s, in, v, at_tmpl_f(s, src->elem, 0));
    const at_ir_stmt *st = at_ir_store(s, sh, at_ir_add(s, at_ir_mul(s, r, at_tmpl_i(s, d->kc)), col), v);
    /* the parts of the thread split that fall past the stage */
    const at_ir_expr *own = NULL;
    if (rpt * nty != rows) own = at_ir_bin(s, AT_IR_LT, r, at_tmpl_i(s, rows));
    if (cpt * ntx != e) own = at_tmpl_and(s, own, at_ir_bin(s, AT_IR_LT, ci, at_tmpl_i(s, e)));
    if (d->kc % f4) own = at_tmpl_and(s, own, at_ir_bin(s, AT_IR_LT, col, at_tmpl_i(s, d->kc)));
    if (own) st = at_ir_if(s, own, st, NULL);
    return at_tmpl_nest(s, l, 3, st);
}

/* A nest of the virtual threads vy, vx (one per use, as each use binds them anew), the thread's
 * first data row *ra and weight row *rb in the block, and the start *cb of its CC slice. */
static void vt_nest(at_ir_sched *s, const lb *d, at_tmpl_loop vt[2], const at_ir_expr **ra, const at_ir_expr **rb,
                    const at_ir_expr **cb)
{
    vt[0] = at_tmpl_loop_new(s, "vy", d->ty[1], AT_IR_VTHREAD);
    vt[1] = at_tmpl_loop_new(s, "vx", d->tx[1], AT_IR_VTHREAD);
    const at_ir_var *xv[2] = {vt[1].var, d->bind[3].var}, *yv[2] = {vt[0].var, d->bind[2].var}, *cv[2] = {vt[0].var, vt[1].var};
    const int64_t xe[2] = {d->tx[1], d->tx[2]}, ye[2] = {d->ty[1], d->ty[2]}, ce[2] = {d->ty[1], d->tx[1]};
    *ra = at_ir_mul(s, at_ir_fuse(s, xv, xe, 2), at_tmpl_i(s, d->tx[3]));
    *rb = at_ir_mul(s, at_ir_fuse(s, yv, ye, 2), at_tmpl_i(s, d->ty[3]));
    *cb = at_ir_mul(s, at_ir_fuse(s, cv, ce, 2), at_tmpl_i(s, d->tx[3] * d->ty[3]));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_dense_args *a = &args->u.dense;
    lb d = {.a = a};
    AT_TRY(split_parts(c, TILE_X, a->m, 4, d.tx));
    AT_TRY(split_parts(c, TILE_Y, a->n, 4, d.ty));
    AT_TRY(split_parts(c, TILE_K, a->k, 3, d.tk));
    d.xb = d.tx[1] * d.tx[2] * d.tx[3];
    d.yb = d.ty[1] * d.ty[2] * d.ty[3];
    d.kc = d.tk[1] * d.tk[2];
    int64_t xi_n = d.tx[3], yi_n = d.ty[3], ki_n = d.tk[2];
    at_ir_type ot = a->out_dtype;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, a->m * a->k, AT_IR_INPUT);
    const at_ir_buffer *weight = at_ir_param(s, "weight", a->weight_dtype, a->n * a->k, AT_IR_INPUT);
    const at_ir_buffer *bias = a->has_bias ? at_ir_param(s, "bias", a->bias_dtype, a->n, AT_IR_INPUT) : NULL;
    const at_ir_buffer *out = at_ir_param(s, "output", ot, a->m * a->n, AT_IR_OUTPUT);
    const at_ir_buffer *aa = at_ir_alloc(s, "data_shared", a->dtype, d.xb * d.kc, AT_IR_LOCAL);
    const at_ir_buffer *bb = at_ir_alloc(s, "weight_shared", a->weight_dtype, d.yb * d.kc, AT_IR_LOCAL);
    const at_ir_buffer *al = at_ir_alloc(s, "data_shared_local", a->dtype, xi_n * ki_n, AT_IR_PRIVATE);
    const at_ir_buffer *bl = at_ir_alloc(s, "weight_shared_local", a->weight_dtype, yi_n * ki_n, AT_IR_PRIVATE);
    /* CC of every virtual thread (InjectVirtualThread gives each its own copy) */
    const at_ir_buffer *cc = at_ir_alloc(s, "T_dense_local", ot, d.ty[1] * d.tx[1] * xi_n * yi_n, AT_IR_PRIVATE);

    d.bind[0] = at_tmpl_loop_new(s, "by", d.ty[0], AT_IR_BLOCK_Y);
    d.bind[1] = at_tmpl_loop_new(s, "bx", d.tx[0], AT_IR_BLOCK_X);
    d.bind[2] = at_tmpl_loop_new(s, "ty", d.ty[2], AT_IR_THREAD_Y);
    d.bind[3] = at_tmpl_loop_new(s, "tx", d.tx[2], AT_IR_THREAD_X);
    const at_ir_expr *by = at_ir_v(s, d.bind[0].var), *bx = at_ir_v(s, d.bind[1].var);
    const at_ir_expr *row0 = at_ir_mul(s, bx, at_tmpl_i(s, d.xb)), *col0 = at_ir_mul(s, by, at_tmpl_i(s, d.yb));

    /* CC = 0 */
    at_tmpl_loop vi[2];
    const at_ir_expr *ra_i, *rb_i, *cb_i;
    vt_nest(s, &d, vi, &ra_i, &rb_i, &cb_i);
    at_tmpl_loop li[2] = {at_tmpl_loop_new(s, "i_c_init", xi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "j_c_init", yi_n, AT_IR_SERIAL)};
    const at_ir_expr *ci_init = at_ir_add(s, cb_i, at_ir_add(s, at_ir_mul(s, at_ir_v(s, li[0].var), at_tmpl_i(s, yi_n)), at_ir_v(s, li[1].var)));
    const at_ir_stmt *init = at_tmpl_nest(s, vi, 2, at_tmpl_nest(s, li, 2, at_ir_store(s, cc, ci_init, at_tmpl_f(s, ot, 0))));

    /* ko: fetch between barriers, then kt (unrolled) over the virtual threads */
    at_tmpl_loop lko = at_tmpl_loop_new(s, "k_outer", d.tk[0], AT_IR_SERIAL);
    d.ko = at_ir_v(s, lko.var);
    at_tmpl_loop lkt = at_tmpl_loop_new(s, "k_t", d.tk[1], AT_IR_UNROLLED);
    at_tmpl_loop vc[2];
    const at_ir_expr *ra, *rb, *cb;
    vt_nest(s, &d, vc, &ra, &rb, &cb);
    const at_ir_expr *kt0 = at_ir_mul(s, at_ir_v(s, lkt.var), at_tmpl_i(s, ki_n));
    at_tmpl_loop la[2] = {at_tmpl_loop_new(s, "al_i", xi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "al_k", ki_n, AT_IR_SERIAL)};
    const at_ir_expr *la_src = at_ir_add(s, at_ir_mul(s, at_ir_add(s, ra, at_ir_v(s, la[0].var)), at_tmpl_i(s, d.kc)),
                                         at_ir_add(s, kt0, at_ir_v(s, la[1].var)));
    const at_ir_expr *la_dst = at_ir_add(s, at_ir_mul(s, at_ir_v(s, la[0].var), at_tmpl_i(s, ki_n)), at_ir_v(s, la[1].var));
    const at_ir_stmt *al_fill = at_tmpl_nest(s, la, 2, at_ir_store(s, al, la_dst, at_ir_load(s, aa, la_src, 1)));
    at_tmpl_loop lb_[2] = {at_tmpl_loop_new(s, "bl_j", yi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "bl_k", ki_n, AT_IR_SERIAL)};
    const at_ir_expr *lb_src = at_ir_add(s, at_ir_mul(s, at_ir_add(s, rb, at_ir_v(s, lb_[0].var)), at_tmpl_i(s, d.kc)),
                                         at_ir_add(s, kt0, at_ir_v(s, lb_[1].var)));
    const at_ir_expr *lb_dst = at_ir_add(s, at_ir_mul(s, at_ir_v(s, lb_[0].var), at_tmpl_i(s, ki_n)), at_ir_v(s, lb_[1].var));
    const at_ir_stmt *bl_fill = at_tmpl_nest(s, lb_, 2, at_ir_store(s, bl, lb_dst, at_ir_load(s, bb, lb_src, 1)));
    at_tmpl_loop lc[3] = {at_tmpl_loop_new(s, "k_inner", ki_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "i_c", xi_n, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "j_c", yi_n, AT_IR_SERIAL)};
    const at_ir_expr *kk = at_ir_v(s, lc[0].var), *ii = at_ir_v(s, lc[1].var), *jj = at_ir_v(s, lc[2].var);
    const at_ir_expr *c_at = at_ir_add(s, cb, at_ir_add(s, at_ir_mul(s, ii, at_tmpl_i(s, yi_n)), jj));
    const at_ir_expr *xa = at_ir_load(s, al, at_ir_add(s, at_ir_mul(s, ii, at_tmpl_i(s, ki_n)), kk), 1);
    const at_ir_expr *wb = at_ir_load(s, bl, at_ir_add(s, at_ir_mul(s, jj, at_tmpl_i(s, ki_n)), kk), 1);
    const at_ir_stmt *upd = at_tmpl_nest(
        s, lc, 3, at_ir_store(s, cc, c_at, at_ir_add(s, at_ir_load(s, cc, c_at, 1), at_ir_mul(s, at_tmpl_cast(s, ot, xa), at_tmpl_cast(s, ot, wb)))));
    const at_ir_stmt *kt_items[3] = {al_fill, bl_fill, upd};
    const at_ir_stmt *kt_loop = at_tmpl_nest(s, &lkt, 1, at_tmpl_nest(s, vc, 2, at_ir_seq(s, kt_items, 3)));
    const at_ir_stmt *ko_items[5] = {at_ir_barrier(s, AT_IR_LOCAL), fetch(s, &d, aa, data, d.xb, d.tx[0], a->m, row0, "aa"),
                                     fetch(s, &d, bb, weight, d.yb, d.ty[0], a->n, col0, "bb"), at_ir_barrier(s, AT_IR_LOCAL), kt_loop};
    const at_ir_stmt *ko_loop = at_tmpl_nest(s, &lko, 1, at_ir_seq(s, ko_items, 5));

    /* output[row][col] = CC (+ bias), leaf order yi, xi; guarded when the tiles overrun */
    at_tmpl_loop vo[2];
    const at_ir_expr *ra_o, *rb_o, *cb_o;
    vt_nest(s, &d, vo, &ra_o, &rb_o, &cb_o);
    at_tmpl_loop lo[2] = {at_tmpl_loop_new(s, "yi", yi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "xi", xi_n, AT_IR_SERIAL)};
    const at_ir_expr *yv = at_ir_v(s, lo[0].var), *xv = at_ir_v(s, lo[1].var);
    const at_ir_expr *orow = at_ir_add(s, row0, at_ir_add(s, ra_o, xv)), *ocol = at_ir_add(s, col0, at_ir_add(s, rb_o, yv));
    const at_ir_expr *val = at_ir_load(s, cc, at_ir_add(s, cb_o, at_ir_add(s, at_ir_mul(s, xv, at_tmpl_i(s, yi_n)), yv)), 1);
    if (bias) val = at_ir_add(s, val, at_tmpl_cast(s, ot, at_ir_load(s, bias, ocol, 1)));
    const at_ir_stmt *st = at_ir_store(s, out, at_ir_add(s, at_ir_mul(s, orow, at_tmpl_i(s, a->n)), ocol), val);
    const at_ir_expr *in = NULL;
    if (d.tx[0] * d.xb != a->m) in = at_ir_bin(s, AT_IR_LT, orow, at_tmpl_i(s, a->m));
    if (d.ty[0] * d.yb != a->n) in = at_tmpl_and(s, in, at_ir_bin(s, AT_IR_LT, ocol, at_tmpl_i(s, a->n)));
    if (in) st = at_ir_if(s, in, st, NULL);
    const at_ir_stmt *store = at_tmpl_nest(s, vo, 2, at_tmpl_nest(s, lo, 2, st));

    const at_ir_stmt *items[3] = {init, ko_loop, store};
    at_ir_add_kernel(s, "dense_kernel", at_tmpl_nest(s, d.bind, 4, at_ir_seq(s, items, 3)));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_dense_large_batch_gpu = {
    .name = "dense_large_batch.gpu",
    .op = AT_OP_DENSE,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = fallback,
};
