/* e2e: the built `autotvm` binary (AT_AUTOTVM) on copies of both TopHub packs: pick-best output
 * bytes, summaries, records show/split/check, exit codes 0/1/2 and error messages. */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/strbuf.h"

static char work[4096];
static char out_text[1 << 16], err_text[1 << 16];

static const char *autotvm(void)
{
    const char *p = getenv("AT_AUTOTVM");
    if (!p || !*p) {
        print_error("AT_AUTOTVM is not set (run through ctest)\n");
        fail();
    }
    return p;
}

static void slurp(const char *path, char *buf, size_t cap)
{
    size_t len = 0;
    char *t = at_test_read_file(path, &len);
    assert_non_null(t);
    snprintf(buf, cap, "%s", t);
    at_free(t);
}

/* Runs autotvm with args (NULL-terminated) in the work dir; stdout/stderr land in out_text and
 * err_text. Returns the exit code. */
static int run(const char *const *args)
{
    char out_path[4200], err_path[4200];
    snprintf(out_path, sizeof out_path, "%s/.stdout", work);
    snprintf(err_path, sizeof err_path, "%s/.stderr", work);
    char *argv[16]; /* execv wants char *const[]; memcpy drops const without a cast */
    size_t n = 0;
    const char *prog = autotvm();
    memcpy(&argv[n++], &prog, sizeof prog);
    for (size_t i = 0; args[i]; i++) {
        assert_true(n < 15);
        memcpy(&argv[n++], &args[i], sizeof args[i]);
    }
    argv[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || chdir(work) != 0) _exit(127);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    slurp(out_path, out_text, sizeof out_text);
    slurp(err_path, err_text, sizeof err_text);
    unlink(out_path);
    unlink(err_path);
    return WEXITSTATUS(status);
}

#define RUN(...) run((const char *const[]){__VA_ARGS__, NULL})

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle)) {
        print_error("output does not contain '%s':\n%s\n", needle, hay);
        fail();
    }
}

static void copy_pack(const char *name)
{
    char rel[128], dst[4200];
    snprintf(rel, sizeof rel, "data/tophub/%s", name);
    size_t len;
    char *t = at_test_read_file(at_test_shared_path(rel), &len);
    assert_non_null(t);
    snprintf(dst, sizeof dst, "%s/%s", work, name);
    at_test_write_file(dst, t);
    at_free(t);
}

/* The expected pick-best output: the pack's lines named by the summary's winners, in order. */
static char *expected_winners(const char *pack, size_t *n_out)
{
    char rel[128];
    snprintf(rel, sizeof rel, "data/tophub/%s.summary.json", pack);
    size_t len;
    char *js = at_test_read_file(at_test_shared_path(rel), &len);
    cJSON *s;
    assert_ok(at_json_parse(js, len, &s));
    at_free(js);
    static bool want[4096];
    memset(want, 0, sizeof want);
    size_t n = 0;
    static const char *const lists[] = {"best_by_workload", "best_by_model_workload"};
    for (size_t k = 0; k < 2; k++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(s, lists[k]);
        assert_true(cJSON_GetArraySize(l) > 0);
        for (const cJSON *e = l->child; e; e = e->next) {
            int line = cJSON_GetObjectItemCaseSensitive(e, "best_line")->valueint;
            assert_true(line > 0 && line < 4096);
            if (!want[line]) n++;
            want[line] = true;
        }
    }
    at_json_free(s);
    snprintf(rel, sizeof rel, "data/tophub/%s.log", pack);
    char *text = at_test_read_file(at_test_shared_path(rel), &len);
    at_strbuf sb;
    at_strbuf_init(&sb);
    size_t line = 0;
    for (char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        line++;
        if (line < 4096 && want[line]) at_strbuf_append(&sb, p, (size_t)(nl - p) + 1);
    }
    at_free(text);
    *n_out = n;
    return at_strbuf_take(&sb);
}

static int setup(void **state)
{
    (void)state;
    snprintf(work, sizeof work, "%s", at_test_tmpdir("rec_cli"));
    copy_pack("mali_v0.06.log");
    copy_pack("vta_v0.10.log");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    return system(cmd) == 0 ? 0 : -1;
}

static void check_pick(const char *pack, size_t want_n, const char *summary)
{
    char in[128], out[4300];
    snprintf(in, sizeof in, "%s.log", pack);
    snprintf(out, sizeof out, "%s/%s.log.best.log", work, pack);
    unlink(out);
    assert_int_equal(RUN("pick-best", in), 0);
    assert_contains(out_text, summary);
    assert_string_equal(err_text, "");
    size_t n, len;
    char *want = expected_winners(pack, &n);
    assert_int_equal(n, want_n);
    char *got = at_test_read_file(out, &len);
    assert_non_null(got);
    assert_string_equal(got, want);
    at_free(got);
    at_free(want);
}

static void pick_best_should_write_the_summary_winners_for_both_packs(void **state)
{
    (void)state;
    check_pick("mali_v0.06", 528,
               "pick-best: read 528 records from mali_v0.06.log (0 lines skipped), wrote 528 records to "
               "mali_v0.06.log.best.log\n");
    check_pick("vta_v0.10", 102,
               "pick-best: read 106 records from vta_v0.10.log (0 lines skipped), wrote 102 records to "
               "vta_v0.10.log.best.log\n");
    /* again: the existing output is merged in and nothing changes */
    assert_int_equal(RUN("pick-best", "vta_v0.10.log"), 0);
    assert_contains(out_text, "and 102 from the existing vta_v0.10.log.best.log (0 lines skipped), wrote 102");
    /* explicit OUT */
    assert_int_equal(RUN("pick-best", "vta_v0.10.log", "explicit.log"), 0);
    assert_contains(out_text, "wrote 102 records to explicit.log");
}

