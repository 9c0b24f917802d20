/* at_strbuf: doubling growth; a failed append poisons the buffer instead of returning codes. */
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"

void at_strbuf_init(at_strbuf *sb)
{
    memset(sb, 0, sizeof *sb);
}

void at_strbuf_fini(at_strbuf *sb)
{
    at_free(sb->data);
    memset(sb, 0, sizeof *sb);
}

void at_strbuf_clear(at_strbuf *sb)
{
    sb->len = 0;
    sb->failed = 0;
    if (sb->data) sb->data[0] = '\0';
}

static int reserve(at_strbuf *sb, size_t extra)
{
    if (sb->failed) return 0;
    if (sb->len + extra + 1 <= sb->cap) return 1;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1) cap *= 2;
    char *d = at_realloc(sb->data, cap);
    if (!d) {
        sb->failed = 1;
        return 0;
    }
    sb->data = d;
    sb->cap = cap;
    return 1;
}

void at_strbuf_append(at_strbuf *sb, const char *s, size_t n)
{
    if (!reserve(sb, n)) return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void at_strbuf_puts(at_strbuf *sb, const char *s)
{
    at_strbuf_append(sb, s, strlen(s));
}

void at_strbuf_putc(at_strbuf *sb, char c)
{
    at_strbuf_append(sb, &c, 1);
}

void at_strbuf_printf(at_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        at_strbuf_append(sb, small, (size_t)n);
        return;
    }
    if (!reserve(sb, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

const char *at_strbuf_cstr(const at_strbuf *sb)
{
    return sb->data ? sb->data : "";
}

at_status at_strbuf_status(const at_strbuf *sb)
{
    return sb->failed ? AT_OOM() : AT_OK;
}

char *at_strbuf_take(at_strbuf *sb)
{
    if (sb->failed) {
        at_strbuf_fini(sb);
        AT_OOM();
        return NULL;
    }
    char *d = sb->data;
    if (!d) d = at_strdup("");
    if (!d) AT_OOM();
    memset(sb, 0, sizeof *sb);
    return d;
}
