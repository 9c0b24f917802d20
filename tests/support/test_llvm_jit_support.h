/* Running one program through the LLVM JIT in the template walks of the CPU templates (arm_cpu,
 * x86): include after test_support.h. Header only, as a static inline function: at_test_support
 * links core/ alone, and this needs backends/llvm, which only the tests that include it link. */
#ifndef AT_TESTS_LLVM_JIT_SUPPORT_H
#define AT_TESTS_LLVM_JIT_SUPPORT_H

#include "backends/llvm/llvm.h"
#include "core/alloc.h"
#include "tests/support/test_support.h"

/* JITs p and runs every kernel (preparation kernels included: they fill the packed weights) on
 * params[0..n_params) and temporaries allocated here, over the at_llvm_pool ctx. */
static inline at_status at_test_llvm_jit_run(const at_ir_program *p, void *const *params, size_t n_params, void *ctx)
{
    at_llvm_pool *pool = ctx;
    at_llvm_jit *j;
    at_status st = at_llvm_jit_new(p, NULL, &j);
    if (st != AT_OK) return st;
    void *bufs[64];
    assert_true(p->n_bufs <= 64);
    for (size_t i = 0; i < p->n_bufs; i++) {
        if (i < n_params) {
            bufs[i] = params[i];
        } else {
            bufs[i] = at_calloc((size_t)p->bufs[i]->size, at_ir_type_bytes(p->bufs[i]->elem));
            assert_non_null(bufs[i]);
        }
    }
    st = at_llvm_jit_run(j, bufs, p->n_bufs, false, pool);
    for (size_t i = n_params; i < p->n_bufs; i++) at_free(bufs[i]);
    at_llvm_jit_free(j);
    return st;
}

#endif
