/* The relay.testing networks (TVM v0.18 resnet.py, mobilenet.py, vgg.py, squeezenet.py), layer
 * for layer in relay's argument order, which is what orders task extraction. Builders use a
 * sticky status so a network reads like its Python source; node names follow relay.testing's
 * parameter names (conv "stage1_unit1_conv1" owns "stage1_unit1_conv1_weight"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "networks/net.h"

typedef struct zb {
    at_net   *net;
    at_status st;
} zb;

static size_t add(zb *b, at_net_op op, const char *name, const size_t *in, size_t n_in, const at_net_attrs *a)
{
    if (b->st != AT_OK) return 0;
    size_t id = 0;
    b->st = at_net_append(b->net, op, name, in, n_in, a, &id);
    return id;
}

static size_t conv(zb *b, size_t x, const char *name, int64_t ch, int64_t k, int64_t s, int64_t p, int64_t groups)
{
    at_net_attrs a = {.channels = ch, .kernel = {k, k}, .stride = {s, s}, .pad = {p, p, p, p}, .groups = groups};
    return add(b, AT_NET_CONV2D, name, &x, 1, &a);
}

static size_t bn(zb *b, size_t x, const char *name, double eps, bool no_scale)
{
    at_net_attrs a = {.eps = eps, .no_scale = no_scale};
    return add(b, AT_NET_BATCH_NORM, name, &x, 1, &a);
}

static size_t op1(zb *b, at_net_op op, size_t x, const char *name)
{
    return add(b, op, name, &x, 1, NULL);
}

static size_t relu(zb *b, size_t x)
{
    return op1(b, AT_NET_RELU, x, NULL);
}

static size_t max_pool(zb *b, size_t x, int64_t k, int64_t s, int64_t p)
{
    at_net_attrs a = {.kernel = {k, k}, .stride = {s, s}, .pad = {p, p, p, p}};
    return add(b, AT_NET_MAX_POOL2D, NULL, &x, 1, &a);
}

/* layers.dense_add_bias: dense `name` then bias_add `name_bias`. */
static size_t dense_bias(zb *b, size_t x, const char *name, int64_t units)
{
    char nb[128];
    at_net_attrs a = {.channels = units};
    size_t d = add(b, AT_NET_DENSE, name, &x, 1, &a);
    snprintf(nb, sizeof nb, "%s_bias", name);
    return op1(b, AT_NET_BIAS_ADD, d, nb);
}

/* conv + bias_add + relu, as squeezenet's _make_fire_conv and vgg's layers. */
static size_t conv_bias_relu(zb *b, size_t x, const char *name, int64_t ch, int64_t k, int64_t s, int64_t p)
{
    char nb[128];
    size_t c = conv(b, x, name, ch, k, s, p, 1);
    snprintf(nb, sizeof nb, "%s_bias", name);
    return relu(b, op1(b, AT_NET_BIAS_ADD, c, nb));
}

/* The head most networks share: global_avg_pool2d, batch_flatten, dense + bias (`fc`), softmax. */
static size_t head(zb *b, size_t x, const char *fc, int64_t classes)
{
    size_t p = op1(b, AT_NET_GLOBAL_AVG_POOL2D, x, NULL);
    size_t f = op1(b, AT_NET_BATCH_FLATTEN, p, NULL);
    return op1(b, AT_NET_SOFTMAX, dense_bias(b, f, fc, classes), NULL);
}

/* ---- resnet (pre-activation v2, spec §3.1) ---------------------------------------------------- */

static size_t residual_unit(zb *b, size_t data, int64_t filters, int64_t stride, bool dim_match, const char *name,
                            bool bottle_neck)
{
    char n[6][96];
    const char *sfx[6] = {"bn1", "conv1", "bn2", "conv2", "bn3", "conv3"};
    for (int i = 0; i < 6; i++) snprintf(n[i], sizeof n[i], "%s_%s", name, sfx[i]);
    char sc_name[96];
    snprintf(sc_name, sizeof sc_name, "%s_sc", name);
    size_t act1 = relu(b, bn(b, data, n[0], 2e-5, false)), body;
    if (bottle_neck) {
        size_t c1 = conv(b, act1, n[1], filters / 4, 1, stride, 0, 1);
        size_t a2 = relu(b, bn(b, c1, n[2], 2e-5, false));
        size_t c2 = conv(b, a2, n[3], filters / 4, 3, 1, 1, 1);
        size_t a3 = relu(b, bn(b, c2, n[4], 2e-5, false));
        body = conv(b, a3, n[5], filters, 1, 1, 0, 1);
    } else {
        size_t c1 = conv(b, act1, n[1], filters, 3, stride, 1, 1);
        size_t a2 = relu(b, bn(b, c1, n[2], 2e-5, false));
        body = conv(b, a2, n[3], filters, 3, 1, 1, 1);
    }
    size_t shortcut = dim_match ? data : conv(b, act1, sc_name, filters, 1, stride, 0, 1);
    const size_t args[2] = {body, shortcut};
    return add(b, AT_NET_ADD, NULL, args, 2, NULL);
}

