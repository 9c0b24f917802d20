/* Network graphs: nodes appended in topological order with their shapes checked and inferred as
 * relay's type relations do, and parameters drawn per tensor from an rng seeded by (seed, node
 * name, parameter), so a value never depends on what else the network holds. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/internal.h"
#include "networks/net.h"

struct at_net {
    char        *name;
    at_net_node *nodes;
    size_t       n, cap;
    bool         params, fused;
    uint64_t     seed;
    at_net_io_shape io[2]; /* ONNX input, output (rank 0: a zoo network) */
};

static const char *const op_names[AT_NET_OP_COUNT] = {
    [AT_NET_INPUT] = "input",
    [AT_NET_CONV2D] = "nn.conv2d",
    [AT_NET_DENSE] = "nn.dense",
    [AT_NET_BATCH_NORM] = "nn.batch_norm",
    [AT_NET_BIAS_ADD] = "nn.bias_add",
    [AT_NET_RELU] = "nn.relu",
    [AT_NET_ADD] = "add",
    [AT_NET_SCALE_SHIFT] = "scale_shift",
    [AT_NET_MAX_POOL2D] = "nn.max_pool2d",
    [AT_NET_GLOBAL_AVG_POOL2D] = "nn.global_avg_pool2d",
    [AT_NET_BATCH_FLATTEN] = "nn.batch_flatten",
    [AT_NET_DROPOUT] = "nn.dropout",
    [AT_NET_CONCAT] = "concatenate",
    [AT_NET_SOFTMAX] = "nn.softmax",
    [AT_NET_ACTIVATION] = "activation",
    [AT_NET_RESHAPE] = "reshape",
    [AT_NET_BINARY] = "binary",
    [AT_NET_CONSTANT] = "constant",
    [AT_NET_AVG_POOL2D] = "nn.avg_pool2d",
    [AT_NET_PAD] = "nn.pad",
    [AT_NET_REDUCE_MEAN] = "mean",
    [AT_NET_TRANSPOSE] = "transpose",
    [AT_NET_RESIZE] = "image.resize2d",
    [AT_NET_CONV2D_TRANSPOSE] = "nn.conv2d_transpose",
};

const char *at_net_op_name(at_net_op op)
{
    AT_ASSERT((unsigned)op < AT_NET_OP_COUNT);
    return op_names[op];
}

bool at_net_conv_is_grouped(const at_net *net, const at_net_node *n)
{
    if (n->op != AT_NET_CONV2D || n->attrs.groups <= 1) return false;
    int64_t c = net->nodes[n->inputs[0]].shape[1];
    return !(n->attrs.groups == c && n->attrs.channels == c);
}

bool at_net_op_is_anchor(at_net_op op)
{
    return op == AT_NET_CONV2D || op == AT_NET_DENSE;
}

bool at_net_op_has_weight(at_net_op op)
{
    return at_net_op_is_anchor(op) || op == AT_NET_CONSTANT || op == AT_NET_CONV2D_TRANSPOSE;
}

float *at_net_floats(int64_t n)
{
    return at_malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
}

float *at_net_floats_dup(const float *p, int64_t n)
{
    if (!p) return NULL;
    float *q = at_net_floats(n);
    if (q && n > 0) memcpy(q, p, (size_t)n * sizeof(float));
    return q;
}

static void node_free_params(at_net_node *n)
{
    float **ps[] = {&n->weight, &n->bias, &n->gamma, &n->beta, &n->mean, &n->var, &n->scale, &n->shift};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        at_free(*ps[i]);
        *ps[i] = NULL;
    }
}

static void node_fini(at_net_node *n)
{
    at_free(n->name);
    n->name = NULL;
    node_free_params(n);
}

