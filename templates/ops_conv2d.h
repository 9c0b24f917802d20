/* conv2d_nchw, conv2d_nchw_winograd and depthwise_conv2d_nchw (templates/ops_conv2d.c): one
 * argument struct, TVM's workload tuple (data, kernel, strides, padding, dilation, out_dtype). */
#ifndef AT_TEMPLATES_OPS_CONV2D_H
#define AT_TEMPLATES_OPS_CONV2D_H

#include "templates/op_kinds.h"

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

/* The derived sizes of a convolution (TVM's compute: dilated kernel, output and padded input).
 * Pooling fills the same struct (templates/ops_pool2d.h), so the padded-load helpers serve both. */
typedef struct at_conv2d_geom {
    int64_t n, ci, ih, iw;    /* data */
    int64_t co, kh, kw, mult; /* output channels (depthwise: C * multiplier), kernel; mult 1 for conv2d */
    int64_t sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;
    int64_t khd, kwd;         /* dilated kernel extent (KH - 1) * dh + 1 */
    int64_t oh, ow;
    int64_t ihp, iwp;         /* padded input IH + pt + pb */
} at_conv2d_geom;

/* Whether op is a depthwise kind (depthwise_conv2d_nchw, depthwise_conv2d_NCHWc): its kernel is
 * (C, multiplier, KH, KW). */
bool at_op_conv2d_is_depthwise(at_op_kind op);

/* The derived sizes of a convolution of kind op (AT_OP_DEPTHWISE_CONV2D_NCHW or a conv2d kind);
 * the args need not be checked (sizes may come out < 1). */
void at_op_conv2d_geom(at_op_kind op, const at_conv2d_args *a, at_conv2d_geom *out);

/* Winograd tile size m of a workload: 4 when the input height is a multiple of 4, else 2 (TVM's
 * _pick_tile_size for Mali); alpha = m + 2. */
int at_op_winograd_tile(const at_conv2d_args *a);

/* The Cook-Toom matrices TVM's winograd_transform_matrices(m, 3) gives (m = 2 or 4, alpha = m + 2),
 * row-major: A[alpha][m], B[alpha][alpha], G[alpha][3]; static storage. */
void at_op_winograd_matrices(int m, const double **A, const double **B, const double **G);

/* Per-kind functions behind the kinds' at_op_def rows (the at_op_* contracts). */
at_status at_op_conv2d_check_args(at_op_kind op, const at_conv2d_args *a);
size_t    at_op_conv2d_tensors(at_op_kind op, const at_conv2d_args *a, at_tensor_desc *out);
void      at_op_conv2d_args_write_json(const at_conv2d_args *a, at_strbuf *sb);
at_status at_op_conv2d_args_from_json(at_op_kind op, const cJSON *array, at_conv2d_args *out);
/* Reads items 0..4 (data, kernel, strides, padding, dilation) and the out_dtype at item dtype_at of
 * a workload's argument list whose length the caller checked. AT_EPARSE naming the element. */
at_status at_op_conv2d_args_read(const cJSON *array, int dtype_at, at_conv2d_args *out);
/* The comma form N,C,H,W,K,KH,KW,S,P[,D][,dtype] into out->u.conv2d (K: output channels, or the
 * multiplier of a depthwise kind). AT_EPARSE. */
struct at_args;
at_status at_op_conv2d_parse_list(const char *text, struct at_args *out);
double    at_op_conv2d_flop(at_op_kind op, const at_conv2d_args *a);
void      at_op_conv2d_compute(at_op_kind op, const at_conv2d_args *a, at_ir_sched *s);
void      at_op_conv2d_ref(at_op_kind op, const at_conv2d_args *a, const void *data, const void *kernel, void *out);
at_op_tolerance at_op_conv2d_tolerance(at_op_kind op, const at_conv2d_args *a);

#endif