static at_status resnet(zb *b, int layers, const int64_t *image, int64_t classes)
{
    int64_t height = image[1];
    int units[4] = {0}, stages = 4;
    int64_t filters[5];
    bool bottle_neck;
    if (height <= 28) {
        stages = 3;
        if ((layers - 2) % 9 == 0 && layers >= 164) {
            bottle_neck = true;
            units[0] = units[1] = units[2] = (layers - 2) / 9;
            memcpy(filters, (int64_t[]){16, 64, 128, 256}, 4 * sizeof *filters);
        } else if ((layers - 2) % 6 == 0 && layers < 164) {
            bottle_neck = false;
            units[0] = units[1] = units[2] = (layers - 2) / 6;
            memcpy(filters, (int64_t[]){16, 16, 32, 64}, 4 * sizeof *filters);
        } else {
            return AT_FAIL(AT_EINVAL, "resnet-%d: no unit table for inputs of height <= 28 (depths 6n+2 below 164 or "
                           "9n+2 from 164)", layers);
        }
    } else {
        static const struct { int layers, units[4]; } table[] = {
            {18, {2, 2, 2, 2}},  {34, {3, 4, 6, 3}},   {50, {3, 4, 6, 3}},   {101, {3, 4, 23, 3}},
            {152, {3, 8, 36, 3}}, {200, {3, 24, 36, 3}}, {269, {3, 30, 48, 8}},
        };
        size_t i = 0, n = sizeof table / sizeof table[0];
        while (i < n && table[i].layers != layers) i++;
        if (i == n) return AT_FAIL(AT_EINVAL, "resnet-%d: no unit table (18, 34, 50, 101, 152, 200, 269)", layers);
        memcpy(units, table[i].units, sizeof units);
        bottle_neck = layers >= 50;
        if (bottle_neck)
            memcpy(filters, (int64_t[]){64, 256, 512, 1024, 2048}, sizeof filters);
        else
            memcpy(filters, (int64_t[]){64, 64, 128, 256, 512}, sizeof filters);
    }
    size_t body = bn(b, 0, "bn_data", 2e-5, true);
    if (height <= 32) {
        body = conv(b, body, "conv0", filters[0], 3, 1, 1, 1);
    } else {
        body = conv(b, body, "conv0", filters[0], 7, 2, 3, 1);
        body = relu(b, bn(b, body, "bn0", 2e-5, false));
        body = max_pool(b, body, 3, 2, 1);
    }
    char name[64];
    for (int i = 0; i < stages; i++) {
        int64_t stride = i == 0 ? 1 : 2;
        snprintf(name, sizeof name, "stage%d_unit1", i + 1);
        body = residual_unit(b, body, filters[i + 1], stride, false, name, bottle_neck);
        for (int j = 0; j < units[i] - 1; j++) {
            snprintf(name, sizeof name, "stage%d_unit%d", i + 1, j + 2);
            body = residual_unit(b, body, filters[i + 1], 1, true, name, bottle_neck);
        }
    }
    body = relu(b, bn(b, body, "bn1", 2e-5, false));
    head(b, body, "fc1", classes);
    return b->st;
}

/* ---- mobilenet v1 (alpha 1, spec §3.2) -------------------------------------------------------- */

static size_t separable(zb *b, size_t x, int idx, int64_t dw_ch, int64_t pw_ch, bool downsample)
{
    char n[4][96];
    const char *sfx[4] = {"depthwise_conv1", "bn1", "conv2", "bn2"};
    for (int i = 0; i < 4; i++) snprintf(n[i], sizeof n[i], "separable_conv_block_%d_%s", idx, sfx[i]);
    size_t c1 = conv(b, x, n[0], dw_ch, 3, downsample ? 2 : 1, 1, dw_ch);
    size_t a1 = relu(b, bn(b, c1, n[1], 1e-5, false));
    size_t c2 = conv(b, a1, n[2], pw_ch, 1, 1, 0, 1);
    return relu(b, bn(b, c2, n[3], 1e-5, false));
}

