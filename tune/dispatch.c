/* Records dispatch: two stacked best tables (user, TopHub) queried as TVM's nested dispatch
 * contexts; fallback reference records are read once per template name and kept, as TVM's
 * REFERENCE_LOG_CACHE does. */
#include <string.h>

#include "core/alloc.h"
#include "core/target.h"
#include "records/best.h"
#include "tune/dispatch.h"

typedef struct ref_entry {
    char       *name; /* template name */
    at_rec_log *log;  /* its reference records (owned) */
} ref_entry;

struct at_tune_dispatch {
    char          *target_str;
    at_target      target;
    at_rec_best   *user, *hub;
    bool           use_refs;
    at_tophub_opts hub_opts;
    ref_entry     *refs;
    size_t         n_refs, cap_refs;
    at_tune_dispatch_stats stats;
};

at_status at_tune_dispatch_new(const char *target, at_tune_dispatch **out)
{
    AT_ASSERT(target && out);
    at_tune_dispatch *d = at_calloc(1, sizeof *d);
    if (!d) return AT_OOM();
    at_status st = at_target_parse(target, &d->target);
    if (st != AT_OK) {
        at_free(d);
        return st;
    }
    d->target_str = at_malloc(strlen(target) + 1);
    if (d->target_str) strcpy(d->target_str, target);
    st = d->target_str ? at_rec_best_new(&d->user) : AT_OOM();
    if (st != AT_OK) {
        at_tune_dispatch_free(d);
        return st;
    }
    *out = d;
    return AT_OK;
}

void at_tune_dispatch_free(at_tune_dispatch *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->n_refs; i++) {
        at_free(d->refs[i].name);
        at_rec_log_free(d->refs[i].log);
    }
    at_free(d->refs);
    at_rec_best_free(d->hub);
    at_rec_best_free(d->user);
    at_target_fini(&d->target);
    at_free(d->target_str);
    at_free(d);
}

at_status at_tune_dispatch_add_log(at_tune_dispatch *d, const char *path, size_t *n_records)
{
    at_rec_log *log;
    AT_TRY(at_rec_log_load_file(path, &log));
    size_t n = log->n;
    AT_TRY(at_rec_best_take_log(d->user, log));
    if (n_records) *n_records = n;
    return AT_OK;
}

at_status at_tune_dispatch_add_loaded(at_tune_dispatch *d, const at_rec_log *log)
{
    return at_rec_best_add_log(d->user, log);
}

at_status at_tune_dispatch_use_tophub(at_tune_dispatch *d, const at_tophub_opts *opts,
                                      const at_tophub_package **used, size_t *n_records)
{
    return at_tune_dispatch_use_tophub_of(d, d->target_str, opts, used, n_records);
}

at_status at_tune_dispatch_use_tophub_of(at_tune_dispatch *d, const char *pack_target, const at_tophub_opts *opts,
                                         const at_tophub_package **used, size_t *n_records)
{
    const at_tophub_package *pkg = NULL;
    size_t n = 0;
    at_rec_best *hub;
    AT_TRY(at_rec_best_new(&hub));
    at_tophub_opts o = opts ? *opts : (at_tophub_opts){0};
    at_status st = at_tophub_context(&o, pack_target, hub, &pkg, &n);
    if (st != AT_OK) {
        at_rec_best_free(hub);
        return st;
    }
    at_rec_best_free(d->hub);
    d->hub = hub;
    d->hub_opts = o;
    d->use_refs = !at_tophub_is_off(&o);
    if (used) *used = pkg;
    if (n_records) *n_records = n;
    return AT_OK;
}

/* The reference records of template t (cached). *out borrowed; NULL when t reads none. */
static at_status refs_of(at_tune_dispatch *d, const at_template *t, const at_rec_log **out)
{
    *out = NULL;
    if (!d->use_refs || !t->ref_backend) return AT_OK;
    for (size_t i = 0; i < d->n_refs; i++)
        if (!strcmp(d->refs[i].name, t->name)) {
            *out = d->refs[i].log;
            return AT_OK;
        }
    if (d->n_refs == d->cap_refs) {
        size_t c = d->cap_refs ? 2 * d->cap_refs : 8;
        ref_entry *p = at_realloc(d->refs, c * sizeof *p);
        if (!p) return AT_OOM();
        d->refs = p;
        d->cap_refs = c;
    }
    at_rec_log *log;
    AT_TRY(at_tophub_load_reference_log(&d->hub_opts, t->ref_backend, t->ref_model, t->name, &log));
    char *name = at_malloc(strlen(t->name) + 1);
    if (!name) {
        at_rec_log_free(log);
        return AT_OOM();
    }
    strcpy(name, t->name);
    d->refs[d->n_refs++] = (ref_entry){name, log};
    *out = log;
    return AT_OK;
}

at_status at_tune_dispatch_fn(void *ctx, const at_task *task, const char *args_json, at_net_choice *out)
{
    at_tune_dispatch *d = ctx;
    const at_template *t = at_task_template(task);
    const at_rec_best *tables[2] = {d->user, d->hub};
    size_t which = 2;
    const at_rec *r = at_rec_best_query_stack(tables, 2, &d->target, t->name, args_json, &which);
    if (r) {
        at_config *c;
        AT_TRY(at_config_clone(r->config, &c));
        *out = (at_net_choice){.config = c, .cost_s = at_rec_cost(r), .tuned = true};
        if (which == 0)
            d->stats.n_user++;
        else
            d->stats.n_tophub++;
        return AT_OK;
    }
    const at_rec_log *refs;
    AT_TRY(refs_of(d, t, &refs));
    size_t n = refs ? refs->n : 0;
    const at_config **cfgs = NULL;
    if (n) {
        cfgs = at_malloc(n * sizeof *cfgs);
        if (!cfgs) return AT_OOM();
        for (size_t i = 0; i < n; i++) cfgs[i] = refs->recs[i].config;
    }
    at_config *c = NULL;
    at_status st = at_task_fallback_config(task, cfgs, n, &c);
    at_free(cfgs);
    AT_TRY(st);
    *out = (at_net_choice){.config = c};
    d->stats.n_fallback++;
    return AT_OK;
}

at_tune_dispatch_stats at_tune_dispatch_get_stats(const at_tune_dispatch *d)
{
    return d->stats;
}
