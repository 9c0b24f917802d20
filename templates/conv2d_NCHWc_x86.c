/* conv2d_NCHWc.x86: TVM v0.18's x86 conv2d (topi/x86/conv2d.py conv2d_NCHWc with the schedules of
 * conv2d_avx_common.py and conv2d_avx_1x1.py), the template TVM tunes for every groups == 1 NCHW
 * convolution on an x86 `llvm` target. Knobs, in TVM's order: tile_ic, tile_oc (2-way factor
 * splits of the input and output channels: the block sizes of NCHW[x]c), tile_ow (2-way
 * "verbose" split of the output width, last size <= 64: tails allowed), then tile_oh ([1, 2], [1]
 * for a one-row output) for a 1x1 kernel or unroll_kw ([True, False]) otherwise. The space's
 * output extents use the undilated kernel, as TVM's compute does.
 *
 * The tuning program, as TVM times it: the packed data (N, C/ic_bn, H, W, ic_bn) and kernel
 * (CO/oc_bn, C/ic_bn, KH, KW, ic_bn, oc_bn) are placeholders while TVM tunes, so preparation
 * kernels here; then the convolution (TVM pads the data into a copy first, topi's pad stage; here
 * the taps in the padding are skipped in place: templates/nchwc_x86.c says how). TVM's tuned
 * output is the 5-D conv itself (the task's compute returns it; its arguments are [output, data,
 * kernel]), so the timed kernel writes NCHW[oc_bn]c, the cached row C between CC and that store
 * folded away (the same values, one copy fewer); the op's signature is NCHW, so a finishing
 * kernel, not timed, unpacks the result into the NCHW output.
 * 3x3 and other kernels (avx_common): (n, oc_chunk, oh) fused and parallel, ow split by reg_n =
 * tile_ow[-1]; CC, a reg_n x oc_bn block, computed per ow chunk: init, then ic_chunk, kh, (ic_block,
 * kw unrolled when unroll_kw | kw, ic_block), ow_block unrolled, oc_block vectorized. 1x1 kernels
 * (avx_1x1): (n, oc_chunk, oh / tile_oh) fused and parallel; CC covers tile_oh rows of the whole
 * width: per ow chunk, init, then ic_chunk, ic_block, oh_inner and ow_inner unrolled, oc_block
 * vectorized. Tails (tile_ow or tile_oh not dividing) are guarded, as TVM's likely() guards.
 *
 * The network executor runs the same schedule on NCHW[ic_bn]c data into NCHW[oc_bn]c output
 * (at_template.schedule_packed), TVM's program after alter_op_layout: no data packing, the conv
 * stage is the output.
 *
 * Fallback: _get_default_config with get_simd_32bit_lanes() = 4 (`llvm`, no -mcpu): oc_bn the
 * largest <= 4 dividing CO, ic_bn the largest <= oc_bn dividing C; avx_common: reg_n the largest
 * <= 31 dividing OW, unroll_kw False; 1x1: the largest ow factor, then oh factor, whose product is
 * < 32 (tile_oh may so take a value outside [1, 2], as TVM's fallback does). */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_IC, TILE_OC, TILE_OW, KNOB_3 /* tile_oh (1x1) or unroll_kw */, N_KNOBS };

static bool is_1x1(const at_conv2d_args *a)
{
    return a->kernel[2] == 1 && a->kernel[3] == 1;
}

static at_status define_space(const at_args *args, at_space *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    int64_t oh = (a->data[2] - a->kernel[2] + a->pad[0] + a->pad[2]) / a->stride[0] + 1;
    int64_t ow = (a->data[3] - a->kernel[3] + a->pad[1] + a->pad[3]) / a->stride[1] + 1;
    AT_TRY(at_space_split_ex(s, TILE_IC, "tile_ic", a->data[1], &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, TILE_OC, "tile_oc", a->kernel[0], &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, TILE_OW, "tile_ow", ow,
                             &(at_split_opts){.policy = AT_SPLIT_VERBOSE, .num_outputs = 2, .filter = at_tmpl_x86_ow_filter}));
    if (is_1x1(a)) {
        static const int64_t oh_opts[2] = {1, 2};
        return at_space_other(s, KNOB_3, "tile_oh", oh_opts, oh > 1 ? 2 : 1);
    }
    const at_val kw_opts[2] = {{.kind = AT_VAL_BOOL, .b = true}, {.kind = AT_VAL_BOOL, .b = false}};
    return at_space_other_vals(s, KNOB_3, "unroll_kw", kw_opts, 2);
}

