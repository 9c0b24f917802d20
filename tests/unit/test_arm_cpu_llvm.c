/* The CPU templates through the LLVM backend: every small workload of
 * tests/unit/test_arm_cpu_cases.c, 3 seeded configs each and the fallback (a JIT compile costs
 * 0.2-1 s; the interpreter test runs 10 per case), JIT-compiled for the host and run with the
 * parallel loops shared over a 2-thread pool, against the op's reference. */
#include "tests/support/test_support.h"

#include "backends/llvm/llvm.h"
#include "core/alloc.h"
#include "tests/unit/test_arm_cpu_cases.h"

/* JIT p and run every kernel (preparation kernels included: they fill the packed weights), the
 * temporaries allocated here. */
static at_status jit_run(const at_ir_program *p, void *const *params, size_t n_params, void *ctx)
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

static void ten_seeded_configs_per_case_should_match_the_reference_through_llvm(void **state)
{
    (void)state;
    assert_ok(at_llvm_init());
    at_llvm_pool *pool;
    assert_ok(at_llvm_pool_new(2, &pool));
    size_t ran = arm_cpu_check_all(3, 20261122, jit_run, pool);
    if (ran < 18 * 3) fail_msg("only %zu configs ran", ran);
    at_llvm_pool_free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ten_seeded_configs_per_case_should_match_the_reference_through_llvm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
