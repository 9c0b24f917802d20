/* LLVM 15 JIT and PoCL in one process (spec toolchain.md §0.1: a second LLVM in the process
 * crashes PoCL's compiler on an uncached build): JIT a kernel and run it, build and run an
 * uncached OpenCL kernel (a fresh POCL_CACHE_DIR and a source made unique by a constant from the
 * pid and the clock), JIT again, build again. The order comes from AT_LLVM_OCL_ORDER: "jit"
 * (JIT first, the default) or "cl" (OpenCL first); ctest runs the executable once per order, since
 * only a fresh process can be OpenCL-first. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/llvm/llvm.h"
#include "backends/opencl/opencl.h"
#include "backends/opencl/runtime.h"
#include "core/alloc.h"
#include "core/arena.h"

enum { N = 256 };

static at_ocl_ctx *ctx;
static float       salt;

static int setup(void **state)
{
    (void)state;
    if (at_ocl_runtime_init(at_test_tmpdir("llvm_pocl_cache")) != AT_OK) return -1;
    at_ocl_device_info *devs;
    size_t n, index;
    if (at_ocl_devices(&devs, &n) != AT_OK || n == 0) return -1;
    at_status st = at_ocl_device_select(devs, n, getenv("AT_TEST_DEVICE"), &index);
    at_free(devs);
    if (st != AT_OK || at_ocl_ctx_new(index, &ctx) != AT_OK) return -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    salt = (float)((getpid() % 997) * 1000 + ts.tv_nsec / 1000000 % 1000) / 8.0f; /* exact in float */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_ocl_ctx_free(ctx);
    return 0;
}

/* out[i] = x[i] * k + c, over 4 work-groups of 64 items (a parallel block loop on the JIT). */
static const at_ir_program *program(at_arena **a, const char *name, float k, float c)
{
    assert_ok(at_arena_new(0, a));
    at_ir_sched *s = at_ir_sched_begin(*a, name);
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, N, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, N, AT_IR_OUTPUT);
    const at_ir_var *bx = at_ir_var_new(s, "bx", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_expr *i = at_ir_add(s, at_ir_mul(s, at_ir_v(s, bx), at_ir_i32(s, 64)), at_ir_v(s, tx));
    const at_ir_expr *v = at_ir_add(s, at_ir_mul(s, at_ir_load(s, x, i, 1), at_ir_f32(s, k)), at_ir_f32(s, c));
    at_ir_add_kernel(s, "scale", at_ir_for(s, bx, N / 64, AT_IR_BLOCK_X, at_ir_for(s, tx, 64, AT_IR_THREAD_X, at_ir_store(s, out, i, v))));
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    return p;
}

static void check(const float *x, const float *out, float k, float c)
{
    for (int i = 0; i < N; i++) assert_float_equal(out[i], x[i] * k + c, 1e-3 * (1 + c));
}

static void run_jit(at_llvm_pool *pool, float k)
{
    at_arena *a;
    const at_ir_program *p = program(&a, "jit", k, salt);
    float x[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (float)i / 16;
    at_llvm_jit *j;
    assert_ok(at_llvm_jit_new(p, NULL, &j));
    void *bufs[2] = {x, out};
    assert_ok(at_llvm_jit_run(j, bufs, 2, false, pool));
    check(x, out, k, salt);
    at_llvm_jit_free(j);
    at_arena_free(a);
}

static void run_ocl(float k)
{
    at_arena *a;
    const at_ir_program *p = program(&a, "ocl", k, salt);
    at_ocl_code code;
    assert_ok(at_ocl_emit(p, &code));
    at_ocl_prog *prog;
    char *log = NULL;
    at_status st = at_ocl_prog_build(ctx, &code, NULL, &prog, &log);
    if (st != AT_OK) print_error("build log:\n%s\n", log ? log : "(none)");
    at_free(log);
    assert_ok(st);
    float x[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (float)i / 16;
    at_ocl_buf *bufs[2];
    assert_ok(at_ocl_buf_new(ctx, sizeof x, &bufs[0]));
    assert_ok(at_ocl_buf_new(ctx, sizeof out, &bufs[1]));
    assert_ok(at_ocl_buf_write(ctx, bufs[0], x));
    assert_ok(at_ocl_prog_bind(prog, bufs, 2));
    assert_ok(at_ocl_prog_first_launch(prog)); /* PoCL's code generation */
    assert_ok(at_ocl_prog_run(prog, 1, NULL));
    assert_ok(at_ocl_buf_read(ctx, bufs[1], out));
    check(x, out, k, salt);
    at_ocl_buf_free(bufs[0]);
    at_ocl_buf_free(bufs[1]);
    at_ocl_prog_free(prog);
    at_ocl_code_fini(&code);
    at_arena_free(a);
}

static void jit_and_uncached_opencl_builds_should_share_the_process(void **state)
{
    (void)state;
    const char *order = getenv("AT_LLVM_OCL_ORDER");
    bool cl_first = order && !strcmp(order, "cl");
    at_llvm_pool *pool;
    assert_ok(at_llvm_pool_new(2, &pool));
    /* each build differs in k as well, so no two are one cache entry */
    for (int round = 0; round < 2; round++) {
        float k = 1.5f + (float)round;
        if (cl_first) {
            run_ocl(k);
            run_jit(pool, k);
        } else {
            run_jit(pool, k);
            run_ocl(k);
        }
    }
    at_llvm_pool_free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jit_and_uncached_opencl_builds_should_share_the_process),
    };
    return cmocka_run_group_tests_name("llvm_ocl", tests, setup, teardown);
}
