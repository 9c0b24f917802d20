/* Networks on the CPU templates: small networks with parameters extracted for the arm_cpu target
 * and run by the tuned executor on the IR interpreter at TVM's untuned choice, against the
 * reference executor (e2e: the interpreter needs seconds for a whole network). */
#include "tests/support/test_support.h"

#include <math.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(networks_should_run_on_arm_cpu_templates_with_fallback_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
