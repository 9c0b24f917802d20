/* add_packed / multiply_packed (VTA, templates/ops_alu_packed.c). */
#ifndef AT_TEMPLATES_OPS_ALU_PACKED_H
#define AT_TEMPLATES_OPS_ALU_PACKED_H

#include "templates/op_kinds.h"

enum { AT_ALU_PACKED_MAX_DIMS = 6 };

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