typedef struct plan {
    at_conv2d_geom      g;
    at_ir_type          ot;
    int64_t             ic_bn, oc_bn, icc, occ;
    int64_t             reg_n, ow_chunk; /* tile_ow[-1] and the chunks of OW it makes (rounded up) */
    int64_t             oh_f, oh_chunk;  /* 1x1: tile_oh and the row chunks (rounded up) */
    bool                unroll_kw, one_by_one;
    /* out: the NCHW[oc_bn]c output; xin: the conv's NCHW[ic_bn]c input, read unpadded */
    const at_ir_buffer *out, *kvec, *xin;
} plan;

static at_status read_config(const at_args *args, const at_config *c, plan *p)
{
    const at_conv2d_args *a = &args->u.conv2d;
    at_op_conv2d_geom(args->op, a, &p->g);
    int64_t parts[2], sizes[2];
    AT_TRY(at_tmpl_split_inner(c, TILE_IC, p->g.ci, 2, parts));
    p->ic_bn = parts[1];
    AT_TRY(at_tmpl_split_inner(c, TILE_OC, p->g.co, 2, parts));
    p->oc_bn = parts[1];
    at_config_split(c, TILE_OW, sizes, 2);
    if (sizes[1] < 1 || sizes[1] > 64)
        return AT_FAIL(AT_EINVAL, "tile_ow: size %lld is outside 1 .. 64", (long long)sizes[1]);
    p->reg_n = sizes[1];
    p->icc = p->g.ci / p->ic_bn;
    p->occ = p->g.co / p->oc_bn;
    p->ow_chunk = (p->g.ow + p->reg_n - 1) / p->reg_n;
    p->one_by_one = is_1x1(a);
    p->oh_f = 1;
    if (p->one_by_one) {
        p->oh_f = at_config_other_int(c, KNOB_3);
        if (p->oh_f < 1 || p->oh_f > 64)
            return AT_FAIL(AT_EINVAL, "tile_oh: %lld is outside 1 .. 64", (long long)p->oh_f);
    } else {
        p->unroll_kw = at_config_other_int(c, KNOB_3) != 0;
    }
    p->oh_chunk = (p->g.oh + p->oh_f - 1) / p->oh_f;
    p->ot = a->out_dtype;
    return AT_OK;
}

/* kernel_vec[occ][icc][kh][kw][icb][ocb] = kernel[occ oc_bn + ocb][icc ic_bn + icb][kh][kw] */
static void kernel_vec_stage(at_ir_sched *s, const plan *p, const at_ir_buffer *kernel)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop l[6] = {at_tmpl_loop_new(s, "occ", p->occ, AT_IR_PARALLEL), at_tmpl_loop_new(s, "icc", p->icc, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL), at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "icb", p->ic_bn, AT_IR_SERIAL), at_tmpl_loop_new(s, "ocb", p->oc_bn, AT_IR_SERIAL)};
    const at_ir_expr *v[6];
    for (int i = 0; i < 6; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *ki[4] = {at_ir_add(s, at_ir_mul(s, v[0], at_tmpl_i(s, p->oc_bn)), v[5]),
                               at_ir_add(s, at_ir_mul(s, v[1], at_tmpl_i(s, p->ic_bn)), v[4]), v[2], v[3]};
    const int64_t kd[4] = {g->co, g->ci, g->kh, g->kw}, vd[6] = {p->occ, p->icc, g->kh, g->kw, p->ic_bn, p->oc_bn};
    at_ir_add_prepare_kernel(s, "kernel_vec_kernel",
                             at_tmpl_nest(s, l, 6, at_ir_store(s, p->kvec, at_tmpl_index(s, v, vd, 6),
                                                               at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1))));
}

static const at_ir_expr *lt(at_ir_sched *s, const at_ir_expr *a, int64_t b)
{
    return at_ir_bin(s, AT_IR_LT, a, at_tmpl_i(s, b));
}

