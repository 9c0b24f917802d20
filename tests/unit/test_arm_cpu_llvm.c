/* The CPU templates through the LLVM backend: every small workload of
 * tests/unit/test_arm_cpu_cases.c, 2 seeded configs each and the fallback (a JIT compile costs
 * 0.2-1 s; the interpreter test runs 10 per case), JIT-compiled for the host and run with the
 * parallel loops shared over a 2-thread pool, against the op's reference. */
#include "tests/support/test_support.h"

#include "backends/llvm/llvm.h"
#include "tests/support/test_llvm_jit_support.h"
#include "tests/unit/test_arm_cpu_cases.h"

static void ten_seeded_configs_per_case_should_match_the_reference_through_llvm(void **state)
{
    (void)state;
    assert_ok(at_llvm_init());
    at_llvm_pool *pool;
    assert_ok(at_llvm_pool_new(2, &pool));
    size_t ran = arm_cpu_check_all(2, 20261122, at_test_llvm_jit_run, pool);
    if (ran < 28 * 2) fail_msg("only %zu configs ran", ran);
    at_llvm_pool_free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ten_seeded_configs_per_case_should_match_the_reference_through_llvm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
