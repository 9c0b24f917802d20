/* Shared helpers of templates/ (internal.h): float element access for the references and the
 * schedule vocabulary of TVM's GPU templates on the IR. Loop nests are built from a leaf order
 * written outermost first, as TVM's schedules state it, so a template reads like its TVM source. */
#include <math.h>
#include <string.h>

#include "templates/internal.h"

/* ---- element access ------------------------------------------------------------------------- */

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp(mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp(mant | 0x400, exp - 25);
    return (h & 0x8000) ? -v : v;
}

static uint16_t double_to_half(double d)
{
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    d = fabs(d);
    if (isnan(d)) return 0x7e00;
    if (d >= 65520.0) return sign | 0x7c00; /* rounds to infinity */
    int e;
    double fr = frexp(d, &e);               /* d = fr * 2^e, fr in [0.5, 1) */
    if (d == 0) return sign;
    int exp = e - 1 + 15;                   /* biased exponent of 1.xxx * 2^(e-1) */
    double scaled;
    if (exp <= 0) {
        scaled = ldexp(d, 24);              /* subnormal: units of 2^-24 */
        exp = 0;
    } else {
        scaled = ldexp(fr * 2 - 1, 10);     /* mantissa fraction in units of 2^-10 */
    }
    double fl = floor(scaled), rem = scaled - fl;
    uint32_t m = (uint32_t)fl;
    if (rem > 0.5 || (rem == 0.5 && (m & 1))) m++;
    uint32_t bits = exp == 0 ? m : ((uint32_t)exp << 10) + m; /* a carry moves into the exponent */
    return (uint16_t)(sign | bits);
}

double at_tmpl_load_f(at_ir_type t, const void *p, int64_t i)
{
    AT_ASSERT(t.lanes == 1);
    if (t.code == AT_IR_TINT && t.bits == 8) return ((const int8_t *)p)[i];
    if (t.code == AT_IR_TUINT && t.bits == 8) return ((const uint8_t *)p)[i];
    if (t.code == AT_IR_TINT && t.bits == 32) return ((const int32_t *)p)[i];
    AT_ASSERT(t.code == AT_IR_TFLOAT);
    switch (t.bits) {
    case 16: return half_to_double(((const uint16_t *)p)[i]);
    case 32: return ((const float *)p)[i];
    case 64: return ((const double *)p)[i];
    default: AT_ASSERT(!"bad float width");
    }
    return 0;
}

void at_tmpl_store_f(at_ir_type t, void *p, int64_t i, double v)
{
    AT_ASSERT(t.lanes == 1);
    if (t.code == AT_IR_TINT && t.bits == 32) { /* integer sums are exact in a double below 2^53 */
        ((int32_t *)p)[i] = (int32_t)v;
        return;
    }
    AT_ASSERT(t.code == AT_IR_TFLOAT);
    switch (t.bits) {
    case 16: ((uint16_t *)p)[i] = double_to_half(v); return;
    case 32: ((float *)p)[i] = (float)v; return;
    case 64: ((double *)p)[i] = v; return;
    default: AT_ASSERT(!"bad float width");
    }
}

/* ---- IR helpers ----------------------------------------------------------------------------- */

const at_ir_expr *at_tmpl_i(at_ir_sched *s, int64_t v)
{
    return at_ir_i32(s, v);
}

const at_ir_expr *at_tmpl_f(at_ir_sched *s, at_ir_type t, double v)
{
    /* the zero of an integer accumulator or padding (int8 convolutions) */
    if (at_ir_type_is_int(t)) return at_ir_int(s, t, (int64_t)v);
    return at_ir_float(s, t, v);
}

const at_ir_expr *at_tmpl_cast(at_ir_sched *s, at_ir_type t, const at_ir_expr *e)
{
    if (e && at_ir_type_eq(e->type, t)) return e;
    return at_ir_cast(s, t, e);
}

const at_ir_expr *at_tmpl_index(at_ir_sched *s, const at_ir_expr *const *idx, const int64_t *dims, size_t n)
{
    const at_ir_expr *acc = idx[0];
    for (size_t i = 1; i < n; i++) acc = at_ir_add(s, at_ir_mul(s, acc, at_tmpl_i(s, dims[i])), idx[i]);
    return acc;
}

