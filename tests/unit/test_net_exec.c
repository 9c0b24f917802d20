/* networks/ executors: the reference executor against hand-computed values, BN folding (fused
 * vs unfused on random data), TVM's implementation choice, and the tuned executor running the
 * templates' programs and the generated ones on the IR interpreter against the reference. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "knobs/space.h"

static size_t app(at_net *net, at_net_op op, const char *name, size_t in, const at_net_attrs *a)
{
    size_t id;
    assert_ok(at_net_append(net, op, name, &in, 1, a, &id));
    return id;
}

static size_t app2(at_net *net, at_net_op op, const char *name, size_t a, size_t b)
{
    const size_t in[2] = {a, b};
    size_t id;
    assert_ok(at_net_append(net, op, name, in, 2, NULL, &id));
    return id;
}

static float *random_input(const at_net *net, uint64_t seed)
{
    int64_t n = at_net_node_numel(at_net_node_at(net, 0));
    float *x = at_malloc((size_t)n * sizeof *x);
    at_rng r;
    at_rng_seed(&r, seed);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(2 * at_rng_uniform(&r) - 1);
    return x;
}

/* max |a - b| <= tol * max(1, max |b|) */
static void assert_close(const float *a, const float *b, int64_t n, double tol, const char *what)
{
    double scale = 1, worst = 0;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) scale = fmax(scale, fabs((double)b[i]));
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= worst)) {
            worst = d;
            at = i;
        }
    }
    if (!(worst <= tol * scale)) {
        print_error("%s: element %lld differs: %.9g vs %.9g (tolerance %.3g)\n", what, (long long)at, a[at], b[at], tol * scale);
        fail();
    }
}

/* ---- reference executor, by hand ------------------------------------------------------------- */

/* x = 1..16 (1x1x4x4); conv 3x3 pad 1 to 2 channels (all ones; -centre), bias (-50, 3), relu,
 * max_pool 2x2, global_avg_pool, flatten, dense [[1, 0], [0.5, -1]] + (0, 1), softmax. */
static at_net *tiny(void)
{
    const int64_t shape[4] = {1, 1, 4, 4};
    at_net *net;
    assert_ok(at_net_new("tiny", shape, true, 1, &net));
    size_t c = app(net, AT_NET_CONV2D, "c", 0, &(at_net_attrs){.channels = 2, .kernel = {3, 3}, .pad = {1, 1, 1, 1}});
    size_t b = app(net, AT_NET_BIAS_ADD, "b", c, NULL);
    size_t r = app(net, AT_NET_RELU, "r", b, NULL);
    size_t p = app(net, AT_NET_MAX_POOL2D, "p", r, &(at_net_attrs){.kernel = {2, 2}, .stride = {2, 2}});
    size_t g = app(net, AT_NET_GLOBAL_AVG_POOL2D, "g", p, NULL);
    size_t f = app(net, AT_NET_BATCH_FLATTEN, "f", g, NULL);
    size_t d = app(net, AT_NET_DENSE, "fc", f, &(at_net_attrs){.channels = 2});
    size_t db = app(net, AT_NET_BIAS_ADD, "fcb", d, NULL);
    app(net, AT_NET_SOFTMAX, "sm", db, NULL);
    float w[18] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0};
    assert_int_equal(at_net_param_numel(net, c, AT_NET_WEIGHT), 18);
    assert_ok(at_net_set_param(net, c, AT_NET_WEIGHT, w));
    assert_ok(at_net_set_param(net, b, AT_NET_BIAS, (float[]){-50, 3}));
    assert_ok(at_net_set_param(net, d, AT_NET_WEIGHT, (float[]){1, 0, 0.5f, -1}));
    assert_ok(at_net_set_param(net, db, AT_NET_BIAS, (float[]){0, 1}));
    assert_int_equal(at_net_set_param(net, r, AT_NET_BIAS, w), AT_EINVAL);
    return net;
}

