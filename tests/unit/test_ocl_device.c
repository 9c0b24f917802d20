/* backends/opencl on a real device (PoCL here; AT_TEST_DEVICE picks another): device listing and
 * selection, every fixture program compiled and run against the IR interpreter on the same
 * inputs, testing/matmul configs against the reference, compiler errors with their log, and
 * profiled timing. OpenCL runs in this process (no workers). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/opencl/runtime.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "templates/template.h"
#include "tests/support/test_support.h"
#include "tests/support/test_ocl_ctx_support.h"
#include "tests/unit/test_ocl_programs.h"

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

static void devices_should_be_listed_and_selected_by_index_or_name(void **state)
{
    (void)state;
    at_ocl_device_info *devs;
    size_t n, index;
    assert_ok(at_ocl_devices(&devs, &n));
    assert_true(n >= 1);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(devs[i].index, i);
        assert_true(devs[i].max_work_group_size >= 1);
        assert_true(devs[i].max_work_item_dims >= 3);
        assert_true(devs[i].name[0] != '\0');
    }
    assert_ok(at_ocl_device_select(devs, n, NULL, &index));
    bool any_pocl = false;
    for (size_t i = 0; i < n; i++) any_pocl |= devs[i].is_pocl;
    if (any_pocl) assert_true(devs[index].is_pocl);
    assert_ok(at_ocl_device_select(devs, n, "0", &index));
    assert_int_equal(index, 0);
    char upper[64];
    snprintf(upper, sizeof upper, "%.20s", devs[n - 1].name);
    for (char *p = upper; *p; p++) *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    assert_ok(at_ocl_device_select(devs, n, upper, &index)); /* case-insensitive substring */
    assert_int_equal(at_ocl_device_select(devs, n, "no-such-device-anywhere", &index), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), "no OpenCL device matches 'no-such-device-anywhere' (devices: 0: "));
    assert_int_equal(at_ocl_device_select(devs, n, "99", &index), AT_ENOTFOUND);
    at_free(devs);
    assert_true(at_ocl_touched());
    assert_int_equal(at_ocl_runtime_init("/tmp/some/other/dir"), AT_EINVAL);
}

/* Host data for a program's global buffers (inputs random, everything else zero). */
typedef struct host {
    size_t n;
    void  *data[16];
    size_t bytes[16];
} host;

static void host_init(host *h, const at_ir_program *p, uint64_t seed)
{
    at_rng rng;
    at_rng_seed(&rng, seed);
    h->n = p->n_bufs;
    assert_true(h->n <= 16);
    for (size_t i = 0; i < h->n; i++) {
        const at_ir_buffer *b = p->bufs[i];
        h->bytes[i] = (size_t)b->size * at_ir_type_bytes(b->elem);
        h->data[i] = at_calloc(1, h->bytes[i]);
        for (int64_t k = 0; k < b->size && b->role == AT_IR_INPUT; k++) {
            if (at_ir_type_eq(b->elem, AT_IR_F32))
                ((float *)h->data[i])[k] = (float)(at_rng_uniform(&rng) * 4 - 1);
            else if (at_ir_type_eq(b->elem, AT_IR_I32))
                ((int32_t *)h->data[i])[k] = (int32_t)at_rng_below(&rng, 17) - 8;
            else
                fail();
        }
    }
}

static void host_fini(host *h)
{
    for (size_t i = 0; i < h->n; i++) at_free(h->data[i]);
}

/* Builds, binds and runs p on the device from h's contents; outputs are read back into out. */
static void run_on_device(const at_ir_program *p, const at_ocl_code *code, const host *h, host *out)
{
    at_ocl_prog *prog;
    char *log = NULL;
    at_status st = at_ocl_prog_build(ctx, code, NULL, &prog, &log);
    if (st != AT_OK) print_error("build log:\n%s\n", log ? log : "(none)");
    at_free(log);
    assert_ok(st);
    at_ocl_buf *bufs[16];
    for (size_t i = 0; i < p->n_bufs; i++) {
        assert_ok(at_ocl_buf_new(ctx, h->bytes[i], &bufs[i]));
        assert_ok(at_ocl_buf_write(ctx, bufs[i], h->data[i]));
    }
    assert_ok(at_ocl_prog_bind(prog, bufs, p->n_bufs));
    assert_ok(at_ocl_prog_first_launch(prog));
    double ms = -1;
    assert_ok(at_ocl_prog_run(prog, 2, &ms));
    assert_true(ms >= 0);
    for (size_t i = 0; i < p->n_bufs; i++) {
        if (p->bufs[i]->role == AT_IR_OUTPUT) assert_ok(at_ocl_buf_read(ctx, bufs[i], out->data[i]));
        at_ocl_buf_free(bufs[i]);
    }
    at_ocl_prog_free(prog);
}

