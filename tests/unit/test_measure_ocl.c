/* measure/'s OpenCL pool on a real device (PoCL here): testing/matmul configs across the space
 * build, run, verify and time; the fault cases of issue 3 (a kernel that never ends ->
 * RUN_TIMEOUT and the next trial succeeds, a compile error -> COMPILE_DEVICE with the log, a
 * work-group over the limit -> INSTANTIATION_ERROR without a compile, a worker killed by SIGKILL
 * -> one failed trial), results never landing on the wrong config, build timeouts, a worker
 * killed from outside, the cooldown between runs across calls, the refusal to fork after this
 * process used OpenCL itself, and preparation kernels left out of tuning runs. */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "measure/ocl.h"
#include "tests/support/test_measure_support.h"
#include "tests/support/test_support.h"

#include "tests/fakes/fault_template.h"

/* the fault template's modes (tests/fakes/fault_template.h) */
enum {
    OK_MODE = AT_FAULT_OK,
    WRONG = AT_FAULT_WRONG,
    NO_COMPILE = AT_FAULT_NO_COMPILE,
    CRASH = AT_FAULT_CRASH,
    TOO_BIG = AT_FAULT_TOO_BIG,
    FOREVER = AT_FAULT_FOREVER,
    SLOW_BUILD = AT_FAULT_SLOW_BUILD,
    N_MODES = AT_FAULT_N_MODES
};
#define fault_tmpl at_fake_fault_tmpl
static const at_template *const extra[] = {&fault_tmpl};
#define llvm_tmpl at_fake_fault_tmpl_llvm

/* ---- fixtures ------------------------------------------------------------------------------- */

static char cache_dir[4096];
static at_meas_ocl *pool;

static at_measure_opts opts(void)
{
    return (at_measure_opts){.number = 2, .repeat = 3, .timeout_ms = 4000, .build_timeout_ms = 30000, .cooldown_ms = -1,
                             .n_parallel = 2, .check_correctness = true, .device = getenv("AT_TEST_DEVICE"),
                             .cache_dir = cache_dir, .extra_templates = extra, .n_extra_templates = 1};
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(cache_dir, sizeof cache_dir, "%s", at_test_pocl_cache_dir());
    at_measure_opts o = opts();
    return at_test_pool_open(at_meas_ocl_new, &o, &pool);
}

static int group_teardown(void **state)
{
    (void)state;
    at_meas_ocl_free(pool);
    return 0;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void matmul_configs_across_the_space_should_run_and_verify(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "24,16,32", &t));
    assert_int_equal(at_space_len(at_task_space(t)), 8 * 6);
    /* both corners of the space and a spread between them */
    const int64_t idx[8] = {0, 47, 7, 40, 13, 22, 29, 35};
    at_result res[8];
    at_test_measure_configs(pool, t, idx, 8, res);
    size_t n;
    const at_meas_times *times = at_meas_ocl_last_times(pool, &n);
    assert_int_equal(n, 8);
    for (size_t i = 0; i < 8; i++) {
        at_test_expect_result(&res[i], AT_MEAS_OK, NULL, i);
        assert_true(times[i].compiled);
        assert_int_equal(times[i].kernels_built, 1);
        assert_true(times[i].total_s >= times[i].run_s);
        if (i) assert_true(res[i].timestamp >= res[i - 1].timestamp);
        at_result_fini(&res[i]);
    }
    at_task_free(t);
}

/* The spatial pack's weight packing is a preparation kernel: TVM tunes with packed weights as an
 * input, so a tuning run (no correctness check) neither builds nor times it, while a checked
 * run builds and runs the whole program to compare its output. */
