/* measure/'s CPU pool (measure/cpu.h): testing/matmul configs for LLVM build, run, verify and
 * time in worker processes; the fault cases (a wrong answer -> WRONG_ANSWER, an LLVM codegen
 * failure -> COMPILE_HOST, a kernel that segfaults -> RUNTIME_DEVICE and the next trial on a
 * fresh worker succeeds, a kernel that never ends -> RUN_TIMEOUT, a crash while scheduling), each
 * landing on its own config; the thread count; TVM's cache flush before each timing round; the
 * refusal of other template families; and the rpc-server's handler measuring LLVM templates. */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/clock.h"
#include "measure/cpu.h"
#include "measure/rpc_handler.h"
#include "measure/rpc_proto.h"
#include "templates/template.h"
#include "tests/support/test_measure_support.h"
#include "tests/support/test_support.h"

#include "tests/fakes/fault_template.h"

/* ---- a kernel that dies of SIGSEGV at run time ------------------------------------------------ */

enum { SEGV_MODE, SEGV_N_KNOBS };

static at_status segv_space(const at_args *a, at_space *s)
{
    (void)a;
    static const int64_t modes[1] = {1};
    return at_space_other(s, SEGV_MODE, "mode", modes, 1);
}

/* C[i] = 0, but at i + 2^40 * (int)(A[0] + 1) elements (inputs are in [0, 1), so 2^40): an
 * index read from data, which no static check sees, 4 TiB past the buffer. */
static at_status segv_schedule(const at_args *a, const at_config *c, at_ir_sched *s)
{
    (void)c;
    const at_matmul_args *m = &a->u.matmul;
    const at_ir_buffer *A = at_ir_param(s, "A", m->dtype, m->n * m->l, AT_IR_INPUT);
    at_ir_param(s, "B", m->dtype, m->l * m->m, AT_IR_INPUT);
    const at_ir_buffer *C = at_ir_param(s, "C", m->dtype, m->n * m->m, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I64);
    const at_ir_expr *one = at_ir_cast(s, AT_IR_I64, at_ir_add(s, at_ir_load(s, A, at_ir_i32(s, 0), 1), at_ir_f32(s, 1)));
    const at_ir_expr *far = at_ir_mul(s, one, at_ir_int(s, AT_IR_I64, (int64_t)1 << 40));
    at_ir_add_kernel(s, "segv", at_ir_for(s, i, m->n * m->m, AT_IR_SERIAL,
                                          at_ir_store(s, C, at_ir_add(s, at_ir_v(s, i), far), at_ir_f32(s, 0))));
    return at_ir_sched_status(s);
}

static const at_template segv_tmpl = {
    .name = "testing/segv",
    .op = AT_OP_MATMUL,
    .target = AT_TARGET_LLVM,
    .n_knobs = SEGV_N_KNOBS,
    .define_space = segv_space,
    .schedule = segv_schedule,
};

static const at_template *const extra[] = {&at_fake_fault_tmpl_llvm, &segv_tmpl};

/* ---- fixtures ------------------------------------------------------------------------------- */

static at_meas_ocl *pool;

static at_measure_opts opts(void)
{
    return (at_measure_opts){.number = 2, .repeat = 3, .timeout_ms = 2000, .build_timeout_ms = 30000, .cooldown_ms = -1,
                             .n_parallel = 2, .n_threads = 2, .check_correctness = true, .extra_templates = extra,
                             .n_extra_templates = 2};
}

static int group_setup(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    return at_test_pool_open(at_meas_cpu_new, &o, &pool);
}

static int group_teardown(void **state)
{
    (void)state;
    at_meas_ocl_free(pool);
    return 0;
}

