/* e2e: `autotvm devices` and `autotvm measure` (the built binary, AT_AUTOTVM) on the default
 * OpenCL device: listing, v0.2 log lines that parse back with the right configs and results,
 * WRONG_ANSWER-free verification, and exit codes 1/2 with their messages. */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "records/record.h"

static char work[4096], cache[4096];
static char *out_text, *err_text;

/* Runs autotvm with args (NULL-terminated); stdout/stderr land in out_text/err_text. */
static int run(const char *const *args)
{
    return at_test_cli_finish(work, at_test_cli_start(work, args), &out_text, &err_text);
}

static int setup(void **state)
{
    (void)state;
    snprintf(work, sizeof work, "%s", at_test_tmpdir("measure_cli"));
    const char *bin = getenv("AT_BINARY_DIR");
    snprintf(cache, sizeof cache, "%s/pocl-cache", bin && *bin ? bin : ".");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_free(out_text);
    at_free(err_text);
    return 0;
}

static void devices_should_list_the_default_device_with_its_limits(void **state)
{
    (void)state;
    const char *args[] = {"devices", "--cache-dir", cache, NULL};
    assert_int_equal(run(args), 0);
    assert_non_null(strstr(out_text, "0: "));
    assert_non_null(strstr(out_text, "(default)"));
    assert_non_null(strstr(out_text, "max work-group "));
    const char *bad[] = {"devices", "--device", "no-such-device-anywhere", "--cache-dir", cache, NULL};
    assert_int_equal(run(bad), 1);
    assert_non_null(strstr(err_text, "autotvm: error: no OpenCL device matches 'no-such-device-anywhere'"));
}

static void measure_should_print_one_log_line_per_config(void **state)
{
    (void)state;
    const char *args[] = {"measure", "testing/matmul", "--args", "32,32,32", "--config", "0,13", "--check-correctness",
                          "--number", "2", "--repeat", "3", "--cooldown-ms", "0", "--cache-dir", cache, NULL};
    assert_int_equal(run(args), 0);
    /* two lines, each a v0.2 record of the right config with one (trimmed) cost */
    const char *p = out_text;
    const int64_t want[2] = {0, 13};
    for (int i = 0; i < 2; i++) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        at_rec rec;
        assert_ok(at_rec_parse_line(p, (size_t)(nl - p), &rec));
        assert_string_equal(rec.task_name, "testing/matmul");
        assert_string_equal(rec.args_json, "[32, 32, 32, \"float32\"]");
        assert_string_equal(rec.target_str, "opencl");
        assert_int_equal(at_config_index(rec.config), want[i]);
        assert_int_equal(rec.result.err, AT_MEAS_OK);
        assert_int_equal(rec.result.n_costs, 1);
        assert_true(rec.result.costs_s[0] > 0);
        at_rec_fini(&rec);
        p = nl + 1;
    }
    assert_string_equal(p, "");
    assert_non_null(strstr(err_text, "config 13 on "));
    assert_non_null(strstr(err_text, "GFLOPS"));
}

static void measure_should_report_usage_and_input_errors(void **state)
{
    (void)state;
    const char *no_args[] = {"measure", "testing/matmul", "--config", "0", NULL};
    assert_int_equal(run(no_args), 2);
    assert_non_null(strstr(err_text, "missing --args"));
    const char *bad_list[] = {"measure", "testing/matmul", "--args", "8,8,8", "--config", "1,x", NULL};
    assert_int_equal(run(bad_list), 2);
    const char *bad_timeout[] = {"measure", "testing/matmul", "--args", "8,8,8", "--config", "1", "--timeout", "-3", NULL};
    assert_int_equal(run(bad_timeout), 2);
    const char *no_tmpl[] = {"measure", "testing/nothing", "--args", "8,8,8", "--config", "0", NULL};
    assert_int_equal(run(no_tmpl), 2); /* a usage error (issue 19) */
    assert_non_null(strstr(err_text, "no template 'testing/nothing' for target opencl"));
    const char *range[] = {"measure", "testing/matmul", "--args", "8,8,8", "--config", "16", NULL};
    assert_int_equal(run(range), 1);
    assert_non_null(strstr(err_text, "config 16 of testing/matmul (the space has 16)"));
    const char *dev[] = {"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--device", "no-such-device-anywhere",
                         "--cache-dir", cache, NULL};
    assert_int_equal(run(dev), 1);
    assert_non_null(strstr(err_text, "no OpenCL device matches"));
    const char *help[] = {"measure", "--help", NULL};
    assert_int_equal(run(help), 0);
    assert_non_null(strstr(out_text, "--check-correctness"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(devices_should_list_the_default_device_with_its_limits),
        cmocka_unit_test(measure_should_print_one_log_line_per_config),
        cmocka_unit_test(measure_should_report_usage_and_input_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
