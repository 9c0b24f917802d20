/* The tracker's state machine without sockets (TVM's TrackerServerHandler + PriorityScheduler).
 * Per device key: a FIFO list of free server values and a binary heap of requests ordered by
 * (-priority, arrival). Connections are named by ids that are never reused, so a request whose
 * client has gone is detected by the send callback failing, as TVM's callback returns False. */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "rpc/internal.h"

typedef struct tvalue {
    uint64_t conn; /* the server connection that PUT it */
    char    *host;
    int      port;
    char    *matchkey;
} tvalue;

typedef struct treq {
    double   neg_prio;
    uint64_t arrival;
    uint64_t conn;
} treq;

typedef struct tsched {
    char    *key;
    tvalue **vals; /* free values, oldest first */
    size_t   n_vals, cap_vals;
    treq    *reqs; /* min-heap on (neg_prio, arrival) */
    size_t   n_reqs, cap_reqs;
    uint64_t n_arrived;
} tsched;

typedef struct tconn {
    uint64_t id;
    char     peer[AT_RPC_IP_MAX];
    cJSON   *info;    /* UPDATE_INFO's dict, merged; NULL before the first */
    char   **pending; /* matchkeys PUT by this connection and not handed out, insertion order */
    size_t   n_pending, cap_pending;
} tconn;

struct at_rpc_tstate {
    char                 *stop_key;
    at_rpc_tstate_send_fn send;
    void                 *ctx;
    tsched              **scheds; /* creation order (queue_info order) */
    size_t                n_scheds, cap_scheds;
    tconn               **conns; /* open order (server_info order) */
    size_t                n_conns, cap_conns;
    at_strbuf             out; /* reply being built */
};

at_status at_rpc_tstate_new(const char *stop_key, at_rpc_tstate_send_fn send, void *ctx, at_rpc_tstate **out)
{
    *out = NULL;
    at_rpc_tstate *t = at_calloc(1, sizeof *t);
    if (!t) return AT_OOM();
    t->stop_key = at_strdup(stop_key);
    if (!t->stop_key) {
        at_free(t);
        return AT_OOM();
    }
    t->send = send;
    t->ctx = ctx;
    at_strbuf_init(&t->out);
    *out = t;
    return AT_OK;
}

static void value_free(tvalue *v)
{
    if (!v) return;
    at_free(v->host);
    at_free(v->matchkey);
    at_free(v);
}

static void conn_free(tconn *c)
{
    at_json_free(c->info);
    for (size_t i = 0; i < c->n_pending; i++) at_free(c->pending[i]);
    at_free(c->pending);
    at_free(c);
}

void at_rpc_tstate_free(at_rpc_tstate *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->n_scheds; i++) {
        tsched *s = t->scheds[i];
        for (size_t k = 0; k < s->n_vals; k++) value_free(s->vals[k]);
        at_free(s->vals);
        at_free(s->reqs);
        at_free(s->key);
        at_free(s);
    }
    at_free(t->scheds);
    for (size_t i = 0; i < t->n_conns; i++) conn_free(t->conns[i]);
    at_free(t->conns);
    at_strbuf_fini(&t->out);
    at_free(t->stop_key);
    at_free(t);
}

static tconn *find_conn(const at_rpc_tstate *t, uint64_t id)
{
    for (size_t i = 0; i < t->n_conns; i++)
        if (t->conns[i]->id == id) return t->conns[i];
    return NULL;
}

at_status at_rpc_tstate_open(at_rpc_tstate *t, uint64_t conn, const char *peer_ip)
{
    AT_ASSERT(!find_conn(t, conn));
    if (!at_rpc_grow((void **)&t->conns, &t->cap_conns, t->n_conns + 1, sizeof *t->conns)) return AT_OOM();
    tconn *c = at_calloc(1, sizeof *c);
    if (!c) return AT_OOM();
    c->id = conn;
    snprintf(c->peer, sizeof c->peer, "%s", peer_ip);
    t->conns[t->n_conns++] = c;
    return AT_OK;
}

void at_rpc_tstate_close(at_rpc_tstate *t, uint64_t conn)
{
    size_t at = t->n_conns;
    for (size_t i = 0; i < t->n_conns; i++)
        if (t->conns[i]->id == conn) at = i;
    if (at == t->n_conns) return;
    conn_free(t->conns[at]);
    memmove(t->conns + at, t->conns + at + 1, (t->n_conns - at - 1) * sizeof *t->conns);
    t->n_conns--;
    /* TVM drops the values only of connections that sent UPDATE_INFO; we drop every vanished
     * connection's values, since nobody can reach a server through a closed registration. */
    for (size_t i = 0; i < t->n_scheds; i++) {
        tsched *s = t->scheds[i];
        size_t w = 0;
        for (size_t k = 0; k < s->n_vals; k++) {
            if (s->vals[k]->conn == conn)
                value_free(s->vals[k]);
            else
                s->vals[w++] = s->vals[k];
        }
        s->n_vals = w;
    }
}

/* ---- request heap ------------------------------------------------------------------------- */

