/* backends/llvm: golden LLVM IR for testing/matmul, JIT results equal to the IR interpreter's for
 * every barrier-free registered OpenCL and LLVM template (tiny shapes, seeded configs), for the OpenCL fixture
 * programs and for hand-built programs over every expression kind (integer division of
 * negatives, shifts, casts with NaN and overflow, intrinsics, vector lanes, parallel loops on a
 * 2-thread pool, bindings as loops); unsupported constructs; the pool; an aarch64 object file. */
#include "tests/support/test_op_examples.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/llvm/llvm.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/clock.h"
#include "core/rng.h"
#include "core/strbuf.h"
#include "templates/template.h"
#include "tests/unit/mali_cases.h"
#include "tests/unit/test_ocl_programs.h"

static at_llvm_pool *pool2;

static int setup(void **state)
{
    (void)state;
    return at_llvm_pool_new(2, &pool2) == AT_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    at_llvm_pool_free(pool2);
    return 0;
}

/* ---- running a program both ways ------------------------------------------------------------ */

typedef struct host {
    size_t n;          /* program buffers */
    size_t n_params;
    void  *data[16];
} host;

static size_t buf_bytes(const at_ir_buffer *b)
{
    return (size_t)b->size * at_ir_type_bytes(b->elem);
}

/* Inputs random (floats in [lo, hi), ints in -8..8), everything else a 0xA5 pattern. */
static void host_init(host *h, const at_ir_program *p, uint64_t seed, double lo, double hi)
{
    at_rng rng;
    at_rng_seed(&rng, seed);
    assert_true(p->n_bufs <= 16);
    h->n = p->n_bufs;
    h->n_params = at_ir_program_n_params(p);
    for (size_t i = 0; i < p->n_bufs; i++) {
        const at_ir_buffer *b = p->bufs[i];
        h->data[i] = at_malloc(buf_bytes(b));
        assert_non_null(h->data[i]);
        memset(h->data[i], 0xA5, buf_bytes(b));
        if (b->role != AT_IR_INPUT) continue;
        for (int64_t k = 0; k < b->size; k++) {
            if (b->elem.code == AT_IR_TFLOAT && b->elem.bits == 32)
                ((float *)h->data[i])[k] = (float)(lo + (hi - lo) * at_rng_uniform(&rng));
            else if (b->elem.code == AT_IR_TFLOAT && b->elem.bits == 64)
                ((double *)h->data[i])[k] = lo + (hi - lo) * at_rng_uniform(&rng);
            else if (b->elem.bits == 32)
                ((int32_t *)h->data[i])[k] = (int32_t)at_rng_below(&rng, 17) - 8;
            else if (b->elem.bits == 8)
                ((int8_t *)h->data[i])[k] = (int8_t)((int)at_rng_below(&rng, 17) - 8);
            else
                fail_msg("test inputs of %u bits", b->elem.bits);
        }
    }
}

static void host_copy(host *dst, const host *src, const at_ir_program *p)
{
    *dst = *src;
    for (size_t i = 0; i < src->n; i++) {
        dst->data[i] = at_malloc(buf_bytes(p->bufs[i]));
        assert_non_null(dst->data[i]);
        memcpy(dst->data[i], src->data[i], buf_bytes(p->bufs[i]));
    }
}

static void host_fini(host *h)
{
    for (size_t i = 0; i < h->n; i++) at_free(h->data[i]);
}

static bool close_f(double got, double want, double tol)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (got == want) return true; /* infinities */
    return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

/* Every output parameter of got equals want's (floats within tol, relative above 1). */
static void assert_outputs_equal(const at_ir_program *p, const host *got, const host *want, double tol, const char *what)
{
    for (size_t i = 0; i < got->n_params; i++) {
        const at_ir_buffer *b = p->bufs[i];
        if (b->role != AT_IR_OUTPUT) continue;
        for (int64_t k = 0; k < b->size; k++) {
            bool ok;
            double g = 0, w = 0;
            if (b->elem.code == AT_IR_TFLOAT && b->elem.bits == 32) {
                g = ((float *)got->data[i])[k];
                w = ((float *)want->data[i])[k];
                ok = close_f(g, w, tol);
            } else if (b->elem.code == AT_IR_TFLOAT && b->elem.bits == 64) {
                g = ((double *)got->data[i])[k];
                w = ((double *)want->data[i])[k];
                ok = close_f(g, w, tol);
            } else {
                size_t sz = at_ir_type_bytes(b->elem);
                ok = !memcmp((char *)got->data[i] + (size_t)k * sz, (char *)want->data[i] + (size_t)k * sz, sz);
                int64_t gi = 0, wi = 0;
                memcpy(&gi, (char *)got->data[i] + (size_t)k * sz, sz);
                memcpy(&wi, (char *)want->data[i] + (size_t)k * sz, sz);
                if (b->elem.code == AT_IR_TINT && sz < 8) { /* sign-extend for the message */
                    int sh = (int)(64 - 8 * sz);
                    gi = (int64_t)((uint64_t)gi << sh) >> sh;
                    wi = (int64_t)((uint64_t)wi << sh) >> sh;
                }
                g = (double)gi;
                w = (double)wi;
            }
            if (!ok) fail_msg("%s: %s[%lld] = %.9g, the interpreter says %.9g", what, b->name, (long long)k, g, w);
        }
    }
}

/* Interprets p and JITs it (run on pool) from the same inputs; outputs must agree. */
static void jit_matches_interp(const at_ir_program *p, uint64_t seed, double lo, double hi, double tol, at_llvm_pool *pool,
                               const char *what)
{
    host in, a, b;
    host_init(&in, p, seed, lo, hi);
    host_copy(&a, &in, p);
    host_copy(&b, &in, p);
    double t0 = at_clock_mono_s();
    at_status st = at_ir_interp(p, a.data);
    if (st != AT_OK) fail_msg("%s: interpreter: %s", what, at_last_error());
    double t1 = at_clock_mono_s();
    at_llvm_jit *j;
    st = at_llvm_jit_new(p, NULL, &j);
    if (getenv("AT_LLVM_TIMES")) print_message("%s: interp %.1f ms, jit %.1f ms\n", what, (t1 - t0) * 1e3, (at_clock_mono_s() - t1) * 1e3);
    if (st != AT_OK) fail_msg("%s: jit: %s", what, at_last_error());
    assert_int_equal(at_llvm_jit_n_kernels(j), p->n_kernels);
    assert_ok(at_llvm_jit_run(j, b.data, b.n, false, pool));
    assert_outputs_equal(p, &b, &a, tol, what);
    /* a second run from the same inputs (kernels must not depend on scratch state) */
    host c;
    host_copy(&c, &in, p);
    assert_ok(at_llvm_jit_run(j, c.data, c.n, false, NULL));
    assert_outputs_equal(p, &c, &a, tol, what);
    at_llvm_jit_free(j);
    host_fini(&in);
    host_fini(&a);
    host_fini(&b);
    host_fini(&c);
}

