/* autotvm rpc-server: TVM's `python -m tvm.exec.rpc_server` for our session protocol; the work
 * is rpc/server.c (sessions) and measure/rpc_handler.c (measuring on the local device); this file
 * parses argv, checks the device once and turns SIGINT/SIGTERM into a clean stop. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/numfmt.h"
#include "measure/rpc_handler.h"
#include "rpc/server.h"
#include "rpc/tracker.h"

static const char usage[] =
    "usage: autotvm rpc-server --key KEY [--tracker HOST:PORT] [--host HOST] [--port PORT]\n"
    "                          [--port-end END] [--custom-addr ADDR] [--auth-key KEY]\n"
    "                          [--session-timeout S] [--seed N] [--device SPEC] [--cache-dir DIR]\n"
    "                          [--silent]\n"
    "\n"
    "Serves measurement sessions for a device. With --tracker it registers there under KEY as\n"
    "TVM's rpc_server does (and renews its match key while idle), so runners find it by KEY\n"
    "(autotvm measure --rpc-key KEY --tracker HOST:PORT). Each session runs in its own process,\n"
    "killed at the session's timeout; it rebuilds the configs a runner sends and measures them on\n"
    "the local OpenCL device, each build and run in a worker process of its own, so a crashing\n"
    "kernel costs one result. The server then registers again. Prints 'bind to HOST:PORT' once\n"
    "listening; runs until SIGINT/SIGTERM. The protocols are described in rpc/PROTOCOL.md.\n"
    "\n"
    "options:\n"
    "  --key KEY            device key, e.g. rk3399 (required)\n"
    "  --tracker HOST:PORT  tracker to register with (default: none; clients then use KEY as match key)\n"
    "  --host HOST          address to bind (default 127.0.0.1; 0.0.0.0 for every interface)\n"
    "  --port PORT          first port to try (default 9090; 0: any free port)\n"
    "  --port-end END       ports [PORT, END) are tried in turn (default 9199)\n"
    "  --custom-addr ADDR   address reported to the tracker (default: the one it sees)\n"
    "  --auth-key KEY       shared key every client must prove (default: none)\n"
    "  --session-timeout S  longest session, in seconds, whatever the client asks (default: none)\n"
    "  --seed N             seed of the match keys (default: from /dev/urandom)\n"
    "  --device SPEC        OpenCL device to measure on: index or substring of \"platform / device\"\n"
    "                       (autotvm devices; default: PoCL). Checked at start: no match is an error\n"
    "  --cache-dir DIR      PoCL's kernel cache (POCL_CACHE_DIR)\n"
    "  --silent             print warnings and errors only\n"
    "  -h, --help           show this help\n";

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* SIGINT/SIGTERM set the stop flag (no SA_RESTART, so poll() returns at once); SIGPIPE ignored. */
static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

