/* depthwise_conv2d_NCHWc.x86: TVM v0.18's x86 depthwise convolution (topi/x86/depthwise_conv2d.py),
 * the template TVM tunes for a multiplier-1, undilated NCHW depthwise convolution on an x86 `llvm`
 * target. Knobs, in TVM's order: tile_ic, tile_oc (2-way factor splits of the channels: the input
 * and output blocks, which may differ), tile_ow (2-way factor split of the output width, last
 * size <= 64), unroll_kw ([True, False]).
 *
 * The tuning program, as TVM times it: the packed data (N, C/ic_bn, H, W, ic_bn) and kernel
 * (C/oc_bn, 1, KH, KW, 1, oc_bn) are placeholders while TVM tunes (preparation kernels here), then
 * the convolution: batch outermost, (oc_chunk, oh) fused and parallel, ow split by tile_ow; per ow
 * chunk the cached block CC (tile_ow x oc_bn): init, then kh, kw (unrolled when unroll_kw),
 * ow_block unrolled, oc_block vectorized. TVM pads the data into a copy first (topi's pad stage);
 * here the taps in the padding are skipped in place (templates/nchwc_x86.c says how); channel c =
 * oc_chunk oc_bn + oc_block reads input block c / ic_bn, lane c % ic_bn. TVM's tuned output is the
 * NCHW[oc_bn]c tensor itself (the task's compute returns it; arguments [output, data, kernel]),
 * so the timed kernel writes that tensor, and a finishing kernel, not timed, unpacks it into the
 * op's NCHW output. The network runs schedule_packed: NCHW[ic_bn]c in, NCHW[oc_bn]c out.
 *
 * Fallback: _fallback_schedule with get_simd_32bit_lanes() = 4: oc_bn the largest <= 4 dividing
 * C, ic_bn the largest <= oc_bn dividing C, tile_ow's last size the largest <= 31 dividing OW,
 * unroll_kw False. */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_IC, TILE_OC, TILE_OW, UNROLL_KW, N_KNOBS };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    return at_tmpl_x86_space_ic_oc_ow_kw(s, g.ci, g.co, g.ow);
}

typedef struct plan {
    at_conv2d_geom      g;
    at_ir_type          ot;
    int64_t             ic_bn, oc_bn, tw;
    bool                unroll_kw;
    const at_ir_buffer *out, *kvec, *xin; /* NCHW[oc_bn]c out; xin: the NCHW[ic_bn]c input, read unpadded */
} plan;

/* kernel_vec[occ][0][kh][kw][0][ocb] = kernel[occ oc_bn + ocb][0][kh][kw] */
static void kernel_vec_stage(at_ir_sched *s, const plan *p, const at_ir_buffer *kernel)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop l[4] = {at_tmpl_loop_new(s, "occ", g->co / p->oc_bn, AT_IR_PARALLEL), at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL), at_tmpl_loop_new(s, "ocb", p->oc_bn, AT_IR_SERIAL)};
    const at_ir_expr *v[4];
    for (int i = 0; i < 4; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *ki[3] = {at_ir_add(s, at_ir_mul(s, v[0], at_tmpl_i(s, p->oc_bn)), v[3]), v[1], v[2]};
    const int64_t kd[3] = {g->co, g->kh, g->kw}, vd[4] = {g->co / p->oc_bn, g->kh, g->kw, p->oc_bn};
    at_ir_add_prepare_kernel(s, "kernel_vec_kernel",
                             at_tmpl_nest(s, l, 4, at_ir_store(s, p->kvec, at_tmpl_index(s, v, vd, 4),
                                                               at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 3), 1))));
}

/* the oc_block axis: vectorized when longer than 1 */
static at_tmpl_axis ocb_axis(at_ir_sched *s, const plan *p, const char *name)
{
    return at_tmpl_cpu_axis(s, name, p->oc_bn, p->oc_bn > 1 ? AT_IR_VECTORIZED : AT_IR_SERIAL);
}

static const at_ir_stmt *over(at_ir_sched *s, at_tmpl_axis ax, const at_ir_stmt *body)
{
    at_tmpl_loop l[2];
    size_t n = at_tmpl_axes_loops(&ax, 1, l);
    return at_tmpl_nest(s, l, n, body);
}

/* init, update and write-out of the ow chunk starting at column ow0; border: the chunk reads padded
 * columns, so each tap is guarded */
