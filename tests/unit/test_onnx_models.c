/* Whole ONNX models written in the test with the generated protobuf-c code: a small CNN with
 * every operator torchvision's CNNs use (Conv with bias, BatchNormalization, Relu, MaxPool, a
 * depthwise Conv, Clip as relu6, Add, GlobalAveragePool, Flatten, Gemm, Softmax, and a folded
 * Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain) imports to the graph the same layers
 * built with at_net_append give -- the same outputs, element for element, on the reference
 * executor -- and runs on the LLVM backend; `evaluate` reads --input and writes --save-output
 * .npy files; bad files fail with one line. */
#include "tests/support/test_support.h"
#include "tests/support/test_onnx_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "core/stats.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "onnx.pb-c.h"
#include "tune/network.h"

/* The small CNN; *ref gets the same layers built with at_net_append and the same parameters. */
static uint8_t *small_cnn(size_t *len, at_net **ref)
{
    reset();
    static int64_t k3[2] = {3, 3}, p1[4] = {1, 1, 1, 1}, k2[2] = {2, 2}, s2[2] = {2, 2}, axis0[1] = {0};
    static int64_t wd[4] = {4, 3, 3, 3}, bd[1] = {4}, dwd[4] = {4, 1, 3, 3}, fd[2] = {5, 4}, fb[1] = {5};
    static int64_t idx0[1] = {0}, minus1[1] = {-1};
    float *w = init_f("w", 4, wd, 1), *b = init_f("b", 1, bd, 2), *gamma = init_f("gamma", 1, bd, 3),
          *beta = init_f("beta", 1, bd, 4), *mean = init_f("mean", 1, bd, 5), *var = init_f("var", 1, bd, 6),
          *dw = init_f("dw", 4, dwd, 7), *fw = init_f("fw", 2, fd, 8), *fbias = init_f("fbias", 1, fb, 9);
    for (int i = 0; i < 4; i++) var[i] += 0.5f; /* positive variances */
    init_i64("i0", 1, idx0);
    init_i64("m1", 1, minus1);
    init_i64("zero_i", 0, idx0);
    static float six = 6, zero = 0;
    static int64_t scalar_dims[1];
    /* Clip's bounds as inputs (opset 11+), 0-d float tensors */
    for (int k = 0; k < 2; k++) {
        Onnx__TensorProto *t = &inits[n_inits];
        onnx__tensor_proto__init(t);
        t->name = (char *)(k ? "six" : "zero");
        t->dims = scalar_dims;
        t->has_data_type = 1;
        t->data_type = 1;
        t->n_float_data = 1;
        t->float_data = k ? &six : &zero;
        init_ptrs[n_inits++] = t;
    }
    attr_ints("kernel_shape", 2, k3);
    attr_ints("pads", 4, p1);
    node("Conv", "conv1", "x,w,b", "c1", 2);
    node("BatchNormalization", "bn1", "c1,gamma,beta,mean,var", "bn1o", 0);
    node("Relu", "relu1", "bn1o", "r1", 0);
    attr_ints("kernel_shape", 2, k2);
    attr_ints("strides", 2, s2);
    node("MaxPool", "pool1", "r1", "p1", 2);
    attr_ints("kernel_shape", 2, k3);
    attr_ints("pads", 4, p1);
    attr_int("group", 4);
    node("Conv", "dw1", "p1,dw", "d1", 3);
    node("Clip", "relu6", "d1,zero,six", "c6", 0);
    node("Add", "add1", "c6,p1", "a1", 0);
    node("GlobalAveragePool", "gap", "a1", "g1", 0);
    /* torch.onnx's x.view(x.size(0), -1): Shape -> Gather -> Unsqueeze -> Concat -> Reshape */
    node("Shape", "shape", "g1", "s", 0);
    node("Gather", "gather", "s,zero_i", "s0", 0);
    node("Unsqueeze", "unsq", "s0,i0", "s0u", 0);
    attr_int("axis", 0);
    node("Concat", "cat", "s0u,m1", "newshape", 1);
    node("Reshape", "flat", "g1,newshape", "f1", 0);
    attr_int("transB", 1);
    node("Gemm", "fc", "f1,fw,fbias", "fc1", 1);
    attr_int("axis", -1);
    node("Softmax", "softmax", "fc1", "y", 1);
    (void)axis0;
    const int64_t dims[4] = {1, 3, 8, 8};
    uint8_t *bytes = pack(dims, true, 13, len);

    /* the same layers by hand */
    at_net *net;
    assert_ok(at_net_new("ref", dims, true, 0, &net));
    size_t c1, b1, bn, r1, p, d, c, a, g, f, fc, fcb, in0 = 0;
    at_net_attrs ca = {.channels = 4, .kernel = {3, 3}, .pad = {1, 1, 1, 1}};
    assert_ok(at_net_append(net, AT_NET_CONV2D, "conv1", &in0, 1, &ca, &c1));
    assert_ok(at_net_set_param(net, c1, AT_NET_WEIGHT, w));
    assert_ok(at_net_append(net, AT_NET_BIAS_ADD, "b1", &c1, 1, NULL, &b1));
    assert_ok(at_net_set_param(net, b1, AT_NET_BIAS, b));
    assert_ok(at_net_append(net, AT_NET_BATCH_NORM, "bn1", &b1, 1, NULL, &bn));
    assert_ok(at_net_set_param(net, bn, AT_NET_GAMMA, gamma));
    assert_ok(at_net_set_param(net, bn, AT_NET_BETA, beta));
    assert_ok(at_net_set_param(net, bn, AT_NET_MEAN, mean));
    assert_ok(at_net_set_param(net, bn, AT_NET_VAR, var));
    assert_ok(at_net_append(net, AT_NET_RELU, "r1", &bn, 1, NULL, &r1));
    at_net_attrs pa = {.kernel = {2, 2}, .stride = {2, 2}};
    assert_ok(at_net_append(net, AT_NET_MAX_POOL2D, "p1", &r1, 1, &pa, &p));
    at_net_attrs da = {.channels = 4, .kernel = {3, 3}, .pad = {1, 1, 1, 1}, .groups = 4};
    assert_ok(at_net_append(net, AT_NET_CONV2D, "dw1", &p, 1, &da, &d));
    assert_ok(at_net_set_param(net, d, AT_NET_WEIGHT, dw));
    at_net_attrs clip = {.act = AT_NET_ACT_CLIP, .alpha = 0, .beta = 6};
    assert_ok(at_net_append(net, AT_NET_ACTIVATION, "c6", &d, 1, &clip, &c));
    size_t ins[2] = {c, p};
    assert_ok(at_net_append(net, AT_NET_ADD, "a1", ins, 2, NULL, &a));
    assert_ok(at_net_append(net, AT_NET_GLOBAL_AVG_POOL2D, "g1", &a, 1, NULL, &g));
    assert_ok(at_net_append(net, AT_NET_BATCH_FLATTEN, "f1", &g, 1, NULL, &f));
    at_net_attrs fa = {.channels = 5};
    assert_ok(at_net_append(net, AT_NET_DENSE, "fc", &f, 1, &fa, &fc));
    assert_ok(at_net_set_param(net, fc, AT_NET_WEIGHT, fw));
    assert_ok(at_net_append(net, AT_NET_BIAS_ADD, "fcb", &fc, 1, NULL, &fcb));
    assert_ok(at_net_set_param(net, fcb, AT_NET_BIAS, fbias));
    assert_ok(at_net_append(net, AT_NET_SOFTMAX, "sm", &fcb, 1, NULL, NULL));
    *ref = net;
    return bytes;
}

