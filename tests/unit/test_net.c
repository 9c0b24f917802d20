/* networks/: relay.testing graphs, fusion and task extraction -- the exact task lists of
 * spec/templates_vta.md §2.2 (resnet-18) and §2.4 (mobilenet) with args text, FLOPs and space
 * sizes, the counts of §2.6, dedup, --ops, targets, TopHub coverage (§2.5) and failure paths. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "core/target.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "records/best.h"
#include "records/log.h"
#include "records/record.h"

/* One expected conv task: template tag (S spatial pack, W winograd, D depthwise), data, kernel,
 * stride, pad (all four sides), space, FLOPs. */
typedef struct conv_row {
    char    tmpl;
    int64_t data[4], kernel[4], stride, pad;
    int64_t space;
    double  flop;
} conv_row;

static const char *tmpl_name(char tag)
{
    return tag == 'S' ? "conv2d_nchw_spatial_pack.mali"
           : tag == 'W' ? "conv2d_nchw_winograd.mali"
                        : "depthwise_conv2d_nchw.mali";
}

static void args_text(const conv_row *r, char *out, size_t n)
{
    snprintf(out, n,
             "[[\"TENSOR\", [%lld, %lld, %lld, %lld], \"float32\"], [\"TENSOR\", [%lld, %lld, %lld, %lld], \"float32\"], "
             "[%lld, %lld], [%lld, %lld, %lld, %lld], [1, 1], \"float32\"]",
             (long long)r->data[0], (long long)r->data[1], (long long)r->data[2], (long long)r->data[3],
             (long long)r->kernel[0], (long long)r->kernel[1], (long long)r->kernel[2], (long long)r->kernel[3],
             (long long)r->stride, (long long)r->stride, (long long)r->pad, (long long)r->pad, (long long)r->pad,
             (long long)r->pad);
}

/* spec §2.2 */
static const conv_row resnet18[16] = {
    {'S', {1, 3, 224, 224}, {64, 3, 7, 7}, 2, 3, 9072000, 237138804},
    {'S', {1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, 4032000, 232718080},
    {'W', {1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, 29400, 231211008},
    {'S', {1, 64, 56, 56}, {64, 64, 1, 1}, 1, 0, 4032000, 25690112},
    {'S', {1, 64, 56, 56}, {128, 64, 3, 3}, 2, 1, 1866240, 117112576},
    {'S', {1, 64, 56, 56}, {128, 64, 1, 1}, 2, 0, 1866240, 12845056},
    {'S', {1, 128, 28, 28}, {128, 128, 3, 3}, 1, 1, 1866240, 232017408},
    {'W', {1, 128, 28, 28}, {128, 128, 3, 3}, 1, 1, 38400, 231211008},
    {'S', {1, 128, 28, 28}, {256, 128, 3, 3}, 2, 1, 583200, 116411904},
    {'S', {1, 128, 28, 28}, {256, 128, 1, 1}, 2, 0, 583200, 12845056},
    {'S', {1, 256, 14, 14}, {256, 256, 3, 3}, 1, 1, 583200, 231669760},
    {'W', {1, 256, 14, 14}, {256, 256, 3, 3}, 1, 1, 38400, 231211008},
    {'S', {1, 256, 14, 14}, {512, 256, 3, 3}, 2, 1, 79200, 116064256},
    {'S', {1, 256, 14, 14}, {512, 256, 1, 1}, 2, 0, 79200, 12845056},
    {'S', {1, 512, 7, 7}, {512, 512, 3, 3}, 1, 1, 79200, 231501312},
    {'W', {1, 512, 7, 7}, {512, 512, 3, 3}, 1, 1, 38400, 231211008},
};

/* spec §2.4 */
static const conv_row mobilenet[19] = {
    {'S', {1, 3, 224, 224}, {32, 3, 3, 3}, 2, 1, 6804000, 22748628},
    {'D', {1, 32, 112, 112}, {32, 1, 3, 3}, 1, 1, 850500, 10136448},
    {'S', {1, 32, 112, 112}, {64, 32, 1, 1}, 1, 0, 9072000, 51380224},
    {'D', {1, 64, 112, 112}, {64, 1, 3, 3}, 2, 1, 504000, 9434880},
    {'S', {1, 64, 56, 56}, {128, 64, 1, 1}, 1, 0, 5184000, 51380224},
    {'D', {1, 128, 56, 56}, {128, 1, 3, 3}, 1, 1, 648000, 10239488},
    {'S', {1, 128, 56, 56}, {128, 128, 1, 1}, 1, 0, 5184000, 102760448},
    {'D', {1, 128, 56, 56}, {128, 1, 3, 3}, 2, 1, 233280, 4820480},
    {'S', {1, 128, 28, 28}, {256, 128, 1, 1}, 1, 0, 2332800, 51380224},
    {'D', {1, 256, 28, 28}, {256, 1, 3, 3}, 1, 1, 291600, 5225472},
    {'S', {1, 256, 28, 28}, {256, 256, 1, 1}, 1, 0, 2332800, 102760448},
    {'D', {1, 256, 28, 28}, {256, 1, 3, 3}, 2, 1, 72900, 2515968},
    {'S', {1, 256, 14, 14}, {512, 256, 1, 1}, 1, 0, 712800, 51380224},
    {'D', {1, 512, 14, 14}, {512, 1, 3, 3}, 1, 1, 89100, 2723840},
    {'S', {1, 512, 14, 14}, {512, 512, 1, 1}, 1, 0, 712800, 102760448},
    {'D', {1, 512, 14, 14}, {512, 1, 3, 3}, 2, 1, 9900, 1369088},
    {'S', {1, 512, 7, 7}, {1024, 512, 1, 1}, 1, 0, 95040, 51380224},
    {'D', {1, 1024, 7, 7}, {1024, 1, 3, 3}, 1, 1, 11880, 1483776},
    {'S', {1, 1024, 7, 7}, {1024, 1024, 1, 1}, 1, 0, 95040, 102760448},
};

static at_net_tasks *extract(const char *name, const at_net_opts *o, unsigned ops, at_net **net_out)
{
    at_net *net;
    at_net_tasks *ts;
    assert_ok(at_net_load(name, o, &net));
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, ops, &ts));
    if (net_out)
        *net_out = net;
    else
        at_net_free(net);
    return ts;
}

