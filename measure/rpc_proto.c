/* The measure payload codec (measure/rpc_proto.h): explicit little-endian bytes, whatever the
 * host, because runner and board may differ. Encoders validate what they write with the same
 * rules the decoders apply, so anything we send we also accept. */
#include "measure/rpc_proto.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"

/* ---- writing -------------------------------------------------------------------------------- */

static void put_u16(at_strbuf *sb, uint16_t v)
{
    char b[2] = {(char)(v & 0xFF), (char)(v >> 8)};
    at_strbuf_append(sb, b, 2);
}

static void put_u32(at_strbuf *sb, uint32_t v)
{
    char b[4];
    for (int i = 0; i < 4; i++) b[i] = (char)((v >> (8 * i)) & 0xFF);
    at_strbuf_append(sb, b, 4);
}

static void put_u64(at_strbuf *sb, uint64_t v)
{
    char b[8];
    for (int i = 0; i < 8; i++) b[i] = (char)((v >> (8 * i)) & 0xFF);
    at_strbuf_append(sb, b, 8);
}

static void put_f64(at_strbuf *sb, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    put_u64(sb, u);
}

static void put_str(at_strbuf *sb, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u32(sb, (uint32_t)n);
    if (n) at_strbuf_append(sb, s, n);
}

/* ---- reading -------------------------------------------------------------------------------- */

typedef struct rd {
    const unsigned char *p;
    size_t               n, pos;
    const char          *what; /* "measure request" / "measure reply" */
} rd;

static at_status need(rd *r, size_t k, const char *field)
{
    if (r->n - r->pos < k)
        return AT_FAIL(AT_EPARSE, "%s: truncated at %s (offset %zu, %zu bytes left, %zu needed)", r->what, field, r->pos,
                       r->n - r->pos, k);
    return AT_OK;
}

static at_status get_u16(rd *r, const char *field, uint16_t *v)
{
    AT_TRY(need(r, 2, field));
    *v = (uint16_t)(r->p[r->pos] | (r->p[r->pos + 1] << 8));
    r->pos += 2;
    return AT_OK;
}

static at_status get_u32(rd *r, const char *field, uint32_t *v)
{
    AT_TRY(need(r, 4, field));
    uint32_t x = 0;
    for (int i = 3; i >= 0; i--) x = (x << 8) | r->p[r->pos + (size_t)i];
    *v = x;
    r->pos += 4;
    return AT_OK;
}

static at_status get_u64(rd *r, const char *field, uint64_t *v)
{
    AT_TRY(need(r, 8, field));
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = (x << 8) | r->p[r->pos + (size_t)i];
    *v = x;
    r->pos += 8;
    return AT_OK;
}

static at_status get_f64(rd *r, const char *field, double *v)
{
    uint64_t u;
    AT_TRY(get_u64(r, field, &u));
    memcpy(v, &u, sizeof *v);
    return AT_OK;
}

/* An i32 in [lo, hi]. */
static at_status get_i32_in(rd *r, const char *field, int32_t lo, int32_t hi, int32_t *v)
{
    uint32_t u;
    AT_TRY(get_u32(r, field, &u));
    int32_t x;
    memcpy(&x, &u, sizeof x);
    if (x < lo || x > hi) return AT_FAIL(AT_EPARSE, "%s: %s = %ld outside %ld..%ld", r->what, field, (long)x, (long)lo, (long)hi);
    *v = x;
    return AT_OK;
}

typedef enum alphabet { ANY_BUT_NUL, PRINTABLE, NAME_CHARS } alphabet;

static bool char_ok(unsigned char c, alphabet a)
{
    switch (a) {
    case ANY_BUT_NUL:
        return c != 0;
    case PRINTABLE:
        return c >= 0x20 && c < 0x7F;
    case NAME_CHARS:
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '/' || c == '-';
    }
    return false;
}

