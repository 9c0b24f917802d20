/* The quantized, graph-packed resnet18_v1 that the VTA tutorials compile (spec/templates_vta.md
 * §5.6, §6): Gluon's post-activation ResNet v1 (conv-BN-ReLU, 1x1 strided projections in stages
 * 2-4) with deterministic synthetic weights (no MXNet), quantized the way relay.quantize does it
 * with qconfig(global_scale=8, skip_conv_layers=[0]) and packed by graph_pack between
 * nn.max_pool2d and nn.global_avg_pool2d:
 *
 * - CPU, float: the 7x7 stride-2 stem conv (BN folded) + relu, then quantization to int8 at the
 *   input scale 2^-4 (x * 16, rounded upward, clipped to +-127), max_pool2d 3x3/2 on int8, packing
 *   to NCHW1n16c;
 * - the packed region (NCHW1n16c activations, OIHW16o16i weights), one layer per fused function:
 *   conv layers  int8 x int8 -> int32 conv, + int32 bias (per output channel, at the accumulator
 *                scale 2^-4 * 2^(w_exp-7)), relu when the layer has one, requant
 *                (acc + 2^(s-1)) >> s with s = 7 - w_exp, clip [-127, 127], cast int8;
 *   add layers   residual add: both int8 operands cast to int32 and left-shifted to the smaller
 *                scale, add, relu, requant (clip [-127, 127], cast int8);
 * - CPU, float: unpack, dequantize (x 2^-4), global_avg_pool2d, dense (+ bias) -> logits.
 * Weight scales are powers of two, 2^(ceil(log2 max|w|) - 7) per layer (weight_scale "power2").
 *
 * The task list is TVM's extract_from_program over that program: the packed convs as
 * conv2d_packed.vta tasks (and, with the ALU ops, the residual adds as add.vta tasks when that
 * template is registered) in lowering order -- a pre-order walk from the output that visits a
 * fused function before its arguments, arguments in call order (the residual operand first, as
 * Gluon writes residual + x) -- exact duplicates removed. That order is the tutorial's. */
#ifndef AT_NETWORKS_VTA_H
#define AT_NETWORKS_VTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "networks/net.h"
#include "templates/template.h"

enum {
    AT_NET_VTA_BLOCK = 16,
    AT_NET_VTA_INPUT_SHIFT = 4, /* int8 activations: x = q * 2^-4 */
    AT_NET_VTA_STEM_C = 64,     /* the stem conv's output channels (the host layers are built for it) */
    AT_NET_VTA_MAX_FEAT = 4096  /* channels of the last packed value (the head's features) */
};

typedef enum at_net_vta_kind { AT_NET_VTA_CONV = 0, AT_NET_VTA_ADD } at_net_vta_kind;

/* One layer of the packed region. Values: 0 is the packed max_pool2d output, layer i writes value
 * i + 1; every value is int8 (1, C/16, H, W, 1, 16). */
typedef struct at_net_vta_layer {
    at_net_vta_kind kind;
    char            name[40];  /* "stage2_unit1_conv1", "..._conv2", "..._downsample", "..._add" */
    size_t          in[2];     /* values read: conv in[0]; add in[0], in[1] in the add's call order
                                  (the zoo: residual first, as Gluon writes residual + x) */
    int64_t         c_b, h, w; /* input channel blocks, rows, columns */
    int64_t         co_b, oh, ow;
    int64_t         k, stride, pad;  /* conv: square kernel, stride and symmetric padding */
    int8_t         *weight;   /* conv: OIHW16o16i [co_b][c_b][k][k][16][16]; owned */
    int32_t        *bias;     /* conv: [co_b * 16] at the accumulator scale; owned */
    int             w_exp;    /* conv: weights scale 2^(w_exp - 7) */
    int             lshift[2];/* add: left shifts of the operands (0 when the scales agree) */
    int             shift;    /* requant: (x + 2^(shift-1)) >> shift; 0: none */
    bool            relu;
} at_net_vta_layer;

/* Options; zero means the default. */
typedef struct at_net_vta_opts {
    int64_t  image_hw;    /* input height = width; 0 -> 224 (a multiple of 32) */
    int64_t  num_classes; /* 0 -> 1000 */
    uint64_t seed;        /* weights */
    bool     no_weights;  /* shapes and tasks only (extraction, tuning): no parameters, and the
                             executors refuse the network */
    /* ONNX models: the input's shape as at_net_opts takes it (--input-shape NAME=1,3,224,224);
     * input_rank 0 keeps the model's, or gives [1, 3, image_hw, image_hw] when image_hw is set.
     * num_classes does not apply (the model's dense layer has its own). */
    const char *input_name;
    int64_t     input_shape[4];
    size_t      input_rank;
} at_net_vta_opts;

