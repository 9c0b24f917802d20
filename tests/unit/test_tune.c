/* tune/: the single-task loop on the fake runner and a fake clock: n_trial, exhaustion, TVM's
 * early-stopping rule, the log written as results arrive (byte-identical for the same seed),
 * progress in TVM's format, failure warnings, and the transfer-learning history of a log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/log.h"
#include "records/log.h"
#include "records/record.h"
#include "tests/fakes/fake_runner.h"
#include "tests/fakes/fakes.h"
#include "tests/support/test_support.h"
#include "tune/tune.h"

typedef struct progress_log {
    size_t           n;
    at_tune_progress last;
    char             text[160];
} progress_log;

static void on_progress(void *user, const at_tune_progress *p)
{
    progress_log *l = user;
    l->n++;
    l->last = *p;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_tune_format_progress("[Task  1/ 1] ", p, &sb);
    snprintf(l->text, sizeof l->text, "%s", at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
}

/* Runs tuner `name` on task with the fake runner, logging to path (NULL: no log). */
static void run_tune(const at_task *task, const char *name, uint64_t seed, size_t n_trial, size_t early,
                     const at_fake_failure *fails, size_t n_fails, const char *path, progress_log *prog,
                     at_tune_result *res)
{
    at_fake_clock clock = {.now_s = 100, .step_s = 0.25};
    at_meas_runner *runner;
    assert_ok(at_fake_runner_new(8, fails, n_fails, &clock, NULL, &runner));
    at_tuner_opts to = {.seed = seed, .plan_size = 16, .sa_n_iter = 20, .sa_parallel_size = 16, .max_rounds = 60};
    at_tuner *tuner;
    assert_ok(at_tuner_new(name, task, &to, &tuner));
    at_rec_appender *app = NULL;
    if (path) assert_ok(at_rec_appender_open(path, &app));
    at_tune_opts o = {.n_trial = n_trial, .early_stopping = early, .log = app, .on_progress = on_progress,
                      .user = prog, .clock_s = at_fake_clock_now, .clock_ctx = &clock};
    assert_ok(at_tune_task(task, tuner, runner, &o, res));
    if (app) assert_ok(at_rec_appender_close(app));
    at_tuner_free(tuner);
    at_meas_runner_free(runner);
}

static void progress_should_print_in_tvm_format(void **state)
{
    (void)state;
    at_tune_progress p = {.done = 992, .total = 1000, .current_flops = 25.3e9, .best_flops = 39.12e9,
                          .elapsed_s = 751.22};
    at_strbuf sb;
    at_strbuf_init(&sb);
    char prefix[32];
    at_tune_format_progress(at_tune_task_prefix(1, 16, prefix), &p, &sb);
    assert_string_equal(at_strbuf_cstr(&sb),
                        "[Task  1/16]  Current/Best:   25.30/  39.12 GFLOPS | Progress: (992/1000) | 751.22 s");
    at_strbuf_fini(&sb);
}

static void tune_should_measure_n_trial_configs_and_log_each_one(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    char path[4200];
    snprintf(path, sizeof path, "%s/tune.log", at_test_tmpdir("tune"));
    progress_log prog = {0};
    at_tune_result res;
    run_tune(task, "random", 1, 50, 0, NULL, 0, path, &prog, &res);
    assert_int_equal(res.n_trials, 50);
    assert_int_equal(res.n_errors, 0);
    assert_false(res.early_stopped);
    assert_int_equal(prog.n, 1 + 7); /* the zero line, then batches of 8, 8, ..., 2 */
    assert_int_equal(prog.last.done, 50);
    assert_int_equal(prog.last.total, 50);
    assert_float_equal(prog.last.best_flops, res.best_flops, 0);
    /* the fake clock moved 0.25 s per measurement and per reading */
    assert_true(prog.last.elapsed_s > 0);
    assert_non_null(strstr(prog.text, "Progress: (50/50)"));

    at_rec_log *log;
    assert_ok(at_rec_log_load_file(path, &log));
    assert_int_equal(log->n, 50);
    assert_int_equal(log->stats.malformed, 0);
    double best = 0;
    int64_t best_index = -1;
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        assert_string_equal(r->task_name, "testing/fake_tile");
        assert_string_equal(r->args_json, "[64, 16, 64, \"float32\"]");
        assert_string_equal(r->target_str, "opencl");
        int64_t idx = at_config_index(r->config);
        double flops = at_task_flop(task) / at_rec_cost(r);
        assert_float_equal(at_rec_cost(r), at_fake_cost_s(task, idx), 0);
        if (flops > best) {
            best = flops;
            best_index = idx;
        }
    }
    assert_int_equal(res.best_index, best_index);
    assert_float_equal(res.best_flops, best, best * 1e-12);
    at_rec_log_free(log);
    remove(path);
    at_task_free(task);
}

