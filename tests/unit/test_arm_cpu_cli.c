/* `autotvm tasks NETWORK --target arm_cpu` (cli/cmd_tasks.c, linked in directly): the task table
 * of resnet-18 and the JSON lines of mobilenet on TVM's "llvm -device=arm_cpu". */
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
    return at_test_run_captured(at_cmd_tasks, "arm_cpu_cli", args, n, &out_text);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void tasks_resnet18_on_arm_cpu_should_print_its_rows(void **state)
{
    (void)state;
    const char *a[] = {"tasks", "resnet-18", "--target", "arm_cpu", "--ops", "all"};
    assert_int_equal(run(a, 6), 0);
    if (count_lines(out_text) != 3 + 18) fail_msg("%s", out_text);
    assert_non_null(strstr(out_text, "Extract tasks...\nresnet-18: 18 tasks on llvm -device=arm_cpu (ops all), input [1, 3, 224, 224]\n"));
    assert_non_null(strstr(out_text, "   1  conv2d_nchw_spatial_pack.arm_cpu  [1, 3, 224, 224]  [64, 3, 7, 7]     [2, 2]   "
                                     "[3, 3, 3, 3]  237138804  112000\n"));
    /* winograd after the spatial pack on the 3x3 stride-1 convolutions, FLOPs without the padding */
    assert_non_null(strstr(out_text, "   3  conv2d_nchw_winograd.arm_cpu      [1, 64, 56, 56]   [64, 64, 3, 3]    [1, 1]   "
                                     "[1, 1, 1, 1]  231211008    2000\n"));
    assert_non_null(strstr(out_text, "  16  conv2d_nchw_winograd.arm_cpu      [1, 512, 7, 7]    [512, 512, 3, 3]  [1, 1]   "
                                     "[1, 1, 1, 1]  231211008    1200\n"));
    assert_non_null(strstr(out_text, "  15  conv2d_nchw_spatial_pack.arm_cpu  [1, 512, 7, 7]    [512, 512, 3, 3]  [1, 1]   "
                                     "[1, 1, 1, 1]  231501312    6400\n"));
    /* dense_nopack's FLOPs carry its lane sum (2 M N K + M N) */
    assert_non_null(strstr(out_text, "  17  dense_nopack.x86                  [1, 512]          [1000, 512]       -        "
                                     "-               1025000     160\n"));
    assert_non_null(strstr(out_text, "  18  dense_pack.x86                    [1, 512]          [1000, 512]       -        "
                                     "-               1024000    1000\n"));

}

static void tasks_mobilenet_on_arm_cpu_json_should_list_depthwise_and_dense(void **state)
{
    (void)state;
    const char *a[] = {"tasks", "mobilenet", "--target", "llvm -device=arm_cpu -model=rk3399", "--ops", "all", "--json"};
    assert_int_equal(run(a, 7), 0);
    assert_int_equal(count_lines(out_text), 21);
    assert_non_null(strstr(out_text,
                           "{\"index\": 2, \"template\": \"depthwise_conv2d_nchw.arm_cpu\", \"args\": [[\"TENSOR\", [1, 32, 112, "
                           "112], \"float32\"], [\"TENSOR\", [32, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], "
                           "\"float32\"], \"flop\": 10136448, \"space\": 12000}\n"));
    assert_non_null(strstr(out_text, "{\"index\": 21, \"template\": \"dense_pack.x86\", \"args\": [[\"TENSOR\", [1, 1024], "
                                     "\"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], null, \"float32\"], \"flop\": "
                                     "2048000, \"space\": 1100}\n"));

}

static void tasks_on_plain_llvm_should_take_the_x86_templates(void **state)
{
    (void)state;
    const char *a[] = {"tasks", "resnet-18", "--target", "llvm"};
    assert_int_equal(run(a, 4), 0);
    assert_non_null(strstr(out_text, "conv2d_NCHWc.x86"));
    assert_null(strstr(out_text, "spatial_pack"));
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
        cmocka_unit_test(tasks_resnet18_on_arm_cpu_should_print_its_rows),
        cmocka_unit_test(tasks_mobilenet_on_arm_cpu_json_should_list_depthwise_and_dense),
        cmocka_unit_test(tasks_on_plain_llvm_should_take_the_x86_templates),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
