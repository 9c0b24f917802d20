/* The compute TVM's Mali and arm_cpu spatial-pack conv2d templates share (topi/arm_cpu/
 * conv2d_spatial_pack.py conv2d_spatial_pack_nchw, num_tile 3 or 2): its knobs, its tile geometry
 * and buffers, data_vec's index code and conv's update term. What each target schedules differently
 * (loop bindings, unroll limits, kernel_vec, the unpack) stays in its own template file; the
 * helpers here take those differences as arguments and build the IR in the same order either way. */
#include <string.h>

#include "templates/internal.h"

at_status at_tmpl_sp_define_space(const at_args *args, at_space *s, size_t num_tile)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    return at_tmpl_sp_define_space_geom(&g, s, num_tile);
}

at_status at_tmpl_sp_define_space_geom(const at_conv2d_geom *gp, at_space *s, size_t num_tile)
{
    AT_ASSERT(num_tile == 2 || num_tile == 3);
    const at_conv2d_geom g = *gp;
    /* axes [n, co, oh, ow, ci, kh, kw, vh, vw, vc]; candidates keep vh, vw, vc or put vc first */
    static const int64_t cands[2 * 10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 9, 7, 8};
    AT_TRY(at_space_split_ex(s, AT_TMPL_SP_TILE_CO, "tile_co", g.co, &(at_split_opts){.num_outputs = num_tile}));
    AT_TRY(at_space_split_ex(s, AT_TMPL_SP_TILE_OH, "tile_oh", g.oh, &(at_split_opts){.num_outputs = num_tile}));
    AT_TRY(at_space_split_ex(s, AT_TMPL_SP_TILE_OW, "tile_ow", g.ow, &(at_split_opts){.num_outputs = num_tile}));
    AT_TRY(at_space_reorder_ex(s, AT_TMPL_SP_REORDER_0, "reorder_0", 10,
                               &(at_reorder_opts){.policy = AT_REORDER_CANDIDATE, .candidates = cands, .n_candidates = 2}));
    AT_TRY(at_space_annotate(s, AT_TMPL_SP_ANN_REDUCE, "ann_reduce", 2, "try_unroll"));
    return at_space_annotate(s, AT_TMPL_SP_ANN_SPATIAL, "ann_spatial", 3, "try_unroll_vec");
}