static void a_tuning_run_should_not_build_preparation_kernels(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("conv2d_nchw_spatial_pack.mali", AT_TARGET_OPENCL, "1,8,10,10,8,3,3,1,1", &t));
    int64_t idx = -1;
    size_t n_kernels = 0, n_prepare = 0;
    for (int64_t i = 0; idx < 0 && i < at_space_len(at_task_space(t)); i++) {
        at_config *c;
        at_arena *arena;
        const at_ir_program *p;
        assert_ok(at_task_config(t, i, &c));
        assert_ok(at_arena_new(0, &arena));
        if (at_task_instantiate(t, c, arena, &p) == AT_OK) {
            idx = i;
            n_kernels = p->n_kernels;
            for (size_t k = 0; k < p->n_kernels; k++) n_prepare += p->kernels[k].prepare;
        }
        at_arena_free(arena);
        at_config_free(c);
    }
    assert_true(idx >= 0);
    assert_int_equal(n_prepare, 1);
    at_measure_opts o = opts();
    o.check_correctness = false;
    at_meas_ocl *tuning;
    assert_int_equal(at_test_pool_open(at_meas_ocl_new, &o, &tuning), 0);
    at_meas_ocl *const pools[2] = {pool, tuning};
    const size_t expected[2] = {n_kernels, n_kernels - n_prepare};
    for (size_t k = 0; k < 2; k++) {
        at_result res;
        at_test_measure_configs(pools[k], t, &idx, 1, &res);
        at_test_expect_result(&res, AT_MEAS_OK, NULL, 0);
        size_t n;
        const at_meas_times *times = at_meas_ocl_last_times(pools[k], &n);
        assert_int_equal(n, 1);
        assert_int_equal(times[0].kernels_built, expected[k]);
        at_result_fini(&res);
    }
    at_meas_ocl_free(tuning);
    at_task_free(t);
}

static void faults_should_cost_one_trial_each_and_land_on_their_configs(void **state)
{
    (void)state;
    at_task *t;
    at_args a = {.op = AT_OP_MATMUL, .u.matmul = {64, 64, 64, AT_IR_F32}};
    assert_ok(at_task_new(&fault_tmpl, &a, &t));
    /* index = mode + 7 * work_entity */
    const int64_t idx[8] = {OK_MODE, WRONG, NO_COMPILE, CRASH, TOO_BIG, OK_MODE + 7, FOREVER, OK_MODE};
    at_meas_ocl_stats before, after;
    at_meas_ocl_stats_get(pool, &before);
    at_result res[8];
    at_test_measure_configs(pool, t, idx, 8, res);
    at_meas_ocl_stats_get(pool, &after);
    size_t n;
    const at_meas_times *times = at_meas_ocl_last_times(pool, &n);
    assert_int_equal(n, 8);
    at_test_expect_result(&res[0], AT_MEAS_OK, NULL, 0);
    at_test_expect_result(&res[1], AT_MEAS_WRONG_ANSWER, "output C differs from the reference: max error 1", 1);
    at_test_expect_result(&res[2], AT_MEAS_COMPILE_DEVICE, "no_such_function", 2);
    assert_non_null(strstr(res[2].msg, "clBuildProgram"));
    at_test_expect_result(&res[3], AT_MEAS_RUNTIME_DEVICE, "killed by signal 9", 3);
    at_test_expect_result(&res[4], AT_MEAS_INSTANTIATION_ERROR,
                          "Skipped because of invalid gpu kernel: kernel too_big: work-group of 8192", 4);
    assert_false(times[4].compiled); /* rejected before any compile */
    at_test_expect_fault_tail(res, 5, 4); /* work 32, a 4 s timeout, the trial after it */
    assert_int_equal(after.n_worker_losses - before.n_worker_losses, 2);
    assert_int_equal(after.n_trials - before.n_trials, 8);
    /* compiled: everything but the crash (before compiling) and the work-group (rejected) */
    assert_int_equal(after.n_compiles - before.n_compiles, 6);
    for (size_t i = 0; i < 8; i++) at_result_fini(&res[i]);
    at_task_free(t);
}

static void a_worker_killed_from_outside_should_be_replaced(void **state)
{
    (void)state;
    /* lost workers were restarted right after the previous batch */
    long pid = at_meas_ocl_worker_pid(pool, 0);
    assert_true(pid > 0);
    assert_true(at_meas_ocl_worker_pid(pool, 1) > 0);
    assert_int_equal(kill((pid_t)pid, SIGKILL), 0);
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "16,16,16", &t));
    const int64_t idx[3] = {0, 10, 20};
    at_meas_ocl_stats before, after;
    at_meas_ocl_stats_get(pool, &before);
    at_result res[3];
    at_test_measure_configs(pool, t, idx, 3, res);
    at_meas_ocl_stats_get(pool, &after);
    /* the dead worker is either restarted before the batch or found dead by it (one trial) */
    size_t n_ok = 0;
    for (size_t i = 0; i < 3; i++) {
        if (res[i].err == AT_MEAS_OK) n_ok++;
        else at_test_expect_result(&res[i], AT_MEAS_RUNTIME_DEVICE, "worker process", i);
        at_result_fini(&res[i]);
    }
    assert_true(n_ok >= 2);
    assert_true(after.n_worker_starts > before.n_worker_starts || n_ok == 2);
    assert_true(at_meas_ocl_worker_pid(pool, 0) != pid);
    at_task_free(t);
}

