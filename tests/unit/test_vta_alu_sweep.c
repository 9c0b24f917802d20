/* Every config of add.vta on resnet's (1,4,56,56,1,16) int32 (192), and of add.vta int8, add.vta
 * int32 + a packed bias and multiply.vta int32 on (1,4,28,28,1,16) (108 each) on the simulator:
 * each is bit-exact against the reference or an instantiation error, the errors are exactly the
 * configs TVM cannot build (accumulator overflow, 3-D DMA), and the best config's cycles and GOPS
 * are printed (the figures of the report); xgb_rank tuning of the first over the same space. */
#include "tests/support/test_support.h"

#include <string.h>

#include "measure/vta_runner.h"
#include "templates/template.h"
#include "tune/tune.h"
#include "tuners/tuner.h"

static uint64_t g_add_best_cycles; /* of add.vta (1,4,56,56,1,16) int32 over its whole space */

/* Runs every config of the task; returns the best cycle count. */
static uint64_t sweep(const char *name, const char *args, int64_t n_want)
{
    at_task *t = NULL;
    assert_ok(at_task_create(name, AT_TARGET_VTA, args, &t));
    int64_t n = at_space_len(at_task_space(t));
    assert_int_equal(n, n_want);
    const int64_t *shape = at_task_args(t)->u.alu_packed.lhs;
    uint64_t best = UINT64_MAX, worst = 0;
    int64_t best_i = -1, ok = 0, overflow = 0, not_2d = 0;
    for (int64_t i = 0; i < n; i++) {
        at_config *c = NULL;
        assert_ok(at_task_config(t, i, &c));
        int64_t co[2], h[2], w[2];
        at_config_split(c, 0, co, 2);
        at_config_split(c, 1, h, 2);
        at_config_split(c, 2, w, 2);
        bool bias = at_task_args(t)->u.alu_packed.rhs_ndim == 5; /* (C/16, 1, 1, 1, 16): a tile_co-block rhs tile */
        bool too_big = co[1] * h[1] * w[1] + (bias ? co[1] : co[1] * h[1] * w[1]) > 2048;
        bool three_d = co[1] > 1 && h[1] > 1 && h[1] < shape[2] && w[1] < shape[3];
        at_result r;
        at_result_init(&r);
        at_vta_stats s = {0};
        assert_ok(at_meas_vta_measure_one(NULL, t, c, true, 1 + (uint64_t)i, &r, &s));
        if (too_big || three_d) {
            assert_int_equal(r.err, AT_MEAS_INSTANTIATION_ERROR);
            overflow += too_big;
            not_2d += !too_big;
        } else {
            if (r.err != AT_MEAS_OK) fail_msg("config %lld: err %d %s", (long long)i, r.err, r.msg ? r.msg : "");
            ok++;
            if (s.cycles < best) best = s.cycles, best_i = i;
            if (s.cycles > worst) worst = s.cycles;
        }
        at_result_fini(&r);
        at_config_free(c);
    }
    at_config *c = NULL;
    assert_ok(at_task_config(t, best_i, &c));
    int64_t co[2], h[2], w[2];
    at_config_split(c, 0, co, 2);
    at_config_split(c, 1, h, 2);
    at_config_split(c, 2, w, 2);
    double sec = (double)best / 100e6;
    print_message("%s (%lld,%lld,%lld,%lld,1,16) %s%s: %lld ok, %lld over the accumulator, %lld no 2-D DMA; best idx %lld "
                  "tile_co [%lld,%lld] tile_h [%lld,%lld] tile_w [%lld,%lld]: %llu cycles = %.1f us at 100 MHz, "
                  "%.3f GOPS (task FLOPs %.0f); worst %llu cycles\n",
                  name, (long long)shape[0], (long long)shape[1], (long long)shape[2], (long long)shape[3],
                  strstr(args, "int8") ? "int8" : "int32", at_task_args(t)->u.alu_packed.rhs_ndim ? " + bias" : "",
                  (long long)ok, (long long)overflow, (long long)not_2d, (long long)best_i, (long long)co[0],
                  (long long)co[1], (long long)h[0], (long long)h[1], (long long)w[0], (long long)w[1],
                  (unsigned long long)best, sec * 1e6, at_task_flop(t) / sec / 1e9, at_task_flop(t),
                  (unsigned long long)worst);
    at_result r;
    at_result_init(&r);
    at_vta_stats s = {0};
    assert_ok(at_meas_vta_measure_one(NULL, t, c, true, 1, &r, &s));
    assert_int_equal(r.err, AT_MEAS_OK);
    assert_int_equal(s.cycles, best);
    print_message("  best: busy load %llu compute %llu store %llu, stall compute %llu store %llu, bus wait compute %llu "
                  "store %llu; acc loads %llu B, stores %llu B, alu ops %llu\n",
                  (unsigned long long)s.busy_cycles[AT_VTA_LOAD], (unsigned long long)s.busy_cycles[AT_VTA_COMPUTE],
                  (unsigned long long)s.busy_cycles[AT_VTA_STORE], (unsigned long long)s.stall_cycles[AT_VTA_COMPUTE],
                  (unsigned long long)s.stall_cycles[AT_VTA_STORE], (unsigned long long)s.bus_wait_cycles[AT_VTA_COMPUTE],
                  (unsigned long long)s.bus_wait_cycles[AT_VTA_STORE], (unsigned long long)s.acc_load_bytes,
                  (unsigned long long)s.out_store_bytes, (unsigned long long)s.alu_ops);
    at_result_fini(&r);
    assert_true(ok > 0 && best < worst);

    at_config_free(c);
    at_task_free(t);
    return best;
}

