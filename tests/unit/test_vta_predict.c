/* tune/vta_predict: the statistics on hand-computed vectors, hardware from model names, predictions
 * of real TopHub records equal to what the simulator gives for them (cycles and cost), records
 * that cannot be compared (other tasks, measurements above the GEMM peak), timing changes, and
 * the calibration search's contract. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "measure/vta_runner.h"
#include "records/log.h"
#include "templates/template.h"
#include "tune/vta_predict.h"

static void median_should_take_the_middle_or_the_mean_of_the_two_middles(void **state)
{
    (void)state;
    double a[] = {3, 1, 2};
    assert_true(at_vta_pred_median(a, 3) == 2);
    double b[] = {4, 1, 3, 2};
    assert_true(at_vta_pred_median(b, 4) == 2.5);
    double c[] = {7};
    assert_true(at_vta_pred_median(c, 1) == 7);
    assert_true(at_vta_pred_median(c, 0) == 0);
}

static void spearman_should_rank_with_averaged_ties(void **state)
{
    (void)state;
    double r;
    /* y ranks 1, 2, 3.5, 5, 3.5 against 1..5: sum dx*dy = 8, sum dx^2 = 10, sum dy^2 = 9.5 */
    const double x[] = {1, 2, 3, 4, 5}, y[] = {5, 6, 7, 8, 7};
    assert_ok(at_vta_pred_spearman(x, y, 5, &r));
    assert_float_equal(r, 8 / sqrt(95.0), 1e-12);
    /* monotone but not linear: 1; reversed: -1 */
    const double sq[] = {1, 4, 9, 16, 25}, rev[] = {50, 40, 30, 20, 10};
    assert_ok(at_vta_pred_spearman(x, sq, 5, &r));
    assert_float_equal(r, 1, 1e-12);
    assert_ok(at_vta_pred_spearman(x, rev, 5, &r));
    assert_float_equal(r, -1, 1e-12);
    /* degenerate: fewer than two pairs, or a constant side */
    const double k[] = {3, 3, 3, 3, 3};
    assert_ok(at_vta_pred_spearman(x, k, 5, &r));
    assert_true(r == 0);
    assert_ok(at_vta_pred_spearman(x, y, 1, &r));
    assert_true(r == 0);
}

static void model_names_should_give_their_bitstream(void **state)
{
    (void)state;
    at_vta_hw hw;
    assert_ok(at_vta_pred_hw_for_model("pynq_4x8_i8w8a32_15_16_16_18", &hw));
    assert_int_equal(hw.batch, 4);
    assert_int_equal(hw.block_in, 8);
    assert_int_equal(hw.block_out, 8);
    assert_int_equal(hw.inp_elem_bytes, 32);
    assert_int_equal(hw.wgt_elem_bytes, 64);
    assert_int_equal(hw.acc_elem_bytes, 128);
    assert_int_equal(hw.inp_buff_depth, 2048);
    assert_int_equal(hw.wgt_buff_depth, 1024);
    assert_int_equal(hw.acc_buff_depth, 2048);
    assert_int_equal(hw.fpga_freq_mhz, 100);
    assert_string_equal(hw.model, "pynq_4x8_i8w8a32_15_16_16_18");
    assert_ok(at_vta_pred_hw_for_model("pynq", &hw));
    assert_string_equal(hw.model, "pynq_1x16_i8w8a32_15_15_18_17");
    assert_ok(at_vta_pred_hw_for_model("ultra96_1x16_i8w8a32_15_15_18_17", &hw));
    assert_int_equal(hw.fpga_freq_mhz, 333);
    assert_int_equal(at_vta_pred_hw_for_model("unknown_model", &hw), AT_EINVAL);
    assert_int_equal(at_vta_pred_hw_for_model("pynq_3x16_i8w8a32_15_15_18_17", &hw), AT_EINVAL);
    assert_int_equal(at_vta_pred_hw_for_model("pynq_1x16_i8w8a32_15_15_18", &hw), AT_EINVAL);
}

/* A log of the given lines of TopHub's vta_v0.10.log (line numbers are kept as the records'). */
static at_rec_log *tophub_lines(const size_t *want, size_t n_want)
{
    size_t len = 0;
    char *all = at_test_read_file(at_test_shared_path("data/tophub/vta_v0.10.log"), &len);
    assert_non_null(all);
    at_strbuf sb;
    at_strbuf_init(&sb);
    size_t line = 1;
    for (char *p = all; *p; line++) {
        char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        bool keep = false;
        for (size_t i = 0; i < n_want; i++) keep |= want[i] == line;
        if (keep)
            at_strbuf_printf(&sb, "%.*s\n", (int)n, p);
        else
            at_strbuf_puts(&sb, "#\n"); /* keeps the line numbers */
        p += n + (nl != NULL);
    }
    at_rec_log *log = NULL;
    assert_ok(at_rec_log_load_buffer("vta_v0.10.log", at_strbuf_cstr(&sb), strlen(at_strbuf_cstr(&sb)), &log));
    at_strbuf_fini(&sb);
    at_free(all);
    return log;
}

