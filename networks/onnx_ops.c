/* The ONNX operator table: one converter per operator type, each mapping a node onto at_net
 * nodes (or folding it into a constant when its inputs are constants). Adding an operator is
 * one function and one row of `ops`. Semantics follow the ONNX operator specs (opsets 7-18). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/internal.h"
#include "networks/onnx_internal.h"

#define IN(k, v)                                   \
    at_status st_ = AT_OK;                         \
    const ox_value *v = ox_in(o, (k), &st_);       \
    if (!v) return st_
#define UNSUP(...) ox_fail(o, AT_EUNSUPPORTED, __VA_ARGS__)

static at_status need_runtime(ox *o, const ox_value *v)
{
    return v->is_const ? UNSUP("input '%s' is a constant: only runtime inputs are computed", v->name) : AT_OK;
}

static at_status need_const(ox *o, const ox_value *v, const char *what)
{
    return v->is_const ? AT_OK : UNSUP("%s '%s' must be a constant (an initializer)", what, v->name);
}

/* Constant c broadcasts per channel over a runtime value of rank `rank` (channel axis 1): it
 * holds one value, or dims that are 1 except axis 1 (aligned to the right, numpy broadcasting). */
static bool is_per_channel(const ox_value *c, size_t rank, int64_t channels)
{
    if (c->rank > rank || rank < 2) return false;
    for (size_t d = 0; d < c->rank; d++) {
        size_t axis = rank - c->rank + d;
        if (c->dims[d] != 1 && !(axis == 1 && c->dims[d] == channels)) return false;
    }
    return true;
}

/* The per-channel values of such a constant; *vals at_malloc'ed, C values. */
static at_status channel_values(const ox_value *c, int64_t channels, float **vals)
{
    float *v = at_net_floats(channels);
    if (!v) return AT_OOM();
    for (int64_t k = 0; k < channels; k++) v[k] = (float)ox_cf(c, c->numel == 1 ? 0 : k);
    *vals = v;
    return AT_OK;
}

/* The graph shape (ndim extents) of v's ONNX dims aligned right to rank `to` (numpy
 * broadcasting), then padded on the right with 1s (ONNX axis k is graph axis k). */
static void graph_shape(const ox_value *v, size_t to, int64_t shape[4])
{
    for (size_t d = 0; d < 4; d++) shape[d] = 1;
    for (size_t d = 0; d < v->rank; d++) shape[to - v->rank + d] = v->dims[d];
}

/* The graph rank for values of ONNX rank `rank`: 2 when every runtime one is a 2-D node. */
static size_t graph_ndim(ox *o, const ox_value *const *vs, size_t n, size_t rank)
{
    for (size_t k = 0; k < n; k++)
        if (rank > 2 || (!vs[k]->is_const && at_net_node_at(o->net, vs[k]->node)->ndim != 2)) return 4;
    return 2;
}

/* Value v as a graph node of exactly ndim extents shape[] (its element count): a runtime
 * value's node, through a reshape (an alias) when its shape differs; a constant as a constant
 * node. */
static at_status as_node(ox *o, const ox_value *v, size_t ndim, const int64_t *shape, size_t *node)
{
    at_net_attrs a = {.to_ndim = ndim};
    memcpy(a.to_shape, shape, ndim * sizeof *shape);
    if (!v->is_const) {
        const at_net_node *n = at_net_node_at(o->net, v->node);
        if (n->ndim == ndim && !memcmp(n->shape, shape, ndim * sizeof *shape)) {
            *node = v->node;
            return AT_OK;
        }
        return ox_append(o, AT_NET_RESHAPE, "aligned", &v->node, 1, &a, node);
    }
    float *f = at_net_floats(v->numel);
    if (!f) return AT_OOM();
    for (int64_t k = 0; k < v->numel; k++) f[k] = (float)ox_cf(v, k);
    size_t none = 0;
    at_status st = ox_append(o, AT_NET_CONSTANT, "const", &none, 0, &a, node);
    if (st == AT_OK) st = at_net_set_param(o->net, *node, AT_NET_WEIGHT, f);
    at_free(f);
    return st;
}

/* ---- element-wise ------------------------------------------------------------------------- */

static at_status unary(ox *o, at_net_op op, const at_net_attrs *a)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    size_t node;
    AT_TRY(ox_append(o, op, NULL, &x->node, 1, a, &node));
    return ox_out_node(o, 0, node, x->rank, x->dims);
}

static at_status op_relu(ox *o)
{
    return unary(o, AT_NET_RELU, NULL);
}

static at_status act(ox *o, at_net_act f, double alpha, double beta)
{
    at_net_attrs a = {.act = f, .alpha = alpha, .beta = beta};
    return unary(o, AT_NET_ACTIVATION, &a);
}

static at_status op_sigmoid(ox *o)
{
    return act(o, AT_NET_ACT_SIGMOID, 0, 0);
}

static at_status op_hard_sigmoid(ox *o)
{
    return act(o, AT_NET_ACT_HARD_SIGMOID, ox_attr_f(o, "alpha", 0.2), ox_attr_f(o, "beta", 0.5));
}

static at_status op_hard_swish(ox *o)
{
    return act(o, AT_NET_ACT_HARD_SWISH, 0, 0);
}

static at_status op_leaky_relu(ox *o)
{
    return act(o, AT_NET_ACT_LEAKY_RELU, ox_attr_f(o, "alpha", 0.01), 0);
}

static at_status op_clip(ox *o)
{
    double lo = -INFINITY, hi = INFINITY;
    if (o->opset < 11) {
        lo = ox_attr_f(o, "min", -INFINITY);
        hi = ox_attr_f(o, "max", INFINITY);
    } else {
        for (size_t k = 1; k <= 2; k++) {
            if (!ox_has_in(o, k)) continue;
            IN(k, b);
            AT_TRY(need_const(o, b, k == 1 ? "min" : "max"));
            if (b->numel != 1) return UNSUP("%s is not a scalar", k == 1 ? "min" : "max");
            *(k == 1 ? &lo : &hi) = ox_cf(b, 0);
        }
    }
    if (lo == 0 && hi == INFINITY) return op_relu(o);
    return act(o, AT_NET_ACT_CLIP, lo, hi);
}

static at_status op_identity(ox *o)
{
    IN(0, x);
    return ox_out_alias(o, 0, x);
}

/* x op c by a per-channel (or scalar) constant c: bias_add (Add, Sub) or scale_shift (Mul,
 * Div), which fusion folds into the conv before it as TVM's FoldScaleAxis does. */
static at_status channel_binary(ox *o, char kind, const ox_value *x, const ox_value *c)
{
    int64_t ch = x->dims[1];
    float *v = NULL;
    AT_TRY(channel_values(c, ch, &v));
    for (int64_t k = 0; k < ch; k++) v[k] = kind == '-' ? -v[k] : kind == '/' ? (float)(1.0 / v[k]) : v[k];
    bool add = kind == '+' || kind == '-';
    size_t node;
    at_status st = ox_append(o, add ? AT_NET_BIAS_ADD : AT_NET_SCALE_SHIFT, NULL, &x->node, 1, NULL, &node);
    if (st == AT_OK) st = at_net_set_param(o->net, node, add ? AT_NET_BIAS : AT_NET_SCALE, v);
    at_free(v);
    AT_TRY(st);
    return ox_out_node(o, 0, node, x->rank, x->dims);
}

