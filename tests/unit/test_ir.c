/* ir/: types, the builder (folding, sticky out-of-memory), the printer (golden text), every
 * verifier rule, launch geometry, and the interpreter's semantics (integer wrap and truncation,
 * lazy select, intrinsics, fp16, vectors, work-groups in lock step across barriers, temps). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/strbuf.h"
#include "ir/ir.h"
#include "tests/support/test_support.h"

typedef struct fixture {
    at_arena    *arena;
    at_ir_sched *s;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_ok(at_arena_new(0, &f->arena));
    f->s = at_ir_sched_begin(f->arena, "t");
    assert_non_null(f->s);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    at_arena_free(f->arena);
    free(f);
    return 0;
}

static const at_ir_program *finish(at_ir_sched *s)
{
    const at_ir_program *p = NULL;
    assert_ok(at_ir_sched_finish(s, &p));
    return p;
}

/* ---- types and builder ---------------------------------------------------------------------- */

static void types_should_print_and_parse_as_tvm_names(void **state)
{
    (void)state;
    char b[16];
    assert_string_equal(at_ir_type_str(AT_IR_F32, b), "float32");
    assert_string_equal(at_ir_type_str(at_ir_type_with_lanes(AT_IR_F32, 4), b), "float32x4");
    assert_string_equal(at_ir_type_str(AT_IR_BOOL, b), "bool");
    assert_string_equal(at_ir_type_str(AT_IR_U8, b), "uint8");
    const char *names[] = {"float32", "int8", "uint32", "float16x8", "bool", "int64"};
    for (size_t i = 0; i < 6; i++) {
        at_ir_type t;
        assert_ok(at_ir_type_parse(names[i], &t));
        assert_string_equal(at_ir_type_str(t, b), names[i]);
    }
    at_ir_type t;
    assert_int_equal(at_ir_type_parse("float31", &t), AT_EPARSE);
    assert_int_equal(at_ir_type_parse("float32x17", &t), AT_EPARSE);
    assert_int_equal(at_ir_type_parse("int32x", &t), AT_EPARSE);
    assert_int_equal(at_ir_type_bytes(AT_IR_F16), 2);
    assert_true(at_ir_for_kind_is_binding(AT_IR_THREAD_Z));
    assert_false(at_ir_for_kind_is_binding(AT_IR_VTHREAD));
    assert_string_equal(at_ir_for_kind_str(AT_IR_BLOCK_Y), "blockIdx.y");
}

static void builder_should_fold_integer_constants_and_identities(void **state)
{
    fixture *f = *state;
    at_ir_sched *s = f->s;
    const at_ir_var *x = at_ir_var_new(s, "x", AT_IR_I32);
    const at_ir_expr *c = at_ir_add(s, at_ir_i32(s, 2), at_ir_mul(s, at_ir_i32(s, 3), at_ir_i32(s, 4)));
    assert_int_equal(c->kind, AT_IR_INT_IMM);
    assert_int_equal(c->u.int_val, 14);
    const at_ir_expr *v = at_ir_v(s, x);
    assert_ptr_equal(at_ir_mul(s, v, at_ir_i32(s, 1)), v);
    assert_ptr_equal(at_ir_add(s, at_ir_i32(s, 0), v), v);
    assert_int_equal(at_ir_mul(s, v, at_ir_i32(s, 0))->kind, AT_IR_INT_IMM);
    /* int8 arithmetic wraps like the device's */
    const at_ir_expr *w = at_ir_add(s, at_ir_int(s, AT_IR_I8, 100), at_ir_int(s, AT_IR_I8, 100));
    assert_int_equal(w->u.int_val, -56);
    /* comparisons give bool with the operands' lanes; casts to the same type vanish */
    assert_true(at_ir_type_eq(at_ir_bin(s, AT_IR_LT, v, v)->type, AT_IR_BOOL));
    assert_ptr_equal(at_ir_cast(s, AT_IR_I32, v), v);
    /* fuse: ((a * 4) + b) * 8 + c */
    const at_ir_var *vs[3] = {at_ir_var_new(s, "a", AT_IR_I32), at_ir_var_new(s, "b", AT_IR_I32), x};
    int64_t ext[3] = {2, 4, 8};
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_ir_print_expr(at_ir_fuse(s, vs, ext, 3), &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "((((a * 4) + b) * 8) + x)");
    at_strbuf_fini(&sb);
    assert_ok(at_ir_sched_status(s));
}