static float *input(int64_t n)
{
    float *x = at_malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    at_rng r;
    at_rng_seed(&r, 11);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(2 * at_rng_uniform(&r) - 1);
    return x;
}

/* The imported CNN and the hand-built one give the same output bytes on the reference executor
 * (same parameters, same fused graph), and the fused forms have the same tasks. */
static void imported_cnn_should_equal_the_hand_built_graph(void **state)
{
    (void)state;
    size_t len;
    at_net *hand, *hf, *raw, *net;
    uint8_t *bytes = small_cnn(&len, &hand);
    assert_ok(at_net_onnx_parse(bytes, len, "cnn.onnx", NULL, NULL, NULL, &raw));
    assert_ok(at_net_fuse(raw, &net));
    assert_ok(at_net_fuse(hand, &hf));
    assert_int_equal(at_net_n_nodes(net), at_net_n_nodes(hf));
    for (size_t i = 0; i < at_net_n_nodes(net); i++)
        assert_int_equal(at_net_node_at(net, i)->op, at_net_node_at(hf, i)->op);
    int64_t dims[4];
    assert_int_equal(at_net_onnx_rank(net, false, dims), 4);
    assert_int_equal(dims[0], 1); /* the symbolic batch took batch 1 */
    assert_int_equal(at_net_onnx_rank(net, true, dims), 2);
    assert_int_equal(dims[1], 5);
    float *x = input(3 * 64);
    at_net_values *va, *vb;
    assert_ok(at_net_run_reference(net, x, false, &va));
    assert_ok(at_net_run_reference(hf, x, false, &vb));
    assert_memory_equal(at_net_values_get(va, at_net_output(net)), at_net_values_get(vb, at_net_output(hf)), 5 * sizeof(float));
    double sum = 0;
    for (int k = 0; k < 5; k++) sum += at_net_values_get(va, at_net_output(net))[k];
    assert_true(fabs(sum - 1) < 1e-6);
    /* the same tasks as the hand-built graph's (TVM's workload form: spatial pack and winograd
     * for the 3x3 conv, depthwise, dense on mali) */
    at_net_tasks *ts, *th;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_extract(hf, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &th));
    assert_int_equal(at_net_tasks_count(ts), 4);
    assert_int_equal(at_net_tasks_count(th), 4);
    at_net_tasks_free(th);
    at_net_tasks_free(ts);
    at_net_values_free(va);
    at_net_values_free(vb);
    at_free(x);
    at_free(bytes);
    at_net_free(raw);
    at_net_free(net);
    at_net_free(hand);
    at_net_free(hf);
}