/* Add, Sub, Mul, Div. Two constants: folded. Two runtime tensors of one shape added: add (which
 * fuses into a conv as its residual). A runtime tensor and a per-channel constant after it:
 * channel_binary. Anything else: a broadcasting binary node, constants as constant nodes. */
static at_status binary(ox *o, char kind)
{
    IN(0, a);
    at_status st2 = AT_OK;
    const ox_value *b = ox_in(o, 1, &st2);
    if (!b) return st2;
    if (a->is_const && b->is_const) {
        /* constant folding, numpy broadcasting of equal shapes or a scalar */
        const ox_value *big = a->numel >= b->numel ? a : b;
        if (!(a->numel == b->numel || a->numel == 1 || b->numel == 1)) return UNSUP("constant folding of differently shaped operands");
        bool ints = a->i && b->i;
        float *f = ints ? NULL : at_net_floats(big->numel);
        int64_t *iv = ints ? at_malloc((size_t)(big->numel ? big->numel : 1) * sizeof *iv) : NULL;
        if (!f && !iv) return AT_OOM();
        for (int64_t k = 0; k < big->numel; k++) {
            double x = ox_cf(a, a->numel == 1 ? 0 : k), y = ox_cf(b, b->numel == 1 ? 0 : k);
            double r = kind == '+' ? x + y : kind == '-' ? x - y : kind == '*' ? x * y : (y != 0 ? x / y : 0);
            if (ints) iv[k] = kind == '/' && y != 0 ? (int64_t)x / (int64_t)y : (int64_t)r;
            else f[k] = (float)r;
        }
        return ox_out_const(o, 0, big->rank, big->dims, f, iv);
    }
    bool same = a->rank == b->rank && !memcmp(a->dims, b->dims, a->rank * sizeof *a->dims);
    if (!a->is_const && !b->is_const && kind == '+' && same &&
        at_net_node_at(o->net, a->node)->ndim == at_net_node_at(o->net, b->node)->ndim) {
        size_t node, ins[2] = {a->node, b->node};
        AT_TRY(ox_append(o, AT_NET_ADD, NULL, ins, 2, NULL, &node));
        return ox_out_node(o, 0, node, a->rank, a->dims);
    }
    if (b->is_const && a->rank >= 2 && is_per_channel(b, a->rank, a->dims[1])) return channel_binary(o, kind, a, b);
    if (a->is_const && b->rank >= 2 && (kind == '+' || kind == '*') && is_per_channel(a, b->rank, b->dims[1]))
        return channel_binary(o, kind, b, a);
    size_t r = a->rank > b->rank ? a->rank : b->rank;
    if (r > 4) return UNSUP("a broadcast of rank %zu (at most 4)", r);
    int64_t sa[4], sb[4], dims[4];
    graph_shape(a, r, sa);
    graph_shape(b, r, sb);
    for (size_t d = 0; d < r; d++) {
        if (sa[d] != sb[d] && sa[d] != 1 && sb[d] != 1)
            return ox_fail(o, AT_EINVAL, "shapes of '%s' and '%s' do not broadcast (axis %zu: %" PRId64 " vs %" PRId64 ")",
                           a->name, b->name, d, sa[d], sb[d]);
        dims[d] = sa[d] > sb[d] ? sa[d] : sb[d];
    }
    const ox_value *vs[2] = {a, b};
    size_t nd = graph_ndim(o, vs, 2, r), ins[2], node;
    AT_TRY(as_node(o, a, nd, sa, &ins[0]));
    AT_TRY(as_node(o, b, nd, sb, &ins[1]));
    at_net_attrs at = {.bin = kind == '+' ? AT_NET_BIN_ADD : kind == '-' ? AT_NET_BIN_SUB : kind == '*' ? AT_NET_BIN_MUL : AT_NET_BIN_DIV};
    AT_TRY(ox_append(o, AT_NET_BINARY, NULL, ins, 2, &at, &node));
    return ox_out_node(o, 0, node, r, dims);
}

static at_status op_add(ox *o) { return binary(o, '+'); }
static at_status op_sub(ox *o) { return binary(o, '-'); }
static at_status op_mul(ox *o) { return binary(o, '*'); }
static at_status op_div(ox *o) { return binary(o, '/'); }

static at_status op_batch_norm(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    if (x->rank < 2) return UNSUP("input of rank %zu", x->rank);
    int64_t c = x->dims[1];
    const ox_value *p[4];
    for (size_t k = 0; k < 4; k++) {
        at_status st = AT_OK;
        if (!(p[k] = ox_in(o, k + 1, &st))) return st;
        AT_TRY(need_const(o, p[k], "a batch-norm parameter"));
        if (p[k]->numel != c) return ox_fail(o, AT_EINVAL, "parameter '%s' has %" PRId64 " values for %" PRId64 " channels", p[k]->name, p[k]->numel, c);
    }
    if (ox_attr_i(o, "training_mode", 0)) return UNSUP("training_mode 1");
    at_net_attrs a = {.eps = ox_attr_f(o, "epsilon", 1e-5)};
    size_t node;
    AT_TRY(ox_append(o, AT_NET_BATCH_NORM, NULL, &x->node, 1, &a, &node));
    const at_net_param slots[4] = {AT_NET_GAMMA, AT_NET_BETA, AT_NET_MEAN, AT_NET_VAR};
    for (size_t k = 0; k < 4; k++) {
        float *v = at_net_floats(c);
        if (!v) return AT_OOM();
        for (int64_t i = 0; i < c; i++) v[i] = (float)ox_cf(p[k], i);
        at_status st = at_net_set_param(o->net, node, slots[k], v);
        at_free(v);
        AT_TRY(st);
    }
    return ox_out_node(o, 0, node, x->rank, x->dims);
}

/* ---- windows: Conv, MaxPool -------------------------------------------------------------- */

/* kernel, strides, dilations, pads (top, left, bottom, right) of a 2-D window op from its
 * attributes, auto_pad resolved against input extents in[2]. */
static at_status window(ox *o, const int64_t in[2], const int64_t k[2], at_net_attrs *a)
{
    const int64_t *v;
    size_t n;
    a->kernel[0] = k[0];
    a->kernel[1] = k[1];
    a->stride[0] = a->stride[1] = a->dilation[0] = a->dilation[1] = 1;
    if ((n = ox_attr_ints(o, "strides", &v))) {
        if (n != 2) return UNSUP("strides of %zu dims", n);
        a->stride[0] = v[0], a->stride[1] = v[1];
    }
    if ((n = ox_attr_ints(o, "dilations", &v))) {
        if (n != 2) return UNSUP("dilations of %zu dims", n);
        a->dilation[0] = v[0], a->dilation[1] = v[1];
    }
    if ((n = ox_attr_ints(o, "pads", &v))) {
        if (n != 4) return UNSUP("pads of %zu values", n);
        a->pad[0] = v[0], a->pad[1] = v[1], a->pad[2] = v[2], a->pad[3] = v[3];
    }
    char buf[32];
    const char *ap = ox_attr_s(o, "auto_pad", "NOTSET", buf, sizeof buf);
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        for (int d = 0; d < 2; d++) {
            if (a->stride[d] < 1) return ox_fail(o, AT_EINVAL, "stride < 1");
            int64_t out = (in[d] + a->stride[d] - 1) / a->stride[d];
            int64_t span = (k[d] - 1) * a->dilation[d] + 1;
            int64_t total = (out - 1) * a->stride[d] + span - in[d];
            if (total < 0) total = 0;
            int64_t small = total / 2, big = total - small;
            bool upper = !strcmp(ap, "SAME_UPPER");
            a->pad[d] = upper ? small : big;
            a->pad[d + 2] = upper ? big : small;
        }
    } else if (!strcmp(ap, "VALID")) {
        memset(a->pad, 0, sizeof a->pad);
    } else if (strcmp(ap, "NOTSET")) {
        return UNSUP("auto_pad '%s'", ap);
    }
    return AT_OK;
}