static at_task *fault_task(int64_t n)
{
    at_task *t;
    at_args a = {.op = AT_OP_MATMUL, .u.matmul = {n, n, n, AT_IR_F32}};
    assert_ok(at_task_new(&at_fake_fault_tmpl_llvm, &a, &t));
    return t;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void matmul_configs_across_the_space_should_run_and_verify(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_LLVM, "24,16,32", &t));
    assert_int_equal(at_space_len(at_task_space(t)), 8 * 6);
    const int64_t idx[6] = {0, 47, 7, 40, 13, 22};
    at_result res[6];
    at_test_measure_configs(pool, t, idx, 6, res);
    size_t n;
    const at_meas_times *times = at_meas_ocl_last_times(pool, &n);
    assert_int_equal(n, 6);
    for (size_t i = 0; i < 6; i++) {
        at_test_expect_result(&res[i], AT_MEAS_OK, NULL, i);
        assert_true(times[i].compiled);
        assert_true(times[i].compile_s > 0);
        assert_true(times[i].total_s >= times[i].run_s);
        if (i) assert_true(res[i].timestamp >= res[i - 1].timestamp);
        at_result_fini(&res[i]);
    }
    at_task_free(t);
}

static void faults_should_cost_one_trial_each_and_land_on_their_configs(void **state)
{
    (void)state;
    at_task *t = fault_task(64);
    /* index = mode + 7 * work_entity */
    const int64_t idx[7] = {AT_FAULT_OK, AT_FAULT_WRONG, AT_FAULT_NO_COMPILE, AT_FAULT_CRASH, AT_FAULT_OK + 7,
                            AT_FAULT_FOREVER, AT_FAULT_OK};
    at_meas_ocl_stats before, after;
    at_meas_ocl_stats_get(pool, &before);
    at_result res[7];
    at_test_measure_configs(pool, t, idx, 7, res);
    at_meas_ocl_stats_get(pool, &after);
    at_test_expect_result(&res[0], AT_MEAS_OK, NULL, 0);
    at_test_expect_result(&res[1], AT_MEAS_WRONG_ANSWER, "output C differs from the reference: max error 1", 1);
    at_test_expect_result(&res[2], AT_MEAS_COMPILE_HOST, "no_such_function", 2);
    assert_non_null(strstr(res[2].msg, "LLVM code generation"));
    at_test_expect_result(&res[3], AT_MEAS_RUNTIME_DEVICE, "killed by signal 9", 3);
    at_test_expect_fault_tail(res, 4, 2); /* work 32, a 2 s timeout, the trial after it */
    assert_int_equal(after.n_worker_losses - before.n_worker_losses, 2);
    assert_int_equal(after.n_trials - before.n_trials, 7);
    for (size_t i = 0; i < 7; i++) at_result_fini(&res[i]);
    at_task_free(t);
}

/* A build goes on between runs and is paused during them, its deadline with it: the first input
 * runs forever (a 2 s run timeout) while the second's build, which never ends, is paused; the run's
 * timeout must end the wait (no other worker is left to hear from), and the build then times out
 * 3 s of building later, not 3 s after it started. The third input runs on a fresh worker. */
static void a_paused_build_should_keep_its_time_and_a_run_timeout_should_end_the_wait(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    o.build_timeout_ms = 3000;
    at_meas_ocl *m;
    assert_ok(at_meas_cpu_new(&o, &m));
    at_task *t = fault_task(16);
    const int64_t idx[3] = {AT_FAULT_FOREVER, AT_FAULT_SLOW_BUILD, AT_FAULT_OK};
    at_meas_ocl_stats s;
    at_result res[3];
    double t0 = at_clock_mono_s();
    at_test_measure_configs(m, t, idx, 3, res);
    double took = at_clock_mono_s() - t0;
    at_meas_ocl_stats_get(m, &s);
    at_test_expect_result(&res[0], AT_MEAS_RUN_TIMEOUT, "exceeded the 2 s timeout", 0);
    at_test_expect_result(&res[1], AT_MEAS_BUILD_TIMEOUT, "build exceeded the 3 s timeout", 1);
    at_test_expect_result(&res[2], AT_MEAS_OK, NULL, 2);
    assert_true(s.n_pauses >= 1);
    /* the forever run (2 s) and then the rest of the paused build's 3 s */
    assert_true(took >= 2.0 + 3.0 - 0.2);
    for (size_t i = 0; i < 3; i++) at_result_fini(&res[i]);
    at_task_free(t);
    at_meas_ocl_free(m);
}

