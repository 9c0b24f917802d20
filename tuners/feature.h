/* Program features for the XGBoost cost model (spec/autotvm_core.md §5): TVM's touch extractor
 * run on our loop-nest IR, and the three flat vectors built from it.
 *
 * Every vector of one template has one fixed length, whatever the config or the workload, so
 * rows of any config and of other workloads line up in one matrix (transfer learning):
 *   knob:    at_space_knob_feature_len (fixed by the template's knob definitions);
 *   itervar: AT_FEAT_ITERVAR_LOOPS loop slots x AT_FEAT_LOOP_WIDTH, then the define_knob values;
 *   curve:   AT_FEAT_CURVE_BUFFERS buffer slots x 8 x AT_FEAT_CURVE_SAMPLES, then the define_knob
 *            values.
 * TVM concatenates loops of varying width (one 6-float group per access inside the loop) and
 * zero-pads at the end, so a column means different things in different configs. Here loop i
 * (pre-order) always sits in loop slot i, and inside every loop slot, buffer slot b holds the
 * touch pattern of the b-th buffer of the program (byte order of buffer names): that of the
 * buffer's first access inside the loop. Per buffer rather than per access because templates
 * that unroll by hand touch a buffer hundreds of times in one loop. Loops or buffers beyond the
 * slots are dropped (the first AT_FEAT_ITERVAR_LOOPS loops in pre-order are kept), missing ones
 * are zeros. */
#ifndef AT_TUNERS_FEATURE_H
#define AT_TUNERS_FEATURE_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "ir/ir.h"
#include "templates/template.h"
#include "tuners/tuner.h"

#define AT_FEAT_ITERVAR_LOOPS 48   /* loop slots, loops in pre-order */
#define AT_FEAT_ITERVAR_BUFFERS 12 /* buffer slots per loop, buffer names in byte order */
#define AT_FEAT_ANN_WIDTH 11        /* annotation one-hot (spec §5.2) */
/* length, nest level, topdown, bottomup, one-hot, add/mul/div counts, then per buffer stride,
 * mod, count, reuse, thread count, thread reuse */
#define AT_FEAT_LOOP_WIDTH (4 + AT_FEAT_ANN_WIDTH + 3 + 6 * AT_FEAT_ITERVAR_BUFFERS)
#define AT_FEAT_ITERVAR_IR_LEN (AT_FEAT_ITERVAR_LOOPS * AT_FEAT_LOOP_WIDTH)
#define AT_FEAT_CURVE_SAMPLES 20 /* TVM's XGB sample_n */
#define AT_FEAT_CURVE_BUFFERS 8
#define AT_FEAT_CURVE_IR_LEN (AT_FEAT_CURVE_BUFFERS * 8 * AT_FEAT_CURVE_SAMPLES)

/* ---- touch analysis (TVM's TouchExtractor) -------------------------------------------------- */

/* Annotation codes, one-hot positions (spec §5.2). */
typedef enum at_tuner_touch_ann {
    AT_TUNER_TOUCH_BLOCK_X = 0, AT_TUNER_TOUCH_BLOCK_Y, AT_TUNER_TOUCH_BLOCK_Z,
    AT_TUNER_TOUCH_THREAD_X, AT_TUNER_TOUCH_THREAD_Y, AT_TUNER_TOUCH_THREAD_Z,
    AT_TUNER_TOUCH_UNROLLED, AT_TUNER_TOUCH_VECTORIZED, AT_TUNER_TOUCH_PARALLEL,
    AT_TUNER_TOUCH_SERIAL, AT_TUNER_TOUCH_VTHREAD
} at_tuner_touch_ann;

/* How one loop moves through one memory access (TVM's TouchPattern). */
typedef struct at_tuner_touch_pattern {
    size_t  access;       /* index into at_tuner_touch.access_names */
    int64_t stride, mod;  /* stride of the loop's variable in the access's index (0: absent) */
    int64_t count, reuse; /* product of extents inside (and of) the loop that move / don't move
                             the address */
    int64_t thread_count, thread_reuse; /* the same up to the next parallel level */
} at_tuner_touch_pattern;

