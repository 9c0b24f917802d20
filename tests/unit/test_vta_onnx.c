/* Imported models on VTA (networks/vta_onnx.c). A small resnet18_v1-like model written with the
 * generated protobuf-c code -- the zoo's stem (conv 7x7/2 + BatchNormalization + Relu, MaxPool),
 * stage 1 at 64 channels, stage 2 at 128 with its strided 1x1 projection, the head
 * (GlobalAveragePool, Flatten, Gemm) -- lowers to the zoo's VTA form: its conv2d_packed.vta tasks
 * are the zoo resnet-18's tasks of those layers in the zoo's order; `autotvm evaluate M.onnx
 * --target vta --check` is bit-exact on the simulator and --save-output holds the reference
 * executor's logits; graphs that do not quantize as the zoo's fail with one line naming the node. */
#include "tests/support/test_support.h"
#include "tests/support/test_onnx_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/net.h"
#include "networks/vta.h"
#include "onnx.pb-c.h"
#include "templates/ops.h"

enum { HW = 32, CLASSES = 10 };

/* Initializers of this test own heap arrays (the support pool holds 512 floats each). */
static float *owned[MAXN];
static size_t n_owned;
static int64_t dims_pool[MAXN][4];

static void free_owned(void)
{
    for (size_t i = 0; i < n_owned; i++) at_free(owned[i]);
    n_owned = 0;
}

/* A float initializer uniform in [lo, hi) from seed. */
static void init_u(const char *name, size_t rank, const int64_t *dims, double lo, double hi, uint64_t seed)
{
    Onnx__TensorProto *t = &inits[n_inits];
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->n_dims = rank;
    memcpy(dims_pool[n_inits], dims, rank * sizeof *dims);
    t->dims = dims_pool[n_inits];
    t->has_data_type = 1;
    t->data_type = 1;
    int64_t n = 1;
    for (size_t d = 0; d < rank; d++) n *= dims[d];
    float *w = at_malloc((size_t)n * sizeof *w);
    assert_non_null(w);
    owned[n_owned++] = w;
    at_rng r;
    at_rng_seed(&r, seed);
    for (int64_t i = 0; i < n; i++) w[i] = (float)(lo + (hi - lo) * at_rng_uniform(&r));
    t->has_raw_data = 1;
    t->raw_data.len = (size_t)n * sizeof(float);
    t->raw_data.data = (uint8_t *)w;
    init_ptrs[n_inits++] = t;
}

static char strs[MAXN * 4][24];
static size_t n_strs;

static const char *fresh(const char *prefix)
{
    snprintf(strs[n_strs], sizeof strs[0], "%s%zu", prefix, n_strs);
    return strs[n_strs++];
}

/* Conv x -> cout, kxk, stride s, pad p, groups g, with a bias (He-scaled weights); its output. */
static const char *conv(const char *x, int64_t cin, int64_t cout, int64_t k, int64_t s, int64_t p, int64_t g)
{
    static int64_t kk[MAXN][2], ss[MAXN][2], pp[MAXN][4];
    static size_t nc;
    const char *w = fresh("w"), *b = fresh("b"), *y = fresh("conv"), *nm = fresh("Conv_");
    int64_t wd[4] = {cout, cin / g, k, k}, bd[1] = {cout};
    double bound = sqrt(6.0 / (double)(cin / g * k * k));
    init_u(w, 4, wd, -bound, bound, 100 + n_strs);
    init_u(b, 1, bd, -0.1, 0.1, 200 + n_strs);
    kk[nc][0] = kk[nc][1] = k, ss[nc][0] = ss[nc][1] = s;
    for (int i = 0; i < 4; i++) pp[nc][i] = p;
    attr_ints("kernel_shape", 2, kk[nc]);
    attr_ints("strides", 2, ss[nc]);
    attr_ints("pads", 4, pp[nc]);
    attr_int("group", g);
    nc = (nc + 1) % MAXN;
    char in[80];
    snprintf(in, sizeof in, "%s,%s,%s", x, w, b);
    node("Conv", nm, in, y, 4);
    return y;
}

