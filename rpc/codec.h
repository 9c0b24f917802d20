/* TVM's RPC wire formats as a sans-IO codec (bytes in, messages out; messages in, bytes out):
 * the tracker control plane (int32 magic, then little-endian int32 length + json.dumps text),
 * the data-plane handshake (RPC_MAGIC, key, RPC_CODE_*), and the frames of our own session
 * protocol (rpc/PROTOCOL.md). No function here touches a socket. */
#ifndef AT_RPC_CODEC_H
#define AT_RPC_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"
#include "core/status.h"
#include "core/strbuf.h"

/* TVM python/tvm/rpc/base.py. All integers on the wire are little-endian int32. */
#define AT_RPC_MAGIC 0xFF271
#define AT_RPC_TRACKER_MAGIC 0x2F271
#define AT_RPC_CODE_SUCCESS (AT_RPC_MAGIC + 0)
#define AT_RPC_CODE_DUPLICATE (AT_RPC_MAGIC + 1)
#define AT_RPC_CODE_MISMATCH (AT_RPC_MAGIC + 2)
#define AT_RPC_SESS_MASK 128

/* Largest tracker JSON message accepted (TVM's later MAX_TRACKER_MSG_BYTES, 1 MiB). */
#define AT_RPC_TRACKER_MAX_MSG (1u << 20)
/* Largest data-plane key ("client:<matchkey> -timeout=10") accepted; TVM has no limit. */
#define AT_RPC_MAX_KEY_LEN 4096

/* TrackerCode. */
typedef enum at_rpc_tracker_code {
    AT_RPC_TRACKER_FAIL = -1,
    AT_RPC_TRACKER_SUCCESS = 0,
    AT_RPC_TRACKER_PING = 1,
    AT_RPC_TRACKER_STOP = 2,
    AT_RPC_TRACKER_PUT = 3,
    AT_RPC_TRACKER_REQUEST = 4,
    AT_RPC_TRACKER_UPDATE_INFO = 5,
    AT_RPC_TRACKER_SUMMARY = 6,
    AT_RPC_TRACKER_GET_PENDING_MATCHKEYS = 7,
} at_rpc_tracker_code;

/* ---- reader: buffered input, frames taken out once complete ---------------------------- */

/* Bytes received and not yet taken. Plain data; _init/_fini. */
typedef struct at_rpc_reader {
    unsigned char *buf; /* owned */
    size_t         off; /* first untaken byte */
    size_t         len; /* end of the received bytes */
    size_t         cap;
} at_rpc_reader;

/* An empty reader (no allocation until the first feed). */
void at_rpc_reader_init(at_rpc_reader *r);
/* Frees the buffer; the reader is empty and usable again after _init. */
void at_rpc_reader_fini(at_rpc_reader *r);

/* Appends received bytes. Returns AT_OK or AT_ENOMEM (nothing appended). */
at_status at_rpc_reader_feed(at_rpc_reader *r, const void *data, size_t n);

/* Number of bytes received and not yet taken. */
size_t at_rpc_reader_buffered(const at_rpc_reader *r);

/* Takes one little-endian int32 when 4 bytes are buffered; false (nothing taken) otherwise. */
bool at_rpc_reader_take_i32(at_rpc_reader *r, int32_t *out);

/* Takes one [int32 length][payload] frame. *got is false while incomplete. The payload is
 * borrowed until the next call on r. Returns AT_OK, or AT_EPARSE when the length is <= 0 or
 * > max_len (the stream cannot be resynchronised: close the connection). */
at_status at_rpc_reader_take_frame(at_rpc_reader *r, size_t max_len, const char **payload, size_t *len, bool *got);

/* take_frame, then parses the payload as one JSON value (Python json.loads strictness, but a
 * number out of double range, which json.loads reads as inf, is refused: echoed back it would not
 * be JSON). *out owned by the caller (at_json_free). Returns AT_OK, AT_EPARSE (bad length or
 * JSON, a non-finite number) or AT_ENOMEM. */
at_status at_rpc_reader_take_json(at_rpc_reader *r, size_t max_len, cJSON **out, bool *got);

/* ---- tracker messages: encoders (each appends one complete frame) ------------------------ */
/* Encoders never fail by themselves; an out-of-memory append shows in at_strbuf_status(sb). */

/* 4 little-endian bytes (magic numbers, lengths, data-plane codes). */
void at_rpc_put_i32(at_strbuf *sb, int32_t v);

/* [int32 len][payload]. */
void at_rpc_enc_frame(at_strbuf *sb, const char *payload, size_t n);

/* [int32 len][json.dumps(value)]. */
void at_rpc_enc_json(at_strbuf *sb, const cJSON *value);