static const float tiny_input[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static void check_tiny_values(const at_net *net, const at_net_values *v, bool fused)
{
    /* channel 0 after bias and relu: neighbourhood sums - 50; channel 1: relu(3 - x) */
    static const float relu_out[32] = {0, 0,  0,  0, 0, 4, 13, 0, 7, 40, 49, 19, 0, 22, 28, 4,
                                       2, 1,  0,  0, 0, 0, 0,  0, 0, 0,  0,  0,  0, 0,  0,  0};
    static const float pool[8] = {4, 13, 40, 49, 2, 0, 0, 0};
    static const float gap[2] = {26.5f, 0.5f};
    static const float logits[2] = {26.5f, 13.75f};
    const float *got = at_net_values_get(v, at_net_find(net, fused ? "c" : "r"));
    assert_non_null(got);
    assert_memory_equal(got, relu_out, sizeof relu_out);
    assert_memory_equal(at_net_values_get(v, at_net_find(net, "p")), pool, sizeof pool);
    assert_memory_equal(at_net_values_get(v, at_net_find(net, "g")), gap, sizeof gap);
    assert_memory_equal(at_net_values_get(v, at_net_find(net, fused ? "fc" : "fcb")), logits, sizeof logits);
    const float *sm = at_net_values_get(v, at_net_output(net));
    double p1 = 1.0 / (1.0 + exp(26.5 - 13.75));
    assert_true(fabs(sm[1] - p1) <= 1e-7 * p1);
    assert_true(fabs(sm[0] - (1 - p1)) <= 1e-7);
}

static void reference_executor_should_match_hand_computed_values(void **state)
{
    (void)state;
    at_net *net = tiny(), *fused;
    at_net_values *v;
    assert_ok(at_net_run_reference(net, tiny_input, true, &v));
    check_tiny_values(net, v, false);
    at_net_values_free(v);
    assert_ok(at_net_fuse(net, &fused));
    assert_int_equal(at_net_n_nodes(fused), 1 + 1 + 1 + 1 + 1 + 1 + 1); /* c, p, g, f, fc, sm */
    assert_ok(at_net_run_reference(fused, tiny_input, true, &v));
    check_tiny_values(fused, v, true);
    at_net_values_free(v);
    /* only the output is kept otherwise */
    assert_ok(at_net_run_reference(fused, tiny_input, false, &v));
    assert_null(at_net_values_get(v, at_net_find(fused, "c")));
    assert_non_null(at_net_values_get(v, at_net_output(fused)));
    at_net_values_free(v);
    at_net_free(fused);
    at_net_free(net);
}

static void executors_should_refuse_networks_without_parameters(void **state)
{
    (void)state;
    at_net *net;
    at_net_values *v;
    assert_ok(at_net_load("mobilenet", NULL, &net));
    assert_int_equal(at_net_run_reference(net, NULL, false, &v), AT_EINVAL);
    assert_null(v);
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_int_equal(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e), AT_EINVAL);
    assert_null(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_net_free(net);
}

/* ---- BN folding: fused and unfused graphs agree ------------------------------------------------ */

static at_net *zoo_of_ops_unfused(void);

/* net = NULL: build network name with options o. */
static void fused_and_unfused_should_agree(at_net *net, const char *name, const at_net_opts *o, const char *logits_unfused,
                                           const char *logits_fused, bool relu_after)
{
    at_net *fused;
    if (!net) assert_ok(at_net_build(name, o, &net));
    assert_ok(at_net_fuse(net, &fused));
    assert_true(at_net_n_nodes(fused) < at_net_n_nodes(net));
    float *x = random_input(net, 42);
    at_net_values *a, *b;
    assert_ok(at_net_run_reference(net, x, true, &a));
    assert_ok(at_net_run_reference(fused, x, true, &b));
    size_t lu = at_net_find(net, logits_unfused), lf = at_net_find(fused, logits_fused);
    if (relu_after) /* the fused anchor includes the relu that consumes the unfused bias_add */
        for (size_t i = lu + 1; i < at_net_n_nodes(net); i++)
            if (at_net_node_at(net, i)->op == AT_NET_RELU && at_net_node_at(net, i)->inputs[0] == lu) lu = i;
    assert_true(lu != SIZE_MAX && lf != SIZE_MAX);
    int64_t n = at_net_node_numel(at_net_node_at(fused, lf));
    assert_close(at_net_values_get(b, lf), at_net_values_get(a, lu), n, 1e-5, name);
    /* the logits must not be degenerate: fold errors would hide in a constant vector */
    const float *l = at_net_values_get(b, lf);
    double lo = l[0], hi = l[0];
    for (int64_t i = 1; i < n; i++) lo = fmin(lo, l[i]), hi = fmax(hi, l[i]);
    assert_true(hi - lo > 1e-3 * fmax(1, fabs(hi)));
    assert_close(at_net_values_get(b, at_net_output(fused)), at_net_values_get(a, at_net_output(net)), n, 1e-5, name);
    at_net_values_free(a);
    at_net_values_free(b);
    at_free(x);
    at_net_free(fused);
    at_net_free(net);
}

static void bn_folding_should_preserve_the_outputs(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 8, 8}, .num_classes = 10, .params = true, .seed = 7};
    /* pre-activation BN (scale_shift), BN after conv (folded), residual adds */
    fused_and_unfused_should_agree(NULL, "resnet-20", &o, "fc1_bias", "fc1", false);
    /* depthwise + BN, BN on the input, a residual that comes first, concat, dense + bias + relu */
    fused_and_unfused_should_agree(zoo_of_ops_unfused(), "ops", NULL, "fc2_bias", "fc2", false);
    /* bias_add + relu after every conv, concat */
    o.image_shape[1] = o.image_shape[2] = 32;
    fused_and_unfused_should_agree(NULL, "squeezenet_v1.1", &o, "conv_final_bias", "conv_final", true);
}