at_status at_net_new(const char *name, const int64_t shape[4], bool params, uint64_t seed, at_net **out)
{
    *out = NULL;
    for (int i = 0; i < 4; i++)
        if (shape[i] < 1 || shape[i] > (1LL << 24))
            return AT_FAIL(AT_EINVAL, "network %s: input extents must be in 1 .. 2^24, got [%" PRId64 ", %" PRId64
                           ", %" PRId64 ", %" PRId64 "]", name, shape[0], shape[1], shape[2], shape[3]);
    at_net *net = at_calloc(1, sizeof *net);
    if (!net) return AT_OOM();
    net->name = at_strdup(name);
    net->cap = 64;
    net->nodes = at_calloc(net->cap, sizeof *net->nodes);
    net->params = params;
    net->seed = seed;
    if (!net->name || !net->nodes) {
        at_net_free(net);
        return AT_OOM();
    }
    at_net_node *in = &net->nodes[0];
    in->op = AT_NET_INPUT;
    in->name = at_strdup("data");
    if (!in->name) {
        at_net_free(net);
        return AT_OOM();
    }
    in->ndim = 4;
    memcpy(in->shape, shape, 4 * sizeof *shape);
    net->n = 1;
    *out = net;
    return AT_OK;
}

void at_net_free(at_net *net)
{
    if (!net) return;
    for (size_t i = 0; i < net->n; i++) node_fini(&net->nodes[i]);
    at_free(net->nodes);
    at_free(net->name);
    at_free(net);
}

const char *at_net_name(const at_net *net)
{
    return net->name;
}

size_t at_net_n_nodes(const at_net *net)
{
    return net->n;
}

const at_net_node *at_net_node_at(const at_net *net, size_t i)
{
    AT_ASSERT(i < net->n);
    return &net->nodes[i];
}

size_t at_net_output(const at_net *net)
{
    return net->n - 1;
}

bool at_net_has_params(const at_net *net)
{
    return net->params;
}

bool at_net_is_fused(const at_net *net)
{
    return net->fused;
}

void at_net_set_io_shapes(at_net *net, const at_net_io_shape *in, const at_net_io_shape *out)
{
    net->io[0] = *in;
    net->io[1] = *out;
}

void at_net_copy_io_shapes(at_net *dst, const at_net *src)
{
    dst->io[0] = src->io[0];
    dst->io[1] = src->io[1];
}

size_t at_net_onnx_rank(const at_net *net, bool output, int64_t dims[4])
{
    const at_net_io_shape *s = &net->io[output ? 1 : 0];
    for (size_t i = 0; i < s->rank; i++) dims[i] = s->dims[i];
    return s->rank;
}

void at_net_set_fused(at_net *net, bool fused)
{
    net->fused = fused;
}

int64_t at_net_node_numel(const at_net_node *n)
{
    int64_t e = 1;
    for (size_t i = 0; i < n->ndim; i++) e *= n->shape[i];
    return e;
}

size_t at_net_find(const at_net *net, const char *name)
{
    for (size_t i = 0; i < net->n; i++)
        if (!strcmp(net->nodes[i].name, name)) return i;
    return SIZE_MAX;
}

size_t at_net_n_uses(const at_net *net, size_t i)
{
    size_t uses = 0;
    for (size_t j = i + 1; j < net->n; j++)
        for (size_t k = 0; k < net->nodes[j].n_inputs; k++) uses += net->nodes[j].inputs[k] == i;
    return uses;
}

int64_t at_net_channels(const at_net_node *n)
{
    return at_net_op_is_anchor(n->op) ? n->attrs.channels : n->shape[1];
}

static at_status grow(at_net *net)
{
    if (net->n < net->cap) return AT_OK;
    size_t cap = net->cap * 2;
    at_net_node *nodes = at_realloc(net->nodes, cap * sizeof *nodes);
    if (!nodes) return AT_OOM();
    memset(nodes + net->cap, 0, (cap - net->cap) * sizeof *nodes);
    net->nodes = nodes;
    net->cap = cap;
    return AT_OK;
}

