/* The executor's OpenCL backend: a thin adapter from at_net_backend_i to backends/opencl; a timed
 * run leaves the preparation kernels out (weight packing), an untimed one runs every kernel. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Side-by-side builds: each thread takes the next program; the first failure (in program
 * order) is reported with its own message (error details are per thread). */
typedef struct build_job {
    void                       *ctx;
    const at_ir_program *const *ps;
    void                      **out;
    at_status                  *st;
    char                      (*msg)[512];
    size_t                      n;
    atomic_size_t               next;
} build_job;

static void *build_worker(void *arg)
{
    build_job *j = arg;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) {
        j->st[i] = ocl_prog_new(j->ctx, j->ps[i], &j->out[i]);
        if (j->st[i] != AT_OK) snprintf(j->msg[i], sizeof j->msg[i], "%s", at_last_error());
    }
    return NULL;
}

static at_status ocl_prog_new_all(void *ctx, const at_ir_program *const *ps, size_t n, void **out)
{
    for (size_t i = 0; i < n; i++) out[i] = NULL;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n_threads = cores > 1 ? (size_t)cores : 1;
    if (n_threads > n) n_threads = n;
    if (n_threads > 64) n_threads = 64;
    build_job j = {.ctx = ctx, .ps = ps, .out = out, .n = n};
    atomic_init(&j.next, 0);
    j.st = at_calloc(n + 1, sizeof *j.st);
    j.msg = at_calloc(n + 1, sizeof *j.msg);
    pthread_t *th = at_calloc(n_threads + 1, sizeof *th);
    if (!j.st || !j.msg || !th) {
        at_free(j.st);
        at_free(j.msg);
        at_free(th);
        return AT_OOM();
    }
    size_t started = 0;
    while (started < n_threads && pthread_create(&th[started], NULL, build_worker, &j) == 0) started++;
    if (started == 0) build_worker(&j); /* no thread to be had: build here, in turn */
    for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    at_status st = AT_OK;
    for (size_t i = 0; st == AT_OK && i < n; i++)
        if (j.st[i] != AT_OK) st = AT_FAIL(j.st[i], "%s", j.msg[i]);
    at_free(j.st);
    at_free(j.msg);
    at_free(th);
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
    .prog_outlives_source = true,
    .prog_new_all = ocl_prog_new_all,
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
