/* rpc-server: TVM's registration loop (rpc/server.py _listen_loop/_accept_conn) in C, with each
 * session in a forked process group that the parent kills at the session timeout (TVM joins a
 * multiprocessing.Process with a timeout). The parent never runs handler code, so whatever a
 * session does to its process, the server re-registers and serves the next client. */
#include "rpc/server.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/numfmt.h"
#include "core/rng.h"
#include "rpc/client.h"
#include "rpc/internal.h"

#define MAX_OLD_KEYS 1024

struct at_rpc_server {
    at_rpc_server_opts o; /* strings below replace the caller's */
    char              *host, *key, *tracker_host, *custom_addr, *auth_key, *server_key;
    int                listen_fd;
    int                port;
    at_rng             rng;
    at_rpc_tclient    *tc;
    at_rpc_reader      in; /* the client's bytes: what follows its handshake passes to the session */
};

static int or_default(int v, int d)
{
    return v ? v : d;
}

static bool stop_requested(const at_rpc_server *s)
{
    return s->o.stop_flag && *s->o.stop_flag;
}

static at_status dup_opt(const char *src, char **dst)
{
    *dst = NULL;
    if (!src || !*src) return AT_OK;
    *dst = at_strdup(src);
    return *dst ? AT_OK : AT_OOM();
}

at_status at_rpc_server_new(const at_rpc_server_opts *o, at_rpc_server **out)
{
    *out = NULL;
    if (!o->key || !*o->key) return AT_FAIL(AT_EINVAL, "rpc-server: a device key is required");
    if (o->max_payload > AT_RPC_SESS_HARD_MAX_PAYLOAD)
        return AT_FAIL(AT_EINVAL, "rpc-server: max_payload %zu above %u", o->max_payload, AT_RPC_SESS_HARD_MAX_PAYLOAD);
    at_rpc_server *s = at_calloc(1, sizeof *s);
    if (!s) return AT_OOM();
    s->o = *o;
    s->listen_fd = -1;
    at_rpc_reader_init(&s->in);
    at_status st = dup_opt(o->host && *o->host ? o->host : "127.0.0.1", &s->host);
    if (st == AT_OK) st = dup_opt(o->key, &s->key);
    if (st == AT_OK) st = dup_opt(o->tracker_host, &s->tracker_host);
    if (st == AT_OK) st = dup_opt(o->custom_addr, &s->custom_addr);
    if (st == AT_OK) st = dup_opt(o->auth_key, &s->auth_key);
    if (st == AT_OK) {
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_strbuf_printf(&sb, "server:%s", o->key);
        s->server_key = at_strbuf_take(&sb);
        if (!s->server_key) st = AT_OOM();
    }
    s->o.host = s->host, s->o.key = s->key, s->o.tracker_host = s->tracker_host;
    s->o.custom_addr = s->custom_addr, s->o.auth_key = s->auth_key;
    if (!s->o.max_payload) s->o.max_payload = AT_RPC_SESS_DEFAULT_MAX_PAYLOAD;
    if (st == AT_OK) st = at_rpc_rng_seed(&s->rng, o->seed);
    if (st == AT_OK) {
        int port = o->port == AT_RPC_PORT_ANY ? 0 : o->port ? o->port : 9090;
        int port_end = o->port == AT_RPC_PORT_ANY ? 0 : o->port_end ? o->port_end : 9199;
        st = at_rpc_net_listen(s->host, port, port_end, 16, &s->listen_fd, &s->port);
    }
    if (st != AT_OK) {
        at_rpc_server_free(s);
        return st;
    }
    *out = s;
    return AT_OK;
}

void at_rpc_server_free(at_rpc_server *s)
{
    if (!s) return;
    at_rpc_tclient_free(s->tc);
    at_rpc_net_close(s->listen_fd);
    at_rpc_reader_fini(&s->in);
    at_free(s->host);
    at_free(s->key);
    at_free(s->tracker_host);
    at_free(s->custom_addr);
    at_free(s->auth_key);
    at_free(s->server_key);
    at_free(s);
}

int at_rpc_server_port(const at_rpc_server *s)
{
    return s->port;
}

/* ---- the session process ------------------------------------------------------------------ */

typedef struct sess {
    int           fd;
    at_rpc_reader in;
    at_strbuf     out;
    size_t        client_max;
} sess;