at_status at_net_push_node(at_net *net, const at_net_node *node, size_t *out)
{
    at_net_node copy = *node;
    copy.name = at_strdup(node->name);
    if (!copy.name || grow(net) != AT_OK) {
        node_fini(&copy);
        return AT_OOM();
    }
    net->nodes[net->n] = copy;
    *out = net->n++;
    return AT_OK;
}

/* ---- parameters ----------------------------------------------------------------------------- */

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

/* n values uniform in [lo, hi) from the rng of (seed, node, tag). */
static float *draw(const at_net *net, const char *node, const char *tag, int64_t n, double lo, double hi)
{
    float *p = at_net_floats(n);
    if (!p) return NULL;
    uint64_t h = fnv1a(fnv1a(fnv1a(14695981039346656037ULL, node), ":"), tag);
    at_rng rng;
    at_rng_seed(&rng, net->seed ^ h);
    for (int64_t i = 0; i < n; i++) p[i] = (float)(lo + (hi - lo) * at_rng_uniform(&rng));
    return p;
}

static int64_t weight_numel(const at_net_node *n, const at_net_node *in)
{
    /* conv2d [channels, C_in / groups, KH, KW], dense [units, K] */
    if (n->op == AT_NET_CONV2D)
        return n->attrs.channels * (in->shape[1] / n->attrs.groups) * n->attrs.kernel[0] * n->attrs.kernel[1];
    if (n->op == AT_NET_DENSE) return n->attrs.channels * in->shape[1];
    if (n->op == AT_NET_CONV2D_TRANSPOSE) return in->shape[1] * n->attrs.channels * n->attrs.kernel[0] * n->attrs.kernel[1];
    if (n->op == AT_NET_CONSTANT) return at_net_node_numel(n);
    return 0;
}

int64_t at_net_weight_numel(const at_net *net, const at_net_node *n)
{
    if (n->op == AT_NET_CONSTANT) return at_net_node_numel(n);
    return n->n_inputs ? weight_numel(n, &net->nodes[n->inputs[0]]) : 0;
}

static at_status make_params(const at_net *net, at_net_node *n, const at_net_node *in)
{
    int64_t c = at_net_channels(n);
    bool ok = true;
    switch (n->op) {
    case AT_NET_CONV2D:
    case AT_NET_DENSE:
    case AT_NET_CONV2D_TRANSPOSE: {
        int64_t fan_in = weight_numel(n, in) / n->attrs.channels;
        double a = sqrt(6.0 / (double)fan_in);
        ok = (n->weight = draw(net, n->name, "weight", weight_numel(n, in), -a, a)) != NULL;
        break;
    }
    case AT_NET_BIAS_ADD:
        ok = (n->bias = draw(net, n->name, "bias", c, -0.1, 0.1)) != NULL;
        break;
    case AT_NET_CONSTANT:
        ok = (n->weight = draw(net, n->name, "value", at_net_node_numel(n), -1, 1)) != NULL;
        break;
    case AT_NET_SCALE_SHIFT:
        /* the identity until set: a per-channel Mul / Div sets only the scale */
        ok = (n->scale = at_net_floats(c)) && (n->shift = at_calloc((size_t)c, sizeof *n->shift));
        for (int64_t k = 0; ok && k < c; k++) n->scale[k] = 1;
        break;
    case AT_NET_BATCH_NORM:
        ok = (n->gamma = draw(net, n->name, "gamma", c, 0.8, 1.2)) && (n->beta = draw(net, n->name, "beta", c, -0.1, 0.1)) &&
             (n->mean = draw(net, n->name, "moving_mean", c, -0.1, 0.1)) &&
             (n->var = draw(net, n->name, "moving_var", c, 0.8, 1.2));
        break;
    case AT_NET_INPUT:
    case AT_NET_RELU:
    case AT_NET_ADD:
    case AT_NET_MAX_POOL2D:
    case AT_NET_GLOBAL_AVG_POOL2D:
    case AT_NET_BATCH_FLATTEN:
    case AT_NET_DROPOUT:
    case AT_NET_CONCAT:
    case AT_NET_SOFTMAX:
    case AT_NET_ACTIVATION:
    case AT_NET_RESHAPE:
    case AT_NET_BINARY:
    case AT_NET_AVG_POOL2D:
    case AT_NET_PAD:
    case AT_NET_REDUCE_MEAN:
    case AT_NET_TRANSPOSE:
    case AT_NET_RESIZE:
    case AT_NET_OP_COUNT:
        break;
    }
    return ok ? AT_OK : AT_OOM();
}

