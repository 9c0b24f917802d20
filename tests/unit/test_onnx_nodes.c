/* The official ONNX node tests Debian ships (libonnx-testdata: node/<test>/model.onnx with
 * test_data_set_0/input_*.pb and output_0.pb) for every supported operator: imported with the
 * first input as the network input and the others bound as constants, run by the reference
 * executor and by the tuned executor on the LLVM CPU backend (TVM's fallback configs for the
 * arm_cpu templates), each output against the expected one. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "onnx.pb-c.h"
#include "tune/llvm_backend.h"

#define NODE_DIR "/usr/share/libonnx-testdata/data/node/"

/* The tests run; every one must pass. */
static const char *const passing[] = {
    "test_relu", "test_sigmoid", "test_sigmoid_example", "test_hardsigmoid", "test_hardsigmoid_default",
    "test_hardsigmoid_example", "test_hardswish", "test_leakyrelu", "test_leakyrelu_default", "test_leakyrelu_example",
    "test_clip", "test_clip_default_inbounds", "test_clip_default_max", "test_clip_default_min", "test_clip_example",
    "test_clip_inbounds", "test_clip_outbounds", "test_clip_splitbounds",
    "test_conv_with_autopad_same", "test_conv_with_strides_and_asymmetric_padding", "test_conv_with_strides_no_padding",
    "test_conv_with_strides_padding",
    "test_maxpool_2d_default", "test_maxpool_2d_pads", "test_maxpool_2d_precomputed_pads",
    "test_maxpool_2d_precomputed_same_upper", "test_maxpool_2d_precomputed_strides", "test_maxpool_2d_same_lower",
    "test_maxpool_2d_same_upper", "test_maxpool_2d_strides",
    
    "test_batchnorm_epsilon", "test_batchnorm_example",
    "test_flatten_axis0", "test_flatten_axis1", "test_flatten_axis2", "test_flatten_axis3", "test_flatten_default_axis",
    "test_flatten_negative_axis1", "test_flatten_negative_axis2", "test_flatten_negative_axis3", "test_flatten_negative_axis4",
    "test_gemm_alpha", "test_gemm_beta", "test_gemm_default_no_bias",
    "test_gemm_default_scalar_bias", "test_gemm_default_single_elem_vector_bias", "test_gemm_default_vector_bias",
    "test_gemm_default_zero_bias", "test_gemm_transposeB", "test_matmul_2d",
    "test_reshape_extended_dims", "test_reshape_negative_dim", "test_reshape_negative_extended_dims",
    "test_reshape_one_dim", "test_reshape_reduced_dims", "test_reshape_reordered_all_dims",
    "test_reshape_reordered_last_dims", "test_reshape_zero_and_negative_dim", "test_reshape_zero_dim",
    "test_squeeze", "test_squeeze_negative_axes", "test_unsqueeze_axis_0", "test_unsqueeze_axis_1",
    "test_unsqueeze_axis_2", 
    
    "test_softmax_default_axis", "test_softmax_axis_2", "test_softmax_example", "test_softmax_large_number",
    "test_softmax_negative_axis", "test_identity", "test_dropout_default", "test_dropout_default_old",
    "test_dropout_random_old",
    /* broadcasting element-wise ops (the second operand bound as a constant: a constant node) */
    "test_add", "test_add_bcast", "test_sub", "test_sub_bcast", "test_sub_example", "test_mul", "test_mul_bcast",
    "test_mul_example", "test_div", "test_div_bcast", "test_div_example",
    "test_averagepool_2d_ceil", "test_averagepool_2d_default", "test_averagepool_2d_pads",
    "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_precomputed_pads",
    "test_averagepool_2d_precomputed_pads_count_include_pad", "test_averagepool_2d_precomputed_same_upper",
    "test_averagepool_2d_precomputed_strides", "test_averagepool_2d_same_lower", "test_averagepool_2d_same_upper",
    "test_averagepool_2d_strides", "test_maxpool_2d_ceil",
    "test_constant_pad",
    "test_reduce_mean_default_axes_keepdims_example", "test_reduce_mean_default_axes_keepdims_random",
    "test_reduce_mean_do_not_keepdims_example", "test_reduce_mean_do_not_keepdims_random",
    "test_reduce_mean_keepdims_example", "test_reduce_mean_keepdims_random",
    "test_reduce_mean_negative_axes_keepdims_example", "test_reduce_mean_negative_axes_keepdims_random",
    "test_transpose_default", "test_transpose_all_permutations_0", "test_transpose_all_permutations_1",
    "test_transpose_all_permutations_2", "test_transpose_all_permutations_3", "test_transpose_all_permutations_4",
    "test_transpose_all_permutations_5",
    "test_concat_1d_axis_0", "test_concat_1d_axis_negative_1", "test_concat_2d_axis_0", "test_concat_2d_axis_1",
    "test_concat_2d_axis_negative_1", "test_concat_2d_axis_negative_2", "test_concat_3d_axis_0", "test_concat_3d_axis_1",
    "test_concat_3d_axis_2", "test_concat_3d_axis_negative_1", "test_concat_3d_axis_negative_2",
    "test_concat_3d_axis_negative_3",
    "test_gemm_transposeA", "test_gemm_all_attributes", "test_gemm_default_matrix_bias",
};

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *p = at_malloc((size_t)(n > 0 ? n : 1));
    if (p && fread(p, 1, (size_t)n, fp) != (size_t)n) {
        at_free(p);
        p = NULL;
    }
    fclose(fp);
    *len = (size_t)n;
    return p;
}

