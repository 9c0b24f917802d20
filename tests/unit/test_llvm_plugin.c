/* backends/llvm through its plugin (autotvm-llvm.so, dlopen RTLD_LOCAL: this executable links no
 * LLVM): a missing plugin fails with AT_EUNSUPPORTED naming the path (in a forked child, since the
 * plugin loads once per process); the JIT matches the IR interpreter, counts its blocks in this
 * process's at_malloc, carries error details back and keeps LLVM out of the global symbol scope;
 * then JIT, an uncached PoCL build and run (PoCL's own LLVM in the same process), JIT again. */
#include "tests/support/test_support.h"
#include "tests/support/test_llvm_ocl_support.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/llvm/llvm.h"
#include "backends/opencl/opencl.h"
#include "backends/opencl/runtime.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/strbuf.h"

enum { N = AT_TEST_SCALE_N };

static float salt;

static void inputs(float *x)
{
    for (int i = 0; i < N; i++) x[i] = (float)i / 16 - 3.0f;
}

/* JITs the scale program (k, salt), runs it on pool and compares with at_ir_interp within 1e-5 relative (not
 * bit for bit: a*b+c may contract to an FMA). */
static void run_jit(at_llvm_pool *pool, float k)
{
    at_arena *a;
    const at_ir_program *p = at_test_scale_program(&a, "jit", k, salt);
    float x[N], out[N], want[N];
    inputs(x);
    void *ibufs[2] = {x, want};
    assert_ok(at_ir_interp(p, ibufs));
    at_llvm_jit *j;
    assert_ok(at_llvm_jit_new(p, NULL, &j));
    assert_int_equal(at_llvm_jit_n_kernels(j), 1);
    assert_false(at_llvm_jit_kernel_is_prepare(j, 0));
    memset(out, 0, sizeof out);
    void *bufs[2] = {x, out};
    assert_ok(at_llvm_jit_run(j, bufs, 2, false, pool));
    for (int i = 0; i < N; i++) assert_float_equal(out[i], want[i], 1e-5 * (1 + fabsf(want[i])));
    at_llvm_jit_free(j);
    at_arena_free(a);
}

static void missing_plugin_should_fail_unsupported_naming_the_path(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const char *path = "/nonexistent/at-test/autotvm-llvm.so";
        setenv("AT_LLVM_PLUGIN_PATH", path, 1);
        at_arena *a;
        const at_ir_program *p = at_test_scale_program(&a, "missing", 2.0f, 1.0f);
        at_llvm_jit *j = (at_llvm_jit *)&j;
        at_status st = at_llvm_jit_new(p, NULL, &j);
        bool ok = st == AT_EUNSUPPORTED && j == NULL && strstr(at_last_error(), path) &&
                  strstr(at_last_error(), "No such file") && !strchr(at_last_error(), '\n');
        /* remembered: the next call fails the same way */
        ok = ok && at_llvm_init() == AT_EUNSUPPORTED && strstr(at_last_error(), path);
        if (!ok) fprintf(stderr, "status %d, detail: %s\n", (int)st, at_last_error());
        at_arena_free(a);
        _exit(ok ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void plugin_jit_should_match_interp_and_share_core(void **state)
{
    (void)state;
    long live = at_alloc_live(); /* before any pool: its workers free their start blocks late */
    at_arena *a;
    const at_ir_program *p = at_test_scale_program(&a, "core", 3.0f, 0.5f);
    long with_program = at_alloc_live();
    at_llvm_jit *j;
    assert_ok(at_llvm_jit_new(p, NULL, &j));
    assert_true(at_alloc_live() > with_program); /* the plugin's blocks are ours */
    float x[N], out[N];
    inputs(x);
    void *bufs[2] = {x, out};
    /* an error detail made in the plugin arrives in this thread's at_last_error */
    assert_int_equal(at_llvm_jit_run_kernel(j, 0, bufs, 1, NULL), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "1 buffers given, the program has 2"));
    assert_int_equal(at_llvm_jit_run_kernel(j, 1, bufs, 2, NULL), AT_EINVAL);
    assert_ok(at_llvm_jit_run_kernel(j, 0, bufs, 2, NULL));
    for (int i = 0; i < N; i++) assert_float_equal(out[i], x[i] * 3.0f + 0.5f, 1e-5 * (1 + fabsf(out[i])));
    at_llvm_jit_free(j);
    /* the caller's strbuf grows inside the plugin */
    at_strbuf sb;
    at_strbuf_init(&sb);
    assert_ok(at_llvm_program_ir(p, NULL, &sb));
    assert_non_null(strstr(at_strbuf_cstr(&sb), "define void @core_scale("));
    at_strbuf_fini(&sb);
    at_arena_free(a);
    assert_int_equal(at_alloc_live(), live);
    at_llvm_pool *pool;
    assert_ok(at_llvm_pool_new(2, &pool));
    run_jit(pool, 2.5f);
    /* RTLD_LOCAL: LLVM's symbols are not in the global scope */
    assert_null(dlsym(RTLD_DEFAULT, "LLVMContextCreate"));
    assert_null(dlsym(RTLD_DEFAULT, "at_llvm_plugin_table_v1"));
    at_llvm_pool_free(pool);
}

static void run_ocl(at_ocl_ctx *ctx, float k)
{
    float x[N], out[N];
    inputs(x);
    at_test_scale_run_ocl(ctx, k, salt, x, out);
    for (int i = 0; i < N; i++) assert_float_equal(out[i], x[i] * k + salt, 1e-3 * (1 + salt));
}

static void plugin_jit_and_uncached_opencl_builds_should_share_the_process(void **state)
{
    (void)state;
    assert_ok(at_ocl_runtime_init(at_test_tmpdir("llvm_plugin_pocl_cache")));
    at_ocl_device_info *devs;
    size_t n, index;
    assert_ok(at_ocl_devices(&devs, &n));
    assert_true(n > 0);
    at_status st = at_ocl_device_select(devs, n, getenv("AT_TEST_DEVICE"), &index);
    at_free(devs);
    assert_ok(st);
    at_ocl_ctx *ctx;
    assert_ok(at_ocl_ctx_new(index, &ctx));
    at_llvm_pool *pool;
    assert_ok(at_llvm_pool_new(2, &pool));
    run_jit(pool, 1.5f);
    run_ocl(ctx, 1.5f);
    run_jit(pool, 4.0f);
    run_ocl(ctx, 4.0f); /* a second uncached build after the JIT ran again */
    at_llvm_pool_free(pool);
    at_ocl_ctx_free(ctx);
}

int main(void)
{
    salt = at_test_uncached_salt();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(missing_plugin_should_fail_unsupported_naming_the_path),
        cmocka_unit_test(plugin_jit_should_match_interp_and_share_core),
        cmocka_unit_test(plugin_jit_and_uncached_opencl_builds_should_share_the_process),
    };
    return cmocka_run_group_tests_name("llvm_plugin", tests, NULL, NULL);
}
