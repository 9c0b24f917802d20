/* What TVM's two x86 NCHWc templates share (topi/x86/conv2d.py, depthwise_conv2d.py): the packing
 * of NCHW data into NCHW[x]c (a placeholder input while TVM tunes, so a preparation kernel here),
 * the unpacking of the NCHW[x]c result (the tensor TVM times; a finishing kernel here), the zero
 * padding read in place, and the fallback numbers (_fallback_schedule's block sizes from the SIMD
 * width).
 *
 * The padding is where we differ from TVM's code for the same config. topi pads the 5-D data into
 * a copy (nn.pad, a parallel stage before the convolution) and the convolution reads the copy.
 * Here the convolution reads the unpadded input and skips the taps that fall in the padding:
 * - a kernel row outside the input is skipped under one guard per (output row, kh);
 * - the output-width chunks split into those whose columns all lie inside the input (no guard)
 *   and the border chunks before and after them (a guard per tap), each in a loop of its own.
 *   A border range is a few chunks at most (usually one), unrolled with its kw loop, so its
 *   column guards fold to constants: a padded tap costs nothing, not even a compare.
 * Same arithmetic, same knobs and configs; what goes is a write and a read of the whole padded
 * input per run, which on a network's memory-bound layers (depthwise, the high-resolution ones)
 * costs more than the convolution's own reads. */
#include "templates/internal.h"

/* A fused parallel loop's variable split back into its axes: v / inner_prod % extent. */
const at_ir_expr *at_tmpl_unfuse(at_ir_sched *s, const at_ir_expr *f, int64_t inner, int64_t extent, bool outermost)
{
    const at_ir_expr *e = inner == 1 ? f : at_ir_div(s, f, at_tmpl_i(s, inner));
    return outermost ? e : at_ir_mod(s, e, at_tmpl_i(s, extent));
}

/* The copy between an NCHW tensor and its NCHW[bn]c form, to_packed: into the blocks (else out of
 * them), as the loop nest n, c / bn (parallel), h, w, vc. */
static const at_ir_stmt *blocked_nest(at_ir_sched *s, int64_t n, int64_t c, int64_t h, int64_t w, int64_t bn,
                                      const at_ir_buffer *to, bool to_packed, const at_ir_buffer *from)
{
    at_tmpl_loop l[5] = {at_tmpl_loop_new(s, "n", n, AT_IR_SERIAL), at_tmpl_loop_new(s, "c", c / bn, AT_IR_PARALLEL),
                         at_tmpl_loop_new(s, "h", h, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", w, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "vc", bn, AT_IR_SERIAL)};
    const at_ir_expr *v[5];
    for (int i = 0; i < 5; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *di[4] = {v[0], at_ir_add(s, at_ir_mul(s, v[1], at_tmpl_i(s, bn)), v[4]), v[2], v[3]};
    const int64_t dd[4] = {n, c, h, w}, vd[5] = {n, c / bn, h, w, bn};
    const at_ir_expr *plain = at_tmpl_index(s, di, dd, 4), *packed = at_tmpl_index(s, v, vd, 5);
    const at_ir_expr *ti = to_packed ? packed : plain, *fi = to_packed ? plain : packed;
    return at_tmpl_nest(s, l, 5, at_ir_store(s, to, ti, at_ir_load(s, from, fi, 1)));
}

void at_tmpl_nchwc_data_vec(at_ir_sched *s, const at_ir_buffer *data, const at_ir_buffer *dvec, int64_t n, int64_t c,
                            int64_t h, int64_t w, int64_t bn)
{
    at_ir_add_prepare_kernel(s, "data_vec_kernel", blocked_nest(s, n, c, h, w, bn, dvec, true, data));
}

void at_tmpl_nchwc_unpack(at_ir_sched *s, const at_ir_buffer *packed, const at_ir_buffer *out, int64_t n, int64_t c,
                          int64_t h, int64_t w, int64_t bn)
{
    at_ir_add_finish_kernel(s, "unpack_NCHWc_to_nchw_kernel", blocked_nest(s, n, c, h, w, bn, out, false, packed));
}

/* e >= 0 when lo_pad, e < hi when hi_pad, joined onto cond */
static const at_ir_expr *inside(at_ir_sched *s, const at_ir_expr *cond, const at_ir_expr *e, bool lo_pad, bool hi_pad,
                                int64_t hi)
{
    if (lo_pad) cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_GE, e, at_tmpl_i(s, 0)));
    if (hi_pad) cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, e, at_tmpl_i(s, hi)));
    return cond;
}

const at_ir_expr *at_tmpl_nchwc_in_row(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_expr *oh, const at_ir_expr *kh)
{
    return at_ir_sub(s, at_ir_add(s, at_ir_mul(s, oh, at_tmpl_i(s, g->sh)), at_ir_mul(s, kh, at_tmpl_i(s, g->dh))),
                     at_tmpl_i(s, g->pt));
}

const at_ir_expr *at_tmpl_nchwc_in_col(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_expr *ow, const at_ir_expr *kw)
{
    return at_ir_sub(s, at_ir_add(s, at_ir_mul(s, ow, at_tmpl_i(s, g->sw)), at_ir_mul(s, kw, at_tmpl_i(s, g->dw))),
                     at_tmpl_i(s, g->pl));
}

const at_ir_expr *at_tmpl_nchwc_row_inside(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_expr *h)
{
    return inside(s, NULL, h, g->pt > 0, g->pb > 0, g->ih);
}

const at_ir_expr *at_tmpl_nchwc_col_inside(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_expr *w)
{
    return inside(s, NULL, w, g->pl > 0, g->pr > 0, g->iw);
}

size_t at_tmpl_nchwc_chunk_ranges(const at_conv2d_geom *g, int64_t tw, int64_t n_chunks, at_tmpl_chunk_range out[3])
{
    /* chunk j reads input columns j tw sw - pl .. ((j + 1) tw - 1) sw + (KW - 1) dw - pl */
    int64_t lo = 0, hi = n_chunks;
    while (lo < n_chunks && lo * tw * g->sw < g->pl) lo++;
    while (hi > lo && (hi * tw - 1) * g->sw + (g->kw - 1) * g->dw - g->pl > g->iw - 1) hi--;
    const at_tmpl_chunk_range all[3] = {{0, lo, true}, {lo, hi, false}, {hi, n_chunks, true}};
    size_t n = 0;
    for (int k = 0; k < 3; k++)
        if (all[k].end > all[k].begin) out[n++] = all[k];
    return n;
}

at_tmpl_loop at_tmpl_nchwc_chunk_loop(at_ir_sched *s, const at_tmpl_chunk_range *r, int64_t tw, const at_ir_expr **ow0)
{
    at_ir_for_kind kind = r->border && r->end - r->begin <= 4 ? AT_IR_UNROLLED : AT_IR_SERIAL;
    at_tmpl_loop l = at_tmpl_loop_new(s, "ow.outer", r->end - r->begin, kind);
    *ow0 = at_ir_mul(s, at_ir_add(s, at_ir_v(s, l.var), at_tmpl_i(s, r->begin)), at_tmpl_i(s, tw));
    return l;
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