static bool stmt_has_barrier(const at_ir_stmt *s)
{
    switch (s->kind) {
    case AT_IR_BARRIER: return true;
    case AT_IR_FOR: return stmt_has_barrier(s->u.loop.body);
    case AT_IR_LET: return stmt_has_barrier(s->u.let.body);
    case AT_IR_IF: return stmt_has_barrier(s->u.if_.then_s) || (s->u.if_.else_s && stmt_has_barrier(s->u.if_.else_s));
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++)
            if (stmt_has_barrier(s->u.seq.items[i])) return true;
        return false;
    case AT_IR_STORE:
    case AT_IR_PREFETCH:
    case AT_IR_STMT_KIND_COUNT:
    default: return false;
    }
}

static bool has_barrier(const at_ir_program *p)
{
    for (size_t k = 0; k < p->n_kernels; k++)
        if (stmt_has_barrier(p->kernels[k].body)) return true;
    return false;
}

static const at_ir_program *instantiate(const char *name, const char *args, int64_t index, at_arena **a)
{
    at_task *t;
    assert_ok(at_task_create(name, AT_TARGET_OPENCL, args, &t));
    at_config *c;
    assert_ok(at_task_config(t, index, &c));
    assert_ok(at_arena_new(0, a));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, *a, &p));
    at_config_free(c);
    at_task_free(t);
    return p;
}

/* ---- golden IR, objects --------------------------------------------------------------------- */

static const at_llvm_target golden_target = {.triple = "x86_64-unknown-linux-gnu", .cpu = "x86-64", .opt_level = -1};

static void matmul_ir_should_match_the_golden_file(void **state)
{
    (void)state;
    at_arena *a;
    const at_ir_program *p = instantiate("testing/matmul", "64,64,64", 30, &a);
    at_strbuf sb, again;
    at_strbuf_init(&sb);
    at_strbuf_init(&again);
    assert_ok(at_llvm_program_ir(p, &golden_target, &sb));
    assert_ok(at_llvm_program_ir(p, &golden_target, &again));
    assert_string_equal(at_strbuf_cstr(&sb), at_strbuf_cstr(&again)); /* deterministic */
    const char *ir = at_strbuf_cstr(&sb);
    assert_non_null(strstr(ir, "define void @testing_matmul_default_function_kernel(ptr %0, ptr %1)"));
    assert_non_null(strstr(ir, "call void @at_llvm_parallel_for(")); /* the outermost block loop */
    assert_non_null(strstr(ir, "noalias"));
    assert_non_null(strstr(ir, "target triple = \"x86_64-unknown-linux-gnu\""));
    at_test_check_golden("llvm/testing_matmul_64x64x64_c30.ll", ir);

    /* optimized: still deterministic, and the internal functions inlined into their callers */
    at_llvm_target o3 = golden_target;
    o3.opt_level = 3;
    at_strbuf_clear(&sb);
    at_strbuf_clear(&again);
    assert_ok(at_llvm_program_ir(p, &o3, &sb));
    assert_ok(at_llvm_program_ir(p, &o3, &again));
    assert_string_equal(at_strbuf_cstr(&sb), at_strbuf_cstr(&again));
    assert_null(strstr(at_strbuf_cstr(&sb), ".body("));
    at_strbuf_fini(&sb);
    at_strbuf_fini(&again);
    at_arena_free(a);
}

static void an_aarch64_object_should_be_an_arm64_elf_with_the_kernel(void **state)
{
    (void)state;
    at_arena *a;
    const at_ir_program *p = instantiate("testing/matmul", "64,64,64", 30, &a);
    char path[512];
    snprintf(path, sizeof path, "%s/matmul.o", at_test_tmpdir("llvm_obj"));
    at_llvm_target t = {.triple = "aarch64-linux-gnu", .cpu = "cortex-a53", .features = "+neon", .opt_level = 1};
    assert_ok(at_llvm_program_object(p, &t, path));
    size_t len = 0;
    char *obj = at_test_read_file(path, &len);
    assert_non_null(obj);
    assert_true(len > 64);
    assert_memory_equal(obj, "\x7f" "ELF", 4);
    assert_int_equal((unsigned char)obj[4], 2); /* ELFCLASS64 */
    unsigned machine = (unsigned char)obj[18] | (unsigned)(unsigned char)obj[19] << 8;
    assert_int_equal(machine, 183); /* EM_AARCH64 */
    const char *sym = "testing_matmul_default_function_kernel";
    bool found = false;
    for (size_t i = 0; i + strlen(sym) < len && !found; i++) found = !memcmp(obj + i, sym, strlen(sym) + 1);
    assert_true(found);
    found = false;
    for (size_t i = 0; i + 21 < len && !found; i++) found = !memcmp(obj + i, "at_llvm_parallel_for", 21); /* undefined: the board's */
    assert_true(found);
    at_free(obj);

    at_llvm_target bad = {.triple = "nosuchcpu-unknown-none"};
    assert_int_equal(at_llvm_program_object(p, &bad, path), AT_ENOTFOUND);
    char dir_path[600];
    snprintf(dir_path, sizeof dir_path, "%s/no/such/dir/x.o", at_test_tmpdir("llvm_obj2"));
    assert_int_equal(at_llvm_program_object(p, &t, dir_path), AT_EIO);
    at_arena_free(a);
}

/* ---- templates ------------------------------------------------------------------------------ */

static void barrier_free_templates_should_match_the_interpreter(void **state)
{
    (void)state;
    size_t n_templates = 0, n_ran = 0, n_barrier = 0, n_templates_ran = 0;
    for (size_t ti = 0; ti < at_tmpl_count(); ti++) {
        const at_template *tm = at_tmpl_at(ti);
        if (tm->target == AT_TARGET_VTA) continue; /* VTA programs run on the VTA simulator */
        n_templates++;
        at_args args[8];
        size_t n_args = test_op_examples(tm->op, false, args, 2); /* the op kind's first two tiny examples */
        size_t ran_here = 0;
        at_rng rng;
        at_rng_seed(&rng, 11 + ti);
        for (size_t ai = 0; ai < n_args; ai++) {
            at_task *t;
            at_status tst = at_task_new(tm, &args[ai], &t);
            if (tst == AT_EINVAL) continue; /* a workload of the op this template does not take (a bias) */
            assert_ok(tst);
            int64_t idx[3];
            size_t m = at_space_len(at_task_space(t)) < 3 ? (size_t)at_space_len(at_task_space(t)) : 3;
            assert_ok(at_space_sample_ints(at_task_space(t), &rng, m, idx));
            for (size_t ci = 0; ci < m; ci++) {
                at_config *c;
                assert_ok(at_task_config(t, idx[ci], &c));
                at_arena *ar;
                assert_ok(at_arena_new(0, &ar));
                const at_ir_program *p;
                at_status st = at_task_instantiate(t, c, ar, &p);
                if (st != AT_EINVAL) assert_ok(st);
                if (st == AT_OK && has_barrier(p)) {
                    at_strbuf sb;
                    at_strbuf_init(&sb);
                    assert_int_equal(at_llvm_program_ir(p, NULL, &sb), AT_EUNSUPPORTED);
                    at_strbuf_fini(&sb);
                    n_barrier++;
                } else if (st == AT_OK) {
                    char what[256];
                    snprintf(what, sizeof what, "%s args %zu config %lld", tm->name, ai, (long long)idx[ci]);
                    jit_matches_interp(p, 100 + ci, -1, 1, 1e-4, pool2, what);
                    n_ran++;
                    ran_here++;
                }
                at_arena_free(ar);
                at_config_free(c);
            }
            at_task_free(t);
        }
        if (ran_here) n_templates_ran++;
    }
    print_message("templates: %zu, ran %zu configs of %zu templates, %zu configs with barriers skipped\n", n_templates, n_ran,
                  n_templates_ran, n_barrier);
    assert_true(n_templates >= 5);
    assert_true(n_templates_ran >= 5);
    assert_true(n_ran >= 12);
}

