/* libFuzzer target for the log-line parser and everything a line flows into: parse, write,
 * re-parse (the second write must equal the first), copy, best tables, the multi-line loader,
 * pick-best, target strings. Any crash, sanitizer report, abort() below or leaked block is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/target.h"
#include "records/best.h"
#include "records/log.h"
#include "records/pick.h"
#include "records/record.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A parsed record: its written form must parse back to the same written form, and the best
 * tables must find it under its own keys. */
static void check_record(const at_rec *r)
{
    char *l1 = at_rec_to_line(r);
    CHECK(l1);
    at_rec r2;
    CHECK(at_rec_parse_line(l1, strlen(l1), &r2) == AT_OK);
    char *l2 = at_rec_to_line(&r2);
    CHECK(l2 && !strcmp(l1, l2));
    CHECK(!strcmp(r->target_str, r2.target_str) && !strcmp(r->args_json, r2.args_json));
    CHECK(r->target.n_keys == r2.target.n_keys && at_rec_cost(r) == at_rec_cost(&r2));

    at_rec c;
    CHECK(at_rec_copy(&c, r) == AT_OK);
    char *l3 = at_rec_to_line(&c);
    CHECK(l3 && !strcmp(l1, l3));

    at_rec_best *b;
    CHECK(at_rec_best_new(&b) == AT_OK);
    CHECK(at_rec_best_add(b, r) == AT_OK);
    CHECK(at_rec_best_add(b, &c) == AT_OK); /* a tie: r stays */
    const at_rec *q = at_rec_best_query(b, &r->target, r->task_name, r->args_json);
    if (r->result.err == AT_MEAS_OK && (r->target.n_keys || strcmp(r->target.model, "unknown"))) {
        CHECK(q == r && at_rec_best_is_winner(b, r) && !at_rec_best_is_winner(b, &c));
    } else {
        CHECK(q == NULL);
    }
    at_rec_best_free(b);
    at_free(l1);
    at_free(l2);
    at_free(l3);
    at_rec_fini(&r2);
    at_rec_fini(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    at_log_set_sink(at_fuzz_quiet, NULL);
    long live = at_alloc_live();
    const char *text = (const char *)data;

    at_rec r;
    at_status st = at_rec_parse_line(text, size, &r);
    CHECK(st == AT_OK || st == AT_EPARSE || st == AT_EUNSUPPORTED);
    if (st == AT_OK) {
        check_record(&r);
        at_rec_fini(&r);
    } else {
        CHECK(r.config == NULL && r.target_str == NULL);
    }

    at_rec_log *log;
    CHECK(at_rec_log_load_buffer("fuzz", text, size, &log) == AT_OK);
    const at_rec_log_stats *s = &log->stats;
    CHECK(s->lines == s->records + s->comments + s->blank + s->old_version + s->malformed);
    CHECK(log->n == s->records);
    at_rec_log *again;
    CHECK(at_rec_log_load_buffer("fuzz", text, size, &again) == AT_OK);
    CHECK(again->n == log->n);
    const at_rec_log *srcs[3] = {log, again, log};
    char *out;
    size_t n_out, nm, nk;
    CHECK(at_rec_pick_best_logs(srcs, 3, &out, &n_out, &nm, &nk) == AT_OK);
    CHECK(n_out <= log->n); /* the second copy never beats the first, the third is the first */
    char *out1;
    size_t n_out1;
    CHECK(at_rec_pick_best_logs(srcs, 1, &out1, &n_out1, NULL, NULL) == AT_OK);
    CHECK(n_out1 == n_out && !strcmp(out, out1));
    at_free(out);
    at_free(out1);
    at_rec_log_free(again);
    at_rec_log_free(log);

    char *z = at_malloc(size + 1);
    CHECK(z);
    memcpy(z, data, size);
    z[size] = '\0';
    at_target t;
    if (at_target_parse(z, &t) == AT_OK) {
        at_target c;
        CHECK(at_target_copy(&c, &t) == AT_OK);
        CHECK(c.n_keys == t.n_keys && !strcmp(c.model, t.model));
        at_target_fini(&c);
        at_target_fini(&t);
    }
    at_free(z);

    CHECK(at_alloc_live() == live);
    return 0;
}