/* lines: 6 Yolo-tiny (measured above the GEMM peak), 14 arm_cpu, 22 and 32 resnet-18 C2 on 1x16
 * (configs 828 and 807), 93 resnet-50 on 4x8, 113 dense_packed on 4x8 */
static const size_t some[] = {6, 14, 22, 32, 93, 113};

static void predictions_should_be_the_simulators_cycles_at_the_clock(void **state)
{
    (void)state;
    at_rec_log *log = tophub_lines(some, sizeof some / sizeof some[0]);
    assert_int_equal(log->n, 6);
    at_vta_pred *p = NULL;
    assert_ok(at_vta_predict_log(log, NULL, &p));
    assert_int_equal(p->n_skipped, 2); /* arm_cpu and dense_packed */
    assert_int_equal(p->n_rows, 4);
    assert_int_equal(p->n_failed, 1);
    assert_int_equal(p->rows[0].line, 6);
    assert_false(p->rows[0].ok);
    assert_non_null(strstr(p->rows[0].error, "measured faster than the GEMM peak"));
    at_vta_timing t;
    at_vta_timing_default(&t);
    for (size_t i = 1; i < 4; i++) {
        const at_vta_pred_row *row = &p->rows[i];
        const at_rec *r = NULL;
        for (size_t k = 0; k < log->n; k++)
            if (log->recs[k].line == row->line) r = &log->recs[k];
        assert_non_null(r);
        assert_true(row->ok);
        assert_int_equal(row->config_index, at_config_index(r->config));
        assert_float_equal(row->measured_s, r->result.costs_s[0], 0);
        /* the runner on the record's hardware gives the same cycles (and the right output) */
        at_vta_hw hw;
        assert_ok(at_vta_pred_hw_for_model(r->target.model, &hw));
        at_task *task = NULL;
        assert_ok(at_task_create("conv2d_packed.vta", AT_TARGET_VTA, r->args_json, &task));
        at_result res;
        at_result_init(&res);
        at_vta_stats s = {0};
        assert_ok(at_meas_vta_measure_one(&hw, task, r->config, false, 1, &res, &s));
        assert_int_equal(res.err, AT_MEAS_OK);
        assert_int_equal(row->cycles, s.cycles);
        assert_float_equal(row->simulated_s, (double)(s.cycles + t.host_call_cycles) / 1e8, 1e-15);
        assert_float_equal(row->ratio, row->simulated_s / row->measured_s, 1e-12);
        at_result_fini(&res);
        at_task_free(task);
    }
    assert_string_equal(p->rows[1].workload, "N=1 64x56x56 -> 64 k3x3 s1 p1");
    assert_string_equal(p->rows[3].workload, "N=4 64x56x56 -> 64 k1x1 s1 p0");
    /* summaries: all three rows, then per model in order of appearance */
    assert_int_equal(p->all.n, 3);
    assert_int_equal(p->n_models, 2);
    assert_string_equal(p->models[0].model, "pynq_1x16_i8w8a32_15_15_18_17");
    assert_int_equal(p->models[0].n, 3 - 1);
    assert_string_equal(p->models[1].model, "pynq_4x8_i8w8a32_15_16_16_18");
    assert_int_equal(p->models[1].n, 1);
    double e[3];
    for (size_t i = 0; i < 3; i++) e[i] = fabs(p->rows[1 + i].ratio - 1);
    assert_float_equal(p->all.median_rel_err, at_vta_pred_median(e, 3), 1e-12);
    /* the calibrated model ranks 807 (56-row input tiles) slower than 828, as the board measured */
    assert_true(p->rows[2].cycles > p->rows[1].cycles);
    assert_float_equal(p->models[0].spearman, 1, 0);
    at_vta_pred_free(p);
    at_rec_log_free(log);
}