static bool str_ok(const char *s, size_t n, alphabet a)
{
    for (size_t i = 0; i < n; i++)
        if (!char_ok((unsigned char)s[i], a)) return false;
    return true;
}

/* A u32-length string of min..max bytes from alphabet a, copied into *out. */
static at_status get_str(rd *r, const char *field, size_t min, size_t max, alphabet a, char **out)
{
    uint32_t len;
    AT_TRY(get_u32(r, field, &len));
    if (len < min || len > max)
        return AT_FAIL(AT_EPARSE, "%s: %s of %lu bytes (allowed %zu..%zu)", r->what, field, (unsigned long)len, min, max);
    AT_TRY(need(r, len, field));
    const char *s = (const char *)r->p + r->pos;
    if (!str_ok(s, len, a))
        return AT_FAIL(AT_EPARSE, "%s: %s holds a byte outside its alphabet (%s)", r->what, field,
                       a == NAME_CHARS ? "A-Z a-z 0-9 _ . / -" : a == PRINTABLE ? "printable ASCII" : "no NUL");
    char *c = at_strndup(s, len);
    if (!c) return AT_OOM();
    r->pos += len;
    *out = c;
    return AT_OK;
}

static at_status check_header(rd *r, uint32_t magic)
{
    uint32_t m;
    uint16_t v;
    AT_TRY(get_u32(r, "magic", &m));
    if (m != magic) return AT_FAIL(AT_EPARSE, "%s: bad magic 0x%08lx", r->what, (unsigned long)m);
    AT_TRY(get_u16(r, "version", &v));
    if (v != AT_MEAS_RPC_VERSION)
        return AT_FAIL(AT_EUNSUPPORTED, "%s: version %u not spoken (this side speaks %d)", r->what, (unsigned)v,
                       AT_MEAS_RPC_VERSION);
    return AT_OK;
}

static at_status check_end(const rd *r)
{
    if (r->pos != r->n) return AT_FAIL(AT_EPARSE, "%s: %zu trailing bytes", r->what, r->n - r->pos);
    return AT_OK;
}

/* ---- shared validation (encoders use it too) -------------------------------------------------- */

static at_status bad(const char *what, const char *field)
{
    return AT_FAIL(AT_EINVAL, "%s: %s out of range or too long", what, field);
}

static bool in(int64_t v, int64_t lo, int64_t hi)
{
    return v >= lo && v <= hi;
}

static bool s_ok(const char *s, size_t min, size_t max, alphabet a)
{
    size_t n = s ? strlen(s) : 0;
    return n >= min && n <= max && (!n || str_ok(s, n, a));
}

static at_status request_check(const at_meas_rpc_request *r)
{
    const char *w = "measure request";
    if (!r->id) return bad(w, "id");
    if (!in(r->number, 1, AT_MEAS_RPC_MAX_NUMBER)) return bad(w, "number");
    if (!in(r->repeat, 1, AT_MEAS_RPC_MAX_REPEAT)) return bad(w, "repeat");
    if (!in(r->min_repeat_ms, 0, AT_MEAS_RPC_MAX_MS)) return bad(w, "min_repeat_ms");
    if (!in(r->timeout_ms, 1, AT_MEAS_RPC_MAX_MS)) return bad(w, "timeout_ms");
    if (!in(r->build_timeout_ms, 1, AT_MEAS_RPC_MAX_MS)) return bad(w, "build_timeout_ms");
    if (!in(r->cooldown_ms, 0, AT_MEAS_RPC_MAX_MS)) return bad(w, "cooldown_ms");
    if (!r->seed) return bad(w, "seed");
    if (r->space_len < 1) return bad(w, "space_len");
    if (r->config_index < 0) return bad(w, "config_index");
    if (r->target > 0xFFFF) return bad(w, "target");
    if (!s_ok(r->template_name, 1, AT_MEAS_RPC_MAX_NAME, NAME_CHARS)) return bad(w, "template");
    if (!s_ok(r->args_json, 1, AT_MEAS_RPC_MAX_ARGS, ANY_BUT_NUL)) return bad(w, "args");
    if (!s_ok(r->config_json, 1, AT_MEAS_RPC_MAX_CONFIG, ANY_BUT_NUL)) return bad(w, "config");
    if (!s_ok(r->build_options, 0, AT_MEAS_RPC_MAX_BUILD_OPTIONS, PRINTABLE)) return bad(w, "build_options");
    return AT_OK;
}

