/* conv2d_nchw_winograd.mali: TVM v0.18's Mali Winograd conv2d (_decl_winograd and
 * _schedule_winograd in topi/mali/conv2d.py), F(m x m, 3 x 3) with m = 4 when the input height is
 * a multiple of 4, else 2 (alpha = m + 2). Knobs, in TVM's order: tile_bna (output-channel block,
 * 1 2 4 8 16 dividing CO), tile_bnb (tile block 1 2 4 8 16), tile_t1 (threads of the input
 * transform, split of CI up to 128), tile_t2 (threads of the inverse transform, split of CO up to
 * 128), c_unroll (unrolled reduction, split of CI up to 8), yt (threadIdx.y of the batched GEMM).
 *
 * Four kernels, as TVM compiles the task for an untransformed kernel: U transforms the weights
 * (TVM feeds a placeholder during tuning, so this stage is a weight-layout preparation;
 * tile_and_bind(co, ci, 1, 256), eps/nu/r_kh/r_kw unrolled, vco vectorized); V transforms the
 * input, one (tile block, ci) per work-item (fuse(p, ci) split by tile_t1), the zero-padded tiles
 * gathered into a private d and transformed in a private VL (eps, nu, r_a, r_b unrolled, the bnb
 * lanes vectorized); M is the batched GEMM under tile_and_bind3d(eps.nu, yo, xo, 1, yt, 1), each
 * work-item a bna x bnb block accumulated in the global M (c_unroll and yi unrolled, xi
 * vectorized); output fuses (n, co, h/m, w/m), splits it by tile_t2 and computes each m x m tile
 * in a private Y (all unrolled), guarding ragged edges. The transform matrices are constants, so
 * the loops that index them are unrolled when the IR is built and zero terms are left out (what
 * TVM's unroll plus constant folding leaves). Fallback: bnb 4, bna 4 halved until it divides CO,
 * yt 8, tile_t1/tile_t2 [-1, 128], c_unroll [-1, 8] (no reference log). */
#include <string.h>

#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_BNA, TILE_BNB, TILE_T1, TILE_T2, C_UNROLL, YT, N_KNOBS };

enum { MAX_THREADS = 256 };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    static const int64_t blocks[5] = {1, 2, 4, 8, 16}, yts[6] = {1, 2, 4, 8, 16, 32};
    int64_t bna[5];
    size_t n_bna = 0;
    for (size_t i = 0; i < 5; i++)
        if (g.co % blocks[i] == 0) bna[n_bna++] = blocks[i];
    AT_TRY(at_space_other(s, TILE_BNA, "tile_bna", bna, n_bna));
    AT_TRY(at_space_other(s, TILE_BNB, "tile_bnb", blocks, 5));
    AT_TRY(at_space_split_ex(s, TILE_T1, "tile_t1", g.ci, &(at_split_opts){.num_outputs = 2, .max_factor = 128}));
    AT_TRY(at_space_split_ex(s, TILE_T2, "tile_t2", g.co, &(at_split_opts){.num_outputs = 2, .max_factor = 128}));
    AT_TRY(at_space_split_ex(s, C_UNROLL, "c_unroll", g.ci, &(at_split_opts){.num_outputs = 2, .max_factor = 8}));
    return at_space_other(s, YT, "yt", yts, 6);
}

static at_status fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c)
{
    (void)refs, (void)n_refs;
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    int64_t bna = 4;
    while (g.co % bna) bna /= 2;
    static const int64_t t128[2] = {-1, 128}, c8[2] = {-1, 8};
    AT_TRY(at_tmpl_fallback_other(s, c, TILE_BNB, 4));
    AT_TRY(at_tmpl_fallback_other(s, c, TILE_BNA, bna));
    AT_TRY(at_tmpl_fallback_other(s, c, YT, 8));
    AT_TRY(at_space_fallback_split(s, c, TILE_T1, t128, 2));
    AT_TRY(at_space_fallback_split(s, c, TILE_T2, t128, 2));
    return at_space_fallback_split(s, c, C_UNROLL, c8, 2);
}