typedef struct at_net_vta at_net_vta;

/* Builds network `name` ("resnet-18" or "resnet18_v1"; a path ending in ".onnx": at_net_vta_import)
 * with weights and its task list. *out owned by the caller (at_net_vta_free). AT_ENOTFOUND (another
 * name), AT_EINVAL (an image size that is not a positive multiple of 32, a weight scale whose
 * requant shift leaves 1..15), AT_ENOMEM, and at_task_new's statuses. */
at_status at_net_vta_build(const char *name, const at_net_vta_opts *opts, at_net_vta **out);
void      at_net_vta_free(at_net_vta *n);

/* True for the names at_net_vta_build knows (the zoo's and any "*.onnx" path). */
bool at_net_vta_knows(const char *name);
/* True for a name ending in ".onnx". */
bool at_net_vta_is_onnx(const char *name);

/* ---- imported models (networks/vta_onnx.c) ------------------------------------------------- */

/* Lowers a fused network (at_net_fuse; an imported ONNX model) to the VTA form when it quantizes
 * as the zoo's resnet18_v1 does: input [1, 3, N, N] (N a multiple of 4); the stem conv 3 -> 64
 * 7x7/2 pad 3 (+ bias) + relu kept in float on the CPU; max_pool2d 3x3/2 pad 1; then the packed
 * region, int8 convs (groups 1, channels multiples of 16, square kernel, one stride, symmetric
 * padding, no dilation; + bias, relu) and adds of two packed values (relu after either kind), a
 * conv's fused residual add becoming a layer of its own; global_avg_pool2d of the last packed
 * value, flatten, and the output dense (+ bias) on the CPU. Weights (folded BN) quantize as the
 * zoo's; the tasks are the same walk, so an equal layer structure gives equal tasks.
 * opts: no_weights only (the shape came with net). *out owned by the caller.
 * AT_EUNSUPPORTED: a node outside that form, one line naming the network, the node, its op and
 * why ("m.onnx: node 'Sigmoid_4' (sigmoid): not quantizable for VTA: ..."); AT_EINVAL (weight
 * scales outside the requant range, more than 64 packed layers), AT_ENOMEM. */
at_status at_net_vta_from_net(const at_net *net, const at_net_vta_opts *opts, at_net_vta **out);

/* Imports path (at_net_load with opts' input shape) and lowers it (at_net_vta_from_net). Statuses
 * as both. */
at_status at_net_vta_import(const char *path, const at_net_vta_opts *opts, at_net_vta **out);

/* True for "vta" and for TVM target strings of the VTA device ("ext_dev -device=vta ..."): the
 * CLI's --target values that select this network form. */
bool at_net_vta_target_is(const char *text);

size_t                  at_net_vta_n_layers(const at_net_vta *n);
/* Layer i (AT_ASSERT i < count), borrowed until at_net_vta_free. */
const at_net_vta_layer *at_net_vta_layer_at(const at_net_vta *n, size_t i);
/* Elements of value v (0 .. n_layers): 16 * C/16 * H * W. */
int64_t at_net_vta_value_numel(const at_net_vta *n, size_t v);
/* Input image (3, H, W) floats, logits, and the head's features (the last value's channels). */
int64_t at_net_vta_image_numel(const at_net_vta *n);
int64_t at_net_vta_num_classes(const at_net_vta *n);
int64_t at_net_vta_feat(const at_net_vta *n);

/* ---- tasks ----------------------------------------------------------------------------------- */

/* Ops of the task list: the packed convs (the tutorial's ops=(nn.conv2d,)), the ALU ops. */
enum { AT_NET_VTA_OPS_CONV2D = 1u << 0, AT_NET_VTA_OPS_ALU = 1u << 1 };

/* Tasks in extraction order, conv and ALU interleaved as lowered; at_net_vta_task_is_alu says
 * which. The ALU tasks exist only when add.vta is registered. */
size_t         at_net_vta_n_tasks(const at_net_vta *n);
const at_task *at_net_vta_task(const at_net_vta *n, size_t i);
bool           at_net_vta_task_is_alu(const at_net_vta *n, size_t i);
/* Task i's args as a log stores them (json.dumps text); borrowed. */
const char    *at_net_vta_task_args_json(const at_net_vta *n, size_t i);
/* The task of layer i, SIZE_MAX when it has none (an add without add.vta). */
size_t         at_net_vta_layer_task(const at_net_vta *n, size_t layer);