static at_status sess_flush(sess *x, double deadline)
{
    at_status st = at_strbuf_status(&x->out);
    if (st == AT_OK) st = at_rpc_net_send_all(x->fd, x->out.data, x->out.len, deadline);
    at_strbuf_clear(&x->out);
    return st;
}

static void sess_fail(sess *x, uint32_t seq, at_rpc_sess_err err, at_status st, const char *msg, int io_timeout_ms)
{
    at_strbuf_clear(&x->out);
    at_rpc_sess_enc_error(&x->out, seq, err, st, msg);
    (void)sess_flush(x, at_rpc_deadline(io_timeout_ms));
}

/* Next frame within the deadline. On a bad frame an ERROR goes back first. *eof when the client
 * closed between frames. */
static at_status sess_next(sess *x, size_t max, double deadline, int io_timeout_ms, at_rpc_sess_frame *f, bool *eof)
{
    *eof = false;
    for (;;) {
        bool got;
        uint32_t bad_version = 0;
        at_status st = at_rpc_sess_take(&x->in, max, f, &got, &bad_version);
        if (st == AT_EINVAL) {
            sess_fail(x, 0, AT_RPC_SERR_TOO_BIG, st, at_last_error(), io_timeout_ms);
            return st;
        }
        if (st != AT_OK) {
            sess_fail(x, 0, bad_version ? AT_RPC_SERR_VERSION : AT_RPC_SERR_PROTOCOL, st, at_last_error(), io_timeout_ms);
            return st;
        }
        if (got) return AT_OK;
        st = at_rpc_net_recv(x->fd, &x->in, deadline);
        if (st == AT_EIO && at_rpc_reader_buffered(&x->in) == 0) *eof = true;
        if (st != AT_OK) return st;
    }
}