/* The float values of a TensorProto file (raw_data or float_data); *n their count. */
static float *tensor_floats(const char *path, int64_t *n)
{
    size_t len;
    uint8_t *b = slurp(path, &len);
    assert_non_null(b);
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, b);
    assert_non_null(t);
    assert_int_equal(t->data_type, 1);
    *n = 1;
    for (size_t d = 0; d < t->n_dims; d++) *n *= t->dims[d];
    float *f = at_malloc((size_t)(*n ? *n : 1) * sizeof *f);
    assert_non_null(f);
    if (t->has_raw_data) memcpy(f, t->raw_data.data, (size_t)*n * sizeof *f);
    else memcpy(f, t->float_data, (size_t)*n * sizeof *f);
    onnx__tensor_proto__free_unpacked(t, NULL);
    at_free(b);
    return f;
}

static void expect_close(const char *test, const char *who, const float *got, const float *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double tol = 1e-5 + 1e-4 * fabs(want[i]);
        if (!(fabs((double)got[i] - want[i]) <= tol))
            fail_msg("%s (%s): element %lld is %.9g, expected %.9g", test, who, (long long)i, got[i], want[i]);
    }
}

static void run_one(const char *test, at_llvm_pool *pool)
{
    char path[512];
    snprintf(path, sizeof path, NODE_DIR "%s/model.onnx", test);
    size_t len;
    uint8_t *model = slurp(path, &len);
    if (!model) fail_msg("%s: cannot read (is libonnx-testdata installed?)", path);
    /* inputs 1.. bound as constants */
    uint8_t *bound[8];
    size_t bound_len[8], nb = 0;
    for (; nb < 8; nb++) {
        snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/input_%zu.pb", test, nb + 1);
        if (!(bound[nb] = slurp(path, &bound_len[nb]))) break;
    }
    at_net_onnx_opts xo = {.bound = (const uint8_t *const *)bound, .bound_len = bound_len, .n_bound = nb};
    at_net *raw, *net;
    at_status st = at_net_onnx_parse(model, len, test, NULL, NULL, &xo, &raw);
    if (st != AT_OK && getenv("AT_ONNX_SURVEY")) {
        printf("FAIL %s: %s\n", test, at_last_error());
        for (size_t k = 0; k < nb; k++) at_free(bound[k]);
        at_free(model);
        return;
    }
    if (st != AT_OK) fail_msg("%s: %s", test, at_last_error());
    if (getenv("AT_ONNX_SURVEY")) printf("ok %s\n", test);
    assert_ok(at_net_fuse(raw, &net));
    int64_t n_in, n_out;
    snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/input_0.pb", test);
    float *x = tensor_floats(path, &n_in);
    snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/output_0.pb", test);
    float *want = tensor_floats(path, &n_out);
    assert_int_equal(n_in, at_net_node_numel(at_net_node_at(net, 0)));
    size_t out = at_net_output(net);
    assert_int_equal(n_out, at_net_node_numel(at_net_node_at(net, out)));
    at_net_values *ref;
    assert_ok(at_net_run_reference(net, x, false, &ref));
    expect_close(test, "reference", at_net_values_get(ref, out), want, n_out);
    at_net_values_free(ref);
    /* compiled: LLVM on this CPU, arm_cpu templates at their fallback configs */
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, AT_NET_TARGET_ARM_CPU, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_ok(at_net_exec_new(net, plan, at_tune_llvm_backend(), pool, &e));
    float *got = at_malloc((size_t)n_out * sizeof *got);
    assert_non_null(got);
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    assert_ok(at_net_exec_get(e, out, got));
    expect_close(test, "llvm", got, want, n_out);
    at_free(got);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_free(x);
    at_free(want);
    for (size_t k = 0; k < nb; k++) at_free(bound[k]);
    at_free(model);
    at_net_free(net);
    at_net_free(raw);
}

