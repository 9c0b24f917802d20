/* Helpers shared by rpc/'s files (and its tests); no other module includes this. */
#ifndef AT_RPC_INTERNAL_H
#define AT_RPC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"
#include "core/rng.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "rpc/codec.h"

/* ---- framing helpers (codec.c) ------------------------------------------------------------ */

/* Appends a placeholder length word and returns its offset; at_rpc_frame_end writes into it the
 * number of bytes appended since (nothing when sb failed). */
size_t at_rpc_frame_begin(at_strbuf *sb);
void   at_rpc_frame_end(at_strbuf *sb, size_t mark);

/* Makes *arr hold at least need elements of elem bytes (doubling); 0 when out of memory
 * (*arr unchanged). */
int at_rpc_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* ---- SHA-256 / HMAC (sha256.c) ------------------------------------------------------------ */

#define AT_RPC_SHA256_LEN 32

typedef struct at_rpc_sha256 {
    uint32_t      h[8];
    uint64_t      total;
    unsigned char buf[64];
    size_t        fill;
} at_rpc_sha256;

void at_rpc_sha256_init(at_rpc_sha256 *s);
void at_rpc_sha256_update(at_rpc_sha256 *s, const void *data, size_t n);
void at_rpc_sha256_final(at_rpc_sha256 *s, unsigned char out[AT_RPC_SHA256_LEN]);

/* HMAC-SHA-256 of the concatenation of parts[0..n_parts). */
void at_rpc_hmac_sha256(const void *key, size_t key_len, const void *const *parts, const size_t *part_lens,
                        size_t n_parts, unsigned char out[AT_RPC_SHA256_LEN]);

/* Compares n bytes in time independent of where they differ. */
bool at_rpc_ct_equal(const void *a, const void *b, size_t n);

/* The session's proofs (PROTOCOL.md): HMAC(auth_key, label || first || second). */
#define AT_RPC_PROOF_SERVER "at-rpc-v1 server"
#define AT_RPC_PROOF_CLIENT "at-rpc-v1 client"
void at_rpc_auth_proof(const char *auth_key, const char *label, const unsigned char first[AT_RPC_SESS_NONCE_LEN],
                       const unsigned char second[AT_RPC_SESS_NONCE_LEN], unsigned char out[AT_RPC_SESS_PROOF_LEN]);

/* ---- sockets (net.c) ------------------------------------------------------------------------ */
/* Every socket is non-blocking and close-on-exec; "blocking" calls poll() up to a deadline
 * (absolute at_clock_mono_s() seconds; INFINITY for none). Sends never raise SIGPIPE. */

#define AT_RPC_IP_MAX 64

/* Deadline timeout_ms from now; INFINITY when timeout_ms < 0. */
double at_rpc_deadline(int timeout_ms);

/* Milliseconds left until deadline for poll(): 0 when past, -1 when infinite. */
int at_rpc_ms_left(double deadline);

/* Binds and listens on host at the first free port of [port, port_end) (just port when
 * port_end <= port; port 0 lets the system choose). Returns AT_OK, AT_EINVAL (host does not
 * resolve) or AT_EIO (no port free, or another socket error). */
at_status at_rpc_net_listen(const char *host, int port, int port_end, int backlog, int *fd, int *bound_port);

/* Accepts one pending connection: *fd = -1 when none is pending. AT_EIO on other errors. */
at_status at_rpc_net_accept(int listen_fd, int *fd);

/* One connection attempt within timeout_ms. *refused (optional) tells ECONNREFUSED apart.
 * Returns AT_OK, AT_EINVAL (host does not resolve), AT_ETIMEOUT or AT_EIO. */
at_status at_rpc_net_connect(const char *host, int port, int timeout_ms, int *fd, bool *refused);

/* TVM's connect_with_retry: retries a refused connection every retry_ms until total_ms have
 * passed (other errors fail at once). Same returns as at_rpc_net_connect. */
at_status at_rpc_net_connect_retry(const char *host, int port, int retry_ms, int total_ms, int *fd);

/* Sends all n bytes by the deadline. AT_OK, AT_ETIMEOUT or AT_EIO (peer gone). */
at_status at_rpc_net_send_all(int fd, const void *buf, size_t n, double deadline);

/* Sends what the socket takes now; *sent bytes. AT_OK or AT_EIO (peer gone). */
at_status at_rpc_net_send_some(int fd, const void *buf, size_t n, size_t *sent);

/* Waits for bytes by the deadline and feeds what arrives (at most one read) into r.
 * AT_OK, AT_ETIMEOUT, AT_EIO ("connection closed by peer" on EOF, or a socket error), AT_ENOMEM. */
at_status at_rpc_net_recv(int fd, at_rpc_reader *r, double deadline);

/* Reads what is available without waiting (up to max bytes). *eof set on orderly close.
 * AT_OK, AT_EIO (socket error) or AT_ENOMEM. */
at_status at_rpc_net_recv_now(int fd, at_rpc_reader *r, size_t max, bool *eof);

/* The peer's numeric address ("127.0.0.1", "::1"). AT_EIO when unknown. */
at_status at_rpc_net_peer_ip(int fd, char ip[AT_RPC_IP_MAX]);

void at_rpc_net_close(int fd);

/* n bytes from /dev/urandom. AT_EIO when unreadable. */
at_status at_rpc_urandom(void *buf, size_t n);

/* Seeds r from seed, or from /dev/urandom when seed is 0. AT_EIO when urandom fails. */
at_status at_rpc_rng_seed(at_rng *r, uint64_t seed);

/* TVM's random_key: "<prefix>:<repr(random.random())>". *out owned. AT_OK or AT_ENOMEM. */
at_status at_rpc_random_key(at_rng *r, const char *prefix, char **out);

/* ---- tracker state machine (tstate.c): the tracker without sockets ------------------------- */

typedef struct at_rpc_tstate at_rpc_tstate;

/* Delivers bytes to connection conn; returns false when that connection is gone. */
typedef bool (*at_rpc_tstate_send_fn)(void *ctx, uint64_t conn, const char *data, size_t n);

/* A tracker knowing stop_key (copied). Returns AT_OK or AT_ENOMEM. */
at_status at_rpc_tstate_new(const char *stop_key, at_rpc_tstate_send_fn send, void *ctx, at_rpc_tstate **out);
void      at_rpc_tstate_free(at_rpc_tstate *t);

/* A connection was accepted from peer_ip (ids are never reused). AT_OK or AT_ENOMEM. */
at_status at_rpc_tstate_open(at_rpc_tstate *t, uint64_t conn, const char *peer_ip);

/* A connection closed: its free PUT values leave their queues and its info leaves the summary;
 * its queued requests stay (counted as pending) and are skipped when served, as in TVM. */
void at_rpc_tstate_close(at_rpc_tstate *t, uint64_t conn);

/* Handles one message from conn (replies through send). *stop is set after a STOP with the
 * right key. Returns AT_OK, AT_EPARSE (malformed: the caller closes conn) or AT_ENOMEM. */
at_status at_rpc_tstate_handle(at_rpc_tstate *t, uint64_t conn, cJSON *msg, bool *stop);

/* Appends the summary object as SUMMARY returns it. */
void at_rpc_tstate_summary(const at_rpc_tstate *t, at_strbuf *sb);

#endif
