/* tuners/: the names table, the tuner object, and the index tuners (random, gridsearch) and GA:
 * only valid, never-repeated indexes; exhaustion; seeded repetition; TVM's grid order; GA's
 * elites (white-box through tuners/internal.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "tests/fakes/drive.h"
#include "tests/fakes/fakes.h"
#include "tests/support/test_support.h"
#include "tuners/internal.h"
#include "tuners/tuner.h"

static const char *const seed_names[] = {
    "xgb", "xgb_knob", "xgb_itervar", "xgb_curve", "xgb_rank", "xgb_rank_knob", "xgb_rank_itervar",
    "xgb_rank_curve", "xgb_rank_binary", "xgb_rank_binary_knob", "xgb_rank_binary_itervar",
    "xgb_rank_binary_curve", "ga", "random", "gridsearch",
};
#define N_SEED_NAMES (sizeof seed_names / sizeof seed_names[0])

/* 6 x 6 x 2 x 2 x 2 = 288 configs */
static at_task *small_task(void)
{
    return at_fake_task(4, 4, 2);
}

static void names_table_should_hold_exactly_the_seed_tuner_names(void **state)
{
    (void)state;
    assert_int_equal(at_tuner_kind_count(), N_SEED_NAMES);
    for (size_t i = 0; i < N_SEED_NAMES; i++) {
        assert_string_equal(at_tuner_kind_at(i)->name, seed_names[i]);
        assert_ptr_equal(at_tuner_kind_find(seed_names[i]), at_tuner_kind_at(i));
        assert_non_null(at_tuner_kind_at(i)->help);
    }
    const at_tuner_kind *x = at_tuner_kind_find("xgb");
    assert_int_equal(x->algo, AT_TUNER_XGB);
    assert_int_equal(x->loss, AT_LOSS_REG); /* tvmc's default: reg + itervar */
    assert_int_equal(x->feat, AT_FEAT_ITERVAR);
    const at_tuner_kind *r = at_tuner_kind_find("xgb_rank_binary_curve");
    assert_int_equal(r->loss, AT_LOSS_RANK_BINARY);
    assert_int_equal(r->feat, AT_FEAT_CURVE);
    assert_int_equal(at_tuner_kind_find("xgb_rank_knob")->feat, AT_FEAT_KNOB);
    assert_int_equal(at_tuner_kind_find("gridsearch")->algo, AT_TUNER_GRIDSEARCH);
    assert_null(at_tuner_kind_find("xgboost"));
    assert_string_equal(at_loss_name(AT_LOSS_RANK_BINARY), "rank-binary");
    assert_string_equal(at_feature_name(AT_FEAT_CURVE), "curve");
}

static void every_name_should_create_a_tuner_and_unknown_names_should_be_refused(void **state)
{
    (void)state;
    at_task *task = small_task();
    for (size_t i = 0; i < at_tuner_kind_count(); i++) {
        at_tuner *t = NULL;
        assert_ok(at_tuner_new(at_tuner_kind_at(i)->name, task, NULL, &t));
        assert_string_equal(at_tuner_name(t), at_tuner_kind_at(i)->name);
        assert_true(at_tuner_has_next(t));
        at_tuner_free(t);
    }
    at_tuner *t = (at_tuner *)task; /* must be reset to NULL */
    assert_int_equal(at_tuner_new("simulated", task, NULL, &t), AT_ENOTFOUND);
    assert_null(t);
    assert_non_null(strstr(at_last_error(), "xgb_rank_binary_curve"));
    at_tuner_opts bad = {.range_begin = 10, .range_end = 5};
    assert_int_equal(at_tuner_new("random", task, &bad, &t), AT_EINVAL);
    bad = (at_tuner_opts){.diversity_filter_ratio = 0.5};
    assert_int_equal(at_tuner_new("xgb", task, &bad, &t), AT_EINVAL);
    at_tuner_free(NULL);
    at_task_free(task);
}

