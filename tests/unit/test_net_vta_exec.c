/* tune/network_vta: the packed resnet18_v1 on the VTA simulator (each conv lowered with its
 * dispatched config and the layer's bias / relu / requant ALU epilogue), the rest on the host;
 * every value and the logits bit-exact against the reference executor. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "measure/vta_runner.h"
#include "tune/network_vta.h"

static at_tophub_opts hub_opts(void)
{
    return (at_tophub_opts){.cache_dir = at_test_shared_path("data/tophub"), .location = "file:///nonexistent"};
}

/* Full size with TopHub's vta_v0.10 configs: the 10 tasks tuned by TopHub, 19 convs on VTA. */
static void tophub_configs_should_run_bit_exact(void **state)
{
    (void)state;
    at_tune_vta_eval_opts o = {.network = "resnet-18", .tophub = hub_opts(), .repeat = 1, .check = true};
    at_tune_vta_eval_result r;
    assert_ok(at_tune_vta_evaluate(&o, &r));
    assert_true(r.checked);
    assert_int_equal(r.n_bad, 0);
    assert_int_equal(r.n_bad_logits, 0);
    assert_int_equal(r.first_bad_layer, SIZE_MAX);
    assert_int_equal(r.dispatch.n_tophub, 19); /* one answer per conv layer */
    assert_int_equal(r.dispatch.n_fallback, 8); /* the adds: TopHub has no add.vta record */
    size_t on_vta = 0, convs = 0;
    double vta_ms = 0;
    for (size_t i = 0; i < r.n_layers; i++) {
        const at_tune_vta_layer_report *l = &r.layers[i];
        print_message("%-26s %-8s %6s cfg %5lld %10llu cycles %8.3f ms %6.1f GOPS\n", l->name, l->on_vta ? "vta" : "cpu",
                      l->source, (long long)l->config_index, (unsigned long long)l->cycles, l->ms, l->gops);
        if (!l->on_vta) continue;
        on_vta++;
        vta_ms += l->ms;
        assert_true(l->cycles > 0);
        if (strstr(l->name, "_add")) {
            assert_string_equal(l->source, "fallback");
            assert_int_equal(l->config_index, 0);
            continue;
        }
        convs++;
        assert_string_equal(l->source, "tophub");
        assert_true(l->gops > 1 && l->gops < 51.2); /* below the 1x16 bitstream's 51.2 GOPS peak */
    }
    assert_int_equal(on_vta, 27);
    assert_int_equal(convs, 19);
    assert_int_equal(r.n_layers, 27 + 2);
    assert_true(vta_ms > r.vta_ms * 0.999 && vta_ms < r.vta_ms * 1.001);
    assert_true(r.mean_ms > r.vta_ms);
    print_message("mean %.2f ms (std %.2f), VTA %.2f ms (%llu cycles), CPU %.2f ms\n", r.mean_ms, r.std_ms, r.vta_ms,
                  (unsigned long long)r.cycles, r.cpu_ms);
    at_tune_vta_eval_result_fini(&r);
}

/* A 64x64 image: no TopHub record fits, so every conv runs the template's entity 0 (all inner
 * tiles 1, no virtual threads); the adds on the host this time. Still bit-exact. */
static void fallback_configs_should_run_bit_exact(void **state)
{
    (void)state;
    at_tune_vta_eval_opts o = {.network = "resnet-18", .net = {.image_hw = 64, .num_classes = 10, .seed = 5},
                               .input_seed = 9, .no_tophub = true, .repeat = 1, .check = true, .adds_on_cpu = true};
    at_tune_vta_eval_result r;
    assert_ok(at_tune_vta_evaluate(&o, &r));
    assert_int_equal(r.n_bad, 0);
    assert_int_equal(r.n_bad_logits, 0);
    assert_int_equal(r.dispatch.n_fallback, 19);
    size_t on_cpu = 0;
    for (size_t i = 0; i < r.n_layers; i++)
        if (r.layers[i].on_vta) {
            assert_string_equal(r.layers[i].source, "fallback");
            assert_int_equal(r.layers[i].config_index, 0);
        } else {
            on_cpu++;
            assert_string_equal(r.layers[i].source, "cpu");
        }
    assert_int_equal(on_cpu, 8 + 2); /* adds, stem, head */
    at_tune_vta_eval_result_fini(&r);
}