static int req_less(const treq *a, const treq *b)
{
    if (a->neg_prio != b->neg_prio) return a->neg_prio < b->neg_prio;
    return a->arrival < b->arrival;
}

static void heap_push(tsched *s, treq r)
{
    size_t i = s->n_reqs++;
    s->reqs[i] = r;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!req_less(&s->reqs[i], &s->reqs[p])) break;
        treq tmp = s->reqs[p];
        s->reqs[p] = s->reqs[i];
        s->reqs[i] = tmp;
        i = p;
    }
}

static treq heap_pop(tsched *s)
{
    treq top = s->reqs[0];
    s->reqs[0] = s->reqs[--s->n_reqs];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n_reqs && req_less(&s->reqs[l], &s->reqs[m])) m = l;
        if (r < s->n_reqs && req_less(&s->reqs[r], &s->reqs[m])) m = r;
        if (m == i) break;
        treq tmp = s->reqs[m];
        s->reqs[m] = s->reqs[i];
        s->reqs[i] = tmp;
        i = m;
    }
    return top;
}

/* ---- scheduling --------------------------------------------------------------------------- */

static at_status get_sched(at_rpc_tstate *t, const char *key, tsched **out)
{
    for (size_t i = 0; i < t->n_scheds; i++)
        if (!strcmp(t->scheds[i]->key, key)) {
            *out = t->scheds[i];
            return AT_OK;
        }
    if (!at_rpc_grow((void **)&t->scheds, &t->cap_scheds, t->n_scheds + 1, sizeof *t->scheds)) return AT_OOM();
    tsched *s = at_calloc(1, sizeof *s);
    if (!s || !(s->key = at_strdup(key))) {
        at_free(s);
        return AT_OOM();
    }
    t->scheds[t->n_scheds++] = s;
    *out = s;
    return AT_OK;
}

static void pending_remove(tconn *c, const char *matchkey)
{
    for (size_t i = 0; i < c->n_pending; i++) {
        if (strcmp(c->pending[i], matchkey)) continue;
        at_free(c->pending[i]);
        memmove(c->pending + i, c->pending + i + 1, (c->n_pending - i - 1) * sizeof *c->pending);
        c->n_pending--;
        return;
    }
}

/* PriorityScheduler._schedule: pair the oldest free value with the best request while both
 * exist; a value whose requester is gone goes back to the end of the list. */
static at_status schedule(at_rpc_tstate *t, tsched *s)
{
    while (s->n_reqs && s->n_vals) {
        tvalue *v = s->vals[0];
        at_strbuf_clear(&t->out);
        at_rpc_enc_assign_reply(&t->out, v->host, v->port, v->matchkey);
        AT_TRY(at_strbuf_status(&t->out));
        memmove(s->vals, s->vals + 1, (s->n_vals - 1) * sizeof *s->vals);
        s->n_vals--;
        treq r = heap_pop(s);
        if (t->send(t->ctx, r.conn, t->out.data, t->out.len)) {
            tconn *owner = find_conn(t, v->conn);
            if (owner) pending_remove(owner, v->matchkey);
            at_log(AT_LOG_DEBUG, "tracker: %s -> %s:%d (%s)", s->key, v->host, v->port, v->matchkey);
            value_free(v);
        } else {
            s->vals[s->n_vals++] = v;
        }
    }
    return AT_OK;
}

static at_status reply(at_rpc_tstate *t, uint64_t conn)
{
    AT_TRY(at_strbuf_status(&t->out));
    t->send(t->ctx, conn, t->out.data, t->out.len);
    return AT_OK;
}

static at_status reply_code(at_rpc_tstate *t, uint64_t conn, int code)
{
    at_strbuf_clear(&t->out);
    at_rpc_enc_code_reply(&t->out, code);
    return reply(t, conn);
}

static at_status do_put(at_rpc_tstate *t, tconn *c, const at_rpc_tracker_msg *m)
{
    tsched *s;
    AT_TRY(get_sched(t, m->key, &s));
    if (!at_rpc_grow((void **)&s->vals, &s->cap_vals, s->n_vals + 1, sizeof *s->vals)) return AT_OOM();
    bool known = false;
    for (size_t i = 0; i < c->n_pending; i++)
        if (!strcmp(c->pending[i], m->matchkey)) known = true;
    if (!known && !at_rpc_grow((void **)&c->pending, &c->cap_pending, c->n_pending + 1, sizeof *c->pending)) return AT_OOM();
    tvalue *v = at_calloc(1, sizeof *v);
    char *mk_copy = known ? NULL : at_strdup(m->matchkey);
    if (!v || (!known && !mk_copy) || !(v->host = at_strdup(m->custom_addr ? m->custom_addr : c->peer)) ||
        !(v->matchkey = at_strdup(m->matchkey))) {
        value_free(v);
        at_free(mk_copy);
        return AT_OOM();
    }
    v->conn = c->id;
    v->port = m->port;
    if (!known) c->pending[c->n_pending++] = mk_copy;
    s->vals[s->n_vals++] = v;
    AT_TRY(schedule(t, s));
    return reply_code(t, c->id, AT_RPC_TRACKER_SUCCESS);
}

