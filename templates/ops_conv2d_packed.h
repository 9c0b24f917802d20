/* conv2d_packed (VTA, templates/ops_conv2d_packed.c). */
#ifndef AT_TEMPLATES_OPS_CONV2D_PACKED_H
#define AT_TEMPLATES_OPS_CONV2D_PACKED_H

#include "templates/op_kinds.h"

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

/* The epilogue of the tuning template: right shift, then clip to [lo, hi]. */
enum { AT_CONV2D_PACKED_SHIFT = 8, AT_CONV2D_PACKED_CLIP_LO = 0, AT_CONV2D_PACKED_CLIP_HI = 127 };

void      at_op_conv2d_packed_geom(const at_conv2d_packed_args *a, at_conv2d_packed_geom *out);
at_status at_op_conv2d_packed_check_args(const at_conv2d_packed_args *a);
size_t    at_op_conv2d_packed_tensors(const at_conv2d_packed_args *a, at_tensor_desc *out);
void      at_op_conv2d_packed_args_write_json(const at_conv2d_packed_args *a, at_strbuf *sb);
at_status at_op_conv2d_packed_args_from_json(const cJSON *array, at_conv2d_packed_args *out);
/* add_flop(2 * N * CO * OH * OW * KH * KW * CI), as vta_conv2d.py counts. */
double    at_op_conv2d_packed_flop(const at_conv2d_packed_args *a);
void      at_op_conv2d_packed_compute(const at_conv2d_packed_args *a, at_ir_sched *s);
/* int8 data, kernel -> int8 out; int32 wrap-around accumulation, arithmetic shift. */
void      at_op_conv2d_packed_ref(const at_conv2d_packed_args *a, const void *data, const void *kernel, void *out);

#endif