/* The folded weights really are the BN-scaled ones: w' = w * gamma / sqrt(var + eps). */
static void folded_weights_should_carry_the_bn_scale(void **state)
{
    (void)state;
    at_net *net = zoo_of_ops_unfused(), *fused;
    assert_ok(at_net_fuse(net, &fused));
    const at_net_node *c = at_net_node_at(net, at_net_find(net, "c1"));
    const at_net_node *bn = at_net_node_at(net, at_net_find(net, "bn1"));
    const at_net_node *f = at_net_node_at(fused, at_net_find(fused, "c1"));
    assert_true(f->epi.bias && f->epi.relu);
    assert_int_equal(at_net_param_numel(fused, at_net_find(fused, "c1"), AT_NET_WEIGHT), 8 * 27);
    for (int64_t co = 0; co < 8; co++) {
        double s = bn->gamma[co] / sqrt((double)bn->var[co] + 1e-5);
        for (int64_t k = 0; k < 27; k++) assert_true(fabs(f->weight[co * 27 + k] - c->weight[co * 27 + k] * s) <= 1e-6);
        assert_true(fabs(f->bias[co] - (bn->beta[co] - bn->mean[co] * s)) <= 1e-6);
    }
    /* bn_in (scale=False) became x / sqrt(var + eps) - mean / sqrt(var + eps) + beta */
    const at_net_node *b0 = at_net_node_at(net, at_net_find(net, "bn_in"));
    const at_net_node *ss = at_net_node_at(fused, at_net_find(fused, "bn_in"));
    for (int64_t k = 0; k < 3; k++) {
        double s = 1 / sqrt((double)b0->var[k] + 2e-5);
        assert_true(fabs(ss->scale[k] - s) <= 1e-6);
        assert_true(fabs(ss->shift[k] - (b0->beta[k] - b0->mean[k] * s)) <= 1e-6);
    }
    at_net_free(fused);
    at_net_free(net);
}

/* ---- implementation choice ---------------------------------------------------------------------- */

typedef struct fake_dispatch {
    double sp_cost, w_cost; /* < 0: untuned */
    size_t calls;
} fake_dispatch;

static at_status fake(void *ctx, const at_task *task, const char *args_json, at_net_choice *out)
{
    fake_dispatch *f = ctx;
    f->calls++;
    AT_TRY(at_net_dispatch_fallback(NULL, task, args_json, out));
    double c = !strcmp(at_task_template(task)->name, "conv2d_nchw_winograd.mali") ? f->w_cost : f->sp_cost;
    if (c >= 0) {
        out->tuned = true;
        out->cost_s = c;
    }
    return AT_OK;
}

static void plan_should_pick_as_tvm_select_implementation(void **state)
{
    (void)state;
    at_net *net;
    at_net_tasks *ts;
    assert_ok(at_net_load("resnet-18", NULL, &net));
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    size_t c = at_net_find(net, "stage1_unit1_conv1"), sc = at_net_find(net, "stage1_unit1_sc");
    static const struct { double sp, w; size_t want; bool tuned; } cases[] = {
        {-1, -1, 0, false},      /* nothing tuned: highest plevel (spatial pack) */
        {-1, 1e-3, 1, true},     /* only winograd tuned */
        {2e-3, 1e-3, 1, true},   /* lowest cost */
        {1e-3, 2e-3, 0, true},
        {1e-3, 1e-3, 0, true},   /* ties keep the first */
        {1e-3, -1, 0, true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fake_dispatch f = {cases[k].sp, cases[k].w, 0};
        at_net_plan *plan;
        assert_ok(at_net_plan_new(net, ts, fake, &f, &plan));
        assert_int_equal(f.calls, 17); /* once per task */
        at_net_pick p;
        assert_true(at_net_plan_pick(plan, c, &p));
        assert_int_equal(p.impl, cases[k].want);
        assert_int_equal(p.task, cases[k].want + 1);
        assert_int_equal(p.tuned, cases[k].tuned);
        assert_true(at_net_plan_pick(plan, sc, &p));
        assert_int_equal(p.impl, 0);
        assert_false(at_net_plan_pick(plan, 0, &p));
        size_t n_fb = at_net_plan_n_fallback(plan);
        if (cases[k].sp < 0 && cases[k].w < 0) assert_int_equal(n_fb, 22);
        at_net_plan_free(plan);
    }
    /* tasks extracted for conv2d only leave the dense without an implementation */
    at_net_tasks *conv_only;
    at_net_plan *plan;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_CONV2D, &conv_only));
    assert_int_equal(at_net_plan_new(net, conv_only, at_net_dispatch_fallback, NULL, &plan), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "fc1"));
    at_net_tasks_free(conv_only);
    at_net_tasks_free(ts);
    at_net_free(net);
}