/* Tunes with batches of 8, or as many proposals as the tuner fixes ahead (up to 64): returns the
 * configs measured in order and the measure calls. */
static size_t tune_sequence(const at_task *task, const char *name, size_t ahead, size_t early, int64_t *seq,
                            size_t *n_calls, at_tune_result *res)
{
    at_fake_clock clock = {.now_s = 100, .step_s = 0.25};
    at_meas_runner *runner;
    *n_calls = 0;
    assert_ok(at_fake_runner_new(8, NULL, 0, &clock, n_calls, &runner));
    at_fake_runner_set_ahead(runner, ahead);
    at_tuner_opts to = {.seed = 5, .plan_size = 16, .sa_n_iter = 20, .sa_parallel_size = 16, .max_rounds = 60};
    at_tuner *tuner;
    assert_ok(at_tuner_new(name, task, &to, &tuner));
    char path[4200];
    snprintf(path, sizeof path, "%s/ahead_%s_%zu.log", at_test_tmpdir("tune"), name, ahead);
    remove(path);
    at_rec_appender *app;
    assert_ok(at_rec_appender_open(path, &app));
    at_tune_opts o = {.n_trial = 120, .early_stopping = early, .log = app};
    assert_ok(at_tune_task(task, tuner, runner, &o, res));
    assert_ok(at_rec_appender_close(app));
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(path, &log));
    size_t n = log->n;
    for (size_t i = 0; i < n && i < 120; i++) seq[i] = at_config_index(log->recs[i].config);
    at_rec_log_free(log);
    remove(path);
    at_tuner_free(tuner);
    at_meas_runner_free(runner);
    return n;
}

/* Proposals no pending result can change (random search's, xgb's until its next refit) go out in
 * longer batches where the runner overlaps builds with runs, and the run is the same: the same
 * configs in the same order, the same refits and the same early stop as in batches of 8. */
static void batches_ahead_should_measure_what_batches_of_n_parallel_measure(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    const char *names[] = {"random", "gridsearch", "xgb_rank", "xgb", "ga"};
    const size_t early[] = {0, 30};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        for (size_t e = 0; e < 2; e++) {
            int64_t a[120], b[120];
            size_t calls_a, calls_b;
            at_tune_result ra, rb;
            size_t na = tune_sequence(task, names[k], 0, early[e], a, &calls_a, &ra);
            size_t nb = tune_sequence(task, names[k], 64, early[e], b, &calls_b, &rb);
            print_message("%-10s early %2zu: %zu trials in %zu calls of <= 8, %zu in %zu calls ahead\n", names[k],
                          early[e], na, calls_a, nb, calls_b);
            assert_int_equal(na, nb);
            assert_memory_equal(a, b, na * sizeof *a);
            assert_int_equal(ra.early_stopped, rb.early_stopped);
            assert_int_equal(ra.best_index, rb.best_index);
            if (strcmp(names[k], "ga") == 0)
                assert_int_equal(calls_b, calls_a); /* it breeds from every result: nothing ahead */
            else
                assert_true(calls_b < calls_a);
        }
    at_task_free(task);
}

static void tune_should_stop_when_the_space_is_exhausted(void **state)
{
    (void)state;
    at_task *task = at_fake_task(4, 4, 2); /* 288 configs */
    progress_log prog = {0};
    at_tune_result res;
    run_tune(task, "gridsearch", 0, 1000, 0, NULL, 0, NULL, &prog, &res);
    assert_int_equal(res.n_trials, 288);
    assert_int_equal(prog.last.done, 288);
    assert_int_equal(prog.last.total, 1000);
    assert_int_equal(res.best_index, at_fake_best_index(task));
    at_task_free(task);
}