static at_status op_conv(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    at_status st = AT_OK;
    const ox_value *w = ox_in(o, 1, &st);
    if (!w) return st;
    AT_TRY(need_const(o, w, "weight"));
    if (x->rank != 4 || w->rank != 4) return UNSUP("only 2-D convolutions (4-D input and weight) are supported");
    int64_t groups = ox_attr_i(o, "group", 1), cin = x->dims[1];
    if (groups < 1 || cin % groups || w->dims[1] * groups != cin || w->dims[0] % groups)
        return ox_fail(o, AT_EINVAL, "weight [%" PRId64 ", %" PRId64 ", ...] does not fit %" PRId64 " input channels in %" PRId64 " groups",
                       w->dims[0], w->dims[1], cin, groups);
    if (groups != 1 && groups == cin && w->dims[0] != cin)
        return UNSUP("group %" PRId64 " with %" PRId64 " output channels (a depthwise convolution with a channel multiplier)", groups,
                     w->dims[0]);
    const int64_t *ks;
    size_t nk = ox_attr_ints(o, "kernel_shape", &ks);
    if (nk && (nk != 2 || ks[0] != w->dims[2] || ks[1] != w->dims[3])) return ox_fail(o, AT_EINVAL, "kernel_shape differs from the weight's");
    at_net_attrs a = {.channels = w->dims[0], .groups = groups};
    AT_TRY(window(o, x->dims + 2, w->dims + 2, &a));
    size_t node;
    AT_TRY(ox_append(o, AT_NET_CONV2D, NULL, &x->node, 1, &a, &node));
    AT_TRY(at_net_set_param(o->net, node, AT_NET_WEIGHT, w->f ? w->f : NULL));
    if (ox_has_in(o, 2)) {
        const ox_value *b = ox_in(o, 2, &st);
        if (!b) return st;
        AT_TRY(need_const(o, b, "bias"));
        if (b->numel != a.channels) return ox_fail(o, AT_EINVAL, "bias of %" PRId64 " values for %" PRId64 " channels", b->numel, a.channels);
        size_t bn;
        AT_TRY(ox_append(o, AT_NET_BIAS_ADD, "bias", &node, 1, NULL, &bn));
        AT_TRY(at_net_set_param(o->net, bn, AT_NET_BIAS, b->f));
        node = bn;
    }
    const at_net_node *n = at_net_node_at(o->net, node);
    return ox_out_node(o, 0, node, 4, n->shape);
}

/* MaxPool, AveragePool. */
static at_status pool(ox *o, at_net_op op)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    if (x->rank != 4) return UNSUP("only 2-D pooling (a 4-D input) is supported");
    if (o->cur->n_output > 1 && o->cur->output[1][0]) return UNSUP("the Indices output");
    const int64_t *ks;
    if (ox_attr_ints(o, "kernel_shape", &ks) != 2) return UNSUP("kernel_shape must give 2 dims");
    at_net_attrs a = {.ceil_mode = ox_attr_i(o, "ceil_mode", 0) != 0, .count_include_pad = ox_attr_i(o, "count_include_pad", 0) != 0};
    AT_TRY(window(o, x->dims + 2, ks, &a));
    if (a.dilation[0] != 1 || a.dilation[1] != 1) return UNSUP("dilations other than 1");
    size_t node;
    AT_TRY(ox_append(o, op, NULL, &x->node, 1, &a, &node));
    return ox_out_node(o, 0, node, 4, at_net_node_at(o->net, node)->shape);
}

static at_status op_max_pool(ox *o)
{
    return pool(o, AT_NET_MAX_POOL2D);
}

static at_status op_avg_pool(ox *o)
{
    return pool(o, AT_NET_AVG_POOL2D);
}

static at_status op_global_avg_pool(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    if (x->rank != 4) return UNSUP("only 4-D inputs are supported");
    size_t node;
    AT_TRY(ox_append(o, AT_NET_GLOBAL_AVG_POOL2D, NULL, &x->node, 1, NULL, &node));
    return ox_out_node(o, 0, node, 4, at_net_node_at(o->net, node)->shape);
}

/* ---- dense: Gemm, MatMul ------------------------------------------------------------------ */

/* Output 0 = dense node `node` (dims [M, N]) + beta * C for a C broadcasting other than per
 * unit: a binary add with C as a constant node. */
static at_status matrix_bias(ox *o, size_t node, const int64_t dims[2], const ox_value *c, double beta)
{
    if (c->rank > 2) return ox_fail(o, AT_EINVAL, "C of rank %zu", c->rank);
    int64_t shape[4];
    graph_shape(c, 2, shape);
    for (size_t d = 0; d < 2; d++)
        if (shape[d] != 1 && shape[d] != dims[d]) return ox_fail(o, AT_EINVAL, "C does not broadcast to [%" PRId64 ", %" PRId64 "]", dims[0], dims[1]);
    ox_value scaled = *c;
    scaled.i = NULL;
    scaled.f = at_net_floats(c->numel);
    if (!scaled.f) return AT_OOM();
    for (int64_t k = 0; k < c->numel; k++) scaled.f[k] = (float)(beta * ox_cf(c, k));
    size_t ins[2] = {node, 0}, out;
    at_status st = as_node(o, &scaled, 2, shape, &ins[1]);
    at_free(scaled.f);
    AT_TRY(st);
    at_net_attrs a = {.bin = AT_NET_BIN_ADD};
    AT_TRY(ox_append(o, AT_NET_BINARY, "C", ins, 2, &a, &out));
    return ox_out_node(o, 0, out, 2, dims);
}

