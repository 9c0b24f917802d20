/* conv2d_nchw_winograd.arm_cpu, the int8 form of conv2d_nchw_spatial_pack.arm_cpu and
 * conv2d_transpose_nchw.arm_cpu: knob names and orders, space sizes against TVM's formula, FLOPs,
 * the untuned config, the dtype rules of the conv2d_nchw op kind, the stored index of real TopHub records (tests/data/arm_cpu_v0.08_excerpt.log,
 * lines of the arm_cpu_v0.08 pack) rebuilt from their entities, `records check` on them, and one
 * record's winograd config run on the IR interpreter against the reference. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/alloc.h"
#include "records/log.h"
#include "templates/template.h"
#include "tests/unit/test_arm_cpu_cases.h"

#define WINO "conv2d_nchw_winograd.arm_cpu"
#define SP "conv2d_nchw_spatial_pack.arm_cpu"
#define TRANSPOSE "conv2d_transpose_nchw.arm_cpu"

static at_task *task_of(const char *name, const char *args_json)
{
    at_task *t = NULL;
    assert_ok(at_task_create(name, AT_TARGET_LLVM, args_json, &t));
    return t;
}

/* A stride-1 3x3 convolution with padding 1, float32. */
static const char *conv3x3(char *buf, size_t n, int64_t ci, int64_t hw, int64_t co)
{
    snprintf(buf, n,
             "[[\"TENSOR\", [1, %lld, %lld, %lld], \"float32\"], [\"TENSOR\", [%lld, %lld, 3, 3], \"float32\"], [1, 1], "
             "[1, 1, 1, 1], [1, 1], \"float32\"]",
             (long long)ci, (long long)hw, (long long)hw, (long long)co, (long long)ci);
    return buf;
}

/* Entities of a 2-way factors split of x whose inner size is at most 16. */
static int64_t n_split2_inner16(int64_t x)
{
    int64_t c = 0;
    for (int64_t d = 1; d <= 16 && d <= x; d++) c += x % d == 0;
    return c;
}

static void winograd_knobs_should_be_tvm_v0_18s(void **state)
{
    (void)state;
    char buf[512];
    at_task *t = task_of(WINO, conv3x3(buf, sizeof buf, 64, 56, 64));
    const at_space *s = at_task_space(t);
    static const char *const names[] = {"tile_p", "tile_k", "tile_c", "ann_reduce", "ann_spatial"};
    static const at_knob_kind kinds[] = {AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_SPLIT, AT_KNOB_ANNOTATE, AT_KNOB_ANNOTATE};
    assert_int_equal(at_space_n_knobs(s), 5);
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(at_space_knob_name(s, i), names[i]);
        assert_int_equal(at_space_knob_kind(s, i), kinds[i]);
    }
    /* P = 14 x 14 tiles: inner sizes 1 2 4 7 14; try_unroll on one axis; try_unroll_vec on two
     * axes, at most one vec: 8 */
    assert_int_equal(at_space_dim(s, 0), 5);
    assert_int_equal(at_space_entity(s, 0, 4)->ints[1], 14);
    assert_int_equal(at_space_dim(s, 3), 2);
    assert_int_equal(at_space_dim(s, 4), 8);
    assert_int_equal(at_space_len(s), 2000);
    at_task_free(t);
    assert_non_null(at_tmpl_find(WINO, AT_TARGET_LLVM));
    assert_null(at_tmpl_find(WINO, AT_TARGET_OPENCL));
}

static void winograd_spaces_and_flops_should_be_tvms(void **state)
{
    (void)state;
    char buf[512];
    /* resnet-18's four 3x3 stride-1 convolutions and a ragged one: F(4x4, 3x3) tiles whatever the
     * input size, P = ceil(H / 4) ceil(W / 4) */
    static const int64_t cases[][3] = {{64, 56, 64}, {128, 28, 128}, {256, 14, 256}, {512, 7, 512}, {96, 35, 96}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t ci = cases[i][0], hw = cases[i][1], co = cases[i][2], nt = (hw + 3) / 4;
        at_task *t = task_of(WINO, conv3x3(buf, sizeof buf, ci, hw, co));
        int64_t want = n_split2_inner16(nt * nt) * n_split2_inner16(co) * n_split2_inner16(ci) * 2 * 8;
        assert_int_equal(at_space_len(at_task_space(t)), want);
        /* cfg.add_flop(2 N K H W KH KW C): no padding term */
        assert_true(at_task_flop(t) == 2.0 * (double)co * (double)(hw * hw) * 9.0 * (double)ci);
        at_task_free(t);
    }
    at_task *t = task_of(WINO, conv3x3(buf, sizeof buf, 64, 56, 64));
    assert_true(at_task_flop(t) == 231211008.0);
    at_task_free(t);
}