static at_status mobilenet(zb *b, int64_t classes)
{
    size_t body = conv(b, 0, "conv_block_1_conv", 32, 3, 2, 1, 1);
    body = relu(b, bn(b, body, "conv_block_1_bn", 1e-5, false));
    static const struct { int64_t dw, pw; bool down; } blocks[13] = {
        {32, 64, false},   {64, 128, true},   {128, 128, false}, {128, 256, true}, {256, 256, false},
        {256, 512, true},  {512, 512, false}, {512, 512, false}, {512, 512, false}, {512, 512, false},
        {512, 512, false}, {512, 1024, true}, {1024, 1024, false},
    };
    for (int i = 0; i < 13; i++) body = separable(b, body, i + 1, blocks[i].dw, blocks[i].pw, blocks[i].down);
    head(b, body, "fc", classes);
    return b->st;
}

/* ---- vgg (spec §3.3, batch_norm off as get_workload's default) -------------------------------- */

static at_status vgg(zb *b, int layers, int64_t classes)
{
    static const struct { int layers, per[5]; } table[] = {
        {11, {1, 1, 2, 2, 2}}, {13, {2, 2, 2, 2, 2}}, {16, {2, 2, 3, 3, 3}}, {19, {2, 2, 4, 4, 4}},
    };
    static const int64_t filters[5] = {64, 128, 256, 512, 512};
    size_t t = 0, nt = sizeof table / sizeof table[0];
    while (t < nt && table[t].layers != layers) t++;
    if (t == nt) return AT_FAIL(AT_EINVAL, "vgg-%d: no layer table (11, 13, 16, 19)", layers);
    size_t body = 0;
    char name[64];
    for (int i = 0; i < 5; i++) {
        for (int j = 0; j < table[t].per[i]; j++) {
            snprintf(name, sizeof name, "conv%d_%d", i + 1, j + 1);
            body = conv_bias_relu(b, body, name, filters[i], 3, 1, 1);
        }
        body = max_pool(b, body, 2, 2, 0);
    }
    body = op1(b, AT_NET_BATCH_FLATTEN, body, NULL);
    body = op1(b, AT_NET_DROPOUT, relu(b, dense_bias(b, body, "fc6", 4096)), NULL);
    body = op1(b, AT_NET_DROPOUT, relu(b, dense_bias(b, body, "fc7", 4096)), NULL);
    op1(b, AT_NET_SOFTMAX, dense_bias(b, body, "fc8", classes), NULL);
    return b->st;
}

/* ---- squeezenet (spec §3.4) ------------------------------------------------------------------- */

static size_t fire(zb *b, size_t x, int k, int64_t squeeze, int64_t e1, int64_t e3)
{
    char n[3][96];
    snprintf(n[0], sizeof n[0], "fire%d_input_conv", k);
    snprintf(n[1], sizeof n[1], "fire%d_left_conv", k);
    snprintf(n[2], sizeof n[2], "fire%d_right_conv", k);
    size_t s = conv_bias_relu(b, x, n[0], squeeze, 1, 1, 0);
    const size_t lr[2] = {conv_bias_relu(b, s, n[1], e1, 1, 1, 0), conv_bias_relu(b, s, n[2], e3, 3, 1, 1)};
    return add(b, AT_NET_CONCAT, NULL, lr, 2, NULL);
}

static at_status squeezenet(zb *b, bool v11, int64_t classes)
{
    size_t net;
    if (!v11) {
        net = max_pool(b, conv_bias_relu(b, 0, "conv1", 96, 7, 2, 3), 3, 2, 0);
        net = fire(b, net, 1, 16, 64, 64);
        net = fire(b, net, 2, 16, 64, 64);
        net = fire(b, net, 3, 32, 128, 128);
        net = max_pool(b, net, 3, 2, 0);
        net = fire(b, net, 4, 32, 128, 128);
        net = fire(b, net, 5, 48, 192, 192);
        net = fire(b, net, 6, 48, 192, 192);
        net = fire(b, net, 7, 64, 256, 256);
        net = max_pool(b, net, 3, 2, 0);
        net = fire(b, net, 8, 64, 256, 256);
    } else {
        net = max_pool(b, conv_bias_relu(b, 0, "conv1", 64, 3, 2, 1), 3, 2, 0);
        net = fire(b, net, 1, 16, 64, 64);
        net = fire(b, net, 2, 16, 64, 64);
        net = max_pool(b, net, 3, 2, 0);
        net = fire(b, net, 3, 32, 128, 128);
        net = fire(b, net, 4, 32, 128, 128);
        net = max_pool(b, net, 3, 2, 0);
        net = fire(b, net, 5, 48, 192, 192);
        net = fire(b, net, 6, 48, 192, 192);
        net = fire(b, net, 7, 64, 256, 256);
        net = fire(b, net, 8, 64, 256, 256);
    }
    net = op1(b, AT_NET_DROPOUT, net, NULL);
    net = conv_bias_relu(b, net, "conv_final", classes, 1, 1, 0);
    net = op1(b, AT_NET_GLOBAL_AVG_POOL2D, net, NULL);
    op1(b, AT_NET_SOFTMAX, op1(b, AT_NET_BATCH_FLATTEN, net, NULL), NULL);
    return b->st;
}