/* y = x @ op(w) * alpha + bias * beta as dense (weight [units, K]) + bias_add. */
static at_status dense(ox *o, const ox_value *x, const ox_value *w, bool trans_w, double alpha, const ox_value *bias, double beta)
{
    AT_TRY(need_runtime(o, x));
    AT_TRY(need_const(o, w, "B"));
    if (x->rank != 2 || w->rank != 2) return UNSUP("only 2-D operands are supported");
    int64_t k = x->dims[1], units = trans_w ? w->dims[0] : w->dims[1], wk = trans_w ? w->dims[1] : w->dims[0];
    if (wk != k) return ox_fail(o, AT_EINVAL, "inner dims %" PRId64 " and %" PRId64 " differ", k, wk);
    float *wt = at_net_floats(units * k);
    if (!wt) return AT_OOM();
    for (int64_t u = 0; u < units; u++)
        for (int64_t i = 0; i < k; i++) wt[u * k + i] = (float)(alpha * ox_cf(w, trans_w ? u * k + i : i * units + u));
    size_t in2, node;
    at_net_attrs a = {.channels = units};
    at_status st = ox_node_2d(o, x, &in2);
    if (st == AT_OK) st = ox_append(o, AT_NET_DENSE, NULL, &in2, 1, &a, &node);
    if (st == AT_OK) st = at_net_set_param(o->net, node, AT_NET_WEIGHT, wt);
    at_free(wt);
    AT_TRY(st);
    int64_t dims[2] = {x->dims[0], units};
    if (bias && beta != 0) {
        AT_TRY(need_const(o, bias, "C"));
        bool vec = bias->numel == units && (bias->rank == 1 || (bias->rank == 2 && bias->dims[0] == 1));
        if (!vec && bias->numel != 1) return matrix_bias(o, node, dims, bias, beta);
        float *b = at_net_floats(units);
        if (!b) return AT_OOM();
        for (int64_t u = 0; u < units; u++) b[u] = (float)(beta * ox_cf(bias, vec ? u : 0));
        size_t bn;
        st = ox_append(o, AT_NET_BIAS_ADD, "bias", &node, 1, NULL, &bn);
        if (st == AT_OK) st = at_net_set_param(o->net, bn, AT_NET_BIAS, b);
        at_free(b);
        AT_TRY(st);
        node = bn;
    }
    return ox_out_node(o, 0, node, 2, dims);
}

static at_status op_gemm(ox *o)
{
    IN(0, x);
    at_status st = AT_OK;
    const ox_value *w = ox_in(o, 1, &st), *c = NULL;
    if (!w) return st;
    if (ox_has_in(o, 2) && !(c = ox_in(o, 2, &st))) return st;
    ox_value xt;
    if (ox_attr_i(o, "transA", 0)) {
        /* A transposed by a transpose node (dense takes [M, K]) */
        AT_TRY(need_runtime(o, x));
        if (x->rank != 2) return UNSUP("only 2-D operands are supported");
        at_net_attrs a = {.perm = {1, 0, 2, 3}};
        xt = *x;
        xt.dims[0] = x->dims[1];
        xt.dims[1] = x->dims[0];
        AT_TRY(ox_append(o, AT_NET_TRANSPOSE, "transA", &x->node, 1, &a, &xt.node));
        x = &xt;
    }
    return dense(o, x, w, ox_attr_i(o, "transB", 0) != 0, ox_attr_f(o, "alpha", 1), c, ox_attr_f(o, "beta", 1));
}

static at_status op_matmul(ox *o)
{
    IN(0, x);
    at_status st = AT_OK;
    const ox_value *w = ox_in(o, 1, &st);
    if (!w) return st;
    return dense(o, x, w, false, 1, NULL, 0);
}

/* ---- shapes: Flatten, Reshape, Squeeze, Unsqueeze, Concat, Shape, Gather, Constant ---------- */

/* Output 0 as x's elements with ONNX shape dims[0..rank): a constant keeps its data, a runtime
 * value gets a reshape node (no work: the executors alias it). */
static at_status reshaped(ox *o, const ox_value *x, size_t rank, const int64_t *dims)
{
    int64_t e = 1;
    for (size_t d = 0; d < rank; d++) e *= dims[d];
    int64_t xe = 1;
    for (size_t d = 0; d < x->rank; d++) xe *= x->dims[d];
    if (e != xe) return ox_fail(o, AT_EINVAL, "reshape of %" PRId64 " elements to %" PRId64, xe, e);
    if (x->is_const) {
        size_t bytes = (size_t)(e ? e : 1) * (x->f ? sizeof(float) : sizeof(int64_t));
        void *p = at_malloc(bytes);
        if (!p) return AT_OOM();
        memcpy(p, x->f ? (const void *)x->f : (const void *)x->i, (size_t)e * (x->f ? sizeof(float) : sizeof(int64_t)));
        return ox_out_const(o, 0, rank, dims, x->f ? p : NULL, x->f ? NULL : p);
    }
    if (rank == 5) {
        bool done;
        AT_TRY(ox_channel_shuffle(o, x, dims, &done));
        if (done) return AT_OK;
    }
    if (rank > 4) return UNSUP("a runtime tensor of rank %zu", rank);
    const at_net_node *n = at_net_node_at(o->net, x->node);
    at_net_attrs a = {.to_ndim = rank == 2 ? 2 : 4, .to_shape = {1, 1, 1, 1}};
    memcpy(a.to_shape, dims, rank * sizeof *dims);
    bool same = n->ndim == a.to_ndim && !memcmp(n->shape, a.to_shape, a.to_ndim * sizeof *dims);
    size_t node = x->node;
    /* [N, ...] -> [N, rest] is relay's batch_flatten, as the zoo builds it */
    bool flatten = n->ndim == 4 && rank == 2 && dims[0] == n->shape[0];
    if (!same) AT_TRY(ox_append(o, flatten ? AT_NET_BATCH_FLATTEN : AT_NET_RESHAPE, NULL, &x->node, 1, flatten ? NULL : &a, &node));
    return ox_out_node(o, 0, node, rank, dims);
}

static at_status op_flatten(ox *o)
{
    IN(0, x);
    int64_t axis = ox_attr_i(o, "axis", 1);
    if (axis < 0) axis += (int64_t)x->rank;
    if (axis < 0 || axis > (int64_t)x->rank) return ox_fail(o, AT_EINVAL, "axis %" PRId64 " out of range", axis);
    int64_t dims[2] = {1, 1};
    for (size_t d = 0; d < x->rank; d++) dims[(int64_t)d < axis ? 0 : 1] *= x->dims[d];
    return reshaped(o, x, 2, dims);
}

static at_status op_reshape(ox *o)
{
    IN(0, x);
    at_status st = AT_OK;
    const ox_value *s = ox_in(o, 1, &st);
    if (!s) return st;
    AT_TRY(need_const(o, s, "shape"));
    if (s->numel > OX_MAX_RANK) return UNSUP("a shape of %" PRId64 " dims", s->numel);
    int64_t dims[OX_MAX_RANK], known = 1, total = 1;
    int infer = -1;
    bool allowzero = ox_attr_i(o, "allowzero", 0) != 0;
    for (size_t d = 0; d < x->rank; d++) total *= x->dims[d];
    for (int64_t d = 0; d < s->numel; d++) {
        dims[d] = ox_ci(s, d);
        if (dims[d] == 0 && !allowzero) {
            if ((size_t)d >= x->rank) return ox_fail(o, AT_EINVAL, "shape copies dim %" PRId64 " of a rank %zu input", d, x->rank);
            dims[d] = x->dims[d];
        }
        if (dims[d] == -1) {
            if (infer >= 0) return ox_fail(o, AT_EINVAL, "more than one -1 in the shape");
            infer = (int)d;
        } else if (dims[d] < 0) {
            return ox_fail(o, AT_EINVAL, "negative dim %" PRId64 " in the shape", dims[d]);
        } else {
            known *= dims[d];
        }
    }
    if (infer >= 0) {
        if (known == 0 || total % known) return ox_fail(o, AT_EINVAL, "shape does not divide %" PRId64 " elements", total);
        dims[infer] = total / known;
    }
    return reshaped(o, x, (size_t)s->numel, dims);
}