/* A program touching every builder function; returns its status. */
static at_status build_everything(at_arena *arena, const at_ir_program **out)
{
    at_ir_sched *s = at_ir_sched_begin(arena, "everything");
    if (!s) return AT_ENOMEM;
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 64, AT_IR_INPUT);
    const at_ir_buffer *out_b = at_ir_param(s, "out", AT_IR_F32, 64, AT_IR_OUTPUT);
    const at_ir_buffer *tmp = at_ir_temp(s, "tmp", AT_IR_F32, 64);
    const at_ir_buffer *sh = at_ir_alloc(s, "sh", AT_IR_F32, 16, AT_IR_LOCAL);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, 4, AT_IR_PRIVATE);
    const at_ir_var *bx = at_ir_var_new(s, "bx", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_var *v = at_ir_var_new(s, "v", AT_IR_I32), *u = at_ir_var_new(s, "u", AT_IR_I32);
    const at_ir_var *t = at_ir_var_new(s, "t", AT_IR_F32);
    const at_ir_expr *i = at_ir_add(s, at_ir_mul(s, at_ir_v(s, bx), at_ir_i32(s, 16)), at_ir_v(s, tx));
    const at_ir_expr *args2[2] = {at_ir_load(s, in, i, 1), at_ir_f32(s, 2.0)};
    const at_ir_stmt *k0[4] = {
        at_ir_store(s, sh, at_ir_v(s, tx), at_ir_call(s, "fmax", AT_IR_F32, args2, 2)),
        at_ir_barrier(s, AT_IR_LOCAL),
        at_ir_for(s, v, 4, AT_IR_VECTORIZED,
                  at_ir_store(s, acc, at_ir_v(s, v), at_ir_load(s, sh, at_ir_add(s, at_ir_v(s, v), at_ir_i32(s, 12)), 1))),
        at_ir_let(s, t, at_ir_lane(s, at_ir_load(s, acc, at_ir_i32(s, 0), 4), 3),
                  at_ir_if(s, at_ir_bin(s, AT_IR_LT, at_ir_v(s, tx), at_ir_i32(s, 8)),
                           at_ir_store(s, tmp, i, at_ir_select(s, at_ir_bin(s, AT_IR_GT, at_ir_v(s, t), at_ir_f32(s, 0.5)),
                                                               at_ir_v(s, t), at_ir_un(s, AT_IR_NEG, at_ir_v(s, t)))),
                           at_ir_store(s, tmp, i, at_ir_cast(s, AT_IR_F32, at_ir_v(s, tx))))),
    };
    at_ir_add_kernel(s, "k0", at_ir_for(s, bx, 4, AT_IR_BLOCK_X, at_ir_for(s, tx, 16, AT_IR_THREAD_X, at_ir_seq(s, k0, 4))));
    const at_ir_var *bx1 = at_ir_var_new(s, "bx", AT_IR_I32), *u2 = at_ir_var_new(s, "u", AT_IR_I32);
    const at_ir_expr *j = at_ir_add(s, at_ir_mul(s, at_ir_v(s, bx1), at_ir_i32(s, 4)), at_ir_v(s, u));
    const at_ir_expr *lanes[4];
    for (int l = 0; l < 4; l++) lanes[l] = at_ir_f32(s, l * 0.25);
    const at_ir_stmt *k1 = at_ir_for_flags(
        s, u, 4, AT_IR_UNROLLED, AT_IR_LOOP_PRAGMA_UNROLL,
        at_ir_for(s, u2, 2, AT_IR_VTHREAD,
                  at_ir_store(s, out_b, j, at_ir_add(s, at_ir_load(s, tmp, j, 1), at_ir_lane(s, at_ir_vector(s, lanes, 4), 2)))));
    at_ir_add_kernel(s, "k1", at_ir_for(s, bx1, 16, AT_IR_BLOCK_X, k1));
    (void)at_ir_broadcast(s, at_ir_f32(s, 1), 4);
    return at_ir_sched_finish(s, out);
}

static void builder_should_report_every_allocation_failure_and_leak_nothing(void **state)
{
    (void)state;
    long base = at_alloc_live();
    int n_fail = 0;
    for (long k = 0;; k++) {
        at_arena *a = NULL;
        at_alloc_fail_after(k);
        at_status st = at_arena_new(256, &a);
        const at_ir_program *p = NULL;
        if (st == AT_OK) st = build_everything(a, &p);
        at_alloc_fail_after(-1);
        at_arena_free(a);
        assert_int_equal(at_alloc_live(), base);
        if (st == AT_OK) {
            assert_non_null(p);
            break;
        }
        assert_int_equal(st, AT_ENOMEM);
        n_fail++;
        assert_true(k < 10000);
    }
    assert_true(n_fail > 5); /* the small arena blocks make the builder allocate many times */
}

static void printer_should_match_the_golden_text(void **state)
{
    fixture *f = *state;
    const at_ir_program *p;
    assert_ok(build_everything(f->arena, &p));
    assert_ok(at_ir_verify(p));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_ir_print(p, &sb);
    assert_ok(at_strbuf_status(&sb));
    /* two variables named bx and two named u: printed apart */
    assert_non_null(strstr(at_strbuf_cstr(&sb), "bx#"));
    at_test_check_golden("ir/features.ir", at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
    assert_int_equal(p->n_bufs, 3);
    assert_int_equal(at_ir_program_n_params(p), 2);
    assert_int_equal(at_ir_kernel_local_bytes(p, 0), 64);
    assert_int_equal(at_ir_kernel_local_bytes(p, 1), 0);
}

static void launch_should_follow_the_bindings(void **state)
{
    fixture *f = *state;
    const at_ir_program *p;
    assert_ok(build_everything(f->arena, &p));
    at_ir_launch l;
    at_ir_kernel_launch(p, 0, &l);
    assert_int_equal(l.work_dim, 1);
    assert_int_equal(l.groups[0], 4);
    assert_int_equal(l.local[0], 16);
    assert_int_equal(l.local[1], 1);
    at_ir_kernel_launch(p, 1, &l);
    assert_int_equal(l.groups[0], 16);
    assert_int_equal(l.local[0], 1);

    at_ir_sched *s = f->s;
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_F32, 1, AT_IR_OUTPUT);
    const at_ir_var *z = at_ir_var_new(s, "z", AT_IR_I32), *y = at_ir_var_new(s, "y", AT_IR_I32);
    at_ir_add_kernel(s, "k", at_ir_for(s, z, 3, AT_IR_BLOCK_Z, at_ir_for(s, y, 5, AT_IR_THREAD_Y,
                                                                          at_ir_store(s, o, at_ir_i32(s, 0), at_ir_f32(s, 1)))));
    p = finish(s);
    at_ir_kernel_launch(p, 0, &l);
    assert_int_equal(l.work_dim, 3);
    assert_int_equal(l.groups[2], 3);
    assert_int_equal(l.local[1], 5);
    assert_int_equal(l.groups[0], 1);
}

