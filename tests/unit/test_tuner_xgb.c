/* tuners/xgb: every XGBoost variant proposes only valid new indexes and refits; seeded runs
 * repeat exactly; TVM's a-recall metric; the diversity filter; transfer learning from another
 * workload's records (mismatched records skipped, never a crash). Small plans, few SA
 * iterations and one XGBoost thread keep each case quick. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/log.h"
#include "tests/fakes/drive.h"
#include "tests/fakes/fakes.h"
#include "tests/support/test_support.h"
#include "tuners/internal.h"
#include "tuners/tuner.h"

static at_tuner_opts quick_opts(uint64_t seed)
{
    return (at_tuner_opts){
        .seed = seed, .plan_size = 16, .n_threads = 1, .max_rounds = 60, .sa_n_iter = 20, .sa_early_stop = 8,
        .sa_parallel_size = 16};
}

static void average_recall_should_follow_tvm_metric(void **state)
{
    (void)state;
    double labels[8] = {0.1, 0.9, 0.3, 0.7, 0.5, 0.2, 0.8, 0.4};
    /* perfect predictions: ranks 0..7 in order, recall curve i / (i + 1) */
    double want4 = (0.0 + 1.0 / 2 + 2.0 / 3 + 3.0 / 4) / 4;
    assert_float_equal(at_tuner_average_recall(labels, labels, 8, 4), want4, 1e-12);
    /* reversed predictions find no top config early */
    double rev[8];
    for (int i = 0; i < 8; i++) rev[i] = -labels[i];
    assert_float_equal(at_tuner_average_recall(rev, labels, 8, 4), 0.0, 0);
    /* fewer samples than N: the sum is still divided by N */
    assert_float_equal(at_tuner_average_recall(labels, labels, 2, 4), (0.0 + 0.5) / 4, 1e-12);
}

static void every_xgb_variant_should_propose_valid_new_indexes_across_refits(void **state)
{
    (void)state;
    at_task *task = at_fake_task(4, 4, 2); /* 288 configs */
    size_t n_xgb = 0;
    for (size_t k = 0; k < at_tuner_kind_count(); k++) {
        const at_tuner_kind *kind = at_tuner_kind_at(k);
        if (kind->algo != AT_TUNER_XGB) continue;
        n_xgb++;
        at_tuner_opts o = quick_opts(7);
        at_tuner *t;
        assert_ok(at_tuner_new(kind->name, task, &o, &t));
        at_fake_run run;
        at_fake_drive(t, task, 40, 8, NULL, 0, -1, false, &run); /* two refits */
        assert_int_equal(run.n, 40);
        at_fake_run_fini(&run);
        at_tuner_free(t);
    }
    assert_int_equal(n_xgb, 12);
    at_task_free(task);
}

static void xgb_should_exhaust_a_space_with_a_multi_filter(void **state)
{
    (void)state;
    at_task *task = at_fake_task_of(&at_fake_tmpl_filtered, 16, 16, 1); /* 880 of 900 valid */
    const at_space *s = at_task_space(task);
    assert_true(at_space_len(s) < at_space_range_len(s));
    at_tuner_opts o = quick_opts(3);
    o.plan_size = 64;
    o.diversity_filter_ratio = 2;
    at_tuner *t;
    assert_ok(at_tuner_new("xgb_rank_knob", task, &o, &t));
    at_fake_run run;
    at_fake_drive(t, task, 100000, 16, NULL, 0, -1, false, &run);
    assert_int_equal(run.n, at_space_len(s));
    assert_false(at_tuner_has_next(t));
    at_fake_run_fini(&run);
    at_tuner_free(t);
    at_task_free(task);
}

static void xgb_should_repeat_exactly_with_the_same_seed(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    const char *names[] = {"xgb", "xgb_rank"};
    for (size_t k = 0; k < 2; k++) {
        at_fake_run runs[3];
        for (int r = 0; r < 3; r++) {
            at_tuner_opts o = quick_opts(r == 2 ? 100 : 99);
            at_tuner *t;
            assert_ok(at_tuner_new(names[k], task, &o, &t));
            at_fake_drive(t, task, 40, 8, NULL, 0, -1, false, &runs[r]); /* two refits */
            assert_int_equal(runs[r].n, 40);
            at_tuner_free(t);
        }
        assert_memory_equal(runs[0].order, runs[1].order, 40 * sizeof(int64_t));
        assert_memory_not_equal(runs[0].order, runs[2].order, 40 * sizeof(int64_t));
        for (int r = 0; r < 3; r++) at_fake_run_fini(&runs[r]);
    }
    at_task_free(task);
}

