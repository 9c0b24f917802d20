/* The quantized, packed resnet18_v1 for VTA (networks/vta.h): layers with synthetic weights drawn
 * per tensor from an rng seeded by (seed, layer name, parameter), BN folded in float, then
 * power-of-two quantization; tasks from a pre-order walk of the packed region from its output,
 * which reproduces the tutorial's extraction order without a relay program. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/rng.h"
#include "core/strbuf.h"
#include "networks/vta.h"
#include "networks/vta_internal.h"
#include "templates/ops.h"

enum { STEM_C = AT_NET_VTA_STEM_C, FEAT_C = 512 };

/* ---- parameters ------------------------------------------------------------------------------- */

static uint64_t name_hash(const char *name, const char *tag)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const char *p = name; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ULL;
    h = (h ^ '/') * 1099511628211ULL;
    for (const char *p = tag; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ULL;
    return h;
}

static void uniform(uint64_t seed, const char *name, const char *tag, double lo, double hi, float *p, int64_t n)
{
    at_rng rng;
    at_rng_seed(&rng, seed ^ name_hash(name, tag));
    for (int64_t i = 0; i < n; i++) p[i] = (float)(lo + (hi - lo) * at_rng_uniform(&rng));
}

/* A conv (no bias, as Gluon's) followed by BatchNorm, folded: w [co][ci][k][k] scaled per output
 * channel, b = beta - mean * s. Weights uniform in +-sqrt(6 / fan_in), BN as relay.testing's. */
static at_status folded_conv(uint64_t seed, const char *name, int64_t co, int64_t ci, int64_t k, float **w_out,
                             float **b_out)
{
    int64_t per = ci * k * k, n = co * per;
    float *w = at_malloc((size_t)n * sizeof *w), *b = at_malloc((size_t)co * sizeof *b);
    float *bn = at_malloc((size_t)(4 * co) * sizeof *bn);
    if (!w || !b || !bn) {
        at_free(w);
        at_free(b);
        at_free(bn);
        return AT_OOM();
    }
    double bound = sqrt(6.0 / (double)per);
    uniform(seed, name, "weight", -bound, bound, w, n);
    float *gamma = bn, *beta = bn + co, *mean = bn + 2 * co, *var = bn + 3 * co;
    uniform(seed, name, "gamma", 0.8, 1.2, gamma, co);
    uniform(seed, name, "beta", -0.1, 0.1, beta, co);
    uniform(seed, name, "mean", -0.1, 0.1, mean, co);
    uniform(seed, name, "var", 0.8, 1.2, var, co);
    for (int64_t o = 0; o < co; o++) {
        float s = (float)(gamma[o] / sqrt((double)var[o] + 1e-5));
        for (int64_t i = 0; i < per; i++) w[o * per + i] *= s;
        b[o] = beta[o] - mean[o] * s;
    }
    at_free(bn);
    *w_out = w;
    *b_out = b;
    return AT_OK;
}

/* Rounding UPWARD (qconfig's default): floor(x + 0.5). */
static double round_up(double x)
{
    return floor(x + 0.5);
}

/* The requant shift is 7 - w_exp: the accumulator scale 2^-4 * 2^(w_exp-7) back to 2^-4. */
at_status at_net_vta_quantize_conv(at_net_vta_layer *l, const float *w, const float *b)
{
    const int64_t B = AT_NET_VTA_BLOCK, co = l->co_b * B, ci = l->c_b * B, k = l->k;
    int64_t n = co * ci * k * k;
    double maxabs = 0;
    for (int64_t i = 0; i < n; i++) maxabs = fmax(maxabs, fabs((double)w[i]));
    int e = maxabs > 0 ? (int)ceil(log2(maxabs)) : 0;
    l->w_exp = e;
    l->shift = 7 - e; /* the accumulator scale 2^-4 * 2^(e-7) back to the input scale 2^-4 */
    if (l->shift < 1 || l->shift > 15)
        return AT_FAIL(AT_EINVAL, "%s: weight scale 2^%d gives a requant shift of %d (1..15 fit the ALU immediate)",
                       l->name, e - 7, l->shift);
    double inv_w = ldexp(1.0, 7 - e), inv_acc = ldexp(1.0, 7 - e + AT_NET_VTA_INPUT_SHIFT);
    l->weight = at_malloc((size_t)n);
    l->bias = at_malloc((size_t)co * sizeof *l->bias);
    if (!l->weight || !l->bias) return AT_OOM();
    for (int64_t o = 0; o < co; o++)
        for (int64_t i = 0; i < ci; i++)
            for (int64_t y = 0; y < k; y++)
                for (int64_t x = 0; x < k; x++) {
                    double q = round_up((double)w[((o * ci + i) * k + y) * k + x] * inv_w);
                    q = q > 127 ? 127 : q < -127 ? -127 : q;
                    int64_t at = ((((o / B) * l->c_b + i / B) * k + y) * k + x) * B * B + (o % B) * B + i % B;
                    l->weight[at] = (int8_t)q;
                }
    for (int64_t o = 0; o < co; o++) l->bias[o] = (int32_t)round_up((double)b[o] * inv_acc);
    return AT_OK;
}

