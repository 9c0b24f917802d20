/* Networks as graphs of layers, the way TVM's relay.testing builds them (spec/templates_vta.md
 * §3): nodes in topological order (every input is an earlier node), each with its output shape,
 * attributes and parameters (float32, deterministic pseudo-random values from a seed).
 *
 * Two forms of the same network:
 * - as built: relay's operators one per node (conv2d without bias, batch_norm, bias_add, relu,
 *   add, dropout, ...), exactly the layer structure of relay.testing;
 * - fused (at_net_fuse): what TVM compiles at opt_level 3 (SimplifyInference, FoldScaleAxis,
 *   FuseOps). Every conv2d / dense is an "anchor": the one op a tuned task computes, followed
 *   by an epilogue descriptor for the element-wise ops TVM fuses after it, applied in this
 *   order: + bias[c] (a bias_add, or a batch_norm folded into the weights), + residual (an add
 *   whose other operand is node input 1), then relu. A batch_norm that cannot be folded into the
 *   conv before it (pre-activation BN -> relu -> conv, or BN on the network input) becomes a
 *   SCALE_SHIFT node (x * scale[c] + shift[c], relu fused when one follows); dropout (identity
 *   at inference) disappears. Task extraction and the executors work on the fused form.
 *
 * Layout NCHW, kernels OIHW, dtype float32 throughout (relay.testing's defaults). */
#ifndef AT_NETWORKS_NET_H
#define AT_NETWORKS_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef enum at_net_op {
    AT_NET_INPUT = 0,         /* the network input "data", 4-D */
    AT_NET_CONV2D,            /* nn.conv2d: groups 1, depthwise (groups == in == out channels) or grouped; anchor */
    AT_NET_DENSE,             /* nn.dense on a 2-D input, weight [units, K]; anchor */
    AT_NET_BATCH_NORM,        /* nn.batch_norm (inference, output 0) on axis 1 */
    AT_NET_BIAS_ADD,          /* nn.bias_add on axis 1 */
    AT_NET_RELU,              /* nn.relu */
    AT_NET_ADD,               /* add of two tensors of one shape */
    AT_NET_SCALE_SHIFT,       /* x * scale[c] + shift[c] on axis 1 (then relu if epi.relu; fused graphs only) */
    AT_NET_MAX_POOL2D,        /* nn.max_pool2d (padding never wins the max), attrs.ceil_mode */
    AT_NET_GLOBAL_AVG_POOL2D, /* nn.global_avg_pool2d -> [N, C, 1, 1] */
    AT_NET_BATCH_FLATTEN,     /* nn.batch_flatten -> [N, rest] */
    AT_NET_DROPOUT,           /* nn.dropout: the identity at inference */
    AT_NET_CONCAT,            /* concatenate along attrs.axis (default 1) */
    AT_NET_SOFTMAX,           /* nn.softmax along the last axis */
    AT_NET_ACTIVATION,        /* element-wise y = f(x), f = attrs.act (networks/activation.c) */
    AT_NET_RESHAPE,           /* the same elements in C order as attrs.to_shape (ONNX Reshape, Squeeze, ...) */
    AT_NET_BINARY,            /* inputs[0] attrs.bin inputs[1], numpy broadcasting (each extent equal or 1) */
    AT_NET_CONSTANT,          /* no inputs: a tensor of shape attrs.to_shape whose values are its weight */
    AT_NET_AVG_POOL2D,        /* nn.avg_pool2d: attrs.count_include_pad, attrs.ceil_mode */
    AT_NET_PAD,               /* nn.pad by attrs.pad_nd in attrs.pad_mode (constant: attrs.alpha); negative pads crop */
    AT_NET_REDUCE_MEAN,       /* mean over the axes of attrs.axes, each kept as an extent of 1 */
    AT_NET_TRANSPOSE,         /* transpose: output axis k is input axis attrs.perm[k] */
    AT_NET_RESIZE,            /* image.resize2d of a 4-D NCHW tensor's H and W (attrs.resize) */
    AT_NET_CONV2D_TRANSPOSE,  /* nn.conv2d_transpose, groups 1: not an anchor (no tuning template) */
    AT_NET_OP_COUNT
} at_net_op;