/* Every listed node test: the reference and LLVM outputs match ONNX's expected outputs. */
static void official_node_tests_should_pass_on_reference_and_llvm(void **state)
{
    (void)state;
    at_llvm_pool *pool;
    assert_ok(at_tune_llvm_pool_new(1, &pool));
    for (size_t i = 0; i < sizeof passing / sizeof passing[0]; i++) run_one(passing[i], pool);
    at_tune_llvm_pool_free(pool);
}

/* Node tests of operators or forms the graph cannot hold fail with one line naming the node. */
static void unsupported_node_tests_should_fail_with_one_line(void **state)
{
    (void)state;
    static const struct { const char *test, *want; } cases[] = {
        {"test_pow", "test_pow: node '' (Pow, opset 15): operator not supported"},
        {"test_maxpool_2d_dilations", "(MaxPool, opset 12): dilations other than 1"},
        {"test_averagepool_1d_default", "(AveragePool, opset 11): only 2-D pooling (a 4-D input) is supported"},
        {"test_globalaveragepool", "test_globalaveragepool: opset 1 (6 to 18 are supported)"},
        {"test_reflect_pad", "input 'x' has element type 6: only float32 inputs are supported"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, NODE_DIR "%s/model.onnx", cases[i].test);
        size_t len;
        uint8_t *model = slurp(path, &len);
        assert_non_null(model);
        uint8_t *b1 = NULL;
        size_t l1 = 0;
        snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/input_1.pb", cases[i].test);
        b1 = slurp(path, &l1);
        const uint8_t *bound[1] = {b1};
        at_net_onnx_opts xo = {.bound = bound, .bound_len = &l1, .n_bound = b1 ? 1 : 0};
        at_net *net;
        assert_int_equal(at_net_onnx_parse(model, len, cases[i].test, NULL, NULL, &xo, &net), AT_EUNSUPPORTED);
        assert_null(net);
        if (!strstr(at_last_error(), cases[i].want)) fail_msg("%s: got '%s'", cases[i].test, at_last_error());
        assert_null(strchr(at_last_error(), '\n'));
        at_free(b1);
        at_free(model);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(official_node_tests_should_pass_on_reference_and_llvm),
        cmocka_unit_test(unsupported_node_tests_should_fail_with_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
