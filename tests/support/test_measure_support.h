/* Helpers shared by the worker-pool tests (OpenCL and CPU): include after test_support.h. Header
 * only, as static inline functions: at_test_support links core/ alone, and these need measure/,
 * which only the tests that include this header link. */
#ifndef AT_TESTS_MEASURE_SUPPORT_H
#define AT_TESTS_MEASURE_SUPPORT_H

#include <stdio.h>

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

#endif
