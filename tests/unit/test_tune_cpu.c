/* The CPU target end to end: the network executor on tune/'s LLVM backend (every program --
 * templates' anchors, pooling, softmax, element-wise, epilogues -- compiled by LLVM and run
 * through its JIT with a thread pool) against the reference executor, node by node, on mobilenet
 * and a small residual network with every other node kind; and
 * `autotvm tune-task testing/matmul --target arm_cpu` (the built binary, AT_AUTOTVM) writing one
 * valid v0.2 line per trial with TVM's arm_cpu target string. */
#include "tests/support/test_net_support.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "records/log.h"
#include "records/record.h"
#include "tune/llvm_backend.h"

static at_llvm_pool *pool;

static int group_setup(void **state)
{
    (void)state;
    if (at_tune_llvm_pool_new(2, &pool) != AT_OK) {
        print_error("pool: %s\n", at_last_error());
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    at_tune_llvm_pool_free(pool);
    return 0;
}

/* ---- the executor on LLVM ---------------------------------------------------------------------- */

static at_net_target cpu_target(void)
{
    at_net_target t;
    assert_ok(at_net_target_parse("arm_cpu", &t));
    return t;
}

/* Runs net on the LLVM backend under the target's fallback plan and compares every node with
 * the reference executor; returns the number of programs one run launches. */
static size_t run_on_cpu(const at_net *net, at_net_target target)
{
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, target, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_ok(at_net_exec_new(net, plan, at_tune_llvm_backend(), pool, &e));
    at_net_check c = at_test_net_run_and_check(net, e);
    assert_true(c.node != SIZE_MAX); /* something was compared */
    size_t n = at_net_exec_n_programs(e);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    return n;
}

static void mobilenet_should_run_on_llvm_as_the_reference(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 32, 32}, .num_classes = 10, .params = true, .seed = 1};
    at_net *net;
    assert_ok(at_net_load("mobilenet", &o, &net));
    assert_true(run_on_cpu(net, cpu_target()) > 27); /* 27 conv anchors + pooling, dense, softmax */
    at_net_free(net);
}

static size_t app(at_net *net, at_net_op op, const char *name, const size_t *in, size_t n_in, const at_net_attrs *a)
{
    size_t id;
    assert_ok(at_net_append(net, op, name, in, n_in, a, &id));
    return id;
}

/* Every node kind resnet-18 and squeezenet add to mobilenet's: batch norm, max pooling, a
 * residual add, concat, dropout; a conv with a stride and a 1x1 projection. */
static at_net *small_residual_net(void)
{
    const int64_t shape[4] = {1, 3, 16, 16};
    at_net *net;
    assert_ok(at_net_new("small_residual", shape, true, 4, &net));
    size_t x = 0;
    size_t c1 = app(net, AT_NET_CONV2D, "c1", &x, 1, &(at_net_attrs){.channels = 8, .kernel = {3, 3}, .stride = {2, 2}, .pad = {1, 1, 1, 1}});
    size_t bn = app(net, AT_NET_BATCH_NORM, "bn1", &c1, 1, NULL);
    size_t r1 = app(net, AT_NET_RELU, "r1", &bn, 1, NULL);
    size_t p = app(net, AT_NET_MAX_POOL2D, "p", &r1, 1, &(at_net_attrs){.kernel = {3, 3}, .stride = {1, 1}, .pad = {1, 1, 1, 1}});
    size_t c2 = app(net, AT_NET_CONV2D, "c2", &p, 1, &(at_net_attrs){.channels = 8, .kernel = {3, 3}, .pad = {1, 1, 1, 1}});
    size_t b2 = app(net, AT_NET_BIAS_ADD, "b2", &c2, 1, NULL);
    size_t add_in[2] = {b2, p};
    size_t a = app(net, AT_NET_ADD, "add", add_in, 2, NULL);
    size_t r2 = app(net, AT_NET_RELU, "r2", &a, 1, NULL);
    size_t c3 = app(net, AT_NET_CONV2D, "c3", &r2, 1, &(at_net_attrs){.channels = 4, .kernel = {1, 1}});
    size_t cat_in[2] = {c3, r2};
    size_t cat = app(net, AT_NET_CONCAT, "cat", cat_in, 2, NULL);
    size_t d = app(net, AT_NET_DROPOUT, "drop", &cat, 1, NULL);
    size_t g = app(net, AT_NET_GLOBAL_AVG_POOL2D, "g", &d, 1, NULL);
    size_t f = app(net, AT_NET_BATCH_FLATTEN, "f", &g, 1, NULL);
    size_t fc = app(net, AT_NET_DENSE, "fc", &f, 1, &(at_net_attrs){.channels = 10});
    size_t fb = app(net, AT_NET_BIAS_ADD, "fcb", &fc, 1, NULL);
    app(net, AT_NET_SOFTMAX, "sm", &fb, 1, NULL);
    at_net *fused;
    assert_ok(at_net_fuse(net, &fused));
    at_net_free(net);
    return fused;
}

static void a_residual_network_should_run_on_llvm_as_the_reference(void **state)
{
    (void)state;
    at_net *net = small_residual_net();
    assert_true(run_on_cpu(net, cpu_target()) >= 5); /* 3 convs + dense + the rest */
    at_net_free(net);
}