static const char *unary(const char *op, const char *x)
{
    const char *y = fresh("v"), *nm = fresh(op);
    node(op, nm, x, y, 0);
    return y;
}

static const char *add(const char *a, const char *b)
{
    const char *y = fresh("sum"), *nm = fresh("Add_");
    char in[64];
    snprintf(in, sizeof in, "%s,%s", a, b);
    node("Add", nm, in, y, 0);
    return y;
}

/* Stem: Conv 7x7/2 (no bias) + BatchNormalization + Relu, MaxPool 3x3/2. */
static const char *stem(void)
{
    static int64_t k7[2] = {7, 7}, s2[2] = {2, 2}, p3[4] = {3, 3, 3, 3}, k3[2] = {3, 3}, p1[4] = {1, 1, 1, 1};
    static const int64_t wd[4] = {64, 3, 7, 7}, cd[1] = {64};
    init_u("stem_w", 4, wd, -0.15, 0.15, 1);
    attr_ints("kernel_shape", 2, k7);
    attr_ints("strides", 2, s2);
    attr_ints("pads", 4, p3);
    node("Conv", "stem_conv", "x,stem_w", "c0", 3);
    init_u("g", 1, cd, 0.8, 1.2, 2);
    init_u("be", 1, cd, -0.1, 0.1, 3);
    init_u("mu", 1, cd, -0.1, 0.1, 4);
    init_u("var", 1, cd, 0.8, 1.2, 5);
    node("BatchNormalization", "stem_bn", "c0,g,be,mu,var", "c1", 0);
    node("Relu", "stem_relu", "c1", "c2", 0);
    attr_ints("kernel_shape", 2, k3);
    attr_ints("strides", 2, s2);
    attr_ints("pads", 4, p1);
    node("MaxPool", "pool", "c2", "p0", 3);
    return "p0";
}

/* Head: GlobalAveragePool, Flatten, Gemm (transB) -> y. */
static void head(const char *x, int64_t c)
{
    node("GlobalAveragePool", "gap", x, "h0", 0);
    node("Flatten", "flatten", "h0", "h1", 0);
    const int64_t wd[2] = {CLASSES, c}, bd[1] = {CLASSES};
    init_u("fc_w", 2, wd, -0.1, 0.1, 6);
    init_u("fc_b", 1, bd, -0.1, 0.1, 7);
    attr_int("transB", 1);
    node("Gemm", "fc", "h1,fc_w,fc_b", "y", 1);
}

/* A resnet18_v1 unit (Gluon's order: residual + body, relu). */
static const char *unit(const char *x, int64_t cin, int64_t cout, int64_t s)
{
    const char *y = unary("Relu", conv(x, cin, cout, 3, s, 1, 1));
    y = conv(y, cout, cout, 3, 1, 1, 1);
    const char *sc = s == 1 && cin == cout ? x : conv(x, cin, cout, 1, s, 0, 1);
    return unary("Relu", add(sc, y));
}

static uint8_t *small_resnet(size_t *len)
{
    reset();
    free_owned();
    n_strs = 0;
    const char *x = stem();
    x = unit(x, 64, 64, 1);
    x = unit(x, 64, 64, 1);
    x = unit(x, 64, 128, 2);
    x = unit(x, 128, 128, 1);
    head(x, 128);
    const int64_t dims[4] = {1, 3, HW, HW};
    return pack(dims, true, 13, len);
}

static at_net_vta *lower_bytes(const uint8_t *bytes, size_t len, bool with_weights, at_status *st)
{
    at_net *raw = NULL, *g = NULL;
    at_net_vta *v = NULL;
    assert_ok(at_net_onnx_parse(bytes, len, "m.onnx", NULL, NULL, NULL, &raw));
    assert_ok(at_net_fuse(raw, &g));
    at_net_vta_opts o = {.no_weights = !with_weights};
    *st = at_net_vta_from_net(g, &o, &v);
    at_net_free(g);
    at_net_free(raw);
    return v;
}

