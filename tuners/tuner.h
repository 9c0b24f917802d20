/* Tuners: what proposes the next config indexes of a task to measure (TVM v0.18's autotvm
 * tuners, spec/autotvm_core.md §4). One interface (STYLE 2.6/2.8: ggml's vtable + ctx) and one
 * table of names that drives parsing, --help and tests:
 *
 *   xgb xgb_knob xgb_itervar xgb_curve                           XGBoost cost model, loss reg
 *   xgb_rank xgb_rank_knob xgb_rank_itervar xgb_rank_curve       loss rank (rank:pairwise)
 *   xgb_rank_binary xgb_rank_binary_{knob,itervar,curve}         loss rank-binary
 *   ga random gridsearch
 *
 * ("xgb" is reg + itervar, as tvmc.) A tuner proposes flat config indexes (first knob fastest,
 * knobs/space.h), never an index it proposed before and never one the space's multi_filter
 * rejects. Every random choice comes from an at_rng seeded from at_tuner_opts.seed: the same
 * seed and the same measurements give the same proposals. */
#ifndef AT_TUNERS_TUNER_H
#define AT_TUNERS_TUNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/result.h"
#include "core/status.h"
#include "knobs/config.h"
#include "templates/template.h"

/* Loss of the XGBoost cost model. */
typedef enum at_loss {
    AT_LOSS_REG = 0,     /* reg:squarederror on throughput normalized to the best */
    AT_LOSS_RANK,        /* rank:pairwise */
    AT_LOSS_RANK_BINARY, /* rank:pairwise; early stopping judges labels binarized at 0.5 */
    AT_LOSS_COUNT
} at_loss;

/* Feature a cost model learns from (tuners/feature.h). */
typedef enum at_feature {
    AT_FEAT_ITERVAR = 0, /* per-loop touch features of the scheduled IR + define_knob values */
    AT_FEAT_KNOB,        /* the config's flattened entities */
    AT_FEAT_CURVE,       /* sampled reuse/count curves of the innermost buffers + define_knob values */
    AT_FEAT_COUNT
} at_feature;

/* Search algorithm of a tuner name. */
typedef enum at_tuner_algo { AT_TUNER_XGB = 0, AT_TUNER_GA, AT_TUNER_RANDOM, AT_TUNER_GRIDSEARCH } at_tuner_algo;

/* One row of the names table. */
typedef struct at_tuner_kind {
    const char   *name; /* "xgb_rank_curve" */
    at_tuner_algo algo;
    at_loss       loss; /* AT_TUNER_XGB only */
    at_feature    feat; /* AT_TUNER_XGB only */
    const char   *help; /* one line for --help */
} at_tuner_kind;

/* Number of tuner names, and row i of the table (AT_ASSERT i < count), in --help order. */
size_t               at_tuner_kind_count(void);
const at_tuner_kind *at_tuner_kind_at(size_t i);
/* The row named name; NULL when there is none. */
const at_tuner_kind *at_tuner_kind_find(const char *name);

/* "reg", "rank", "rank-binary" / "itervar", "knob", "curve" (AT_ASSERT a valid value). */
const char *at_loss_name(at_loss l);
const char *at_feature_name(at_feature f);

/* Options; zero means the default (TVM's values). */
typedef struct at_tuner_opts {
    uint64_t seed;          /* seeds every random choice (0 is a seed like any other) */
    /* random, gridsearch: the index range [range_begin, range_end); range_end 0 = range_len */
    int64_t  range_begin, range_end;
    /* ga */
    size_t   pop_size;      /* 0 -> 100 (capped at the space's size) */
    size_t   elite_num;     /* 0 -> 3 (capped at pop_size) */
    double   mutation_prob; /* 0 -> 0.1; < 0 -> no mutation */
    /* xgb */
    size_t   plan_size;              /* 0 -> 64: the first fit after plan_size / 4 samples, the
                                        gaps between fits doubling up to plan_size (TVM: every
                                        plan_size samples from the first plan_size on) */
    double   diversity_filter_ratio; /* 0 -> off; else >= 1 (AT_EINVAL): SA finds ratio x
                                        plan_size candidates, a submodular pick keeps plan_size */
    int      n_threads;              /* XGBoost nthread; 0 -> 1: the model sees at most a few
                                        thousand rows, and OpenMP's spinning threads would
                                        compete with the builder processes (TVM: all cores) */
    size_t   max_rounds;             /* boosting rounds per fit; 0 -> 8000 (TVM) */
    size_t   sa_n_iter;              /* simulated annealing iterations; 0 -> 500 */
    size_t   sa_parallel_size;       /* SA chains; 0 -> 128 (capped at the space's size) */
    size_t   sa_early_stop;          /* SA stops after this many iterations without a better
                                        candidate; 0 -> 50 */
    size_t   min_seed_records;       /* load_history learns nothing from fewer usable records of
                                        the template (TVM's min_seed_records); 0 -> 500 */
} at_tuner_opts;

