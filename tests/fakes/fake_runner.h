/* A measure/ runner over the fake measurement (tests/fakes/fakes.h): cost a fixed function of
 * the config's knobs, chosen failures, a fake clock for timestamps. */
#ifndef AT_TESTS_FAKE_RUNNER_H
#define AT_TESTS_FAKE_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/measure.h"
#include "tests/fakes/fakes.h"

/* Runner of batch size `batch` (TVM's n_parallel) failing fails[] (borrowed, may be NULL) and
 * stamping results from clock (borrowed, may be NULL). *out owned by the caller
 * (at_meas_runner_free). Counts measure calls in *n_calls when n_calls is not NULL. AT_ENOMEM. */
at_status at_fake_runner_new(size_t batch, const at_fake_failure *fails, size_t n_fails, at_fake_clock *clock,
                             size_t *n_calls, at_meas_runner **out);

/* Makes r (from at_fake_runner_new) take `ahead` inputs a call when they are known ahead
 * (at_meas_runner_i.batch_ahead), as the worker pool does. */
void at_fake_runner_set_ahead(at_meas_runner *r, size_t ahead);

/* A picky runner for issue 18's "no trial wasted": its check rejects every other program it is
 * shown (as device limits would, "Skipped because of invalid gpu kernel"), and it records which
 * configs it measured. Cost: at_fake_cost_s of the config with fake_costs, else 1 ms. */
enum { AT_FAKE_PICKY_MAX = 256 };
typedef struct at_fake_picky {
    size_t  batch;      /* configs per measure call (TVM's n_parallel) */
    bool    fake_costs;
    size_t  n_checked, n_rejected, n_measured;
    size_t  n_calls, smallest_call; /* measure calls, and the fewest configs one of them got */
    int64_t measured[AT_FAKE_PICKY_MAX]; /* the first configs measured, in order */
} at_fake_picky;

/* A runner over p (borrowed: it must outlive the runner). *out owned by the caller. AT_ENOMEM. */
at_status at_fake_picky_runner_new(at_fake_picky *p, at_meas_runner **out);

#endif
