/* arm_cpu templates (conv2d_nchw_spatial_pack.arm_cpu, depthwise_conv2d_nchw.arm_cpu) and the x86
 * dense templates TVM's arm_cpu strategy uses (dense_nopack.x86, dense_pack.x86): knob names and
 * orders, space sizes against TVM's formulas, FLOPs, fallback configs, the index of real records
 * (TopHub's vta_v0.10 pack and arm_cpu records written in its format) rebuilt from their entities, `records
 * check` on them, and task extraction for resnet-18 / mobilenet on the arm_cpu target. */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/alloc.h"
#include "core/target.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "records/log.h"
#include "templates/template.h"

/* Records written for these tests in TVM's log format (costs and timestamps ours): workloads of
 * resnet-18 / mobilenet on rk3399 and bcm2837 with their knob entities and the flat index TVM's
 * enumeration gives them (knob order and mixed radix as spec autotvm_core.md). */
static const char *const armrec_lines[] = {
    "{\"input\": [\"llvm -device=arm_cpu -model=bcm2837 -mtriple=armv7l-linux-gnueabihf -mattr=+neon\", \"conv2d_nchw_spatial_pack.arm_cpu\", [[\"TENSOR\", [1, 3, 224, 224], \"float32\"], [\"TENSOR\", [64, 3, 7, 7], \"float32\"], [2, 2], [3, 3, 3, 3], [1, 1], \"float32\"], {}], \"config\": {\"index\": 58242, \"code_hash\": null, \"entity\": [[\"tile_co\", \"sp\", [16, 4]], [\"tile_oh\", \"sp\", [112, 1]], [\"tile_ow\", \"sp\", [28, 4]], [\"reorder_0\", \"re\", [0, 1, 2, 3, 4, 5, 6, 9, 7, 8]], [\"ann_reduce\", \"an\", [\"none\", \"unroll\"]], [\"ann_spatial\", \"an\", [\"unroll\", \"none\", \"vec\"]]]}, \"result\": [[0.001], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}",
    "{\"input\": [\"llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon\", \"conv2d_nchw_spatial_pack.arm_cpu\", [[\"TENSOR\", [1, 3, 224, 224], \"float32\"], [\"TENSOR\", [64, 3, 7, 7], \"float32\"], [2, 2], [3, 3, 3, 3], [1, 1], \"float32\"], {}], \"config\": {\"index\": 60979, \"code_hash\": null, \"entity\": [[\"tile_co\", \"sp\", [16, 4]], [\"tile_oh\", \"sp\", [56, 2]], [\"tile_ow\", \"sp\", [56, 2]], [\"reorder_0\", \"re\", [0, 1, 2, 3, 4, 5, 6, 9, 7, 8]], [\"ann_reduce\", \"an\", [\"unroll\", \"unroll\"]], [\"ann_spatial\", \"an\", [\"unroll\", \"none\", \"vec\"]]]}, \"result\": [[0.002], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}",
    "{\"input\": [\"llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon\", \"conv2d_nchw_spatial_pack.arm_cpu\", [[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [128, 64, 1, 1], \"float32\"], [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"], {}], \"config\": {\"index\": 54595, \"code_hash\": null, \"entity\": [[\"tile_co\", \"sp\", [16, 8]], [\"tile_oh\", \"sp\", [56, 1]], [\"tile_ow\", \"sp\", [4, 14]], [\"reorder_0\", \"re\", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]], [\"ann_reduce\", \"an\", [\"none\", \"unroll\"]], [\"ann_spatial\", \"an\", [\"unroll\", \"unroll\", \"vec\"]]]}, \"result\": [[0.003], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}",
    "{\"input\": [\"llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon\", \"conv2d_nchw_spatial_pack.arm_cpu\", [[\"TENSOR\", [1, 3, 224, 224], \"float32\"], [\"TENSOR\", [32, 3, 3, 3], \"float32\"], [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": 27722, \"code_hash\": null, \"entity\": [[\"tile_co\", \"sp\", [8, 4]], [\"tile_oh\", \"sp\", [112, 1]], [\"tile_ow\", \"sp\", [28, 4]], [\"reorder_0\", \"re\", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]], [\"ann_reduce\", \"an\", [\"unroll\", \"unroll\"]], [\"ann_spatial\", \"an\", [\"none\", \"unroll\", \"vec\"]]]}, \"result\": [[0.004], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}",
    "{\"input\": [\"llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon\", \"conv2d_nchw_spatial_pack.arm_cpu\", [[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [128, 64, 3, 3], \"float32\"], [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": 6483, \"code_hash\": null, \"entity\": [[\"tile_co\", \"sp\", [16, 8]], [\"tile_oh\", \"sp\", [28, 1]], [\"tile_ow\", \"sp\", [4, 7]], [\"reorder_0\", \"re\", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]], [\"ann_reduce\", \"an\", [\"unroll\", \"unroll\"]], [\"ann_spatial\", \"an\", [\"none\", \"none\", \"vec\"]]]}, \"result\": [[0.005], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}",
    "{\"input\": [\"llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon\", \"depthwise_conv2d_nchw.arm_cpu\", [[\"TENSOR\", [1, 960, 7, 7], \"float32\"], [\"TENSOR\", [960, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": 1485, \"code_hash\": null, \"entity\": [[\"tile_c\", \"sp\", [480, 2]], [\"tile_h\", \"sp\", [1, 7]], [\"tile_w\", \"sp\", [7, 1]], [\"ann\", \"an\", [\"unroll\", \"unroll\", \"vec\"]]]}, \"result\": [[0.006], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}",
    "{\"input\": [\"llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon\", \"depthwise_conv2d_nchw.arm_cpu\", [[\"TENSOR\", [1, 576, 14, 14], \"float32\"], [\"TENSOR\", [576, 1, 3, 3], \"float32\"], [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": 864, \"code_hash\": null, \"entity\": [[\"tile_c\", \"sp\", [144, 4]], [\"tile_h\", \"sp\", [1, 7]], [\"tile_w\", \"sp\", [7, 1]], [\"ann\", \"an\", [\"unroll\", \"none\", \"vec\"]]]}, \"result\": [[0.007], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}",
    "{\"input\": [\"llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu -mattr=+neon\", \"depthwise_conv2d_nchw.arm_cpu\", [[\"TENSOR\", [1, 576, 14, 14], \"float32\"], [\"TENSOR\", [576, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": 3510, \"code_hash\": null, \"entity\": [[\"tile_c\", \"sp\", [144, 4]], [\"tile_h\", \"sp\", [1, 14]], [\"tile_w\", \"sp\", [7, 2]], [\"ann\", \"an\", [\"unroll\", \"none\", \"vec\"]]]}, \"result\": [[0.008], 0, 1.0, 1700000000.0], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}",
};

