/* The layout and broadcasting ops ONNX models bring (binary with numpy broadcasting, pad,
 * transpose, reduce_mean, resize2d): each output element found from its coordinates in the node's
 * 2-D or 4-D shape. The reference (plain C, double accumulation) and the IR program (one work-item per
 * output element) are written side by side so the two index mappings cannot drift apart. */
#include <math.h>
#include <string.h>

#include "networks/internal.h"

/* C-order strides of a shape. */
static void strides(const at_net_node *n, int64_t st[4])
{
    int64_t s = 1;
    for (size_t d = n->ndim; d-- > 0;) {
        st[d] = s;
        s *= n->shape[d];
    }
}

/* Coordinate d of flat index i in shape n. */
static int64_t coord(const at_net_node *n, const int64_t st[4], int64_t i, size_t d)
{
    return i / st[d] % n->shape[d];
}

/* Where pad's output coordinate c of axis d reads from (in range for every mode but constant,
 * whose out-of-range reads are replaced by the value). */
static int64_t pad_src(const at_net_attrs *a, int64_t c, size_t d, int64_t extent)
{
    int64_t s = c - a->pad_nd[d];
    if (a->pad_mode == AT_NET_PAD_REFLECT) {
        s = s < 0 ? -s : s;
        s = extent - 1 - (extent - 1 - s < 0 ? s - (extent - 1) : extent - 1 - s);
    }
    return s;
}

static double binary_ref(at_net_bin op, double x, double y)
{
    switch (op) {
    case AT_NET_BIN_ADD: return x + y;
    case AT_NET_BIN_SUB: return x - y;
    case AT_NET_BIN_MUL: return x * y;
    case AT_NET_BIN_DIV: return x / y;
    case AT_NET_BIN_COUNT: break;
    }
    AT_ASSERT(!"bad binary op");
    return 0;
}

/* Resize axis k: the two source indices (clamped) of output coordinate o and the weight of the
 * second; nearest gives one index twice and weight 0. */
static void resize_src(const at_net_resize *r, int k, int64_t o, int64_t ext, int64_t idx[2], double *w)
{
    double x = (((double)o + r->a[k]) * r->p[k]) / r->q[k] + r->b[k], f = floor(x), frac = x - f;
    idx[0] = (int64_t)f;
    idx[1] = idx[0] + 1;
    if (r->mode == AT_NET_RESIZE_NEAREST) {
        bool up = frac != 0 && (r->round == AT_NET_ROUND_CEIL || (r->round == AT_NET_ROUND_PREFER_FLOOR && frac > 0.5) ||
                                (r->round == AT_NET_ROUND_PREFER_CEIL && frac >= 0.5));
        idx[0] = idx[1] = up ? idx[1] : idx[0];
        frac = 0;
    }
    for (int j = 0; j < 2; j++) idx[j] = idx[j] < 0 ? 0 : idx[j] >= ext ? ext - 1 : idx[j];
    *w = frac;
}

static void resize_ref(const at_net_node *n, const at_net_node *x, const float *in, float *y)
{
    const at_net_resize *r = &n->attrs.resize;
    int64_t ih = x->shape[2], iw = x->shape[3], oh = n->shape[2], ow = n->shape[3], planes = n->shape[0] * n->shape[1];
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t oy = 0; oy < oh; oy++) {
            int64_t ys[2], xs[2];
            double wy, wx;
            resize_src(r, 0, oy, ih, ys, &wy);
            for (int64_t ox = 0; ox < ow; ox++) {
                resize_src(r, 1, ox, iw, xs, &wx);
                const float *p = in + pl * ih * iw;
                double v;
                if (r->mode == AT_NET_RESIZE_NEAREST) {
                    v = p[ys[0] * iw + xs[0]];
                } else {
                    /* along W within each row, then along H (ONNX's order) */
                    double r0 = (1 - wx) * p[ys[0] * iw + xs[0]] + wx * p[ys[0] * iw + xs[1]];
                    double r1 = (1 - wx) * p[ys[1] * iw + xs[0]] + wx * p[ys[1] * iw + xs[1]];
                    v = (1 - wy) * r0 + wy * r1;
                }
                y[(pl * oh + oy) * ow + ox] = (float)v;
            }
        }
}

