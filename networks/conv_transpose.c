/* nn.conv2d_transpose (ONNX ConvTranspose, groups 1) as a gather: each output element sums the
 * input positions whose scattered taps land on it, iy = (oy + pad - ky * dilation) / stride when
 * that divides exactly. No tuning template: a naive reference and one IR program, like pad or
 * concat, written side by side so the index mappings cannot drift apart. */
#include "networks/internal.h"

/* The input row (or column) that tap k of output coordinate o reads, or -1 when none does. */
static int64_t tap_src(int64_t o, int64_t k, int64_t pad, int64_t stride, int64_t dil, int64_t in)
{
    int64_t t = o + pad - k * dil;
    if (t < 0 || t % stride) return -1;
    t /= stride;
    return t < in ? t : -1;
}

void at_net_conv_transpose_ref(const at_net *net, const at_net_node *n, const float *x, float *y)
{
    const at_net_node *in = at_net_node_at(net, n->inputs[0]);
    const at_net_attrs *a = &n->attrs;
    int64_t ci = in->shape[1], ih = in->shape[2], iw = in->shape[3], co = n->shape[1], oh = n->shape[2], ow = n->shape[3];
    int64_t kh = a->kernel[0], kw = a->kernel[1];
    for (int64_t b = 0; b < n->shape[0]; b++)
        for (int64_t c = 0; c < co; c++)
            for (int64_t oy = 0; oy < oh; oy++)
                for (int64_t ox = 0; ox < ow; ox++) {
                    double acc = 0;
                    for (int64_t i = 0; i < ci; i++)
                        for (int64_t ky = 0; ky < kh; ky++) {
                            int64_t sy = tap_src(oy, ky, a->pad[0], a->stride[0], a->dilation[0], ih);
                            if (sy < 0) continue;
                            for (int64_t kx = 0; kx < kw; kx++) {
                                int64_t sx = tap_src(ox, kx, a->pad[1], a->stride[1], a->dilation[1], iw);
                                if (sx < 0) continue;
                                acc += (double)x[((b * ci + i) * ih + sy) * iw + sx] * n->weight[((i * co + c) * kh + ky) * kw + kx];
                            }
                        }
                    y[((b * co + c) * oh + oy) * ow + ox] = (float)acc;
                }
}

typedef const at_ir_expr *E;

/* tap_src as IR: the (clamped) source index and whether the tap is real. */
static void tap_ir(at_ir_sched *s, E o, E k, int64_t pad, int64_t stride, int64_t dil, int64_t in, E *src, E *ok)
{
    E t = at_ir_sub(s, at_ir_add(s, o, at_ir_i32(s, pad)), at_ir_mul(s, k, at_ir_i32(s, dil)));
    /* t + stride * in keeps the division and modulus on non-negative values */
    E tp = at_ir_add(s, t, at_ir_i32(s, stride * in));
    E q = at_ir_sub(s, at_ir_div(s, tp, at_ir_i32(s, stride)), at_ir_i32(s, in));
    *ok = at_ir_bin(s, AT_IR_AND,
                    at_ir_bin(s, AT_IR_AND, at_ir_bin(s, AT_IR_GE, t, at_ir_i32(s, 0)),
                              at_ir_bin(s, AT_IR_EQ, at_ir_mod(s, tp, at_ir_i32(s, stride)), at_ir_i32(s, 0))),
                    at_ir_bin(s, AT_IR_LT, q, at_ir_i32(s, in)));
    *src = at_ir_min(s, at_ir_max(s, q, at_ir_i32(s, 0)), at_ir_i32(s, in - 1));
}

at_status at_net_prog_conv_transpose(at_arena *arena, const at_net *net, const at_net_node *n, const at_ir_program **out)
{
    *out = NULL;
    const at_net_node *in = at_net_node_at(net, n->inputs[0]);
    const at_net_attrs *a = &n->attrs;
    int64_t ci = in->shape[1], ih = in->shape[2], iw = in->shape[3], co = n->shape[1], oh = n->shape[2], ow = n->shape[3];
    int64_t kh = a->kernel[0], kw = a->kernel[1], total = at_net_node_numel(n);
    at_ir_sched *s = at_ir_sched_begin(arena, n->name);
    if (!s) return AT_OOM();
    const at_ir_buffer *xb = at_ir_param(s, "x", AT_IR_F32, at_net_node_numel(in), AT_IR_INPUT);
    const at_ir_buffer *wb = at_ir_param(s, "w", AT_IR_F32, ci * co * kh * kw, AT_IR_INPUT);
    const at_ir_buffer *yb = at_ir_param(s, "y", AT_IR_F32, total, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, 1, AT_IR_PRIVATE);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32), *c = at_ir_var_new(s, "ic", AT_IR_I32);
    const at_ir_var *ky = at_ir_var_new(s, "ky", AT_IR_I32), *kx = at_ir_var_new(s, "kx", AT_IR_I32);
    E iv = at_ir_v(s, i), zero = at_ir_i32(s, 0);
    E ox = at_ir_mod(s, iv, at_ir_i32(s, ow)), oy = at_ir_mod(s, at_ir_div(s, iv, at_ir_i32(s, ow)), at_ir_i32(s, oh));
    E oc = at_ir_mod(s, at_ir_div(s, iv, at_ir_i32(s, oh * ow)), at_ir_i32(s, co));
    E b = at_ir_div(s, iv, at_ir_i32(s, co * oh * ow));
    E sy, oky, sx, okx;
    tap_ir(s, oy, at_ir_v(s, ky), a->pad[0], a->stride[0], a->dilation[0], ih, &sy, &oky);
    tap_ir(s, ox, at_ir_v(s, kx), a->pad[1], a->stride[1], a->dilation[1], iw, &sx, &okx);
    E ch = at_ir_add(s, at_ir_mul(s, b, at_ir_i32(s, ci)), at_ir_v(s, c));
    E xi = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, ch, at_ir_i32(s, ih)), sy), at_ir_i32(s, iw)), sx);
    E wi = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_v(s, c), at_ir_i32(s, co)), oc),
                                                            at_ir_i32(s, kh)),
                                                 at_ir_v(s, ky)),
                                      at_ir_i32(s, kw)),
                     at_ir_v(s, kx));
    /* loads stay in bounds (clamped indices); the select drops taps that land elsewhere */
    E term = at_ir_select(s, at_ir_bin(s, AT_IR_AND, oky, okx),
                          at_ir_mul(s, at_ir_load(s, xb, xi, 1), at_ir_load(s, wb, wi, 1)), at_ir_f32(s, 0));
    const at_ir_stmt *sum = at_ir_store(s, acc, zero, at_ir_add(s, at_ir_load(s, acc, zero, 1), term));
    const at_ir_stmt *loops =
        at_ir_for(s, c, ci, AT_IR_SERIAL, at_ir_for(s, ky, kh, AT_IR_SERIAL, at_ir_for(s, kx, kw, AT_IR_SERIAL, sum)));
    const at_ir_stmt *items[3] = {at_ir_store(s, acc, zero, at_ir_f32(s, 0)), loops,
                                  at_ir_store(s, yb, iv, at_ir_load(s, acc, zero, 1))};
    at_ir_add_kernel(s, n->name, at_net_grid(s, i, total, at_ir_seq(s, items, 3)));
    AT_TRY(at_ir_sched_finish(s, out));
    return at_ir_verify(*out);
}