static uint32_t get_u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32le(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static at_status sess_handshake(const at_rpc_server *s, sess *x)
{
    int io = or_default(s->o.io_timeout_ms, 10000);
    double deadline = at_rpc_deadline(io);
    at_rpc_sess_frame f;
    bool eof;
    const size_t hs_max = AT_RPC_SESS_NONCE_LEN + 8 + AT_RPC_SESS_PROOF_LEN;
    AT_TRY(sess_next(x, hs_max, deadline, io, &f, &eof));
    if (f.type != AT_RPC_SESS_HELLO || f.seq != 0 || f.len != AT_RPC_SESS_NONCE_LEN + 8) {
        sess_fail(x, 0, AT_RPC_SERR_PROTOCOL, AT_EPARSE, "expected HELLO #0 of 40 bytes", io);
        return AT_FAIL(AT_EPARSE, "session: expected HELLO, got %s", at_rpc_sess_type_str(f.type));
    }
    unsigned char cnonce[AT_RPC_SESS_NONCE_LEN];
    memcpy(cnonce, f.payload, sizeof cnonce);
    uint32_t cflags = get_u32le(f.payload + AT_RPC_SESS_NONCE_LEN);
    x->client_max = get_u32le(f.payload + AT_RPC_SESS_NONCE_LEN + 4);
    if ((cflags & ~AT_RPC_SESS_FLAG_AUTH) || x->client_max == 0) {
        sess_fail(x, 0, AT_RPC_SERR_PROTOCOL, AT_EPARSE, "HELLO: unknown flags or zero max payload", io);
        return AT_FAIL(AT_EPARSE, "session: malformed HELLO");
    }
    bool auth = s->auth_key != NULL;
    unsigned char ch[AT_RPC_SESS_NONCE_LEN + 8 + AT_RPC_SESS_PROOF_LEN], snonce[AT_RPC_SESS_NONCE_LEN];
    AT_TRY(at_rpc_urandom(snonce, sizeof snonce));
    memcpy(ch, snonce, sizeof snonce);
    put_u32le(ch + AT_RPC_SESS_NONCE_LEN, auth ? AT_RPC_SESS_FLAG_AUTH : 0);
    put_u32le(ch + AT_RPC_SESS_NONCE_LEN + 4, (uint32_t)s->o.max_payload);
    if (auth) at_rpc_auth_proof(s->auth_key, AT_RPC_PROOF_SERVER, cnonce, snonce, ch + AT_RPC_SESS_NONCE_LEN + 8);
    at_rpc_sess_enc(&x->out, AT_RPC_SESS_CHALLENGE, 0, ch, auth ? sizeof ch : AT_RPC_SESS_NONCE_LEN + 8);
    AT_TRY(sess_flush(x, deadline));

    AT_TRY(sess_next(x, hs_max, deadline, io, &f, &eof));
    if (f.type != AT_RPC_SESS_AUTH || f.seq != 0) {
        sess_fail(x, 0, AT_RPC_SERR_PROTOCOL, AT_EPARSE, "expected AUTH #0", io);
        return AT_FAIL(AT_EPARSE, "session: expected AUTH, got %s", at_rpc_sess_type_str(f.type));
    }
    bool ok;
    if (auth) {
        unsigned char want[AT_RPC_SESS_PROOF_LEN];
        at_rpc_auth_proof(s->auth_key, AT_RPC_PROOF_CLIENT, snonce, cnonce, want);
        ok = f.len == sizeof want && at_rpc_ct_equal(want, f.payload, sizeof want);
    } else {
        ok = f.len == 0 && !(cflags & AT_RPC_SESS_FLAG_AUTH);
    }
    if (!ok) {
        sess_fail(x, 0, AT_RPC_SERR_AUTH, AT_EIO, auth ? "auth key missing or different" : "this server has no auth key", io);
        return AT_FAIL(AT_EIO, "session: client failed authentication");
    }
    at_rpc_sess_enc(&x->out, AT_RPC_SESS_WELCOME, 0, NULL, 0);
    return sess_flush(x, deadline);
}

static at_status sess_serve(const at_rpc_server *s, sess *x, const at_rpc_session_info *info)
{
    const at_rpc_session_handler *h = &s->o.handler;
    int io = or_default(s->o.io_timeout_ms, 10000);
    AT_TRY(sess_handshake(s, x));
    if (h->session_begin) {
        at_status st = h->session_begin(h->ctx, info);
        if (st != AT_OK) {
            sess_fail(x, 0, AT_RPC_SERR_HANDLER, st, at_last_error(), io);
            return st;
        }
    }
    at_status st = AT_OK;
    at_strbuf reply;
    at_strbuf_init(&reply);
    for (uint32_t seq = 1;; seq++) {
        at_rpc_sess_frame f;
        bool eof;
        st = sess_next(x, s->o.max_payload, at_rpc_deadline(or_default(s->o.idle_timeout_ms, 60000)), io, &f, &eof);
        if (eof) {
            st = AT_OK; /* the client left without BYE */
            break;
        }
        if (st != AT_OK) break;
        if (f.seq != seq) {
            sess_fail(x, f.seq, AT_RPC_SERR_PROTOCOL, AT_EPARSE, "sequence number out of order", io);
            st = AT_FAIL(AT_EPARSE, "session: frame #%u, expected #%u", (unsigned)f.seq, (unsigned)seq);
            break;
        }
        if (f.type == AT_RPC_SESS_BYE) break;
        if (f.type == AT_RPC_SESS_PING) {
            if (f.len > x->client_max) {
                sess_fail(x, seq, AT_RPC_SERR_TOO_BIG, AT_EINVAL, "PONG would exceed the client's limit", io);
                continue;
            }
            at_rpc_sess_enc(&x->out, AT_RPC_SESS_PONG, seq, f.payload, f.len);
        } else if (f.type == AT_RPC_SESS_MEASURE) {
            at_strbuf_clear(&reply);
            at_status hs = h->measure ? h->measure(h->ctx, f.payload, f.len, &reply)
                                      : AT_FAIL(AT_EUNSUPPORTED, "this rpc-server has no measurement handler");
            if (hs == AT_OK) hs = at_strbuf_status(&reply);
            if (hs == AT_OK && reply.len > x->client_max)
                hs = AT_FAIL(AT_EINVAL, "reply of %zu bytes exceeds the client's limit of %zu", reply.len, x->client_max);
            if (hs == AT_OK)
                at_rpc_sess_enc(&x->out, AT_RPC_SESS_RESULT, seq, reply.data, reply.len);
            else
                at_rpc_sess_enc_error(&x->out, seq, AT_RPC_SERR_HANDLER, hs, at_last_error());
        } else {
            char msg[96];
            snprintf(msg, sizeof msg, "unexpected %s frame in a session", at_rpc_sess_type_str(f.type));
            sess_fail(x, seq, AT_RPC_SERR_PROTOCOL, AT_EPARSE, msg, io);
            st = AT_FAIL(AT_EPARSE, "session: %s", msg);
            break;
        }
        st = sess_flush(x, at_rpc_deadline(io));
        if (st != AT_OK) break;
    }
    at_strbuf_fini(&reply);
    if (h->session_end) h->session_end(h->ctx);
    return st;
}

/* Runs in the forked child; never returns. */
static _Noreturn void session_child(at_rpc_server *s, int fd, const char *peer, double timeout_s)
{
    at_rpc_net_close(s->listen_fd);
    if (s->tc) at_rpc_net_close(at_rpc_tclient_fd(s->tc));
    sess x = {.fd = fd, .in = s->in}; /* the bytes the client sent after its handshake */
    at_strbuf_init(&x.out);
    at_rpc_session_info info = {.peer = peer, .server_key = s->server_key, .timeout_s = timeout_s};
    at_status st = sess_serve(s, &x, &info);
    if (st != AT_OK) at_log(AT_LOG_WARN, "rpc-server: session with %s ended: %s", peer, at_last_error());
    at_rpc_reader_fini(&x.in);
    at_strbuf_fini(&x.out);
    /* a forked child leaves with _exit: the parent's stdio buffers and atexit work stay theirs */
    _exit(st == AT_OK ? 0 : 1);
}

/* ---- the parent: one session ---------------------------------------------------------------- */

static void kill_group(pid_t pid)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

static void send_error(int fd, at_rpc_sess_err err, at_status st, const char *msg)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_sess_enc_error(&sb, 0, err, st, msg);
    if (!sb.failed) (void)at_rpc_net_send_all(fd, sb.data, sb.len, at_rpc_deadline(1000));
    at_strbuf_fini(&sb);
}

