/* Grouped convolution and channel shuffle (issue 17): the op kind group_conv2d_nchw (workload
 * text in TVM's order, errors, FLOPs, hand-worked reference values), its templates
 * group_conv2d_nchw.x86 / .arm_cpu (space, TVM's fallback, every config of small workloads on the
 * IR interpreter against the reference), and imported ONNX models: a grouped Conv becomes a
 * group_conv2d_nchw task on llvm and arm_cpu and an untuned direct program on mali; torch's
 * channel shuffle (Reshape rank 5 -> Transpose -> Reshape) becomes one transpose node; the model
 * runs on the LLVM backend and the interpreter as on the reference executor. Slice, which
 * shufflenet's channel split needs: a runtime slice crops, a constant one folds. */
#include "tests/support/test_support.h"
#include "tests/support/test_onnx_support.h"
#include "tests/support/test_group_conv_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/arena.h"
#include "core/strbuf.h"
#include "knobs/config.h"
#include "templates/template.h"
#include "tune/llvm_backend.h"

static at_task *task(const char *name, const char *args)
{
    at_task *t = NULL;
    assert_ok(at_task_create(name, AT_TARGET_LLVM, args, &t));
    return t;
}

static char *workload_of(const at_task *t)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_task_write_workload(t, &sb);
    return at_strbuf_take(&sb);
}

static void workload_should_be_group_conv2ds_argument_list(void **state)
{
    (void)state;
    at_task *t = task("group_conv2d_nchw.x86", "1,48,56,56,48,3,3,2,1,6");
    char *w = workload_of(t);
    assert_string_equal(w, "[\"group_conv2d_nchw.x86\", [\"TENSOR\", [1, 48, 56, 56], \"float32\"], [\"TENSOR\", [48, 8, 3, 3], "
                           "\"float32\"], [2, 2], [1, 1, 1, 1], [1, 1], 6, \"float32\"]");
    at_free(w);
    at_task_free(t);
    /* the JSON form reads back byte for byte, int padding and asymmetric padding included */
    const char *forms[] = {
        "[[\"TENSOR\", [1, 6, 8, 7], \"float32\"], [\"TENSOR\", [6, 2, 3, 3], \"float32\"], [1, 1], [0, 1, 0, 1], [1, 1], 3, "
        "\"float32\"]",
        "[[\"TENSOR\", [2, 8, 9, 9], \"float32\"], [\"TENSOR\", [4, 4, 3, 3], \"float32\"], 2, 1, 1, 2, \"float32\"]",
    };
    for (size_t k = 0; k < 2; k++) {
        t = task("group_conv2d_nchw.arm_cpu", forms[k]);
        w = workload_of(t);
        char want[400];
        snprintf(want, sizeof want, "[\"group_conv2d_nchw.arm_cpu\", %s", forms[k] + 1);
        assert_string_equal(w, want);
        at_free(w);
        at_task_free(t);
    }
}

