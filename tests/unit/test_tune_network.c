/* e2e: `autotvm tune NETWORK` on the default OpenCL device (PoCL): a tiny resnet-18 tuning run
 * whose log `records check` accepts and whose evaluation matches the reference executor, then
 * `evaluate` alone; and the interrupt test: the tune process is killed (SIGKILL) once some
 * records are in FILE.tmp, `--resume` finishes the run, and no (workload, config index) is
 * measured twice. */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "networks/net.h"
#include "records/log.h"
#include "records/record.h"

static char tophub[4200];
static at_test_cli cli;

/* Starts autotvm with args in its own process group; stdout/stderr go to files in cli.work. */
static pid_t start(const char *const *args)
{
    return at_test_cli_start(cli.work, args);
}

static int finish(pid_t pid)
{
    return at_test_cli_finish(cli.work, pid, &cli.out, &cli.err);
}

static int setup(void **state)
{
    (void)state;
    at_test_cli_open(&cli, "tune_network");
    snprintf(tophub, sizeof tophub, "%s", at_test_shared_path("data/tophub"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_test_cli_close(&cli);
    return 0;
}

static void tune_should_write_a_valid_log_and_evaluate_it(void **state)
{
    (void)state;
    char log[2300], tmp[2400];
    snprintf(log, sizeof log, "%s/resnet.log", cli.work);
    snprintf(tmp, sizeof tmp, "%s.tmp", log);
    unlink(log);
    /* a stale tmp log from another run is removed at the start when asked (--overwrite; without
     * it or --resume the run is refused, issue 19) */
    at_test_write_file(tmp, "garbage\n");
    /* the evaluation that ends tune reads its input from a .npy file and saves its output */
    char in_npy[4200], tuned_npy[4200], eval_npy[4200];
    snprintf(in_npy, sizeof in_npy, "%s/in.npy", cli.work);
    snprintf(tuned_npy, sizeof tuned_npy, "%s/tuned.npy", cli.work);
    snprintf(eval_npy, sizeof eval_npy, "%s/eval.npy", cli.work);
    float x[3 * 32 * 32];
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    const int64_t x_dims[4] = {1, 3, 32, 32};
    assert_ok(at_net_npy_write(in_npy, x, x_dims, 4));
    const char *args[] = {"tune", "resnet-18", "--target", "mali", "--tuner", "random", "--n-trial", "3", "--ops",
                          "dense", "--overwrite", "--image-shape", "3,32,32", "--num-classes", "10", "--seed", "3", "--log", log,
                          "--tophub-dir", tophub, "--cache-dir", cli.cache, "--number", "1", "--repeat", "1",
                          "--cooldown-ms", "0", "--n-parallel", "2", "--eval-repeat", "3", "--input", in_npy,
                          "--save-output", tuned_npy, NULL};
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    const char *lines[] = {"Extract tasks...\n", "Tuning...\n", "[Task  1/ 1] ", "Progress: (3/3)", " Done.\n",
                           "tophub: mali_v0.06 (528 records)\n", "Compile...\n", "Evaluate inference time cost...\n",
                           "Mean inference time (std dev): ", "Output check: matches the reference executor"};
    const char *at = cli.out;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *p = strstr(at, lines[i]);
        if (!p) print_error("missing in order: '%s' in\n%s\n", lines[i], cli.out);
        assert_non_null(p);
        at = p;
    }
    assert_int_equal(access(tmp, F_OK), -1); /* removed after pick-best */
    at_rec_log *l;
    assert_ok(at_rec_log_load_file(log, &l));
    assert_int_equal(l->n, 1); /* pick-best: one dense workload */
    assert_string_equal(l->recs[0].task_name, "dense.mali");
    assert_int_equal(l->recs[0].result.err, 0);
    long long dense_index = (long long)at_config_index(l->recs[0].config);
    at_rec_log_free(l);
    /* every record maps back onto its space */
    const char *check[] = {"records", "check", log, NULL};
    assert_int_equal(at_test_cli_run(&cli, check), 0);
    /* evaluate alone: the log's dense record is used, TopHub answers the convs */
    const char *eval[] = {"evaluate", "resnet-18", "--target", "mali", "--log", log, "--image-shape", "3,32,32",
                          "--num-classes", "10", "--seed", "3", "--repeat", "2", "--check", "--tophub-dir", tophub,
                          "--cache-dir", cli.cache, "--profile", "--input", in_npy, "--save-output", eval_npy, NULL};
    assert_int_equal(at_test_cli_run(&cli, eval), 0);
    /* the same log, TopHub and input: tune's evaluation and evaluate's give the same output */
    float *a, *b;
    int64_t da[8], db[8];
    size_t ra, rb;
    assert_ok(at_net_npy_read(tuned_npy, &a, da, &ra));
    assert_ok(at_net_npy_read(eval_npy, &b, db, &rb));
    assert_int_equal(ra, 2);
    assert_int_equal(rb, 2);
    assert_int_equal(da[0] * da[1], 10);
    assert_memory_equal(a, b, 10 * sizeof(float));
    at_free(a);
    at_free(b);
    assert_non_null(strstr(cli.out, "Mean inference time (std dev): "));
    assert_non_null(strstr(cli.out, "Output check: matches the reference executor"));
    assert_non_null(strstr(cli.err, "dispatch: 1 tuned by the log"));
    assert_non_null(strstr(cli.err, "host overhead"));
    double shared_mb, own_mb;
    const char *mem = strstr(cli.err, "autotvm: memory: node values ");
    assert_non_null(mem);
    assert_int_equal(sscanf(mem, "autotvm: memory: node values %lf MB in shared buffers (%lf MB", &shared_mb, &own_mb), 2);
    assert_true(shared_mb > 0 && shared_mb < own_mb); /* storage planning shares node buffers */
    /* the per-layer table: the classifier runs the log's dense config, the stem a TopHub one */
    char row[128];
    snprintf(row, sizeof row, "dense.mali                         %9lld", dense_index);
    assert_non_null(strstr(cli.out, row));
    assert_non_null(strstr(cli.out, "conv2d_nchw_spatial_pack.mali"));
    assert_non_null(strstr(cli.out, "\ntotal "));
}

/* The workload + index key of every record of a log, checked distinct; returns the count. */
static size_t assert_distinct(const at_rec_log *l)
{
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = 0; j < i; j++) {
            const at_rec *a = &l->recs[i], *b = &l->recs[j];
            bool same = !strcmp(a->task_name, b->task_name) && !strcmp(a->args_json, b->args_json) &&
                        at_config_index(a->config) == at_config_index(b->config);
            if (same) print_error("measured twice: lines %zu and %zu\n", b->line, a->line);
            assert_false(same);
        }
    return l->n;
}