/* The Mali templates' programs too: thread bindings become loops on the CPU. */
static void mali_programs_should_run_on_llvm_as_the_reference(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 32, 32}, .num_classes = 10, .params = true, .seed = 3};
    at_net *net;
    assert_ok(at_net_load("mobilenet", &o, &net));
    at_net_target mali;
    assert_ok(at_net_target_parse("mali", &mali));
    assert_true(run_on_cpu(net, mali) > 27);
    at_net_free(net);
}

/* A program LLVM cannot run (a barrier: work-items in lock step) fails prog_new, naming it. */
static void a_program_with_a_barrier_should_be_refused_by_the_backend(void **state)
{
    (void)state;
    at_arena *arena;
    assert_ok(at_arena_new(0, &arena));
    at_ir_sched *s = at_ir_sched_begin(arena, "with_barrier");
    assert_non_null(s);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 4, AT_IR_OUTPUT);
    const at_ir_var *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_stmt *body = at_ir_seq2(s, at_ir_barrier(s, AT_IR_LOCAL), at_ir_store(s, out, at_ir_v(s, tx), at_ir_f32(s, 1)));
    at_ir_add_kernel(s, "k", at_ir_for(s, tx, 4, AT_IR_THREAD_X, body));
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    void *prog = NULL;
    assert_int_equal(at_tune_llvm_backend()->prog_new(pool, p, &prog), AT_EUNSUPPORTED);
    assert_null(prog);
    assert_non_null(strstr(at_last_error(), "compiling network program with_barrier for the CPU"));
    at_arena_free(arena);
}

/* ---- autotvm tune-task --target arm_cpu -------------------------------------------------------- */

static char work[4096], log_path[4200];
static char *out_text, *err_text;

static void tune_task_should_write_valid_arm_cpu_log_lines(void **state)
{
    (void)state;
    snprintf(work, sizeof work, "%s", at_test_tmpdir("tune_cpu_cli"));
    snprintf(log_path, sizeof log_path, "%s/cpu.log", work);
    const char *args[] = {"tune-task", "testing/matmul", "--args", "32,32,32", "--target", "arm_cpu", "--tuner",
                          "random", "--n-trial", "6", "--log", log_path, "--seed", "3", "--n-parallel", "2",
                          "--threads", "2", "--cooldown-ms", "0", "--check-correctness", NULL};
    assert_int_equal(at_test_cli_finish(work, at_test_cli_start(work, args), &out_text, &err_text), 0);
    assert_non_null(strstr(out_text, "\r[Task  1/ 1]  Current/Best: "));
    assert_non_null(strstr(out_text, "| Progress: (6/6) |"));
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(log_path, &log));
    assert_int_equal(log->n, 6);
    assert_int_equal(log->stats.malformed, 0);
    int64_t seen[6];
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        assert_string_equal(r->target_str, "llvm -device=arm_cpu");
        assert_string_equal(r->task_name, "testing/matmul");
        assert_string_equal(r->args_json, "[32, 32, 32, \"float32\"]");
        assert_int_equal(r->result.err, AT_MEAS_OK);
        assert_true(r->result.n_costs >= 1 && r->result.costs_s[0] > 0);
        seen[i] = at_config_index(r->config);
        for (size_t j = 0; j < i; j++) assert_true(seen[j] != seen[i]);
    }
    at_rec_log_free(log);
    /* a Mali (OpenCL) template is not a CPU template: a usage error (issue 19) */
    const char *bad[] = {"tune-task", "conv2d_nchw_spatial_pack.mali", "--args", "1,1,1", "--target", "arm_cpu",
                         "--tuner", "random", "--n-trial", "1", "--log", log_path, NULL};
    assert_int_equal(at_test_cli_finish(work, at_test_cli_start(work, bad), &out_text, &err_text), 2);
    const char *usage[] = {"tune-task", "testing/matmul", "--args", "8,8,8", "--target", "cuda", "--tuner", "random",
                           "--n-trial", "1", "--log", log_path, NULL};
    assert_int_equal(at_test_cli_finish(work, at_test_cli_start(work, usage), &out_text, &err_text), 2);
    assert_non_null(strstr(err_text, "kind cuda is not measured here"));
    const char *unknown[] = {"tune-task", "testing/matmul", "--args", "8,8,8", "--target", "nosuchkind", "--tuner",
                             "random", "--n-trial", "1", "--log", log_path, NULL};
    assert_int_equal(at_test_cli_finish(work, at_test_cli_start(work, unknown), &out_text, &err_text), 2);
    assert_non_null(strstr(err_text, "--target: "));
    const char *threads_on_gpu[] = {"tune-task", "testing/matmul", "--args", "8,8,8", "--threads", "2", "--tuner",
                                    "random", "--n-trial", "1", "--log", log_path, NULL};
    assert_int_equal(at_test_cli_finish(work, at_test_cli_start(work, threads_on_gpu), &out_text, &err_text), 2);
    at_free(out_text);
    at_free(err_text);
    out_text = err_text = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mobilenet_should_run_on_llvm_as_the_reference),
        cmocka_unit_test(a_residual_network_should_run_on_llvm_as_the_reference),
        cmocka_unit_test(mali_programs_should_run_on_llvm_as_the_reference),
        cmocka_unit_test(a_program_with_a_barrier_should_be_refused_by_the_backend),
        cmocka_unit_test(tune_task_should_write_valid_arm_cpu_log_lines),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
