/* The reference executor: naive float32 C over the graph in node order, the anchors through
 * the ops' reference implementations (templates/ops.h, double accumulation) and every other op
 * in a plain loop, written for clarity and independent of the IR programs the tuned executor
 * generates. Each node's output is freed after its last consumer unless all are kept. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/exec.h"
#include "networks/internal.h"
#include "templates/ops.h"

struct at_net_values {
    float **v;
    size_t  n;
};

void at_net_values_free(at_net_values *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) at_free(v->v[i]);
    at_free(v->v);
    at_free(v);
}

const float *at_net_values_get(const at_net_values *v, size_t node)
{
    AT_ASSERT(node < v->n);
    return v->v[node];
}

/* Channel of flat element i of a node output: axis 1 of an NCHW or [N, C] tensor. */
static int64_t channel_of(const at_net_node *n, int64_t i)
{
    int64_t inner = n->ndim == 4 ? n->shape[2] * n->shape[3] : 1;
    return (i / inner) % n->shape[1];
}

static void conv_args(const at_net *net, const at_net_node *n, at_conv2d_args *a, at_op_kind *op)
{
    const at_net_node *in = at_net_node_at(net, n->inputs[0]);
    memset(a, 0, sizeof *a);
    *op = n->attrs.groups == 1 ? AT_OP_CONV2D_NCHW : AT_OP_DEPTHWISE_CONV2D_NCHW;
    memcpy(a->data, in->shape, sizeof a->data);
    a->kernel[0] = n->attrs.channels;
    a->kernel[1] = in->shape[1] / n->attrs.groups;
    a->kernel[2] = n->attrs.kernel[0];
    a->kernel[3] = n->attrs.kernel[1];
    memcpy(a->stride, n->attrs.stride, sizeof a->stride);
    memcpy(a->pad, n->attrs.pad, sizeof a->pad);
    memcpy(a->dilation, n->attrs.dilation, sizeof a->dilation);
    a->dtype = a->kernel_dtype = a->out_dtype = AT_IR_F32;
}

/* y = relu?(y + bias[c] + residual) in place. */
static void epilogue(const at_net_node *n, float *y, const float *residual)
{
    int64_t total = at_net_node_numel(n);
    for (int64_t i = 0; i < total; i++) {
        double v = y[i];
        if (n->epi.bias) v += n->bias[channel_of(n, i)];
        if (n->epi.residual) v += residual[i];
        if (n->epi.relu && v < 0) v = 0;
        y[i] = (float)v;
    }
}

/* max_pool2d / avg_pool2d; the avg divisor: the window's input elements, or with
 * count_include_pad its positions inside the padded input (not those ceil_mode adds). */
static void pool(const at_net_node *n, const at_net_node *in, const float *x, float *y)
{
    const at_net_attrs *a = &n->attrs;
    bool avg = n->op == AT_NET_AVG_POOL2D;
    int64_t ih = in->shape[2], iw = in->shape[3], oh = n->shape[2], ow = n->shape[3];
    for (int64_t nc = 0; nc < n->shape[0] * n->shape[1]; nc++)
        for (int64_t h = 0; h < oh; h++)
            for (int64_t w = 0; w < ow; w++) {
                double m = avg ? 0 : -FLT_MAX, count = 0;
                for (int64_t kh = 0; kh < a->kernel[0]; kh++)
                    for (int64_t kw = 0; kw < a->kernel[1]; kw++) {
                        int64_t y0 = h * a->stride[0] + kh - a->pad[0], x0 = w * a->stride[1] + kw - a->pad[1];
                        bool in_padded = y0 >= -a->pad[0] && y0 < ih + a->pad[2] && x0 >= -a->pad[1] && x0 < iw + a->pad[3];
                        if (y0 < 0 || y0 >= ih || x0 < 0 || x0 >= iw) {
                            count += a->count_include_pad && in_padded;
                            continue;
                        }
                        double v = x[(nc * ih + y0) * iw + x0];
                        count += 1;
                        m = avg ? m + v : v > m ? v : m;
                    }
                y[(nc * oh + h) * ow + w] = (float)(avg ? m / count : m);
            }
}

static void softmax(const at_net_node *n, const float *x, float *y)
{
    int64_t cols = n->shape[n->ndim - 1], rows = at_net_node_numel(n) / cols;
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        double m = -INFINITY, sum = 0;
        for (int64_t c = 0; c < cols; c++) m = xr[c] > m ? xr[c] : m;
        for (int64_t c = 0; c < cols; c++) sum += exp((double)xr[c] - m);
        for (int64_t c = 0; c < cols; c++) yr[c] = (float)(exp((double)xr[c] - m) / sum);
    }
}