static void assert_conv_rows(const at_net_tasks *ts, const conv_row *rows, size_t n)
{
    char want[512];
    for (size_t i = 0; i < n; i++) {
        const at_task *t = at_net_tasks_at(ts, i);
        args_text(&rows[i], want, sizeof want);
        assert_string_equal(at_task_template(t)->name, tmpl_name(rows[i].tmpl));
        assert_string_equal(at_net_tasks_args_json(ts, i), want);
        assert_int_equal(at_space_len(at_task_space(t)), rows[i].space);
        assert_true(at_task_flop(t) == rows[i].flop);
        /* the workload written as a log's "input"[1:3] is the template name plus these args */
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_task_write_workload(t, &sb);
        char wl[600];
        snprintf(wl, sizeof wl, "[\"%s\", %s", tmpl_name(rows[i].tmpl), want + 1);
        assert_string_equal(at_strbuf_cstr(&sb), wl);
        at_strbuf_fini(&sb);
    }
}

static void resnet18_should_give_the_16_conv2d_tasks_of_spec_2_2(void **state)
{
    (void)state;
    at_net_tasks *ts = extract("resnet-18", NULL, AT_NET_OPS_CONV2D, NULL);
    assert_int_equal(at_net_tasks_count(ts), 16);
    assert_conv_rows(ts, resnet18, 16);
    at_net_tasks_free(ts);
}

/* TVM's cuda strategy on resnet-18 (opencl reaches it by the key gpu): per conv the direct
 * template, then Winograd for the 3x3 stride-1 ones (plevel 5, same workload), depthwise none,
 * and dense_small_batch.gpu alone at batch 1 (dense_large_batch.gpu needs batch >= 32). */
static void resnet18_on_the_gpu_target_should_follow_tvms_cuda_strategy(void **state)
{
    (void)state;
    for (int64_t batch = 1; batch <= 32; batch += 31) {
        at_net *net;
        at_net_tasks *ts, *mali;
        at_net_opts o = {.batch = batch};
        assert_ok(at_net_load("resnet-18", &o, &net));
        assert_ok(at_net_extract(net, AT_NET_TARGET_GPU, AT_NET_OPS_ALL, &ts));
        assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &mali));
        /* the same workloads in the same order as Mali's (12 direct, 4 Winograd, dense), plus
         * dense_large_batch.gpu at batch 32 */
        size_t n = at_net_tasks_count(ts), want = at_net_tasks_count(mali) + (batch >= 32);
        assert_int_equal(n, want);
        size_t n_direct = 0, n_wino = 0, n_small = 0, n_large = 0;
        for (size_t i = 0; i < n; i++) {
            const char *name = at_task_template(at_net_tasks_at(ts, i))->name;
            if (!strcmp(name, "conv2d_nchw.cuda")) {
                n_direct++;
                assert_string_equal(at_task_template(at_net_tasks_at(mali, i))->name, "conv2d_nchw_spatial_pack.mali");
            } else if (!strcmp(name, "conv2d_nchw_winograd.cuda")) {
                n_wino++;
                /* right after its direct task, same args */
                assert_string_equal(at_task_template(at_net_tasks_at(ts, i - 1))->name, "conv2d_nchw.cuda");
                assert_string_equal(at_net_tasks_args_json(ts, i), at_net_tasks_args_json(ts, i - 1));
            } else if (!strcmp(name, "dense_small_batch.gpu")) {
                n_small++;
            } else {
                assert_string_equal(name, "dense_large_batch.gpu");
                n_large++;
            }
            if (i < at_net_tasks_count(mali)) assert_string_equal(at_net_tasks_args_json(ts, i), at_net_tasks_args_json(mali, i));
        }
        assert_int_equal(n_direct, 12);
        assert_int_equal(n_wino, 4);
        assert_int_equal(n_small, 1);
        assert_int_equal(n_large, batch >= 32);
        at_net_tasks_free(mali);
        at_net_tasks_free(ts);
        at_net_free(net);
    }
}

static void resnet18_with_dense_should_give_17_tasks_the_last_dense(void **state)
{
    (void)state;
    unsigned ops;
    assert_ok(at_net_ops_parse("conv2d,dense", &ops));
    at_net_tasks *ts = extract("resnet-18", NULL, ops, NULL);
    assert_int_equal(at_net_tasks_count(ts), 17);
    assert_conv_rows(ts, resnet18, 16);
    const at_task *d = at_net_tasks_at(ts, 16);
    assert_string_equal(at_task_template(d)->name, "dense.mali");
    assert_string_equal(at_net_tasks_args_json(ts, 16),
                        "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"]");
    assert_int_equal(at_space_len(at_task_space(d)), 700);
    assert_true(at_task_flop(d) == 2.0 * 512 * 1000);
    at_net_tasks_free(ts);
}