/* ---- fixtures and hand-built programs ------------------------------------------------------- */

static const at_ir_program *build_fixture(const ocl_fixture *f, at_arena **arena)
{
    assert_ok(at_arena_new(0, arena));
    at_ir_sched *s = at_ir_sched_begin(*arena, f->name);
    assert_non_null(s);
    f->build(s);
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    return p;
}

static void ocl_fixtures_should_match_the_interpreter(void **state)
{
    (void)state;
    assert_int_equal(n_ocl_fixtures, 6);
    size_t ran = 0;
    for (size_t i = 0; i < n_ocl_fixtures; i++) {
        at_arena *a;
        const at_ir_program *p = build_fixture(&ocl_fixtures[i], &a);
        if (has_barrier(p)) {
            at_strbuf sb;
            at_strbuf_init(&sb);
            assert_int_equal(at_llvm_program_ir(p, NULL, &sb), AT_EUNSUPPORTED);
            assert_non_null(strstr(at_last_error(), "barrier"));
            at_strbuf_fini(&sb);
        } else {
            jit_matches_interp(p, 7, -1, 3, 1e-5, pool2, ocl_fixtures[i].name);
            ran++;
        }
        at_arena_free(a);
    }
    assert_int_equal(ran, 5);
}

#define I(v) at_ir_i32(s, (v))
#define F(v) at_ir_f32(s, (v))
#define V(x) at_ir_v(s, (x))

/* Integer semantics: div/mod of negatives and INT_MIN / -1, shifts past the width, unsigned and
 * narrow wrap, comparisons, logical and bitwise operators, unary operators, min/max. Inputs are
 * set by the test (a, b: 32 values each). */
static void int_ops(at_ir_sched *s)
{
    const at_ir_buffer *a = at_ir_param(s, "a", AT_IR_I32, 32, AT_IR_INPUT);
    const at_ir_buffer *b = at_ir_param(s, "b", AT_IR_I32, 32, AT_IR_INPUT);
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_I32, 32 * 20, AT_IR_OUTPUT);
    const at_ir_buffer *ob = at_ir_param(s, "ob", AT_IR_BOOL, 32 * 8, AT_IR_OUTPUT);
    const at_ir_buffer *o8 = at_ir_param(s, "o8", AT_IR_I8, 32 * 2, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32), *x = at_ir_var_new(s, "x", AT_IR_I32),
                    *y = at_ir_var_new(s, "y", AT_IR_I32);
    const at_ir_expr *ux = at_ir_cast(s, AT_IR_U32, V(x)), *uy = at_ir_cast(s, AT_IR_U32, V(y));
    const at_ir_expr *r[20] = {
        at_ir_div(s, V(x), V(y)), at_ir_mod(s, V(x), V(y)), at_ir_div(s, V(x), I(-7)), at_ir_mod(s, V(x), I(7)),
        at_ir_cast(s, AT_IR_I32, at_ir_div(s, ux, uy)), at_ir_cast(s, AT_IR_I32, at_ir_mod(s, ux, uy)),
        at_ir_bin(s, AT_IR_SHL, V(x), V(y)), at_ir_bin(s, AT_IR_SHR, V(x), V(y)),
        at_ir_cast(s, AT_IR_I32, at_ir_bin(s, AT_IR_SHR, ux, uy)), at_ir_min(s, V(x), V(y)), at_ir_max(s, V(x), V(y)),
        at_ir_cast(s, AT_IR_I32, at_ir_min(s, ux, uy)), at_ir_bin(s, AT_IR_BIT_AND, V(x), V(y)),
        at_ir_bin(s, AT_IR_BIT_OR, V(x), V(y)), at_ir_bin(s, AT_IR_BIT_XOR, V(x), V(y)), at_ir_un(s, AT_IR_NEG, V(x)),
        at_ir_un(s, AT_IR_BIT_NOT, V(x)), at_ir_mul(s, V(x), V(y)), at_ir_sub(s, V(x), V(y)),
        at_ir_select(s, at_ir_bin(s, AT_IR_LT, V(x), V(y)), at_ir_add(s, V(x), I(100)), V(y)),
    };
    const at_ir_expr *c[8] = {
        at_ir_bin(s, AT_IR_EQ, V(x), V(y)), at_ir_bin(s, AT_IR_NE, V(x), V(y)), at_ir_bin(s, AT_IR_LT, V(x), V(y)),
        at_ir_bin(s, AT_IR_LE, ux, uy), at_ir_bin(s, AT_IR_GT, ux, uy), at_ir_bin(s, AT_IR_GE, V(x), V(y)),
        at_ir_bin(s, AT_IR_AND, at_ir_bin(s, AT_IR_GT, V(x), I(0)), at_ir_un(s, AT_IR_NOT, at_ir_bin(s, AT_IR_GT, V(y), I(0)))),
        at_ir_bin(s, AT_IR_OR, at_ir_bin(s, AT_IR_GT, V(x), I(0)), at_ir_bin(s, AT_IR_GT, V(y), I(0))),
    };
    const at_ir_stmt *st[30];
    size_t n = 0;
    for (int k = 0; k < 20; k++) st[n++] = at_ir_store(s, o, at_ir_add(s, at_ir_mul(s, V(i), I(20)), I(k)), r[k]);
    for (int k = 0; k < 8; k++) st[n++] = at_ir_store(s, ob, at_ir_add(s, at_ir_mul(s, V(i), I(8)), I(k)), c[k]);
    const at_ir_expr *x8 = at_ir_cast(s, AT_IR_I8, V(x)), *y8 = at_ir_cast(s, AT_IR_I8, V(y));
    st[n++] = at_ir_store(s, o8, at_ir_mul(s, V(i), I(2)), at_ir_add(s, at_ir_mul(s, x8, y8), x8));
    st[n++] = at_ir_store(s, o8, at_ir_add(s, at_ir_mul(s, V(i), I(2)), I(1)), at_ir_div(s, x8, at_ir_int(s, AT_IR_I8, 3)));
    const at_ir_stmt *body = at_ir_let(s, x, at_ir_load(s, a, V(i), 1), at_ir_let(s, y, at_ir_load(s, b, V(i), 1), at_ir_seq(s, st, n)));
    at_ir_add_kernel(s, "ints", at_ir_for(s, i, 32, AT_IR_SERIAL, body));
}