static void assert_close(const at_ir_buffer *b, const void *got, const void *want, const char *what)
{
    for (int64_t k = 0; k < b->size; k++) {
        double g, w, tol;
        if (at_ir_type_eq(b->elem, AT_IR_F32)) {
            g = ((const float *)got)[k];
            w = ((const float *)want)[k];
            tol = 1e-5 * (1 + fabs(w));
        } else if (at_ir_type_eq(b->elem, AT_IR_F64)) {
            g = ((const double *)got)[k];
            w = ((const double *)want)[k];
            tol = 1e-12 * (1 + fabs(w));
        } else {
            g = ((const int32_t *)got)[k];
            w = ((const int32_t *)want)[k];
            tol = 0;
        }
        if (!(fabs(g - w) <= tol)) {
            print_error("%s: %s[%lld] device %.9g, interpreter %.9g\n", what, b->name, (long long)k, g, w);
            fail();
        }
    }
}

static void fixtures_should_compute_on_the_device_what_the_interpreter_computes(void **state)
{
    (void)state;
    assert_int_equal(n_ocl_fixtures, 6);
    for (size_t f = 0; f < n_ocl_fixtures; f++) {
        at_arena *a;
        assert_ok(at_arena_new(0, &a));
        at_ir_sched *s = at_ir_sched_begin(a, ocl_fixtures[f].name);
        ocl_fixtures[f].build(s);
        const at_ir_program *p;
        assert_ok(at_ir_sched_finish(s, &p));
        assert_ok(at_ir_verify(p));
        at_ocl_code code;
        assert_ok(at_ocl_emit(p, &code));
        host in, dev, ref;
        host_init(&in, p, 100 + f);
        host_init(&dev, p, 100 + f);
        host_init(&ref, p, 100 + f);
        run_on_device(p, &code, &in, &dev);
        assert_ok(at_ir_interp(p, ref.data));
        size_t n_out = 0;
        for (size_t i = 0; i < p->n_bufs; i++) {
            if (p->bufs[i]->role != AT_IR_OUTPUT) continue;
            assert_close(p->bufs[i], dev.data[i], ref.data[i], ocl_fixtures[f].name);
            n_out++;
        }
        assert_true(n_out >= 1);
        host_fini(&in);
        host_fini(&dev);
        host_fini(&ref);
        at_ocl_code_fini(&code);
        at_arena_free(a);
    }
}

static void matmul_configs_should_match_the_reference_on_the_device(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "32,16,24", &t));
    const at_space *sp = at_task_space(t);
    assert_int_equal(at_space_len(sp), 6 * 8);
    at_rng rng;
    at_rng_seed(&rng, 3);
    int64_t idx[6];
    assert_ok(at_space_sample_ints(sp, &rng, 6, idx));
    for (size_t k = 0; k < 6; k++) {
        at_config *c;
        assert_ok(at_task_config(t, idx[k], &c));
        at_arena *a;
        assert_ok(at_arena_new(0, &a));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, c, a, &p));
        at_ocl_code code;
        assert_ok(at_ocl_emit(p, &code));
        host in, dev;
        host_init(&in, p, 5);
        host_init(&dev, p, 5);
        run_on_device(p, &code, &in, &dev);
        float want[32 * 24];
        at_op_reference(at_task_args(t), (const void *const[]){in.data[0], in.data[1]}, (void *const[]){want});
        for (int i = 0; i < 32 * 24; i++) {
            float g = ((float *)dev.data[2])[i];
            if (!(fabsf(g - want[i]) <= 1e-4f * (1 + fabsf(want[i])))) {
                print_error("config %lld: C[%d] = %g, reference %g\n", (long long)idx[k], i, g, want[i]);
                fail();
            }
        }
        host_fini(&in);
        host_fini(&dev);
        at_ocl_code_fini(&code);
        at_arena_free(a);
        at_config_free(c);
    }
    at_task_free(t);
}

