/* Operator kinds: per kind, the argument struct and its workload JSON (TVM's serialize_args),
 * the tensors of its signature, FLOPs, the unscheduled compute (IR) and the naive reference
 * implementation that measure/ and the tests use as the correctness oracle. A template only
 * schedules; everything here is shared by every template of the op. */
#ifndef AT_TEMPLATES_OPS_H
#define AT_TEMPLATES_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "ir/ir.h"

typedef enum at_op_kind {
    AT_OP_MATMUL = 0,
    AT_OP_CONV2D_NCHW,          /* topi conv2d NCHW/OIHW (spatial-pack compute, compute_flop count) */
    AT_OP_CONV2D_NCHW_WINOGRAD, /* the same convolution through Winograd (add_flop count: no pad term) */
    AT_OP_DEPTHWISE_CONV2D_NCHW,
    AT_OP_DENSE,
    AT_OP_CONV2D_PACKED,        /* VTA conv2d_packed (NCHWnc int8) + the tuning template's >>8, clip, cast */
    AT_OP_ADD_PACKED,           /* VTA add of two packed tensors + the tuning template's clip, cast */
    AT_OP_MULTIPLY_PACKED,      /* VTA multiply of two packed tensors + the tuning template's clip, cast */
    AT_OP_COUNT
} at_op_kind;

/* C[n, m] = sum_k A[n, k] * B[k, m] with k < l (the tutorial's matmul(N, L, M, dtype)). */
typedef struct at_matmul_args {
    int64_t    n, l, m;
    at_ir_type dtype;
} at_matmul_args;

/* How a workload wrote strides / dilation ([h, w] or a bare int) and padding ([top, left, bottom,
 * right], [h, w] or a bare int), kept so the workload is written back byte for byte. Zero is
 * relay's form (lists, padding of 4). */
typedef enum at_args_form { AT_FORM_LIST = 0, AT_FORM_INT, AT_FORM_PAIR } at_args_form;

/* conv2d_nchw, conv2d_nchw_winograd and depthwise_conv2d_nchw: TVM's workload (data, kernel,
 * strides, padding, dilation, out_dtype). */
typedef struct at_conv2d_args {
    int64_t      data[4];     /* N, C, H, W */
    int64_t      kernel[4];   /* conv2d OIHW: CO, CI, KH, KW; depthwise: C, multiplier, KH, KW */
    int64_t      stride[2];   /* h, w */
    int64_t      pad[4];      /* top, left, bottom, right (TVM's get_pad_tuple of what was written) */
    int64_t      dilation[2]; /* h, w */
    at_args_form stride_form, pad_form, dilation_form; /* AT_FORM_PAIR only for padding */
    bool         out_dtype_null; /* out_dtype written as null: the data dtype */
    at_ir_type   dtype, kernel_dtype, out_dtype;
} at_conv2d_args;

/* The derived sizes of a convolution (TVM's compute: dilated kernel, output and padded input). */
typedef struct at_conv2d_geom {
    int64_t n, ci, ih, iw;    /* data */
    int64_t co, kh, kw, mult; /* output channels (depthwise: C * multiplier), kernel; mult 1 for conv2d */
    int64_t sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;
    int64_t khd, kwd;         /* dilated kernel extent (KH - 1) * dh + 1 */
    int64_t oh, ow;
    int64_t ihp, iwp;         /* padded input IH + pt + pb */
} at_conv2d_geom;

/* dense: TVM's workload (data, weight, bias, out_dtype), out[m, n] = sum_k data[m, k] weight[n, k]. */
typedef struct at_dense_args {
    int64_t    m, n, k;
    bool       has_bias;       /* bias [n] (workloads of TVM <= 0.6, as TopHub's); v0.18 passes null */
    bool       out_dtype_null; /* out_dtype written as null: the data dtype */
    at_ir_type dtype, weight_dtype, bias_dtype, out_dtype;
} at_dense_args;

enum { AT_ALU_PACKED_MAX_DIMS = 6 };

/* conv2d_packed (VTA): TVM's workload (data, kernel, strides, padding, dilation, layout[, kernel
 * layout], out_dtype). data (N/B, CI/BI, H, W, B, BI), kernel (CO/BO, CI/BI, KH, KW, BO, BI), both
 * int8; B = data[4] (BATCH), BI = data[5] = kernel[5] (BLOCK_IN), BO = kernel[4] (BLOCK_OUT). The
 * computed output is what the seeds' tuning template returns: (conv >> 8) clipped to [0, 127] and
 * cast to int8, shape (N/B, CO/BO, OH, OW, B, BO); padding uses pad[0] (rows) and pad[1] (columns)
 * on both sides, as vta_conv2d.py does. */
