/* Validating a pack's text: every line is a '#' comment or a record the records module parses.
 * Downloads are checked strictly (one bad line rejects the file: a cut-short or corrupt body must
 * never replace a good cache file, and a body for another backend -- a mali pack served as
 * vta_v0.10 -- must not become that backend's pack); cached files are only counted, as the lenient
 * loader reads them. */
#include <stdio.h>
#include <string.h>

#include "records/record.h"
#include "tophub/internal.h"
#include "tophub/tophub.h"

/* True when the target would select backend's pack (at_tophub_candidates' rule on the parsed
 * target: its device, keys and kind, aliased). */
static bool selects(const at_target *t, const char *backend)
{
    if (t->device && t->device[0] && !strcmp(at_tophub_alias(t->device), backend)) return true;
    for (size_t i = 0; i < t->n_keys; i++)
        if (!strcmp(at_tophub_alias(t->keys[i]), backend)) return true;
    return t->kind && !strcmp(at_tophub_alias(t->kind), backend);
}

at_status at_tophub_count_records(const char *text, size_t len, bool strict, const char *backend, size_t *n_records,
                                  size_t *n_bad)
{
    *n_records = 0;
    *n_bad = 0;
    size_t recs = 0, bad = 0, line_no = 0, matching = 0;
    char first_target[128] = "";
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        line_no++;
        size_t n = (size_t)(line_end - p);
        if (n > 0 && p[0] == '#') {
            p = nl ? nl + 1 : end;
            continue;
        }
        at_rec r;
        at_status st = at_rec_parse_line(p, n, &r);
        if (st == AT_OK) {
            recs++;
            if (backend && selects(&r.target, backend)) matching++;
            if (recs == 1) snprintf(first_target, sizeof first_target, "%s", r.target_str);
            at_rec_fini(&r);
        } else if (st == AT_ENOMEM) {
            return st;
        } else if (st == AT_EUNSUPPORTED) {
            /* a log-format v0.1 row: TVM v0.18 skips it, and so does the loader */
        } else if (strict) {
            return AT_FAIL_WRAP(AT_EPARSE, "line %zu", line_no);
        } else {
            bad++;
        }
        p = nl ? nl + 1 : end;
    }
    if (strict && recs == 0) return AT_FAIL(AT_EPARSE, "no record in %zu line%s", line_no, line_no == 1 ? "" : "s");
    if (strict && backend && matching == 0)
        return AT_FAIL(AT_EPARSE, "not a %s pack: none of its %zu records has a target that selects %s (the first's is '%s')",
                       backend, recs, backend, first_target);
    *n_records = recs;
    *n_bad = bad;
    return AT_OK;
}