static const at_ir_stmt *guarded(at_ir_sched *s, const at_ir_expr *cond, const at_ir_stmt *st)
{
    return cond ? at_ir_if(s, cond, st, NULL) : st;
}

/* One statement under the oc_block axis (vectorized when longer than 1). */
static const at_ir_stmt *over_ocb(at_ir_sched *s, const plan *p, const char *name,
                                  const at_ir_stmt *(*body)(at_ir_sched *, const plan *, const at_ir_expr *, void *),
                                  void *ctx)
{
    at_tmpl_axis ax = at_tmpl_cpu_axis(s, name, p->oc_bn, p->oc_bn > 1 ? AT_IR_VECTORIZED : AT_IR_SERIAL);
    at_tmpl_loop l[2];
    size_t n = at_tmpl_axes_loops(&ax, 1, l);
    return at_tmpl_nest(s, l, n, body(s, p, ax.index, ctx));
}

/* The statements of one CC element (h row, w column of the block) for the body builders. */
typedef struct elem {
    const at_ir_buffer *cc;
    const at_ir_expr   *cc_base;        /* CC index of oc_block 0 */
    const at_ir_expr   *nn, *oc, *oh, *ow; /* output coordinates (ow, oh absolute) */
    const at_ir_expr   *icc, *icb, *kh, *kw;
} elem;

static const at_ir_stmt *init_body(at_ir_sched *s, const plan *p, const at_ir_expr *ocb, void *ctx)
{
    const elem *e = ctx;
    return at_ir_store(s, e->cc, at_ir_add(s, e->cc_base, ocb), at_tmpl_f(s, p->ot, 0));
}

static const at_ir_stmt *update_body(at_ir_sched *s, const plan *p, const at_ir_expr *ocb, void *ctx)
{
    const elem *e = ctx;
    const at_conv2d_geom *g = &p->g;
    const at_ir_expr *xi[5] = {e->nn, e->icc, at_tmpl_nchwc_in_row(s, g, e->oh, e->kh), at_tmpl_nchwc_in_col(s, g, e->ow, e->kw),
                               e->icb};
    const int64_t xd[5] = {g->n, p->icc, g->ih, g->iw, p->ic_bn};
    const at_ir_expr *ki[6] = {e->oc, e->icc, e->kh, e->kw, e->icb, ocb};
    const int64_t kd[6] = {p->occ, p->icc, g->kh, g->kw, p->ic_bn, p->oc_bn};
    const at_ir_expr *x = at_tmpl_cast(s, p->ot, at_ir_load(s, p->xin, at_tmpl_index(s, xi, xd, 5), 1));
    const at_ir_expr *k = at_tmpl_cast(s, p->ot, at_ir_load(s, p->kvec, at_tmpl_index(s, ki, kd, 6), 1));
    const at_ir_expr *ci = at_ir_add(s, e->cc_base, ocb);
    return at_ir_store(s, e->cc, ci, at_ir_add(s, at_ir_load(s, e->cc, ci, 1), at_ir_mul(s, x, k)));
}

static const at_ir_stmt *store_body(at_ir_sched *s, const plan *p, const at_ir_expr *ocb, void *ctx)
{
    const elem *e = ctx;
    const at_conv2d_geom *g = &p->g;
    const at_ir_expr *val = at_ir_load(s, e->cc, at_ir_add(s, e->cc_base, ocb), 1);
    const at_ir_expr *oi[5] = {e->nn, e->oc, e->oh, e->ow, ocb};
    const int64_t od[5] = {g->n, p->occ, g->oh, g->ow, p->oc_bn};
    return at_ir_store(s, p->out, at_tmpl_index(s, oi, od, 5), val);
}

/* The element guard of a tail: row and column inside the output. */
static const at_ir_expr *tail_guard(at_ir_sched *s, const plan *p, const at_ir_expr *oh, const at_ir_expr *ow)
{
    const at_ir_expr *cond = NULL;
    if (p->g.ow % p->reg_n) cond = lt(s, ow, p->g.ow);
    if (p->g.oh % p->oh_f) cond = at_tmpl_and(s, cond, lt(s, oh, p->g.oh));
    return cond;
}

