/* The tracker's socket side: one poll() loop feeding the sans-IO state machine (tstate.c).
 * Replies are written at once and the rest buffered, so a slow reader never blocks the loop;
 * a connection is closed only at the end of a round, so ids in the state stay valid while a
 * message is handled, and a failed send marks its connection gone (TVM's callback -> False). */
#include "rpc/tracker.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "rpc/internal.h"

/* Bytes read from one connection per round (fairness), and the most output kept for a peer
 * that does not read its replies. */
#define READ_PER_ROUND (256u << 10)
#define MAX_PENDING_OUT (16u << 20)

typedef struct tio {
    uint64_t      id;
    int           fd;
    char          peer[AT_RPC_IP_MAX];
    bool          handshaken;
    bool          closing;
    double        accepted_s;
    double        partial_s; /* when the unfinished message buffered in `in` began; 0: none */
    at_rpc_reader in;
    at_strbuf     out;
    size_t        out_off; /* first unsent byte of out */
} tio;

struct at_rpc_tracker {
    int                    listen_fd;
    int                    port;
    char                  *stop_key;
    at_rpc_tstate         *st;
    tio                  **conns;
    size_t                 n_conns, cap_conns;
    uint64_t               next_id;
    size_t                 max_msg, max_conns;
    int                    handshake_timeout_ms, read_timeout_ms;
    volatile sig_atomic_t *stop_flag;
    bool                   stopped;
    struct pollfd         *pfds;
    size_t                 cap_pfds;
};

static tio *find_io(const at_rpc_tracker *t, uint64_t id)
{
    for (size_t i = 0; i < t->n_conns; i++)
        if (t->conns[i]->id == id) return t->conns[i];
    return NULL;
}

static void flush_out(tio *c)
{
    if (c->closing || c->out_off == c->out.len) return;
    size_t sent;
    if (at_rpc_net_send_some(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, &sent) != AT_OK) {
        at_log(AT_LOG_DEBUG, "tracker: %s: %s", c->peer, at_last_error());
        c->closing = true;
        return;
    }
    c->out_off += sent;
    if (c->out_off == c->out.len) {
        at_strbuf_clear(&c->out);
        c->out_off = 0;
    }
}

static bool queue_out(tio *c, const char *data, size_t n)
{
    if (c->closing) return false;
    if (c->out.len - c->out_off + n > MAX_PENDING_OUT) {
        at_log(AT_LOG_WARN, "tracker: %s does not read its replies; closing it", c->peer);
        c->closing = true;
        return false;
    }
    at_strbuf_append(&c->out, data, n);
    if (c->out.failed) {
        c->closing = true;
        return false;
    }
    flush_out(c);
    return !c->closing;
}

static bool send_cb(void *ctx, uint64_t conn, const char *data, size_t n)
{
    tio *c = find_io(ctx, conn);
    return c && queue_out(c, data, n);
}

at_status at_rpc_tracker_new(const at_rpc_tracker_opts *o, at_rpc_tracker **out)
{
    *out = NULL;
    at_rpc_tracker_opts d = {0};
    if (!o) o = &d;
    const char *host = o->host && *o->host ? o->host : "127.0.0.1";
    int port = o->port == AT_RPC_PORT_ANY ? 0 : o->port ? o->port : 9190;
    int port_end = o->port == AT_RPC_PORT_ANY ? 0 : o->port_end ? o->port_end : 9199;
    at_rpc_tracker *t = at_calloc(1, sizeof *t);
    if (!t) return AT_OOM();
    t->listen_fd = -1;
    t->max_msg = o->max_msg_bytes ? o->max_msg_bytes : AT_RPC_TRACKER_MAX_MSG;
    t->max_conns = o->max_conns ? o->max_conns : 1024;
    t->handshake_timeout_ms = o->handshake_timeout_ms ? o->handshake_timeout_ms : 10000;
    t->read_timeout_ms = o->read_timeout_ms ? o->read_timeout_ms : 10000;
    t->stop_flag = o->stop_flag;
    at_status st;
    if (o->stop_key) {
        t->stop_key = at_strdup(o->stop_key);
        st = t->stop_key ? AT_OK : AT_OOM();
    } else {
        at_rng rng;
        st = at_rpc_rng_seed(&rng, o->seed);
        if (st == AT_OK) st = at_rpc_random_key(&rng, "tracker", &t->stop_key);
    }
    if (st == AT_OK) st = at_rpc_tstate_new(t->stop_key, send_cb, t, &t->st);
    if (st == AT_OK) st = at_rpc_net_listen(host, port, port_end, 128, &t->listen_fd, &t->port);
    if (st != AT_OK) {
        at_rpc_tracker_free(t);
        return st;
    }
    at_log(AT_LOG_DEBUG, "tracker: bind to %s:%d", host, t->port);
    *out = t;
    return AT_OK;
}