/* The axes of Squeeze / Unsqueeze: attribute (opset < 13) or input 1. */
static at_status axes_of(ox *o, int64_t *axes, size_t *n)
{
    *n = 0;
    const int64_t *v;
    size_t k = ox_attr_ints(o, "axes", &v);
    if (k) {
        if (k > OX_MAX_RANK) return UNSUP("%zu axes", k);
        memcpy(axes, v, k * sizeof *v);
        *n = k;
        return AT_OK;
    }
    if (!ox_has_in(o, 1)) return AT_OK;
    IN(1, a);
    AT_TRY(need_const(o, a, "axes"));
    if (a->numel > OX_MAX_RANK) return UNSUP("%" PRId64 " axes", a->numel);
    for (int64_t i = 0; i < a->numel; i++) axes[i] = ox_ci(a, i);
    *n = (size_t)a->numel;
    return AT_OK;
}

static at_status op_squeeze(ox *o)
{
    IN(0, x);
    int64_t axes[OX_MAX_RANK], dims[OX_MAX_RANK];
    size_t n, r = 0;
    AT_TRY(axes_of(o, axes, &n));
    bool drop[OX_MAX_RANK] = {0};
    for (size_t i = 0; i < n; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + (int64_t)x->rank : axes[i];
        if (a < 0 || a >= (int64_t)x->rank || x->dims[a] != 1) return ox_fail(o, AT_EINVAL, "axis %" PRId64 " is not a dim of 1", axes[i]);
        drop[a] = true;
    }
    for (size_t d = 0; d < x->rank; d++)
        if (!(n ? drop[d] : x->dims[d] == 1)) dims[r++] = x->dims[d];
    return reshaped(o, x, r, dims);
}

static at_status op_unsqueeze(ox *o)
{
    IN(0, x);
    int64_t axes[OX_MAX_RANK], dims[OX_MAX_RANK];
    size_t n;
    AT_TRY(axes_of(o, axes, &n));
    size_t r = x->rank + n;
    if (r > OX_MAX_RANK) return UNSUP("rank %zu", r);
    bool ins[OX_MAX_RANK] = {0};
    for (size_t i = 0; i < n; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + (int64_t)r : axes[i];
        if (a < 0 || a >= (int64_t)r || ins[a]) return ox_fail(o, AT_EINVAL, "bad axis %" PRId64, axes[i]);
        ins[a] = true;
    }
    for (size_t d = 0, s = 0; d < r; d++) dims[d] = ins[d] ? 1 : x->dims[s++];
    return reshaped(o, x, r, dims);
}

static at_status op_concat(ox *o)
{
    size_t n = o->cur->n_input;
    if (n < 1 || n > AT_NET_MAX_INPUTS) return UNSUP("%zu inputs (1 to %d)", n, AT_NET_MAX_INPUTS);
    const ox_value *v[AT_NET_MAX_INPUTS];
    bool all_const = true;
    for (size_t k = 0; k < n; k++) {
        at_status st = AT_OK;
        if (!(v[k] = ox_in(o, k, &st))) return st;
        all_const = all_const && v[k]->is_const;
    }
    int64_t axis = ox_attr_i(o, "axis", 0), rank = (int64_t)v[0]->rank;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return ox_fail(o, AT_EINVAL, "axis out of range");
    int64_t dims[OX_MAX_RANK];
    memcpy(dims, v[0]->dims, (size_t)rank * sizeof *dims);
    dims[axis] = 0;
    for (size_t k = 0; k < n; k++) {
        if ((int64_t)v[k]->rank != rank) return ox_fail(o, AT_EINVAL, "inputs of different ranks");
        for (int64_t d = 0; d < rank; d++)
            if (d != axis && v[k]->dims[d] != v[0]->dims[d]) return ox_fail(o, AT_EINVAL, "inputs differ outside the axis");
        dims[axis] += v[k]->dims[axis];
    }
    if (all_const) {
        int64_t outer = 1, total = 1;
        for (int64_t d = 0; d < axis; d++) outer *= dims[d];
        for (int64_t d = 0; d < rank; d++) total *= dims[d];
        bool ints = true;
        for (size_t k = 0; k < n; k++) ints = ints && v[k]->i;
        float *f = ints ? NULL : at_net_floats(total);
        int64_t *iv = ints ? at_malloc((size_t)(total ? total : 1) * sizeof *iv) : NULL, pos = 0;
        if (!f && !iv) return AT_OOM();
        for (int64_t b = 0; b < outer; b++)
            for (size_t k = 0; k < n; k++) {
                int64_t chunk = outer ? v[k]->numel / outer : 0;
                for (int64_t i = 0; i < chunk; i++, pos++) {
                    if (ints) iv[pos] = v[k]->i[b * chunk + i];
                    else f[pos] = (float)ox_cf(v[k], b * chunk + i);
                }
            }
        return ox_out_const(o, 0, (size_t)rank, dims, f, iv);
    }
    if (rank > 4) return UNSUP("a concatenation of rank %" PRId64 " (at most 4)", rank);
    size_t nd = graph_ndim(o, v, n, (size_t)rank), ins[AT_NET_MAX_INPUTS], node;
    for (size_t k = 0; k < n; k++) {
        int64_t shape[4];
        graph_shape(v[k], (size_t)rank, shape);
        AT_TRY(as_node(o, v[k], nd, shape, &ins[k]));
    }
    /* the graph's axis counted from the end: 0 would mean its default, the channels */
    at_net_attrs a = {.axis = axis - (int64_t)nd};
    AT_TRY(ox_append(o, AT_NET_CONCAT, NULL, ins, n, &a, &node));
    return ox_out_node(o, 0, node, (size_t)rank, dims);
}