typedef struct at_conv2d_packed_args {
    int64_t    data[6], kernel[6];
    int64_t    stride[2], pad[4], dilation[2];
    char       layout[16], kernel_layout[16]; /* kernel_layout "" when the workload has one layout */
    at_ir_type dtype, kernel_dtype, out_dtype;
} at_conv2d_packed_args;

/* Derived sizes of a conv2d_packed (in blocks where named _b). */
typedef struct at_conv2d_packed_geom {
    int64_t n_b, ci_b, h, w, batch, block_in; /* data */
    int64_t co_b, kh, kw, block_out;          /* kernel */
    int64_t sh, sw, ph, pw;                   /* stride, symmetric padding */
    int64_t oh, ow;
} at_conv2d_packed_geom;

/* add / multiply (VTA, tune_alu_vta's templates): TVM's workload (lhs, rhs), each
 * ["TENSOR", shape, dtype]. The computed output is what the seeds' templates return:
 * clip(lhs op rhs, 0, 127) cast to int8, shape lhs. The arithmetic is VTA's: both operands are
 * int32 accumulator lanes (int8 tensors are sign-extended by their ACC_8BIT load), the op wraps
 * in int32, the clip is two ALU stages (min 127, max 0) and the cast is the STORE's truncation.
 * rhs has lhs's shape (rhs_ndim 0), or broadcasts to it as topi does (rhs[0..rhs_ndim) aligned
 * to lhs's last dimensions, each 1 or lhs's extent: graph_pack's packed bias (C/16, 1, 1, 1, 16)),
 * or is written with shape [] (rhs_alias): the extra record the tutorial logs for a task whose
 * rhs was a 0-D tensor, which it tunes as rhs = lhs; such a task is the rhs = lhs task in every
 * respect except its workload text. */
typedef struct at_alu_packed_args {
    int64_t    lhs[AT_ALU_PACKED_MAX_DIMS];
    size_t     ndim;      /* 1..6; the VTA schedule needs 6 (N/B, C/BO, H, W, B, BO) */
    bool       rhs_alias; /* rhs written as ["TENSOR", [], dtype] */
    at_ir_type dtype, rhs_dtype;
    int64_t    rhs[AT_ALU_PACKED_MAX_DIMS]; /* a broadcast rhs shape (rhs_ndim > 0) */
    size_t     rhs_ndim;                    /* 0: rhs has lhs's shape */
} at_alu_packed_args;

/* The arguments of one task: the op kind and its fields. */
typedef struct at_args {
    at_op_kind op;
    union {
        at_matmul_args matmul;
        at_conv2d_args conv2d; /* AT_OP_CONV2D_NCHW, AT_OP_CONV2D_NCHW_WINOGRAD, AT_OP_DEPTHWISE_CONV2D_NCHW */
        at_dense_args  dense;
        at_conv2d_packed_args conv2d_packed;
        at_alu_packed_args    alu_packed; /* AT_OP_ADD_PACKED, AT_OP_MULTIPLY_PACKED */
    } u;
} at_args;

#define AT_OP_MAX_TENSORS 8
#define AT_OP_MAX_DIMS 6

/* One tensor of an op's signature (inputs first, then outputs). */
typedef struct at_tensor_desc {
    const char *name; /* static */
    at_ir_type  dtype;
    size_t      ndim;
    int64_t     shape[AT_OP_MAX_DIMS];
    int64_t     n_elems;
    bool        is_output;
} at_tensor_desc;

/* "matmul"; AT_ASSERT a valid kind. */
const char *at_op_name(at_op_kind op);

/* The signature: writes at most AT_OP_MAX_TENSORS descriptors, returns how many. */
size_t at_op_tensors(const at_args *a, at_tensor_desc *out);

/* Checks the arguments (extents >= 1, supported dtype). AT_EINVAL naming the field. */
at_status at_op_check_args(const at_args *a);

/* Appends the arguments as TVM serializes them into a workload, without the brackets:
 * `512, 512, 512, "float32"`. Failure shows in sb->failed. */
void at_op_args_write_json(const at_args *a, at_strbuf *sb);

/* Reads the argument list of a workload (a JSON array without the template name) into *out
 * (out->op = op). AT_EPARSE naming the bad element, AT_EINVAL for values at_op_check_args
 * rejects. */
at_status at_op_args_from_json(at_op_kind op, const cJSON *array, at_args *out);

