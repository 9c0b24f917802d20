/* Imported models on VTA (networks/vta.h): a fused graph read node by node into the zoo
 * resnet18_v1's form -- float stem on the CPU, int8 packed region, float head -- so that the
 * quantization, the executors and the task walk are the zoo's own code. Anything the zoo's form
 * cannot hold is refused at its node, since quantizing it some other way would silently give
 * different numbers from the relay.quantize flow this project copies. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/vta.h"
#include "networks/vta_internal.h"

enum { B = AT_NET_VTA_BLOCK, NONE = -1 };

typedef struct lower {
    const at_net *g;
    at_net_vta   *net;
    int64_t      *value;   /* per graph node: the VTA value it is, or NONE */
    size_t        stem, pool, gap, flat; /* graph nodes of the CPU layers, SIZE_MAX until seen */
} lower;

static at_status refuse(const lower *L, const at_net_node *n, const char *why)
{
    char op[48];
    if (n->op == AT_NET_ACTIVATION)
        snprintf(op, sizeof op, "%s", at_net_act_name(n->attrs.act));
    else
        snprintf(op, sizeof op, "%s", at_net_op_name(n->op));
    return AT_FAIL(AT_EUNSUPPORTED, "%s: node '%s' (%s): not quantizable for VTA as the zoo's resnet18_v1 is: %s",
                   at_net_name(L->g), n->name, op, why);
}

static bool square_window(const at_net_attrs *a, int64_t k, int64_t stride, int64_t pad)
{
    return a->kernel[0] == k && a->kernel[1] == k && a->stride[0] == stride && a->stride[1] == stride &&
           a->pad[0] == pad && a->pad[1] == pad && a->pad[2] == pad && a->pad[3] == pad;
}

static bool undilated(const at_net_attrs *a)
{
    return a->dilation[0] <= 1 && a->dilation[1] <= 1;
}

/* The input node and the stem conv: [1, 3, N, N] -> conv 64 7x7/2 pad 3 + relu. */
static at_status take_stem(lower *L, size_t i, const at_net_node *n)
{
    const at_net_node *in = at_net_node_at(L->g, 0);
    if (in->ndim != 4 || in->shape[0] != 1 || in->shape[1] != 3 || in->shape[2] != in->shape[3] || in->shape[2] % 4)
        return refuse(L, n, "the network input must be [1, 3, N, N] with N a multiple of 4");
    if (n->inputs[0] != 0 || n->attrs.channels != AT_NET_VTA_STEM_C || !square_window(&n->attrs, 7, 2, 3) ||
        !undilated(&n->attrs) || n->attrs.groups > 1 || !n->epi.relu || n->epi.residual)
        return refuse(L, n, "the first conv is the float stem on the CPU: 3 -> 64 channels, 7x7, stride 2, pad 3, "
                            "then relu (the int8 quantization point)");
    if (at_net_n_uses(L->g, i) != 1) return refuse(L, n, "the stem's output feeds only the max_pool2d");
    L->stem = i;
    L->net->hw = in->shape[2];
    return AT_OK;
}

static at_status take_pool(lower *L, size_t i, const at_net_node *n)
{
    if (L->stem == SIZE_MAX || n->inputs[0] != L->stem || L->pool != SIZE_MAX)
        return refuse(L, n, "the one max_pool2d follows the stem conv (inside the packed region VTA has no pooling)");
    if (!square_window(&n->attrs, 3, 2, 1) || n->shape[2] != L->net->hw / 4 || n->shape[3] != L->net->hw / 4)
        return refuse(L, n, "the stem's max_pool2d is 3x3, stride 2, pad 1");
    L->pool = i;
    L->value[i] = 0;
    return AT_OK;
}

