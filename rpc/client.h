/* Clients: a tracker connection (TVM's TrackerSession: PING, SUMMARY, REQUEST, STOP, and the
 * server's UPDATE_INFO / PUT / GET_PENDING_MATCHKEYS) and a session with an rpc-server (our
 * protocol, rpc/PROTOCOL.md). Every call has a timeout. */
#ifndef AT_RPC_CLIENT_H
#define AT_RPC_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"
#include "core/status.h"
#include "core/strbuf.h"

/* ---- tracker connection ------------------------------------------------------------------ */

/* Zero means default. */
typedef struct at_rpc_tclient_opts {
    int connect_timeout_ms; /* keep retrying a refused connection this long (default 60000, TVM's) */
    int retry_period_ms;    /* between retries (default 5000, TVM's) */
    int io_timeout_ms;      /* handshake and every reply except REQUEST's (default 10000) */
} at_rpc_tclient_opts;

typedef struct at_rpc_tclient at_rpc_tclient;

/* Connects (retrying ECONNREFUSED as TVM's connect_with_retry) and exchanges the magic.
 * *out owned by the caller (at_rpc_tclient_free). Returns AT_OK, AT_EINVAL (host does not
 * resolve), AT_EIO (refused past the timeout, reset, or the peer is not a tracker: wrong magic),
 * AT_ETIMEOUT or AT_ENOMEM. */
at_status at_rpc_tclient_connect(const char *host, int port, const at_rpc_tclient_opts *opts, at_rpc_tclient **out);

/* Closes the connection; NULL does nothing. */
void at_rpc_tclient_free(at_rpc_tclient *c);

/* PING. Returns AT_OK, AT_EIO (connection lost or a reply other than 0), AT_EPARSE (reply not
 * JSON / oversize), AT_ETIMEOUT or AT_ENOMEM. The same errors apply to every call below; after
 * any of them the connection is unusable. */
at_status at_rpc_tclient_ping(at_rpc_tclient *c);

/* SUMMARY: *out is the summary object {"queue_info": ..., "server_info": [...]}, owned by the
 * caller (at_json_free). */
at_status at_rpc_tclient_summary(at_rpc_tclient *c, cJSON **out);

/* SUMMARY as TVM's text_summary() (the query-tracker tables), appended to out. */
at_status at_rpc_tclient_summary_text(at_rpc_tclient *c, at_strbuf *out);

/* A device handed out by the tracker. Strings owned; at_rpc_assignment_fini frees them. */
typedef struct at_rpc_assignment {
    char *host;
    int   port;
    char *matchkey;
} at_rpc_assignment;

void at_rpc_assignment_fini(at_rpc_assignment *a);

/* REQUEST [4, key, "", priority] and waits up to timeout_ms (< 0: forever) for the tracker to
 * assign a server. On AT_ETIMEOUT the connection is closed (the tracker then skips the request
 * when a server frees up, as for any client that went away). */
at_status at_rpc_tclient_request(at_rpc_tclient *c, const char *key, int64_t priority, int timeout_ms,
                                 at_rpc_assignment *out);

/* STOP with stop_key: AT_OK when the tracker accepted it, AT_EINVAL when it answered -1. */
at_status at_rpc_tclient_stop(at_rpc_tclient *c, const char *stop_key);

/* Server side: UPDATE_INFO {"key": key, "addr": [addr or null, port]}. */
at_status at_rpc_tclient_update_info(at_rpc_tclient *c, const char *key, const char *addr, int port);

/* Server side: PUT [key, [port, matchkey], custom_addr or null]. */
at_status at_rpc_tclient_put(at_rpc_tclient *c, const char *key, int port, const char *matchkey,
                             const char *custom_addr);

/* Server side: GET_PENDING_MATCHKEYS; *has tells whether matchkey is still pending. */
at_status at_rpc_tclient_pending_has(at_rpc_tclient *c, const char *matchkey, bool *has);

/* The socket (for poll() by the server's idle loop); -1 when closed. */
int at_rpc_tclient_fd(const at_rpc_tclient *c);

