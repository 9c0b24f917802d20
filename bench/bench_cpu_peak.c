/* bench_cpu_peak: this CPU's fp32 peak as our LLVM backend reaches it, the figure behind
 * `autotvm evaluate --profile --peak-gflops P` on --target llvm / arm_cpu (issue 16). One IR
 * program per (lanes, accumulators, threads): a parallel loop of one iteration per thread, each
 * holding K independent vectors of L fp32 lanes in a private buffer and updating them
 * acc = acc * x + y for N serial iterations (x, y loaded from the input, so nothing folds; K
 * independent chains hide the FMA latency), then storing them. It is JIT-compiled for the host at
 * O3 and run on an at_llvm_pool, as tune/llvm_backend.c does for the network executor. Before
 * timing, it prints whether the program's LLVM IR holds llvm.fmuladd on <L x float> with the
 * private buffer gone (the accumulators live in registers), and which vfmadd registers the host
 * object's disassembly (objdump) shows. GFLOPS = 2 * L * K * N * threads / median time of R runs.
 *
 *   bench_cpu_peak [--threads LIST (1,<cores>)] [--lanes LIST (4,8,16)]
 *                  [--accumulators LIST (8,12,16,24)] [--iters N (1000000)] [--repeat R (11)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/llvm/llvm.h"
#include "core/arena.h"
#include "core/clock.h"
#include "ir/ir.h"

#define MAX_LIST 8

static void usage(const char *why)
{
    fprintf(stderr, "bench_cpu_peak: %s (options: --threads LIST --lanes LIST --accumulators LIST --iters N --repeat R)\n",
            why);
    exit(2);
}

/* "1,2,4" -> list; every entry in [lo, hi]. */
static int parse_list(const char *text, long lo, long hi, long *out)
{
    int n = 0;
    for (const char *p = text; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < lo || v > hi || n == MAX_LIST || (*end && *end != ',')) return -1;
        out[n++] = v;
        p = *end ? end + 1 : end;
    }
    return n;
}

static const at_ir_program *build(at_arena *a, int lanes, int k_acc, long long iters, int threads)
{
    at_ir_sched *s = at_ir_sched_begin(a, "cpu_peak");
    if (!s) return NULL;
    /* in: x (L lanes), y (L lanes), then one distinct start vector per accumulator (equal starts
     * would let GVN merge the chains into one) */
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, (int64_t)(2 + k_acc) * lanes, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, (int64_t)threads * k_acc * lanes, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, (int64_t)k_acc * lanes, AT_IR_PRIVATE);
    const at_ir_var *t = at_ir_var_new(s, "t", AT_IR_I32), *i = at_ir_var_new(s, "i", AT_IR_I32);
    const at_ir_var *k0 = at_ir_var_new(s, "k0", AT_IR_I32), *k1 = at_ir_var_new(s, "k1", AT_IR_I32),
                    *k2 = at_ir_var_new(s, "k2", AT_IR_I32);
    const at_ir_expr *L = at_ir_i32(s, lanes);
    /* accumulator k is acc[k * L .. k * L + L) */
    const at_ir_expr *at0 = at_ir_mul(s, at_ir_v(s, k0), L), *at1 = at_ir_mul(s, at_ir_v(s, k1), L),
                     *at2 = at_ir_mul(s, at_ir_v(s, k2), L);
    const at_ir_expr *start = at_ir_load(s, in, at_ir_add(s, at0, at_ir_i32(s, 2 * lanes)), lanes);
    const at_ir_stmt *init = at_ir_for(s, k0, k_acc, AT_IR_UNROLLED, at_ir_store(s, acc, at0, start));
    const at_ir_expr *x = at_ir_load(s, in, at_ir_i32(s, 0), lanes), *y = at_ir_load(s, in, L, lanes);
    const at_ir_expr *fma = at_ir_add(s, at_ir_mul(s, at_ir_load(s, acc, at1, lanes), x), y);
    const at_ir_stmt *loop = at_ir_for(s, i, iters, AT_IR_SERIAL,
                                       at_ir_for(s, k1, k_acc, AT_IR_UNROLLED, at_ir_store(s, acc, at1, fma)));
    const at_ir_expr *out_at = at_ir_add(s, at_ir_mul(s, at_ir_v(s, t), at_ir_i32(s, (int64_t)k_acc * lanes)), at2);
    const at_ir_stmt *fin =
        at_ir_for(s, k2, k_acc, AT_IR_UNROLLED, at_ir_store(s, out, out_at, at_ir_load(s, acc, at2, lanes)));
    const at_ir_stmt *items[3] = {init, loop, fin};
    at_ir_add_kernel(s, "main", at_ir_for(s, t, threads, AT_IR_PARALLEL, at_ir_seq(s, items, 3)));
    const at_ir_program *p;
    return at_ir_sched_finish(s, &p) == AT_OK && at_ir_verify(p) == AT_OK ? p : NULL;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* The host object's vfmadd instructions by register width, "none" when objdump is missing. */