static void dense_only_should_give_one_task(void **state)
{
    (void)state;
    unsigned ops;
    assert_ok(at_net_ops_parse("nn.dense", &ops));
    assert_int_equal(ops, AT_NET_OPS_DENSE);
    at_net_tasks *ts = extract("resnet-18", NULL, ops, NULL);
    assert_int_equal(at_net_tasks_count(ts), 1);
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 0))->name, "dense.mali");
    at_net_tasks_free(ts);
}

static void mobilenet_should_give_19_tasks_and_20_with_dense(void **state)
{
    (void)state;
    at_net_tasks *ts = extract("mobilenet", NULL, AT_NET_OPS_CONV2D, NULL);
    assert_int_equal(at_net_tasks_count(ts), 19);
    assert_conv_rows(ts, mobilenet, 19);
    at_net_tasks_free(ts);
    ts = extract("mobilenet", NULL, AT_NET_OPS_ALL, NULL);
    assert_int_equal(at_net_tasks_count(ts), 20);
    assert_conv_rows(ts, mobilenet, 19);
    assert_string_equal(at_net_tasks_args_json(ts, 19),
                        "[[\"TENSOR\", [1, 1024], \"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], null, \"float32\"]");
    assert_int_equal(at_space_len(at_task_space(at_net_tasks_at(ts, 19))), 700);
    assert_true(at_task_flop(at_net_tasks_at(ts, 19)) == 2048000);
    at_net_tasks_free(ts);
}

static size_t count_tasks(const char *name, const at_net_opts *o)
{
    at_net_tasks *ts = extract(name, o, AT_NET_OPS_CONV2D, NULL);
    size_t n = at_net_tasks_count(ts);
    at_net_tasks_free(ts);
    return n;
}

static void other_networks_should_give_the_counts_of_spec_2_6(void **state)
{
    (void)state;
    assert_int_equal(count_tasks("resnet-34", NULL), 16);
    assert_int_equal(count_tasks("resnet-50", NULL), 24);
    assert_int_equal(count_tasks("vgg-16", NULL), 18);
    assert_int_equal(count_tasks("squeezenet_v1.1", NULL), 22);
    /* resnet-34 has resnet-18's workloads in the same order */
    at_net_tasks *a = extract("resnet-18", NULL, AT_NET_OPS_CONV2D, NULL), *b = extract("resnet-34", NULL, AT_NET_OPS_CONV2D, NULL);
    for (size_t i = 0; i < 16; i++) {
        assert_string_equal(at_net_tasks_args_json(a, i), at_net_tasks_args_json(b, i));
        assert_ptr_equal(at_task_template(at_net_tasks_at(a, i)), at_task_template(at_net_tasks_at(b, i)));
    }
    at_net_tasks_free(a);
    at_net_tasks_free(b);
}

static void resnet50_should_order_conv1_conv2_conv3_then_the_shortcut(void **state)
{
    (void)state;
    at_net_tasks *ts = extract("resnet-50", NULL, AT_NET_OPS_CONV2D, NULL);
    assert_int_equal(at_net_tasks_count(ts), 24);
    /* stem, then stage1_unit1: 64->64 1x1, 64->64 3x3 (+ winograd), 64->256 1x1 (= the projection),
     * then unit 2's 256->64 1x1 */
    static const char *const kernels[6] = {"[64, 3, 7, 7]", "[64, 64, 1, 1]", "[64, 64, 3, 3]", "[64, 64, 3, 3]",
                                           "[256, 64, 1, 1]", "[64, 256, 1, 1]"};
    for (size_t i = 0; i < 6; i++) assert_non_null(strstr(at_net_tasks_args_json(ts, i), kernels[i]));
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 3))->name, "conv2d_nchw_winograd.mali");
    at_net_tasks_free(ts);
}

static void batch_and_image_shape_should_reach_the_workloads(void **state)
{
    (void)state;
    at_net_opts o = {.batch = 4, .image_shape = {3, 112, 112}, .num_classes = 10};
    at_net_tasks *ts = extract("resnet-18", &o, AT_NET_OPS_ALL, NULL);
    assert_int_equal(at_net_tasks_count(ts), 17);
    assert_string_equal(at_net_tasks_args_json(ts, 0),
                        "[[\"TENSOR\", [4, 3, 112, 112], \"float32\"], [\"TENSOR\", [64, 3, 7, 7], \"float32\"], [2, 2], "
                        "[3, 3, 3, 3], [1, 1], \"float32\"]");
    assert_string_equal(at_net_tasks_args_json(ts, 16),
                        "[[\"TENSOR\", [4, 512], \"float32\"], [\"TENSOR\", [10, 512], \"float32\"], null, \"float32\"]");
    at_net_tasks_free(ts);
}

