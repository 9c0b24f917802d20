/* The built autotvm binary: `tracker`, `rpc-server`, `query-tracker` as separate processes on
 * loopback; query-tracker's exact text for a known state, signals, usage errors. */
#include "tests/support/test_rpc_support.h"
#include "tests/support/test_support.h"

#include <errno.h>
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
#include "core/strbuf.h"
#include "rpc/client.h"

static char binary[4096];

typedef struct proc {
    pid_t pid;
    int   out; /* read end of its stdout */
} proc;

/* Starts autotvm with args (NULL-terminated), stdout to a pipe, stderr to /dev/null, env extra
 * "NAME=value" (or NULL). */
static proc spawn(const char *const *args, const char *env)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 1);
        FILE *devnull = freopen("/dev/null", "w", stderr);
        (void)devnull;
        close(p[0]);
        close(p[1]);
        if (env) {
            const char *eq = strchr(env, '=');
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(eq - env), env);
            setenv(name, eq + 1, 1);
        }
        char *argv[16];
        int n = 0;
        argv[n++] = binary;
        for (; args[n - 1] && n < 15; n++) argv[n] = (char *)(uintptr_t)args[n - 1];
        argv[n] = NULL;
        execv(binary, argv);
        _exit(127);
    }
    close(p[1]);
    return (proc){pid, p[0]};
}

/* Reads the child's stdout until EOF or the deadline. */
static void read_all(proc *pr, at_strbuf *sb, double seconds)
{
    double end = at_clock_mono_s() + seconds;
    for (;;) {
        struct pollfd pf = {.fd = pr->out, .events = POLLIN};
        int left = (int)((end - at_clock_mono_s()) * 1000);
        if (left <= 0 || poll(&pf, 1, left) <= 0) fail_msg("child output timed out: '%s'", at_strbuf_cstr(sb));
        char buf[4096];
        ssize_t k = read(pr->out, buf, sizeof buf);
        if (k <= 0) return;
        at_strbuf_append(sb, buf, (size_t)k);
    }
}

/* Reads the "bind to HOST:PORT" line and returns PORT. */
static int bound_port(proc *pr)
{
    char line[128];
    size_t n = 0;
    double end = at_clock_mono_s() + 10;
    while (n < sizeof line - 1) {
        struct pollfd pf = {.fd = pr->out, .events = POLLIN};
        int left = (int)((end - at_clock_mono_s()) * 1000);
        if (left <= 0 || poll(&pf, 1, left) <= 0) fail_msg("no 'bind to' line");
        if (read(pr->out, line + n, 1) != 1) fail_msg("child exited before binding");
        if (line[n] == '\n') break;
        n++;
    }
    line[n] = '\0';
    int port = 0;
    assert_int_equal(sscanf(line, "bind to 127.0.0.1:%d", &port), 1);
    return port;
}

static int wait_exit(pid_t pid, double seconds)
{
    double end = at_clock_mono_s() + seconds;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (at_clock_mono_s() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fail_msg("process %d did not exit", (int)pid);
        }
        poll(NULL, 0, 10);
    }
}

static int run_to_end(const char *const *args, const char *env, at_strbuf *out)
{
    proc pr = spawn(args, env);
    read_all(&pr, out, 10);
    close(pr.out);
    return wait_exit(pr.pid, 10);
}

