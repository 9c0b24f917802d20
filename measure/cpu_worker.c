/* The CPU worker process: owns an LLVM thread pool and at most one JIT-compiled program waiting
 * for its run; the task's data stays in host memory. It is worker_common.c's worker with CPU
 * hooks, so the protocol, the parent's pool, deadlines and crash handling are the OpenCL
 * worker's; only the build (LLJIT instead of clBuildProgram) and the clock (wall time around the
 * runs instead of profiling events) differ. */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "measure/cpu.h"
#include "measure/internal.h"
#if AT_MEASURE_LLVM
#include "backends/llvm/llvm.h"
#endif

/* ---- cache flush (TVM's CPUCacheFlushImpl) ----------------------------------------------------- */

void at_meas_cpu_cache_flush(void *const *bufs, const size_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = bufs[i];
        if (!p) continue;
#if defined(__x86_64__) || defined(__aarch64__)
        const size_t line = 64;
        for (size_t off = 0; off < bytes[i]; off += line) {
#if defined(__x86_64__)
            __asm__ volatile("clflush (%0)" : : "r"(p + off) : "memory");
#else
            __asm__ volatile("dc civac, %0" : : "r"(p + off) : "memory");
#endif
        }
#else
        (void)bytes;
#endif
    }
#if defined(__x86_64__)
    __asm__ volatile("mfence" : : : "memory");
#elif defined(__aarch64__)
    __asm__ volatile("dsb sy" : : : "memory");
#endif
}

/* TVM's measured function takes [output] + the placeholders it reads, and its cache flush skips
 * the first argument: every input is flushed, the output is not. Here an input is a parameter
 * the timed kernels read, or a temporary a preparation kernel fills (TVM's placeholders for the
 * packed data and weights); the NCHW parameters only preparation kernels read are not timed, so
 * not flushed. */
static bool timed_input(const at_ir_program *p, const at_ir_buffer *b)
{
    if (b->role != AT_IR_INPUT && !(b->role == AT_IR_TEMP && at_ir_program_prepares(p, b))) return false;
    for (size_t k = 0; k < p->n_kernels; k++)
        if (at_ir_kernel_timed(&p->kernels[k]) && at_ir_stmt_loads_from(p->kernels[k].body, b)) return true;
    return false;
}

size_t at_meas_cpu_flush_set(const at_ir_program *p, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_bufs; i++)
        if (timed_input(p, p->bufs[i])) idx[n++] = i;
    return n;
}

#if AT_MEASURE_LLVM

typedef struct cpu_worker {
    at_meas_wk    base; /* first: the hooks get &base */
    at_llvm_pool *pool;
    /* the artifact's JIT part */
    at_llvm_jit  *jit;
    void        **bufs;  /* by program buffer: the task's tensors, then owned temporaries */
    size_t       *bytes;
    size_t        n_bufs, n_params;
    size_t       *flush_idx; /* at_meas_cpu_flush_set's buffers, as indexes into bufs */
    size_t        n_flush;
} cpu_worker;

static cpu_worker *cw(at_meas_wk *w)
{
    return (cpu_worker *)w;
}

static void drop_art(at_meas_wk *w)
{
    cpu_worker *c = cw(w);
    at_llvm_jit_free(c->jit);
    if (c->bufs)
        for (size_t i = c->n_params; i < c->n_bufs; i++) at_free(c->bufs[i]);
    at_free(c->bufs);
    at_free(c->bytes);
    at_free(c->flush_idx);
    c->jit = NULL;
    c->bufs = NULL;
    c->bytes = NULL;
    c->flush_idx = NULL;
    c->n_bufs = c->n_params = c->n_flush = 0;
}

/* IR -> LLVM IR -> O3 -> LLJIT in one step: all of it counts as compile. */
static void compile(at_meas_wk *w, at_meas_wk_outcome *oc)
{
    at_llvm_target tg = {.cpu = w->o->cpu};
    if (at_llvm_jit_new(w->art.prog, &tg, &cw(w)->jit) != AT_OK)
        at_meas_wk_fail(oc, AT_MEAS_COMPILE_HOST, "LLVM code generation: %s", at_last_error());
}

/* Nothing to launch before the timed run: the program's temporaries are allocated. */
static void launch(at_meas_wk *w, at_meas_wk_outcome *oc)
{
    cpu_worker *c = cw(w);
    const at_ir_program *prog = w->art.prog;
    c->n_bufs = prog->n_bufs;
    c->n_params = at_ir_program_n_params(prog);
    c->bufs = at_calloc(c->n_bufs + 1, sizeof *c->bufs);
    c->bytes = at_calloc(c->n_bufs + 1, sizeof *c->bytes);
    bool ok = c->bufs && c->bytes;
    for (size_t i = 0; i < c->n_bufs && ok; i++) {
        const at_ir_buffer *b = prog->bufs[i];
        c->bytes[i] = (size_t)b->size * at_ir_type_bytes(b->elem);
        if (i < c->n_params) {
            c->bufs[i] = w->ts.host[i];
        } else {
            c->bufs[i] = at_malloc(c->bytes[i] ? c->bytes[i] : 1);
            ok = c->bufs[i] != NULL;
        }
    }
    c->flush_idx = ok ? at_calloc(c->n_bufs + 1, sizeof *c->flush_idx) : NULL;
    ok = ok && c->flush_idx;
    if (ok) c->n_flush = at_meas_cpu_flush_set(prog, c->flush_idx);
    if (!ok) at_meas_wk_fail(oc, AT_MEAS_UNKNOWN_ERROR, "out of memory for the program's buffers");
}

