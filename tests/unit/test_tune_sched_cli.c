/* e2e: `autotvm tune NETWORK --total-trials N` on the default OpenCL device (PoCL): vgg-16's three
 * dense tasks at 32x32 share 12 trials in rounds of 2 -- the [ Task Scheduler ] table before every
 * round, warm-up rounds in task order, the table's trial counts equal to the records in FILE.tmp
 * -- and a run interrupted with SIGINT (Ctrl-C) leaves a tmp log that checks, from which
 * --resume finishes the 12 trials without measuring a config twice. */
#include "tests/support/test_support.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "records/log.h"

static at_test_cli cli;

static int setup(void **state)
{
    (void)state;
    at_test_cli_open(&cli, "tune_sched_cli");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_test_cli_close(&cli);
    return 0;
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++) n++;
    return n;
}

/* The records per workload in order of first appearance (at most 8), checked distinct configs;
 * returns the number of workloads. */
static size_t per_workload(const at_rec_log *l, size_t counts[8], const char *keys[8])
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const at_rec *a = &l->recs[i];
        for (size_t j = 0; j < i; j++) {
            const at_rec *b = &l->recs[j];
            bool same = !strcmp(a->args_json, b->args_json) && at_config_index(a->config) == at_config_index(b->config);
            if (same) print_error("measured twice: lines %zu and %zu\n", b->line, a->line);
            assert_false(same);
        }
        size_t k = 0;
        while (k < n && strcmp(keys[k], a->args_json)) k++;
        if (k == n) {
            assert_true(n < 8);
            keys[n] = a->args_json;
            counts[n++] = 0;
        }
        counts[k]++;
    }
    return n;
}

/* The Trials column of row id of the last table in text. */
static size_t table_trials(const char *text, size_t id)
{
    char row[16];
    snprintf(row, sizeof row, "| %4zu | ", id);
    const char *p = NULL;
    for (const char *q = text; (q = strstr(q, row)) != NULL; q++) p = q;
    assert_non_null(p);
    const char *bar = p;
    for (int k = 0; k < 3; k++) bar = strchr(bar + 1, '|'); /* the bar before the Trials cell */
    assert_non_null(bar);
    return (size_t)strtoul(bar + 1, NULL, 10);
}

#define ARGS(log, parallel)                                                                                      \
    "tune", "vgg-16", "--target", "mali", "--tuner", "random", "--total-trials", "12", "--trials-per-round", "2", \
        "--ops", "dense", "--image-shape", "3,32,32", "--num-classes", "10", "--seed", "5", "--log", log,          \
        "--keep-tmp", "--no-evaluate", "--cache-dir", cli.cache, "--number", "1", "--repeat", "1", "--cooldown-ms",  \
        "0", "--n-parallel", parallel

static void scheduler_should_split_the_trials_in_rounds_and_print_its_table(void **state)
{
    (void)state;
    char log[2300], tmp[2400];
    snprintf(log, sizeof log, "%s/sched.log", cli.work);
    snprintf(tmp, sizeof tmp, "%s.tmp", log);
    unlink(log);
    unlink(tmp);
    const char *args[] = {ARGS(log, "2"), NULL};
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    /* six rounds of 2 trials: a table before each, one at the end */
    assert_int_equal(count(cli.out, "------------------------------  [ Task Scheduler ]\n"), 7);
    assert_int_equal(count(cli.out, "|  ID  | Latency (ms) | Speed (GFLOPS) | Trials |\n"), 7);
    /* the warm-up goes in task order; nothing is known before it */
    const char *first = strstr(cli.out, "Estimated total latency: - ms\tTrials: 0\tUsed time : ");
    assert_non_null(first);
    assert_non_null(strstr(first, "s\tNext ID: 0\t\n"));
    assert_non_null(strstr(cli.out, "|    0 |            - |              - |      0 |\n"));
    assert_non_null(strstr(cli.out, "\tTrials: 2\tUsed time : "));
    assert_non_null(strstr(cli.out, "\tTrials: 4\tUsed time : "));
    const char *last = strstr(cli.out, "\tTrials: 12\tUsed time : ");
    assert_non_null(last);
    assert_null(strstr(last, "Next ID")); /* the final table names no next task */
    assert_non_null(strstr(cli.err, "12 configs measured, 0 resumed; 3 records in"));

    at_rec_log *l;
    assert_ok(at_rec_log_load_file(tmp, &l));
    assert_int_equal(l->n, 12);
    size_t counts[8];
    const char *keys[8];
    assert_int_equal(per_workload(l, counts, keys), 3);
    /* warm-up rounds: records 0-1, 2-3, 4-5 are tasks 0, 1, 2 */
    for (size_t i = 0; i < 6; i++) assert_string_equal(l->recs[i].args_json, keys[i / 2]);
    for (size_t i = 0; i < 3; i++) assert_int_equal(table_trials(cli.out, i), counts[i]);
    at_rec_log_free(l);
    assert_ok(at_rec_log_load_file(log, &l));
    assert_int_equal(l->n, 3);
    at_rec_log_free(l);
}

