/* Test helper: runs a tuner against the fake measurement the way the tuning loop does, checking
 * on every proposal that the index is valid and was never proposed before. */
#ifndef AT_TESTS_FAKES_DRIVE_H
#define AT_TESTS_FAKES_DRIVE_H

#include <stddef.h>
#include <stdint.h>

#include "tests/fakes/fakes.h"
#include "tuners/tuner.h"

typedef struct at_fake_run {
    int64_t *order;     /* proposals in order (owned; at_fake_run_fini) */
    size_t   n;         /* trials measured */
    size_t   n_batches;
    size_t   first_hit; /* 1-based trial at which `target` was proposed, 0 if never */
} at_fake_run;

/* Drives t on task for up to n_trial trials in batches of `batch` (asserting every index is
 * valid and new, and that next_batch only returns nothing once has_next is false or right after
 * a batch it could not fill); failures from fails[]. Stops early once `target` (-1: never) was
 * proposed when stop_at_target. */
void at_fake_drive(at_tuner *t, const at_task *task, size_t n_trial, size_t batch, const at_fake_failure *fails,
                   size_t n_fails, int64_t target, bool stop_at_target, at_fake_run *run);
void at_fake_run_fini(at_fake_run *run);

#endif
