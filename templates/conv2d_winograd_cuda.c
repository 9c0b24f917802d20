/* conv2d_nchw_winograd.cuda: TVM v0.18's CUDA Winograd conv2d for an untransformed kernel
 * (winograd_cuda with pre_computed=False and schedule_winograd_cuda in topi/cuda/conv2d_winograd.py),
 * F(m x m, 3 x 3) with m = 4 when the input height is a multiple of 8, else 2 (_infer_tile_size).
 * Knobs, in TVM's order: tile_b (4-way split of alpha^2 whose filter keeps only [-1, 1, 1, 1]),
 * tile_y (4-way split of CO), tile_x (4-way split of P = N nH nW), tile_rc (2-way split of CI),
 * auto_unroll_max_step [0, 128, 1500], unroll_explicit [0, 1] (the opencl/cuda list; nvptx and
 * rocm get [1]). TVM's schedule has no cfg.is_fallback branch, so its fallback is entity 0 of
 * every knob (the template sets no .fallback).
 *
 * Four kernels, as TVM lowers the task:
 * - kernel_pack (G g G^T, layout [alpha][alpha][CI][CO]): TVM marks it debug_skip_region while
 *   tuning, so it is a preparation kernel here, scheduled as TVM schedules it outside tuning
 *   (fuse(ci, co) split by 128, eps/nu/r_a/r_b unrolled);
 * - data_pack (B^T d B, [alpha][alpha][CI][P]): fuse(c, p) split by 128, each work-item gathers its
 *   padded alpha x alpha tile into a private d (serial loops), transforms it into a private data_l
 *   (unrolled) and stores it with serial eps/nu loops;
 * - bgemm ([alpha][alpha][CO][P], sum over CI): blockIdx z/y/x = (alpha^2, tile_y[0], tile_x[0]),
 *   virtual threads tile_y[1] x tile_x[1], threadIdx y/x = tile_y[2], tile_x[2], each (virtual)
 *   thread accumulating a tile_y[3] x tile_x[3] block in private memory; per tile_rc step the
 *   block's kernel_pack and data_pack slices are fetched cooperatively into shared memory between
 *   barriers. The virtual threads are injected as InjectVirtualThread does: at each statement
 *   that uses them, interleaved copies (a serial loop from 16 up). The auto_unroll_max_step /
 *   unroll_explicit pragma covers this whole kernel (at_ir_auto_unroll, last);
 * - output (A^T M A): fuse(n, co, h/m, w/m) split by 128, each work-item's m x m inverse in private
 *   memory (unrolled), stored by serial hi/wi loops guarding ragged edges.
 * Guards: every split of a fused extent that 128 (or a fetch's thread count) does not divide. */
#include <string.h>

#include "ir/unroll.h"
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_B, TILE_Y, TILE_X, TILE_RC, AUTO_UNROLL_MAX_STEP, UNROLL_EXPLICIT, N_KNOBS };

enum { NUM_THREAD = 128, MAX_VTHREAD_UNROLL = 16 };

static int tile_size(const at_args *args)
{
    return args->u.conv2d.data[2] % 8 == 0 ? 4 : 2;
}

static bool tile_b_filter(const int64_t *sizes, size_t n, void *ctx)
{
    (void)ctx;
    return n == 4 && sizes[1] == 1 && sizes[2] == 1 && sizes[3] == 1;
}

