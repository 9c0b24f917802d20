/* tuners/ under allocation failure (curl's torture mode): for every N (sampled past 300), making the N-th
 * allocation fail gives AT_ENOMEM (or success once N passes the last allocation) and leaves no
 * block behind, for the touch analysis, tuner creation, and a short tuning run of each
 * algorithm including an XGBoost refit and a transfer-learning fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/log.h"
#include "tests/fakes/fakes.h"
#include "tests/support/test_support.h"
#include "tuners/feature.h"
#include "tuners/tuner.h"

static void quiet(at_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)msg;
    (void)user;
}

static at_status analyze_once(const at_ir_program *p)
{
    at_tuner_touch *t = NULL;
    at_status st = at_tuner_touch_analyze(p, &t);
    if (st == AT_OK) assert_non_null(t);
    at_tuner_touch_free(t);
    return st;
}

/* Runs `step` with allocation n failing for n = 0, 1, ... until it succeeds untouched: every n
 * up to 300, then every 53rd (feature extraction runs make thousands of allocations, and each
 * try repeats the run up to its failure). */
static void torture(at_status (*step)(void *), void *ctx, const char *what)
{
    long base = at_alloc_live();
    size_t n_fail = 0;
    for (long n = 0;; n += n < 300 ? 1 : 53) {
        at_alloc_fail_after(n);
        at_status st = step(ctx);
        at_alloc_fail_after(-1);
        if (at_alloc_live() != base)
            fail_msg("%s: %ld blocks leaked with allocation %ld failing", what, at_alloc_live() - base, n);
        if (st == AT_OK) break;
        if (st != AT_ENOMEM) fail_msg("%s: allocation %ld failing gave %s", what, n, at_status_str(st));
        n_fail++;
    }
    assert_true(n_fail > 3);
}

typedef struct analyze_ctx {
    const at_ir_program *p;
} analyze_ctx;

static at_status step_analyze(void *ctx)
{
    return analyze_once(((analyze_ctx *)ctx)->p);
}

typedef struct run_ctx {
    const at_task   *task;
    const char      *name;
    const double    *costs; /* by index, computed beforehand: the fake cost allocates */
    at_tuner_record *recs;
    size_t           n_recs;
    int              n_batches; /* of 8 trials */
} run_ctx;

static double *all_costs(const at_task *task)
{
    int64_t n = at_space_range_len(at_task_space(task));
    double *c = at_malloc((size_t)n * sizeof *c);
    for (int64_t i = 0; i < n; i++) c[i] = at_fake_cost_s(task, i);
    return c;
}

/* Creates the tuner, optionally learns history, and runs n_batches batches of 8 trials. */
static at_status step_run(void *p)
{
    run_ctx *c = p;
    at_tuner_opts o = {.seed = 1, .plan_size = 8, .sa_n_iter = 3, .sa_parallel_size = 4, .max_rounds = 10,
                       .pop_size = 8, .min_seed_records = 1};
    at_tuner *t = NULL;
    at_status st = at_tuner_new(c->name, c->task, &o, &t);
    if (st == AT_OK && c->n_recs) st = at_tuner_load_history(t, c->recs, c->n_recs, NULL);
    at_result res[8];
    for (int i = 0; i < 8; i++) at_result_init(&res[i]);
    for (int b = 0; st == AT_OK && b < c->n_batches; b++) {
        int64_t idx[8];
        size_t got = 0;
        st = at_tuner_next_batch(t, 8, idx, &got);
        for (size_t i = 0; st == AT_OK && i < got; i++) {
            st = at_result_set_costs(&res[i], &c->costs[idx[i]], 1);
        }
        if (st == AT_OK) st = at_tuner_update(t, idx, res, got);
    }
    for (int i = 0; i < 8; i++) at_result_fini(&res[i]);
    at_tuner_free(t);
    return st;
}

static void touch_analysis_should_survive_every_failed_allocation(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    at_config *c;
    assert_ok(at_task_config(task, 1234, &c));
    at_arena *arena;
    assert_ok(at_arena_new(0, &arena));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(task, c, arena, &p));
    analyze_ctx a = {p};
    torture(step_analyze, &a, "touch analysis");
    at_arena_free(arena);
    at_config_free(c);
    at_task_free(task);
}

static void tuning_runs_should_survive_every_failed_allocation(void **state)
{
    (void)state;
    at_log_set_sink(quiet, NULL);
    at_task *task = at_fake_task(8, 8, 4);
    double *costs = all_costs(task);
    /* two batches: GA's second generation, xgb's first refit and plan */
    const char *names[] = {"random", "gridsearch", "ga", "xgb_knob", "xgb_rank_binary_knob"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        run_ctx c = {.task = task, .name = names[k], .costs = costs, .n_batches = 2};
        torture(step_run, &c, names[k]);
    }
    at_free(costs);
    at_log_set_sink(NULL, NULL);
    at_task_free(task);
}

static void transfer_learning_should_survive_every_failed_allocation(void **state)
{
    (void)state;
    at_log_set_sink(quiet, NULL);
    at_task *task = at_fake_task(8, 8, 4), *other = at_fake_task(4, 8, 4);
    enum { N = 6 };
    at_config *cfg[N];
    at_result res[N];
    at_tuner_record recs[N];
    for (int i = 0; i < N; i++) {
        assert_ok(at_task_config(other, i * 7, &cfg[i]));
        at_result_init(&res[i]);
        assert_ok(at_fake_measure(other, i * 7, NULL, 0, NULL, &res[i]));
        recs[i] = (at_tuner_record){other, cfg[i], &res[i]};
    }
    double *costs = all_costs(task);
    /* itervar and curve features of the history and of the plan, then one batch */
    const char *names[] = {"xgb_itervar", "xgb_rank_curve"};
    for (size_t k = 0; k < 2; k++) {
        run_ctx c = {.task = task, .name = names[k], .costs = costs, .recs = recs, .n_recs = N, .n_batches = 1};
        torture(step_run, &c, names[k]);
    }
    at_free(costs);
    for (int i = 0; i < N; i++) {
        at_config_free(cfg[i]);
        at_result_fini(&res[i]);
    }
    at_log_set_sink(NULL, NULL);
    at_task_free(other);
    at_task_free(task);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(touch_analysis_should_survive_every_failed_allocation),
        cmocka_unit_test(tuning_runs_should_survive_every_failed_allocation),
        cmocka_unit_test(transfer_learning_should_survive_every_failed_allocation),
    };
    if (getenv("AT_TEST_FILTER")) cmocka_set_test_filter(getenv("AT_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
