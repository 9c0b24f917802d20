/* The rpc-server (`autotvm rpc-server`): registers with a tracker as TVM's server does (UPDATE_INFO,
 * PUT with a random matchkey, renewal through GET_PENDING_MATCHKEYS), accepts clients with TVM's
 * data-plane handshake, then speaks our session protocol (rpc/PROTOCOL.md). Each session runs in
 * a forked process killed at its timeout; after a session the server registers again. */
#ifndef AT_RPC_SERVER_H
#define AT_RPC_SERVER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/strbuf.h"
#include "rpc/tracker.h" /* AT_RPC_PORT_ANY */

/* What a session handler learns when a session starts. Strings borrowed for the session. */
typedef struct at_rpc_session_info {
    const char *peer;       /* the client's address */
    const char *server_key; /* "server:<key>" */
    double      timeout_s;  /* the session's timeout in force (0: none) */
} at_rpc_session_info;

/* The work a session does for MEASURE frames (ggml-style interface: functions + ctx). Every
 * member runs in the session's own process, so a crash or hang costs only that session.
 * The server does not own ctx; it must stay valid while the server runs. */
typedef struct at_rpc_session_handler {
    /* Handles one MEASURE request: req[0..len) is the client's opaque payload (borrowed for the
     * call); append the opaque reply to *reply. AT_OK sends it as RESULT; any other status goes
     * back in an ERROR frame with at_last_error() as its message, and the session continues.
     * (optional) NULL answers every MEASURE with AT_EUNSUPPORTED. */
    at_status (*measure)(void *ctx, const unsigned char *req, size_t len, at_strbuf *reply);
    /* (optional) Called once before the first request; a failure ends the session with an ERROR
     * frame carrying its status. (defaults to nothing) */
    at_status (*session_begin)(void *ctx, const at_rpc_session_info *info);
    /* (optional) Called once when a session that began ends without being killed, whatever
     * ended it (BYE, the client gone, a protocol error). (defaults to nothing) */
    void (*session_end)(void *ctx);
    void *ctx;
} at_rpc_session_handler;

/* Zero means default for every field but key. */
typedef struct at_rpc_server_opts {
    const char *host;         /* address to bind (default "127.0.0.1"; TVM's is 0.0.0.0) */
    int         port;         /* first port tried (default 9090), or AT_RPC_PORT_ANY */
    int         port_end;     /* ports [port, port_end) are tried in turn (default 9199) */
    const char *tracker_host; /* NULL: no tracker; clients then use the key itself as matchkey */
    int         tracker_port;
    const char *key;          /* device key, e.g. "rk3399" (required) */
    const char *custom_addr;  /* address reported to the tracker (default null: the tracker uses the peer's) */
    const char *auth_key;     /* shared key clients must prove (NULL or "": none) */
    uint64_t    seed;         /* matchkey randomness (0: /dev/urandom) */
    double      session_timeout_s; /* cap on a session, and its timeout when the client asks none (0: none) */
    int         ping_period_ms;    /* GET_PENDING_MATCHKEYS period when idle (default 2000, TVM's) */
    int         unmatch_timeout_ms; /* re-key once the matchkey was handed out and unused this long (default 4000) */
    int         tracker_connect_timeout_ms; /* retrying a refused tracker (default 60000) */
    int         tracker_retry_ms;  /* default 5000 */
    int         io_timeout_ms;     /* tracker replies and handshakes (default 10000) */
    int         idle_timeout_ms;   /* a session waits this long for the client's next frame (default 60000) */
    size_t      max_payload;       /* largest request frame accepted (default AT_RPC_SESS_DEFAULT_MAX_PAYLOAD) */
    int         max_sessions;      /* (optional) run returns after this many sessions (0: never) */
    volatile sig_atomic_t *stop_flag; /* (optional) run returns once *stop_flag != 0 */
    at_rpc_session_handler handler;
} at_rpc_server_opts;

typedef struct at_rpc_server at_rpc_server;

/* Copies the options and binds the listening socket. *out owned by the caller
 * (at_rpc_server_free). Returns AT_OK, AT_EINVAL (no key, bad host or port), AT_EIO (no free
 * port in the range), AT_ENOMEM. */
at_status at_rpc_server_new(const at_rpc_server_opts *opts, at_rpc_server **out);

/* Closes the sockets; NULL does nothing. */
void at_rpc_server_free(at_rpc_server *s);

/* The port bound. */
int at_rpc_server_port(const at_rpc_server *s);

/* Registers and serves sessions until *stop_flag or max_sessions. Tracker connections lost are
 * reopened (UPDATE_INFO, PUT). Returns AT_OK; AT_EIO when the tracker stays unreachable past
 * tracker_connect_timeout_ms or a socket call fails; AT_ENOMEM. */
at_status at_rpc_server_run(at_rpc_server *s);

#endif
