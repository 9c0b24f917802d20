/* The VTA resnet's reference executor and its CPU layers (networks/vta.h), naive C: the packed
 * region in exact integer arithmetic on the packed layouts, in the order the relay program
 * applies its ops (conv, + bias, relu, + 2^(s-1), >> s, min 127, max -127, cast), which is also the
 * order of the VTA ALU epilogue; stem and head in float with fixed summation order, shared with
 * the VTA executor, so the logits agree bit for bit whenever the packed output does. */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/vta.h"
#include "networks/vta_internal.h"

enum { B = AT_NET_VTA_BLOCK };

/* Arithmetic shift right of a 32-bit value (floor division by 2^s), as the VTA ALU's SHR. */
static int32_t asr(int32_t x, int s)
{
    return x >= 0 ? (int32_t)((uint32_t)x >> s) : (int32_t) ~(~(uint32_t)x >> s);
}

static int8_t requant(int32_t x, bool relu, int shift)
{
    if (relu && x < 0) x = 0;
    if (shift > 0) x = asr((int32_t)((uint32_t)x + (1u << (shift - 1))), shift);
    if (x > 127) x = 127;
    if (x < -127) x = -127;
    return (int8_t)x;
}

void at_net_vta_stem_conv(const at_net_vta *n, const float *image, const float *wt, float *conv)
{
    const float *bias;
    int64_t hw;
    (void)at_net_vta_stem_params(n, &bias, &hw);
    const int64_t ch = 64, oh = hw / 2;
    /* conv 7x7 stride 2 pad 3, + bias; weights as [tap][c] so the channel loop is innermost and
     * contiguous (each channel still sums its taps in (i, ky, kx) order from its bias) */
    for (int64_t y = 0; y < oh; y++)
        for (int64_t x = 0; x < oh; x++) {
            float acc[64];
            for (int64_t c = 0; c < ch; c++) acc[c] = bias[c];
            for (int64_t i = 0; i < 3; i++)
                for (int64_t ky = 0; ky < 7; ky++) {
                    int64_t iy = y * 2 - 3 + ky;
                    if (iy < 0 || iy >= hw) continue;
                    for (int64_t kx = 0; kx < 7; kx++) {
                        int64_t ix = x * 2 - 3 + kx;
                        if (ix < 0 || ix >= hw) continue;
                        float v = image[(i * hw + iy) * hw + ix];
                        const float *wr = wt + ((i * 7 + ky) * 7 + kx) * ch;
                        for (int64_t c = 0; c < ch; c++) acc[c] += v * wr[c];
                    }
                }
            for (int64_t c = 0; c < ch; c++) conv[(c * oh + y) * oh + x] = acc[c];
        }
}

at_status at_net_vta_stem_weights_t(const at_net_vta *n, float **out)
{
    const float *bias;
    int64_t hw;
    const float *w = at_net_vta_stem_params(n, &bias, &hw);
    float *wt = at_malloc((size_t)(147 * 64) * sizeof *wt);
    if (!wt) return AT_OOM();
    for (int64_t c = 0; c < 64; c++)
        for (int64_t t = 0; t < 147; t++) wt[t * 64 + c] = w[c * 147 + t];
    *out = wt;
    return AT_OK;
}

