/* Element-wise activations (AT_NET_ACTIVATION): the functions ONNX models use between anchors
 * that relay.testing's networks never needed (relu6 as Clip, sigmoid, hard sigmoid, hard swish,
 * leaky relu). The reference (double precision, plain C) and the IR program (one work-item per
 * element, float32) are written side by side so the two definitions cannot drift apart. */
#include <math.h>
#include <stdio.h>

#include "networks/internal.h"

static const char *const act_names[AT_NET_ACT_COUNT] = {
    [AT_NET_ACT_CLIP] = "clip",
    [AT_NET_ACT_SIGMOID] = "sigmoid",
    [AT_NET_ACT_HARD_SIGMOID] = "hard_sigmoid",
    [AT_NET_ACT_HARD_SWISH] = "hard_swish",
    [AT_NET_ACT_LEAKY_RELU] = "leaky_relu",
};

const char *at_net_act_name(at_net_act act)
{
    AT_ASSERT((unsigned)act < AT_NET_ACT_COUNT);
    return act_names[act];
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void at_net_act_ref(const at_net_node *n, const float *x, float *y)
{
    int64_t total = at_net_node_numel(n);
    double a = n->attrs.alpha, b = n->attrs.beta;
    for (int64_t i = 0; i < total; i++) {
        double v = x[i], r = v;
        switch (n->attrs.act) {
        case AT_NET_ACT_CLIP: r = clamp(v, a, b); break;
        case AT_NET_ACT_SIGMOID: r = 1.0 / (1.0 + exp(-v)); break;
        case AT_NET_ACT_HARD_SIGMOID: r = clamp(a * v + b, 0, 1); break;
        case AT_NET_ACT_HARD_SWISH: r = v * clamp(v / 6.0 + 0.5, 0, 1); break;
        case AT_NET_ACT_LEAKY_RELU: r = v >= 0 ? v : a * v; break;
        case AT_NET_ACT_COUNT: AT_ASSERT(!"bad activation");
        }
        y[i] = (float)r;
    }
}

typedef const at_ir_expr *E;

static E clamp_ir(at_ir_sched *s, E v, double lo, double hi)
{
    return at_ir_min(s, at_ir_max(s, v, at_ir_f32(s, lo)), at_ir_f32(s, hi));
}

at_status at_net_prog_activation(at_arena *arena, const at_net_node *n, const at_ir_program **out)
{
    *out = NULL;
    at_ir_sched *s = at_ir_sched_begin(arena, n->name);
    if (!s) return AT_OOM();
    int64_t total = at_net_node_numel(n);
    double a = n->attrs.alpha, b = n->attrs.beta;
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, total, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, total, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32);
    E iv = at_ir_v(s, i), v = at_ir_load(s, x, iv, 1), r = v;
    switch (n->attrs.act) {
    case AT_NET_ACT_CLIP: r = clamp_ir(s, v, a, b); break;
    case AT_NET_ACT_SIGMOID: {
        E neg = at_ir_sub(s, at_ir_f32(s, 0), v);
        E e = at_ir_call(s, "exp", AT_IR_F32, &neg, 1);
        r = at_ir_div(s, at_ir_f32(s, 1), at_ir_add(s, at_ir_f32(s, 1), e));
        break;
    }
    case AT_NET_ACT_HARD_SIGMOID: r = clamp_ir(s, at_ir_add(s, at_ir_mul(s, v, at_ir_f32(s, a)), at_ir_f32(s, b)), 0, 1); break;
    case AT_NET_ACT_HARD_SWISH:
        r = at_ir_mul(s, v, clamp_ir(s, at_ir_add(s, at_ir_div(s, v, at_ir_f32(s, 6)), at_ir_f32(s, 0.5)), 0, 1));
        break;
    case AT_NET_ACT_LEAKY_RELU:
        r = at_ir_select(s, at_ir_bin(s, AT_IR_GE, v, at_ir_f32(s, 0)), v, at_ir_mul(s, v, at_ir_f32(s, a)));
        break;
    case AT_NET_ACT_COUNT: AT_ASSERT(!"bad activation");
    }
    at_ir_add_kernel(s, n->name, at_net_grid(s, i, total, at_ir_store(s, y, iv, r)));
    AT_TRY(at_ir_sched_finish(s, out));
    return at_ir_verify(*out);
}