/* Relay-style name of an op ("nn.conv2d", "add", "input"); AT_ASSERT a valid op. */
const char *at_net_op_name(at_net_op op);

/* True for the ops a tuned task computes (conv2d, dense). */
bool at_net_op_is_anchor(at_net_op op);

/* The functions of AT_NET_ACTIVATION nodes (ONNX's names; a, b = attrs.alpha, attrs.beta). */
typedef enum at_net_act {
    AT_NET_ACT_CLIP = 0,     /* min(max(x, a), b) (relu6: a = 0, b = 6) */
    AT_NET_ACT_SIGMOID,      /* 1 / (1 + exp(-x)) */
    AT_NET_ACT_HARD_SIGMOID, /* max(0, min(1, a * x + b)) */
    AT_NET_ACT_HARD_SWISH,   /* x * max(0, min(1, x / 6 + 0.5)) */
    AT_NET_ACT_LEAKY_RELU,   /* x >= 0 ? x : a * x */
    AT_NET_ACT_COUNT
} at_net_act;

/* Name of an activation ("clip", "sigmoid", ...); AT_ASSERT a valid one. */
const char *at_net_act_name(at_net_act act);

/* The operations of AT_NET_BINARY nodes. */
typedef enum at_net_bin {
    AT_NET_BIN_ADD = 0, AT_NET_BIN_SUB, AT_NET_BIN_MUL, AT_NET_BIN_DIV, AT_NET_BIN_COUNT
} at_net_bin;

/* How AT_NET_PAD fills (ONNX Pad's modes). */
typedef enum at_net_pad_mode {
    AT_NET_PAD_CONSTANT = 0, /* attrs.alpha */
    AT_NET_PAD_EDGE,         /* the nearest input element */
    AT_NET_PAD_REFLECT,      /* mirrored without repeating the edge (pads smaller than the extent) */
    AT_NET_PAD_MODE_COUNT
} at_net_pad_mode;

/* How AT_NET_RESIZE samples (ONNX Resize's mode and nearest_mode). */
typedef enum at_net_resize_mode { AT_NET_RESIZE_NEAREST = 0, AT_NET_RESIZE_LINEAR } at_net_resize_mode;
typedef enum at_net_round {
    AT_NET_ROUND_PREFER_FLOOR = 0, AT_NET_ROUND_PREFER_CEIL, AT_NET_ROUND_FLOOR, AT_NET_ROUND_CEIL
} at_net_round;

/* resize: per spatial axis k (0: H, 1: W) the output extent out[k] and the source coordinate of
 * output coordinate o, x = ((o + a[k]) * p[k]) / q[k] + b[k] in double (every ONNX
 * coordinate_transformation_mode but tf_crop_and_resize is this form). nearest: x's integer
 * part when x is whole, else rounded by round; linear: (1 - r) v[floor x] + r v[floor x + 1],
 * r = x - floor x, rows first; either way indices clamped to the input (ONNX's edge padding). */
typedef struct at_net_resize {
    at_net_resize_mode mode;
    at_net_round       round;
    int64_t            out[2];
    double             a[2], p[2], q[2], b[2];
} at_net_resize;