/* ---- shape inference ------------------------------------------------------------------------ */

static void attrs_defaults(at_net_attrs *a)
{
    for (int i = 0; i < 2; i++) {
        if (a->stride[i] == 0) a->stride[i] = 1;
        if (a->dilation[i] == 0) a->dilation[i] = 1;
    }
    if (a->groups == 0) a->groups = 1;
    if (a->eps == 0) a->eps = 1e-5;
}

#define BAD(...) AT_FAIL(AT_EINVAL, __VA_ARGS__)

/* Output extent of a window of k (dilated) over an input of in with pads and stride. */
static int64_t window_out(int64_t in, int64_t pad_a, int64_t pad_b, int64_t k, int64_t stride)
{
    int64_t span = in + pad_a + pad_b - k;
    return span < 0 ? 0 : span / stride + 1;
}

/* The same rounded up, as ONNX's and torch's ceil_mode: a last window that would start past the
 * input and its leading padding is dropped. */
static int64_t window_out_ceil(int64_t in, int64_t pad_a, int64_t pad_b, int64_t k, int64_t stride)
{
    int64_t span = in + pad_a + pad_b - k;
    if (span < 0) return 0;
    int64_t out = (span + stride - 1) / stride + 1;
    if ((out - 1) * stride >= in + pad_a) out--;
    return out;
}

static at_status pool_shape(at_net_node *n, const at_net_node *in, const char *who)
{
    const at_net_attrs *a = &n->attrs;
    const char *op = at_net_op_name(n->op);
    if (in->ndim != 4) return BAD("%s: %s takes a 4-D input", who, op);
    if (a->kernel[0] < 1 || a->kernel[1] < 1) return BAD("%s: %s needs a pool size", who, op);
    if (a->pad[0] >= a->kernel[0] || a->pad[2] >= a->kernel[0] || a->pad[1] >= a->kernel[1] || a->pad[3] >= a->kernel[1])
        return BAD("%s: %s padding must be smaller than the pool", who, op);
    int64_t (*f)(int64_t, int64_t, int64_t, int64_t, int64_t) = a->ceil_mode ? window_out_ceil : window_out;
    n->shape[2] = f(in->shape[2], a->pad[0], a->pad[2], a->kernel[0], a->stride[0]);
    n->shape[3] = f(in->shape[3], a->pad[1], a->pad[3], a->kernel[1], a->stride[1]);
    return AT_OK;
}

/* Output shape of a broadcasting binary op (each extent equal or 1). */
static at_status binary_shape(at_net_node *n, const at_net_node *x, const at_net_node *y, const char *who)
{
    if ((unsigned)n->attrs.bin >= AT_NET_BIN_COUNT) return BAD("%s: unknown binary op %d", who, (int)n->attrs.bin);
    if (x->ndim != y->ndim) return BAD("%s: binary op of a %zu-D and a %zu-D tensor", who, x->ndim, y->ndim);
    for (size_t d = 0; d < x->ndim; d++) {
        if (x->shape[d] != y->shape[d] && x->shape[d] != 1 && y->shape[d] != 1)
            return BAD("%s: extents %" PRId64 " and %" PRId64 " of axis %zu do not broadcast", who, x->shape[d], y->shape[d], d);
        n->shape[d] = x->shape[d] > y->shape[d] ? x->shape[d] : y->shape[d];
    }
    return AT_OK;
}