static at_status serve_session(at_rpc_server *s, int fd, const char *peer, double client_timeout_s)
{
    double timeout = client_timeout_s;
    if (s->o.session_timeout_s > 0 && (timeout <= 0 || timeout > s->o.session_timeout_s)) timeout = s->o.session_timeout_s;
    at_log(AT_LOG_INFO, "rpc-server: connected from %s", peer);
    int p[2];
    if (pipe(p) != 0) return AT_FAIL(AT_EIO, "rpc-server: pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        return AT_FAIL(AT_EIO, "rpc-server: fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(p[0]);
        setpgid(0, 0);
        session_child(s, fd, peer, timeout);
    }
    close(p[1]);
    at_rpc_reader_fini(&s->in); /* the child's copy went with it */
    at_rpc_reader_init(&s->in);
    setpgid(pid, pid); /* also here: whichever of the two runs first, the group exists before a kill */
    double deadline = timeout > 0 ? at_clock_mono_s() + timeout : INFINITY;
    int status = 0;
    bool done = false, timed_out = false, stopped = false;
    while (!done) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            done = true;
            break;
        }
        if (at_clock_mono_s() >= deadline) {
            timed_out = true;
            break;
        }
        if (stop_requested(s)) {
            stopped = true;
            break;
        }
        /* the pipe closes when the child exits; poll wakes then, or every 100 ms to re-check */
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        int wait_ms = at_rpc_ms_left(deadline);
        (void)poll(&pf, 1, wait_ms < 0 || wait_ms > 100 ? 100 : wait_ms);
    }
    close(p[0]);
    if (timed_out || stopped) {
        kill_group(pid);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (timed_out) {
            char t[AT_FMT_DOUBLE_MAX], msg[256];
            at_fmt_double(timeout, t);
            snprintf(msg, sizeof msg,
                     "RPCSessionTimeoutError: Your %ss session has expired, try to increase the \"session_timeout\" value.", t);
            at_log(AT_LOG_INFO, "rpc-server: timeout in RPC session, kill..");
            send_error(fd, AT_RPC_SERR_TIMEOUT, AT_ETIMEOUT, msg);
        }
    } else {
        kill(-pid, SIGKILL); /* leftovers of the session's group, if the handler forked any */
        if (WIFSIGNALED(status)) {
            char msg[128];
            snprintf(msg, sizeof msg, "session process died with signal %d", WTERMSIG(status));
            at_log(AT_LOG_WARN, "rpc-server: %s", msg);
            send_error(fd, AT_RPC_SERR_CRASH, AT_EDEVICE, msg);
        }
    }
    at_rpc_net_close(fd);
    at_log(AT_LOG_INFO, "rpc-server: finish serving %s", peer);
    return AT_OK;
}

/* ---- registration and accept ------------------------------------------------------------- */