at_status at_tmpl_sp_init(const at_args *args, const at_config *c, size_t num_tile, bool as_given, at_ir_sched *s,
                          at_tmpl_sp *p)
{
    AT_ASSERT(num_tile == 2 || num_tile == 3);
    const at_conv2d_args *a = &args->u.conv2d;
    memset(p, 0, sizeof *p);
    at_op_conv2d_geom(args->op, a, &p->g);
    const at_conv2d_geom *g = &p->g;
    p->dt = a->dtype;
    p->kt = a->kernel_dtype;
    p->ot = a->out_dtype;
    at_status (*split)(const at_config *, size_t, int64_t, size_t, int64_t *) =
        as_given ? at_tmpl_split_inner : at_tmpl_split_parts;
    int64_t co[3], oh[3], ow[3];
    AT_TRY(split(c, AT_TMPL_SP_TILE_CO, g->co, num_tile, co));
    AT_TRY(split(c, AT_TMPL_SP_TILE_OH, g->oh, num_tile, oh));
    AT_TRY(split(c, AT_TMPL_SP_TILE_OW, g->ow, num_tile, ow));
    p->bc = co[0], p->tc = num_tile == 3 ? co[1] : 1, p->vc = co[num_tile - 1];
    p->bh = oh[0], p->th = num_tile == 3 ? oh[1] : 1, p->vh = oh[num_tile - 1];
    p->bw = ow[0], p->tw = num_tile == 3 ? ow[1] : 1, p->vw = ow[num_tile - 1];
    p->dilated = g->dh != 1 || g->dw != 1;
    p->dvh = p->vh * g->sh + g->kh - 1;
    p->dvw = p->vw * g->sw + g->kw - 1;
    int64_t dvec_size = p->dilated ? g->n * g->oh * g->ow * g->ci * g->kh * g->kw
                                   : g->n * (g->oh / p->vh) * (g->ow / p->vw) * g->ci * p->dvh * p->dvw;
    if ((double)dvec_size > (double)(1LL << 31) - 1)
        return AT_FAIL(AT_EINVAL, "data_vec of %lld elements is too large", (long long)dvec_size);

    p->data = at_ir_param(s, "data", p->dt, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    p->kernel = at_ir_param(s, "kernel", p->kt, g->co * g->ci * g->kh * g->kw, AT_IR_INPUT);
    p->out = at_ir_param(s, "output", p->ot, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    p->kvec = at_ir_temp(s, "kernel_vec", p->kt, g->co * g->ci * g->kh * g->kw);
    p->dvec = at_ir_temp(s, p->dilated ? "data_vec_undilated" : "data_vec", p->dt, dvec_size);
    return AT_OK;
}

/* A window loop of data_vec: unrolled when shorter than max_unroll (0: never). */
static at_ir_for_kind window_kind(int64_t extent, int64_t max_unroll)
{
    return max_unroll && extent < max_unroll ? AT_IR_UNROLLED : AT_IR_SERIAL;
}

void at_tmpl_sp_data_vec(at_ir_sched *s, const at_tmpl_sp *p, at_tmpl_loop *l, size_t n_outer, int64_t max_unroll)
{
    AT_ASSERT(n_outer >= 4);
    const at_conv2d_geom *g = &p->g;
    int64_t oh_b = g->oh / p->vh, ow_b = g->ow / p->vw;
    size_t n = n_outer;
    const at_ir_expr *nn = at_ir_v(s, l[0].var), *h = at_ir_v(s, l[1].var), *w = at_ir_v(s, l[2].var), *ci = at_ir_v(s, l[3].var);
    const at_ir_expr *hp, *wp, *idx;
    int64_t h_max, w_max;
    if (!p->dilated) {
        l[n++] = at_tmpl_loop_new(s, "vh", p->dvh, window_kind(p->dvh, max_unroll));
        l[n++] = at_tmpl_loop_new(s, "vw", p->dvw, window_kind(p->dvw, max_unroll));
        const at_ir_expr *vh = at_ir_v(s, l[n_outer].var), *vw = at_ir_v(s, l[n_outer + 1].var);
        hp = at_ir_add(s, at_ir_mul(s, h, at_tmpl_i(s, p->vh * g->sh)), vh);
        wp = at_ir_add(s, at_ir_mul(s, w, at_tmpl_i(s, p->vw * g->sw)), vw);
        h_max = (oh_b - 1) * p->vh * g->sh + p->dvh - 1;
        w_max = (ow_b - 1) * p->vw * g->sw + p->dvw - 1;
        const at_ir_expr *di[6] = {nn, h, w, ci, vh, vw};
        const int64_t dd[6] = {g->n, oh_b, ow_b, g->ci, p->dvh, p->dvw};
        idx = at_tmpl_index(s, di, dd, 6);
    } else {
        l[n++] = at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL);
        l[n++] = at_tmpl_loop_new(s, "vh", p->vh, window_kind(p->vh, max_unroll));
        l[n++] = at_tmpl_loop_new(s, "vw", p->vw, window_kind(p->vw, max_unroll));
        const at_ir_expr *kh = at_ir_v(s, l[n_outer].var), *kw = at_ir_v(s, l[n_outer + 1].var),
                         *vh = at_ir_v(s, l[n_outer + 2].var), *vw = at_ir_v(s, l[n_outer + 3].var);
        hp = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, h, at_tmpl_i(s, p->vh)), vh), at_tmpl_i(s, g->sh)),
                       at_ir_mul(s, kh, at_tmpl_i(s, g->dh)));
        wp = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, w, at_tmpl_i(s, p->vw)), vw), at_tmpl_i(s, g->sw)),
                       at_ir_mul(s, kw, at_tmpl_i(s, g->dw)));
        h_max = (g->oh - 1) * g->sh + (g->kh - 1) * g->dh;
        w_max = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw;
        const at_ir_expr *di[8] = {nn, h, w, ci, kh, kw, vh, vw};
        const int64_t dd[8] = {g->n, oh_b, ow_b, g->ci, g->kh, g->kw, p->vh, p->vw};
        idx = at_tmpl_index(s, di, dd, 8);
    }
    const at_ir_expr *val = at_tmpl_pad_load(s, p->data, g, nn, ci, hp, wp, h_max, w_max);
    at_ir_add_kernel(s, "data_vec_kernel", at_tmpl_nest(s, l, n, at_ir_store(s, p->dvec, idx, val)));
}