/* ---- the tuned executor on the interpreter --------------------------------------------------- */

/* Every node kind: an unfoldable BN, conv + BN + relu, depthwise, a conv + residual + relu, an
 * add whose conv is the second operand, max pool, two branches concatenated, a standalone add,
 * a stride-2 conv, dropout, pooling, two dense layers, softmax. */
static at_net *zoo_of_ops_unfused(void)
{
    const int64_t shape[4] = {1, 3, 8, 8};
    at_net *net;
    assert_ok(at_net_new("ops", shape, true, 5, &net));
    size_t x = app(net, AT_NET_BATCH_NORM, "bn_in", 0, &(at_net_attrs){.no_scale = true, .eps = 2e-5});
    size_t c1 = app(net, AT_NET_CONV2D, "c1", x, &(at_net_attrs){.channels = 8, .kernel = {3, 3}, .pad = {1, 1, 1, 1}});
    size_t r1 = app(net, AT_NET_RELU, NULL, app(net, AT_NET_BATCH_NORM, "bn1", c1, NULL), NULL);
    size_t dw = app(net, AT_NET_CONV2D, "dw", r1,
                    &(at_net_attrs){.channels = 8, .kernel = {3, 3}, .pad = {1, 1, 1, 1}, .groups = 8});
    size_t r2 = app(net, AT_NET_RELU, NULL, app(net, AT_NET_BATCH_NORM, "bn2", dw, NULL), NULL);
    size_t c2 = app(net, AT_NET_CONV2D, "c2", r2, &(at_net_attrs){.channels = 8, .kernel = {1, 1}});
    size_t a1 = app(net, AT_NET_RELU, NULL, app2(net, AT_NET_ADD, "add1", c2, r1), NULL);
    size_t p = app(net, AT_NET_MAX_POOL2D, "pool", a1, &(at_net_attrs){.kernel = {3, 3}, .stride = {2, 2}, .pad = {1, 1, 1, 1}});
    size_t c3 = app(net, AT_NET_CONV2D, "c3", p, &(at_net_attrs){.channels = 8, .kernel = {1, 1}});
    size_t a2 = app2(net, AT_NET_ADD, "add2", p, c3);
    size_t l = app(net, AT_NET_RELU, NULL, app(net, AT_NET_BIAS_ADD, "l_bias",
                                              app(net, AT_NET_CONV2D, "l", a2, &(at_net_attrs){.channels = 4, .kernel = {1, 1}}), NULL), NULL);
    size_t r = app(net, AT_NET_RELU, NULL, app(net, AT_NET_BIAS_ADD, "r_bias",
                                              app(net, AT_NET_CONV2D, "r", a2, &(at_net_attrs){.channels = 4, .kernel = {3, 3}, .pad = {1, 1, 1, 1}}), NULL), NULL);
    size_t sum = app2(net, AT_NET_ADD, "sum", l, r);
    const size_t parts[2] = {l, sum};
    size_t cat;
    assert_ok(at_net_append(net, AT_NET_CONCAT, "cat", parts, 2, NULL, &cat));
    size_t s2 = app(net, AT_NET_CONV2D, "s2", cat, &(at_net_attrs){.channels = 8, .kernel = {3, 3}, .stride = {2, 2}, .pad = {1, 1, 1, 1}});
    size_t g = app(net, AT_NET_GLOBAL_AVG_POOL2D, "gap", app(net, AT_NET_DROPOUT, NULL, s2, NULL), NULL);
    size_t f = app(net, AT_NET_BATCH_FLATTEN, "flat", g, NULL);
    size_t d1 = app(net, AT_NET_RELU, NULL, app(net, AT_NET_BIAS_ADD, "fc_bias", app(net, AT_NET_DENSE, "fc", f, &(at_net_attrs){.channels = 5}), NULL), NULL);
    size_t d2 = app(net, AT_NET_BIAS_ADD, "fc2_bias", app(net, AT_NET_DENSE, "fc2", d1, &(at_net_attrs){.channels = 3}), NULL);
    app(net, AT_NET_SOFTMAX, "softmax", d2, NULL);
    return net;
}

