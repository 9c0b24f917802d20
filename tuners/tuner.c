/* The tuner object (a vtable + ctx, STYLE 2.6) and the one table of tuner names, which
 * at_tuner_new parses, `--help` prints and the tests walk. */
#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "tuners/internal.h"

struct at_tuner {
    char             *name;
    const at_tuner_i *i;
    void             *ctx;
};

#define XGB(n, l, f, h) {n, AT_TUNER_XGB, l, f, h}
static const at_tuner_kind kinds[] = {
    XGB("xgb", AT_LOSS_REG, AT_FEAT_ITERVAR, "XGBoost cost model, loss reg, itervar features (tvmc's default)"),
    XGB("xgb_knob", AT_LOSS_REG, AT_FEAT_KNOB, "XGBoost, loss reg, knob features"),
    XGB("xgb_itervar", AT_LOSS_REG, AT_FEAT_ITERVAR, "XGBoost, loss reg, itervar features"),
    XGB("xgb_curve", AT_LOSS_REG, AT_FEAT_CURVE, "XGBoost, loss reg, curve features"),
    XGB("xgb_rank", AT_LOSS_RANK, AT_FEAT_ITERVAR, "XGBoost, loss rank, itervar features"),
    XGB("xgb_rank_knob", AT_LOSS_RANK, AT_FEAT_KNOB, "XGBoost, loss rank, knob features"),
    XGB("xgb_rank_itervar", AT_LOSS_RANK, AT_FEAT_ITERVAR, "XGBoost, loss rank, itervar features"),
    XGB("xgb_rank_curve", AT_LOSS_RANK, AT_FEAT_CURVE, "XGBoost, loss rank, curve features"),
    XGB("xgb_rank_binary", AT_LOSS_RANK_BINARY, AT_FEAT_ITERVAR, "XGBoost, loss rank-binary, itervar features"),
    XGB("xgb_rank_binary_knob", AT_LOSS_RANK_BINARY, AT_FEAT_KNOB, "XGBoost, loss rank-binary, knob features"),
    XGB("xgb_rank_binary_itervar", AT_LOSS_RANK_BINARY, AT_FEAT_ITERVAR,
        "XGBoost, loss rank-binary, itervar features"),
    XGB("xgb_rank_binary_curve", AT_LOSS_RANK_BINARY, AT_FEAT_CURVE, "XGBoost, loss rank-binary, curve features"),
    {"ga", AT_TUNER_GA, AT_LOSS_REG, AT_FEAT_KNOB, "genetic algorithm (pop_size 100, elite_num 3, mutation 0.1)"},
    {"random", AT_TUNER_RANDOM, AT_LOSS_REG, AT_FEAT_KNOB, "uniform random order, no repeats"},
    {"gridsearch", AT_TUNER_GRIDSEARCH, AT_LOSS_REG, AT_FEAT_KNOB, "index order (first knob fastest)"},
};
#undef XGB

size_t at_tuner_kind_count(void)
{
    return sizeof kinds / sizeof kinds[0];
}

const at_tuner_kind *at_tuner_kind_at(size_t i)
{
    AT_ASSERT(i < at_tuner_kind_count());
    return &kinds[i];
}

const at_tuner_kind *at_tuner_kind_find(const char *name)
{
    for (size_t i = 0; i < at_tuner_kind_count(); i++)
        if (!strcmp(kinds[i].name, name)) return &kinds[i];
    return NULL;
}

const char *at_loss_name(at_loss l)
{
    static const char *const names[AT_LOSS_COUNT] = {"reg", "rank", "rank-binary"};
    AT_ASSERT((unsigned)l < AT_LOSS_COUNT);
    return names[l];
}

const char *at_feature_name(at_feature f)
{
    static const char *const names[AT_FEAT_COUNT] = {"itervar", "knob", "curve"};
    AT_ASSERT((unsigned)f < AT_FEAT_COUNT);
    return names[f];
}

at_status at_tuner_new_impl(const char *name, const at_tuner_i *i, void *ctx, at_tuner **out)
{
    AT_ASSERT(name && i && i->next_batch && i->update && i->has_next && out);
    *out = NULL;
    at_tuner *t = at_calloc(1, sizeof *t);
    char *copy = at_strdup(name);
    if (!t || !copy) {
        at_free(t);
        at_free(copy);
        if (i->free) i->free(ctx);
        return AT_OOM();
    }
    t->name = copy;
    t->i = i;
    t->ctx = ctx;
    *out = t;
    return AT_OK;
}

