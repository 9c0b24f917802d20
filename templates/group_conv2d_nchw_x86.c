/* group_conv2d_nchw.x86 and group_conv2d_nchw.arm_cpu: TVM v0.18's grouped spatial-pack
 * convolution (GSPC, topi/x86/group_conv2d.py; topi/arm_cpu/group_conv2d.py is the same compute
 * and schedule registered under the arm_cpu name), the template TVM tunes for every NCHW
 * convolution with 1 < groups that is not depthwise on an `llvm` target (x86 strategy) and on
 * `llvm -device=arm_cpu`. Knobs, in TVM's order: tile_ic (2-way factor split of all C input
 * channels), tile_oc (of all CO output channels), tile_ow (2-way factor split of the output
 * width, last size <= 64), unroll_kw ([True, False]).
 *
 * The program, stage by stage as TVM builds and times it:
 * - data_vec[g][n][C][h][c][w] = pad(data)[n][g kd + C ic_bn + c][h][w] (kd = C / groups; the
 *   pad stage inlined), parallel over the fused (g, n, C, h) -- TVM keeps groups a serial axis
 *   outside the fused (n, C, h); one parallel loop here;
 * - kernel_vec[g][oc][C][kh][kw][c][o] = kernel[g kpg + oc oc_bn + o][C ic_bn + c][kh][kw] (kpg =
 *   CO / groups), (g, oc chunk, kh) fused and parallel, then ic chunk, kw, c, o vectorized;
 * - the convolution: (g, n, oc chunk, oh) fused and parallel, ow split by reg_n = tile_ow[-1];
 *   per ow chunk a reg_n x oc_bn block (CC) initialised, then ic chunk, kh, (ic_block, kw unrolled
 *   when unroll_kw | kw, ic_block), ow_block unrolled, oc_block vectorized, and the block stored
 *   to the NCHW output (TVM's output_unpack stage with the conv computed at its fused axis; the
 *   cached copy C between CC and the unpack is folded away: the same values, one copy fewer).
 * TVM's compute indexes data_vec with kd / ic_bn chunks and kernel_vec with kpg / oc_bn chunks:
 * a block that does not divide a group's channels reads past those stages, so such configs are
 * instantiation errors here. The ow split is TVM's split by factor: a factor not dividing OW (only
 * TVM's fallback makes one, for a dilated kernel) leaves a guarded tail.
 *
 * Fallback (_fallback_schedule; simd width get_simd_32bit_lanes() = 4 for `llvm` without -mcpu,
 * and the arm_cpu file's fixed 4): oc_bn the largest <= 4 dividing kpg, ic_bn the largest <= oc_bn
 * dividing kd, reg_n the largest <= 31 dividing the output width as TVM's fallback computes it
 * (undilated kernel), unroll_kw False. */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_IC, TILE_OC, TILE_OW, UNROLL_KW, N_KNOBS };

static at_status define_space(const at_args *args, at_space *s)
{
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    at_conv2d_geom g;
    at_op_group_conv2d_geom(a, &g);
    return at_tmpl_x86_space_ic_oc_ow_kw(s, g.ci, g.co, g.ow);
}

typedef struct plan {
    at_conv2d_geom      g;
    at_ir_type          ot;
    int64_t             groups, kd, kpg;
    int64_t             ic_bn, oc_bn, icc, occ; /* blocks and chunks of one group's channels */
    int64_t             reg_n, ow_chunk;
    bool                unroll_kw;
    const at_ir_buffer *out, *dvec, *kvec;
} plan;

