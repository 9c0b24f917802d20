/* backends/opencl codegen: golden OpenCL C for testing/matmul and for the fixture programs (every
 * backend path), launch sizes and argument lists, identifier hygiene, unsupported constructs,
 * determinism and allocation failures. No device needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/opencl/opencl.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/strbuf.h"
#include "templates/template.h"
#include "tests/support/test_support.h"
#include "tests/unit/test_ocl_programs.h"

/* Builds fixture f into a new arena. */
static const at_ir_program *build(const ocl_fixture *f, at_arena **arena)
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

static void describe(const at_ir_program *p, const at_ocl_code *code, at_strbuf *sb)
{
    for (size_t k = 0; k < code->n_kernels; k++) {
        const at_ocl_kernel_info *ki = &code->kernels[k];
        at_strbuf_printf(sb, "// kernel %s: work_dim %u, gws %zu x %zu x %zu, lws %zu x %zu x %zu, local %zu bytes, args", ki->name,
                         ki->work_dim, ki->gws[0], ki->gws[1], ki->gws[2], ki->lws[0], ki->lws[1], ki->lws[2], ki->local_bytes);
        for (size_t a = 0; a < ki->n_args; a++) at_strbuf_printf(sb, " %s", p->bufs[ki->args[a]]->name);
        at_strbuf_putc(sb, '\n');
    }
}

static void matmul_should_match_the_golden_kernel(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "64,64,64", &t));
    at_config *c;
    assert_ok(at_task_config(t, 30, &c));
    at_arena *a;
    assert_ok(at_arena_new(0, &a));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, a, &p));
    at_ocl_code code;
    assert_ok(at_ocl_emit(p, &code));
    assert_int_equal(code.n_kernels, 1);
    const at_ocl_kernel_info *ki = &code.kernels[0];
    assert_string_equal(ki->name, "default_function_kernel");
    assert_int_equal(ki->work_dim, 2);
    assert_int_equal(ki->lws[0], 16); /* tile_x = [-1, 16] */
    assert_int_equal(ki->lws[1], 4);  /* tile_y = [-1, 4] */
    assert_int_equal(ki->gws[0], 64);
    assert_int_equal(ki->gws[1], 64);
    assert_int_equal(ki->gws[0] % ki->lws[0], 0);
    assert_int_equal(ki->n_args, 3);
    assert_non_null(strstr(code.source, "reqd_work_group_size(16, 4, 1)"));
    assert_non_null(strstr(code.source, "get_group_id(1)"));
    assert_non_null(strstr(code.source, "float C_local[1];"));
    at_test_check_golden("opencl/testing_matmul_64x64x64_c30.cl", code.source);
    at_ocl_code_fini(&code);
    at_arena_free(a);
    at_config_free(c);
    at_task_free(t);
}

static void fixtures_should_match_the_golden_kernels(void **state)
{
    (void)state;
    at_strbuf all;
    at_strbuf_init(&all);
    assert_int_equal(n_ocl_fixtures, 6);
    for (size_t i = 0; i < n_ocl_fixtures; i++) {
        at_arena *a;
        const at_ir_program *p = build(&ocl_fixtures[i], &a);
        at_ocl_code code, again;
        assert_ok(at_ocl_emit(p, &code));
        assert_ok(at_ocl_emit(p, &again));
        assert_string_equal(code.source, again.source); /* deterministic */
        at_strbuf_printf(&all, "// ==== %s\n", ocl_fixtures[i].name);
        describe(p, &code, &all);
        at_strbuf_puts(&all, code.source);
        at_strbuf_putc(&all, '\n');
        at_ocl_code_fini(&code);
        at_ocl_code_fini(&again);
        at_arena_free(a);
    }
    assert_ok(at_strbuf_status(&all));
    at_test_check_golden("opencl/fixtures.cl", at_strbuf_cstr(&all));
    at_strbuf_fini(&all);
}