static void small_resnet_should_give_the_zoos_tasks(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bytes = small_resnet(&len);
    at_status st;
    at_net_vta *net = lower_bytes(bytes, len, true, &st);
    assert_ok(st);
    /* stage 1: 2 x (conv1, conv2, add); stage 2: conv1, conv2, projection, add, then 3 more */
    assert_int_equal(at_net_vta_n_layers(net), 13);
    assert_int_equal(at_net_vta_feat(net), 128);
    assert_int_equal(at_net_vta_num_classes(net), CLASSES);
    assert_int_equal(at_net_vta_image_numel(net), 3 * HW * HW);
    at_net_vta *zoo;
    at_net_vta_opts zo = {.image_hw = HW, .no_weights = true};
    assert_ok(at_net_vta_build("resnet-18", &zo, &zoo));
    /* the zoo's tasks of layers with at most 128 channels, in its order */
    const char *want[16];
    size_t n_want = 0, n_got = 0;
    for (size_t i = 0; i < at_net_vta_n_tasks(zoo); i++) {
        const at_args *a = at_task_args(at_net_vta_task(zoo, i));
        int64_t cb = at_net_vta_task_is_alu(zoo, i) ? a->u.alu_packed.lhs[1] : a->u.conv2d_packed.kernel[0];
        if (cb <= 8) want[n_want++] = at_net_vta_task_args_json(zoo, i);
    }
    bool alu = at_tmpl_find("add.vta", AT_TARGET_VTA) != NULL;
    assert_int_equal(n_want, alu ? 6 : 4);
    for (size_t i = 0; i < at_net_vta_n_tasks(net); i++) {
        assert_true(n_got < n_want);
        assert_string_equal(at_net_vta_task_args_json(net, i), want[n_got]);
        n_got++;
    }
    assert_int_equal(n_got, n_want);
    size_t first_conv = 0;
    while (at_net_vta_task_is_alu(net, first_conv)) first_conv++;
    assert_string_equal(at_net_vta_task_args_json(net, first_conv),
                        "[[\"TENSOR\", [1, 4, 8, 8, 1, 16], \"int8\"], [\"TENSOR\", [8, 4, 1, 1, 16, 16], "
                        "\"int8\"], [2, 2], [0, 0, 0, 0], [1, 1], \"NCHW1n16c\", \"int32\"]");
    /* the reference executor runs it, and int8 stays near the float model: the logits agree in
     * sign with the float graph's where they are not tiny */
    float image[3 * HW * HW], logits[CLASSES];
    at_net_vta_fill_image(net, 3, image);
    assert_ok(at_net_vta_run_reference(net, image, logits, NULL));
    at_net *g;
    assert_ok(at_net_onnx_parse(bytes, len, "m.onnx", NULL, NULL, NULL, &g));
    at_net *fused;
    assert_ok(at_net_fuse(g, &fused));
    at_net_values *v;
    assert_ok(at_net_run_reference(fused, image, false, &v));
    const float *want_f = at_net_values_get(v, at_net_output(fused));
    double num = 0, den = 0;
    for (int k = 0; k < CLASSES; k++) {
        num += (logits[k] - want_f[k]) * (logits[k] - want_f[k]);
        den += want_f[k] * want_f[k];
    }
    print_message("int8 vs float logits: relative error %.3g\n", sqrt(num / den));
    assert_true(sqrt(num / den) < 0.05);
    at_net_values_free(v);
    at_net_free(fused);
    at_net_free(g);
    at_net_vta_free(zoo);
    at_net_vta_free(net);
    at_free(bytes);
    free_owned();
}

static void write_file(const char *path, const uint8_t *bytes, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    fclose(fp);
}