static void index_tuners_and_ga_should_exhaust_a_small_space_without_repeating(void **state)
{
    (void)state;
    at_task *task = small_task();
    const char *names[] = {"random", "gridsearch", "ga"};
    for (size_t k = 0; k < 3; k++) {
        at_tuner_opts o = {.seed = 3, .pop_size = 20};
        at_tuner *t;
        assert_ok(at_tuner_new(names[k], task, &o, &t));
        at_fake_run run;
        at_fake_drive(t, task, 10000, 7, NULL, 0, -1, false, &run); /* asserts valid and new */
        assert_int_equal(run.n, 288);
        assert_false(at_tuner_has_next(t));
        int64_t idx[4];
        size_t got = 99;
        assert_ok(at_tuner_next_batch(t, 4, idx, &got));
        assert_int_equal(got, 0);
        at_fake_run_fini(&run);
        at_tuner_free(t);
    }
    at_task_free(task);
}

static void gridsearch_should_follow_the_index_with_the_first_knob_fastest(void **state)
{
    (void)state;
    at_task *task = small_task();
    at_tuner *t;
    assert_ok(at_tuner_new("gridsearch", task, NULL, &t));
    at_fake_run run;
    at_fake_drive(t, task, 288, 5, NULL, 0, -1, false, &run);
    assert_int_equal(run.n, 288);
    for (size_t i = 0; i < run.n; i++) assert_int_equal(run.order[i], (int64_t)i);
    /* index 1 and index 0 differ in tile_y only; index 6 (= dim of tile_y) moves tile_x */
    int64_t k0[5], k1[5], k6[5];
    const at_space *s = at_task_space(task);
    at_space_point_to_knobs(s, run.order[0], k0);
    at_space_point_to_knobs(s, run.order[1], k1);
    at_space_point_to_knobs(s, run.order[6], k6);
    assert_int_equal(k1[0], 1);
    for (int j = 1; j < 5; j++) assert_int_equal(k1[j], k0[j]);
    assert_int_equal(k6[0], 0);
    assert_int_equal(k6[1], 1);
    at_fake_run_fini(&run);
    at_tuner_free(t);

    at_tuner_opts o = {.range_begin = 10, .range_end = 20};
    assert_ok(at_tuner_new("gridsearch", task, &o, &t));
    at_fake_drive(t, task, 100, 4, NULL, 0, -1, false, &run);
    assert_int_equal(run.n, 10);
    for (size_t i = 0; i < run.n; i++) assert_int_equal(run.order[i], (int64_t)(10 + i));
    at_fake_run_fini(&run);
    at_tuner_free(t);
    at_task_free(task);
}

static void seeded_tuners_should_repeat_exactly_and_seeds_should_matter(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    const char *names[] = {"random", "ga"};
    for (size_t k = 0; k < 2; k++) {
        at_fake_run a, b, c;
        for (int r = 0; r < 3; r++) {
            at_tuner_opts o = {.seed = r == 2 ? 43 : 42, .pop_size = 32};
            at_tuner *t;
            assert_ok(at_tuner_new(names[k], task, &o, &t));
            at_fake_drive(t, task, 150, 10, NULL, 0, -1, false, r == 0 ? &a : r == 1 ? &b : &c);
            at_tuner_free(t);
        }
        assert_int_equal(a.n, 150);
        assert_int_equal(b.n, 150);
        assert_memory_equal(a.order, b.order, a.n * sizeof *a.order);
        assert_memory_not_equal(a.order, c.order, a.n * sizeof *a.order);
        at_fake_run_fini(&a);
        at_fake_run_fini(&b);
        at_fake_run_fini(&c);
    }
    at_task_free(task);
}

static void tuners_should_only_propose_indexes_the_multi_filter_accepts(void **state)
{
    (void)state;
    at_task *task = at_fake_task_of(&at_fake_tmpl_filtered, 16, 16, 4);
    const at_space *s = at_task_space(task);
    assert_true(at_space_len(s) < at_space_range_len(s));
    const char *names[] = {"random", "gridsearch", "ga"};
    for (size_t k = 0; k < 3; k++) {
        at_tuner_opts o = {.seed = 5, .pop_size = 16};
        at_tuner *t;
        assert_ok(at_tuner_new(names[k], task, &o, &t));
        at_fake_run run;
        at_fake_drive(t, task, 100000, 9, NULL, 0, -1, false, &run); /* asserts validity */
        assert_int_equal(run.n, at_space_len(s));
        at_fake_run_fini(&run);
        at_tuner_free(t);
    }
    at_task_free(task);
}