static void resume_should_never_measure_a_config_twice(void **state)
{
    (void)state;
    char log[2300], tmp[2400];
    snprintf(log, sizeof log, "%s/vgg.log", cli.work);
    snprintf(tmp, sizeof tmp, "%s.tmp", log);
    unlink(log);
    unlink(tmp);
    /* vgg-16's three dense tasks at 32x32, 3 trials each, one config per batch */
    const char *args[] = {"tune", "vgg-16", "--target", "mali", "--tuner", "ga", "--n-trial", "3", "--ops", "dense",
                          "--image-shape", "3,32,32", "--num-classes", "10", "--seed", "5", "--log", log,
                          "--keep-tmp", "--no-evaluate", "--cache-dir", cli.cache, "--number", "1", "--repeat", "1",
                          "--cooldown-ms", "0", "--n-parallel", "1", NULL, NULL};
    pid_t pid = start(args);
    /* kill once task 1 is done and task 2 has begun (4 records), or give up after 50 s */
    struct timespec ts = {0, 20 * 1000 * 1000};
    size_t n = 0;
    for (int i = 0; i < 2500 && (n = at_test_count_lines(tmp)) < 4; i++) nanosleep(&ts, NULL);
    assert_true(n >= 4);
    assert_int_equal(kill(-pid, SIGKILL), 0);
    int rc = finish(pid);
    assert_int_equal(rc, 128 + SIGKILL);
    at_rec_log *before;
    assert_ok(at_rec_log_load_file(tmp, &before));
    size_t n_before = assert_distinct(before);
    assert_true(n_before >= 4 && n_before < 9);

    args[sizeof args / sizeof args[0] - 2] = "--resume";
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    if (n_before >= 6) assert_non_null(strstr(cli.out, "already tuned: 3 trials in the tmp log"));
    assert_non_null(strstr(cli.err, "trials resumed from the tmp log"));
    at_rec_log *after;
    assert_ok(at_rec_log_load_file(tmp, &after));
    assert_int_equal(assert_distinct(after), 9); /* 3 tasks x 3 trials, none twice */
    for (size_t i = 0; i < n_before; i++) assert_string_equal(before->recs[i].text, after->recs[i].text);
    at_rec_log_free(after);
    at_rec_log_free(before);
    const char *check[] = {"records", "check", log, NULL};
    assert_int_equal(at_test_cli_run(&cli, check), 0);
    at_rec_log *final;
    assert_ok(at_rec_log_load_file(log, &final));
    assert_int_equal(final->n, 3);
    at_rec_log_free(final);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tune_should_write_a_valid_log_and_evaluate_it),
        cmocka_unit_test(resume_should_never_measure_a_config_twice),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