/* Runs cmd; its stdout+stderr into out (NUL-terminated); the exit status. */
static int run(const char *cmd, char *out, size_t cap)
{
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    size_t n = fread(out, 1, cap - 1, pp);
    out[n] = '\0';
    int rc = pclose(pp);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void evaluate_should_be_bit_exact_on_the_simulator(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bytes = small_resnet(&len);
    char dir[] = "/tmp/at_vta_onnx_XXXXXX", model[64], in[64], out[64], cmd[768];
    assert_non_null(mkdtemp(dir));
    snprintf(model, sizeof model, "%s/m.onnx", dir);
    snprintf(in, sizeof in, "%s/x.npy", dir);
    snprintf(out, sizeof out, "%s/y.npy", dir);
    write_file(model, bytes, len);
    at_status st;
    at_net_vta *net = lower_bytes(bytes, len, true, &st);
    assert_ok(st);
    float image[3 * HW * HW], want[CLASSES];
    at_rng r;
    at_rng_seed(&r, 11);
    for (int i = 0; i < 3 * HW * HW; i++) image[i] = (float)at_rng_uniform(&r);
    assert_ok(at_net_npy_write(in, image, (const int64_t[]){1, 3, HW, HW}, 4));
    assert_ok(at_net_vta_run_reference(net, image, want, NULL));
    static char text[1 << 16];
    const char *bin = getenv("AT_BINARY_DIR");
    /* the naive host layers are the reference's own: the logits agree bit for bit */
    snprintf(cmd, sizeof cmd,
             "%s/cli/autotvm evaluate %s --target vta --check --repeat 1 --no-tophub --host naive --input %s "
             "--save-output %s 2>&1",
             bin, model, in, out);
    int rc = run(cmd, text, sizeof text);
    if (rc != 0) fail_msg("%s: exit %d\n%s", cmd, rc, text);
    assert_non_null(strstr(text, "Output check: bit-exact with the reference executor"));
    /* the packed layers carry the model's node names; a fused residual add its conv's + "+add" */
    assert_non_null(strstr(text, "\nConv_3 "));
    assert_non_null(strstr(text, "+add "));
    float *y;
    int64_t yd[8];
    size_t rank;
    assert_ok(at_net_npy_read(out, &y, yd, &rank));
    assert_int_equal(rank, 2);
    assert_int_equal(yd[1], CLASSES);
    assert_memory_equal(y, want, sizeof want);
    at_free(y);
    /* the LLVM host layers (the default): every packed value bit-exact */
    snprintf(cmd, sizeof cmd, "%s/cli/autotvm evaluate %s --target vta --check --repeat 1 --no-tophub 2>&1", bin, model);
    assert_int_equal(run(cmd, text, sizeof text), 0);
    assert_non_null(strstr(text, "Check: packed VTA region bit-exact vs the reference run from the same int8 input: held"));
    /* tasks: the same lines as the zoo's at the same image size */
    snprintf(cmd, sizeof cmd, "%s/cli/autotvm tasks %s --target vta 2>&1", bin, model);
    assert_int_equal(run(cmd, text, sizeof text), 0);
    assert_non_null(strstr(text, "Extracted 4 conv2d tasks:\n(1, 8, 8, 64, 128, 1, 1, 0, 0, 2, 2)\n"
                                 "(1, 8, 8, 64, 64, 3, 3, 1, 1, 1, 1)\n(1, 4, 4, 128, 128, 3, 3, 1, 1, 1, 1)\n"
                                 "(1, 8, 8, 64, 128, 3, 3, 1, 1, 2, 2)\n"));
    at_net_vta_free(net);
    unlink(model);
    unlink(in);
    unlink(out);
    rmdir(dir);
    at_free(bytes);
    free_owned();
}

/* stem, then middle(x) -> (value, channels), then the head. */
static uint8_t *with_middle(int kind, size_t *len)
{
    reset();
    free_owned();
    n_strs = 0;
    const char *x = stem();
    int64_t c = 64;
    if (kind == 0) x = unary("Relu", conv(x, 64, 64, 3, 1, 1, 64));          /* depthwise */
    if (kind == 1) x = unary("Sigmoid", conv(x, 64, 64, 3, 1, 1, 1));        /* sigmoid */
    if (kind == 2) {                                                         /* pre-activation BN */
        static const int64_t cd[1] = {64};
        init_u("g2", 1, cd, 0.8, 1.2, 8);
        init_u("be2", 1, cd, -0.1, 0.1, 9);
        init_u("mu2", 1, cd, -0.1, 0.1, 10);
        init_u("var2", 1, cd, 0.8, 1.2, 11);
        node("BatchNormalization", "preact_bn", "p0,g2,be2,mu2,var2", "bn2", 0);
        x = conv(unary("Relu", "bn2"), 64, 64, 3, 1, 1, 1);
    }
    if (kind == 3) x = unary("Relu", conv(x, 64, 40, 3, 1, 1, 1)), c = 40;   /* 40 channels */
    head(x, c);
    const int64_t dims[4] = {1, 3, HW, HW};
    return pack(dims, false, 13, len);
}

static void graphs_that_do_not_quantize_should_fail_with_one_line(void **state)
{
    (void)state;
    static const char *const want[] = {
        "m.onnx: node 'Conv_3' (nn.conv2d): not quantizable for VTA as the zoo's resnet18_v1 is: a depthwise conv "
        "(groups 64): conv2d_packed.vta takes groups 1 only",
        "m.onnx: node 'Sigmoid5' (sigmoid): not quantizable for VTA as the zoo's resnet18_v1 is: the packed region "
        "holds int8 conv2d (+ bias, relu) and residual adds only",
        "m.onnx: node 'preact_bn' (scale_shift): not quantizable for VTA as the zoo's resnet18_v1 is: a batch_norm not "
        "folded into a conv before it (pre-activation, or on the input) has no int8 form",
        "m.onnx: node 'Conv_3' (nn.conv2d): not quantizable for VTA as the zoo's resnet18_v1 is: VTA packs channels in "
        "blocks of 16: in and out channels must be multiples of 16",
    };
    for (int kind = 0; kind < 4; kind++) {
        size_t len;
        uint8_t *bytes = with_middle(kind, &len);
        at_status st;
        at_net_vta *net = lower_bytes(bytes, len, kind != 1, &st);
        assert_null(net);
        assert_int_equal(st, AT_EUNSUPPORTED);
        if (strcmp(at_last_error(), want[kind])) fail_msg("kind %d: %s", kind, at_last_error());
        if (kind == 1) {
            /* the CLI: exit 1 and the one line, for tasks as for evaluate */
            char dir[] = "/tmp/at_vta_onnx_XXXXXX", model[64], cmd[512], text[1024];
            assert_non_null(mkdtemp(dir));
            snprintf(model, sizeof model, "%s/m.onnx", dir);
            write_file(model, bytes, len);
            for (int c = 0; c < 2; c++) {
                snprintf(cmd, sizeof cmd, "%s/cli/autotvm %s %s --target vta 2>&1", getenv("AT_BINARY_DIR"),
                         c ? "evaluate" : "tasks", model);
                assert_int_equal(run(cmd, text, sizeof text), 1);
                char line[600];
                snprintf(line, sizeof line, "autotvm: error: %s%s\n", model, want[1] + strlen("m.onnx"));
                assert_string_equal(text, line);
            }
            unlink(model);
            rmdir(dir);
        }
        at_free(bytes);
    }
    free_owned();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_resnet_should_give_the_zoos_tasks),
        cmocka_unit_test(evaluate_should_be_bit_exact_on_the_simulator),
        cmocka_unit_test(graphs_that_do_not_quantize_should_fail_with_one_line),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free_owned();
    return rc;
}