static at_status define_space(const at_args *args, at_space *s)
{
    at_tmpl_wino w;
    at_tmpl_wino_init(args, tile_size(args), &w);
    static const int64_t steps[3] = {0, 128, 1500}, expl[2] = {0, 1};
    AT_TRY(at_space_split_ex(s, TILE_B, "tile_b", (int64_t)w.al * w.al,
                             &(at_split_opts){.num_outputs = 4, .filter = tile_b_filter}));
    AT_TRY(at_space_split_ex(s, TILE_Y, "tile_y", w.g.co, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_split_ex(s, TILE_X, "tile_x", w.P, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_split_ex(s, TILE_RC, "tile_rc", w.g.ci, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_other(s, AUTO_UNROLL_MAX_STEP, "auto_unroll_max_step", steps, 3));
    return at_space_other(s, UNROLL_EXPLICIT, "unroll_explicit", expl, 2);
}

typedef struct cw {
    at_tmpl_wino t;
    at_ir_type   ot;
    int64_t      y[4], x[4], rc[2]; /* tile_y, tile_x, tile_rc parts */
    int64_t      yb, xb;           /* rows / columns of one block: y[1] y[2] y[3], x[1] x[2] x[3] */
} cw;

/* The guard of a split of a fused extent n into (ceil(n / f), f) parts: f = the flat index. */
static const at_ir_stmt *guard(at_ir_sched *s, const at_ir_expr *f, int64_t n, int64_t factor, const at_ir_stmt *body)
{
    return n % factor ? at_ir_if(s, at_ir_bin(s, AT_IR_LT, f, at_tmpl_i(s, n)), body, NULL) : body;
}

/* d[a][b] of an alpha x alpha private tile */
typedef struct tile_ctx {
    const at_ir_buffer *d;
    int                 al;
} tile_ctx;

static const at_ir_expr *tile_elem(at_ir_sched *s, int a, int b, void *ctx)
{
    const tile_ctx *t = ctx;
    return at_ir_load(s, t->d, at_tmpl_i(s, a * t->al + b), 1);
}

/* kernel_pack[eps][nu][ci][co] = sum_{r_kh, r_kw} kernel[co][ci][r_kh][r_kw] G[eps][r_kh] G[nu][r_kw] */
static void kernel_pack_stage(at_ir_sched *s, const cw *w, const at_ir_buffer *kernel, const at_ir_buffer *kp)
{
    const at_conv2d_geom *g = &w->t.g;
    int al = w->t.al;
    int64_t n = g->ci * g->co, nb = (n + NUM_THREAD - 1) / NUM_THREAD;
    at_tmpl_loop bind[2] = {at_tmpl_loop_new(s, "bb", nb, AT_IR_BLOCK_X), at_tmpl_loop_new(s, "tt", NUM_THREAD, AT_IR_THREAD_X)};
    const at_ir_var *fv[2] = {bind[0].var, bind[1].var};
    const int64_t fe[2] = {nb, NUM_THREAD};
    const at_ir_expr *f = at_ir_fuse(s, fv, fe, 2);
    const at_ir_expr *ci = at_ir_div(s, f, at_tmpl_i(s, g->co)), *co = at_ir_mod(s, f, at_tmpl_i(s, g->co));
    at_tmpl_wino_kernel_ctx kc = {&w->t, kernel, w->ot, co, ci};
    const at_ir_stmt *items[36];
    for (int eps = 0; eps < al; eps++)
        for (int nu = 0; nu < al; nu++) {
            const at_ir_expr *ki[4] = {at_tmpl_i(s, eps), at_tmpl_i(s, nu), ci, co};
            const int64_t kd[4] = {al, al, g->ci, g->co};
            items[eps * al + nu] = at_ir_store(s, kp, at_tmpl_index(s, ki, kd, 4),
                                               at_tmpl_wino_transform(s, w->ot, w->t.G, 3, 1, 3, eps, nu, at_tmpl_wino_kernel_elem, &kc));
        }
    const at_ir_stmt *body = guard(s, f, n, NUM_THREAD, at_ir_seq(s, items, (size_t)(al * al)));
    at_ir_add_prepare_kernel(s, "kernel_pack_kernel", at_tmpl_nest(s, bind, 2, body));
}

/* data_pack[eps][nu][c][p] = sum_{r_a, r_b} d[c][p][r_a][r_b] B[r_a][eps] B[r_b][nu] */
static void data_pack_stage(at_ir_sched *s, const cw *w, const at_ir_buffer *data, const at_ir_buffer *dp)
{
    const at_conv2d_geom *g = &w->t.g;
    int al = w->t.al;
    int64_t n = g->ci * w->t.P, nb = (n + NUM_THREAD - 1) / NUM_THREAD;
    const at_ir_buffer *d = at_ir_alloc(s, "d", w->ot, al * al, AT_IR_PRIVATE);
    const at_ir_buffer *dl = at_ir_alloc(s, "data_pack_local", w->ot, al * al, AT_IR_PRIVATE);
    at_tmpl_loop bind[2] = {at_tmpl_loop_new(s, "bb", nb, AT_IR_BLOCK_X), at_tmpl_loop_new(s, "tt", NUM_THREAD, AT_IR_THREAD_X)};
    const at_ir_var *fv[2] = {bind[0].var, bind[1].var};
    const int64_t fe[2] = {nb, NUM_THREAD};
    const at_ir_expr *f = at_ir_fuse(s, fv, fe, 2);
    const at_ir_expr *c = at_ir_div(s, f, at_tmpl_i(s, w->t.P)), *p = at_ir_mod(s, f, at_tmpl_i(s, w->t.P));

    /* the input tile d, attached at pi and left unannotated by TVM: serial eps, nu */
    at_tmpl_loop tl[2] = {at_tmpl_loop_new(s, "eps", al, AT_IR_SERIAL), at_tmpl_loop_new(s, "nu", al, AT_IR_SERIAL)};
    const at_ir_expr *te = at_ir_v(s, tl[0].var), *tn = at_ir_v(s, tl[1].var);
    const at_ir_stmt *d_st = at_tmpl_nest(s, tl, 2, at_ir_store(s, d, at_ir_add(s, at_ir_mul(s, te, at_tmpl_i(s, al)), tn),
                                                                at_tmpl_wino_tile_load(s, &w->t, data, w->ot, p, c, te, tn)));

    /* data_l: eps, nu, r_a, r_b unrolled */
    const at_ir_stmt *items[36];
    tile_ctx tc = {d, al};
    for (int eps = 0; eps < al; eps++)
        for (int nu = 0; nu < al; nu++)
            items[eps * al + nu] = at_ir_store(s, dl, at_tmpl_i(s, eps * al + nu),
                                               at_tmpl_wino_transform(s, w->ot, w->t.B, al, al, 1, eps, nu, tile_elem, &tc));
    const at_ir_stmt *dl_st = at_ir_seq(s, items, (size_t)(al * al));

    /* data_pack's own eps, nu after pi: serial */
    at_tmpl_loop ol[2] = {at_tmpl_loop_new(s, "eps", al, AT_IR_SERIAL), at_tmpl_loop_new(s, "nu", al, AT_IR_SERIAL)};
    const at_ir_expr *oe = at_ir_v(s, ol[0].var), *on = at_ir_v(s, ol[1].var);
    const at_ir_expr *di[4] = {oe, on, c, p};
    const int64_t dd[4] = {al, al, g->ci, w->t.P};
    const at_ir_stmt *st = at_tmpl_nest(s, ol, 2, at_ir_store(s, dp, at_tmpl_index(s, di, dd, 4),
                                                            at_ir_load(s, dl, at_ir_add(s, at_ir_mul(s, oe, at_tmpl_i(s, al)), on), 1)));
    const at_ir_stmt *all[3] = {d_st, dl_st, st};
    at_ir_add_kernel(s, "data_pack_kernel", at_tmpl_nest(s, bind, 2, guard(s, f, n, NUM_THREAD, at_ir_seq(s, all, 3))));
}

/* The virtual threads of one statement, vx then vy outermost first (InjectVirtualThread handles
 * the innermost vthread first and each later one wraps the statements inside the earlier's):
 * interleaved copies below 16, a serial loop from 16 up; an extent-1 vthread is the constant 0. */
typedef struct vts {
    at_tmpl_loop      l[2];
    size_t            n;
    const at_ir_expr *vy, *vx;
} vts;

static const at_ir_expr *vt_axis(at_ir_sched *s, vts *v, const char *name, int64_t extent)
{
    if (extent == 1) return at_tmpl_i(s, 0);
    v->l[v->n] = at_tmpl_loop_new(s, name, extent, extent < MAX_VTHREAD_UNROLL ? AT_IR_VTHREAD : AT_IR_SERIAL);
    return at_ir_v(s, v->l[v->n++].var);
}

static vts vthreads(at_ir_sched *s, const cw *w)
{
    vts v = {.n = 0};
    v.vx = vt_axis(s, &v, "vx", w->x[1]);
    v.vy = vt_axis(s, &v, "vy", w->y[1]);
    return v;
}

/* OL[vy][vx][yi][xi] (the private accumulator expanded per virtual thread) */
static const at_ir_expr *ol_index(at_ir_sched *s, const cw *w, const vts *v, const at_ir_expr *yi, const at_ir_expr *xi)
{
    const at_ir_expr *idx[4] = {v->vy, v->vx, yi, xi};
    const int64_t dims[4] = {w->y[1], w->x[1], w->y[3], w->x[3]};
    return at_tmpl_index(s, idx, dims, 4);
}

/* One cooperative fetch: shared[f] = src[b][rco rci + f / cols][base + f % cols] for f over
 * rci x cols, fused and split by (threadIdx.y, threadIdx.x) = (ty, tx). */
static const at_ir_stmt *fetch(at_ir_sched *s, const cw *w, const char *name, const at_ir_buffer *sh, const at_ir_buffer *src,
                               int64_t src_cols, const at_ir_expr *b, const at_ir_expr *rco, const at_ir_expr *base, int64_t cols,
                               const at_ir_expr *ty, const at_ir_expr *tx)
{
    int64_t rci = w->rc[1], total = rci * cols, nthr = w->y[2] * w->x[2], outer = (total + nthr - 1) / nthr;
    at_tmpl_loop o = at_tmpl_loop_new(s, name, outer, AT_IR_SERIAL);
    const at_ir_expr *f = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_v(s, o.var), at_tmpl_i(s, w->y[2])), ty),
                                                 at_tmpl_i(s, w->x[2])),
                                    tx);
    const at_ir_expr *ci = at_ir_add(s, at_ir_mul(s, rco, at_tmpl_i(s, rci)), at_ir_div(s, f, at_tmpl_i(s, cols)));
    const at_ir_expr *col = at_ir_add(s, base, at_ir_mod(s, f, at_tmpl_i(s, cols)));
    const at_ir_expr *si[3] = {b, ci, col};
    const int64_t sd[3] = {w->t.al * w->t.al, w->t.g.ci, src_cols};
    const at_ir_stmt *st = at_ir_store(s, sh, f, at_ir_load(s, src, at_tmpl_index(s, si, sd, 3), 1));
    return at_tmpl_nest(s, &o, 1, guard(s, f, total, nthr, st));
}

