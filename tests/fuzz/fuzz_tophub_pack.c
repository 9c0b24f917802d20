/* libFuzzer target for TopHub pack files, as a mirror may serve them: the strict validation a
 * download goes through (for the vta and mali backends), the lenient count of a cached file, the
 * loader and best tables the dispatch context builds from it, and the pack-name and target
 * helpers on the same bytes as a string. Strict acceptance implies the lenient count agrees.
 * Any crash, sanitizer report, abort() or leaked block (at_alloc_live) is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "records/best.h"
#include "records/log.h"
#include "tophub/internal.h"
#include "tophub/tophub.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    at_log_set_sink(at_fuzz_quiet, NULL);
    long live = at_alloc_live();
    const char *text = (const char *)data;
    size_t lax_rec = 0, lax_bad = 0;
    CHECK(at_tophub_count_records(text, size, false, NULL, &lax_rec, &lax_bad) == AT_OK);
    static const char *const backends[] = {NULL, "vta", "mali"};
    for (size_t b = 0; b < 3; b++) {
        size_t n_rec = 99, n_bad = 99;
        at_status st = at_tophub_count_records(text, size, true, backends[b], &n_rec, &n_bad);
        CHECK(st == AT_OK || st == AT_EPARSE);
        if (st == AT_OK) CHECK(n_rec == lax_rec && n_bad == 0 && lax_bad == 0 && n_rec > 0);
        else CHECK(n_rec == 0 && n_bad == 0);
    }

    /* what at_tophub_context does with a cached pack */
    at_rec_log *log;
    CHECK(at_rec_log_load_buffer("fuzz.log", text, size, &log) == AT_OK);
    CHECK(log->n == lax_rec);
    at_rec_best *best;
    CHECK(at_rec_best_new(&best) == AT_OK);
    CHECK(at_rec_best_add_log(best, log) == AT_OK);
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        const at_rec *q = at_rec_best_query(best, &r->target, r->task_name, r->args_json);
        if (q) CHECK(at_rec_cost(q) <= at_rec_cost(r) || r->result.err != AT_MEAS_OK);
        const at_tophub_package *c[AT_TOPHUB_PACKAGE_COUNT];
        size_t n = 0;
        at_status st = at_tophub_candidates(r->target_str, c, &n);
        CHECK(st == AT_OK || st == AT_EPARSE);
        CHECK(n <= AT_TOPHUB_PACKAGE_COUNT);
    }
    at_rec_best_free(best);
    at_rec_log_free(log);

    /* the bytes as a pack name / target string */
    char *z = at_malloc(size + 1);
    CHECK(z);
    memcpy(z, data, size);
    z[size] = '\0';
    if (at_tophub_is_pack_name(z)) CHECK(at_tophub_pack_name_is_valid(z));
    if (at_tophub_pack_name_is_valid(z)) {
        CHECK(z[0] != '.' && !strstr(z, "..") && !strchr(z, '/'));
        char backend[80];
        at_tophub_pack_backend(z, backend, sizeof backend);
        CHECK(strlen(backend) <= strlen(z));
    }
    const at_tophub_package *c[AT_TOPHUB_PACKAGE_COUNT];
    size_t n = 0;
    at_status st = at_tophub_candidates(z, c, &n);
    CHECK(st == AT_OK || st == AT_EPARSE);
    (void)at_tophub_alias(z);
    (void)at_tophub_find(z);
    at_free(z);
    CHECK(at_alloc_live() == live);
    return 0;
}
