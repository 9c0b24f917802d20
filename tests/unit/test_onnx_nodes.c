/* The official ONNX node tests Debian ships (libonnx-testdata: node/<test>/model.onnx with
 * test_data_set_0/input_*.pb and output_0.pb) for every supported operator: imported with the
 * first input as the network input and the others bound as constants, run by the reference
 * executor and by the tuned executor on the LLVM CPU backend (TVM's fallback configs for the
 * arm_cpu templates), each output against the expected one. */
#include "tests/support/test_support.h"
#include "tests/support/test_onnx_support.h"

#include "tune/llvm_backend.h"

/* Every listed node test: the reference and LLVM outputs match ONNX's expected outputs. */
static void official_node_tests_should_pass_on_reference_and_llvm(void **state)
{
    (void)state;
    at_llvm_pool *pool;
    assert_ok(at_tune_llvm_pool_new(1, &pool));
    for (size_t i = 0; i < sizeof at_test_onnx_passing / sizeof at_test_onnx_passing[0]; i++)
        at_test_onnx_node_run(at_test_onnx_passing[i], AT_NET_TARGET_ARM_CPU, at_tune_llvm_backend(), pool, "llvm");
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
        {"test_resize_upsample_scales_cubic", "(Resize, opset 13): mode 'cubic' (nearest and linear only)"},
        {"test_convtranspose_1d", "only 2-D transposed convolutions (4-D input and weight) are supported"},
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