/* ---- verifier ------------------------------------------------------------------------------- */

/* Verifies a one-kernel program and expects AT_EINVAL with `needle` in the detail (or AT_OK). */
static void expect_verify(at_ir_sched *s, const at_ir_stmt *body, const char *needle)
{
    at_ir_add_kernel(s, "kern", body);
    const at_ir_program *p = finish(s);
    at_status st = at_ir_verify(p);
    if (!needle) {
        assert_ok(st);
        return;
    }
    assert_int_equal(st, AT_EINVAL);
    if (!strstr(at_last_error(), needle)) {
        print_error("expected '%s' in '%s'\n", needle, at_last_error());
        fail();
    }
    assert_non_null(strstr(at_last_error(), "kernel kern"));
}

typedef struct vfix {
    at_ir_sched        *s;
    const at_ir_buffer *buf;
    const at_ir_var    *i, *j;
    const at_ir_stmt   *st; /* buf[i] = 1 */
} vfix;

static vfix vsetup(void **state)
{
    fixture *f = *state;
    vfix v = {.s = f->s};
    v.buf = at_ir_param(v.s, "buf", AT_IR_F32, 16, AT_IR_OUTPUT);
    v.i = at_ir_var_new(v.s, "i", AT_IR_I32);
    v.j = at_ir_var_new(v.s, "j", AT_IR_I32);
    v.st = at_ir_store(v.s, v.buf, at_ir_v(v.s, v.i), at_ir_f32(v.s, 1));
    return v;
}

static void verify_should_reject_a_loop_of_extent_zero(void **state)
{
    vfix v = vsetup(state);
    expect_verify(v.s, at_ir_for(v.s, v.i, 0, AT_IR_SERIAL, v.st), "has extent 0");
}

static void verify_should_reject_one_tag_bound_with_two_extents(void **state)
{
    vfix v = vsetup(state);
    const at_ir_stmt *a = at_ir_for(v.s, v.i, 8, AT_IR_THREAD_X, v.st);
    const at_ir_stmt *b = at_ir_for(v.s, v.i, 4, AT_IR_THREAD_X, v.st);
    expect_verify(v.s, at_ir_seq2(v.s, a, b), "threadIdx.x bound with extents 8 and 4");
}

static void verify_should_accept_one_tag_bound_twice_with_one_extent(void **state)
{
    vfix v = vsetup(state);
    const at_ir_stmt *a = at_ir_for(v.s, v.i, 8, AT_IR_THREAD_X, v.st);
    const at_ir_stmt *b = at_ir_for(v.s, v.i, 8, AT_IR_THREAD_X, v.st);
    expect_verify(v.s, at_ir_seq2(v.s, a, at_ir_seq2(v.s, at_ir_barrier(v.s, AT_IR_LOCAL), b)), NULL);
}

static void verify_should_reject_a_binding_nested_in_its_own_tag(void **state)
{
    vfix v = vsetup(state);
    expect_verify(v.s, at_ir_for(v.s, v.j, 2, AT_IR_BLOCK_X, at_ir_for(v.s, v.i, 2, AT_IR_BLOCK_X, v.st)),
                  "blockIdx.x bound inside another blockIdx.x binding");
}

static void verify_should_reject_a_block_binding_inside_a_thread_binding(void **state)
{
    vfix v = vsetup(state);
    expect_verify(v.s, at_ir_for(v.s, v.j, 2, AT_IR_THREAD_X, at_ir_for(v.s, v.i, 2, AT_IR_BLOCK_Y, v.st)),
                  "blockIdx.y bound inside a threadIdx binding");
}

static void verify_should_reject_a_loop_inside_a_vectorized_loop(void **state)
{
    vfix v = vsetup(state);
    expect_verify(v.s, at_ir_for(v.s, v.j, 4, AT_IR_VECTORIZED, at_ir_for(v.s, v.i, 4, AT_IR_VECTORIZED, v.st)),
                  "inside a vectorized loop");
}

static void verify_should_reject_a_vectorized_loop_of_17_lanes(void **state)
{
    vfix v = vsetup(state);
    const at_ir_buffer *big = at_ir_param(v.s, "big", AT_IR_F32, 64, AT_IR_OUTPUT);
    expect_verify(v.s, at_ir_for(v.s, v.i, 17, AT_IR_VECTORIZED, at_ir_store(v.s, big, at_ir_v(v.s, v.i), at_ir_f32(v.s, 0))),
                  "vectorized loop i has extent 17");
}

static void verify_should_reject_a_barrier_inside_a_vectorized_loop(void **state)
{
    vfix v = vsetup(state);
    expect_verify(v.s, at_ir_for(v.s, v.i, 4, AT_IR_VECTORIZED, at_ir_seq2(v.s, v.st, at_ir_barrier(v.s, AT_IR_LOCAL))),
                  "barrier inside a vectorized loop");
}

static void verify_should_reject_a_static_out_of_bounds_store(void **state)
{
    vfix v = vsetup(state);
    expect_verify(v.s, at_ir_for(v.s, v.i, 17, AT_IR_SERIAL, v.st), "store to buf[i] reaches 0..16, outside 0..15");
}

