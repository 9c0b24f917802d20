/* XGBTuner = TVM's ModelBasedTuner + XGBoostCostModel + SimulatedAnnealingOptimizer (spec
 * §4.4-4.7): random picks until the first plan, refits once any measurement succeeded, a plan of
 * the model's best unvisited configs found by simulated annealing, and the plan's last 5 % slots
 * given to random configs (epsilon-greedy). Transfer learning trains a base model on earlier
 * tasks' records of the same template; it plans the first trials and its margin fades out of
 * later fits.
 *
 * One departure from TVM (issue 18, measured with bench_convergence --oracle): TVM measures
 * plan_size random configs before its first fit and refits every plan_size samples. Here the
 * first fit comes after plan_size / 4 samples and each gap doubles up to plan_size (16, 32, 64,
 * 128, 192, ... for plan_size 64), each plan as long as the gap to the next fit: a model of 16
 * samples already ranks these spaces far better than chance, and on 1,000-config spaces the
 * 64 random trials TVM spends first are most of a 125-trial budget. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "tuners/internal.h"

#define FEATURE_CACHE_BYTES ((size_t)128 << 20)
#define FIT_STOPPING_ROUNDS 20
#define FIT_MAX_ROUNDS 8000
#define HISTORY_STOPPING_ROUNDS 100
#define HISTORY_MAX_ROUNDS 400
/* TVM's load_history(min_seed_records=500): a base model fit on a few hundred records of other
 * workloads misleads more than it helps (bench_convergence --in-order: a 1x1 task after 20
 * records of a 3x3 one needs 17 trials to 95 % instead of 12) */
#define HISTORY_MIN_RECORDS 500

typedef struct xgb_tuner {
    const at_task      *task;
    const at_space     *space;
    at_feature          feat;
    size_t              plan_size, max_rounds, min_seed_records;
    double              diversity_ratio;
    int64_t             space_len;
    at_rng              rng;
    at_tuner_featcache *fc;
    at_tuner_cm_opts    cmo;
    at_tuner_cm        *model;
    at_tuner_cm        *scoring; /* the model simulated annealing asks */
    at_tuner_sa        *sa;
    int64_t            *trials; /* the plan */
    size_t              n_trials, trial_pt;
    at_tuner_idxset     visited;
    int64_t            *xs;
    double             *ys;
    size_t              n_xs, cap_xs;
    double              flops_max;
    size_t              train_ct;
    size_t              next_fit; /* samples at which the next refit happens */
    float              *scratch; /* feature rows for scoring */
    size_t              scratch_rows;
} xgb_tuner;

static bool has_next(void *ctx)
{
    xgb_tuner *x = ctx;
    return (int64_t)x->visited.n < x->space_len;
}

static at_status next_batch(void *ctx, size_t n, int64_t *out, size_t *n_out)
{
    xgb_tuner *x = ctx;
    size_t k = 0;
    size_t eps = (size_t)(0.05 * (double)x->n_trials);
    while (k < n && has_next(x)) {
        while (x->trial_pt < x->n_trials) {
            int64_t idx = x->trials[x->trial_pt];
            if (!at_tuner_idxset_has(&x->visited, idx) && at_space_is_index_valid(x->space, idx)) break;
            x->trial_pt++;
        }
        int64_t idx;
        if (x->trial_pt + eps >= x->n_trials) { /* no plan, or its last 5 %: explore */
            at_status st = at_space_rand_index(x->space, &x->rng, 0, 0, at_tuner_idxset_pred, &x->visited, &idx);
            AT_ASSERT(st != AT_ENOTFOUND); /* has_next */
            AT_TRY(st);
        } else {
            idx = x->trials[x->trial_pt];
        }
        AT_TRY(at_tuner_idxset_add(&x->visited, idx, NULL));
        out[k++] = idx;
    }
    *n_out = k;
    return AT_OK;
}

static at_status score_rows(xgb_tuner *x, size_t n)
{
    if (n <= x->scratch_rows) return AT_OK;
    float *p = at_realloc(x->scratch, n * at_tuner_featcache_width(x->fc) * sizeof *p);
    if (!p) return AT_OOM();
    x->scratch = p;
    x->scratch_rows = n;
    return AT_OK;
}

static at_status score(void *ctx, const int64_t *xs, size_t n, double *out)
{
    xgb_tuner *x = ctx;
    AT_TRY(score_rows(x, n));
    AT_TRY(at_tuner_featcache_rows(x->fc, xs, n, x->scratch));
    return at_tuner_cm_predict(x->scoring, x->scratch, n, out);
}

/* submodular_pick with zeroed scores: greedily the candidate adding the most knob values not
 * yet picked (strict >, so better-predicted candidates win ties). */
