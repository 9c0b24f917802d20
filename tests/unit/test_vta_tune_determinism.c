/* Tuning on the VTA simulator is deterministic: two runs of xgb_rank (refitting every 8 samples,
 * so XGBoost and simulated annealing plan most trials) and of random with the same seed, on
 * conv2d_packed.vta and on add.vta / multiply.vta, write the same records, field for field
 * except each record's host duration (result[2], all_cost) and wall-clock timestamp
 * (result[3]), which TVM also takes from the host clock; another seed gives other configs. Also
 * `autotvm tune-task --target vta` end to end, with the default and a custom hardware config. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "measure/vta_runner.h"
#include "records/log.h"
#include "records/record.h"
#include "tune/tune.h"
#include "tuners/tuner.h"

/* A small conv2d_packed: 32 -> 32 channels, 8x8, 3x3, stride 1, pad 1; space 1*4*4*2*2*4 = 256. */
#define ARGS "1,32,8,8,32,3,3,1,1"
/* A small packed add / multiply: 64 channels, 16x16, int32; space 3*5*5 = 75. */
#define ALU_ARGS "1,64,16,16"
#define N_TRIAL 24

/* Fits of the XGBoost cost model seen in the debug log (tuners/cost_model.c "XGB train: "). */
static size_t n_fits;

static void count_fits(at_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    if (!strncmp(msg, "XGB train: ", 11)) n_fits++;
}

/* Tunes template tmpl on args with tuner and seed, appending every record to path. */
static void tune_to_log(const char *tmpl, const char *args, const char *tuner_name, uint64_t seed, const char *path,
                        at_tune_result *res)
{
    at_task *task = NULL;
    at_tuner *tuner = NULL;
    at_meas_runner *runner = NULL;
    at_rec_appender *app = NULL;
    assert_ok(at_task_create(tmpl, AT_TARGET_VTA, args, &task));
    at_tuner_opts tu = {.seed = seed, .plan_size = 8};
    assert_ok(at_tuner_new(tuner_name, task, &tu, &tuner));
    at_measure_opts mo = {.check_correctness = true};
    assert_ok(at_meas_vta_runner_new(NULL, &mo, &runner));
    assert_ok(at_rec_appender_open(path, &app));
    at_tune_opts to = {.n_trial = N_TRIAL, .target_str = AT_MEAS_VTA_TARGET, .log = app};
    n_fits = 0;
    at_log_set_sink(count_fits, NULL);
    at_log_set_level(AT_LOG_DEBUG);
    assert_ok(at_tune_task(task, tuner, runner, &to, res));
    at_log_set_level(AT_LOG_INFO);
    at_log_set_sink(NULL, NULL);
    /* xgb: the model was fit (after 8 and 16 samples with valid ones), so it planned trials */
    if (!strncmp(tuner_name, "xgb", 3)) assert_true(n_fits >= 1);
    assert_ok(at_rec_appender_close(app));
    at_meas_runner_free(runner);
    at_tuner_free(tuner);
    at_task_free(task);
}

/* A log's records as lines with all_cost and timestamp zeroed (everything else as written). */
typedef struct masked {
    char  **lines;
    int64_t idx[N_TRIAL];
    size_t  n, n_ok;
} masked;

static void load_masked(const char *path, const char *want_tmpl, const char *want_target, masked *m)
{
    at_rec_log *log = NULL;
    assert_ok(at_rec_log_load_file(path, &log));
    assert_int_equal(log->stats.malformed, 0);
    assert_int_equal(log->n, N_TRIAL);
    m->n = log->n;
    m->n_ok = 0;
    m->lines = at_calloc(log->n, sizeof *m->lines);
    assert_non_null(m->lines);
    for (size_t i = 0; i < log->n; i++) {
        at_rec *r = &log->recs[i];
        assert_string_equal(r->target_str, want_target);
        assert_string_equal(r->task_name, want_tmpl);
        /* every config runs bit-exact, does not fit the hardware, or breaks a runtime rule */
        if (!(r->result.err == AT_MEAS_OK || r->result.err == AT_MEAS_INSTANTIATION_ERROR ||
              r->result.err == AT_MEAS_RUNTIME_DEVICE))
            fail_msg("%s:%zu: error %d", path, r->line, (int)r->result.err);
        if (r->result.err == AT_MEAS_OK) {
            m->n_ok++;
            assert_int_equal(r->result.n_costs, 1);
            assert_true(r->result.costs_s[0] > 0);
        }
        m->idx[i] = at_config_index(r->config);
        r->result.all_cost_s = 0;
        r->result.timestamp = 0;
        r->result.all_cost_is_int = false;
        r->timestamp_is_int = false;
        m->lines[i] = at_rec_to_line(r);
        assert_non_null(m->lines[i]);
    }
    at_rec_log_free(log);
}

static void masked_fini(masked *m)
{
    for (size_t i = 0; i < m->n; i++) at_free(m->lines[i]);
    at_free(m->lines);
}

