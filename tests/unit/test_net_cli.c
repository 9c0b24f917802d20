/* `autotvm tasks` (cli/cmd_tasks.c, linked in directly): the table and JSON lines for resnet-18
 * and mobilenet, option handling and usage errors. */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/alloc.h"

static char *out_text;

/* Runs at_cmd_tasks(argv) with stdout and stderr captured into out_text. */
static int run(const char *const *args, size_t n)
{
    return at_test_run_captured(at_cmd_tasks, "net_cli", args, n, &out_text);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void tasks_resnet18_should_print_the_16_rows(void **state)
{
    (void)state;
    const char *a[] = {"tasks", "resnet-18", "--target", "mali"};
    assert_int_equal(run(a, 4), 0);
    assert_int_equal(count_lines(out_text), 3 + 16);
    assert_non_null(strstr(out_text, "Extract tasks...\nresnet-18: 16 tasks on opencl -device=mali (ops conv2d), input [1, 3, 224, 224]\n"));
    assert_non_null(strstr(out_text, "   1  conv2d_nchw_spatial_pack.mali  [1, 3, 224, 224]  [64, 3, 7, 7]     [2, 2]   "
                                     "[3, 3, 3, 3]  237138804  9072000\n"));
    assert_non_null(strstr(out_text, "  16  conv2d_nchw_winograd.mali      [1, 512, 7, 7]    [512, 512, 3, 3]  [1, 1]   "
                                     "[1, 1, 1, 1]  231211008    38400\n"));
}

static void tasks_json_should_carry_args_flop_and_space(void **state)
{
    (void)state;
    const char *a[] = {"tasks", "mobilenet", "--ops", "conv2d,dense", "--json"};
    assert_int_equal(run(a, 5), 0);
    assert_int_equal(count_lines(out_text), 20);
    assert_non_null(strstr(out_text,
                           "{\"index\": 2, \"template\": \"depthwise_conv2d_nchw.mali\", \"args\": [[\"TENSOR\", [1, 32, 112, 112], "
                           "\"float32\"], [\"TENSOR\", [32, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"], "
                           "\"flop\": 10136448, \"space\": 850500}\n"));
    assert_non_null(strstr(out_text, "{\"index\": 20, \"template\": \"dense.mali\", \"args\": [[\"TENSOR\", [1, 1024], "
                                     "\"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], null, \"float32\"], \"flop\": "
                                     "2048000, \"space\": 700}\n"));
}

static void tasks_options_should_reach_the_network(void **state)
{
    (void)state;
    const char *a[] = {"tasks", "resnet-18", "--batch", "2", "--image-shape", "3,112,112", "--num-classes", "10", "--ops", "dense"};
    assert_int_equal(run(a, 10), 0);
    assert_non_null(strstr(out_text, "resnet-18: 1 tasks on opencl -device=mali (ops dense), input [2, 3, 112, 112]\n"));
    assert_non_null(strstr(out_text, "   1  dense.mali  [2, 512]  [10, 512]  -        -        20480    189\n"));
}

static void tasks_usage_errors_should_exit_2(void **state)
{
    (void)state;
    const char *none[] = {"tasks"};
    assert_int_equal(run(none, 1), 2);
    const char *unknown[] = {"tasks", "alexnet"};
    assert_int_equal(run(unknown, 2), 2);
    assert_non_null(strstr(out_text, "unknown network 'alexnet'"));
    const char *ops[] = {"tasks", "resnet-18", "--ops", "pool"};
    assert_int_equal(run(ops, 4), 2);
    const char *target[] = {"tasks", "resnet-18", "--target", "hybrid"};
    assert_int_equal(run(target, 4), 2);
    assert_non_null(strstr(out_text, "no network strategy"));
    const char *shape[] = {"tasks", "resnet-18", "--image-shape", "3,224"};
    assert_int_equal(run(shape, 4), 2);
    const char *help[] = {"tasks", "--help"};
    assert_int_equal(run(help, 2), 0);
    assert_non_null(strstr(out_text, "usage: autotvm tasks NETWORK"));
    /* a network the input cannot pass is a failure, not a usage error */
    const char *small[] = {"tasks", "vgg-16", "--image-shape", "3,16,16"};
    assert_int_equal(run(small, 4), 1);
    assert_non_null(strstr(out_text, "autotvm: error: "));
}

static int teardown(void **state)
{
    (void)state;
    at_free(out_text);
    out_text = NULL;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tasks_resnet18_should_print_the_16_rows),
        cmocka_unit_test(tasks_json_should_carry_args_flop_and_space),
        cmocka_unit_test(tasks_options_should_reach_the_network),
        cmocka_unit_test(tasks_usage_errors_should_exit_2),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