static void tune_should_stop_early_by_tvms_rule(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    progress_log prog = {0};
    at_tune_result res;
    run_tune(task, "gridsearch", 0, 5000, 100, NULL, 0, NULL, &prog, &res);
    assert_true(res.early_stopped);
    /* stopped at the first batch boundary at least 100 trials after the best one */
    assert_true(res.n_trials >= res.best_iter + 100);
    assert_true(res.n_trials < res.best_iter + 100 + 8);
    /* and the best is the best of the grid prefix measured */
    double best = 0;
    for (int64_t i = 0; i < (int64_t)res.n_trials; i++) {
        double f = at_task_flop(task) / at_fake_cost_s(task, i);
        if (f > best) best = f;
    }
    assert_float_equal(res.best_flops, best, best * 1e-12);
    at_task_free(task);
}

static int n_warn;
static char warn_text[2][256];
static void catch_warnings(at_log_level level, const char *msg, void *user)
{
    (void)user;
    if (level != AT_LOG_WARN) return;
    if (n_warn < 2) snprintf(warn_text[n_warn], sizeof warn_text[0], "%s", msg);
    n_warn++;
}

static void tune_should_warn_when_everything_fails(void **state)
{
    (void)state;
    at_task *task = at_fake_task(4, 4, 2);
    at_fake_failure fails[288];
    for (int64_t i = 0; i < 288; i++) fails[i] = (at_fake_failure){i, AT_MEAS_RUNTIME_DEVICE};
    progress_log prog = {0};
    at_tune_result res;
    n_warn = 0;
    at_log_set_sink(catch_warnings, NULL);
    run_tune(task, "random", 2, 200, 0, fails, 288, NULL, &prog, &res);
    at_log_set_sink(NULL, NULL);
    assert_int_equal(res.n_trials, 200);
    assert_int_equal(res.n_errors, 200);
    assert_int_equal(res.best_index, -1);
    assert_float_equal(prog.last.best_flops, 0, 0);
    assert_int_equal(n_warn, 2);
    assert_non_null(strstr(warn_text[0], "Too many errors"));
    assert_non_null(strstr(warn_text[1], "Could not find any valid schedule"));
    assert_non_null(strstr(warn_text[1], "RUNTIME_DEVICE"));
    at_task_free(task);
}

static void same_seed_should_write_the_same_log(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    const char *dir = at_test_tmpdir("tune_seed");
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/a.log", dir);
    snprintf(b, sizeof b, "%s/b.log", dir);
    progress_log prog = {0};
    at_tune_result ra, rb;
    run_tune(task, "xgb_knob", 9, 48, 0, NULL, 0, a, &prog, &ra);
    run_tune(task, "xgb_knob", 9, 48, 0, NULL, 0, b, &prog, &rb);
    size_t la, lb;
    char *ta = at_test_read_file(a, &la), *tb = at_test_read_file(b, &lb);
    assert_non_null(ta);
    assert_non_null(tb);
    assert_int_equal(la, lb);
    assert_memory_equal(ta, tb, la);
    assert_int_equal(ra.best_index, rb.best_index);
    at_free(ta);
    at_free(tb);
    remove(a);
    remove(b);
    at_task_free(task);
}

static void history_should_keep_the_records_of_the_tasks_template(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16), *other = at_fake_task(32, 64, 16);
    char path[4200];
    snprintf(path, sizeof path, "%s/tmp.log", at_test_tmpdir("tune_hist"));
    progress_log prog = {0};
    at_tune_result res;
    run_tune(other, "random", 4, 40, 0, NULL, 0, path, &prog, &res);
    /* a record of another template and one whose workload is not a matmul's */
    at_rec_appender *app;
    assert_ok(at_rec_appender_open(path, &app));
    at_task *mm;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "64,64,64", &mm));
    at_config *c;
    assert_ok(at_task_config(mm, 0, &c));
    at_result r;
    at_result_init(&r);
    double cost = 1e-3;
    assert_ok(at_result_set_costs(&r, &cost, 1));
    at_rec rec;
    assert_ok(at_rec_make("opencl", "testing/matmul", "[64, 64, 64, \"float32\"]", c, &r, &rec));
    assert_ok(at_rec_appender_write(app, &rec));
    at_rec_fini(&rec);
    assert_ok(at_rec_make("opencl", "testing/fake_tile", "[1, 2]", c, &r, &rec));
    assert_ok(at_rec_appender_write(app, &rec));
    at_rec_fini(&rec);
    assert_ok(at_rec_appender_close(app));

    at_rec_log *log;
    assert_ok(at_rec_log_load_file(path, &log));
    assert_int_equal(log->n, 42);
    at_tune_history *h;
    n_warn = 0;
    at_log_set_sink(catch_warnings, NULL);
    assert_ok(at_tune_history_new(task, log, &h));
    at_log_set_sink(NULL, NULL);
    assert_int_equal(n_warn, 1); /* the unusable workload */
    size_t n;
    const at_tuner_record *recs = at_tune_history_records(h, &n);
    assert_int_equal(n, 40);
    assert_int_equal(at_tune_history_n_workloads(h), 1);
    assert_int_equal(at_task_args(recs[0].task)->u.matmul.n, 32);

    at_tuner_opts to = {.seed = 1, .plan_size = 16, .sa_n_iter = 20, .sa_parallel_size = 16, .max_rounds = 60,
                        .min_seed_records = 1};
    at_tuner *tuner;
    assert_ok(at_tuner_new("xgb_knob", task, &to, &tuner));
    size_t used = 0;
    assert_ok(at_tuner_load_history(tuner, recs, n, &used));
    assert_int_equal(used, 40);
    at_tuner_free(tuner);

    at_tune_history_free(h);
    at_rec_log_free(log);
    at_result_fini(&r);
    at_config_free(c);
    at_task_free(mm);
    remove(path);
    at_task_free(other);
    at_task_free(task);
}