static at_status do_request(at_rpc_tstate *t, tconn *c, const at_rpc_tracker_msg *m)
{
    tsched *s;
    AT_TRY(get_sched(t, m->key, &s));
    if (!at_rpc_grow((void **)&s->reqs, &s->cap_reqs, s->n_reqs + 1, sizeof *s->reqs)) return AT_OOM();
    heap_push(s, (treq){.neg_prio = -m->priority, .arrival = s->n_arrived++, .conn = c->id});
    return schedule(t, s);
}

static at_status do_update_info(at_rpc_tstate *t, tconn *c, cJSON *msg)
{
    cJSON *info = cJSON_GetArrayItem(msg, 1);
    cJSON *addr = cJSON_GetObjectItemCaseSensitive(info, "addr");
    if (cJSON_IsNull(addr->child)) {
        cJSON *ip = cJSON_CreateString(c->peer);
        if (!ip) return AT_OOM();
        cJSON_ReplaceItemViaPointer(addr, addr->child, ip);
    }
    if (!c->info && !(c->info = cJSON_CreateObject())) return AT_OOM();
    /* dict.update: an existing key keeps its place and takes the new value */
    while (info->child) {
        cJSON *it = cJSON_DetachItemViaPointer(info, info->child);
        cJSON *old = cJSON_GetObjectItemCaseSensitive(c->info, it->string);
        if (old)
            cJSON_ReplaceItemViaPointer(c->info, old, it);
        else
            cJSON_AddItemToArray(c->info, it);
    }
    return reply_code(t, c->id, AT_RPC_TRACKER_SUCCESS);
}

static bool is_server_info(const cJSON *info)
{
    const cJSON *k = info ? cJSON_GetObjectItemCaseSensitive(info, "key") : NULL;
    return cJSON_IsString(k) && !strncmp(k->valuestring, "server", 6);
}

void at_rpc_tstate_summary(const at_rpc_tstate *t, at_strbuf *sb)
{
    at_strbuf_puts(sb, "{\"queue_info\": {");
    for (size_t i = 0; i < t->n_scheds; i++) {
        if (i) at_strbuf_puts(sb, ", ");
        at_json_write_string(sb, t->scheds[i]->key);
        at_strbuf_printf(sb, ": {\"free\": %zu, \"pending\": %zu}", t->scheds[i]->n_vals, t->scheds[i]->n_reqs);
    }
    at_strbuf_puts(sb, "}, \"server_info\": [");
    bool first = true;
    for (size_t i = 0; i < t->n_conns; i++) {
        if (!is_server_info(t->conns[i]->info)) continue;
        if (!first) at_strbuf_puts(sb, ", ");
        first = false;
        at_json_write_value(sb, t->conns[i]->info);
    }
    at_strbuf_puts(sb, "]}");
}

at_status at_rpc_tstate_handle(at_rpc_tstate *t, uint64_t conn, cJSON *msg, bool *stop)
{
    *stop = false;
    tconn *c = find_conn(t, conn);
    AT_ASSERT(c);
    at_rpc_tracker_msg m;
    AT_TRY(at_rpc_tracker_msg_parse(msg, &m));
    switch (m.code) {
    case AT_RPC_TRACKER_PUT: return do_put(t, c, &m);
    case AT_RPC_TRACKER_REQUEST: return do_request(t, c, &m);
    case AT_RPC_TRACKER_PING: return reply_code(t, conn, AT_RPC_TRACKER_SUCCESS);
    case AT_RPC_TRACKER_GET_PENDING_MATCHKEYS: {
        at_strbuf_clear(&t->out);
        size_t mark = at_rpc_frame_begin(&t->out);
        at_strbuf_putc(&t->out, '[');
        for (size_t i = 0; i < c->n_pending; i++) {
            if (i) at_strbuf_puts(&t->out, ", ");
            at_json_write_string(&t->out, c->pending[i]);
        }
        at_strbuf_putc(&t->out, ']');
        at_rpc_frame_end(&t->out, mark);
        return reply(t, conn);
    }
    case AT_RPC_TRACKER_STOP:
        if (m.key && !strcmp(m.key, t->stop_key)) {
            *stop = true;
            return reply_code(t, conn, AT_RPC_TRACKER_SUCCESS);
        }
        return reply_code(t, conn, AT_RPC_TRACKER_FAIL);
    case AT_RPC_TRACKER_UPDATE_INFO: return do_update_info(t, c, msg);
    case AT_RPC_TRACKER_SUMMARY: {
        at_strbuf_clear(&t->out);
        size_t mark = at_rpc_frame_begin(&t->out);
        at_strbuf_puts(&t->out, "[0, ");
        at_rpc_tstate_summary(t, &t->out);
        at_strbuf_putc(&t->out, ']');
        at_rpc_frame_end(&t->out, mark);
        return reply(t, conn);
    }
    case AT_RPC_TRACKER_FAIL:
    case AT_RPC_TRACKER_SUCCESS: break;
    }
    return AT_FAIL(AT_EPARSE, "tracker code %d is not a request", (int)m.code);
}