/* The weights of the next output-channel block, prefetched while this block computes its rows.
 *
 * Not in TVM's schedule: its weights come warm from the tuning loop, but a network's do not (47 MB
 * for resnet-18, more than the L3), and the first output row of each oc block streamed its block
 * (up to 1.2 MB) from DRAM in a latency-bound walk, the other rows finding it in L2.
 * The rows whose kernel taps all lie in the input (first..first + n - 1) share out the ic chunks of
 * the next block: row first + k prefetches those with icc n / ICC == k, one cache line per 16
 * weights (the first 8 lines of a wider block), from the first ow chunk's reduction loop, where
 * the same (icc, kh, kw, icb) is read. A 1x1 convolution shares them out over its row chunks
 * (tile_oh rows each): prefetch_next_chunk_1x1. */
typedef struct next_block {
    int64_t           first, n; /* the prefetching rows; n 0: none */
    const at_ir_expr *when;     /* this row and ow chunk prefetch (without the icc test); NULL: never */
} next_block;

static next_block next_block_rows(const plan *p)
{
    const at_conv2d_geom *g = &p->g;
    next_block nb = {0};
    if (p->occ < 2) return nb;
    int64_t first = 0, last = g->oh - 1;
    while (first < g->oh && first * g->sh < g->pt) first++;
    while (last >= first && last * g->sh + (g->kh - 1) * g->dh - g->pt > g->ih - 1) last--;
    nb.first = first;
    nb.n = last >= first ? last - first + 1 : 0;
    return nb;
}

static const at_ir_stmt *prefetch_next_block(at_ir_sched *s, const plan *p, const next_block *nb, const elem *e)
{
    const at_conv2d_geom *g = &p->g;
    const at_ir_expr *row = at_ir_sub(s, e->oh, at_tmpl_i(s, nb->first));
    /* icc n / ICC == oh - first */
    const at_ir_expr *cond = at_tmpl_and(
        s, nb->when, at_ir_bin(s, AT_IR_EQ, at_ir_div(s, at_ir_mul(s, e->icc, at_tmpl_i(s, nb->n)), at_tmpl_i(s, p->icc)), row));
    /* no branch in the reduction loop (that cost more than the prefetch won): outside its share,
     * a row prefetches the line it is about to read anyway */
    const at_ir_expr *next = at_ir_min(s, at_ir_add(s, e->oc, at_ir_select(s, cond, at_tmpl_i(s, 1), at_tmpl_i(s, 0))),
                                       at_tmpl_i(s, p->occ - 1)); /* the last block: itself */
    const at_ir_expr *ki[6] = {next, e->icc, e->kh, e->kw, e->icb, at_tmpl_i(s, 0)};
    const int64_t kd[6] = {p->occ, p->icc, g->kh, g->kw, p->ic_bn, p->oc_bn};
    const at_ir_expr *base = at_tmpl_index(s, ki, kd, 6);
    const int64_t per_line = 64 / (int64_t)at_ir_type_bytes(p->kvec->elem), lines = (p->oc_bn + per_line - 1) / per_line;
    const at_ir_stmt *pf[8];
    size_t n = 0;
    for (int64_t l = 0; l < lines && n < 8; l++) pf[n++] = at_ir_prefetch(s, p->kvec, at_ir_add(s, base, at_tmpl_i(s, l * per_line)));
    return at_ir_seq(s, pf, n);
}

/* avx_common's ow chunk starting at column ow0: CC (reg_n x oc_bn) init, update, store. The update
 * skips kernel rows in the padding; in a border chunk each tap is guarded by its column too.
 * nb->when not NULL: this chunk may prefetch the next block's weights. */