static bool cost_ok(double c)
{
    return isfinite(c) && c >= 0;
}

static at_status reply_check(const at_meas_rpc_reply *r)
{
    const char *w = "measure reply";
    if (!r->id) return bad(w, "id");
    if (r->config_index < 0) return bad(w, "config_index");
    if ((unsigned)r->err >= AT_MEAS_ERR_COUNT) return bad(w, "err");
    if (r->err == AT_MEAS_OK ? !in((int64_t)r->n_costs, 1, AT_MEAS_RPC_MAX_COSTS) : r->n_costs != 0) return bad(w, "n_costs");
    for (size_t i = 0; i < r->n_costs; i++)
        if (!cost_ok(r->costs_s[i])) return bad(w, "costs");
    if (!cost_ok(r->all_cost_s)) return bad(w, "all_cost");
    if (!s_ok(r->msg, r->err == AT_MEAS_OK ? 0 : 1, r->err == AT_MEAS_OK ? 0 : AT_MEAS_RPC_MAX_MSG, ANY_BUT_NUL))
        return bad(w, "msg");
    if (!s_ok(r->device, 0, AT_MEAS_RPC_MAX_DEVICE, ANY_BUT_NUL)) return bad(w, "device");
    return AT_OK;
}

/* ---- request -------------------------------------------------------------------------------- */

/* Layout, offsets in bytes:
 *   0 u32 magic | 4 u16 version | 6 u16 target | 8 u64 id | 16 i32 number | 20 i32 repeat
 *  24 i32 min_repeat_ms | 28 i32 timeout_ms | 32 i32 build_timeout_ms | 36 i32 cooldown_ms
 *  40 u32 flags (bit 0: check correctness) | 44 u64 seed | 52 i64 space_len | 60 i64 config_index
 *  68 str template | str args | str config | str build_options      (str = u32 length + bytes) */
at_status at_meas_rpc_request_encode(const at_meas_rpc_request *r, at_strbuf *out)
{
    AT_TRY(request_check(r));
    put_u32(out, AT_MEAS_RPC_REQ_MAGIC);
    put_u16(out, AT_MEAS_RPC_VERSION);
    put_u16(out, (uint16_t)r->target);
    put_u64(out, r->id);
    put_u32(out, (uint32_t)r->number);
    put_u32(out, (uint32_t)r->repeat);
    put_u32(out, (uint32_t)r->min_repeat_ms);
    put_u32(out, (uint32_t)r->timeout_ms);
    put_u32(out, (uint32_t)r->build_timeout_ms);
    put_u32(out, (uint32_t)r->cooldown_ms);
    put_u32(out, r->check_correctness ? 1u : 0u);
    put_u64(out, r->seed);
    put_u64(out, (uint64_t)r->space_len);
    put_u64(out, (uint64_t)r->config_index);
    put_str(out, r->template_name);
    put_str(out, r->args_json);
    put_str(out, r->config_json);
    put_str(out, r->build_options);
    return at_strbuf_status(out);
}

void at_meas_rpc_request_fini(at_meas_rpc_request *r)
{
    at_free((char *)(uintptr_t)r->template_name);
    at_free((char *)(uintptr_t)r->args_json);
    at_free((char *)(uintptr_t)r->config_json);
    at_free((char *)(uintptr_t)r->build_options);
    memset(r, 0, sizeof *r);
}