/* Attributes of a node; zero fields take the defaults noted (relay's). */
typedef struct at_net_attrs {
    int64_t channels;    /* conv2d output channels, dense units */
    int64_t kernel[2];   /* conv2d kernel size, max_pool2d pool size */
    int64_t stride[2];   /* 0 -> 1 */
    int64_t pad[4];      /* top, left, bottom, right */
    int64_t dilation[2]; /* 0 -> 1 */
    int64_t groups;      /* 0 -> 1; conv2d: 1, the input channels (depthwise) or any count dividing both channels */
    double  eps;         /* batch_norm epsilon; 0 -> 1e-5 */
    bool    no_scale;    /* batch_norm scale=False: gamma is not applied */
    at_net_act act;      /* activation: the function */
    double  alpha, beta; /* activation: its parameters (at_net_act) */
    int64_t to_shape[4]; /* reshape, constant: the new shape, to_ndim (2 or 4) extents */
    size_t  to_ndim;
    at_net_bin bin;          /* binary: the operation */
    bool    ceil_mode;       /* max/avg_pool2d: extents rounded up; a window starting past the padded input is dropped */
    bool    count_include_pad; /* avg_pool2d: padded positions (not those ceil_mode adds) count in the divisor */
    int64_t axis;            /* concatenate: 0 -> 1 (relay's channel concat); negative counts from the end */
    int64_t pad_nd[8];       /* pad: before axes 0..ndim-1 in [0..4), after them in [4..8) */
    at_net_pad_mode pad_mode;
    int64_t perm[4];         /* transpose: a permutation of 0..ndim-1 */
    unsigned axes;           /* reduce_mean: bit k reduces axis k (at least one bit) */
    at_net_resize resize;    /* resize */
    int64_t out_size[2];     /* conv2d_transpose: output H, W (kernel, stride, dilation, channels and
                                the begin pads pad[0], pad[1] as conv2d's; the rest is implied) */
} at_net_attrs;

/* Element-wise ops fused after an anchor (or a SCALE_SHIFT), applied in field order. */
typedef struct at_net_epilogue {
    bool bias;           /* + bias[c] (c = axis 1) */
    bool residual;       /* + inputs[1], a tensor of the output's shape */
    bool relu;           /* max(x, 0), last */
    /* The residual operand came first in the add (add(x, conv(...))): TVM's fused function then
     * takes it before the conv's data, which orders lowering (task extraction). */
    bool residual_first;
} at_net_epilogue;

#define AT_NET_MAX_INPUTS 64

typedef struct at_net_node {
    at_net_op       op;
    char           *name;   /* relay.testing's layer name ("stage1_unit1_conv1"); owned */
    size_t          n_inputs;
    size_t          inputs[AT_NET_MAX_INPUTS]; /* indices of earlier nodes */
    size_t          ndim;   /* 2 or 4 */
    int64_t         shape[4];
    at_net_attrs    attrs;  /* defaults filled in */
    at_net_epilogue epi;    /* fused graphs: conv2d, dense, scale_shift */
    /* Parameters (NULL when the network was built without them), owned by the node:
     * weight  conv2d [channels, C_in / groups, KH, KW], dense [units, K], constant [its shape],
     *         conv2d_transpose [C_in, channels, KH, KW];
     * bias    [channels] for bias_add, and for conv2d / dense when epi.bias;
     * gamma, beta, mean, var  batch_norm [C] (gamma unused when attrs.no_scale);
     * scale, shift            scale_shift [C] (unfused graphs may hold it: a per-channel Mul / Div). */
    float *weight, *bias, *gamma, *beta, *mean, *var, *scale, *shift;
} at_net_node;

typedef struct at_net at_net;

/* ---- building -------------------------------------------------------------------------------- */

/* A network holding only its input node 0 ("data", NCHW shape). With params, every node added
 * gets its parameters at once: weights uniform in +-sqrt(6 / fan_in), biases and BN shifts and
 * means uniform in +-0.1, BN gammas and variances uniform in [0.8, 1.2], each tensor from its own
 * at_rng seeded by (seed, node name, parameter), so values do not depend on build order.
 * *out owned by the caller (at_net_free). AT_EINVAL (an extent < 1), AT_ENOMEM. */
at_status at_net_new(const char *name, const int64_t shape[4], bool params, uint64_t seed, at_net **out);

void at_net_free(at_net *net);

/* Appends a node of op with inputs[0..n_inputs) (earlier nodes) and attrs (NULL: all defaults),
 * computes its shape and, when the network has parameters, creates them. *out (may be NULL) =
 * its index. AT_EINVAL (wrong input count or rank, shapes that do not fit, an output extent < 1,
 * a group count not dividing both channel counts or a depthwise channel multiplier, AT_NET_INPUT, which only at_net_new creates),
 * AT_ENOMEM. A scale_shift appended to an unfused graph gets scale 1, shift 0 (no draw) and no relu. The network is unchanged on failure. */