static at_status op_shape(ox *o)
{
    IN(0, x);
    int64_t r = (int64_t)x->rank, start = ox_attr_i(o, "start", 0), end = ox_attr_i(o, "end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < 0 ? 0 : end > r ? r : end;
    int64_t n = end > start ? end - start : 0;
    int64_t *iv = at_malloc((size_t)(n ? n : 1) * sizeof *iv);
    if (!iv) return AT_OOM();
    for (int64_t k = 0; k < n; k++) iv[k] = x->dims[start + k];
    return ox_out_const(o, 0, 1, &n, NULL, iv);
}

static at_status op_gather(ox *o)
{
    IN(0, x);
    at_status st = AT_OK;
    const ox_value *idx = ox_in(o, 1, &st);
    if (!idx) return st;
    AT_TRY(need_const(o, x, "data"));
    AT_TRY(need_const(o, idx, "indices"));
    if (ox_attr_i(o, "axis", 0) != 0 || x->rank != 1) return UNSUP("only axis 0 of a 1-D constant is folded");
    float *f = x->f ? at_net_floats(idx->numel) : NULL;
    int64_t *iv = x->i ? at_malloc((size_t)(idx->numel ? idx->numel : 1) * sizeof *iv) : NULL;
    if (!f && !iv) return AT_OOM();
    for (int64_t k = 0; k < idx->numel; k++) {
        int64_t j = ox_ci(idx, k);
        if (j < 0) j += x->numel;
        if (j < 0 || j >= x->numel) {
            at_free(f);
            at_free(iv);
            return ox_fail(o, AT_EINVAL, "index %" PRId64 " out of range", ox_ci(idx, k));
        }
        if (f) f[k] = x->f[j];
        else iv[k] = x->i[j];
    }
    return ox_out_const(o, 0, idx->rank, idx->dims, f, iv);
}

static at_status op_constant(ox *o)
{
    const Onnx__TensorProto *t = ox_attr_t(o, "value");
    ox_value v;
    if (t) {
        AT_TRY(ox_tensor(o, t, &v));
        return ox_out_const(o, 0, v.rank, v.dims, v.f, v.i);
    }
    int64_t one = 1;
    const int64_t *ints;
    size_t n = ox_attr_ints(o, "value_ints", &ints);
    if (n || ox_attr_i(o, "value_int", INT64_MIN) != INT64_MIN) {
        int64_t len = n ? (int64_t)n : 1;
        int64_t *iv = at_malloc((size_t)len * sizeof *iv);
        if (!iv) return AT_OOM();
        if (n) memcpy(iv, ints, n * sizeof *ints);
        else iv[0] = ox_attr_i(o, "value_int", 0);
        return ox_out_const(o, 0, n ? 1 : 0, &len, NULL, iv);
    }
    if (!isnan(ox_attr_f(o, "value_float", NAN))) {
        float *f = at_net_floats(1);
        if (!f) return AT_OOM();
        f[0] = (float)ox_attr_f(o, "value_float", 0);
        return ox_out_const(o, 0, 0, &one, f, NULL);
    }
    return UNSUP("a Constant without value, value_int(s) or value_float");
}

static at_status op_softmax(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    int64_t r = (int64_t)x->rank, axis = ox_attr_i(o, "axis", o->opset >= 13 ? -1 : 1);
    if (axis < 0) axis += r;
    /* before opset 13 the input is coerced to 2-D at axis: the same as the last axis when it is */
    if (axis != r - 1) return UNSUP("axis %" PRId64 " (only the last axis is computed)", axis);
    size_t in = x->node, node;
    if (r == 2) {
        AT_TRY(ox_node_2d(o, x, &in));
    } else if (r != 4) {
        /* the graph's softmax takes the last graph axis: left-align the dims for it */
        at_net_attrs a = {.to_ndim = 4, .to_shape = {1, 1, 1, 1}};
        memcpy(a.to_shape + 4 - r, x->dims, (size_t)r * sizeof *x->dims);
        AT_TRY(ox_append(o, AT_NET_RESHAPE, "left", &x->node, 1, &a, &in));
    }
    AT_TRY(ox_append(o, AT_NET_SOFTMAX, NULL, &in, 1, NULL, &node));
    if (r != 2 && r != 4) {
        at_net_attrs a = {.to_ndim = 4, .to_shape = {1, 1, 1, 1}};
        memcpy(a.to_shape, x->dims, (size_t)r * sizeof *x->dims);
        size_t sm = node;
        AT_TRY(ox_append(o, AT_NET_RESHAPE, "right", &sm, 1, &a, &node));
    }
    return ox_out_node(o, 0, node, x->rank, x->dims);
}

/* ---- layout: Pad, Transpose, ReduceMean --------------------------------------------------- */

static at_status op_pad(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    size_t r = x->rank;
    if (r > 4) return UNSUP("an input of rank %zu (at most 4)", r);
    int64_t pads[2 * OX_MAX_RANK] = {0};
    double value = 0;
    char buf[32];
    const char *mode = ox_attr_s(o, "mode", "constant", buf, sizeof buf);
    if (o->opset < 11) {
        const int64_t *v;
        if (ox_attr_ints(o, "pads", &v) != 2 * r) return ox_fail(o, AT_EINVAL, "pads must give %zu values", 2 * r);
        memcpy(pads, v, 2 * r * sizeof *v);
        value = ox_attr_f(o, "value", 0);
    } else {
        at_status st = AT_OK;
        const ox_value *p = ox_in(o, 1, &st), *c = NULL, *ax = NULL;
        if (!p) return st;
        AT_TRY(need_const(o, p, "pads"));
        if (ox_has_in(o, 2)) {
            if (!(c = ox_in(o, 2, &st))) return st;
            AT_TRY(need_const(o, c, "constant_value"));
            if (c->numel != 1) return ox_fail(o, AT_EINVAL, "constant_value is not a scalar");
            value = ox_cf(c, 0);
        }
        size_t n_axes = r;
        int64_t axes[OX_MAX_RANK];
        for (size_t d = 0; d < r; d++) axes[d] = (int64_t)d;
        if (ox_has_in(o, 3)) {
            if (!(ax = ox_in(o, 3, &st))) return st;
            AT_TRY(need_const(o, ax, "axes"));
            if (ax->numel > (int64_t)r) return ox_fail(o, AT_EINVAL, "%" PRId64 " axes for rank %zu", ax->numel, r);
            n_axes = (size_t)ax->numel;
            for (size_t k = 0; k < n_axes; k++) {
                axes[k] = ox_ci(ax, (int64_t)k);
                if (axes[k] < 0) axes[k] += (int64_t)r;
                if (axes[k] < 0 || axes[k] >= (int64_t)r) return ox_fail(o, AT_EINVAL, "axis %" PRId64 " out of range", ox_ci(ax, (int64_t)k));
            }
        }
        if (p->numel != 2 * (int64_t)n_axes) return ox_fail(o, AT_EINVAL, "pads has %" PRId64 " values for %zu axes", p->numel, n_axes);
        for (size_t k = 0; k < n_axes; k++) {
            pads[axes[k]] = ox_ci(p, (int64_t)k);
            pads[r + (size_t)axes[k]] = ox_ci(p, (int64_t)(n_axes + k));
        }
    }
    at_net_attrs a = {.alpha = value};
    if (!strcmp(mode, "edge")) a.pad_mode = AT_NET_PAD_EDGE;
    else if (!strcmp(mode, "reflect")) a.pad_mode = AT_NET_PAD_REFLECT;
    else if (strcmp(mode, "constant")) return UNSUP("mode '%s'", mode);
    int64_t dims[OX_MAX_RANK];
    for (size_t d = 0; d < r; d++) {
        a.pad_nd[d] = pads[d];
        a.pad_nd[4 + d] = pads[r + d];
        dims[d] = x->dims[d] + pads[d] + pads[r + d];
    }
    size_t node;
    AT_TRY(ox_append(o, AT_NET_PAD, NULL, &x->node, 1, &a, &node));
    return ox_out_node(o, 0, node, r, dims);
}

static at_status op_transpose(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    size_t r = x->rank;
    if (r > 4) return UNSUP("an input of rank %zu (at most 4)", r);
    const int64_t *p;
    size_t n = ox_attr_ints(o, "perm", &p);
    if (n && n != r) return ox_fail(o, AT_EINVAL, "perm of %zu axes for rank %zu", n, r);
    /* the graph node's trailing axes (right padding) stay in place */
    at_net_attrs a = {.perm = {0, 1, 2, 3}};
    int64_t dims[OX_MAX_RANK];
    for (size_t d = 0; d < r; d++) {
        a.perm[d] = n ? p[d] : (int64_t)(r - 1 - d);
        if (a.perm[d] < 0 || a.perm[d] >= (int64_t)r) return ox_fail(o, AT_EINVAL, "perm value %" PRId64 " out of range", a.perm[d]);
        dims[d] = x->dims[a.perm[d]];
    }
    size_t node;
    AT_TRY(ox_append(o, AT_NET_TRANSPOSE, NULL, &x->node, 1, &a, &node));
    return ox_out_node(o, 0, node, r, dims);
}

static at_status op_reduce_mean(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    size_t r = x->rank, n;
    if (r > 4) return UNSUP("an input of rank %zu (at most 4)", r);
    int64_t axes[OX_MAX_RANK];
    AT_TRY(axes_of(o, axes, &n));
    bool keep = ox_attr_i(o, "keepdims", 1) != 0;
    if (n == 0 && ox_attr_i(o, "noop_with_empty_axes", 0)) return ox_out_alias(o, 0, x);
    unsigned mask = 0;
    for (size_t k = 0; k < n; k++) {
        int64_t a = axes[k] < 0 ? axes[k] + (int64_t)r : axes[k];
        if (a < 0 || a >= (int64_t)r) return ox_fail(o, AT_EINVAL, "axis %" PRId64 " out of range", axes[k]);
        mask |= 1u << a;
    }
    if (n == 0) mask = (1u << r) - 1;
    at_net_attrs at = {.axes = mask};
    ox_value red = *x;
    red.f = NULL;
    red.i = NULL;
    for (size_t d = 0; d < r; d++)
        if (mask >> d & 1) red.dims[d] = 1;
    AT_TRY(ox_append(o, AT_NET_REDUCE_MEAN, NULL, &x->node, 1, &at, &red.node));
    if (keep) return ox_out_node(o, 0, red.node, r, red.dims);
    int64_t dims[OX_MAX_RANK];
    size_t k = 0;
    for (size_t d = 0; d < r; d++)
        if (!(mask >> d & 1)) dims[k++] = x->dims[d];
    return reshaped(o, &red, k, dims);
}

/* ---- ConvTranspose ------------------------------------------------------------------------------ */

/* 2-D, groups 1: pads from pads, auto_pad or output_shape as ONNX's reference computes them (the
 * output extent is s * (in - 1) + output_padding + span - pads, or output_shape itself). */
static at_status op_conv_transpose(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    const ox_value *w = ox_in(o, 1, &st_);
    if (!w) return st_;
    AT_TRY(need_const(o, w, "weight"));
    if (x->rank != 4 || w->rank != 4) return UNSUP("only 2-D transposed convolutions (4-D input and weight) are supported");
    if (ox_attr_i(o, "group", 1) != 1) return UNSUP("group %" PRId64 " (1 only)", ox_attr_i(o, "group", 1));
    if (w->dims[0] != x->dims[1])
        return ox_fail(o, AT_EINVAL, "weight [%" PRId64 ", ...] does not fit %" PRId64 " input channels", w->dims[0], x->dims[1]);
    const int64_t *v;
    size_t nk = ox_attr_ints(o, "kernel_shape", &v);
    if (nk && (nk != 2 || v[0] != w->dims[2] || v[1] != w->dims[3])) return ox_fail(o, AT_EINVAL, "kernel_shape differs from the weight's");
    at_net_attrs a = {.channels = w->dims[1], .groups = 1, .kernel = {w->dims[2], w->dims[3]},
                      .stride = {1, 1}, .dilation = {1, 1}};
    size_t n;
    int64_t opad[2] = {0, 0}, oshape[2] = {0, 0}, pads[4] = {0, 0, 0, 0};
    if ((n = ox_attr_ints(o, "strides", &v))) {
        if (n != 2) return UNSUP("strides of %zu dims", n);
        a.stride[0] = v[0], a.stride[1] = v[1];
    }
    if ((n = ox_attr_ints(o, "dilations", &v))) {
        if (n != 2) return UNSUP("dilations of %zu dims", n);
        a.dilation[0] = v[0], a.dilation[1] = v[1];
    }
    if ((n = ox_attr_ints(o, "output_padding", &v))) {
        if (n != 2) return UNSUP("output_padding of %zu dims", n);
        opad[0] = v[0], opad[1] = v[1];
    }
    bool has_pads = (n = ox_attr_ints(o, "pads", &v)) != 0;
    if (has_pads) {
        if (n != 4) return UNSUP("pads of %zu values", n);
        memcpy(pads, v, sizeof pads);
    }
    bool has_shape = (n = ox_attr_ints(o, "output_shape", &v)) != 0;
    if (has_shape) {
        if (n != 2) return UNSUP("output_shape of %zu dims (give H and W)", n);
        oshape[0] = v[0], oshape[1] = v[1];
    }
    char buf[32];
    const char *ap = ox_attr_s(o, "auto_pad", "NOTSET", buf, sizeof buf);
    bool same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
    if (!same && strcmp(ap, "NOTSET") && strcmp(ap, "VALID")) return UNSUP("auto_pad '%s'", ap);
    for (int d = 0; d < 2; d++) {
        if (a.stride[d] < 1 || a.dilation[d] < 1) return ox_fail(o, AT_EINVAL, "strides and dilations must be >= 1");
        int64_t span = (a.kernel[d] - 1) * a.dilation[d] + 1, full = a.stride[d] * (x->dims[2 + d] - 1) + opad[d] + span;
        if (same && !has_pads) {
            int64_t want = has_shape ? oshape[d] : x->dims[2 + d] * a.stride[d], total = full - want;
            int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2); /* Python's floor division */
            pads[d] = !strcmp(ap, "SAME_UPPER") ? half : total - half;
            pads[2 + d] = total - pads[d];
        }
        a.pad[d] = pads[d];
        a.out_size[d] = has_shape ? oshape[d] : full - pads[d] - pads[2 + d];
        if (a.pad[d] < 0 || a.out_size[d] < 1) return ox_fail(o, AT_EINVAL, "the output extent or its padding is negative");
    }
    size_t node;
    AT_TRY(ox_append(o, AT_NET_CONV2D_TRANSPOSE, NULL, &x->node, 1, &a, &node));
    AT_TRY(at_net_set_param(o->net, node, AT_NET_WEIGHT, w->f));
    if (ox_has_in(o, 2)) {
        const ox_value *bv = ox_in(o, 2, &st_);
        if (!bv) return st_;
        AT_TRY(need_const(o, bv, "bias"));
        if (bv->numel != a.channels) return ox_fail(o, AT_EINVAL, "bias of %" PRId64 " values for %" PRId64 " channels", bv->numel, a.channels);
        size_t bn;
        AT_TRY(ox_append(o, AT_NET_BIAS_ADD, "bias", &node, 1, NULL, &bn));
        AT_TRY(at_net_set_param(o->net, bn, AT_NET_BIAS, bv->f));
        node = bn;
    }
    int64_t dims[4] = {x->dims[0], a.channels, a.out_size[0], a.out_size[1]};
    return ox_out_node(o, 0, node, 4, dims);
}