/* [1] */
void at_rpc_enc_ping(at_strbuf *sb);
/* [2, stop_key] */
void at_rpc_enc_stop(at_strbuf *sb, const char *stop_key);
/* [3, key, [port, matchkey], custom_addr or null] */
void at_rpc_enc_put(at_strbuf *sb, const char *key, int port, const char *matchkey, const char *custom_addr);
/* [4, key, user, priority] */
void at_rpc_enc_request(at_strbuf *sb, const char *key, const char *user, int64_t priority);
/* [5, {"key": key, "addr": [addr or null, port]}]; key is "server:<device key>". */
void at_rpc_enc_update_info(at_strbuf *sb, const char *key, const char *addr, int port);
/* [6] */
void at_rpc_enc_summary(at_strbuf *sb);
/* [7] */
void at_rpc_enc_get_pending(at_strbuf *sb);
/* A bare code reply: 0 or -1. */
void at_rpc_enc_code_reply(at_strbuf *sb, int code);
/* REQUEST's reply: [0, [host, port, matchkey]]. */
void at_rpc_enc_assign_reply(at_strbuf *sb, const char *host, int port, const char *matchkey);

/* ---- tracker messages: parsers ---------------------------------------------------------- */

/* One request as the tracker reads it. Strings and info are borrowed from the parsed message
 * (valid while it lives). Fields not used by the code are NULL/0. */
typedef struct at_rpc_tracker_msg {
    at_rpc_tracker_code code;
    const char         *key;         /* PUT, REQUEST: device key; STOP: stop key (NULL when not a string) */
    int                 port;        /* PUT */
    const char         *matchkey;    /* PUT */
    const char         *custom_addr; /* PUT: NULL when null or absent */
    const char         *user;        /* REQUEST (ignored by the scheduler, as in TVM) */
    double              priority;    /* REQUEST: higher first */
    const cJSON        *info;        /* UPDATE_INFO: the object ({"key": ..., "addr": [...], ...}) */
} at_rpc_tracker_msg;

/* Checks a tracker request: an array whose first element is an integer code 1..7, then the
 * fields the code needs with the types TVM's peers send (extra trailing elements ignored, as
 * Python indexing ignores them). Returns AT_OK or AT_EPARSE (detail names the field). */
at_status at_rpc_tracker_msg_parse(const cJSON *msg, at_rpc_tracker_msg *out);

/* A bare integer reply (PING, PUT, UPDATE_INFO, STOP). AT_EPARSE when not an integer. */
at_status at_rpc_parse_code_reply(const cJSON *v, int *code);

/* REQUEST's reply [0, [host, port, matchkey]]; strings borrowed from v. AT_EPARSE otherwise. */
at_status at_rpc_parse_assign_reply(const cJSON *v, const char **host, int *port, const char **matchkey);

/* GET_PENDING_MATCHKEYS's reply (a list of strings); *has tells whether matchkey is in it.
 * AT_EPARSE when v is not a list of strings. */
at_status at_rpc_parse_pending_reply(const cJSON *v, const char *matchkey, bool *has);

/* SUMMARY's reply [0, {"queue_info": {...}, "server_info": [...]}]; *summary points at the
 * object inside v. AT_EPARSE when the shape differs. */
at_status at_rpc_parse_summary_reply(const cJSON *v, const cJSON **summary);

/* Appends TVM's TrackerSession.text_summary() of a summary object: the "Server List" and
 * "Queue Status" tables, byte for byte (sorted keys, "%21s    " addresses, padded columns,
 * trailing spaces kept, rows with total == 0 and pending == 0 left out). Returns AT_OK,
 * AT_EPARSE (a field of the wrong type) or AT_ENOMEM. */
at_status at_rpc_summary_text(const cJSON *summary, at_strbuf *out);

/* ---- data-plane handshake --------------------------------------------------------------- */

/* Client -> server: int32 RPC_MAGIC, int32 len, key bytes. */
void at_rpc_enc_dp_hello(at_strbuf *sb, const char *key);

/* Server -> client: int32 code; with RPC_CODE_SUCCESS also int32 len + server_key. */
void at_rpc_enc_dp_reply(at_strbuf *sb, int32_t code, const char *server_key);

/* The client's key "client:<matchkey>[ -timeout=<t>]" (t written as Python's str: "10" for an
 * integral value, repr otherwise). *out owned by the caller. AT_OK or AT_ENOMEM. */
at_status at_rpc_dp_client_key(const char *matchkey, double session_timeout_s, char **out);

/* Splits a received key as the server does (Python str.split()): the first token into *header
 * (owned) and "-timeout=<float>" options into *timeout_s (0 when absent; other tokens are
 * ignored, as TVM ignores them). Returns AT_OK, AT_EPARSE (empty key, NUL byte, or a timeout
 * that is not a finite non-negative number) or AT_ENOMEM. */
at_status at_rpc_dp_parse_key(const char *key, size_t len, char **header, double *timeout_s);