static void bad_arguments_should_name_the_problem(void **state)
{
    (void)state;
    static const struct { const char *args, *msg; } cases[] = {
        {"1,6,8,8,4,3,3,1,1,4", "groups 4 must divide the input channels (6) and the output channels (4)"},
        {"1,6,8,8,6,3,3,1,1,0", "groups must be in 1 .. 2^24, got 0"},
        {"[[\"TENSOR\", [1, 6, 8, 8], \"float32\"], [\"TENSOR\", [6, 3, 3, 3], \"float32\"], 1, 1, 1, 3, \"float32\"]",
         "kernel takes 3 input channels per group, data has 6 in 3 groups"},
        {"[[\"TENSOR\", [1, 6, 8, 8], \"float32\"], [\"TENSOR\", [6, 2, 3, 3], \"float32\"], 1, 1, 1, \"float32\"]",
         "expected [data, kernel, strides, padding, dilation, groups, out_dtype]"},
        {"[[\"TENSOR\", [1, 6, 8, 8], \"float32\"], [\"TENSOR\", [6, 2, 3, 3], \"float32\"], 1, 1, 1, \"3\", \"float32\"]",
         "argument 5 (groups)"},
        {"1,6,2,2,6,3,3,1,0,3", "larger than the padded input"},
        {"1,6,8,8,6,3,3,1,1", "expected N,C,H,W,CO,KH,KW,stride,pad,groups[,dilation][,dtype]"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        at_task *t = NULL;
        at_status st = at_task_create("group_conv2d_nchw.x86", AT_TARGET_LLVM, cases[k].args, &t);
        assert_true(st == AT_EINVAL || st == AT_EPARSE);
        if (!strstr(at_last_error(), cases[k].msg)) fail_msg("%s: got '%s'", cases[k].args, at_last_error());
        assert_null(t);
    }
}

static void flops_should_count_the_x86_compute(void **state)
{
    (void)state;
    /* 2 N CO OH OW (C / groups) KH KW = 2 * 48 * 28 * 28 * 8 * 9, plus topi's pad stage: 7 ops
     * (two padded axes) on each of the 48 * 58 * 58 padded elements */
    at_task *t = task("group_conv2d_nchw.x86", "1,48,56,56,48,3,3,2,1,6");
    assert_true(at_task_flop(t) == 5419008.0 + 1130304.0);
    at_task_free(t);
    t = task("group_conv2d_nchw.x86", "1,8,6,6,4,1,1,1,0,4"); /* no padding: no pad stage */
    assert_true(at_task_flop(t) == 2.0 * 4 * 36 * 2);
    at_task_free(t);
}

static void reference_should_convolve_each_group_alone(void **state)
{
    (void)state;
    at_args a;
    assert_ok(at_op_args_parse(AT_OP_GROUP_CONV2D_NCHW, "1,4,1,1,2,1,1,1,0,2", &a));
    /* group 0: out 0 = 1 * 1 + 2 * 10; group 1: out 1 = 3 * 100 + 4 * 1000 */
    const float x[4] = {1, 2, 3, 4}, w[4] = {1, 10, 100, 1000};
    float y[2];
    at_op_reference(&a, (const void *const[]){x, w}, (void *const[]){y});
    assert_true(y[0] == 21 && y[1] == 4300);
}

static void space_and_fallback_should_be_tvms(void **state)
{
    (void)state;
    at_task *t = task("group_conv2d_nchw.x86", "1,48,56,56,48,3,3,2,1,6");
    assert_int_equal(at_space_len(at_task_space(t)), 10 * 10 * 6 * 2);
    at_config *c;
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_config_write_json(c, &sb);
    /* oc_bn 4 (largest <= 4 dividing 8 per group), ic_bn 4, reg_n 28 (largest <= 31 dividing 28) */
    assert_non_null(strstr(at_strbuf_cstr(&sb), "[[\"tile_ic\", \"sp\", [12, 4]], [\"tile_oc\", \"sp\", [12, 4]], "
                                                "[\"tile_ow\", \"sp\", [1, 28]], [\"unroll_kw\", \"ot\", false]]"));
    at_strbuf_fini(&sb);
    at_config_free(c);
    at_task_free(t);
    /* 3 channels a group: ic_bn 3 would not divide 2 input channels a group -> ic_bn 2 */
    t = task("group_conv2d_nchw.arm_cpu", "1,4,9,9,6,3,3,1,1,2");
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    at_strbuf_init(&sb);
    at_config_write_json(c, &sb);
    assert_non_null(strstr(at_strbuf_cstr(&sb), "[[\"tile_ic\", \"sp\", [2, 2]], [\"tile_oc\", \"sp\", [2, 3]], "
                                                "[\"tile_ow\", \"sp\", [1, 9]], [\"unroll_kw\", \"ot\", false]]"));
    at_strbuf_fini(&sb);
    at_config_free(c);
    at_task_free(t);
}

/* A dilated workload's fallback: TVM sizes tile_ow from the undilated width (11 here, the output
 * is 9 wide), a factor that does not divide; the program guards the tail and still matches. */
static void dilated_fallback_should_run(void **state)
{
    (void)state;
    at_task *t = task("group_conv2d_nchw.x86", "1,4,9,9,4,3,3,1,2,2,2");
    at_config *c;
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    int64_t sizes[2];
    at_config_split(c, 2, sizes, 2);
    assert_int_equal(sizes[1], 11);
    const at_args *a = at_task_args(t);
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    assert_int_equal(at_op_tensors(a, d), 3);
    float x[324], k[72], y[324], ref[324];
    assert_true(d[0].n_elems == 324 && d[1].n_elems == 72 && d[2].n_elems == 324);
    for (int i = 0; i < 324; i++) x[i] = (float)((i * 7) % 13) - 6;
    for (int i = 0; i < 72; i++) k[i] = (float)((i * 5) % 11) - 5;
    at_op_reference(a, (const void *const[]){x, k}, (void *const[]){ref});
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, ar, &p));
    assert_ok(at_ir_interp(p, (void *const[]){x, k, y}));
    assert_memory_equal(y, ref, sizeof y); /* small integers: exact */
    at_arena_free(ar);
    at_config_free(c);
    at_task_free(t);
}