static const at_ir_stmt *chunk_common(at_ir_sched *s, const plan *p, elem e, const at_ir_expr *ow0, bool border,
                                      const next_block *nb)
{
    const at_conv2d_geom *g = &p->g;

    /* init: ow_block unrolled, oc_block vectorized */
    at_tmpl_loop owb = at_tmpl_loop_new(s, "ow.inner.init", p->reg_n, AT_IR_UNROLLED);
    e.cc_base = at_ir_mul(s, at_ir_v(s, owb.var), at_tmpl_i(s, p->oc_bn));
    const at_ir_stmt *init = at_tmpl_nest(s, &owb, 1, over_ocb(s, p, "ocb.init", init_body, &e));

    /* update: ic_chunk, kh, (ic_block, kw unrolled | kw, ic_block), ow_block unrolled, oc_block */
    at_tmpl_loop icc = at_tmpl_loop_new(s, "icc", p->icc, AT_IR_SERIAL), kh = at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL);
    at_tmpl_loop icb = at_tmpl_loop_new(s, "icb", p->ic_bn, AT_IR_SERIAL);
    /* kw unrolled in a border chunk too, so that its column guards fold to constants */
    at_tmpl_loop kw = at_tmpl_loop_new(s, "kw", g->kw, p->unroll_kw || border ? AT_IR_UNROLLED : AT_IR_SERIAL);
    owb = at_tmpl_loop_new(s, "ow.inner", p->reg_n, AT_IR_UNROLLED);
    e.icc = at_ir_v(s, icc.var);
    e.kh = at_ir_v(s, kh.var);
    e.icb = at_ir_v(s, icb.var);
    e.kw = at_ir_v(s, kw.var);
    e.ow = at_ir_add(s, ow0, at_ir_v(s, owb.var));
    e.cc_base = at_ir_mul(s, at_ir_v(s, owb.var), at_tmpl_i(s, p->oc_bn));
    const at_ir_expr *cond = tail_guard(s, p, e.oh, e.ow);
    if (border) cond = at_tmpl_and(s, cond, at_tmpl_nchwc_col_inside(s, g, at_tmpl_nchwc_in_col(s, g, e.ow, e.kw)));
    const at_ir_stmt *upd = at_tmpl_nest(s, &owb, 1, guarded(s, cond, over_ocb(s, p, "ocb", update_body, &e)));
    if (nb->when) upd = at_ir_seq2(s, prefetch_next_block(s, p, nb, &e), upd);
    at_tmpl_loop inner[2] = {p->unroll_kw ? icb : kw, p->unroll_kw ? kw : icb};
    upd = guarded(s, at_tmpl_nchwc_row_inside(s, g, at_tmpl_nchwc_in_row(s, g, e.oh, e.kh)), at_tmpl_nest(s, inner, 2, upd));
    at_tmpl_loop outer[2] = {icc, kh};
    upd = at_tmpl_nest(s, outer, 2, upd);

    /* the block written out: ow_block, oc_block vectorized */
    owb = at_tmpl_loop_new(s, "ow.inner.out", p->reg_n, AT_IR_SERIAL);
    e.ow = at_ir_add(s, ow0, at_ir_v(s, owb.var));
    e.cc_base = at_ir_mul(s, at_ir_v(s, owb.var), at_tmpl_i(s, p->oc_bn));
    const at_ir_stmt *st = at_tmpl_nest(s, &owb, 1, guarded(s, tail_guard(s, p, e.oh, e.ow), over_ocb(s, p, "ocb.out", store_body, &e)));

    const at_ir_stmt *items[3] = {init, upd, st};
    return at_ir_seq(s, items, 3);
}

/* avx_common: parallel (n, oc_chunk, oh); ow split by reg_n, the border chunks and the interior
 * ones in loops of their own (templates/nchwc_x86.c). */
static void conv_common(at_ir_sched *s, const plan *p)
{
    const at_conv2d_geom *g = &p->g;
    const at_ir_buffer *cc = at_ir_alloc(s, "conv_global", p->ot, p->reg_n * p->oc_bn, AT_IR_PRIVATE);
    at_tmpl_loop f = at_tmpl_loop_new(s, "n.occ.oh.fused", g->n * p->occ * g->oh, AT_IR_PARALLEL);
    const at_ir_expr *fv = at_ir_v(s, f.var);
    elem e = {.cc = cc,
              .nn = at_tmpl_unfuse(s, fv, p->occ * g->oh, g->n, true),
              .oc = at_tmpl_unfuse(s, fv, g->oh, p->occ, false),
              .oh = at_tmpl_unfuse(s, fv, 1, g->oh, false)};
    at_tmpl_chunk_range r[3];
    size_t nr = at_tmpl_nchwc_chunk_ranges(g, p->reg_n, p->ow_chunk, r);
    const at_ir_stmt *loops[3];
    const next_block rows = next_block_rows(p);
    for (size_t i = 0; i < nr; i++) {
        const at_ir_expr *ow0;
        at_tmpl_loop owc = at_tmpl_nchwc_chunk_loop(s, &r[i], p->reg_n, &ow0);
        /* the first ow chunk of a prefetching row */
        next_block nb = rows;
        if (i == 0 && rows.n > 0) {
            nb.when = at_tmpl_and(s, at_ir_bin(s, AT_IR_GE, e.oh, at_tmpl_i(s, rows.first)), lt(s, e.oh, rows.first + rows.n));
            if (r[i].end - r[i].begin > 1) nb.when = at_tmpl_and(s, nb.when, at_ir_bin(s, AT_IR_EQ, at_ir_v(s, owc.var), at_tmpl_i(s, 0)));
        }
        loops[i] = at_tmpl_nest(s, &owc, 1, chunk_common(s, p, e, ow0, r[i].border, &nb));
    }
    at_ir_add_kernel(s, "conv2d_NCHWc_kernel", at_tmpl_nest(s, &f, 1, at_ir_seq(s, loops, nr)));
}

