/* TVM's XGBoostCostModel (spec §4.5-4.6) on the XGBoost C API: TVM's booster parameters,
 * labels normalized to the best throughput, TVM's custom early stopping on the training
 * a-recall@N, and a transfer base model whose margin fades as 2^(-n/64).
 *
 * Design choices beyond TVM: (1) columns that are constant over the training rows are dropped
 * before XGBoost sees them (they can never split; fixed-slot feature grids are mostly such
 * columns), and the model remembers which columns it kept for prediction; (2) history from
 * several workloads is normalized per workload and, for rank losses, each workload is one
 * query group, since throughputs of different shapes are not comparable (TVM normalizes by one
 * global maximum); (3) the base margin is permuted with the rows (TVM sets it unpermuted);
 * (4) tree_method "hist" (TVM leaves XGBoost's "auto", exact greedy at these sizes): at 2,000
 * records of itervar features a refit is ~9x faster with the same early-stopping round. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "tuners/internal.h"

struct at_tuner_cm {
    size_t                width;
    at_tuner_cm_opts      o;
    at_tuner_xgb_booster *bst;
    size_t               *cols; /* kept columns of the booster's rows */
    size_t                n_cols;
    at_tuner_cm          *base;
    size_t                sample_size; /* rows of the last fit (discounts the base margin) */
    size_t                rounds;      /* boosting rounds of the last fit */
};

at_status at_tuner_cm_new(size_t width, const at_tuner_cm_opts *o, at_tuner_cm **out)
{
    AT_ASSERT(width > 0 && o && o->n_threads >= 1 && out);
    *out = NULL;
    at_tuner_cm *m = at_calloc(1, sizeof *m);
    if (!m) return AT_OOM();
    m->width = width;
    m->o = *o;
    *out = m;
    return AT_OK;
}

void at_tuner_cm_free(at_tuner_cm *m)
{
    if (!m) return;
    at_tuner_xgb_booster_free(m->bst);
    at_free(m->cols);
    at_tuner_cm_free(m->base);
    at_free(m);
}

bool at_tuner_cm_is_trained(const at_tuner_cm *m)
{
    return m->bst != NULL;
}

size_t at_tuner_cm_rounds(const at_tuner_cm *m)
{
    return m->rounds;
}

void at_tuner_cm_set_base(at_tuner_cm *m, at_tuner_cm *base)
{
    if (m->base != base) at_tuner_cm_free(m->base);
    m->base = base;
}