/* The hook a paired benchmark runs its peer from: the run numbers it was called with, in order. */
typedef struct hook_calls {
    size_t run[8], n;
} hook_calls;

static void record_run(void *user, size_t run)
{
    hook_calls *h = user;
    if (h->n < 8) h->run[h->n] = run;
    h->n++;
}

/* `evaluate` on the LLVM CPU backend reads --input and writes --save-output: the saved output
 * is the reference executor's within 1e-5. Before each timed run it calls before_run, and it
 * hands back each run's wall time (their median is the one it reports). */
static void evaluate_should_read_input_and_save_output_npy(void **state)
{
    (void)state;
    size_t len;
    at_net *hand;
    uint8_t *bytes = small_cnn(&len, &hand);
    at_net_free(hand);
    char dir[] = "/tmp/at_onnx_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char model[64], in[64], out[64];
    snprintf(model, sizeof model, "%s/cnn.onnx", dir);
    snprintf(in, sizeof in, "%s/in.npy", dir);
    snprintf(out, sizeof out, "%s/out.npy", dir);
    FILE *fp = fopen(model, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    fclose(fp);
    float *x = input(2 * 3 * 64);
    const int64_t xd[4] = {2, 3, 8, 8};
    assert_ok(at_net_npy_write(in, x, xd, 4));
    hook_calls calls = {0};
    double run_ms[3] = {0};
    at_tune_eval_opts o = {.network = model, .target = AT_NET_TARGET_ARM_CPU, .no_tophub = true, .n_threads = 1,
                           .repeat = 3, .input_path = in, .save_output = out, .before_run = record_run,
                           .user = &calls, .run_ms = run_ms};
    o.net.input_shape[0] = 2, o.net.input_shape[1] = 3, o.net.input_shape[2] = 8, o.net.input_shape[3] = 8;
    o.net.input_rank = 4;
    o.net.input_name = "x";
    at_tune_eval_result res;
    assert_ok(at_tune_evaluate(&o, &res));
    assert_int_equal(calls.n, 3);
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(calls.run[k], k);
        assert_true(run_ms[k] > 0);
    }
    assert_true(res.median_ms == at_median(run_ms, 3));
    float *y;
    int64_t yd[8];
    size_t rank;
    assert_ok(at_net_npy_read(out, &y, yd, &rank));
    assert_int_equal(rank, 2);
    assert_int_equal(yd[0], 2);
    assert_int_equal(yd[1], 5);
    at_net *net;
    assert_ok(at_net_load(model, &o.net, &net));
    at_net_values *v;
    assert_ok(at_net_run_reference(net, x, false, &v));
    const float *want = at_net_values_get(v, at_net_output(net));
    for (int k = 0; k < 10; k++) assert_true(fabs(y[k] - want[k]) <= 1e-5);
    /* the header is numpy's: version 1.0, magic + dict + '\n' padded with spaces to 128 bytes */
    fp = fopen(out, "rb");
    char head[128];
    assert_int_equal(fread(head, 1, 128, fp), 128);
    fclose(fp);
    static const char want_head[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 5), }";
    assert_memory_equal(head, want_head, sizeof want_head - 1);
    for (size_t k = sizeof want_head - 1; k < 127; k++) assert_int_equal(head[k], ' ');
    assert_int_equal(head[127], '\n');
    /* an input of the wrong size is refused */
    const int64_t bad[1] = {7};
    assert_ok(at_net_npy_write(in, x, bad, 1));
    assert_int_equal(at_tune_evaluate(&o, &res), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "7 values, the network input takes 384"));
    at_net_values_free(v);
    at_net_free(net);
    at_free(y);
    at_free(x);
    at_free(bytes);
    unlink(model);
    unlink(in);
    unlink(out);
    rmdir(dir);
}