/* 1x1: row chunk ohc's share of the next block's weights (next_block), prefetched from its first
 * ow chunk: the whole ic chunk icc of the next block (ic_bn x oc_bn weights, contiguous) at once
 * when icc OH_CHUNK / ICC == ohc, under a branch per ic chunk, outside the ic_block loop (a test
 * or a select per ic_block cost more than the prefetch won). Only where it pays (mobilenet's
 * layers in the network, 2 threads):
 * - an ic chunk does at least PREFETCH_MIN_MACS multiply-adds: on narrower chunks (the 7 x 7
 *   layers with ic_bn 2-8 and 4-wide rows: 512-2048) the test alone made a layer 15-40 % slower;
 * - a block has at most PREFETCH_MAX_ROW_CHUNKS row chunks: only the first finds the weights cold,
 *   so the stall it saves is a share 1 / oh_chunk of the block's (the 14 x 14 layers with tile_oh
 *   2, 7 chunks: 0.49 -> 0.465 ms; 14-56 chunks: 0-7 % slower). */
enum { PREFETCH_MIN_MACS = 4096, PREFETCH_MAX_ROW_CHUNKS = 8 };

static bool prefetches_1x1(const plan *p)
{
    return p->occ > 1 && p->oh_chunk <= PREFETCH_MAX_ROW_CHUNKS && p->ic_bn * p->oh_f * p->reg_n * p->oc_bn >= PREFETCH_MIN_MACS;
}

static const at_ir_stmt *prefetch_next_chunk_1x1(at_ir_sched *s, const plan *p, const elem *e, const at_ir_expr *ohc,
                                                 const at_ir_expr *owo)
{
    const int64_t per_line = 64 / (int64_t)at_ir_type_bytes(p->kvec->elem), chunk = p->ic_bn * p->oc_bn;
    const at_ir_expr *mine = at_ir_bin(s, AT_IR_EQ, at_ir_div(s, at_ir_mul(s, e->icc, at_tmpl_i(s, p->oh_chunk)), at_tmpl_i(s, p->icc)), ohc);
    const at_ir_expr *cond = at_tmpl_and(s, at_tmpl_and(s, at_ir_bin(s, AT_IR_EQ, owo, at_tmpl_i(s, 0)), lt(s, e->oc, p->occ - 1)), mine);
    at_tmpl_loop l = at_tmpl_loop_new(s, "pf.line", (chunk + per_line - 1) / per_line, AT_IR_SERIAL);
    /* kernel_vec[oc + 1][icc][0][0][0][0] + line * per_line */
    const at_ir_expr *base = at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_add(s, e->oc, at_tmpl_i(s, 1)), at_tmpl_i(s, p->icc)), e->icc),
                                       at_tmpl_i(s, chunk));
    const at_ir_stmt *pf = at_ir_prefetch(s, p->kvec, at_ir_add(s, base, at_ir_mul(s, at_ir_v(s, l.var), at_tmpl_i(s, per_line))));
    return at_ir_if(s, cond, at_tmpl_nest(s, &l, 1, pf), NULL);
}