/* ---- session with an rpc-server ---------------------------------------------------------- */

/* Zero means default. */
typedef struct at_rpc_session_opts {
    const char *auth_key;           /* shared key both sides must hold (NULL or "": none) */
    double      session_timeout_s;  /* asked of the server (" -timeout="): it kills the session after it (0: none) */
    int         connect_timeout_ms; /* default 10000 */
    int         io_timeout_ms;      /* handshake, and each reply when a call passes 0 (default 10000) */
    size_t      max_payload;        /* largest reply accepted (default AT_RPC_SESS_DEFAULT_MAX_PAYLOAD) */
} at_rpc_session_opts;

typedef struct at_rpc_session at_rpc_session;

/* Connects to an rpc-server, does TVM's data-plane handshake with "client:<matchkey>" and our
 * session handshake (version, mutual auth-key proof). *out owned by the caller
 * (at_rpc_session_free). Returns AT_OK; AT_EIO (refused, reset, RPC_CODE_MISMATCH: the server
 * holds another matchkey now, auth key missing or different on either side, version not spoken;
 * the detail says which), AT_ETIMEOUT, AT_EINVAL (host does not resolve) or AT_ENOMEM. */
at_status at_rpc_session_open(const char *host, int port, const char *matchkey, const at_rpc_session_opts *opts,
                              at_rpc_session **out);

/* Sends BYE (best effort) and closes; NULL does nothing. */
void at_rpc_session_free(at_rpc_session *s);

/* "server:<key>" as the server announced itself (borrowed until _free). */
const char *at_rpc_session_server_key(const at_rpc_session *s);

/* PING with data; checks the PONG echoes it. timeout_ms 0: the session's io timeout.
 * Returns AT_OK or as at_rpc_session_measure. */
at_status at_rpc_session_ping(at_rpc_session *s, const void *data, size_t n, int timeout_ms);

/* Sends one MEASURE frame carrying req and waits up to timeout_ms (0: io timeout; < 0: forever)
 * for its RESULT. *reply (at_malloc'ed, owned by the caller; NULL when empty) and *reply_len are
 * written on success. Returns AT_OK; the handler's own status with its message when it failed
 * remotely (e.g. AT_EDEVICE); AT_ETIMEOUT (no reply in time, or the server killed the session
 * at its timeout: "RPCSessionTimeoutError: ..."); AT_EDEVICE (the session process died);
 * AT_EIO (connection lost, protocol error); AT_EINVAL (req larger than the server accepts);
 * AT_ENOMEM. After any failure but AT_EINVAL and a handler's status the session is closed. */
at_status at_rpc_session_measure(at_rpc_session *s, const void *req, size_t n, int timeout_ms, unsigned char **reply,
                                 size_t *reply_len);

/* ---- TVM's request_remote ------------------------------------------------------------------ */

/* Zero means default. */
typedef struct at_rpc_request_opts {
    const char         *tracker_host;       /* required */
    int                 tracker_port;       /* required */
    const char         *key;                /* device key, required */
    int64_t             priority;           /* default 0 (TVM's RPCRunner uses 1, check_remote 100) */
    int                 request_timeout_ms; /* wait for a free device (default 60000; < 0: forever) */
    int                 max_retry;          /* attempts on connection errors (default 5, TVM's) */
    at_rpc_tclient_opts tracker;
    at_rpc_session_opts session;
} at_rpc_request_opts;

/* Connects to the tracker, requests a device and opens a session with it, retrying up to
 * max_retry times when a step fails with AT_EIO (a server gone or re-keyed in between) or the
 * server's handshake times out, as TrackerSession.request does. Returns AT_OK, AT_ETIMEOUT (no device in time), AT_EIO ("cannot
 * request <key> after <n> retry: <last error>"), AT_EINVAL or AT_ENOMEM. */
at_status at_rpc_request_session(const at_rpc_request_opts *opts, at_rpc_session **out);

#endif