static at_status unknown_name(const char *name)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    for (size_t i = 0; i < at_tuner_kind_count(); i++) {
        if (i) at_strbuf_puts(&sb, ", ");
        at_strbuf_puts(&sb, kinds[i].name);
    }
    at_status st = AT_FAIL(AT_ENOTFOUND, "unknown tuner '%s' (choose from %s)", name, at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
    return st;
}

at_status at_tuner_new(const char *name, const at_task *task, const at_tuner_opts *opts, at_tuner **out)
{
    AT_ASSERT(name && task && out);
    *out = NULL;
    const at_tuner_kind *k = at_tuner_kind_find(name);
    if (!k) return unknown_name(name);
    static const at_tuner_opts defaults = {0};
    if (!opts) opts = &defaults;
    void *ctx = NULL;
    const at_tuner_i *vt = NULL;
    switch (k->algo) {
    case AT_TUNER_RANDOM: AT_TRY(at_tuner_random_new(task, opts, &ctx, &vt)); break;
    case AT_TUNER_GRIDSEARCH: AT_TRY(at_tuner_grid_new(task, opts, &ctx, &vt)); break;
    case AT_TUNER_GA: AT_TRY(at_tuner_ga_new(task, opts, &ctx, &vt)); break;
    case AT_TUNER_XGB: AT_TRY(at_tuner_xgb_new(task, k->loss, k->feat, opts, &ctx, &vt)); break;
    }
    return at_tuner_new_impl(name, vt, ctx, out);
}

void at_tuner_free(at_tuner *t)
{
    if (!t) return;
    if (t->i->free) t->i->free(t->ctx);
    at_free(t->name);
    at_free(t);
}

const char *at_tuner_name(const at_tuner *t)
{
    return t->name;
}

size_t at_tuner_ahead(const at_tuner *t)
{
    return t->i->ahead ? t->i->ahead(t->ctx) : 0;
}

size_t at_tuner_ahead_all(void *ctx)
{
    (void)ctx;
    return SIZE_MAX;
}

bool at_tuner_has_next(at_tuner *t)
{
    return t->i->has_next(t->ctx);
}

at_status at_tuner_next_batch(at_tuner *t, size_t n, int64_t *out, size_t *n_out)
{
    AT_ASSERT(n_out && (out || n == 0));
    *n_out = 0;
    if (n == 0) return AT_OK;
    at_status st = t->i->next_batch(t->ctx, n, out, n_out);
    AT_ASSERT(*n_out <= n);
    if (st != AT_OK) *n_out = 0;
    return st;
}

at_status at_tuner_update(at_tuner *t, const int64_t *indices, const at_result *results, size_t n)
{
    AT_ASSERT((indices && results) || n == 0);
    if (n == 0) return AT_OK;
    return t->i->update(t->ctx, indices, results, n);
}

at_status at_tuner_load_history(at_tuner *t, const at_tuner_record *recs, size_t n, size_t *n_used)
{
    size_t used = 0;
    at_status st = AT_OK;
    if (t->i->load_history && n > 0) st = t->i->load_history(t->ctx, recs, n, &used);
    if (n_used) *n_used = st == AT_OK ? used : 0;
    return st;
}

at_status at_tuner_range(const at_task *task, const at_tuner_opts *o, int64_t *begin, int64_t *end)
{
    const at_space *s = at_task_space(task);
    int64_t len = at_space_range_len(s), b = o->range_begin, e = o->range_end ? o->range_end : len;
    if (b < 0 || e > len || b >= e)
        return AT_FAIL(AT_EINVAL, "index range [%lld, %lld) is not a non-empty part of [0, %lld)", (long long)b,
                       (long long)e, (long long)len);
    if (at_space_subrange_len(s, b, e) == 0)
        return AT_FAIL(AT_EINVAL, "index range [%lld, %lld) holds no valid config", (long long)b, (long long)e);
    *begin = b;
    *end = e;
    return AT_OK;
}

double at_tuner_result_flops(const at_task *task, const at_result *r)
{
    if (r->err != AT_MEAS_OK || r->n_costs == 0) return 0.0;
    double mean = at_result_mean_cost(r);
    if (!(mean > 0)) return 0.0;
    return at_task_flop(task) / mean;
}