/* A timing call: number back-to-back runs of the program on wall-clock time; the untimed
 * warm-up (duration_ms NULL) also runs the preparation kernels. */
static at_status time_fn(void *ctx, int64_t number, double *duration_ms)
{
    cpu_worker *c = ctx;
    double t0 = at_clock_mono_s();
    for (int64_t i = 0; i < number; i++)
        AT_TRY(at_llvm_jit_run(c->jit, c->bufs, c->n_bufs, duration_ms != NULL, c->pool));
    if (duration_ms) *duration_ms = (at_clock_mono_s() - t0) * 1e3;
    return AT_OK;
}

static at_status flush_fn(void *ctx)
{
    cpu_worker *c = ctx;
    for (size_t k = 0; k < c->n_flush; k++) {
        size_t i = c->flush_idx[k];
        at_meas_cpu_cache_flush(&c->bufs[i], &c->bytes[i], 1);
    }
    return AT_OK;
}

static at_meas_err time_runs(at_meas_wk *w, double *costs)
{
    const at_measure_opts *o = w->o;
    /* poisoned outputs: elements a wrong kernel never writes cannot pass as an earlier
     * config's leftovers (0xFF bytes are NaN for floats, -1 for integers) */
    for (size_t i = 0; i < w->ts.n_tensors; i++)
        if (o->check_correctness && w->ts.desc[i].is_output) memset(w->ts.host[i], 0xFF, w->ts.bytes[i]);
    at_status st = at_meas_time_evaluator_pre(time_fn, o->enable_cpu_cache_flush ? flush_fn : NULL, cw(w), o->number,
                                              o->repeat, o->min_repeat_ms, costs, NULL);
    return st == AT_OK ? AT_MEAS_OK : AT_MEAS_RUNTIME_DEVICE;
}

/* The CPU as the parent's device record: the model name /proc/cpuinfo gives, the thread count. */
static void describe_cpu(const cpu_worker *w, at_ocl_device_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->platform, sizeof info->platform, "LLVM");
    char model[96] = "host CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            const char *c = strchr(line, ':');
            if (c && !strncmp(line, "model name", 10)) {
                c++;
                while (*c == ' ' || *c == '\t') c++;
                snprintf(model, sizeof model, "%.*s", (int)strcspn(c, "\n"), c);
                break;
            }
        }
        fclose(f);
    }
    int threads = at_llvm_pool_threads(w->pool);
    const char *cpu = w->base.o->cpu;
    if (cpu)
        snprintf(info->name, sizeof info->name, "%s (-mcpu=%s, %d thread%s)", model, cpu, threads, threads == 1 ? "" : "s");
    else
        snprintf(info->name, sizeof info->name, "%s (%d thread%s)", model, threads, threads == 1 ? "" : "s");
    snprintf(info->version, sizeof info->version, "LLVM JIT");
    info->is_cpu = true;
    info->compute_units = (unsigned)threads;
}

static at_status open_cpu(at_meas_wk *w, at_ocl_device_info *info)
{
    cpu_worker *c = cw(w);
    AT_TRY(at_llvm_init());
    AT_TRY(at_llvm_pool_new(w->o->n_threads, &c->pool));
    describe_cpu(c, info);
    return AT_OK;
}

static void close_cpu(at_meas_wk *w)
{
    at_llvm_pool_free(cw(w)->pool);
}

static const at_meas_wk_ops cpu_ops = {
    .open = open_cpu,
    .close = close_cpu,
    .compile = compile,
    .launch = launch,
    .drop_art = drop_art,
    .time = time_runs,
};

void at_meas_cpu_worker_main(int fd, const at_meas_worker_cfg *cfg)
{
    cpu_worker w = {.base = {.fd = fd, .o = &cfg->opts, .ops = &cpu_ops}};
    at_meas_wk_main(&w.base);
}

#else /* built without backends/llvm */

static at_status open_none(at_meas_wk *w, at_ocl_device_info *info)
{
    (void)w;
    (void)info;
    return AT_FAIL(AT_EUNSUPPORTED, "built without LLVM (backends/llvm): no CPU measurement");
}

static void close_none(at_meas_wk *w)
{
    (void)w;
}

/* Only HELLO's failure is ever sent: the loop does not start. */
static const at_meas_wk_ops no_ops = {.open = open_none, .close = close_none};

void at_meas_cpu_worker_main(int fd, const at_meas_worker_cfg *cfg)
{
    at_meas_wk w = {.fd = fd, .o = &cfg->opts, .ops = &no_ops};
    at_meas_wk_main(&w);
}

#endif
