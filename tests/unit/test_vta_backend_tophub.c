/* Every conv2d_packed.vta record of TopHub's vta_v0.10 pack for the pynq 1x16 bitstream runs on the
 * VTA simulator with its config as given, output bit-exact against the int8 reference. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "measure/vta_runner.h"
#include "records/log.h"
#include "templates/template.h"

static void every_pynq_1x16_record_should_run_bit_exact(void **state)
{
    (void)state;
    at_rec_log *log = NULL;
    assert_ok(at_rec_log_load_file(at_test_shared_path("data/tophub/vta_v0.10.log"), &log));
    size_t n = 0, ok = 0;
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        if (strcmp(r->task_name, "conv2d_packed.vta") != 0 || strcmp(r->target.model, "pynq_1x16_i8w8a32_15_15_18_17") != 0)
            continue;
        n++;
        at_task *t = NULL;
        assert_ok(at_task_create("conv2d_packed.vta", AT_TARGET_VTA, r->args_json, &t));
        at_result res;
        at_result_init(&res);
        assert_ok(at_meas_vta_measure_one(NULL, t, r->config, true, 1, &res, NULL));
        if (res.err != AT_MEAS_OK)
            print_message("line %zu: %s: err %d %s\n", r->line, r->args_json, res.err, res.msg ? res.msg : "");
        ok += res.err == AT_MEAS_OK;
        at_result_fini(&res);
        at_task_free(t);
    }
    assert_int_equal(n, 54);
    assert_int_equal(ok, n);
    at_rec_log_free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_pynq_1x16_record_should_run_bit_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