/* a prefetch is a hint, but its address is checked as a load's: LLVM's GEP must stay in bounds */
static void verify_should_check_a_prefetch_as_a_load(void **state)
{
    vfix v = vsetup(state);
    const at_ir_stmt *pf = at_ir_prefetch(v.s, v.buf, at_ir_add(v.s, at_ir_v(v.s, v.i), at_ir_i32(v.s, 8)));
    expect_verify(v.s, at_ir_for(v.s, v.i, 9, AT_IR_SERIAL, at_ir_seq2(v.s, pf, v.st)),
                  "prefetch of buf[(i + 8)] reaches 8..16, outside 0..15");
}

static void a_prefetch_should_print_and_leave_every_value_alone(void **state)
{
    vfix v = vsetup(state);
    const at_ir_stmt *pf = at_ir_prefetch(v.s, v.buf, at_ir_sub(v.s, at_ir_i32(v.s, 15), at_ir_v(v.s, v.i)));
    at_ir_add_kernel(v.s, "kern", at_ir_for(v.s, v.i, 16, AT_IR_SERIAL, at_ir_seq2(v.s, pf, v.st)));
    const at_ir_program *p = finish(v.s);
    assert_ok(at_ir_verify(p));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_ir_print(p, &sb);
    assert_non_null(strstr(at_strbuf_cstr(&sb), "  for i in 0..16 serial\n    prefetch buf[(15 - i)]\n    buf[i] = 1.0f\n"));
    at_strbuf_fini(&sb);
    float out[16] = {0};
    void *bufs[1] = {out};
    assert_ok(at_ir_interp(p, bufs));
    for (int k = 0; k < 16; k++) assert_true(out[k] == 1.0f);
}

static void verify_should_reject_a_vector_load_past_the_end(void **state)
{
    vfix v = vsetup(state);
    const at_ir_buffer *o = at_ir_param(v.s, "o", AT_IR_F32, 16, AT_IR_OUTPUT);
    const at_ir_expr *ld = at_ir_load(v.s, v.buf, at_ir_mul(v.s, at_ir_v(v.s, v.i), at_ir_i32(v.s, 4)), 4);
    expect_verify(v.s, at_ir_for(v.s, v.i, 4, AT_IR_SERIAL, at_ir_store(v.s, o, at_ir_v(v.s, v.i), at_ir_lane(v.s, ld, 0))), NULL);
    fixture *f = *state;
    at_ir_sched *s2 = at_ir_sched_begin(f->arena, "t2");
    const at_ir_buffer *b2 = at_ir_param(s2, "b2", AT_IR_F32, 16, AT_IR_OUTPUT);
    const at_ir_var *i2 = at_ir_var_new(s2, "i", AT_IR_I32);
    const at_ir_expr *ld2 = at_ir_load(s2, b2, at_ir_add(s2, at_ir_mul(s2, at_ir_v(s2, i2), at_ir_i32(s2, 4)), at_ir_i32(s2, 1)), 4);
    expect_verify(s2, at_ir_for(s2, i2, 4, AT_IR_SERIAL, at_ir_store(s2, b2, at_ir_i32(s2, 0), at_ir_lane(s2, ld2, 1))),
                  "load from b2[((i * 4) + 1)] reaches 1..16");
}

static void verify_should_check_indices_through_lets_min_and_mod(void **state)
{
    vfix v = vsetup(state);
    const at_ir_var *k = at_ir_var_new(v.s, "k", AT_IR_I32);
    /* k = min(i * 3, 15) stays inside; (j % 20) does not */
    const at_ir_stmt *ok = at_ir_let(v.s, k, at_ir_min(v.s, at_ir_mul(v.s, at_ir_v(v.s, v.i), at_ir_i32(v.s, 3)), at_ir_i32(v.s, 15)),
                                     at_ir_store(v.s, v.buf, at_ir_v(v.s, k), at_ir_f32(v.s, 0)));
    const at_ir_stmt *bad = at_ir_store(v.s, v.buf, at_ir_mod(v.s, at_ir_v(v.s, v.j), at_ir_i32(v.s, 20)), at_ir_f32(v.s, 0));
    expect_verify(v.s, at_ir_for(v.s, v.i, 100, AT_IR_SERIAL, at_ir_for(v.s, v.j, 100, AT_IR_SERIAL, at_ir_seq2(v.s, ok, bad))),
                  "reaches 0..19");
}

static void verify_should_leave_guarded_and_data_dependent_accesses_to_run_time(void **state)
{
    vfix v = vsetup(state);
    const at_ir_expr *i = at_ir_v(v.s, v.i);
    const at_ir_stmt *guarded = at_ir_if(v.s, at_ir_bin(v.s, AT_IR_LT, i, at_ir_i32(v.s, 16)), v.st, NULL);
    const at_ir_expr *sel = at_ir_select(v.s, at_ir_bin(v.s, AT_IR_LT, i, at_ir_i32(v.s, 16)), at_ir_load(v.s, v.buf, i, 1), at_ir_f32(v.s, 0));
    const at_ir_expr *data_idx = at_ir_cast(v.s, AT_IR_I32, at_ir_load(v.s, v.buf, at_ir_i32(v.s, 0), 1));
    const at_ir_stmt *items[3] = {guarded, at_ir_store(v.s, v.buf, at_ir_i32(v.s, 1), sel),
                                  at_ir_store(v.s, v.buf, data_idx, at_ir_f32(v.s, 2))};
    expect_verify(v.s, at_ir_for(v.s, v.i, 32, AT_IR_SERIAL, at_ir_seq(v.s, items, 3)), NULL);
}