static at_status read_config(const at_args *args, const at_config *c, plan *p)
{
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    at_op_group_conv2d_geom(a, &p->g);
    p->groups = a->groups;
    p->kd = a->conv.kernel[1];
    p->kpg = p->g.co / a->groups;
    int64_t parts[2];
    AT_TRY(at_tmpl_split_inner(c, TILE_IC, p->g.ci, 2, parts));
    p->ic_bn = parts[1];
    AT_TRY(at_tmpl_split_inner(c, TILE_OC, p->g.co, 2, parts));
    p->oc_bn = parts[1];
    if (p->kd % p->ic_bn)
        return AT_FAIL(AT_EINVAL, "tile_ic: block %lld does not divide the %lld input channels of a group", (long long)p->ic_bn,
                       (long long)p->kd);
    if (p->kpg % p->oc_bn)
        return AT_FAIL(AT_EINVAL, "tile_oc: block %lld does not divide the %lld output channels of a group", (long long)p->oc_bn,
                       (long long)p->kpg);
    /* split(ow, factor=reg_n): the space's sizes divide OW, but TVM's fallback sizes it from the
     * undilated width, so a dilated workload's fallback factor may not -- a guarded tail then */
    int64_t sizes[2];
    at_config_split(c, TILE_OW, sizes, 2);
    if (sizes[1] < 1 || sizes[1] > 64) return AT_FAIL(AT_EINVAL, "tile_ow: size %lld is outside 1 .. 64", (long long)sizes[1]);
    p->reg_n = sizes[1];
    p->icc = p->kd / p->ic_bn;
    p->occ = p->kpg / p->oc_bn;
    p->ow_chunk = (p->g.ow + p->reg_n - 1) / p->reg_n;
    p->unroll_kw = at_config_other_int(c, UNROLL_KW) != 0;
    p->ot = a->conv.out_dtype;
    return AT_OK;
}

static const at_ir_expr *v_(at_ir_sched *s, at_tmpl_loop l)
{
    return at_ir_v(s, l.var);
}

static const at_ir_expr *i_(at_ir_sched *s, int64_t v)
{
    return at_tmpl_i(s, v);
}

/* a * b + c */
static const at_ir_expr *mad(at_ir_sched *s, const at_ir_expr *a, int64_t b, const at_ir_expr *c)
{
    return at_ir_add(s, at_ir_mul(s, a, i_(s, b)), c);
}

static void data_vec_stage(at_ir_sched *s, const plan *p, const at_ir_buffer *data)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop f = at_tmpl_loop_new(s, "g.n.C.h.fused", p->groups * g->n * p->icc * g->ihp, AT_IR_PARALLEL);
    at_tmpl_loop l[2] = {at_tmpl_loop_new(s, "c", p->ic_bn, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", g->iwp, AT_IR_SERIAL)};
    const at_ir_expr *fv = v_(s, f);
    const at_ir_expr *gg = at_tmpl_unfuse(s, fv, g->n * p->icc * g->ihp, p->groups, true);
    const at_ir_expr *nn = at_tmpl_unfuse(s, fv, p->icc * g->ihp, g->n, false);
    const at_ir_expr *cc = at_tmpl_unfuse(s, fv, g->ihp, p->icc, false);
    const at_ir_expr *hh = at_tmpl_unfuse(s, fv, 1, g->ihp, false);
    const at_ir_expr *ch = at_ir_add(s, at_ir_mul(s, gg, i_(s, p->kd)), mad(s, cc, p->ic_bn, v_(s, l[0])));
    const at_ir_expr *x = at_tmpl_pad_load(s, data, g, nn, ch, hh, v_(s, l[1]), g->ihp - 1, g->iwp - 1);
    const at_ir_expr *vi[6] = {gg, nn, cc, hh, v_(s, l[0]), v_(s, l[1])};
    const int64_t vd[6] = {p->groups, g->n, p->icc, g->ihp, p->ic_bn, g->iwp};
    at_ir_add_kernel(s, "data_vec_kernel",
                     at_tmpl_nest(s, &f, 1, at_tmpl_nest(s, l, 2, at_ir_store(s, p->dvec, at_tmpl_index(s, vi, vd, 6), x))));
}

static void kernel_vec_stage(at_ir_sched *s, const plan *p, const at_ir_buffer *kernel)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop f = at_tmpl_loop_new(s, "g.oc.kh.fused", p->groups * p->occ * g->kh, AT_IR_PARALLEL);
    at_tmpl_axis ocb = at_tmpl_cpu_axis(s, "o", p->oc_bn, p->oc_bn > 1 ? AT_IR_VECTORIZED : AT_IR_SERIAL);
    at_tmpl_loop l[5] = {at_tmpl_loop_new(s, "C", p->icc, AT_IR_SERIAL), at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "c", p->ic_bn, AT_IR_SERIAL)};
    size_t nl = 3 + at_tmpl_axes_loops(&ocb, 1, &l[3]);
    const at_ir_expr *fv = v_(s, f);
    const at_ir_expr *gg = at_tmpl_unfuse(s, fv, p->occ * g->kh, p->groups, true);
    const at_ir_expr *oc = at_tmpl_unfuse(s, fv, g->kh, p->occ, false);
    const at_ir_expr *kh = at_tmpl_unfuse(s, fv, 1, g->kh, false);
    const at_ir_expr *ki[4] = {at_ir_add(s, at_ir_mul(s, gg, i_(s, p->kpg)), mad(s, oc, p->oc_bn, ocb.index)),
                               mad(s, v_(s, l[0]), p->ic_bn, v_(s, l[2])), kh, v_(s, l[1])};
    const int64_t kdim[4] = {g->co, p->kd, g->kh, g->kw};
    const at_ir_expr *vi[7] = {gg, oc, v_(s, l[0]), kh, v_(s, l[1]), v_(s, l[2]), ocb.index};
    const int64_t vd[7] = {p->groups, p->occ, p->icc, g->kh, g->kw, p->ic_bn, p->oc_bn};
    const at_ir_stmt *st = at_ir_store(s, p->kvec, at_tmpl_index(s, vi, vd, 7), at_ir_load(s, kernel, at_tmpl_index(s, ki, kdim, 4), 1));
    at_ir_add_kernel(s, "kernel_vec_kernel", at_tmpl_nest(s, &f, 1, at_tmpl_nest(s, l, nl, st)));
}