static void interrupted_scheduler_should_leave_a_log_and_resume_to_n_trials(void **state)
{
    (void)state;
    char log[2300], tmp[2400];
    snprintf(log, sizeof log, "%s/int.log", cli.work);
    snprintf(tmp, sizeof tmp, "%s.tmp", log);
    unlink(log);
    unlink(tmp);
    const char *args[] = {ARGS(log, "1"), NULL, NULL};
    pid_t pid = at_test_cli_start(cli.work, args);
    struct timespec ts = {0, 20 * 1000 * 1000};
    size_t n = 0;
    for (int i = 0; i < 2500 && (n = at_test_count_lines(tmp)) < 3; i++) nanosleep(&ts, NULL);
    assert_true(n >= 3);
    assert_int_equal(kill(-pid, SIGINT), 0); /* Ctrl-C reaches the whole process group */
    assert_int_equal(at_test_cli_finish(cli.work, pid, &cli.out, &cli.err), 128 + SIGINT);
    assert_int_equal(access(log, F_OK), -1); /* no pick-best happened */
    at_rec_log *before;
    assert_ok(at_rec_log_load_file(tmp, &before));
    size_t counts[8];
    const char *keys[8];
    per_workload(before, counts, keys);
    size_t n_before = before->n;
    assert_true(n_before >= 3 && n_before < 12);
    assert_int_equal(before->stats.malformed, 0);
    /* what it left checks and picks like any log */
    const char *check[] = {"records", "check", tmp, NULL};
    assert_int_equal(at_test_cli_run(&cli, check), 0);

    args[sizeof args / sizeof args[0] - 2] = "--resume";
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    char resumed[64];
    snprintf(resumed, sizeof resumed, "\tTrials: %zu\tUsed time : ", n_before);
    const char *first = strstr(cli.out, "Estimated total latency: ");
    assert_non_null(first);
    assert_ptr_equal(strstr(cli.out, resumed), strstr(first, "\tTrials: ")); /* the first table */
    assert_non_null(strstr(cli.out, "\tTrials: 12\tUsed time : "));
    at_rec_log *after;
    assert_ok(at_rec_log_load_file(tmp, &after));
    assert_int_equal(after->n, 12);
    assert_int_equal(per_workload(after, counts, keys), 3);
    for (size_t i = 0; i < n_before; i++) assert_string_equal(before->recs[i].text, after->recs[i].text);
    for (size_t i = 0; i < 3; i++) assert_int_equal(table_trials(cli.out, i), counts[i]);
    at_rec_log_free(after);
    at_rec_log_free(before);
    at_rec_log *final;
    assert_ok(at_rec_log_load_file(log, &final));
    assert_int_equal(final->n, 3);
    at_rec_log_free(final);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scheduler_should_split_the_trials_in_rounds_and_print_its_table),
        cmocka_unit_test(interrupted_scheduler_should_leave_a_log_and_resume_to_n_trials),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