/* Connects (retrying a refused tracker as TVM does), then UPDATE_INFO. *connected tells the
 * two failures apart: without a connection the server gives up, as TVM's raises. */
static at_status tracker_connect(at_rpc_server *s, bool *connected)
{
    at_rpc_tclient_opts to = {
        .connect_timeout_ms = or_default(s->o.tracker_connect_timeout_ms, 60000),
        .retry_period_ms = or_default(s->o.tracker_retry_ms, 5000),
        .io_timeout_ms = or_default(s->o.io_timeout_ms, 10000),
    };
    *connected = false;
    AT_TRY(at_rpc_tclient_connect(s->tracker_host, s->o.tracker_port, &to, &s->tc));
    *connected = true;
    at_status st = at_rpc_tclient_update_info(s->tc, s->server_key, s->custom_addr, s->port);
    if (st != AT_OK) {
        at_rpc_tclient_free(s->tc);
        s->tc = NULL;
    }
    return st;
}

typedef struct keyset {
    char  *keys[MAX_OLD_KEYS];
    size_t n;
} keyset;

static bool keyset_has(const keyset *k, const char *key)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->keys[i], key)) return true;
    return false;
}

static at_status keyset_add(keyset *k, const char *key)
{
    if (keyset_has(k, key)) return AT_OK;
    if (k->n == MAX_OLD_KEYS) {
        at_free(k->keys[0]);
        memmove(k->keys, k->keys + 1, (k->n - 1) * sizeof *k->keys);
        k->n--;
    }
    if (!(k->keys[k->n] = at_strdup(key))) return AT_OOM();
    k->n++;
    return AT_OK;
}

static void keyset_fini(keyset *k)
{
    for (size_t i = 0; i < k->n; i++) at_free(k->keys[i]);
    k->n = 0;
}

/* ---- data-plane handshakes, served concurrently ------------------------------------------- */

/* Connections whose handshake is in progress at once; a new one beyond this drops the oldest. */
enum { MAX_PENDING = 64 };

/* A fresh connection whose handshake has not completed: its own buffer and deadline, so one
 * silent or slow peer never holds up the others (two idle connections used to stall every
 * client behind them for the whole io timeout each). */
typedef struct pending {
    int           fd;
    bool          got_magic;
    double        deadline;
    char          peer[AT_RPC_IP_MAX];
    at_rpc_reader in;
} pending;

typedef struct pending_set {
    pending p[MAX_PENDING];
    size_t  n;
} pending_set;

static void pending_drop(pending_set *ps, size_t i)
{
    at_rpc_net_close(ps->p[i].fd);
    at_rpc_reader_fini(&ps->p[i].in);
    ps->p[i] = ps->p[--ps->n]; /* order does not matter but for eviction, which takes the earliest deadline */
}

static void pending_fini(pending_set *ps)
{
    while (ps->n) pending_drop(ps, ps->n - 1);
}

/* Accepts every connection waiting on the listener into ps; when full, the peer closest to its
 * deadline gives way. */
static at_status pending_accept(at_rpc_server *s, pending_set *ps)
{
    for (;;) {
        int c;
        AT_TRY(at_rpc_net_accept(s->listen_fd, &c));
        if (c < 0) return AT_OK;
        if (ps->n == MAX_PENDING) {
            size_t oldest = 0;
            for (size_t i = 1; i < ps->n; i++)
                if (ps->p[i].deadline < ps->p[oldest].deadline) oldest = i;
            at_log(AT_LOG_WARN, "rpc-server: %d handshakes in progress; dropped the oldest, from %s", MAX_PENDING,
                   ps->p[oldest].peer);
            pending_drop(ps, oldest);
        }
        pending *p = &ps->p[ps->n++];
        *p = (pending){.fd = c, .deadline = at_rpc_deadline(or_default(s->o.io_timeout_ms, 10000))};
        at_rpc_reader_init(&p->in);
        if (at_rpc_net_peer_ip(c, p->peer) != AT_OK) snprintf(p->peer, sizeof p->peer, "?");
    }
}

/* Advances p's handshake with what it sent. Returns 1 when it presented matchkey (the reply went
 * out), 0 while incomplete, -1 when the connection is done with (answered MISMATCH, malformed,
 * closed): the caller drops it. *st is set only for AT_ENOMEM. */
