/* conv2d_nchw_spatial_pack.arm_cpu: TVM v0.18's ARM CPU spatial-pack conv2d (compute
 * arm_cpu/conv2d_spatial_pack.py with num_tile=2, schedule schedule_conv2d_spatial_pack_nchw).
 * Knobs, in TVM's order: tile_co, tile_oh, tile_ow (2-way splits: blocks, per-block VC/VH/VW),
 * reorder_0 (vh,vw,vc or vc,vh,vw innermost), ann_reduce on (kh, kw) (try_unroll), ann_spatial on
 * (vh, vw, vc) (try_unroll_vec), both without an unroll limit or a lane list, as TVM applies them.
 *
 * Three kernels, as TVM compiles the tuning task: kernel_vec packs the weights (CO/VC, CI, KH, KW,
 * VC), a placeholder while TVM tunes, so a preparation kernel here (parallel over co, as TVM's
 * deployed schedule); data_vec copies each output tile's zero-padded input window, parallel over
 * the tile rows h; then output_unpack, split by the tiles and ordered n, co, oh, ow, vh, vw, vc with
 * co parallel, holds conv computed at ow: a VH x VW x VC block in private memory, initialised,
 * accumulated over ci, kh, kw and the spatial loops in reorder_0's order with their annotations,
 * then written out NCHW. Fallback: TVM's reference-log fallback over TopHub's arm_cpu rk3399
 * records of this template. */
#include <string.h>

#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_CO, TILE_OH, TILE_OW, REORDER_0, ANN_REDUCE, ANN_SPATIAL, N_KNOBS };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    /* axes [n, co, oh, ow, ci, kh, kw, vh, vw, vc]; candidates keep vh, vw, vc or put vc first */
    static const int64_t cands[2 * 10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 9, 7, 8};
    AT_TRY(at_space_split_ex(s, TILE_CO, "tile_co", g.co, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, TILE_OH, "tile_oh", g.oh, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, TILE_OW, "tile_ow", g.ow, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_reorder_ex(s, REORDER_0, "reorder_0", 10,
                               &(at_reorder_opts){.policy = AT_REORDER_CANDIDATE, .candidates = cands, .n_candidates = 2}));
    AT_TRY(at_space_annotate(s, ANN_REDUCE, "ann_reduce", 2, "try_unroll"));
    return at_space_annotate(s, ANN_SPATIAL, "ann_spatial", 3, "try_unroll_vec");
}

static at_status fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c)
{
    (void)args;
    return at_space_fallback_with_reference_log(s, c, refs, n_refs);
}

/* The order of vh, vw, vc (0, 1, 2) from reorder_0: the perm must keep the first 7 axes. */
static at_status spatial_order(const at_config *c, int order[3])
{
    const at_entity *e = at_config_at(c, REORDER_0);
    AT_ASSERT(e->kind == AT_KNOB_REORDER);
    bool ok = e->n == 10;
    for (size_t i = 0; ok && i < 7; i++) ok = e->ints[i] == (int64_t)i;
    int seen = 0;
    for (size_t i = 7; ok && i < 10; i++) {
        int64_t v = e->ints[i];
        ok = v >= 7 && v <= 9 && !(seen & (1 << (v - 7)));
        if (ok) {
            seen |= 1 << (v - 7);
            order[i - 7] = (int)(v - 7);
        }
    }
    if (!ok) return AT_FAIL(AT_EINVAL, "reorder_0: expected a permutation of [n, co, oh, ow, ci, kh, kw, vh, vw, vc] "
                            "that moves only vh, vw, vc");
    return AT_OK;
}

typedef struct sp {
    at_conv2d_geom g;
    at_ir_type     dt, kt, ot;
    int64_t        bc, vc, bh, vh, bw, vw;
    int64_t        dvh, dvw; /* data_vec window (undilated); dilated: KH x KW x VH x VW per tile */
    bool           dilated;
} sp;

