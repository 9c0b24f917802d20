/* ir/unroll.c: TVM's UnrollLoop decisions under the auto_unroll_max_step / unroll_explicit pragmas:
 * the step budget (extent x stores below), kept loops blocking outer unrolling, sequences summing
 * steps, virtual threads multiplying them, bindings and vector loops transparent, pragma vs
 * explicit, and a schedule's own unroll kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/arena.h"
#include "ir/ir.h"
#include "ir/unroll.h"
#include "tests/support/test_support.h"

typedef struct fixture {
    at_arena           *arena;
    at_ir_sched        *s;
    const at_ir_buffer *out;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_ok(at_arena_new(0, &f->arena));
    f->s = at_ir_sched_begin(f->arena, "t");
    assert_non_null(f->s);
    f->out = at_ir_param(f->s, "out", AT_IR_F32, 4096, AT_IR_OUTPUT);
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

static const at_ir_stmt *store(fixture *f)
{
    return at_ir_store(f->s, f->out, at_ir_i32(f->s, 0), at_ir_f32(f->s, 1));
}

static const at_ir_stmt *loop(fixture *f, const char *name, int64_t extent, at_ir_for_kind kind, const at_ir_stmt *body)
{
    return at_ir_for(f->s, at_ir_var_new(f->s, name, AT_IR_I32), extent, kind, body);
}

/* for i in 4 { for j in 3 { store } } */
static const at_ir_stmt *nest_4x3(fixture *f)
{
    return loop(f, "i", 4, AT_IR_SERIAL, loop(f, "j", 3, AT_IR_SERIAL, store(f)));
}

static void expect_loop(const at_ir_stmt *st, at_ir_for_kind kind, unsigned flags)
{
    assert_int_equal(st->kind, AT_IR_FOR);
    assert_int_equal(st->u.loop.kind, kind);
    assert_int_equal(st->u.loop.flags, flags);
}

static void loops_within_the_step_budget_should_unroll_from_the_inside_out(void **state)
{
    fixture *f = *state;
    const at_ir_stmt *r = at_ir_auto_unroll(f->s, nest_4x3(f), 12, true);
    expect_loop(r, AT_IR_UNROLLED, 0);
    expect_loop(r->u.loop.body, AT_IR_UNROLLED, 0);
    /* 4 x 3 steps exceed 11: only the inner loop unrolls */
    r = at_ir_auto_unroll(f->s, nest_4x3(f), 11, true);
    expect_loop(r, AT_IR_SERIAL, 0);
    expect_loop(r->u.loop.body, AT_IR_UNROLLED, 0);
    /* TVM's auto_unroll_max_step 0 unrolls nothing */
    r = at_ir_auto_unroll(f->s, nest_4x3(f), 0, true);
    expect_loop(r, AT_IR_SERIAL, 0);
    expect_loop(r->u.loop.body, AT_IR_SERIAL, 0);
    assert_ok(at_ir_sched_status(f->s));
}

static void unroll_explicit_0_should_leave_a_pragma_also_on_a_schedule_unroll(void **state)
{
    fixture *f = *state;
    const at_ir_stmt *r = at_ir_auto_unroll(f->s, nest_4x3(f), 512, false);
    expect_loop(r, AT_IR_UNROLLED, AT_IR_LOOP_PRAGMA_UNROLL);
    expect_loop(r->u.loop.body, AT_IR_UNROLLED, AT_IR_LOOP_PRAGMA_UNROLL);
    /* a loop the schedule unrolls unrolls whatever its size, and counts toward the budget */
    r = at_ir_auto_unroll(f->s, loop(f, "i", 2, AT_IR_SERIAL, loop(f, "j", 100, AT_IR_UNROLLED, store(f))), 150, false);
    expect_loop(r, AT_IR_SERIAL, 0);
    expect_loop(r->u.loop.body, AT_IR_UNROLLED, AT_IR_LOOP_PRAGMA_UNROLL);
}

static void a_kept_loop_inside_should_stop_outer_unrolling_but_not_its_siblings(void **state)
{
    fixture *f = *state;
    const at_ir_stmt *items[2] = {loop(f, "a", 2, AT_IR_SERIAL, store(f)), loop(f, "b", 100, AT_IR_SERIAL, store(f))};
    const at_ir_stmt *r = at_ir_auto_unroll(f->s, loop(f, "o", 2, AT_IR_SERIAL, at_ir_seq(f->s, items, 2)), 16, true);
    expect_loop(r, AT_IR_SERIAL, 0);
    assert_int_equal(r->u.loop.body->kind, AT_IR_SEQ);
    expect_loop(r->u.loop.body->u.seq.items[0], AT_IR_UNROLLED, 0);
    expect_loop(r->u.loop.body->u.seq.items[1], AT_IR_SERIAL, 0);
    /* a sequence's steps add up: 2 + 3 stores under an outer loop of 3 is 15 */
    const at_ir_stmt *two[2] = {loop(f, "c", 2, AT_IR_SERIAL, store(f)), loop(f, "d", 3, AT_IR_SERIAL, store(f))};
    r = at_ir_auto_unroll(f->s, loop(f, "p", 3, AT_IR_SERIAL, at_ir_seq(f->s, two, 2)), 15, true);
    expect_loop(r, AT_IR_UNROLLED, 0);
    r = at_ir_auto_unroll(f->s, loop(f, "q", 3, AT_IR_SERIAL, at_ir_seq(f->s, two, 2)), 14, true);
    expect_loop(r, AT_IR_SERIAL, 0);
}

static void virtual_threads_should_multiply_steps_and_bindings_be_transparent(void **state)
{
    fixture *f = *state;
    /* blockIdx { o 2 { vthread 4 { k 3 { store } } } }: k unrolls (3), the vthread copies make 12,
     * o would need 24 */
    const at_ir_stmt *in = loop(f, "bx", 8, AT_IR_BLOCK_X,
                                loop(f, "o", 2, AT_IR_SERIAL, loop(f, "vt", 4, AT_IR_VTHREAD, loop(f, "k", 3, AT_IR_SERIAL, store(f)))));
    const at_ir_stmt *r = at_ir_auto_unroll(f->s, in, 23, true);
    expect_loop(r, AT_IR_BLOCK_X, 0);
    expect_loop(r->u.loop.body, AT_IR_SERIAL, 0);
    expect_loop(r->u.loop.body->u.loop.body, AT_IR_VTHREAD, 0);
    expect_loop(r->u.loop.body->u.loop.body->u.loop.body, AT_IR_UNROLLED, 0);
    r = at_ir_auto_unroll(f->s, in, 24, true);
    expect_loop(r->u.loop.body, AT_IR_UNROLLED, 0);
    /* a vector loop is one store and no loop: the loop around it still unrolls */
    r = at_ir_auto_unroll(f->s, loop(f, "m", 4, AT_IR_SERIAL, loop(f, "v", 4, AT_IR_VECTORIZED, store(f))), 4, true);
    expect_loop(r, AT_IR_UNROLLED, 0);
    expect_loop(r->u.loop.body, AT_IR_VECTORIZED, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(loops_within_the_step_budget_should_unroll_from_the_inside_out, setup, teardown),
        cmocka_unit_test_setup_teardown(unroll_explicit_0_should_leave_a_pragma_also_on_a_schedule_unroll, setup, teardown),
        cmocka_unit_test_setup_teardown(a_kept_loop_inside_should_stop_outer_unrolling_but_not_its_siblings, setup, teardown),
        cmocka_unit_test_setup_teardown(virtual_threads_should_multiply_steps_and_bindings_be_transparent, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