static void timing_and_hardware_options_should_change_the_prediction(void **state)
{
    (void)state;
    const size_t lines[] = {22};
    at_rec_log *log = tophub_lines(lines, 1);
    at_vta_pred *base = NULL, *slow = NULL, *wrong = NULL;
    assert_ok(at_vta_predict_log(log, NULL, &base));
    at_vta_timing t;
    at_vta_timing_default(&t);
    assert_ok(at_vta_timing_set(&t, "gemm_depth", 10));
    at_vta_pred_opts o = {.timing = &t};
    assert_ok(at_vta_predict_log(log, &o, &slow));
    /* config 828 runs 56 GEMMs of 168 passes (x_j 56 x d_j 3 over 48 uops) and 14 resets of 112
     * passes (x_j 56 x x_co 2 over 8 uops): 10976 passes of 10 more compute cycles, on the
     * critical path except where loads overlap */
    uint64_t delta = slow->rows[0].cycles - base->rows[0].cycles;
    print_message("gemm_depth 0 -> 10: %llu more cycles\n", (unsigned long long)delta);
    assert_true(slow->rows[0].cycles > base->rows[0].cycles);
    assert_true(delta <= 10976 * 10 && delta > 10976 * 10 * 9 / 10);
    /* forcing the 4x8 hardware on a 1x16 record: the workload does not fit, an excluded row */
    at_vta_hw hw;
    assert_ok(at_vta_pred_hw_for_model("pynq_4x8_i8w8a32_15_16_16_18", &hw));
    at_vta_pred_opts ho = {.hw = &hw};
    assert_ok(at_vta_predict_log(log, &ho, &wrong));
    assert_false(wrong->rows[0].ok);
    assert_non_null(strstr(wrong->rows[0].error, "instantiation error"));
    assert_int_equal(wrong->n_failed, 1);
    assert_int_equal(wrong->all.n, 0);
    assert_true(wrong->all.median_rel_err == 0 && wrong->all.spearman == 0);
    at_vta_pred_free(base);
    at_vta_pred_free(slow);
    at_vta_pred_free(wrong);
    at_rec_log_free(log);
}

static void the_fit_should_not_worsen_its_objective_and_check_its_parameters(void **state)
{
    (void)state;
    at_rec_log *lg = tophub_lines(some, sizeof some / sizeof some[0]);
    at_vta_timing t;
    at_vta_timing_default(&t);
    assert_ok(at_vta_timing_set(&t, "host_call_cycles", 0));
    /* objective at the start, by hand: mean over the two models of the median |log(sim/meas)| */
    at_vta_pred_opts o = {.timing = &t};
    at_vta_pred *p = NULL;
    assert_ok(at_vta_predict_log(lg, &o, &p));
    double l16[2] = {fabs(log(p->rows[1].ratio)), fabs(log(p->rows[2].ratio))};
    double start = (at_vta_pred_median(l16, 2) + fabs(log(p->rows[3].ratio))) / 2;
    at_vta_pred_free(p);
    const at_vta_fit_param params[] = {{"host_call_cycles", 0, 100000}, {"dma_row_overhead", 1, 64}};
    double obj = -1;
    at_vta_timing fitted = t;
    assert_ok(at_vta_pred_fit(lg, &o, params, 2, 6, &fitted, &obj));
    assert_true(obj <= start + 1e-12);
    assert_true(fitted.host_call_cycles <= 100000);
    assert_true(fitted.dma_row_overhead >= 1 && fitted.dma_row_overhead <= 64);
    /* the objective reported is the fitted table's, recomputed by hand */
    at_vta_pred_opts fo = {.timing = &fitted};
    assert_ok(at_vta_predict_log(lg, &fo, &p));
    double f16[2] = {fabs(log(p->rows[1].ratio)), fabs(log(p->rows[2].ratio))};
    assert_float_equal(obj, (at_vta_pred_median(f16, 2) + fabs(log(p->rows[3].ratio))) / 2, 1e-12);
    at_vta_pred_free(p);
    /* the other constants are untouched */
    assert_int_equal(fitted.gemm_depth, t.gemm_depth);
    assert_int_equal(fitted.dma_read_latency, t.dma_read_latency);
    /* errors */
    const at_vta_fit_param bad[] = {{"no_such_constant", 0, 0}};
    assert_int_equal(at_vta_pred_fit(lg, &o, bad, 1, 2, &fitted, NULL), AT_ENOTFOUND);
    const at_vta_fit_param outside[] = {{"gemm_depth", 5, 9}};
    assert_int_equal(at_vta_pred_fit(lg, &o, outside, 1, 2, &t, NULL), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "starts outside"));
    at_rec_log_free(lg);
    const size_t none[] = {14};
    lg = tophub_lines(none, 1);
    assert_int_equal(at_vta_pred_fit(lg, &o, params, 1, 2, &t, NULL), AT_EINVAL);
    at_rec_log_free(lg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(median_should_take_the_middle_or_the_mean_of_the_two_middles),
        cmocka_unit_test(spearman_should_rank_with_averaged_ties),
        cmocka_unit_test(model_names_should_give_their_bitstream),
        cmocka_unit_test(predictions_should_be_the_simulators_cycles_at_the_clock),
        cmocka_unit_test(timing_and_hardware_options_should_change_the_prediction),
        cmocka_unit_test(the_fit_should_not_worsen_its_objective_and_check_its_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