int at_cmd_rpc_server(int argc, char **argv)
{
    const char *key = NULL, *tracker = NULL, *host = "127.0.0.1", *port_s = NULL, *port_end_s = NULL;
    const char *custom_addr = NULL, *auth_key = NULL, *timeout_s = NULL, *seed_s = NULL, *device = NULL,
               *cache_dir = NULL;
    int silent = 0;
    const at_cli_opt opts[] = {
        {"key", &key, NULL},           {"tracker", &tracker, NULL},         {"host", &host, NULL},
        {"port", &port_s, NULL},       {"port-end", &port_end_s, NULL},     {"custom-addr", &custom_addr, NULL},
        {"auth-key", &auth_key, NULL}, {"session-timeout", &timeout_s, NULL}, {"seed", &seed_s, NULL},
        {"device", &device, NULL},     {"cache-dir", &cache_dir, NULL},     {"silent", NULL, &silent},
    };
    const char *cmd = "rpc-server";
    size_t n_pos;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], NULL, 0, &n_pos, cmd);
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (!key || !*key) return at_cli_usage_error(cmd, "--key is required");
    long port = 9090, port_end = 9199, seed = 0;
    if (port_s && (rc = at_cli_parse_long(cmd, "port", port_s, &port))) return rc;
    if (port_end_s && (rc = at_cli_parse_long(cmd, "port-end", port_end_s, &port_end))) return rc;
    if (seed_s && (rc = at_cli_parse_long(cmd, "seed", seed_s, &seed))) return rc;
    if (port > 65535 || port_end > 65536) return at_cli_usage_error(cmd, "ports must be below 65536");
    double session_timeout = 0;
    if (timeout_s && (at_parse_double(timeout_s, &session_timeout) != 0 || !(session_timeout >= 0) ||
                      session_timeout > 1e9))
        return at_cli_usage_error(cmd, "--session-timeout expects a non-negative number of seconds, got '%s'", timeout_s);

    /* HOST:PORT split at the last ':' as TVM does; "[v6addr]:port" loses its brackets */
    char *thost = NULL;
    long tport = 0;
    if (tracker) {
        const char *colon = strrchr(tracker, ':');
        if (!colon || colon == tracker) return at_cli_usage_error(cmd, "--tracker expects HOST:PORT, got '%s'", tracker);
        if ((rc = at_cli_parse_long(cmd, "tracker", colon + 1, &tport))) return rc;
        if (tport < 1 || tport > 65535) return at_cli_usage_error(cmd, "--tracker port must be in 1..65535");
        const char *h = tracker;
        size_t hlen = (size_t)(colon - tracker);
        if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') h++, hlen -= 2;
        if (!(thost = at_strndup(h, hlen))) return at_cli_fail(AT_ENOMEM);
    }
    if (silent) at_log_set_level(AT_LOG_WARN);

    /* the device is opened once here, in a worker process (this one never touches OpenCL: each
     * session forks its own workers). A device asked for by name must exist; without --device a
     * missing default device leaves a server that answers every MEASURE with the reason. */
    at_meas_rpc_handler_opts ho = {.device = device, .cache_dir = cache_dir};
    at_meas_rpc_handler *handler = NULL;
    at_status st = at_meas_rpc_handler_new(&ho, &handler);
    if (st != AT_OK && (device || st == AT_ENOMEM)) {
        at_free(thost);
        return at_cli_fail(st);
    }
    if (st != AT_OK) {
        fprintf(stderr, "autotvm rpc-server: warning: no measurement device (%s); OpenCL measurements will fail (VTA ones run on the simulator)\n",
                at_last_error());
        ho.no_probe = true;
        if ((st = at_meas_rpc_handler_new(&ho, &handler)) != AT_OK) {
            at_free(thost);
            return at_cli_fail(st);
        }
    } else if (!silent) {
        const at_ocl_device_info *dev = at_meas_rpc_handler_device(handler);
        fprintf(stderr, "autotvm rpc-server: measuring on %s / %s\n", dev->platform, dev->name);
    }

    at_rpc_server_opts o = {
        .host = host,
        .port = port == 0 ? AT_RPC_PORT_ANY : (int)port,
        .port_end = (int)port_end,
        .tracker_host = thost,
        .tracker_port = (int)tport,
        .key = key,
        .custom_addr = custom_addr,
        .auth_key = auth_key,
        .seed = (uint64_t)seed,
        .session_timeout_s = session_timeout,
        .stop_flag = &stop_flag,
        .handler = at_meas_rpc_handler_hooks(handler),
    };
    install_signals();
    at_rpc_server *s;
    st = at_rpc_server_new(&o, &s);
    at_free(thost);
    if (st != AT_OK) {
        at_meas_rpc_handler_free(handler);
        return at_cli_fail(st);
    }
    printf("bind to %s:%d\n", host, at_rpc_server_port(s));
    fflush(stdout);
    st = at_rpc_server_run(s);
    at_rpc_server_free(s);
    at_meas_rpc_handler_free(handler);
    return st == AT_OK ? 0 : at_cli_fail(st);
}
