/* e2e: model-based search beats random search. On the fake template's 15680-config space, with
 * a cost that is a fixed function of the knobs, xgb_rank (itervar features) must reach the
 * unique optimum in at most half the trials random search needs, median over five seeds, and
 * within 100 trials (82 since the first fit comes after 16 samples; TVM's schedule, a first fit
 * after 64, took 130). The figures are trial counts, never times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/fakes/drive.h"
#include "tests/fakes/fakes.h"
#include "tests/support/test_support.h"
#include "tuners/tuner.h"

#define N_SEEDS 5
#define CAP 15680

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Trials tuner `name` needs to propose `best` (CAP + 1 if it never does within CAP). */
static size_t trials_to_best(const char *name, const at_task *task, int64_t best, uint64_t seed)
{
    at_tuner_opts o = {.seed = seed};
    at_tuner *t;
    assert_ok(at_tuner_new(name, task, &o, &t));
    at_fake_run run;
    at_fake_drive(t, task, CAP, 8, NULL, 0, best, true, &run);
    size_t n = run.first_hit ? run.first_hit : CAP + 1;
    at_fake_run_fini(&run);
    at_tuner_free(t);
    return n;
}

static void xgb_rank_should_find_the_optimum_within_100_trials_and_half_those_of_random(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    assert_int_equal(at_space_len(at_task_space(task)), 15680);
    int64_t best = at_fake_best_index(task);
    size_t xgb[N_SEEDS], rnd[N_SEEDS];
    for (uint64_t s = 0; s < N_SEEDS; s++) {
        xgb[s] = trials_to_best("xgb_rank", task, best, s + 1);
        rnd[s] = trials_to_best("random", task, best, s + 1);
        print_message("seed %d: xgb_rank %zu trials, random %zu trials\n", (int)s + 1, xgb[s], rnd[s]);
    }
    qsort(xgb, N_SEEDS, sizeof xgb[0], cmp_size);
    qsort(rnd, N_SEEDS, sizeof rnd[0], cmp_size);
    print_message("median trials to the optimum: xgb_rank %zu, random %zu\n", xgb[N_SEEDS / 2], rnd[N_SEEDS / 2]);
    assert_true(xgb[N_SEEDS / 2] <= 100);
    assert_true(2 * xgb[N_SEEDS / 2] <= rnd[N_SEEDS / 2]);
    at_task_free(task);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(xgb_rank_should_find_the_optimum_within_100_trials_and_half_those_of_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