static at_status add_conv(at_net_vta *net, uint64_t seed, const char *name, size_t in, int64_t co, int64_t k,
                          int64_t stride, bool relu, size_t *value)
{
    AT_ASSERT(net->n_layers < AT_NET_VTA_MAX_LAYERS);
    at_net_vta_layer *l = &net->layers[net->n_layers];
    memset(l, 0, sizeof *l);
    l->kind = AT_NET_VTA_CONV;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->in[0] = l->in[1] = in;
    if (in == 0) {
        l->c_b = STEM_C / AT_NET_VTA_BLOCK;
        l->h = l->w = net->hw / 4;
    } else {
        const at_net_vta_layer *p = &net->layers[in - 1];
        l->c_b = p->co_b, l->h = p->oh, l->w = p->ow;
    }
    l->co_b = co / AT_NET_VTA_BLOCK;
    l->k = k, l->stride = stride, l->pad = k / 2;
    l->oh = (l->h + 2 * l->pad - k) / stride + 1;
    l->ow = (l->w + 2 * l->pad - k) / stride + 1;
    l->relu = relu;
    net->n_layers++; /* owned from here on (freed with net) */
    if (!net->weights) {
        *value = net->n_layers;
        return AT_OK;
    }
    float *w = NULL, *b = NULL;
    AT_TRY(folded_conv(seed, name, co, l->c_b * AT_NET_VTA_BLOCK, k, &w, &b));
    at_status st = at_net_vta_quantize_conv(l, w, b);
    at_free(w);
    at_free(b);
    *value = net->n_layers;
    return st;
}

static void add_residual(at_net_vta *net, const char *name, size_t residual, size_t body, size_t *value)
{
    AT_ASSERT(net->n_layers < AT_NET_VTA_MAX_LAYERS);
    at_net_vta_layer *l = &net->layers[net->n_layers++];
    const at_net_vta_layer *p = &net->layers[body - 1];
    memset(l, 0, sizeof *l);
    l->kind = AT_NET_VTA_ADD;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->in[0] = residual, l->in[1] = body;
    l->c_b = l->co_b = p->co_b;
    l->h = l->oh = p->oh;
    l->w = l->ow = p->ow;
    /* both operands are int8 at the input scale: no shift aligns them, none requantizes */
    l->lshift[0] = l->lshift[1] = 0;
    l->shift = 0;
    l->relu = true;
    *value = net->n_layers;
}

/* ---- tasks ------------------------------------------------------------------------------------ */

static at_status conv_task_text(const at_net_vta_layer *l, at_strbuf *sb)
{
    at_strbuf_printf(sb,
                     "[[\"TENSOR\", [1, %lld, %lld, %lld, 1, 16], \"int8\"], [\"TENSOR\", [%lld, %lld, %lld, %lld, 16, "
                     "16], \"int8\"], [%lld, %lld], [%lld, %lld, %lld, %lld], [1, 1], \"NCHW1n16c\", \"int32\"]",
                     (long long)l->c_b, (long long)l->h, (long long)l->w, (long long)l->co_b, (long long)l->c_b,
                     (long long)l->k, (long long)l->k, (long long)l->stride, (long long)l->stride, (long long)l->pad,
                     (long long)l->pad, (long long)l->pad, (long long)l->pad);
    return sb->failed ? AT_OOM() : AT_OK;
}

static at_status add_task_text(const at_net_vta_layer *l, at_strbuf *sb)
{
    for (int i = 0; i < 2; i++)
        at_strbuf_printf(sb, "%s[\"TENSOR\", [1, %lld, %lld, %lld, 1, 16], \"int32\"]", i ? ", " : "[",
                         (long long)l->co_b, (long long)l->oh, (long long)l->ow);
    at_strbuf_putc(sb, ']');
    return sb->failed ? AT_OOM() : AT_OK;
}

