/* conv2d_transpose_nchw (templates/ops_conv2d_transpose.c): topi's transposed convolution, NCHW
 * data and an (CI, CO, KH, KW) kernel, with TVM's workload tuple (data, kernel, strides, padding,
 * out_dtype, output_padding), e.g. [["TENSOR", [1, 128, 32, 32], "float32"], ["TENSOR",
 * [128, 3, 4, 4], "float32"], [2, 2], [1, 1, 1, 1], "float32", [0, 0]]. TVM computes it as a
 * direct convolution of the flipped, transposed kernel over the input dilated by the strides and
 * padded by KH - 1 - pad (plus output_padding at the bottom and right). */
#ifndef AT_TEMPLATES_OPS_CONV2D_TRANSPOSE_H
#define AT_TEMPLATES_OPS_CONV2D_TRANSPOSE_H

#include "templates/op_kinds.h"
#include "templates/ops_conv2d.h"

typedef struct at_conv2d_transpose_args {
    int64_t      data[4];        /* N, CI, H, W */
    int64_t      kernel[4];      /* CI, CO, KH, KW */
    int64_t      stride[2];      /* h, w */
    int64_t      pad[4];         /* top, left, bottom, right (get_pad_tuple of what was written) */
    int64_t      out_pad[2];     /* output_padding h, w: below the stride */
    at_args_form stride_form, pad_form;
    bool         out_dtype_null; /* out_dtype written as null: the data dtype */
    at_ir_type   dtype, kernel_dtype, out_dtype;
} at_conv2d_transpose_args;

/* The direct convolution TVM computes: g is a stride-1, unpadded, undilated convolution over the
 * dilated and padded input (g.ih x g.iw = dh + bpt + bpb x dw + bpl + bpr) with g.co = CO and
 * g.oh x g.ow the transposed convolution's output; the real input is ih x iw, dilated by sh, sw
 * to dh x dw and padded by bpt, bpl (top, left) and bpb, bpr (bottom, right). */
typedef struct at_conv2d_transpose_geom {
    at_conv2d_geom g;
    int64_t        ih, iw, sh, sw, dh, dw;
    int64_t        bpt, bpl, bpb, bpr;
} at_conv2d_transpose_geom;

/* The sizes of a; the args need not be checked (sizes may come out < 1). */
void at_op_conv2d_transpose_geom(const at_conv2d_transpose_args *a, at_conv2d_transpose_geom *out);

/* Element (y, x) of the dilated, padded input of batch n, channel ci (y, x index t's g.ih x g.iw):
 * data[n][ci][(y - bpt) / sh][(x - bpl) / sw] where that lands on an input element, else 0 of
 * data's type; the read is clamped into the buffer. */
const at_ir_expr *at_op_conv2d_transpose_load(at_ir_sched *s, const at_ir_buffer *data, const at_conv2d_transpose_geom *t,
                                              const at_ir_expr *n, const at_ir_expr *ci, const at_ir_expr *y,
                                              const at_ir_expr *x);

#endif