void at_net_tensor_ref(const at_net *net, const at_net_node *n, const float *const *in, float *y)
{
    const at_net_node *x = at_net_node_at(net, n->inputs[0]);
    const at_net_attrs *a = &n->attrs;
    int64_t so[4], sx[4], total = at_net_node_numel(n);
    strides(n, so);
    strides(x, sx);
    if (n->op == AT_NET_BINARY) {
        const at_net_node *b = at_net_node_at(net, n->inputs[1]);
        int64_t sb[4];
        strides(b, sb);
        for (int64_t i = 0; i < total; i++) {
            int64_t ia = 0, ib = 0;
            for (size_t d = 0; d < n->ndim; d++) {
                int64_t c = coord(n, so, i, d);
                ia += x->shape[d] == 1 ? 0 : c * sx[d];
                ib += b->shape[d] == 1 ? 0 : c * sb[d];
            }
            y[i] = (float)binary_ref(a->bin, in[0][ia], in[1][ib]);
        }
    } else if (n->op == AT_NET_PAD) {
        for (int64_t i = 0; i < total; i++) {
            int64_t src = 0;
            bool inside = true;
            for (size_t d = 0; d < n->ndim; d++) {
                int64_t s = pad_src(a, coord(n, so, i, d), d, x->shape[d]);
                if (s < 0 || s >= x->shape[d]) inside = false;
                s = s < 0 ? 0 : s >= x->shape[d] ? x->shape[d] - 1 : s; /* edge mode */
                src += s * sx[d];
            }
            y[i] = inside || a->pad_mode != AT_NET_PAD_CONSTANT ? in[0][src] : (float)a->alpha;
        }
    } else if (n->op == AT_NET_TRANSPOSE) {
        for (int64_t i = 0; i < total; i++) {
            int64_t src = 0;
            for (size_t d = 0; d < n->ndim; d++) src += coord(n, so, i, d) * sx[a->perm[d]];
            y[i] = in[0][src];
        }
    } else if (n->op == AT_NET_RESIZE) {
        resize_ref(n, x, in[0], y);
    } else {
        AT_ASSERT(n->op == AT_NET_REDUCE_MEAN);
        int64_t count = at_net_node_numel(x) / total;
        for (int64_t i = 0; i < total; i++) {
            int64_t base = 0;
            for (size_t d = 0; d < n->ndim; d++) base += coord(n, so, i, d) * sx[d];
            double sum = 0;
            for (int64_t r = 0; r < count; r++) {
                int64_t off = 0, rest = r;
                for (size_t d = n->ndim; d-- > 0;)
                    if (a->axes >> d & 1) {
                        off += rest % x->shape[d] * sx[d];
                        rest /= x->shape[d];
                    }
                sum += in[0][base + off];
            }
            y[i] = (float)(sum / (double)count);
        }
    }
}

/* ---- IR ---- */

typedef const at_ir_expr *E;

static E i32(at_ir_sched *s, int64_t v)
{
    return at_ir_i32(s, v);
}

/* (i / st[d]) % shape[d] as IR, without the division or modulus where they are trivial. */
static E coord_ir(at_ir_sched *s, const at_net_node *n, const int64_t st[4], E i, size_t d)
{
    E c = st[d] == 1 ? i : at_ir_div(s, i, i32(s, st[d]));
    return d == 0 ? c : at_ir_mod(s, c, i32(s, n->shape[d]));
}

static E bin_ir(at_ir_sched *s, at_net_bin op, E x, E y)
{
    switch (op) {
    case AT_NET_BIN_ADD: return at_ir_add(s, x, y);
    case AT_NET_BIN_SUB: return at_ir_sub(s, x, y);
    case AT_NET_BIN_MUL: return at_ir_mul(s, x, y);
    case AT_NET_BIN_DIV: return at_ir_div(s, x, y);
    case AT_NET_BIN_COUNT: break;
    }
    AT_ASSERT(!"bad binary op");
    return x;
}

/* Index into input x of shape xn (broadcast along its extents of 1) for output element i. */
static E bcast_ir(at_ir_sched *s, const at_net_node *n, const int64_t so[4], const at_net_node *xn, E i)
{
    if (xn->ndim == n->ndim && !memcmp(xn->shape, n->shape, n->ndim * sizeof *n->shape)) return i;
    int64_t sx[4];
    strides(xn, sx);
    E idx = i32(s, 0);
    for (size_t d = 0; d < n->ndim; d++)
        if (xn->shape[d] != 1) idx = at_ir_add(s, idx, at_ir_mul(s, coord_ir(s, n, so, i, d), i32(s, sx[d])));
    return idx;
}

static E clamp_ir(at_ir_sched *s, E v, int64_t lo, int64_t hi)
{
    return at_ir_min(s, at_ir_max(s, v, i32(s, lo)), i32(s, hi));
}