static at_net_vta_layer *new_layer(lower *L, const at_net_node *n, at_net_vta_kind kind, const char *suffix)
{
    at_net_vta *net = L->net;
    if (net->n_layers == AT_NET_VTA_MAX_LAYERS) return NULL;
    at_net_vta_layer *l = &net->layers[net->n_layers++];
    memset(l, 0, sizeof *l);
    l->kind = kind;
    /* names past 39 bytes keep their start: torch.onnx's "/layer1/layer1.0/conv1/Conv" fits */
    snprintf(l->name, sizeof l->name, "%.*s%s", (int)(sizeof l->name - 1 - strlen(suffix)), n->name, suffix);
    return l;
}

static at_status too_many(const lower *L)
{
    return AT_FAIL(AT_EINVAL, "%s: more than %d layers in VTA's packed region", at_net_name(L->g),
                   (int)AT_NET_VTA_MAX_LAYERS);
}

/* A packed value's shape from the VTA layer (or the pooled stem) that made it. */
static void value_shape(const at_net_vta *net, int64_t v, int64_t *cb, int64_t *h, int64_t *w)
{
    if (v == 0) {
        *cb = AT_NET_VTA_STEM_C / B;
        *h = *w = net->hw / 4;
        return;
    }
    const at_net_vta_layer *p = &net->layers[v - 1];
    *cb = p->co_b, *h = p->oh, *w = p->ow;
}

/* An add layer of values a, b (call order); relu as given. */
static at_status add_layer(lower *L, const at_net_node *n, int64_t a, int64_t b, bool relu, const char *suffix)
{
    at_net_vta_layer *l = new_layer(L, n, AT_NET_VTA_ADD, suffix);
    if (!l) return too_many(L);
    l->in[0] = (size_t)a, l->in[1] = (size_t)b;
    value_shape(L->net, b, &l->co_b, &l->oh, &l->ow);
    l->c_b = l->co_b, l->h = l->oh, l->w = l->ow;
    /* both operands are int8 at the input scale: no shift aligns them, none requantizes */
    l->relu = relu;
    return AT_OK;
}

static at_status take_conv(lower *L, size_t i, const at_net_node *n)
{
    const at_net_attrs *a = &n->attrs;
    int64_t in = L->value[n->inputs[0]];
    if (in == NONE) return refuse(L, n, "its input is not an int8 value of the packed region");
    if (a->groups > 1) {
        char why[160];
        snprintf(why, sizeof why, "a depthwise conv (groups %" PRId64 "): conv2d_packed.vta takes groups 1 only",
                 a->groups);
        return refuse(L, n, why);
    }
    int64_t ci = at_net_node_at(L->g, n->inputs[0])->shape[1], k = a->kernel[0];
    if (ci % B || a->channels % B) return refuse(L, n, "VTA packs channels in blocks of 16: in and out channels must be multiples of 16");
    if (!square_window(a, k, a->stride[0], a->pad[0]) || !undilated(a))
        return refuse(L, n, "conv2d_packed.vta takes a square kernel, one stride, the same padding on every side and no dilation");
    at_net_vta_layer *l = new_layer(L, n, AT_NET_VTA_CONV, "");
    if (!l) return too_many(L);
    l->in[0] = l->in[1] = (size_t)in;
    value_shape(L->net, in, &l->c_b, &l->h, &l->w);
    l->co_b = a->channels / B;
    l->k = k, l->stride = a->stride[0], l->pad = a->pad[0];
    l->oh = n->shape[2], l->ow = n->shape[3];
    /* a fused residual add is a layer of its own on VTA, with the relu after it */
    l->relu = n->epi.relu && !n->epi.residual;
    int64_t conv_v = (int64_t)L->net->n_layers;
    if (L->net->weights) {
        float *zero = NULL;
        if (!n->epi.bias && !(zero = at_calloc((size_t)a->channels, sizeof *zero))) return AT_OOM();
        at_status st = at_net_vta_quantize_conv(l, n->weight, n->epi.bias ? n->bias : zero);
        at_free(zero);
        AT_TRY(st);
    }
    L->value[i] = conv_v;
    if (!n->epi.residual) return AT_OK;
    int64_t res = L->value[n->inputs[1]];
    if (res == NONE) return refuse(L, n, "its residual operand is not an int8 value of the packed region");
    int64_t first = n->epi.residual_first ? res : conv_v, second = n->epi.residual_first ? conv_v : res;
    AT_TRY(add_layer(L, n, first, second, n->epi.relu, "+add"));
    L->value[i] = (int64_t)L->net->n_layers;
    return AT_OK;
}