static void io_free(tio *c)
{
    at_rpc_net_close(c->fd);
    at_rpc_reader_fini(&c->in);
    at_strbuf_fini(&c->out);
    at_free(c);
}

static void close_all(at_rpc_tracker *t)
{
    for (size_t i = 0; i < t->n_conns; i++) {
        at_rpc_tstate_close(t->st, t->conns[i]->id);
        io_free(t->conns[i]);
    }
    t->n_conns = 0;
    at_rpc_net_close(t->listen_fd);
    t->listen_fd = -1;
}

void at_rpc_tracker_free(at_rpc_tracker *t)
{
    if (!t) return;
    if (t->st) close_all(t);
    at_rpc_net_close(t->listen_fd);
    at_rpc_tstate_free(t->st);
    at_free(t->conns);
    at_free(t->pfds);
    at_free(t->stop_key);
    at_free(t);
}

int at_rpc_tracker_port(const at_rpc_tracker *t)
{
    return t->port;
}

const char *at_rpc_tracker_stop_key(const at_rpc_tracker *t)
{
    return t->stop_key;
}

static at_status accept_all(at_rpc_tracker *t)
{
    for (;;) {
        int fd;
        AT_TRY(at_rpc_net_accept(t->listen_fd, &fd));
        if (fd < 0) return AT_OK;
        char ip[AT_RPC_IP_MAX];
        if (at_rpc_net_peer_ip(fd, ip) != AT_OK) snprintf(ip, sizeof ip, "?");
        if (t->n_conns >= t->max_conns) {
            at_log(AT_LOG_WARN, "tracker: %zu connections open; refusing %s", t->n_conns, ip);
            at_rpc_net_close(fd);
            continue;
        }
        tio *c = at_calloc(1, sizeof *c);
        size_t need = t->n_conns + 1;
        if (!c || !at_rpc_grow((void **)&t->conns, &t->cap_conns, need, sizeof *t->conns)) {
            at_free(c);
            at_rpc_net_close(fd);
            return AT_OOM();
        }
        c->id = ++t->next_id;
        c->fd = fd;
        c->accepted_s = at_clock_mono_s();
        snprintf(c->peer, sizeof c->peer, "%s", ip);
        at_rpc_reader_init(&c->in);
        at_strbuf_init(&c->out);
        if (at_rpc_tstate_open(t->st, c->id, ip) != AT_OK) {
            io_free(c);
            return AT_OOM();
        }
        t->conns[t->n_conns++] = c;
        at_log(AT_LOG_DEBUG, "tracker: connection %llu from %s", (unsigned long long)c->id, ip);
    }
}

/* Handles what c has buffered: the magic first, then whole messages. */
static at_status process(at_rpc_tracker *t, tio *c)
{
    if (!c->handshaken) {
        int32_t magic;
        if (!at_rpc_reader_take_i32(&c->in, &magic)) return AT_OK;
        if (magic != AT_RPC_TRACKER_MAGIC) {
            at_log(AT_LOG_WARN, "tracker: invalid magic 0x%x from %s; closing it", (unsigned)magic, c->peer);
            c->closing = true;
            return AT_OK;
        }
        char b[4];
        for (int i = 0; i < 4; i++) b[i] = (char)((uint32_t)AT_RPC_TRACKER_MAGIC >> (8 * i) & 0xFF);
        c->handshaken = true;
        queue_out(c, b, 4);
    }
    while (!c->closing && !t->stopped) {
        cJSON *msg;
        bool got;
        at_status st = at_rpc_reader_take_json(&c->in, t->max_msg, &msg, &got);
        if (st == AT_ENOMEM) return st;
        if (st != AT_OK) {
            at_log(AT_LOG_WARN, "tracker: error processing message from %s: %s; closing it", c->peer, at_last_error());
            c->closing = true;
            return AT_OK;
        }
        if (!got) return AT_OK;
        c->partial_s = 0; /* a whole message: what follows starts a new one */
        bool stop = false;
        st = at_rpc_tstate_handle(t->st, c->id, msg, &stop);
        at_json_free(msg);
        if (st == AT_ENOMEM) {
            c->closing = true;
            return st;
        }
        if (st != AT_OK) {
            at_log(AT_LOG_WARN, "tracker: error processing message from %s: %s; closing it", c->peer, at_last_error());
            c->closing = true;
            return AT_OK;
        }
        if (stop) t->stopped = true;
    }
    return AT_OK;
}