static at_status request_decode(rd *r, at_meas_rpc_request *q)
{
    uint16_t target;
    uint32_t flags;
    uint64_t u;
    char *s;
    AT_TRY(check_header(r, AT_MEAS_RPC_REQ_MAGIC));
    AT_TRY(get_u16(r, "target", &target));
    q->target = target;
    AT_TRY(get_u64(r, "id", &q->id));
    if (!q->id) return AT_FAIL(AT_EPARSE, "%s: id is 0", r->what);
    AT_TRY(get_i32_in(r, "number", 1, AT_MEAS_RPC_MAX_NUMBER, &q->number));
    AT_TRY(get_i32_in(r, "repeat", 1, AT_MEAS_RPC_MAX_REPEAT, &q->repeat));
    AT_TRY(get_i32_in(r, "min_repeat_ms", 0, AT_MEAS_RPC_MAX_MS, &q->min_repeat_ms));
    AT_TRY(get_i32_in(r, "timeout_ms", 1, AT_MEAS_RPC_MAX_MS, &q->timeout_ms));
    AT_TRY(get_i32_in(r, "build_timeout_ms", 1, AT_MEAS_RPC_MAX_MS, &q->build_timeout_ms));
    AT_TRY(get_i32_in(r, "cooldown_ms", 0, AT_MEAS_RPC_MAX_MS, &q->cooldown_ms));
    AT_TRY(get_u32(r, "flags", &flags));
    if (flags & ~1u) return AT_FAIL(AT_EPARSE, "%s: unknown flags 0x%lx", r->what, (unsigned long)flags);
    q->check_correctness = flags & 1u;
    AT_TRY(get_u64(r, "seed", &q->seed));
    if (!q->seed) return AT_FAIL(AT_EPARSE, "%s: seed is 0", r->what);
    AT_TRY(get_u64(r, "space_len", &u));
    memcpy(&q->space_len, &u, sizeof u);
    if (q->space_len < 1) return AT_FAIL(AT_EPARSE, "%s: space_len %lld below 1", r->what, (long long)q->space_len);
    AT_TRY(get_u64(r, "config_index", &u));
    memcpy(&q->config_index, &u, sizeof u);
    if (q->config_index < 0) return AT_FAIL(AT_EPARSE, "%s: config_index %lld below 0", r->what, (long long)q->config_index);
    AT_TRY(get_str(r, "template", 1, AT_MEAS_RPC_MAX_NAME, NAME_CHARS, &s));
    q->template_name = s;
    AT_TRY(get_str(r, "args", 1, AT_MEAS_RPC_MAX_ARGS, ANY_BUT_NUL, &s));
    q->args_json = s;
    AT_TRY(get_str(r, "config", 1, AT_MEAS_RPC_MAX_CONFIG, ANY_BUT_NUL, &s));
    q->config_json = s;
    AT_TRY(get_str(r, "build_options", 0, AT_MEAS_RPC_MAX_BUILD_OPTIONS, PRINTABLE, &s));
    q->build_options = s;
    return check_end(r);
}

at_status at_meas_rpc_request_decode(const void *p, size_t n, at_meas_rpc_request *out)
{
    memset(out, 0, sizeof *out);
    rd r = {.p = p, .n = p ? n : 0, .what = "measure request"};
    at_status st = request_decode(&r, out);
    if (st != AT_OK) at_meas_rpc_request_fini(out);
    return st;
}

/* ---- reply ---------------------------------------------------------------------------------- */

/* Layout: 0 u32 magic | 4 u16 version | 6 u16 flags (bit 0: all_cost is an int) | 8 u64 id
 *  16 i64 config_index | 24 u32 err | 28 u32 n_costs | 32 f64 all_cost_s | 40 f64 costs[n_costs]
 *  then str msg | str device. */