/* Emits fixture `name` and returns its source (owned) and code. */
static at_ocl_code emit_fixture(const char *name, const at_ir_program **prog, at_arena **a)
{
    for (size_t i = 0; i < n_ocl_fixtures; i++) {
        if (strcmp(ocl_fixtures[i].name, name)) continue;
        *prog = build(&ocl_fixtures[i], a);
        at_ocl_code code;
        assert_ok(at_ocl_emit(*prog, &code));
        return code;
    }
    fail();
    return (at_ocl_code){0};
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static void vectorized_loops_should_use_vector_code_or_unroll(void **state)
{
    (void)state;
    const at_ir_program *p;
    at_arena *a;
    at_ocl_code c = emit_fixture("vector_axpy", &p, &a);
    assert_non_null(strstr(c.source, "vstore4(((((float4)(alpha[0])) * vload4(0, x + "));
    assert_null(strstr(c.source, "for ("));
    assert_int_equal(c.kernels[0].gws[0], 64);
    at_ocl_code_fini(&c);
    at_arena_free(a);

    c = emit_fixture("vector_mixed", &p, &a);
    assert_non_null(strstr(c.source, "float8 t = "));                 /* a vector let */
    assert_non_null(strstr(c.source, "float sc = "));                 /* an invariant let stays scalar */
    assert_non_null(strstr(c.source, "((int8)(0, 1, 2, 3, 4, 5, 6, 7))")); /* the loop variable as a vector */
    assert_non_null(strstr(c.source, "t.s7"));                        /* lane-by-lane select and scatter */
    assert_non_null(strstr(c.source, "convert_float8(vload8(0, k + ")); /* unit-stride int load, converted */
    assert_non_null(strstr(c.source, "fabs((t - ((float8)(sc))))"));  /* a vectorized call */
    assert_non_null(strstr(c.source, "vstore8("));                    /* iout: unit stride */
    assert_int_equal(count(c.source, "out["), 16);                    /* two stride-2 scatters of 8 */
    at_ocl_code_fini(&c);
    at_arena_free(a);

    c = emit_fixture("vector_fallback", &p, &a);
    assert_null(strstr(c.source, "vload"));
    assert_null(strstr(c.source, "vstore"));
    assert_int_equal(count(c.source, "if ("), 0);                     /* the branchy loop, unrolled: */
    assert_non_null(strstr(c.source, "out[((tx * 8) + 3)] = x[((tx * 8) + 3)];")); /* constant branches fold */
    assert_non_null(strstr(c.source, "out[((tx * 8) + 4)] = (-x[((tx * 8) + 4)]);"));
    assert_int_equal(count(c.source, "out5["), 5);
    assert_int_equal(count(c.source, "last["), 4);
    at_ocl_code_fini(&c);
    at_arena_free(a);
}

static void unroll_local_and_kernels_should_emit_their_constructs(void **state)
{
    (void)state;
    const at_ir_program *p;
    at_arena *a;
    at_ocl_code c = emit_fixture("unroll_local", &p, &a);
    assert_non_null(strstr(c.source, "__local float tile[64];"));
    assert_non_null(strstr(c.source, "float acc[4];"));
    assert_non_null(strstr(c.source, "barrier(CLK_LOCAL_MEM_FENCE);"));
    assert_non_null(strstr(c.source, "#pragma unroll\n"));
    assert_non_null(strstr(c.source, "acc[3] = tile[((tx * 8) + ((ty + 3) & 7))];")); /* r folded to 3 */
    assert_int_equal(count(c.source, "pair["), 2);                    /* vthread: two copies */
    assert_int_equal(c.kernels[0].local_bytes, 256);
    assert_int_equal(c.kernels[0].lws[1], 8);
    at_ocl_code_fini(&c);
    at_arena_free(a);

    c = emit_fixture("two_kernels", &p, &a);
    assert_int_equal(c.n_kernels, 2);
    assert_true(strncmp(c.source, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n", 45) == 0);
    /* kernel args are the buffers each kernel touches, in program order: in, out, dout, pad */
    assert_int_equal(c.kernels[0].n_args, 2);
    assert_int_equal(c.kernels[0].args[0], 0);
    assert_int_equal(c.kernels[0].args[1], 3);
    assert_int_equal(c.kernels[1].n_args, 3);
    assert_int_equal(c.kernels[1].args[0], 1);
    assert_int_equal(c.kernels[1].args[2], 3);
    assert_int_equal(c.kernels[0].gws[0], 34);
    assert_int_equal(c.kernels[0].lws[0], 17);
    assert_non_null(strstr(c.source, "long w = ((long)"));
    at_ocl_code_fini(&c);
    at_arena_free(a);

    c = emit_fixture("ir_vectors", &p, &a);
    assert_non_null(strstr(c.source, "float4 vv = vload4(0, x + 0);"));
    assert_non_null(strstr(c.source, "vstore4(select("));             /* same-width condition */
    assert_non_null(strstr(c.source, "convert_long4("));
    assert_non_null(strstr(c.source, ").s3 ? ("));                    /* other width: lane by lane */
    assert_non_null(strstr(c.source, "convert_int4("));
    assert_int_equal(c.kernels[0].work_dim, 1);
    assert_int_equal(c.kernels[0].gws[0], 1);
    at_ocl_code_fini(&c);
    at_arena_free(a);
}

static void identifiers_should_be_sanitized_and_unique(void **state)
{
    (void)state;
    at_arena *a;
    assert_ok(at_arena_new(0, &a));
    at_ir_sched *s = at_ir_sched_begin(a, "names");
    const at_ir_buffer *b1 = at_ir_param(s, "float4", AT_IR_F32, 8, AT_IR_OUTPUT);
    const at_ir_buffer *b2 = at_ir_param(s, "data.pad", AT_IR_F32, 8, AT_IR_INPUT);
    const at_ir_var *v1 = at_ir_var_new(s, "int", AT_IR_I32), *v2 = at_ir_var_new(s, "i.inner", AT_IR_I32),
                    *v3 = at_ir_var_new(s, "i.inner", AT_IR_I32);
    const at_ir_stmt *body = at_ir_for(s, v1, 2, AT_IR_SERIAL,
                                       at_ir_for(s, v2, 2, AT_IR_SERIAL,
                                                 at_ir_for(s, v3, 2, AT_IR_SERIAL,
                                                           at_ir_store(s, b1, at_ir_add(s, at_ir_add(s, at_ir_mul(s, at_ir_v(s, v1), at_ir_i32(s, 4)),
                                                                                                     at_ir_mul(s, at_ir_v(s, v2), at_ir_i32(s, 2))),
                                                                                        at_ir_v(s, v3)),
                                                                       at_ir_load(s, b2, at_ir_v(s, v3), 1)))));
    at_ir_add_kernel(s, "kernel", body);
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    at_ocl_code c;
    assert_ok(at_ocl_emit(p, &c));
    assert_non_null(strstr(c.source, "void kernel_(__global float* restrict float4_, __global float* restrict data_pad)"));
    assert_non_null(strstr(c.source, "for (int int_ = 0;"));
    assert_non_null(strstr(c.source, "for (int i_inner = 0;"));
    assert_non_null(strstr(c.source, "for (int i_inner_1 = 0;"));
    /* indices print in affine form, outer loops' terms first */
    assert_non_null(strstr(c.source, "float4_[((int_ * 4) + (i_inner * 2) + i_inner_1)]"));
    at_ocl_code_fini(&c);
    at_arena_free(a);
}

/* The conv accumulator's mixed-radix index ((((c * 7 + h) * 8 + vh) * 2 + vw) with vh, vw unrolled
 * and a one-group blockIdx.z: every unrolled access prints as one shared base plus a constant, the
 * extent-1 binding as 0 (no get_group_id), a div/mod stays an atom of the form, and a form with a
 * negative coefficient keeps the nested text. Loop ranges decide comparisons (a guard that always
 * holds disappears) and turn / % of a non-negative value by a power of two into >> and &. */
static void indices_should_print_as_affine_forms_with_unit_loops_as_zero(void **state)
{
    (void)state;
    at_arena *a;
    assert_ok(at_arena_new(0, &a));
    at_ir_sched *s = at_ir_sched_begin(a, "affine");
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 4096, AT_IR_OUTPUT);
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 4096, AT_IR_INPUT);
    const at_ir_var *bz = at_ir_var_new(s, "bz", AT_IR_I32), *c = at_ir_var_new(s, "c", AT_IR_I32),
                    *h = at_ir_var_new(s, "h", AT_IR_I32), *vh = at_ir_var_new(s, "vh", AT_IR_I32),
                    *vw = at_ir_var_new(s, "vw", AT_IR_I32);
    const at_ir_expr *cc = at_ir_add(s, at_ir_mul(s, at_ir_v(s, bz), at_ir_i32(s, 4)), at_ir_v(s, c));
    const at_ir_expr *idx = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_add(s,
                                      at_ir_mul(s, cc, at_ir_i32(s, 7)), at_ir_v(s, h)), at_ir_i32(s, 8)), at_ir_v(s, vh)),
                                      at_ir_i32(s, 2)), at_ir_v(s, vw)), at_ir_i32(s, 1)), at_ir_i32(s, 0));
    const at_ir_expr *src = at_ir_add(s, at_ir_mul(s, at_ir_div(s, at_ir_v(s, h), at_ir_i32(s, 2)), at_ir_i32(s, 3)),
                                      at_ir_sub(s, at_ir_add(s, at_ir_v(s, vw), at_ir_i32(s, 5)), at_ir_i32(s, 1)));
    const at_ir_expr *neg = at_ir_sub(s, at_ir_mul(s, at_ir_v(s, c), at_ir_i32(s, 8)), at_ir_v(s, h));
    const at_ir_stmt *st = at_ir_seq2(s, at_ir_store(s, out, idx, at_ir_load(s, in, src, 1)),
                                      at_ir_store(s, out, at_ir_add(s, neg, at_ir_i32(s, 100)), at_ir_f32(s, 0)));
    /* h * 8 + vh <= 6 * 8 + 1 < 56 always (the guard goes); h * 8 + vh >= 40 only sometimes (kept) */
    const at_ir_expr *row = at_ir_add(s, at_ir_mul(s, at_ir_v(s, h), at_ir_i32(s, 8)), at_ir_v(s, vh));
    st = at_ir_seq2(s, st, at_ir_if(s, at_ir_bin(s, AT_IR_LT, row, at_ir_i32(s, 56)),
                                    at_ir_store(s, out, at_ir_add(s, row, at_ir_i32(s, 2000)), at_ir_f32(s, 1)), NULL));
    st = at_ir_seq2(s, st, at_ir_if(s, at_ir_bin(s, AT_IR_GE, row, at_ir_i32(s, 40)),
                                    at_ir_store(s, out, at_ir_add(s, row, at_ir_i32(s, 3000)), at_ir_f32(s, 2)), NULL));
    st = at_ir_for(s, vw, 2, AT_IR_UNROLLED, st);
    st = at_ir_for(s, vh, 2, AT_IR_UNROLLED, st);
    st = at_ir_for(s, h, 7, AT_IR_SERIAL, st);
    st = at_ir_for(s, c, 4, AT_IR_THREAD_X, st);
    at_ir_add_kernel(s, "k", at_ir_for(s, bz, 1, AT_IR_BLOCK_Z, st));
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    at_ocl_code code;
    assert_ok(at_ocl_emit(p, &code));
    assert_null(strstr(code.source, "get_group_id"));
    /* ids through convert_int, as TVM prints them (NVIDIA's compiler: 40x on (int) casts) */
    assert_non_null(strstr(code.source, "int c = convert_int(get_local_id(0));"));
    assert_int_equal(code.kernels[0].lws[2], 1); /* the launch keeps the dimension */
    /* h is in [0, 7): h / 2 of a non-negative value prints as a shift */
    assert_non_null(strstr(code.source, "out[((c * 112) + (h * 16))] = in[(((h >> 1) * 3) + 4)];"));
    assert_non_null(strstr(code.source, "out[((c * 112) + (h * 16) + 1)] = in[(((h >> 1) * 3) + 5)];"));
    assert_non_null(strstr(code.source, "out[((c * 112) + (h * 16) + 3)] = in[(((h >> 1) * 3) + 5)];"));
    assert_non_null(strstr(code.source, "out[(((c * 8) - h) + 100)] = 0.0f;"));
    assert_null(strstr(code.source, "< 56"));
    assert_non_null(strstr(code.source, "out[((h * 8) + 2001)] = 1.0f;"));
    assert_non_null(strstr(code.source, "if (((h * 8) >= 40)) {"));
    assert_non_null(strstr(code.source, "if ((((h * 8) + 1) >= 40)) {"));
    at_ocl_code_fini(&code);
    at_arena_free(a);
}