static void xgb_should_go_on_when_every_measurement_fails(void **state)
{
    (void)state;
    at_task *task = at_fake_task(4, 4, 2);
    at_fake_failure fails[288];
    for (int64_t i = 0; i < 288; i++) fails[i] = (at_fake_failure){i, AT_MEAS_COMPILE_DEVICE};
    at_tuner_opts o = quick_opts(1);
    at_tuner *t;
    assert_ok(at_tuner_new("xgb_rank_binary", task, &o, &t));
    at_fake_run run;
    at_fake_drive(t, task, 48, 8, fails, 288, -1, false, &run); /* no success: never refits */
    assert_int_equal(run.n, 48);
    at_fake_run_fini(&run);
    at_tuner_free(t);
    at_task_free(task);
}

typedef struct history {
    at_task         *task;
    at_config      **configs;
    at_result       *results;
    at_tuner_record *recs;
    size_t           n;
} history;

/* n records of random configs of task measured with the fake cost. */
static void make_history(history *h, at_task *task, size_t n, uint64_t seed)
{
    h->task = task;
    h->n = n;
    h->configs = at_calloc(n, sizeof *h->configs);
    h->results = at_calloc(n, sizeof *h->results);
    h->recs = at_calloc(n, sizeof *h->recs);
    int64_t *idx = at_malloc(n * sizeof *idx);
    at_rng rng;
    at_rng_seed(&rng, seed);
    assert_ok(at_space_sample_ints(at_task_space(task), &rng, n, idx));
    for (size_t i = 0; i < n; i++) {
        assert_ok(at_task_config(task, idx[i], &h->configs[i]));
        at_result_init(&h->results[i]);
        assert_ok(at_fake_measure(task, idx[i], NULL, 0, NULL, &h->results[i]));
        h->recs[i] = (at_tuner_record){task, h->configs[i], &h->results[i]};
    }
    at_free(idx);
}

static void free_history(history *h)
{
    for (size_t i = 0; i < h->n; i++) {
        at_config_free(h->configs[i]);
        at_result_fini(&h->results[i]);
    }
    at_free(h->configs);
    at_free(h->results);
    at_free(h->recs);
    at_task_free(h->task);
}

static int n_warnings;
static void count_warnings(at_log_level level, const char *msg, void *user)
{
    (void)msg;
    (void)user;
    if (level == AT_LOG_WARN) n_warnings++;
}

