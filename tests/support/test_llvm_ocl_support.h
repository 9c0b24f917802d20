/* Helpers shared by the tests that put the LLVM JIT and PoCL in one process (direct and plugin
 * builds): the program both compile and an uncached OpenCL build + run of it. Header only, as
 * static inline functions (at_test_support links core/ alone; these need ir/ and the OpenCL
 * backend, which only those tests link). Include after test_support.h. */
#ifndef AT_TESTS_LLVM_OCL_SUPPORT_H
#define AT_TESTS_LLVM_OCL_SUPPORT_H

#include <time.h>
#include <unistd.h>

#include "backends/opencl/opencl.h"
#include "backends/opencl/runtime.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "ir/ir.h"
#include "tests/support/test_support.h"

enum { AT_TEST_SCALE_N = 256 };

/* out[i] = x[i] * k + c over AT_TEST_SCALE_N floats, as 4 work-groups of 64 items (a parallel
 * block loop on the JIT); verified. Lives in *a (new here; the caller frees it). */
static inline const at_ir_program *at_test_scale_program(at_arena **a, const char *name, float k, float c)
{
    assert_ok(at_arena_new(0, a));
    at_ir_sched *s = at_ir_sched_begin(*a, name);
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, AT_TEST_SCALE_N, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, AT_TEST_SCALE_N, AT_IR_OUTPUT);
    const at_ir_var *bx = at_ir_var_new(s, "bx", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_expr *i = at_ir_add(s, at_ir_mul(s, at_ir_v(s, bx), at_ir_i32(s, 64)), at_ir_v(s, tx));
    const at_ir_expr *v = at_ir_add(s, at_ir_mul(s, at_ir_load(s, x, i, 1), at_ir_f32(s, k)), at_ir_f32(s, c));
    at_ir_add_kernel(s, "scale",
                     at_ir_for(s, bx, AT_TEST_SCALE_N / 64, AT_IR_BLOCK_X,
                               at_ir_for(s, tx, 64, AT_IR_THREAD_X, at_ir_store(s, out, i, v))));
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    return p;
}

/* A constant unique to this process and moment, exact in float: kernels built with it miss
 * PoCL's cache, so their build really compiles. */
static inline float at_test_uncached_salt(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (float)((getpid() % 997) * 1000 + ts.tv_nsec / 1000000 % 1000) / 8.0f;
}

/* Builds the scale program (k, c) as OpenCL on ctx and runs it once on x (AT_TEST_SCALE_N
 * floats) into out; the build log is printed when the build fails. */
static inline void at_test_scale_run_ocl(at_ocl_ctx *ctx, float k, float c, const float *x, float *out)
{
    at_arena *a;
    const at_ir_program *p = at_test_scale_program(&a, "ocl", k, c);
    at_ocl_code code;
    assert_ok(at_ocl_emit(p, &code));
    at_ocl_prog *prog;
    char *log = NULL;
    at_status st = at_ocl_prog_build(ctx, &code, NULL, &prog, &log);
    if (st != AT_OK) print_error("build log:\n%s\n", log ? log : "(none)");
    at_free(log);
    assert_ok(st);
    size_t bytes = AT_TEST_SCALE_N * sizeof(float);
    at_ocl_buf *bufs[2];
    assert_ok(at_ocl_buf_new(ctx, bytes, &bufs[0]));
    assert_ok(at_ocl_buf_new(ctx, bytes, &bufs[1]));
    assert_ok(at_ocl_buf_write(ctx, bufs[0], x));
    assert_ok(at_ocl_prog_bind(prog, bufs, 2));
    assert_ok(at_ocl_prog_first_launch(prog)); /* PoCL's code generation */
    assert_ok(at_ocl_prog_run(prog, 1, NULL));
    assert_ok(at_ocl_buf_read(ctx, bufs[1], out));
    at_ocl_buf_free(bufs[0]);
    at_ocl_buf_free(bufs[1]);
    at_ocl_prog_free(prog);
    at_ocl_code_fini(&code);
    at_arena_free(a);
}

#endif