const at_ir_expr *at_tmpl_and(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b)
{
    if (!a) return b;
    if (!b) return a;
    return at_ir_bin(s, AT_IR_AND, a, b);
}

at_tmpl_loop at_tmpl_loop_new(at_ir_sched *s, const char *name, int64_t extent, at_ir_for_kind kind)
{
    return (at_tmpl_loop){.var = at_ir_var_new(s, name, AT_IR_I32), .extent = extent, .kind = kind};
}

const at_ir_stmt *at_tmpl_nest(at_ir_sched *s, const at_tmpl_loop *loops, size_t n, const at_ir_stmt *body)
{
    /* the leaf order after moving a vectorized loop innermost */
    size_t vec = n;
    for (size_t i = 0; i < n; i++)
        if (loops[i].kind == AT_IR_VECTORIZED && loops[i].extent > 1) {
            AT_ASSERT(vec == n); /* one vectorized loop per nest, as every annotate policy allows */
            vec = i;
        }
    for (size_t j = vec + 1; j < n; j++) AT_ASSERT(!at_ir_for_kind_is_binding(loops[j].kind));
    for (size_t k = n; k-- > 0;) {
        size_t i = k; /* position k of the new order */
        if (vec < n) {
            if (k == n - 1)
                i = vec;
            else if (k >= vec)
                i = k + 1;
        }
        at_ir_for_kind kind = loops[i].kind;
        if (loops[i].extent == 1 && (kind == AT_IR_VECTORIZED || kind == AT_IR_SERIAL)) kind = AT_IR_UNROLLED;
        body = at_ir_for(s, loops[i].var, loops[i].extent, kind, body);
    }
    return body;
}

at_status at_tmpl_split_parts(const at_config *c, size_t knob, int64_t extent, size_t n, int64_t *parts)
{
    AT_TRY(at_tmpl_split_inner(c, knob, extent, n, parts));
    int64_t sizes[8];
    at_config_split(c, knob, sizes, n);
    if (sizes[0] != -1 && sizes[0] != parts[0])
        return AT_FAIL(AT_EINVAL, "%s: outer size %lld does not match axis of extent %lld", at_config_at(c, knob)->name,
                       (long long)sizes[0], (long long)extent);
    return AT_OK;
}

at_status at_tmpl_split_inner_size(const at_config *c, size_t knob, const char *name, int64_t extent, int64_t *inner)
{
    int64_t sz[2];
    at_config_split(c, knob, sz, 2);
    if (sz[1] < 1 || extent % sz[1] != 0)
        return AT_FAIL(AT_EINVAL, "%s = [%lld, %lld]: the inner size does not divide %lld", name, (long long)sz[0],
                       (long long)sz[1], (long long)extent);
    *inner = sz[1];
    return AT_OK;
}

at_status at_tmpl_fallback_reference_log(const at_args *args, const at_space *s, const at_config *const *refs,
                                         size_t n_refs, at_config **c)
{
    (void)args;
    return at_space_fallback_with_reference_log(s, c, refs, n_refs);
}

at_status at_tmpl_fallback_split(const at_space *s, at_config **c, size_t knob, const int64_t *sizes, size_t n)
{
    at_entity e = {.name = at_space_knob_name(s, knob), .kind = AT_KNOB_SPLIT, .n = n, .ints = sizes};
    return at_space_fallback_set(s, c, knob, &e);
}

at_status at_tmpl_fallback_other(const at_space *s, at_config **c, size_t knob, int64_t v)
{
    at_entity e = {.name = at_space_knob_name(s, knob), .kind = AT_KNOB_OTHER, .val = AT_VAL_OF_INT(v)};
    return at_space_fallback_set(s, c, knob, &e);
}

const int64_t at_tmpl_mali_vec_size[5] = {1, 2, 4, 8, 16};