static at_net *zoo_of_ops(void)
{
    at_net *net = zoo_of_ops_unfused(), *fused;
    assert_ok(at_net_fuse(net, &fused));
    at_net_free(net);
    return fused;
}

static void fused_zoo_of_ops_should_have_the_expected_shape(void **state)
{
    (void)state;
    at_net *net = zoo_of_ops();
    const at_net_node *c2 = at_net_node_at(net, at_net_find(net, "c2"));
    assert_true(!c2->epi.bias && c2->epi.residual && c2->epi.relu && !c2->epi.residual_first);
    const at_net_node *c3 = at_net_node_at(net, at_net_find(net, "c3"));
    assert_true(!c3->epi.bias && c3->epi.residual && c3->epi.residual_first);
    assert_int_equal(c3->inputs[1], at_net_find(net, "pool"));
    assert_int_equal(at_net_node_at(net, at_net_find(net, "bn_in"))->op, AT_NET_SCALE_SHIFT);
    assert_int_equal(at_net_node_at(net, at_net_find(net, "sum"))->op, AT_NET_ADD);
    assert_int_equal(at_net_node_at(net, at_net_find(net, "cat"))->shape[1], 8);
    assert_int_equal(at_net_node_at(net, at_net_find(net, "s2"))->shape[2], 2);
    assert_true(at_net_node_at(net, at_net_find(net, "fc"))->epi.relu);
    at_net_free(net);
}

/* Runs net on the interpreter under dispatch fn and compares every node with the reference. */
static void run_and_compare(const at_net *net, at_net_dispatch_fn fn, void *ctx, size_t *n_programs, size_t *n_prepared)
{
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, fn, ctx, &plan));
    assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e));
    *n_programs = at_net_exec_n_programs(e);
    *n_prepared = at_net_exec_n_prepared(e);
    float *x = random_input(net, 11);
    at_net_values *ref;
    assert_ok(at_net_run_reference(net, x, true, &ref));
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    size_t compared = 0;
    for (size_t i = 1; i < at_net_n_nodes(net); i++) {
        const at_net_node *n = at_net_node_at(net, i);
        int64_t len = at_net_node_numel(n);
        float *got = at_malloc((size_t)len * sizeof *got);
        assert_ok(at_net_exec_get(e, i, got));
        assert_close(got, at_net_values_get(ref, i), len, 2e-5, n->name);
        at_free(got);
        compared++;
    }
    assert_int_equal(compared, at_net_n_nodes(net) - 1);
    at_net_values_free(ref);
    at_free(x);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
}

static void tuned_executor_should_match_the_reference_with_fallback_configs(void **state)
{
    (void)state;
    at_net *net = zoo_of_ops();
    size_t n_programs, n_prepared;
    run_and_compare(net, at_net_dispatch_fallback, NULL, &n_programs, &n_prepared);
    /* 8 anchors with their epilogues fused into the output stage (c1 dw c2 c3 l r fc fc2: 8
     * programs, TVM's fusion) + s2 (1) + bn_in, pool, sum, cat, gap, softmax (6) */
    assert_int_equal(n_programs, 8 + 1 + 6);
    /* every fused anchor is its own (task, epilogue): nothing shared */
    assert_int_equal(n_prepared, 15);
    at_net_free(net);
}

/* Storage planning: with node buffers shared along the steps, the network output is bitwise the
 * same (the same programs on the same values), the values take less memory, and only the output
 * can be read back. */
