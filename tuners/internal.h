/* Helpers shared by the files of tuners/ (no other module includes this): an index set, the
 * XGBoost adapter (the only code that sees XGBoost's conventions), the feature cache, the
 * XGBoost cost model, simulated annealing, and each built-in tuner's constructor. */
#ifndef AT_TUNERS_INTERNAL_H
#define AT_TUNERS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"
#include "core/status.h"
#include "tuners/feature.h"
#include "tuners/tuner.h"

/* ---- index set (open addressing; indexes are >= 0) ------------------------------------------ */

typedef struct at_tuner_idxset {
    int64_t *slots; /* -1 = empty */
    size_t   cap;   /* power of two, or 0 */
    size_t   n;
} at_tuner_idxset;

void      at_tuner_idxset_init(at_tuner_idxset *s);
void      at_tuner_idxset_fini(at_tuner_idxset *s);
void      at_tuner_idxset_clear(at_tuner_idxset *s);
bool      at_tuner_idxset_has(const at_tuner_idxset *s, int64_t i);
/* Adds i (>= 0); *added (may be NULL) says whether it was new. AT_ENOMEM (set unchanged). */
at_status at_tuner_idxset_add(at_tuner_idxset *s, int64_t i, bool *added);
/* Removes i if present. */
void      at_tuner_idxset_remove(at_tuner_idxset *s, int64_t i);
/* at_index_pred over an at_tuner_idxset (ctx). */
bool      at_tuner_idxset_pred(int64_t i, void *ctx);

/* at_tuner_i.ahead of a tuner whose proposals never depend on results (random, grid). */
size_t at_tuner_ahead_all(void *ctx);

/* ---- XGBoost adapter (xgb_capi.c) ----------------------------------------------------------- */

typedef struct at_tuner_xgb_data at_tuner_xgb_data;
typedef struct at_tuner_xgb_booster at_tuner_xgb_booster;

/* A DMatrix of n_rows x n_cols row-major floats (NaN = missing), copied, built with n_threads
 * OpenMP threads (<= 0: all cores). AT_EDEVICE, AT_ENOMEM. */
at_status at_tuner_xgb_data_new(const float *rows, size_t n_rows, size_t n_cols, int n_threads,
                                at_tuner_xgb_data **out);
void      at_tuner_xgb_data_free(at_tuner_xgb_data *d);
/* Labels / base margins, one per row. AT_EDEVICE. */
at_status at_tuner_xgb_data_set_labels(at_tuner_xgb_data *d, const float *y, size_t n);
at_status at_tuner_xgb_data_set_base_margin(at_tuner_xgb_data *d, const float *m, size_t n);
/* Query groups for ranking: sizes of consecutive row groups. AT_EDEVICE. */
at_status at_tuner_xgb_data_set_groups(at_tuner_xgb_data *d, const unsigned *sizes, size_t n_groups);

/* A booster for training on `train` with parameters keys[i] = values[i]. AT_EDEVICE, AT_ENOMEM. */
at_status at_tuner_xgb_booster_new(at_tuner_xgb_data *train, const char *const *keys, const char *const *values,
                                   size_t n_params, at_tuner_xgb_booster **out);
void      at_tuner_xgb_booster_free(at_tuner_xgb_booster *b);
/* One boosting round (iteration iter). AT_EDEVICE. */
at_status at_tuner_xgb_booster_update(at_tuner_xgb_booster *b, int iter, at_tuner_xgb_data *train);
/* Predictions for every row of d (n of them) into out[n]: margins when margin is true. The
 * booster's buffer is copied. AT_EDEVICE (also when XGBoost returns another count). */
at_status at_tuner_xgb_booster_predict(at_tuner_xgb_booster *b, at_tuner_xgb_data *d, bool margin, float *out,
                                       size_t n);

/* ---- feature cache -------------------------------------------------------------------------- */

/* Features of a task's configs by index (TVM's fea_cache): computed on first use, kept until
 * the cache holds max_bytes (then emptied, as TVM empties it at 100 000 entries). A config
 * that cannot be instantiated gets a row of zeros (TVM's None row). */
typedef struct at_tuner_featcache at_tuner_featcache;

at_status at_tuner_featcache_new(const at_task *task, at_feature f, size_t max_bytes, at_tuner_featcache **out);
void      at_tuner_featcache_free(at_tuner_featcache *c);
size_t    at_tuner_featcache_width(const at_tuner_featcache *c);
/* Rows of xs[0..n) into out[n * width]. AT_ENOMEM. */
at_status at_tuner_featcache_rows(at_tuner_featcache *c, const int64_t *xs, size_t n, float *out);

/* ---- XGBoost cost model (cost_model.c) ------------------------------------------------------ */

typedef struct at_tuner_cm at_tuner_cm;

