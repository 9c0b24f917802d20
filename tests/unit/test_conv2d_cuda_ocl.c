/* conv2d_nchw.cuda on a real OpenCL device (PoCL by default, AT_TEST_DEVICE picks another) through
 * measure/'s worker pool with output verification (every output compared with the op's
 * reference): seeded samples of configs on small workloads (padding, stride, dilation, batch,
 * asymmetric padding), and a few configs of resnet-18's 64x56x56 3x3 layer, among them TopHub's
 * (opencl pack, 1080ti) with both unroll_explicit values. A sampled config may be rejected before
 * compiling (INSTANTIATION_ERROR: the device's work-group or local-memory limits). */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "tests/support/test_measure_support.h"

/* Measures configs idx[0..n) (n <= 8) of t on pool m; returns how many came back OK; fails on
 * anything but OK or (when allow_reject) INSTANTIATION_ERROR. */
static size_t measure(at_meas_ocl *m, at_task *t, const int64_t *idx, size_t n, bool allow_reject)
{
    at_config *cfg[8];
    at_meas_input in[8];
    char names[8][32];
    const char *what[8];
    assert_true(n <= 8);
    for (size_t i = 0; i < n; i++) {
        assert_ok(at_task_config(t, idx[i], &cfg[i]));
        in[i] = (at_meas_input){t, cfg[i]};
        snprintf(names[i], sizeof names[i], "config %lld", (long long)idx[i]);
        what[i] = names[i];
    }
    size_t ok = at_test_verify_batch(m, in, n, allow_reject, what);
    for (size_t i = 0; i < n; i++) at_config_free(cfg[i]);
    return ok;
}

static void sampled_configs_should_run_and_verify(void **state)
{
    static const char *const workloads[] = {
        "2,6,11,9,12,3,3,2,1", "1,8,12,12,8,3,3,1,2,2",
        "[[\"TENSOR\", [1, 4, 9, 8], \"float32\"], [\"TENSOR\", [8, 4, 1, 3], \"float32\"], [1, 1], [0, 1, 0, 2], "
        "[1, 1], \"float32\"]",
    };
    size_t total = 0, ok = 0;
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        at_task *t;
        assert_ok(at_task_create("conv2d_nchw.cuda", AT_TARGET_OPENCL, workloads[w], &t));
        enum { PER = 4 };
        int64_t idx[PER];
        at_rng rng;
        at_rng_seed(&rng, 300 + w);
        assert_ok(at_space_sample_ints(at_task_space(t), &rng, PER, idx));
        ok += measure(*state, t, idx, PER, true);
        total += PER;
        at_task_free(t);
    }
    print_message("%zu of %zu sampled configs ran and verified\n", ok, total);
    assert_true(ok >= total / 2);
}

static void resnet18_configs_should_run_and_verify(void **state)
{
    at_task *t;
    assert_ok(at_task_create("conv2d_nchw.cuda", AT_TARGET_OPENCL, "1,64,56,56,64,3,3,1,1", &t));
    /* TopHub's record (unroll_explicit 1), the same with unroll_explicit 0, and a sampled one */
    int64_t idx[3] = {72845770, 72845770 - 45158400, 0};
    at_rng rng;
    at_rng_seed(&rng, 18);
    assert_ok(at_space_sample_ints(at_task_space(t), &rng, 1, idx + 2));
    assert_true(measure(*state, t, idx, 2, false) == 2);
    size_t ok = measure(*state, t, idx + 2, 1, true);
    print_message("resnet-18 64x56x56 3x3: TopHub's config both ways and %zu of 1 sampled config verified\n", ok);
    at_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampled_configs_should_run_and_verify),
        cmocka_unit_test(resnet18_configs_should_run_and_verify),
    };
    return cmocka_run_group_tests(tests, at_test_verify_pool_setup, at_test_verify_pool_teardown);
}
