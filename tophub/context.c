/* Applying TopHub: the selected pack's records as a best table that callers stack below their
 * own logs (TVM's tophub.context), and the per-model reference records fallback templates use
 * (load_reference_log). Both read the same cache file; a pack that cannot be had only warns, so
 * tuning and compilation go on with fallback configs. */
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "tophub/internal.h"
#include "tophub/tophub.h"

at_status at_tophub_context(const at_tophub_opts *opts, const char *target, at_rec_best *best,
                            const at_tophub_package **used_out, size_t *n_loaded_out)
{
    AT_ASSERT(target && best);
    if (used_out) *used_out = NULL;
    if (n_loaded_out) *n_loaded_out = 0;
    const at_tophub_package *cands[AT_TOPHUB_PACKAGE_COUNT];
    size_t n = 0;
    AT_TRY(at_tophub_candidates(target, cands, &n));
    /* TVM: TOPHUB_LOCATION=NONE gives an empty context, cached packs included */
    if (n == 0 || at_tophub_is_off(opts)) return AT_OK;

    at_tophub_info info;
    const at_tophub_package *used = NULL;
    at_status st = at_tophub_fetch_target(opts, target, &used, &info);
    if (st == AT_ENOMEM) return st;
    if (st != AT_OK) {
        at_log(AT_LOG_WARN, "%s; going on without TopHub records", at_last_error());
        return AT_OK;
    }
    at_rec_log *log = NULL;
    st = at_rec_log_load_file(info.path, &log);
    if (st != AT_OK) {
        if (st == AT_ENOMEM) {
            at_tophub_info_fini(&info);
            return st;
        }
        at_log(AT_LOG_WARN, "tophub: cannot load %s: %s; going on without TopHub records", info.path,
               at_last_error());
        at_tophub_info_fini(&info);
        return AT_OK;
    }
    at_tophub_info_fini(&info);
    size_t n_recs = log->n;
    AT_TRY(at_rec_best_take_log(best, log));
    if (used_out) *used_out = used;
    if (n_loaded_out) *n_loaded_out = n_recs;
    return AT_OK;
}

/* Keeps the records of log that satisfy (model, workload_name), in order, freeing the others. */
static void keep_matching(at_rec_log *log, const char *model, const char *workload_name)
{
    size_t kept = 0;
    for (size_t i = 0; i < log->n; i++) {
        at_rec *r = &log->recs[i];
        if (!strcmp(r->target.model, model) && !strcmp(r->task_name, workload_name)) {
            if (kept != i) log->recs[kept] = *r;
            kept++;
        } else {
            at_rec_fini(r);
        }
    }
    log->n = kept;
}

/* TVM's choice of model: the requested one if the pack has it, else the one with the most records
 * counted up to that point (all of them, since the requested one was never seen), first on ties. */
static const char *pick_model(const at_rec_log *log, const char *model)
{
    const char *best = NULL;
    size_t best_count = 0;
    for (size_t i = 0; i < log->n; i++) {
        const char *m = log->recs[i].target.model;
        if (!strcmp(m, model)) return model;
        /* count m's records once, at its first appearance, so the first model wins ties */
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            if (!strcmp(log->recs[j].target.model, m)) first = false;
        if (!first) continue;
        size_t count = 0;
        for (size_t j = i; j < log->n; j++)
            if (!strcmp(log->recs[j].target.model, m)) count++;
        if (count > best_count) {
            best = m;
            best_count = count;
        }
    }
    return best ? best : model;
}

static at_status empty_log(const char *name, at_rec_log **out)
{
    return at_rec_log_load_buffer(name, "", 0, out);
}

at_status at_tophub_load_reference_log(const at_tophub_opts *opts, const char *backend, const char *model,
                                       const char *workload_name, at_rec_log **out)
{
    AT_ASSERT(backend && model && workload_name && out);
    *out = NULL;
    const at_tophub_package *p = at_tophub_find(backend);
    if (!p) return empty_log(backend, out);
    char *path = NULL;
    AT_TRY(at_tophub_pack_path(opts, p->pack, &path));
    at_rec_log *log = NULL;
    at_status st = at_rec_log_load_file(path, &log);
    if (st == AT_ENOTFOUND && !at_tophub_is_off(opts)) {
        at_tophub_info info;
        st = at_tophub_fetch(opts, p->pack, false, &info);
        at_tophub_info_fini(&info);
        if (st == AT_OK) {
            st = at_rec_log_load_file(path, &log);
        } else if (st != AT_ENOMEM) {
            at_log(AT_LOG_WARN, "%s", at_last_error());
            st = AT_ENOTFOUND;
        }
    }
    at_free(path);
    if (st == AT_ENOTFOUND) return empty_log(p->pack, out); /* not cached, no download */
    if (st != AT_OK) return st;
    /* pick_model may return a pointer into log: copy it before keep_matching frees records */
    char *chosen = at_strdup(pick_model(log, model));
    if (!chosen) {
        at_rec_log_free(log);
        return AT_OOM();
    }
    keep_matching(log, chosen, workload_name);
    at_free(chosen);
    *out = log;
    return AT_OK;
}