/* ---- Resize, Upsample ------------------------------------------------------------------------- */

/* x = ((o + a) * p) / q + b per coordinate_transformation_mode (ONNX's reference formulas, with
 * the resized length as scale * input length, not rounded: align_corners depends on it). */
static void resize_axis(const char *mode, int64_t in, double scale, at_net_resize *r, int k)
{
    double len = scale * (double)in;
    r->a[k] = 0, r->p[k] = 1, r->q[k] = scale, r->b[k] = 0;
    if (!strcmp(mode, "half_pixel")) {
        r->a[k] = 0.5, r->b[k] = -0.5;
    } else if (!strcmp(mode, "pytorch_half_pixel")) {
        if (r->out[k] > 1) r->a[k] = 0.5, r->b[k] = -0.5;
        else r->p[k] = 0, r->q[k] = 1, r->b[k] = -0.5;
    } else if (!strcmp(mode, "align_corners")) {
        if (len == 1) r->p[k] = 0, r->q[k] = 1;
        else r->p[k] = (double)(in - 1), r->q[k] = len - 1;
    } else if (!strcmp(mode, "tf_half_pixel_for_nn")) {
        r->a[k] = 0.5;
    }
    /* asymmetric: the defaults */
}

/* Resize (opset 10: X, scales; 11+: X, roi, scales, sizes) and Upsample (7: scales attribute;
 * 9: X, scales) of H and W of a 4-D tensor, nearest or linear. */
