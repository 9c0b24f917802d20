/* Blocking clients over the sans-IO codec: the tracker connection and the session with an
 * rpc-server. Each call sends a whole message, then reads until one whole reply is buffered or
 * its deadline passes; any failure but a handler's own error leaves the connection closed, so
 * a half-read stream is never reused. */
#include "rpc/client.h"

#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "rpc/internal.h"

struct at_rpc_tclient {
    int           fd;
    at_rpc_reader in;
    at_strbuf     out;
    int           io_timeout_ms;
};

static int or_default(int v, int d)
{
    return v ? v : d;
}

void at_rpc_tclient_free(at_rpc_tclient *c)
{
    if (!c) return;
    at_rpc_net_close(c->fd);
    at_rpc_reader_fini(&c->in);
    at_strbuf_fini(&c->out);
    at_free(c);
}

int at_rpc_tclient_fd(const at_rpc_tclient *c)
{
    return c->fd;
}

static at_status tclient_broken(at_rpc_tclient *c, at_status st)
{
    at_rpc_net_close(c->fd);
    c->fd = -1;
    return st;
}

/* Sends c->out, then waits for one JSON reply. */
static at_status roundtrip(at_rpc_tclient *c, int timeout_ms, cJSON **reply)
{
    *reply = NULL;
    if (c->fd < 0) return AT_FAIL(AT_EIO, "tracker connection is closed");
    at_status st = at_strbuf_status(&c->out);
    if (st != AT_OK) return st;
    double deadline = at_rpc_deadline(timeout_ms);
    st = at_rpc_net_send_all(c->fd, c->out.data, c->out.len, deadline);
    at_strbuf_clear(&c->out);
    if (st != AT_OK) return tclient_broken(c, AT_FAIL_WRAP(st, "tracker"));
    for (;;) {
        bool got;
        st = at_rpc_reader_take_json(&c->in, AT_RPC_TRACKER_MAX_MSG, reply, &got);
        if (st != AT_OK) return tclient_broken(c, AT_FAIL_WRAP(st, "tracker reply"));
        if (got) return AT_OK;
        st = at_rpc_net_recv(c->fd, &c->in, deadline);
        if (st != AT_OK) return tclient_broken(c, AT_FAIL_WRAP(st, "tracker"));
    }
}

static at_status expect_code(at_rpc_tclient *c, const char *what, int want)
{
    cJSON *r;
    AT_TRY(roundtrip(c, c->io_timeout_ms, &r));
    int code;
    at_status st = at_rpc_parse_code_reply(r, &code);
    at_json_free(r);
    if (st != AT_OK) return tclient_broken(c, AT_FAIL_WRAP(AT_EIO, "%s", what));
    if (code != want) return AT_FAIL(AT_EIO, "%s: tracker replied %d", what, code);
    return AT_OK;
}

at_status at_rpc_tclient_connect(const char *host, int port, const at_rpc_tclient_opts *o, at_rpc_tclient **out)
{
    *out = NULL;
    at_rpc_tclient_opts d = {0};
    if (!o) o = &d;
    at_rpc_tclient *c = at_calloc(1, sizeof *c);
    if (!c) return AT_OOM();
    c->fd = -1;
    c->io_timeout_ms = or_default(o->io_timeout_ms, 10000);
    at_rpc_reader_init(&c->in);
    at_strbuf_init(&c->out);
    at_status st = at_rpc_net_connect_retry(host, port, or_default(o->retry_period_ms, 5000),
                                            or_default(o->connect_timeout_ms, 60000), &c->fd);
    if (st == AT_OK) {
        at_rpc_put_i32(&c->out, AT_RPC_TRACKER_MAGIC);
        st = at_strbuf_status(&c->out);
    }
    double deadline = at_rpc_deadline(c->io_timeout_ms);
    if (st == AT_OK) st = at_rpc_net_send_all(c->fd, c->out.data, c->out.len, deadline);
    at_strbuf_clear(&c->out);
    int32_t magic = 0;
    while (st == AT_OK && !at_rpc_reader_take_i32(&c->in, &magic)) st = at_rpc_net_recv(c->fd, &c->in, deadline);
    if (st == AT_OK && magic != AT_RPC_TRACKER_MAGIC)
        st = AT_FAIL(AT_EIO, "%s:%d is not an RPC tracker (magic 0x%x)", host, port, (unsigned)magic);
    if (st != AT_OK) {
        at_rpc_tclient_free(c);
        return st;
    }
    *out = c;
    return AT_OK;
}