static at_status take_add(lower *L, size_t i, const at_net_node *n)
{
    int64_t a = L->value[n->inputs[0]], b = L->value[n->inputs[1]];
    if (a == NONE || b == NONE) return refuse(L, n, "VTA adds two int8 values of the packed region");
    AT_TRY(add_layer(L, n, a, b, false, ""));
    L->value[i] = (int64_t)L->net->n_layers;
    return AT_OK;
}

/* A relu of its own joins the layer before it (int8 rounding and relu commute). */
static at_status take_relu(lower *L, size_t i, const at_net_node *n)
{
    int64_t v = L->value[n->inputs[0]];
    if (v <= 0 || L->net->layers[v - 1].relu || at_net_n_uses(L->g, n->inputs[0]) != 1)
        return refuse(L, n, "a relu applies to the packed layer before it, whose only use it is");
    L->net->layers[v - 1].relu = true;
    L->value[i] = v;
    return AT_OK;
}

static at_status take_head(lower *L, size_t i, const at_net_node *n)
{
    if (n->op == AT_NET_GLOBAL_AVG_POOL2D) {
        int64_t v = L->value[n->inputs[0]];
        if (L->gap != SIZE_MAX || v != (int64_t)L->net->n_layers || v == 0)
            return refuse(L, n, "the head's global_avg_pool2d takes the last value of the packed region");
        L->gap = i;
        return AT_OK;
    }
    if (n->op == AT_NET_BATCH_FLATTEN || n->op == AT_NET_RESHAPE) {
        if (L->gap == SIZE_MAX || n->inputs[0] != L->gap || n->ndim != 2)
            return refuse(L, n, "only the head's flatten of global_avg_pool2d runs outside the packed region");
        L->flat = i;
        return AT_OK;
    }
    /* dense */
    if (L->flat == SIZE_MAX || n->inputs[0] != L->flat || n->epi.relu || n->epi.residual || i != at_net_output(L->g))
        return refuse(L, n, "the head is global_avg_pool2d, flatten and one dense (+ bias) giving the output");
    at_net_vta *net = L->net;
    net->classes = n->attrs.channels;
    net->feat = at_net_node_at(L->g, L->flat)->shape[1];
    if (!net->weights) return AT_OK;
    const at_net_node *stem = at_net_node_at(L->g, L->stem);
    size_t ns = (size_t)at_net_param_numel(L->g, L->stem, AT_NET_WEIGHT), nd = (size_t)(net->classes * net->feat);
    net->stem_w = at_malloc(ns * sizeof *net->stem_w);
    net->stem_b = at_calloc(AT_NET_VTA_STEM_C, sizeof *net->stem_b);
    net->dense_w = at_malloc(nd * sizeof *net->dense_w);
    net->dense_b = at_calloc((size_t)net->classes, sizeof *net->dense_b);
    if (!net->stem_w || !net->stem_b || !net->dense_w || !net->dense_b) return AT_OOM();
    memcpy(net->stem_w, stem->weight, ns * sizeof *net->stem_w);
    if (stem->epi.bias) memcpy(net->stem_b, stem->bias, AT_NET_VTA_STEM_C * sizeof *net->stem_b);
    memcpy(net->dense_w, n->weight, nd * sizeof *net->dense_w);
    if (n->epi.bias) memcpy(net->dense_b, n->bias, (size_t)net->classes * sizeof *net->dense_b);
    return AT_OK;
}

