/* A measure/ runner over the fake measurement (tests/fakes/fakes.h): cost a fixed function of
 * the config's knobs, chosen failures, a fake clock for timestamps. */
#ifndef AT_TESTS_FAKE_RUNNER_H
#define AT_TESTS_FAKE_RUNNER_H

#include <stddef.h>

#include "measure/measure.h"
#include "tests/fakes/fakes.h"

/* Runner of batch size `batch` (TVM's n_parallel) failing fails[] (borrowed, may be NULL) and
 * stamping results from clock (borrowed, may be NULL). *out owned by the caller
 * (at_meas_runner_free). Counts measure calls in *n_calls when n_calls is not NULL. AT_ENOMEM. */
at_status at_fake_runner_new(size_t batch, const at_fake_failure *fails, size_t n_fails, at_fake_clock *clock,
                             size_t *n_calls, at_meas_runner **out);

#endif