/* Mean throughput of the first `n` trials a tuner proposes. */
static double first_batch_flops(at_tuner *t, const at_task *task, size_t n)
{
    at_fake_run run;
    at_fake_drive(t, task, n, n, NULL, 0, -1, false, &run);
    assert_int_equal(run.n, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += at_task_flop(task) / at_fake_cost_s(task, run.order[i]);
    at_fake_run_fini(&run);
    return sum / (double)n;
}

/* Hits, misses, an index asked twice in one call, filtered configs, and a budget so small the
 * cache empties itself: every row is the one at_tuner_feat_extract gives (zeros when it cannot). */
static void featcache_should_give_the_extracted_rows(void **state)
{
    (void)state;
    at_task *task = at_fake_task_of(&at_fake_tmpl_filtered, 64, 64, 16);
    at_tuner_featcache *c = NULL;
    assert_ok(at_tuner_featcache_new(task, AT_FEAT_ITERVAR, 1, &c)); /* room for 64 rows at least */
    size_t w = at_tuner_featcache_width(c);
    enum { N = 150 };
    int64_t xs[N];
    for (size_t i = 0; i < N; i++) xs[i] = (int64_t)((i * 37) % 97) * 11; /* repeats inside one call */
    float *rows = at_malloc(N * w * sizeof *rows), *one = at_malloc(w * sizeof *one);
    for (int pass = 0; pass < 2; pass++) { /* the second pass mostly hits */
        assert_ok(at_tuner_featcache_rows(c, xs, N, rows));
        for (size_t i = 0; i < N; i++) {
            if (at_tuner_feat_extract(AT_FEAT_ITERVAR, task, xs[i], one) == AT_EINVAL) memset(one, 0, w * sizeof *one);
            assert_memory_equal(rows + i * w, one, w * sizeof *one);
        }
    }
    at_free(rows);
    at_free(one);
    at_tuner_featcache_free(c);
    at_task_free(task);
}

static void history_of_another_workload_should_plan_the_first_trials(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    history other;
    make_history(&other, at_fake_task(32, 64, 16), 160, 5);
    /* records the tuner must skip: another template's, and a config that is not of its task */
    at_task *matmul;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "64,64,64", &matmul));
    at_config *mm_cfg;
    assert_ok(at_task_config(matmul, 3, &mm_cfg));
    at_result ok;
    at_result_init(&ok);
    double c = 1e-3;
    assert_ok(at_result_set_costs(&ok, &c, 1));
    size_t n = other.n + 2;
    at_tuner_record *recs = at_malloc(n * sizeof *recs);
    memcpy(recs, other.recs, other.n * sizeof *recs);
    recs[other.n] = (at_tuner_record){matmul, mm_cfg, &ok};          /* other template: ignored */
    recs[other.n + 1] = (at_tuner_record){other.task, mm_cfg, &ok};  /* does not fit: skipped */

    const char *names[] = {"xgb_rank_knob", "xgb_itervar"};
    for (size_t k = 0; k < 2; k++) {
        at_tuner_opts o = quick_opts(21);
        at_tuner *with, *without, *below_min;
        assert_ok(at_tuner_new(names[k], task, &o, &below_min)); /* TVM's min_seed_records: 500 */
        o.min_seed_records = other.n;
        assert_ok(at_tuner_new(names[k], task, &o, &with));
        assert_ok(at_tuner_new(names[k], task, &o, &without));
        size_t used_below = 99;
        at_log_set_sink(count_warnings, NULL);
        assert_ok(at_tuner_load_history(below_min, recs, n, &used_below));
        at_log_set_sink(NULL, NULL);
        assert_int_equal(used_below, 0);
        size_t used = 0;
        n_warnings = 0;
        at_log_set_sink(count_warnings, NULL);
        assert_ok(at_tuner_load_history(with, recs, n, &used));
        at_log_set_sink(NULL, NULL);
        assert_int_equal(used, other.n);
        assert_int_equal(n_warnings, 1);
        double fw = first_batch_flops(with, task, 12), fo = first_batch_flops(without, task, 12);
        print_message("%s: first 12 trials average %.1f GFLOPS with history, %.1f without\n", names[k], fw / 1e9,
                      fo / 1e9);
        assert_true(fw > 1.2 * fo);
        /* 160 records are too few by default: the first trials are the ones without history */
        assert_true(first_batch_flops(below_min, task, 12) == fo);
        at_tuner_free(below_min);
        at_tuner_free(with);
        at_tuner_free(without);
    }
    /* index tuners take no history */
    at_tuner *r;
    assert_ok(at_tuner_new("random", task, NULL, &r));
    size_t used = 99;
    assert_ok(at_tuner_load_history(r, recs, n, &used));
    assert_int_equal(used, 0);
    at_tuner_free(r);

    at_free(recs);
    at_result_fini(&ok);
    at_config_free(mm_cfg);
    at_task_free(matmul);
    free_history(&other);
    at_task_free(task);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(average_recall_should_follow_tvm_metric),
        cmocka_unit_test(every_xgb_variant_should_propose_valid_new_indexes_across_refits),
        cmocka_unit_test(xgb_should_exhaust_a_space_with_a_multi_filter),
        cmocka_unit_test(xgb_should_repeat_exactly_with_the_same_seed),
        cmocka_unit_test(xgb_should_go_on_when_every_measurement_fails),
        cmocka_unit_test(history_of_another_workload_should_plan_the_first_trials),
        cmocka_unit_test(featcache_should_give_the_extracted_rows),
    };
    if (getenv("AT_TEST_FILTER")) cmocka_set_test_filter(getenv("AT_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