/* One loop (TVM's ItervarFeature). */
typedef struct at_tuner_touch_loop {
    const at_ir_var        *var;
    int64_t                 length;
    int                     nest_level; /* 1 = outermost */
    at_tuner_touch_ann      ann;
    int64_t                 topdown, bottomup;
    int64_t                 add_ct, mul_ct, div_ct; /* float +,- / * / div,mod nodes directly inside */
    at_tuner_touch_pattern *touch;   /* the accesses inside the loop, by increasing access index */
    size_t                  n_touch;
} at_tuner_touch_loop;

/* A program's touch analysis: loops in pre-order (TVM's `order`), access names "<buffer>_<n>"
 * (the n-th access of a buffer of that name; stores and loads alike, in visiting order). */
typedef struct at_tuner_touch {
    at_tuner_touch_loop *loops;
    size_t               n_loops;
    char               **access_names;  /* in creation order; names_sorted gives byte order */
    size_t              *names_sorted;  /* access indexes sorted by name (strcmp) */
    size_t              *name_rank;     /* position of each access in that order */
    size_t              *access_buffer; /* buffer of each access, an index into buffer_names */
    size_t               n_access;
    char               **buffer_names;  /* distinct buffer names of the accesses, byte order */
    size_t               n_buffers;
} at_tuner_touch;

/* Analyzes every kernel of p in order. *out owned by the caller (at_tuner_touch_free). AT_ENOMEM. */
at_status at_tuner_touch_analyze(const at_ir_program *p, at_tuner_touch **out);
void      at_tuner_touch_free(at_tuner_touch *t);

/* TVM's take_log transform: log2(x + 1) for x >= 0, -log2(1 - x) below. */
double at_tuner_touch_log(int64_t x);

/* The itervar grid of an analysis into out[AT_FEAT_ITERVAR_IR_LEN] (no define_knob values). */
void at_tuner_touch_itervar(const at_tuner_touch *t, float *out);

/* The curve grid of an analysis into out[AT_FEAT_CURVE_IR_LEN] (no define_knob values). */
void at_tuner_touch_curve(const at_tuner_touch *t, float *out);

/* ---- feature vectors of a task's configs ---------------------------------------------------- */

/* Length of feature f for every config of task: the same for every task of its template
 * (given define_space defines the same knob kinds and shapes for every workload). */
size_t at_tuner_feat_len(at_feature f, const at_task *task);

/* Feature f of config `index` of the task's space into out[at_tuner_feat_len(f, task)]. itervar and
 * curve instantiate the config (at_task_instantiate). Returns AT_OK, AT_EINVAL (index out of
 * range or filtered out; the config cannot be instantiated: TVM then uses a row of zeros),
 * AT_ENOMEM. */
at_status at_tuner_feat_extract(at_feature f, const at_task *task, int64_t index, float *out);

/* at_tuner_feat_extract of config idx[i] of tasks[i] into out[i * width], i < n (every task's
 * feature length must be width), shared out over the online cores when the time of the first
 * row predicts enough work (itervar and curve cost an instantiation: winograd's ~3 ms a row):
 * simulated annealing scores thousands of configs per plan, and the builders are idle meanwhile. st[i] gets row i's status; a row that
 * is AT_EINVAL (cannot be instantiated) is zeros. The rows do not depend on the threads. Returns
 * AT_OK when every row is AT_OK or AT_EINVAL, else the failure of the first such row (its
 * message) or AT_ENOMEM. */
at_status at_tuner_feat_extract_many(at_feature f, const at_task *const *tasks, const int64_t *idx, size_t n,
                                     size_t width, float *out, at_status *st);

#endif
