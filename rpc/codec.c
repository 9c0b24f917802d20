/* Sans-IO codec for TVM's tracker and data-plane handshake and for our session frames.
 * Design: every input is buffered in an at_rpc_reader and taken out only once complete, so the
 * same code serves blocking clients and the poll()-driven tracker; every length is checked
 * against a limit before anything is allocated for it. */
#include "rpc/codec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/numfmt.h"
#include "rpc/internal.h"

/* ---- little-endian helpers -------------------------------------------------------------- */

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get_u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void put_u32(at_strbuf *sb, uint32_t v)
{
    char b[4] = {(char)(v & 0xFF), (char)(v >> 8 & 0xFF), (char)(v >> 16 & 0xFF), (char)(v >> 24 & 0xFF)};
    at_strbuf_append(sb, b, 4);
}

static void put_u16(at_strbuf *sb, uint16_t v)
{
    char b[2] = {(char)(v & 0xFF), (char)(v >> 8 & 0xFF)};
    at_strbuf_append(sb, b, 2);
}

void at_rpc_put_i32(at_strbuf *sb, int32_t v)
{
    put_u32(sb, (uint32_t)v);
}

int at_rpc_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 1;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < need) c *= 2;
    void *p = at_realloc(*arr, c * elem);
    if (!p) return 0;
    *arr = p;
    *cap = c;
    return 1;
}

/* ---- reader ----------------------------------------------------------------------------- */

void at_rpc_reader_init(at_rpc_reader *r)
{
    memset(r, 0, sizeof *r);
}

void at_rpc_reader_fini(at_rpc_reader *r)
{
    at_free(r->buf);
    memset(r, 0, sizeof *r);
}

size_t at_rpc_reader_buffered(const at_rpc_reader *r)
{
    return r->len - r->off;
}

at_status at_rpc_reader_feed(at_rpc_reader *r, const void *data, size_t n)
{
    if (n == 0) return AT_OK;
    /* drop taken bytes first so the buffer stays about one frame long */
    if (r->off > 0) {
        memmove(r->buf, r->buf + r->off, r->len - r->off);
        r->len -= r->off;
        r->off = 0;
    }
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap < r->len + n) cap *= 2;
        unsigned char *b = at_realloc(r->buf, cap);
        if (!b) return AT_OOM();
        r->buf = b;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, data, n);
    r->len += n;
    return AT_OK;
}

bool at_rpc_reader_take_i32(at_rpc_reader *r, int32_t *out)
{
    if (at_rpc_reader_buffered(r) < 4) return false;
    *out = (int32_t)get_u32(r->buf + r->off);
    r->off += 4;
    return true;
}

at_status at_rpc_reader_take_frame(at_rpc_reader *r, size_t max_len, const char **payload, size_t *len, bool *got)
{
    *got = false;
    if (at_rpc_reader_buffered(r) < 4) return AT_OK;
    int32_t n = (int32_t)get_u32(r->buf + r->off);
    if (n <= 0 || (size_t)n > max_len)
        return AT_FAIL(AT_EPARSE, "invalid message size %d (allowed 1..%zu)", (int)n, max_len);
    if (at_rpc_reader_buffered(r) - 4 < (size_t)n) return AT_OK;
    *payload = (const char *)r->buf + r->off + 4;
    *len = (size_t)n;
    r->off += 4 + (size_t)n;
    *got = true;
    return AT_OK;
}

/* True when every number in j is finite. The JSON layer reads 1e999 as inf (json.loads does
 * too), and a tracker echoes parts of what it reads (UPDATE_INFO's info in SUMMARY): written
 * back, inf would not be JSON, and every client's summary would fail to parse. */
static bool all_finite(const cJSON *j)
{
    for (const cJSON *c = j; c; c = c->next) {
        if (cJSON_IsNumber(c) && !isfinite(c->valuedouble)) return false;
        if (c->child && !all_finite(c->child)) return false;
    }
    return true;
}

at_status at_rpc_reader_take_json(at_rpc_reader *r, size_t max_len, cJSON **out, bool *got)
{
    const char *p = NULL;
    size_t n = 0;
    *out = NULL;
    AT_TRY(at_rpc_reader_take_frame(r, max_len, &p, &n, got));
    if (!*got) return AT_OK;
    cJSON *j = NULL;
    at_status st = at_json_parse(p, n, &j);
    if (st == AT_OK && !all_finite(j)) {
        at_json_free(j);
        st = AT_FAIL(AT_EPARSE, "message holds a number out of range (not finite)");
    }
    if (st != AT_OK) {
        *got = false;
        return st;
    }
    *out = j;
    return AT_OK;
}