static void cifar_resnet20_should_take_the_three_stage_variant(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 28, 28}, .num_classes = 10};
    at_net *net;
    at_net_tasks *ts = extract("resnet-20", &o, AT_NET_OPS_CONV2D, &net);
    /* conv0 3x3 s1 (SP+W); stage1 3x3 16 (SP+W), sc 1x1; stage2 3x3 s2, sc, 3x3 32 (SP+W);
     * stage3 3x3 s2, sc, 3x3 64 (SP+W) */
    assert_int_equal(at_net_tasks_count(ts), 13);
    assert_non_null(strstr(at_net_tasks_args_json(ts, 0), "[16, 3, 3, 3]"));
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 1))->name, "conv2d_nchw_winograd.mali");
    size_t convs = 0;
    for (size_t i = 0; i < at_net_n_nodes(net); i++) convs += at_net_node_at(net, i)->op == AT_NET_CONV2D;
    assert_int_equal(convs, 1 + 9 * 2 + 3); /* stem, 9 units x 2, a projection per stage (stage 1's too) */
    at_net_tasks_free(ts);
    at_net_free(net);
}

/* ---- dedup, node map ------------------------------------------------------------------------ */

static void duplicate_workloads_should_share_one_task_first_seen(void **state)
{
    (void)state;
    at_net *net;
    at_net_tasks *ts = extract("resnet-18", NULL, AT_NET_OPS_CONV2D, &net);
    size_t c1 = at_net_find(net, "stage1_unit1_conv1"), c2 = at_net_find(net, "stage1_unit2_conv2"),
           sc = at_net_find(net, "stage1_unit1_sc"), fc = at_net_find(net, "fc1");
    assert_true(c1 != SIZE_MAX && c2 != SIZE_MAX && sc != SIZE_MAX && fc != SIZE_MAX);
    const at_net_impl *i1, *i2, *is, *ifc;
    assert_int_equal(at_net_tasks_node_impls(ts, c1, &i1), 2);
    assert_int_equal(at_net_tasks_node_impls(ts, c2, &i2), 2);
    assert_int_equal(at_net_tasks_node_impls(ts, sc, &is), 1);
    assert_int_equal(at_net_tasks_node_impls(ts, fc, &ifc), 0); /* dense not selected */
    assert_int_equal(i1[0].task, 1);
    assert_int_equal(i1[1].task, 2);
    assert_int_equal(i2[0].task, 1);
    assert_int_equal(i2[1].task, 2);
    assert_int_equal(is[0].task, 3);
    assert_int_equal(i1[0].plevel, 10);
    assert_int_equal(i1[1].plevel, 5);
    assert_int_equal(at_net_tasks_first_node(ts, 1), c1);
    /* every conv has a spatial pack; the 13 3x3 stride-1 ones a winograd too */
    size_t impls = 0;
    for (size_t i = 0; i < at_net_n_nodes(net); i++) {
        const at_net_impl *im;
        impls += at_net_tasks_node_impls(ts, i, &im);
    }
    assert_int_equal(impls, 21 + 13);
    at_net_tasks_free(ts);
    at_net_free(net);
}

/* ---- fusion structure ---------------------------------------------------------------------- */

static void fused_resnet18_should_hold_anchors_with_epilogues_in_lowering_order(void **state)
{
    (void)state;
    at_net *net;
    assert_ok(at_net_load("resnet-18", NULL, &net));
    assert_true(at_net_is_fused(net));
    size_t count[AT_NET_OP_COUNT] = {0};
    for (size_t i = 0; i < at_net_n_nodes(net); i++) count[at_net_node_at(net, i)->op]++;
    assert_int_equal(count[AT_NET_CONV2D], 21);
    assert_int_equal(count[AT_NET_DENSE], 1);
    assert_int_equal(count[AT_NET_SCALE_SHIFT], 10); /* bn_data, 8 units' bn1, the final bn1 */
    assert_int_equal(count[AT_NET_BATCH_NORM] + count[AT_NET_RELU] + count[AT_NET_BIAS_ADD] + count[AT_NET_ADD] +
                         count[AT_NET_DROPOUT],
                     0);
    assert_int_equal(at_net_n_nodes(net), 1 + 21 + 1 + 10 + 1 + 1 + 1 + 1); /* + pool, gap, flatten, softmax */
    const at_net_node *c1 = at_net_node_at(net, at_net_find(net, "stage2_unit1_conv1"));
    const at_net_node *c2 = at_net_node_at(net, at_net_find(net, "stage2_unit1_conv2"));
    const at_net_node *sc = at_net_node_at(net, at_net_find(net, "stage2_unit1_sc"));
    assert_true(c1->epi.bias && c1->epi.relu && !c1->epi.residual);
    assert_true(!c2->epi.bias && !c2->epi.relu && c2->epi.residual && !c2->epi.residual_first);
    assert_true(!sc->epi.bias && !sc->epi.relu && !sc->epi.residual);
    /* lowering order: conv1, sc, conv2 (the add's operands are the fused function's params) */
    assert_true(at_net_find(net, "stage2_unit1_conv1") < at_net_find(net, "stage2_unit1_sc"));
    assert_true(at_net_find(net, "stage2_unit1_sc") < at_net_find(net, "stage2_unit1_conv2"));
    assert_int_equal(c2->inputs[1], at_net_find(net, "stage2_unit1_sc"));
    const at_net_node *stem = at_net_node_at(net, at_net_find(net, "conv0"));
    assert_true(stem->epi.bias && stem->epi.relu); /* bn0 folded, relu fused */
    const at_net_node *fc = at_net_node_at(net, at_net_find(net, "fc1"));
    assert_true(fc->epi.bias && !fc->epi.relu);
    const at_net_node *bn_data = at_net_node_at(net, at_net_find(net, "bn_data"));
    assert_int_equal(bn_data->op, AT_NET_SCALE_SHIFT);
    assert_false(bn_data->epi.relu);
    const at_net_node *bn1 = at_net_node_at(net, at_net_find(net, "stage2_unit1_bn1"));
    assert_int_equal(bn1->op, AT_NET_SCALE_SHIFT);
    assert_true(bn1->epi.relu);
    const at_net_node *out = at_net_node_at(net, at_net_output(net));
    assert_int_equal(out->op, AT_NET_SOFTMAX);
    assert_int_equal(out->ndim, 2);
    assert_int_equal(out->shape[1], 1000);
    at_net_free(net);
}

