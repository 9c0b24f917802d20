/* The RPC tracker (`autotvm tracker`): TVM's tracker on its wire protocol, so TVM servers and
 * clients can use it and ours can use TVM's. One thread, one poll() loop, every socket
 * non-blocking; a malformed, oversize or unknown message closes only its own connection. */
#ifndef AT_RPC_TRACKER_H
#define AT_RPC_TRACKER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Port value that asks the system for a free ephemeral port (tests). */
#define AT_RPC_PORT_ANY (-1)

/* Zero means default for every field. */
typedef struct at_rpc_tracker_opts {
    const char *host;         /* address to bind (default "127.0.0.1"; TVM's is 0.0.0.0) */
    int         port;         /* first port tried (default 9190), or AT_RPC_PORT_ANY */
    int         port_end;     /* ports [port, port_end) are tried in turn (default 9199) */
    const char *stop_key;     /* key STOP must carry (default "tracker:<random>", as TVM) */
    uint64_t    seed;         /* randomness of the default stop key (0: /dev/urandom) */
    size_t      max_msg_bytes; /* largest JSON message (default AT_RPC_TRACKER_MAX_MSG) */
    size_t      max_conns;    /* connections served at once (default 1024); more are refused */
    int         handshake_timeout_ms; /* a peer silent this long after connecting is dropped (default 10000) */
    int         read_timeout_ms; /* a message begun must be complete within this, else the peer is
                                    dropped: half a message never holds a slot (default 10000) */
    volatile sig_atomic_t *stop_flag; /* (optional) at_rpc_tracker_run returns once *stop_flag != 0 */
} at_rpc_tracker_opts;

typedef struct at_rpc_tracker at_rpc_tracker;

/* Binds and listens; serving starts with at_rpc_tracker_run/_poll. *out owned by the caller
 * (at_rpc_tracker_free). Returns AT_OK, AT_EINVAL (bad host or port), AT_EIO (no free port in
 * the range; detail names it) or AT_ENOMEM. */
at_status at_rpc_tracker_new(const at_rpc_tracker_opts *opts, at_rpc_tracker **out);

/* Closes every connection and the listening socket; NULL does nothing. */
void at_rpc_tracker_free(at_rpc_tracker *t);

/* The port bound. */
int at_rpc_tracker_port(const at_rpc_tracker *t);

/* The stop key (borrowed until at_rpc_tracker_free). */
const char *at_rpc_tracker_stop_key(const at_rpc_tracker *t);

/* Serves one round: waits up to timeout_ms for socket events and handles them. *stopped is set
 * once a STOP with the right key arrived (then every connection and the listener are closed).
 * Returns AT_OK, AT_EIO (poll failed) or AT_ENOMEM. */
at_status at_rpc_tracker_poll(at_rpc_tracker *t, int timeout_ms, bool *stopped);

/* Serves until a STOP with the right key or *opts.stop_flag. Returns AT_OK or as _poll. */
at_status at_rpc_tracker_run(at_rpc_tracker *t);

#endif