static void verify_should_reject_a_variable_used_outside_its_scope(void **state)
{
    vfix v = vsetup(state);
    expect_verify(v.s, at_ir_seq2(v.s, at_ir_for(v.s, v.i, 4, AT_IR_SERIAL, v.st), v.st), "variable i used outside its scope");
}

static void verify_should_reject_a_variable_bound_again_inside_its_scope(void **state)
{
    vfix v = vsetup(state);
    expect_verify(v.s, at_ir_for(v.s, v.i, 4, AT_IR_SERIAL, at_ir_for(v.s, v.i, 4, AT_IR_SERIAL, v.st)),
                  "variable i bound again inside its own scope");
}

static void verify_should_reject_another_kernels_local_buffer(void **state)
{
    vfix v = vsetup(state);
    const at_ir_buffer *loc = at_ir_alloc(v.s, "loc", AT_IR_F32, 4, AT_IR_PRIVATE);
    at_ir_add_kernel(v.s, "first", at_ir_store(v.s, loc, at_ir_i32(v.s, 0), at_ir_f32(v.s, 0)));
    expect_verify(v.s, at_ir_store(v.s, v.buf, at_ir_i32(v.s, 0), at_ir_load(v.s, loc, at_ir_i32(v.s, 0), 1)),
                  "buffer loc is not a program buffer nor one of this kernel's allocations");
}

static void verify_should_reject_an_extent_beyond_the_loop_variable_type(void **state)
{
    fixture *f = *state;
    at_ir_sched *s = f->s;
    const at_ir_buffer *b = at_ir_param(s, "b", AT_IR_F32, 1, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I8);
    expect_verify(s, at_ir_for(s, i, 300, AT_IR_SERIAL, at_ir_store(s, b, at_ir_i32(s, 0), at_ir_f32(s, 0))),
                  "extent 300 of loop i overflows its type");
}

static void finish_should_reject_a_program_without_kernels(void **state)
{
    fixture *f = *state;
    static const at_ir_program dummy;
    const at_ir_program *p = &dummy;
    assert_int_equal(at_ir_sched_finish(f->s, &p), AT_EINVAL);
    assert_null(p);
}

/* ---- interpreter ---------------------------------------------------------------------------- */

static void interp_should_use_c_integer_semantics(void **state)
{
    fixture *f = *state;
    at_ir_sched *s = f->s;
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_I32, 12, AT_IR_OUTPUT);
    const at_ir_expr *m7 = at_ir_i32(s, -7), *two = at_ir_i32(s, 2);
    const at_ir_var *x = at_ir_var_new(s, "x", AT_IR_I32); /* keep operands out of the folder */
    const at_ir_expr *vx = at_ir_add(s, at_ir_v(s, x), m7);   /* -7 at x = 0 */
    const at_ir_expr *u = at_ir_cast(s, AT_IR_U32, vx);       /* 4294967289 */
    const at_ir_expr *vals[12] = {
        at_ir_div(s, vx, two),                                            /* -3 */
        at_ir_mod(s, vx, two),                                            /* -1 */
        at_ir_cast(s, AT_IR_I32, at_ir_cast(s, AT_IR_I8, at_ir_add(s, at_ir_v(s, x), at_ir_i32(s, 200)))), /* -56 */
        at_ir_cast(s, AT_IR_I32, at_ir_bin(s, AT_IR_SHR, u, at_ir_cast(s, AT_IR_U32, at_ir_add(s, at_ir_v(s, x), at_ir_i32(s, 28))))), /* 15 */
        at_ir_bin(s, AT_IR_SHR, vx, at_ir_add(s, at_ir_v(s, x), at_ir_i32(s, 1))), /* -4 (arithmetic) */
        at_ir_bin(s, AT_IR_SHL, at_ir_add(s, at_ir_v(s, x), at_ir_i32(s, 1)), at_ir_add(s, at_ir_v(s, x), at_ir_i32(s, 33))), /* 2: count mod 32 */
        at_ir_cast(s, AT_IR_I32, at_ir_min(s, u, at_ir_cast(s, AT_IR_U32, at_ir_add(s, at_ir_v(s, x), two)))), /* 2: unsigned compare */
        at_ir_cast(s, AT_IR_I32, at_ir_f32(s, -2.75)),                    /* -2: truncation */
        at_ir_select(s, at_ir_bin(s, AT_IR_LT, vx, at_ir_v(s, x)), at_ir_i32(s, 10), at_ir_i32(s, 20)), /* 10 */
        at_ir_un(s, AT_IR_BIT_NOT, vx),                                   /* 6 */
        at_ir_cast(s, AT_IR_I32, at_ir_cast(s, AT_IR_BOOL, vx)),         /* 1 */
        at_ir_max(s, vx, at_ir_un(s, AT_IR_NEG, vx)),                    /* 7 */
    };
    const at_ir_stmt *st[12];
    for (int i = 0; i < 12; i++) st[i] = at_ir_store(s, o, at_ir_i32(s, i), vals[i]);
    at_ir_add_kernel(s, "k", at_ir_for(s, x, 1, AT_IR_SERIAL, at_ir_seq(s, st, 12)));
    const at_ir_program *p = finish(s);
    assert_ok(at_ir_verify(p));
    int32_t out[12];
    void *bufs[1] = {out};
    assert_ok(at_ir_interp(p, bufs));
    const int32_t want[12] = {-3, -1, -56, 15, -4, 2, 2, -2, 10, 6, 1, 7};
    for (int i = 0; i < 12; i++) {
        if (out[i] != want[i]) {
            print_error("value %d: got %d want %d\n", i, out[i], want[i]);
            fail();
        }
    }
}