at_status at_meas_rpc_reply_encode(const at_meas_rpc_reply *r, at_strbuf *out)
{
    AT_TRY(reply_check(r));
    put_u32(out, AT_MEAS_RPC_REP_MAGIC);
    put_u16(out, AT_MEAS_RPC_VERSION);
    put_u16(out, r->all_cost_is_int ? 1 : 0);
    put_u64(out, r->id);
    put_u64(out, (uint64_t)r->config_index);
    put_u32(out, (uint32_t)r->err);
    put_u32(out, (uint32_t)r->n_costs);
    put_f64(out, r->all_cost_s);
    for (size_t i = 0; i < r->n_costs; i++) put_f64(out, r->costs_s[i]);
    put_str(out, r->msg);
    put_str(out, r->device);
    return at_strbuf_status(out);
}

void at_meas_rpc_reply_fini(at_meas_rpc_reply *r)
{
    at_free((double *)(uintptr_t)r->costs_s);
    at_free((char *)(uintptr_t)r->msg);
    at_free((char *)(uintptr_t)r->device);
    memset(r, 0, sizeof *r);
}

static at_status reply_decode(rd *r, at_meas_rpc_reply *q)
{
    uint16_t flags;
    uint32_t err, n;
    uint64_t u;
    char *s;
    AT_TRY(check_header(r, AT_MEAS_RPC_REP_MAGIC));
    AT_TRY(get_u16(r, "flags", &flags));
    if (flags & ~1u) return AT_FAIL(AT_EPARSE, "%s: unknown flags 0x%x", r->what, (unsigned)flags);
    q->all_cost_is_int = flags & 1u;
    AT_TRY(get_u64(r, "id", &q->id));
    if (!q->id) return AT_FAIL(AT_EPARSE, "%s: id is 0", r->what);
    AT_TRY(get_u64(r, "config_index", &u));
    memcpy(&q->config_index, &u, sizeof u);
    if (q->config_index < 0) return AT_FAIL(AT_EPARSE, "%s: config_index %lld below 0", r->what, (long long)q->config_index);
    AT_TRY(get_u32(r, "err", &err));
    if (err >= AT_MEAS_ERR_COUNT) return AT_FAIL(AT_EPARSE, "%s: error number %lu unknown", r->what, (unsigned long)err);
    q->err = (at_meas_err)err;
    AT_TRY(get_u32(r, "n_costs", &n));
    if (err == AT_MEAS_OK ? (n < 1 || n > AT_MEAS_RPC_MAX_COSTS) : n != 0)
        return AT_FAIL(AT_EPARSE, "%s: %lu costs with error number %lu", r->what, (unsigned long)n, (unsigned long)err);
    AT_TRY(get_f64(r, "all_cost", &q->all_cost_s));
    if (!cost_ok(q->all_cost_s)) return AT_FAIL(AT_EPARSE, "%s: all_cost is not a finite number >= 0", r->what);
    if (n) {
        AT_TRY(need(r, (size_t)n * 8, "costs"));
        double *c = at_malloc((size_t)n * sizeof *c);
        if (!c) return AT_OOM();
        q->costs_s = c;
        q->n_costs = n;
        for (uint32_t i = 0; i < n; i++) {
            AT_TRY(get_f64(r, "costs", &c[i]));
            if (!cost_ok(c[i])) return AT_FAIL(AT_EPARSE, "%s: cost %lu is not a finite number >= 0", r->what, (unsigned long)i);
        }
    }
    bool ok = err == AT_MEAS_OK;
    AT_TRY(get_str(r, "msg", ok ? 0 : 1, ok ? 0 : AT_MEAS_RPC_MAX_MSG, ANY_BUT_NUL, &s));
    q->msg = s;
    AT_TRY(get_str(r, "device", 0, AT_MEAS_RPC_MAX_DEVICE, ANY_BUT_NUL, &s));
    q->device = s;
    return check_end(r);
}

at_status at_meas_rpc_reply_decode(const void *p, size_t n, at_meas_rpc_reply *out)
{
    memset(out, 0, sizeof *out);
    rd r = {.p = p, .n = p ? n : 0, .what = "measure reply"};
    at_status st = reply_decode(&r, out);
    if (st != AT_OK) at_meas_rpc_reply_fini(out);
    return st;
}