static at_task *task_of(const char *name, const char *args_json)
{
    at_task *t = NULL;
    assert_ok(at_task_create(name, AT_TARGET_LLVM, args_json, &t));
    return t;
}

static const char *conv_args(char *buf, size_t n, const int64_t d[4], const int64_t k[4], int s, int p, int dil,
                             const char *dtype)
{
    snprintf(buf, n,
             "[[\"TENSOR\", [%lld, %lld, %lld, %lld], \"float32\"], [\"TENSOR\", [%lld, %lld, %lld, %lld], \"float32\"], "
             "[%d, %d], [%d, %d, %d, %d], [%d, %d], \"%s\"]",
             (long long)d[0], (long long)d[1], (long long)d[2], (long long)d[3], (long long)k[0], (long long)k[1],
             (long long)k[2], (long long)k[3], s, s, p, p, p, p, dil, dil, dtype);
    return buf;
}

static const char *dense_args(char *buf, size_t n, int64_t m, int64_t nn, int64_t k)
{
    snprintf(buf, n, "[[\"TENSOR\", [%lld, %lld], \"float32\"], [\"TENSOR\", [%lld, %lld], \"float32\"], null, \"float32\"]",
             (long long)m, (long long)k, (long long)nn, (long long)k);
    return buf;
}

static int64_t n_factors(int64_t x)
{
    int64_t c = 0;
    for (int64_t d = 1; d <= x; d++) c += x % d == 0;
    return c;
}

/* Entities of a 3-way factors split: ordered (a, b) with a b dividing x. */
static int64_t n_split3(int64_t x)
{
    int64_t c = 0;
    for (int64_t a = 1; a <= x; a++)
        for (int64_t b = 1; a * b <= x; b++) c += x % (a * b) == 0;
    return c;
}

static void assert_knobs(const at_task *t, const char *const *names, const at_knob_kind *kinds, size_t n)
{
    const at_space *s = at_task_space(t);
    assert_int_equal(at_space_n_knobs(s), n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(at_space_knob_name(s, i), names[i]);
        assert_int_equal(at_space_knob_kind(s, i), kinds[i]);
    }
}