static void query_tracker_should_print_tvm_tables_for_running_servers(void **state)
{
    (void)state;
    proc tracker = spawn((const char *const[]){"tracker", "--port", "0", "--stop-key", "cli-stop", NULL}, NULL);
    int tp = bound_port(&tracker);
    char taddr[64], tport[16];
    snprintf(taddr, sizeof taddr, "127.0.0.1:%d", tp);
    snprintf(tport, sizeof tport, "%d", tp);
    proc s1 = spawn((const char *const[]){"rpc-server", "--tracker", taddr, "--key", "rk3399", "--port", "0", NULL}, NULL);
    proc s2 = spawn((const char *const[]){"rpc-server", "--tracker", taddr, "--key", "rasp3b", "--port", "0",
                                          "--auth-key", "k3y", NULL},
                    NULL);
    int p1 = bound_port(&s1), p2 = bound_port(&s2);
    at_test_wait_registered(tp, 2, 10);

    at_strbuf out, want;
    at_strbuf_init(&out);
    at_strbuf_init(&want);
    char a1[32], a2[32];
    snprintf(a1, sizeof a1, "127.0.0.1:%d", p1);
    snprintf(a2, sizeof a2, "127.0.0.1:%d", p2);
    at_strbuf_printf(&want,
                     "Tracker address 127.0.0.1:%d\n"
                     "\n"
                     "Server List\n"
                     "------------------------------\n"
                     "server-address           key\n"
                     "------------------------------\n"
                     "%21s    server:rasp3b\n"
                     "%21s    server:rk3399\n"
                     "------------------------------\n"
                     "\n"
                     "Queue Status\n"
                     "------------------------------\n"
                     "key      total  free  pending\n"
                     "------------------------------\n"
                     "rasp3b   1      1     0      \n"
                     "rk3399   1      1     0      \n"
                     "------------------------------\n"
                     "\n",
                     tp, a2, a1);
    assert_int_equal(run_to_end((const char *const[]){"query-tracker", "--port", tport, NULL}, NULL, &out), 0);
    assert_string_equal(at_strbuf_cstr(&out), want.data);
    /* the port can come from TVM's environment variable instead */
    char env[64];
    snprintf(env, sizeof env, "TVM_TRACKER_PORT=%d", tp);
    at_strbuf_clear(&out);
    assert_int_equal(run_to_end((const char *const[]){"query-tracker", NULL}, env, &out), 0);
    assert_string_equal(at_strbuf_cstr(&out), want.data);

    /* a session with the CLI server: its auth key is enforced; a payload that is no measure request is refused */
    at_rpc_request_opts ro = {
        .tracker_host = "127.0.0.1", .tracker_port = tp, .key = "rasp3b", .request_timeout_ms = 5000,
        .max_retry = 1, .session = {.auth_key = "nope", .io_timeout_ms = 3000},
    };
    at_rpc_session *s;
    assert_int_equal(at_rpc_request_session(&ro, &s), AT_EIO);
    at_test_wait_registered(tp, 2, 10);
    double end = at_clock_mono_s() + 5;
    ro.session.auth_key = "k3y";
    at_status st;
    while ((st = at_rpc_request_session(&ro, &s)) != AT_OK && at_clock_mono_s() < end) poll(NULL, 0, 20);
    assert_ok(st);
    assert_ok(at_rpc_session_ping(s, "ping", 4, 0));
    unsigned char *reply;
    size_t n;
    assert_int_equal(at_rpc_session_measure(s, "x", 1, 0, &reply, &n), AT_EPARSE);
    at_rpc_session_free(s);

    /* SIGTERM stops a server cleanly; STOP with the key stops the tracker */
    kill(s1.pid, SIGTERM);
    kill(s2.pid, SIGTERM);
    assert_int_equal(wait_exit(s1.pid, 10), 0);
    assert_int_equal(wait_exit(s2.pid, 10), 0);
    at_rpc_tclient *c;
    assert_ok(at_rpc_tclient_connect("127.0.0.1", tp, NULL, &c));
    assert_ok(at_rpc_tclient_stop(c, "cli-stop"));
    at_rpc_tclient_free(c);
    assert_int_equal(wait_exit(tracker.pid, 10), 0);
    close(tracker.out);
    close(s1.out);
    close(s2.out);
    at_strbuf_fini(&out);
    at_strbuf_fini(&want);
}

static void rpc_commands_should_reject_bad_arguments_with_exit_code_2(void **state)
{
    (void)state;
    const char *const *cases[] = {
        (const char *const[]){"rpc-server", NULL},
        (const char *const[]){"rpc-server", "--key", "a", "--tracker", "nohost", NULL},
        (const char *const[]){"rpc-server", "--key", "a", "--tracker", "h:99999", NULL},
        (const char *const[]){"rpc-server", "--key", "a", "--session-timeout", "soon", NULL},
        (const char *const[]){"tracker", "--port", "x", NULL},
        (const char *const[]){"tracker", "--port", "70000", NULL},
        (const char *const[]){"query-tracker", "--port", "0", NULL},
        (const char *const[]){"query-tracker", "extra", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_strbuf out;
        at_strbuf_init(&out);
        int rc = run_to_end(cases[i], NULL, &out);
        if (rc != 2) fail_msg("case %zu (%s %s): exit %d", i, cases[i][0], cases[i][1] ? cases[i][1] : "", rc);
        at_strbuf_fini(&out);
    }
    at_strbuf out;
    at_strbuf_init(&out);
    assert_int_equal(run_to_end((const char *const[]){"rpc-server", "--help", NULL}, NULL, &out), 0);
    assert_non_null(strstr(out.data, "usage: autotvm rpc-server"));
    at_strbuf_fini(&out);
}

int main(void)
{
    const char *dir = getenv("AT_BINARY_DIR");
    snprintf(binary, sizeof binary, "%s/cli/autotvm", dir && *dir ? dir : ".");
    if (access(binary, X_OK) != 0) {
        fprintf(stderr, "test_rpc_cli: %s is not built\n", binary);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    at_log_set_level(AT_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(query_tracker_should_print_tvm_tables_for_running_servers),
        cmocka_unit_test(rpc_commands_should_reject_bad_arguments_with_exit_code_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