at_status at_net_append(at_net *net, at_net_op op, const char *name, const size_t *inputs, size_t n_inputs,
                        const at_net_attrs *attrs, size_t *out);

/* The parameters of a node, for at_net_set_param. */
typedef enum at_net_param {
    AT_NET_WEIGHT = 0, AT_NET_BIAS, AT_NET_GAMMA, AT_NET_BETA, AT_NET_MEAN, AT_NET_VAR, AT_NET_SCALE, AT_NET_SHIFT,
    AT_NET_PARAM_COUNT
} at_net_param;

/* Number of elements of parameter p of node i (0 when the node has no such parameter). */
int64_t at_net_param_numel(const at_net *net, size_t i, at_net_param p);

/* Overwrites parameter p of node i with values[0 .. at_net_param_numel) (real weights, or known
 * values in tests). AT_EINVAL (the network has no parameters, the node has no such parameter),
 * AT_ASSERT i < count. */
at_status at_net_set_param(at_net *net, size_t i, at_net_param p, const float *values);

/* ---- the relay.testing networks (networks/zoo.c) -------------------------------------------- */

/* Options of at_net_build; zero means the default. */
typedef struct at_net_opts {
    int64_t  batch;          /* 0 -> 1 */
    int64_t  image_shape[3]; /* C, H, W; zeros -> 3, 224, 224 */
    int64_t  num_classes;    /* 0 -> 1000 */
    bool     params;         /* create parameters (the executors need them; extraction does not) */
    uint64_t seed;           /* parameter values */
    /* ONNX models (a name ending in ".onnx", networks/onnx.c): the input's shape, overriding or
     * filling the model's symbolic dims (--input-shape NAME=1,3,224,224); input_rank 0 keeps
     * the model's shape (a symbolic batch dim takes batch). input_name NULL: the first input. */
    const char *input_name;
    int64_t     input_shape[4];
    size_t      input_rank;
} at_net_opts;

/* Builds network `name` as relay.testing's get_workload does (unfused form): "resnet-N" (N = 18,
 * 34, 50, 101, 152, 200, 269; inputs of height <= 28 give the 3-stage CIFAR variant, N = 20, 32,
 * 44, 56, 110 ...), "mobilenet", "vgg-N" (11, 13, 16, 19), "squeezenet_v1.0", "squeezenet_v1.1"; a path ending in ".onnx"
 * imports that model (at_net_onnx_import, whose statuses it returns). *out owned by the caller. AT_ENOTFOUND (unknown name: the detail lists the names), AT_EINVAL
 * (options the network cannot take: a depth with no unit table, an input too small for its
 * pooling), AT_ENOMEM. */
at_status at_net_build(const char *name, const at_net_opts *opts, at_net **out);

/* at_net_build then at_net_fuse: the form extraction and the executors take. Statuses as both. */
at_status at_net_load(const char *name, const at_net_opts *opts, at_net **out);

/* The names at_net_build knows, one per family member, for --help (static). */
size_t      at_net_zoo_count(void);
const char *at_net_zoo_name(size_t i);

/* ---- ONNX import (networks/onnx.c, onnx_ops.c) ------------------------------------------- */

/* Extra import options, for the official node tests: their operands other than the first
 * input are graph inputs whose values ship beside the model (input_1.pb, ...). */
typedef struct at_net_onnx_opts {
    /* serialized TensorProtos bound, as constants, to the graph's 2nd, 3rd, ... inputs */
    const uint8_t *const *bound;
    const size_t         *bound_len;
    size_t                n_bound;
} at_net_onnx_opts;

