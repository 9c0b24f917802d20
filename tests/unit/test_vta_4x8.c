/* Every conv2d_packed.vta record of TopHub's vta_v0.10 pack for the pynq 4x8 bitstream (BATCH 4,
 * BLOCK 8: 32-byte input, 64-byte weight and 128-byte accumulator elements) runs on the simulator
 * configured from its model name, with its config as given, output bit-exact against the int8
 * reference. The workloads are shrunk to one output tile per virtual thread and at most two
 * reduction steps (kernel, stride, padding and every tile size kept), so the whole set runs in
 * seconds;
 * test_vta_4x8_full runs the full shapes (label slow). */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "core/strbuf.h"
#include "measure/vta_runner.h"
#include "records/log.h"
#include "templates/ops.h"
#include "templates/template.h"
#include "tune/vta_predict.h"

#ifndef FULL_SHAPES
#define FULL_SHAPES 0
#endif

/* The record's workload with OH = tile_h * h_nthread and OW = tile_w (as JSON args). */
static char *shrunk_args(const at_rec *r)
{
    cJSON *j = NULL;
    assert_ok(at_json_parse(r->args_json, strlen(r->args_json), &j));
    at_conv2d_packed_args a;
    assert_ok(at_op_conv2d_packed_args_from_json(j, &a));
    at_json_free(j);
    int64_t sz[2];
    at_config_split(r->config, 1, sz, 2);
    int64_t oh = sz[1] * at_config_other_int(r->config, 6);
    at_config_split(r->config, 2, sz, 2);
    int64_t ow = sz[1];
    /* one output-channel tile per virtual thread, at most two k_o.outer steps */
    at_config_split(r->config, 4, sz, 2);
    a.kernel[0] = sz[1] * at_config_other_int(r->config, 5);
    at_config_split(r->config, 3, sz, 2);
    a.data[1] = a.kernel[1] = sz[1] * (a.data[1] / sz[1] >= 2 ? 2 : 1);
    a.data[2] = (oh - 1) * a.stride[0] + a.kernel[2] - 2 * a.pad[0];
    a.data[3] = (ow - 1) * a.stride[1] + a.kernel[3] - 2 * a.pad[1];
    assert_true(a.data[2] >= 1 && a.data[3] >= 1);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_putc(&sb, '[');
    at_op_conv2d_packed_args_write_json(&a, &sb);
    at_strbuf_putc(&sb, ']');
    size_t n = strlen(at_strbuf_cstr(&sb)) + 1;
    char *out = test_malloc(n);
    memcpy(out, at_strbuf_cstr(&sb), n);
    at_strbuf_fini(&sb);
    return out;
}

static void every_pynq_4x8_record_should_run_bit_exact(void **state)
{
    (void)state;
    at_rec_log *log = NULL;
    assert_ok(at_rec_log_load_file(at_test_shared_path("data/tophub/vta_v0.10.log"), &log));
    at_vta_hw hw;
    assert_ok(at_vta_pred_hw_for_model("pynq_4x8_i8w8a32_15_16_16_18", &hw));
    size_t n = 0, ok = 0, other = 0;
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        if (strcmp(r->target.model, "pynq_4x8_i8w8a32_15_16_16_18") != 0) continue;
        if (strcmp(r->task_name, "conv2d_packed.vta") != 0) {
            other++; /* the pack's one dense_packed.vta record: no VTA template for it here */
            continue;
        }
        n++;
        char *args = FULL_SHAPES ? NULL : shrunk_args(r);
        at_task *t = NULL;
        assert_ok(at_task_create("conv2d_packed.vta", AT_TARGET_VTA, args ? args : r->args_json, &t));
        assert_int_equal(at_task_args(t)->u.conv2d_packed.data[4], 4);
        assert_int_equal(at_task_args(t)->u.conv2d_packed.data[5], 8);
        at_result res;
        at_result_init(&res);
        at_vta_stats s = {0};
        assert_ok(at_meas_vta_measure_one(&hw, t, r->config, true, 1 + i, &res, &s));
        if (res.err != AT_MEAS_OK)
            print_message("line %zu: %s: err %d %s\n", r->line, args ? args : r->args_json, res.err,
                          res.msg ? res.msg : "");
        else
            assert_true(s.gemm_ops > 0 && s.out_store_bytes % 32 == 0); /* 4 x 8 int8 output elements */
        ok += res.err == AT_MEAS_OK;
        at_result_fini(&res);
        at_task_free(t);
        if (args) test_free(args);
    }
    assert_int_equal(n, 32);
    assert_int_equal(other, 1);
    assert_int_equal(ok, n);
    at_rec_log_free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_pynq_4x8_record_should_run_bit_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