/* bgemm[b][y][x] = sum_ci kernel_pack[b][ci][y] data_pack[b][ci][x] */
static void bgemm_stage(at_ir_sched *s, const cw *w, const at_ir_buffer *kp, const at_ir_buffer *dp, const at_ir_buffer *M,
                        int64_t unroll_step, bool unroll_explicit)
{
    const at_conv2d_geom *g = &w->t.g;
    const int64_t *Y = w->y, *X = w->x;
    int64_t rci = w->rc[1];
    const at_ir_buffer *ol = at_ir_alloc(s, "bgemm_local", w->ot, Y[1] * X[1] * Y[3] * X[3], AT_IR_PRIVATE);
    const at_ir_buffer *aa = at_ir_alloc(s, "kernel_pack_shared", w->ot, rci * w->yb, AT_IR_LOCAL);
    const at_ir_buffer *bb = at_ir_alloc(s, "data_pack_shared", w->ot, rci * w->xb, AT_IR_LOCAL);
    at_tmpl_loop bind[6] = {at_tmpl_loop_new(s, "bz", (int64_t)w->t.al * w->t.al, AT_IR_BLOCK_Z),
                            at_tmpl_loop_new(s, "by", Y[0], AT_IR_BLOCK_Y), at_tmpl_loop_new(s, "bx", X[0], AT_IR_BLOCK_X),
                            at_tmpl_loop_new(s, "tz", 1, AT_IR_THREAD_Z), at_tmpl_loop_new(s, "ty", Y[2], AT_IR_THREAD_Y),
                            at_tmpl_loop_new(s, "tx", X[2], AT_IR_THREAD_X)};
    const at_ir_expr *b = at_ir_v(s, bind[0].var), *by = at_ir_v(s, bind[1].var), *bx = at_ir_v(s, bind[2].var);
    const at_ir_expr *ty = at_ir_v(s, bind[4].var), *tx = at_ir_v(s, bind[5].var);

    /* init of the accumulator, before the reduction */
    at_tmpl_loop il[2] = {at_tmpl_loop_new(s, "yi_init", Y[3], AT_IR_SERIAL), at_tmpl_loop_new(s, "xi_init", X[3], AT_IR_SERIAL)};
    vts v0 = vthreads(s, w);
    const at_ir_stmt *init = at_tmpl_nest(s, il, 2, at_tmpl_nest(s, v0.l, v0.n, at_ir_store(s, ol, ol_index(s, w, &v0, at_ir_v(s, il[0].var), at_ir_v(s, il[1].var)), at_tmpl_f(s, w->ot, 0))));

    /* reduction: per rco, both shared slices between barriers, then rci x yi x xi */
    at_tmpl_loop rco = at_tmpl_loop_new(s, "rco", w->rc[0], AT_IR_SERIAL);
    const at_ir_expr *rv = at_ir_v(s, rco.var);
    const at_ir_stmt *fa = fetch(s, w, "ax_outer", aa, kp, g->co, b, rv, at_ir_mul(s, by, at_tmpl_i(s, w->yb)), w->yb, ty, tx);
    const at_ir_stmt *fb = fetch(s, w, "bx_outer", bb, dp, w->t.P, b, rv, at_ir_mul(s, bx, at_tmpl_i(s, w->xb)), w->xb, ty, tx);
    at_tmpl_loop cl[3] = {at_tmpl_loop_new(s, "rci", rci, AT_IR_SERIAL), at_tmpl_loop_new(s, "yi", Y[3], AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "xi", X[3], AT_IR_SERIAL)};
    const at_ir_expr *ri = at_ir_v(s, cl[0].var), *yi = at_ir_v(s, cl[1].var), *xi = at_ir_v(s, cl[2].var);
    vts v1 = vthreads(s, w);
    /* AA[rci][(vy ty_n + ty) yi_n + yi], BB[rci][(vx tx_n + tx) xi_n + xi] */
    const at_ir_expr *ai[3] = {ri, at_ir_add(s, at_ir_mul(s, v1.vy, at_tmpl_i(s, Y[2])), ty), yi};
    const int64_t ad[3] = {rci, Y[1] * Y[2], Y[3]};
    const at_ir_expr *bi[3] = {ri, at_ir_add(s, at_ir_mul(s, v1.vx, at_tmpl_i(s, X[2])), tx), xi};
    const int64_t bd[3] = {rci, X[1] * X[2], X[3]};
    const at_ir_expr *oi = ol_index(s, w, &v1, yi, xi);
    const at_ir_expr *prod = at_ir_mul(s, at_ir_load(s, aa, at_tmpl_index(s, ai, ad, 3), 1), at_ir_load(s, bb, at_tmpl_index(s, bi, bd, 3), 1));
    const at_ir_stmt *upd = at_tmpl_nest(s, cl, 3, at_tmpl_nest(s, v1.l, v1.n, at_ir_store(s, ol, oi, at_ir_add(s, at_ir_load(s, ol, oi, 1), prod))));
    const at_ir_stmt *step[5] = {at_ir_barrier(s, AT_IR_LOCAL), fa, fb, at_ir_barrier(s, AT_IR_LOCAL), upd};
    const at_ir_stmt *red = at_tmpl_nest(s, &rco, 1, at_ir_seq(s, step, 5));

    /* store: y = by yb + (vy ty_n + ty) yi_n + yi, x likewise */
    at_tmpl_loop sl[2] = {at_tmpl_loop_new(s, "yi", Y[3], AT_IR_SERIAL), at_tmpl_loop_new(s, "xi", X[3], AT_IR_SERIAL)};
    const at_ir_expr *syi = at_ir_v(s, sl[0].var), *sxi = at_ir_v(s, sl[1].var);
    vts v2 = vthreads(s, w);
    const at_ir_expr *yv[4] = {by, v2.vy, ty, syi}, *xv[4] = {bx, v2.vx, tx, sxi};
    const at_ir_expr *mi[3] = {b, at_tmpl_index(s, yv, Y, 4), at_tmpl_index(s, xv, X, 4)};
    const int64_t md[3] = {(int64_t)w->t.al * w->t.al, g->co, w->t.P};
    const at_ir_stmt *store = at_tmpl_nest(s, sl, 2, at_tmpl_nest(s, v2.l, v2.n, at_ir_store(s, M, at_tmpl_index(s, mi, md, 3), at_ir_load(s, ol, ol_index(s, w, &v2, syi, sxi), 1))));

    const at_ir_stmt *all[3] = {init, red, store};
    const at_ir_stmt *body = at_tmpl_nest(s, bind, 6, at_ir_seq(s, all, 3));
    at_ir_add_kernel(s, "bgemm_kernel", at_ir_auto_unroll(s, body, unroll_step, unroll_explicit));
}

