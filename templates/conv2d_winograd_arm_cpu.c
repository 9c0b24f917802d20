/* conv2d_nchw_winograd.arm_cpu: TVM v0.18's ARM CPU Winograd conv2d (_decl_winograd and
 * _schedule_winograd in topi/arm_cpu/conv2d.py), F(4 x 4, 3 x 3) whatever the input size
 * (tile_size = 4, alpha = 6). Knobs, in TVM's order: tile_p and tile_k (the compute's: 2-way splits
 * of the tile count P = N nH nW and of CO, inner size at most 16: the packing widths VP and VK),
 * tile_c (the schedule's: a 2-way split of CI, inner at most 16), ann_reduce on tile_c's inner
 * axis (try_unroll, no unroll limit hit since the inner size is at most 16) and ann_spatial on
 * (k, xi) (try_unroll_vec, applied without lengths). No cfg.is_fallback branch: the untuned config
 * is entity 0 of every knob.
 *
 * Three kernels, as TVM compiles the task: U transforms the weights into (alpha, alpha, CO/VK, CI,
 * VK), a placeholder while TVM tunes, so a preparation kernel here (k parallel, eps/nu/r_kh/r_kw
 * unrolled, kk vectorized, as TVM's deployed schedule); V gathers each zero-padded input tile
 * (TVM's cache_read DD at c) and transforms it, b parallel, eps/nu/r_eps/r_nu unrolled, bb
 * vectorized; the output fuses (n, CO/VK) into one parallel loop and computes at it the batched
 * GEMM M over that image's tiles (eps, nu, xo, c outer, k, c inner, xi, with the annotations),
 * then per (coi, ho, wo) copies the alpha x alpha column of M (TVM's cache_read MM at wo),
 * inverse-transforms it into an m x m Y (all unrolled) and writes the tile, guarding ragged
 * edges. M lives in a temporary with one block per fused iteration, the region TVM allocates at
 * that loop. The transform matrices are constants, so the loops indexing them are unrolled when the
 * IR is built and zero terms are left out (templates/winograd.c). */
#include <string.h>

#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_P, TILE_K, TILE_C, ANN_REDUCE, ANN_SPATIAL, N_KNOBS };

enum { TILE = 4, MAX_INNER = 16 };

/* TVM's filter=lambda x: x.size[-1] <= 16 */
static bool inner_at_most_16(const int64_t *sizes, size_t n, void *ctx)
{
    (void)ctx;
    return sizes[n - 1] <= MAX_INNER;
}

static at_status define_space(const at_args *args, at_space *s)
{
    at_tmpl_wino w;
    at_tmpl_wino_init(args, TILE, &w);
    const at_split_opts o = {.num_outputs = 2, .filter = inner_at_most_16};
    AT_TRY(at_space_split_ex(s, TILE_P, "tile_p", w.P, &o));
    AT_TRY(at_space_split_ex(s, TILE_K, "tile_k", w.g.co, &o));
    AT_TRY(at_space_split_ex(s, TILE_C, "tile_c", w.g.ci, &o));
    AT_TRY(at_space_annotate(s, ANN_REDUCE, "ann_reduce", 1, "try_unroll"));
    return at_space_annotate(s, ANN_SPATIAL, "ann_spatial", 2, "try_unroll_vec");
}

typedef struct wa {
    at_tmpl_wino t;
    at_ir_type   ot;
    int64_t      vp, vk, tc;     /* tile_p, tile_k, tile_c inner sizes */
    int64_t      n_hw, xo, kb;   /* tiles per image, xo extent over them, CO / VK */
    at_ir_for_kind red_kind, k_kind, xi_kind;
} wa;

