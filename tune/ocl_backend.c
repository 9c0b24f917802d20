/* The executor's OpenCL backend: a thin adapter from at_net_backend_i to backends/opencl; a timed
 * run leaves the preparation kernels out (weight packing), an untimed one runs every kernel. */
#include <string.h>

#include "backends/opencl/opencl.h"
#include "core/alloc.h"
#include "core/log.h"
#include "tune/ocl_backend.h"

static at_status ocl_buf_new(void *ctx, size_t bytes, void **out)
{
    at_ocl_buf *b;
    AT_TRY(at_ocl_buf_new(ctx, bytes, &b));
    *out = b;
    return AT_OK;
}

static void ocl_buf_free(void *ctx, void *buf)
{
    (void)ctx;
    at_ocl_buf_free(buf);
}

static at_status ocl_buf_write(void *ctx, void *buf, const void *src)
{
    return at_ocl_buf_write(ctx, buf, src);
}

static at_status ocl_buf_read(void *ctx, void *buf, void *dst)
{
    return at_ocl_buf_read(ctx, buf, dst);
}

static at_status ocl_prog_new(void *ctx, const at_ir_program *p, void **out)
{
    at_ocl_code code;
    AT_TRY(at_ocl_emit(p, &code));
    at_ocl_prog *prog = NULL;
    char *log = NULL;
    at_status st = at_ocl_prog_build(ctx, &code, NULL, &prog, &log);
    if (st != AT_OK && log) {
        at_log(AT_LOG_DEBUG, "OpenCL compiler log:\n%s", log);
        char head[512];
        size_t n = strlen(log) < sizeof head - 1 ? strlen(log) : sizeof head - 1;
        memcpy(head, log, n);
        head[n] = 0;
        st = AT_FAIL(st, "building a network program failed: %s", head);
    }
    at_free(log);
    at_ocl_code_fini(&code);
    if (st == AT_OK) *out = prog;
    return st;
}

static void ocl_prog_free(void *ctx, void *prog)
{
    (void)ctx;
    at_ocl_prog_free(prog);
}

static at_status ocl_prog_run(void *ctx, void *prog, void *const *bufs, size_t n, bool skip_prepare, double *device_ms)
{
    (void)ctx;
    double ms = 0;
    AT_TRY(at_ocl_prog_bind(prog, (at_ocl_buf *const *)bufs, n));
    AT_TRY(at_ocl_prog_run(prog, 1, skip_prepare ? &ms : NULL));
    if (device_ms) *device_ms = ms;
    return AT_OK;
}

static at_status ocl_seq_new(void *ctx, void **out)
{
    at_ocl_seq *s;
    AT_TRY(at_ocl_seq_new(ctx, &s));
    *out = s;
    return AT_OK;
}

static at_status ocl_seq_add(void *ctx, void *seq, void *prog, void *const *bufs, size_t n)
{
    (void)ctx;
    return at_ocl_seq_add(seq, prog, (at_ocl_buf *const *)bufs, n);
}

static at_status ocl_seq_run(void *ctx, void *seq, bool skip_prepare, double *device_ms, double *step_ms)
{
    (void)ctx;
    return at_ocl_seq_run(seq, !skip_prepare, device_ms, step_ms);
}

static void ocl_seq_free(void *ctx, void *seq)
{
    (void)ctx;
    at_ocl_seq_free(seq);
}

static const at_net_backend_i ocl_backend = {
    .name = "opencl",
    .buf_new = ocl_buf_new,
    .buf_free = ocl_buf_free,
    .buf_write = ocl_buf_write,
    .buf_read = ocl_buf_read,
    .prog_new = ocl_prog_new,
    .prog_free = ocl_prog_free,
    .prog_run = ocl_prog_run,
    .seq_new = ocl_seq_new,
    .seq_add = ocl_seq_add,
    .seq_run = ocl_seq_run,
    .seq_free = ocl_seq_free,
};

const at_net_backend_i *at_tune_ocl_backend(void)
{
    return &ocl_backend;
}