/* Every config of each tiny workload: those whose blocks divide a group's channels run on the
 * interpreter and match the reference; the others are instantiation errors. */
static void every_config_should_match_the_reference(void **state)
{
    (void)state;
    const at_op_def *def = at_op_def_of(AT_OP_GROUP_CONV2D_NCHW);
    size_t n_ok = 0, n_bad = 0;
    for (size_t w = 0; def->tiny[w]; w++) {
        at_task *t = task("group_conv2d_nchw.x86", def->tiny[w]);
        const at_args *a = at_task_args(t);
        at_tensor_desc d[AT_OP_MAX_TENSORS];
        assert_int_equal(at_op_tensors(a, d), 3);
        float *x = at_malloc((size_t)d[0].n_elems * sizeof *x), *k = at_malloc((size_t)d[1].n_elems * sizeof *k);
        float *y = at_malloc((size_t)d[2].n_elems * sizeof *y), *ref = at_malloc((size_t)d[2].n_elems * sizeof *ref);
        at_rng rng;
        at_rng_seed(&rng, 11 + w);
        for (int64_t i = 0; i < d[0].n_elems; i++) x[i] = (float)(at_rng_uniform(&rng) * 2 - 1);
        for (int64_t i = 0; i < d[1].n_elems; i++) k[i] = (float)(at_rng_uniform(&rng) * 2 - 1);
        at_op_reference(a, (const void *const[]){x, k}, (void *const[]){ref});
        for (int64_t idx = 0; idx < at_space_len(at_task_space(t)); idx++) {
            at_config *c;
            assert_ok(at_task_config(t, idx, &c));
            at_arena *ar;
            assert_ok(at_arena_new(0, &ar));
            const at_ir_program *p;
            at_status st = at_task_instantiate(t, c, ar, &p);
            if (st == AT_OK) {
                memset(y, 0xFF, (size_t)d[2].n_elems * sizeof *y);
                assert_ok(at_ir_interp(p, (void *const[]){x, k, y}));
                for (int64_t i = 0; i < d[2].n_elems; i++)
                    if (!(fabs((double)y[i] - ref[i]) <= 1e-5 + 1e-5 * fabs(ref[i])))
                        fail_msg("%s config %lld: element %lld is %g, want %g", def->tiny[w], (long long)idx, (long long)i, y[i], ref[i]);
                n_ok++;
            } else {
                assert_int_equal(st, AT_EINVAL);
                assert_non_null(strstr(at_last_error(), "channels of a group"));
                n_bad++;
            }
            at_arena_free(ar);
            at_config_free(c);
        }
        at_free(x);
        at_free(k);
        at_free(y);
        at_free(ref);
        at_task_free(t);
    }
    print_message("%zu configs matched, %zu refused (blocks not dividing a group)\n", n_ok, n_bad);
    assert_true(n_ok >= 100 && n_bad > 0);
}

/* ---- imported models ---- */

static void shuffle_should_permute_channels(void **state)
{
    (void)state;
    reset();
    static int64_t s5[5] = {1, 3, 2, 1, 1}, s4[4] = {1, 6, 1, 1}, perm[5] = {0, 2, 1, 3, 4};
    init_i64("s5", 5, s5);
    init_i64("s4", 4, s4);
    node("Reshape", "split", "x,s5", "rs", 0);
    attr_ints("perm", 5, perm);
    node("Transpose", "swap", "rs", "tr", 1);
    node("Reshape", "merge", "tr,s4", "y", 0);
    size_t len;
    const int64_t dims[4] = {1, 6, 1, 1};
    uint8_t *bytes = pack(dims, false, 13, &len);
    at_net *raw, *net;
    assert_ok(at_net_onnx_parse(bytes, len, "shuffle.onnx", NULL, NULL, NULL, &raw));
    assert_ok(at_net_fuse(raw, &net));
    /* 3 groups of 2: output channel 2 j + i ... as torch's channel_shuffle: [0, 2, 4, 1, 3, 5] */
    const float x[6] = {0, 1, 2, 3, 4, 5}, want[6] = {0, 2, 4, 1, 3, 5};
    at_net_values *v;
    assert_ok(at_net_run_reference(net, x, false, &v));
    assert_memory_equal(at_net_values_get(v, at_net_output(net)), want, sizeof want);
    size_t n_transpose = 0;
    for (size_t i = 0; i < at_net_n_nodes(net); i++) n_transpose += at_net_node_at(net, i)->op == AT_NET_TRANSPOSE;
    assert_int_equal(n_transpose, 1);
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, AT_NET_TARGET_X86, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e));
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    float got[6];
    assert_ok(at_net_exec_get(e, at_net_output(net), got));
    assert_memory_equal(got, want, sizeof want);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_net_values_free(v);
    at_net_free(net);
    at_net_free(raw);
    at_free(bytes);
}