/* U[eps][nu][k][c][kk] = sum_{r_kh, r_kw} kernel[k VK + kk][c][r_kh][r_kw] G[eps][r_kh] G[nu][r_kw] */
static void u_stage(at_ir_sched *s, const wa *w, const at_ir_buffer *kernel, const at_ir_buffer *U)
{
    const at_conv2d_geom *g = &w->t.g;
    int al = w->t.al;
    at_tmpl_loop l[2] = {at_tmpl_loop_new(s, "k", w->kb, AT_IR_PARALLEL), at_tmpl_loop_new(s, "c", g->ci, AT_IR_SERIAL)};
    const at_ir_expr *k = at_ir_v(s, l[0].var), *c = at_ir_v(s, l[1].var);
    const at_ir_stmt *items[36];
    for (int eps = 0; eps < al; eps++)
        for (int nu = 0; nu < al; nu++) {
            at_tmpl_loop kk = at_tmpl_loop_new(s, "kk", w->vk, AT_IR_VECTORIZED);
            const at_ir_expr *vk = at_ir_v(s, kk.var);
            at_tmpl_wino_kernel_ctx kc = {&w->t, kernel, w->ot, at_ir_add(s, at_ir_mul(s, k, at_tmpl_i(s, w->vk)), vk), c};
            const at_ir_expr *val = at_tmpl_wino_transform(s, w->ot, w->t.G, 3, 1, 3, eps, nu, at_tmpl_wino_kernel_elem, &kc);
            const at_ir_expr *ui[5] = {at_tmpl_i(s, eps), at_tmpl_i(s, nu), k, c, vk};
            const int64_t ud[5] = {al, al, w->kb, g->ci, w->vk};
            items[eps * al + nu] = at_tmpl_nest(s, &kk, 1, at_ir_store(s, U, at_tmpl_index(s, ui, ud, 5), val));
        }
    at_ir_add_prepare_kernel(s, "U_kernel", at_tmpl_nest(s, l, 2, at_ir_seq(s, items, (size_t)(al * al))));
}

/* DD[r_a][r_b][bb] of one (b, c) */
typedef struct dd_ctx {
    const at_ir_buffer *dd;
    const at_ir_expr   *bb;
    int64_t             dims[3];
} dd_ctx;

static const at_ir_expr *dd_elem(at_ir_sched *s, int ra, int rb, void *ctx)
{
    const dd_ctx *d = ctx;
    const at_ir_expr *di[3] = {at_tmpl_i(s, ra), at_tmpl_i(s, rb), d->bb};
    return at_ir_load(s, d->dd, at_tmpl_index(s, di, d->dims, 3), 1);
}

/* V[eps][nu][b][c][bb] = sum_{r_eps, r_nu} d[c][b][r_eps][r_nu][bb] B[r_eps][eps] B[r_nu][nu], the
 * tile d (TVM's input_tile, inlined into its cache DD) gathered at c. */
static void v_stage(at_ir_sched *s, const wa *w, const at_ir_buffer *data, const at_ir_buffer *V)
{
    const at_conv2d_geom *g = &w->t.g;
    int al = w->t.al;
    int64_t pb = w->t.P / w->vp;
    const int64_t dd_dims[3] = {al, al, w->vp};
    const at_ir_buffer *dd = at_ir_alloc(s, "DD", w->ot, al * al * w->vp, AT_IR_PRIVATE);
    at_tmpl_loop l[2] = {at_tmpl_loop_new(s, "b", pb, AT_IR_PARALLEL), at_tmpl_loop_new(s, "c", g->ci, AT_IR_SERIAL)};
    const at_ir_expr *b = at_ir_v(s, l[0].var), *c = at_ir_v(s, l[1].var);

    at_tmpl_loop dl[3] = {at_tmpl_loop_new(s, "eps", al, AT_IR_SERIAL), at_tmpl_loop_new(s, "nu", al, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "bb", w->vp, AT_IR_SERIAL)};
    const at_ir_expr *dv[3] = {at_ir_v(s, dl[0].var), at_ir_v(s, dl[1].var), at_ir_v(s, dl[2].var)};
    const at_ir_expr *p = at_ir_add(s, at_ir_mul(s, b, at_tmpl_i(s, w->vp)), dv[2]);
    const at_ir_expr *x = at_tmpl_wino_tile_load(s, &w->t, data, w->ot, p, c, dv[0], dv[1]);
    const at_ir_stmt *dd_st = at_tmpl_nest(s, dl, 3, at_ir_store(s, dd, at_tmpl_index(s, dv, dd_dims, 3), x));

    const at_ir_stmt *items[37];
    items[0] = dd_st;
    for (int eps = 0; eps < al; eps++)
        for (int nu = 0; nu < al; nu++) {
            at_tmpl_loop bb = at_tmpl_loop_new(s, "bb", w->vp, AT_IR_VECTORIZED);
            dd_ctx dc = {dd, at_ir_v(s, bb.var), {al, al, w->vp}};
            const at_ir_expr *val = at_tmpl_wino_transform(s, w->ot, w->t.B, al, al, 1, eps, nu, dd_elem, &dc);
            const at_ir_expr *vi[5] = {at_tmpl_i(s, eps), at_tmpl_i(s, nu), b, c, dc.bb};
            const int64_t vd[5] = {al, al, pb, g->ci, w->vp};
            items[1 + eps * al + nu] = at_tmpl_nest(s, &bb, 1, at_ir_store(s, V, at_tmpl_index(s, vi, vd, 5), val));
        }
    at_ir_add_kernel(s, "V_kernel", at_tmpl_nest(s, l, 2, at_ir_seq(s, items, (size_t)(1 + al * al))));
}

