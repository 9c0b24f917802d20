/* The CPU worker process: owns an LLVM thread pool, the current task's data in host memory (kept
 * while consecutive jobs share the task) and at most one JIT-compiled program waiting for its run.
 * It speaks the OpenCL worker's protocol (internal.h), so the parent's pool, deadlines and crash
 * handling are the same code; only the build (LLJIT instead of clBuildProgram) and the clock
 * (wall time around the runs instead of profiling events) differ. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/json.h"
#include "measure/cpu.h"
#include "measure/internal.h"
#if AT_MEASURE_LLVM
#include "backends/llvm/llvm.h"
#endif

#define MAX_MSG 8192

/* ---- cache flush (TVM's CPUCacheFlushImpl) ----------------------------------------------------- */

void at_meas_cpu_cache_flush(void *const *bufs, const size_t *bytes, size_t n)
{
    for (size_t i = 1; i < n; i++) {
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

#if AT_MEASURE_LLVM

typedef struct task_state {
    char          *key; /* template name, target and args JSON */
    at_task       *task;
    size_t         n_tensors;
    at_tensor_desc desc[AT_OP_MAX_TENSORS];
    void          *host[AT_OP_MAX_TENSORS]; /* the program's signature buffers */
    size_t         bytes[AT_OP_MAX_TENSORS];
    void          *ref[AT_OP_MAX_TENSORS];  /* reference outputs, computed when checking */
} task_state;

typedef struct artifact {
    bool                 valid;
    uint64_t             job;
    at_arena            *arena;
    const at_ir_program *prog;
    at_llvm_jit         *jit;
    void               **bufs;  /* by program buffer: the task's tensors, then owned temporaries */
    size_t              *bytes;
    size_t               n_bufs, n_params;
} artifact;

typedef struct worker {
    int                       fd;
    const at_measure_opts    *o;
    at_llvm_pool             *pool;
    task_state                ts;
    artifact                  art;
    at_strbuf                 tx;
    unsigned char            *rx;
    size_t                    rx_cap;
} worker;

typedef struct outcome {
    at_meas_err err;
    char        msg[MAX_MSG];
} outcome;

static void set_outcome(outcome *o, at_meas_err err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_outcome(outcome *o, at_meas_err err, const char *fmt, ...)
{
    o->err = err;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->msg, sizeof o->msg, fmt, ap);
    va_end(ap);
}

static void send_frame(worker *w)
{
    at_meas_frame_end(&w->tx);
    if (w->tx.failed) return; /* out of memory: the parent's deadline reports the loss */
    (void)at_meas_send_all(w->fd, w->tx.data, w->tx.len);
}

static void free_task(task_state *ts)
{
    at_free(ts->key);
    at_task_free(ts->task);
    for (size_t i = 0; i < AT_OP_MAX_TENSORS; i++) {
        at_free(ts->host[i]);
        at_free(ts->ref[i]);
    }
    memset(ts, 0, sizeof *ts);
}

static void free_artifact(artifact *a)
{
    at_llvm_jit_free(a->jit);
    if (a->bufs)
        for (size_t i = a->n_params; i < a->n_bufs; i++) at_free(a->bufs[i]);
    at_free(a->bufs);
    at_free(a->bytes);
    at_arena_free(a->arena);
    memset(a, 0, sizeof *a);
}

static const at_template *find_template(const worker *w, const char *name, uint32_t target)
{
    if (target < AT_TARGET_FAMILY_COUNT) {
        const at_template *t = at_tmpl_find(name, (at_target_family)target);
        if (t) return t;
    }
    for (size_t i = 0; i < w->o->n_extra_templates; i++) {
        const at_template *t = w->o->extra_templates[i];
        if (!strcmp(t->name, name) && (uint32_t)t->target == target) return t;
    }
    return NULL;
}

/* Makes ts hold the task of (t, args_json): random inputs, the reference when checking. */
static bool prepare_task(worker *w, const at_template *t, const char *args_json, outcome *oc)
{
    char key[4096];
    snprintf(key, sizeof key, "%s\n%d\n%s", t->name, (int)t->target, args_json);
    if (w->ts.key && !strcmp(w->ts.key, key)) return true;
    free_task(&w->ts);
    task_state *ts = &w->ts;
    cJSON *j = NULL;
    at_args args;
    at_status st = at_json_parse(args_json, strlen(args_json), &j);
    if (st == AT_OK) st = at_op_args_from_json(t->op, j, &args);
    at_json_free(j);
    if (st == AT_OK) st = at_task_new(t, &args, &ts->task);
    if (st != AT_OK) {
        set_outcome(oc, AT_MEAS_INSTANTIATION_ERROR, "task %s: %s", t->name, at_last_error());
        free_task(ts);
        return false;
    }
    ts->n_tensors = at_op_tensors(&args, ts->desc);
    at_rng rng;
    at_rng_seed(&rng, w->o->seed);
    for (size_t i = 0; i < ts->n_tensors && st == AT_OK; i++) {
        ts->bytes[i] = (size_t)ts->desc[i].n_elems * at_ir_type_bytes(ts->desc[i].dtype);
        ts->host[i] = at_malloc(ts->bytes[i]);
        if (!ts->host[i]) {
            st = AT_OOM();
            break;
        }
        if (!ts->desc[i].is_output) at_meas_random_fill(ts->desc[i].dtype, ts->host[i], ts->desc[i].n_elems, &rng);
        if (ts->desc[i].is_output && w->o->check_correctness) {
            ts->ref[i] = at_malloc(ts->bytes[i]);
            if (!ts->ref[i]) st = AT_OOM();
        }
    }
    if (st == AT_OK && w->o->check_correctness) {
        const void *in[AT_OP_MAX_TENSORS];
        void *out[AT_OP_MAX_TENSORS];
        size_t n_in = 0, n_out = 0;
        for (size_t i = 0; i < ts->n_tensors; i++) {
            if (ts->desc[i].is_output)
                out[n_out++] = ts->ref[i];
            else
                in[n_in++] = ts->host[i];
        }
        at_op_reference(&args, in, out);
    }
    if (st == AT_OK) ts->key = at_strdup(key);
    if (st == AT_OK && !ts->key) st = AT_OOM();
    if (st != AT_OK) {
        set_outcome(oc, AT_MEAS_UNKNOWN_ERROR, "preparing the data of %s: %s", t->name, at_last_error());
        free_task(ts);
        return false;
    }
    return true;
}

static void send_stage(worker *w, uint64_t job, uint32_t stage)
{
    at_meas_frame_begin(&w->tx, AT_MSG_STAGE);
    at_meas_put_u64(&w->tx, job);
    at_meas_put_u32(&w->tx, stage);
    send_frame(w);
}

static void build(worker *w, uint64_t job, const char *name, uint32_t target, const char *args_json,
                  const char *config_json)
{
    outcome oc = {.err = AT_MEAS_OK};
    bool compiled = false;
    free_artifact(&w->art);
    artifact *a = &w->art;
    double t0 = at_clock_mono_s();
    const at_template *t = find_template(w, name, target);
    if (!t) set_outcome(&oc, AT_MEAS_UNKNOWN_ERROR, "worker knows no template '%s' for target %u", name, target);
    if (oc.err == AT_MEAS_OK) prepare_task(w, t, args_json, &oc);
    double t1 = at_clock_mono_s();
    send_stage(w, job, AT_STAGE_PREPARED);

    at_config *cfg = NULL;
    if (oc.err == AT_MEAS_OK) {
        cJSON *j = NULL;
        at_status st = at_json_parse(config_json, strlen(config_json), &j);
        if (st == AT_OK) st = at_config_from_json(j, &cfg);
        at_json_free(j);
        if (st == AT_OK) st = at_arena_new(0, &a->arena);
        if (st == AT_OK) st = at_task_instantiate(w->ts.task, cfg, a->arena, &a->prog);
        if (st == AT_EINVAL)
            set_outcome(&oc, AT_MEAS_INSTANTIATION_ERROR, "%s", at_last_error());
        else if (st != AT_OK)
            set_outcome(&oc, AT_MEAS_COMPILE_HOST, "instantiating: %s", at_last_error());
    }
    at_config_free(cfg);
    double t2 = at_clock_mono_s();
    if (oc.err == AT_MEAS_OK) {
        at_llvm_target tg = {.cpu = w->o->cpu};
        compiled = true;
        at_status st = at_llvm_jit_new(a->prog, &tg, &a->jit);
        if (st != AT_OK) set_outcome(&oc, AT_MEAS_COMPILE_HOST, "LLVM code generation: %s", at_last_error());
    }
    double t3 = at_clock_mono_s();
    if (oc.err == AT_MEAS_OK) {
        send_stage(w, job, AT_STAGE_COMPILED);
        a->n_bufs = a->prog->n_bufs;
        a->n_params = at_ir_program_n_params(a->prog);
        a->bufs = at_calloc(a->n_bufs + 1, sizeof *a->bufs);
        a->bytes = at_calloc(a->n_bufs + 1, sizeof *a->bytes);
        bool ok = a->bufs && a->bytes;
        for (size_t i = 0; i < a->n_bufs && ok; i++) {
            const at_ir_buffer *b = a->prog->bufs[i];
            a->bytes[i] = (size_t)b->size * at_ir_type_bytes(b->elem);
            if (i < a->n_params) {
                a->bufs[i] = w->ts.host[i];
            } else {
                a->bufs[i] = at_malloc(a->bytes[i] ? a->bytes[i] : 1);
                ok = a->bufs[i] != NULL;
            }
        }
        if (!ok) set_outcome(&oc, AT_MEAS_UNKNOWN_ERROR, "out of memory for the program's buffers");
    }
    double t4 = at_clock_mono_s();
    if (oc.err == AT_MEAS_OK) {
        a->valid = true;
        a->job = job;
    } else {
        free_artifact(a);
    }
    at_meas_frame_begin(&w->tx, AT_MSG_BUILT);
    at_meas_put_u64(&w->tx, job);
    at_meas_put_u32(&w->tx, (uint32_t)oc.err);
    at_meas_put_str(&w->tx, oc.err == AT_MEAS_OK ? "" : oc.msg);
    at_meas_put_f64(&w->tx, t1 - t0);
    at_meas_put_f64(&w->tx, t2 - t1);
    at_meas_put_f64(&w->tx, 0); /* codegen happens inside the JIT build: counted as compile */
    at_meas_put_f64(&w->tx, t3 - t2);
    at_meas_put_f64(&w->tx, t4 - t3);
    at_meas_put_u32(&w->tx, compiled);
    send_frame(w);
}

/* A timing call: number back-to-back runs of the program on wall-clock time; the untimed
 * warm-up (duration_ms NULL) also runs the preparation kernels. */
static at_status time_fn(void *ctx, int64_t number, double *duration_ms)
{
    worker *w = ctx;
    artifact *a = &w->art;
    double t0 = at_clock_mono_s();
    for (int64_t i = 0; i < number; i++)
        AT_TRY(at_llvm_jit_run(a->jit, a->bufs, a->n_bufs, duration_ms != NULL, w->pool));
    if (duration_ms) *duration_ms = (at_clock_mono_s() - t0) * 1e3;
    return AT_OK;
}

static at_status flush_fn(void *ctx)
{
    worker *w = ctx;
    at_meas_cpu_cache_flush(w->art.bufs, w->art.bytes, w->art.n_params);
    return AT_OK;
}

static void run(worker *w, uint64_t job)
{
    outcome oc = {.err = AT_MEAS_OK};
    artifact *a = &w->art;
    const at_measure_opts *o = w->o;
    double *costs = at_calloc((size_t)o->repeat, sizeof *costs);
    size_t n_costs = 0;
    double t0 = at_clock_mono_s(), t1 = t0, t2 = t0;
    if (!costs)
        set_outcome(&oc, AT_MEAS_UNKNOWN_ERROR, "out of memory");
    else if (!a->valid || a->job != job)
        set_outcome(&oc, AT_MEAS_UNKNOWN_ERROR, "worker has no built program for job %llu", (unsigned long long)job);
    if (oc.err == AT_MEAS_OK) {
        /* poisoned outputs: elements a wrong kernel never writes cannot pass as an earlier
         * config's leftovers (0xFF bytes are NaN for floats, -1 for integers) */
        for (size_t i = 0; i < w->ts.n_tensors; i++)
            if (o->check_correctness && w->ts.desc[i].is_output) memset(w->ts.host[i], 0xFF, w->ts.bytes[i]);
        at_status st = at_meas_time_evaluator_pre(time_fn, o->enable_cpu_cache_flush ? flush_fn : NULL, w, o->number,
                                                  o->repeat, o->min_repeat_ms, costs, NULL);
        if (st != AT_OK) set_outcome(&oc, AT_MEAS_RUNTIME_DEVICE, "%s", at_last_error());
        n_costs = at_meas_trim_costs(costs, (size_t)o->repeat);
        t1 = at_clock_mono_s();
    }
    if (oc.err == AT_MEAS_OK && o->check_correctness) {
        for (size_t i = 0; i < w->ts.n_tensors && oc.err == AT_MEAS_OK; i++) {
            const at_tensor_desc *d = &w->ts.desc[i];
            if (!d->is_output) continue;
            at_meas_mismatch mm;
            at_op_tolerance tol = at_op_tolerance_of(at_task_args(w->ts.task));
            if (!at_meas_compare(d->dtype, w->ts.host[i], w->ts.ref[i], d->n_elems, tol, &mm))
                set_outcome(&oc, AT_MEAS_WRONG_ANSWER,
                            "output %s differs from the reference: max error %.6g at element %lld (got %.9g, expected %.9g); "
                            "%lld of %lld elements outside atol=%g rtol=%g",
                            d->name, mm.abs_err, (long long)mm.index, mm.got, mm.want, (long long)mm.n_bad,
                            (long long)d->n_elems, tol.atol, tol.rtol);
        }
    }
    t2 = at_clock_mono_s();
    at_meas_frame_begin(&w->tx, AT_MSG_RAN);
    at_meas_put_u64(&w->tx, job);
    at_meas_put_u32(&w->tx, (uint32_t)oc.err);
    at_meas_put_str(&w->tx, oc.err == AT_MEAS_OK ? "" : oc.msg);
    at_meas_put_u32(&w->tx, oc.err == AT_MEAS_OK ? (uint32_t)n_costs : 0);
    for (size_t i = 0; oc.err == AT_MEAS_OK && i < n_costs; i++) at_meas_put_f64(&w->tx, costs[i]);
    at_meas_put_f64(&w->tx, t1 - t0);
    at_meas_put_f64(&w->tx, t2 - t1);
    send_frame(w);
    at_free(costs);
    free_artifact(a);
}

/* The CPU as the parent's device record: the model name /proc/cpuinfo gives, the thread count. */
static void describe_cpu(const worker *w, at_ocl_device_info *info)
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
    if (w->o->cpu)
        snprintf(info->name, sizeof info->name, "%s (-mcpu=%s, %d thread%s)", model, w->o->cpu, threads, threads == 1 ? "" : "s");
    else
        snprintf(info->name, sizeof info->name, "%s (%d thread%s)", model, threads, threads == 1 ? "" : "s");
    snprintf(info->version, sizeof info->version, "LLVM JIT");
    info->is_cpu = true;
    info->compute_units = (unsigned)threads;
}

static void hello(worker *w)
{
    at_status st = at_llvm_init();
    if (st == AT_OK) st = at_llvm_pool_new(w->o->n_threads, &w->pool);
    at_meas_frame_begin(&w->tx, AT_MSG_HELLO);
    at_meas_put_u32(&w->tx, st == AT_OK);
    at_meas_put_u32(&w->tx, (uint32_t)st);
    if (st == AT_OK) {
        at_ocl_device_info info;
        describe_cpu(w, &info);
        at_meas_put_bytes(&w->tx, &info, sizeof info);
    } else {
        at_meas_put_str(&w->tx, at_last_error());
    }
    send_frame(w);
}

void at_meas_cpu_worker_main(int fd, const at_meas_worker_cfg *cfg)
{
    worker w = {.fd = fd, .o = &cfg->opts};
    at_strbuf_init(&w.tx);
    hello(&w);
    while (w.pool) {
        uint32_t type;
        size_t len;
        if (at_meas_recv_frame(fd, &w.rx, &w.rx_cap, &type, &len) != AT_OK) break;
        at_meas_reader r = {.p = w.rx, .len = len};
        if (type == AT_MSG_BUILD) {
            uint64_t job = at_meas_get_u64(&r);
            char *name = at_meas_get_str(&r);
            uint32_t target = at_meas_get_u32(&r);
            char *args = at_meas_get_str(&r), *config = at_meas_get_str(&r);
            if (!r.bad) build(&w, job, name, target, args, config);
            at_free(name);
            at_free(args);
            at_free(config);
            if (r.bad) break;
        } else if (type == AT_MSG_RUN) {
            uint64_t job = at_meas_get_u64(&r);
            if (r.bad) break;
            run(&w, job);
        } else {
            break; /* AT_MSG_QUIT or a frame we do not know */
        }
    }
    free_artifact(&w.art);
    free_task(&w.ts);
    at_llvm_pool_free(w.pool);
    at_strbuf_fini(&w.tx);
    at_free(w.rx);
}

#else /* built without backends/llvm */

void at_meas_cpu_worker_main(int fd, const at_meas_worker_cfg *cfg)
{
    (void)cfg;
    at_strbuf tx;
    at_strbuf_init(&tx);
    at_meas_frame_begin(&tx, AT_MSG_HELLO);
    at_meas_put_u32(&tx, 0);
    at_meas_put_u32(&tx, (uint32_t)AT_EUNSUPPORTED);
    at_meas_put_str(&tx, "built without LLVM (backends/llvm): no CPU measurement");
    at_meas_frame_end(&tx);
    if (!tx.failed) (void)at_meas_send_all(fd, tx.data, tx.len);
    at_strbuf_fini(&tx);
}

#endif
