/* LLVM 15 JIT and PoCL in one process (spec toolchain.md §0.1: a second LLVM in the process
 * crashes PoCL's compiler on an uncached build): JIT a kernel and run it, build and run an
 * uncached OpenCL kernel (a fresh POCL_CACHE_DIR and a source made unique by a constant from the
 * pid and the clock), JIT again, build again. The order comes from AT_LLVM_OCL_ORDER: "jit"
 * (JIT first, the default) or "cl" (OpenCL first); ctest runs the executable once per order, since
 * only a fresh process can be OpenCL-first. */
#include "tests/support/test_support.h"
#include "tests/support/test_llvm_ocl_support.h"

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

enum { N = AT_TEST_SCALE_N };

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
    salt = at_test_uncached_salt();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_ocl_ctx_free(ctx);
    return 0;
}

static void check(const float *x, const float *out, float k, float c)
{
    for (int i = 0; i < N; i++) assert_float_equal(out[i], x[i] * k + c, 1e-3 * (1 + c));
}

static void run_jit(at_llvm_pool *pool, float k)
{
    at_arena *a;
    const at_ir_program *p = at_test_scale_program(&a, "jit", k, salt);
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
    float x[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (float)i / 16;
    at_test_scale_run_ocl(ctx, k, salt, x, out);
    check(x, out, k, salt);
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
