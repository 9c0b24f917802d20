/* tune/network_vta's LLVM host layers: the VTA resnet's stem conv (conv2d_nchw_spatial_pack.arm_cpu),
 * relu + quantize, max_pool + pack, dequantize + global_avg_pool (IR kernels) and dense
 * (dense_nopack.x86) against the naive C reference under the rules of --check (stem within
 * tolerance, quantize flips only at rounding boundaries, pooling and the packed region bit-exact
 * from the executor's own int8 input, logits within tolerance); the dispatch picking TopHub's
 * vta-pack records for the two template layers (and a user log above them); and the CLI's
 * --host naive|llvm. Reduced 64x64 images except where the TopHub records need 224. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "tune/network_vta.h"

/* The TopHub cache (copied: the support paths share one static buffer). */
static char hub_dir[4096];

static at_tophub_opts hub_opts(void)
{
    snprintf(hub_dir, sizeof hub_dir, "%s", at_test_shared_path("data/tophub"));
    return (at_tophub_opts){.cache_dir = hub_dir, .location = "file:///nonexistent"};
}

/* Runs the LLVM stem on image and checks it against the naive layers: conv + bias within the stem
 * tolerance, each quantized element equal to the reference's or one off across a rounding boundary
 * within that tolerance, value 0 the naive max_pool + pack of the executor's own q. Returns the
 * number of flipped elements. */
static size_t check_stem(const at_net_vta *net, at_tune_vta_host *h, const float *image)
{
    int64_t oh = at_net_vta_stem_hw(net), m = 64 * oh * oh, n0 = at_net_vta_value_numel(net, 0);
    float *conv = at_malloc((size_t)m * sizeof *conv), *rconv = at_malloc((size_t)m * sizeof *rconv), *wt = NULL;
    int8_t *q = at_malloc((size_t)m), *v0 = at_malloc((size_t)n0), *pooled = at_malloc((size_t)n0);
    assert_non_null(conv);
    assert_non_null(rconv);
    assert_non_null(q);
    assert_non_null(v0);
    assert_non_null(pooled);
    double ms[3] = {-1, -1, -1};
    assert_ok(at_tune_vta_host_stem(h, image, v0, ms));
    assert_true(ms[0] >= 0 && ms[1] >= 0 && ms[2] >= 0);
    assert_ok(at_tune_vta_host_stem_outputs(h, conv, q));
    assert_ok(at_net_vta_stem_weights_t(net, &wt));
    at_net_vta_stem_conv(net, image, wt, rconv);
    size_t flips = 0, positive = 0;
    double max_err = 0;
    for (int64_t i = 0; i < m; i++) {
        double tol = AT_TUNE_VTA_STEM_ATOL + AT_TUNE_VTA_STEM_RTOL * fabs((double)rconv[i]);
        double err = fabs((double)conv[i] - rconv[i]);
        max_err = err > max_err ? err : max_err;
        assert_true(err <= tol);
        int8_t rq = at_net_vta_quantize(rconv[i]);
        positive += q[i] > 0;
        if (q[i] != rq) {
            flips++;
            assert_int_equal(abs(q[i] - rq), 1);
            /* a rounding boundary (k + 0.5) / 16 lies within the tolerance of the reference */
            double b = (q[i] > rq ? q[i] : rq) - 0.5;
            assert_true(fabs((double)rconv[i] * 16 - b) <= 16 * tol);
        }
    }
    assert_true(positive > (size_t)m / 10); /* relu leaves a real share of the activations */
    print_message("%lldx%lld stem: max abs error %.3g, %zu of %lld quantized elements flipped at a boundary\n",
                  (long long)oh * 2, (long long)oh * 2, max_err, flips, (long long)m);
    at_net_vta_stem_pool(net, q, pooled);
    assert_memory_equal(v0, pooled, (size_t)n0);
    /* a second run skips the weight packing and gives the same value 0 */
    assert_ok(at_tune_vta_host_stem(h, image, pooled, NULL));
    assert_memory_equal(v0, pooled, (size_t)n0);
    at_free(wt);
    at_free(pooled);
    at_free(v0);
    at_free(q);
    at_free(rconv);
    at_free(conv);
    return flips;
}

