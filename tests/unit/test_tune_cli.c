/* e2e: `autotvm tune-task` (the built binary, AT_AUTOTVM) on the default OpenCL device with the
 * testing/matmul template: TVM's progress line, one v0.2 log line per trial appended to the
 * log, transfer learning from that log, and usage errors (exit 2). */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "records/log.h"
#include "records/record.h"

static char log_path[4200];
static at_test_cli cli;

static int setup(void **state)
{
    (void)state;
    at_test_cli_open(&cli, "tune_cli");
    snprintf(log_path, sizeof log_path, "%s/tune.log", cli.work);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_test_cli_close(&cli);
    return 0;
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static void tune_task_should_log_every_trial_and_show_tvms_progress(void **state)
{
    (void)state;
    const char *args[] = {"tune-task", "testing/matmul", "--args", "64,64,64", "--tuner", "random", "--n-trial", "6",
                          "--log", log_path, "--seed", "3", "--n-parallel", "2", "--cooldown-ms", "0",
                          "--cache-dir", cli.cache, "--prefix", "[Task  2/16] ", NULL};
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    /* the zero line, then one per batch, each after "\r"; " Done." at the end. Random search
     * learns nothing from results, so its 6 proposals go to the pool in one batch (builds
     * overlapping runs) instead of 3 of n_parallel */
    assert_int_equal(count(cli.out, "\r[Task  2/16]  Current/Best: "), 2);
    assert_non_null(
        strstr(cli.out, "\r[Task  2/16]  Current/Best:    0.00/   0.00 GFLOPS | Progress: (0/6) | 0.00 s"));
    assert_non_null(strstr(cli.out, "| Progress: (6/6) | "));
    assert_non_null(strstr(cli.out, " s Done.\n"));
    assert_non_null(strstr(cli.err, "best of 6 trials"));
    assert_null(strstr(cli.err, "no valid config")); /* only when nothing measured ran */
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(log_path, &log));
    assert_int_equal(log->n, 6);
    assert_int_equal(log->stats.malformed, 0);
    for (size_t i = 0; i < log->n; i++) {
        assert_string_equal(log->recs[i].task_name, "testing/matmul");
        assert_string_equal(log->recs[i].args_json, "[64, 64, 64, \"float32\"]");
        assert_int_equal(log->recs[i].result.err, AT_MEAS_OK);
        for (size_t j = 0; j < i; j++)
            assert_true(at_config_index(log->recs[i].config) != at_config_index(log->recs[j].config));
    }
    at_rec_log_free(log);
}

static void tune_task_should_learn_from_a_history_log(void **state)
{
    (void)state;
    char log2[4300];
    snprintf(log2, sizeof log2, "%s/tune2.log", cli.work);
    const char *args[] = {"tune-task", "testing/matmul", "--args", "64,32,64", "--tuner", "xgb_knob", "--n-trial", "4",
                          "--log", log2, "--history", log_path, "--plan-size", "4", "--n-parallel", "2",
                          "--cooldown-ms", "0", "--cache-dir", cli.cache, "--min-seed-records", "6", NULL};
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    assert_non_null(strstr(cli.err, "history: 6 records of testing/matmul from 1 workloads"));
    assert_non_null(strstr(cli.err, "6 learned from"));
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(log2, &log));
    assert_int_equal(log->n, 4);
    at_rec_log_free(log);
    /* TVM's default (min_seed_records 500): 6 records teach nothing */
    args[20] = NULL;
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    assert_non_null(strstr(cli.err, "history: 6 records of testing/matmul from 1 workloads"));
    assert_non_null(strstr(cli.err, "0 learned from"));
}

static void tune_task_should_refuse_bad_usage(void **state)
{
    (void)state;
    const char *unknown[] = {"tune-task", "testing/matmul", "--args", "64,64,64", "--tuner", "annealing",
                             "--n-trial", "4", "--log", log_path, NULL};
    assert_int_equal(at_test_cli_run(&cli, unknown), 2);
    assert_non_null(strstr(cli.err, "unknown tuner 'annealing'"));
    const char *no_log[] = {"tune-task", "testing/matmul", "--args", "64,64,64", "--tuner", "xgb", "--n-trial", "4",
                            NULL};
    assert_int_equal(at_test_cli_run(&cli, no_log), 2);
    assert_non_null(strstr(cli.err, "missing --log"));
    const char *zero[] = {"tune-task", "testing/matmul", "--args", "64,64,64", "--tuner", "xgb", "--n-trial", "0",
                          "--log", log_path, NULL};
    assert_int_equal(at_test_cli_run(&cli, zero), 2);
    const char *bad_template[] = {"tune-task", "no/such", "--args", "1", "--tuner", "xgb", "--n-trial", "1",
                                  "--log", log_path, NULL};
    assert_int_equal(at_test_cli_run(&cli, bad_template), 2); /* a usage error (issue 19) */
    assert_non_null(strstr(cli.err, "autotvm tune-task: error: no template 'no/such' for target opencl"));
    const char *help[] = {"tune-task", "--help", NULL};
    assert_int_equal(at_test_cli_run(&cli, help), 0);
    assert_non_null(strstr(cli.out, "xgb_rank_binary_curve"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tune_task_should_log_every_trial_and_show_tvms_progress),
        cmocka_unit_test(tune_task_should_learn_from_a_history_log),
        cmocka_unit_test(tune_task_should_refuse_bad_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
