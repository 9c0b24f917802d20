/* The x86 NCHWc templates through the LLVM backend: every small workload of
 * tests/unit/test_x86_cases.c, 2 seeded configs each and the fallback, both programs (NCHW tuning
 * form and NCHW[x]c network form), JIT-compiled for the host over a 2-thread pool, against the
 * op's reference. */
#include "tests/support/test_support.h"

#include <string.h>

#include "backends/llvm/llvm.h"
#include "core/alloc.h"
#include "templates/template.h"
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

/* A depthwise input block holding k output blocks (ic_bn = k oc_bn, as when a depthwise layer reads
 * a wider pointwise layer's output without a transform): the template reads block oc / k at lane
 * (oc % k) oc_bn + ocb, consecutive lanes for a vector of output lanes (16 and 32 output lanes:
 * one vector, and two of 16). Every such block pair of 64 channels, both programs, on LLVM. */
static void depthwise_configs_reading_wider_input_blocks_should_match_the_reference(void **state)
{
    (void)state;
    assert_ok(at_llvm_init());
    at_llvm_pool *pool;
    assert_ok(at_llvm_pool_new(2, &pool));
    at_task *t;
    assert_ok(at_task_create("depthwise_conv2d_NCHWc.x86", AT_TARGET_LLVM, "1,64,5,6,1,3,3,1,1", &t));
    size_t ran = 0;
    /* configs 0..48: every (tile_ic, tile_oc) pair, with the first tile_ow and unroll_kw */
    for (int64_t k = 0; k < 49; k++) {
        at_config *c;
        assert_ok(at_task_config(t, k, &c));
        int64_t ic_bn, oc_bn;
        assert_ok(at_tmpl_packed_blocks(at_task_template(t), c, &ic_bn, &oc_bn));
        if (ic_bn > oc_bn && ic_bn % oc_bn == 0 && oc_bn >= 4) {
            assert_true(arm_cpu_check_config(t, c, 11 + (uint64_t)k, at_test_llvm_jit_run, pool));
            assert_true(x86_check_packed(t, c, 11 + (uint64_t)k, at_test_llvm_jit_run, pool));
            ran++;
        }
        at_config_free(c);
    }
    assert_int_equal(ran, 10); /* oc_bn 4: ic_bn 8..64; 8: 16..64; 16: 32, 64; 32: 64 */
    at_task_free(t);
    at_llvm_pool_free(pool);
}

/* LLVM IR for x86-64, unoptimized: the backend's own vectorization */
static at_status llvm_ir_text(const at_ir_program *p, void *ctx, at_strbuf *sb)
{
    (void)ctx;
    static const at_llvm_target x86 = {.triple = "x86_64-unknown-linux-gnu", .cpu = "x86-64", .opt_level = -1};
    return at_llvm_program_ir(p, &x86, sb);
}

/* How many insertelement instructions (a gather builds its vector lane by lane) the packed
 * program's LLVM IR has for (tile_ic, tile_oc) = (ic_bn, oc_bn) of the 64-channel depthwise case. */
static size_t insertelements(int64_t ic_bn, int64_t oc_bn)
{
    at_task *t;
    assert_ok(at_task_create("depthwise_conv2d_NCHWc.x86", AT_TARGET_LLVM, "1,64,5,6,1,3,3,1,1", &t));
    at_config *c = x86_config_with_blocks(t, ic_bn, oc_bn);
    assert_non_null(c);
    char *text = x86_packed_text(t, c, llvm_ir_text, NULL);
    size_t n = 0;
    for (const char *q = text; (q = strstr(q, "insertelement")); q++) n++;
    at_free(text);
    at_config_free(c);
    at_task_free(t);
    return n;
}

/* ... and it reads those input lanes as one vector, as when the blocks agree: no gather */
static void depthwise_configs_reading_wider_input_blocks_should_load_vectors(void **state)
{
    (void)state;
    assert_ok(at_llvm_init());
    size_t same = insertelements(16, 16), wider = insertelements(32, 16);
    if (wider > same) fail_msg("blocks 32 -> 16: %zu insertelements, 16 -> 16: %zu (a gather)", wider, same);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seeded_configs_should_match_the_reference_through_llvm),
        cmocka_unit_test(depthwise_configs_reading_wider_input_blocks_should_match_the_reference),
        cmocka_unit_test(depthwise_configs_reading_wider_input_blocks_should_load_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
