/* libFuzzer target for the JSON layer (core/json.h), which every parser of outside input sits on
 * (log lines, tracker messages, TopHub packs, VTA configs): parse; a parsed value written
 * canonically must parse back and write the same bytes; UTF-8 checking must agree with the
 * parser; integer accessors must not crash. Any crash, sanitizer report, abort() or leaked block
 * (at_alloc_live) is a bug. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Visits every number: the integer accessor agrees with the is-int flag. Returns whether all
 * are finite: 1e999 parses as inf, as json.loads reads it, and is written back as Python's repr
 * writes it ("inf", not JSON), so such a value has no round trip. Callers that write back what
 * they read refuse non-finite numbers (records/record.c, rpc/codec.c). */
static bool walk(const cJSON *j, int depth)
{
    CHECK(depth < 100000);
    bool finite = true;
    for (const cJSON *c = j; c; c = c->next) {
        if (cJSON_IsNumber(c)) {
            int64_t v;
            at_status st = at_json_get_int64(c, &v);
            if (at_json_number_is_int(c)) CHECK(st == AT_OK && (double)v == c->valuedouble);
            if (!isfinite(c->valuedouble)) finite = false;
        }
        if (c->child && !walk(c->child, depth + 1)) finite = false;
    }
    return finite;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    at_log_set_sink(at_fuzz_quiet, NULL);
    long live = at_alloc_live();
    const char *text = (const char *)data;
    cJSON *j = NULL;
    at_status st = at_json_parse(text, size, &j);
    CHECK(st == AT_OK || st == AT_EPARSE);
    if (at_utf8_check(text, size) != size) CHECK(st == AT_EPARSE);
    if (st == AT_OK) {
        CHECK(j);
        bool finite = walk(j, 0);
        at_strbuf a, b;
        at_strbuf_init(&a);
        at_strbuf_init(&b);
        at_json_write_value(&a, j);
        CHECK(at_strbuf_status(&a) == AT_OK);
        CHECK(at_utf8_check(a.data, a.len) == a.len);
        if (finite) {
            cJSON *k = NULL;
            CHECK(at_json_parse(a.data, a.len, &k) == AT_OK);
            at_json_write_value(&b, k);
            CHECK(at_strbuf_status(&b) == AT_OK);
            CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
            at_json_free(k);
        }
        at_strbuf_fini(&a);
        at_strbuf_fini(&b);
    } else {
        CHECK(j == NULL);
    }
    at_json_free(j);
    CHECK(at_alloc_live() == live);
    return 0;
}
