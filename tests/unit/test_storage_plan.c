/* networks/storage_plan.c: buffers share a slot only when their lives do not meet, a freed slot
 * goes to the next buffer that starts (the most recently freed first), and a slot grows to its
 * largest buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "networks/internal.h"
#include "tests/support/test_support.h"

/* No step sees two buffers of one slot. */
static void assert_disjoint(const at_net_live *v, size_t n, const size_t *slot)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (slot[i] == slot[j]) assert_true(v[i].last < v[j].first || v[j].last < v[i].first);
}

static void a_chain_should_ping_pong_between_two_slots(void **state)
{
    (void)state;
    /* x -> a -> b -> c -> d, each read by the next step only */
    const at_net_live v[4] = {{100, 0, 1}, {200, 1, 2}, {100, 2, 3}, {50, 3, 4}};
    size_t slot[4], *bytes, ns;
    assert_ok(at_net_plan_storage(v, 4, slot, &bytes, &ns));
    assert_int_equal(ns, 2);
    assert_int_equal(slot[0], 0);
    assert_int_equal(slot[1], 1);
    assert_int_equal(slot[2], 0);
    assert_int_equal(slot[3], 1);
    assert_int_equal(bytes[0], 100);
    assert_int_equal(bytes[1], 200);
    assert_disjoint(v, 4, slot);
    at_free(bytes);
}

static void the_most_recently_freed_slot_should_go_first(void **state)
{
    (void)state;
    /* a residual block: s is read at step 3, a at step 1; c starts at 4 when both are free */
    const at_net_live v[4] = {{64, 0, 3}, {64, 0, 1}, {64, 2, 3}, {64, 4, 5}};
    size_t slot[4], *bytes, ns;
    assert_ok(at_net_plan_storage(v, 4, slot, &bytes, &ns));
    assert_disjoint(v, 4, slot);
    assert_int_equal(ns, 2);
    assert_int_equal(slot[2], slot[1]); /* b takes a's slot, free since step 1 */
    /* at step 4 both slots are free; s's and b's was freed at step 3 and both sizes fit: the
     * later one wins, which here is either (both ended at 3), so c takes a slot of size 64 */
    assert_true(bytes[slot[3]] == 64);
    at_free(bytes);

    const at_net_live w[3] = {{64, 0, 1}, {64, 0, 2}, {32, 3, 4}};
    assert_ok(at_net_plan_storage(w, 3, slot, &bytes, &ns));
    assert_int_equal(ns, 2);
    assert_int_equal(slot[2], slot[1]); /* freed at step 2, not step 1 */
    at_free(bytes);
}

static void a_larger_buffer_should_grow_a_free_slot_instead_of_adding_one(void **state)
{
    (void)state;
    const at_net_live v[3] = {{10, 0, 0}, {30, 0, 1}, {100, 2, 3}};
    size_t slot[3], *bytes, ns;
    assert_ok(at_net_plan_storage(v, 3, slot, &bytes, &ns));
    assert_int_equal(ns, 2);
    assert_int_equal(slot[2], slot[1]); /* the larger of the free slots grows */
    assert_int_equal(bytes[slot[2]], 100);
    assert_int_equal(bytes[slot[0]], 10);
    at_free(bytes);
}

static void buffers_alive_at_one_step_should_never_share(void **state)
{
    (void)state;
    at_net_live v[40];
    for (size_t i = 0; i < 40; i++) /* lives of 1 to 7 steps, starting anywhere, given out of order */
        v[i] = (at_net_live){.bytes = 8 * (1 + i % 5), .first = (i * 37) % 50, .last = (i * 37) % 50 + i % 7};
    size_t slot[40], *bytes, ns;
    assert_ok(at_net_plan_storage(v, 40, slot, &bytes, &ns));
    assert_disjoint(v, 40, slot);
    for (size_t i = 0; i < 40; i++) {
        assert_true(slot[i] < ns);
        assert_true(bytes[slot[i]] >= v[i].bytes);
    }
    assert_true(ns < 40);
    at_free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_chain_should_ping_pong_between_two_slots),
        cmocka_unit_test(the_most_recently_freed_slot_should_go_first),
        cmocka_unit_test(a_larger_buffer_should_grow_a_free_slot_instead_of_adding_one),
        cmocka_unit_test(buffers_alive_at_one_step_should_never_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