/* No cfg.is_fallback branch: the untuned config is entity 0 of every knob (inner sizes 1, no
 * annotation). */
static void winograd_fallback_should_be_entity_zero(void **state)
{
    (void)state;
    char buf[512];
    at_task *t = task_of(WINO, conv3x3(buf, sizeof buf, 64, 56, 64));
    at_config *c;
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    for (size_t k = 0; k < 3; k++) assert_int_equal(at_config_at(c, k)->ints[1], 1);
    assert_string_equal(at_config_at(c, 3)->anns[0], "none");
    assert_string_equal(at_config_at(c, 4)->anns[0], "none");
    assert_string_equal(at_config_at(c, 4)->anns[1], "none");
    at_config_free(c);
    at_task_free(t);
}

static void int8_dtypes_should_follow_tvms_quantized_form(void **state)
{
    (void)state;
    at_task *t;
    /* int8 / uint8 data and kernel with an int32 out_dtype: FLOPs as float32's */
    t = task_of(SP, "[[\"TENSOR\", [1, 64, 56, 56], \"int8\"], [\"TENSOR\", [64, 64, 3, 3], \"int8\"], [1, 1], [1, 1, 1, 1], "
                    "[1, 1], \"int32\"]");
    at_task *f = task_of(SP, "[[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [64, 64, 3, 3], \"float32\"], [1, 1], "
                             "[1, 1, 1, 1], [1, 1], \"float32\"]");
    assert_true(at_task_flop(t) == at_task_flop(f));
    assert_int_equal(at_space_len(at_task_space(t)), at_space_len(at_task_space(f)));
    at_op_tolerance tol = at_op_tolerance_of(at_task_args(t));
    assert_true(tol.atol == 0 && tol.rtol == 0);
    at_task_free(f);
    at_task_free(t);
    t = task_of(SP, "[[\"TENSOR\", [1, 4, 6, 6], \"uint8\"], [\"TENSOR\", [4, 4, 3, 3], \"uint8\"], 1, 1, 1, \"int32\"]");
    at_task_free(t);
    /* the comma form: an int8 dtype accumulates in int32 */
    assert_ok(at_task_create(SP, AT_TARGET_LLVM, "1,4,8,8,8,3,3,1,1,int8", &t));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_task_write_workload(t, &sb);
    char *text = at_strbuf_take(&sb);
    if (!strstr(text, "[\"TENSOR\", [1, 4, 8, 8], \"int8\"], [\"TENSOR\", [8, 4, 3, 3], \"int8\"], [1, 1], [1, 1, 1, 1], "
                      "[1, 1], \"int32\"]"))
        fail_msg("workload %s", text);
    at_free(text);
    at_task_free(t);

    /* refused: int8 into a float or int8 out_dtype, int16 data, int8 winograd (TVM's
     * is_winograd_applicable wants float) */
    static const char *const bad[][2] = {
        {SP, "[[\"TENSOR\", [1, 4, 8, 8], \"int8\"], [\"TENSOR\", [8, 4, 3, 3], \"int8\"], 1, 1, 1, \"float32\"]"},
        {SP, "[[\"TENSOR\", [1, 4, 8, 8], \"int8\"], [\"TENSOR\", [8, 4, 3, 3], \"int8\"], 1, 1, 1, \"int8\"]"},
        {SP, "[[\"TENSOR\", [1, 4, 8, 8], \"int16\"], [\"TENSOR\", [8, 4, 3, 3], \"int16\"], 1, 1, 1, \"int32\"]"},
        {SP, "[[\"TENSOR\", [1, 4, 8, 8], \"int8\"], [\"TENSOR\", [8, 4, 3, 3], \"float32\"], 1, 1, 1, \"int32\"]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t = NULL;
        assert_int_equal(at_task_create(bad[i][0], AT_TARGET_LLVM, bad[i][1], &t), AT_EINVAL);
        assert_null(t);
        assert_string_equal(at_last_error(), "template " SP ": conv2d_nchw: dtypes must be float16, float32 or float64, or int8/uint8 data "
                                             "and kernel with an int32 out_dtype");
    }
    t = NULL;
    assert_int_equal(at_task_create(WINO, AT_TARGET_LLVM,
                                    "[[\"TENSOR\", [1, 4, 8, 8], \"int8\"], [\"TENSOR\", [8, 4, 3, 3], \"int8\"], 1, 1, 1, "
                                    "\"int32\"]",
                                    &t),
                     AT_EINVAL);
    assert_string_equal(at_last_error(), "template " WINO ": conv2d_nchw_winograd: dtypes must be float16, float32 or float64");
}

/* conv2d_transpose_nchw.arm_cpu: the spatial pack's knobs over CO, OH, OW; FLOPs as compute_flop
 * counts the conv, nn.pad and nn.dilate stages; the workload written back as TVM's tuple. */
static void transpose_space_and_flops_should_be_tvms(void **state)
{
    (void)state;
    static const char args[] = "[[\"TENSOR\", [1, 128, 32, 32], \"float32\"], [\"TENSOR\", [128, 3, 4, 4], \"float32\"], "
                               "[2, 2], [1, 1, 1, 1], \"float32\", [0, 0]]";
    at_task *t = task_of(TRANSPOSE, args);
    const at_space *s = at_task_space(t);
    static const char *const names[] = {"tile_co", "tile_oh", "tile_ow", "reorder_0", "ann_reduce", "ann_spatial"};
    assert_int_equal(at_space_n_knobs(s), 6);
    for (size_t i = 0; i < 6; i++) assert_string_equal(at_space_knob_name(s, i), names[i]);
    /* CO 3: 2 splits; OH = OW = (32 - 1) 2 - 2 + 4 = 64: 7 each; 2 orders, 4 and 20 annotations */
    assert_int_equal(at_space_len(s), 2 * 7 * 7 * 2 * 4 * 20);
    /* conv 2 x 3 x 64 x 64 x 128 x 16 = 50331648; nn.pad (2 + 2 rows and columns around the
     * 63 x 63 dilated input) 7 x 128 x 67 x 67 = 4022144; nn.dilate 5 x 128 x 63 x 63 = 2540160 */
    assert_true(at_task_flop(t) == 50331648.0 + 4022144.0 + 2540160.0);
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    assert_int_equal(at_op_tensors(at_task_args(t), d), 3);
    assert_int_equal(d[2].shape[1], 3);
    assert_int_equal(d[2].shape[2], 64);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_task_write_workload(t, &sb);
    char *text = at_strbuf_take(&sb);
    assert_string_equal(text, "[\"" TRANSPOSE "\", [\"TENSOR\", [1, 128, 32, 32], \"float32\"], [\"TENSOR\", [128, 3, 4, "
                              "4], \"float32\"], [2, 2], [1, 1, 1, 1], \"float32\", [0, 0]]");
    at_free(text);
    at_task_free(t);
    /* output_padding must stay below the stride; the kernel's first axis is the input channels */
    t = NULL;
    assert_int_equal(at_task_create(TRANSPOSE, AT_TARGET_LLVM,
                                    "[[\"TENSOR\", [1, 4, 5, 5], \"float32\"], [\"TENSOR\", [4, 3, 4, 4], \"float32\"], "
                                    "[2, 2], [1, 1, 1, 1], \"float32\", [2, 0]]",
                                    &t),
                     AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "output_padding must be below the stride, got [2, 0] for strides [2, 2]"));
    assert_int_equal(at_task_create(TRANSPOSE, AT_TARGET_LLVM,
                                    "[[\"TENSOR\", [1, 4, 5, 5], \"float32\"], [\"TENSOR\", [3, 4, 4, 4], \"float32\"], "
                                    "[2, 2], [1, 1, 1, 1], \"float32\", [0, 0]]",
                                    &t),
                     AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "kernel takes 3 input channels, data has 4"));
}