typedef struct wg {
    at_tmpl_wino t;
    at_ir_type   ot;
    int64_t      P_round;
    int64_t      bna, bnb, t1, t2, cu, yt;
} wg;

/* d[r_a][r_b][vp] of a private tile block */
typedef struct d_elem_ctx {
    const at_ir_buffer *d;
    const at_ir_expr   *vp;
    int64_t             dims[3];
} d_elem_ctx;

static const at_ir_expr *d_elem(at_ir_sched *s, int ra, int rb, void *ctx)
{
    const d_elem_ctx *d = ctx;
    const at_ir_expr *di[3] = {at_tmpl_i(s, ra), at_tmpl_i(s, rb), d->vp};
    return at_ir_load(s, d->d, at_tmpl_index(s, di, d->dims, 3), 1);
}

/* U[eps][nu][co][ci][vco] = sum_{r_kh, r_kw} kernel[co bna + vco][ci][r_kh][r_kw] G[eps][r_kh] G[nu][r_kw]
 * under tile_and_bind(U, co, ci, 1, 256). */
static void u_stage(at_ir_sched *s, const wg *w, const at_ir_buffer *kernel, const at_ir_buffer *U)
{
    const at_conv2d_geom *g = &w->t.g;
    int al = w->t.al;
    int64_t cob = g->co / w->bna, cig = (g->ci + MAX_THREADS - 1) / MAX_THREADS;
    at_tmpl_loop bind[4] = {at_tmpl_loop_new(s, "co_o", cob, AT_IR_BLOCK_Y), at_tmpl_loop_new(s, "ci_o", cig, AT_IR_BLOCK_X),
                            at_tmpl_loop_new(s, "co_i", 1, AT_IR_THREAD_Y),
                            at_tmpl_loop_new(s, "ci_i", MAX_THREADS, AT_IR_THREAD_X)};
    const at_ir_expr *co = at_ir_v(s, bind[0].var);
    const at_ir_var *cv[2] = {bind[1].var, bind[3].var};
    const int64_t ce[2] = {cig, MAX_THREADS};
    const at_ir_expr *ci = at_ir_fuse(s, cv, ce, 2);
    const at_ir_stmt *items[36];
    for (int eps = 0; eps < al; eps++)
        for (int nu = 0; nu < al; nu++) {
            at_tmpl_loop vco = at_tmpl_loop_new(s, "vco", w->bna, AT_IR_VECTORIZED);
            const at_ir_expr *vc = at_ir_v(s, vco.var);
            at_tmpl_wino_kernel_ctx kc = {&w->t, kernel, w->ot, at_ir_add(s, at_ir_mul(s, co, at_tmpl_i(s, w->bna)), vc), ci};
            const at_ir_expr *val = at_tmpl_wino_transform(s, w->ot, w->t.G, 3, 1, 3, eps, nu, at_tmpl_wino_kernel_elem, &kc);
            const at_ir_expr *ui[5] = {at_tmpl_i(s, eps), at_tmpl_i(s, nu), co, ci, vc};
            const int64_t ud[5] = {al, al, cob, g->ci, w->bna};
            items[eps * al + nu] = at_tmpl_nest(s, &vco, 1, at_ir_store(s, U, at_tmpl_index(s, ui, ud, 5), val));
        }
    const at_ir_stmt *body = at_ir_seq(s, items, (size_t)(al * al));
    if (g->ci % MAX_THREADS) body = at_ir_if(s, at_ir_bin(s, AT_IR_LT, ci, at_tmpl_i(s, g->ci)), body, NULL);
    at_ir_add_prepare_kernel(s, "U_kernel", at_tmpl_nest(s, bind, 4, body));
}

/* V[eps][nu][p][ci][vp] = sum_{r_a, r_b} d[r_a][r_b][vp] B[r_a][eps] B[r_b][nu]; fuse(p, ci) split by
 * tile_t1 onto blockIdx.x / threadIdx.x, d and VL computed per work-item. */