static void pick_best_should_skip_bad_lines_with_file_and_line(void **state)
{
    (void)state;
    char path[4300];
    snprintf(path, sizeof path, "%s/bad.log", work);
    size_t len;
    char *t = at_test_read_file(at_test_shared_path("data/tophub/vta_v0.10.log"), &len);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_puts(&sb, "not json\n");
    at_strbuf_puts(&sb, t);
    at_strbuf_puts(&sb, "{\"input\": [\"llvm\", \"x\"\n");
    at_free(t);
    at_test_write_file(path, sb.data);
    at_strbuf_fini(&sb);
    assert_int_equal(RUN("pick-best", "bad.log"), 0);
    assert_contains(err_text, "autotvm: warning: bad.log:1: invalid JSON");
    assert_contains(err_text, "autotvm: warning: bad.log:122: invalid JSON");
    assert_contains(out_text, "read 106 records from bad.log (2 lines skipped), wrote 102 records");
    assert_int_equal(RUN("records", "check", "bad.log"), 1);
    assert_contains(out_text, "bad.log: 122 lines: 106 records, 14 comments, 0 blank, 2 malformed, 0 v0.1 rows");
    assert_contains(err_text, "autotvm: error: bad.log has 2 blank or malformed lines");
}

static void bad_usage_should_exit_2_and_failures_1(void **state)
{
    (void)state;
    assert_int_equal(RUN("pick-best"), 2);
    assert_contains(err_text, "missing the input log");
    assert_int_equal(RUN("pick-best", "a", "b", "c"), 2);
    assert_contains(err_text, "unexpected argument 'c'");
    assert_int_equal(RUN("pick-best", "--bogus", "x"), 2);
    assert_int_equal(RUN("records"), 2);
    assert_int_equal(RUN("records", "frob", "x"), 2);
    assert_int_equal(RUN("records", "show"), 2);
    assert_int_equal(RUN("records", "show", "vta_v0.10.log", "--begin", "abc"), 2);
    assert_int_equal(RUN("records", "split"), 2);

    assert_int_equal(RUN("pick-best", "missing.log"), 1);
    assert_contains(err_text, "autotvm: error: cannot open 'missing.log'");
    assert_int_equal(RUN("records", "show", "missing.log"), 1);
    assert_contains(err_text, "missing.log");
    assert_int_equal(RUN("pick-best", "vta_v0.10.log", "no/such/dir/out.log"), 1);
    assert_contains(err_text, "no/such/dir/out.log");

    assert_int_equal(RUN("pick-best", "--help"), 0);
    assert_contains(out_text, "usage: autotvm pick-best IN [OUT]");
    assert_int_equal(RUN("records", "--help"), 0);
    assert_contains(out_text, "show");
    assert_int_equal(RUN("records", "show", "--help"), 0);
    assert_contains(out_text, "--begin");
    assert_int_equal(RUN("records", "split", "-h"), 0);
    assert_contains(out_text, "usage: autotvm records split LOG");
    assert_int_equal(RUN("records", "check", "--help"), 0);
}

static void records_show_should_print_the_selected_records(void **state)
{
    (void)state;
    assert_int_equal(RUN("records", "show", "vta_v0.10.log", "--begin", "14", "--end=16"), 0);
    assert_contains(out_text, "#14  line 18  ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17\n");
    assert_contains(out_text, "    task      conv2d_packed.vta\n");
    assert_contains(out_text, "    workload  [[\"TENSOR\", [1, 8, 28, 28, 1, 16], \"int8\"]");
    assert_contains(out_text, "    config    463: tile_b=[1, 1] tile_h=[1, 14] tile_w=[1, 14] tile_ci=[8, 1] "
                              "tile_co=[4, 4] oc_nthread=2 h_nthread=1\n");
    assert_contains(out_text, "    cost      2.6691 ms (mean of 1)");
    assert_contains(out_text, "#15  line 19");
    assert_null(strstr(out_text, "#13 "));
    assert_null(strstr(out_text, "#16 "));
    assert_int_equal(RUN("records", "show", "mali_v0.06.log", "--begin", "1", "--end", "2"), 0);
    assert_contains(out_text, "reorder_0=[0, 1, 2, 3, 4, 5, 6, 9, 7, 8] ann_reduce=[unroll, unroll]");
    assert_int_equal(RUN("records", "check", "mali_v0.06.log"), 0);
    assert_contains(out_text, "mali_v0.06.log: 530 lines: 528 records, 2 comments, 0 blank, 0 malformed");
}

static void records_split_should_write_workload_files(void **state)
{
    (void)state;
    assert_int_equal(RUN("records", "split", "vta_v0.10.log"), 0);
    assert_contains(out_text, "split: 105 records of vta_v0.10.log into 102 workload files");
    assert_contains(out_text, "(1 duplicates dropped)");
    char p[4300];
    snprintf(p, sizeof p, "%s/vta_v0.10.log.101.wkl", work);
    assert_int_equal(access(p, R_OK), 0);
    snprintf(p, sizeof p, "%s/vta_v0.10.log.102.wkl", work);
    assert_int_not_equal(access(p, R_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pick_best_should_write_the_summary_winners_for_both_packs),
        cmocka_unit_test(pick_best_should_skip_bad_lines_with_file_and_line),
        cmocka_unit_test(bad_usage_should_exit_2_and_failures_1),
        cmocka_unit_test(records_show_should_print_the_selected_records),
        cmocka_unit_test(records_split_should_write_workload_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
