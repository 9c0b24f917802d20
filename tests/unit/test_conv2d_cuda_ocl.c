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

#include "core/alloc.h"
#include "core/rng.h"
#include "measure/ocl.h"

static char cache_dir[4096];
static at_meas_ocl *pool;

static int group_setup(void **state)
{
    (void)state;
    const char *bin = getenv("AT_BINARY_DIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/pocl-cache", bin && *bin ? bin : ".");
    at_measure_opts o = {.number = 1, .repeat = 1, .timeout_ms = 60000, .build_timeout_ms = 120000, .cooldown_ms = -1,
                         .n_parallel = 2, .check_correctness = true, .device = getenv("AT_TEST_DEVICE"),
                         .cache_dir = cache_dir};
    at_status st = at_meas_ocl_new(&o, &pool);
    if (st != AT_OK) {
        print_error("pool: %s\n", at_last_error());
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    at_meas_ocl_free(pool);
    return 0;
}

/* Measures configs idx[0..n) of t; returns how many came back OK; fails on anything but OK or
 * (when allow_reject) INSTANTIATION_ERROR. */
static size_t measure(at_task *t, const int64_t *idx, size_t n, bool allow_reject)
{
    at_config **cfg = at_calloc(n, sizeof *cfg);
    at_meas_input *in = at_calloc(n, sizeof *in);
    at_result *res = at_calloc(n, sizeof *res);
    for (size_t i = 0; i < n; i++) {
        assert_ok(at_task_config(t, idx[i], &cfg[i]));
        in[i] = (at_meas_input){t, cfg[i]};
        at_result_init(&res[i]);
    }
    assert_ok(at_meas_ocl_measure(pool, in, n, res));
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (res[i].err == AT_MEAS_OK) {
            ok++;
        } else if (!(allow_reject && res[i].err == AT_MEAS_INSTANTIATION_ERROR)) {
            print_error("config %lld: %s: %s\n", (long long)idx[i], at_meas_err_name(res[i].err), res[i].msg ? res[i].msg : "");
            fail();
        }
        at_result_fini(&res[i]);
        at_config_free(cfg[i]);
    }
    at_free(cfg);
    at_free(in);
    at_free(res);
    return ok;
}

static void sampled_configs_should_run_and_verify(void **state)
{
    (void)state;
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
        ok += measure(t, idx, PER, true);
        total += PER;
        at_task_free(t);
    }
    print_message("%zu of %zu sampled configs ran and verified\n", ok, total);
    assert_true(ok >= total / 2);
}

static void resnet18_configs_should_run_and_verify(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("conv2d_nchw.cuda", AT_TARGET_OPENCL, "1,64,56,56,64,3,3,1,1", &t));
    /* TopHub's record (unroll_explicit 1), the same with unroll_explicit 0, and a sampled one */
    int64_t idx[3] = {72845770, 72845770 - 45158400, 0};
    at_rng rng;
    at_rng_seed(&rng, 18);
    assert_ok(at_space_sample_ints(at_task_space(t), &rng, 1, idx + 2));
    assert_true(measure(t, idx, 2, false) == 2);
    size_t ok = measure(t, idx + 2, 1, true);
    print_message("resnet-18 64x56x56 3x3: TopHub's config both ways and %zu of 1 sampled config verified\n", ok);
    at_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampled_configs_should_run_and_verify),
        cmocka_unit_test(resnet18_configs_should_run_and_verify),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