static void v_stage(at_ir_sched *s, const wg *w, const at_ir_buffer *data, const at_ir_buffer *V)
{
    const at_conv2d_geom *g = &w->t.g;
    int al = w->t.al;
    int64_t pb = w->P_round / w->bnb;
    const at_ir_buffer *d = at_ir_alloc(s, "d", w->ot, al * al * w->bnb, AT_IR_PRIVATE);
    const at_ir_buffer *vl = at_ir_alloc(s, "V_local", w->ot, al * al * w->bnb, AT_IR_PRIVATE);
    at_tmpl_loop bind[2] = {at_tmpl_loop_new(s, "bb", pb * g->ci / w->t1, AT_IR_BLOCK_X),
                            at_tmpl_loop_new(s, "tt", w->t1, AT_IR_THREAD_X)};
    const at_ir_var *fv[2] = {bind[0].var, bind[1].var};
    const int64_t fe[2] = {pb * g->ci / w->t1, w->t1};
    const at_ir_expr *f = at_ir_fuse(s, fv, fe, 2);
    const at_ir_expr *p = at_ir_div(s, f, at_tmpl_i(s, g->ci)), *ci = at_ir_mod(s, f, at_tmpl_i(s, g->ci));

    /* d[eps][nu][bb] = t < P ? data_pad[t / (nH nW)][ci][(t / nW % nH) m + eps][(t % nW) m + nu] : 0,
     * t = p bnb + bb (serial loops: TVM leaves d unannotated) */
    at_tmpl_loop dl[3] = {at_tmpl_loop_new(s, "eps", al, AT_IR_SERIAL), at_tmpl_loop_new(s, "nu", al, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "bb", w->bnb, AT_IR_SERIAL)};
    const at_ir_expr *t = at_ir_add(s, at_ir_mul(s, p, at_tmpl_i(s, w->bnb)), at_ir_v(s, dl[2].var));
    const at_ir_expr *x = at_tmpl_wino_tile_load(s, &w->t, data, w->ot, t, ci, at_ir_v(s, dl[0].var), at_ir_v(s, dl[1].var));
    if (w->P_round != w->t.P) x = at_ir_select(s, at_ir_bin(s, AT_IR_LT, t, at_tmpl_i(s, w->t.P)), x, at_tmpl_f(s, w->ot, 0));
    const at_ir_expr *dli[3] = {at_ir_v(s, dl[0].var), at_ir_v(s, dl[1].var), at_ir_v(s, dl[2].var)};
    const int64_t dd[3] = {al, al, w->bnb};
    const at_ir_stmt *d_st = at_tmpl_nest(s, dl, 3, at_ir_store(s, d, at_tmpl_index(s, dli, dd, 3), x));

    /* VL (eps, nu, r_a, r_b unrolled, vp vectorized) */
    const at_ir_stmt *items[36];
    for (int eps = 0; eps < al; eps++)
        for (int nu = 0; nu < al; nu++) {
            at_tmpl_loop vp = at_tmpl_loop_new(s, "vp", w->bnb, AT_IR_VECTORIZED);
            d_elem_ctx dc = {d, at_ir_v(s, vp.var), {al, al, w->bnb}};
            const at_ir_expr *val = at_tmpl_wino_transform(s, w->ot, w->t.B, al, al, 1, eps, nu, d_elem, &dc);
            const at_ir_expr *vi[3] = {at_tmpl_i(s, eps), at_tmpl_i(s, nu), at_ir_v(s, vp.var)};
            items[eps * al + nu] = at_tmpl_nest(s, &vp, 1, at_ir_store(s, vl, at_tmpl_index(s, vi, dd, 3), val));
        }
    const at_ir_stmt *vl_st = at_ir_seq(s, items, (size_t)(al * al));

    /* V: eps, nu unrolled, vp vectorized */
    at_tmpl_loop ol[3] = {at_tmpl_loop_new(s, "eps", al, AT_IR_UNROLLED), at_tmpl_loop_new(s, "nu", al, AT_IR_UNROLLED),
                          at_tmpl_loop_new(s, "vp", w->bnb, AT_IR_VECTORIZED)};
    const at_ir_expr *e = at_ir_v(s, ol[0].var), *n = at_ir_v(s, ol[1].var), *vp = at_ir_v(s, ol[2].var);
    const at_ir_expr *vi[5] = {e, n, p, ci, vp};
    const int64_t vd[5] = {al, al, pb, g->ci, w->bnb};
    const at_ir_expr *li[3] = {e, n, vp};
    const at_ir_stmt *v_st = at_tmpl_nest(s, ol, 3, at_ir_store(s, V, at_tmpl_index(s, vi, vd, 5), at_ir_load(s, vl, at_tmpl_index(s, li, dd, 3), 1)));
    const at_ir_stmt *all[3] = {d_st, vl_st, v_st};
    at_ir_add_kernel(s, "V_kernel", at_tmpl_nest(s, bind, 2, at_ir_seq(s, all, 3)));
}