static int pending_step(at_rpc_server *s, pending *p, const char *matchkey, double *timeout_s, at_status *st)
{
    bool eof = false;
    at_status rs = at_rpc_net_recv_now(p->fd, &p->in, AT_RPC_MAX_KEY_LEN + 8, &eof);
    if (rs == AT_ENOMEM) {
        *st = rs;
        return -1;
    }
    if (rs != AT_OK) {
        at_log(AT_LOG_WARN, "rpc-server: dropped a connection from %s: %s", p->peer, at_last_error());
        return -1;
    }
    if (!p->got_magic) {
        int32_t magic;
        if (!at_rpc_reader_take_i32(&p->in, &magic)) return eof ? -1 : 0;
        if (magic != AT_RPC_MAGIC) {
            at_log(AT_LOG_WARN, "rpc-server: dropped a connection from %s: wrong magic 0x%x", p->peer, (unsigned)magic);
            return -1;
        }
        p->got_magic = true;
    }
    const char *key = NULL;
    size_t key_len = 0;
    bool got = false;
    rs = at_rpc_reader_take_frame(&p->in, AT_RPC_MAX_KEY_LEN, &key, &key_len, &got);
    if (rs != AT_OK) {
        at_log(AT_LOG_WARN, "rpc-server: dropped a connection from %s: %s", p->peer, at_last_error());
        return -1;
    }
    if (!got) return eof ? -1 : 0;
    char *header = NULL;
    double t = 0;
    rs = at_rpc_dp_parse_key(key, key_len, &header, &t);
    if (rs == AT_ENOMEM) {
        *st = rs;
        return -1;
    }
    bool match = rs == AT_OK && !strncmp(header, "client:", 7) && !strcmp(header + 7, matchkey);
    if (rs == AT_EPARSE) at_log(AT_LOG_WARN, "rpc-server: %s", at_last_error());
    at_free(header);
    at_strbuf out;
    at_strbuf_init(&out);
    at_rpc_enc_dp_reply(&out, match ? AT_RPC_CODE_SUCCESS : AT_RPC_CODE_MISMATCH, s->server_key);
    rs = at_strbuf_status(&out);
    /* a few bytes on a fresh socket: the deadline only guards against a peer that stopped reading */
    if (rs == AT_OK) rs = at_rpc_net_send_all(p->fd, out.data, out.len, p->deadline);
    at_strbuf_fini(&out);
    if (rs == AT_ENOMEM) {
        *st = rs;
        return -1;
    }
    if (rs != AT_OK) return -1;
    if (!match) {
        at_log(AT_LOG_WARN, "rpc-server: mismatch key from client");
        return -1;
    }
    *timeout_s = t;
    return 1;
}

/* TVM's _accept_conn: PUT a fresh matchkey, keep it alive, return the first client that
 * presents it; handshakes of all fresh connections progress together, each dropped at its own
 * deadline. *fd = -1 when stopped. A tracker failure returns its status (the caller
 * reconnects). */