static void interp_should_evaluate_floats_intrinsics_vectors_and_half(void **state)
{
    fixture *f = *state;
    at_ir_sched *s = f->s;
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 8, AT_IR_INPUT);
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_F32, 16, AT_IR_OUTPUT);
    const at_ir_buffer *h = at_ir_param(s, "h", AT_IR_F16, 2, AT_IR_OUTPUT);
    const at_ir_expr *a3[3] = {at_ir_f32(s, 2), at_ir_f32(s, 3), at_ir_f32(s, 4)};
    const at_ir_expr *a1[1] = {at_ir_f32(s, 0)};
    const at_ir_expr *v4 = at_ir_load(s, in, at_ir_i32(s, 4), 4);
    const at_ir_expr *sum = at_ir_add(s, v4, at_ir_broadcast(s, at_ir_f32(s, 10), 4));
    const at_ir_stmt *st[6] = {
        at_ir_store(s, o, at_ir_i32(s, 0), at_ir_call(s, "fma", AT_IR_F32, a3, 3)),    /* 10 */
        at_ir_store(s, o, at_ir_i32(s, 1), at_ir_call(s, "exp", AT_IR_F32, a1, 1)),    /* 1 */
        at_ir_store(s, o, at_ir_i32(s, 2), at_ir_div(s, at_ir_f32(s, 1), at_ir_f32(s, 3))),
        at_ir_store(s, o, at_ir_i32(s, 4), sum),                                        /* 4 lanes */
        at_ir_store(s, o, at_ir_i32(s, 8), at_ir_lane(s, sum, 2)),                      /* in[6] + 10 */
        at_ir_store(s, h, at_ir_i32(s, 0), at_ir_cast(s, AT_IR_F16, at_ir_load(s, in, at_ir_i32(s, 0), 1))),
    };
    at_ir_add_kernel(s, "k", at_ir_seq(s, st, 6));
    const at_ir_program *p = finish(s);
    assert_ok(at_ir_verify(p));
    float vin[8] = {0.1f, 1, 2, 3, 4, 5, 6, 7}, vo[16] = {0};
    uint16_t vh[2] = {0};
    void *bufs[3] = {vin, vo, vh};
    assert_ok(at_ir_interp(p, bufs));
    assert_true(vo[0] == 10.0f && vo[1] == 1.0f);
    assert_true(vo[2] == 1.0f / 3.0f); /* rounded to float, as the device */
    for (int l = 0; l < 4; l++) assert_true(vo[4 + l] == vin[4 + l] + 10);
    assert_true(vo[8] == 16.0f);
    assert_int_equal(vh[0], 0x2e66); /* 0.1 in fp16, round to nearest even */
}

static void interp_should_evaluate_only_the_chosen_select_arm(void **state)
{
    fixture *f = *state;
    at_ir_sched *s = f->s;
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 4, AT_IR_INPUT);
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_F32, 8, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32);
    const at_ir_expr *vi = at_ir_v(s, i);
    /* padding: in[i - 2] where 2 <= i < 6, else 0 */
    const at_ir_expr *inside = at_ir_bin(s, AT_IR_AND, at_ir_bin(s, AT_IR_GE, vi, at_ir_i32(s, 2)), at_ir_bin(s, AT_IR_LT, vi, at_ir_i32(s, 6)));
    const at_ir_expr *val = at_ir_select(s, inside, at_ir_load(s, in, at_ir_sub(s, vi, at_ir_i32(s, 2)), 1), at_ir_f32(s, 0));
    at_ir_add_kernel(s, "pad", at_ir_for(s, i, 8, AT_IR_SERIAL, at_ir_store(s, o, vi, val)));
    const at_ir_program *p = finish(s);
    assert_ok(at_ir_verify(p));
    float vin[4] = {1, 2, 3, 4}, vo[8];
    void *bufs[2] = {vin, vo};
    assert_ok(at_ir_interp(p, bufs));
    const float want[8] = {0, 0, 1, 2, 3, 4, 0, 0};
    for (int k = 0; k < 8; k++) assert_true(vo[k] == want[k]);
}

static void interp_should_run_work_groups_in_lock_step_across_barriers(void **state)
{
    fixture *f = *state;
    at_ir_sched *s = f->s;
    /* out[g*8 + t] = in[g*8 + 7 - t] through local memory; the private sum persists across the
     * barrier and adds the item's own element once more */
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 16, AT_IR_INPUT);
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_F32, 16, AT_IR_OUTPUT);
    const at_ir_buffer *sh = at_ir_alloc(s, "sh", AT_IR_F32, 8, AT_IR_LOCAL);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, 1, AT_IR_PRIVATE);
    const at_ir_var *g = at_ir_var_new(s, "g", AT_IR_I32), *t = at_ir_var_new(s, "t", AT_IR_I32);
    const at_ir_expr *gi = at_ir_add(s, at_ir_mul(s, at_ir_v(s, g), at_ir_i32(s, 8)), at_ir_v(s, t));
    const at_ir_expr *zero = at_ir_i32(s, 0);
    const at_ir_stmt *st[4] = {
        at_ir_store(s, sh, at_ir_v(s, t), at_ir_load(s, in, gi, 1)),
        at_ir_store(s, acc, zero, at_ir_load(s, in, gi, 1)),
        at_ir_barrier(s, AT_IR_LOCAL),
        at_ir_store(s, o, gi, at_ir_add(s, at_ir_load(s, sh, at_ir_sub(s, at_ir_i32(s, 7), at_ir_v(s, t)), 1), at_ir_load(s, acc, zero, 1))),
    };
    at_ir_add_kernel(s, "rev", at_ir_for(s, g, 2, AT_IR_BLOCK_X, at_ir_for(s, t, 8, AT_IR_THREAD_X, at_ir_seq(s, st, 4))));
    const at_ir_program *p = finish(s);
    assert_ok(at_ir_verify(p));
    float vin[16], vo[16];
    for (int i = 0; i < 16; i++) vin[i] = (float)(i * i);
    void *bufs[2] = {vin, vo};
    assert_ok(at_ir_interp(p, bufs));
    for (int gg = 0; gg < 2; gg++)
        for (int tt = 0; tt < 8; tt++) assert_true(vo[gg * 8 + tt] == vin[gg * 8 + 7 - tt] + vin[gg * 8 + tt]);
}

