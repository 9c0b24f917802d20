/* The tuned network executor on a real OpenCL device (PoCL counts as one) through tune/'s
 * OpenCL backend: small networks with every
 * node kind and mobilenet / resnet-18 at reduced input sizes, fallback configs and winograd
 * picks, each node checked against the reference executor.
 *
 * The backend is tune/'s (tune/ocl_backend.h): networks/ (L4) may not include backends/. */
#include "tests/support/test_net_support.h"
#include "tests/support/test_support.h"
#include "tests/support/test_ocl_ctx_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl.h"
#include "backends/opencl/runtime.h"
#include "core/alloc.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/net.h"
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

/* ---- networks --------------------------------------------------------------------------------- */

/* Dispatch that marks every winograd task tuned (so it wins) and leaves the rest to fallback. */
static at_status prefer_winograd(void *c, const at_task *task, const char *args_json, at_net_choice *out)
{
    (void)c;
    AT_TRY(at_net_dispatch_fallback(NULL, task, args_json, out));
    if (!strcmp(at_task_template(task)->name, "conv2d_nchw_winograd.mali")) {
        out->tuned = true;
        out->cost_s = 1e-3;
    }
    return AT_OK;
}

/* Runs net on the device and compares every node with the reference; returns the plan's
 * winograd picks. */
static size_t run_on_device(const at_net *net, at_net_dispatch_fn fn)
{
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, fn, NULL, &plan));
    size_t winograd = 0;
    for (size_t i = 0; i < at_net_n_nodes(net); i++) {
        at_net_pick p;
        if (at_net_plan_pick(plan, i, &p))
            winograd += !strcmp(at_task_template(at_net_tasks_at(ts, p.task))->name, "conv2d_nchw_winograd.mali");
    }
    assert_ok(at_net_exec_new(net, plan, at_tune_ocl_backend(), ctx, &e));
    at_test_net_run_and_check(net, e);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    return winograd;
}

static void mobilenet_should_run_on_the_device_as_the_reference(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 32, 32}, .num_classes = 10, .params = true, .seed = 1};
    at_net *net;
    assert_ok(at_net_load("mobilenet", &o, &net));
    assert_int_equal(run_on_device(net, at_net_dispatch_fallback), 0);
    at_net_free(net);
}

static void resnet18_should_run_on_the_device_with_winograd_picks(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 64, 64}, .num_classes = 10, .params = true, .seed = 2};
    at_net *net;
    assert_ok(at_net_load("resnet-18", &o, &net));
    assert_int_equal(run_on_device(net, prefer_winograd), 13);
    at_net_free(net);
}

static void squeezenet_should_run_on_the_device_as_the_reference(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 48, 48}, .num_classes = 10, .params = true, .seed = 3};
    at_net *net;
    assert_ok(at_net_load("squeezenet_v1.1", &o, &net));
    assert_int_equal(run_on_device(net, at_net_dispatch_fallback), 0);
    at_net_free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mobilenet_should_run_on_the_device_as_the_reference),
        cmocka_unit_test(resnet18_should_run_on_the_device_with_winograd_picks),
        cmocka_unit_test(squeezenet_should_run_on_the_device_as_the_reference),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