static at_status concat_shape(const at_net *net, at_net_node *n, const char *who)
{
    const at_net_node *in = &net->nodes[n->inputs[0]];
    int64_t nd = (int64_t)in->ndim, axis = n->attrs.axis == 0 ? 1 : n->attrs.axis;
    if (axis < 0) axis += nd;
    if (axis < 0 || axis >= nd) return BAD("%s: concatenate axis %" PRId64 " of a %zu-D tensor", who, n->attrs.axis, in->ndim);
    n->attrs.axis = axis;
    int64_t c = 0;
    for (size_t i = 0; i < n->n_inputs; i++) {
        const at_net_node *x = &net->nodes[n->inputs[i]];
        bool same = x->ndim == in->ndim;
        for (int64_t d = 0; same && d < nd; d++) same = d == axis || x->shape[d] == in->shape[d];
        if (!same) return BAD("%s: concatenate of tensors differing outside axis %" PRId64, who, axis);
        c += x->shape[axis];
    }
    n->shape[axis] = c;
    return AT_OK;
}

static at_status pad_shape(at_net_node *n, const at_net_node *in, const char *who)
{
    const at_net_attrs *a = &n->attrs;
    size_t nd = in->ndim;
    if ((unsigned)a->pad_mode >= AT_NET_PAD_MODE_COUNT) return BAD("%s: unknown pad mode %d", who, (int)a->pad_mode);
    for (size_t d = 0; d < nd; d++) {
        for (size_t k = d; k < 8; k += 4)
            if (a->pad_nd[k] < -(1LL << 31) || a->pad_nd[k] > (1LL << 31)) return BAD("%s: pads of axis %zu beyond 2^31", who, d);
        n->shape[d] = in->shape[d] + a->pad_nd[d] + a->pad_nd[4 + d];
        if (a->pad_mode == AT_NET_PAD_REFLECT && (a->pad_nd[d] >= in->shape[d] || a->pad_nd[4 + d] >= in->shape[d]))
            return BAD("%s: reflect pads of axis %zu reach past its %" PRId64 " elements", who, d, in->shape[d]);
    }
    for (size_t d = nd; d < 4; d++)
        if (a->pad_nd[d] || a->pad_nd[4 + d]) return BAD("%s: pad of axis %zu of a %zu-D tensor", who, d, nd);
    return AT_OK;
}

static at_status reduce_shape(at_net_node *n, const at_net_node *in, const char *who)
{
    unsigned axes = n->attrs.axes;
    if (axes == 0 || axes >> in->ndim) return BAD("%s: reduce axes 0x%x of a %zu-D tensor", who, axes, in->ndim);
    for (size_t d = 0; d < in->ndim; d++)
        if (axes >> d & 1) n->shape[d] = 1;
    return AT_OK;
}

static at_status transpose_shape(at_net_node *n, const at_net_node *in, const char *who)
{
    const int64_t *perm = n->attrs.perm;
    unsigned seen = 0;
    for (size_t d = 0; d < in->ndim; d++) {
        if (perm[d] < 0 || perm[d] >= (int64_t)in->ndim || (seen >> perm[d] & 1))
            return BAD("%s: transpose perm is not a permutation of %zu axes", who, in->ndim);
        seen |= 1u << perm[d];
        n->shape[d] = in->shape[perm[d]];
    }
    return AT_OK;
}