/* output[n][co][h][w] = inverse[co][p][h % m][w % m], inverse = A^T bgemm A per tile, under
 * fuse(n, co, h / m, w / m) split by 128. */
static void output_stage(at_ir_sched *s, const cw *w, const at_ir_buffer *M, const at_ir_buffer *out)
{
    const at_conv2d_geom *g = &w->t.g;
    int m = w->t.m, al = w->t.al;
    int64_t nH = w->t.nH, nW = w->t.nW, n_all = g->n * g->co * nH * nW, nb = (n_all + NUM_THREAD - 1) / NUM_THREAD;
    const at_ir_buffer *inv = at_ir_alloc(s, "inverse", w->ot, m * m, AT_IR_PRIVATE);
    at_tmpl_loop bind[2] = {at_tmpl_loop_new(s, "bb", nb, AT_IR_BLOCK_X), at_tmpl_loop_new(s, "tt", NUM_THREAD, AT_IR_THREAD_X)};
    const at_ir_var *fv[2] = {bind[0].var, bind[1].var};
    const int64_t fe[2] = {nb, NUM_THREAD};
    const at_ir_expr *f = at_ir_fuse(s, fv, fe, 2);
    const at_ir_expr *wo = at_ir_mod(s, f, at_tmpl_i(s, nW));
    const at_ir_expr *ho = at_ir_mod(s, at_ir_div(s, f, at_tmpl_i(s, nW)), at_tmpl_i(s, nH));
    const at_ir_expr *co = at_ir_mod(s, at_ir_div(s, f, at_tmpl_i(s, nW * nH)), at_tmpl_i(s, g->co));
    const at_ir_expr *n = at_ir_div(s, f, at_tmpl_i(s, nW * nH * g->co));
    const at_ir_expr *p = at_ir_add(s, at_ir_add(s, at_ir_mul(s, n, at_tmpl_i(s, nH * nW)), at_ir_mul(s, ho, at_tmpl_i(s, nW))), wo);

    /* inverse: vh, vw, r_a, r_b unrolled */
    const at_ir_stmt *items[17];
    at_tmpl_wino_gemm_ctx mc = {&w->t, M, w->t.P, co, p};
    for (int vh = 0; vh < m; vh++)
        for (int vw = 0; vw < m; vw++)
            items[vh * m + vw] = at_ir_store(s, inv, at_tmpl_i(s, vh * m + vw),
                                             at_tmpl_wino_transform(s, w->ot, w->t.A, al, m, 1, vh, vw, at_tmpl_wino_gemm_elem, &mc));

    /* the m x m tile: serial hi, wi, ragged edges guarded */
    items[m * m] = at_tmpl_wino_store_tile(s, &w->t, out, inv, n, co, ho, wo, AT_IR_SERIAL);
    const at_ir_stmt *body = guard(s, f, n_all, NUM_THREAD, at_ir_seq(s, items, (size_t)(m * m + 1)));
    at_ir_add_kernel(s, "output_kernel", at_tmpl_nest(s, bind, 2, body));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    cw w;
    memset(&w, 0, sizeof w);
    at_tmpl_wino_init(args, tile_size(args), &w.t);
    const at_conv2d_geom *g = &w.t.g;
    w.ot = a->out_dtype;
    int64_t tb[4];
    AT_TRY(at_tmpl_split_parts(c, TILE_B, (int64_t)w.t.al * w.t.al, 4, tb));
    if (tb[1] != 1 || tb[2] != 1 || tb[3] != 1)
        return AT_FAIL(AT_EINVAL, "tile_b = [%lld, %lld, %lld, %lld]: TVM's filter keeps only [-1, 1, 1, 1]", (long long)tb[0],
                       (long long)tb[1], (long long)tb[2], (long long)tb[3]);
    AT_TRY(at_tmpl_split_parts(c, TILE_Y, g->co, 4, w.y));
    AT_TRY(at_tmpl_split_parts(c, TILE_X, w.t.P, 4, w.x));
    AT_TRY(at_tmpl_split_parts(c, TILE_RC, g->ci, 2, w.rc));
    w.yb = w.y[1] * w.y[2] * w.y[3];
    w.xb = w.x[1] * w.x[2] * w.x[3];
    int64_t step = at_config_other_int(c, AUTO_UNROLL_MAX_STEP), expl = at_config_other_int(c, UNROLL_EXPLICIT);
    if (step < 0) return AT_FAIL(AT_EINVAL, "auto_unroll_max_step = %lld: negative", (long long)step);
    if (expl != 0 && expl != 1) return AT_FAIL(AT_EINVAL, "unroll_explicit = %lld: not 0 or 1", (long long)expl);
    double al2 = (double)w.t.al * w.t.al;
    if (al2 * g->co * w.t.P > (double)(1LL << 31) - 1 || al2 * g->ci * w.t.P > (double)(1LL << 31) - 1 ||
        al2 * g->ci * g->co > (double)(1LL << 31) - 1)
        return AT_FAIL(AT_EINVAL, "winograd buffers of more than 2^31 elements");

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, g->co * g->ci * 9, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", w.ot, g->n * g->co * w.t.H * w.t.W, AT_IR_OUTPUT);
    const at_ir_buffer *kp = at_ir_temp(s, "kernel_pack", w.ot, w.t.al * w.t.al * g->ci * g->co);
    const at_ir_buffer *dp = at_ir_temp(s, "data_pack", w.ot, w.t.al * w.t.al * g->ci * w.t.P);
    const at_ir_buffer *M = at_ir_temp(s, "bgemm", w.ot, w.t.al * w.t.al * g->co * w.t.P);
    kernel_pack_stage(s, &w, kernel, kp);
    data_pack_stage(s, &w, data, dp);
    bgemm_stage(s, &w, kp, dp, M, step, expl == 1);
    output_stage(s, &w, M, out);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_nchw_winograd_cuda = {
    .name = "conv2d_nchw_winograd.cuda",
    .op = AT_OP_CONV2D_NCHW_WINOGRAD,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
};