at_status at_rpc_tclient_ping(at_rpc_tclient *c)
{
    at_rpc_enc_ping(&c->out);
    return expect_code(c, "PING", AT_RPC_TRACKER_SUCCESS);
}

at_status at_rpc_tclient_summary(at_rpc_tclient *c, cJSON **out)
{
    *out = NULL;
    cJSON *r;
    at_rpc_enc_summary(&c->out);
    AT_TRY(roundtrip(c, c->io_timeout_ms, &r));
    const cJSON *s;
    at_status st = at_rpc_parse_summary_reply(r, &s);
    if (st != AT_OK) {
        at_json_free(r);
        return tclient_broken(c, AT_FAIL_WRAP(AT_EIO, "SUMMARY"));
    }
    /* hand out the object alone: detach it from the reply list */
    cJSON *obj = cJSON_DetachItemFromArray(r, 1);
    at_json_free(r);
    *out = obj;
    return AT_OK;
}

at_status at_rpc_tclient_summary_text(at_rpc_tclient *c, at_strbuf *out)
{
    cJSON *s;
    AT_TRY(at_rpc_tclient_summary(c, &s));
    at_status st = at_rpc_summary_text(s, out);
    at_json_free(s);
    return st;
}

void at_rpc_assignment_fini(at_rpc_assignment *a)
{
    at_free(a->host);
    at_free(a->matchkey);
    memset(a, 0, sizeof *a);
}

at_status at_rpc_tclient_request(at_rpc_tclient *c, const char *key, int64_t priority, int timeout_ms,
                                 at_rpc_assignment *out)
{
    memset(out, 0, sizeof *out);
    cJSON *r;
    at_rpc_enc_request(&c->out, key, "", priority);
    at_status st = roundtrip(c, timeout_ms, &r);
    if (st == AT_ETIMEOUT) return AT_FAIL(AT_ETIMEOUT, "no '%s' device was free within %d ms", key, timeout_ms);
    AT_TRY(st);
    const char *host, *mk;
    int port;
    st = at_rpc_parse_assign_reply(r, &host, &port, &mk);
    if (st != AT_OK) {
        at_json_free(r);
        return tclient_broken(c, AT_FAIL_WRAP(AT_EIO, "REQUEST"));
    }
    out->host = at_strdup(host);
    out->matchkey = at_strdup(mk);
    out->port = port;
    at_json_free(r);
    if (!out->host || !out->matchkey) {
        at_rpc_assignment_fini(out);
        return AT_OOM();
    }
    return AT_OK;
}

at_status at_rpc_tclient_stop(at_rpc_tclient *c, const char *stop_key)
{
    at_rpc_enc_stop(&c->out, stop_key);
    cJSON *r;
    AT_TRY(roundtrip(c, c->io_timeout_ms, &r));
    int code;
    at_status st = at_rpc_parse_code_reply(r, &code);
    at_json_free(r);
    if (st != AT_OK) return tclient_broken(c, AT_FAIL_WRAP(AT_EIO, "STOP"));
    if (code == AT_RPC_TRACKER_FAIL) return AT_FAIL(AT_EINVAL, "the tracker refused STOP: wrong stop key");
    if (code != AT_RPC_TRACKER_SUCCESS) return AT_FAIL(AT_EIO, "STOP: tracker replied %d", code);
    return AT_OK;
}

at_status at_rpc_tclient_update_info(at_rpc_tclient *c, const char *key, const char *addr, int port)
{
    at_rpc_enc_update_info(&c->out, key, addr, port);
    return expect_code(c, "UPDATE_INFO", AT_RPC_TRACKER_SUCCESS);
}