int8_t at_net_vta_quantize(float x)
{
    float a = x < 0 ? 0 : x;
    double v = floor((double)a * (1 << AT_NET_VTA_INPUT_SHIFT) + 0.5);
    return (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
}

void at_net_vta_stem_quantize(const at_net_vta *n, const float *conv, int8_t *q)
{
    int64_t m = 64 * at_net_vta_stem_hw(n) * at_net_vta_stem_hw(n);
    for (int64_t i = 0; i < m; i++) q[i] = at_net_vta_quantize(conv[i]);
}

void at_net_vta_stem_pool(const at_net_vta *n, const int8_t *q, int8_t *value0)
{
    const int64_t ch = 64, oh = at_net_vta_stem_hw(n), ph = oh / 2;
    /* max_pool2d 3x3 stride 2 pad 1 on int8 (padding never wins), packed to NCHW1n16c */
    for (int64_t c = 0; c < ch; c++)
        for (int64_t y = 0; y < ph; y++)
            for (int64_t x = 0; x < ph; x++) {
                int m = -128;
                for (int64_t ky = 0; ky < 3; ky++)
                    for (int64_t kx = 0; kx < 3; kx++) {
                        int64_t iy = y * 2 - 1 + ky, ix = x * 2 - 1 + kx;
                        if (iy < 0 || iy >= oh || ix < 0 || ix >= oh) continue;
                        int v = q[(c * oh + iy) * oh + ix];
                        if (v > m) m = v;
                    }
                value0[((c / B * ph + y) * ph + x) * B + c % B] = (int8_t)m;
            }
}

int64_t at_net_vta_stem_hw(const at_net_vta *n)
{
    const float *bias;
    int64_t hw;
    (void)at_net_vta_stem_params(n, &bias, &hw);
    return hw / 2;
}

at_status at_net_vta_stem(const at_net_vta *n, const float *image, int8_t *value0)
{
    int64_t oh = at_net_vta_stem_hw(n), m = 64 * oh * oh;
    float *conv = at_malloc((size_t)m * sizeof *conv), *wt = NULL;
    int8_t *q = at_malloc((size_t)m);
    at_status st = conv && q ? at_net_vta_stem_weights_t(n, &wt) : AT_OOM();
    if (st == AT_OK) {
        at_net_vta_stem_conv(n, image, wt, conv);
        at_net_vta_stem_quantize(n, conv, q);
        at_net_vta_stem_pool(n, q, value0);
    }
    at_free(wt);
    at_free(q);
    at_free(conv);
    return st;
}

void at_net_vta_head_pool(const at_net_vta *n, const int8_t *last, float *feat)
{
    const at_net_vta_layer *l = at_net_vta_layer_at(n, at_net_vta_n_layers(n) - 1);
    int64_t ch = l->co_b * B, plane = l->oh * l->ow;
    AT_ASSERT(ch == at_net_vta_feat(n));
    /* unpack, dequantize, global_avg_pool2d: an exact integer sum, then two double divisions */
    for (int64_t c = 0; c < ch; c++) {
        double s = 0;
        for (int64_t p = 0; p < plane; p++) s += last[((c / B) * plane + p) * B + c % B];
        feat[c] = (float)(s / (1 << AT_NET_VTA_INPUT_SHIFT) / (double)plane);
    }
}

void at_net_vta_head_dense(const at_net_vta *n, const float *feat, float *logits)
{
    const float *bias;
    const float *w = at_net_vta_dense_params(n, &bias);
    int64_t ch = at_net_vta_feat(n), classes = at_net_vta_num_classes(n);
    for (int64_t o = 0; o < classes; o++) {
        double s = bias[o];
        for (int64_t c = 0; c < ch; c++) s += (double)feat[c] * w[o * ch + c];
        logits[o] = (float)s;
    }
}

void at_net_vta_head(const at_net_vta *n, const int8_t *last, float *logits)
{
    float feat[AT_NET_VTA_MAX_FEAT];
    at_net_vta_head_pool(n, last, feat);
    at_net_vta_head_dense(n, feat, logits);
}

void at_net_vta_conv_acc(const at_net_vta_layer *l, const int8_t *in, int32_t *acc)
{
    AT_ASSERT(l->kind == AT_NET_VTA_CONV);
    const int64_t k = l->k;
    for (int64_t co = 0; co < l->co_b; co++)
        for (int64_t y = 0; y < l->oh; y++)
            for (int64_t x = 0; x < l->ow; x++) {
                int32_t sum[B] = {0};
                for (int64_t ci = 0; ci < l->c_b; ci++)
                    for (int64_t ky = 0; ky < k; ky++) {
                        int64_t iy = y * l->stride - l->pad + ky;
                        if (iy < 0 || iy >= l->h) continue;
                        for (int64_t kx = 0; kx < k; kx++) {
                            int64_t ix = x * l->stride - l->pad + kx;
                            if (ix < 0 || ix >= l->w) continue;
                            const int8_t *a = in + ((ci * l->h + iy) * l->w + ix) * B;
                            const int8_t *wb = l->weight + (((co * l->c_b + ci) * k + ky) * k + kx) * B * B;
                            for (int o = 0; o < B; o++)
                                for (int i = 0; i < B; i++) sum[o] += (int32_t)a[i] * wb[o * B + i];
                        }
                    }
                memcpy(acc + ((co * l->oh + y) * l->ow + x) * B, sum, sizeof sum);
            }
}

at_status at_net_vta_layer_ref(const at_net_vta_layer *l, const int8_t *const in[2], int8_t *out)
{
    int64_t n = l->co_b * l->oh * l->ow * B;
    AT_ASSERT(l->kind == AT_NET_VTA_ADD || (l->weight && l->bias));
    if (l->kind == AT_NET_VTA_ADD) {
        for (int64_t i = 0; i < n; i++) {
            uint32_t a = (uint32_t)(int32_t)in[0][i] << l->lshift[0], b = (uint32_t)(int32_t)in[1][i] << l->lshift[1];
            out[i] = requant((int32_t)(a + b), l->relu, l->shift);
        }
        return AT_OK;
    }
    int32_t *acc = at_malloc((size_t)n * sizeof *acc);
    if (!acc) return AT_OOM();
    at_net_vta_conv_acc(l, in[0], acc);
    for (int64_t i = 0; i < n; i++) {
        int64_t c = ((i / B) / (l->oh * l->ow)) * B + i % B;
        out[i] = requant((int32_t)((uint32_t)acc[i] + (uint32_t)l->bias[c]), l->relu, l->shift);
    }
    at_free(acc);
    return AT_OK;
}

void at_net_vta_values_fini(at_net_vta_values *v)
{
    if (!v || !v->v) return;
    for (size_t i = 0; i < v->n; i++) at_free(v->v[i]);
    at_free(v->v);
    *v = (at_net_vta_values){0};
}

at_status at_net_vta_run_reference(const at_net_vta *n, const float *image, float *logits, at_net_vta_values *values)
{
    if (!at_net_vta_has_weights(n)) return AT_FAIL(AT_EINVAL, "the VTA network was built without weights");
    size_t nv = at_net_vta_n_layers(n) + 1;
    at_net_vta_values v = {nv, at_calloc(nv, sizeof(int8_t *))};
    if (!v.v) return AT_OOM();
    for (size_t i = 0; i < nv; i++)
        if (!(v.v[i] = at_malloc((size_t)at_net_vta_value_numel(n, i)))) {
            at_net_vta_values_fini(&v);
            return AT_OOM();
        }
    at_status st = at_net_vta_stem(n, image, v.v[0]);
    for (size_t i = 0; st == AT_OK && i + 1 < nv; i++) {
        const at_net_vta_layer *l = at_net_vta_layer_at(n, i);
        const int8_t *in[2] = {v.v[l->in[0]], v.v[l->in[1]]};
        st = at_net_vta_layer_ref(l, in, v.v[i + 1]);
    }
    if (st != AT_OK) {
        at_net_vta_values_fini(&v);
        return st;
    }
    at_net_vta_head(n, v.v[nv - 1], logits);
    if (values)
        *values = v;
    else
        at_net_vta_values_fini(&v);
    return AT_OK;
}

void at_net_vta_fill_image(const at_net_vta *n, uint64_t seed, float *image)
{
    at_rng r;
    at_rng_seed(&r, seed + 7);
    int64_t m = at_net_vta_image_numel(n);
    for (int64_t i = 0; i < m; i++) image[i] = (float)at_rng_uniform(&r);
}