static void unsupported_constructs_should_fail_with_a_reason(void **state)
{
    (void)state;
    at_arena *a;
    assert_ok(at_arena_new(0, &a));
    at_ir_sched *s = at_ir_sched_begin(a, "bad");
    const at_ir_buffer *b = at_ir_param(s, "b", AT_IR_F32, 8, AT_IR_OUTPUT);
    at_ir_add_kernel(s, "k", at_ir_store(s, b, at_ir_i32(s, 0), at_ir_load(s, b, at_ir_i32(s, 1), 5)));
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    at_ocl_code c = {.n_kernels = 99};
    assert_int_equal(at_ocl_emit(p, &c), AT_EUNSUPPORTED);
    assert_non_null(strstr(at_last_error(), "OpenCL C has no type for float32x5"));
    assert_null(c.source);
    assert_int_equal(c.n_kernels, 0);

    s = at_ir_sched_begin(a, "dup");
    b = at_ir_param(s, "b", AT_IR_F32, 8, AT_IR_OUTPUT);
    at_ir_add_kernel(s, "same", at_ir_store(s, b, at_ir_i32(s, 0), at_ir_f32(s, 1)));
    at_ir_add_kernel(s, "same", at_ir_store(s, b, at_ir_i32(s, 1), at_ir_f32(s, 1)));
    assert_ok(at_ir_sched_finish(s, &p));
    assert_int_equal(at_ocl_emit(p, &c), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "two kernels named same"));

    s = at_ir_sched_begin(a, "boolvec");
    b = at_ir_param(s, "b", AT_IR_F32, 8, AT_IR_OUTPUT);
    at_ir_type b4 = at_ir_type_with_lanes(AT_IR_BOOL, 4);
    const at_ir_var *m = at_ir_var_new(s, "m", b4);
    const at_ir_expr *v = at_ir_load(s, b, at_ir_i32(s, 0), 4);
    at_ir_add_kernel(s, "k", at_ir_let(s, m, at_ir_bin(s, AT_IR_LT, v, v), at_ir_store(s, b, at_ir_i32(s, 4), at_ir_select(s, at_ir_v(s, m), v, v))));
    assert_ok(at_ir_sched_finish(s, &p));
    assert_int_equal(at_ocl_emit(p, &c), AT_EUNSUPPORTED);
    assert_non_null(strstr(at_last_error(), "bool"));
    char tb[16];
    assert_ok(at_ocl_type_name(at_ir_type_with_lanes(AT_IR_U8, 16), tb));
    assert_string_equal(tb, "uchar16");
    assert_int_equal(at_ocl_type_name(at_ir_type_with_lanes(AT_IR_I32, 6), tb), AT_EUNSUPPORTED);
    at_arena_free(a);
}