at_status at_rpc_tclient_put(at_rpc_tclient *c, const char *key, int port, const char *matchkey,
                             const char *custom_addr)
{
    at_rpc_enc_put(&c->out, key, port, matchkey, custom_addr);
    return expect_code(c, "PUT", AT_RPC_TRACKER_SUCCESS);
}

at_status at_rpc_tclient_pending_has(at_rpc_tclient *c, const char *matchkey, bool *has)
{
    at_rpc_enc_get_pending(&c->out);
    cJSON *r;
    AT_TRY(roundtrip(c, c->io_timeout_ms, &r));
    at_status st = at_rpc_parse_pending_reply(r, matchkey, has);
    at_json_free(r);
    if (st != AT_OK) return tclient_broken(c, AT_FAIL_WRAP(AT_EIO, "GET_PENDING_MATCHKEYS"));
    return AT_OK;
}

/* ---- session ------------------------------------------------------------------------------ */

struct at_rpc_session {
    int           fd;
    at_rpc_reader in;
    at_strbuf     out;
    uint32_t      seq;
    size_t        max_payload;  /* what we accept */
    size_t        peer_max;     /* what the server accepts */
    int           io_timeout_ms;
    char         *server_key;
    char         *where; /* "host:port" for messages */
};

static at_status sess_broken(at_rpc_session *s, at_status st)
{
    at_rpc_net_close(s->fd);
    s->fd = -1;
    return st;
}

static at_status sess_send(at_rpc_session *s, double deadline)
{
    at_status st = at_strbuf_status(&s->out);
    if (st == AT_OK) st = at_rpc_net_send_all(s->fd, s->out.data, s->out.len, deadline);
    at_strbuf_clear(&s->out);
    if (st != AT_OK) return sess_broken(s, AT_FAIL_WRAP(st, "rpc-server %s", s->where));
    return AT_OK;
}

/* Turns an ERROR frame into a status; the session stays open only for a handler's error. */
static at_status sess_error(at_rpc_session *s, const at_rpc_sess_frame *f)
{
    at_rpc_sess_err err;
    at_status carried;
    const char *msg;
    size_t len;
    if (at_rpc_sess_parse_error(f, &err, &carried, &msg, &len) != AT_OK)
        return sess_broken(s, AT_FAIL_WRAP(AT_EIO, "rpc-server %s", s->where));
    switch (err) {
    case AT_RPC_SERR_HANDLER:
        if (carried == AT_OK) carried = AT_EIO;
        return AT_FAIL(carried, "rpc-server %s: %.*s", s->where, (int)len, msg);
    case AT_RPC_SERR_TIMEOUT: return sess_broken(s, AT_FAIL(AT_ETIMEOUT, "rpc-server %s: %.*s", s->where, (int)len, msg));
    case AT_RPC_SERR_CRASH: return sess_broken(s, AT_FAIL(AT_EDEVICE, "rpc-server %s: %.*s", s->where, (int)len, msg));
    case AT_RPC_SERR_PROTOCOL:
    case AT_RPC_SERR_VERSION:
    case AT_RPC_SERR_AUTH:
    case AT_RPC_SERR_TOO_BIG:
    case AT_RPC_SERR_COUNT: break;
    }
    return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s: %s: %.*s", s->where, at_rpc_sess_err_str(err), (int)len, msg));
}

/* Reads the next frame (ERROR frames become statuses). f->payload is borrowed from s->in. */
static at_status sess_recv(at_rpc_session *s, double deadline, at_rpc_sess_frame *f)
{
    if (s->fd < 0) return AT_FAIL(AT_EIO, "rpc session with %s is closed", s->where);
    for (;;) {
        bool got;
        at_status st = at_rpc_sess_take(&s->in, s->max_payload, f, &got, NULL);
        if (st != AT_OK) return sess_broken(s, AT_FAIL_WRAP(AT_EIO, "rpc-server %s", s->where));
        if (got) return f->type == AT_RPC_SESS_ERROR ? sess_error(s, f) : AT_OK;
        st = at_rpc_net_recv(s->fd, &s->in, deadline);
        if (st != AT_OK) return sess_broken(s, AT_FAIL_WRAP(st, "rpc-server %s", s->where));
    }
}

