/* ONNX models on the OpenCL executor (PoCL counts as a device): every supported official node
 * test through tune/'s OpenCL backend with the mali templates at their fallback configs, and
 * `autotvm evaluate MODEL.onnx --target mali --check` on a small model that holds the layout
 * and broadcasting node kinds, its --save-output against the reference executor. */
#include "tests/support/test_support.h"
#include "tests/support/test_ocl_ctx_support.h"
#include "tests/support/test_onnx_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include "backends/opencl/opencl.h"
#include "backends/opencl/runtime.h"
#include "tune/ocl_backend.h"

static at_ocl_ctx *ctx;

static int group_setup(void **state)
{
    (void)state;
    ctx = at_test_ocl_ctx_open();
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    at_ocl_ctx_free(ctx);
    return 0;
}

/* Every node test the LLVM backend passes also passes on the OpenCL device. */
static void official_node_tests_should_pass_on_opencl(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof at_test_onnx_passing / sizeof at_test_onnx_passing[0]; i++)
        at_test_onnx_node_run(at_test_onnx_passing[i], AT_NET_TARGET_MALI, at_tune_ocl_backend(), ctx, "opencl");
}

/* A small model of the layout and broadcasting ops between a conv and a classifier: Conv, Mul by
 * a per-channel constant (folded into the conv), Relu, Pad (constant 0.5), AveragePool (ceil_mode,
 * count_include_pad), Transpose, Mul by a constant along the last axis, Sub of two runtime
 * tensors, Concat on axis 3, ReduceMean over H and W, Flatten, Gemm, Softmax. */
static uint8_t *layout_model(size_t *len)
{
    reset();
    static int64_t wd[4] = {4, 3, 3, 3}, bd[1] = {4}, sd[3] = {4, 1, 1}, gd[1] = {6}, fd[2] = {5, 4}, fb[1] = {5};
    static int64_t k3[2] = {3, 3}, s2[2] = {2, 2}, p1[4] = {1, 1, 1, 1}, perm[4] = {0, 1, 3, 2}, hw[2] = {2, 3};
    static int64_t pads[8] = {0, 0, 1, 1, 0, 0, 1, 1};
    init_f("w", 4, wd, 1);
    init_f("b", 1, bd, 2);
    init_f("s", 3, sd, 3);
    init_f("g", 1, gd, 4);
    init_f("fw", 2, fd, 5);
    init_f("fbias", 1, fb, 6);
    init_i64("pads", 8, pads);
    static float half = 0.5f;
    static int64_t scalar_dims[1];
    Onnx__TensorProto *t = &inits[n_inits];
    onnx__tensor_proto__init(t);
    t->name = (char *)"half";
    t->dims = scalar_dims;
    t->has_data_type = 1;
    t->data_type = 1;
    t->n_float_data = 1;
    t->float_data = &half;
    init_ptrs[n_inits++] = t;
    attr_ints("kernel_shape", 2, k3);
    attr_ints("pads", 4, p1);
    node("Conv", "conv", "x,w,b", "c", 2);
    node("Mul", "scale", "c,s", "m", 0);
    node("Relu", "relu", "m", "r", 0);
    node("Pad", "pad", "r,pads,half", "p", 0);
    attr_ints("kernel_shape", 2, k3);
    attr_ints("strides", 2, s2);
    attr_ints("pads", 4, p1);
    attr_int("ceil_mode", 1);
    attr_int("count_include_pad", 1);
    node("AveragePool", "avg", "p", "a", 5);
    attr_ints("perm", 4, perm);
    node("Transpose", "tr", "a", "t", 1);
    node("Mul", "gain", "t,g", "tg", 0);
    node("Sub", "sub", "tg,a", "d", 0);
    attr_int("axis", 3);
    node("Concat", "cat", "d,t", "ct", 1);
    attr_ints("axes", 2, hw);
    node("ReduceMean", "mean", "ct", "rm", 1);
    node("Flatten", "flat", "rm", "f", 0);
    attr_int("transB", 1);
    node("Gemm", "fc", "f,fw,fbias", "fc1", 1);
    node("Softmax", "softmax", "fc1", "y", 0);
    const int64_t dims[4] = {1, 3, 8, 8};
    return pack(dims, false, 13, len);
}

