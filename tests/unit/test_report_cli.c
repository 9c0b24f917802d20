/* e2e: `autotvm report` through the built binary: the page is written (atomically, whole), its
 * summary line printed, and every bad input gets its one-line error and exit code. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"

static char logp[2300], html[2300];
static at_test_cli cli;

#define REC(i, ts)                                                                                                  \
    "{\"input\": [\"opencl -device=mali\", \"dense.mali\", [[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", "   \
    "[10, 512], \"float32\"], null, \"float32\"], {}], \"config\": {\"index\": " #i ", \"code_hash\": null, "      \
    "\"entity\": [[\"tile_y\", \"sp\", [-1, 1, 1]], [\"tile_x\", \"sp\", [-1, 1, 1]], [\"c_unroll\", \"sp\", [-1, " \
    "1]]]}, \"result\": [[1.024e-05], 0, 0.5, " #ts "], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}\n"

static int setup(void **state)
{
    (void)state;
    at_test_cli_open(&cli, "report_cli");
    snprintf(logp, sizeof logp, "%s/t.log", cli.work);
    snprintf(html, sizeof html, "%s/t.html", cli.work);
    at_test_write_file(logp, REC(0, 100.0) REC(7, 101.5));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    at_test_cli_close(&cli);
    return 0;
}

static void report_should_write_the_page(void **state)
{
    (void)state;
    unlink(html);
    const char *args[] = {"report", logp, "--html", html, NULL};
    assert_int_equal(at_test_cli_run(&cli, args), 0);
    char want[2600];
    snprintf(want, sizeof want, "autotvm: report: 2 records, 1 tasks -> %s\n", html);
    assert_string_equal(cli.err, want);
    char *page = at_test_read_file(html, NULL);
    assert_non_null(page);
    assert_int_equal(strncmp(page, "<!DOCTYPE html>\n", 16), 0);
    assert_non_null(strstr(page, ": 2 records, 1 tasks, 0 errors, 1.5 s from the first record to the last.</p>"));
    assert_null(strstr(page, "<h2>Trial allocation</h2>")); /* one task: nothing to allot */
    size_t len = strlen(page);
    assert_true(len > 16 && !strcmp(page + len - 8, "</html>\n"));
    at_free(page);
    /* with the network's layers */
    const char *net[] = {"report", logp, "--html", html, "--network", "resnet-18", "--target", "mali",
                         "--image-shape", "3,32,32", "--num-classes", "10", "--ops", "dense", NULL};
    assert_int_equal(at_test_cli_run(&cli, net), 0);
    page = at_test_read_file(html, NULL);
    assert_non_null(strstr(page, "<h2>Network: resnet-18 on opencl -device=mali</h2>"));
    assert_non_null(strstr(page, "<b>0.0102 ms</b> over 1 layers</p>"));
    at_free(page);
}

static void bad_input_should_get_one_line_errors(void **state)
{
    (void)state;
    struct {
        const char *args[12];
        int         rc;
        const char *err;
    } cases[] = {
        {{"report", logp, NULL}, 2, "autotvm report: error: missing --html FILE\n"},
        {{"report", "--html", html, NULL}, 2, "autotvm report: error: missing the LOG\n"},
        {{"report", logp, "--html", html, "--target", "mali", NULL}, 2,
         "autotvm report: error: --target, --ops, --batch, --image-shape and --num-classes need --network\n"},
        {{"report", logp, "--html", html, "--network", "resnet-18", NULL}, 2,
         "autotvm report: error: --network needs --target\n"},
        {{"report", logp, "--html", html, "--network", "resnet-18", "--target", "x86", NULL}, 2, NULL},
        {{"report", logp, "--html", html, "--network", "resnet-18", "--target", "mali", "--ops", "pool", NULL}, 2,
         NULL},
        {{"report", logp, "--html", html, "--network", "alexnet", "--target", "mali", NULL}, 1, "autotvm: error: "},
        {{"report", "missing.log", "--html", html, NULL}, 1, "autotvm: error: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = at_test_cli_run(&cli, cases[i].args);
        if (rc != cases[i].rc) print_error("case %zu: rc %d\n", i, rc);
        assert_int_equal(rc, cases[i].rc);
        if (cases[i].err) assert_int_equal(strncmp(cli.err, cases[i].err, strlen(cases[i].err)), 0);
        /* one line: the error (plus the usage hint for exit code 2) */
        size_t lines = 0;
        for (const char *p = cli.err; *p; p++) lines += *p == '\n';
        assert_int_equal(lines, rc == 2 ? 2 : 1);
    }
    char empty[2400];
    snprintf(empty, sizeof empty, "%s/empty.log", cli.work);
    at_test_write_file(empty, "# no records\n");
    const char *args[] = {"report", empty, "--html", html, NULL};
    assert_int_equal(at_test_cli_run(&cli, args), 1);
    char want[2600];
    snprintf(want, sizeof want, "autotvm: error: %s: no records to report\n", empty);
    assert_string_equal(cli.err, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_should_write_the_page),
        cmocka_unit_test(bad_input_should_get_one_line_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
