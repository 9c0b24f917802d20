/* JSON: cJSON for parsing (with Python json.loads' strictness added), and a writer that emits
 * exactly what Python's json.dumps writes with its default settings. The one adapter to cJSON. */
#ifndef AT_CORE_JSON_H
#define AT_CORE_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/strbuf.h"

/* Largest integer magnitude read exactly (2^53): cJSON keeps numbers as doubles. */
#define AT_JSON_MAX_EXACT_INT 9007199254740992LL

/* Parses text[0..len) as exactly one JSON value (whitespace around it allowed). Rejects what
 * Python's json.loads rejects and cJSON would accept: trailing garbage, leading zeros, raw
 * control characters in strings, invalid UTF-8; also integers beyond +-2^53 (they would lose
 * digits). Allocates through at_malloc. *out owned by the caller (at_json_free).
 * Returns AT_OK, AT_EPARSE (detail names the byte column and the reason) or AT_ENOMEM. */
at_status at_json_parse(const char *text, size_t len, cJSON **out);

/* Frees a parsed tree; NULL does nothing. */
void at_json_free(cJSON *item);

/* True when a number item was written without '.', 'e' or 'E' in its text (Python int). */
bool at_json_number_is_int(const cJSON *item);

/* Reads an integer: a number item written as an int. AT_EPARSE (detail says why) otherwise. */
at_status at_json_get_int64(const cJSON *item, int64_t *out);

/* Appends a value as json.dumps writes it: separators ", " and ": ", ASCII only (\uXXXX escapes),
 * ints as ints, floats as repr(float). Failure shows in sb->failed. */
void at_json_write_value(at_strbuf *sb, const cJSON *item);

/* Appends a JSON string literal with json.dumps' ensure_ascii escaping; s is UTF-8. */
void at_json_write_string(at_strbuf *sb, const char *s);

/* Appends a float as repr(float) (json.dumps writes NaN/Infinity for non-finite values). */
void at_json_write_double(at_strbuf *sb, double v);

/* Appends an integer in decimal. */
void at_json_write_int(at_strbuf *sb, int64_t v);

/* Checks that s[0..n) is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF);
 * returns the offset of the first bad byte, or n when all is well. */
size_t at_utf8_check(const char *s, size_t n);

#endif