static void slice_should_crop_and_fold(void **state)
{
    (void)state;
    reset();
    static int64_t st[1] = {2}, en[1] = {INT64_MAX}, ax[1] = {1}, c[4] = {1, 99, 8, 99}, z[1] = {0}, e4[1] = {4}, two[1] = {2};
    init_i64("st", 1, st);
    init_i64("en", 1, en);
    init_i64("ax", 1, ax);
    init_i64("c", 4, c);
    init_i64("z", 1, z);
    init_i64("e4", 1, e4);
    init_i64("two", 1, two);
    node("Slice", "split", "x,st,en,ax", "s", 0);   /* channels 2.. of 4 */
    node("Slice", "shape", "c,z,e4,z,two", "sh", 0); /* [1, 8]: every other value */
    node("Reshape", "flat", "s,sh", "y", 0);
    size_t len;
    const int64_t dims[4] = {1, 4, 2, 2};
    uint8_t *bytes = pack(dims, false, 13, &len);
    at_net *raw, *net;
    assert_ok(at_net_onnx_parse(bytes, len, "slice.onnx", NULL, NULL, NULL, &raw));
    assert_ok(at_net_fuse(raw, &net));
    float x[16], want[8];
    for (int i = 0; i < 16; i++) x[i] = (float)i;
    for (int i = 0; i < 8; i++) want[i] = (float)(8 + i);
    at_net_values *v;
    assert_ok(at_net_run_reference(net, x, false, &v));
    assert_int_equal(at_net_node_numel(at_net_node_at(net, at_net_output(net))), 8);
    assert_memory_equal(at_net_values_get(v, at_net_output(net)), want, sizeof want);
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, AT_NET_TARGET_X86, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e));
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    float got[8];
    assert_ok(at_net_exec_get(e, at_net_output(net), got));
    assert_memory_equal(got, want, sizeof want);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_net_values_free(v);
    at_net_free(net);
    at_net_free(raw);
    at_free(bytes);
}

static void other_rank5_tensors_should_stay_refused(void **state)
{
    (void)state;
    static int64_t s5[5] = {1, 2, 2, 1, 1}, perm[5] = {0, 1, 2, 4, 3}, s4[4] = {1, 4, 1, 1};
    for (int k = 0; k < 2; k++) {
        reset();
        init_i64("s5", 5, s5);
        init_i64("s4", 4, s4);
        node("Reshape", "split", "x,s5", "rs", 0);
        if (k == 0) {
            node("Relu", "relu", "rs", "r", 0); /* not a transpose */
        } else {
            attr_ints("perm", 5, perm); /* a transpose, not of the two group axes */
            node("Transpose", "swap", "rs", "r", 1);
        }
        node("Reshape", "merge", "r,s4", "y", 0);
        size_t len;
        const int64_t dims[4] = {1, 4, 1, 1};
        uint8_t *bytes = pack(dims, false, 13, &len);
        at_net *raw = NULL;
        assert_int_equal(at_net_onnx_parse(bytes, len, "r5.onnx", NULL, NULL, NULL, &raw), AT_EUNSUPPORTED);
        assert_string_equal(at_last_error(), "r5.onnx: node 'split' (Reshape, opset 13): a runtime tensor of rank 5");
        assert_null(raw);
        at_free(bytes);
    }
}

/* The executor's output of net on target through backend be (ctx) against the reference. */
static void expect_like_reference(const at_net *net, at_net_target target, const at_net_backend_i *be, void *ctx,
                                  const float *x, const float *want)
{
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, target, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_ok(at_net_exec_new(net, plan, be, ctx, &e));
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    size_t out = at_net_output(net);
    int64_t n = at_net_node_numel(at_net_node_at(net, out));
    float *got = at_malloc((size_t)n * sizeof *got);
    assert_ok(at_net_exec_get(e, out, got));
    for (int64_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= 1e-5 + 1e-5 * fabs(want[i])))
            fail_msg("%s: element %lld is %g, want %g", at_net_target_name(target), (long long)i, got[i], want[i]);
    at_free(got);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
}

