/* pool2d_max_nchw (templates/ops_pool2d.c): topi's nn.pool2d with pool_type "max" and layout
 * "NCHW", an operator TVM's AutoTVM has no template for (its pooling schedules are fixed). The
 * workload is pool2d's own argument list as serialize_args writes it, the arguments the kind's
 * name fixes included: (data, kernel, stride, dilation, padding, pool_type, ceil_mode, layout,
 * count_include_pad), e.g. [["TENSOR", [1, 64, 112, 112], "float32"], [3, 3], [2, 2], [1, 1],
 * [1, 1, 1, 1], "max", false, "NCHW", true]. As topi, the padding holds the lowest value of the
 * dtype (not -inf), and ceil_mode adds stride - 1 rows and columns of it at the bottom and right. */
#ifndef AT_TEMPLATES_OPS_POOL2D_H
#define AT_TEMPLATES_OPS_POOL2D_H

#include "templates/op_kinds.h"
#include "templates/ops_conv2d.h"

typedef struct at_pool2d_args {
    int64_t    data[4];     /* N, C, H, W */
    int64_t    kernel[2];   /* h, w */
    int64_t    stride[2];   /* h, w */
    int64_t    dilation[2]; /* h, w */
    int64_t    pad[4];      /* top, left, bottom, right, as written */
    bool       ceil_mode;
    bool       count_include_pad; /* no effect on max; kept to write the workload back */
    at_ir_type dtype;             /* float32 */
} at_pool2d_args;

/* The sizes as a convolution's (at_conv2d_geom): co = ci = C, mult 1, pb and pr include
 * ceil_mode's extra stride - 1; the args need not be checked. */
void at_op_pool2d_geom(const at_pool2d_args *a, at_conv2d_geom *out);

/* The lowest value of a float type: what topi pads max pooling with. */
double at_op_pool2d_lowest(at_ir_type t);

#endif