static void knob_names_and_orders_should_be_tvm_v0_18s(void **state)
{
    (void)state;
    char buf[512];
    const int64_t d[4] = {1, 64, 56, 56}, k[4] = {64, 64, 3, 3}, kd[4] = {64, 1, 3, 3};
    at_task *t = task_of("conv2d_nchw_spatial_pack.arm_cpu", conv_args(buf, sizeof buf, d, k, 1, 1, 1, "float32"));
    static const char *const sp_names[] = {"tile_co", "tile_oh", "tile_ow", "reorder_0", "ann_reduce", "ann_spatial"};
    static const at_knob_kind sp_kinds[] = {AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_REORDER, AT_KNOB_ANNOTATE,
                                            AT_KNOB_ANNOTATE};
    assert_knobs(t, sp_names, sp_kinds, 6);
    /* reorder_0's two candidates, as positions in [n, co, oh, ow, ci, kh, kw, vh, vw, vc] */
    const at_space *s = at_task_space(t);
    assert_int_equal(at_space_dim(s, 3), 2);
    const at_entity *e = at_space_entity(s, 3, 1);
    static const int64_t cand1[10] = {0, 1, 2, 3, 4, 5, 6, 9, 7, 8};
    assert_memory_equal(e->ints, cand1, sizeof cand1);
    /* try_unroll on 2 axes: none none, none unroll, unroll none, unroll unroll */
    assert_int_equal(at_space_dim(s, 4), 4);
    assert_string_equal(at_space_entity(s, 4, 1)->anns[1], "unroll");
    /* try_unroll_vec on 3 axes: 20 entities, the 14th [unroll, unroll, vec] */
    assert_int_equal(at_space_dim(s, 5), 20);
    e = at_space_entity(s, 5, 13);
    assert_string_equal(e->anns[0], "unroll");
    assert_string_equal(e->anns[1], "unroll");
    assert_string_equal(e->anns[2], "vec");
    at_task_free(t);

    t = task_of("depthwise_conv2d_nchw.arm_cpu", conv_args(buf, sizeof buf, d, kd, 1, 1, 1, "float32"));
    static const char *const dw_names[] = {"tile_c", "tile_h", "tile_w", "ann"};
    static const at_knob_kind dw_kinds[] = {AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_ANNOTATE};
    assert_knobs(t, dw_names, dw_kinds, 4);
    at_task_free(t);

    t = task_of("dense_nopack.x86", dense_args(buf, sizeof buf, 1, 1000, 512));
    static const char *const np_names[] = {"tile_y", "tile_x", "tile_k"};
    static const at_knob_kind np_kinds[] = {AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_SPLIT};
    assert_knobs(t, np_names, np_kinds, 3);
    at_task_free(t);

    t = task_of("dense_pack.x86", dense_args(buf, sizeof buf, 1, 1000, 512));
    static const char *const p_names[] = {"tile_y", "tile_x", "tile_k", "tile_inner"};
    static const at_knob_kind p_kinds[] = {AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_SPLIT};
    assert_knobs(t, p_names, p_kinds, 4);
    at_task_free(t);

    /* registered for the llvm family only, and found by name */
    assert_non_null(at_tmpl_find("dense_pack.x86", AT_TARGET_LLVM));
    assert_null(at_tmpl_find("dense_pack.x86", AT_TARGET_OPENCL));
}

