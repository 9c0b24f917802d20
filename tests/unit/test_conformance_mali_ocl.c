/* Mali templates on a real OpenCL device (PoCL by default, AT_TEST_DEVICE picks another) through
 * measure/'s worker pool with output verification: built as two tests from this file.
 *   test_conformance_mali_pocl (e2e): every Mali template on tiny workloads with a seeded sample of
 *     configs, and every TopHub config of 25 sampled real workloads on shrunk copies of them
 *     (mali_cases.h: same per-work-item program, small grid), so PoCL's compile time stays small;
 *   test_conformance_mali_real (device, MALI_REAL_SHAPES): the same TopHub configs on their real
 *     workloads.
 * A result must be OK (the pool compares every output with the op's reference: 1e-4, Winograd
 * 1e-3); a sampled config may also be rejected before compiling (INSTANTIATION_ERROR: TVM's
 * annotation checks or the device's work-group limits). */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "tests/support/test_measure_support.h"
#include "tests/unit/mali_cases.h"

#ifndef MALI_REAL_SHAPES
static bool is_mali(const at_template *t)
{
    size_t n = strlen(t->name);
    return n > 5 && !strcmp(t->name + n - 5, ".mali");
}

static void sampled_configs_should_run_and_verify_on_tiny_workloads(void **state)
{
    size_t n_templates = 0;
    for (size_t ti = 0; ti < at_tmpl_count(); ti++) {
        const at_template *tm = at_tmpl_at(ti);
        if (!is_mali(tm)) continue;
        n_templates++;
        at_args args[8];
        size_t n_args = mali_tiny_args(tm, args, 2);
        assert_int_equal(n_args, 2);
        enum { PER = 6 };
        at_task *tasks[2];
        at_config *cfg[2 * PER];
        at_meas_input in[2 * PER];
        char names[2 * PER][96];
        const char *what[2 * PER];
        size_t n = 0;
        for (size_t ai = 0; ai < n_args; ai++) {
            assert_ok(at_task_new(tm, &args[ai], &tasks[ai]));
            int64_t idx[PER];
            at_rng rng;
            at_rng_seed(&rng, 2000 + ti * 10 + ai);
            assert_ok(at_space_sample_ints(at_task_space(tasks[ai]), &rng, PER, idx));
            for (size_t k = 0; k < PER; k++, n++) {
                assert_ok(at_task_config(tasks[ai], idx[k], &cfg[n]));
                in[n] = (at_meas_input){tasks[ai], cfg[n]};
                snprintf(names[n], sizeof names[n], "%s tiny workload %zu config %lld", tm->name, ai, (long long)idx[k]);
                what[n] = names[n];
            }
        }
        size_t ok = at_test_verify_batch(*state, in, n, true, what);
        print_message("%-32s %zu of %zu sampled configs ran and verified\n", tm->name, ok, n);
        assert_true(ok >= n / 2);
        for (size_t i = 0; i < n; i++) at_config_free(cfg[i]);
        for (size_t ai = 0; ai < n_args; ai++) at_task_free(tasks[ai]);
    }
    assert_true(n_templates > 0); /* every .mali row of the registry, whatever their number */
}
#endif

static void tophub_configs_should_run_and_verify(void **state)
{
    mali_case *cases;
    size_t n;
    mali_tophub_cases(7, &cases, &n);
    assert_true(n >= 24);
    at_task **tasks = at_calloc(n, sizeof *tasks);
    at_config **cfg = at_calloc(n, sizeof *cfg);
    at_meas_input *in = at_calloc(n, sizeof *in);
    char (*names)[160] = at_calloc(n, sizeof *names);
    const char **what = at_calloc(n, sizeof *what);
    size_t workloads = 0;
    for (size_t i = 0; i < n; i++) {
#ifdef MALI_REAL_SHAPES
        const at_args *a = &cases[i].real;
#else
        const at_args *a = &cases[i].shrunk;
#endif
        assert_ok(at_task_new(cases[i].tmpl, a, &tasks[i]));
        assert_ok(at_task_config(tasks[i], mali_config_index(tasks[i], cases[i].config), &cfg[i]));
        in[i] = (at_meas_input){tasks[i], cfg[i]};
        snprintf(names[i], sizeof names[i], "%s (mali_v0.06.log line %zu)", cases[i].tmpl->name, cases[i].line);
        what[i] = names[i];
        if (i == 0 || cases[i - 1].workload != cases[i].workload) workloads++;
    }
    size_t ok = at_test_verify_batch(*state, in, n, false, what);
    print_message("%zu TopHub configs of %zu workloads ran and verified\n", ok, workloads);
    assert_int_equal(ok, n);
    assert_true(workloads >= 20);
    for (size_t i = 0; i < n; i++) {
        at_config_free(cfg[i]);
        at_task_free(tasks[i]);
    }
    at_free(tasks);
    at_free(cfg);
    at_free(in);
    at_free(names);
    at_free(what);
    mali_cases_free(cases, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifndef MALI_REAL_SHAPES
        cmocka_unit_test(sampled_configs_should_run_and_verify_on_tiny_workloads),
#endif
        cmocka_unit_test(tophub_configs_should_run_and_verify),
    };
    return cmocka_run_group_tests(tests, at_test_verify_pool_setup, at_test_verify_pool_teardown);
}