static void squeezenet_and_vgg_should_fuse_bias_and_relu(void **state)
{
    (void)state;
    at_net *net;
    assert_ok(at_net_load("squeezenet_v1.0", NULL, &net));
    const at_net_node *f = at_net_node_at(net, at_net_find(net, "fire3_right_conv"));
    assert_true(f->epi.bias && f->epi.relu && !f->epi.residual);
    assert_int_equal(f->shape[2], 55);
    const at_net_node *last = at_net_node_at(net, at_net_find(net, "conv_final"));
    assert_int_equal(last->shape[2], 13);
    at_net_free(net);
    assert_ok(at_net_load("vgg-16", NULL, &net));
    const at_net_node *fc6 = at_net_node_at(net, at_net_find(net, "fc6"));
    assert_true(fc6->epi.bias && fc6->epi.relu);
    assert_int_equal(at_net_node_at(net, fc6->inputs[0])->shape[1], 25088);
    size_t dropouts = 0;
    for (size_t i = 0; i < at_net_n_nodes(net); i++) dropouts += at_net_node_at(net, i)->op == AT_NET_DROPOUT;
    assert_int_equal(dropouts, 0);
    at_net_free(net);
}

/* ---- TopHub coverage (spec §2.5) ------------------------------------------------------------- */

static const at_rec_best *tophub_table(at_rec_best **b)
{
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(at_test_shared_path("data/tophub/mali_v0.06.log"), &log));
    assert_ok(at_rec_best_new(b));
    assert_ok(at_rec_best_take_log(*b, log));
    return *b;
}

static size_t covered(const at_rec_best *b, const at_net_tasks *ts, bool *found)
{
    at_target tg;
    assert_ok(at_target_parse("opencl -device=mali", &tg));
    size_t n = 0;
    for (size_t i = 0; i < at_net_tasks_count(ts); i++) {
        const at_rec *r = at_rec_best_query(b, &tg, at_task_template(at_net_tasks_at(ts, i))->name,
                                            at_net_tasks_args_json(ts, i));
        found[i] = r != NULL;
        n += found[i];
    }
    at_target_fini(&tg);
    return n;
}

static void tophub_should_hold_the_extracted_workloads(void **state)
{
    (void)state;
    at_rec_best *b;
    tophub_table(&b);
    bool found[32];
    at_net_tasks *ts = extract("resnet-18", NULL, AT_NET_OPS_ALL, NULL);
    assert_int_equal(at_net_tasks_count(ts), 17);
    /* all but the spatial-pack variants of the four 3x3 stride-1 convs (#2, #7, #11, #15) and the
     * dense (TopHub's dense records use the old 4-argument signature) */
    assert_int_equal(covered(b, ts, found), 12);
    for (size_t i = 0; i < 16; i++) assert_int_equal(found[i], !(i == 1 || i == 6 || i == 10 || i == 14));
    assert_false(found[16]);
    at_net_tasks_free(ts);
    ts = extract("mobilenet", NULL, AT_NET_OPS_CONV2D, NULL);
    assert_int_equal(covered(b, ts, found), 19);
    at_net_tasks_free(ts);
    at_rec_best_free(b);
}

/* ---- dispatch as tune/ will wire it: user log > TopHub > fallback with reference records ---- */

typedef struct dispatch_ctx {
    const at_rec_best *tables[2]; /* user, TopHub */
    const at_rec_log  *tophub;    /* reference records for fallbacks */
    at_target          target;
} dispatch_ctx;

static at_status records_dispatch(void *c, const at_task *task, const char *args_json, at_net_choice *out)
{
    dispatch_ctx *d = c;
    const char *name = at_task_template(task)->name;
    const at_rec *r = at_rec_best_query_stack(d->tables, 2, &d->target, name, args_json, NULL);
    *out = (at_net_choice){0};
    if (r) {
        AT_TRY(at_config_clone(r->config, &out->config));
        out->cost_s = at_rec_cost(r);
        out->tuned = true;
        return AT_OK;
    }
    const at_config *refs[600];
    size_t n = 0;
    for (size_t i = 0; i < d->tophub->n; i++)
        if (!strcmp(d->tophub->recs[i].task_name, name) && !strcmp(d->tophub->recs[i].target.model, "rk3399"))
            refs[n++] = d->tophub->recs[i].config;
    return at_task_fallback_config(task, refs, n, &out->config);
}

static const at_entity *knob(const at_config *c, const char *name)
{
    const at_entity *e = at_config_find(c, name);
    assert_non_null(e);
    return e;
}