static void spaces_should_have_tvm_sizes(void **state)
{
    (void)state;
    char buf[512];
    static const struct {
        int64_t d[4], k[4];
        int     s, p, dil;
    } convs[] = {
        {{1, 3, 224, 224}, {64, 3, 7, 7}, 2, 3, 1},   {{1, 64, 56, 56}, {128, 64, 1, 1}, 2, 0, 1},
        {{1, 256, 14, 14}, {256, 256, 3, 3}, 1, 1, 1}, {{1, 3, 416, 416}, {16, 3, 3, 3}, 1, 1, 1},
        {{2, 8, 30, 30}, {12, 8, 3, 3}, 1, 2, 2},
    };
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
        at_task *t = task_of("conv2d_nchw_spatial_pack.arm_cpu",
                             conv_args(buf, sizeof buf, convs[i].d, convs[i].k, convs[i].s, convs[i].p, convs[i].dil, "float32"));
        int64_t kd = (convs[i].k[2] - 1) * convs[i].dil + 1;
        int64_t oh = (convs[i].d[2] + 2 * convs[i].p - kd) / convs[i].s + 1;
        int64_t want = n_factors(convs[i].k[0]) * n_factors(oh) * n_factors(oh) * 2 * 4 * 20;
        assert_int_equal(at_space_len(at_task_space(t)), want);
        at_task_free(t);

        /* the same data as a depthwise workload (channels = data channels) */
        const int64_t kdw[4] = {convs[i].d[1], 1, convs[i].k[2], convs[i].k[3]};
        t = task_of("depthwise_conv2d_nchw.arm_cpu",
                    conv_args(buf, sizeof buf, convs[i].d, kdw, convs[i].s, convs[i].p, convs[i].dil, "float32"));
        assert_int_equal(at_space_len(at_task_space(t)), n_factors(convs[i].d[1]) * n_factors(oh) * n_factors(oh) * 20);
        at_task_free(t);
    }
    /* depthwise with a channel multiplier: tile_c splits C * M */
    const int64_t d[4] = {1, 6, 10, 10}, km[4] = {6, 2, 3, 3};
    at_task *t = task_of("depthwise_conv2d_nchw.arm_cpu", conv_args(buf, sizeof buf, d, km, 1, 1, 1, "float32"));
    assert_int_equal(at_space_len(at_task_space(t)), n_factors(12) * n_factors(10) * n_factors(10) * 20);
    at_task_free(t);

    static const int64_t dense[][3] = {{1, 1000, 512}, {4, 1000, 2048}, {16, 48, 64}, {32, 30, 17}};
    for (size_t i = 0; i < sizeof dense / sizeof dense[0]; i++) {
        int64_t m = dense[i][0], n = dense[i][1], k = dense[i][2];
        t = task_of("dense_nopack.x86", dense_args(buf, sizeof buf, m, n, k));
        assert_int_equal(at_space_len(at_task_space(t)), n_factors(m) * n_factors(n) * n_factors(k));
        at_task_free(t);
        t = task_of("dense_pack.x86", dense_args(buf, sizeof buf, m, n, k));
        int64_t inner = 0;
        for (int64_t f = 1; f <= 16 && f <= m; f++) inner += m % f == 0;
        assert_int_equal(at_space_len(at_task_space(t)), n_split3(m) * n_split3(n) * n_factors(k) * inner);
        at_task_free(t);
    }
}

static void flops_should_count_as_tvm_compute_flop(void **state)
{
    (void)state;
    char buf[512];
    const int64_t d[4] = {1, 64, 56, 56}, k[4] = {128, 64, 3, 3};
    at_task *arm = task_of("conv2d_nchw_spatial_pack.arm_cpu", conv_args(buf, sizeof buf, d, k, 2, 1, 1, "float32"));
    at_task *mali = NULL;
    assert_ok(at_task_create("conv2d_nchw_spatial_pack.mali", AT_TARGET_OPENCL, buf, &mali));
    /* the same compute (conv2d_spatial_pack_nchw): 2 N CO OH OW CI KH KW + the pad stage's
     * 3 ops per element of the 1 x 64 x 58 x 58 padded input (two padded axes: 4 * 2 - 1 = 7) */
    double want = 2.0 * 128 * 28 * 28 * 64 * 9 + 7.0 * 64 * 58 * 58;
    assert_true(at_task_flop(arm) == want);
    assert_true(at_task_flop(mali) == want);
    at_task_free(arm);
    at_task_free(mali);

    at_task *t = task_of("dense_nopack.x86", dense_args(buf, sizeof buf, 4, 1000, 512));
    assert_true(at_task_flop(t) == 2.0 * 4 * 1000 * 512 + 4 * 1000); /* + the lane sum at tile_k = [-1, 1] */
    at_task_free(t);
    t = task_of("dense_pack.x86", dense_args(buf, sizeof buf, 4, 1000, 512));
    assert_true(at_task_flop(t) == 2.0 * 4 * 1000 * 512);
    at_task_free(t);
}

static void assert_split(const at_config *c, const char *name, const int64_t *want, size_t n)
{
    const at_entity *e = at_config_find(c, name);
    assert_non_null(e);
    assert_int_equal(e->n, n);
    for (size_t i = 0; i < n; i++) assert_int_equal(e->ints[i], want[i]);
}