/* Best flops of the indexes measured so far, recomputed from the fake cost. */
static double flops_of(const at_task *task, int64_t idx)
{
    return at_task_flop(task) / at_fake_cost_s(task, idx);
}

static void ga_should_keep_the_best_configs_seen_as_elites(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    at_tuner_opts o = {.seed = 11, .pop_size = 24, .elite_num = 3};
    void *ctx;
    const at_tuner_i *vt;
    assert_ok(at_tuner_ga_new(task, &o, &ctx, &vt));
    at_tuner *t;
    assert_ok(at_tuner_new_impl("ga", vt, ctx, &t));
    size_t n_gen = 0;
    int64_t *all = at_malloc(24 * 8 * sizeof *all);
    size_t n_all = 0;
    for (int gen = 0; gen < 8; gen++) {
        at_fake_run run;
        at_fake_drive(t, task, 24, 24, NULL, 0, -1, false, &run); /* one whole generation */
        assert_int_equal(run.n, 24);
        memcpy(all + n_all, run.order, run.n * sizeof *all);
        n_all += run.n;
        at_fake_run_fini(&run);
        int64_t el[3];
        double sc[3];
        size_t n_el = at_tuner_ga_elites(ctx, el, sc);
        assert_int_equal(n_el, 3);
        /* the elites are the 3 best of everything measured, best first */
        double best[3] = {-1, -1, -1};
        for (size_t i = 0; i < n_all; i++) {
            double f = flops_of(task, all[i]);
            for (int j = 0; j < 3; j++)
                if (f > best[j]) {
                    for (int m = 2; m > j; m--) best[m] = best[m - 1];
                    best[j] = f;
                    break;
                }
        }
        for (int j = 0; j < 3; j++) {
            assert_float_equal(sc[j], best[j], best[j] * 1e-9);
            assert_float_equal(flops_of(task, el[j]), best[j], best[j] * 1e-9);
        }
        n_gen++;
    }
    assert_int_equal(n_gen, 8);
    at_free(all);
    at_tuner_free(t);
    at_task_free(task);
}

static void ga_should_score_failed_measurements_zero_and_go_on(void **state)
{
    (void)state;
    at_task *task = small_task();
    at_fake_failure fails[288];
    for (int64_t i = 0; i < 288; i++)
        fails[i] = (at_fake_failure){i, (i % 3) ? AT_MEAS_RUNTIME_DEVICE : AT_MEAS_INSTANTIATION_ERROR};
    at_tuner_opts o = {.seed = 1, .pop_size = 10};
    at_tuner *t;
    assert_ok(at_tuner_new("ga", task, &o, &t));
    at_fake_run run;
    at_fake_drive(t, task, 1000, 6, fails, 288, -1, false, &run); /* everything fails */
    assert_int_equal(run.n, 288);
    at_fake_run_fini(&run);
    at_tuner_free(t);
    at_task_free(task);
}

static void result_flops_should_be_zero_for_failures(void **state)
{
    (void)state;
    at_task *task = small_task();
    at_result r;
    at_result_init(&r);
    double costs[3] = {1e-3, 2e-3, 3e-3};
    assert_ok(at_result_set_costs(&r, costs, 3));
    assert_float_equal(at_tuner_result_flops(task, &r), at_task_flop(task) / 2e-3, 1e-6);
    r.err = AT_MEAS_RUN_TIMEOUT;
    assert_float_equal(at_tuner_result_flops(task, &r), 0.0, 0);
    at_result_fini(&r);
    at_task_free(task);
}

