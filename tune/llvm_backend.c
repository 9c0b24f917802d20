/* The executor's CPU backend: a thin adapter from at_net_backend_i to backends/llvm's JIT. A
 * buffer is one at_malloc block holding its size before the data, so copies need no table; a
 * timed run leaves the preparation kernels out (weight packing), an untimed one runs them all. */
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "tune/llvm_backend.h"
#if AT_TUNE_LLVM
#include "backends/llvm/llvm.h"
#endif

typedef struct host_buf {
    size_t bytes;
    void  *data; /* 64-byte aligned inside the block */
} host_buf;

static at_status cpu_buf_new(void *ctx, size_t bytes, void **out)
{
    (void)ctx;
    host_buf *b = at_malloc(sizeof *b + bytes + 64);
    if (!b) return AT_OOM();
    uintptr_t p = (uintptr_t)(b + 1);
    b->bytes = bytes;
    b->data = (void *)((p + 63) & ~(uintptr_t)63);
    *out = b;
    return AT_OK;
}

static void cpu_buf_free(void *ctx, void *buf)
{
    (void)ctx;
    at_free(buf);
}

static at_status cpu_buf_write(void *ctx, void *buf, const void *src)
{
    (void)ctx;
    host_buf *b = buf;
    memcpy(b->data, src, b->bytes);
    return AT_OK;
}

static at_status cpu_buf_read(void *ctx, void *buf, void *dst)
{
    (void)ctx;
    const host_buf *b = buf;
    memcpy(dst, b->data, b->bytes);
    return AT_OK;
}

#if AT_TUNE_LLVM

static at_status cpu_prog_new(void *ctx, const at_ir_program *p, void **out)
{
    (void)ctx;
    at_llvm_jit *j = NULL;
    at_status st = at_llvm_jit_new(p, NULL, &j);
    if (st != AT_OK) return AT_FAIL_WRAP(st, "compiling network program %s for the CPU", p->name);
    *out = j;
    return AT_OK;
}

static void cpu_prog_free(void *ctx, void *prog)
{
    (void)ctx;
    at_llvm_jit_free(prog);
}

static at_status cpu_prog_run(void *ctx, void *prog, void *const *bufs, size_t n, bool skip_prepare, double *device_ms)
{
    void *stack[32];
    void **data = n <= 32 ? stack : at_malloc(n * sizeof *data);
    if (!data) return AT_OOM();
    for (size_t i = 0; i < n; i++) data[i] = ((host_buf *)bufs[i])->data;
    double t0 = at_clock_mono_s();
    at_status st = at_llvm_jit_run(prog, data, n, skip_prepare, ctx);
    if (device_ms) *device_ms = st == AT_OK ? (at_clock_mono_s() - t0) * 1e3 : 0;
    if (data != stack) at_free(data);
    return st;
}

at_status at_tune_llvm_pool_new(int n_threads, at_llvm_pool **out)
{
    *out = NULL;
    return at_llvm_pool_new(n_threads, out);
}

void at_tune_llvm_pool_free(at_llvm_pool *p)
{
    at_llvm_pool_free(p);
}

#else

at_status at_tune_llvm_pool_new(int n_threads, at_llvm_pool **out)
{
    (void)n_threads;
    *out = NULL;
    return AT_FAIL(AT_EUNSUPPORTED, "built without LLVM: no CPU network backend");
}

void at_tune_llvm_pool_free(at_llvm_pool *p)
{
    (void)p;
}

static at_status cpu_prog_new(void *ctx, const at_ir_program *p, void **out)
{
    (void)ctx;
    (void)out;
    return AT_FAIL(AT_EUNSUPPORTED, "built without LLVM: cannot compile network program %s for the CPU", p->name);
}

static void cpu_prog_free(void *ctx, void *prog)
{
    (void)ctx;
    (void)prog;
}

static at_status cpu_prog_run(void *ctx, void *prog, void *const *bufs, size_t n, bool skip_prepare, double *device_ms)
{
    (void)ctx;
    (void)prog;
    (void)bufs;
    (void)n;
    (void)skip_prepare;
    (void)device_ms;
    return AT_FAIL(AT_EUNSUPPORTED, "built without LLVM");
}

#endif

static const at_net_backend_i llvm_backend = {
    .name = "llvm",
    .buf_new = cpu_buf_new,
    .buf_free = cpu_buf_free,
    .buf_write = cpu_buf_write,
    .buf_read = cpu_buf_read,
    .prog_new = cpu_prog_new,
    .prog_outlives_source = true,
    .prog_free = cpu_prog_free,
    .prog_run = cpu_prog_run,
};

const at_net_backend_i *at_tune_llvm_backend(void)
{
    return &llvm_backend;
}