/* Parses the command-line form: a comma list ("512,512,512" or "512,512,512,float32"; a missing
 * dtype means float32) or a JSON array. AT_EPARSE / AT_EINVAL as above. */
at_status at_op_args_parse(at_op_kind op, const char *text, at_args *out);

/* FLOPs of one run, as TVM's compute_flop counts them (matmul: 2 n l m). */
double at_op_flop(const at_args *a);

/* The unscheduled compute as a program on s (one serial loop nest, single work-item), with the
 * op's signature as parameters. Statuses show in at_ir_sched_status. */
void at_op_compute(const at_args *a, at_ir_sched *s);

/* The naive reference: reads inputs[i] and writes outputs[j] laid out as at_op_tensors says
 * (dtype elements, row-major). Floats accumulate in double. */
void at_op_reference(const at_args *a, const void *const *inputs, void *const *outputs);

/* Tolerance of an output element against the reference: |out - ref| <= atol + rtol * |ref|. */
typedef struct at_op_tolerance {
    double atol, rtol;
} at_op_tolerance;
at_op_tolerance at_op_tolerance_of(const at_args *a);

/* Per-kind entry points, for callers that know the kind. */
void at_op_matmul_compute(const at_matmul_args *a, at_ir_sched *s);
void at_op_matmul_ref(const at_matmul_args *a, const void *A, const void *B, void *C);

/* ---- conv2d / winograd / depthwise (templates/ops_conv2d.c) --------------------------------- */

/* The derived sizes of a convolution of kind op (AT_OP_DEPTHWISE_CONV2D_NCHW or a conv2d kind);
 * the args need not be checked (sizes may come out < 1). */
void at_op_conv2d_geom(at_op_kind op, const at_conv2d_args *a, at_conv2d_geom *out);

/* Winograd tile size m of a workload: 4 when the input height is a multiple of 4, else 2 (TVM's
 * _pick_tile_size for Mali); alpha = m + 2. */
int at_op_winograd_tile(const at_conv2d_args *a);

/* The Cook-Toom matrices TVM's winograd_transform_matrices(m, 3) gives (m = 2 or 4, alpha = m + 2),
 * row-major: A[alpha][m], B[alpha][alpha], G[alpha][3]; static storage. */
void at_op_winograd_matrices(int m, const double **A, const double **B, const double **G);

/* Per-kind functions behind the generic at_op_* ones (same contracts). */
at_status at_op_conv2d_check_args(at_op_kind op, const at_conv2d_args *a);
size_t    at_op_conv2d_tensors(at_op_kind op, const at_conv2d_args *a, at_tensor_desc *out);
void      at_op_conv2d_args_write_json(const at_conv2d_args *a, at_strbuf *sb);
at_status at_op_conv2d_args_from_json(at_op_kind op, const cJSON *array, at_conv2d_args *out);
/* Also the comma form N,C,H,W,K,KH,KW,S,P[,D][,dtype]: K = output channels (conv2d) or the
 * multiplier (depthwise); square stride S, padding P on all four sides, dilation D (default 1). */
at_status at_op_conv2d_args_parse(at_op_kind op, const char *text, at_conv2d_args *out);
double    at_op_conv2d_flop(at_op_kind op, const at_conv2d_args *a);
void      at_op_conv2d_compute(at_op_kind op, const at_conv2d_args *a, at_ir_sched *s);
void      at_op_conv2d_ref(at_op_kind op, const at_conv2d_args *a, const void *data, const void *kernel, void *out);
at_op_tolerance at_op_conv2d_tolerance(at_op_kind op, const at_conv2d_args *a);

/* ---- dense (templates/ops_dense.c) ---------------------------------------------------------- */

at_status at_op_dense_check_args(const at_dense_args *a);
size_t    at_op_dense_tensors(const at_dense_args *a, at_tensor_desc *out);
void      at_op_dense_args_write_json(const at_dense_args *a, at_strbuf *sb);
at_status at_op_dense_args_from_json(const cJSON *array, at_dense_args *out);
/* Also the comma form M,N,K[,dtype]. */
at_status at_op_dense_args_parse(const char *text, at_dense_args *out);
double    at_op_dense_flop(const at_dense_args *a);
void      at_op_dense_compute(const at_dense_args *a, at_ir_sched *s);
/* bias is NULL unless a->has_bias. */
void      at_op_dense_ref(const at_dense_args *a, const void *data, const void *weight, const void *bias, void *out);
at_op_tolerance at_op_dense_tolerance(const at_dense_args *a);