static void fallbacks_should_be_tvms(void **state)
{
    (void)state;
    char buf[512];
    at_config *c;
    /* _default_dense_nopack_config: tile_k [K / bn, bn], bn the largest divisor of K <= 8 */
    at_task *t = task_of("dense_nopack.x86", dense_args(buf, sizeof buf, 1, 1000, 500));
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    assert_split(c, "tile_k", (int64_t[]){100, 5}, 2);
    assert_split(c, "tile_x", (int64_t[]){1000, 1}, 2);
    assert_split(c, "tile_y", (int64_t[]){1, 1}, 2);
    assert_int_equal(at_config_index(c), -1);
    at_config_free(c);
    at_task_free(t);

    /* _default_dense_pack_config for (M 16, N 1000, K 512): tilex_ii 8, NN 125 (odd: oi 1);
     * tiley_ii 8, MM 2 (<= 4: oi 1) */
    t = task_of("dense_pack.x86", dense_args(buf, sizeof buf, 16, 1000, 512));
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    assert_split(c, "tile_y", (int64_t[]){2, 1, 8}, 3);
    assert_split(c, "tile_x", (int64_t[]){125, 1, 8}, 3);
    assert_split(c, "tile_k", (int64_t[]){512, 1}, 2);
    assert_split(c, "tile_inner", (int64_t[]){2, 8}, 2);
    at_config_free(c);
    at_task_free(t);
    /* N 4096 (NN 512 halves to 4: oi 128), M 1 */
    t = task_of("dense_pack.x86", dense_args(buf, sizeof buf, 1, 4096, 64));
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    assert_split(c, "tile_x", (int64_t[]){4, 128, 8}, 3);
    assert_split(c, "tile_y", (int64_t[]){1, 1, 1}, 3);
    at_config_free(c);
    at_task_free(t);

    /* spatial pack: reference-log fallback over arm_cpu rk3399 records; without them entity 0 */
    const int64_t d[4] = {1, 64, 56, 56}, k[4] = {64, 64, 3, 3};
    t = task_of("conv2d_nchw_spatial_pack.arm_cpu", conv_args(buf, sizeof buf, d, k, 1, 1, 1, "float32"));
    assert_string_equal(at_task_template(t)->ref_backend, "arm_cpu");
    assert_string_equal(at_task_template(t)->ref_model, "rk3399");
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    assert_split(c, "tile_co", (int64_t[]){-1, 1}, 2);
    at_config_free(c);
    /* the [4] record: [1, 64, 56, 56] x [128, 64, 3, 3] stride 2, tile_co [16, 8], tile_oh [28, 1],
     * tile_ow [4, 7], identity order, ann_reduce [unroll, unroll], ann_spatial [none, none, vec] */
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer("armrec", armrec_lines[4], strlen(armrec_lines[4]), &log));
    assert_int_equal(log->n, 1);
    const at_config *refs[1] = {log->recs[0].config};
    assert_ok(at_task_fallback_config(t, refs, 1, &c));
    assert_split(c, "tile_co", (int64_t[]){8, 8}, 2);
    assert_split(c, "tile_oh", (int64_t[]){56, 1}, 2);
    assert_split(c, "tile_ow", (int64_t[]){8, 7}, 2);
    assert_string_equal(at_config_find(c, "ann_reduce")->anns[0], "unroll");
    assert_string_equal(at_config_find(c, "ann_spatial")->anns[2], "vec");
    /* and it instantiates */
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, ar, &p));
    at_arena_free(ar);
    at_config_free(c);
    at_task_free(t);

    /* depthwise: the same reference-log fallback */
    const int64_t kd[4] = {576, 1, 3, 3}, dd[4] = {1, 576, 14, 14};
    t = task_of("depthwise_conv2d_nchw.arm_cpu", conv_args(buf, sizeof buf, dd, kd, 1, 1, 1, "float32"));
    at_rec_log *dlog;
    assert_ok(at_rec_log_load_buffer("armrec", armrec_lines[6], strlen(armrec_lines[6]), &dlog));
    const at_config *drefs[1] = {dlog->recs[0].config};
    assert_ok(at_task_fallback_config(t, drefs, 1, &c));
    assert_split(c, "tile_c", (int64_t[]){144, 4}, 2);
    assert_split(c, "tile_h", (int64_t[]){2, 7}, 2); /* ref [1, 7]: the largest divisor of 14 <= 7 is 7 */
    assert_split(c, "tile_w", (int64_t[]){14, 1}, 2); /* ref [7, 1] */
    assert_string_equal(at_config_find(c, "ann")->anns[0], "unroll");
    at_config_free(c);
    at_task_free(t);
    at_rec_log_free(dlog);
    at_rec_log_free(log);
}

