/* What TVM's two x86 NCHWc templates share (topi/x86/conv2d.py, depthwise_conv2d.py): the packing
 * of NCHW data into NCHW[x]c (a placeholder input while TVM tunes, so a preparation kernel here),
 * topi's nn.pad stage on the 5-D data with its x86 schedule (the c block vectorized, the fused
 * batch, chunk and row axes parallel), the 5-D zero-padded load, and the fallback numbers
 * (_fallback_schedule's block sizes from the SIMD width). */
#include "templates/internal.h"

/* A fused parallel loop's variable split back into its axes: v / inner_prod % extent. */
const at_ir_expr *at_tmpl_unfuse(at_ir_sched *s, const at_ir_expr *f, int64_t inner, int64_t extent, bool outermost)
{
    const at_ir_expr *e = inner == 1 ? f : at_ir_div(s, f, at_tmpl_i(s, inner));
    return outermost ? e : at_ir_mod(s, e, at_tmpl_i(s, extent));
}

void at_tmpl_nchwc_data_vec(at_ir_sched *s, const at_ir_buffer *data, const at_ir_buffer *dvec, int64_t n, int64_t c,
                            int64_t h, int64_t w, int64_t bn)
{
    at_tmpl_loop l[5] = {at_tmpl_loop_new(s, "n", n, AT_IR_SERIAL), at_tmpl_loop_new(s, "c", c / bn, AT_IR_PARALLEL),
                         at_tmpl_loop_new(s, "h", h, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", w, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "vc", bn, AT_IR_SERIAL)};
    const at_ir_expr *v[5];
    for (int i = 0; i < 5; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *di[4] = {v[0], at_ir_add(s, at_ir_mul(s, v[1], at_tmpl_i(s, bn)), v[4]), v[2], v[3]};
    const int64_t dd[4] = {n, c, h, w}, vd[5] = {n, c / bn, h, w, bn};
    at_ir_add_prepare_kernel(
        s, "data_vec_kernel",
        at_tmpl_nest(s, l, 5, at_ir_store(s, dvec, at_tmpl_index(s, v, vd, 5), at_ir_load(s, data, at_tmpl_index(s, di, dd, 4), 1))));
}

/* clamp(e, 0, hi) */
static const at_ir_expr *clamp(at_ir_sched *s, const at_ir_expr *e, int64_t hi)
{
    return at_ir_min(s, at_ir_max(s, e, at_tmpl_i(s, 0)), at_tmpl_i(s, hi));
}

void at_tmpl_nchwc_pad(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_buffer *in, const at_ir_buffer *pad,
                       int64_t bn)
{
    const int64_t cc = g->ci / bn;
    at_tmpl_loop f = at_tmpl_loop_new(s, "n.c.h.fused", g->n * cc * g->ihp, AT_IR_PARALLEL);
    at_tmpl_loop w = at_tmpl_loop_new(s, "w", g->iwp, AT_IR_SERIAL);
    at_tmpl_axis vc = at_tmpl_cpu_axis(s, "vc", bn, bn > 1 ? AT_IR_VECTORIZED : AT_IR_SERIAL);
    const at_ir_expr *fv = at_ir_v(s, f.var), *wv = at_ir_v(s, w.var);
    const at_ir_expr *nn = at_tmpl_unfuse(s, fv, cc * g->ihp, g->n, true), *c = at_tmpl_unfuse(s, fv, g->ihp, cc, false),
                     *h = at_tmpl_unfuse(s, fv, 1, g->ihp, false);
    const at_ir_expr *pi[5] = {nn, c, h, wv, vc.index};
    const int64_t pd[5] = {g->n, cc, g->ihp, g->iwp, bn};
    const at_ir_stmt *st = at_ir_store(s, pad, at_tmpl_index(s, pi, pd, 5),
                                       at_tmpl_nchwc_pad_load(s, g, in, bn, nn, c, h, wv, vc.index));
    at_tmpl_loop inner[3];
    size_t ni = at_tmpl_axes_loops(&vc, 1, inner);
    at_ir_add_kernel(s, "data_pad_kernel", at_tmpl_nest(s, &f, 1, at_tmpl_nest(s, &w, 1, at_tmpl_nest(s, inner, ni, st))));
}

const at_ir_expr *at_tmpl_nchwc_pad_load(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_buffer *in, int64_t bn,
                                         const at_ir_expr *n, const at_ir_expr *c, const at_ir_expr *h,
                                         const at_ir_expr *w, const at_ir_expr *vc)
{
    const at_ir_expr *hh = at_ir_sub(s, h, at_tmpl_i(s, g->pt)), *ww = at_ir_sub(s, w, at_tmpl_i(s, g->pl));
    const at_ir_expr *cond = NULL;
    if (g->pt || g->pb)
        cond = at_tmpl_and(s, at_ir_bin(s, AT_IR_GE, h, at_tmpl_i(s, g->pt)),
                           at_ir_bin(s, AT_IR_LT, h, at_tmpl_i(s, g->ih + g->pt)));
    if (g->pl || g->pr)
        cond = at_tmpl_and(s, cond, at_tmpl_and(s, at_ir_bin(s, AT_IR_GE, w, at_tmpl_i(s, g->pl)),
                                                at_ir_bin(s, AT_IR_LT, w, at_tmpl_i(s, g->iw + g->pl))));
    /* the read stays inside the tensor where the guard fails: the select evaluates both arms */
    if (cond) {
        hh = clamp(s, hh, g->ih - 1);
        ww = clamp(s, ww, g->iw - 1);
    }
    const at_ir_expr *ii[5] = {n, c, hh, ww, vc};
    const int64_t id[5] = {g->n, g->ci / bn, g->ih, g->iw, bn};
    const at_ir_expr *x = at_ir_load(s, in, at_tmpl_index(s, ii, id, 5), 1);
    return cond ? at_ir_select(s, cond, x, at_tmpl_f(s, x->type, 0)) : x;
}

bool at_tmpl_x86_ow_filter(const int64_t *sizes, size_t n, void *ctx)
{
    (void)ctx;
    return sizes[n - 1] <= 64;
}

at_status at_tmpl_x86_space_ic_oc_ow_kw(at_space *s, int64_t ci, int64_t co, int64_t ow)
{
    AT_TRY(at_space_split_ex(s, 0, "tile_ic", ci, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, 1, "tile_oc", co, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, 2, "tile_ow", ow, &(at_split_opts){.num_outputs = 2, .filter = at_tmpl_x86_ow_filter}));
    const at_val kw_opts[2] = {{.kind = AT_VAL_BOOL, .b = true}, {.kind = AT_VAL_BOOL, .b = false}};
    return at_space_other_vals(s, 3, "unroll_kw", kw_opts, 2);
}

int64_t at_tmpl_x86_block(int64_t extent, int64_t below)
{
    for (int64_t bn = below; bn > 1; bn--)
        if (extent % bn == 0) return bn;
    return 1;
}

#include "templates/template.h"

at_status at_tmpl_packed_blocks(const at_template *t, const at_config *c, int64_t *ic_bn, int64_t *oc_bn)
{
    if (!t->schedule_packed) return AT_FAIL(AT_EINVAL, "%s: no NCHW[x]c form", t->name);
    /* both NCHWc templates define tile_ic and tile_oc first */
    int64_t sizes[2];
    at_config_split(c, 0, sizes, 2);
    *ic_bn = sizes[1];
    at_config_split(c, 1, sizes, 2);
    *oc_bn = sizes[1];
    return AT_OK;
}
