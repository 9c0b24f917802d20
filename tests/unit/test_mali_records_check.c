/* `autotvm records check` (cli/cmd_records_check.c, linked in directly): every record of TopHub's
 * mali pack maps back onto its template's space with its own index; broken records are listed. */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/alloc.h"

static char out_text[1 << 16];

/* Runs at_cmd_records_check("check", path) with stdout captured into out_text. */
static int check(const char *path_in)
{
    char path[4200];
    snprintf(path, sizeof path, "%s", path_in); /* the test helpers share one static buffer */
    const char *args[] = {"check", path};
    char *t = NULL;
    int rc = at_test_run_stdout(at_cmd_records_check, "mali_rc_out", args, 2, &t);
    snprintf(out_text, sizeof out_text, "%s", t);
    at_free(t);
    return rc;
}

static void every_mali_tophub_record_should_map_onto_its_space(void **state)
{
    (void)state;
    int rc = check(at_test_shared_path("data/tophub/mali_v0.06.log"));
    if (rc != 0 || strcmp(out_text, "528/528 records valid\n") != 0) {
        print_error("%s", out_text);
        fail();
    }
}

static void broken_records_should_be_listed_with_their_lines(void **state)
{
    (void)state;
    /* line 1 good; 2 wrong index; 3 a tile_x value not in the space; 4 unknown template; 5 a bad
     * workload (kernel channels differ); 6 a missing knob */
    static const char *const lines[] = {
        "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"dense.mali\", [[\"TENSOR\", [1, 1024], \"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], null, null], {}], \"config\": {\"index\": 407, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [1, 1, 1]], [\"tile_x\", \"sp\", [40, 25, 1]], [\"c_unroll\", \"sp\", [64, 16]]]}, \"result\": [[0.00083], 0, 3.1, 1538348112.5], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
        "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"dense.mali\", [[\"TENSOR\", [1, 1024], \"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], null, null], {}], \"config\": {\"index\": 408, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [1, 1, 1]], [\"tile_x\", \"sp\", [40, 25, 1]], [\"c_unroll\", \"sp\", [64, 16]]]}, \"result\": [[0.00083], 0, 3.1, 1538348112.5], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
        "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"dense.mali\", [[\"TENSOR\", [1, 1024], \"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], null, null], {}], \"config\": {\"index\": 407, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [1, 1, 1]], [\"tile_x\", \"sp\", [-1, 3, 1]], [\"c_unroll\", \"sp\", [64, 16]]]}, \"result\": [[0.00083], 0, 3.1, 1538348112.5], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
        "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"dense.nope\", [1, 2], {}], \"config\": {\"index\": 0, \"code_hash\": null, \"entity\": []}, \"result\": [[0.1], 0, 3.1, 1538348112.5], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
        "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"conv2d_nchw_spatial_pack.mali\", [[\"TENSOR\", [1, 8, 7, 7], \"float32\"], [\"TENSOR\", [16, 4, 1, 1], \"float32\"], [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"], {}], \"config\": {\"index\": 0, \"code_hash\": null, \"entity\": []}, \"result\": [[0.1], 0, 3.1, 1538348112.5], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
        "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"dense.mali\", [[\"TENSOR\", [1, 1024], \"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], null, null], {}], \"config\": {\"index\": 407, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [1, 1, 1]], [\"tile_x\", \"sp\", [40, 25, 1]]]}, \"result\": [[0.00083], 0, 3.1, 1538348112.5], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
    };
    char path[4200], text[1 << 14] = "";
    snprintf(path, sizeof path, "%s/broken.log", at_test_tmpdir("mali_rc"));
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        strcat(text, lines[i]);
        strcat(text, "\n");
    }
    at_test_write_file(path, text);
    assert_int_equal(check(path), 1);
    assert_non_null(strstr(out_text, "1/5 records valid (1 records of templates this build lacks skipped)\n"));
    assert_non_null(strstr(out_text, "line 2: dense.mali"));
    assert_non_null(strstr(out_text, "index 408, but its entities give 407"));
    assert_non_null(strstr(out_text, "line 3: dense.mali"));
    assert_non_null(strstr(out_text, "tile_x"));
    assert_null(strstr(out_text, "line 4:"));
    assert_non_null(strstr(out_text, "line 5: conv2d_nchw_spatial_pack.mali"));
    assert_non_null(strstr(out_text, "kernel takes 4 input channels, data has 8"));
    assert_non_null(strstr(out_text, "line 6: dense.mali"));
}

static void a_missing_log_should_fail_and_a_missing_argument_is_usage(void **state)
{
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/nope.log", at_test_tmpdir("mali_rc_missing"));
    assert_int_equal(check(path), 1);
    char a0[] = "check";
    char *argv[] = {a0, NULL};
    assert_int_equal(at_cmd_records_check(1, argv), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_mali_tophub_record_should_map_onto_its_space),
        cmocka_unit_test(broken_records_should_be_listed_with_their_lines),
        cmocka_unit_test(a_missing_log_should_fail_and_a_missing_argument_is_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