static void run_node(const at_net *net, const at_net_node *n, const float *const *in, float *y)
{
    const at_net_node *n0 = at_net_node_at(net, n->inputs[0]);
    int64_t total = at_net_node_numel(n);
    const float *x = in[0];
    switch (n->op) {
    case AT_NET_CONV2D: {
        at_conv2d_args a;
        at_op_kind op;
        conv_args(net, n, &a, &op);
        if (at_net_conv_is_grouped(net, n)) {
            at_args ga = {.op = AT_OP_GROUP_CONV2D_NCHW, .u.group_conv2d = {.conv = a, .groups = n->attrs.groups}};
            at_op_reference(&ga, (const void *[]){x, n->weight}, (void *[]){y});
        } else {
            at_op_conv2d_ref(op, &a, x, n->weight, y);
        }
        epilogue(n, y, n->epi.residual ? in[1] : NULL);
        break;
    }
    case AT_NET_DENSE: {
        at_dense_args a = {.m = n0->shape[0], .n = n->attrs.channels, .k = n0->shape[1]};
        a.dtype = a.weight_dtype = a.bias_dtype = a.out_dtype = AT_IR_F32;
        at_op_dense_ref(&a, x, n->weight, NULL, y);
        epilogue(n, y, n->epi.residual ? in[1] : NULL);
        break;
    }
    case AT_NET_BATCH_NORM:
        for (int64_t i = 0; i < total; i++) {
            int64_t c = channel_of(n, i);
            double v = ((double)x[i] - n->mean[c]) / sqrt((double)n->var[c] + n->attrs.eps);
            if (!n->attrs.no_scale) v *= n->gamma[c];
            y[i] = (float)(v + n->beta[c]);
        }
        break;
    case AT_NET_SCALE_SHIFT:
        for (int64_t i = 0; i < total; i++) {
            int64_t c = channel_of(n, i);
            double v = (double)x[i] * n->scale[c] + n->shift[c];
            y[i] = (float)(n->epi.relu && v < 0 ? 0 : v);
        }
        break;
    case AT_NET_BIAS_ADD:
        for (int64_t i = 0; i < total; i++) y[i] = (float)((double)x[i] + n->bias[channel_of(n, i)]);
        break;
    case AT_NET_RELU:
        for (int64_t i = 0; i < total; i++) y[i] = x[i] > 0 ? x[i] : 0;
        break;
    case AT_NET_ADD:
        for (int64_t i = 0; i < total; i++) y[i] = (float)((double)x[i] + in[1][i]);
        break;
    case AT_NET_MAX_POOL2D:
    case AT_NET_AVG_POOL2D:
        pool(n, n0, x, y);
        break;
    case AT_NET_BINARY:
    case AT_NET_PAD:
    case AT_NET_TRANSPOSE:
    case AT_NET_REDUCE_MEAN:
    case AT_NET_RESIZE:
        at_net_tensor_ref(net, n, in, y);
        break;
    case AT_NET_CONV2D_TRANSPOSE:
        at_net_conv_transpose_ref(net, n, x, y);
        break;
    case AT_NET_CONSTANT:
        memcpy(y, n->weight, (size_t)total * sizeof *y);
        break;
    case AT_NET_GLOBAL_AVG_POOL2D: {
        int64_t hw = n0->shape[2] * n0->shape[3];
        for (int64_t nc = 0; nc < total; nc++) {
            double s = 0;
            for (int64_t k = 0; k < hw; k++) s += x[nc * hw + k];
            y[nc] = (float)(s / (double)hw);
        }
        break;
    }
    case AT_NET_BATCH_FLATTEN:
    case AT_NET_DROPOUT:
    case AT_NET_RESHAPE:
        memcpy(y, x, (size_t)total * sizeof *y);
        break;
    case AT_NET_CONCAT: {
        int64_t axis = n->attrs.axis, outer = 1, inner = 1, off = 0;
        for (int64_t d = 0; d < axis; d++) outer *= n->shape[d];
        for (size_t d = (size_t)axis + 1; d < n->ndim; d++) inner *= n->shape[d];
        for (size_t k = 0; k < n->n_inputs; k++) {
            int64_t ck = at_net_node_at(net, n->inputs[k])->shape[axis];
            for (int64_t b = 0; b < outer; b++)
                memcpy(y + (b * n->shape[axis] + off) * inner, in[k] + b * ck * inner, (size_t)(ck * inner) * sizeof *y);
            off += ck;
        }
        break;
    }
    case AT_NET_SOFTMAX:
        softmax(n, x, y);
        break;
    case AT_NET_ACTIVATION:
        at_net_act_ref(n, x, y);
        break;
    case AT_NET_INPUT:
    case AT_NET_OP_COUNT:
        AT_ASSERT(!"input nodes are not run");
    }
}

at_status at_net_run_reference(const at_net *net, const float *input, bool keep_all, at_net_values **out)
{
    *out = NULL;
    if (!at_net_has_params(net)) return AT_FAIL(AT_EINVAL, "network %s was built without parameters", at_net_name(net));
    size_t n = at_net_n_nodes(net), last = at_net_output(net);
    at_net_values *v = at_calloc(1, sizeof *v);
    size_t *left = at_calloc(n, sizeof *left);
    if (v) v->v = at_calloc(n, sizeof *v->v);
    if (!v || !v->v || !left) {
        at_free(left);
        at_net_values_free(v);
        return AT_OOM();
    }
    v->n = n;
    for (size_t i = 0; i < n; i++) left[i] = at_net_n_uses(net, i);
    at_status st = AT_OK;
    v->v[0] = at_net_floats_dup(input, at_net_node_numel(at_net_node_at(net, 0)));
    if (!v->v[0]) st = AT_OOM();
    for (size_t i = 1; st == AT_OK && i < n; i++) {
        const at_net_node *node = at_net_node_at(net, i);
        if (!(v->v[i] = at_net_floats(at_net_node_numel(node)))) {
            st = AT_OOM();
            break;
        }
        const float *in[AT_NET_MAX_INPUTS];
        for (size_t k = 0; k < node->n_inputs; k++) in[k] = v->v[node->inputs[k]];
        run_node(net, node, in, v->v[i]);
        for (size_t k = 0; !keep_all && k < node->n_inputs; k++) {
            size_t p = node->inputs[k];
            if (--left[p] == 0 && p != last) {
                at_free(v->v[p]);
                v->v[p] = NULL;
            }
        }
    }
    at_free(left);
    if (st != AT_OK) {
        at_net_values_free(v);
        return st;
    }
    *out = v;
    return AT_OK;
}