static void tophub_dispatch_should_choose_as_tvm_does(void **state)
{
    (void)state;
    at_net *net;
    at_net_tasks *ts;
    assert_ok(at_net_load("resnet-18", NULL, &net));
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    at_rec_log *hub_log, *user_log;
    at_rec_best *hub, *user;
    assert_ok(at_rec_log_load_file(at_test_shared_path("data/tophub/mali_v0.06.log"), &hub_log));
    assert_ok(at_rec_best_new(&hub));
    assert_ok(at_rec_best_add_log(hub, hub_log));
    /* a user record makes task 2 (spatial pack of the 64-channel 3x3 conv) faster than TopHub's
     * winograd record (5.05 ms) */
    at_config *cfg;
    assert_ok(at_task_config(at_net_tasks_at(ts, 1), 12345, &cfg));
    at_result res;
    at_result_init(&res);
    assert_ok(at_result_set_costs(&res, (double[]){1e-4}, 1));
    res.timestamp = 1.5e9;
    at_rec rec;
    assert_ok(at_rec_make("opencl -keys=mali,opencl,gpu -device=mali", "conv2d_nchw_spatial_pack.mali",
                          at_net_tasks_args_json(ts, 1), cfg, &res, &rec));
    char *line = at_rec_to_line(&rec);
    assert_ok(at_rec_log_load_buffer("user.log", line, strlen(line), &user_log));
    assert_ok(at_rec_best_new(&user));
    assert_ok(at_rec_best_add_log(user, user_log));

    dispatch_ctx d = {.tables = {user, hub}, .tophub = hub_log};
    assert_ok(at_target_parse("opencl -device=mali", &d.target));
    at_net_plan *plan;
    assert_ok(at_net_plan_new(net, ts, records_dispatch, &d, &plan));
    at_net_pick p;
    /* the user's spatial-pack record beats TopHub's winograd */
    assert_true(at_net_plan_pick(plan, at_net_find(net, "stage1_unit1_conv1"), &p));
    assert_int_equal(p.task, 1);
    assert_true(p.tuned && p.cost_s == 1e-4);
    /* 128-channel 3x3 stride-1: TopHub has only winograd records, so winograd wins */
    assert_true(at_net_plan_pick(plan, at_net_find(net, "stage2_unit1_conv2"), &p));
    assert_int_equal(p.task, 7);
    assert_true(p.tuned);
    /* the stem: TopHub's one float32 record of it, tile_co [2, 8, 4] (10.3 ms; the 6.04 ms
     * [1, 8, 8] record spec §2.5 quotes is the float16 workload) */
    assert_true(at_net_plan_pick(plan, at_net_find(net, "conv0"), &p));
    assert_int_equal(p.task, 0);
    const at_entity *co = knob(p.config, "tile_co"), *ow = knob(p.config, "tile_ow");
    assert_int_equal(co->ints[1], 8);
    assert_int_equal(co->ints[2], 4);
    assert_int_equal(ow->ints[1], 2);
    assert_int_equal(ow->ints[2], 4);
    /* the dense: TopHub's records have the old signature, so it falls back on them as references
     * (spec §0.2b: tile_x [40, 25, 1], c_unroll [32, 16]) */
    assert_true(at_net_plan_pick(plan, at_net_find(net, "fc1"), &p));
    assert_int_equal(p.task, 16);
    assert_false(p.tuned);
    const at_entity *tx = knob(p.config, "tile_x"), *cu = knob(p.config, "c_unroll");
    assert_int_equal(tx->ints[1], 25);
    assert_int_equal(tx->ints[2], 1);
    assert_int_equal(cu->ints[1], 16);
    assert_int_equal(at_net_plan_n_fallback(plan), 1);

    at_net_plan_free(plan);
    at_target_fini(&d.target);
    at_rec_best_free(user);
    at_rec_log_free(user_log);
    at_free(line);
    at_rec_fini(&rec);
    at_result_fini(&res);
    at_config_free(cfg);
    at_rec_best_free(hub);
    at_rec_log_free(hub_log);
    at_net_tasks_free(ts);
    at_net_free(net);
}

/* ---- args text is canonical JSON (records key workloads by it) ------------------------------ */

static void args_text_should_be_canonical_json(void **state)
{
    (void)state;
    at_net_tasks *ts = extract("mobilenet", NULL, AT_NET_OPS_ALL, NULL);
    for (size_t i = 0; i < at_net_tasks_count(ts); i++) {
        const char *text = at_net_tasks_args_json(ts, i);
        cJSON *j;
        assert_ok(at_json_parse(text, strlen(text), &j));
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_json_write_value(&sb, j);
        assert_string_equal(at_strbuf_cstr(&sb), text);
        at_strbuf_fini(&sb);
        at_json_free(j);
    }
    at_net_tasks_free(ts);
}

/* ---- parsing and failure paths --------------------------------------------------------------- */