static void grouped_model_should_run_like_the_reference(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bytes = grouped_model(&len);
    at_net *raw, *net;
    assert_ok(at_net_onnx_parse(bytes, len, "grouped.onnx", NULL, NULL, NULL, &raw));
    assert_ok(at_net_fuse(raw, &net));
    /* llvm and arm_cpu: one group_conv2d_nchw task per convolution, TVM's workloads */
    static const char *const want_tasks[2] = {
        "[[\"TENSOR\", [1, 4, 6, 6], \"float32\"], [\"TENSOR\", [8, 2, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], 2, \"float32\"]",
        "[[\"TENSOR\", [1, 8, 6, 6], \"float32\"], [\"TENSOR\", [8, 2, 3, 3], \"float32\"], [2, 2], [1, 1, 1, 1], [1, 1], 4, \"float32\"]",
    };
    at_net_target targets[2] = {AT_NET_TARGET_X86, AT_NET_TARGET_ARM_CPU};
    for (int k = 0; k < 2; k++) {
        at_net_tasks *ts;
        assert_ok(at_net_extract(net, targets[k], AT_NET_OPS_ALL, &ts));
        assert_int_equal(at_net_tasks_count(ts), 2);
        for (size_t i = 0; i < 2; i++) {
            assert_string_equal(at_task_template(at_net_tasks_at(ts, i))->name,
                                k == 0 ? "group_conv2d_nchw.x86" : "group_conv2d_nchw.arm_cpu");
            assert_string_equal(at_net_tasks_args_json(ts, i), want_tasks[i]);
        }
        at_net_tasks_free(ts);
    }
    /* mali and opencl: no task (TVM's Mali strategy has no grouped convolution) */
    at_net_tasks *ts;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_int_equal(at_net_tasks_count(ts), 0);
    at_net_tasks_free(ts);

    int64_t n = at_net_node_numel(at_net_node_at(net, 0));
    float *x = at_malloc((size_t)n * sizeof *x);
    at_rng r;
    at_rng_seed(&r, 3);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(2 * at_rng_uniform(&r) - 1);
    at_net_values *v;
    assert_ok(at_net_run_reference(net, x, false, &v));
    const float *want = at_net_values_get(v, at_net_output(net));
    assert_int_equal(at_net_node_numel(at_net_node_at(net, at_net_output(net))), 8 * 3 * 3);
    double mag = 0;
    for (int i = 0; i < 72; i++) mag += fabs(want[i]);
    assert_true(mag > 1); /* not all clipped by the relu */
    expect_like_reference(net, AT_NET_TARGET_MALI, at_net_interp_backend(), NULL, x, want);
    expect_like_reference(net, AT_NET_TARGET_X86, at_net_interp_backend(), NULL, x, want);
    at_llvm_pool *pool;
    assert_ok(at_tune_llvm_pool_new(2, &pool));
    expect_like_reference(net, AT_NET_TARGET_X86, at_tune_llvm_backend(), pool, x, want);
    expect_like_reference(net, AT_NET_TARGET_ARM_CPU, at_tune_llvm_backend(), pool, x, want);
    at_tune_llvm_pool_free(pool);
    at_net_values_free(v);
    at_free(x);
    at_net_free(net);
    at_net_free(raw);
    at_free(bytes);
}

static void multiplier_depthwise_should_stay_refused(void **state)
{
    (void)state;
    reset();
    static int64_t wd[4] = {8, 1, 3, 3}, k3[2] = {3, 3};
    init_f("w", 4, wd, 1);
    attr_ints("kernel_shape", 2, k3);
    attr_int("group", 4);
    node("Conv", "dw", "x,w", "y", 2);
    size_t len;
    const int64_t dims[4] = {1, 4, 6, 6};
    uint8_t *bytes = pack(dims, false, 13, &len);
    at_net *raw = NULL;
    assert_int_equal(at_net_onnx_parse(bytes, len, "m.onnx", NULL, NULL, NULL, &raw), AT_EUNSUPPORTED);
    assert_string_equal(at_last_error(),
                        "m.onnx: node 'dw' (Conv, opset 13): group 4 with 8 output channels (a depthwise convolution with a channel multiplier)");
    at_free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(workload_should_be_group_conv2ds_argument_list),
        cmocka_unit_test(bad_arguments_should_name_the_problem),
        cmocka_unit_test(flops_should_count_the_x86_compute),
        cmocka_unit_test(reference_should_convolve_each_group_alone),
        cmocka_unit_test(space_and_fallback_should_be_tvms),
        cmocka_unit_test(dilated_fallback_should_run),
        cmocka_unit_test(every_config_should_match_the_reference),
        cmocka_unit_test(shuffle_should_permute_channels),
        cmocka_unit_test(slice_should_crop_and_fold),
        cmocka_unit_test(other_rank5_tensors_should_stay_refused),
        cmocka_unit_test(grouped_model_should_run_like_the_reference),
        cmocka_unit_test(multiplier_depthwise_should_stay_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
