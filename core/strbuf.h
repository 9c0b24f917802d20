/* Growable byte string with a sticky failure flag: writers append freely and check once. */
#ifndef AT_CORE_STRBUF_H
#define AT_CORE_STRBUF_H

#include <stddef.h>

#include "core/status.h"

typedef struct at_strbuf {
    char  *data;   /* NUL-terminated once anything was appended; owned */
    size_t len;
    size_t cap;
    int    failed; /* an append ran out of memory; later appends do nothing */
} at_strbuf;

/* Empty buffer, no allocation. */
void at_strbuf_init(at_strbuf *sb);
/* Frees the data; the buffer is empty and usable again. */
void at_strbuf_fini(at_strbuf *sb);
/* len = 0 and failed = 0, memory kept. */
void at_strbuf_clear(at_strbuf *sb);

void at_strbuf_append(at_strbuf *sb, const char *s, size_t n);
void at_strbuf_puts(at_strbuf *sb, const char *s);
void at_strbuf_putc(at_strbuf *sb, char c);
void at_strbuf_printf(at_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The text so far (borrowed until the next append/fini); "" when empty. */
const char *at_strbuf_cstr(const at_strbuf *sb);

/* AT_OK, or AT_ENOMEM (with detail) when an append failed. */
at_status at_strbuf_status(const at_strbuf *sb);

/* Hands the text to the caller (free with at_free) and leaves sb empty; NULL (and AT_ENOMEM
 * recorded) when an append failed. */
char *at_strbuf_take(at_strbuf *sb);

#endif