/* A measured config of an earlier task (transfer learning): the task of the record (same
 * template as the tuner's task, any arguments; records sharing one task pointer are one
 * workload), the config as the log stores it and its result. All borrowed for the call. */
typedef struct at_tuner_record {
    const at_task   *task;
    const at_config *config;
    const at_result *result;
} at_tuner_record;

/* ---- interface (for tuners outside this module, e.g. tests) --------------------------------- */

typedef struct at_tuner_i {
    /* Writes up to n indexes to propose into out[] and their count to *n_out (fewer, even 0,
     * when the tuner has nothing more until the next update or at all). Every index written is
     * valid and was never proposed before. AT_ENOMEM, or a status of the implementation. */
    at_status (*next_batch)(void *ctx, size_t n, int64_t *out, size_t *n_out);
    /* Reports the results of indexes it proposed, in the order proposed. */
    at_status (*update)(void *ctx, const int64_t *indices, const at_result *results, size_t n);
    /* Whether next_batch can still propose anything. */
    bool (*has_next)(void *ctx);
    /* (optional) learns from earlier tasks' records before the first measurement; *n_used =
     * records it learned from (defaults to ignoring history: n_used 0, TVM's index tuners). */
    at_status (*load_history)(void *ctx, const at_tuner_record *recs, size_t n, size_t *n_used);
    /* (optional) releases ctx (defaults to nothing). */
    void (*free)(void *ctx);
    /* (optional) how many of its next proposals are fixed whatever the results it has not been
     * told yet: SIZE_MAX for random and grid search, the proposals until the next refit for a
     * model-based tuner (defaults to 0: every proposal may depend on the last update). The tune
     * loop measures that many in one batch where the runner overlaps builds with runs. */
    size_t (*ahead)(void *ctx);
} at_tuner_i;

typedef struct at_tuner at_tuner;

/* Wraps an implementation under a display name (copied); the tuner takes ctx
 * (i->free(ctx) at at_tuner_free, also when this fails). i is borrowed (static). AT_ENOMEM. */
at_status at_tuner_new_impl(const char *name, const at_tuner_i *i, void *ctx, at_tuner **out);

/* ---- the built-in tuners -------------------------------------------------------------------- */

/* Tuner `name` (a row of the table) for task (borrowed: it must outlive the tuner). opts may
 * be NULL (all defaults). *out owned by the caller (at_tuner_free). Returns AT_OK,
 * AT_ENOTFOUND (no such name; the detail lists the names), AT_EINVAL (bad option, e.g. a
 * diversity_filter_ratio below 1, an index range that is empty or outside the space) or
 * AT_ENOMEM. */
at_status at_tuner_new(const char *name, const at_task *task, const at_tuner_opts *opts, at_tuner **out);

/* Frees the tuner; NULL does nothing. */
void at_tuner_free(at_tuner *t);

/* The name it was created under (borrowed until at_tuner_free). */
const char *at_tuner_name(const at_tuner *t);

/* Whether the tuner can propose more indexes (false once the space or range is exhausted). */
bool at_tuner_has_next(at_tuner *t);
/* How many of its next proposals no pending result can change (at_tuner_i.ahead). */
size_t at_tuner_ahead(const at_tuner *t);

/* Up to n new indexes into out[n]; *n_out says how many: fewer than n when the space is nearly
 * exhausted or (ga) the generation ends, 0 only when has_next is false. Returns AT_OK or
 * AT_ENOMEM (*n_out 0). */
at_status at_tuner_next_batch(at_tuner *t, size_t n, int64_t *out, size_t *n_out);

/* Reports results[i] of indices[i], which the tuner proposed, in proposal order (a failed
 * measurement scores 0 FLOPS). xgb tuners refit here. Returns AT_OK, AT_ENOMEM or AT_EDEVICE
 * (XGBoost failed; the tuner stays usable and retries at the next update). */
at_status at_tuner_update(at_tuner *t, const int64_t *indices, const at_result *results, size_t n);

/* Transfer learning: xgb tuners train a base model on the records of the tuner's template
 * (any workload; records of other templates are ignored, records whose config does not fit
 * its task's space are skipped with a warning) and plan their first trials with it. Any
 * amount of history is used (no 500-record cutoff). Other tuners ignore history. *n_used
 * (may be NULL) = records learned from. Returns AT_OK, AT_ENOMEM or AT_EDEVICE. */
at_status at_tuner_load_history(at_tuner *t, const at_tuner_record *recs, size_t n, size_t *n_used);

/* Throughput of a result in FLOP/s: task flop / mean cost, 0 for a failed measurement (TVM's
 * Tuner.tune). */
double at_tuner_result_flops(const at_task *task, const at_result *r);

/* The version of the XGBoost library loaded (its XGBoostVersion). */
void at_tuner_xgboost_version(int *major, int *minor, int *patch);

#endif