static at_rec_log *excerpt(void)
{
    size_t len;
    char *text = at_test_read_file(at_test_source_path("tests/data/arm_cpu_v0.08_excerpt.log"), &len);
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer("arm_cpu_v0.08_excerpt", text, len, &log));
    at_free(text);
    return log;
}

/* Every record's stored index is the one its entities give in the space rebuilt here, and the
 * config at that index has the record's entities. */
static void tophub_records_should_name_their_indices(void **state)
{
    (void)state;
    at_rec_log *log = excerpt();
    assert_int_equal(log->n, 10);
    static const int64_t want[10] = {1165, 2920, 1892, 1297, 72880, 9467, 12603, 4756, 11596, 11498};
    size_t n_wino = 0, n_int8 = 0, n_transpose = 0;
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        at_task *t = task_of(r->task_name, r->args_json);
        n_wino += !strcmp(r->task_name, WINO);
        n_transpose += !strcmp(r->task_name, TRANSPOSE);
        n_int8 += strstr(r->args_json, "\"int8\"") != NULL;
        assert_int_equal(at_config_index(r->config), want[i]);
        int64_t idx;
        if (i == 4) {
            /* vtacpu's stem record stores tile_co [8, 4], tile_oh [56, 1], tile_ow [56, 8] for 64
             * channels and a 112 x 112 output: TVM applies such entities by their inner sizes
             * (SplitEntity.apply) and never rebuilds the index, so neither does records check; as
             * given they name config 73082 of the space */
            assert_int_equal(at_space_index_of(at_task_space(t), r->config, &idx), AT_EPARSE);
            assert_true(at_task_template(t)->entities_as_given);
            assert_ok(at_space_index_of_as_given(at_task_space(t), r->config, &idx));
            assert_int_equal(idx, 73082);
            at_task_free(t);
            continue;
        }
        assert_ok(at_space_index_of(at_task_space(t), r->config, &idx));
        assert_int_equal(idx, want[i]);
        at_config *c;
        assert_ok(at_task_config(t, idx, &c));
        /* the config at that index has the record's split tails and annotations (its splits
         * start with -1, the record's with the outer size) */
        for (size_t k = 0; k < at_config_len(c); k++) {
            const at_entity *a = at_config_at(c, k), *b = at_config_at(r->config, k);
            assert_string_equal(a->name, b->name);
            assert_int_equal(a->n, b->n);
            for (size_t j = 0; j < a->n; j++) {
                if (a->kind == AT_KNOB_ANNOTATE)
                    assert_string_equal(a->anns[j], b->anns[j]);
                else if (j > 0 || a->kind != AT_KNOB_SPLIT)
                    assert_int_equal(a->ints[j], b->ints[j]);
            }
        }
        at_config_free(c);
        at_task_free(t);
    }
    assert_int_equal(n_wino, 4);
    assert_int_equal(n_int8, 5);
    assert_int_equal(n_transpose, 2);
    at_rec_log_free(log);
}