static at_status diversity_pick(xgb_tuner *x, const int64_t *cand, size_t n_cand, size_t len, int64_t *out,
                                size_t *n_out)
{
    size_t nk = at_space_n_knobs(x->space), want = len < n_cand ? len : n_cand;
    int64_t *knobs = at_malloc((n_cand * nk + 1) * sizeof *knobs);
    bool *taken = at_calloc(n_cand + 1, sizeof *taken);
    at_tuner_idxset *seen = at_calloc(nk + 1, sizeof *seen);
    at_status st = knobs && taken && seen ? AT_OK : AT_OOM();
    for (size_t i = 0; st == AT_OK && i < n_cand; i++) at_space_point_to_knobs(x->space, cand[i], knobs + i * nk);
    size_t n = 0;
    while (st == AT_OK && n < want) {
        size_t best = SIZE_MAX;
        long best_delta = -1;
        for (size_t i = 0; i < n_cand; i++) {
            if (taken[i]) continue;
            long delta = 0;
            for (size_t j = 0; j < nk; j++) delta += !at_tuner_idxset_has(&seen[j], knobs[i * nk + j]);
            if (delta > best_delta) {
                best_delta = delta;
                best = i;
            }
        }
        taken[best] = true;
        out[n++] = cand[best];
        for (size_t j = 0; st == AT_OK && j < nk; j++) st = at_tuner_idxset_add(&seen[j], knobs[best * nk + j], NULL);
    }
    if (seen)
        for (size_t j = 0; j < nk; j++) at_tuner_idxset_fini(&seen[j]);
    at_free(seen);
    at_free(taken);
    at_free(knobs);
    *n_out = st == AT_OK ? n : 0;
    return st;
}

/* Samples between the fit at n samples and the next one: n (doubling) up to plan_size. */
static size_t fit_gap(const xgb_tuner *x, size_t n)
{
    return n < x->plan_size ? (n ? n : 1) : x->plan_size;
}

/* A new plan of `len` configs from `model` (find_maximums, optionally through the diversity
 * filter). */
static at_status plan(xgb_tuner *x, at_tuner_cm *model, size_t len)
{
    size_t num = len;
    if (x->diversity_ratio > 0) num = (size_t)llround((double)len * x->diversity_ratio);
    int64_t *cand = at_malloc(num * sizeof *cand);
    if (!cand) return AT_OOM();
    size_t n_cand = 0;
    x->scoring = model;
    at_status st = at_tuner_sa_find_maximums(x->sa, score, x, num, &x->visited, &x->rng, cand, &n_cand);
    if (st == AT_OK && x->diversity_ratio > 0) {
        int64_t *picked = at_malloc((len + 1) * sizeof *picked);
        size_t n_picked = 0;
        st = picked ? diversity_pick(x, cand, n_cand, len, picked, &n_picked) : AT_OOM();
        at_free(cand);
        cand = picked;
        n_cand = n_picked;
    }
    if (st != AT_OK) {
        at_free(cand);
        return st;
    }
    at_free(x->trials);
    x->trials = cand;
    x->n_trials = n_cand;
    x->trial_pt = 0;
    return AT_OK;
}

static at_status refit(xgb_tuner *x)
{
    size_t w = at_tuner_featcache_width(x->fc);
    float *rows = at_malloc(x->n_xs * w * sizeof *rows);
    if (!rows) return AT_OOM();
    at_status st = at_tuner_featcache_rows(x->fc, x->xs, x->n_xs, rows);
    if (st == AT_OK) {
        at_tuner_cm_data d = {.rows = rows, .ys = x->ys, .n = x->n_xs};
        st = at_tuner_cm_fit(x->model, &d, x->plan_size, FIT_STOPPING_ROUNDS, x->max_rounds, &x->rng);
    }
    at_free(rows);
    AT_TRY(st);
    size_t gap = fit_gap(x, x->n_xs);
    AT_TRY(plan(x, x->model, gap));
    x->next_fit = x->n_xs + gap;
    x->train_ct++;
    return AT_OK;
}

static at_status update(void *ctx, const int64_t *indices, const at_result *results, size_t n)
{
    xgb_tuner *x = ctx;
    if (x->n_xs + n > x->cap_xs) {
        size_t cap = x->cap_xs ? x->cap_xs : 256;
        while (cap < x->n_xs + n) cap *= 2;
        int64_t *xs = at_realloc(x->xs, cap * sizeof *xs);
        if (xs) x->xs = xs;
        double *ys = at_realloc(x->ys, cap * sizeof *ys);
        if (ys) x->ys = ys;
        if (!xs || !ys) return AT_OOM();
        x->cap_xs = cap;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t idx = indices[i];
        AT_ASSERT(idx >= 0 && idx < at_space_range_len(x->space) && at_space_is_index_valid(x->space, idx));
        double flops = at_tuner_result_flops(x->task, &results[i]);
        x->xs[x->n_xs] = idx;
        x->ys[x->n_xs++] = flops;
        if (flops > x->flops_max) x->flops_max = flops;
        AT_TRY(at_tuner_idxset_add(&x->visited, idx, NULL)); /* also lets a resumed log in */
    }
    if (x->n_xs >= x->next_fit && x->flops_max > 1e-6) return refit(x);
    return AT_OK;
}