/* The host layers run directly: stem and head against the naive C layers. */
static void host_layers_should_follow_the_reference(void **state)
{
    (void)state;
    at_net_vta *net = NULL;
    assert_ok(at_net_vta_build("resnet-18", &(at_net_vta_opts){.image_hw = 64, .num_classes = 10, .seed = 3}, &net));
    at_tune_vta_host *h = NULL;
    at_tune_vta_host_opts ho = {.tophub = hub_opts(), .n_threads = 2};
    assert_ok(at_tune_vta_host_new(net, &ho, &h));
    const at_tune_vta_host_report *rep = at_tune_vta_host_layers(h);
    assert_string_equal(rep[AT_TUNE_VTA_HOST_CONV].impl, "conv2d_nchw_spatial_pack.arm_cpu");
    assert_string_equal(rep[AT_TUNE_VTA_HOST_DENSE].impl, "dense_nopack.x86");
    assert_string_equal(rep[AT_TUNE_VTA_HOST_QUANT].impl, "ir");
    /* no TopHub record of a 64x64 stem or a 10-class dense: the templates' fallbacks */
    assert_string_equal(rep[AT_TUNE_VTA_HOST_CONV].source, "fallback");
    assert_string_equal(rep[AT_TUNE_VTA_HOST_DENSE].source, "fallback");
    assert_int_equal(at_tune_vta_host_dispatch_stats(h).n_fallback, 2);

    float *image = at_malloc((size_t)at_net_vta_image_numel(net) * sizeof *image);
    assert_non_null(image);
    at_net_vta_fill_image(net, 5, image);
    (void)check_stem(net, h, image);

    /* the head from the reference's last value */
    at_net_vta_values ref = {0};
    size_t nc = (size_t)at_net_vta_num_classes(net);
    float *want = at_malloc(nc * sizeof *want), *got = at_malloc(nc * sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    assert_ok(at_net_vta_run_reference(net, image, want, &ref));
    assert_ok(at_tune_vta_host_head(h, ref.v[ref.n - 1], got, NULL));
    size_t differ = 0;
    for (size_t i = 0; i < nc; i++) {
        assert_true(fabs((double)got[i] - want[i]) <= AT_TUNE_VTA_LOGIT_ATOL + AT_TUNE_VTA_LOGIT_RTOL * fabs((double)want[i]));
        differ += got[i] != want[i];
    }
    print_message("logits: %zu of %zu not bit-identical to the double-accumulating reference\n", differ, nc);
    at_net_vta_values_fini(&ref);
    at_free(want);
    at_free(got);
    at_free(image);
    at_tune_vta_host_free(h);
    at_net_vta_free(net);
}

/* The whole evaluation both ways on 64x64: the same simulated VTA time, every check held. */
static void evaluate_llvm_and_naive_should_agree(void **state)
{
    (void)state;
    at_tune_vta_eval_opts o = {.network = "resnet-18", .net = {.image_hw = 64}, .tophub = hub_opts(), .repeat = 2,
                               .check = true, .host_threads = 2};
    at_tune_vta_eval_result rl, rn;
    assert_ok(at_tune_vta_evaluate(&o, &rl));
    o.host = AT_TUNE_VTA_HOST_NAIVE;
    assert_ok(at_tune_vta_evaluate(&o, &rn));
    assert_true(rl.checked && rn.checked);
    assert_int_equal(rl.host, AT_TUNE_VTA_HOST_LLVM);
    assert_int_equal(rn.host, AT_TUNE_VTA_HOST_NAIVE);
    const at_tune_vta_host_check *c = &rl.host_check;
    assert_int_equal(c->stem_n_bad, 0);
    assert_true(c->stem_max_err <= AT_TUNE_VTA_STEM_ATOL);
    assert_int_equal(c->quant_n_unexplained, 0);
    assert_int_equal(c->pool_n_bad, 0);
    assert_int_equal(c->region_n_bad, 0);
    assert_int_equal(c->logits_n_bad, 0);
    assert_int_equal(rl.n_bad, 0);
    assert_int_equal(rl.n_bad_logits, 0);
    assert_int_equal(rl.first_bad_layer, SIZE_MAX);
    /* value 0 differs from the full reference run exactly where the quantized stem flipped
     * (or not at all) */
    assert_true(c->value0_n_diff <= c->quant_n_diff);
    /* naive: the reference's own layers, bit for bit */
    assert_int_equal(rn.n_bad, 0);
    assert_int_equal(rn.n_bad_logits, 0);
    assert_int_equal(rn.host_check.value0_n_diff, 0);
    assert_int_equal(rn.host_check.quant_n_diff, 0);
    assert_true(rn.host_check.stem_max_err == 0);
    assert_true(rn.host_check.logits_max_err == 0);
    assert_true(rn.host_check.logits_ref_max_err == 0);
    assert_int_equal(rn.cycles, rl.cycles); /* the VTA part does not depend on the host path */
    for (int i = 0; i < AT_TUNE_VTA_N_HOST; i++) {
        assert_string_equal(rn.host_layers[i].impl, "naive");
        assert_true(rn.host_layers[i].ms > 0 && rl.host_layers[i].ms > 0);
    }
    assert_string_equal(rl.host_layers[AT_TUNE_VTA_HOST_CONV].impl, "conv2d_nchw_spatial_pack.arm_cpu");
    assert_string_equal(rl.host_layers[AT_TUNE_VTA_HOST_POOL].impl, "ir");
    assert_true(rl.median_ms > rl.vta_ms && rn.median_ms > rn.vta_ms);
    at_tune_vta_eval_result_fini(&rl);
    at_tune_vta_eval_result_fini(&rn);
}

/* At 224 the vta pack's records serve both template layers (and the stem runs with its config) (TopHub index 72880 for the stem; the
 * dense record, written by TVM 0.6 with tile_x before tile_y, applied by knob name); a user log
 * record goes above TopHub; with TopHub off both run their fallbacks. */
static void dispatch_should_pick_the_vta_packs_cpu_records(void **state)
{
    (void)state;
    at_net_vta *net = NULL;
    assert_ok(at_net_vta_build("resnet-18", &(at_net_vta_opts){.seed = 2}, &net));
    at_tune_vta_host *h = NULL;
    at_tune_vta_host_opts ho = {.tophub = hub_opts(), .n_threads = 2};
    assert_ok(at_tune_vta_host_new(net, &ho, &h));
    const at_tune_vta_host_report *rep = at_tune_vta_host_layers(h);
    assert_string_equal(rep[AT_TUNE_VTA_HOST_CONV].source, "tophub");
    assert_int_equal(rep[AT_TUNE_VTA_HOST_CONV].config_index, 72880);
    assert_string_equal(rep[AT_TUNE_VTA_HOST_DENSE].source, "tophub");
    assert_string_equal(rep[AT_TUNE_VTA_HOST_DENSE].impl, "dense_nopack.x86");
    assert_true(rep[AT_TUNE_VTA_HOST_DENSE].config_index >= 0);
    assert_int_equal(at_tune_vta_host_dispatch_stats(h).n_tophub, 2);
    /* the dense layer runs with its TopHub config: logits within tolerance of the reference */
    size_t nc = (size_t)at_net_vta_num_classes(net);
    float *image = at_malloc((size_t)at_net_vta_image_numel(net) * sizeof *image);
    float *want = at_malloc(nc * sizeof *want), *got = at_malloc(nc * sizeof *got);
    assert_non_null(image);
    assert_non_null(want);
    assert_non_null(got);
    /* weights and image of `evaluate --seed 2`: the LLVM stem (TopHub's config) flips one quantized
     * element across a rounding boundary; the rules of --check still hold */
    at_net_vta_fill_image(net, 2, image);
    size_t flips = check_stem(net, h, image);
    assert_true(flips <= 8); /* 1 on this x86-64 host (FMA contraction and summation order decide) */
    int8_t *last = at_malloc((size_t)at_net_vta_value_numel(net, at_net_vta_n_layers(net)));
    assert_non_null(last);
    for (int64_t i = 0; i < at_net_vta_value_numel(net, at_net_vta_n_layers(net)); i++) last[i] = (int8_t)(i * 37 % 255 - 127);
    at_net_vta_head(net, last, want);
    assert_ok(at_tune_vta_host_head(h, last, got, NULL));
    for (size_t i = 0; i < nc; i++)
        assert_true(fabs((double)got[i] - want[i]) <= AT_TUNE_VTA_LOGIT_ATOL + AT_TUNE_VTA_LOGIT_RTOL * fabs((double)want[i]));
    at_tune_vta_host_free(h);
    h = NULL;

    /* a user log with another stem config for the pynq target */
    char log[512];
    snprintf(log, sizeof log, "%s/user.log", at_test_tmpdir("net_vta_llvm_log"));
    at_test_write_file(log,
                       "{\"input\": [\"llvm -device=arm_cpu -model=pynq -mtriple=armv7a-linux-eabi\", "
                       "\"conv2d_nchw_spatial_pack.arm_cpu\", [[\"TENSOR\", [1, 3, 224, 224], \"float32\"], [\"TENSOR\", "
                       "[64, 3, 7, 7], \"float32\"], [2, 2], [3, 3, 3, 3], [1, 1], \"float32\"], {}], \"config\": {\"index\": "
                       "0, \"code_hash\": null, \"entity\": [[\"tile_co\", \"sp\", [16, 4]], [\"tile_oh\", \"sp\", [112, 1]], "
                       "[\"tile_ow\", \"sp\", [28, 4]], [\"reorder_0\", \"re\", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]], "
                       "[\"ann_reduce\", \"an\", [\"none\", \"none\"]], [\"ann_spatial\", \"an\", [\"none\", \"none\", "
                       "\"vec\"]]]}, \"result\": [[0.05], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": "
                       "\"0.18.0\"}\n");
    ho.log_path = log;
    assert_ok(at_tune_vta_host_new(net, &ho, &h));
    rep = at_tune_vta_host_layers(h);
    assert_string_equal(rep[AT_TUNE_VTA_HOST_CONV].source, "log");
    assert_int_not_equal(rep[AT_TUNE_VTA_HOST_CONV].config_index, 72880);
    assert_string_equal(rep[AT_TUNE_VTA_HOST_DENSE].source, "tophub");
    at_tune_dispatch_stats ds = at_tune_vta_host_dispatch_stats(h);
    assert_int_equal(ds.n_user, 1);
    assert_int_equal(ds.n_tophub, 1);
    at_tune_vta_host_free(h);
    h = NULL;

    ho.log_path = NULL;
    ho.no_tophub = true;
    assert_ok(at_tune_vta_host_new(net, &ho, &h));
    rep = at_tune_vta_host_layers(h);
    assert_string_equal(rep[AT_TUNE_VTA_HOST_CONV].source, "fallback");
    assert_string_equal(rep[AT_TUNE_VTA_HOST_DENSE].source, "fallback");
    at_tune_vta_host_free(h);
    at_free(last);
    at_free(got);
    at_free(want);
    at_free(image);
    at_net_vta_free(net);
}

static int run(const char *work, const char *const *args, char **out, char **err)
{
    pid_t pid = at_test_cli_start(work, args);
    return at_test_cli_finish(work, pid, out, err);
}

/* `evaluate --target vta --host naive|llvm` on 64x64. */
static void cli_should_take_host_naive_and_llvm(void **state)
{
    (void)state;
    char work[4096], hub[4096];
    snprintf(work, sizeof work, "%s", at_test_tmpdir("net_vta_llvm_cli"));
    const char *rel = at_test_shared_path("data/tophub");
    char cwd[2048];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(hub, sizeof hub, "%s%s%s", rel[0] == '/' ? "" : cwd, rel[0] == '/' ? "" : "/", rel);
    char *out = NULL, *err = NULL;
    /* (the naive path's bit-exact check is evaluate_llvm_and_naive_should_agree's; here the flag) */
    const char *naive[] = {"evaluate", "resnet-18", "--target", "vta", "--host", "naive", "--repeat", "1",
                           "--tophub-dir", hub, "--image-shape", "3,64,64", NULL};
    assert_int_equal(run(work, naive, &out, &err), 0);
    assert_non_null(strstr(out, "host layers (naive C; median ms per run):\n  conv0 "));
    assert_non_null(strstr(out, "Mean inference time (std dev): "));
    assert_null(strstr(out, "Check: "));
    const char *llvm[] = {"evaluate", "resnet-18", "--target", "vta", "--host", "llvm", "--threads", "2", "--check",
                          "--repeat", "1", "--tophub-dir", hub, "--image-shape", "3,64,64", NULL};
    assert_int_equal(run(work, llvm, &out, &err), 0);
    assert_non_null(strstr(out, "host layers (LLVM; median ms per run):\n  conv0 "));
    assert_non_null(strstr(out, "conv2d_nchw_spatial_pack.arm_cpu  fallback["));
    assert_non_null(strstr(out, "Check: stem conv (LLVM) vs reference float: max abs error "));
    assert_non_null(strstr(out, "Check: packed VTA region bit-exact vs the reference run from the same int8 input: held (0 differ)"));
    assert_non_null(strstr(out, "Check: max_pool2d+pack bit-exact on the executor's quantized stem: held (0 differ)"));
    assert_non_null(strstr(out, "Check: logits within tolerance: held"));
    assert_non_null(strstr(out, "Output check: bit-exact with the reference executor on every packed int8 value"));
    const char *bad[] = {"evaluate", "resnet-18", "--target", "vta", "--host", "gpu", NULL};
    assert_int_equal(run(work, bad, &out, &err), 2);
    assert_non_null(strstr(err, "--host must be naive or llvm"));
    at_free(out);
    at_free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_layers_should_follow_the_reference),
        cmocka_unit_test(evaluate_llvm_and_naive_should_agree),
        cmocka_unit_test(dispatch_should_pick_the_vta_packs_cpu_records),
        cmocka_unit_test(cli_should_take_host_naive_and_llvm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