/* The records' index in their own knob order (TVM before 0.7 defined dense_nopack.x86's tile_x
 * before tile_y): the index TVM wrote for those entities. */
static int64_t record_order_index(const at_space *s, const at_config *c, int64_t space_index)
{
    int64_t pos[16];
    at_space_point_to_knobs(s, space_index, pos);
    int64_t out = 0, radix = 1;
    for (size_t i = 0; i < at_config_len(c); i++) {
        size_t k;
        assert_true(at_space_find_knob(s, at_config_at(c, i)->name, &k));
        out += pos[k] * radix;
        radix *= at_space_dim(s, k);
    }
    return out;
}

/* The six arm_cpu/x86 records of TopHub's vta_v0.10 pack (llvm -device=arm_cpu -model=pynq). */
static at_rec_log *vta_llvm_records(char *path, size_t n)
{
    size_t len;
    char *text = at_test_read_file(at_test_shared_path("data/tophub/vta_v0.10.log"), &len);
    assert_non_null(text);
    char *kept = at_calloc(1, len + 1);
    assert_non_null(kept);
    size_t k = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t l = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (!strncmp(line, "{\"input\": [\"llvm", 16)) {
            memcpy(kept + k, line, l);
            k += l;
        }
        line = nl ? nl + 1 : NULL;
    }
    snprintf(path, n, "%s/vta_llvm.log", at_test_tmpdir("arm_cpu_vta"));
    at_test_write_file(path, kept);
    at_free(kept);
    at_free(text);
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(path, &log));
    return log;
}

static void vta_pack_records_should_name_their_indices(void **state)
{
    (void)state;
    char path[4200];
    at_rec_log *log = vta_llvm_records(path, sizeof path);
    assert_int_equal(log->n, 6);
    size_t n_conv = 0, n_dense = 0;
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        at_task *t = task_of(r->task_name, r->args_json);
        const at_space *s = at_task_space(t);
        int64_t idx;
        if (!strcmp(r->task_name, "conv2d_nchw_spatial_pack.arm_cpu")) {
            n_conv++;
            at_status st = at_space_index_of(s, r->config, &idx);
            if (strstr(r->args_json, "[1, 3, 416, 416]")) {
                /* YOLO's record is resnet's copied: [8, 8] on 16 channels, applied by its inner sizes */
                assert_int_equal(st, AT_EPARSE);
                assert_true(at_task_template(t)->entities_as_given);
                assert_ok(at_space_index_of_as_given(s, r->config, &idx));
            } else {
                assert_ok(st);
                assert_int_equal(idx, at_config_index(r->config));
            }
        } else {
            n_dense++;
            assert_string_equal(r->task_name, "dense_nopack.x86");
            assert_ok(at_space_index_of(s, r->config, &idx));
            /* written in the order tile_x, tile_y, tile_k */
            assert_int_equal(record_order_index(s, r->config, idx), at_config_index(r->config));
            if (strstr(r->args_json, "[4, 512]")) assert_int_equal(idx, 101); /* 129 in the old order */
        }
        /* every record's config instantiates */
        at_arena *ar;
        assert_ok(at_arena_new(0, &ar));
        at_config *c;
        assert_ok(at_task_config(t, idx, &c));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, c, ar, &p));
        at_config_free(c);
        at_arena_free(ar);
        at_task_free(t);
    }
    assert_int_equal(n_conv, 2);
    assert_int_equal(n_dense, 4);
    at_rec_log_free(log);
}

static void arm_cpu_pack_lines_should_map_onto_their_spaces(void **state)
{
    (void)state;
    size_t n = sizeof armrec_lines / sizeof armrec_lines[0];
    assert_int_equal(n, 8);
    for (size_t i = 0; i < n; i++) {
        at_rec_log *log;
        assert_ok(at_rec_log_load_buffer("armrec", armrec_lines[i], strlen(armrec_lines[i]), &log));
        assert_int_equal(log->n, 1);
        const at_rec *r = &log->recs[0];
        at_task *t = task_of(r->task_name, r->args_json);
        int64_t idx;
        assert_ok(at_space_index_of(at_task_space(t), r->config, &idx));
        assert_int_equal(idx, at_config_index(r->config));
        at_task_free(t);
        at_rec_log_free(log);
    }
}

static char out_text[1 << 14];