static at_status infer(const at_net *net, at_net_node *n, const char *who)
{
    if (n->op == AT_NET_CONSTANT) {
        if (n->n_inputs != 0) return BAD("%s (constant): takes no inputs, got %zu", who, n->n_inputs);
        if (n->attrs.to_ndim != 2 && n->attrs.to_ndim != 4) return BAD("%s: constant of %zu dims (2 or 4)", who, n->attrs.to_ndim);
        n->ndim = n->attrs.to_ndim;
        memcpy(n->shape, n->attrs.to_shape, n->ndim * sizeof *n->shape);
        for (size_t d = 0; d < n->ndim; d++)
            if (n->shape[d] < 1 || n->shape[d] > (1LL << 31) - 1) return BAD("%s (constant): extent %zu is %" PRId64, who, d, n->shape[d]);
        if ((double)at_net_node_numel(n) > (double)(1LL << 31) - 1) return BAD("%s: a tensor of more than 2^31 elements", who);
        return AT_OK;
    }
    size_t want_in = n->op == AT_NET_ADD || n->op == AT_NET_BINARY ? 2
                     : n->op == AT_NET_CONCAT && n->n_inputs >= 1 ? n->n_inputs : 1;
    if (n->n_inputs != want_in)
        return BAD("%s (%s): takes %zu input(s), got %zu", who, at_net_op_name(n->op), want_in, n->n_inputs);
    for (size_t i = 0; i < n->n_inputs; i++)
        if (n->inputs[i] >= net->n) return BAD("%s: input %zu is not an earlier node", who, n->inputs[i]);
    const at_net_node *in = &net->nodes[n->inputs[0]];
    at_net_attrs *a = &n->attrs;
    for (int i = 0; i < 2; i++)
        if (a->stride[i] < 1 || a->dilation[i] < 1 || a->kernel[i] < 0) return BAD("%s: bad window attributes", who);
    for (int i = 0; i < 4; i++)
        if (a->pad[i] < 0) return BAD("%s: negative padding", who);
    n->ndim = in->ndim;
    memcpy(n->shape, in->shape, sizeof n->shape);
    switch (n->op) {
    case AT_NET_CONV2D: {
        if (in->ndim != 4) return BAD("%s: conv2d takes a 4-D input", who);
        int64_t c = in->shape[1];
        if (a->channels < 1 || a->kernel[0] < 1 || a->kernel[1] < 1) return BAD("%s: conv2d needs channels and a kernel size", who);
        if (a->groups < 1 || c % a->groups || a->channels % a->groups)
            return BAD("%s: groups %" PRId64 " must divide the input channels (%" PRId64 ") and the output channels (%" PRId64 ")",
                       who, a->groups, c, a->channels);
        /* TVM computes that as depthwise with a channel multiplier, which no executor here has */
        if (a->groups > 1 && a->groups == c && a->channels != c)
            return BAD("%s: a depthwise convolution with a channel multiplier (groups == input channels == %" PRId64
                       ", %" PRId64 " output channels) is not supported", who, c, a->channels);
        n->shape[1] = a->channels;
        n->shape[2] = window_out(in->shape[2], a->pad[0], a->pad[2], (a->kernel[0] - 1) * a->dilation[0] + 1, a->stride[0]);
        n->shape[3] = window_out(in->shape[3], a->pad[1], a->pad[3], (a->kernel[1] - 1) * a->dilation[1] + 1, a->stride[1]);
        break;
    }
    case AT_NET_DENSE:
        if (in->ndim != 2) return BAD("%s: dense takes a 2-D input", who);
        if (a->channels < 1) return BAD("%s: dense needs units", who);
        n->shape[1] = a->channels;
        break;
    case AT_NET_BATCH_NORM:
    case AT_NET_BIAS_ADD:
    case AT_NET_RELU:
    case AT_NET_DROPOUT:
    case AT_NET_SOFTMAX:
    case AT_NET_SCALE_SHIFT:
        break;
    case AT_NET_ACTIVATION:
        if ((unsigned)a->act >= AT_NET_ACT_COUNT) return BAD("%s: unknown activation %d", who, (int)a->act);
        if (a->act == AT_NET_ACT_CLIP && !(a->alpha <= a->beta)) return BAD("%s: clip bounds [%g, %g]", who, a->alpha, a->beta);
        break;
    case AT_NET_ADD: {
        const at_net_node *b = &net->nodes[n->inputs[1]];
        if (b->ndim != in->ndim || memcmp(b->shape, in->shape, in->ndim * sizeof *in->shape) != 0)
            return BAD("%s: add of tensors of different shapes", who);
        break;
    }
    case AT_NET_MAX_POOL2D:
    case AT_NET_AVG_POOL2D:
        AT_TRY(pool_shape(n, in, who));
        break;
    case AT_NET_BINARY:
        AT_TRY(binary_shape(n, in, &net->nodes[n->inputs[1]], who));
        break;
    case AT_NET_PAD:
        AT_TRY(pad_shape(n, in, who));
        break;
    case AT_NET_REDUCE_MEAN:
        AT_TRY(reduce_shape(n, in, who));
        break;
    case AT_NET_TRANSPOSE:
        AT_TRY(transpose_shape(n, in, who));
        break;
    case AT_NET_CONV2D_TRANSPOSE:
        if (in->ndim != 4) return BAD("%s: conv2d_transpose takes a 4-D input", who);
        if (a->channels < 1 || a->kernel[0] < 1 || a->kernel[1] < 1 || a->out_size[0] < 1 || a->out_size[1] < 1)
            return BAD("%s: conv2d_transpose needs channels, a kernel size and an output size", who);
        if (a->groups != 1) return BAD("%s: conv2d_transpose of groups %" PRId64 " (1 only)", who, a->groups);
        n->shape[1] = a->channels;
        n->shape[2] = a->out_size[0];
        n->shape[3] = a->out_size[1];
        break;
    case AT_NET_RESIZE:
        if (in->ndim != 4) return BAD("%s: resize2d takes a 4-D input", who);
        for (int k = 0; k < 2; k++)
            if (a->resize.out[k] < 1 || !(a->resize.q[k] != 0)) return BAD("%s: resize2d to an empty or undefined extent", who);
        n->shape[2] = a->resize.out[0];
        n->shape[3] = a->resize.out[1];
        break;
    case AT_NET_RESHAPE: {
        if (a->to_ndim != 2 && a->to_ndim != 4) return BAD("%s: reshape to %zu dims (2 or 4)", who, a->to_ndim);
        int64_t e = 1;
        for (size_t d = 0; d < a->to_ndim; d++) e *= a->to_shape[d] > 0 ? a->to_shape[d] : 0;
        if (e != at_net_node_numel(in)) return BAD("%s: reshape changes the element count", who);
        n->ndim = a->to_ndim;
        memset(n->shape, 0, sizeof n->shape);
        memcpy(n->shape, a->to_shape, a->to_ndim * sizeof *n->shape);
        break;
    }
    case AT_NET_GLOBAL_AVG_POOL2D:
        if (in->ndim != 4) return BAD("%s: global_avg_pool2d takes a 4-D input", who);
        n->shape[2] = n->shape[3] = 1;
        break;
    case AT_NET_BATCH_FLATTEN:
        n->ndim = 2;
        n->shape[1] = at_net_node_numel(in) / in->shape[0];
        n->shape[2] = n->shape[3] = 0;
        break;
    case AT_NET_CONCAT:
        AT_TRY(concat_shape(net, n, who));
        break;
    case AT_NET_CONSTANT:
    case AT_NET_INPUT:
    case AT_NET_OP_COUNT:
        return BAD("%s: %s nodes cannot be appended", who, at_net_op_name(n->op));
    }
    for (size_t d = 0; d < n->ndim; d++)
        if (n->shape[d] < 1) return BAD("%s (%s): output extent %zu is %" PRId64, who, at_net_op_name(n->op), d, n->shape[d]);
    if ((double)at_net_node_numel(n) > (double)(1LL << 31) - 1) return BAD("%s: a tensor of more than 2^31 elements", who);
    if (at_net_op_is_anchor(n->op) && (double)weight_numel(n, in) > (double)(1LL << 31) - 1)
        return BAD("%s: a weight of more than 2^31 elements", who);
    return AT_OK;
}