static void integer_semantics_should_follow_the_interpreter(void **state)
{
    (void)state;
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    at_ir_sched *s = at_ir_sched_begin(ar, "ints");
    int_ops(s);
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    static const int32_t av[32] = {7, -7, 7, -7, INT32_MIN, INT32_MIN, 100, -100, 1, 0, 123456789, -5, 2147483647, 3, -1, 9,
                                   13, -13, 64, -64, 5, 5, -2147483647, 8, 31, -31, 1000, -1000, 17, 0, 255, -256};
    static const int32_t bv[32] = {2, 2, -2, -2, -1, 1, 33, 33, 31, 5, -1, 3, 2, 32, -1, -9,
                                   4, 4, -3, -3, 70, -70, -1, 65, 1, 1, 7, -7, 1, 1, -33, 34};
    host in, x, y;
    in.n = p->n_bufs;
    in.n_params = at_ir_program_n_params(p);
    for (size_t i = 0; i < p->n_bufs; i++) {
        in.data[i] = at_malloc(buf_bytes(p->bufs[i]));
        assert_non_null(in.data[i]);
        memset(in.data[i], 0, buf_bytes(p->bufs[i]));
    }
    memcpy(in.data[0], av, sizeof av);
    memcpy(in.data[1], bv, sizeof bv);
    host_copy(&x, &in, p);
    host_copy(&y, &in, p);
    assert_ok(at_ir_interp(p, x.data));
    at_llvm_jit *j;
    assert_ok(at_llvm_jit_new(p, NULL, &j));
    assert_ok(at_llvm_jit_run(j, y.data, y.n, false, NULL));
    assert_outputs_equal(p, &y, &x, 0, "ints");
    const int32_t *o = y.data[2];
    assert_int_equal(o[1 * 20 + 0], -3);        /* -7 / 2 truncates */
    assert_int_equal(o[1 * 20 + 1], -1);        /* -7 % 2 */
    assert_int_equal(o[4 * 20 + 0], INT32_MIN); /* INT_MIN / -1 wraps */
    assert_int_equal(o[4 * 20 + 1], 0);
    assert_int_equal(o[6 * 20 + 6], 100 << 1);  /* shift count 33 & 31 = 1 */
    at_llvm_jit_free(j);
    host_fini(&in);
    host_fini(&x);
    host_fini(&y);
    at_arena_free(ar);
}

/* Float semantics: casts both ways with NaN, infinities and out-of-range values, f64 and f16,
 * bool conversions, every mapped intrinsic, a guarded load in a select. */
static void float_ops(at_ir_sched *s)
{
    static const char *const un[] = {"acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "exp", "exp10", "exp2", "fabs",
                                     "floor", "log", "log10", "log2", "round", "rsqrt", "sigmoid", "sin", "sinh", "sqrt",
                                     "tan", "tanh", "trunc"};
    static const char *const bi[] = {"atan2", "copysign", "fmax", "fmin", "fmod", "pow"};
    enum { NU = sizeof un / sizeof un[0], NB = sizeof bi / sizeof bi[0] };
    const at_ir_buffer *u = at_ir_param(s, "u", AT_IR_F32, 16, AT_IR_INPUT); /* (0.1, 0.9): every domain */
    const at_ir_buffer *w = at_ir_param(s, "w", AT_IR_F32, 16, AT_IR_INPUT); /* specials, set by the test */
    const at_ir_buffer *of = at_ir_param(s, "of", AT_IR_F32, 16 * (NU + NB + 6), AT_IR_OUTPUT);
    const at_ir_buffer *oi = at_ir_param(s, "oi", AT_IR_I32, 16 * 5, AT_IR_OUTPUT);
    const at_ir_buffer *od = at_ir_param(s, "od", AT_IR_F64, 16 * 2, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32), *x = at_ir_var_new(s, "x", AT_IR_F32),
                    *z = at_ir_var_new(s, "z", AT_IR_F32);
    const at_ir_stmt *st[64];
    size_t n = 0;
    int slot = 0;
#define OUTF(e) st[n++] = at_ir_store(s, of, at_ir_add(s, at_ir_mul(s, V(i), I(NU + NB + 6)), I(slot++)), (e))
    for (int k = 0; k < NU; k++) {
        const at_ir_expr *arg[1] = {V(x)};
        OUTF(at_ir_call(s, un[k], AT_IR_F32, arg, 1));
    }
    for (int k = 0; k < NB; k++) {
        const at_ir_expr *arg[2] = {V(x), at_ir_add(s, V(x), F(0.25))};
        OUTF(at_ir_call(s, bi[k], AT_IR_F32, arg, 2));
    }
    const at_ir_expr *f3[3] = {V(x), V(z), F(0.5)};
    OUTF(at_ir_call(s, "fma", AT_IR_F32, f3, 3));
    OUTF(at_ir_call(s, "mad", AT_IR_F32, f3, 3));
    const at_ir_expr *cl[3] = {V(z), F(-1), F(1)};
    OUTF(at_ir_call(s, "clamp", AT_IR_F32, cl, 3));
    OUTF(at_ir_cast(s, AT_IR_F32, at_ir_bin(s, AT_IR_GT, V(z), V(x)))); /* bool -> float */
    /* guarded load: index i - 1 only read when i >= 1 */
    OUTF(at_ir_select(s, at_ir_bin(s, AT_IR_GE, V(i), I(1)), at_ir_load(s, u, at_ir_sub(s, V(i), I(1)), 1), F(-5)));
    OUTF(at_ir_cast(s, AT_IR_F32, at_ir_cast(s, AT_IR_F16, V(x))));
    int islot = 0;
#define OUTI(e) st[n++] = at_ir_store(s, oi, at_ir_add(s, at_ir_mul(s, V(i), I(5)), I(islot++)), (e))
    OUTI(at_ir_cast(s, AT_IR_I32, V(z)));                                   /* NaN, overflow, truncation */
    OUTI(at_ir_cast(s, AT_IR_I32, at_ir_cast(s, AT_IR_U8, V(z))));          /* through uint8: wraps */
    OUTI(at_ir_cast(s, AT_IR_I32, at_ir_cast(s, AT_IR_BOOL, V(z))));        /* NaN is true */
    const at_ir_expr *ci[3] = {at_ir_cast(s, AT_IR_I32, V(z)), I(-3), I(3)};
    OUTI(at_ir_call(s, "clamp", AT_IR_I32, ci, 3));
    const at_ir_expr *ab[1] = {at_ir_sub(s, at_ir_cast(s, AT_IR_I32, at_ir_mul(s, V(x), F(10))), I(5))};
    OUTI(at_ir_call(s, "abs", AT_IR_I32, ab, 1));
    st[n++] = at_ir_store(s, od, at_ir_mul(s, V(i), I(2)), at_ir_div(s, at_ir_cast(s, AT_IR_F64, V(x)), at_ir_float(s, AT_IR_F64, 3)));
    st[n++] = at_ir_store(s, od, at_ir_add(s, at_ir_mul(s, V(i), I(2)), I(1)),
                          at_ir_cast(s, AT_IR_F64, at_ir_cast(s, AT_IR_I64, at_ir_mul(s, V(z), F(7)))));
    const at_ir_stmt *body = at_ir_let(s, x, at_ir_load(s, u, V(i), 1), at_ir_let(s, z, at_ir_load(s, w, V(i), 1), at_ir_seq(s, st, n)));
    at_ir_add_kernel(s, "floats", at_ir_for(s, i, 16, AT_IR_SERIAL, body));
#undef OUTF
#undef OUTI
}