/* A runner measuring everything at 1 ms whose check rejects every other program it is shown, as
 * the OpenCL pool rejects one past the device's limits. */
/* Issue 18: a config that cannot instantiate is no trial. The runner's check rejects half the
 * proposals: 20 trials are 20 measured, logged, error-free records, the rejected configs are
 * never measured, no config is measured twice, and with measure_invalid (TVM's way) nothing is checked. */
static void configs_that_cannot_instantiate_should_cost_no_trial(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    char path[4200];
    snprintf(path, sizeof path, "%s/picky.log", at_test_tmpdir("tune"));
    remove(path);
    for (int tvm_way = 0; tvm_way < 2; tvm_way++) {
        at_fake_picky p = {.batch = 4};
        at_meas_runner *runner;
        assert_ok(at_fake_picky_runner_new(&p, &runner));
        at_tuner_opts to = {.seed = 7};
        at_tuner *tuner;
        assert_ok(at_tuner_new("random", task, &to, &tuner));
        at_rec_appender *app;
        assert_ok(at_rec_appender_open(path, &app));
        at_tune_opts o = {.n_trial = 20, .log = app, .measure_invalid = tvm_way};
        at_tune_result res;
        assert_ok(at_tune_task(task, tuner, runner, &o, &res));
        assert_ok(at_rec_appender_close(app));
        assert_int_equal(res.n_trials, 20);
        assert_int_equal(res.n_errors, 0);
        assert_int_equal(p.n_measured, 20);
        if (tvm_way) {
            assert_int_equal(p.n_checked, 0);
            assert_int_equal(res.n_invalid, 0);
        } else {
            assert_true(p.n_rejected >= 19); /* every other of at least 39 proposals */
            assert_int_equal(res.n_invalid, p.n_rejected);
        }
        at_rec_log *log;
        assert_ok(at_rec_log_load_file(path, &log));
        assert_int_equal(log->n, 20);
        for (size_t i = 0; i < log->n; i++) {
            assert_int_equal(log->recs[i].result.err, AT_MEAS_OK);
            assert_int_equal(at_config_index(log->recs[i].config), p.measured[i]);
            for (size_t j = 0; j < i; j++) /* never the same config twice */
                assert_true(at_config_index(log->recs[j].config) != at_config_index(log->recs[i].config));
        }
        at_rec_log_free(log);
        remove(path);
        at_tuner_free(tuner);
        at_meas_runner_free(runner);
    }
    at_task_free(task);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(progress_should_print_in_tvm_format),
        cmocka_unit_test(tune_should_measure_n_trial_configs_and_log_each_one),
        cmocka_unit_test(tune_should_stop_when_the_space_is_exhausted),
        cmocka_unit_test(batches_ahead_should_measure_what_batches_of_n_parallel_measure),
        cmocka_unit_test(tune_should_stop_early_by_tvms_rule),
        cmocka_unit_test(tune_should_warn_when_everything_fails),
        cmocka_unit_test(same_seed_should_write_the_same_log),
        cmocka_unit_test(history_should_keep_the_records_of_the_tasks_template),
        cmocka_unit_test(configs_that_cannot_instantiate_should_cost_no_trial),
    };
    if (getenv("AT_TEST_FILTER")) cmocka_set_test_filter(getenv("AT_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