/* ---- tracker encoders ------------------------------------------------------------------- */

/* Reserves the length word; frame_end patches it with what was appended since. */
size_t at_rpc_frame_begin(at_strbuf *sb)
{
    size_t mark = sb->len;
    put_u32(sb, 0);
    return mark;
}

void at_rpc_frame_end(at_strbuf *sb, size_t mark)
{
    if (sb->failed) return;
    uint32_t n = (uint32_t)(sb->len - mark - 4);
    unsigned char *p = (unsigned char *)sb->data + mark;
    p[0] = (unsigned char)(n & 0xFF), p[1] = (unsigned char)(n >> 8 & 0xFF);
    p[2] = (unsigned char)(n >> 16 & 0xFF), p[3] = (unsigned char)(n >> 24 & 0xFF);
}

void at_rpc_enc_frame(at_strbuf *sb, const char *payload, size_t n)
{
    put_u32(sb, (uint32_t)n);
    at_strbuf_append(sb, payload, n);
}

void at_rpc_enc_json(at_strbuf *sb, const cJSON *value)
{
    size_t m = at_rpc_frame_begin(sb);
    at_json_write_value(sb, value);
    at_rpc_frame_end(sb, m);
}

static void write_str_or_null(at_strbuf *sb, const char *s)
{
    if (s)
        at_json_write_string(sb, s);
    else
        at_strbuf_puts(sb, "null");
}

static void enc_code_only(at_strbuf *sb, int code)
{
    size_t m = at_rpc_frame_begin(sb);
    at_strbuf_printf(sb, "[%d]", code);
    at_rpc_frame_end(sb, m);
}

void at_rpc_enc_ping(at_strbuf *sb)
{
    enc_code_only(sb, AT_RPC_TRACKER_PING);
}

void at_rpc_enc_summary(at_strbuf *sb)
{
    enc_code_only(sb, AT_RPC_TRACKER_SUMMARY);
}

void at_rpc_enc_get_pending(at_strbuf *sb)
{
    enc_code_only(sb, AT_RPC_TRACKER_GET_PENDING_MATCHKEYS);
}

void at_rpc_enc_stop(at_strbuf *sb, const char *stop_key)
{
    size_t m = at_rpc_frame_begin(sb);
    at_strbuf_printf(sb, "[%d, ", AT_RPC_TRACKER_STOP);
    at_json_write_string(sb, stop_key);
    at_strbuf_putc(sb, ']');
    at_rpc_frame_end(sb, m);
}

void at_rpc_enc_put(at_strbuf *sb, const char *key, int port, const char *matchkey, const char *custom_addr)
{
    size_t m = at_rpc_frame_begin(sb);
    at_strbuf_printf(sb, "[%d, ", AT_RPC_TRACKER_PUT);
    at_json_write_string(sb, key);
    at_strbuf_printf(sb, ", [%d, ", port);
    at_json_write_string(sb, matchkey);
    at_strbuf_puts(sb, "], ");
    write_str_or_null(sb, custom_addr);
    at_strbuf_putc(sb, ']');
    at_rpc_frame_end(sb, m);
}

void at_rpc_enc_request(at_strbuf *sb, const char *key, const char *user, int64_t priority)
{
    size_t m = at_rpc_frame_begin(sb);
    at_strbuf_printf(sb, "[%d, ", AT_RPC_TRACKER_REQUEST);
    at_json_write_string(sb, key);
    at_strbuf_puts(sb, ", ");
    at_json_write_string(sb, user);
    at_strbuf_puts(sb, ", ");
    at_json_write_int(sb, priority);
    at_strbuf_putc(sb, ']');
    at_rpc_frame_end(sb, m);
}

void at_rpc_enc_update_info(at_strbuf *sb, const char *key, const char *addr, int port)
{
    size_t m = at_rpc_frame_begin(sb);
    at_strbuf_printf(sb, "[%d, {\"key\": ", AT_RPC_TRACKER_UPDATE_INFO);
    at_json_write_string(sb, key);
    at_strbuf_puts(sb, ", \"addr\": [");
    write_str_or_null(sb, addr);
    at_strbuf_printf(sb, ", %d]}]", port);
    at_rpc_frame_end(sb, m);
}