static void ops_and_targets_should_parse(void **state)
{
    (void)state;
    unsigned ops;
    assert_ok(at_net_ops_parse("conv2d", &ops));
    assert_int_equal(ops, AT_NET_OPS_CONV2D);
    assert_ok(at_net_ops_parse("nn.conv2d,dense", &ops));
    assert_int_equal(ops, AT_NET_OPS_ALL);
    assert_ok(at_net_ops_parse("all", &ops));
    assert_int_equal(ops, AT_NET_OPS_ALL);
    assert_int_equal(at_net_ops_parse("conv2d,pool", &ops), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "'pool'"));
    assert_int_equal(at_net_ops_parse("", &ops), AT_EPARSE);
    at_net_target t;
    assert_ok(at_net_target_parse("mali", &t));
    assert_int_equal(t, AT_NET_TARGET_MALI);
    assert_ok(at_net_target_parse("opencl -device=mali -model=rk3399", &t));
    assert_int_equal(t, AT_NET_TARGET_MALI);
    assert_ok(at_net_target_parse("opencl -keys=mali,opencl,gpu -max_num_threads=256", &t));
    /* TVM's cuda strategy is registered under cuda and gpu: opencl and cuda reach it by gpu */
    assert_ok(at_net_target_parse("opencl", &t));
    assert_int_equal(t, AT_NET_TARGET_GPU);
    assert_ok(at_net_target_parse("cuda -model=titanx", &t));
    assert_int_equal(t, AT_NET_TARGET_GPU);
    assert_string_equal(at_net_target_string(AT_NET_TARGET_GPU), "opencl");
    assert_int_equal(at_net_target_parse("ext_dev", &t), AT_EUNSUPPORTED);
    assert_int_equal(at_net_target_parse("", &t), AT_EPARSE);
    assert_string_equal(at_net_target_string(AT_NET_TARGET_MALI), "opencl -device=mali");
}

static void bad_networks_and_graphs_should_be_refused(void **state)
{
    (void)state;
    at_net *net;
    assert_int_equal(at_net_build("alexnet", NULL, &net), AT_ENOTFOUND);
    assert_null(net);
    assert_int_equal(at_net_build("resnet-19", NULL, &net), AT_EINVAL);
    assert_int_equal(at_net_build("vgg-17", NULL, &net), AT_EINVAL);
    /* a 16x16 input cannot go through vgg-16's five 2x2 pools */
    at_net_opts o = {.image_shape = {3, 16, 16}};
    assert_int_equal(at_net_build("vgg-16", &o, &net), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "output extent"));
    o.image_shape[1] = o.image_shape[2] = 8; /* the CIFAR table has no resnet-18 */
    assert_int_equal(at_net_build("resnet-18", &o, &net), AT_EINVAL);

    const int64_t shape[4] = {1, 4, 8, 8};
    assert_ok(at_net_new("g", shape, false, 0, &net));
    size_t in = 0, c;
    /* groups must divide both channel counts; a depthwise channel multiplier has no executor */
    at_net_attrs grouped = {.channels = 8, .kernel = {3, 3}, .groups = 3};
    assert_int_equal(at_net_append(net, AT_NET_CONV2D, "c", &in, 1, &grouped, &c), AT_EINVAL);
    assert_int_equal(c, SIZE_MAX);
    grouped.groups = 4;
    assert_int_equal(at_net_append(net, AT_NET_CONV2D, "c", &in, 1, &grouped, &c), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "channel multiplier"));
    at_net_attrs ok = {.channels = 8, .kernel = {3, 3}, .pad = {1, 1, 1, 1}};
    assert_ok(at_net_append(net, AT_NET_CONV2D, "c", &in, 1, &ok, &c));
    assert_int_equal(at_net_append(net, AT_NET_CONV2D, "c", &in, 1, &ok, NULL), AT_EINVAL); /* name taken */
    const size_t two[2] = {0, c};
    assert_int_equal(at_net_append(net, AT_NET_ADD, NULL, two, 2, NULL, NULL), AT_EINVAL); /* 4 vs 8 channels */
    assert_int_equal(at_net_append(net, AT_NET_DENSE, NULL, &c, 1, &(at_net_attrs){.channels = 4}, NULL), AT_EINVAL);
    assert_int_equal(at_net_append(net, AT_NET_INPUT, NULL, &c, 1, NULL, NULL), AT_EINVAL);
    at_net_attrs big = {.channels = 2, .kernel = {9, 9}};
    assert_int_equal(at_net_append(net, AT_NET_CONV2D, NULL, &in, 1, &big, NULL), AT_EINVAL);
    at_net_attrs pool_pad = {.kernel = {2, 2}, .stride = {2, 2}, .pad = {2, 2, 2, 2}};
    assert_int_equal(at_net_append(net, AT_NET_MAX_POOL2D, NULL, &c, 1, &pool_pad, NULL), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "smaller than the pool"));
    const size_t cat_in[2] = {0, c};
    assert_ok(at_net_append(net, AT_NET_CONCAT, "cat", cat_in, 2, NULL, NULL)); /* 4 + 8 channels */
    at_net_attrs s2 = {.channels = 8, .kernel = {1, 1}, .stride = {2, 2}};
    size_t half;
    assert_ok(at_net_append(net, AT_NET_CONV2D, "half", &in, 1, &s2, &half));
    const size_t bad_cat[2] = {c, half};
    assert_int_equal(at_net_append(net, AT_NET_CONCAT, NULL, bad_cat, 2, NULL, NULL), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "outside axis 1"));
    size_t flat;
    assert_ok(at_net_append(net, AT_NET_BATCH_FLATTEN, "flat", &c, 1, NULL, &flat));
    assert_int_equal(at_net_node_at(net, flat)->shape[1], 8 * 8 * 8);
    assert_int_equal(at_net_append(net, AT_NET_CONV2D, NULL, &flat, 1, &ok, NULL), AT_EINVAL); /* 2-D input */
    assert_int_equal(at_net_append(net, AT_NET_MAX_POOL2D, NULL, &flat, 1, &pool_pad, NULL), AT_EINVAL);
    assert_int_equal(at_net_append(net, AT_NET_RELU, NULL, two, 2, NULL, NULL), AT_EINVAL); /* 2 inputs */
    const size_t later = 99;
    assert_int_equal(at_net_append(net, AT_NET_RELU, NULL, &later, 1, NULL, NULL), AT_EINVAL);
    size_t many[AT_NET_MAX_INPUTS + 1] = {0};
    assert_int_equal(at_net_append(net, AT_NET_CONCAT, NULL, many, AT_NET_MAX_INPUTS + 1, NULL, NULL), AT_EINVAL);
    /* the layout and broadcasting kinds check their attributes against the input's shape */
    assert_int_equal(at_net_append(net, AT_NET_BINARY, NULL, two, 2, NULL, NULL), AT_EINVAL); /* 4 vs 8 channels */
    assert_non_null(strstr(at_last_error(), "extents 4 and 8 of axis 1 do not broadcast"));
    assert_int_equal(at_net_append(net, AT_NET_TRANSPOSE, NULL, &c, 1, &(at_net_attrs){.perm = {0, 0, 1, 2}}, NULL), AT_EINVAL);
    assert_int_equal(at_net_append(net, AT_NET_REDUCE_MEAN, NULL, &c, 1, NULL, NULL), AT_EINVAL); /* no axes */
    assert_int_equal(at_net_append(net, AT_NET_REDUCE_MEAN, NULL, &flat, 1, &(at_net_attrs){.axes = 4}, NULL), AT_EINVAL);
    assert_int_equal(at_net_append(net, AT_NET_CONCAT, NULL, cat_in, 2, &(at_net_attrs){.axis = 5}, NULL), AT_EINVAL);
    at_net_attrs reflect = {.pad_mode = AT_NET_PAD_REFLECT, .pad_nd = {0, 0, 8, 0, 0, 0, 0, 0}};
    assert_int_equal(at_net_append(net, AT_NET_PAD, NULL, &c, 1, &reflect, NULL), AT_EINVAL);
    assert_int_equal(at_net_append(net, AT_NET_CONSTANT, NULL, &c, 1, &(at_net_attrs){.to_ndim = 2, .to_shape = {2, 2}}, NULL),
                     AT_EINVAL);
    assert_int_equal(at_net_n_nodes(net), 5);
    at_net *bad;
    assert_int_equal(at_net_new("bad", (int64_t[]){1, 0, 8, 8}, false, 0, &bad), AT_EINVAL);
    assert_null(bad);
    float w[8 * 4 * 9] = {0};
    assert_int_equal(at_net_set_param(net, c, AT_NET_WEIGHT, w), AT_EINVAL); /* built without params */
    at_net_tasks *ts;
    assert_int_equal(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts), AT_EINVAL); /* not fused */
    assert_null(ts);
    at_net *fused, *again;
    assert_ok(at_net_fuse(net, &fused));
    assert_int_equal(at_net_fuse(fused, &again), AT_EINVAL);
    assert_int_equal(at_net_append(fused, AT_NET_RELU, NULL, &c, 1, NULL, NULL), AT_EINVAL);
    assert_int_equal(at_net_extract(fused, AT_NET_TARGET_MALI, 0, &ts), AT_EINVAL);
    at_net_free(fused);
    at_net_free(net);
}

