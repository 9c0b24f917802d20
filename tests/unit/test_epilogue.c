/* networks/epilogue.c: the channel of a fused bias in a packed NCHW[block]c store comes from the
 * index's own lane term, so a loop vectorized over the block reads the biases side by side. A
 * block longer than the vector (32, 64) splits its lane into vo * 16 + vi: the same must hold,
 * or the backend computes every lane's channel and gathers (resnet-18's stem, oc_bn 32: 1.38 ->
 * 1.07 ms in the network). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/arena.h"
#include "core/strbuf.h"
#include "networks/internal.h"
#include "tests/support/test_support.h"

/* The channel expression at_net_affine_channel gives for index x * 32 + lane. */
static void channel_text(const at_ir_expr *(*lane)(at_ir_sched *, const at_ir_var *, const at_ir_var *), at_strbuf *sb)
{
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    at_ir_sched *s = at_ir_sched_begin(ar, "t");
    assert_non_null(s);
    const at_ir_var *x = at_ir_var_new(s, "x", AT_IR_I32), *vo = at_ir_var_new(s, "vo", AT_IR_I32),
                    *vi = at_ir_var_new(s, "vi", AT_IR_I32);
    const at_net_affine a = {.total = 64 * 49, .channels = 64, .inner = 49, .block = 32, .shift = true};
    const at_ir_expr *i = at_ir_add(s, at_ir_mul(s, at_ir_v(s, x), at_ir_i32(s, 32)), lane(s, vo, vi));
    at_ir_print_expr(at_net_affine_channel(s, &a, i), sb);
    at_arena_free(ar);
}

static const at_ir_expr *one_var(at_ir_sched *s, const at_ir_var *vo, const at_ir_var *vi)
{
    (void)vo;
    return at_ir_v(s, vi);
}

static const at_ir_expr *split(at_ir_sched *s, const at_ir_var *vo, const at_ir_var *vi)
{
    return at_ir_add(s, at_ir_mul(s, at_ir_v(s, vo), at_ir_i32(s, 16)), at_ir_v(s, vi));
}

static const at_ir_expr *scaled(at_ir_sched *s, const at_ir_var *vo, const at_ir_var *vi)
{
    /* not a lane split: vo * 3 + vi may leave the block */
    return at_ir_add(s, at_ir_mul(s, at_ir_v(s, vo), at_ir_i32(s, 3)), at_ir_v(s, vi));
}

static void the_lane_term_should_give_the_channel_within_the_block(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    channel_text(one_var, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "((((x / 49) % 2) * 32) + vi)");
    at_strbuf_clear(&sb);
    channel_text(split, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "((((x / 49) % 2) * 32) + ((vo * 16) + vi))");
    at_strbuf_clear(&sb);
    channel_text(scaled, &sb); /* the general form: every lane's channel from the whole index */
    assert_non_null(strstr(at_strbuf_cstr(&sb), "% 32)"));
    at_strbuf_fini(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_lane_term_should_give_the_channel_within_the_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
