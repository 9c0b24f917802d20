/* The untuned program of a grouped convolution (1 < groups, not depthwise) on targets whose
 * strategy has no template for it here: Mali (TVM's Mali strategy refuses group_conv2d) and
 * opencl (TVM's cuda strategy has group_conv2d_nchw.cuda, not templated here). A plain direct
 * convolution, one work-item per output element, with the anchor's epilogue (bias, residual,
 * relu) applied in the store, so the executor needs no second program. */
#include "networks/internal.h"

typedef const at_ir_expr *E;

static E i32(at_ir_sched *s, int64_t v)
{
    return at_ir_i32(s, v);
}

static E in_range(at_ir_sched *s, E v, int64_t hi)
{
    return at_ir_bin(s, AT_IR_AND, at_ir_bin(s, AT_IR_GE, v, i32(s, 0)), at_ir_bin(s, AT_IR_LT, v, i32(s, hi)));
}

at_status at_net_prog_group_conv(at_arena *arena, const at_net *net, const at_net_node *n, const at_ir_program **out)
{
    *out = NULL;
    const at_net_node *in = at_net_node_at(net, n->inputs[0]);
    const at_net_attrs *a = &n->attrs;
    int64_t ci = in->shape[1], ih = in->shape[2], iw = in->shape[3];
    int64_t co = n->shape[1], oh = n->shape[2], ow = n->shape[3], total = at_net_node_numel(n);
    int64_t kd = ci / a->groups, kpg = co / a->groups, kh = a->kernel[0], kw = a->kernel[1];
    at_ir_sched *s = at_ir_sched_begin(arena, n->name);
    if (!s) return AT_OOM();
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, at_net_node_numel(in), AT_IR_INPUT);
    const at_ir_buffer *w = at_ir_param(s, "w", AT_IR_F32, co * kd * kh * kw, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, total, AT_IR_OUTPUT);
    const at_ir_buffer *bias = n->epi.bias ? at_ir_param(s, "bias", AT_IR_F32, co, AT_IR_INPUT) : NULL;
    const at_ir_buffer *res = n->epi.residual ? at_ir_param(s, "residual", AT_IR_F32, total, AT_IR_INPUT) : NULL;
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, 1, AT_IR_PRIVATE);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32), *rc = at_ir_var_new(s, "rc", AT_IR_I32),
                    *ry = at_ir_var_new(s, "ry", AT_IR_I32), *rx = at_ir_var_new(s, "rx", AT_IR_I32);
    E iv = at_ir_v(s, i), zero = i32(s, 0);
    E ox = at_ir_mod(s, iv, i32(s, ow)), oy = at_ir_mod(s, at_ir_div(s, iv, i32(s, ow)), i32(s, oh));
    E c = at_ir_mod(s, at_ir_div(s, iv, i32(s, ow * oh)), i32(s, co)), bn = at_ir_div(s, iv, i32(s, ow * oh * co));
    E y0 = at_ir_sub(s, at_ir_add(s, at_ir_mul(s, oy, i32(s, a->stride[0])), at_ir_mul(s, at_ir_v(s, ry), i32(s, a->dilation[0]))),
                     i32(s, a->pad[0]));
    E x0 = at_ir_sub(s, at_ir_add(s, at_ir_mul(s, ox, i32(s, a->stride[1])), at_ir_mul(s, at_ir_v(s, rx), i32(s, a->dilation[1]))),
                     i32(s, a->pad[1]));
    E ch = at_ir_add(s, at_ir_mul(s, at_ir_div(s, c, i32(s, kpg)), i32(s, kd)), at_ir_v(s, rc));
    E src = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, bn, i32(s, ci)), ch), i32(s, ih)), y0),
                                   i32(s, iw)),
                      x0);
    E widx = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, c, i32(s, kd)), at_ir_v(s, rc)), i32(s, kh)),
                                                 at_ir_v(s, ry)),
                                    i32(s, kw)),
                       at_ir_v(s, rx));
    E sum = at_ir_add(s, at_ir_load(s, acc, zero, 1), at_ir_mul(s, at_ir_load(s, x, src, 1), at_ir_load(s, w, widx, 1)));
    const at_ir_stmt *upd = at_ir_if(s, at_ir_bin(s, AT_IR_AND, in_range(s, y0, ih), in_range(s, x0, iw)), at_ir_store(s, acc, zero, sum),
                                     NULL);
    upd = at_ir_for(s, rc, kd, AT_IR_SERIAL, at_ir_for(s, ry, kh, AT_IR_SERIAL, at_ir_for(s, rx, kw, AT_IR_SERIAL, upd)));
    E v = at_ir_load(s, acc, zero, 1);
    if (bias) v = at_ir_add(s, v, at_ir_load(s, bias, c, 1));
    if (res) v = at_ir_add(s, v, at_ir_load(s, res, iv, 1));
    if (n->epi.relu) v = at_ir_max(s, v, at_ir_f32(s, 0));
    const at_ir_stmt *items[3] = {at_ir_store(s, acc, zero, at_ir_f32(s, 0)), upd, at_ir_store(s, y, iv, v)};
    at_ir_add_kernel(s, n->name, at_net_grid(s, i, total, at_ir_seq(s, items, 3)));
    AT_TRY(at_ir_sched_finish(s, out));
    return at_ir_verify(*out);
}
