/* The measurement pool caps its worker processes (issue 19, F): --n-parallel 100000 forked ~130
 * workers a second and finished no trial. Above AT_MEAS_MAX_WORKERS_PER_CORE (4) per online core
 * the pool starts 4 x cores workers and says so. Uses the CPU pool (no OpenCL device needed). */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/strbuf.h"
#include "measure/cpu.h"
#include "measure/ocl.h"

static at_strbuf warnings;

static void capture(at_log_level level, const char *msg, void *user)
{
    (void)user;
    if (level == AT_LOG_WARN) at_strbuf_printf(&warnings, "%s\n", msg);
}

static void n_parallel_should_be_capped_at_four_workers_per_core(void **state)
{
    (void)state;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    assert_true(cores >= 1);
    const int asks[] = {(int)(4 * cores + 1), 100000};
    for (size_t i = 0; i < 2; i++) {
        at_strbuf_clear(&warnings);
        at_measure_opts o = {.n_parallel = asks[i], .n_threads = 1};
        at_meas_ocl *m;
        assert_ok(at_meas_cpu_new(&o, &m));
        assert_int_equal(at_meas_ocl_n_workers(m), (size_t)(4 * cores));
        at_meas_ocl_free(m);
        char want[160];
        snprintf(want, sizeof want, "n_parallel %d is more than 4 builder processes per core: using %ld (%ld cores)\n",
                 asks[i], 4 * cores, cores);
        assert_string_equal(at_strbuf_cstr(&warnings), want);
    }
    /* at the cap: as asked, no warning */
    at_strbuf_clear(&warnings);
    at_measure_opts o = {.n_parallel = (int)(4 * cores), .n_threads = 1};
    at_meas_ocl *m;
    assert_ok(at_meas_cpu_new(&o, &m));
    assert_int_equal(at_meas_ocl_n_workers(m), (size_t)(4 * cores));
    at_meas_ocl_free(m);
    assert_string_equal(at_strbuf_cstr(&warnings), "");
}

/* The default build timeout is TVM's 10 s per builder a core serves; an explicit one is kept. */
static void the_default_build_timeout_should_scale_with_builders_per_core(void **state)
{
    (void)state;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const struct { int n_parallel, build_timeout_ms, want; } cases[] = {
        {0, 0, 10000},                        /* a builder per core */
        {(int)cores, 0, 10000},
        {(int)cores + 1, 0, 20000},           /* one core serves two */
        {(int)(3 * cores), 0, 30000},
        {(int)(3 * cores), 4000, 4000},       /* as asked */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_measure_opts o = {.n_parallel = cases[i].n_parallel, .build_timeout_ms = cases[i].build_timeout_ms, .n_threads = 1};
        at_meas_ocl *m;
        assert_ok(at_meas_cpu_new(&o, &m));
        assert_int_equal(at_meas_ocl_build_timeout_ms(m), cases[i].want);
        at_meas_ocl_free(m);
    }
}

int main(void)
{
    at_strbuf_init(&warnings);
    at_log_set_sink(capture, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(n_parallel_should_be_capped_at_four_workers_per_core),
        cmocka_unit_test(the_default_build_timeout_should_scale_with_builders_per_core),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    at_strbuf_fini(&warnings);
    return rc;
}