void at_rpc_enc_code_reply(at_strbuf *sb, int code)
{
    size_t m = at_rpc_frame_begin(sb);
    at_strbuf_printf(sb, "%d", code);
    at_rpc_frame_end(sb, m);
}

void at_rpc_enc_assign_reply(at_strbuf *sb, const char *host, int port, const char *matchkey)
{
    size_t m = at_rpc_frame_begin(sb);
    at_strbuf_printf(sb, "[%d, [", AT_RPC_TRACKER_SUCCESS);
    at_json_write_string(sb, host);
    at_strbuf_printf(sb, ", %d, ", port);
    at_json_write_string(sb, matchkey);
    at_strbuf_puts(sb, "]]");
    at_rpc_frame_end(sb, m);
}

/* ---- tracker parsers -------------------------------------------------------------------- */

static at_status get_int_in(const cJSON *item, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t v;
    if (!item || !at_json_number_is_int(item)) return AT_FAIL(AT_EPARSE, "%s: expected an integer", what);
    v = (int64_t)item->valuedouble;
    if (v < lo || v > hi) return AT_FAIL(AT_EPARSE, "%s: %lld out of range [%lld, %lld]", what, (long long)v, (long long)lo, (long long)hi);
    *out = v;
    return AT_OK;
}

static at_status get_string(const cJSON *item, const char *what, const char **out)
{
    if (!cJSON_IsString(item) || !item->valuestring) return AT_FAIL(AT_EPARSE, "%s: expected a string", what);
    *out = item->valuestring;
    return AT_OK;
}

at_status at_rpc_tracker_msg_parse(const cJSON *msg, at_rpc_tracker_msg *out)
{
    at_rpc_tracker_msg m;
    memset(&m, 0, sizeof m);
    if (!cJSON_IsArray(msg) || !msg->child) return AT_FAIL(AT_EPARSE, "tracker message: expected a non-empty list");
    int64_t code;
    if (!at_json_number_is_int(msg->child)) return AT_FAIL(AT_EPARSE, "tracker message: code is not an integer");
    code = (int64_t)msg->child->valuedouble;
    int n = cJSON_GetArraySize(msg);
    const cJSON *a1 = n > 1 ? cJSON_GetArrayItem(msg, 1) : NULL;
    const cJSON *a2 = n > 2 ? cJSON_GetArrayItem(msg, 2) : NULL;
    const cJSON *a3 = n > 3 ? cJSON_GetArrayItem(msg, 3) : NULL;
    switch (code) {
    case AT_RPC_TRACKER_PING:
    case AT_RPC_TRACKER_SUMMARY:
    case AT_RPC_TRACKER_GET_PENDING_MATCHKEYS: break;
    case AT_RPC_TRACKER_STOP:
        if (!a1) return AT_FAIL(AT_EPARSE, "STOP: missing the stop key");
        m.key = cJSON_IsString(a1) ? a1->valuestring : NULL;
        break;
    case AT_RPC_TRACKER_PUT: {
        AT_TRY(get_string(a1, "PUT key", &m.key));
        if (!cJSON_IsArray(a2) || cJSON_GetArraySize(a2) != 2)
            return AT_FAIL(AT_EPARSE, "PUT: expected [port, matchkey] as the third element");
        int64_t port = 0;
        AT_TRY(get_int_in(a2->child, "PUT port", 0, 65535, &port));
        m.port = (int)port;
        AT_TRY(get_string(a2->child->next, "PUT matchkey", &m.matchkey));
        if (a3 && !cJSON_IsNull(a3)) AT_TRY(get_string(a3, "PUT custom address", &m.custom_addr));
        break;
    }
    case AT_RPC_TRACKER_REQUEST:
        AT_TRY(get_string(a1, "REQUEST key", &m.key));
        if (!a2) return AT_FAIL(AT_EPARSE, "REQUEST: missing the user");
        if (cJSON_IsString(a2)) m.user = a2->valuestring;
        if (!cJSON_IsNumber(a3) || !isfinite(a3->valuedouble))
            return AT_FAIL(AT_EPARSE, "REQUEST priority: expected a number");
        m.priority = a3->valuedouble;
        break;
    case AT_RPC_TRACKER_UPDATE_INFO: {
        if (!cJSON_IsObject(a1)) return AT_FAIL(AT_EPARSE, "UPDATE_INFO: expected an object");
        const cJSON *addr = cJSON_GetObjectItemCaseSensitive(a1, "addr");
        if (!cJSON_IsArray(addr) || !addr->child) return AT_FAIL(AT_EPARSE, "UPDATE_INFO: \"addr\" must be a non-empty list");
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(a1, "key");
        if (key && !cJSON_IsString(key)) return AT_FAIL(AT_EPARSE, "UPDATE_INFO: \"key\" must be a string");
        m.info = a1;
        break;
    }
    default: return AT_FAIL(AT_EPARSE, "unknown tracker code %lld", (long long)code);
    }
    m.code = (at_rpc_tracker_code)code;
    *out = m;
    return AT_OK;
}

