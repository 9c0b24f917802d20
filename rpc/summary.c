/* TVM's TrackerSession.text_summary(), byte for byte: the query-tracker tables.
 * Python pads by code points, not bytes, so every width here counts UTF-8 code points; sorts are
 * stable (Python's sorted) and compare keys as code points, which strcmp on UTF-8 does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/numfmt.h"
#include "rpc/codec.h"

static size_t utf8_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) n++;
    return n;
}

static void pad_right(at_strbuf *sb, const char *s, size_t width)
{
    at_strbuf_puts(sb, s);
    for (size_t w = utf8_width(s); w < width; w++) at_strbuf_putc(sb, ' ');
}

static void pad_left(at_strbuf *sb, const char *s, size_t width)
{
    for (size_t w = utf8_width(s); w < width; w++) at_strbuf_putc(sb, ' ');
    at_strbuf_puts(sb, s);
}

/* Python's str() of a JSON scalar, as ":".join(map(str, addr)) prints it. */
static at_status py_str(at_strbuf *sb, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        at_strbuf_puts(sb, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        if (at_json_number_is_int(v)) {
            at_json_write_int(sb, (int64_t)v->valuedouble);
        } else {
            char buf[AT_FMT_DOUBLE_MAX];
            at_strbuf_append(sb, buf, at_fmt_double(v->valuedouble, buf));
        }
    } else if (cJSON_IsNull(v)) {
        at_strbuf_puts(sb, "None");
    } else if (cJSON_IsTrue(v)) {
        at_strbuf_puts(sb, "True");
    } else if (cJSON_IsFalse(v)) {
        at_strbuf_puts(sb, "False");
    } else {
        return AT_FAIL(AT_EPARSE, "summary: server address element is not a scalar");
    }
    return AT_OK;
}

typedef struct server_row {
    const char  *key;
    const cJSON *addr;
    size_t       order; /* position in server_info: ties keep it (stable sort) */
} server_row;

static int cmp_server(const void *a, const void *b)
{
    const server_row *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The device key of "server:rk3399[:...]": Python's key.split(":")[1]; NULL when absent. */
static size_t device_key(const char *server_key, const char **start)
{
    const char *c = strchr(server_key, ':');
    if (!c) return (size_t)-1;
    *start = c + 1;
    const char *e = strchr(c + 1, ':');
    return e ? (size_t)(e - (c + 1)) : strlen(c + 1);
}

static at_status get_count(const cJSON *q, const char *key, const char *field, long long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q, field);
    if (!cJSON_IsObject(q) || !v || !at_json_number_is_int(v))
        return AT_FAIL(AT_EPARSE, "summary: queue_info[\"%s\"][\"%s\"] is not an integer", key, field);
    *out = (long long)v->valuedouble;
    return AT_OK;
}