/* kernel_vec[co][ci][kh][kw][vc] = kernel[co VC + vc][ci][kh][kw], parallel over co. */
static void kernel_vec_stage(at_ir_sched *s, const sp *p, const at_ir_buffer *kernel, const at_ir_buffer *kvec)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop l[5] = {at_tmpl_loop_new(s, "co", p->bc, AT_IR_PARALLEL), at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL), at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "vc", p->vc, AT_IR_SERIAL)};
    const at_ir_expr *v[5];
    for (int i = 0; i < 5; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *ki[4] = {at_ir_add(s, at_ir_mul(s, v[0], at_tmpl_i(s, p->vc)), v[4]), v[1], v[2], v[3]};
    const int64_t kd[4] = {g->co, g->ci, g->kh, g->kw};
    const int64_t vd[5] = {p->bc, g->ci, g->kh, g->kw, p->vc};
    const at_ir_stmt *st = at_ir_store(s, kvec, at_tmpl_index(s, v, vd, 5), at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1));
    at_ir_add_prepare_kernel(s, "kernel_vec_kernel", at_tmpl_nest(s, l, 5, st));
}

/* data_vec, parallel over its tile rows h (axis 1), the rest serial. */
static void data_vec_stage(at_ir_sched *s, const sp *p, const at_ir_buffer *data, const at_ir_buffer *dvec)
{
    const at_conv2d_geom *g = &p->g;
    at_tmpl_loop l[8];
    size_t n = 0;
    l[n++] = at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL);
    l[n++] = at_tmpl_loop_new(s, "h", p->bh, AT_IR_PARALLEL);
    l[n++] = at_tmpl_loop_new(s, "w", p->bw, AT_IR_SERIAL);
    l[n++] = at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL);
    const at_ir_expr *nn = at_ir_v(s, l[0].var), *h = at_ir_v(s, l[1].var), *w = at_ir_v(s, l[2].var), *ci = at_ir_v(s, l[3].var);
    const at_ir_expr *hp, *wp, *idx;
    int64_t h_max, w_max;
    if (!p->dilated) {
        l[n++] = at_tmpl_loop_new(s, "vh", p->dvh, AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "vw", p->dvw, AT_IR_SERIAL);
        const at_ir_expr *vh = at_ir_v(s, l[4].var), *vw = at_ir_v(s, l[5].var);
        hp = at_ir_add(s, at_ir_mul(s, h, at_tmpl_i(s, p->vh * g->sh)), vh);
        wp = at_ir_add(s, at_ir_mul(s, w, at_tmpl_i(s, p->vw * g->sw)), vw);
        h_max = (p->bh - 1) * p->vh * g->sh + p->dvh - 1;
        w_max = (p->bw - 1) * p->vw * g->sw + p->dvw - 1;
        const at_ir_expr *di[6] = {nn, h, w, ci, vh, vw};
        const int64_t dd[6] = {g->n, p->bh, p->bw, g->ci, p->dvh, p->dvw};
        idx = at_tmpl_index(s, di, dd, 6);
    } else {
        l[n++] = at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "vh", p->vh, AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "vw", p->vw, AT_IR_SERIAL);
        const at_ir_expr *kh = at_ir_v(s, l[4].var), *kw = at_ir_v(s, l[5].var), *vh = at_ir_v(s, l[6].var),
                         *vw = at_ir_v(s, l[7].var);
        hp = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, h, at_tmpl_i(s, p->vh)), vh), at_tmpl_i(s, g->sh)),
                       at_ir_mul(s, kh, at_tmpl_i(s, g->dh)));
        wp = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, w, at_tmpl_i(s, p->vw)), vw), at_tmpl_i(s, g->sw)),
                       at_ir_mul(s, kw, at_tmpl_i(s, g->dw)));
        h_max = (g->oh - 1) * g->sh + (g->kh - 1) * g->dh;
        w_max = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw;
        const at_ir_expr *di[8] = {nn, h, w, ci, kh, kw, vh, vw};
        const int64_t dd[8] = {g->n, p->bh, p->bw, g->ci, g->kh, g->kw, p->vh, p->vw};
        idx = at_tmpl_index(s, di, dd, 8);
    }
    const at_ir_expr *val = at_tmpl_pad_load(s, data, g, nn, ci, hp, wp, h_max, w_max);
    at_ir_add_kernel(s, "data_vec_kernel", at_tmpl_nest(s, l, n, at_ir_store(s, dvec, idx, val)));
}

