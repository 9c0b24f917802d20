/* Test fixtures for tuners and the tuning loop (STYLE 2.9): a fake GPU matmul template whose
 * space has every knob kind, a cost that is a deterministic function of a config's knobs with
 * one known optimum, a fake clock, and measurements that fail chosen indexes with chosen
 * MeasureErrorNo values. Nothing here reads time, the network or global randomness. */
#ifndef AT_TESTS_FAKES_H
#define AT_TESTS_FAKES_H

#include <stddef.h>
#include <stdint.h>

#include "core/result.h"
#include "core/status.h"
#include "templates/template.h"

/* "testing/fake_tile" (op matmul, target opencl): knobs tile_y = split(n, 3), tile_x =
 * split(m, 3), tile_k = split(l, 2), ann_k = annotate(1 axis, "try_unroll"),
 * auto_unroll_max_step = other {0, 512}. With n = m = 64, l = 16 the space has
 * 28 * 28 * 5 * 2 * 2 = 15680 configs. The schedule binds tile_y/x parts to blockIdx /
 * threadIdx with serial inner loops, and a k loop split by tile_k (inner part unrolled by ann_k). */
extern const at_template at_fake_tmpl_tile;

/* "testing/fake_filtered": the same knobs and schedule with a multi_filter keeping configs of
 * at most 64 threads per block (tile_y[1] * tile_x[1] <= 64). */
extern const at_template at_fake_tmpl_filtered;

/* The fake task (n, m, l) of at_fake_tmpl_tile / of tmpl; owned by the caller (at_task_free).
 * Fails the test on error. */
at_task *at_fake_task(int64_t n, int64_t m, int64_t l);
at_task *at_fake_task_of(const at_template *tmpl, int64_t n, int64_t m, int64_t l);

/* The fake's cost in seconds of config `index`: a product of per-knob penalties in log2 space
 * (threads per block near 8 x 16, work per thread near 2 x 4, tile_k inner 4, unrolled k,
 * auto_unroll 512) and a register-pressure penalty, times at most 0.5 % of index-hashed
 * noise. Pure function of (task args, knobs); its optimum is unique. */
double at_fake_cost_s(const at_task *task, int64_t index);

/* The valid index with the smallest at_fake_cost_s (a full scan). */
int64_t at_fake_best_index(const at_task *task);

/* A fake clock: each call returns now_s and advances it by step_s. */
typedef struct at_fake_clock {
    double now_s, step_s;
} at_fake_clock;
double at_fake_clock_now(void *clock);

/* Chosen failures: index -> MeasureErrorNo. */
typedef struct at_fake_failure {
    int64_t     index;
    at_meas_err err;
} at_fake_failure;

/* Measures config `index` of task as a runner would: costs [at_fake_cost_s] (one repeat) and
 * err 0, or, when fails[] names the index, its error, costs none and a message; all_cost_s
 * 0.5; timestamp from clock (may be NULL: 0). r must be initialized (at_result_init); its
 * previous content is released. AT_ENOMEM. */
at_status at_fake_measure(const at_task *task, int64_t index, const at_fake_failure *fails, size_t n_fails,
                          at_fake_clock *clock, at_result *r);

#endif