/* at_cmd_records_check("check", path) with stdout captured into out_text. */
static int records_check(const char *path_in)
{
    char path[4200];
    snprintf(path, sizeof path, "%s", path_in);
    const char *args[] = {"check", path};
    char *t = NULL;
    int rc = at_test_run_stdout(at_cmd_records_check, "arm_cpu_rc_out", args, 2, &t);
    snprintf(out_text, sizeof out_text, "%s", t);
    at_free(t);
    return rc;
}

static void records_check_should_accept_the_real_records(void **state)
{
    (void)state;
    char path[4200];
    at_rec_log_free(vta_llvm_records(path, sizeof path));
    int rc = records_check(path);
    if (rc != 0 || strcmp(out_text, "6/6 records valid\n") != 0) {
        print_error("%s", out_text);
        fail();
    }
    char text[1 << 13] = "";
    for (size_t i = 0; i < sizeof armrec_lines / sizeof armrec_lines[0]; i++) {
        strcat(text, armrec_lines[i]);
        strcat(text, "\n");
    }
    snprintf(path, sizeof path, "%s/armrec.log", at_test_tmpdir("arm_cpu_rc"));
    at_test_write_file(path, text);
    rc = records_check(path);
    if (rc != 0 || strcmp(out_text, "8/8 records valid\n") != 0) {
        print_error("%s", out_text);
        fail();
    }
    /* an index neither knob order gives is still refused */
    static const char bad[] =
        "{\"input\": [\"llvm -device=arm_cpu -model=pynq -mtriple=armv7a-linux-eabi -mattr=+neon\", \"dense_nopack.x86\", "
        "[[\"TENSOR\", [4, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"], {}], \"config\": "
        "{\"index\": 130, \"code_hash\": null, \"entity\": [[\"tile_x\", \"sp\", [500, 2]], [\"tile_y\", \"sp\", [1, 4]], "
        "[\"tile_k\", \"sp\", [128, 4]]]}, \"result\": [[0.0026334728000000003], 0, 37.781784772872925, 1565914117.3017628], "
        "\"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}\n";
    snprintf(path, sizeof path, "%s/bad.log", at_test_tmpdir("arm_cpu_rc"));
    at_test_write_file(path, bad);
    assert_int_equal(records_check(path), 1);
    assert_non_null(strstr(out_text, "index 130, but its entities give 101"));
    assert_non_null(strstr(out_text, "0/1 records valid\n"));
}

static void targets_should_parse_to_the_arm_cpu_strategy(void **state)
{
    (void)state;
    at_target tg;
    assert_ok(at_target_parse("llvm -device=arm_cpu", &tg));
    assert_int_equal(tg.n_keys, 2);
    assert_string_equal(tg.keys[0], "arm_cpu");
    assert_string_equal(tg.keys[1], "cpu");
    at_target_fini(&tg);
    assert_ok(at_target_parse("llvm", &tg));
    assert_int_equal(tg.n_keys, 1);
    assert_string_equal(tg.keys[0], "cpu");
    at_target_fini(&tg);

    at_net_target t;
    assert_ok(at_net_target_parse("arm_cpu", &t));
    assert_int_equal(t, AT_NET_TARGET_ARM_CPU);
    assert_ok(at_net_target_parse("llvm -device=arm_cpu -model=rk3399 -mtriple=aarch64-linux-gnu", &t));
    assert_int_equal(t, AT_NET_TARGET_ARM_CPU);
    assert_string_equal(at_net_target_string(AT_NET_TARGET_ARM_CPU), "llvm -device=arm_cpu");
    assert_int_equal(at_net_target_family(AT_NET_TARGET_ARM_CPU), AT_TARGET_LLVM);
    /* plain llvm is TVM's x86 strategy */
    assert_ok(at_net_target_parse("llvm", &t));
    assert_int_equal(t, AT_NET_TARGET_X86);
}

/* Counts tasks by template in an extraction. */
static void count_templates(const at_net_tasks *ts, size_t *sp, size_t *wg, size_t *dw, size_t *np, size_t *pk)
{
    *sp = *wg = *dw = *np = *pk = 0;
    for (size_t i = 0; i < at_net_tasks_count(ts); i++) {
        const char *name = at_task_template(at_net_tasks_at(ts, i))->name;
        if (!strcmp(name, "conv2d_nchw_spatial_pack.arm_cpu"))
            ++*sp;
        else if (!strcmp(name, "conv2d_nchw_winograd.arm_cpu"))
            ++*wg;
        else if (!strcmp(name, "depthwise_conv2d_nchw.arm_cpu"))
            ++*dw;
        else if (!strcmp(name, "dense_nopack.x86"))
            ++*np;
        else if (!strcmp(name, "dense_pack.x86"))
            ++*pk;
        else
            fail_msg("unexpected template %s", name);
    }
}