static const at_ir_stmt *pad_ir(at_ir_sched *s, const at_net_node *n, const at_net_node *x, const at_ir_buffer *xb,
                                const at_ir_buffer *yb, E i)
{
    const at_net_attrs *a = &n->attrs;
    int64_t so[4], sx[4];
    strides(n, so);
    strides(x, sx);
    E src = i32(s, 0), inside = NULL;
    for (size_t d = 0; d < n->ndim; d++) {
        int64_t ext = x->shape[d];
        E c = at_ir_sub(s, coord_ir(s, n, so, i, d), i32(s, a->pad_nd[d]));
        if (a->pad_mode == AT_NET_PAD_REFLECT) {
            /* |c|, then mirrored at ext - 1: ext - 1 - |ext - 1 - |c|| */
            E ac = at_ir_max(s, c, at_ir_un(s, AT_IR_NEG, c));
            E t = at_ir_sub(s, i32(s, ext - 1), ac);
            c = at_ir_sub(s, i32(s, ext - 1), at_ir_max(s, t, at_ir_un(s, AT_IR_NEG, t)));
        }
        if (a->pad_mode == AT_NET_PAD_CONSTANT && (a->pad_nd[d] > 0 || a->pad_nd[4 + d] > 0)) {
            E in = at_ir_bin(s, AT_IR_AND, at_ir_bin(s, AT_IR_GE, c, i32(s, 0)), at_ir_bin(s, AT_IR_LT, c, i32(s, ext)));
            inside = inside ? at_ir_bin(s, AT_IR_AND, inside, in) : in;
        }
        /* clamped, so the load stays in bounds where the select discards it (and edge mode is this) */
        if (a->pad_nd[d] > 0 || a->pad_nd[4 + d] > 0) c = clamp_ir(s, c, 0, ext - 1);
        src = at_ir_add(s, src, at_ir_mul(s, c, i32(s, sx[d])));
    }
    E v = at_ir_load(s, xb, src, 1);
    if (inside) v = at_ir_select(s, inside, v, at_ir_f32(s, a->alpha));
    return at_ir_store(s, yb, i, v);
}

static const at_ir_stmt *reduce_ir(at_ir_sched *s, const at_net_node *n, const at_net_node *x, const at_ir_buffer *xb,
                                   const at_ir_buffer *yb, E i)
{
    int64_t so[4], sx[4], count = at_net_node_numel(x) / at_net_node_numel(n);
    strides(n, so);
    strides(x, sx);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, 1, AT_IR_PRIVATE);
    const at_ir_var *r = at_ir_var_new(s, "r", AT_IR_I32);
    E base = i32(s, 0), off = i32(s, 0), rv = at_ir_v(s, r), zero = i32(s, 0);
    int64_t inner = 1;
    for (size_t d = n->ndim; d-- > 0;) {
        if (n->attrs.axes >> d & 1) {
            E c = inner == 1 ? rv : at_ir_div(s, rv, i32(s, inner));
            if (inner * x->shape[d] < count) c = at_ir_mod(s, c, i32(s, x->shape[d]));
            off = at_ir_add(s, off, at_ir_mul(s, c, i32(s, sx[d])));
            inner *= x->shape[d];
        } else if (n->shape[d] != 1) {
            base = at_ir_add(s, base, at_ir_mul(s, coord_ir(s, n, so, i, d), i32(s, sx[d])));
        }
    }
    const at_ir_stmt *items[3] = {
        at_ir_store(s, acc, zero, at_ir_f32(s, 0)),
        at_ir_for(s, r, count, AT_IR_SERIAL,
                  at_ir_store(s, acc, zero, at_ir_add(s, at_ir_load(s, acc, zero, 1), at_ir_load(s, xb, at_ir_add(s, base, off), 1)))),
        at_ir_store(s, yb, i, at_ir_div(s, at_ir_load(s, acc, zero, 1), at_ir_f32(s, (double)count))),
    };
    return at_ir_seq(s, items, 3);
}

/* resize_src in float32 IR: idx[0..2) and the weight w of idx[1]. */
static void resize_src_ir(at_ir_sched *s, const at_net_resize *r, int k, E o, int64_t ext, E idx[2], E *w)
{
    E x = at_ir_add(s, at_ir_div(s, at_ir_mul(s, at_ir_add(s, at_ir_cast(s, AT_IR_F32, o), at_ir_f32(s, r->a[k])),
                                              at_ir_f32(s, r->p[k])),
                                 at_ir_f32(s, r->q[k])),
                    at_ir_f32(s, r->b[k]));
    E f = at_ir_call(s, "floor", AT_IR_F32, &x, 1), frac = at_ir_sub(s, x, f);
    E lo = at_ir_cast(s, AT_IR_I32, f), hi = at_ir_add(s, lo, i32(s, 1));
    if (r->mode == AT_NET_RESIZE_NEAREST) {
        E half = at_ir_f32(s, 0.5), up;
        if (r->round == AT_NET_ROUND_FLOOR) up = NULL;
        else if (r->round == AT_NET_ROUND_CEIL) up = at_ir_bin(s, AT_IR_NE, frac, at_ir_f32(s, 0));
        else up = at_ir_bin(s, r->round == AT_NET_ROUND_PREFER_FLOOR ? AT_IR_GT : AT_IR_GE, frac, half);
        E v = up ? at_ir_select(s, up, hi, lo) : lo;
        idx[0] = idx[1] = clamp_ir(s, v, 0, ext - 1);
        *w = NULL;
        return;
    }
    idx[0] = clamp_ir(s, lo, 0, ext - 1);
    idx[1] = clamp_ir(s, hi, 0, ext - 1);
    *w = frac;
}

