/* Networks on the CPU templates: small networks with parameters extracted for the arm_cpu target
 * and run by the tuned executor on the IR interpreter at TVM's untuned choice, against the
 * reference executor (e2e: the interpreter needs seconds for a whole network), at the untuned choice
 * and with the winograd layers tuned. */
#include "tests/support/test_support.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/net.h"

/* Small networks with parameters (CIFAR's resnet-20 and mobilenet on 16 x 16 inputs), their
 * arm_cpu tasks at TVM's untuned choice (spatial pack, depthwise, dense_pack with fallback
 * configs) on the IR interpreter: the network output matches the reference executor. */
static void networks_should_run_on_arm_cpu_templates_with_fallback_configs(void **state)
{
    (void)state;
    static const char *const names[] = {"resnet-20", "mobilenet"};
    for (size_t k = 0; k < 2; k++) {
        at_net_opts o = {.image_shape = {3, 16, 16}, .num_classes = 10, .params = true, .seed = 3};
        at_net *net;
        assert_ok(at_net_load(names[k], &o, &net));
        at_net_tasks *ts;
        at_net_plan *plan;
        at_net_exec *e;
        assert_ok(at_net_extract(net, AT_NET_TARGET_ARM_CPU, AT_NET_OPS_ALL, &ts));
        assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
        assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e));
        int64_t n_in = at_net_node_numel(at_net_node_at(net, 0));
        float *x = at_malloc((size_t)n_in * sizeof *x);
        assert_non_null(x);
        at_rng rng;
        at_rng_seed(&rng, 5);
        for (int64_t i = 0; i < n_in; i++) x[i] = (float)at_rng_uniform(&rng);
        at_net_values *ref;
        assert_ok(at_net_run_reference(net, x, false, &ref));
        assert_ok(at_net_exec_set_input(e, x));
        assert_ok(at_net_exec_run(e, NULL));
        size_t out = at_net_output(net);
        int64_t n = at_net_node_numel(at_net_node_at(net, out));
        assert_int_equal(n, 10);
        float got[10];
        assert_ok(at_net_exec_get(e, out, got));
        const float *want = at_net_values_get(ref, out);
        for (int64_t i = 0; i < n; i++)
            if (!(fabsf(got[i] - want[i]) <= 1e-4f + 1e-3f * fabsf(want[i])))
                fail_msg("%s output %lld: %g, reference %g", names[k], (long long)i, got[i], want[i]);
        at_net_values_free(ref);
        at_free(x);
        at_net_exec_free(e);
        at_net_plan_free(plan);
        at_net_tasks_free(ts);
        at_net_free(net);
    }
}

/* Winograd answered as tuned (a mid-space config, a tiny cost) and everything else untuned: the
 * executor picks conv2d_nchw_winograd.arm_cpu for every 3x3 stride-1 convolution, as TVM's
 * select_implementation takes the lowest tuned cost, and the output still matches. */
static at_status winograd_tuned(void *ctx, const at_task *task, const char *args_json, at_net_choice *out)
{
    (void)ctx;
    if (strcmp(at_task_template(task)->name, "conv2d_nchw_winograd.arm_cpu") != 0)
        return at_net_dispatch_fallback(NULL, task, args_json, out);
    *out = (at_net_choice){.cost_s = 1e-9, .tuned = true};
    return at_task_config(task, at_space_len(at_task_space(task)) * 2 / 3, &out->config);
}

static void resnet_should_run_winograd_layers_when_they_are_tuned(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 8, 8}, .num_classes = 10, .params = true, .seed = 4};
    at_net *net;
    assert_ok(at_net_load("resnet-20", &o, &net));
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, AT_NET_TARGET_ARM_CPU, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, winograd_tuned, NULL, &plan));
    size_t n_wino = 0;
    for (size_t i = 0; i < at_net_n_nodes(net); i++) {
        at_net_pick pk;
        if (!at_net_plan_pick(plan, i, &pk)) continue;
        n_wino += !strcmp(at_task_template(at_net_tasks_at(ts, pk.task))->name, "conv2d_nchw_winograd.arm_cpu");
    }
    assert_true(n_wino >= 10); /* resnet-20's 3x3 stride-1 convolutions */
    assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e));
    int64_t n_in = at_net_node_numel(at_net_node_at(net, 0));
    float *x = at_malloc((size_t)n_in * sizeof *x);
    assert_non_null(x);
    at_rng rng;
    at_rng_seed(&rng, 9);
    for (int64_t i = 0; i < n_in; i++) x[i] = (float)at_rng_uniform(&rng);
    at_net_values *ref;
    assert_ok(at_net_run_reference(net, x, false, &ref));
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    size_t out = at_net_output(net);
    float got[10];
    assert_ok(at_net_exec_get(e, out, got));
    const float *want = at_net_values_get(ref, out);
    for (int i = 0; i < 10; i++)
        if (!(fabsf(got[i] - want[i]) <= 1e-4f + 1e-3f * fabsf(want[i])))
            fail_msg("resnet-20 winograd output %d: %g, reference %g", i, got[i], want[i]);
    at_net_values_free(ref);
    at_free(x);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_net_free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(networks_should_run_on_arm_cpu_templates_with_fallback_configs),
        cmocka_unit_test(resnet_should_run_winograd_layers_when_they_are_tuned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
