/* networks/kernels.c's pooling program: where every window lies inside the input (no padding, no
 * ceil_mode window past the edge, as squeezenet's 3x3 stride-2 max poolings) the taps are read
 * without a bounds test each; padded windows and ceil_mode's partial ones keep the test.
 * The values of both forms are checked against the reference executor in test_net_exec and by
 * the ONNX node tests (maxpool_2d_pads, _ceil, averagepool_2d_ceil, ...). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/arena.h"
#include "core/strbuf.h"
#include "networks/internal.h"
#include "networks/net.h"
#include "tests/support/test_support.h"

/* How many `if` statements the pooling program of a 1x16xHxH input has (block 16). */
static size_t tests_in_pool(at_net_op op, int64_t h, const at_net_attrs *a)
{
    const int64_t shape[4] = {1, 16, h, h};
    at_net *net;
    assert_ok(at_net_new("pool", shape, false, 0, &net));
    size_t in = 0, id;
    assert_ok(at_net_append(net, op, "p", &in, 1, a, &id));
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_net_prog_pool(ar, at_net_node_at(net, id), at_net_node_at(net, 0), 16, &p));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_ir_print(p, &sb);
    size_t n = 0;
    for (const char *t = at_strbuf_cstr(&sb); (t = strstr(t, "if ")); t += 3) n++;
    at_strbuf_fini(&sb);
    at_arena_free(ar);
    at_net_free(net);
    return n;
}

static void windows_inside_the_input_should_need_no_bounds_test(void **state)
{
    (void)state;
    /* 9 x 9, 3 x 3 stride 2: windows start at 0, 2, 4, 6 and end at 9 */
    const at_net_attrs inside = {.kernel = {3, 3}, .stride = {2, 2}};
    assert_int_equal(tests_in_pool(AT_NET_MAX_POOL2D, 9, &inside), 0);
    assert_int_equal(tests_in_pool(AT_NET_AVG_POOL2D, 9, &inside), 0);
    const at_net_attrs ceil_inside = {.kernel = {3, 3}, .stride = {2, 2}, .ceil_mode = true};
    assert_int_equal(tests_in_pool(AT_NET_MAX_POOL2D, 9, &ceil_inside), 0);
}

static void padded_or_partial_windows_should_keep_the_test(void **state)
{
    (void)state;
    const at_net_attrs padded = {.kernel = {3, 3}, .stride = {2, 2}, .pad = {1, 1, 1, 1}};
    assert_int_equal(tests_in_pool(AT_NET_MAX_POOL2D, 9, &padded), 1);
    /* the divisor counts taps inside, a test of its own */
    assert_int_equal(tests_in_pool(AT_NET_AVG_POOL2D, 9, &padded), 2);
    /* 8 x 8 with ceil_mode: a fourth window starts at 6 and ends past the input at 9 */
    const at_net_attrs ceil_past = {.kernel = {3, 3}, .stride = {2, 2}, .ceil_mode = true};
    assert_int_equal(tests_in_pool(AT_NET_MAX_POOL2D, 8, &ceil_past), 1);
    /* only the bottom and right padded: the last windows reach into it */
    const at_net_attrs pad_end = {.kernel = {2, 2}, .stride = {2, 2}, .pad = {0, 0, 1, 1}};
    assert_int_equal(tests_in_pool(AT_NET_MAX_POOL2D, 9, &pad_end), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(windows_inside_the_input_should_need_no_bounds_test),
        cmocka_unit_test(padded_or_partial_windows_should_keep_the_test),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