static void same_seed_same_records(const char *tmpl, const char *args, const char *tuner)
{
    const char *dir = at_test_tmpdir(tuner);
    char a[512], b[512], c[512];
    snprintf(a, sizeof a, "%s/a.log", dir);
    snprintf(b, sizeof b, "%s/b.log", dir);
    snprintf(c, sizeof c, "%s/c.log", dir);
    at_tune_result ra, rb, rc;
    tune_to_log(tmpl, args, tuner, 7, a, &ra);
    tune_to_log(tmpl, args, tuner, 7, b, &rb);
    tune_to_log(tmpl, args, tuner, 8, c, &rc);
    masked ma, mb, mc;
    load_masked(a, tmpl, AT_MEAS_VTA_TARGET, &ma);
    load_masked(b, tmpl, AT_MEAS_VTA_TARGET, &mb);
    load_masked(c, tmpl, AT_MEAS_VTA_TARGET, &mc);
    assert_true(ma.n_ok >= 4); /* enough valid configs for the model to learn from */
    for (size_t i = 0; i < ma.n; i++) assert_string_equal(ma.lines[i], mb.lines[i]);
    assert_int_equal(ra.best_index, rb.best_index);
    assert_true(ra.best_flops == rb.best_flops);
    assert_int_equal(ra.n_errors, rb.n_errors);
    size_t same_idx = 0, same_line = 0;
    for (size_t i = 0; i < ma.n; i++) {
        same_idx += ma.idx[i] == mc.idx[i];
        same_line += !strcmp(ma.lines[i], mc.lines[i]);
    }
    assert_true(same_idx < ma.n / 2);
    assert_int_equal(same_line, same_idx); /* the masked lines still tell configs apart */
    masked_fini(&ma);
    masked_fini(&mb);
    masked_fini(&mc);
}

static void test_xgb_rank_deterministic(void **state)
{
    (void)state;
    same_seed_same_records("conv2d_packed.vta", ARGS, "xgb_rank");
}

static void test_random_deterministic(void **state)
{
    (void)state;
    same_seed_same_records("conv2d_packed.vta", ARGS, "random");
}

static void test_alu_deterministic(void **state)
{
    (void)state;
    same_seed_same_records("add.vta", ALU_ARGS, "xgb_rank");
    same_seed_same_records("multiply.vta", ALU_ARGS, "random");
}

/* The CLI twice with the same seed, then with a hardware config of a smaller weight buffer:
 * the log names its model. */
static void test_cli_tune_task_vta(void **state)
{
    (void)state;
    if (!getenv("AT_AUTOTVM")) skip();
    const char *dir = at_test_tmpdir("vta_cli");
    char logs[2][512], cfg_log[512];
    char *out = NULL, *err = NULL;
    for (int k = 0; k < 2; k++) {
        snprintf(logs[k], sizeof logs[k], "%s/run%d.log", dir, k);
        const char *argv[] = {"tune-task", "conv2d_packed.vta", "--target", "vta", "--args", ARGS, "--tuner",
                              "xgb_rank", "--n-trial", "24", "--plan-size", "8", "--seed", "3", "--log", logs[k],
                              NULL};
        pid_t pid = at_test_cli_start(dir, argv);
        assert_int_equal(at_test_cli_finish(dir, pid, &out, &err), 0);
        assert_non_null(strstr(out, "[Task  1/ 1]  Current/Best: "));
        assert_non_null(strstr(out, "| Progress: (24/24) | "));
        assert_non_null(strstr(err, "autotvm: best of 24 trials: config "));
    }
    masked m0, m1;
    load_masked(logs[0], "conv2d_packed.vta", AT_MEAS_VTA_TARGET, &m0);
    load_masked(logs[1], "conv2d_packed.vta", AT_MEAS_VTA_TARGET, &m1);
    for (size_t i = 0; i < m0.n; i++) assert_string_equal(m0.lines[i], m1.lines[i]);
    masked_fini(&m0);
    masked_fini(&m1);

    snprintf(cfg_log, sizeof cfg_log, "%s/cfg.log", dir);
    const char *json = "{\"TARGET\": \"sim\", \"HW_VER\": \"0.0.2\", \"LOG_INP_WIDTH\": 3, \"LOG_WGT_WIDTH\": 3, "
                       "\"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0, \"LOG_BLOCK\": 4, \"LOG_UOP_BUFF_SIZE\": 15, "
                       "\"LOG_INP_BUFF_SIZE\": 15, \"LOG_WGT_BUFF_SIZE\": 17, \"LOG_ACC_BUFF_SIZE\": 17}";
    const char *argv[] = {"tune-task", "conv2d_packed.vta", "--target", "vta", "--vta-config", json, "--args", ARGS,
                          "--tuner", "random", "--n-trial", "24", "--log", cfg_log, NULL};
    pid_t pid = at_test_cli_start(dir, argv);
    assert_int_equal(at_test_cli_finish(dir, pid, &out, &err), 0);
    masked mc;
    load_masked(cfg_log, "conv2d_packed.vta", "ext_dev -device=vta -keys=cpu -model=sim_1x16_i8w8a32_15_15_17_17", &mc);
    masked_fini(&mc);

    /* OpenCL-only measurement options are refused with --target vta */
    const char *bad[] = {"tune-task", "conv2d_packed.vta", "--target", "vta", "--args", ARGS, "--tuner", "random",
                         "--n-trial", "4", "--log", cfg_log, "--repeat", "3", NULL};
    pid = at_test_cli_start(dir, bad);
    assert_int_equal(at_test_cli_finish(dir, pid, &out, &err), 2);
    assert_non_null(strstr(err, "--repeat sets OpenCL measurement"));
    at_free(out);
    at_free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xgb_rank_deterministic),
        cmocka_unit_test(test_random_deterministic),
        cmocka_unit_test(test_alu_deterministic),
        cmocka_unit_test(test_cli_tune_task_vta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