static void float_semantics_and_intrinsics_should_follow_the_interpreter(void **state)
{
    (void)state;
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    at_ir_sched *s = at_ir_sched_begin(ar, "floats");
    float_ops(s);
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    static const float wv[16] = {NAN, INFINITY, -INFINITY, 3e9f, -3e9f, 1e20f, -2.5f, 2.5f,
                                 0.0f, -0.0f, 255.9f, 256.5f, -1.5f, 1e-3f, 7.99f, -7.99f};
    host in, x, y;
    host_init(&in, p, 5, 0.1, 0.9);
    memcpy(in.data[1], wv, sizeof wv);
    host_copy(&x, &in, p);
    host_copy(&y, &in, p);
    assert_ok(at_ir_interp(p, x.data));
    at_llvm_jit *j;
    assert_ok(at_llvm_jit_new(p, NULL, &j));
    assert_ok(at_llvm_jit_run(j, y.data, y.n, false, NULL));
    assert_outputs_equal(p, &y, &x, 1e-6, "floats");
    const int32_t *oi = y.data[3];
    assert_int_equal(oi[0 * 5], 0);         /* (int)NaN */
    assert_int_equal(oi[3 * 5], -1294967296); /* 3e9 saturates to int64 then wraps to int32 */
    assert_int_equal(oi[6 * 5], -2);
    at_llvm_jit_free(j);
    host_fini(&in);
    host_fini(&x);
    host_fini(&y);
    at_arena_free(ar);
}

/* A parallel outer loop (37 iterations over 2 threads) whose body has a private buffer filled by
 * a vectorized loop (unit stride) and read back strided, a serial inner loop and a let that the
 * outlined body must capture; then a second kernel with block/thread bindings as loops (a unit
 * blockIdx.z, 3 x 5 items) using a local buffer without barrier, and a pragma-unroll loop. */
static void parallel_and_bindings(at_ir_sched *s)
{
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 37 * 8, AT_IR_INPUT);
    const at_ir_buffer *scale = at_ir_param(s, "scale", AT_IR_F32, 1, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 37 * 8, AT_IR_OUTPUT);
    const at_ir_buffer *out2 = at_ir_param(s, "out2", AT_IR_F32, 15 * 4, AT_IR_OUTPUT);
    const at_ir_buffer *tmp = at_ir_temp(s, "tmp", AT_IR_F32, 37 * 8);
    const at_ir_buffer *priv = at_ir_alloc(s, "priv", AT_IR_F32, 8, AT_IR_PRIVATE);
    const at_ir_var *sc = at_ir_var_new(s, "sc", AT_IR_F32), *i = at_ir_var_new(s, "i", AT_IR_I32),
                    *v = at_ir_var_new(s, "v", AT_IR_I32), *k = at_ir_var_new(s, "k", AT_IR_I32);
    const at_ir_expr *row = at_ir_mul(s, V(i), I(8));
    const at_ir_var *u = at_ir_var_new(s, "u", AT_IR_I32);
    const at_ir_stmt *fill = at_ir_for(s, v, 8, AT_IR_VECTORIZED,
                                       at_ir_store(s, priv, V(v), at_ir_mul(s, at_ir_load(s, in, at_ir_add(s, row, V(v)), 1),
                                                                                 at_ir_add(s, V(sc), at_ir_cast(s, AT_IR_F32, V(u))))));
    const at_ir_stmt *rev = at_ir_for(s, k, 8, AT_IR_SERIAL,
                                      at_ir_store(s, tmp, at_ir_add(s, row, V(k)), at_ir_load(s, priv, at_ir_sub(s, I(7), V(k)), 1)));
    /* inside an unrolled loop: its index is a constant the outlined body keeps as one */
    const at_ir_stmt *par = at_ir_for(s, u, 1, AT_IR_UNROLLED, at_ir_for(s, i, 37, AT_IR_PARALLEL, at_ir_seq2(s, fill, rev)));
    const at_ir_var *q = at_ir_var_new(s, "q", AT_IR_I32);
    const at_ir_stmt *copy = at_ir_for(s, q, 37 * 8, AT_IR_SERIAL, at_ir_store(s, out, V(q), at_ir_load(s, tmp, V(q), 1)));
    at_ir_add_kernel(s, "par", at_ir_let(s, sc, at_ir_load(s, scale, I(0), 1), at_ir_seq2(s, par, copy)));

    const at_ir_buffer *loc = at_ir_alloc(s, "loc", AT_IR_F32, 4, AT_IR_LOCAL);
    const at_ir_var *bz = at_ir_var_new(s, "bz", AT_IR_I32), *by = at_ir_var_new(s, "by", AT_IR_I32),
                    *tx = at_ir_var_new(s, "tx", AT_IR_I32), *r = at_ir_var_new(s, "r", AT_IR_I32),
                    *r2 = at_ir_var_new(s, "r2", AT_IR_I32);
    const at_ir_expr *item = at_ir_add(s, at_ir_mul(s, V(by), I(5)), V(tx));
    const at_ir_stmt *w = at_ir_for_flags(s, r, 4, AT_IR_UNROLLED, AT_IR_LOOP_PRAGMA_UNROLL,
                                          at_ir_store(s, loc, V(r), at_ir_add(s, at_ir_load(s, in, at_ir_add(s, item, V(r)), 1), at_ir_cast(s, AT_IR_F32, V(bz)))));
    const at_ir_stmt *rd = at_ir_for(s, r2, 4, AT_IR_SERIAL,
                                     at_ir_store(s, out2, at_ir_add(s, at_ir_mul(s, item, I(4)), V(r2)),
                                                 at_ir_mul(s, at_ir_load(s, loc, at_ir_sub(s, I(3), V(r2)), 1), F(2))));
    const at_ir_stmt *b = at_ir_for(s, tx, 5, AT_IR_THREAD_X, at_ir_seq2(s, w, rd));
    b = at_ir_for(s, by, 3, AT_IR_BLOCK_Y, b);
    at_ir_add_kernel(s, "bind", at_ir_for(s, bz, 1, AT_IR_BLOCK_Z, b));
}

