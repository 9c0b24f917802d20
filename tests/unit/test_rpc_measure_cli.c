/* e2e: the built binary (AT_AUTOTVM): `autotvm tracker`, two `autotvm rpc-server` measuring on the
 * default OpenCL device, and `autotvm measure --rpc-key KEY --tracker HOST:PORT` printing v0.2 log
 * lines that match a local `autotvm measure` of the same configs; the servers keep serving after
 * a session; usage errors exit 2 and a device that does not exist stops rpc-server with exit 1. */
#include "tests/support/test_rpc_support.h"
#include "tests/support/test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "records/record.h"
#include "rpc/client.h"

static at_test_cli cli;

/* Runs autotvm to its end; stdout/stderr land in cli.out/cli.err. */
/* Parses the log lines of cli.out: n records of configs want[0..n), all NO_ERROR; costs out. */
static void parse_lines(const int64_t *want, size_t n, double *costs)
{
    const char *p = cli.out;
    for (size_t i = 0; i < n; i++) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        at_rec rec;
        assert_ok(at_rec_parse_line(p, (size_t)(nl - p), &rec));
        assert_string_equal(rec.task_name, "testing/matmul");
        assert_string_equal(rec.args_json, "[64, 64, 64, \"float32\"]");
        assert_int_equal(at_config_index(rec.config), want[i]);
        if (rec.result.err != AT_MEAS_OK) fail_msg("config %lld: error %d", (long long)want[i], (int)rec.result.err);
        assert_int_equal(rec.result.n_costs, 1);
        costs[i] = rec.result.costs_s[0];
        assert_true(costs[i] > 0 && costs[i] < 0.5);
        at_rec_fini(&rec);
        p = nl + 1;
    }
    assert_string_equal(p, "");
}

static void measure_rpc_key_should_print_the_lines_a_local_measure_prints(void **state)
{
    (void)state;
    at_test_daemon tracker = at_test_daemon_start((const char *const[]){"tracker", "--port", "0", NULL});
    char taddr[64];
    snprintf(taddr, sizeof taddr, "127.0.0.1:%d", tracker.port);
    at_test_daemon s1 = at_test_daemon_start((const char *const[]){"rpc-server", "--tracker", taddr, "--key", "cli-pocl", "--port", "0",
                                                 "--cache-dir", cli.cache, NULL});
    at_test_daemon s2 = at_test_daemon_start((const char *const[]){"rpc-server", "--tracker", taddr, "--key", "cli-pocl", "--port", "0",
                                                 "--cache-dir", cli.cache, "--silent", NULL});
    at_test_wait_registered(tracker.port, 2, 10);

    const int64_t want[4] = {0, 9, 24, 48};
    double remote[4], local[4];
    const char *rargs[] = {"measure", "testing/matmul", "--args", "64,64,64", "--config", "0,9,24,48", "--check-correctness",
                           "--number", "2", "--repeat", "3", "--cooldown-ms", "0", "--rpc-key", "cli-pocl", "--tracker",
                           taddr, "--priority", "3", NULL};
    int rc = at_test_cli_run(&cli, rargs);
    if (rc != 0) fail_msg("exit %d: %s", rc, cli.err);
    parse_lines(want, 4, remote);
    /* the summary names the device and the server of every config; two servers took part */
    char a1[64], a2[64];
    snprintf(a1, sizeof a1, " at 127.0.0.1:%d: ", s1.port);
    snprintf(a2, sizeof a2, " at 127.0.0.1:%d: ", s2.port);
    assert_non_null(strstr(cli.err, "config 9 on "));
    assert_true(strstr(cli.err, a1) != NULL && strstr(cli.err, a2) != NULL);

    const char *largs[] = {"measure", "testing/matmul", "--args", "64,64,64", "--config", "0,9,24,48", "--check-correctness",
                           "--number", "2", "--repeat", "3", "--cooldown-ms", "0", "--cache-dir", cli.cache, NULL};
    assert_int_equal(at_test_cli_run(&cli, largs), 0);
    parse_lines(want, 4, local);
    for (size_t i = 0; i < 4; i++) {
        double ratio = remote[i] / local[i];
        if (ratio < 0.02 || ratio > 50) fail_msg("config %lld: remote %g s, local %g s", (long long)want[i], remote[i], local[i]);
    }

    /* the servers registered again after their sessions and serve the next command */
    at_test_wait_registered(tracker.port, 2, 10);
    const char *again[] = {"measure", "testing/matmul", "--args", "64,64,64", "--config", "9", "--cooldown-ms", "0",
                           "--rpc-key", "cli-pocl", "--tracker", taddr, NULL};
    assert_int_equal(at_test_cli_run(&cli, again), 0);
    parse_lines(want + 1, 1, remote);

    assert_int_equal(at_test_daemon_stop(&s1), 0);
    assert_int_equal(at_test_daemon_stop(&s2), 0);
    at_test_daemon_stop(&tracker);
}

static void rpc_options_should_be_checked(void **state)
{
    (void)state;
    const char *const *usage[] = {
        (const char *const[]){"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--rpc-key", "k", NULL},
        (const char *const[]){"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--tracker", "h:1", NULL},
        (const char *const[]){"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--rpc-key", "k", "--tracker",
                              "nohost", NULL},
        (const char *const[]){"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--rpc-key", "k", "--tracker",
                              "h:70000", NULL},
        (const char *const[]){"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--rpc-key", "k", "--tracker",
                              "h:1", "--device", "0", NULL},
        (const char *const[]){"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--priority", "2", NULL},
        (const char *const[]){"measure", "testing/matmul", "--args", "8,8,8", "--config", "0", "--rpc-key", "k", "--tracker",
                              "h:1", "--priority", "high", NULL},
    };
    size_t n = sizeof usage / sizeof usage[0];
    assert_int_equal(n, 7);
    for (size_t i = 0; i < n; i++) {
        int rc = at_test_cli_run(&cli, usage[i]);
        if (rc != 2) fail_msg("case %zu: exit %d, stderr '%s'", i, rc, cli.err);
        assert_non_null(strstr(cli.err, "autotvm measure: error: "));
    }
    /* a device asked for by name must exist: rpc-server stops before it registers anywhere */
    assert_int_equal(at_test_cli_run(&cli, (const char *const[]){"rpc-server", "--key", "k", "--port", "0", "--device", "no-such-device-anywhere",
                                               "--cache-dir", cli.cache, NULL}),
                     1);
    assert_non_null(strstr(cli.err, "autotvm: error: no OpenCL device matches 'no-such-device-anywhere'"));
    assert_string_equal(cli.out, "");
    assert_int_equal(at_test_cli_run(&cli, (const char *const[]){"rpc-server", "--help", NULL}), 0);
    assert_non_null(strstr(cli.out, "--device SPEC"));
    assert_int_equal(at_test_cli_run(&cli, (const char *const[]){"measure", "--help", NULL}), 0);
    assert_non_null(strstr(cli.out, "--rpc-key KEY"));
}

static int setup(void **state)
{
    (void)state;
    at_test_cli_open(&cli, "rpc_measure_cli");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_test_cli_close(&cli);
    return 0;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    at_log_set_level(AT_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(measure_rpc_key_should_print_the_lines_a_local_measure_prints),
        cmocka_unit_test(rpc_options_should_be_checked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