/* x[base + yy * iw + xx] */
static E pixel(at_ir_sched *s, const at_ir_buffer *xb, E base, int64_t iw, E yy, E xx)
{
    return at_ir_load(s, xb, at_ir_add(s, base, at_ir_add(s, at_ir_mul(s, yy, i32(s, iw)), xx)), 1);
}

static const at_ir_stmt *resize_ir(at_ir_sched *s, const at_net_node *n, const at_net_node *x, const at_ir_buffer *xb,
                                   const at_ir_buffer *yb, E i)
{
    const at_net_resize *r = &n->attrs.resize;
    int64_t ih = x->shape[2], iw = x->shape[3], oh = n->shape[2], ow = n->shape[3];
    E ox = at_ir_mod(s, i, i32(s, ow)), oy = at_ir_mod(s, at_ir_div(s, i, i32(s, ow)), i32(s, oh));
    E base = at_ir_mul(s, at_ir_div(s, i, i32(s, oh * ow)), i32(s, ih * iw));
    E ys[2], xs[2], wy, wx;
    resize_src_ir(s, r, 0, oy, ih, ys, &wy);
    resize_src_ir(s, r, 1, ox, iw, xs, &wx);
    if (r->mode == AT_NET_RESIZE_NEAREST) return at_ir_store(s, yb, i, pixel(s, xb, base, iw, ys[0], xs[0]));
    E one = at_ir_f32(s, 1), vx = at_ir_sub(s, one, wx), vy = at_ir_sub(s, one, wy);
    E r0 = at_ir_add(s, at_ir_mul(s, vx, pixel(s, xb, base, iw, ys[0], xs[0])), at_ir_mul(s, wx, pixel(s, xb, base, iw, ys[0], xs[1])));
    E r1 = at_ir_add(s, at_ir_mul(s, vx, pixel(s, xb, base, iw, ys[1], xs[0])), at_ir_mul(s, wx, pixel(s, xb, base, iw, ys[1], xs[1])));
    return at_ir_store(s, yb, i, at_ir_add(s, at_ir_mul(s, vy, r0), at_ir_mul(s, wy, r1)));
}

at_status at_net_prog_tensor(at_arena *arena, const at_net *net, const at_net_node *n, const at_ir_program **out)
{
    *out = NULL;
    at_ir_sched *s = at_ir_sched_begin(arena, n->name);
    if (!s) return AT_OOM();
    const at_net_node *x = at_net_node_at(net, n->inputs[0]);
    int64_t total = at_net_node_numel(n), so[4];
    strides(n, so);
    const at_ir_buffer *xb = at_ir_param(s, "x", AT_IR_F32, at_net_node_numel(x), AT_IR_INPUT), *bb = NULL;
    const at_net_node *b = n->op == AT_NET_BINARY ? at_net_node_at(net, n->inputs[1]) : NULL;
    if (b) bb = at_ir_param(s, "b", AT_IR_F32, at_net_node_numel(b), AT_IR_INPUT);
    const at_ir_buffer *yb = at_ir_param(s, "y", AT_IR_F32, total, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32);
    E iv = at_ir_v(s, i);
    const at_ir_stmt *body;
    if (n->op == AT_NET_BINARY) {
        body = at_ir_store(s, yb, iv,
                           bin_ir(s, n->attrs.bin, at_ir_load(s, xb, bcast_ir(s, n, so, x, iv), 1),
                                  at_ir_load(s, bb, bcast_ir(s, n, so, b, iv), 1)));
    } else if (n->op == AT_NET_PAD) {
        body = pad_ir(s, n, x, xb, yb, iv);
    } else if (n->op == AT_NET_TRANSPOSE) {
        int64_t sx[4];
        strides(x, sx);
        E src = i32(s, 0);
        for (size_t d = 0; d < n->ndim; d++)
            if (n->shape[d] != 1) src = at_ir_add(s, src, at_ir_mul(s, coord_ir(s, n, so, iv, d), i32(s, sx[n->attrs.perm[d]])));
        body = at_ir_store(s, yb, iv, at_ir_load(s, xb, src, 1));
    } else if (n->op == AT_NET_RESIZE) {
        body = resize_ir(s, n, x, xb, yb, iv);
    } else {
        AT_ASSERT(n->op == AT_NET_REDUCE_MEAN);
        body = reduce_ir(s, n, x, xb, yb, iv);
    }
    at_ir_add_kernel(s, n->name, at_net_grid(s, i, total, body));
    AT_TRY(at_ir_sched_finish(s, out));
    return at_ir_verify(*out);
}