/* ---- the table -------------------------------------------------------------------------------- */

static const char *const zoo_names[] = {
    "resnet-18", "resnet-34", "resnet-50", "resnet-101", "resnet-152", "mobilenet",
    "vgg-11",    "vgg-13",    "vgg-16",    "vgg-19",     "squeezenet_v1.0", "squeezenet_v1.1",
};

size_t at_net_zoo_count(void)
{
    return sizeof zoo_names / sizeof zoo_names[0];
}

const char *at_net_zoo_name(size_t i)
{
    AT_ASSERT(i < at_net_zoo_count());
    return zoo_names[i];
}

/* "resnet-18" -> 18 after prefix; false unless the rest is a positive decimal number. */
static bool depth_of(const char *name, const char *prefix, int *out)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || !name[n]) return false;
    char *end;
    long v = strtol(name + n, &end, 10);
    if (*end || v < 1 || v > 10000 || name[n] < '0' || name[n] > '9') return false;
    *out = (int)v;
    return true;
}

at_status at_net_build(const char *name, const at_net_opts *opts, at_net **out)
{
    *out = NULL;
    size_t len = strlen(name);
    if (len > 5 && !strcmp(name + len - 5, ".onnx")) return at_net_onnx_import(name, opts, out);
    at_net_opts o = opts ? *opts : (at_net_opts){0};
    if (o.batch == 0) o.batch = 1;
    if (o.image_shape[0] == 0 && o.image_shape[1] == 0 && o.image_shape[2] == 0) {
        o.image_shape[0] = 3;
        o.image_shape[1] = o.image_shape[2] = 224;
    }
    if (o.num_classes == 0) o.num_classes = 1000;
    if (o.num_classes < 1 || o.batch < 1) return AT_FAIL(AT_EINVAL, "%s: batch and classes must be >= 1", name);
    int depth = 0;
    enum { RESNET, MOBILENET, VGG, SQUEEZE10, SQUEEZE11 } kind;
    if (depth_of(name, "resnet-", &depth))
        kind = RESNET;
    else if (depth_of(name, "vgg-", &depth))
        kind = VGG;
    else if (!strcmp(name, "mobilenet"))
        kind = MOBILENET;
    else if (!strcmp(name, "squeezenet_v1.0") || !strcmp(name, "squeezenet-1.0"))
        kind = SQUEEZE10;
    else if (!strcmp(name, "squeezenet_v1.1") || !strcmp(name, "squeezenet-1.1"))
        kind = SQUEEZE11;
    else
        return AT_FAIL(AT_ENOTFOUND, "unknown network '%s' (resnet-18/34/50/101/152, mobilenet, vgg-11/13/16/19, "
                       "squeezenet_v1.0, squeezenet_v1.1)", name);
    const int64_t shape[4] = {o.batch, o.image_shape[0], o.image_shape[1], o.image_shape[2]};
    zb b = {0};
    AT_TRY(at_net_new(name, shape, o.params, o.seed, &b.net));
    at_status st = AT_OK;
    switch (kind) {
    case RESNET: st = resnet(&b, depth, o.image_shape, o.num_classes); break;
    case MOBILENET: st = mobilenet(&b, o.num_classes); break;
    case VGG: st = vgg(&b, depth, o.num_classes); break;
    case SQUEEZE10: st = squeezenet(&b, false, o.num_classes); break;
    case SQUEEZE11: st = squeezenet(&b, true, o.num_classes); break;
    }
    if (st != AT_OK) {
        at_net_free(b.net);
        return st == AT_ENOMEM ? st : AT_FAIL_WRAP(st, "network %s with input [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "]",
                                                   name, shape[0], shape[1], shape[2], shape[3]);
    }
    *out = b.net;
    return AT_OK;
}

at_status at_net_load(const char *name, const at_net_opts *opts, at_net **out)
{
    *out = NULL;
    at_net *net;
    AT_TRY(at_net_build(name, opts, &net));
    at_status st = at_net_fuse(net, out);
    at_net_free(net);
    return st;
}