/* Distinct tasks of the history, as group ids. */
static size_t group_of(const at_task ***tasks, size_t *n_tasks, size_t *cap, const at_task *t, at_status *st)
{
    for (size_t i = 0; i < *n_tasks; i++)
        if ((*tasks)[i] == t) return i;
    if (*n_tasks == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        const at_task **p = at_realloc((void *)*tasks, c * sizeof *p);
        if (!p) {
            *st = AT_OOM();
            return 0;
        }
        *tasks = p;
        *cap = c;
    }
    (*tasks)[*n_tasks] = t;
    return (*n_tasks)++;
}

static bool same_template(const at_task *a, const at_task *b)
{
    const at_template *x = at_task_template(a), *y = at_task_template(b);
    return x == y || (x->target == y->target && !strcmp(x->name, y->name));
}

/* The records load_history can learn from: each one's task and config index, in record order. */
typedef struct history_rows {
    const at_task **tasks;
    int64_t        *idx;
    const at_result **res;
    size_t          n;
} history_rows;

static void history_rows_free(history_rows *h)
{
    at_free((void *)h->tasks);
    at_free(h->idx);
    at_free((void *)h->res);
}

static at_status history_select(xgb_tuner *x, const at_tuner_record *recs, size_t n, size_t w, history_rows *h)
{
    size_t skipped = 0;
    char first_skip[256] = "";
    h->tasks = at_malloc((n + 1) * sizeof *h->tasks);
    h->idx = at_malloc((n + 1) * sizeof *h->idx);
    h->res = at_malloc((n + 1) * sizeof *h->res);
    if (!h->tasks || !h->idx || !h->res) return AT_OOM();
    for (size_t r = 0; r < n; r++) {
        const at_tuner_record *rec = &recs[r];
        if (!same_template(rec->task, x->task)) continue; /* TVM keeps only this task's name */
        int64_t idx;
        const char *why = NULL;
        if (at_tuner_feat_len(x->feat, rec->task) != w) {
            why = "its workload gives features of another length";
        } else if (at_space_index_of(at_task_space(rec->task), rec->config, &idx) != AT_OK) {
            why = at_last_error();
        }
        if (why) {
            if (skipped++ == 0) snprintf(first_skip, sizeof first_skip, "%s", why);
            continue;
        }
        h->tasks[h->n] = rec->task;
        h->idx[h->n] = idx;
        h->res[h->n++] = rec->result;
    }
    if (skipped)
        at_log(AT_LOG_WARN, "transfer learning: skipped %zu history record%s of %s that do not fit their task (%s)",
               skipped, skipped == 1 ? "" : "s", at_task_template(x->task)->name, first_skip);
    return AT_OK;
}

/* Transfer learning: every usable record's features (extracted together, over the cores), a
 * base model fit on them, and the first plan from it. */