/* M at the fused (n, k block) pf: M[pf][eps][nu][kk][bl] = sum_c U[eps][nu][kb][c][kk]
 * V[eps][nu][b / VP][c][b % VP] over the image's tiles bl (b = n nH nW + bl), leaf order eps, nu,
 * xo, c.outer, kk, c.inner, xi; the init nest (kk, xi) before c.outer. */
static const at_ir_stmt *m_stage(at_ir_sched *s, const wa *w, const at_ir_buffer *U, const at_ir_buffer *V,
                                 const at_ir_buffer *M, const at_ir_expr *pf, const at_ir_expr *n, const at_ir_expr *kb)
{
    const at_conv2d_geom *g = &w->t.g;
    int al = w->t.al;
    int64_t blen = w->xo * w->vp, pb = w->t.P / w->vp;
    at_tmpl_loop outer[3] = {at_tmpl_loop_new(s, "eps", al, AT_IR_SERIAL), at_tmpl_loop_new(s, "nu", al, AT_IR_SERIAL),
                             at_tmpl_loop_new(s, "xo", w->xo, AT_IR_SERIAL)};
    const at_ir_expr *eps = at_ir_v(s, outer[0].var), *nu = at_ir_v(s, outer[1].var), *xo = at_ir_v(s, outer[2].var);
    const int64_t md[5] = {w->kb * w->t.g.n, al, al, w->vk, blen};

    at_tmpl_loop il[2] = {at_tmpl_loop_new(s, "k.init", w->vk, w->k_kind), at_tmpl_loop_new(s, "xi.init", w->vp, w->xi_kind)};
    const at_ir_expr *mi0[5] = {pf, eps, nu, at_ir_v(s, il[0].var),
                                at_ir_add(s, at_ir_mul(s, xo, at_tmpl_i(s, w->vp)), at_ir_v(s, il[1].var))};
    const at_ir_stmt *init = at_tmpl_nest(s, il, 2, at_ir_store(s, M, at_tmpl_index(s, mi0, md, 5), at_tmpl_f(s, w->ot, 0)));

    at_tmpl_loop rl[4] = {at_tmpl_loop_new(s, "c.outer", g->ci / w->tc, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "k", w->vk, w->k_kind), at_tmpl_loop_new(s, "c.inner", w->tc, w->red_kind),
                          at_tmpl_loop_new(s, "xi", w->vp, w->xi_kind)};
    const at_ir_expr *c = at_ir_add(s, at_ir_mul(s, at_ir_v(s, rl[0].var), at_tmpl_i(s, w->tc)), at_ir_v(s, rl[2].var));
    const at_ir_expr *kk = at_ir_v(s, rl[1].var);
    const at_ir_expr *bl = at_ir_add(s, at_ir_mul(s, xo, at_tmpl_i(s, w->vp)), at_ir_v(s, rl[3].var));
    /* past the image's last tile (VP not dividing nH nW, batch > 1) M holds columns no Y reads:
     * they repeat the last tile rather than read the next image's */
    const at_ir_expr *vb, *vbb; /* V's block and lane of tile b */
    if (blen == w->n_hw) { /* VP divides the image's tiles: block n nH nW / VP + xo, lane xi */
        vb = at_ir_add(s, at_ir_mul(s, n, at_tmpl_i(s, w->n_hw / w->vp)), xo);
        vbb = at_ir_v(s, rl[3].var);
    } else {
        const at_ir_expr *b = at_ir_add(s, at_ir_mul(s, n, at_tmpl_i(s, w->n_hw)), at_ir_min(s, bl, at_tmpl_i(s, w->n_hw - 1)));
        vb = at_ir_div(s, b, at_tmpl_i(s, w->vp));
        vbb = at_ir_mod(s, b, at_tmpl_i(s, w->vp));
    }
    const at_ir_expr *mi[5] = {pf, eps, nu, kk, bl};
    const at_ir_expr *midx = at_tmpl_index(s, mi, md, 5);
    const at_ir_expr *ui[5] = {eps, nu, kb, c, kk};
    const int64_t ud[5] = {al, al, w->kb, g->ci, w->vk};
    const at_ir_expr *vi[5] = {eps, nu, vb, c, vbb};
    const int64_t vd[5] = {al, al, pb, g->ci, w->vp};
    const at_ir_expr *prod = at_ir_mul(s, at_ir_load(s, U, at_tmpl_index(s, ui, ud, 5), 1), at_ir_load(s, V, at_tmpl_index(s, vi, vd, 5), 1));
    const at_ir_stmt *upd = at_tmpl_nest(s, rl, 4, at_ir_store(s, M, midx, at_ir_add(s, at_ir_load(s, M, midx, 1), prod)));
    return at_tmpl_nest(s, outer, 3, at_ir_seq2(s, init, upd));
}