static void a_kernel_that_segfaults_should_cost_one_trial_and_the_next_should_run(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    o.n_parallel = 1; /* the next trial needs the worker that replaced the dead one */
    at_meas_ocl *m;
    assert_ok(at_meas_cpu_new(&o, &m));
    long pid = at_meas_ocl_worker_pid(m, 0);
    at_args a = {.op = AT_OP_MATMUL, .u.matmul = {16, 16, 16, AT_IR_F32}};
    at_task *segv, *ok = fault_task(16);
    assert_ok(at_task_new(&segv_tmpl, &a, &segv));
    at_config *c0, *c1;
    assert_ok(at_task_config(segv, 0, &c0));
    assert_ok(at_task_config(ok, AT_FAULT_OK, &c1));
    at_meas_input in[3] = {{segv, c0}, {ok, c1}, {segv, c0}};
    at_result res[3];
    for (int i = 0; i < 3; i++) at_result_init(&res[i]);
    assert_ok(at_meas_ocl_measure(m, in, 3, res));
    at_test_expect_result(&res[0], AT_MEAS_RUNTIME_DEVICE, "killed by signal 11", 0);
    assert_non_null(strstr(res[0].msg, "while running"));
    at_test_expect_result(&res[1], AT_MEAS_OK, NULL, 1);
    at_test_expect_result(&res[2], AT_MEAS_RUNTIME_DEVICE, "killed by signal 11", 2);
    at_meas_ocl_stats st;
    at_meas_ocl_stats_get(m, &st);
    assert_int_equal(st.n_worker_losses, 2);
    assert_int_equal(st.n_worker_starts, 3); /* the first, one per loss (the last restarted on return) */
    assert_true(at_meas_ocl_worker_pid(m, 0) != pid);
    for (int i = 0; i < 3; i++) at_result_fini(&res[i]);
    at_config_free(c0);
    at_config_free(c1);
    at_task_free(segv);
    at_task_free(ok);
    at_meas_ocl_free(m);
}

static void the_thread_count_should_follow_the_option_and_default_to_the_cores(void **state)
{
    (void)state;
    const at_ocl_device_info *d = at_meas_ocl_device(pool);
    assert_true(d->is_cpu);
    assert_int_equal(d->compute_units, 2);
    assert_non_null(strstr(d->name, "(2 threads)"));
    at_measure_opts o = opts();
    o.n_parallel = 1;
    o.n_threads = 0;
    at_meas_ocl *m;
    assert_ok(at_meas_cpu_new(&o, &m));
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    assert_int_equal(at_meas_ocl_device(m)->compute_units, (unsigned)cores);
    at_meas_ocl_free(m);
    o.n_threads = -1;
    assert_int_equal(at_meas_cpu_new(&o, &m), AT_EINVAL);
}

static void cache_flush_should_keep_results_right(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    o.n_parallel = 1;
    o.enable_cpu_cache_flush = true;
    o.min_repeat_ms = 5;
    at_meas_ocl *m;
    assert_ok(at_meas_cpu_new(&o, &m));
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_LLVM, "32,32,32", &t));
    const int64_t idx[2] = {0, 20};
    at_result res[2];
    at_test_measure_configs(m, t, idx, 2, res);
    for (size_t i = 0; i < 2; i++) {
        at_test_expect_result(&res[i], AT_MEAS_OK, NULL, i);
        at_result_fini(&res[i]);
    }
    at_task_free(t);
    at_meas_ocl_free(m);
}

/* ---- the time evaluator's preprocessing hook ------------------------------------------------- */

typedef struct fake_clock {
    int calls, preprocs, calls_at_preproc[8];
} fake_clock;

static at_status fake_fn(void *ctx, int64_t number, double *duration_ms)
{
    fake_clock *c = ctx;
    c->calls++;
    if (duration_ms) *duration_ms = (double)number; /* 1 ms per run */
    return AT_OK;
}

static at_status fake_pre(void *ctx)
{
    fake_clock *c = ctx;
    c->calls_at_preproc[c->preprocs++] = c->calls;
    return AT_OK;
}