/* avx_1x1: parallel (n, oc_chunk, oh outer); CC covers oh_f rows of the whole (rounded) width. */
static void conv_1x1(at_ir_sched *s, const plan *p)
{
    const at_conv2d_geom *g = &p->g;
    const int64_t wr = p->ow_chunk * p->reg_n;
    const at_ir_buffer *cc = at_ir_alloc(s, "conv_global", p->ot, p->oh_f * wr * p->oc_bn, AT_IR_PRIVATE);
    at_tmpl_loop f = at_tmpl_loop_new(s, "n.occ.oh.outer.fused", g->n * p->occ * p->oh_chunk, AT_IR_PARALLEL);
    const at_ir_expr *fv = at_ir_v(s, f.var);
    elem e = {.cc = cc,
              .nn = at_tmpl_unfuse(s, fv, p->occ * p->oh_chunk, g->n, true),
              .oc = at_tmpl_unfuse(s, fv, p->oh_chunk, p->occ, false),
              .kh = at_tmpl_i(s, 0),
              .kw = at_tmpl_i(s, 0)};
    const at_ir_expr *oh0 = at_ir_mul(s, at_tmpl_unfuse(s, fv, 1, p->oh_chunk, false), at_tmpl_i(s, p->oh_f));

    /* the CC index of (oh_inner, ow) */
#define CC_BASE(ohi, ow) at_ir_mul(s, at_ir_add(s, at_ir_mul(s, (ohi), at_tmpl_i(s, wr)), (ow)), at_tmpl_i(s, p->oc_bn))
    at_tmpl_loop owo = at_tmpl_loop_new(s, "ow.outer", p->ow_chunk, AT_IR_SERIAL);
    const at_ir_expr *ow0 = at_ir_mul(s, at_ir_v(s, owo.var), at_tmpl_i(s, p->reg_n));
    at_tmpl_loop ii[2] = {at_tmpl_loop_new(s, "oh.inner.init", p->oh_f, AT_IR_UNROLLED),
                          at_tmpl_loop_new(s, "ow.inner.init", p->reg_n, AT_IR_UNROLLED)};
    e.cc_base = CC_BASE(at_ir_v(s, ii[0].var), at_ir_add(s, ow0, at_ir_v(s, ii[1].var)));
    const at_ir_stmt *init = at_tmpl_nest(s, ii, 2, over_ocb(s, p, "ocb.init", init_body, &e));

    at_tmpl_loop ul[4] = {at_tmpl_loop_new(s, "icc", p->icc, AT_IR_SERIAL), at_tmpl_loop_new(s, "icb", p->ic_bn, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "oh.inner", p->oh_f, AT_IR_UNROLLED),
                          at_tmpl_loop_new(s, "ow.inner", p->reg_n, AT_IR_UNROLLED)};
    e.icc = at_ir_v(s, ul[0].var);
    e.icb = at_ir_v(s, ul[1].var);
    e.oh = at_ir_add(s, oh0, at_ir_v(s, ul[2].var));
    e.ow = at_ir_add(s, ow0, at_ir_v(s, ul[3].var));
    e.cc_base = CC_BASE(at_ir_v(s, ul[2].var), e.ow);
    /* a padded 1x1 convolution (rare) guards every tap */
    const at_ir_expr *tap_ok = at_tmpl_and(s, at_tmpl_nchwc_row_inside(s, g, at_tmpl_nchwc_in_row(s, g, e.oh, e.kh)),
                                           at_tmpl_nchwc_col_inside(s, g, at_tmpl_nchwc_in_col(s, g, e.ow, e.kw)));
    const at_ir_stmt *upd =
        at_tmpl_nest(s, &ul[1], 3, guarded(s, at_tmpl_and(s, tail_guard(s, p, e.oh, e.ow), tap_ok), over_ocb(s, p, "ocb", update_body, &e)));
    if (prefetches_1x1(p)) upd = at_ir_seq2(s, prefetch_next_chunk_1x1(s, p, &e, at_tmpl_unfuse(s, fv, 1, p->oh_chunk, false), at_ir_v(s, owo.var)), upd);
    upd = at_tmpl_nest(s, ul, 1, upd);

    /* the output stage's order: ow outer, oh inner, ow inner, oc_block vectorized */
    at_tmpl_loop ol[3] = {at_tmpl_loop_new(s, "ow.outer.out", p->ow_chunk, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "oh.inner.out", p->oh_f, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "ow.inner.out", p->reg_n, AT_IR_SERIAL)};
    e.oh = at_ir_add(s, oh0, at_ir_v(s, ol[1].var));
    e.ow = at_ir_add(s, at_ir_mul(s, at_ir_v(s, ol[0].var), at_tmpl_i(s, p->reg_n)), at_ir_v(s, ol[2].var));
    e.cc_base = CC_BASE(at_ir_v(s, ol[1].var), e.ow);
#undef CC_BASE
    const at_ir_stmt *st = at_tmpl_nest(s, ol, 3, guarded(s, tail_guard(s, p, e.oh, e.ow), over_ocb(s, p, "ocb.out", store_body, &e)));

    const at_ir_stmt *per_chunk = at_tmpl_nest(s, &owo, 1, at_ir_seq2(s, init, upd));
    at_ir_add_kernel(s, "conv2d_NCHWc_kernel", at_tmpl_nest(s, &f, 1, at_ir_seq2(s, per_chunk, st)));
}