static void resnet18_and_mobilenet_should_extract_arm_cpu_tasks(void **state)
{
    (void)state;
    at_net_opts o = {0};
    at_net *net;
    at_net_tasks *ts;
    size_t sp, wg, dw, np, pk;
    assert_ok(at_net_load("resnet-18", &o, &net));
    assert_ok(at_net_extract(net, AT_NET_TARGET_ARM_CPU, AT_NET_OPS_ALL, &ts));
    count_templates(ts, &sp, &wg, &dw, &np, &pk);
    assert_int_equal(sp, 12); /* resnet-18's distinct convolutions */
    assert_int_equal(wg, 4);  /* its 3x3 stride-1 ones */
    assert_int_equal(dw, 0);
    assert_int_equal(np, 1);
    assert_int_equal(pk, 1);
    assert_int_equal(at_net_tasks_count(ts), 18);
    /* lowering order: the stem first, winograd right after the spatial pack of the same
     * convolution, the dense pair last, nopack before pack */
    assert_string_equal(at_net_tasks_args_json(ts, 0),
                        "[[\"TENSOR\", [1, 3, 224, 224], \"float32\"], [\"TENSOR\", [64, 3, 7, 7], \"float32\"], [2, 2], "
                        "[3, 3, 3, 3], [1, 1], \"float32\"]");
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 1))->name, "conv2d_nchw_spatial_pack.arm_cpu");
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 2))->name, "conv2d_nchw_winograd.arm_cpu");
    assert_string_equal(at_net_tasks_args_json(ts, 2), at_net_tasks_args_json(ts, 1));
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 16))->name, "dense_nopack.x86");
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 17))->name, "dense_pack.x86");
    assert_string_equal(at_net_tasks_args_json(ts, 16),
                        "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"]");
    /* the dense node's implementations, with TVM's plevels (pack is the untuned choice) */
    const at_net_impl *impls;
    size_t node = at_net_tasks_first_node(ts, 16);
    assert_int_equal(at_net_tasks_node_impls(ts, node, &impls), 2);
    assert_int_equal(impls[0].plevel, 5);
    assert_int_equal(impls[1].plevel, 10);
    /* a 3x3 stride-1 convolution: spatial pack (10, the untuned choice) then winograd (5) */
    node = at_net_tasks_first_node(ts, 2);
    assert_int_equal(at_net_tasks_node_impls(ts, node, &impls), 2);
    assert_int_equal(impls[0].plevel, 10);
    assert_int_equal(impls[1].plevel, 5);
    assert_int_equal(impls[1].task, 2);
    at_net_tasks_free(ts);
    assert_ok(at_net_extract(net, AT_NET_TARGET_ARM_CPU, AT_NET_OPS_CONV2D, &ts));
    assert_int_equal(at_net_tasks_count(ts), 16);
    at_net_tasks_free(ts);
    at_net_free(net);

    assert_ok(at_net_load("mobilenet", &o, &net));
    assert_ok(at_net_extract(net, AT_NET_TARGET_ARM_CPU, AT_NET_OPS_ALL, &ts));
    count_templates(ts, &sp, &wg, &dw, &np, &pk);
    assert_int_equal(sp, 10);
    assert_int_equal(wg, 0); /* no 3x3 stride-1 dense convolution */
    assert_int_equal(dw, 9);
    assert_int_equal(np + pk, 2);
    at_net_tasks_free(ts);
    at_net_free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(knob_names_and_orders_should_be_tvm_v0_18s),
        cmocka_unit_test(spaces_should_have_tvm_sizes),
        cmocka_unit_test(flops_should_count_as_tvm_compute_flop),
        cmocka_unit_test(fallbacks_should_be_tvms),
        cmocka_unit_test(vta_pack_records_should_name_their_indices),
        cmocka_unit_test(arm_cpu_pack_lines_should_map_onto_their_spaces),
        cmocka_unit_test(records_check_should_accept_the_real_records),
        cmocka_unit_test(targets_should_parse_to_the_arm_cpu_strategy),
        cmocka_unit_test(resnet18_and_mobilenet_should_extract_arm_cpu_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
