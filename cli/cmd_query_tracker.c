/* autotvm query-tracker: TVM's `python -m tvm.exec.query_rpc_tracker`, same defaults (the
 * TVM_TRACKER_HOST / TVM_TRACKER_PORT environment) and the same text, byte for byte. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/strbuf.h"
#include "rpc/client.h"

static const char usage[] =
    "usage: autotvm query-tracker [--host HOST] [--port PORT]\n"
    "\n"
    "Prints the tracker's registered servers and its queue per device key (free servers,\n"
    "pending requests), as TVM's query_rpc_tracker. A refused connection is retried every 5 s\n"
    "for 60 s, as TVM does.\n"
    "\n"
    "options:\n"
    "  --host HOST  tracker address (default $TVM_TRACKER_HOST, else 127.0.0.1)\n"
    "  --port PORT  tracker port (default $TVM_TRACKER_PORT, else 9190)\n"
    "  -h, --help   show this help\n";

int at_cmd_query_tracker(int argc, char **argv)
{
    const char *host = NULL, *port_s = NULL;
    const at_cli_opt opts[] = {{"host", &host, NULL}, {"port", &port_s, NULL}};
    size_t n_pos;
    int rc = at_cli_parse(argc, argv, opts, 2, NULL, 0, &n_pos, "query-tracker");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (!host || !*host) host = getenv("TVM_TRACKER_HOST");
    if (!host || !*host) host = "127.0.0.1";
    if (!port_s || !*port_s) port_s = getenv("TVM_TRACKER_PORT");
    long port = 9190;
    if (port_s && *port_s && (rc = at_cli_parse_long("query-tracker", "port", port_s, &port))) return rc;
    if (port < 1 || port > 65535) return at_cli_usage_error("query-tracker", "--port must be in 1..65535");

    at_rpc_tclient *c;
    at_status st = at_rpc_tclient_connect(host, (int)port, NULL, &c);
    if (st != AT_OK) return at_cli_fail(st);
    at_strbuf text;
    at_strbuf_init(&text);
    st = at_rpc_tclient_summary_text(c, &text);
    at_rpc_tclient_free(c);
    if (st == AT_OK) printf("Tracker address %s:%ld\n\n%s\n", host, port, at_strbuf_cstr(&text));
    at_strbuf_fini(&text);
    return st == AT_OK ? 0 : at_cli_fail(st);
}