/* The task of layer li (created, or an existing equal one); SIZE_MAX for an add without add.vta. */
static at_status layer_task(at_net_vta *net, size_t li, size_t *out)
{
    const at_net_vta_layer *l = &net->layers[li];
    bool alu = l->kind == AT_NET_VTA_ADD;
    const char *tname = alu ? "add.vta" : "conv2d_packed.vta";
    *out = SIZE_MAX;
    if (alu && !at_tmpl_find(tname, AT_TARGET_VTA)) return AT_OK;
    at_strbuf text;
    at_strbuf_init(&text);
    at_status st = alu ? add_task_text(l, &text) : conv_task_text(l, &text);
    at_task *t = NULL;
    if (st == AT_OK) st = at_task_create(tname, AT_TARGET_VTA, at_strbuf_cstr(&text), &t);
    if (st != AT_OK) {
        at_strbuf_fini(&text);
        if (st == AT_ENOMEM) return st;
        /* TVM drops a task whose creation fails, with a warning */
        at_log(AT_LOG_WARN, "%s: no %s task: %s", l->name, tname, at_last_error());
        return AT_OK;
    }
    at_strbuf js;
    at_strbuf_init(&js);
    at_strbuf_putc(&js, '[');
    at_op_args_write_json(at_task_args(t), &js);
    at_strbuf_putc(&js, ']');
    at_strbuf_fini(&text);
    if (js.failed) {
        at_strbuf_fini(&js);
        at_task_free(t);
        return AT_OOM();
    }
    for (size_t i = 0; i < net->n_tasks; i++)
        if (net->tasks[i].alu == alu && !strcmp(net->tasks[i].args_json, at_strbuf_cstr(&js))) {
            at_strbuf_fini(&js);
            at_task_free(t);
            *out = i;
            return AT_OK;
        }
    AT_ASSERT(net->n_tasks < AT_NET_VTA_MAX_TASKS);
    char *args = at_strbuf_take(&js);
    if (!args) {
        at_task_free(t);
        return AT_OOM();
    }
    net->tasks[net->n_tasks] = (at_net_vta_task_slot){t, args, alu};
    *out = net->n_tasks++;
    return AT_OK;
}

/* Pre-order from value v: the fused function first, then its arguments in call order. */
static at_status visit(at_net_vta *net, size_t v, bool *seen)
{
    if (v == 0 || seen[v]) return AT_OK; /* value 0: max_pool2d, outside the packed convs */
    seen[v] = true;
    size_t li = v - 1;
    AT_TRY(layer_task(net, li, &net->layer_task[li]));
    const at_net_vta_layer *l = &net->layers[li];
    AT_TRY(visit(net, l->in[0], seen));
    if (l->kind == AT_NET_VTA_ADD) AT_TRY(visit(net, l->in[1], seen));
    return AT_OK;
}

at_status at_net_vta_extract_tasks(at_net_vta *net)
{
    bool seen[AT_NET_VTA_MAX_LAYERS + 1] = {false};
    for (size_t i = 0; i < net->n_layers; i++) net->layer_task[i] = SIZE_MAX;
    return visit(net, net->n_layers, seen);
}

/* ---- building --------------------------------------------------------------------------------- */

bool at_net_vta_is_onnx(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    return n > 5 && !strcmp(name + n - 5, ".onnx");
}

bool at_net_vta_knows(const char *name)
{
    return name && (!strcmp(name, "resnet-18") || !strcmp(name, "resnet18_v1") || at_net_vta_is_onnx(name));
}

/* The float stem (conv0 + BN folded) and dense layer. */
static at_status build_cpu_params(at_net_vta *net, uint64_t seed)
{
    AT_TRY(folded_conv(seed, "conv0", STEM_C, 3, 7, &net->stem_w, &net->stem_b));
    int64_t nd = net->classes * FEAT_C;
    net->dense_w = at_malloc((size_t)nd * sizeof *net->dense_w);
    net->dense_b = at_malloc((size_t)net->classes * sizeof *net->dense_b);
    if (!net->dense_w || !net->dense_b) return AT_OOM();
    double bound = sqrt(6.0 / FEAT_C);
    uniform(seed, "dense0", "weight", -bound, bound, net->dense_w, nd);
    uniform(seed, "dense0", "bias", -0.1, 0.1, net->dense_b, net->classes);
    return AT_OK;
}

bool at_net_vta_target_is(const char *text)
{
    if (!text) return false;
    return !strcmp(text, "vta") || strstr(text, "-device=vta") != NULL;
}

static at_status build(at_net_vta *net, uint64_t seed)
{
    if (net->weights) AT_TRY(build_cpu_params(net, seed));
    size_t x = 0;
    for (int s = 1; s <= 4; s++) {
        int64_t ch = STEM_C << (s - 1);
        for (int u = 1; u <= 2; u++) {
            int64_t stride = s > 1 && u == 1 ? 2 : 1;
            char nm[40];
            size_t c1, c2, res = x, out;
            snprintf(nm, sizeof nm, "stage%d_unit%d_conv1", s, u);
            AT_TRY(add_conv(net, seed, nm, x, ch, 3, stride, true, &c1));
            snprintf(nm, sizeof nm, "stage%d_unit%d_conv2", s, u);
            AT_TRY(add_conv(net, seed, nm, c1, ch, 3, 1, false, &c2));
            if (stride != 1) {
                snprintf(nm, sizeof nm, "stage%d_unit%d_downsample", s, u);
                AT_TRY(add_conv(net, seed, nm, x, ch, 1, stride, false, &res));
            }
            snprintf(nm, sizeof nm, "stage%d_unit%d_add", s, u);
            add_residual(net, nm, res, c2, &out);
            x = out;
        }
    }
    return at_net_vta_extract_tasks(net);
}