/* The coordinates one CC element's statements use. */
typedef struct elem {
    const at_ir_buffer *cc;
    const at_ir_expr   *cc_base; /* CC index of oc_block 0 */
    const at_ir_expr   *gg, *nn, *oc, *oh, *ow;
    const at_ir_expr   *icc, *icb, *kh, *kw;
} elem;

/* body(ocb) under the oc_block axis, vectorized when longer than 1. */
static const at_ir_stmt *over_ocb(at_ir_sched *s, const plan *p, const char *name,
                                  const at_ir_stmt *(*body)(at_ir_sched *, const plan *, const at_ir_expr *, const elem *),
                                  const elem *e)
{
    at_tmpl_axis ax = at_tmpl_cpu_axis(s, name, p->oc_bn, p->oc_bn > 1 ? AT_IR_VECTORIZED : AT_IR_SERIAL);
    at_tmpl_loop l[2];
    size_t n = at_tmpl_axes_loops(&ax, 1, l);
    return at_tmpl_nest(s, l, n, body(s, p, ax.index, e));
}

static const at_ir_stmt *init_body(at_ir_sched *s, const plan *p, const at_ir_expr *ocb, const elem *e)
{
    return at_ir_store(s, e->cc, at_ir_add(s, e->cc_base, ocb), at_tmpl_f(s, p->ot, 0));
}

static const at_ir_stmt *update_body(at_ir_sched *s, const plan *p, const at_ir_expr *ocb, const elem *e)
{
    const at_conv2d_geom *g = &p->g;
    const at_ir_expr *h = at_ir_add(s, at_ir_mul(s, e->oh, i_(s, g->sh)), at_ir_mul(s, e->kh, i_(s, g->dh)));
    const at_ir_expr *w = at_ir_add(s, at_ir_mul(s, e->ow, i_(s, g->sw)), at_ir_mul(s, e->kw, i_(s, g->dw)));
    const at_ir_expr *xi[6] = {e->gg, e->nn, e->icc, h, e->icb, w};
    const int64_t xd[6] = {p->groups, g->n, p->icc, g->ihp, p->ic_bn, g->iwp};
    const at_ir_expr *ki[7] = {e->gg, e->oc, e->icc, e->kh, e->kw, e->icb, ocb};
    const int64_t kd[7] = {p->groups, p->occ, p->icc, g->kh, g->kw, p->ic_bn, p->oc_bn};
    const at_ir_expr *x = at_tmpl_cast(s, p->ot, at_ir_load(s, p->dvec, at_tmpl_index(s, xi, xd, 6), 1));
    const at_ir_expr *k = at_tmpl_cast(s, p->ot, at_ir_load(s, p->kvec, at_tmpl_index(s, ki, kd, 7), 1));
    const at_ir_expr *ci = at_ir_add(s, e->cc_base, ocb);
    return at_ir_store(s, e->cc, ci, at_ir_add(s, at_ir_load(s, e->cc, ci, 1), at_ir_mul(s, x, k)));
}