/* M[eps][nu][co][p] = sum_c U[eps][nu][co / bna][c][co % bna] V[eps][nu][p / bnb][c][p % bnb] */
static void m_stage(at_ir_sched *s, const wg *w, const at_ir_buffer *U, const at_ir_buffer *V, const at_ir_buffer *M)
{
    const at_conv2d_geom *g = &w->t.g;
    int al = w->t.al;
    int64_t cob = g->co / w->bna, pb = w->P_round / w->bnb, yob = (cob + w->yt - 1) / w->yt;
    at_tmpl_loop bind[6] = {at_tmpl_loop_new(s, "z", al * al, AT_IR_BLOCK_Z), at_tmpl_loop_new(s, "yo_o", yob, AT_IR_BLOCK_Y),
                            at_tmpl_loop_new(s, "xo", pb, AT_IR_BLOCK_X),     at_tmpl_loop_new(s, "z_i", 1, AT_IR_THREAD_Z),
                            at_tmpl_loop_new(s, "yo_i", w->yt, AT_IR_THREAD_Y), at_tmpl_loop_new(s, "xo_i", 1, AT_IR_THREAD_X)};
    const at_ir_expr *z = at_ir_v(s, bind[0].var), *xo = at_ir_v(s, bind[2].var);
    const at_ir_var *yv[2] = {bind[1].var, bind[4].var};
    const int64_t ye[2] = {yob, w->yt};
    const at_ir_expr *yo = at_ir_fuse(s, yv, ye, 2);
    const at_ir_expr *eps = at_ir_div(s, z, at_tmpl_i(s, al)), *nu = at_ir_mod(s, z, at_tmpl_i(s, al));
    const int64_t md[4] = {al, al, g->co, w->P_round};

    at_tmpl_loop il[2] = {at_tmpl_loop_new(s, "yi_init", w->bna, AT_IR_UNROLLED), at_tmpl_loop_new(s, "xi_init", w->bnb, AT_IR_VECTORIZED)};
    const at_ir_expr *mi0[4] = {eps, nu, at_ir_add(s, at_ir_mul(s, yo, at_tmpl_i(s, w->bna)), at_ir_v(s, il[0].var)),
                                at_ir_add(s, at_ir_mul(s, xo, at_tmpl_i(s, w->bnb)), at_ir_v(s, il[1].var))};
    const at_ir_stmt *init = at_tmpl_nest(s, il, 2, at_ir_store(s, M, at_tmpl_index(s, mi0, md, 4), at_tmpl_f(s, w->ot, 0)));

    at_tmpl_loop rl[4] = {at_tmpl_loop_new(s, "c", g->ci / w->cu, AT_IR_SERIAL), at_tmpl_loop_new(s, "c_unroll", w->cu, AT_IR_UNROLLED),
                          at_tmpl_loop_new(s, "yi", w->bna, AT_IR_UNROLLED), at_tmpl_loop_new(s, "xi", w->bnb, AT_IR_VECTORIZED)};
    const at_ir_expr *c = at_ir_add(s, at_ir_mul(s, at_ir_v(s, rl[0].var), at_tmpl_i(s, w->cu)), at_ir_v(s, rl[1].var));
    const at_ir_expr *yi = at_ir_v(s, rl[2].var), *xi = at_ir_v(s, rl[3].var);
    const at_ir_expr *mi[4] = {eps, nu, at_ir_add(s, at_ir_mul(s, yo, at_tmpl_i(s, w->bna)), yi),
                               at_ir_add(s, at_ir_mul(s, xo, at_tmpl_i(s, w->bnb)), xi)};
    const at_ir_expr *midx = at_tmpl_index(s, mi, md, 4);
    const at_ir_expr *ui[5] = {eps, nu, yo, c, yi};
    const int64_t ud[5] = {al, al, cob, g->ci, w->bna};
    const at_ir_expr *vi[5] = {eps, nu, xo, c, xi};
    const int64_t vd[5] = {al, al, pb, g->ci, w->bnb};
    const at_ir_expr *prod = at_ir_mul(s, at_ir_load(s, U, at_tmpl_index(s, ui, ud, 5), 1), at_ir_load(s, V, at_tmpl_index(s, vi, vd, 5), 1));
    const at_ir_stmt *upd = at_tmpl_nest(s, rl, 4, at_ir_store(s, M, midx, at_ir_add(s, at_ir_load(s, M, midx, 1), prod)));
    const at_ir_stmt *body = at_ir_seq2(s, init, upd);
    if (cob % w->yt) body = at_ir_if(s, at_ir_bin(s, AT_IR_LT, yo, at_tmpl_i(s, cob)), body, NULL);
    at_ir_add_kernel(s, "M_kernel", at_tmpl_nest(s, bind, 6, body));
}

