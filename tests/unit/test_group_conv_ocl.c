/* The grouped-convolution model (grouped Conv, torch's channel shuffle, a Constant between its
 * Transpose and final Reshape) through `autotvm evaluate MODEL.onnx --check` on the OpenCL
 * device (PoCL counts as one): --target mali, whose strategy has no grouped convolution, and
 * --target opencl, whose group_conv2d_nchw.cuda is not templated here, both run the grouped
 * convolutions as untuned direct programs; the output matches the reference executor. */
#include "tests/support/test_support.h"
#include "tests/support/test_group_conv_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void evaluate_should_check_grouped_convolutions_on_opencl(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bytes = grouped_model(&len);
    char model[1100];
    snprintf(model, sizeof model, "%s/grouped.onnx", at_test_tmpdir("group_conv_ocl"));
    FILE *fp = fopen(model, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    fclose(fp);
    const char *targets[2] = {"mali", "opencl"};
    for (int k = 0; k < 2; k++) {
        char cmd[4000], text[8192];
        snprintf(cmd, sizeof cmd, "%s/cli/autotvm evaluate %s --target %s --no-tophub --repeat 1 --check --cache-dir %s 2>&1",
                 getenv("AT_BINARY_DIR"), model, targets[k], at_test_pocl_cache_dir());
        FILE *pp = popen(cmd, "r");
        assert_non_null(pp);
        size_t got = fread(text, 1, sizeof text - 1, pp);
        text[got] = 0;
        int rc = pclose(pp);
        if (WEXITSTATUS(rc) != 0) fail_msg("evaluate --target %s exited %d:\n%s", targets[k], WEXITSTATUS(rc), text);
        if (!strstr(text, "Output check: matches the reference executor")) fail_msg("--target %s:\n%s", targets[k], text);
        /* no task: nothing to dispatch */
        assert_non_null(strstr(text, "0 fallback tasks"));
    }
    unlink(model);
    at_free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(evaluate_should_check_grouped_convolutions_on_opencl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