static at_status take(lower *L, size_t i)
{
    const at_net_node *n = at_net_node_at(L->g, i);
    if (L->gap != SIZE_MAX && n->op != AT_NET_BATCH_FLATTEN && n->op != AT_NET_RESHAPE && n->op != AT_NET_DENSE)
        return refuse(L, n, "after global_avg_pool2d the head is flatten and dense");
    /* ifs, not a switch over every op kind: ops added to the graph later are refused here unseen */
    if (n->op == AT_NET_CONV2D) return L->stem == SIZE_MAX ? take_stem(L, i, n) : take_conv(L, i, n);
    if (n->op == AT_NET_MAX_POOL2D) return take_pool(L, i, n);
    if (n->op == AT_NET_ADD) return take_add(L, i, n);
    if (n->op == AT_NET_RELU) return take_relu(L, i, n);
    if (n->op == AT_NET_GLOBAL_AVG_POOL2D || n->op == AT_NET_BATCH_FLATTEN || n->op == AT_NET_RESHAPE ||
        n->op == AT_NET_DENSE)
        return take_head(L, i, n);
    if (n->op == AT_NET_SCALE_SHIFT)
        return refuse(L, n, "a batch_norm not folded into a conv before it (pre-activation, or on the input) has "
                            "no int8 form");
    return refuse(L, n, "the packed region holds int8 conv2d (+ bias, relu) and residual adds only");
}

at_status at_net_vta_from_net(const at_net *g, const at_net_vta_opts *opts, at_net_vta **out)
{
    AT_ASSERT(g && out);
    *out = NULL;
    if (!at_net_is_fused(g)) return AT_FAIL(AT_EINVAL, "%s: lowering to VTA needs the fused graph", at_net_name(g));
    size_t nn = at_net_n_nodes(g);
    lower L = {.g = g, .stem = SIZE_MAX, .pool = SIZE_MAX, .gap = SIZE_MAX, .flat = SIZE_MAX};
    L.net = at_calloc(1, sizeof *L.net);
    L.value = at_malloc(nn * sizeof *L.value);
    if (!L.net || !L.value) {
        at_free(L.net);
        at_free(L.value);
        return AT_OOM();
    }
    L.net->weights = !(opts && opts->no_weights);
    for (size_t i = 0; i < nn; i++) L.value[i] = NONE;
    at_status st = AT_OK;
    for (size_t i = 1; st == AT_OK && i < nn; i++) st = take(&L, i);
    if (st == AT_OK && L.flat == SIZE_MAX)
        st = AT_FAIL(AT_EUNSUPPORTED, "%s: not quantizable for VTA as the zoo's resnet18_v1 is: no head "
                                      "(global_avg_pool2d, flatten, dense) after the packed region", at_net_name(g));
    else if (st == AT_OK && at_net_node_at(g, at_net_output(g))->op != AT_NET_DENSE)
        st = refuse(&L, at_net_node_at(g, at_net_output(g)), "the output is the head's dense layer");
    else if (st == AT_OK && L.net->feat > AT_NET_VTA_MAX_FEAT)
        st = AT_FAIL(AT_EINVAL, "%s: %" PRId64 " channels into the head (at most %d)", at_net_name(g), L.net->feat,
                     (int)AT_NET_VTA_MAX_FEAT);
    if (st == AT_OK) st = at_net_vta_extract_tasks(L.net);
    at_free(L.value);
    if (st != AT_OK) {
        at_net_vta_free(L.net);
        return st;
    }
    *out = L.net;
    return AT_OK;
}

at_status at_net_vta_import(const char *path, const at_net_vta_opts *opts, at_net_vta **out)
{
    AT_ASSERT(out);
    *out = NULL;
    at_net_vta_opts o = opts ? *opts : (at_net_vta_opts){0};
    at_net_opts no = {.input_name = o.input_name, .input_rank = o.input_rank};
    memcpy(no.input_shape, o.input_shape, sizeof no.input_shape);
    if (!o.input_rank && o.image_hw) {
        int64_t shape[4] = {1, 3, o.image_hw, o.image_hw};
        memcpy(no.input_shape, shape, sizeof shape);
        no.input_rank = 4;
    }
    at_net *g = NULL;
    AT_TRY(at_net_load(path, &no, &g));
    at_status st = at_net_vta_from_net(g, &o, out);
    at_net_free(g);
    return st;
}