typedef struct at_tuner_cm_opts {
    at_loss loss;
    int     n_threads; /* XGBoost/OpenMP threads, >= 1 */
} at_tuner_cm_opts;

/* An untrained model over rows of `width` features. AT_ENOMEM. */
at_status at_tuner_cm_new(size_t width, const at_tuner_cm_opts *o, at_tuner_cm **out);
/* Frees the model and its base model. */
void      at_tuner_cm_free(at_tuner_cm *m);
bool      at_tuner_cm_is_trained(const at_tuner_cm *m);

/* Training rows for at_tuner_cm_fit: rows[n * width], ys[n] (FLOPS, 0 for failures), and
 * optionally group[n] (rows with equal group ids are one workload; NULL = one workload). */
typedef struct at_tuner_cm_data {
    const float  *rows;
    const double *ys;
    const size_t *group;
    size_t        n;
} at_tuner_cm_data;

/* TVM's XGBoostCostModel.fit (spec §4.5): labels normalized to the best of their workload,
 * rows shuffled with rng, base-model margin (discounted by 2^(-n/64), dropped below 0.05),
 * boosting until the training a-recall@eval_n has not improved for stopping_rounds rounds
 * (evaluated every other round) or max_rounds. For rank losses each workload is one query
 * group. AT_EDEVICE (the previous booster is kept), AT_ENOMEM. */
at_status at_tuner_cm_fit(at_tuner_cm *m, const at_tuner_cm_data *d, size_t eval_n, size_t stopping_rounds,
                          size_t max_rounds, at_rng *rng);

/* Predictions for rows[n * width] (plus the discounted base-model margin) into out[n]. An
 * untrained model predicts its base model's scores, or 0. AT_EDEVICE, AT_ENOMEM. */
at_status at_tuner_cm_predict(at_tuner_cm *m, const float *rows, size_t n, double *out);

/* Boosting rounds of the last successful fit (0 before any). */
size_t at_tuner_cm_rounds(const at_tuner_cm *m);

/* Attaches base as m's transfer base model (m takes it; any previous base is freed). */
void at_tuner_cm_set_base(at_tuner_cm *m, at_tuner_cm *base);

/* TVM's average recall: rank samples by prediction, recall curve of their true ranks,
 * mean over the first n_top points (divided by n_top). -1 when out of memory. */
double at_tuner_average_recall(const double *preds, const double *labels, size_t n, size_t n_top);

/* ---- simulated annealing (sa.c) ------------------------------------------------------------- */

typedef struct at_tuner_sa at_tuner_sa;

/* Scores n indexes into out[n] (higher = better). */
typedef at_status (*at_tuner_score_fn)(void *ctx, const int64_t *xs, size_t n, double *out);

typedef struct at_tuner_sa_opts {
    size_t n_iter;        /* 500 */
    size_t parallel_size; /* 128, capped at the space's size */
    size_t early_stop;    /* 50 */
    double temp_hi, temp_lo; /* 1, 0: linear cooling */
    bool   persistent;    /* keep the chains' points for the next call (true) */
} at_tuner_sa_opts;

at_status at_tuner_sa_new(const at_space *space, const at_tuner_sa_opts *o, at_tuner_sa **out);
void      at_tuner_sa_free(at_tuner_sa *sa);
/* find_maximums (spec §4.7): up to num indexes not in exclusive, best first, with a score
 * >= 0, into out[num]; *n_out says how many. AT_ENOMEM or the score function's status. */
at_status at_tuner_sa_find_maximums(at_tuner_sa *sa, at_tuner_score_fn score, void *ctx, size_t num,
                                    const at_tuner_idxset *exclusive, at_rng *rng, int64_t *out, size_t *n_out);

/* The index range of o for task's space: [*begin, *end) within [0, range_len), end 0 meaning
 * range_len. AT_EINVAL (out of range, empty, or holding no valid index). */
at_status at_tuner_range(const at_task *task, const at_tuner_opts *o, int64_t *begin, int64_t *end);

/* ---- built-in tuners (each returns the ctx and vtable for at_tuner_new_impl) ---------------- */

at_status at_tuner_random_new(const at_task *task, const at_tuner_opts *o, void **ctx, const at_tuner_i **vt);
at_status at_tuner_grid_new(const at_task *task, const at_tuner_opts *o, void **ctx, const at_tuner_i **vt);
at_status at_tuner_ga_new(const at_task *task, const at_tuner_opts *o, void **ctx, const at_tuner_i **vt);
/* The GA's current elites (ctx from at_tuner_ga_new), best first, into out / scores (room for
 * elite_num); returns how many. For white-box tests. */
size_t at_tuner_ga_elites(void *ctx, int64_t *out, double *scores);
at_status at_tuner_xgb_new(const at_task *task, at_loss loss, at_feature feat, const at_tuner_opts *o, void **ctx,
                           const at_tuner_i **vt);

#endif