static void records_check_should_accept_the_excerpt(void **state)
{
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s", at_test_source_path("tests/data/arm_cpu_v0.08_excerpt.log"));
    const char *args[] = {"check", path};
    char *out = NULL;
    int rc = at_test_run_stdout(at_cmd_records_check, "arm_cpu_wino_rc", args, 2, &out);
    if (rc != 0 || strcmp(out, "10/10 records valid\n") != 0) fail_msg("records check: %s", out);
    at_free(out);
}

static at_status interp(const at_ir_program *p, void *const *bufs, size_t n, void *ctx)
{
    (void)n, (void)ctx;
    return at_ir_interp(p, bufs);
}

/* bcm2837's record for (1, 128, 7, 7) x (32, 128, 3, 3): tile_p [2, 2] over 2 x 2 ragged tiles,
 * tile_k [4, 8], tile_c [32, 4], k vectorized: the interpreter matches the reference. */
static void a_tophub_winograd_config_should_match_the_reference(void **state)
{
    (void)state;
    at_rec_log *log = excerpt();
    const at_rec *r = &log->recs[0];
    at_task *t = task_of(r->task_name, r->args_json);
    at_config *c;
    assert_ok(at_task_config(t, at_config_index(r->config), &c));
    assert_true(arm_cpu_check_config(t, c, 7, interp, NULL));
    at_config_free(c);
    at_task_free(t);
    at_rec_log_free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(winograd_knobs_should_be_tvm_v0_18s),
        cmocka_unit_test(winograd_spaces_and_flops_should_be_tvms),
        cmocka_unit_test(winograd_fallback_should_be_entity_zero),
        cmocka_unit_test(int8_dtypes_should_follow_tvms_quantized_form),
        cmocka_unit_test(transpose_space_and_flops_should_be_tvms),
        cmocka_unit_test(tophub_records_should_name_their_indices),
        cmocka_unit_test(records_check_should_accept_the_excerpt),
        cmocka_unit_test(a_tophub_winograd_config_should_match_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