/* ---- the reference executor and the CPU layers (networks/vta_reference.c) ------------------- */

/* The CPU layers and at_net_vta_layer_ref need the weights (at_net_vta_has_weights; AT_ASSERT). */
/* Stem on the CPU: image (3, H, W) float -> value 0 (packed int8). AT_OK or AT_ENOMEM (scratch). */
at_status at_net_vta_stem(const at_net_vta *n, const float *image, int8_t *value0);
/* Head on the CPU: the last value (packed int8) -> logits (num_classes floats). */
void at_net_vta_head(const at_net_vta *n, const int8_t *last, float *logits);

/* The host layers one by one (at_net_vta_stem and at_net_vta_head are these in order; the VTA
 * executor times them separately and checks its LLVM-compiled ones against them):
 * - the stem conv's output side (image H / 2): at_net_vta_stem_hw;
 * - its weights transposed to [147 taps][64 channels] (*out owned by the caller, at_free; AT_OK
 *   or AT_ENOMEM) and the conv 7x7/2 pad 3 + bias in float, each channel summed from its bias in
 *   (c, ky, kx) tap order: conv [64][oh][oh];
 * - relu + quantize to int8 at 2^-4 (at_net_vta_quantize: floor(16 max(x, 0) + 0.5) in double,
 *   clipped to +-127): q [64][oh][oh];
 * - max_pool2d 3x3/2 pad 1 on int8 and packing to NCHW1n16c: value 0;
 * - unpack + dequantize + global_avg_pool2d (exact integer sums, then / 16 / plane in double):
 *   feat [at_net_vta_feat];
 * - dense + bias with double accumulation: logits [num_classes]. */
/* Stem conv 7x7/2 weights [64][3][7][7] (BN folded; *bias [64]) and the image size; dense
 * weights [classes][feat] and *bias [classes]; borrowed (AT_ASSERT at_net_vta_has_weights). */
const float *at_net_vta_stem_params(const at_net_vta *n, const float **bias, int64_t *hw);
const float *at_net_vta_dense_params(const at_net_vta *n, const float **bias);
int64_t   at_net_vta_stem_hw(const at_net_vta *n);
at_status at_net_vta_stem_weights_t(const at_net_vta *n, float **out);
void      at_net_vta_stem_conv(const at_net_vta *n, const float *image, const float *wt, float *conv);
int8_t    at_net_vta_quantize(float x);
void      at_net_vta_stem_quantize(const at_net_vta *n, const float *conv, int8_t *q);
void      at_net_vta_stem_pool(const at_net_vta *n, const int8_t *q, int8_t *value0);
void      at_net_vta_head_pool(const at_net_vta *n, const int8_t *last, float *feat);
void      at_net_vta_head_dense(const at_net_vta *n, const float *feat, float *logits);
/* One packed-region layer in naive C with exact int32 arithmetic: conv (in[0] = its input) or add
 * (in[0], in[1]); out has at_net_vta_value_numel(n, layer + 1) elements. AT_OK or AT_ENOMEM. */
at_status at_net_vta_layer_ref(const at_net_vta_layer *l, const int8_t *const in[2], int8_t *out);

/* The quantized int32 accumulators of a conv layer before its epilogue (tests compare the
 * packed computation with an unpacked one): acc[co_b][oh][ow][16]. */
void at_net_vta_conv_acc(const at_net_vta_layer *l, const int8_t *in, int32_t *acc);

/* True when the network was built with its parameters (not no_weights). */
bool at_net_vta_has_weights(const at_net_vta *n);

/* A whole inference: stem, every layer, head. values (optional) gets every value (caller frees
 * with at_net_vta_values_fini). AT_EINVAL (built with no_weights), AT_ENOMEM. */
typedef struct at_net_vta_values {
    size_t   n;      /* n_layers + 1 */
    int8_t **v;      /* v[i]: value i */
} at_net_vta_values;

at_status at_net_vta_run_reference(const at_net_vta *n, const float *image, float *logits, at_net_vta_values *values);
void      at_net_vta_values_fini(at_net_vta_values *v);

/* The image at_tune / the CLI feed the network: uniform in [0, 1) from seed (3*H*W floats). */
void at_net_vta_fill_image(const at_net_vta *n, uint64_t seed, float *image);

#endif