/* A user log above TopHub: a record for stage 1's 3x3 convs (on a 64x64 image) with TopHub's
 * task-#4 tiling scaled down is what those four layers run; the other convs fall back. */
static void user_log_should_beat_tophub(void **state)
{
    (void)state;
    const char *dir = at_test_tmpdir("net_vta_exec");
    char path[512];
    snprintf(path, sizeof path, "%s/user.log", dir);
    at_test_write_file(path,
                       "{\"input\": [\"" AT_MEAS_VTA_TARGET "\", \"conv2d_packed.vta\", [[\"TENSOR\", [1, 4, 16, 16, 1, 16], "
                       "\"int8\"], [\"TENSOR\", [4, 4, 3, 3, 16, 16], \"int8\"], [1, 1], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", "
                       "\"int32\"], {}], \"config\": {\"index\": 7, \"code_hash\": null, \"entity\": [[\"tile_b\", \"sp\", [1, 1]], "
                       "[\"tile_h\", \"sp\", [1, 16]], [\"tile_w\", \"sp\", [2, 8]], [\"tile_ci\", \"sp\", [4, 1]], [\"tile_co\", "
                       "\"sp\", [2, 2]], [\"oc_nthread\", \"ot\", 2], [\"h_nthread\", \"ot\", 1]]}, \"result\": [[0.001], 0, 1.0, "
                       "1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}\n");
    at_tune_vta_eval_opts o = {.network = "resnet-18", .net = {.image_hw = 64}, .log_path = path, .tophub = hub_opts(),
                               .repeat = 1, .check = true};
    at_tune_vta_eval_result r;
    assert_ok(at_tune_vta_evaluate(&o, &r));
    assert_int_equal(r.n_bad, 0);
    assert_int_equal(r.n_bad_logits, 0);
    assert_int_equal(r.dispatch.n_user, 4);
    assert_int_equal(r.dispatch.n_tophub, 0);
    assert_int_equal(r.dispatch.n_fallback, 15 + 8);
    size_t n = 0;
    for (size_t i = 0; i < r.n_layers; i++)
        if (!strcmp(r.layers[i].source, "log")) {
            assert_true(r.layers[i].config_index > 0);
            assert_true(strstr(r.layers[i].name, "stage1_") != NULL);
            n++;
        }
    assert_int_equal(n, 4);
    at_tune_vta_eval_result_fini(&r);
}

/* backends/vta's network epilogue: the bias blocks share the ACC buffer with the tile (a tiling
 * that fills it exactly fits the template's epilogue, not one with a bias); immediates are 16-bit. */
static void network_epilogue_should_fit_the_accumulator_buffer(void **state)
{
    (void)state;
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    assert_int_equal(hw.acc_buff_depth, 2048);
    at_vtagen_conv2d c = {.n_b = 1, .ci_b = 1, .h = 16, .w = 16, .co_b = 8, .kh = 1, .kw = 1, .sh = 1, .sw = 1,
                          .oh = 16, .ow = 16, .tile_h = 16, .tile_w = 16, .tile_ci = 1, .tile_co = 8, .oc_nthread = 1,
                          .h_nthread = 1, .shift = 8, .clip_lo = 0, .clip_hi = 127};
    assert_ok(at_vtagen_conv2d_check(&hw, &c));
    c.n_epi = 2;
    c.epi[0] = (at_vtagen_epi){AT_VTA_ALU_MAX, false, 0};
    c.epi[1] = (at_vtagen_epi){AT_VTA_ALU_SHR, false, 9};
    assert_ok(at_vtagen_conv2d_check(&hw, &c));
    c.epi[0] = (at_vtagen_epi){AT_VTA_ALU_ADD, true, 0};
    assert_int_equal(at_vtagen_conv2d_check(&hw, &c), AT_EINVAL);
    c.tile_h = 8; /* 8 x 128 + 8 bias blocks */
    assert_ok(at_vtagen_conv2d_check(&hw, &c));
    c.epi[1] = (at_vtagen_epi){AT_VTA_ALU_ADD, false, 40000};
    assert_int_equal(at_vtagen_conv2d_check(&hw, &c), AT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(network_epilogue_should_fit_the_accumulator_buffer),
        cmocka_unit_test(tophub_configs_should_run_bit_exact),
        cmocka_unit_test(fallback_configs_should_run_bit_exact),
        cmocka_unit_test(user_log_should_beat_tophub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
