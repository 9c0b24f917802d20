/* The x86 NCHWc templates through the LLVM backend: every small workload of
 * tests/unit/test_x86_cases.c, 2 seeded configs each and the fallback, both programs (NCHW tuning
 * form and NCHW[x]c network form), JIT-compiled for the host over a 2-thread pool, against the
 * op's reference. */
#include "tests/support/test_support.h"

#include "backends/llvm/llvm.h"
#include "core/alloc.h"
#include "tests/unit/test_x86_cases.h"

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

static void seeded_configs_should_match_the_reference_through_llvm(void **state)
{
    (void)state;
    assert_ok(at_llvm_init());
    at_llvm_pool *pool;
    assert_ok(at_llvm_pool_new(2, &pool));
    size_t ran = x86_check_all(2, 20261123, jit_run, pool);
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
