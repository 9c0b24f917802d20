/* The op-kind table. One row per kind: its enum constant and the at_op_def its file exports
 * (templates/ops.h says what a row holds); a kind with a new argument struct also adds its
 * header and one member of at_args's union below. Nothing else in the tree lists op kinds: the
 * dispatch (templates/ops.c), the tests and the CLI walk this table. The enum order is the row
 * order; new kinds go last so existing values never move. Kinds a plugin registers at run time
 * (templates/plugin.h) take the values from AT_OP_COUNT on. */
#ifndef AT_TEMPLATES_OP_KINDS_H
#define AT_TEMPLATES_OP_KINDS_H

/* X(enum constant, at_op_def symbol, in templates/ops_<kind>.c) */
#define AT_OP_KIND_LIST(X)                                                                                 \
    X(AT_OP_MATMUL, at_op_matmul)                       /* the tutorial's matmul(N, L, M, dtype) */      \
    X(AT_OP_CONV2D_NCHW, at_op_conv2d_nchw)             /* topi conv2d NCHW/OIHW, compute_flop count */  \
    X(AT_OP_CONV2D_NCHW_WINOGRAD, at_op_conv2d_nchw_winograd) /* the same through Winograd: add_flop */  \
    X(AT_OP_DEPTHWISE_CONV2D_NCHW, at_op_depthwise_conv2d_nchw)                                          \
    X(AT_OP_DENSE, at_op_dense)                                                                          \
    X(AT_OP_CONV2D_PACKED, at_op_conv2d_packed)         /* VTA conv2d_packed + >>8, clip, cast */        \
    X(AT_OP_ADD_PACKED, at_op_add_packed)               /* VTA add of packed tensors + clip, cast */      \
    X(AT_OP_MULTIPLY_PACKED, at_op_multiply_packed)     /* VTA multiply of packed tensors + clip, cast */ \
    X(AT_OP_POOL2D_MAX_NCHW, at_op_pool2d_max_nchw)     /* topi pool2d, pool_type "max", layout NCHW */   \
    X(AT_OP_CONV2D_NCHWC, at_op_conv2d_nchwc)           /* x86 conv2d_NCHWc, NCHW workload */             \
    X(AT_OP_DEPTHWISE_CONV2D_NCHWC, at_op_depthwise_conv2d_nchwc) /* x86, multiplier 1 */               \
    X(AT_OP_CONV2D_TRANSPOSE_NCHW, at_op_conv2d_transpose_nchw) /* topi conv2d_transpose, arm_cpu */    \
    X(AT_OP_GROUP_CONV2D_NCHW, at_op_group_conv2d_nchw) /* topi group_conv2d_nchw (x86, arm_cpu)  */     \
    /* new kinds: a row above this line */

typedef enum at_op_kind {
#define AT_OP_KIND_ENUM_(kind, def) kind,
    AT_OP_KIND_LIST(AT_OP_KIND_ENUM_)
#undef AT_OP_KIND_ENUM_
    AT_OP_COUNT
} at_op_kind;

/* Each kind's argument struct and kind-specific helpers. These headers include this one first,
 * so any of them may be included on its own. */
#include "templates/op_types.h"
#include "templates/ops_alu_packed.h"
#include "templates/ops_conv2d.h"
#include "templates/ops_conv2d_packed.h"
#include "templates/ops_conv2d_transpose.h"
#include "templates/ops_dense.h"
#include "templates/ops_group_conv2d.h"
#include "templates/ops_matmul.h"
#include "templates/ops_pool2d.h"
/* new kinds: their header above this line */

/* The members of at_args's union (templates/ops.h): one per argument struct; kinds that share a
 * struct share its member. */
#define AT_OP_ARGS_MEMBERS                                                                           \
    at_matmul_args        matmul;                                                                    \
    at_conv2d_args        conv2d; /* conv2d_nchw, _winograd, depthwise_conv2d_nchw, the NCHWc kinds */\
    at_dense_args         dense;                                                                     \
    at_conv2d_packed_args conv2d_packed;                                                             \
    at_alu_packed_args    alu_packed; /* add_packed, multiply_packed */                              \
    at_pool2d_args        pool2d;                                                                    \
    at_conv2d_transpose_args conv2d_transpose;                                                       \
    at_group_conv2d_args  group_conv2d;                                                              \
    at_ext_args           ext; /* every kind a plugin registers (templates/plugin.h) */             \
    /* new argument structs: a member above this line */

#endif