static void preproc_should_run_once_before_each_round(void **state)
{
    (void)state;
    fake_clock c = {0};
    double costs[3];
    int64_t number = 0;
    /* min_repeat_ms 10 with number 2: the first round retimes (2 -> 11 runs), the others not */
    assert_ok(at_meas_time_evaluator_pre(fake_fn, fake_pre, &c, 2, 3, 10, costs, &number));
    assert_int_equal(c.preprocs, 3);
    assert_int_equal(c.calls_at_preproc[0], 1); /* after the warm-up */
    assert_int_equal(c.calls_at_preproc[1], 3); /* warm-up + two timings of round 1 */
    assert_int_equal(c.calls_at_preproc[2], 4);
    assert_int_equal(c.calls, 5);
    assert_int_equal(number, 11);
    for (int i = 0; i < 3; i++) assert_true(fabs(costs[i] - 1e-3) < 1e-12);
}

static void cache_flush_should_leave_the_data_intact(void **state)
{
    (void)state;
    /* a flush writes back, never discards */
    unsigned char b[4096], c[100];
    memset(b, 2, sizeof b);
    memset(c, 3, sizeof c);
    void *const bufs[2] = {b, c};
    const size_t bytes[2] = {sizeof b, sizeof c};
    at_meas_cpu_cache_flush(bufs, bytes, 2);
    for (size_t i = 0; i < sizeof b; i++) assert_int_equal(b[i], 2);
    for (size_t i = 0; i < sizeof c; i++) assert_int_equal(c[i], 3);
}

/* The buffers TVM's cache_flush_cpu_non_first_arg flushes: its arguments are [output] + the
 * placeholders the timed function reads, so every input but not the output. */
static void flushed_names(const char *tmpl, const char *args, char *out, size_t cap)
{
    at_task *t;
    assert_ok(at_task_create(tmpl, AT_TARGET_LLVM, args, &t));
    at_config *c;
    assert_ok(at_task_config(t, 0, &c));
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, ar, &p));
    size_t idx[64];
    assert_true(p->n_bufs <= 64);
    size_t n = at_meas_cpu_flush_set(p, idx);
    out[0] = '\0';
    for (size_t k = 0; k < n; k++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", k ? " " : "", p->bufs[idx[k]]->name);
    at_arena_free(ar);
    at_config_free(c);
    at_task_free(t);
}

/* In TVM's x86 tuning the data and kernel arguments are already packed, and the output is the
 * NCHW[oc_bn]c tensor: here data_vec and kernel_vec, filled by preparation kernels, are flushed;
 * the NCHW data and kernel, which only those kernels read, and the output are not. */
static void cache_flush_should_take_the_packed_inputs_and_not_the_output(void **state)
{
    (void)state;
    char names[256];
    flushed_names("conv2d_NCHWc.x86", "1,64,56,56,64,3,3,1,1", names, sizeof names);
    assert_string_equal(names, "kernel_vec data_vec");
    flushed_names("depthwise_conv2d_NCHWc.x86", "1,32,28,28,1,3,3,1,1", names, sizeof names);
    assert_string_equal(names, "kernel_vec data_vec");
    /* arm_cpu's spatial pack packs the data inside the timed kernels: the data is an input */
    flushed_names("conv2d_nchw_spatial_pack.arm_cpu", "1,64,56,56,64,3,3,1,1", names, sizeof names);
    assert_string_equal(names, "data kernel_vec");
}

/* ---- runner ---------------------------------------------------------------------------------- */

static void the_runner_should_refuse_other_families(void **state)
{
    (void)state;
    at_measure_opts o = opts();
    o.n_parallel = 1;
    at_meas_runner *r;
    assert_ok(at_meas_local_runner_new(AT_TARGET_LLVM, &o, &r));
    assert_string_equal(at_meas_runner_name(r), "llvm");
    assert_int_equal(at_meas_runner_batch_size(r), 1);
    assert_non_null(at_meas_cpu_of(r));
    assert_null(at_meas_ocl_of(r));
    at_task *t, *other;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_LLVM, "8,8,8", &t));
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "8,8,8", &other));
    at_config *c, *c2;
    assert_ok(at_task_config(t, 15, &c));
    assert_ok(at_task_config(other, 15, &c2));
    at_meas_input in[3] = {{other, c2}, {t, c}, {other, c2}};
    at_result res[3];
    for (int i = 0; i < 3; i++) at_result_init(&res[i]);
    assert_ok(at_meas_runner_measure(r, in, 3, res));
    at_test_expect_result(&res[1], AT_MEAS_OK, NULL, 1);
    for (int i = 0; i < 3; i += 2) {
        assert_int_equal(res[i].err, AT_MEAS_COMPILE_HOST);
        assert_non_null(strstr(res[i].msg, "the CPU runner cannot measure opencl templates (testing/matmul)"));
    }
    for (int i = 0; i < 3; i++) at_result_fini(&res[i]);
    at_config_free(c);
    at_config_free(c2);
    at_task_free(t);
    at_task_free(other);
    at_meas_runner_free(r);
    assert_int_equal(at_meas_local_runner_new(AT_TARGET_VTA, &o, &r), AT_EUNSUPPORTED);
    assert_null(r);
}