/* Every allocation of build + fuse + extract failing in turn: ENOMEM each time, nothing leaked. */
static void allocation_failures_should_fail_cleanly(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 8, 8}, .num_classes = 10};
    long base = at_alloc_live();
    long n_fail = 0;
    for (long k = 0;; k++) {
        at_alloc_fail_after(k);
        at_net *net = NULL;
        at_net_tasks *ts = NULL;
        at_status st = at_net_load("resnet-8", &o, &net);
        if (st == AT_OK) st = at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts);
        at_alloc_fail_after(-1);
        at_net_tasks_free(ts);
        at_net_free(net);
        assert_int_equal(at_alloc_live(), base);
        if (st == AT_OK) break;
        assert_int_equal(st, AT_ENOMEM);
        n_fail++;
    }
    assert_true(n_fail > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resnet18_should_give_the_16_conv2d_tasks_of_spec_2_2),
        cmocka_unit_test(resnet18_with_dense_should_give_17_tasks_the_last_dense),
        cmocka_unit_test(resnet18_on_the_gpu_target_should_follow_tvms_cuda_strategy),
        cmocka_unit_test(dense_only_should_give_one_task),
        cmocka_unit_test(mobilenet_should_give_19_tasks_and_20_with_dense),
        cmocka_unit_test(other_networks_should_give_the_counts_of_spec_2_6),
        cmocka_unit_test(resnet50_should_order_conv1_conv2_conv3_then_the_shortcut),
        cmocka_unit_test(batch_and_image_shape_should_reach_the_workloads),
        cmocka_unit_test(cifar_resnet20_should_take_the_three_stage_variant),
        cmocka_unit_test(duplicate_workloads_should_share_one_task_first_seen),
        cmocka_unit_test(fused_resnet18_should_hold_anchors_with_epilogues_in_lowering_order),
        cmocka_unit_test(squeezenet_and_vgg_should_fuse_bias_and_relu),
        cmocka_unit_test(tophub_should_hold_the_extracted_workloads),
        cmocka_unit_test(tophub_dispatch_should_choose_as_tvm_does),
        cmocka_unit_test(args_text_should_be_canonical_json),
        cmocka_unit_test(ops_and_targets_should_parse),
        cmocka_unit_test(bad_networks_and_graphs_should_be_refused),
        cmocka_unit_test(allocation_failures_should_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