at_status at_rpc_parse_code_reply(const cJSON *v, int *code)
{
    int64_t c = 0;
    AT_TRY(get_int_in(v, "tracker reply", INT32_MIN, INT32_MAX, &c));
    *code = (int)c;
    return AT_OK;
}

static at_status check_success_pair(const cJSON *v, const char *what)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return AT_FAIL(AT_EPARSE, "%s reply: expected [0, value]", what);
    int64_t c = 0;
    AT_TRY(get_int_in(v->child, what, INT32_MIN, INT32_MAX, &c));
    if (c != AT_RPC_TRACKER_SUCCESS) return AT_FAIL(AT_EPARSE, "%s reply: tracker returned code %lld", what, (long long)c);
    return AT_OK;
}

at_status at_rpc_parse_assign_reply(const cJSON *v, const char **host, int *port, const char **matchkey)
{
    AT_TRY(check_success_pair(v, "REQUEST"));
    const cJSON *val = v->child->next;
    if (!cJSON_IsArray(val) || cJSON_GetArraySize(val) != 3)
        return AT_FAIL(AT_EPARSE, "REQUEST reply: expected [host, port, matchkey]");
    const char *h = NULL, *mk = NULL;
    int64_t p = 0;
    AT_TRY(get_string(val->child, "REQUEST reply host", &h));
    AT_TRY(get_int_in(val->child->next, "REQUEST reply port", 1, 65535, &p));
    AT_TRY(get_string(val->child->next->next, "REQUEST reply matchkey", &mk));
    *host = h;
    *port = (int)p;
    *matchkey = mk;
    return AT_OK;
}

at_status at_rpc_parse_pending_reply(const cJSON *v, const char *matchkey, bool *has)
{
    if (!cJSON_IsArray(v)) return AT_FAIL(AT_EPARSE, "GET_PENDING_MATCHKEYS reply: expected a list");
    bool found = false;
    for (const cJSON *c = v->child; c; c = c->next) {
        const char *s = NULL;
        AT_TRY(get_string(c, "GET_PENDING_MATCHKEYS reply item", &s));
        if (!strcmp(s, matchkey)) found = true;
    }
    *has = found;
    return AT_OK;
}

at_status at_rpc_parse_summary_reply(const cJSON *v, const cJSON **summary)
{
    AT_TRY(check_success_pair(v, "SUMMARY"));
    const cJSON *s = v->child->next;
    if (!cJSON_IsObject(s)) return AT_FAIL(AT_EPARSE, "SUMMARY reply: expected an object");
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "queue_info")))
        return AT_FAIL(AT_EPARSE, "SUMMARY reply: \"queue_info\" must be an object");
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s, "server_info")))
        return AT_FAIL(AT_EPARSE, "SUMMARY reply: \"server_info\" must be a list");
    *summary = s;
    return AT_OK;
}

/* ---- data plane ------------------------------------------------------------------------- */

void at_rpc_enc_dp_hello(at_strbuf *sb, const char *key)
{
    put_u32(sb, AT_RPC_MAGIC);
    at_rpc_enc_frame(sb, key, strlen(key));
}

void at_rpc_enc_dp_reply(at_strbuf *sb, int32_t code, const char *server_key)
{
    at_rpc_put_i32(sb, code);
    if (code == AT_RPC_CODE_SUCCESS) at_rpc_enc_frame(sb, server_key, strlen(server_key));
}