static void parallel_loops_and_bindings_should_match_the_interpreter(void **state)
{
    (void)state;
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    at_ir_sched *s = at_ir_sched_begin(ar, "pb");
    parallel_and_bindings(s);
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    jit_matches_interp(p, 9, -2, 2, 0, pool2, "parallel_and_bindings");
    jit_matches_interp(p, 10, -2, 2, 0, NULL, "parallel_and_bindings serial");
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_llvm_target t = golden_target;
    assert_ok(at_llvm_program_ir(p, &t, &sb));
    const char *ir = at_strbuf_cstr(&sb);
    assert_non_null(strstr(ir, "llvm.loop.unroll.full"));
    assert_non_null(strstr(ir, "load <8 x float>")); /* the vectorized fill */
    assert_non_null(strstr(ir, "@pb_par.par0("));    /* the outlined parallel loop */
    assert_non_null(strstr(ir, "@pb_bind.par0("));   /* blockIdx.y (blockIdx.z has one iteration) */
    at_strbuf_fini(&sb);

    /* kernels one by one, and the argument checks */
    at_llvm_jit *j;
    assert_ok(at_llvm_jit_new(p, NULL, &j));
    assert_int_equal(at_llvm_jit_n_kernels(j), 2);
    assert_false(at_llvm_jit_kernel_is_prepare(j, 0));
    host h;
    host_init(&h, p, 1, -1, 1);
    assert_int_equal(at_llvm_jit_run_kernel(j, 2, h.data, h.n, NULL), AT_EINVAL);
    assert_int_equal(at_llvm_jit_run_kernel(j, 0, h.data, h.n - 1, NULL), AT_EINVAL);
    assert_ok(at_llvm_jit_run_kernel(j, 1, h.data, h.n, pool2));
    host_fini(&h);
    at_llvm_jit_free(j);
    at_arena_free(ar);
}

/* out[f] = 2 in[f] over f in 0..24 fused from (block, row): rows of `rows` iterations, the
 * innermost axis, read as f % rows and f / rows. */
static const at_ir_program *fused_rows_program(at_arena *ar, const char *name, int64_t rows)
{
    at_ir_sched *s = at_ir_sched_begin(ar, name);
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 24, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 24, AT_IR_OUTPUT);
    const at_ir_var *f = at_ir_var_new(s, "f", AT_IR_I32);
    const at_ir_expr *idx = at_ir_add(s, at_ir_mul(s, at_ir_div(s, V(f), I(rows)), I(rows)), at_ir_mod(s, V(f), I(rows)));
    at_ir_add_kernel(s, "k", at_ir_for(s, f, 24, AT_IR_PARALLEL, at_ir_store(s, out, idx, at_ir_mul(s, at_ir_load(s, in, idx, 1), F(2)))));
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    return p;
}

/* A parallel loop over fused axes passes the pool its innermost axis's extent (the band), so the
 * pool can share it out by rows; every band, shared out or declined, computes the same values. */
static void a_fused_parallel_loop_should_pass_its_rows_as_the_band(void **state)
{
    (void)state;
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    static const int64_t rows[] = {4, 3, 24};
    static const char *const calls[] = {"i64 24, i64 4)", "i64 24, i64 3)", "i64 24, i64 0)"};
    for (size_t k = 0; k < 3; k++) {
        const at_ir_program *p = fused_rows_program(ar, "rows", rows[k]);
        at_strbuf sb;
        at_strbuf_init(&sb);
        assert_ok(at_llvm_program_ir(p, &golden_target, &sb));
        assert_non_null(strstr(at_strbuf_cstr(&sb), calls[k])); /* 24 rows are the whole loop: no band */
        at_strbuf_fini(&sb);
        jit_matches_interp(p, 11, -2, 2, 0, pool2, "fused rows");
    }
    at_arena_free(ar);
}

/* A timed run (skip_prepare) launches only the timed kernels: the weights a preparation kernel
 * packed stay, and a finishing kernel's output is left as the first run wrote it. */
static void a_timed_run_should_leave_out_preparing_and_finishing_kernels(void **state)
{
    (void)state;
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p = staged_program(ar);
    assert_non_null(p);
    assert_true(p->kernels[2].finish && !at_ir_kernel_timed(&p->kernels[2]) && at_ir_kernel_timed(&p->kernels[1]));
    float x[4] = {1, 2, 3, 4}, y[4], pk[4], m[4];
    void *bufs[4] = {x, y, pk, m};
    at_llvm_jit *j;
    assert_ok(at_llvm_jit_new(p, NULL, &j));
    assert_ok(at_llvm_jit_run(j, bufs, 4, false, NULL));
    for (int k = 0; k < 4; k++) assert_true(y[k] == (x[k] * 2 + 1) * 3);
    for (int k = 0; k < 4; k++) x[k] = y[k] = m[k] = -1;
    assert_ok(at_llvm_jit_run(j, bufs, 4, true, NULL));
    for (int k = 0; k < 4; k++) {
        assert_true(m[k] == (float)(k + 1) * 2 + 1); /* timed: from the packed weights of the first run */
        assert_true(y[k] == -1);                     /* not finished */
    }
    at_llvm_jit_free(j);
    at_arena_free(ar);
}

/* One kernel the backend cannot compile; the error must name `what`. */
static void assert_unsupported(void (*build)(at_ir_sched *s), const char *what)
{
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    at_ir_sched *s = at_ir_sched_begin(ar, "bad");
    build(s);
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    at_strbuf sb;
    at_strbuf_init(&sb);
    assert_int_equal(at_llvm_program_ir(p, NULL, &sb), AT_EUNSUPPORTED);
    if (!strstr(at_last_error(), what)) fail_msg("'%s' does not name %s", at_last_error(), what);
    at_llvm_jit *j = (at_llvm_jit *)1;
    assert_int_equal(at_llvm_jit_new(p, NULL, &j), AT_EUNSUPPORTED);
    assert_null(j);
    at_strbuf_fini(&sb);
    at_arena_free(ar);
}

static void unknown_builtin(at_ir_sched *s)
{
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, 4, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, 4, AT_IR_OUTPUT);
    const at_ir_expr *arg[1] = {at_ir_load(s, x, I(0), 1)};
    at_ir_add_kernel(s, "k", at_ir_store(s, y, I(0), at_ir_call(s, "no_such_builtin", AT_IR_F32, arg, 1)));
}

