/* e2e: the built binary (AT_AUTOTVM): `autotvm tracker`, one `autotvm rpc-server` on the default
 * OpenCL device, and `autotvm tune-task --rpc-key KEY --tracker HOST:PORT` appending one valid
 * record per trial to its log; the rpc options of tune-task and tune are checked (exit 2) and
 * documented. Every child is killed in the teardown, so a failed assertion leaves none behind. */
#include "tests/support/test_rpc_support.h"
#include "tests/support/test_support.h"

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
#include "records/log.h"
#include "rpc/client.h"

static char work[4096], cache[4096];
static char *out_text, *err_text;

/* the tracker and servers started by the running test; the teardown stops those still alive */
static at_test_daemon daemons[4];
static size_t n_daemons;

/* Runs autotvm to its end; stdout/stderr land in out_text/err_text. */
static int run(const char *const *args)
{
    return at_test_cli_finish(work, at_test_cli_start(work, args), &out_text, &err_text);
}

/* Starts a long-running autotvm (tracker / rpc-server), records it for the teardown and returns
 * the port of its "bind to 127.0.0.1:PORT" line. */
static int start(const char *const *args)
{
    assert_true(n_daemons < sizeof daemons / sizeof daemons[0]);
    daemons[n_daemons] = at_test_daemon_start(args);
    return daemons[n_daemons++].port;
}

/* The servers first (last started, first stopped). */
static void stop_all(void)
{
    while (n_daemons > 0) at_test_daemon_stop(&daemons[--n_daemons]);
}

static void tune_task_rpc_key_should_log_every_trial(void **state)
{
    (void)state;
    char taddr[64];
    snprintf(taddr, sizeof taddr, "127.0.0.1:%d", start((const char *const[]){"tracker", "--port", "0", NULL}));
    int tport = atoi(strchr(taddr, ':') + 1);
    start((const char *const[]){"rpc-server", "--tracker", taddr, "--key", "k", "--port", "0", "--cache-dir", cache,
                                "--silent", NULL});
    at_test_wait_registered(tport, 1, 10);

    char log_path[4200];
    snprintf(log_path, sizeof log_path, "%s/tune.log", work);
    int rc = run((const char *const[]){"tune-task", "testing/matmul", "--args", "64,64,64", "--tuner", "random",
                                       "--n-trial", "4", "--log", log_path, "--rpc-key", "k", "--tracker", taddr,
                                       "--cooldown-ms", "0", NULL});
    if (rc != 0) fail_msg("exit %d: %s", rc, err_text);
    assert_non_null(strstr(out_text, " Done."));

    at_rec_log *log = NULL;
    assert_ok(at_rec_log_load_file(log_path, &log));
    assert_int_equal(log->stats.lines, 4);
    assert_int_equal(log->n, 4);
    int64_t seen[4];
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        assert_string_equal(r->task_name, "testing/matmul");
        assert_string_equal(r->args_json, "[64, 64, 64, \"float32\"]");
        if (r->result.err != AT_MEAS_OK) fail_msg("record %zu: error %d", i, (int)r->result.err);
        assert_true(r->result.n_costs >= 1);
        assert_true(r->result.costs_s[0] > 0 && r->result.costs_s[0] < 0.5);
        seen[i] = at_config_index(r->config);
        for (size_t j = 0; j < i; j++) assert_true(seen[j] != seen[i]); /* the tuner never repeats */
    }
    at_rec_log_free(log);
    stop_all();
}

static void rpc_options_should_be_checked(void **state)
{
    (void)state;
    const char *const *usage[] = {
        (const char *const[]){"tune-task", "testing/matmul", "--args", "8,8,8", "--tuner", "random", "--n-trial", "1",
                              "--log", "x.log", "--rpc-key", "k", NULL},
        (const char *const[]){"tune-task", "testing/matmul", "--args", "8,8,8", "--tuner", "random", "--n-trial", "1",
                              "--log", "x.log", "--rpc-key", "k", "--tracker", "nohost", NULL},
        (const char *const[]){"tune-task", "testing/matmul", "--args", "8,8,8", "--tuner", "random", "--n-trial", "1",
                              "--log", "x.log", "--rpc-key", "k", "--tracker", "h:1", "--device", "0", NULL},
        (const char *const[]){"tune-task", "testing/matmul", "--args", "8,8,8", "--tuner", "random", "--n-trial", "1",
                              "--log", "x.log", "--auth-key", "s", NULL},
        (const char *const[]){"tune", "mobilenet", "--target", "mali", "--tuner", "random", "--tracker", "h:1", NULL},
        (const char *const[]){"tune", "mobilenet", "--target", "mali", "--tuner", "random", "--rpc-key", "k",
                              "--tracker", "h:70000", NULL},
        (const char *const[]){"tune", "mobilenet", "--target", "mali", "--tuner", "random", "--priority", "2", NULL},
    };
    size_t n = sizeof usage / sizeof usage[0];
    assert_int_equal(n, 7);
    for (size_t i = 0; i < n; i++) {
        int rc = run(usage[i]);
        if (rc != 2) fail_msg("case %zu: exit %d, stderr '%s'", i, rc, err_text);
        const char *want = i < 4 ? "autotvm tune-task: error: " : "autotvm tune: error: ";
        if (!strstr(err_text, want)) fail_msg("case %zu: stderr '%s'", i, err_text);
    }
    assert_int_equal(run((const char *const[]){"tune-task", "--help", NULL}), 0);
    assert_non_null(strstr(out_text, "--rpc-key KEY"));
    assert_non_null(strstr(out_text, "--tracker HOST:PORT"));
    assert_int_equal(run((const char *const[]){"tune", "--help", NULL}), 0);
    assert_non_null(strstr(out_text, "--rpc-key KEY"));
    assert_non_null(strstr(out_text, "--auth-key KEY"));
    assert_non_null(strstr(out_text, "still runs here, on --device"));
}

static int setup(void **state)
{
    (void)state;
    snprintf(work, sizeof work, "%s", at_test_tmpdir("tune_rpc"));
    const char *bin = getenv("AT_BINARY_DIR");
    snprintf(cache, sizeof cache, "%s/pocl-cache", bin && *bin ? bin : ".");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    stop_all();
    at_free(out_text);
    at_free(err_text);
    out_text = err_text = NULL;
    return 0;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    at_log_set_level(AT_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(tune_task_rpc_key_should_log_every_trial, setup, teardown),
        cmocka_unit_test_setup_teardown(rpc_options_should_be_checked, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
