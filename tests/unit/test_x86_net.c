/* Networks on TVM's x86 strategy (`--target llvm`): task extraction in TVM's order, and small
 * networks with parameters run by the tuned executor in NCHW[x]c (TVM's alter_op_layout: the
 * layout changes only where the block sizes do; weights packed on the first run) on the IR
 * interpreter at TVM's untuned choice, against the reference executor, every node (e2e: seconds
 * of interpretation). */
#include "tests/support/test_support.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/graph_tune.h"
#include "networks/net.h"

static void llvm_should_take_the_x86_strategy(void **state)
{
    (void)state;
    at_net_target t;
    assert_ok(at_net_target_parse("llvm", &t));
    assert_int_equal(t, AT_NET_TARGET_X86);
    assert_ok(at_net_target_parse("llvm -mcpu=skylake-avx512", &t));
    assert_int_equal(t, AT_NET_TARGET_X86);
    assert_ok(at_net_target_parse("llvm -device=arm_cpu", &t));
    assert_int_equal(t, AT_NET_TARGET_ARM_CPU);

    at_net_opts o = {.image_shape = {3, 224, 224}, .num_classes = 1000};
    at_net *net;
    assert_ok(at_net_load("resnet-18", &o, &net));
    at_net_tasks *ts;
    assert_ok(at_net_extract(net, AT_NET_TARGET_X86, AT_NET_OPS_ALL, &ts));
    /* 12 distinct convolutions, then the dense layer's two implementations */
    assert_int_equal(at_net_tasks_count(ts), 14);
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 0))->name, "conv2d_NCHWc.x86");
    assert_string_equal(at_net_tasks_args_json(ts, 0),
                        "[[\"TENSOR\", [1, 3, 224, 224], \"float32\"], [\"TENSOR\", [64, 3, 7, 7], \"float32\"], [2, 2], "
                        "[3, 3, 3, 3], [1, 1], \"NCHW\", \"NCHW\", \"float32\"]");
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 12))->name, "dense_nopack.x86");
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 13))->name, "dense_pack.x86");
    at_net_tasks_free(ts);
    at_net_free(net);

    assert_ok(at_net_load("mobilenet", &o, &net));
    assert_ok(at_net_extract(net, AT_NET_TARGET_X86, AT_NET_OPS_CONV2D, &ts));
    assert_string_equal(at_task_template(at_net_tasks_at(ts, 1))->name, "depthwise_conv2d_NCHWc.x86");
    at_net_tasks_free(ts);
    at_net_free(net);
}

static void networks_should_run_in_nchwc_with_fallback_configs(void **state)
{
    (void)state;
    static const char *const names[] = {"resnet-20", "mobilenet", "squeezenet_v1.1"};
    for (size_t k = 0; k < 3; k++) {
        /* resnet-20 on 8 x 8 keeps the interpreter's share short; mobilenet needs 16 x 16 (stride 32
         * in all); squeezenet's pools (3 x 3, stride 2, ceil mode) and concatenations 32 x 32 */
        int64_t side = k == 0 ? 8 : k == 1 ? 16 : 32;
        at_net_opts o = {.image_shape = {3, side, side}, .num_classes = 10, .params = true, .seed = 3};
        at_net *net;
        assert_ok(at_net_load(names[k], &o, &net));
        at_net_tasks *ts;
        at_net_plan *plan;
        at_net_exec *e;
        assert_ok(at_net_extract(net, AT_NET_TARGET_X86, AT_NET_OPS_ALL, &ts));
        assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
        assert_ok(at_net_exec_new(net, plan, at_net_interp_backend(), NULL, &e));
        int64_t n_in = at_net_node_numel(at_net_node_at(net, 0));
        float *x = at_malloc((size_t)n_in * sizeof *x);
        assert_non_null(x);
        at_rng rng;
        at_rng_seed(&rng, 5);
        size_t out = at_net_output(net);
        /* two inputs: the second run leaves the weight packing out, the data packing stays */
        for (int run = 0; run < 2; run++) {
            for (int64_t i = 0; i < n_in; i++) x[i] = (float)at_rng_uniform(&rng);
            at_net_values *ref;
            assert_ok(at_net_run_reference(net, x, false, &ref));
            assert_ok(at_net_exec_set_input(e, x));
            assert_ok(at_net_exec_run(e, NULL));
            float got[10];
            assert_int_equal(at_net_node_numel(at_net_node_at(net, out)), 10);
            assert_ok(at_net_exec_get(e, out, got));
            const float *want = at_net_values_get(ref, out);
            for (int64_t i = 0; i < 10; i++)
                if (!(fabsf(got[i] - want[i]) <= 1e-4f + 1e-3f * fabsf(want[i])))
                    fail_msg("%s run %d output %lld: %g, reference %g", names[k], run, (long long)i, got[i], want[i]);
            at_net_values_free(ref);
        }
        /* every node, packed ones read back as NCHW */
        at_net_check chk;
        assert_ok(at_net_exec_check(e, x, 1e-4, 1e-3, true, &chk));
        if (chk.n_bad) fail_msg("%s: %zu values off, worst at node %zu", names[k], chk.n_bad, chk.node);
        /* the fallback blocks are 4 (TVM's SIMD width of plain llvm) from the first conv on, whose
         * 3 input channels take blocks of 3: the input packed once; pooling and squeezenet's
         * channel concatenations run in blocks of 4 too, and the global pooling reads the last
         * blocks as they are (TVM's NCHWc global_avg_pool2d), so no features are unpacked */
        /* squeezenet's classifier conv (512 -> 10 classes: oc_bn 2, so ic_bn 2) reads its input
         * converted as well; the graph tuner's model counts what the executor made */
        size_t modelled;
        assert_ok(at_net_graph_count_copies(net, plan, &modelled));
        assert_int_equal(at_net_exec_n_layout_copies(e), k == 2 ? 2 : 1);
        assert_int_equal(modelled, at_net_exec_n_layout_copies(e));
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
        cmocka_unit_test(llvm_should_take_the_x86_strategy),
        cmocka_unit_test(networks_should_run_in_nchwc_with_fallback_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