/* Pad's edge and reflect modes (the official node tests of those take int32 inputs) give numpy's
 * np.pad values on the reference executor and on the IR interpreter. */
static void pad_modes_should_give_numpys_values(void **state)
{
    (void)state;
    static const struct { const char *mode; float want[28]; } cases[] = {
        {"reflect", {5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0, 5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0}},
        {"edge", {0, 0, 0, 1, 2, 2, 2, 0, 0, 0, 1, 2, 2, 2, 3, 3, 3, 4, 5, 5, 5, 3, 3, 3, 4, 5, 5, 5}},
    };
    static int64_t pads[8] = {0, 0, 1, 2, 0, 0, 1, 2};
    const float x[6] = {0, 1, 2, 3, 4, 5};
    for (size_t c = 0; c < 2; c++) {
        reset();
        init_i64("pads", 8, pads);
        attr_str("mode", cases[c].mode);
        node("Pad", "pad", "x,pads", "y", 1);
        size_t len;
        const int64_t dims[4] = {1, 1, 2, 3};
        uint8_t *bytes = pack(dims, false, 13, &len);
        at_net *raw, *net;
        assert_ok(at_net_onnx_parse(bytes, len, "pad.onnx", NULL, NULL, NULL, &raw));
        assert_ok(at_net_fuse(raw, &net));
        size_t out = at_net_output(net);
        assert_int_equal(at_net_node_numel(at_net_node_at(net, out)), 28);
        at_net_values *v;
        assert_ok(at_net_run_reference(net, x, false, &v));
        assert_memory_equal(at_net_values_get(v, out), cases[c].want, sizeof cases[c].want);
        at_net_tasks *ts;
        at_net_plan *plan;
        at_net_exec *e;
        assert_ok(at_net_extract(net, AT_NET_TARGET_ARM_CPU, AT_NET_OPS_ALL, &ts));
        assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
        assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e));
        assert_ok(at_net_exec_set_input(e, x));
        assert_ok(at_net_exec_run(e, NULL));
        float got[28];
        assert_ok(at_net_exec_get(e, out, got));
        assert_memory_equal(got, cases[c].want, sizeof got);
        at_net_exec_free(e);
        at_net_plan_free(plan);
        at_net_tasks_free(ts);
        at_net_values_free(v);
        at_net_free(net);
        at_net_free(raw);
        at_free(bytes);
    }
}