static void float_builtin_on_ints(at_ir_sched *s)
{
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_I32, 4, AT_IR_OUTPUT);
    const at_ir_expr *arg[1] = {I(2)};
    at_ir_add_kernel(s, "k", at_ir_store(s, y, I(0), at_ir_call(s, "exp", AT_IR_I32, arg, 1)));
}

static void four_arguments(at_ir_sched *s)
{
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, 4, AT_IR_OUTPUT);
    const at_ir_expr *arg[4] = {F(1), F(2), F(3), F(4)};
    at_ir_add_kernel(s, "k", at_ir_store(s, y, I(0), at_ir_call(s, "fma", AT_IR_F32, arg, 4)));
}

static void barrier(at_ir_sched *s)
{
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, 4, AT_IR_OUTPUT);
    const at_ir_var *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    at_ir_add_kernel(s, "k", at_ir_for(s, tx, 4, AT_IR_THREAD_X, at_ir_seq2(s, at_ir_barrier(s, AT_IR_LOCAL), at_ir_store(s, y, V(tx), F(1)))));
}

static void unsupported_constructs_should_say_what(void **state)
{
    (void)state;
    assert_unsupported(unknown_builtin, "no_such_builtin/1");
    assert_unsupported(float_builtin_on_ints, "exp/1");
    assert_unsupported(four_arguments, "fma/4");
    assert_unsupported(barrier, "barrier");
}

static void allocation_failures_should_come_back_as_enomem(void **state)
{
    (void)state;
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    at_ir_sched *s = at_ir_sched_begin(ar, "pb");
    parallel_and_bindings(s);
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    at_llvm_target fast = {.opt_level = -1};
    long live = at_alloc_live();
    bool done = false;
    size_t n_failed = 0;
    for (long n = 0; n < 200 && !done; n++) {
        at_alloc_fail_after(n);
        at_llvm_jit *j = NULL;
        at_llvm_pool *pool = NULL;
        at_status st = at_llvm_jit_new(p, &fast, &j);
        if (st == AT_OK) st = at_llvm_pool_new(2, &pool);
        at_alloc_fail_after(-1);
        if (st == AT_OK) {
            done = true;
        } else {
            assert_int_equal(st, AT_ENOMEM);
            n_failed++;
        }
        at_llvm_pool_free(pool);
        at_llvm_jit_free(j);
        assert_int_equal(at_alloc_live(), live);
    }
    assert_true(done);
    assert_true(n_failed >= 8);
    at_arena_free(ar);
}

typedef struct compile_job {
    const at_ir_program *p;
    const at_llvm_jit   *shared; /* run concurrently by both threads */
    at_status            st;
    bool                 ok;
} compile_job;

/* Compiles and runs p on this thread, and runs the shared JIT with a pool of its own. */
static void *compile_and_run(void *arg)
{
    compile_job *job = arg;
    at_llvm_jit *j;
    job->st = at_llvm_jit_new(job->p, &(at_llvm_target){.opt_level = 1}, &j);
    if (job->st != AT_OK) return NULL;
    at_llvm_pool *pool;
    job->st = at_llvm_pool_new(2, &pool);
    job->ok = true;
    for (int round = 0; round < 2 && job->st == AT_OK; round++) {
        const at_llvm_jit *run = round ? job->shared : j;
        float in[37 * 8], scale = 2, out[37 * 8], out2[60], tmp[37 * 8];
        for (int i = 0; i < 37 * 8; i++) in[i] = (float)i;
        void *bufs[5] = {in, &scale, out, out2, tmp};
        job->st = at_llvm_jit_run(run, bufs, 5, false, pool);
        for (int r = 0; r < 37 && job->st == AT_OK; r++)
            for (int k = 0; k < 8; k++) job->ok = job->ok && out[r * 8 + k] == 2.0f * (float)(r * 8 + 7 - k);
    }
    at_llvm_pool_free(pool);
    at_llvm_jit_free(j);
    return NULL;
}

static void two_threads_should_compile_and_run_at_once(void **state)
{
    (void)state;
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    at_ir_sched *s = at_ir_sched_begin(ar, "pb");
    parallel_and_bindings(s);
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    at_llvm_jit *shared;
    assert_ok(at_llvm_jit_new(p, &(at_llvm_target){.opt_level = 1}, &shared));
    compile_job jobs[2] = {{.p = p, .shared = shared}, {.p = p, .shared = shared}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, compile_and_run, &jobs[i]), 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        assert_ok(jobs[i].st);
        assert_true(jobs[i].ok);
    }
    at_llvm_jit_free(shared);
    at_arena_free(ar);
}

/* ---- pool ----------------------------------------------------------------------------------- */

typedef struct counter {
    int hits[100];
} counter;

static void count_range(void *closure, int64_t begin, int64_t end)
{
    counter *c = closure;
    for (int64_t i = begin; i < end; i++) c->hits[i]++; /* chunks are disjoint: no race */
}

static void the_pool_should_run_every_iteration_once(void **state)
{
    (void)state;
    assert_int_equal(at_llvm_pool_threads(pool2), 2);
    assert_int_equal(at_llvm_pool_threads(NULL), 1);
    static const int64_t ns[] = {1, 2, 3, 100};
    at_llvm_pool *one;
    assert_ok(at_llvm_pool_new(1, &one));
    at_llvm_pool *all;
    assert_ok(at_llvm_pool_new(0, &all));
    assert_true(at_llvm_pool_threads(all) >= 1);
    at_llvm_pool *pools[4] = {pool2, one, all, NULL};
    for (size_t pi = 0; pi < 4; pi++) {
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            for (int rep = 0; rep < 3; rep++) {
                counter c = {{0}};
                at_llvm_parallel_for(pools[pi], count_range, &c, ns[k], 0);
                for (int64_t i = 0; i < 100; i++) assert_int_equal(c.hits[i], i < ns[k] ? 1 : 0);
            }
        }
    }
    at_llvm_pool_free(one);
    at_llvm_pool_free(all);
    at_llvm_pool_free(NULL);

    /* a forked child has no workers: the pool must run the loop on the caller, not wait */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(10);
        counter c = {{0}};
        at_llvm_parallel_for(pool2, count_range, &c, 100, 0);
        int bad = 0;
        for (int i = 0; i < 100; i++) bad += c.hits[i] != 1;
        _exit(bad ? 1 : 0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* The ranges a banded loop hands out, from any thread. */
typedef struct ranges {
    _Atomic int n;
    int64_t     begin[64], end[64];
    int         hits[96];
} ranges;

static void record_range(void *closure, int64_t begin, int64_t end)
{
    ranges *r = closure;
    int k = atomic_fetch_add(&r->n, 1);
    if (k < 64) {
        r->begin[k] = begin;
        r->end[k] = end;
    }
    for (int64_t i = begin; i < end; i++) r->hits[i]++; /* disjoint ranges: no race */
}

/* With a band that divides among the threads, every range the pool hands out is one thread's
 * rows of one band (rows [band*w/T, band*(w+1)/T)), whoever runs it; a band that does not divide
 * (7 rows on 2 threads) or gives a thread fewer than 4 rows is declined: the loop is cut in plain
 * chunks, across bands. */
static void the_pool_should_share_bands_out_by_rows(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        ranges r = {0};
        at_llvm_parallel_for(pool2, record_range, &r, 96, 8); /* 12 bands of 8 rows */
        for (int i = 0; i < 96; i++) assert_int_equal(r.hits[i], 1);
        assert_int_equal(atomic_load(&r.n), 24); /* one call per thread per band */
        for (int k = 0; k < 24; k++) {
            int64_t row = r.begin[k] % 8;
            assert_true(row == 0 || row == 4);
            assert_int_equal(r.end[k] - r.begin[k], 4);
        }

        static const int64_t declined[2] = {7, 6}; /* 7 rows on 2 threads; 6: 3 rows each */
        for (int d = 0; d < 2; d++) {
            ranges odd = {0};
            int64_t n = declined[d] * 12;
            at_llvm_parallel_for(pool2, record_range, &odd, n, declined[d]);
            for (int64_t i = 0; i < n; i++) assert_int_equal(odd.hits[i], 1);
            bool across = false;
            for (int k = 0; k < atomic_load(&odd.n) && k < 64; k++) across |= odd.begin[k] / declined[d] != (odd.end[k] - 1) / declined[d];
            assert_true(across);
        }
    }
    ranges one = {0};
    at_llvm_parallel_for(NULL, record_range, &one, 96, 8); /* no pool: one call */
    assert_int_equal(atomic_load(&one.n), 1);
    assert_true(one.begin[0] == 0 && one.end[0] == 96);
}