at_status at_net_vta_build(const char *name, const at_net_vta_opts *opts, at_net_vta **out)
{
    AT_ASSERT(out);
    *out = NULL;
    if (at_net_vta_is_onnx(name)) return at_net_vta_import(name, opts, out);
    if (!at_net_vta_knows(name))
        return AT_FAIL(AT_ENOTFOUND, "no VTA network '%s' (known: resnet-18, i.e. Gluon's resnet18_v1)",
                       name ? name : "");
    at_net_vta_opts o = opts ? *opts : (at_net_vta_opts){0};
    int64_t hw = o.image_hw ? o.image_hw : 224;
    if (hw < 32 || hw % 32 || hw > 4096)
        return AT_FAIL(AT_EINVAL, "resnet18_v1 on VTA: image size %lld is not a multiple of 32 in 32..4096",
                       (long long)hw);
    if (o.num_classes < 0 || o.num_classes > 100000) return AT_FAIL(AT_EINVAL, "num_classes out of range");
    at_net_vta *net = at_calloc(1, sizeof *net);
    if (!net) return AT_OOM();
    net->hw = hw;
    net->classes = o.num_classes ? o.num_classes : 1000;
    net->feat = FEAT_C;
    net->weights = !o.no_weights;
    at_status st = build(net, o.seed);
    if (st != AT_OK) {
        at_net_vta_free(net);
        return st;
    }
    *out = net;
    return AT_OK;
}

void at_net_vta_free(at_net_vta *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->n_layers; i++) {
        at_free(n->layers[i].weight);
        at_free(n->layers[i].bias);
    }
    for (size_t i = 0; i < n->n_tasks; i++) {
        at_task_free(n->tasks[i].task);
        at_free(n->tasks[i].args_json);
    }
    at_free(n->stem_w);
    at_free(n->stem_b);
    at_free(n->dense_w);
    at_free(n->dense_b);
    at_free(n);
}

/* ---- queries ---------------------------------------------------------------------------------- */

bool at_net_vta_has_weights(const at_net_vta *n)
{
    return n->weights;
}

size_t at_net_vta_n_layers(const at_net_vta *n)
{
    return n->n_layers;
}

const at_net_vta_layer *at_net_vta_layer_at(const at_net_vta *n, size_t i)
{
    AT_ASSERT(i < n->n_layers);
    return &n->layers[i];
}

int64_t at_net_vta_value_numel(const at_net_vta *n, size_t v)
{
    AT_ASSERT(v <= n->n_layers);
    if (v == 0) return STEM_C * (n->hw / 4) * (n->hw / 4);
    const at_net_vta_layer *l = &n->layers[v - 1];
    return l->co_b * AT_NET_VTA_BLOCK * l->oh * l->ow;
}

int64_t at_net_vta_image_numel(const at_net_vta *n)
{
    return 3 * n->hw * n->hw;
}

int64_t at_net_vta_num_classes(const at_net_vta *n)
{
    return n->classes;
}

int64_t at_net_vta_feat(const at_net_vta *n)
{
    return n->feat;
}

size_t at_net_vta_n_tasks(const at_net_vta *n)
{
    return n->n_tasks;
}

const at_task *at_net_vta_task(const at_net_vta *n, size_t i)
{
    AT_ASSERT(i < n->n_tasks);
    return n->tasks[i].task;
}

bool at_net_vta_task_is_alu(const at_net_vta *n, size_t i)
{
    AT_ASSERT(i < n->n_tasks);
    return n->tasks[i].alu;
}

const char *at_net_vta_task_args_json(const at_net_vta *n, size_t i)
{
    AT_ASSERT(i < n->n_tasks);
    return n->tasks[i].args_json;
}

size_t at_net_vta_layer_task(const at_net_vta *n, size_t layer)
{
    AT_ASSERT(layer < n->n_layers);
    return n->layer_task[layer];
}

const float *at_net_vta_stem_params(const at_net_vta *n, const float **bias, int64_t *hw)
{
    AT_ASSERT(n->weights);
    *bias = n->stem_b;
    *hw = n->hw;
    return n->stem_w;
}

const float *at_net_vta_dense_params(const at_net_vta *n, const float **bias)
{
    AT_ASSERT(n->weights);
    *bias = n->dense_b;
    return n->dense_w;
}