static void a_slow_build_should_time_out_as_build_timeout(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    o.n_parallel = 1;
    o.build_timeout_ms = 3000;
    at_meas_ocl *m;
    assert_ok(at_meas_ocl_new(&o, &m));
    at_task *t;
    /* the faults test compiled OK_MODE at this size: a warm kernel cache keeps the second
     * build far inside 3 s even in a fresh process on a loaded machine */
    at_args a = {.op = AT_OP_MATMUL, .u.matmul = {64, 64, 64, AT_IR_F32}};
    assert_ok(at_task_new(&fault_tmpl, &a, &t));
    const int64_t idx[2] = {SLOW_BUILD, OK_MODE};
    at_result res[2];
    at_test_measure_configs(m, t, idx, 2, res);
    at_test_expect_result(&res[0], AT_MEAS_BUILD_TIMEOUT, "build exceeded the 3 s timeout", 0);
    assert_true(res[0].all_cost_s == 3.0 && res[0].all_cost_is_int);
    at_test_expect_result(&res[1], AT_MEAS_OK, NULL, 1);
    at_result_fini(&res[0]);
    at_result_fini(&res[1]);
    at_task_free(t);
    at_meas_ocl_free(m);
}

static void an_unknown_device_should_fail_the_pool(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    o.device = "no-such-device-anywhere";
    o.n_parallel = 1;
    at_meas_ocl *m = NULL;
    assert_int_equal(at_meas_ocl_new(&o, &m), AT_ENOTFOUND);
    assert_null(m);
    assert_non_null(strstr(at_last_error(), "no OpenCL device matches 'no-such-device-anywhere'"));
}

static void the_runner_interface_should_measure_through_the_pool(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    o.n_parallel = 1;
    at_meas_runner *r;
    assert_ok(at_meas_ocl_runner_new(&o, &r));
    assert_string_equal(at_meas_runner_name(r), "opencl");
    assert_int_equal(at_meas_runner_batch_size(r), 1);
    assert_int_equal(at_meas_runner_batch_ahead(r), 64); /* inputs known ahead: builds overlap runs */
    assert_non_null(at_meas_ocl_of(r));
    assert_true(at_meas_ocl_device(at_meas_ocl_of(r))->max_work_group_size >= 1);
    at_task *t, *other;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "8,8,8", &t));
    at_args a = {.op = AT_OP_MATMUL, .u.matmul = {8, 8, 8, AT_IR_F32}};
    assert_ok(at_task_new(&llvm_tmpl, &a, &other));
    at_config *c, *c2;
    assert_ok(at_task_config(t, 15, &c));
    assert_ok(at_task_config(other, 0, &c2));
    at_meas_input in[3] = {{other, c2}, {t, c}, {other, c2}};
    at_result res[3];
    for (int i = 0; i < 3; i++) at_result_init(&res[i]);
    assert_ok(at_meas_runner_measure(r, in, 3, res));
    at_test_expect_result(&res[1], AT_MEAS_OK, NULL, 1);
    for (int i = 0; i < 3; i += 2) {
        assert_int_equal(res[i].err, AT_MEAS_COMPILE_HOST);
        assert_non_null(strstr(res[i].msg, "the OpenCL runner cannot measure llvm templates (testing/fault)"));
    }
    for (int i = 0; i < 3; i++) at_result_fini(&res[i]);
    at_config_free(c);
    at_config_free(c2);
    at_task_free(t);
    at_task_free(other);
    at_meas_runner_free(r);
}

/* The cooldown is a quiet time before every run, however the calls fall: the last run of a call
 * keeps the next call's first run waiting (its builds go on meanwhile), and the pool's time
 * accounts add up. Timestamps are when each run ended, so consecutive ones lie at least a
 * cooldown apart however slow the machine. */