at_status at_net_append(at_net *net, at_net_op op, const char *name, const size_t *inputs, size_t n_inputs,
                        const at_net_attrs *attrs, size_t *out)
{
    if (out) *out = SIZE_MAX;
    if (op == AT_NET_INPUT || (unsigned)op >= AT_NET_OP_COUNT)
        return BAD("%s: %s nodes cannot be appended", name ? name : "?", (unsigned)op < AT_NET_OP_COUNT ? at_net_op_name(op) : "?");
    if (net->fused) return BAD("network %s is fused: append to the unfused form", net->name);
    if (n_inputs > AT_NET_MAX_INPUTS) return BAD("%s: more than %d inputs", name ? name : "?", AT_NET_MAX_INPUTS);
    at_net_node n = {.op = op, .n_inputs = n_inputs};
    if (attrs) n.attrs = *attrs;
    attrs_defaults(&n.attrs);
    memcpy(n.inputs, inputs, n_inputs * sizeof *inputs);
    char auto_name[48];
    if (!name) {
        snprintf(auto_name, sizeof auto_name, "%s_%zu", at_net_op_name(op), net->n);
        name = auto_name;
    }
    if (at_net_find(net, name) != SIZE_MAX) return BAD("network %s: a node is already named %s", net->name, name);
    AT_TRY(infer(net, &n, name));
    n.name = at_strdup(name);
    if (!n.name) return AT_OOM();
    at_status st = net->params ? make_params(net, &n, &net->nodes[n.n_inputs ? n.inputs[0] : 0]) : AT_OK;
    if (st == AT_OK) st = grow(net);
    if (st != AT_OK) {
        node_fini(&n);
        return st;
    }
    net->nodes[net->n] = n;
    if (out) *out = net->n;
    net->n++;
    return AT_OK;
}