static at_status accept_client(at_rpc_server *s, int *fd, char peer[AT_RPC_IP_MAX], double *timeout_s)
{
    *fd = -1;
    keyset old = {.n = 0};
    char *matchkey = NULL;
    pending_set ps = {.n = 0};
    at_status st = AT_OK;
    int period = or_default(s->o.ping_period_ms, 2000);
    int unmatch_timeout = or_default(s->o.unmatch_timeout_ms, 4000);
    if (s->tc) {
        st = at_rpc_random_key(&s->rng, s->key, &matchkey);
        if (st == AT_OK) st = at_rpc_tclient_put(s->tc, s->key, s->port, matchkey, s->custom_addr);
    } else {
        matchkey = at_strdup(s->key);
        if (!matchkey) st = AT_OOM();
    }
    int unmatched = 0;
    double next_ping = at_clock_mono_s() + period / 1000.0;
    struct pollfd pf[2 + MAX_PENDING];
    while (st == AT_OK && !stop_requested(s) && *fd < 0) {
        pf[0] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
        pf[1] = (struct pollfd){.fd = s->tc ? at_rpc_tclient_fd(s->tc) : -1, .events = POLLIN};
        int wait_ms = s->tc ? at_rpc_ms_left(next_ping) : 1000;
        if (wait_ms > 1000) wait_ms = 1000; /* re-check the stop flag */
        size_t n_polled = ps.n;
        for (size_t i = 0; i < n_polled; i++) {
            pf[2 + i] = (struct pollfd){.fd = ps.p[i].fd, .events = POLLIN};
            int left = at_rpc_ms_left(ps.p[i].deadline);
            if (left < wait_ms) wait_ms = left;
        }
        int rc = poll(pf, (nfds_t)(2 + n_polled), wait_ms);
        if (rc < 0 && errno != EINTR) {
            st = AT_FAIL(AT_EIO, "poll: %s", strerror(errno));
            break;
        }
        if (rc > 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            /* the tracker never speaks first: this is a close or garbage */
            st = AT_FAIL(AT_EIO, "the tracker closed the connection");
            break;
        }
        /* handshakes first (highest index down, so a drop moves only an entry already seen) */
        for (size_t k = n_polled; rc > 0 && k-- > 0 && st == AT_OK;) {
            if (!(pf[2 + k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            int r = pending_step(s, &ps.p[k], matchkey, timeout_s, &st);
            if (r == 0) continue;
            if (r > 0) {
                *fd = ps.p[k].fd;
                snprintf(peer, AT_RPC_IP_MAX, "%s", ps.p[k].peer);
                /* what the client sent after its handshake passes to the session */
                at_rpc_reader_fini(&s->in);
                s->in = ps.p[k].in;
                ps.p[k] = ps.p[--ps.n];
                break;
            }
            pending_drop(&ps, k);
        }
        if (*fd >= 0 || st != AT_OK) break;
        for (size_t k = ps.n; k-- > 0;) {
            if (at_rpc_ms_left(ps.p[k].deadline) > 0) continue;
            at_log(AT_LOG_WARN, "rpc-server: %s sent no complete handshake in %d ms; closing it", ps.p[k].peer,
                   or_default(s->o.io_timeout_ms, 10000));
            pending_drop(&ps, k);
        }
        if (rc > 0 && (pf[0].revents & POLLIN)) {
            st = pending_accept(s, &ps);
            if (st != AT_OK) break;
        }
        if (!s->tc || at_clock_mono_s() < next_ping) continue;
        next_ping = at_clock_mono_s() + period / 1000.0;
        bool pending_key;
        st = at_rpc_tclient_pending_has(s->tc, matchkey, &pending_key);
        if (st == AT_OK) st = keyset_add(&old, matchkey);
        if (st != AT_OK) break;
        unmatched = pending_key ? 0 : unmatched + 1;
        /* handed out to a client that never came: register a fresh key */
        if ((long)unmatched * period > (long)unmatch_timeout + period) {
            at_log(AT_LOG_INFO, "rpc-server: no incoming connections, regenerate key ...");
            do {
                at_free(matchkey);
                matchkey = NULL;
                st = at_rpc_random_key(&s->rng, s->key, &matchkey);
            } while (st == AT_OK && keyset_has(&old, matchkey));
            if (st == AT_OK) st = at_rpc_tclient_put(s->tc, s->key, s->port, matchkey, s->custom_addr);
            unmatched = 0;
        }
    }
    pending_fini(&ps);
    keyset_fini(&old);
    at_free(matchkey);
    if (st != AT_OK && *fd >= 0) {
        at_rpc_net_close(*fd);
        *fd = -1;
    }
    return st;
}

at_status at_rpc_server_run(at_rpc_server *s)
{
    int sessions = 0;
    while (!stop_requested(s)) {
        at_status st;
        if (s->tracker_host && !s->tc) {
            bool connected;
            st = tracker_connect(s, &connected);
            if (st != AT_OK && (!connected || st == AT_ENOMEM)) return st;
            if (st != AT_OK) {
                at_log(AT_LOG_WARN, "rpc-server: tracker: %s", at_last_error());
                (void)poll(NULL, 0, or_default(s->o.tracker_retry_ms, 5000));
                continue;
            }
        }
        int fd;
        char peer[AT_RPC_IP_MAX];
        double timeout = 0;
        st = accept_client(s, &fd, peer, &timeout);
        if (st == AT_ENOMEM || (st != AT_OK && !s->tracker_host)) return st;
        if (st != AT_OK) {
            /* TVM: a socket error drops the tracker connection and registers again */
            at_log(AT_LOG_WARN, "rpc-server: %s; reconnecting to the tracker", at_last_error());
            at_rpc_tclient_free(s->tc);
            s->tc = NULL;
            continue;
        }
        if (fd < 0) break;
        AT_TRY(serve_session(s, fd, peer, timeout));
        if (s->o.max_sessions && ++sessions >= s->o.max_sessions) break;
    }
    return AT_OK;
}
