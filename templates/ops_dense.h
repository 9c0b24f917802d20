/* dense (templates/ops_dense.c): topi's nn.dense with TVM's workload (data, weight, bias,
 * out_dtype), out[m, n] = sum_k data[m, k] weight[n, k]. */
#ifndef AT_TEMPLATES_OPS_DENSE_H
#define AT_TEMPLATES_OPS_DENSE_H

#include "templates/op_kinds.h"

typedef struct at_dense_args {
    int64_t    m, n, k;
    bool       has_bias;       /* bias [n] (workloads of TVM <= 0.6, as TopHub's); v0.18 passes null */
    bool       out_dtype_null; /* out_dtype written as null: the data dtype */
    at_ir_type dtype, weight_dtype, bias_dtype, out_dtype;
} at_dense_args;

at_status at_op_dense_check_args(const at_dense_args *a);
size_t    at_op_dense_tensors(const at_dense_args *a, at_tensor_desc *out);
void      at_op_dense_args_write_json(const at_dense_args *a, at_strbuf *sb);
at_status at_op_dense_args_from_json(const cJSON *array, at_dense_args *out);
double    at_op_dense_flop(const at_dense_args *a);
void      at_op_dense_compute(const at_dense_args *a, at_ir_sched *s);
/* bias is NULL unless a->has_bias. */
void      at_op_dense_ref(const at_dense_args *a, const void *data, const void *weight, const void *bias, void *out);
at_op_tolerance at_op_dense_tolerance(const at_dense_args *a);

#endif