/* The slot of parameter p in node n, NULL when the op has no such parameter. */
static float **param_slot(at_net_node *n, at_net_param p)
{
    switch (p) {
    case AT_NET_WEIGHT: return at_net_op_has_weight(n->op) ? &n->weight : NULL;
    case AT_NET_BIAS:
        return n->op == AT_NET_BIAS_ADD || (at_net_op_is_anchor(n->op) && n->epi.bias) ? &n->bias : NULL;
    case AT_NET_GAMMA: return n->op == AT_NET_BATCH_NORM ? &n->gamma : NULL;
    case AT_NET_BETA: return n->op == AT_NET_BATCH_NORM ? &n->beta : NULL;
    case AT_NET_MEAN: return n->op == AT_NET_BATCH_NORM ? &n->mean : NULL;
    case AT_NET_VAR: return n->op == AT_NET_BATCH_NORM ? &n->var : NULL;
    case AT_NET_SCALE: return n->op == AT_NET_SCALE_SHIFT ? &n->scale : NULL;
    case AT_NET_SHIFT: return n->op == AT_NET_SCALE_SHIFT ? &n->shift : NULL;
    case AT_NET_PARAM_COUNT: break;
    }
    return NULL;
}

int64_t at_net_param_numel(const at_net *net, size_t i, at_net_param p)
{
    AT_ASSERT(i < net->n);
    at_net_node *n = &net->nodes[i];
    if (!param_slot(n, p)) return 0;
    return p == AT_NET_WEIGHT ? at_net_weight_numel(net, n) : at_net_channels(n);
}

at_status at_net_set_param(at_net *net, size_t i, at_net_param p, const float *values)
{
    AT_ASSERT(i < net->n);
    at_net_node *n = &net->nodes[i];
    float **slot = param_slot(n, p);
    if (!net->params || !slot || !*slot)
        return AT_FAIL(AT_EINVAL, "node %s (%s) has no parameter %d%s", n->name, at_net_op_name(n->op), (int)p,
                       net->params ? "" : " (network built without parameters)");
    memcpy(*slot, values, (size_t)at_net_param_numel(net, i, p) * sizeof **slot);
    return AT_OK;
}