/* output[n][kb VK + coi][ho m + hi][wo m + wi] = Y[hi][wi], Y = A^T MM A of tile (ho, wo), under the
 * parallel fused (n, kb) with M computed there. */
static void output_stage(at_ir_sched *s, const wa *w, const at_ir_buffer *U, const at_ir_buffer *V,
                         const at_ir_buffer *M, const at_ir_buffer *out)
{
    const at_conv2d_geom *g = &w->t.g;
    int m = w->t.m, al = w->t.al;
    at_tmpl_loop pl = at_tmpl_loop_new(s, "n.k.fused", g->n * w->kb, AT_IR_PARALLEL);
    const at_ir_expr *pf = at_ir_v(s, pl.var);
    const at_ir_expr *n = at_ir_div(s, pf, at_tmpl_i(s, w->kb)), *kb = at_ir_mod(s, pf, at_tmpl_i(s, w->kb));
    const at_ir_stmt *mst = m_stage(s, w, U, V, M, pf, n, kb);

    const at_ir_buffer *mm = at_ir_alloc(s, "MM", w->ot, al * al, AT_IR_PRIVATE);
    const at_ir_buffer *Y = at_ir_alloc(s, "Y", w->ot, m * m, AT_IR_PRIVATE);
    at_tmpl_loop tl[3] = {at_tmpl_loop_new(s, "coi", w->vk, AT_IR_SERIAL), at_tmpl_loop_new(s, "ho", w->t.nH, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "wo", w->t.nW, AT_IR_SERIAL)};
    const at_ir_expr *coi = at_ir_v(s, tl[0].var), *ho = at_ir_v(s, tl[1].var), *wo = at_ir_v(s, tl[2].var);
    const at_ir_expr *bl = at_ir_add(s, at_ir_mul(s, ho, at_tmpl_i(s, w->t.nW)), wo);

    /* MM[eps][nu] = M[pf][eps][nu][coi][bl] */
    at_tmpl_loop ml[2] = {at_tmpl_loop_new(s, "eps", al, AT_IR_SERIAL), at_tmpl_loop_new(s, "nu", al, AT_IR_SERIAL)};
    const at_ir_expr *me = at_ir_v(s, ml[0].var), *mn = at_ir_v(s, ml[1].var);
    const at_ir_expr *mi[5] = {pf, me, mn, coi, bl};
    const int64_t md[5] = {w->kb * g->n, al, al, w->vk, w->xo * w->vp};
    const at_ir_expr *mmi[2] = {me, mn};
    const int64_t mmd[2] = {al, al};
    const at_ir_stmt *items[18];
    items[0] = at_tmpl_nest(s, ml, 2, at_ir_store(s, mm, at_tmpl_index(s, mmi, mmd, 2), at_ir_load(s, M, at_tmpl_index(s, mi, md, 5), 1)));

    /* Y (vh, vw, r_eps, r_nu unrolled): MM read as the one-column M of at_tmpl_wino_gemm_elem */
    at_tmpl_wino_gemm_ctx mc = {&w->t, mm, 1, at_tmpl_i(s, 0), at_tmpl_i(s, 0)};
    at_tmpl_wino one = w->t;
    one.g.co = 1;
    mc.w = &one;
    for (int vh = 0; vh < m; vh++)
        for (int vw = 0; vw < m; vw++)
            items[1 + vh * m + vw] = at_ir_store(s, Y, at_tmpl_i(s, vh * m + vw),
                                                 at_tmpl_wino_transform(s, w->ot, w->t.A, al, m, 1, vh, vw, at_tmpl_wino_gemm_elem, &mc));
    const at_ir_expr *co = at_ir_add(s, at_ir_mul(s, kb, at_tmpl_i(s, w->vk)), coi);
    items[1 + m * m] = at_tmpl_wino_store_tile(s, &w->t, out, Y, n, co, ho, wo, AT_IR_SERIAL);
    const at_ir_stmt *tile = at_tmpl_nest(s, tl, 3, at_ir_seq(s, items, (size_t)(2 + m * m)));
    at_ir_add_kernel(s, "output_kernel", at_tmpl_nest(s, &pl, 1, at_ir_seq2(s, mst, tile)));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    wa w;
    memset(&w, 0, sizeof w);
    at_tmpl_wino_init(args, TILE, &w.t);
    const at_conv2d_geom *g = &w.t.g;
    w.ot = a->out_dtype;
    int64_t p[2], k[2], cc[2];
    AT_TRY(at_tmpl_split_inner(c, TILE_P, w.t.P, 2, p));
    AT_TRY(at_tmpl_split_inner(c, TILE_K, g->co, 2, k));
    AT_TRY(at_tmpl_split_inner(c, TILE_C, g->ci, 2, cc));
    w.vp = p[1], w.vk = k[1], w.tc = cc[1], w.kb = k[0];
    w.n_hw = w.t.nH * w.t.nW;
    w.xo = (w.n_hw + w.vp - 1) / w.vp;
    const int64_t red_len = w.tc;
    AT_TRY(at_tmpl_annotate(c, ANN_REDUCE, 1, &red_len, MAX_INNER, NULL, 0, &w.red_kind));
    at_ir_for_kind sp[2];
    const int64_t sp_lens[2] = {w.vk, w.vp};
    AT_TRY(at_tmpl_annotate(c, ANN_SPATIAL, 2, sp_lens, 0, NULL, 0, sp));
    w.k_kind = sp[0], w.xi_kind = sp[1];
    int al = w.t.al;
    double sizes[3] = {(double)al * al * g->co * g->ci, (double)al * al * w.t.P * g->ci,
                       (double)al * al * g->co * g->n * w.xo * w.vp};
    for (int i = 0; i < 3; i++)
        if (sizes[i] > (double)(1LL << 31) - 1) return AT_FAIL(AT_EINVAL, "winograd buffers of more than 2^31 elements");

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, g->co * g->ci * 9, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", w.ot, g->n * g->co * w.t.H * w.t.W, AT_IR_OUTPUT);
    const at_ir_buffer *U = at_ir_temp(s, "U", w.ot, (int64_t)sizes[0]);
    const at_ir_buffer *V = at_ir_temp(s, "V", w.ot, (int64_t)sizes[1]);
    const at_ir_buffer *M = at_ir_temp(s, "M", w.ot, (int64_t)sizes[2]);
    u_stage(s, &w, kernel, U);
    v_stage(s, &w, data, V);
    output_stage(s, &w, U, V, M, out);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_nchw_winograd_arm_cpu = {
    .name = "conv2d_nchw_winograd.arm_cpu",
    .op = AT_OP_CONV2D_NCHW_WINOGRAD,
    .target = AT_TARGET_LLVM,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
};
