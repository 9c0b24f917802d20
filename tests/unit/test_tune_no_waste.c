/* e2e, issue 18 "no trial wasted": whichever tuner proposes it, a config that cannot instantiate
 * is never sent to the runner and never counts as a trial. A runner whose check rejects every
 * other program stands in for the device limits; every tuner of the names table tunes the fake
 * task past the xgb tuners' first refit, so their planned proposals are checked as well as
 * their random ones. The tuner is asked again until a batch holds n_parallel configs to measure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "records/log.h"
#include "tests/fakes/fake_runner.h"
#include "tests/fakes/fakes.h"
#include "tests/support/test_support.h"
#include "tune/tune.h"

enum { N_TRIAL = 72 };

static void every_tuner_should_send_only_configs_that_instantiate(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    char path[4200];
    snprintf(path, sizeof path, "%s/no_waste.log", at_test_tmpdir("tune_no_waste"));
    remove(path);
    size_t n_kinds = at_tuner_kind_count();
    assert_true(n_kinds >= 15);
    for (size_t kind = 0; kind < n_kinds; kind++) {
        const char *name = at_tuner_kind_at(kind)->name;
        at_fake_picky p = {.batch = 8, .fake_costs = true};
        at_meas_runner *runner;
        assert_ok(at_fake_picky_runner_new(&p, &runner));
        /* a short annealing: what is checked here is where proposals go, not how good they are */
        at_tuner_opts to = {.seed = 7, .sa_n_iter = 20, .sa_parallel_size = 16};
        at_tuner *tuner;
        assert_ok(at_tuner_new(name, task, &to, &tuner));
        at_rec_appender *app;
        assert_ok(at_rec_appender_open(path, &app));
        at_tune_opts o = {.n_trial = N_TRIAL, .log = app};
        at_tune_result res;
        assert_ok(at_tune_task(task, tuner, runner, &o, &res));
        assert_ok(at_rec_appender_close(app));
        print_message("%-24s %zu trials, %zu proposals could not instantiate\n", name, res.n_trials, res.n_invalid);
        assert_int_equal(res.n_trials, N_TRIAL);
        assert_int_equal(res.n_errors, 0);
        assert_int_equal(p.n_measured, N_TRIAL);
        assert_true(p.n_rejected >= N_TRIAL - 1); /* every other of at least 2 N - 1 proposals */
        assert_int_equal(res.n_invalid, p.n_rejected);
        /* rejected proposals take no builder slot: every batch is full (72 = 9 x 8), but for
         * ga's last batch of a generation (it breeds once every gene of one is scored) */
        if (strcmp(name, "ga") == 0) {
            assert_int_equal(p.n_calls, N_TRIAL / 8 + 1);
        } else {
            assert_int_equal(p.n_calls, N_TRIAL / 8);
            assert_int_equal(p.smallest_call, 8);
        }
        at_rec_log *log;
        assert_ok(at_rec_log_load_file(path, &log));
        assert_int_equal(log->n, N_TRIAL);
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
        cmocka_unit_test(every_tuner_should_send_only_configs_that_instantiate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