static void every_add_config_should_be_exact_or_unbuildable(void **state)
{
    (void)state;
    sweep("add.vta", "1,64,28,28,int8", 3 * 6 * 6);
    g_add_best_cycles = sweep("add.vta", "1,64,56,56", 192);
    sweep("add.vta", "[[\"TENSOR\", [1, 4, 28, 28, 1, 16], \"int32\"], [\"TENSOR\", [4, 1, 1, 1, 16], \"int32\"]]",
          3 * 6 * 6);
}

static void every_multiply_config_should_be_exact_or_unbuildable(void **state)
{
    (void)state;
    sweep("multiply.vta", "1,64,28,28", 3 * 6 * 6);
}

/* xgb_rank (itervar features of the template's IR) on the simulator: the same seed gives the
 * same run, and 64 of the 192 configs find the optimum or come close to it. */
static void tuning_add_on_the_simulator_should_be_deterministic(void **state)
{
    (void)state;
    at_task *t = NULL;
    assert_ok(at_task_create("add.vta", AT_TARGET_VTA, "1,64,56,56", &t));
    at_tune_result res[2];
    for (int k = 0; k < 2; k++) {
        at_meas_runner *runner = NULL;
        at_measure_opts mo = {.check_correctness = true, .seed = 5};
        assert_ok(at_meas_vta_runner_new(NULL, &mo, &runner));
        at_tuner_opts to = {.seed = 11, .plan_size = 16, .max_rounds = 100};
        at_tuner *tuner = NULL;
        assert_ok(at_tuner_new("xgb_rank", t, &to, &tuner));
        at_tune_opts o = {.n_trial = 64, .target_str = AT_MEAS_VTA_TARGET};
        assert_ok(at_tune_task(t, tuner, runner, &o, &res[k]));
        at_tuner_free(tuner);
        at_meas_runner_free(runner);
    }
    assert_int_equal(res[0].n_trials, 64);
    assert_int_equal(res[0].best_index, res[1].best_index);
    assert_true(res[0].best_flops == res[1].best_flops);
    assert_true(g_add_best_cycles > 0);
    double opt = at_task_flop(t) / ((double)g_add_best_cycles / 100e6);
    print_message("xgb_rank, 64 trials: best idx %lld, %.4f GOPS (optimum %.4f), %zu errors\n",
                  (long long)res[0].best_index, res[0].best_flops / 1e9, opt / 1e9, res[0].n_errors);
    assert_true(res[0].best_flops <= opt * (1 + 1e-12));
    assert_true(res[0].best_flops >= 0.8 * opt);
    at_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_add_config_should_be_exact_or_unbuildable),
        cmocka_unit_test(every_multiply_config_should_be_exact_or_unbuildable),
        cmocka_unit_test(tuning_add_on_the_simulator_should_be_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