static const at_ir_stmt *chunk(at_ir_sched *s, const plan *p, const at_ir_buffer *cc, const at_ir_expr *nn,
                               const at_ir_expr *oc, const at_ir_expr *oh, const at_ir_expr *ow0, bool border)
{
    const at_conv2d_geom *g = &p->g;
    const int64_t occ = g->co / p->oc_bn, tw = p->tw;

    /* init */
    at_tmpl_loop wi = at_tmpl_loop_new(s, "ow.inner.init", tw, AT_IR_UNROLLED);
    at_tmpl_axis ax = ocb_axis(s, p, "ocb.init");
    const at_ir_expr *ci = at_ir_add(s, at_ir_mul(s, at_ir_v(s, wi.var), at_tmpl_i(s, p->oc_bn)), ax.index);
    const at_ir_stmt *init = at_tmpl_nest(s, &wi, 1, over(s, ax, at_ir_store(s, cc, ci, at_tmpl_f(s, p->ot, 0))));

    /* update: kh (rows in the padding skipped), kw (unrolled when unroll_kw), ow_block unrolled,
     * oc_block vectorized */
    at_tmpl_loop kh = at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL);
    /* kw unrolled in a border chunk too, so that its column guards fold to constants */
    at_tmpl_loop red[2] = {at_tmpl_loop_new(s, "kw", g->kw, p->unroll_kw || border ? AT_IR_UNROLLED : AT_IR_SERIAL),
                           at_tmpl_loop_new(s, "ow.inner", tw, AT_IR_UNROLLED)};
    ax = ocb_axis(s, p, "ocb");
    const at_ir_expr *wv = at_ir_v(s, red[1].var);
    const at_ir_expr *c = at_ir_add(s, at_ir_mul(s, oc, at_tmpl_i(s, p->oc_bn)), ax.index);
    /* input block and lane of channel c: the block itself when the blocks agree; when an input
     * block holds k output blocks, block oc / k at lane (oc % k) oc_bn + ocb, so a vector of
     * output lanes reads consecutive input lanes (c / ic_bn and c % ic_bn vary with the lane:
     * a gather, 7x slower at 512 x 14 x 14, ic_bn 32, oc_bn 16) */
    const at_ir_expr *icc, *icb;
    if (p->ic_bn == p->oc_bn) {
        icc = oc;
        icb = ax.index;
    } else if (p->ic_bn % p->oc_bn == 0) {
        const int64_t k = p->ic_bn / p->oc_bn;
        icc = at_ir_div(s, oc, at_tmpl_i(s, k));
        icb = at_ir_add(s, at_ir_mul(s, at_ir_mod(s, oc, at_tmpl_i(s, k)), at_tmpl_i(s, p->oc_bn)), ax.index);
    } else {
        icc = at_ir_div(s, c, at_tmpl_i(s, p->ic_bn));
        icb = at_ir_mod(s, c, at_tmpl_i(s, p->ic_bn));
    }
    const at_ir_expr *h = at_tmpl_nchwc_in_row(s, g, oh, at_ir_v(s, kh.var));
    const at_ir_expr *w = at_tmpl_nchwc_in_col(s, g, at_ir_add(s, ow0, wv), at_ir_v(s, red[0].var));
    const at_ir_expr *xi[5] = {nn, icc, h, w, icb};
    const int64_t xd[5] = {g->n, g->ci / p->ic_bn, g->ih, g->iw, p->ic_bn};
    const at_ir_expr *ki[4] = {oc, at_ir_v(s, kh.var), at_ir_v(s, red[0].var), ax.index};
    const int64_t kd[4] = {occ, g->kh, g->kw, p->oc_bn};
    const at_ir_expr *x = at_tmpl_cast(s, p->ot, at_ir_load(s, p->xin, at_tmpl_index(s, xi, xd, 5), 1));
    const at_ir_expr *k = at_tmpl_cast(s, p->ot, at_ir_load(s, p->kvec, at_tmpl_index(s, ki, kd, 4), 1));
    ci = at_ir_add(s, at_ir_mul(s, wv, at_tmpl_i(s, p->oc_bn)), ax.index);
    const at_ir_stmt *tap = over(s, ax, at_ir_store(s, cc, ci, at_ir_add(s, at_ir_load(s, cc, ci, 1), at_ir_mul(s, x, k))));
    const at_ir_expr *col_ok = border ? at_tmpl_nchwc_col_inside(s, g, w) : NULL;
    if (col_ok) tap = at_ir_if(s, col_ok, tap, NULL);
    const at_ir_stmt *row = at_tmpl_nest(s, red, 2, tap);
    const at_ir_expr *row_ok = at_tmpl_nchwc_row_inside(s, g, h);
    if (row_ok) row = at_ir_if(s, row_ok, row, NULL);
    const at_ir_stmt *upd = at_tmpl_nest(s, &kh, 1, row);

    /* the block written out: ow_block, oc_block vectorized */
    wi = at_tmpl_loop_new(s, "ow.inner.out", tw, AT_IR_SERIAL);
    ax = ocb_axis(s, p, "ocb.out");
    const at_ir_expr *ow = at_ir_add(s, ow0, at_ir_v(s, wi.var));
    const at_ir_expr *val = at_ir_load(s, cc, at_ir_add(s, at_ir_mul(s, at_ir_v(s, wi.var), at_tmpl_i(s, p->oc_bn)), ax.index), 1);
    const at_ir_expr *oi[5] = {nn, oc, oh, ow, ax.index};
    const int64_t od[5] = {g->n, occ, g->oh, g->ow, p->oc_bn};
    const at_ir_stmt *st = at_tmpl_nest(s, &wi, 1, over(s, ax, at_ir_store(s, p->out, at_tmpl_index(s, oi, od, 5), val)));

    const at_ir_stmt *items[3] = {init, upd, st};
    return at_ir_seq(s, items, 3);
}