/* Score of the annealing tests: minus the fake's cost, shifted so that every score is >= 0. */
static at_status neg_cost_score(void *ctx, const int64_t *xs, size_t n, double *out)
{
    const at_task *task = ctx;
    for (size_t i = 0; i < n; i++) out[i] = 1.0 - at_fake_cost_s(task, xs[i]);
    return AT_OK;
}

/* A space no larger than parallel_size x (early_stop + 1) is scored whole: find_maximums returns
 * exactly the num best scores of the indexes not excluded, best first. */
static void annealing_should_return_the_exact_maximums_of_a_small_space(void **state)
{
    (void)state;
    at_task *task = small_task();
    const at_space *space = at_task_space(task);
    int64_t len = at_space_len(space);
    assert_int_equal(len, 288); /* <= 8 x (50 + 1) */
    at_tuner_sa_opts o = {.n_iter = 500, .parallel_size = 8, .early_stop = 50, .temp_hi = 1, .persistent = true};
    at_tuner_sa *sa;
    assert_ok(at_tuner_sa_new(space, &o, &sa));
    at_tuner_idxset excl;
    at_tuner_idxset_init(&excl);
    int64_t best = at_fake_best_index(task);
    assert_ok(at_tuner_idxset_add(&excl, best, NULL)); /* the optimum is visited: never proposed */
    at_rng rng;
    at_rng_seed(&rng, 3);
    int64_t out[10];
    size_t n = 0;
    assert_ok(at_tuner_sa_find_maximums(sa, neg_cost_score, task, 10, &excl, &rng, out, &n));
    assert_int_equal(n, 10);
    /* the 10 best of the other 287 by a full scan */
    double cost[288];
    for (int64_t i = 0; i < len; i++) cost[i] = i == best ? INFINITY : at_fake_cost_s(task, i);
    for (size_t k = 0; k < n; k++) {
        int64_t want = 0;
        for (int64_t i = 1; i < len; i++)
            if (cost[i] < cost[want]) want = i;
        assert_int_equal(out[k], want);
        cost[want] = INFINITY;
    }
    at_tuner_idxset_fini(&excl);
    at_tuner_sa_free(sa);
    at_task_free(task);
}

static void index_set_should_add_find_and_remove(void **state)
{
    (void)state;
    at_tuner_idxset s;
    at_tuner_idxset_init(&s);
    assert_false(at_tuner_idxset_has(&s, 3));
    bool added;
    for (int64_t i = 0; i < 1000; i += 3) {
        assert_ok(at_tuner_idxset_add(&s, i, &added));
        assert_true(added);
    }
    assert_ok(at_tuner_idxset_add(&s, 3, &added));
    assert_false(added);
    assert_int_equal(s.n, 334);
    for (int64_t i = 0; i < 1000; i += 6) at_tuner_idxset_remove(&s, i);
    for (int64_t i = 0; i < 1000; i++) assert_int_equal(at_tuner_idxset_has(&s, i), i % 3 == 0 && i % 6 != 0);
    at_tuner_idxset_remove(&s, 1);
    assert_int_equal(s.n, 167);
    at_tuner_idxset_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_table_should_hold_exactly_the_seed_tuner_names),
        cmocka_unit_test(every_name_should_create_a_tuner_and_unknown_names_should_be_refused),
        cmocka_unit_test(index_tuners_and_ga_should_exhaust_a_small_space_without_repeating),
        cmocka_unit_test(gridsearch_should_follow_the_index_with_the_first_knob_fastest),
        cmocka_unit_test(seeded_tuners_should_repeat_exactly_and_seeds_should_matter),
        cmocka_unit_test(tuners_should_only_propose_indexes_the_multi_filter_accepts),
        cmocka_unit_test(ga_should_keep_the_best_configs_seen_as_elites),
        cmocka_unit_test(ga_should_score_failed_measurements_zero_and_go_on),
        cmocka_unit_test(result_flops_should_be_zero_for_failures),
        cmocka_unit_test(annealing_should_return_the_exact_maximums_of_a_small_space),
        cmocka_unit_test(index_set_should_add_find_and_remove),
    };
    if (getenv("AT_TEST_FILTER")) cmocka_set_test_filter(getenv("AT_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