static void the_cooldown_should_separate_runs_across_measure_calls(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    o.cooldown_ms = 1000; /* longer than the second call's builds, which hit PoCL's kernel cache */
    at_meas_ocl *m;
    assert_ok(at_meas_ocl_new(&o, &m));
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "16,16,16", &t));
    const int64_t idx[2] = {3, 12};
    at_result a[2], b[2];
    at_test_measure_configs(m, t, idx, 2, a);
    at_test_measure_configs(m, t, idx, 2, b);
    /* a call runs its programs as they are built, so a[1] may run before a[0] */
    double ts[4] = {a[0].timestamp, a[1].timestamp, b[0].timestamp, b[1].timestamp};
    at_test_expect_result(&a[0], AT_MEAS_OK, NULL, 0);
    at_test_expect_result(&a[1], AT_MEAS_OK, NULL, 1);
    at_test_expect_result(&b[0], AT_MEAS_OK, NULL, 2);
    at_test_expect_result(&b[1], AT_MEAS_OK, NULL, 3);
    assert_true(fmax(a[0].timestamp, a[1].timestamp) < fmin(b[0].timestamp, b[1].timestamp)); /* call after call */
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < i; j++) assert_true(fabs(ts[i] - ts[j]) >= 1.0 - 1e-3);
    at_meas_ocl_stats s;
    at_meas_ocl_stats_get(m, &s);
    assert_int_equal(s.n_trials, 4);
    assert_true(s.build_phase_s > 0 && s.run_phase_s > 0 && s.cooldown_s > 0 && s.barrier_s >= 0);
    assert_true(s.measure_s >= s.build_phase_s + s.run_phase_s + s.cooldown_s - 1e-6);
    for (size_t i = 0; i < 2; i++) {
        at_result_fini(&a[i]);
        at_result_fini(&b[i]);
    }
    at_task_free(t);
    at_meas_ocl_free(m);
}

/* A worker builds its next input while other programs run, and is paused (SIGSTOP to its process
 * group) during each run: with 2 workers and 6 inputs, the worker that ran the first program takes the third input
 * at once and is paused while the second runs. Every result lands on its input, and the runner
 * asks for longer calls when the inputs are known ahead. */
static void builds_should_go_on_between_runs_and_pause_during_them(void **state)
{
    (void)state;
    at_meas_ocl_stats before, after;
    at_meas_ocl_stats_get(pool, &before);
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "24,16,32", &t));
    const int64_t idx[6] = {0, 5, 9, 14, 20, 27};
    at_result res[6];
    at_test_measure_configs(pool, t, idx, 6, res);
    for (size_t i = 0; i < 6; i++) {
        at_test_expect_result(&res[i], AT_MEAS_OK, NULL, i);
        at_result_fini(&res[i]);
    }
    at_meas_ocl_stats_get(pool, &after);
    assert_int_equal(after.n_trials - before.n_trials, 6);
    assert_true(after.n_pauses > before.n_pauses);
    for (size_t i = 0; i < at_meas_ocl_n_workers(pool); i++) { /* none left stopped */
        /* each worker leads a process group, so a pause stops PoCL's linker processes with it */
        assert_int_equal(getpgid((pid_t)at_meas_ocl_worker_pid(pool, i)), (pid_t)at_meas_ocl_worker_pid(pool, i));
        char path[64], stat[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", at_meas_ocl_worker_pid(pool, i));
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        assert_non_null(fgets(stat, sizeof stat, f));
        fclose(f);
        const char *st = strrchr(stat, ')');
        assert_non_null(st);
        assert_true(st[2] != 'T');
    }
    at_task_free(t);
}

/* Last: after this the process has used OpenCL and may not fork workers any more. */
static void a_process_that_used_opencl_should_not_start_workers(void **state)
{
    (void)state;
    at_ocl_device_info *devs;
    size_t n;
    assert_ok(at_ocl_runtime_init(cache_dir));
    assert_ok(at_ocl_devices(&devs, &n));
    at_free(devs);
    assert_true(at_ocl_touched());
    at_measure_opts o = opts();
    o.n_parallel = 1;
    at_meas_ocl *m = NULL;
    assert_int_equal(at_meas_ocl_new(&o, &m), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "already used OpenCL"));
    assert_null(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matmul_configs_across_the_space_should_run_and_verify),
        cmocka_unit_test(a_tuning_run_should_not_build_preparation_kernels),
        cmocka_unit_test(faults_should_cost_one_trial_each_and_land_on_their_configs),
        cmocka_unit_test(a_worker_killed_from_outside_should_be_replaced),
        cmocka_unit_test(a_slow_build_should_time_out_as_build_timeout),
        cmocka_unit_test(an_unknown_device_should_fail_the_pool),
        cmocka_unit_test(the_runner_interface_should_measure_through_the_pool),
        cmocka_unit_test(the_cooldown_should_separate_runs_across_measure_calls),
        cmocka_unit_test(builds_should_go_on_between_runs_and_pause_during_them),
        cmocka_unit_test(a_process_that_used_opencl_should_not_start_workers),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