static at_status op_resize(ox *o)
{
    IN(0, x);
    AT_TRY(need_runtime(o, x));
    if (x->rank != 4) return UNSUP("an input of rank %zu (2-D NCHW only)", x->rank);
    bool upsample = !strcmp(o->cur->op_type, "Upsample");
    char buf[32], cbuf[32], nbuf[32];
    const char *mode = ox_attr_s(o, "mode", "nearest", buf, sizeof buf);
    const char *coord = upsample || o->opset < 11 ? "asymmetric"
                                                  : ox_attr_s(o, "coordinate_transformation_mode", "half_pixel", cbuf, sizeof cbuf);
    const char *nearest = upsample || o->opset < 11 ? "floor" : ox_attr_s(o, "nearest_mode", "round_prefer_floor", nbuf, sizeof nbuf);
    static const char *const coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                         "tf_half_pixel_for_nn"};
    size_t ci = 0;
    while (ci < 5 && strcmp(coord, coords[ci])) ci++;
    if (ci == 5) return UNSUP("coordinate_transformation_mode '%s'", coord);
    at_net_attrs a = {0};
    at_net_resize *r = &a.resize;
    if (!strcmp(mode, "linear")) r->mode = AT_NET_RESIZE_LINEAR;
    else if (strcmp(mode, "nearest")) return UNSUP("mode '%s' (nearest and linear only)", mode);
    static const char *const rounds[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    size_t ri = 0;
    while (ri < 4 && strcmp(nearest, rounds[ri])) ri++;
    if (ri == 4) return UNSUP("nearest_mode '%s'", nearest);
    r->round = (at_net_round)ri;
    if (ox_attr_i(o, "antialias", 0)) return UNSUP("antialias");
    if (ox_attr_ints(o, "axes", &(const int64_t *){NULL})) return UNSUP("the axes attribute");
    double scale[4] = {1, 1, 1, 1};
    int64_t dims[4];
    memcpy(dims, x->dims, sizeof dims);
    size_t k_scales = upsample || o->opset < 11 ? 1 : 2;
    const ox_value *sv = NULL, *zv = NULL;
    if (upsample && o->opset < 9) {
        const float *f = NULL;
        const Onnx__AttributeProto *at = NULL;
        for (size_t i = 0; i < o->cur->n_attribute; i++)
            if (!strcmp(o->cur->attribute[i]->name, "scales")) at = o->cur->attribute[i];
        if (!at || at->n_floats != 4) return ox_fail(o, AT_EINVAL, "scales must give 4 values");
        f = at->floats;
        for (int d = 0; d < 4; d++) scale[d] = f[d];
    } else {
        at_status st = AT_OK;
        if (ox_has_in(o, k_scales) && !(sv = ox_in(o, k_scales, &st))) return st;
        if (!upsample && o->opset >= 11 && ox_has_in(o, 3) && !(zv = ox_in(o, 3, &st))) return st;
        if (sv) AT_TRY(need_const(o, sv, "scales"));
        if (zv) AT_TRY(need_const(o, zv, "sizes"));
        if (sv && sv->numel == 0) sv = NULL; /* an empty scales beside sizes */
        if (!sv == !zv) return ox_fail(o, AT_EINVAL, "give exactly one of scales and sizes");
        const ox_value *v = sv ? sv : zv;
        if (v->numel != 4) return ox_fail(o, AT_EINVAL, "%s must give 4 values", sv ? "scales" : "sizes");
        for (int d = 0; d < 4; d++) {
            if (zv) dims[d] = ox_ci(zv, d);
            scale[d] = zv ? (double)dims[d] / (double)x->dims[d] : ox_cf(sv, d);
        }
    }
    for (int d = 0; d < 4; d++) {
        if (!(scale[d] > 0)) return ox_fail(o, AT_EINVAL, "scale %g of axis %d is not positive", scale[d], d);
        if (sv || (upsample && o->opset < 9)) dims[d] = (int64_t)floor((double)x->dims[d] * scale[d]);
        if (dims[d] < 1) return ox_fail(o, AT_EINVAL, "axis %d resized to %" PRId64, d, dims[d]);
    }
    if (dims[0] != x->dims[0] || dims[1] != x->dims[1]) return UNSUP("resizing N or C (H and W only)");
    for (int k = 0; k < 2; k++) {
        r->out[k] = dims[2 + k];
        resize_axis(coord, x->dims[2 + k], scale[2 + k], r, k);
    }
    size_t node;
    AT_TRY(ox_append(o, AT_NET_RESIZE, NULL, &x->node, 1, &a, &node));
    return ox_out_node(o, 0, node, 4, dims);
}

/* ---- the table ---- */

static const struct {
    const char   *type;
    ox_convert_fn fn;
} ops[] = {
    {"Add", op_add},
    {"AveragePool", op_avg_pool},
    {"BatchNormalization", op_batch_norm},
    {"Clip", op_clip},
    {"Concat", op_concat},
    {"Constant", op_constant},
    {"Conv", op_conv},
    {"ConvTranspose", op_conv_transpose},
    {"Div", op_div},
    {"Dropout", op_identity},
    {"Flatten", op_flatten},
    {"Gather", op_gather},
    {"Gemm", op_gemm},
    {"GlobalAveragePool", op_global_avg_pool},
    {"HardSigmoid", op_hard_sigmoid},
    {"HardSwish", op_hard_swish},
    {"Identity", op_identity},
    {"LeakyRelu", op_leaky_relu},
    {"MatMul", op_matmul},
    {"MaxPool", op_max_pool},
    {"Mul", op_mul},
    {"Pad", op_pad},
    {"ReduceMean", op_reduce_mean},
    {"Relu", op_relu},
    {"Reshape", op_reshape},
    {"Resize", op_resize},
    {"Shape", op_shape},
    {"Sigmoid", op_sigmoid},
    {"Slice", ox_op_slice},
    {"Softmax", op_softmax},
    {"Squeeze", op_squeeze},
    {"Sub", op_sub},
    {"Transpose", op_transpose},
    {"Unsqueeze", op_unsqueeze},
    {"Upsample", op_resize},
};

ox_convert_fn ox_find_op(const char *type)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(ops[i].type, type)) return ops[i].fn;
    return NULL;
}