at_status at_rpc_dp_client_key(const char *matchkey, double session_timeout_s, char **out)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_puts(&sb, "client:");
    at_strbuf_puts(&sb, matchkey);
    if (session_timeout_s != 0) {
        /* Python's str(): TVM passes the runner's int timeout ("10"); floats print as repr */
        at_strbuf_puts(&sb, " -timeout=");
        if (session_timeout_s == floor(session_timeout_s) && fabs(session_timeout_s) < 1e15) {
            at_strbuf_printf(&sb, "%lld", (long long)session_timeout_s);
        } else {
            char buf[AT_FMT_DOUBLE_MAX];
            at_strbuf_append(&sb, buf, at_fmt_double(session_timeout_s, buf));
        }
    }
    at_status st = at_strbuf_status(&sb);
    if (st != AT_OK) {
        at_strbuf_fini(&sb);
        return st;
    }
    *out = at_strbuf_take(&sb);
    return AT_OK;
}

/* Python's str.split() separators in the ASCII range. */
static bool is_py_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

at_status at_rpc_dp_parse_key(const char *key, size_t len, char **header, double *timeout_s)
{
    *header = NULL;
    if (memchr(key, '\0', len)) return AT_FAIL(AT_EPARSE, "data-plane key contains a NUL byte");
    size_t bad = at_utf8_check(key, len);
    if (bad != len) return AT_FAIL(AT_EPARSE, "data-plane key: invalid UTF-8 at byte %zu", bad);
    double timeout = 0;
    const char *hdr = NULL;
    size_t hdr_len = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && is_py_space((unsigned char)key[i])) i++;
        if (i == len) break;
        size_t start = i;
        while (i < len && !is_py_space((unsigned char)key[i])) i++;
        const char *tok = key + start;
        size_t tlen = i - start;
        if (!hdr) {
            hdr = tok;
            hdr_len = tlen;
            continue;
        }
        static const char opt[] = "-timeout=";
        if (tlen >= sizeof opt - 1 && !memcmp(tok, opt, sizeof opt - 1)) {
            char num[64];
            size_t nlen = tlen - (sizeof opt - 1);
            double v;
            if (nlen == 0 || nlen >= sizeof num) return AT_FAIL(AT_EPARSE, "data-plane key: bad -timeout option");
            memcpy(num, tok + sizeof opt - 1, nlen);
            num[nlen] = '\0';
            if (at_parse_double(num, &v) != 0 || !isfinite(v) || v < 0)
                return AT_FAIL(AT_EPARSE, "data-plane key: -timeout=%s is not a non-negative number", num);
            timeout = v;
        }
    }
    if (!hdr) return AT_FAIL(AT_EPARSE, "data-plane key is empty");
    char *h = at_strndup(hdr, hdr_len);
    if (!h) return AT_OOM();
    *header = h;
    *timeout_s = timeout;
    return AT_OK;
}

/* ---- session frames --------------------------------------------------------------------- */

static const char *const sess_type_names[AT_RPC_SESS_TYPE_COUNT] = {
    [AT_RPC_SESS_HELLO] = "HELLO", [AT_RPC_SESS_CHALLENGE] = "CHALLENGE", [AT_RPC_SESS_AUTH] = "AUTH",
    [AT_RPC_SESS_WELCOME] = "WELCOME", [AT_RPC_SESS_PING] = "PING",         [AT_RPC_SESS_PONG] = "PONG",
    [AT_RPC_SESS_MEASURE] = "MEASURE", [AT_RPC_SESS_RESULT] = "RESULT",     [AT_RPC_SESS_ERROR] = "ERROR",
    [AT_RPC_SESS_BYE] = "BYE",
};

static const char *const sess_err_names[AT_RPC_SERR_COUNT] = {
    [AT_RPC_SERR_PROTOCOL] = "protocol error", [AT_RPC_SERR_VERSION] = "unsupported version",
    [AT_RPC_SERR_AUTH] = "authentication failed", [AT_RPC_SERR_HANDLER] = "handler failed",
    [AT_RPC_SERR_TIMEOUT] = "session timeout", [AT_RPC_SERR_CRASH] = "session process died",
    [AT_RPC_SERR_TOO_BIG] = "frame too large",
};

const char *at_rpc_sess_type_str(at_rpc_sess_type t)
{
    return (int)t > 0 && t < AT_RPC_SESS_TYPE_COUNT && sess_type_names[t] ? sess_type_names[t] : "?";
}

const char *at_rpc_sess_err_str(at_rpc_sess_err e)
{
    return (int)e > 0 && e < AT_RPC_SERR_COUNT && sess_err_names[e] ? sess_err_names[e] : "?";
}