static void interp_should_report_a_divergent_barrier(void **state)
{
    fixture *f = *state;
    at_ir_sched *s = f->s;
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_F32, 8, AT_IR_OUTPUT);
    const at_ir_var *t = at_ir_var_new(s, "t", AT_IR_I32);
    const at_ir_stmt *body = at_ir_seq2(s, at_ir_if(s, at_ir_bin(s, AT_IR_LT, at_ir_v(s, t), at_ir_i32(s, 4)), at_ir_barrier(s, AT_IR_LOCAL), NULL),
                                        at_ir_store(s, o, at_ir_v(s, t), at_ir_f32(s, 1)));
    at_ir_add_kernel(s, "div", at_ir_for(s, t, 8, AT_IR_THREAD_X, body));
    const at_ir_program *p = finish(s);
    assert_ok(at_ir_verify(p));
    float vo[8];
    void *bufs[1] = {vo};
    assert_int_equal(at_ir_interp(p, bufs), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "divergent barrier: 4 work-items"));
}

static void interp_should_report_out_of_bounds_and_bad_intrinsics(void **state)
{
    fixture *f = *state;
    at_ir_sched *s = f->s;
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_I32, 2, AT_IR_INPUT);
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_I32, 2, AT_IR_OUTPUT);
    /* o[in[0]] = 1 with in[0] = 5: unknown statically, caught at run time */
    at_ir_add_kernel(s, "oob", at_ir_store(s, o, at_ir_load(s, in, at_ir_i32(s, 0), 1), at_ir_i32(s, 1)));
    const at_ir_program *p = finish(s);
    assert_ok(at_ir_verify(p));
    int32_t vin[2] = {5, 0}, vo[2];
    void *bufs[2] = {vin, vo};
    assert_int_equal(at_ir_interp(p, bufs), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "store to o[5] out of bounds 0..1"));

    at_ir_sched *s2 = at_ir_sched_begin(f->arena, "t2");
    const at_ir_buffer *o2 = at_ir_param(s2, "o", AT_IR_F32, 1, AT_IR_OUTPUT);
    const at_ir_expr *args[1] = {at_ir_f32(s2, 1)};
    at_ir_add_kernel(s2, "k", at_ir_store(s2, o2, at_ir_i32(s2, 0), at_ir_call(s2, "no_such_fn", AT_IR_F32, args, 1)));
    p = finish(s2);
    float f1;
    void *b2[1] = {&f1};
    assert_int_equal(at_ir_interp(p, b2), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "unknown intrinsic no_such_fn/1"));

    at_ir_sched *s3 = at_ir_sched_begin(f->arena, "t3");
    const at_ir_buffer *i3 = at_ir_param(s3, "in", AT_IR_I32, 1, AT_IR_INPUT);
    const at_ir_buffer *o3 = at_ir_param(s3, "o", AT_IR_I32, 1, AT_IR_OUTPUT);
    at_ir_add_kernel(s3, "k", at_ir_store(s3, o3, at_ir_i32(s3, 0), at_ir_div(s3, at_ir_i32(s3, 1), at_ir_load(s3, i3, at_ir_i32(s3, 0), 1))));
    p = finish(s3);
    int32_t z = 0, r;
    void *b3[2] = {&z, &r};
    assert_int_equal(at_ir_interp(p, b3), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "division by zero"));
}

static void interp_should_pass_temporaries_between_kernels_and_run_vectorized_loops(void **state)
{
    fixture *f = *state;
    const at_ir_program *p;
    assert_ok(build_everything(f->arena, &p));
    float vin[64], vo[64];
    for (int i = 0; i < 64; i++) vin[i] = (float)i * 0.125f;
    void *bufs[2] = {vin, vo};
    assert_ok(at_ir_interp(p, bufs));
    /* kernel 0: sh[tx] = max(in[i], 2); acc[0..3] = sh[12..15]; t = acc[3] = max(in[16b+15], 2);
     * tmp[i] = tx < 8 ? (t > .5 ? t : -t) : tx. kernel 1: out[j] = tmp[j] + 0.5 */
    for (int b = 0; b < 4; b++) {
        float t = fmaxf(vin[b * 16 + 15], 2.0f);
        for (int tx = 0; tx < 16; tx++) {
            float tmp = tx < 8 ? t : (float)tx;
            assert_true(vo[b * 16 + tx] == tmp + 0.5f);
        }
    }
}

/* ---- output epilogue ------------------------------------------------------------------------ */

static void epi_params(at_ir_sched *s, void *ctx)
{
    const at_ir_buffer **bias = ctx;
    *bias = at_ir_param(s, "bias", AT_IR_F32, 4, AT_IR_INPUT);
}