static void shared_buffers_should_keep_the_output_in_less_memory(void **state)
{
    (void)state;
    at_net *net = zoo_of_ops();
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *own, *shared;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &own));
    assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &shared));
    size_t before = at_net_exec_value_bytes(shared);
    assert_int_equal(before, at_net_exec_value_bytes(own));
    assert_ok(at_net_exec_share_buffers(shared));
    size_t after = at_net_exec_value_bytes(shared);
    print_message("node values: %zu bytes, shared %zu\n", before, after);
    assert_true(after < before);
    size_t out = at_net_output(net);
    int64_t len = at_net_node_numel(at_net_node_at(net, out));
    float *x = random_input(net, 5), *a = at_malloc((size_t)len * sizeof *a), *b = at_malloc((size_t)len * sizeof *b);
    for (int run = 0; run < 2; run++) { /* the second run without the preparation kernels */
        assert_ok(at_net_exec_set_input(own, x));
        assert_ok(at_net_exec_set_input(shared, x));
        assert_ok(at_net_exec_run(own, NULL));
        assert_ok(at_net_exec_run(shared, NULL));
        assert_ok(at_net_exec_get(own, out, a));
        assert_ok(at_net_exec_get(shared, out, b));
        assert_memory_equal(a, b, (size_t)len * sizeof *a);
    }
    at_net_check chk;
    assert_ok(at_net_exec_check(shared, x, 1e-4, 1e-3, false, &chk));
    assert_int_equal(chk.n_bad, 0);
    float *c1 = at_malloc((size_t)at_net_node_numel(at_net_node_at(net, at_net_find(net, "c1"))) * sizeof *c1);
    assert_int_equal(at_net_exec_get(shared, at_net_find(net, "c1"), c1), AT_EINVAL);
    assert_ok(at_net_exec_get(own, at_net_find(net, "c1"), c1));
    at_free(c1);
    at_free(a);
    at_free(b);
    at_free(x);
    at_net_exec_free(own);
    at_net_exec_free(shared);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_net_free(net);
}

static void tuned_executor_should_run_winograd_when_it_is_the_cheaper_record(void **state)
{
    (void)state;
    at_net *net = zoo_of_ops();
    at_net_tasks *ts;
    at_net_plan *plan;
    fake_dispatch f = {.sp_cost = 2e-3, .w_cost = 1e-3};
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, fake, &f, &plan));
    at_net_pick p;
    assert_true(at_net_plan_pick(plan, at_net_find(net, "c1"), &p));
    assert_string_equal(at_task_template(at_net_tasks_at(ts, p.task))->name, "conv2d_nchw_winograd.mali");
    assert_true(at_net_plan_pick(plan, at_net_find(net, "r"), &p));
    assert_string_equal(at_task_template(at_net_tasks_at(ts, p.task))->name, "conv2d_nchw_winograd.mali");
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    size_t n_programs, n_prepared;
    run_and_compare(net, fake, &f, &n_programs, &n_prepared);
    at_net_free(net);
}