void at_rpc_sess_enc(at_strbuf *sb, at_rpc_sess_type type, uint32_t seq, const void *payload, size_t n)
{
    AT_ASSERT(n <= AT_RPC_SESS_HARD_MAX_PAYLOAD);
    put_u32(sb, AT_RPC_SESS_MAGIC);
    put_u16(sb, AT_RPC_SESS_VERSION);
    put_u16(sb, (uint16_t)type);
    put_u32(sb, seq);
    put_u32(sb, (uint32_t)n);
    if (n) at_strbuf_append(sb, payload, n);
}

void at_rpc_sess_enc_error(at_strbuf *sb, uint32_t seq, at_rpc_sess_err err, at_status st, const char *msg)
{
    size_t mlen = msg ? strlen(msg) : 0;
    if (mlen > AT_RPC_SESS_MAX_ERROR_MSG) mlen = AT_RPC_SESS_MAX_ERROR_MSG;
    put_u32(sb, AT_RPC_SESS_MAGIC);
    put_u16(sb, AT_RPC_SESS_VERSION);
    put_u16(sb, AT_RPC_SESS_ERROR);
    put_u32(sb, seq);
    put_u32(sb, (uint32_t)(8 + mlen));
    put_u32(sb, (uint32_t)err);
    put_u32(sb, (uint32_t)st);
    if (mlen) at_strbuf_append(sb, msg, mlen);
}

at_status at_rpc_sess_take(at_rpc_reader *r, size_t max_payload, at_rpc_sess_frame *out, bool *got,
                           uint32_t *bad_version)
{
    *got = false;
    if (at_rpc_reader_buffered(r) < AT_RPC_SESS_HEADER_LEN) return AT_OK;
    const unsigned char *h = r->buf + r->off;
    uint32_t magic = get_u32(h), seq = get_u32(h + 8), len = get_u32(h + 12);
    uint16_t version = get_u16(h + 4), type = get_u16(h + 6);
    if (magic != AT_RPC_SESS_MAGIC) return AT_FAIL(AT_EPARSE, "session frame: bad magic 0x%08x", (unsigned)magic);
    if (version != AT_RPC_SESS_VERSION) {
        if (bad_version) *bad_version = version;
        return AT_FAIL(AT_EPARSE, "session frame: version %u not supported (this side speaks %d)", (unsigned)version,
                       AT_RPC_SESS_VERSION);
    }
    if (type == 0 || type >= AT_RPC_SESS_TYPE_COUNT) return AT_FAIL(AT_EPARSE, "session frame: unknown type %u", (unsigned)type);
    if (len > max_payload || len > AT_RPC_SESS_HARD_MAX_PAYLOAD)
        return AT_FAIL(AT_EINVAL, "session frame: %s payload of %u bytes exceeds the limit of %zu",
                       at_rpc_sess_type_str((at_rpc_sess_type)type), (unsigned)len, max_payload);
    if (at_rpc_reader_buffered(r) - AT_RPC_SESS_HEADER_LEN < len) return AT_OK;
    out->type = (at_rpc_sess_type)type;
    out->seq = seq;
    out->payload = h + AT_RPC_SESS_HEADER_LEN;
    out->len = len;
    r->off += AT_RPC_SESS_HEADER_LEN + len;
    *got = true;
    return AT_OK;
}

at_status at_rpc_sess_parse_error(const at_rpc_sess_frame *f, at_rpc_sess_err *err, at_status *st, const char **msg,
                                  size_t *msg_len)
{
    AT_ASSERT(f->type == AT_RPC_SESS_ERROR);
    if (f->len < 8) return AT_FAIL(AT_EPARSE, "ERROR frame: %zu bytes, expected at least 8", f->len);
    uint32_t e = get_u32(f->payload), s = get_u32(f->payload + 4);
    if (e == 0 || e >= AT_RPC_SERR_COUNT) return AT_FAIL(AT_EPARSE, "ERROR frame: unknown error code %u", (unsigned)e);
    if (s >= AT_STATUS_COUNT) return AT_FAIL(AT_EPARSE, "ERROR frame: unknown status %u", (unsigned)s);
    if (f->len - 8 > AT_RPC_SESS_MAX_ERROR_MSG) return AT_FAIL(AT_EPARSE, "ERROR frame: message of %zu bytes", f->len - 8);
    *err = (at_rpc_sess_err)e;
    *st = (at_status)s;
    *msg = (const char *)f->payload + 8;
    *msg_len = f->len - 8;
    return AT_OK;
}