/* The order of vh, vw, vc (0, 1, 2) from reorder_0: the perm must keep the first 7 axes. */
static at_status spatial_order(const at_config *c, int order[3])
{
    const at_entity *e = at_config_at(c, AT_TMPL_SP_REORDER_0);
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

at_status at_tmpl_sp_conv_kinds(const at_config *c, const at_tmpl_sp *p, int64_t max_unroll, const int64_t *vec_size,
                                size_t n_vec, int order[3], at_ir_for_kind red_kind[2], at_ir_for_kind sp_kind[3])
{
    AT_TRY(spatial_order(c, order));
    const int64_t red_lens[2] = {p->g.kh, p->g.kw}, sp_lens[3] = {p->vh, p->vw, p->vc};
    AT_TRY(at_tmpl_annotate(c, AT_TMPL_SP_ANN_REDUCE, 2, red_lens, max_unroll, NULL, 0, red_kind));
    return at_tmpl_annotate(c, AT_TMPL_SP_ANN_SPATIAL, 3, sp_lens, max_unroll, vec_size, n_vec, sp_kind);
}

const at_ir_expr *at_tmpl_sp_conv_term(at_ir_sched *s, const at_tmpl_sp *p, const at_ir_expr *nn, const at_ir_expr *h,
                                       const at_ir_expr *w, const at_ir_expr *co, const at_ir_expr *ci,
                                       const at_ir_expr *kh, const at_ir_expr *kw, const at_ir_expr *const spv[3])
{
    const at_conv2d_geom *g = &p->g;
    int64_t oh_b = g->oh / p->vh, ow_b = g->ow / p->vw;
    const at_ir_expr *didx;
    if (!p->dilated) {
        const at_ir_expr *di[6] = {nn, h, w, ci, at_ir_add(s, at_ir_mul(s, spv[0], at_tmpl_i(s, g->sh)), kh),
                                   at_ir_add(s, at_ir_mul(s, spv[1], at_tmpl_i(s, g->sw)), kw)};
        const int64_t dd[6] = {g->n, oh_b, ow_b, g->ci, p->dvh, p->dvw};
        didx = at_tmpl_index(s, di, dd, 6);
    } else {
        const at_ir_expr *di[8] = {nn, h, w, ci, kh, kw, spv[0], spv[1]};
        const int64_t dd[8] = {g->n, oh_b, ow_b, g->ci, g->kh, g->kw, p->vh, p->vw};
        didx = at_tmpl_index(s, di, dd, 8);
    }
    const at_ir_expr *ki[5] = {co, ci, kh, kw, spv[2]};
    const int64_t kd[5] = {g->co / p->vc, g->ci, g->kh, g->kw, p->vc};
    return at_ir_mul(s, at_tmpl_cast(s, p->ot, at_ir_load(s, p->dvec, didx, 1)),
                     at_tmpl_cast(s, p->ot, at_ir_load(s, p->kvec, at_tmpl_index(s, ki, kd, 5), 1)));
}