static void conv_stage(at_ir_sched *s, const plan *p)
{
    const at_conv2d_geom *g = &p->g;
    const int64_t occ = g->co / p->oc_bn, tw = p->tw;
    const at_ir_buffer *cc = at_ir_alloc(s, "conv_global", p->ot, tw * p->oc_bn, AT_IR_PRIVATE);
    at_tmpl_loop nb = at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL);
    at_tmpl_loop f = at_tmpl_loop_new(s, "occ.oh.fused", occ * g->oh, AT_IR_PARALLEL);
    const at_ir_expr *nn = at_ir_v(s, nb.var), *fv = at_ir_v(s, f.var);
    const at_ir_expr *oc = at_tmpl_unfuse(s, fv, g->oh, occ, true), *oh = at_tmpl_unfuse(s, fv, 1, g->oh, false);

    /* ow split by tile_ow: the border chunks and the interior ones in loops of their own */
    at_tmpl_chunk_range r[3];
    size_t nr = at_tmpl_nchwc_chunk_ranges(g, tw, g->ow / tw, r);
    const at_ir_stmt *loops[3];
    for (size_t i = 0; i < nr; i++) {
        const at_ir_expr *ow0;
        at_tmpl_loop owc = at_tmpl_nchwc_chunk_loop(s, &r[i], tw, &ow0);
        loops[i] = at_tmpl_nest(s, &owc, 1, chunk(s, p, cc, nn, oc, oh, ow0, r[i].border));
    }
    const at_ir_stmt *body = at_tmpl_nest(s, &f, 1, at_ir_seq(s, loops, nr));
    at_ir_add_kernel(s, "depthwise_conv2d_NCHWc_kernel", at_tmpl_nest(s, &nb, 1, body));
}

static at_status build(const at_args *args, const at_config *c, at_ir_sched *s, bool packed)
{
    const at_conv2d_args *a = &args->u.conv2d;
    plan p = {.ot = a->out_dtype};
    at_op_conv2d_geom(args->op, a, &p.g);
    const at_conv2d_geom *g = &p.g;
    int64_t parts[2];
    AT_TRY(at_tmpl_split_inner(c, TILE_IC, g->ci, 2, parts));
    p.ic_bn = parts[1];
    AT_TRY(at_tmpl_split_inner(c, TILE_OC, g->co, 2, parts));
    p.oc_bn = parts[1];
    AT_TRY(at_tmpl_split_inner(c, TILE_OW, g->ow, 2, parts));
    p.tw = parts[1];
    p.unroll_kw = at_config_other_int(c, UNROLL_KW) != 0;

    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, g->co * g->kh * g->kw, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", p.ot, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    p.kvec = at_ir_temp(s, "kernel_vec", a->kernel_dtype, g->co * g->kh * g->kw);
    p.xin = data;
    p.out = out;
    if (!packed) {
        p.xin = at_ir_temp(s, "data_vec", a->dtype, g->n * g->ci * g->ih * g->iw);
        p.out = at_ir_temp(s, "DepthwiseConv2d", p.ot, g->n * g->co * g->oh * g->ow);
        at_tmpl_nchwc_data_vec(s, data, p.xin, g->n, g->ci, g->ih, g->iw, p.ic_bn);
    }
    kernel_vec_stage(s, &p, kernel);
    conv_stage(s, &p);
    if (!packed) at_tmpl_nchwc_unpack(s, p.out, out, g->n, g->co, g->oh, g->ow, p.oc_bn);
    return at_ir_sched_status(s);
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    return build(args, c, s, false);
}

static at_status schedule_packed(const at_args *args, const at_config *c, at_ir_sched *s)
{
    return build(args, c, s, true);
}

static at_status fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c)
{
    (void)refs;
    (void)n_refs;
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    int64_t oc_bn = at_tmpl_x86_block(g.co, AT_TMPL_X86_SIMD_LANES), ic_bn = at_tmpl_x86_block(g.ci, oc_bn);
    int64_t reg_n = at_tmpl_x86_block(g.ow, 31);
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_IC, (const int64_t[]){g.ci / ic_bn, ic_bn}, 2));
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_OC, (const int64_t[]){g.co / oc_bn, oc_bn}, 2));
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_OW, (const int64_t[]){g.ow / reg_n, reg_n}, 2));
    at_entity e = {.name = at_space_knob_name(s, UNROLL_KW), .kind = AT_KNOB_OTHER, .val = {.kind = AT_VAL_BOOL, .b = false}};
    return at_space_fallback_set(s, c, UNROLL_KW, &e);
}

const at_template at_tmpl_depthwise_conv2d_NCHWc_x86 = {
    .name = "depthwise_conv2d_NCHWc.x86",
    .op = AT_OP_DEPTHWISE_CONV2D_NCHWC,
    .target = AT_TARGET_LLVM,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .schedule_packed = schedule_packed,
    .fallback = fallback,
};