static void reap(at_rpc_tracker *t)
{
    size_t w = 0;
    for (size_t i = 0; i < t->n_conns; i++) {
        tio *c = t->conns[i];
        if (!c->closing) {
            t->conns[w++] = c;
            continue;
        }
        at_log(AT_LOG_DEBUG, "tracker: connection %llu (%s) closed", (unsigned long long)c->id, c->peer);
        at_rpc_tstate_close(t->st, c->id);
        io_free(c);
    }
    t->n_conns = w;
}

/* STOP: give every reply (the STOP's SUCCESS first of all) a moment to leave, then close. */
static void shut_down(at_rpc_tracker *t)
{
    double deadline = at_rpc_deadline(500);
    for (size_t i = 0; i < t->n_conns; i++) {
        tio *c = t->conns[i];
        if (!c->closing && c->out_off < c->out.len)
            (void)at_rpc_net_send_all(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, deadline);
    }
    close_all(t);
    at_log(AT_LOG_INFO, "tracker stopped");
}

at_status at_rpc_tracker_poll(at_rpc_tracker *t, int timeout_ms, bool *stopped)
{
    *stopped = t->stopped;
    if (t->stopped) return AT_OK;
    size_t n = t->n_conns + 1;
    if (!at_rpc_grow((void **)&t->pfds, &t->cap_pfds, n, sizeof *t->pfds)) return AT_OOM();
    /* the earliest handshake or read deadline bounds the wait */
    double now = at_clock_mono_s();
    for (size_t i = 0; i < t->n_conns; i++) {
        tio *c = t->conns[i];
        double due = !c->handshaken ? c->accepted_s + t->handshake_timeout_ms / 1000.0
                     : c->partial_s > 0 ? c->partial_s + t->read_timeout_ms / 1000.0
                                        : -1;
        if (due < 0) continue;
        int left = (int)((due - now) * 1000.0) + 1;
        if (left < 0) left = 0;
        if (timeout_ms < 0 || left < timeout_ms) timeout_ms = left;
    }
    t->pfds[0] = (struct pollfd){.fd = t->listen_fd, .events = POLLIN};
    for (size_t i = 0; i < t->n_conns; i++) {
        tio *c = t->conns[i];
        t->pfds[i + 1] = (struct pollfd){.fd = c->fd, .events = (short)(POLLIN | (c->out_off < c->out.len ? POLLOUT : 0))};
    }
    size_t n_polled = t->n_conns;
    int rc = poll(t->pfds, (nfds_t)n, timeout_ms);
    if (rc < 0) {
        if (errno == EINTR) return AT_OK;
        return AT_FAIL(AT_EIO, "tracker: poll: %s", strerror(errno));
    }
    at_status st = AT_OK;
    for (size_t i = 0; i < n_polled && st == AT_OK && !t->stopped; i++) {
        tio *c = t->conns[i];
        short ev = t->pfds[i + 1].revents;
        if (c->closing) continue;
        if (ev & POLLOUT) flush_out(c);
        if (ev & (POLLIN | POLLHUP | POLLERR)) {
            bool eof = false;
            st = at_rpc_net_recv_now(c->fd, &c->in, READ_PER_ROUND, &eof);
            if (st == AT_EIO) {
                at_log(AT_LOG_DEBUG, "tracker: %s: %s", c->peer, at_last_error());
                c->closing = true;
                st = AT_OK;
                continue;
            }
            if (st == AT_OK) st = process(t, c);
            if (eof) c->closing = true;
            if (c->handshaken && at_rpc_reader_buffered(&c->in) > 0 && c->partial_s == 0) c->partial_s = at_clock_mono_s();
        }
    }
    if (st == AT_OK && !t->stopped && (t->pfds[0].revents & POLLIN)) st = accept_all(t);
    now = at_clock_mono_s();
    for (size_t i = 0; i < t->n_conns; i++) {
        tio *c = t->conns[i];
        if (!c->handshaken && !c->closing && (now - c->accepted_s) * 1000.0 >= t->handshake_timeout_ms) {
            at_log(AT_LOG_WARN, "tracker: %s sent no handshake in %d ms; closing it", c->peer, t->handshake_timeout_ms);
            c->closing = true;
        }
        if (c->handshaken && !c->closing && c->partial_s > 0 && (now - c->partial_s) * 1000.0 >= t->read_timeout_ms) {
            at_log(AT_LOG_WARN, "tracker: %s sent part of a message and nothing more in %d ms; closing it", c->peer,
                   t->read_timeout_ms);
            c->closing = true;
        }
    }
    if (t->stopped) {
        shut_down(t);
        *stopped = true;
        return st;
    }
    reap(t);
    return st;
}

at_status at_rpc_tracker_run(at_rpc_tracker *t)
{
    for (;;) {
        if (t->stop_flag && *t->stop_flag) return AT_OK;
        bool stopped;
        AT_TRY(at_rpc_tracker_poll(t, 1000, &stopped));
        if (stopped) return AT_OK;
    }
}
