/* matmul (templates/ops_matmul.c): the tutorial's testing/matmul op. */
#ifndef AT_TEMPLATES_OPS_MATMUL_H
#define AT_TEMPLATES_OPS_MATMUL_H

#include "templates/op_kinds.h"

/* C[n, m] = sum_k A[n, k] * B[k, m] with k < l (the tutorial's matmul(N, L, M, dtype)). */
typedef struct at_matmul_args {
    int64_t    n, l, m;
    at_ir_type dtype;
} at_matmul_args;

void at_op_matmul_compute(const at_matmul_args *a, at_ir_sched *s);
void at_op_matmul_ref(const at_matmul_args *a, const void *A, const void *B, void *C);

#endif
