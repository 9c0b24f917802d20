/* The x86 NCHWc templates through the LLVM backend: every small workload of
 * tests/unit/test_x86_cases.c, 2 seeded configs each and the fallback, both programs (NCHW tuning
 * form and NCHW[x]c network form), JIT-compiled for the host over a 2-thread pool, against the
 * op's reference. */
#include "tests/support/test_support.h"

#include "backends/llvm/llvm.h"
#include "tests/support/test_llvm_jit_support.h"
#include "tests/unit/test_x86_cases.h"

static void seeded_configs_should_match_the_reference_through_llvm(void **state)
{
    (void)state;
    assert_ok(at_llvm_init());
    at_llvm_pool *pool;
    assert_ok(at_llvm_pool_new(2, &pool));
    size_t ran = x86_check_all(2, 20261123, at_test_llvm_jit_run, pool);
    if (ran < 10 * 2) fail_msg("only %zu configs ran", ran);
    at_llvm_pool_free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seeded_configs_should_match_the_reference_through_llvm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