static const at_ir_stmt *store_body(at_ir_sched *s, const plan *p, const at_ir_expr *ocb, const elem *e)
{
    const at_conv2d_geom *g = &p->g;
    const at_ir_expr *c = at_ir_add(s, at_ir_mul(s, e->gg, i_(s, p->kpg)), mad(s, e->oc, p->oc_bn, ocb));
    const at_ir_expr *oi[4] = {e->nn, c, e->oh, e->ow};
    const int64_t od[4] = {g->n, g->co, g->oh, g->ow};
    return at_ir_store(s, p->out, at_tmpl_index(s, oi, od, 4), at_ir_load(s, e->cc, at_ir_add(s, e->cc_base, ocb), 1));
}

/* body, under the tail guard ow < OW when reg_n does not divide OW. */
static const at_ir_stmt *tail(at_ir_sched *s, const plan *p, const at_ir_expr *ow, const at_ir_stmt *body)
{
    if (p->g.ow % p->reg_n == 0) return body;
    return at_ir_if(s, at_ir_bin(s, AT_IR_LT, ow, i_(s, p->g.ow)), body, NULL);
}

static void conv_stage(at_ir_sched *s, const plan *p)
{
    const at_conv2d_geom *g = &p->g;
    const at_ir_buffer *cc = at_ir_alloc(s, "conv_global", p->ot, p->reg_n * p->oc_bn, AT_IR_PRIVATE);
    at_tmpl_loop f = at_tmpl_loop_new(s, "g.n.oc.oh.fused", p->groups * g->n * p->occ * g->oh, AT_IR_PARALLEL);
    at_tmpl_loop owc = at_tmpl_loop_new(s, "ow.outer", p->ow_chunk, AT_IR_SERIAL);
    const at_ir_expr *fv = v_(s, f);
    elem e = {.cc = cc,
              .gg = at_tmpl_unfuse(s, fv, g->n * p->occ * g->oh, p->groups, true),
              .nn = at_tmpl_unfuse(s, fv, p->occ * g->oh, g->n, false),
              .oc = at_tmpl_unfuse(s, fv, g->oh, p->occ, false),
              .oh = at_tmpl_unfuse(s, fv, 1, g->oh, false)};
    const at_ir_expr *ow0 = at_ir_mul(s, v_(s, owc), i_(s, p->reg_n));

    at_tmpl_loop owb = at_tmpl_loop_new(s, "ow.inner.init", p->reg_n, AT_IR_UNROLLED);
    e.cc_base = at_ir_mul(s, v_(s, owb), i_(s, p->oc_bn));
    const at_ir_stmt *init = at_tmpl_nest(s, &owb, 1, over_ocb(s, p, "ocb.init", init_body, &e));

    at_tmpl_loop icc = at_tmpl_loop_new(s, "ic.outer", p->icc, AT_IR_SERIAL), kh = at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL);
    at_tmpl_loop icb = at_tmpl_loop_new(s, "ic.inner", p->ic_bn, AT_IR_SERIAL);
    at_tmpl_loop kw = at_tmpl_loop_new(s, "kw", g->kw, p->unroll_kw ? AT_IR_UNROLLED : AT_IR_SERIAL);
    owb = at_tmpl_loop_new(s, "ow.inner", p->reg_n, AT_IR_UNROLLED);
    e.icc = v_(s, icc);
    e.kh = v_(s, kh);
    e.icb = v_(s, icb);
    e.kw = v_(s, kw);
    e.ow = at_ir_add(s, ow0, v_(s, owb));
    e.cc_base = at_ir_mul(s, v_(s, owb), i_(s, p->oc_bn));
    const at_ir_stmt *upd = at_tmpl_nest(s, &owb, 1, tail(s, p, e.ow, over_ocb(s, p, "ocb", update_body, &e)));
    at_tmpl_loop red[4] = {icc, kh, p->unroll_kw ? icb : kw, p->unroll_kw ? kw : icb};
    upd = at_tmpl_nest(s, red, 4, upd);

    owb = at_tmpl_loop_new(s, "ow.inner.out", p->reg_n, AT_IR_SERIAL);
    e.ow = at_ir_add(s, ow0, v_(s, owb));
    e.cc_base = at_ir_mul(s, v_(s, owb), i_(s, p->oc_bn));
    const at_ir_stmt *st = at_tmpl_nest(s, &owb, 1, tail(s, p, e.ow, over_ocb(s, p, "ocb.out", store_body, &e)));

    const at_ir_stmt *items[3] = {init, upd, st};
    at_ir_add_kernel(s, "group_conv2d_nchw_kernel", at_tmpl_nest(s, &f, 1, at_tmpl_nest(s, &owc, 1, at_ir_seq(s, items, 3))));
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    plan p = {0};
    AT_TRY(read_config(args, c, &p));
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    const at_conv2d_geom *g = &p.g;
    if ((double)p.groups * g->n * p.kd * g->ihp * g->iwp > (double)(1LL << 31) - 1)
        return AT_FAIL(AT_EINVAL, "group_conv2d_nchw: the packed input has more than 2^31 elements");
    const at_ir_buffer *data = at_ir_param(s, "data", a->conv.dtype, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->conv.kernel_dtype, g->co * p.kd * g->kh * g->kw, AT_IR_INPUT);
    p.out = at_ir_param(s, "output", p.ot, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    p.dvec = at_ir_temp(s, "data_vec", a->conv.dtype, p.groups * g->n * p.kd * g->ihp * g->iwp);
    p.kvec = at_ir_temp(s, "kernel_vec", a->conv.kernel_dtype, g->co * p.kd * g->kh * g->kw);
    data_vec_stage(s, &p, data);
    kernel_vec_stage(s, &p, kernel);
    conv_stage(s, &p);
    return at_ir_sched_status(s);
}

