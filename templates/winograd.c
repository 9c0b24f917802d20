/* What TVM's two Winograd conv2d templates (topi/mali/conv2d.py and topi/cuda/conv2d_winograd.py)
 * share: the tile geometry of F(m x m, 3 x 3), the gather of one input tile from the implicitly
 * zero-padded data, and the transform sums. TVM writes the transforms as reductions over constant
 * matrices whose loops both schedules unroll, so after constant folding each transformed element
 * is a fixed sum with the zero coefficients gone; these helpers build that sum when the IR is
 * built. */
#include "templates/internal.h"

void at_tmpl_wino_init(const at_args *args, int m, at_tmpl_wino *w)
{
    at_op_conv2d_geom(args->op, &args->u.conv2d, &w->g);
    w->m = m;
    w->al = m + 2;
    at_op_winograd_matrices(m, &w->A, &w->B, &w->G);
    w->H = w->g.oh;
    w->W = w->g.ow;
    w->nH = (w->H + m - 1) / m;
    w->nW = (w->W + m - 1) / m;
    w->P = w->g.n * w->nH * w->nW;
}

const at_ir_expr *at_tmpl_wino_tile_load(at_ir_sched *s, const at_tmpl_wino *w, const at_ir_buffer *data,
                                         at_ir_type ot, const at_ir_expr *p, const at_ir_expr *ci,
                                         const at_ir_expr *eps, const at_ir_expr *nu)
{
    const at_ir_expr *n = at_ir_div(s, p, at_tmpl_i(s, w->nH * w->nW));
    const at_ir_expr *h = at_ir_add(s, at_ir_mul(s, at_ir_mod(s, at_ir_div(s, p, at_tmpl_i(s, w->nW)), at_tmpl_i(s, w->nH)),
                                                 at_tmpl_i(s, w->m)),
                                    eps);
    const at_ir_expr *x = at_ir_add(s, at_ir_mul(s, at_ir_mod(s, p, at_tmpl_i(s, w->nW)), at_tmpl_i(s, w->m)), nu);
    /* the last tile reaches past the padded input when m does not divide the output */
    int64_t h_max = (w->nH - 1) * w->m + w->al - 1, w_max = (w->nW - 1) * w->m + w->al - 1;
    return at_tmpl_cast(s, ot, at_tmpl_pad_load(s, data, &w->g, n, ci, h, x, h_max, w_max));
}

static const at_ir_expr *mul_const(at_ir_sched *s, at_ir_type t, const at_ir_expr *e, double c)
{
    return c == 1 ? e : at_ir_mul(s, e, at_tmpl_f(s, t, c));
}

const at_ir_expr *at_tmpl_wino_transform(at_ir_sched *s, at_ir_type t, const double *T, int n, int sa, int si, int i,
                                         int j, at_tmpl_wino_elem x, void *ctx)
{
    const at_ir_expr *acc = NULL;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            double c1 = T[a * sa + i * si], c2 = T[b * sa + j * si];
            if (c1 == 0 || c2 == 0) continue;
            const at_ir_expr *term = mul_const(s, t, mul_const(s, t, x(s, a, b, ctx), c1), c2);
            acc = acc ? at_ir_add(s, acc, term) : term;
        }
    return acc ? acc : at_tmpl_f(s, t, 0);
}

const at_ir_expr *at_tmpl_wino_kernel_elem(at_ir_sched *s, int kh, int kw, void *ctx)
{
    const at_tmpl_wino_kernel_ctx *k = ctx;
    const at_ir_expr *ki[4] = {k->co, k->ci, at_tmpl_i(s, kh), at_tmpl_i(s, kw)};
    const int64_t kd[4] = {k->w->g.co, k->w->g.ci, 3, 3};
    return at_tmpl_cast(s, k->ot, at_ir_load(s, k->kernel, at_tmpl_index(s, ki, kd, 4), 1));
}

const at_ir_expr *at_tmpl_wino_gemm_elem(at_ir_sched *s, int ra, int rb, void *ctx)
{
    const at_tmpl_wino_gemm_ctx *m = ctx;
    const at_ir_expr *mi[4] = {at_tmpl_i(s, ra), at_tmpl_i(s, rb), m->co, m->p};
    const int64_t md[4] = {m->w->al, m->w->al, m->w->g.co, m->n_p};
    return at_ir_load(s, m->M, at_tmpl_index(s, mi, md, 4), 1);
}

const at_ir_stmt *at_tmpl_wino_store_tile(at_ir_sched *s, const at_tmpl_wino *w, const at_ir_buffer *out,
                                          const at_ir_buffer *tile, const at_ir_expr *n, const at_ir_expr *co,
                                          const at_ir_expr *ho, const at_ir_expr *wo, at_ir_for_kind kind)
{
    int m = w->m;
    at_tmpl_loop tl[2] = {at_tmpl_loop_new(s, "hi", m, kind), at_tmpl_loop_new(s, "wi", m, kind)};
    const at_ir_expr *hi = at_ir_v(s, tl[0].var), *wi = at_ir_v(s, tl[1].var);
    const at_ir_expr *h = at_ir_add(s, at_ir_mul(s, ho, at_tmpl_i(s, m)), hi), *ww = at_ir_add(s, at_ir_mul(s, wo, at_tmpl_i(s, m)), wi);
    const at_ir_expr *oi[4] = {n, co, h, ww};
    const int64_t od[4] = {w->g.n, w->g.co, w->H, w->W};
    const at_ir_stmt *st = at_ir_store(s, out, at_tmpl_index(s, oi, od, 4),
                                       at_ir_load(s, tile, at_ir_add(s, at_ir_mul(s, hi, at_tmpl_i(s, m)), wi), 1));
    const at_ir_expr *cond = NULL;
    if (w->H % m) cond = at_ir_bin(s, AT_IR_LT, h, at_tmpl_i(s, w->H));
    if (w->W % m) cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, ww, at_tmpl_i(s, w->W)));
    if (cond) st = at_ir_if(s, cond, st, NULL);
    return at_tmpl_nest(s, tl, 2, st);
}