static at_status build(const at_args *args, const at_config *c, at_ir_sched *s, bool packed)
{
    plan p = {0};
    AT_TRY(read_config(args, c, &p));
    const at_conv2d_args *a = &args->u.conv2d;
    const at_conv2d_geom *g = &p.g;
    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, g->co * g->ci * g->kh * g->kw, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", p.ot, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    p.kvec = at_ir_temp(s, "kernel_vec", a->kernel_dtype, g->co * g->ci * g->kh * g->kw);
    p.xin = data;
    p.out = out;
    if (!packed) {
        p.xin = at_ir_temp(s, "data_vec", a->dtype, g->n * g->ci * g->ih * g->iw);
        p.out = at_ir_temp(s, "conv2d_NCHWc", p.ot, g->n * g->co * g->oh * g->ow);
        at_tmpl_nchwc_data_vec(s, data, p.xin, g->n, g->ci, g->ih, g->iw, p.ic_bn);
    }
    kernel_vec_stage(s, &p, kernel);
    if (p.one_by_one)
        conv_1x1(s, &p);
    else
        conv_common(s, &p);
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
    const at_conv2d_args *a = &args->u.conv2d;
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, a, &g);
    int64_t oc_bn = at_tmpl_x86_block(g.co, AT_TMPL_X86_SIMD_LANES), ic_bn = at_tmpl_x86_block(g.ci, oc_bn);
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_IC, (const int64_t[]){g.ci / ic_bn, ic_bn}, 2));
    AT_TRY(at_tmpl_fallback_split(s, c, TILE_OC, (const int64_t[]){g.co / oc_bn, oc_bn}, 2));
    at_entity e = {.name = at_space_knob_name(s, KNOB_3), .kind = AT_KNOB_OTHER};
    if (!is_1x1(a)) {
        int64_t reg_n = at_tmpl_x86_block(g.ow, 31);
        AT_TRY(at_tmpl_fallback_split(s, c, TILE_OW, (const int64_t[]){g.ow / reg_n, reg_n}, 2));
        e.val = (at_val){.kind = AT_VAL_BOOL, .b = false};
        return at_space_fallback_set(s, c, KNOB_3, &e);
    }
    for (int64_t owf = g.ow; owf >= 1; owf--) {
        if (g.ow % owf) continue;
        for (int64_t ohf = g.oh; ohf >= 1; ohf--) {
            if (g.oh % ohf || owf * ohf >= 32) continue;
            e.val = AT_VAL_OF_INT(ohf);
            AT_TRY(at_space_fallback_set(s, c, KNOB_3, &e));
            return at_tmpl_fallback_split(s, c, TILE_OW, (const int64_t[]){g.ow / owf, owf}, 2);
        }
    }
    return AT_FAIL(AT_EINVAL, "conv2d_NCHWc.x86: cannot decide a default schedule"); /* ow = oh = 1 always fits */
}

const at_template at_tmpl_conv2d_NCHWc_x86 = {
    .name = "conv2d_NCHWc.x86",
    .op = AT_OP_CONV2D_NCHWC,
    .target = AT_TARGET_LLVM,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .schedule_packed = schedule_packed,
    .fallback = fallback,
};