/* output[n][co][h][w] = Y[co][p][h % m][w % m], Y = A^T M A per tile, under fuse(n, co, h/m, w/m)
 * split by tile_t2. */
static void output_stage(at_ir_sched *s, const wg *w, const at_ir_buffer *M, const at_ir_buffer *out)
{
    const at_conv2d_geom *g = &w->t.g;
    int m = w->t.m, al = w->t.al;
    int64_t total = g->n * g->co * w->t.nH * w->t.nW;
    const at_ir_buffer *Y = at_ir_alloc(s, "Y", w->ot, m * m, AT_IR_PRIVATE);
    at_tmpl_loop bind[2] = {at_tmpl_loop_new(s, "bb", total / w->t2, AT_IR_BLOCK_X), at_tmpl_loop_new(s, "tt", w->t2, AT_IR_THREAD_X)};
    const at_ir_var *fv[2] = {bind[0].var, bind[1].var};
    const int64_t fe[2] = {total / w->t2, w->t2};
    const at_ir_expr *f = at_ir_fuse(s, fv, fe, 2);
    const at_ir_expr *wo = at_ir_mod(s, f, at_tmpl_i(s, w->t.nW));
    const at_ir_expr *ho = at_ir_mod(s, at_ir_div(s, f, at_tmpl_i(s, w->t.nW)), at_tmpl_i(s, w->t.nH));
    const at_ir_expr *co = at_ir_mod(s, at_ir_div(s, f, at_tmpl_i(s, w->t.nW * w->t.nH)), at_tmpl_i(s, g->co));
    const at_ir_expr *n = at_ir_div(s, f, at_tmpl_i(s, w->t.nW * w->t.nH * g->co));
    const at_ir_expr *p = at_ir_add(s, at_ir_add(s, at_ir_mul(s, n, at_tmpl_i(s, w->t.nH * w->t.nW)), at_ir_mul(s, ho, at_tmpl_i(s, w->t.nW))), wo);

    /* Y (vh, vw, r_a, r_b unrolled) */
    const at_ir_stmt *items[17];
    at_tmpl_wino_gemm_ctx mc = {&w->t, M, w->P_round, co, p};
    for (int vh = 0; vh < m; vh++)
        for (int vw = 0; vw < m; vw++)
            items[vh * m + vw] = at_ir_store(s, Y, at_tmpl_i(s, vh * m + vw),
                                             at_tmpl_wino_transform(s, w->ot, w->t.A, al, m, 1, vh, vw, at_tmpl_wino_gemm_elem, &mc));

    /* the m x m tile, hi and wi unrolled, ragged edges guarded */
    items[m * m] = at_tmpl_wino_store_tile(s, &w->t, out, Y, n, co, ho, wo, AT_IR_UNROLLED);
    at_ir_add_kernel(s, "output_kernel", at_tmpl_nest(s, bind, 2, at_ir_seq(s, items, (size_t)(m * m + 1))));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    wg w;
    memset(&w, 0, sizeof w);
    at_tmpl_wino_init(args, at_op_winograd_tile(a), &w.t);
    const at_conv2d_geom *g = &w.t.g;
    w.ot = a->out_dtype;
    w.bna = at_config_other_int(c, TILE_BNA);
    w.bnb = at_config_other_int(c, TILE_BNB);
    w.yt = at_config_other_int(c, YT);
    static const int64_t ok[5] = {1, 2, 4, 8, 16};
    bool bna_ok = false, bnb_ok = false;
    for (size_t i = 0; i < 5; i++) {
        bna_ok |= w.bna == ok[i];
        bnb_ok |= w.bnb == ok[i];
    }
    if (!bna_ok || g->co % w.bna) return AT_FAIL(AT_EINVAL, "tile_bna = %lld: not 1, 2, 4, 8 or 16 dividing CO = %lld", (long long)w.bna, (long long)g->co);
    if (!bnb_ok) return AT_FAIL(AT_EINVAL, "tile_bnb = %lld: not 1, 2, 4, 8 or 16", (long long)w.bnb);
    if (w.yt < 1) return AT_FAIL(AT_EINVAL, "yt = %lld: not a thread count", (long long)w.yt);
    int64_t t1[2], t2[2], cu[2];
    AT_TRY(at_tmpl_split_parts(c, TILE_T1, g->ci, 2, t1));
    AT_TRY(at_tmpl_split_parts(c, TILE_T2, g->co, 2, t2));
    AT_TRY(at_tmpl_split_parts(c, C_UNROLL, g->ci, 2, cu));
    w.t1 = t1[1];
    w.t2 = t2[1];
    w.cu = cu[1];
    w.P_round = (w.t.P + w.bnb - 1) / w.bnb * w.bnb;
    double sizes[2] = {(double)w.t.al * w.t.al * g->co * w.P_round, (double)w.t.al * w.t.al * w.P_round * g->ci};
    if (sizes[0] > (double)(1LL << 31) - 1 || sizes[1] > (double)(1LL << 31) - 1)
        return AT_FAIL(AT_EINVAL, "winograd buffers of more than 2^31 elements");

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, g->co * g->ci * 9, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", w.ot, g->n * g->co * w.t.H * w.t.W, AT_IR_OUTPUT);
    const at_ir_buffer *U = at_ir_temp(s, "U", w.ot, w.t.al * w.t.al * g->co * g->ci);
    const at_ir_buffer *V = at_ir_temp(s, "V", w.ot, w.t.al * w.t.al * w.P_round * g->ci);
    const at_ir_buffer *M = at_ir_temp(s, "M", w.ot, w.t.al * w.t.al * g->co * w.P_round);
    u_stage(s, &w, kernel, U);
    v_stage(s, &w, data, V);
    m_stage(s, &w, U, V, M);
    output_stage(s, &w, M, out);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_nchw_winograd_mali = {
    .name = "conv2d_nchw_winograd.mali",
    .op = AT_OP_CONV2D_NCHW_WINOGRAD,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = fallback,
};