/* output_unpack (n, co parallel, oh, ow, vh, vw, vc) with conv computed at ow in private memory. */
static at_status conv_stage(at_ir_sched *s, const sp *p, const at_config *c, const at_ir_buffer *dvec,
                            const at_ir_buffer *kvec, const at_ir_buffer *out)
{
    const at_conv2d_geom *g = &p->g;
    int order[3];
    AT_TRY(spatial_order(c, order));
    at_ir_for_kind red_kind[2], sp_kind[3];
    const int64_t red_lens[2] = {g->kh, g->kw}, sp_lens[3] = {p->vh, p->vw, p->vc};
    AT_TRY(at_tmpl_annotate(c, ANN_REDUCE, 2, red_lens, 0, NULL, 0, red_kind));
    AT_TRY(at_tmpl_annotate(c, ANN_SPATIAL, 3, sp_lens, 0, NULL, 0, sp_kind));

    const at_ir_buffer *conv = at_ir_alloc(s, "conv", p->ot, p->vh * p->vw * p->vc, AT_IR_PRIVATE);
    at_tmpl_loop outer[4] = {at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL), at_tmpl_loop_new(s, "co", p->bc, AT_IR_PARALLEL),
                             at_tmpl_loop_new(s, "oh", p->bh, AT_IR_SERIAL), at_tmpl_loop_new(s, "ow", p->bw, AT_IR_SERIAL)};
    const at_ir_expr *nn = at_ir_v(s, outer[0].var), *co = at_ir_v(s, outer[1].var), *oh = at_ir_v(s, outer[2].var),
                     *ow = at_ir_v(s, outer[3].var);
    const int64_t ldims[3] = {p->vh, p->vw, p->vc};

    /* the spatial loops in reorder_0's order, for the init nest and for the update */
    const char *sp_names[3] = {"vh", "vw", "vc"}, *init_names[3] = {"vh_init", "vw_init", "vc_init"};
    at_tmpl_axis spa[3], inita[3];
    const at_ir_expr *spv[3], *initv[3];
    for (int i = 0; i < 3; i++) {
        int ax = order[i];
        spa[i] = at_tmpl_cpu_axis(s, sp_names[ax], sp_lens[ax], sp_kind[ax]);
        inita[i] = at_tmpl_cpu_axis(s, init_names[ax], sp_lens[ax], sp_kind[ax]);
        spv[ax] = spa[i].index;
        initv[ax] = inita[i].index;
    }
    at_tmpl_loop loops[6];
    size_t nl = at_tmpl_axes_loops(inita, 3, loops);
    const at_ir_stmt *init = at_tmpl_nest(s, loops, nl, at_ir_store(s, conv, at_tmpl_index(s, initv, ldims, 3), at_tmpl_f(s, p->ot, 0)));

    at_tmpl_loop red[3] = {at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL), at_tmpl_loop_new(s, "kh", g->kh, red_kind[0]),
                           at_tmpl_loop_new(s, "kw", g->kw, red_kind[1])};
    const at_ir_expr *ci = at_ir_v(s, red[0].var), *kh = at_ir_v(s, red[1].var), *kw = at_ir_v(s, red[2].var);
    const at_ir_expr *lidx = at_tmpl_index(s, spv, ldims, 3);
    const at_ir_expr *didx;
    if (!p->dilated) {
        const at_ir_expr *di[6] = {nn, oh, ow, ci, at_ir_add(s, at_ir_mul(s, spv[0], at_tmpl_i(s, g->sh)), kh),
                                   at_ir_add(s, at_ir_mul(s, spv[1], at_tmpl_i(s, g->sw)), kw)};
        const int64_t dd[6] = {g->n, p->bh, p->bw, g->ci, p->dvh, p->dvw};
        didx = at_tmpl_index(s, di, dd, 6);
    } else {
        const at_ir_expr *di[8] = {nn, oh, ow, ci, kh, kw, spv[0], spv[1]};
        const int64_t dd[8] = {g->n, p->bh, p->bw, g->ci, g->kh, g->kw, p->vh, p->vw};
        didx = at_tmpl_index(s, di, dd, 8);
    }
    const at_ir_expr *ki[5] = {co, ci, kh, kw, spv[2]};
    const int64_t kd[5] = {p->bc, g->ci, g->kh, g->kw, p->vc};
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, p->ot, at_ir_load(s, dvec, didx, 1)),
                                       at_tmpl_cast(s, p->ot, at_ir_load(s, kvec, at_tmpl_index(s, ki, kd, 5), 1)));
    nl = at_tmpl_axes_loops(spa, 3, loops);
    const at_ir_stmt *upd = at_tmpl_nest(s, loops, nl, at_ir_store(s, conv, lidx, at_ir_add(s, at_ir_load(s, conv, lidx, 1), prod)));
    upd = at_tmpl_nest(s, red, 3, upd);

    /* output_unpack's own vh, vw, vc (no annotation: the tuning task's output is output_unpack) */
    at_tmpl_loop ul[3] = {at_tmpl_loop_new(s, "vh.u", p->vh, AT_IR_SERIAL), at_tmpl_loop_new(s, "vw.u", p->vw, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "vc.u", p->vc, AT_IR_SERIAL)};
    const at_ir_expr *uv[3] = {at_ir_v(s, ul[0].var), at_ir_v(s, ul[1].var), at_ir_v(s, ul[2].var)};
    const at_ir_expr *oi[4] = {nn, at_ir_add(s, at_ir_mul(s, co, at_tmpl_i(s, p->vc)), uv[2]),
                               at_ir_add(s, at_ir_mul(s, oh, at_tmpl_i(s, p->vh)), uv[0]),
                               at_ir_add(s, at_ir_mul(s, ow, at_tmpl_i(s, p->vw)), uv[1])};
    const int64_t od[4] = {g->n, g->co, g->oh, g->ow};
    const at_ir_stmt *unpack = at_tmpl_nest(
        s, ul, 3, at_ir_store(s, out, at_tmpl_index(s, oi, od, 4), at_ir_load(s, conv, at_tmpl_index(s, uv, ldims, 3), 1)));

    const at_ir_stmt *items[3] = {init, upd, unpack};
    at_ir_add_kernel(s, "conv_kernel", at_tmpl_nest(s, outer, 4, at_ir_seq(s, items, 3)));
    return AT_OK;
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    sp p;
    memset(&p, 0, sizeof p);
    at_op_conv2d_geom(args->op, a, &p.g);
    const at_conv2d_geom *g = &p.g;
    p.dt = a->dtype;
    p.kt = a->kernel_dtype;
    p.ot = a->out_dtype;
    int64_t co[2], oh[2], ow[2];
    AT_TRY(at_tmpl_split_inner(c, TILE_CO, g->co, 2, co));
    AT_TRY(at_tmpl_split_inner(c, TILE_OH, g->oh, 2, oh));
    AT_TRY(at_tmpl_split_inner(c, TILE_OW, g->ow, 2, ow));
    p.bc = co[0], p.vc = co[1];
    p.bh = oh[0], p.vh = oh[1];
    p.bw = ow[0], p.vw = ow[1];
    p.dilated = g->dh != 1 || g->dw != 1;
    p.dvh = p.vh * g->sh + g->kh - 1;
    p.dvw = p.vw * g->sw + g->kw - 1;
    int64_t dvec_size = p.dilated ? g->n * g->oh * g->ow * g->ci * g->kh * g->kw
                                  : g->n * p.bh * p.bw * g->ci * p.dvh * p.dvw;
    if ((double)dvec_size > (double)(1LL << 31) - 1)
        return AT_FAIL(AT_EINVAL, "data_vec of %lld elements is too large", (long long)dvec_size);

    const at_ir_buffer *data = at_ir_param(s, "data", p.dt, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", p.kt, g->co * g->ci * g->kh * g->kw, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", p.ot, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    const at_ir_buffer *kvec = at_ir_temp(s, "kernel_vec", p.kt, g->co * g->ci * g->kh * g->kw);
    const at_ir_buffer *dvec = at_ir_temp(s, p.dilated ? "data_vec_undilated" : "data_vec", p.dt, dvec_size);

    kernel_vec_stage(s, &p, kernel, kvec);
    data_vec_stage(s, &p, data, dvec);
    AT_TRY(conv_stage(s, &p, c, dvec, kvec, out));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_nchw_spatial_pack_arm_cpu = {
    .name = "conv2d_nchw_spatial_pack.arm_cpu",
    .op = AT_OP_CONV2D_NCHW,
    .target = AT_TARGET_LLVM,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = fallback,
    .ref_backend = "arm_cpu",
    .ref_model = "rk3399",
    .entities_as_given = true,
};