/* Stable merge sort of idx[0..n) by key descending (ties keep their order); tmp has n slots. */
static void sort_desc(const double *key, size_t *idx, size_t *tmp, size_t n)
{
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) tmp[k++] = key[idx[b]] > key[idx[a]] ? idx[b++] : idx[a++];
            while (a < mid) tmp[k++] = idx[a++];
            while (b < hi) tmp[k++] = idx[b++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

/* Scratch of the recall computation: 4 index arrays and one of labels, n each. */
typedef struct recall_scratch {
    size_t *order, *tmp, *pos, *rank;
    double *lab;
} recall_scratch;

static bool recall_scratch_init(recall_scratch *r, size_t n)
{
    r->order = at_malloc(n * sizeof *r->order);
    r->tmp = at_malloc(n * sizeof *r->tmp);
    r->pos = at_malloc(n * sizeof *r->pos);
    r->rank = at_malloc(n * sizeof *r->rank);
    r->lab = at_malloc(n * sizeof *r->lab);
    return r->order && r->tmp && r->pos && r->rank && r->lab;
}

static void recall_scratch_fini(recall_scratch *r)
{
    at_free(r->order);
    at_free(r->tmp);
    at_free(r->pos);
    at_free(r->rank);
    at_free(r->lab);
}

static double average_recall(const double *preds, const double *labels, size_t n, size_t n_top, recall_scratch *r)
{
    if (n == 0 || n_top == 0) return 0;
    for (size_t i = 0; i < n; i++) r->order[i] = i;
    sort_desc(preds, r->order, r->tmp, n); /* trials, best predicted first */
    for (size_t i = 0; i < n; i++) r->lab[i] = labels[r->order[i]];
    for (size_t i = 0; i < n; i++) r->pos[i] = i;
    sort_desc(r->lab, r->pos, r->tmp, n); /* get_rank: 0 = largest label */
    for (size_t k = 0; k < n; k++) r->rank[r->pos[k]] = k;
    size_t m = n_top < n ? n_top : n;
    double result = 0;
    for (size_t i = 0; i < m; i++) { /* recall_curve: count(ranks[:i] <= i) / (i + 1) */
        size_t c = 0;
        for (size_t j = 0; j < i; j++) c += r->rank[j] <= i;
        result += (double)c / (double)(i + 1);
    }
    return result / (double)n_top;
}

double at_tuner_average_recall(const double *preds, const double *labels, size_t n, size_t n_top)
{
    recall_scratch r;
    double v = recall_scratch_init(&r, n ? n : 1) ? average_recall(preds, labels, n, n_top, &r) : -1;
    recall_scratch_fini(&r);
    return v;
}

/* Rows restricted to the model's kept columns: out[n * n_cols]. */
static void compact(const at_tuner_cm *m, const float *rows, size_t n, const size_t *order, float *out)
{
    for (size_t i = 0; i < n; i++) {
        const float *r = rows + (order ? order[i] : i) * m->width;
        float *o = out + i * m->n_cols;
        for (size_t k = 0; k < m->n_cols; k++) o[k] = r[m->cols[k]];
    }
}

static double base_discount(size_t n_samples)
{
    return 1.0 / pow(2.0, (double)n_samples / 64.0);
}

/* Predictions of m (margins when margin) for full-width rows. */
static at_status predict(at_tuner_cm *m, const float *rows, size_t n, bool margin, double *out)
{
    if (!m->bst) {
        if (m->base) return predict(m->base, rows, n, true, out);
        for (size_t i = 0; i < n; i++) out[i] = 0;
        return AT_OK;
    }
    if (n == 0) return AT_OK;
    float *x = at_malloc(n * m->n_cols * sizeof *x), *res = at_malloc(n * sizeof *res);
    at_tuner_xgb_data *d = NULL;
    at_status st = x && res ? AT_OK : AT_OOM();
    if (st == AT_OK) {
        compact(m, rows, n, NULL, x);
        st = at_tuner_xgb_data_new(x, n, m->n_cols, m->o.n_threads, &d);
    }
    if (st == AT_OK && m->base) {
        st = predict(m->base, rows, n, true, out);
        double disc = base_discount(m->sample_size);
        for (size_t i = 0; st == AT_OK && i < n; i++) res[i] = (float)(disc * out[i]);
        if (st == AT_OK) st = at_tuner_xgb_data_set_base_margin(d, res, n);
    }
    if (st == AT_OK) st = at_tuner_xgb_booster_predict(m->bst, d, margin, res, n);
    if (st == AT_OK)
        for (size_t i = 0; i < n; i++) out[i] = res[i];
    at_tuner_xgb_data_free(d);
    at_free(x);
    at_free(res);
    return st;
}

at_status at_tuner_cm_predict(at_tuner_cm *m, const float *rows, size_t n, double *out)
{
    return predict(m, rows, n, false, out);
}

/* Columns whose value is not the same in every row (NaN equal to NaN); at least one. */
static size_t varying_columns(const float *rows, size_t n, size_t width, size_t *cols)
{
    size_t k = 0;
    for (size_t c = 0; c < width; c++) {
        float v0 = rows[c];
        for (size_t i = 1; i < n; i++) {
            float v = rows[i * width + c];
            if (!(v == v0 || (isnan(v) && isnan(v0)))) {
                cols[k++] = c;
                break;
            }
        }
    }
    if (k == 0) cols[k++] = 0;
    return k;
}

typedef struct fit_state {
    recall_scratch        rs;
    size_t               *perm, *tmp, *cols;
    float                *x, *y, *margin;
    double               *eval_y, *pred, *base_pred;
    unsigned             *groups;
    float                *pred_f;
    at_tuner_xgb_data    *d;
    at_tuner_xgb_booster *bst;
} fit_state;

static void fit_state_free(fit_state *f)
{
    recall_scratch_fini(&f->rs);
    at_free(f->perm);
    at_free(f->tmp);
    at_free(f->cols);
    at_free(f->x);
    at_free(f->y);
    at_free(f->margin);
    at_free(f->eval_y);
    at_free(f->pred);
    at_free(f->base_pred);
    at_free(f->groups);
    at_free(f->pred_f);
    at_tuner_xgb_data_free(f->d);
    at_tuner_xgb_booster_free(f->bst);
}

static at_status set_params(const at_tuner_cm *m, at_tuner_xgb_data *d, at_tuner_xgb_booster **out)
{
    char nthread[24];
    snprintf(nthread, sizeof nthread, "%d", m->o.n_threads);
    const char *objective = m->o.loss == AT_LOSS_REG ? "reg:squarederror" : "rank:pairwise";
    const char *keys[] = {"max_depth", "gamma", "min_child_weight", "subsample", "eta", "lambda", "alpha",
                          "verbosity", "objective", "nthread", "tree_method"};
    const char *values[] = {"3", "0.0001", "1", "1.0", "0.3", "1.0", "0", "0", objective, nthread, "hist"};
    return at_tuner_xgb_booster_new(d, keys, values, sizeof keys / sizeof keys[0], out);
}

at_status at_tuner_cm_fit(at_tuner_cm *m, const at_tuner_cm_data *data, size_t eval_n, size_t stopping_rounds,
                          size_t max_rounds, at_rng *rng)
{
    size_t n = data->n, w = m->width;
    if (n == 0) return AT_OK;
    fit_state f = {0};
    f.perm = at_malloc(n * sizeof *f.perm);
    f.tmp = at_malloc(n * sizeof *f.tmp);
    f.cols = at_malloc(w * sizeof *f.cols);
    f.y = at_malloc(n * sizeof *f.y);
    f.eval_y = at_malloc(n * sizeof *f.eval_y);
    f.pred = at_malloc(n * sizeof *f.pred);
    f.pred_f = at_malloc(n * sizeof *f.pred_f);
    f.groups = at_malloc(n * sizeof *f.groups);
    bool rs_ok = recall_scratch_init(&f.rs, n);
    at_status st =
        rs_ok && f.perm && f.tmp && f.cols && f.y && f.eval_y && f.pred && f.pred_f && f.groups ? AT_OK : AT_OOM();
    if (st != AT_OK) goto done;

    /* shuffle (np.random.permutation), then make each workload's rows contiguous */
    for (size_t i = 0; i < n; i++) f.perm[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)at_rng_below(rng, i), t = f.perm[i - 1];
        f.perm[i - 1] = f.perm[j];
        f.perm[j] = t;
    }
    size_t n_groups = 1;
    if (data->group) {
        double *key = at_malloc(n * sizeof *key);
        if (!key) {
            st = AT_OOM();
            goto done;
        }
        for (size_t i = 0; i < n; i++) key[i] = -(double)data->group[i]; /* ascending group id */
        sort_desc(key, f.perm, f.tmp, n);
        at_free(key);
        n_groups = 0;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            while (j < n && data->group[f.perm[j]] == data->group[f.perm[i]]) j++;
            f.groups[n_groups++] = (unsigned)(j - i);
            i = j;
        }
    } else {
        f.groups[0] = (unsigned)n;
    }
    /* labels: throughput over the best of its workload (1e-8 floor, as TVM) */
    for (size_t g = 0, i = 0; g < n_groups; i += f.groups[g++]) {
        double best = 0;
        for (size_t k = i; k < i + f.groups[g]; k++)
            if (data->ys[f.perm[k]] > best) best = data->ys[f.perm[k]];
        if (best < 1e-8) best = 1e-8;
        for (size_t k = i; k < i + f.groups[g]; k++) {
            double y = data->ys[f.perm[k]] / best;
            f.y[k] = (float)y;
            f.eval_y[k] = m->o.loss == AT_LOSS_RANK_BINARY ? (y >= 0.5 ? 1.0 : 0.0) : y;
        }
    }

    size_t n_cols = varying_columns(data->rows, n, w, f.cols);
    f.x = at_malloc(n * n_cols * sizeof *f.x);
    if (!f.x) {
        st = AT_OOM();
        goto done;
    }
    {
        at_tuner_cm tmpm = {.width = w, .cols = f.cols, .n_cols = n_cols};
        compact(&tmpm, data->rows, n, f.perm, f.x);
    }
    st = at_tuner_xgb_data_new(f.x, n, n_cols, m->o.n_threads, &f.d);
    if (st == AT_OK) st = at_tuner_xgb_data_set_labels(f.d, f.y, n);
    if (st == AT_OK && m->o.loss != AT_LOSS_REG) st = at_tuner_xgb_data_set_groups(f.d, f.groups, n_groups);
    if (st != AT_OK) goto done;

    /* transfer: the base model's margin, discounted by the number of samples, fades out */
    size_t sample_size = n;
    bool drop_base = false;
    if (m->base) {
        double disc = base_discount(sample_size);
        if (disc < 0.05) {
            drop_base = true;
        } else {
            f.base_pred = at_malloc(n * sizeof *f.base_pred);
            f.margin = at_malloc(n * sizeof *f.margin);
            st = f.base_pred && f.margin ? AT_OK : AT_OOM();
            if (st == AT_OK) st = predict(m->base, data->rows, n, true, f.base_pred);
            for (size_t i = 0; st == AT_OK && i < n; i++) f.margin[i] = (float)(disc * f.base_pred[f.perm[i]]);
            if (st == AT_OK) st = at_tuner_xgb_data_set_base_margin(f.d, f.margin, n);
            if (st != AT_OK) goto done;
        }
    }

    st = set_params(m, f.d, &f.bst);
    double best = -INFINITY;
    size_t best_epoch = 0, epoch = 0;
    for (; st == AT_OK && epoch < max_rounds; epoch++) {
        st = at_tuner_xgb_booster_update(f.bst, (int)epoch, f.d);
        if (st != AT_OK || epoch % 2 == 1) continue; /* TVM evaluates every other round */
        st = at_tuner_xgb_booster_predict(f.bst, f.d, true, f.pred_f, n);
        if (st != AT_OK) break;
        for (size_t i = 0; i < n; i++) f.pred[i] = f.pred_f[i];
        double score = average_recall(f.pred, f.eval_y, n, eval_n, &f.rs);
        if (epoch % 25 == 0) at_log(AT_LOG_DEBUG, "XGB iter: %3zu\ttr-a-recall@%zu: %.6f", epoch, eval_n, score);
        if (score > best) {
            best = score;
            best_epoch = epoch;
        } else if (epoch - best_epoch >= stopping_rounds) {
            epoch++;
            break;
        }
    }
    if (st != AT_OK) goto done;
    at_log(AT_LOG_DEBUG, "XGB train: %zu rows x %zu of %zu columns, %zu rounds, best tr-a-recall@%zu %.6f at %zu", n,
           n_cols, w, epoch, eval_n, best, best_epoch);

    at_tuner_xgb_booster_free(m->bst);
    at_free(m->cols);
    m->bst = f.bst;
    m->cols = f.cols;
    m->n_cols = n_cols;
    m->sample_size = sample_size;
    m->rounds = epoch;
    f.bst = NULL;
    f.cols = NULL;
    if (drop_base) at_tuner_cm_set_base(m, NULL);
done:
    fit_state_free(&f);
    return st;
}