/* A timed run launches only the timed kernels: the first launch runs the preparation and
 * finishing kernels too, later timed runs leave both out (the weights stay packed, the finished
 * output is not written again). */
static void a_timed_run_should_leave_out_preparing_and_finishing_kernels(void **state)
{
    (void)state;
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p = staged_program(ar);
    assert_non_null(p);
    at_ocl_code code;
    assert_ok(at_ocl_emit(p, &code));
    assert_true(code.kernels[0].prepare && code.kernels[2].finish && !code.kernels[1].prepare && !code.kernels[1].finish);
    at_ocl_prog *prog;
    char *log = NULL;
    assert_ok(at_ocl_prog_build(ctx, &code, NULL, &prog, &log));
    at_free(log);
    float x[4] = {1, 2, 3, 4}, y[4], m[4];
    at_ocl_buf *bufs[4];
    for (size_t k = 0; k < 4; k++) assert_ok(at_ocl_buf_new(ctx, sizeof x, &bufs[k]));
    assert_ok(at_ocl_buf_write(ctx, bufs[0], x));
    assert_ok(at_ocl_prog_bind(prog, bufs, 4));
    assert_ok(at_ocl_prog_first_launch(prog));
    assert_ok(at_ocl_buf_read(ctx, bufs[1], y));
    for (int k = 0; k < 4; k++) assert_true(y[k] == (x[k] * 2 + 1) * 3);
    for (int k = 0; k < 4; k++) x[k] = y[k] = m[k] = -1;
    assert_ok(at_ocl_buf_write(ctx, bufs[0], x));
    assert_ok(at_ocl_buf_write(ctx, bufs[1], y));
    assert_ok(at_ocl_buf_write(ctx, bufs[3], m));
    double ms = -1;
    assert_ok(at_ocl_prog_run(prog, 2, &ms));
    assert_ok(at_ocl_buf_read(ctx, bufs[1], y));
    assert_ok(at_ocl_buf_read(ctx, bufs[3], m));
    for (int k = 0; k < 4; k++) {
        assert_true(m[k] == (float)(k + 1) * 2 + 1); /* timed: from the packed weights of the first launch */
        assert_true(y[k] == -1);                     /* not finished */
    }
    for (size_t k = 0; k < 4; k++) at_ocl_buf_free(bufs[k]);
    at_ocl_prog_free(prog);
    at_ocl_code_fini(&code);
    at_arena_free(ar);
}

static void a_compile_error_should_come_back_with_the_compiler_log(void **state)
{
    (void)state;
    char *src = at_strdup("__kernel void k(__global float* x) { x[0] = no_such_function(1.0f); }\n");
    char *name = at_strdup("k");
    at_ocl_kernel_info ki = {.name = name, .work_dim = 1, .gws = {1, 1, 1}, .lws = {1, 1, 1}};
    at_ocl_code code = {.source = src, .n_kernels = 1, .kernels = &ki};
    at_ocl_prog *prog = (at_ocl_prog *)&code; /* must be reset to NULL on failure */
    char *log = NULL;
    assert_int_equal(at_ocl_prog_build(ctx, &code, NULL, &prog, &log), AT_EDEVICE);
    assert_null(prog);
    assert_non_null(strstr(at_last_error(), "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)"));
    assert_non_null(log);
    assert_non_null(strstr(log, "no_such_function"));
    at_free(log);
    at_free(src);
    at_free(name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(devices_should_be_listed_and_selected_by_index_or_name),
        cmocka_unit_test(fixtures_should_compute_on_the_device_what_the_interpreter_computes),
        cmocka_unit_test(matmul_configs_should_match_the_reference_on_the_device),
        cmocka_unit_test(a_compile_error_should_come_back_with_the_compiler_log),
        cmocka_unit_test(a_timed_run_should_leave_out_preparing_and_finishing_kernels),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