/* ---- session frames (ours; rpc/PROTOCOL.md) --------------------------------------------- */

#define AT_RPC_SESS_MAGIC 0x50525441u /* bytes "ATRP" */
#define AT_RPC_SESS_VERSION 1
#define AT_RPC_SESS_HEADER_LEN 16
#define AT_RPC_SESS_NONCE_LEN 32
#define AT_RPC_SESS_PROOF_LEN 32
/* Default and hard upper bound of one frame's payload. */
#define AT_RPC_SESS_DEFAULT_MAX_PAYLOAD (64u << 20)
#define AT_RPC_SESS_HARD_MAX_PAYLOAD (1u << 30)
/* Longest error message carried by an ERROR frame. */
#define AT_RPC_SESS_MAX_ERROR_MSG 4096

typedef enum at_rpc_sess_type {
    AT_RPC_SESS_HELLO = 1,     /* C->S: nonce[32], u32 flags, u32 max_payload */
    AT_RPC_SESS_CHALLENGE = 2, /* S->C: nonce[32], u32 flags, u32 max_payload, proof[0|32] */
    AT_RPC_SESS_AUTH = 3,      /* C->S: proof[0|32] */
    AT_RPC_SESS_WELCOME = 4,   /* S->C: empty */
    AT_RPC_SESS_PING = 5,      /* C->S: any bytes */
    AT_RPC_SESS_PONG = 6,      /* S->C: the PING's bytes */
    AT_RPC_SESS_MEASURE = 7,   /* C->S: opaque request for the server's handler */
    AT_RPC_SESS_RESULT = 8,    /* S->C: the handler's opaque reply */
    AT_RPC_SESS_ERROR = 9,     /* either way: u32 code, u32 status, message */
    AT_RPC_SESS_BYE = 10,      /* C->S: empty; the server ends the session */
    AT_RPC_SESS_TYPE_COUNT
} at_rpc_sess_type;

/* HELLO/CHALLENGE flags. */
#define AT_RPC_SESS_FLAG_AUTH 1u

/* ERROR frame codes. */
typedef enum at_rpc_sess_err {
    AT_RPC_SERR_PROTOCOL = 1, /* malformed or unexpected frame */
    AT_RPC_SERR_VERSION = 2,  /* header version not spoken */
    AT_RPC_SERR_AUTH = 3,     /* auth keys absent on one side or different */
    AT_RPC_SERR_HANDLER = 4,  /* the handler failed; status field holds its at_status */
    AT_RPC_SERR_TIMEOUT = 5,  /* the session ran past its timeout and was killed */
    AT_RPC_SERR_CRASH = 6,    /* the session process died */
    AT_RPC_SERR_TOO_BIG = 7,  /* a frame above the receiver's max_payload */
    AT_RPC_SERR_COUNT
} at_rpc_sess_err;

/* One decoded frame; payload borrowed from the reader until its next call. */
typedef struct at_rpc_sess_frame {
    at_rpc_sess_type     type;
    uint32_t             seq;
    const unsigned char *payload;
    size_t               len;
} at_rpc_sess_frame;

/* Appends one frame: header (magic, version, type, seq, len) + payload. */
void at_rpc_sess_enc(at_strbuf *sb, at_rpc_sess_type type, uint32_t seq, const void *payload, size_t n);

/* Appends an ERROR frame; msg is cut to AT_RPC_SESS_MAX_ERROR_MSG bytes. */
void at_rpc_sess_enc_error(at_strbuf *sb, uint32_t seq, at_rpc_sess_err err, at_status st, const char *msg);

/* Takes one frame. *got is false while incomplete. Returns AT_OK; AT_EPARSE when the magic is
 * wrong, the type unknown or the version not AT_RPC_SESS_VERSION (detail says which; *bad_version
 * (optional) is set to the received version in that case); AT_EINVAL when the payload length
 * exceeds max_payload. After an error the stream is unusable. */
at_status at_rpc_sess_take(at_rpc_reader *r, size_t max_payload, at_rpc_sess_frame *out, bool *got,
                           uint32_t *bad_version);

/* Reads an ERROR frame's fields; msg borrowed from f (not NUL-terminated). AT_EPARSE when the
 * payload is shorter than 8 bytes, the code unknown, the status out of range or the message
 * longer than AT_RPC_SESS_MAX_ERROR_MSG. */
at_status at_rpc_sess_parse_error(const at_rpc_sess_frame *f, at_rpc_sess_err *err, at_status *st, const char **msg,
                                  size_t *msg_len);

/* Static name of a frame type or error code ("HELLO", "timeout"); "?" when unknown. */
const char *at_rpc_sess_type_str(at_rpc_sess_type t);
const char *at_rpc_sess_err_str(at_rpc_sess_err e);

#endif