static at_status load_history(void *ctx, const at_tuner_record *recs, size_t n, size_t *n_used)
{
    xgb_tuner *x = ctx;
    *n_used = 0;
    size_t w = at_tuner_featcache_width(x->fc), used = 0, failed_features = 0;
    history_rows h = {0};
    float *rows = NULL;
    double *ys = NULL;
    size_t *group = NULL;
    at_status *sts = NULL;
    const at_task **tasks = NULL;
    size_t n_tasks = 0, cap_tasks = 0;
    double best = 0;
    at_status st = history_select(x, recs, n, w, &h);
    if (st == AT_OK && h.n && h.n < x->min_seed_records) {
        at_log(AT_LOG_INFO, "transfer learning: %zu history record%s of %s, fewer than %zu: not used", h.n,
               h.n == 1 ? "" : "s", at_task_template(x->task)->name, x->min_seed_records);
        h.n = 0;
    }
    if (st == AT_OK && h.n) {
        rows = at_malloc(h.n * w * sizeof *rows);
        ys = at_malloc(h.n * sizeof *ys);
        group = at_malloc(h.n * sizeof *group);
        sts = at_malloc(h.n * sizeof *sts);
        st = rows && ys && group && sts ? AT_OK : AT_OOM();
    }
    if (st == AT_OK) st = at_tuner_feat_extract_many(x->feat, h.tasks, h.idx, h.n, w, rows, sts);
    for (size_t r = 0; st == AT_OK && r < h.n; r++) {
        if (sts[r] == AT_EINVAL) { /* the config cannot be instantiated: nothing to learn from */
            failed_features++;
            continue;
        }
        if (used != r) memmove(rows + used * w, rows + r * w, w * sizeof *rows);
        group[used] = group_of(&tasks, &n_tasks, &cap_tasks, h.tasks[r], &st);
        ys[used] = at_tuner_result_flops(h.tasks[r], h.res[r]);
        if (ys[used] > best) best = ys[used];
        used++;
    }
    if (failed_features)
        at_log(AT_LOG_DEBUG, "transfer learning: %zu history configs could not be instantiated", failed_features);
    at_tuner_cm *base = NULL;
    if (st == AT_OK && used > 0 && best > 1e-6) {
        st = at_tuner_cm_new(w, &x->cmo, &base);
        if (st == AT_OK) {
            at_tuner_cm_data d = {.rows = rows, .ys = ys, .group = group, .n = used};
            size_t rounds = x->max_rounds < HISTORY_MAX_ROUNDS ? x->max_rounds : HISTORY_MAX_ROUNDS;
            st = at_tuner_cm_fit(base, &d, 2 * x->plan_size, HISTORY_STOPPING_ROUNDS, rounds, &x->rng);
        }
        if (st == AT_OK && x->n_trials == 0) st = plan(x, base, x->next_fit);
        if (st == AT_OK) {
            at_tuner_cm_set_base(x->model, base);
            base = NULL;
            *n_used = used;
            at_log(AT_LOG_DEBUG, "transfer learning: base model trained on %zu records of %zu workloads", used,
                   n_tasks);
        }
    }
    at_tuner_cm_free(base);
    history_rows_free(&h);
    at_free(rows);
    at_free(ys);
    at_free(group);
    at_free(sts);
    at_free((void *)tasks);
    return st;
}

static void free_ctx(void *ctx)
{
    xgb_tuner *x = ctx;
    if (!x) return;
    at_tuner_featcache_free(x->fc);
    at_tuner_cm_free(x->model);
    at_tuner_sa_free(x->sa);
    at_free(x->trials);
    at_tuner_idxset_fini(&x->visited);
    at_free(x->xs);
    at_free(x->ys);
    at_free(x->scratch);
    at_free(x);
}

/* Until the next fit, proposals come from the plan (and the rng), whatever the results. */
static size_t ahead(void *ctx)
{
    const xgb_tuner *x = ctx;
    return x->next_fit > x->n_xs ? x->next_fit - x->n_xs : 0;
}

static const at_tuner_i xgb_i = {.next_batch = next_batch, .update = update, .has_next = has_next,
                                 .load_history = load_history, .free = free_ctx, .ahead = ahead};

at_status at_tuner_xgb_new(const at_task *task, at_loss loss, at_feature feat, const at_tuner_opts *o, void **ctx,
                           const at_tuner_i **vt)
{
    if (o->diversity_filter_ratio != 0 && !(o->diversity_filter_ratio >= 1))
        return AT_FAIL(AT_EINVAL, "diversity_filter_ratio must be >= 1 (got %g)", o->diversity_filter_ratio);
    xgb_tuner *x = at_calloc(1, sizeof *x);
    if (!x) return AT_OOM();
    x->task = task;
    x->space = at_task_space(task);
    x->feat = feat;
    x->plan_size = o->plan_size ? o->plan_size : 64;
    x->max_rounds = o->max_rounds ? o->max_rounds : FIT_MAX_ROUNDS;
    x->min_seed_records = o->min_seed_records ? o->min_seed_records : HISTORY_MIN_RECORDS;
    x->diversity_ratio = o->diversity_filter_ratio;
    x->next_fit = x->plan_size / 4 ? x->plan_size / 4 : 1;
    x->space_len = at_space_len(x->space);
    x->cmo = (at_tuner_cm_opts){.loss = loss, .n_threads = o->n_threads > 0 ? o->n_threads : 1};
    at_rng_seed(&x->rng, o->seed);
    at_tuner_idxset_init(&x->visited);
    at_tuner_sa_opts sao = {
        .n_iter = o->sa_n_iter ? o->sa_n_iter : 500,
        .parallel_size = o->sa_parallel_size ? o->sa_parallel_size : 128,
        .early_stop = o->sa_early_stop ? o->sa_early_stop : 50,
        .temp_hi = 1,
        .temp_lo = 0,
        .persistent = true,
    };
    at_status st = at_tuner_featcache_new(task, feat, FEATURE_CACHE_BYTES, &x->fc);
    if (st == AT_OK) st = at_tuner_cm_new(at_tuner_featcache_width(x->fc), &x->cmo, &x->model);
    if (st == AT_OK) st = at_tuner_sa_new(x->space, &sao, &x->sa);
    if (st != AT_OK) {
        free_ctx(x);
        return st;
    }
    *ctx = x;
    *vt = &xgb_i;
    return AT_OK;
}