/* Workers spin for a while after a loop, then sleep: loops back to back meet spinning workers,
 * loops after a pause (longer than the spin) must wake sleeping ones, and neither may lose a
 * loop or run a chunk twice -- also with more threads than the loop has chunks. */
static void the_pool_should_wake_spinning_and_sleeping_workers(void **state)
{
    (void)state;
    at_llvm_pool *four;
    assert_ok(at_llvm_pool_new(4, &four));
    at_llvm_pool *const pools[2] = {pool2, four};
    static const int64_t ns[] = {2, 3, 100};
    for (size_t pi = 0; pi < 2; pi++) {
        for (int loop = 0; loop < 600; loop++) {
            int64_t n = ns[loop % 3];
            if (loop % 50 == 49) nanosleep(&(struct timespec){0, 2000000L}, NULL); /* past the spin: asleep */
            counter c = {{0}};
            at_llvm_parallel_for(pools[pi], count_range, &c, n, 0);
            for (int64_t i = 0; i < 100; i++) assert_int_equal(c.hits[i], i < n ? 1 : 0);
        }
    }
    at_llvm_pool_free(four);
}

/* A worker stalled inside its first call (as if preempted) until 7 of the 8 iterations have run:
 * the caller must take the rest of the worker's share, and the worker's call may hold one
 * iteration only. With one fixed chunk per thread the worker's call would hold 4 and wait for
 * iterations only it can run, and the loop would never end (the child's alarm). */
typedef struct stalled {
    pthread_t        caller;
    _Atomic int      ran;         /* iterations finished */
    _Atomic int      worker_runs; /* pieces a worker ran */
    int              hits[16];
} stalled;

static void stall_first_worker_piece(void *closure, int64_t begin, int64_t end)
{
    stalled *s = closure;
    if (!pthread_equal(pthread_self(), s->caller) && atomic_fetch_add(&s->worker_runs, 1) == 0)
        while (atomic_load(&s->ran) < 16 - (int)(end - begin)) nanosleep(&(struct timespec){0, 100000L}, NULL); /* all but its own */
    for (int64_t i = begin; i < end; i++) s->hits[i]++;
    atomic_fetch_add(&s->ran, (int)(end - begin));
}

static void a_stalled_worker_should_not_hold_up_the_loop(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        at_llvm_pool *p;
        if (at_llvm_pool_new(2, &p) != AT_OK) _exit(2);
        int bad = 0;
        for (int rep = 0; rep < 40 && !bad; rep++) {
            stalled s = {.caller = pthread_self()};
            at_llvm_parallel_for(p, stall_first_worker_piece, &s, 16, rep % 2 ? 8 : 0); /* plain, then 2 bands of 8 rows */
            for (int i = 0; i < 16; i++) bad += s.hits[i] != 1;
        }
        at_llvm_pool_free(p);
        _exit(bad ? 1 : 0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status)); /* not killed by the alarm: the loop ended */
    assert_int_equal(WEXITSTATUS(status), 0);
}

#ifndef AT_LLVM_SWEEP
#define AT_LLVM_SWEEP 0
#endif

int main(void)
{
    const struct CMUnitTest unit_tests[] = {
        cmocka_unit_test(matmul_ir_should_match_the_golden_file),
        cmocka_unit_test(an_aarch64_object_should_be_an_arm64_elf_with_the_kernel),
        cmocka_unit_test(integer_semantics_should_follow_the_interpreter),
        cmocka_unit_test(float_semantics_and_intrinsics_should_follow_the_interpreter),
        cmocka_unit_test(parallel_loops_and_bindings_should_match_the_interpreter),
        cmocka_unit_test(a_fused_parallel_loop_should_pass_its_rows_as_the_band),
        cmocka_unit_test(a_timed_run_should_leave_out_preparing_and_finishing_kernels),
        cmocka_unit_test(unsupported_constructs_should_say_what),
        cmocka_unit_test(allocation_failures_should_come_back_as_enomem),
        cmocka_unit_test(two_threads_should_compile_and_run_at_once),
        cmocka_unit_test(the_pool_should_run_every_iteration_once),
        cmocka_unit_test(the_pool_should_share_bands_out_by_rows),
        cmocka_unit_test(the_pool_should_wake_spinning_and_sleeping_workers),
        cmocka_unit_test(a_stalled_worker_should_not_hold_up_the_loop),
    };
    /* test_llvm_sweep (e2e): the O3 compiles of dozens of programs take seconds */
    const struct CMUnitTest sweep_tests[] = {
        cmocka_unit_test(ocl_fixtures_should_match_the_interpreter),
        cmocka_unit_test(barrier_free_templates_should_match_the_interpreter),
    };
    if (getenv("AT_TEST_FILTER")) cmocka_set_test_filter(getenv("AT_TEST_FILTER"));
    if (AT_LLVM_SWEEP) return cmocka_run_group_tests_name("llvm_sweep", sweep_tests, setup, teardown);
    return cmocka_run_group_tests_name("llvm", unit_tests, setup, teardown);
}
