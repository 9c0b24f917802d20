/* autotvm tracker: TVM's `python -m tvm.exec.rpc_tracker`; the work is rpc/tracker.c, this file
 * parses argv, reports the bound address and turns SIGINT/SIGTERM into a clean stop. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/log.h"
#include "rpc/tracker.h"

static const char usage[] =
    "usage: autotvm tracker [--host HOST] [--port PORT] [--port-end END] [--stop-key KEY] [--silent]\n"
    "\n"
    "Runs an RPC tracker speaking TVM's tracker protocol: rpc-servers (ours or TVM's) register\n"
    "under a device key, clients request a free one; requests are served by priority, then in\n"
    "arrival order. Prints 'bind to HOST:PORT' once listening; runs until SIGINT/SIGTERM or a\n"
    "STOP message carrying the stop key.\n"
    "\n"
    "options:\n"
    "  --host HOST     address to bind (default 127.0.0.1; 0.0.0.0 for every interface)\n"
    "  --port PORT     first port to try (default 9190; 0: any free port)\n"
    "  --port-end END  ports [PORT, END) are tried in turn (default 9199)\n"
    "  --stop-key KEY  key a STOP message must carry (default: a random one, i.e. no remote stop)\n"
    "  --silent        print warnings and errors only\n"
    "  -h, --help      show this help\n";

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

int at_cmd_tracker(int argc, char **argv)
{
    const char *host = "127.0.0.1", *port_s = NULL, *port_end_s = NULL, *stop_key = NULL;
    int silent = 0;
    const at_cli_opt opts[] = {
        {"host", &host, NULL},           {"port", &port_s, NULL}, {"port-end", &port_end_s, NULL},
        {"stop-key", &stop_key, NULL},   {"silent", NULL, &silent},
    };
    size_t n_pos;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], NULL, 0, &n_pos, "tracker");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    long port = 9190, port_end = 9199;
    if (port_s && (rc = at_cli_parse_long("tracker", "port", port_s, &port))) return rc;
    if (port_end_s && (rc = at_cli_parse_long("tracker", "port-end", port_end_s, &port_end))) return rc;
    if (port > 65535 || port_end > 65536) return at_cli_usage_error("tracker", "ports must be below 65536");
    if (silent) at_log_set_level(AT_LOG_WARN);

    at_rpc_tracker_opts o = {
        .host = host,
        .port = port == 0 ? AT_RPC_PORT_ANY : (int)port,
        .port_end = (int)port_end,
        .stop_key = stop_key,
        .stop_flag = &stop_flag,
    };
    install_signals();
    at_rpc_tracker *t;
    at_status st = at_rpc_tracker_new(&o, &t);
    if (st != AT_OK) return at_cli_fail(st);
    printf("bind to %s:%d\n", host, at_rpc_tracker_port(t));
    fflush(stdout);
    st = at_rpc_tracker_run(t);
    at_rpc_tracker_free(t);
    return st == AT_OK ? 0 : at_cli_fail(st);
}
