/* The CPU templates on the IR interpreter: 10 seeded configs (and the fallback) of every small
 * workload of tests/unit/test_arm_cpu_cases.c against the op's reference, and the IR the
 * schedules promise: parallel outer loops, no bindings or barriers, vectors of at most 16 lanes,
 * weight packing as preparation kernels where TVM feeds a placeholder. */
#include "tests/support/test_support.h"

#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/strbuf.h"
#include "tests/unit/test_arm_cpu_cases.h"

static at_status interp(const at_ir_program *p, void *const *bufs, size_t n, void *ctx)
{
    (void)n, (void)ctx;
    return at_ir_interp(p, bufs);
}

static void ten_seeded_configs_per_case_should_match_the_reference(void **state)
{
    (void)state;
    size_t ran = arm_cpu_check_all(10, 20261122, interp, NULL);
    /* 28 cases x (10 + the fallback); instantiation errors (depthwise's ann unrolling more than 16)
     * are rare */
    if (ran < 28 * 10) fail_msg("only %zu configs ran", ran);
}

/* Program text of config index of (name, args). */
static char *program_text(const char *name, const char *args, int64_t index, size_t *n_kernels, size_t *n_prepare)
{
    at_task *t;
    assert_ok(at_task_create(name, AT_TARGET_LLVM, args, &t));
    at_config *c;
    if (index < 0)
        assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    else
        assert_ok(at_task_config(t, index, &c));
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, ar, &p));
    *n_kernels = p->n_kernels;
    *n_prepare = 0;
    for (size_t k = 0; k < p->n_kernels; k++) *n_prepare += p->kernels[k].prepare;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_ir_print(p, &sb);
    char *text = at_strbuf_take(&sb);
    assert_non_null(text);
    at_arena_free(ar);
    at_config_free(c);
    at_task_free(t);
    return text;
}

static void programs_should_have_tvms_cpu_shape(void **state)
{
    (void)state;
    size_t nk, np;
    const char *const *cases;
    for (size_t ti = 0; ti < ARM_CPU_N_TEMPLATES; ti++) {
        arm_cpu_cases(arm_cpu_templates[ti], &cases);
        char *text = program_text(arm_cpu_templates[ti], cases[0], -1, &nk, &np);
        assert_non_null(strstr(text, "parallel"));
        assert_null(strstr(text, "blockIdx"));
        assert_null(strstr(text, "threadIdx"));
        assert_null(strstr(text, "barrier"));
        /* spatial pack: kernel_vec (prepare), data_vec, conv; depthwise: pack, conv, unpack (all
         * timed); nopack: one kernel; pack: packed_weight (prepare) and the dense; winograd: U
         * (prepare), V, the output with M computed at it; transpose: kernel_vec (timed), data_vec,
         * conv */
        static const size_t want_k[ARM_CPU_N_TEMPLATES] = {3, 3, 1, 2, 3, 3}, want_p[ARM_CPU_N_TEMPLATES] = {1, 0, 0, 1, 1, 0};
        assert_int_equal(nk, want_k[ti]);
        assert_int_equal(np, want_p[ti]);
        at_free(text);
    }
    /* a 48-lane vectorized tile_k (dense_nopack, K = 48, config with tile_k [1, 48]) becomes 3
     * unrolled pieces of 16 lanes */
    arm_cpu_cases("dense_nopack.x86", &cases);
    at_task *t;
    assert_ok(at_task_create("dense_nopack.x86", AT_TARGET_LLVM, cases[0], &t));
    const at_space *s = at_task_space(t);
    int64_t knobs[3] = {0, 0, at_space_dim(s, 2) - 1};
    int64_t idx = at_space_knobs_to_point(s, knobs);
    at_task_free(t);
    char *text = program_text("dense_nopack.x86", cases[0], idx, &nk, &np);
    assert_non_null(strstr(text, "x.vo"));
    assert_non_null(strstr(text, "x.vi"));
    at_free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ten_seeded_configs_per_case_should_match_the_reference),
        cmocka_unit_test(programs_should_have_tvms_cpu_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