at_status at_tmpl_annotate(const at_config *c, size_t knob, size_t n, const int64_t *axis_lens, int64_t max_unroll,
                           const int64_t *vec_size, size_t n_vec, at_ir_for_kind *kinds)
{
    const at_entity *e = at_config_at(c, knob);
    AT_ASSERT(e->kind == AT_KNOB_ANNOTATE && e->anns && e->n == n);
    for (size_t i = 0; i < n; i++) {
        const char *ann = e->anns[i];
        if (!strcmp(ann, "none")) {
            kinds[i] = AT_IR_SERIAL;
        } else if (!strcmp(ann, "unroll")) {
            if (max_unroll > 0 && axis_lens[i] > max_unroll)
                return AT_FAIL(AT_EINVAL, "%s: Too large factor for unrolling (%lld > %lld)", e->name,
                               (long long)axis_lens[i], (long long)max_unroll);
            kinds[i] = AT_IR_UNROLLED;
        } else if (!strcmp(ann, "vec")) {
            bool ok = vec_size == NULL;
            for (size_t k = 0; k < n_vec && !ok; k++) ok = vec_size[k] == axis_lens[i];
            if (!ok)
                return AT_FAIL(AT_EINVAL, "%s: Wrong size of lanes in vectorization (%lld)", e->name,
                               (long long)axis_lens[i]);
            kinds[i] = AT_IR_VECTORIZED;
        } else {
            return AT_FAIL(AT_EINVAL, "%s: annotation '%s' is not one of none, unroll, vec", e->name, ann);
        }
    }
    return AT_OK;
}

at_tmpl_pad at_tmpl_pad_of(const at_conv2d_geom *g)
{
    return (at_tmpl_pad){.n = g->n, .c = g->ci, .h = g->ih, .w = g->iw, .pt = g->pt, .pl = g->pl, .pb = g->pb,
                         .pr = g->pr};
}

/* min(max(e, 0), hi): a coordinate clamped into the tensor. */
static const at_ir_expr *clamp(at_ir_sched *s, const at_ir_expr *e, int64_t hi)
{
    return at_ir_min(s, at_ir_max(s, e, at_tmpl_i(s, 0)), at_tmpl_i(s, hi));
}

const at_ir_expr *at_tmpl_pad_load_ex(at_ir_sched *s, const at_ir_buffer *data, const at_tmpl_pad *p,
                                      const at_ir_expr *n, const at_ir_expr *c, const at_ir_expr *h,
                                      const at_ir_expr *w, int64_t h_max, int64_t w_max)
{
    const at_ir_expr *cond = NULL;
    bool guard_h = p->pt || p->pb || h_max >= p->h, guard_w = p->pl || p->pr || w_max >= p->w;
    if (guard_h) {
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_GE, h, at_tmpl_i(s, p->pt)));
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, h, at_tmpl_i(s, p->h + p->pt)));
    }
    if (guard_w) {
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_GE, w, at_tmpl_i(s, p->pl)));
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, w, at_tmpl_i(s, p->w + p->pl)));
    }
    const at_ir_expr *hh = p->pt ? at_ir_sub(s, h, at_tmpl_i(s, p->pt)) : h;
    const at_ir_expr *ww = p->pl ? at_ir_sub(s, w, at_tmpl_i(s, p->pl)) : w;
    if (p->clamp && guard_h) hh = clamp(s, hh, p->h - 1);
    if (p->clamp && guard_w) ww = clamp(s, ww, p->w - 1);
    const at_ir_expr *idx[4] = {n, c, hh, ww};
    const int64_t dims[4] = {p->n, p->c, p->h, p->w};
    const at_ir_expr *ld = at_ir_load(s, data, at_tmpl_index(s, idx, dims, 4), 1);
    if (!cond) return ld;
    return at_ir_select(s, cond, ld, p->value ? p->value : at_tmpl_f(s, data->elem, 0));
}

const at_ir_expr *at_tmpl_pad_load(at_ir_sched *s, const at_ir_buffer *data, const at_conv2d_geom *g,
                                   const at_ir_expr *n, const at_ir_expr *c, const at_ir_expr *h,
                                   const at_ir_expr *w, int64_t h_max, int64_t w_max)
{
    at_tmpl_pad p = at_tmpl_pad_of(g);
    return at_tmpl_pad_load_ex(s, data, &p, n, c, h, w, h_max, w_max);
}
