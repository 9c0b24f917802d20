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

static at_test_cli cli;

static int setup(void **state)
{
    (void)state;
    at_test_cli_open(&cli, "measure_cli");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_test_cli_close(&cli);
    return 0;
}

static void devices_should_list_the_default_device_with_its_limits(void **state)
{
    (void)state;
    const char *args[] = {"devices", "--cache-dir", cli.cache, NULL};
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    assert_non_null(strstr(cli.out, "0: "));
    assert_non_null(strstr(cli.out, "(default)"));
    assert_non_null(strstr(cli.out, "max work-group "));
    const char *bad[] = {"devices", "--device", "no-such-device-anywhere", "--cache-dir", cli.cache, NULL};
    assert_int_equal(at_test_cli_run(&cli, bad), 1);
    assert_non_null(strstr(cli.err, "autotvm: error: no OpenCL device matches 'no-such-device-anywhere'"));
}

static void measure_should_print_one_log_line_per_config(void **state)
{
    (void)state;
    const char *args[] = {"measure", "testing/matmul", "--args", "32,32,32", "--config", "0,13", "--check-correctness",
                          "--number", "2", "--repeat", "3", "--cooldown-ms", "0", "--cache-dir", cli.cache, NULL};
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    /* two lines, each a v0.2 record of the right config with one (trimmed) cost */
    const char *p = cli.out;
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
    assert_non_null(strstr(cli.err, "config 13 on "));
    assert_non_null(strstr(cli.err, "GFLOPS"));
}

static void measure_should_report_usage_and_input_errors(void **state)
{
    (void)state;
    const char *no_args[] = {"measure", "testing/matmul", "--config", "0", NULL};
    assert_int_equal(at_test_cli_run(&cli, no_args), 2);
    assert_non_null(strstr(cli.err, "missing --args"));
    const char *bad_list[] = {"measure", "testing/matmul", "--args", "8,8,8", "--config", "1,x", NULL};
    assert_int_equal(at_test_cli_run(&cli, bad_list), 2);
    const char *bad_timeout[] = {"measure", "testing/matmul", "--args", "8,8,8", "--config", "1", "--timeout", "-3", NULL};
    assert_int_equal(at_test_cli_run(&cli, bad_timeout), 2);
    const char *no_tmpl[] = {"measure", "testing/nothing", "--args", "8,8,8", "--config", "0", NULL};
    assert_int_equal(at_test_cli_run(&cli, no_tmpl), 2); /* a usage error (issue 19) */
    assert_non_null(strstr(cli.err, "no template 'testing/nothing' for target opencl"));
    const char *range[] = {"measure", "testing/matmul", "--args", "8,8,8", "--config", "16", NULL};
    assert_int_equal(at_test_cli_run(&cli, range), 1);
    assert_non_null(strstr(cli.err, "config 16 of testing/matmul (the space has 16)"));
    const char *dev[] = {"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--device", "no-such-device-anywhere",
                         "--cache-dir", cli.cache, NULL};
    assert_int_equal(at_test_cli_run(&cli, dev), 1);
    assert_non_null(strstr(cli.err, "no OpenCL device matches"));
    const char *help[] = {"measure", "--help", NULL};
    assert_int_equal(at_test_cli_run(&cli, help), 0);
    assert_non_null(strstr(cli.out, "--check-correctness"));
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