/* Every prefix of a model and a few non-models fail with AT_EPARSE / one line, never a crash;
 * an unsupported operator names file, node, op type and opset. */
static void bad_models_should_fail_with_one_line(void **state)
{
    (void)state;
    size_t len;
    at_net *hand, *net;
    uint8_t *bytes = small_cnn(&len, &hand);
    at_net_free(hand);
    for (size_t cut = 0; cut < len; cut += 7) {
        at_status st = at_net_onnx_parse(bytes, cut, "m.onnx", NULL, NULL, NULL, &net);
        assert_int_not_equal(st, AT_OK);
        assert_null(net);
        assert_null(strchr(at_last_error(), '\n'));
    }
    at_free(bytes);
    assert_int_equal(at_net_onnx_parse((const uint8_t *)"hello world", 11, "m.onnx", NULL, NULL, NULL, &net), AT_EPARSE);
    assert_string_equal(at_last_error(), "m.onnx: not an ONNX model (the protobuf does not decode: truncated or another format)");
    /* Einsum is not supported */
    reset();
    node("Einsum", "Einsum_12", "x", "y", 0);
    const int64_t dims[4] = {1, 3, 4, 4};
    bytes = pack(dims, false, 13, &len);
    assert_int_equal(at_net_onnx_parse(bytes, len, "m.onnx", NULL, NULL, NULL, &net), AT_EUNSUPPORTED);
    assert_string_equal(at_last_error(), "m.onnx: node 'Einsum_12' (Einsum, opset 13): operator not supported");
    at_free(bytes);
    /* a missing initializer */
    reset();
    node("Conv", "conv", "x,nowhere", "y", 0);
    bytes = pack(dims, false, 13, &len);
    assert_int_equal(at_net_onnx_parse(bytes, len, "m.onnx", NULL, NULL, NULL, &net), AT_EINVAL);
    assert_string_equal(at_last_error(), "m.onnx: node 'conv' (Conv, opset 13): input 'nowhere' is neither an initializer, "
                                         "a graph input nor an earlier output");
    at_free(bytes);
    /* the CLI: exit 1 and the one line */
    reset();
    node("Einsum", "Einsum_12", "x", "y", 0);
    bytes = pack(dims, false, 13, &len);
    char dir[] = "/tmp/at_onnx_XXXXXX", path[64], cmd[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    FILE *fp = fopen(path, "wb");
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "%s/cli/autotvm tasks %s --target arm_cpu 2>&1", getenv("AT_BINARY_DIR"), path);
    FILE *pp = popen(cmd, "r");
    char line[512] = "";
    assert_non_null(fgets(line, sizeof line, pp));
    int rc = pclose(pp);
    assert_int_equal(WEXITSTATUS(rc), 1);
    char want[256];
    snprintf(want, sizeof want, "autotvm: error: %s: node 'Einsum_12' (Einsum, opset 13): operator not supported\n", path);
    assert_string_equal(line, want);
    unlink(path);
    rmdir(dir);
    at_free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(imported_cnn_should_equal_the_hand_built_graph),
        cmocka_unit_test(evaluate_should_read_input_and_save_output_npy),
        cmocka_unit_test(pad_modes_should_give_numpys_values),
        cmocka_unit_test(bad_models_should_fail_with_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