/* `autotvm evaluate MODEL.onnx --target mali --check` on the device: the output matches the
 * reference executor, and --save-output holds it (within 1e-5 of the in-process reference). */
static void evaluate_should_check_an_imported_model_on_opencl(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bytes = layout_model(&len);
    char dir[1024], model[1100], in[1100], out[1100], cmd[10000];
    snprintf(dir, sizeof dir, "%s", at_test_tmpdir("onnx_ocl"));
    snprintf(model, sizeof model, "%s/layout.onnx", dir);
    snprintf(in, sizeof in, "%s/x.npy", dir);
    snprintf(out, sizeof out, "%s/y.npy", dir);
    FILE *fp = fopen(model, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    fclose(fp);
    at_net_opts o = {0};
    at_net *net;
    assert_ok(at_net_load(model, &o, &net));
    int64_t n = at_net_node_numel(at_net_node_at(net, 0));
    assert_int_equal(n, 3 * 64);
    float *x = at_malloc((size_t)n * sizeof *x);
    at_rng r;
    at_rng_seed(&r, 7);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(2 * at_rng_uniform(&r) - 1);
    const int64_t xd[4] = {1, 3, 8, 8};
    assert_ok(at_net_npy_write(in, x, xd, 4));
    snprintf(cmd, sizeof cmd, "%s/cli/autotvm evaluate %s --target mali --no-tophub --repeat 1 --check --input %s "
             "--save-output %s --cache-dir %s 2>&1", getenv("AT_BINARY_DIR"), model, in, out, at_test_pocl_cache_dir());
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    char text[8192];
    size_t got = fread(text, 1, sizeof text - 1, pp);
    text[got] = 0;
    int rc = pclose(pp);
    if (WEXITSTATUS(rc) != 0) fail_msg("evaluate exited %d:\n%s", WEXITSTATUS(rc), text);
    assert_non_null(strstr(text, "Output check: matches the reference executor"));
    float *y;
    int64_t yd[8];
    size_t rank;
    assert_ok(at_net_npy_read(out, &y, yd, &rank));
    assert_int_equal(rank, 2);
    assert_int_equal(yd[1], 5);
    at_net_values *v;
    assert_ok(at_net_run_reference(net, x, false, &v));
    const float *want = at_net_values_get(v, at_net_output(net));
    for (int k = 0; k < 5; k++) assert_true(fabs((double)y[k] - want[k]) <= 1e-5 + 1e-4 * fabs(want[k]));
    /* the per-channel Mul folded into the conv; the rest are nodes of their own */
    size_t count[AT_NET_OP_COUNT] = {0};
    for (size_t i = 0; i < at_net_n_nodes(net); i++) count[at_net_node_at(net, i)->op]++;
    assert_int_equal(count[AT_NET_SCALE_SHIFT], 0);
    assert_int_equal(count[AT_NET_BINARY], 2);
    assert_int_equal(count[AT_NET_CONSTANT], 1);
    assert_int_equal(count[AT_NET_PAD], 1);
    assert_int_equal(count[AT_NET_AVG_POOL2D], 1);
    assert_int_equal(count[AT_NET_TRANSPOSE], 1);
    assert_int_equal(count[AT_NET_REDUCE_MEAN], 1);
    at_net_values_free(v);
    at_net_free(net);
    at_free(y);
    at_free(x);
    at_free(bytes);
    unlink(model);
    unlink(in);
    unlink(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(official_node_tests_should_pass_on_opencl),
        cmocka_unit_test(evaluate_should_check_an_imported_model_on_opencl),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