/* ---- conv2d_packed (templates/ops_conv2d_packed.c) ------------------------------------------ */

/* The epilogue of the tuning template: right shift, then clip to [lo, hi]. */
enum { AT_CONV2D_PACKED_SHIFT = 8, AT_CONV2D_PACKED_CLIP_LO = 0, AT_CONV2D_PACKED_CLIP_HI = 127 };

void      at_op_conv2d_packed_geom(const at_conv2d_packed_args *a, at_conv2d_packed_geom *out);
at_status at_op_conv2d_packed_check_args(const at_conv2d_packed_args *a);
size_t    at_op_conv2d_packed_tensors(const at_conv2d_packed_args *a, at_tensor_desc *out);
void      at_op_conv2d_packed_args_write_json(const at_conv2d_packed_args *a, at_strbuf *sb);
at_status at_op_conv2d_packed_args_from_json(const cJSON *array, at_conv2d_packed_args *out);
/* Also the comma form N,CI,H,W,CO,KH,KW,S,P (channels unpacked, multiples of 16; BATCH 1, BLOCK 16). */
at_status at_op_conv2d_packed_args_parse(const char *text, at_conv2d_packed_args *out);
/* add_flop(2 * N * CO * OH * OW * KH * KW * CI), as vta_conv2d.py counts. */
double    at_op_conv2d_packed_flop(const at_conv2d_packed_args *a);
void      at_op_conv2d_packed_compute(const at_conv2d_packed_args *a, at_ir_sched *s);
/* int8 data, kernel -> int8 out; int32 wrap-around accumulation, arithmetic shift. */
void      at_op_conv2d_packed_ref(const at_conv2d_packed_args *a, const void *data, const void *kernel, void *out);

/* ---- add / multiply packed (templates/ops_alu_packed.c) ------------------------------------ */

/* The tuning templates' clip (two ALU stages: min hi, then max lo). */
enum { AT_ALU_PACKED_CLIP_LO = 0, AT_ALU_PACKED_CLIP_HI = 127 };

/* op is AT_OP_ADD_PACKED or AT_OP_MULTIPLY_PACKED throughout (AT_ASSERT). */
/* Extents 1..65536, at most 2^31 elements, dtypes int8, int32 or float32, both the same (topi's
 * add/multiply need equal dtypes), a broadcast rhs of at most lhs's rank with each extent 1 or
 * lhs's. AT_EINVAL naming the field. */
at_status at_op_alu_packed_check_args(const at_alu_packed_args *a);
/* lhs, rhs (its broadcast shape, else lhs's, also for rhs_alias), res (int8, lhs's shape). */
size_t    at_op_alu_packed_tensors(const at_alu_packed_args *a, at_tensor_desc *out);
/* rhs's shape aligned to lhs's ndim dimensions (leading 1s), lhs's when it does not broadcast. */
void      at_op_alu_packed_rhs_shape(const at_alu_packed_args *a, int64_t out[AT_ALU_PACKED_MAX_DIMS]);
void      at_op_alu_packed_args_write_json(const at_alu_packed_args *a, at_strbuf *sb);
/* AT_EPARSE: not [lhs, rhs] tensors; AT_EINVAL: rhs does not broadcast to lhs. */
at_status at_op_alu_packed_args_from_json(const cJSON *array, at_alu_packed_args *out);
/* Also the comma form N,C,H,W[,dtype] (C a multiple of 16; packed as (N, C/16, H, W, 1, 16);
 * dtype int32 when absent), rhs = lhs. */
at_status at_op_alu_packed_args_parse(const char *text, at_alu_packed_args *out);
/* TVM's compute_flop of the tuning template (no add_flop): add or multiply 1, clipA (min) 1,
 * clipB (max) 1, the cast 0 = 3 per output element. */
double    at_op_alu_packed_flop(const at_alu_packed_args *a);
/* True when TVM's schedule_alu_packed defines its knobs: a 6-D output and no float32 input (the
 * output is always int8); otherwise the space is empty and TVM runs the op on the CPU. */
bool      at_op_alu_packed_on_vta(const at_alu_packed_args *a);
void      at_op_alu_packed_compute(at_op_kind op, const at_alu_packed_args *a, at_ir_sched *s);
/* lhs, rhs (dtype elements) -> int8 res, VTA's arithmetic (float32: float add / multiply, clip,
 * truncation to int8). */
void      at_op_alu_packed_ref(at_op_kind op, const at_alu_packed_args *a, const void *lhs, const void *rhs, void *out);

#endif
