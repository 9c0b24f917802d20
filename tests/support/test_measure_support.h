/* Helpers shared by the worker-pool tests (OpenCL and CPU): include after test_support.h. Header
 * only, as static inline functions: at_test_support links core/ alone, and these need measure/,
 * which only the tests that include this header link. */
#ifndef AT_TESTS_MEASURE_SUPPORT_H
#define AT_TESTS_MEASURE_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "measure/ocl.h"
#include "tests/support/test_support.h"

/* Measures configs idx[0..n) (n <= 16) of task t on pool m; results initialized here, freed by
 * the caller (at_result_fini). Fails the test when the pool reports an error. */
static inline void at_test_measure_configs(at_meas_ocl *m, at_task *t, const int64_t *idx, size_t n, at_result *res)
{
    at_config *cfg[16];
    at_meas_input in[16];
    assert_true(n <= 16);
    for (size_t i = 0; i < n; i++) {
        assert_ok(at_task_config(t, idx[i], &cfg[i]));
        in[i] = (at_meas_input){t, cfg[i]};
        at_result_init(&res[i]);
    }
    assert_ok(at_meas_ocl_measure(m, in, n, res));
    for (size_t i = 0; i < n; i++) at_config_free(cfg[i]);
}

/* Checks the tail both pools' fault batches end with (tests/fakes/fault_template.h): res[w] is
 * OK_MODE at work 32, res[w + 1] FOREVER (RUN_TIMEOUT after timeout_s whole seconds), res[w + 2]
 * OK_MODE at work 1 (the trial after the timeout runs); res[w] costs over 4x both res[0] (work 1,
 * OK_MODE too) and res[w + 2]: the work knob multiplies the kernel's work by 32. */
static inline void at_test_expect_fault_tail(const at_result *res, size_t w, int timeout_s)
{
    char needle[64];
    snprintf(needle, sizeof needle, "exceeded the %d s timeout", timeout_s);
    at_test_expect_result(&res[w], AT_MEAS_OK, NULL, w);
    at_test_expect_result(&res[w + 1], AT_MEAS_RUN_TIMEOUT, needle, w + 1);
    assert_true(res[w + 1].all_cost_s == (double)timeout_s && res[w + 1].all_cost_is_int);
    at_test_expect_result(&res[w + 2], AT_MEAS_OK, NULL, w + 2);
    if (!(res[w].costs_s[0] > 4 * res[0].costs_s[0] && res[w].costs_s[0] > 4 * res[w + 2].costs_s[0])) {
        print_error("work=32 cost %g vs work=1 costs %g, %g\n", res[w].costs_s[0], res[0].costs_s[0], res[w + 2].costs_s[0]);
        fail();
    }
}

/* Opens pool *out with make (at_meas_ocl_new, at_meas_cpu_new) and o, for a cmocka group setup:
 * 0, or -1 after printing why. */
static inline int at_test_pool_open(at_status (*make)(const at_measure_opts *, at_meas_ocl **), const at_measure_opts *o,
                                    at_meas_ocl **out)
{
    at_status st = make(o, out);
    if (st != AT_OK) {
        print_error("pool: %s\n", at_last_error());
        return -1;
    }
    return 0;
}

/* cmocka group fixtures of the tests that check templates' outputs on a device: an OpenCL pool in
 * *state on AT_TEST_DEVICE (else the default device) with PoCL's shared kernel cache, one run per
 * config, the output check on, and timeouts that PoCL's compiles of whole sampled spaces fit. */
static inline int at_test_verify_pool_setup(void **state)
{
    at_measure_opts o = {.number = 1, .repeat = 1, .timeout_ms = 60000, .build_timeout_ms = 120000, .cooldown_ms = -1,
                         .n_parallel = 2, .check_correctness = true, .device = getenv("AT_TEST_DEVICE"),
                         .cache_dir = at_test_pocl_cache_dir()};
    at_meas_ocl *pool;
    int rc = at_test_pool_open(at_meas_ocl_new, &o, &pool);
    *state = pool;
    return rc;
}

static inline int at_test_verify_pool_teardown(void **state)
{
    at_meas_ocl_free(*state);
    return 0;
}

/* Measures in[0..n) on pool m (its output check on); returns how many came back OK. Fails the test,
 * naming what[i], on anything else but (when allow_reject) INSTANTIATION_ERROR: a config the
 * device's work-group or local-memory limits reject before compiling. */
static inline size_t at_test_verify_batch(at_meas_ocl *m, const at_meas_input *in, size_t n, bool allow_reject,
                                          const char *const *what)
{
    at_result *res = at_calloc(n, sizeof *res);
    assert_non_null(res);
    for (size_t i = 0; i < n; i++) at_result_init(&res[i]);
    assert_ok(at_meas_ocl_measure(m, in, n, res));
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (res[i].err == AT_MEAS_OK) {
            ok++;
        } else if (!(allow_reject && res[i].err == AT_MEAS_INSTANTIATION_ERROR)) {
            print_error("%s: %s: %s\n", what[i], at_meas_err_name(res[i].err), res[i].msg ? res[i].msg : "");
            fail();
        }
        at_result_fini(&res[i]);
    }
    at_free(res);
    return ok;
}

#endif