static void asm_fmas(const at_ir_program *p, char *line, size_t cap)
{
    char obj[] = "/tmp/bench_cpu_peak_XXXXXX", cmd[128];
    int fd = mkstemp(obj);
    snprintf(line, cap, "(no object)");
    if (fd < 0) return;
    close(fd);
    if (at_llvm_program_object(p, NULL, obj) == AT_OK) {
        snprintf(cmd, sizeof cmd, "objdump -d --no-show-raw-insn %s 2>/dev/null", obj);
        FILE *f = popen(cmd, "r");
        size_t n[3] = {0, 0, 0};
        char buf[512];
        while (f && fgets(buf, sizeof buf, f))
            if (strstr(buf, "vfmadd")) n[strstr(buf, "zmm") ? 2 : strstr(buf, "ymm") ? 1 : 0]++;
        if (f) pclose(f);
        snprintf(line, cap, "vfmadd on xmm %zu, ymm %zu, zmm %zu", n[0], n[1], n[2]);
    }
    unlink(obj);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median GFLOPS of one (lanes, K, threads) program (*fastest: of its fastest run), 0 after an
 * error (printed). */
static double measure(int lanes, int k_acc, long long iters, int threads, at_llvm_pool *pool, int repeat, bool show_code,
                      double *fastest)
{
    at_arena *a;
    if (at_arena_new(0, &a) != AT_OK) return 0;
    double gflops = 0, times[64];
    const at_ir_program *p = build(a, lanes, k_acc, iters, threads);
    float *in = calloc((size_t)(2 + k_acc) * lanes, sizeof *in), *out = calloc((size_t)threads * k_acc * lanes, sizeof *out);
    at_llvm_jit *j = NULL;
    if (!p || !in || !out) {
        fprintf(stderr, "bench_cpu_peak: building the program failed: %s\n", at_last_error());
        goto done;
    }
    if (show_code) {
        at_strbuf ir;
        at_strbuf_init(&ir);
        char fma[64], line[96];
        snprintf(fma, sizeof fma, " call <%d x float> @llvm.fmuladd.v%df32(", lanes, lanes);
        at_status st = at_llvm_program_ir(p, NULL, &ir);
        size_t n_fma = st == AT_OK ? count(at_strbuf_cstr(&ir), fma) : 0;
        /* the private buffer stays an alloca (named %acc...) only when SROA could not split it */
        const char *text = at_strbuf_cstr(&ir);
        bool on_stack = st != AT_OK || count(text, "\n  %acc = alloca") + count(text, "\n  %acc.i = alloca");
        asm_fmas(p, line, sizeof line);
        printf("  lanes %2d K %2d: LLVM IR %s llvm.fmuladd on <%d x float> (%zu calls in the unrolled loop), accumulators %s;"
               " asm: %s\n", lanes, k_acc, n_fma ? "has" : "LACKS", lanes, n_fma,
               on_stack ? "ON THE STACK" : "in registers", line);
        at_strbuf_fini(&ir);
    }
    for (int k = 0; k < (2 + k_acc) * lanes; k++) in[k] = k < lanes ? 0.5f : k < 2 * lanes ? 1.0f : (float)k;
    if (at_llvm_jit_new(p, NULL, &j) != AT_OK) {
        fprintf(stderr, "bench_cpu_peak: JIT: %s\n", at_last_error());
        goto done;
    }
    void *bufs[2] = {in, out};
    for (int r = -1; r < repeat; r++) { /* r = -1: warm-up */
        double t0 = at_clock_mono_s();
        if (at_llvm_jit_run(j, bufs, 2, false, pool) != AT_OK) {
            fprintf(stderr, "bench_cpu_peak: run: %s\n", at_last_error());
            goto done;
        }
        if (r >= 0) times[r] = at_clock_mono_s() - t0;
    }
    /* acc -> y / (1 - x) = 2 for x = 1/2, y = 1, exactly once the start's error has halved away
     * (< 40 iterations): anything else means a wrong kernel */
    for (int k = 0; k < threads * k_acc * lanes; k++)
        if (out[k] != 2.0f) {
            fprintf(stderr, "bench_cpu_peak: out[%d] = %g, expected 2\n", k, out[k]);
            goto done;
        }
    qsort(times, (size_t)repeat, sizeof *times, cmp_double);
    double flop = 2.0 * lanes * k_acc * (double)iters * threads;
    gflops = flop / times[repeat / 2] / 1e9;
    *fastest = flop / times[0] / 1e9;
done:
    at_llvm_jit_free(j);
    free(in);
    free(out);
    at_arena_free(a);
    return gflops;
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN), threads[MAX_LIST] = {1, cores}, lanes[MAX_LIST] = {4, 8, 16},
         accs[MAX_LIST] = {8, 12, 16, 24}, iters = 1000000, repeat = 11;
    int n_threads = cores > 1 ? 2 : 1, n_lanes = 3, n_accs = 4;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) usage("an option lacks its value");
        const char *a = argv[i], *v = argv[i + 1];
        char *end;
        if (!strcmp(a, "--threads")) {
            if ((n_threads = parse_list(v, 1, 1024, threads)) <= 0) usage("--threads: a list of 1..1024");
        } else if (!strcmp(a, "--lanes")) {
            if ((n_lanes = parse_list(v, 2, AT_IR_MAX_LANES, lanes)) <= 0) usage("--lanes: a list of 2..16");
        } else if (!strcmp(a, "--accumulators")) {
            if ((n_accs = parse_list(v, 1, 64, accs)) <= 0) usage("--accumulators: a list of 1..64");
        } else if (!strcmp(a, "--iters")) {
            iters = strtol(v, &end, 10);
            if (*end || iters < 64 || iters > 2147483647) usage("--iters: 64..2^31-1 (the check needs 64)");
        } else if (!strcmp(a, "--repeat")) {
            repeat = strtol(v, &end, 10);
            if (*end || repeat < 1 || repeat > 64) usage("--repeat: 1..64");
        } else {
            fprintf(stderr, "bench_cpu_peak: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (at_llvm_init() != AT_OK) {
        fprintf(stderr, "bench_cpu_peak: LLVM: %s\n", at_last_error());
        return 1;
    }
    printf("fp32 FMA peak through the LLVM backend: %ld iterations, median of %ld runs, %ld online cores\n", iters,
           repeat, cores);
    double best[MAX_LIST] = {0};
    int rc = 0, best_at[MAX_LIST][2] = {{0}}; /* lanes, K of each thread count's best */
    for (int li = 0; li < n_lanes; li++)
        for (int ai = 0; ai < n_accs; ai++)
            for (int ti = 0; ti < n_threads; ti++) {
                at_llvm_pool *pool = NULL;
                if (at_llvm_pool_new((int)threads[ti], &pool) != AT_OK) {
                    fprintf(stderr, "bench_cpu_peak: pool of %ld threads: %s\n", threads[ti], at_last_error());
                    return 1;
                }
                double fastest = 0;
                double g =
                    measure((int)lanes[li], (int)accs[ai], iters, (int)threads[ti], pool, (int)repeat, ti == 0, &fastest);
                at_llvm_pool_free(pool);
                if (g == 0) rc = 1;
                printf("  lanes %2ld K %2ld threads %3ld: %8.1f GFLOPS (%.1f per thread), fastest run %.1f\n", lanes[li],
                       accs[ai], threads[ti], g, g / (double)threads[ti], fastest);
                fflush(stdout);
                if (g > best[ti]) {
                    best[ti] = g;
                    best_at[ti][0] = (int)lanes[li];
                    best_at[ti][1] = (int)accs[ai];
                }
            }
    for (int ti = 0; ti < n_threads; ti++)
        printf("best on %ld thread%s: %.1f GFLOPS (lanes %d, K %d)\n", threads[ti], threads[ti] > 1 ? "s" : "", best[ti],
               best_at[ti][0], best_at[ti][1]);
    int one = -1, most = 0;
    for (int ti = 0; ti < n_threads; ti++) {
        if (threads[ti] == 1) one = ti;
        if (threads[ti] > threads[most]) most = ti;
    }
    double per_core = one >= 0 ? best[one] : best[most] / (double)threads[most];
    printf("peak fp32: %.1f GFLOPS per core, %.1f GFLOPS on %ld thread%s\n", per_core, best[most], threads[most],
           threads[most] > 1 ? "s" : "");
    return rc;
}