static void tuned_executor_should_run_the_hand_computed_network(void **state)
{
    (void)state;
    at_net *net = tiny(), *fused;
    assert_ok(at_net_fuse(net, &fused));
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(fused, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(fused, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_ok(at_net_exec_new(fused, plan, at_net_interp_backend(), NULL, &e));
    assert_ok(at_net_exec_set_input(e, tiny_input));
    assert_ok(at_net_exec_run(e, NULL));
    float pool[8], logits[2];
    assert_ok(at_net_exec_get(e, at_net_find(fused, "p"), pool));
    assert_ok(at_net_exec_get(e, at_net_find(fused, "fc"), logits));
    assert_memory_equal(pool, ((float[]){4, 13, 40, 49, 2, 0, 0, 0}), sizeof pool);
    assert_memory_equal(logits, ((float[]){26.5f, 13.75f}), sizeof logits);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_net_free(fused);
    at_net_free(net);
}

/* Dispatch answering every task with task 0's index-0 config: wrong for every other template. */
static at_status wrong_config(void *ctx, const at_task *task, const char *args_json, at_net_choice *out)
{
    const at_net_tasks *ts = ctx;
    (void)task;
    (void)args_json;
    *out = (at_net_choice){.tuned = true, .cost_s = 1};
    return at_task_config(at_net_tasks_at(ts, 0), 0, &out->config);
}

static void a_record_outside_the_space_should_be_refused(void **state)
{
    (void)state;
    at_net *net = zoo_of_ops();
    at_net_tasks *ts;
    at_net_plan *plan;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_int_equal(at_net_plan_new(net, ts, wrong_config, ts, &plan), AT_EINVAL);
    assert_null(plan);
    assert_non_null(strstr(at_last_error(), "not in its space"));
    at_net_tasks_free(ts);
    at_net_free(net);
}

/* A point of the space the template cannot instantiate: ann_spatial unrolls VW = 32 > 16. */
static at_status unroll_32(void *ctx, const at_task *task, const char *args_json, at_net_choice *out)
{
    (void)ctx;
    (void)args_json;
    at_config *c;
    AT_TRY(at_config_new(-1, NULL, &c));
    const int64_t one[3] = {-1, 1, 1}, ow[3] = {-1, 1, 32}, perm[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    const char *const red[2] = {"none", "none"}, *const sp[3] = {"none", "unroll", "none"};
    assert_ok(at_config_add_split(c, "tile_co", one, 3));
    assert_ok(at_config_add_split(c, "tile_oh", one, 3));
    assert_ok(at_config_add_split(c, "tile_ow", ow, 3));
    assert_ok(at_config_add_reorder(c, "reorder_0", perm, 10));
    assert_ok(at_config_add_annotate(c, "ann_reduce", red, 2));
    assert_ok(at_config_add_annotate(c, "ann_spatial", sp, 3));
    int64_t index;
    assert_ok(at_space_index_of(at_task_space(task), c, &index));
    at_config_set_index(c, index);
    *out = (at_net_choice){.config = c, .tuned = true, .cost_s = 1};
    return AT_OK;
}

static void a_config_that_cannot_be_instantiated_should_name_the_node(void **state)
{
    (void)state;
    at_net *net;
    assert_ok(at_net_new("wide", (int64_t[]){1, 1, 4, 32}, true, 1, &net));
    assert_ok(at_net_append(net, AT_NET_CONV2D, "c", (size_t[]){0}, 1, &(at_net_attrs){.channels = 1, .kernel = {1, 1}}, NULL));
    at_net *fused;
    assert_ok(at_net_fuse(net, &fused));
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(fused, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(fused, ts, unroll_32, NULL, &plan));
    assert_int_equal(at_net_exec_new(fused, plan, at_net_interp_backend(), NULL, &e), AT_EINVAL);
    assert_null(e);
    assert_non_null(strstr(at_last_error(), "node c: conv2d_nchw_spatial_pack.mali config "));
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_net_free(fused);
    at_net_free(net);
}

/* ---- the check: the executor against the oracle ---------------------------------------------- */

/* The interpreter, except that launch number `corrupt` of the runs after the first adds 1 to the
 * first element of its output. */
typedef struct corrupting {
    size_t runs, corrupt;
} corrupting;

typedef struct cprog {
    void                *inner;
    const at_ir_program *p;
} cprog;

static at_status c_prog_new(void *ctx, const at_ir_program *p, void **out)
{
    cprog *q = at_malloc(sizeof *q);
    q->p = p;
    at_status st = at_net_interp_backend()->prog_new(ctx, p, &q->inner);
    if (st != AT_OK) {
        at_free(q);
        return st;
    }
    *out = q;
    return AT_OK;
}

static void c_prog_free(void *ctx, void *prog)
{
    cprog *q = prog;
    at_net_interp_backend()->prog_free(ctx, q->inner);
    at_free(q);
}

static at_status c_prog_run(void *ctx, void *prog, void *const *bufs, size_t n, bool skip_prepare, double *ms)
{
    corrupting *c = ctx;
    cprog *q = prog;
    const at_net_backend_i *in = at_net_interp_backend();
    AT_TRY(in->prog_run(NULL, q->inner, bufs, n, skip_prepare, ms));
    if (skip_prepare && c->runs++ == c->corrupt) {
        size_t out = at_ir_program_n_params(q->p) - 1, len = (size_t)q->p->bufs[out]->size;
        float *y = at_malloc(len * sizeof *y);
        AT_TRY(in->buf_read(NULL, bufs[out], y));
        y[0] += 1;
        AT_TRY(in->buf_write(NULL, bufs[out], y));
        at_free(y);
    }
    return AT_OK;
}

static at_status c_buf_new(void *ctx, size_t bytes, void **out)
{
    (void)ctx;
    return at_net_interp_backend()->buf_new(NULL, bytes, out);
}
static void c_buf_free(void *ctx, void *b)
{
    (void)ctx;
    at_net_interp_backend()->buf_free(NULL, b);
}
static at_status c_buf_write(void *ctx, void *b, const void *src)
{
    (void)ctx;
    return at_net_interp_backend()->buf_write(NULL, b, src);
}
static at_status c_buf_read(void *ctx, void *b, void *dst)
{
    (void)ctx;
    return at_net_interp_backend()->buf_read(NULL, b, dst);
}

static const at_net_backend_i corrupting_backend = {
    .name = "corrupting", .buf_new = c_buf_new, .buf_free = c_buf_free, .buf_write = c_buf_write,
    .buf_read = c_buf_read, .prog_new = c_prog_new, .prog_free = c_prog_free, .prog_run = c_prog_run,
};

static void check_should_report_agreement_and_a_corrupted_program(void **state)
{
    (void)state;
    at_net *net = zoo_of_ops();
    at_net_tasks *ts;
    at_net_plan *plan;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    float *x = random_input(net, 8);
    size_t pool = at_net_find(net, "pool");
    for (int corrupt = 0; corrupt < 2; corrupt++) {
        /* programs in order: bn_in, c1, dw, c2 (epilogues fused), pool (the 5th) */
        corrupting c = {.corrupt = corrupt ? 4 : SIZE_MAX};
        at_net_exec *e;
        assert_ok(at_net_exec_new(net, plan, &corrupting_backend, &c, &e));
        assert_ok(at_net_exec_set_input(e, x));
        assert_ok(at_net_exec_run(e, NULL)); /* the first run prepares (and is never corrupted) */
        assert_ok(at_net_exec_run(e, NULL));
        at_net_check all, out;
        assert_ok(at_net_exec_check(e, x, 1e-6, 1e-5, true, &all));
        assert_ok(at_net_exec_check(e, x, 1e-6, 1e-5, false, &out));
        assert_int_equal(out.node, at_net_output(net));
        if (!corrupt) {
            assert_int_equal(all.n_bad, 0);
            assert_int_equal(out.n_bad, 0);
            assert_true(all.node != SIZE_MAX && all.abs_err < 1e-5);
        } else {
            /* the pool's first element is off by 1 and everything downstream of it differs */
            assert_true(all.n_bad >= 1);
            float got[128];
            int64_t len = at_net_node_numel(at_net_node_at(net, pool));
            assert_true(len <= 128);
            assert_ok(at_net_exec_get(e, pool, got));
            at_net_values *ref;
            assert_ok(at_net_run_reference(net, x, true, &ref));
            assert_true(fabs(got[0] - at_net_values_get(ref, pool)[0] - 1) < 1e-4);
            for (int64_t k = 1; k < len; k++) assert_true(fabs(got[k] - at_net_values_get(ref, pool)[k]) < 1e-4);
            at_net_values_free(ref);
        }
        at_net_exec_free(e);
    }
    at_free(x);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_net_free(net);
}

static void allocation_failures_in_the_executors_should_fail_cleanly(void **state)
{
    (void)state;
    at_net *net = zoo_of_ops();
    float *x = random_input(net, 3);
    long base = at_alloc_live(), n_fail = 0;
    for (long k = 0;; k++) {
        at_alloc_fail_after(k);
        at_net_tasks *ts = NULL;
        at_net_plan *plan = NULL;
        at_net_exec *e = NULL;
        at_net_values *v = NULL;
        at_status st = at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts);
        if (st == AT_OK) st = at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan);
        if (st == AT_OK) st = at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e);
        if (st == AT_OK) st = at_net_run_reference(net, x, false, &v);
        at_alloc_fail_after(-1);
        at_net_values_free(v);
        at_net_exec_free(e);
        at_net_plan_free(plan);
        at_net_tasks_free(ts);
        assert_int_equal(at_alloc_live(), base);
        if (st == AT_OK) break;
        assert_int_equal(st, AT_ENOMEM);
        n_fail++;
    }
    assert_true(n_fail > 100);
    at_free(x);
    at_net_free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_executor_should_match_hand_computed_values),
        cmocka_unit_test(executors_should_refuse_networks_without_parameters),
        cmocka_unit_test(bn_folding_should_preserve_the_outputs),
        cmocka_unit_test(folded_weights_should_carry_the_bn_scale),
        cmocka_unit_test(plan_should_pick_as_tvm_select_implementation),
        cmocka_unit_test(fused_zoo_of_ops_should_have_the_expected_shape),
        cmocka_unit_test(tuned_executor_should_match_the_reference_with_fallback_configs),
        cmocka_unit_test(shared_buffers_should_keep_the_output_in_less_memory),
        cmocka_unit_test(tuned_executor_should_run_winograd_when_it_is_the_cheaper_record),
        cmocka_unit_test(tuned_executor_should_run_the_hand_computed_network),
        cmocka_unit_test(a_record_outside_the_space_should_be_refused),
        cmocka_unit_test(a_config_that_cannot_be_instantiated_should_name_the_node),
        cmocka_unit_test(check_should_report_agreement_and_a_corrupted_program),
        cmocka_unit_test(allocation_failures_in_the_executors_should_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