static at_status fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c)
{
    (void)refs;
    (void)n_refs;
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    at_conv2d_geom g;
    at_op_group_conv2d_geom(a, &g);
    int64_t kpg = g.co / a->groups, kd = a->conv.kernel[1];
    int64_t oc_bn = at_tmpl_x86_block(kpg, AT_TMPL_X86_SIMD_LANES), ic_bn = at_tmpl_x86_block(kd, oc_bn);
    /* TVM's fallback width ignores dilation */
    int64_t ow = (g.iw + g.pl + g.pr - g.kw) / g.sw + 1, reg_n = at_tmpl_x86_block(ow, 31);
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_IC, (const int64_t[]){g.ci / ic_bn, ic_bn}, 2));
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_OC, (const int64_t[]){g.co / oc_bn, oc_bn}, 2));
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_OW, (const int64_t[]){ow / reg_n, reg_n}, 2));
    at_entity e = {.name = at_space_knob_name(s, UNROLL_KW), .kind = AT_KNOB_OTHER, .val = {.kind = AT_VAL_BOOL, .b = false}};
    return at_space_fallback_set(s, c, UNROLL_KW, &e);
}

const at_template at_tmpl_group_conv2d_nchw_x86 = {
    .name = "group_conv2d_nchw.x86",
    .op = AT_OP_GROUP_CONV2D_NCHW,
    .target = AT_TARGET_LLVM,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = fallback,
};

const at_template at_tmpl_group_conv2d_nchw_arm_cpu = {
    .name = "group_conv2d_nchw.arm_cpu",
    .op = AT_OP_GROUP_CONV2D_NCHW,
    .target = AT_TARGET_LLVM,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = fallback,
};