/* Imports the ONNX model in bytes[0..len) (label names it in errors; dir, may be NULL, is the
 * folder its external data files are resolved in: a location leaving it is refused) as an
 * unfused network with the model's weights (net->params true). Opsets 7-18; the operators
 * README's table lists. Constant subgraphs are folded at import. *out owned by the caller.
 * AT_EPARSE (not an ONNX model, truncated), AT_EUNSUPPORTED (an operator, attribute or shape
 * the graph cannot hold: "m.onnx: node 'Einsum_12' (Einsum, opset 13): operator not
 * supported"), AT_EINVAL (a missing initializer, shapes that do not fit), AT_EIO, AT_ENOMEM. */
at_status at_net_onnx_parse(const uint8_t *bytes, size_t len, const char *label, const char *dir,
                            const at_net_opts *opts, const at_net_onnx_opts *xo, at_net **out);

/* Reads path and imports it (at_net_onnx_parse, dir = path's folder). AT_EIO, and as above. */
at_status at_net_onnx_import(const char *path, const at_net_opts *opts, at_net **out);

/* The ONNX input shape of an imported network (its rank and dims; the graph pads ranks below 4
 * with leading 1s) and of its output, for .npy files. rank 0 for zoo networks. */
size_t at_net_onnx_rank(const at_net *net, bool output, int64_t dims[4]);

/* ---- numpy .npy files (networks/npy.c) ---------------------------------------------------- */

/* Reads a .npy file of float32 ('<f4', C order, version 1-3). *data at_malloc'ed (caller frees),
 * dims[0..*rank) its shape (rank <= 8). AT_EIO, AT_EPARSE (not .npy, another dtype, Fortran
 * order, a size the header does not give), AT_ENOMEM. */
at_status at_net_npy_read(const char *path, float **data, int64_t dims[8], size_t *rank);

/* Writes data (prod(dims) floats) as a version 1.0 .npy file of '<f4'. AT_EIO. */
at_status at_net_npy_write(const char *path, const float *data, const int64_t *dims, size_t rank);

/* ---- fusion (networks/fuse.c) -------------------------------------------------------------- */

/* The fused form of net (a new network; net is unchanged). Groups form in node order; an op
 * joins the group of its producer only when the producer's value has no other consumer:
 * - batch_norm after an anchor whose epilogue has no residual or relu yet is folded into it
 *   (weight *= s per output channel with s = gamma / sqrt(var + eps); bias = bias * s + beta -
 *   mean * s); after a scale_shift without relu it composes with it; any other batch_norm
 *   becomes a scale_shift (x * s + beta - mean * s);
 * - bias_add joins an anchor with an empty epilogue, or is added into a scale_shift's shift;
 * - add joins the first of its operands that is an anchor without residual or relu yet (TVM's
 *   FuseOps takes the earlier one), the other operand becoming the residual input;
 * - relu joins an anchor or scale_shift without relu; dropout is removed;
 * - anything else is copied (a relu, add or bias_add that cannot join stays a node of its own).
 * Groups are then emitted in the order TVM lowers its fused functions (post-order from the
 * output, a group's inputs in its fused function's parameter order), which makes the fused
 * node order the task extraction order; nodes the output does not depend on are dropped.
 * Parameters are carried (folded) when net has them; a fused node keeps its first op's name.
 * *out owned by the caller. AT_EINVAL (net is already fused), AT_ENOMEM. */
at_status at_net_fuse(const at_net *net, at_net **out);

/* ---- queries ---------------------------------------------------------------------------------- */

const char        *at_net_name(const at_net *net);
size_t             at_net_n_nodes(const at_net *net);
/* Node i (AT_ASSERT i < count), borrowed until at_net_free; its fields must not be changed. */
const at_net_node *at_net_node_at(const at_net *net, size_t i);
/* The output node: the last one. */
size_t             at_net_output(const at_net *net);
bool               at_net_has_params(const at_net *net);
bool               at_net_is_fused(const at_net *net);
/* Elements of a node's output. */
int64_t            at_net_node_numel(const at_net_node *n);
/* Index of the node named name, or SIZE_MAX. */
size_t             at_net_find(const at_net *net, const char *name);
/* Number of nodes that take node i as an input (its consumers, each counted once per use). */
size_t             at_net_n_uses(const at_net *net, size_t i);

#endif