static void emit_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    at_arena *a;
    const at_ir_program *p = build(&ocl_fixtures[3], &a); /* unroll_local: the most text */
    long base = at_alloc_live();
    int n_fail = 0;
    for (long k = 0;; k++) {
        at_ocl_code c;
        at_alloc_fail_after(k);
        at_status st = at_ocl_emit(p, &c);
        at_alloc_fail_after(-1);
        if (st == AT_OK) {
            at_ocl_code_fini(&c);
            assert_int_equal(at_alloc_live(), base);
            break;
        }
        assert_int_equal(st, AT_ENOMEM);
        assert_null(c.source);
        assert_int_equal(at_alloc_live(), base);
        n_fail++;
        assert_true(k < 100000);
    }
    assert_true(n_fail > 10);
    at_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matmul_should_match_the_golden_kernel),
        cmocka_unit_test(fixtures_should_match_the_golden_kernels),
        cmocka_unit_test(vectorized_loops_should_use_vector_code_or_unroll),
        cmocka_unit_test(unroll_local_and_kernels_should_emit_their_constructs),
        cmocka_unit_test(identifiers_should_be_sanitized_and_unique),
        cmocka_unit_test(indices_should_print_as_affine_forms_with_unit_loops_as_zero),
        cmocka_unit_test(unsupported_constructs_should_fail_with_a_reason),
        cmocka_unit_test(emit_should_survive_every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
