/* group_conv2d_nchw (templates/ops_group_conv2d.c): topi's grouped convolution, NCHW data and
 * OIHW kernel [CO, C / groups, KH, KW], the workload of TVM's group_conv2d_nchw tasks (data,
 * kernel, strides, padding, dilation, groups, out_dtype). Output channel c of group c / (CO /
 * groups) reads input channels g C / groups .. (g + 1) C / groups - 1. */
#ifndef AT_TEMPLATES_OPS_GROUP_CONV2D_H
#define AT_TEMPLATES_OPS_GROUP_CONV2D_H

#include "templates/op_kinds.h"
#include "templates/ops_conv2d.h"

typedef struct at_group_conv2d_args {
    at_conv2d_args conv; /* kernel[1] is C / groups */
    int64_t        groups;
} at_group_conv2d_args;

/* The sizes of the convolution (ci: all C input channels, co: all CO output channels); the args
 * need not be checked. */
void at_op_group_conv2d_geom(const at_group_conv2d_args *a, at_conv2d_geom *out);

#endif