/* ---- the rpc-server's handler ------------------------------------------------------------------ */

/* A board's rpc-server measures LLVM templates on its own CPU: one request, one OK reply naming
 * the CPU, then an OpenCL-free refusal of a template this server lacks. */
static void the_rpc_handler_should_measure_llvm_templates_on_its_cpu(void **state)
{
    (void)state;
    at_meas_rpc_handler_opts ho = {.no_probe = true};
    at_meas_rpc_handler *h;
    assert_ok(at_meas_rpc_handler_new(&ho, &h));
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_LLVM, "32,32,32", &t));
    at_config *c;
    assert_ok(at_task_config(t, 20, &c));
    at_strbuf cfg, req, reply;
    at_strbuf_init(&cfg);
    at_strbuf_init(&req);
    at_strbuf_init(&reply);
    at_config_write_json(c, &cfg);
    at_meas_rpc_request q = {.id = 5, .target = AT_TARGET_LLVM, .number = 2, .repeat = 3, .timeout_ms = 10000,
                             .build_timeout_ms = 30000, .check_correctness = true, .seed = 3,
                             .space_len = at_space_range_len(at_task_space(t)), .config_index = 20,
                             .template_name = "testing/matmul", .args_json = "[32, 32, 32, \"float32\"]",
                             .config_json = at_strbuf_cstr(&cfg)};
    assert_ok(at_meas_rpc_request_encode(&q, &req));
    assert_ok(at_meas_rpc_handler_measure(h, (const unsigned char *)req.data, req.len, &reply));
    at_meas_rpc_reply rep;
    assert_ok(at_meas_rpc_reply_decode(reply.data, reply.len, &rep));
    assert_int_equal(rep.err, AT_MEAS_OK);
    assert_int_equal(rep.config_index, 20);
    assert_int_equal(rep.n_costs, 1);
    assert_true(rep.costs_s[0] > 0);
    assert_non_null(strstr(rep.device, "thread"));
    at_meas_rpc_reply_fini(&rep);
    q.template_name = "testing/nothing";
    at_strbuf_clear(&req);
    at_strbuf_clear(&reply);
    assert_ok(at_meas_rpc_request_encode(&q, &req));
    assert_int_equal(at_meas_rpc_handler_measure(h, (const unsigned char *)req.data, req.len, &reply), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), "no LLVM template 'testing/nothing'"));
    at_strbuf_fini(&cfg);
    at_strbuf_fini(&req);
    at_strbuf_fini(&reply);
    at_config_free(c);
    at_task_free(t);
    at_meas_rpc_handler_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(preproc_should_run_once_before_each_round),
        cmocka_unit_test(cache_flush_should_leave_the_data_intact),
        cmocka_unit_test(cache_flush_should_take_the_packed_inputs_and_not_the_output),
        cmocka_unit_test(matmul_configs_across_the_space_should_run_and_verify),
        cmocka_unit_test(faults_should_cost_one_trial_each_and_land_on_their_configs),
        cmocka_unit_test(a_kernel_that_segfaults_should_cost_one_trial_and_the_next_should_run),
        cmocka_unit_test(a_paused_build_should_keep_its_time_and_a_run_timeout_should_end_the_wait),
        cmocka_unit_test(the_thread_count_should_follow_the_option_and_default_to_the_cores),
        cmocka_unit_test(cache_flush_should_keep_results_right),
        cmocka_unit_test(the_runner_should_refuse_other_families),
        cmocka_unit_test(the_rpc_handler_should_measure_llvm_templates_on_its_cpu),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