at_status at_rpc_summary_text(const cJSON *summary, at_strbuf *out)
{
    static const char dashes30[] = "------------------------------\n";
    const cJSON *servers = cJSON_GetObjectItemCaseSensitive(summary, "server_info");
    const cJSON *queues = cJSON_GetObjectItemCaseSensitive(summary, "queue_info");
    if (!cJSON_IsArray(servers) || !cJSON_IsObject(queues))
        return AT_FAIL(AT_EPARSE, "summary: expected \"server_info\" (list) and \"queue_info\" (object)");
    size_t n_srv = (size_t)cJSON_GetArraySize(servers), n_q = (size_t)cJSON_GetArraySize(queues);
    server_row *rows = at_calloc(n_srv ? n_srv : 1, sizeof *rows);
    const char **keys = at_calloc(n_q ? n_q : 1, sizeof *keys);
    at_strbuf line;
    at_strbuf_init(&line);
    at_status st = AT_OK;
    if (!rows || !keys) {
        st = AT_OOM();
        goto done;
    }
    size_t i = 0;
    for (const cJSON *s = servers->child; s; s = s->next, i++) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(s, "key");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(s, "addr");
        if (!cJSON_IsString(k) || !(cJSON_IsArray(a) || cJSON_IsString(a))) {
            st = AT_FAIL(AT_EPARSE, "summary: server_info[%zu] needs a string \"key\" and an \"addr\"", i);
            goto done;
        }
        rows[i] = (server_row){.key = k->valuestring, .addr = a, .order = i};
    }
    qsort(rows, n_srv, sizeof *rows, cmp_server);

    at_strbuf_puts(out, "Server List\n");
    at_strbuf_puts(out, dashes30);
    at_strbuf_puts(out, "server-address           key\n");
    at_strbuf_puts(out, dashes30);
    for (i = 0; i < n_srv; i++) {
        at_strbuf_clear(&line);
        if (cJSON_IsString(rows[i].addr)) {
            /* ":".join of a string joins its characters */
            for (const char *p = rows[i].addr->valuestring; *p;) {
                size_t len = 1;
                while (((unsigned char)p[len] & 0xC0) == 0x80) len++;
                if (p != rows[i].addr->valuestring) at_strbuf_putc(&line, ':');
                at_strbuf_append(&line, p, len);
                p += len;
            }
        } else {
            for (const cJSON *e = rows[i].addr->child; e; e = e->next) {
                if (e != rows[i].addr->child) at_strbuf_putc(&line, ':');
                if ((st = py_str(&line, e)) != AT_OK) goto done;
            }
        }
        if ((st = at_strbuf_status(&line)) != AT_OK) goto done;
        pad_left(out, at_strbuf_cstr(&line), 21);
        at_strbuf_puts(out, "    ");
        at_strbuf_puts(out, rows[i].key);
        at_strbuf_putc(out, '\n');
    }
    at_strbuf_puts(out, dashes30);
    at_strbuf_putc(out, '\n');

    size_t max_key = 0;
    i = 0;
    for (const cJSON *q = queues->child; q; q = q->next, i++) {
        keys[i] = q->string ? q->string : "";
        size_t w = utf8_width(keys[i]);
        if (w > max_key) max_key = w;
    }
    qsort(keys, n_q, sizeof *keys, cmp_str);

    at_strbuf_puts(out, "Queue Status\n");
    at_strbuf_clear(&line);
    pad_right(&line, "key", max_key);
    at_strbuf_puts(&line, "   total  free  pending\n");
    if ((st = at_strbuf_status(&line)) != AT_OK) goto done;
    size_t n_dash = utf8_width(at_strbuf_cstr(&line));
    for (size_t d = 0; d < n_dash; d++) at_strbuf_putc(out, '-');
    at_strbuf_putc(out, '\n');
    at_strbuf_puts(out, at_strbuf_cstr(&line));
    for (size_t d = 0; d < n_dash; d++) at_strbuf_putc(out, '-');
    at_strbuf_putc(out, '\n');
    for (i = 0; i < n_q; i++) {
        long long total = 0, free_n = 0, pending = 0;
        for (size_t s = 0; s < n_srv; s++) {
            const char *dk;
            size_t dlen = device_key(rows[s].key, &dk);
            if (dlen != (size_t)-1 && dlen == strlen(keys[i]) && !memcmp(dk, keys[i], dlen)) total++;
        }
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(queues, keys[i]);
        if ((st = get_count(q, keys[i], "free", &free_n)) != AT_OK) goto done;
        if ((st = get_count(q, keys[i], "pending", &pending)) != AT_OK) goto done;
        if (!total && !pending) continue;
        char num[32];
        pad_right(out, keys[i], max_key);
        at_strbuf_puts(out, "   ");
        snprintf(num, sizeof num, "%lld", total);
        pad_right(out, num, 5);
        at_strbuf_puts(out, "  ");
        snprintf(num, sizeof num, "%lld", free_n);
        pad_right(out, num, 4);
        at_strbuf_puts(out, "  ");
        snprintf(num, sizeof num, "%lld", pending);
        pad_right(out, num, 7);
        at_strbuf_putc(out, '\n');
    }
    for (size_t d = 0; d < n_dash; d++) at_strbuf_putc(out, '-');
    at_strbuf_putc(out, '\n');
    st = at_strbuf_status(out);
done:
    at_strbuf_fini(&line);
    at_free(rows);
    at_free(keys);
    return st;
}
