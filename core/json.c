/* cJSON adapter. cJSON keeps every number as a double and forgets how it was written, but a
 * byte-exact log writer must know whether "10" or "10.0" was read. A lexical pre-pass over the
 * text records, in document order, whether each number token was an int or a float; since
 * cJSON keeps document order too, the k-th number item of a pre-order walk is the k-th token,
 * and the pass tags it with a type bit cJSON never uses (cJSON masks types with 0xFF). The same
 * pass rejects what json.loads rejects and cJSON lets through. */
#include "core/json.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/numfmt.h"

#define FLOAT_LEXEME_BIT (1 << 12)

static _Thread_local int hook_alloc_failed;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void *hook_malloc(size_t n)
{
    void *p = at_malloc(n);
    if (!p) hook_alloc_failed = 1;
    return p;
}

static void install_hooks(void)
{
    cJSON_Hooks h = {.malloc_fn = hook_malloc, .free_fn = at_free};
    cJSON_InitHooks(&h);
}

size_t at_utf8_check(const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned cp, min;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2, cp = c & 0x1F, min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3, cp = c & 0x0F, min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4, cp = c & 0x07, min = 0x10000;
        } else {
            return i;
        }
        if (i + len > n) return i;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return n;
}

enum { LEX_INT, LEX_FLOAT, LEX_INT_TOO_LARGE };

typedef struct lexemes {
    unsigned char *kind; /* one LEX_* per number token, document order */
    size_t         n, cap;
} lexemes;

static at_status push_lexeme(lexemes *lx, int kind)
{
    if (lx->n == lx->cap) {
        size_t cap = lx->cap ? lx->cap * 2 : 32;
        unsigned char *p = at_realloc(lx->kind, cap);
        if (!p) return AT_OOM();
        lx->kind = p;
        lx->cap = cap;
    }
    lx->kind[lx->n++] = (unsigned char)kind;
    return AT_OK;
}

/* Walks the raw text: strings are skipped (checking for raw control characters), numbers are
 * classified (and leading zeros refused, as json.loads does). */
static at_status scan_lexemes(const char *s, size_t n, lexemes *lx)
{
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++) {
                if ((unsigned char)s[i] < 0x20)
                    return AT_FAIL(AT_EPARSE, "invalid JSON at column %zu: raw control character in string", i + 1);
                if (s[i] == '\\') i++;
            }
            i++;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            size_t start = i;
            int is_float = 0;
            unsigned long long mag = 0;
            int too_large = 0;
            if (s[i] == '-') i++;
            if (i + 1 < n && s[i] == '0' && s[i + 1] >= '0' && s[i + 1] <= '9')
                return AT_FAIL(AT_EPARSE, "invalid JSON at column %zu: number with a leading zero", start + 1);
            for (; i < n; i++) {
                char d = s[i];
                if (d == '.' || d == 'e' || d == 'E') {
                    is_float = 1;
                } else if (d >= '0' && d <= '9' && !is_float) {
                    /* decide on the text: 2^53 + 1 already reads back as 2^53 */
                    if (mag > (unsigned long long)AT_JSON_MAX_EXACT_INT / 10 + 1) too_large = 1;
                    else mag = mag * 10 + (unsigned long long)(d - '0');
                    if (mag > (unsigned long long)AT_JSON_MAX_EXACT_INT) too_large = 1;
                } else if (!((d >= '0' && d <= '9') || d == '+' || d == '-')) {
                    break;
                }
            }
            AT_TRY(push_lexeme(lx, is_float ? LEX_FLOAT : too_large ? LEX_INT_TOO_LARGE : LEX_INT));
            continue;
        }
        i++;
    }
    return AT_OK;
}

typedef struct tagger {
    const lexemes *lx;
    size_t         next;
} tagger;

static at_status tag_numbers(cJSON *item, tagger *t)
{
    for (; item; item = item->next) {
        if (cJSON_IsNumber(item)) {
            AT_ASSERT(t->next < t->lx->n);
            int lex = t->lx->kind[t->next++];
            if (lex == LEX_FLOAT) item->type |= FLOAT_LEXEME_BIT;
            if (lex == LEX_INT_TOO_LARGE)
                return AT_FAIL(AT_EPARSE, "integer %.17g is too large (more than 2^53)", item->valuedouble);
        }
        if (item->child) AT_TRY(tag_numbers(item->child, t));
    }
    return AT_OK;
}

static int is_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

at_status at_json_parse(const char *text, size_t len, cJSON **out)
{
    *out = NULL;
    pthread_once(&hooks_once, install_hooks);
    size_t bad = at_utf8_check(text, len);
    if (bad != len) return AT_FAIL(AT_EPARSE, "invalid UTF-8 byte 0x%02x at column %zu", (unsigned char)text[bad], bad + 1);

    lexemes lx = {0};
    at_status st = scan_lexemes(text, len, &lx);
    if (st != AT_OK) {
        at_free(lx.kind);
        return st;
    }

    hook_alloc_failed = 0;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        at_free(lx.kind);
        if (hook_alloc_failed) return AT_OOM();
        size_t col = end ? (size_t)(end - text) + 1 : 1;
        if (col > len) return AT_FAIL(AT_EPARSE, "invalid JSON: unexpected end of text (column %zu)", len + 1);
        return AT_FAIL(AT_EPARSE, "invalid JSON at column %zu", col);
    }
    size_t pos = (size_t)(end - text);
    while (pos < len && (is_json_space(text[pos]) || text[pos] == '\0')) pos++;
    if (pos < len) {
        at_free(lx.kind);
        cJSON_Delete(root);
        return AT_FAIL(AT_EPARSE, "invalid JSON at column %zu: extra data after the value", pos + 1);
    }
    tagger t = {.lx = &lx};
    st = tag_numbers(root, &t);
    at_free(lx.kind);
    if (st != AT_OK) {
        cJSON_Delete(root);
        return st;
    }
    *out = root;
    return AT_OK;
}