static const at_ir_expr *epi_apply(at_ir_sched *s, void *ctx, const at_ir_expr *index, const at_ir_expr *v)
{
    const at_ir_buffer **bias = ctx;
    return at_ir_add(s, v, at_ir_load(s, *bias, index, v->type.lanes));
}

static void an_epilogue_should_follow_the_output_and_rewrite_its_stores_only(void **state)
{
    fixture *f = *state;
    const at_ir_buffer *bias = NULL;
    const at_ir_epilogue epi = {.params = epi_params, .apply = epi_apply, .ctx = &bias};
    at_ir_sched_set_epilogue(f->s, &epi);
    const at_ir_buffer *x = at_ir_param(f->s, "x", AT_IR_F32, 4, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(f->s, "y", AT_IR_F32, 4, AT_IR_OUTPUT);
    const at_ir_buffer *t = at_ir_temp(f->s, "t", AT_IR_F32, 4);
    const at_ir_var *i = at_ir_var_new(f->s, "i", AT_IR_I32);
    const at_ir_expr *iv = at_ir_v(f->s, i);
    const at_ir_stmt *body = at_ir_seq2(f->s, at_ir_store(f->s, t, iv, at_ir_load(f->s, x, iv, 1)),
                                        at_ir_store(f->s, y, iv, at_ir_load(f->s, t, iv, 1)));
    at_ir_add_kernel(f->s, "k", at_ir_for(f->s, i, 4, AT_IR_THREAD_X, body));
    const at_ir_program *p = finish(f->s);
    /* signature x, y, bias; then the temporary */
    assert_int_equal(at_ir_program_n_params(p), 3);
    assert_ptr_equal(p->bufs[2], bias);
    assert_ptr_equal(p->bufs[3], t);
    float xs[4] = {1, 2, 3, 4}, ys[4] = {0}, bs[4] = {10, 20, 30, 40};
    void *bufs[3] = {xs, ys, bs};
    assert_ok(at_ir_interp(p, bufs));
    for (int k = 0; k < 4; k++) assert_true(ys[k] == xs[k] + bs[k]); /* y only; t untouched by the epilogue */
}

static void a_program_reading_its_output_should_refuse_an_epilogue(void **state)
{
    fixture *f = *state;
    const at_ir_buffer *bias = NULL;
    const at_ir_epilogue epi = {.params = epi_params, .apply = epi_apply, .ctx = &bias};
    at_ir_sched_set_epilogue(f->s, &epi);
    const at_ir_buffer *y = at_ir_param(f->s, "y", AT_IR_F32, 4, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(f->s, "i", AT_IR_I32);
    const at_ir_expr *iv = at_ir_v(f->s, i);
    /* y[i] += 1 accumulates in the output: adding the bias at every store would be wrong */
    const at_ir_stmt *st = at_ir_store(f->s, y, iv, at_ir_add(f->s, at_ir_load(f->s, y, iv, 1), at_ir_f32(f->s, 1)));
    at_ir_add_kernel(f->s, "k", at_ir_for(f->s, i, 4, AT_IR_THREAD_X, st));
    const at_ir_program *p;
    assert_int_equal(at_ir_sched_finish(f->s, &p), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "reads its output y"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(types_should_print_and_parse_as_tvm_names),
        cmocka_unit_test_setup_teardown(builder_should_fold_integer_constants_and_identities, setup, teardown),
        cmocka_unit_test(builder_should_report_every_allocation_failure_and_leak_nothing),
        cmocka_unit_test_setup_teardown(printer_should_match_the_golden_text, setup, teardown),
        cmocka_unit_test_setup_teardown(launch_should_follow_the_bindings, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_loop_of_extent_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_check_a_prefetch_as_a_load, setup, teardown),
        cmocka_unit_test_setup_teardown(a_prefetch_should_print_and_leave_every_value_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_one_tag_bound_with_two_extents, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_accept_one_tag_bound_twice_with_one_extent, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_binding_nested_in_its_own_tag, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_block_binding_inside_a_thread_binding, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_loop_inside_a_vectorized_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_vectorized_loop_of_17_lanes, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_barrier_inside_a_vectorized_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_static_out_of_bounds_store, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_vector_load_past_the_end, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_check_indices_through_lets_min_and_mod, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_leave_guarded_and_data_dependent_accesses_to_run_time, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_variable_used_outside_its_scope, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_a_variable_bound_again_inside_its_scope, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_another_kernels_local_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_should_reject_an_extent_beyond_the_loop_variable_type, setup, teardown),
        cmocka_unit_test_setup_teardown(finish_should_reject_a_program_without_kernels, setup, teardown),
        cmocka_unit_test_setup_teardown(interp_should_use_c_integer_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(interp_should_evaluate_floats_intrinsics_vectors_and_half, setup, teardown),
        cmocka_unit_test_setup_teardown(interp_should_evaluate_only_the_chosen_select_arm, setup, teardown),
        cmocka_unit_test_setup_teardown(interp_should_run_work_groups_in_lock_step_across_barriers, setup, teardown),
        cmocka_unit_test_setup_teardown(interp_should_report_a_divergent_barrier, setup, teardown),
        cmocka_unit_test_setup_teardown(interp_should_report_out_of_bounds_and_bad_intrinsics, setup, teardown),
        cmocka_unit_test_setup_teardown(interp_should_pass_temporaries_between_kernels_and_run_vectorized_loops, setup, teardown),
        cmocka_unit_test_setup_teardown(an_epilogue_should_follow_the_output_and_rewrite_its_stores_only, setup, teardown),
        cmocka_unit_test_setup_teardown(a_program_reading_its_output_should_refuse_an_epilogue, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