static at_status expect(at_rpc_session *s, const at_rpc_sess_frame *f, at_rpc_sess_type type, uint32_t seq)
{
    if (f->type != type || f->seq != seq)
        return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s: protocol error: expected %s #%u, got %s #%u", s->where,
                                      at_rpc_sess_type_str(type), (unsigned)seq, at_rpc_sess_type_str(f->type),
                                      (unsigned)f->seq));
    return AT_OK;
}

static uint32_t get_u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32le(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* TVM's data-plane handshake, then ours: HELLO, CHALLENGE, AUTH, WELCOME. */
static at_status sess_handshake(at_rpc_session *s, const char *matchkey, const at_rpc_session_opts *o)
{
    double deadline = at_rpc_deadline(s->io_timeout_ms);
    char *key;
    AT_TRY(at_rpc_dp_client_key(matchkey, o->session_timeout_s, &key));
    at_rpc_enc_dp_hello(&s->out, key);
    at_free(key);
    AT_TRY(sess_send(s, deadline));
    int32_t code;
    while (!at_rpc_reader_take_i32(&s->in, &code)) {
        at_status st = at_rpc_net_recv(s->fd, &s->in, deadline);
        if (st != AT_OK) return sess_broken(s, AT_FAIL_WRAP(st, "rpc-server %s: handshake", s->where));
    }
    if (code == AT_RPC_CODE_MISMATCH)
        return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s: key mismatch: it no longer holds match key '%s'", s->where, matchkey));
    if (code != AT_RPC_CODE_SUCCESS)
        return sess_broken(s, AT_FAIL(AT_EIO, "%s is not an RPC server (handshake code 0x%x)", s->where, (unsigned)code));
    for (;;) {
        const char *p;
        size_t n;
        bool got;
        if (at_rpc_reader_take_frame(&s->in, AT_RPC_MAX_KEY_LEN, &p, &n, &got) != AT_OK)
            return sess_broken(s, AT_FAIL_WRAP(AT_EIO, "rpc-server %s: server key", s->where));
        if (got) {
            if (!(s->server_key = at_strndup(p, n))) return AT_OOM();
            break;
        }
        at_status st = at_rpc_net_recv(s->fd, &s->in, deadline);
        if (st != AT_OK) return sess_broken(s, AT_FAIL_WRAP(st, "rpc-server %s: handshake", s->where));
    }

    bool auth = o->auth_key && *o->auth_key;
    unsigned char hello[AT_RPC_SESS_NONCE_LEN + 8], cnonce[AT_RPC_SESS_NONCE_LEN];
    AT_TRY(at_rpc_urandom(cnonce, sizeof cnonce));
    memcpy(hello, cnonce, sizeof cnonce);
    put_u32le(hello + AT_RPC_SESS_NONCE_LEN, auth ? AT_RPC_SESS_FLAG_AUTH : 0);
    put_u32le(hello + AT_RPC_SESS_NONCE_LEN + 4, (uint32_t)s->max_payload);
    at_rpc_sess_enc(&s->out, AT_RPC_SESS_HELLO, 0, hello, sizeof hello);
    AT_TRY(sess_send(s, deadline));

    at_rpc_sess_frame f;
    AT_TRY(sess_recv(s, deadline, &f));
    AT_TRY(expect(s, &f, AT_RPC_SESS_CHALLENGE, 0));
    if (f.len != AT_RPC_SESS_NONCE_LEN + 8 && f.len != AT_RPC_SESS_NONCE_LEN + 8 + AT_RPC_SESS_PROOF_LEN)
        return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s: CHALLENGE of %zu bytes", s->where, f.len));
    unsigned char snonce[AT_RPC_SESS_NONCE_LEN];
    memcpy(snonce, f.payload, sizeof snonce);
    uint32_t sflags = get_u32le(f.payload + AT_RPC_SESS_NONCE_LEN);
    s->peer_max = get_u32le(f.payload + AT_RPC_SESS_NONCE_LEN + 4);
    bool server_auth = (sflags & AT_RPC_SESS_FLAG_AUTH) != 0;
    bool has_proof = f.len > AT_RPC_SESS_NONCE_LEN + 8;
    if ((sflags & ~AT_RPC_SESS_FLAG_AUTH) || server_auth != has_proof || s->peer_max == 0)
        return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s: malformed CHALLENGE", s->where));
    if (server_auth && !auth)
        return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s requires an auth key (--auth-key)", s->where));
    if (!server_auth && auth)
        return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s presented no auth key but this side has one", s->where));
    unsigned char proof[AT_RPC_SESS_PROOF_LEN];
    if (auth) {
        at_rpc_auth_proof(o->auth_key, AT_RPC_PROOF_SERVER, cnonce, snonce, proof);
        if (!at_rpc_ct_equal(proof, f.payload + AT_RPC_SESS_NONCE_LEN + 8, sizeof proof))
            return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s: auth key differs", s->where));
        at_rpc_auth_proof(o->auth_key, AT_RPC_PROOF_CLIENT, snonce, cnonce, proof);
    }
    at_rpc_sess_enc(&s->out, AT_RPC_SESS_AUTH, 0, proof, auth ? sizeof proof : 0);
    AT_TRY(sess_send(s, deadline));
    AT_TRY(sess_recv(s, deadline, &f));
    AT_TRY(expect(s, &f, AT_RPC_SESS_WELCOME, 0));
    if (f.len != 0) return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s: WELCOME with a payload", s->where));
    return AT_OK;
}

at_status at_rpc_session_open(const char *host, int port, const char *matchkey, const at_rpc_session_opts *o,
                              at_rpc_session **out)
{
    *out = NULL;
    at_rpc_session_opts d = {0};
    if (!o) o = &d;
    if (o->max_payload > AT_RPC_SESS_HARD_MAX_PAYLOAD)
        return AT_FAIL(AT_EINVAL, "max_payload %zu above %u", o->max_payload, AT_RPC_SESS_HARD_MAX_PAYLOAD);
    at_rpc_session *s = at_calloc(1, sizeof *s);
    if (!s) return AT_OOM();
    s->fd = -1;
    s->max_payload = o->max_payload ? o->max_payload : AT_RPC_SESS_DEFAULT_MAX_PAYLOAD;
    s->io_timeout_ms = or_default(o->io_timeout_ms, 10000);
    at_rpc_reader_init(&s->in);
    at_strbuf_init(&s->out);
    at_strbuf w;
    at_strbuf_init(&w);
    at_strbuf_printf(&w, "%s:%d", host, port);
    s->where = at_strbuf_take(&w);
    at_status st = s->where ? AT_OK : AT_OOM();
    if (st == AT_OK) st = at_rpc_net_connect(host, port, or_default(o->connect_timeout_ms, 10000), &s->fd, NULL);
    if (st == AT_OK) st = sess_handshake(s, matchkey, o);
    if (st != AT_OK) {
        at_rpc_net_close(s->fd);
        s->fd = -1;
        at_rpc_session_free(s);
        return st;
    }
    *out = s;
    return AT_OK;
}

void at_rpc_session_free(at_rpc_session *s)
{
    if (!s) return;
    if (s->fd >= 0) {
        at_strbuf_clear(&s->out);
        at_rpc_sess_enc(&s->out, AT_RPC_SESS_BYE, ++s->seq, NULL, 0);
        if (!s->out.failed) (void)at_rpc_net_send_all(s->fd, s->out.data, s->out.len, at_rpc_deadline(200));
    }
    at_rpc_net_close(s->fd);
    at_rpc_reader_fini(&s->in);
    at_strbuf_fini(&s->out);
    at_free(s->server_key);
    at_free(s->where);
    at_free(s);
}

const char *at_rpc_session_server_key(const at_rpc_session *s)
{
    return s->server_key;
}

/* One request/reply exchange; *f borrowed from s->in. */
static at_status call(at_rpc_session *s, at_rpc_sess_type type, at_rpc_sess_type want, const void *data, size_t n,
                      int timeout_ms, at_rpc_sess_frame *f)
{
    if (s->fd < 0) return AT_FAIL(AT_EIO, "rpc session with %s is closed", s->where);
    if (n > s->peer_max)
        return AT_FAIL(AT_EINVAL, "request of %zu bytes exceeds what rpc-server %s accepts (%zu)", n, s->where, s->peer_max);
    double deadline = at_rpc_deadline(timeout_ms ? timeout_ms : s->io_timeout_ms);
    uint32_t seq = ++s->seq;
    at_rpc_sess_enc(&s->out, type, seq, data, n);
    AT_TRY(sess_send(s, deadline));
    at_status st = sess_recv(s, deadline, f);
    if (st != AT_OK) return st;
    return expect(s, f, want, seq);
}

at_status at_rpc_session_ping(at_rpc_session *s, const void *data, size_t n, int timeout_ms)
{
    at_rpc_sess_frame f;
    AT_TRY(call(s, AT_RPC_SESS_PING, AT_RPC_SESS_PONG, data, n, timeout_ms, &f));
    if (f.len != n || (n && memcmp(f.payload, data, n)))
        return sess_broken(s, AT_FAIL(AT_EIO, "rpc-server %s: PONG does not echo the PING", s->where));
    return AT_OK;
}

at_status at_rpc_session_measure(at_rpc_session *s, const void *req, size_t n, int timeout_ms, unsigned char **reply,
                                 size_t *reply_len)
{
    *reply = NULL;
    *reply_len = 0;
    at_rpc_sess_frame f;
    AT_TRY(call(s, AT_RPC_SESS_MEASURE, AT_RPC_SESS_RESULT, req, n, timeout_ms, &f));
    unsigned char *copy = NULL;
    if (f.len) {
        if (!(copy = at_malloc(f.len))) return AT_OOM();
        memcpy(copy, f.payload, f.len);
    }
    *reply = copy;
    *reply_len = f.len;
    return AT_OK;
}

/* ---- request_remote ----------------------------------------------------------------------- */

at_status at_rpc_request_session(const at_rpc_request_opts *o, at_rpc_session **out)
{
    *out = NULL;
    AT_ASSERT(o && o->tracker_host && o->key);
    int max_retry = o->max_retry > 0 ? o->max_retry : 5;
    int req_timeout = or_default(o->request_timeout_ms, 60000);
    at_status st = AT_OK;
    for (int attempt = 0; attempt < max_retry; attempt++) {
        at_rpc_tclient *tc;
        st = at_rpc_tclient_connect(o->tracker_host, o->tracker_port, &o->tracker, &tc);
        if (st != AT_OK && st != AT_EIO) return st;
        if (st == AT_OK) {
            at_rpc_assignment a;
            st = at_rpc_tclient_request(tc, o->key, o->priority, req_timeout, &a);
            at_rpc_tclient_free(tc);
            bool opening = st == AT_OK;
            if (opening) {
                st = at_rpc_session_open(a.host, a.port, a.matchkey, &o->session, out);
                at_rpc_assignment_fini(&a);
                if (st == AT_OK) return AT_OK;
            }
            /* a server that answered no handshake in time (busy, or its key renewed) is retried with a
             * fresh assignment, as a lost connection is; a tracker that found no device is not */
            if (st != AT_EIO && !(opening && st == AT_ETIMEOUT)) return st;
        }
        at_log(AT_LOG_DEBUG, "request %s: attempt %d failed: %s", o->key, attempt + 1, at_last_error());
    }
    return AT_FAIL_WRAP(AT_EIO, "cannot request %s after %d retry, last error", o->key, max_retry);
}