void at_json_free(cJSON *item)
{
    if (item) cJSON_Delete(item);
}

bool at_json_number_is_int(const cJSON *item)
{
    if (!cJSON_IsNumber(item) || (item->type & FLOAT_LEXEME_BIT)) return false;
    double v = item->valuedouble;
    return v == floor(v) && fabs(v) <= (double)AT_JSON_MAX_EXACT_INT;
}

at_status at_json_get_int64(const cJSON *item, int64_t *out)
{
    if (!cJSON_IsNumber(item)) return AT_FAIL(AT_EPARSE, "expected an integer, got a non-number");
    if (!at_json_number_is_int(item)) return AT_FAIL(AT_EPARSE, "expected an integer, got %.17g", item->valuedouble);
    *out = (int64_t)item->valuedouble;
    return AT_OK;
}

void at_json_write_int(at_strbuf *sb, int64_t v)
{
    at_strbuf_printf(sb, "%lld", (long long)v);
}

void at_json_write_double(at_strbuf *sb, double v)
{
    char buf[AT_FMT_DOUBLE_MAX];
    size_t n = at_fmt_double(v, buf);
    at_strbuf_append(sb, buf, n);
}

static void write_u_escape(at_strbuf *sb, unsigned cp)
{
    at_strbuf_printf(sb, "\\u%04x", cp);
}

void at_json_write_string(at_strbuf *sb, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    at_strbuf_putc(sb, '"');
    size_t run = 0; /* length of the pending run of bytes that need no escape */
    for (size_t i = 0;; i++) {
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            run++;
            continue;
        }
        at_strbuf_append(sb, (const char *)s + i - run, run);
        run = 0;
        if (c == 0) break;
        switch (c) {
        case '"': at_strbuf_puts(sb, "\\\""); continue;
        case '\\': at_strbuf_puts(sb, "\\\\"); continue;
        case '\n': at_strbuf_puts(sb, "\\n"); continue;
        case '\r': at_strbuf_puts(sb, "\\r"); continue;
        case '\t': at_strbuf_puts(sb, "\\t"); continue;
        case '\b': at_strbuf_puts(sb, "\\b"); continue;
        case '\f': at_strbuf_puts(sb, "\\f"); continue;
        default: break;
        }
        if (c < 0x80) {
            write_u_escape(sb, c);
            continue;
        }
        /* decode one UTF-8 sequence; a malformed byte is escaped on its own */
        unsigned cp = c;
        size_t len = 1;
        if (c >= 0xC0 && c < 0xE0) cp = c & 0x1F, len = 2;
        else if (c >= 0xE0 && c < 0xF0) cp = c & 0x0F, len = 3;
        else if (c >= 0xF0 && c < 0xF8) cp = c & 0x07, len = 4;
        size_t k = 1;
        for (; k < len && (s[i + k] & 0xC0) == 0x80; k++) cp = (cp << 6) | (s[i + k] & 0x3F);
        if (k < len) {
            write_u_escape(sb, c);
            continue;
        }
        i += len - 1;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            write_u_escape(sb, 0xD800 | (cp >> 10));
            write_u_escape(sb, 0xDC00 | (cp & 0x3FF));
        } else {
            write_u_escape(sb, cp);
        }
    }
    at_strbuf_putc(sb, '"');
}

void at_json_write_value(at_strbuf *sb, const cJSON *item)
{
    switch (item->type & 0xFF) {
    case cJSON_NULL: at_strbuf_puts(sb, "null"); return;
    case cJSON_True: at_strbuf_puts(sb, "true"); return;
    case cJSON_False: at_strbuf_puts(sb, "false"); return;
    case cJSON_Number:
        if (at_json_number_is_int(item))
            at_json_write_int(sb, (int64_t)item->valuedouble);
        else
            at_json_write_double(sb, item->valuedouble);
        return;
    case cJSON_String: at_json_write_string(sb, item->valuestring ? item->valuestring : ""); return;
    case cJSON_Array:
        at_strbuf_putc(sb, '[');
        for (const cJSON *c = item->child; c; c = c->next) {
            at_json_write_value(sb, c);
            if (c->next) at_strbuf_puts(sb, ", ");
        }
        at_strbuf_putc(sb, ']');
        return;
    case cJSON_Object:
        at_strbuf_putc(sb, '{');
        for (const cJSON *c = item->child; c; c = c->next) {
            at_json_write_string(sb, c->string ? c->string : "");
            at_strbuf_puts(sb, ": ");
            at_json_write_value(sb, c);
            if (c->next) at_strbuf_puts(sb, ", ");
        }
        at_strbuf_putc(sb, '}');
        return;
    case cJSON_Raw: at_strbuf_puts(sb, item->valuestring ? item->valuestring : ""); return;
    default: AT_ASSERT(!"unknown cJSON type");
    }
}
