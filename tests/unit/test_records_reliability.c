/* records/ under hostile input (issue 19): an appender after a cut-off last line, devices given as
 * logs, non-positive and non-finite costs, and pick-best over the same file or a tuning log. Each
 * case failed before its fix. */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "records/log.h"
#include "records/pick.h"
#include "records/record.h"

/* One dense.mali record: workload wl, config index, costs text, error number. */
static const char tmpl[] =
    "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"dense.mali\", [[\"TENSOR\", [1, %d], \"float32\"], "
    "null], {}], \"config\": {\"index\": %d, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [1, 1, 1]]]}, "
    "\"result\": [[%s], %d, 0.5, 1538219132.0322816], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}";

static void add_line(at_strbuf *sb, int wl, int index, const char *cost, int err)
{
    at_strbuf_printf(sb, tmpl, wl, index, cost, err);
    at_strbuf_putc(sb, '\n');
}

static char path_buf[4][4200];

static const char *path_in(int slot, const char *dir, const char *name)
{
    snprintf(path_buf[slot], sizeof path_buf[slot], "%s/%s", dir, name);
    return path_buf[slot];
}

static char *slurp(const char *path)
{
    size_t len;
    char *t = at_test_read_file(path, &len);
    assert_non_null(t);
    return t;
}

/* Warnings logged since the last reset, one per line. */
static at_strbuf warnings;

static void capture(at_log_level level, const char *msg, void *user)
{
    (void)user;
    if (level == AT_LOG_WARN) at_strbuf_printf(&warnings, "%s\n", msg);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void appender_should_start_on_a_fresh_line_after_a_cut_off_last_line(void **state)
{
    (void)state;
    const char *dir = at_test_tmpdir("rel_append");
    const char *path = path_in(0, dir, "cut.log");
    at_strbuf sb;
    at_strbuf_init(&sb);
    add_line(&sb, 1, 1, "0.5", 0);
    add_line(&sb, 1, 2, "0.25", 0);
    size_t whole = sb.len;
    add_line(&sb, 1, 3, "0.125", 0);
    /* a crash cut the third line in the middle */
    size_t cut = whole + (sb.len - whole) / 2;
    sb.data[cut] = '\0';
    at_test_write_file(path, sb.data);

    at_rec_log *one;
    assert_ok(at_rec_log_load_buffer("new", sb.data, whole, &one)); /* a record to append: line 1 again */
    assert_int_equal(one->n, 2);
    at_strbuf_clear(&warnings);
    at_rec_appender *a;
    assert_ok(at_rec_appender_open(path, &a));
    assert_ok(at_rec_appender_write(a, &one->recs[0]));
    assert_ok(at_rec_appender_close(a));
    assert_non_null(strstr(at_strbuf_cstr(&warnings), "cut.log: the last line has no newline"));

    /* the fragment stays alone on its line; the new record is whole on the next one */
    char *got = slurp(path);
    at_strbuf want;
    at_strbuf_init(&want);
    at_strbuf_append(&want, sb.data, cut);
    at_strbuf_printf(&want, "\n%s\n", one->recs[0].text);
    assert_string_equal(got, want.data);
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(path, &log));
    assert_int_equal(log->stats.lines, 4);
    assert_int_equal(log->stats.records, 3);
    assert_int_equal(log->stats.malformed, 1);
    assert_int_equal(log->recs[2].line, 4);
    assert_string_equal(log->recs[2].text, one->recs[0].text);
    at_rec_log_free(log);
    at_free(got);

    /* a file that ends with "\n", and an empty one, get nothing extra */
    at_test_write_file(path, want.data);
    at_test_write_file(path_in(1, dir, "empty.log"), "");
    at_strbuf_clear(&warnings);
    assert_ok(at_rec_appender_open(path, &a));
    assert_ok(at_rec_appender_write(a, &one->recs[1]));
    assert_ok(at_rec_appender_close(a));
    assert_ok(at_rec_appender_open(path_in(1, dir, "empty.log"), &a));
    assert_ok(at_rec_appender_write(a, &one->recs[1]));
    assert_ok(at_rec_appender_close(a));
    assert_string_equal(at_strbuf_cstr(&warnings), "");
    at_strbuf_printf(&want, "%s\n", one->recs[1].text);
    got = slurp(path);
    assert_string_equal(got, want.data);
    at_free(got);
    got = slurp(path_in(1, dir, "empty.log"));
    assert_int_equal(strlen(got), strlen(one->recs[1].text) + 1);
    at_free(got);

    at_rec_log_free(one);
    at_strbuf_fini(&want);
    at_strbuf_fini(&sb);
}

static void loading_a_device_or_a_directory_should_fail_without_reading_it(void **state)
{
    (void)state;
    at_rec_log *log = NULL;
    /* /dev/null ends at once, /dev/zero and /dev/urandom never do: a device is refused unread */
    assert_int_equal(at_rec_log_load_file("/dev/null", &log), AT_EIO);
    assert_null(log);
    assert_string_equal(at_last_error(), "cannot read '/dev/null': a character device, not a regular file or a pipe");
    const char *dir = at_test_tmpdir("rel_dir");
    assert_int_equal(at_rec_log_load_file(dir, &log), AT_EIO);
    assert_non_null(strstr(at_last_error(), "is a directory"));
}

static void a_pipe_should_be_read_once_to_its_end(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    for (int i = 0; i < 3; i++) add_line(&sb, 1, i, "0.5", 0);
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], sb.data, sb.len), (ssize_t)sb.len);
    close(p[1]);
    char name[64];
    snprintf(name, sizeof name, "/dev/fd/%d", p[0]);
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(name, &log));
    assert_int_equal(log->stats.lines, 3);
    assert_int_equal(log->n, 3);
    at_rec_log_free(log);
    close(p[0]);
    at_strbuf_fini(&sb);
}

static void a_cost_that_is_not_positive_should_make_the_line_malformed(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    add_line(&sb, 1, 1, "0.5", 0);
    add_line(&sb, 1, 2, "-1.0", 0);      /* -1000 ms: would win pick-best */
    add_line(&sb, 1, 3, "0.0", 0);       /* zero */
    add_line(&sb, 1, 4, "0.25, -0.5", 0); /* one bad cost among good ones */
    add_line(&sb, 1, 5, "-1.0", 4);      /* a failure: its costs are not kept, so not checked */
    at_strbuf_clear(&warnings);
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer("neg.log", sb.data, sb.len, &log));
    assert_int_equal(log->stats.records, 2);
    assert_int_equal(log->stats.malformed, 3);
    assert_string_equal(at_strbuf_cstr(&warnings),
                        "neg.log:2: result[0][0]: cost -1 s is not positive; line skipped\n"
                        "neg.log:3: result[0][0]: cost 0 s is not positive; line skipped\n"
                        "neg.log:4: result[0][1]: cost -0.5 s is not positive; line skipped\n");
    char *out;
    size_t n_out;
    const at_rec_log *srcs[1] = {log};
    assert_ok(at_rec_pick_best_logs(srcs, 1, &out, &n_out, NULL, NULL));
    assert_int_equal(n_out, 1);
    at_strbuf want;
    at_strbuf_init(&want);
    at_strbuf_printf(&want, "%s\n", log->recs[0].text);
    assert_string_equal(out, want.data); /* the 0.5 s record, not the -1 s one */
    at_strbuf_fini(&want);
    at_free(out);
    at_rec_log_free(log);
    at_strbuf_fini(&sb);
}

static void nan_and_infinity_should_be_named_in_the_error(void **state)
{
    (void)state;
    static const struct {
        const char *cost, *want;
    } cases[] = {
        {"NaN", "NaN"},
        {"Infinity", "Infinity"},
        {"0.5, -Infinity", "-Infinity"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_strbuf sb;
        at_strbuf_init(&sb);
        add_line(&sb, 1, 1, cases[i].cost, 0);
        at_rec r;
        assert_int_equal(at_rec_parse_line(sb.data, sb.len, &r), AT_EPARSE);
        const char *e = at_last_error();
        const char *head = "invalid JSON at column ";
        assert_true(strncmp(e, head, strlen(head)) == 0);
        char *rest;
        size_t col = (size_t)strtoul(e + strlen(head), &rest, 10);
        /* ": <token>, a non-finite number ...", and the column is the token's */
        char want[160];
        snprintf(want, sizeof want, ": %s, a non-finite number (Python's json writes NaN/Infinity for them;",
                 cases[i].want);
        assert_true(strncmp(rest, want, strlen(want)) == 0);
        assert_true(col >= 1 && col <= sb.len);
        assert_memory_equal(sb.data + col - 1, cases[i].want, strlen(cases[i].want));
        at_strbuf_fini(&sb);
    }
    /* "NaN" inside a string is text, not a number: the parser's own message stays */
    const char *bad = "{\"input\": [\"NaN\", Infinity";
    at_rec r;
    assert_int_equal(at_rec_parse_line(bad, strlen(bad) - strlen(", Infinity"), &r), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "invalid JSON"));
}

/* A tuning log: two workloads, four measurements each (one failed). */
static void write_history(const char *path)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    for (int wl = 1; wl <= 2; wl++) {
        add_line(&sb, wl, 1, "0.5", 0);
        add_line(&sb, wl, 2, "0.25", 0);
        add_line(&sb, wl, 3, "1e9", 4);
        add_line(&sb, wl, 4, "0.75", 0);
    }
    at_test_write_file(path, sb.data);
    at_strbuf_fini(&sb);
}

static void pick_best_should_refuse_the_same_file_and_a_tuning_log_as_output(void **state)
{
    (void)state;
    const char *dir = at_test_tmpdir("rel_pick");
    char hist[4200], best[4200], link_p[4200], sym_p[4200];
    snprintf(hist, sizeof hist, "%s", path_in(0, dir, "tuning.log"));
    snprintf(best, sizeof best, "%s", path_in(1, dir, "best.log"));
    snprintf(link_p, sizeof link_p, "%s", path_in(2, dir, "hard.log"));
    snprintf(sym_p, sizeof sym_p, "%s", path_in(3, dir, "sym.log"));
    write_history(hist);
    char *before = slurp(hist);
    assert_int_equal(count_lines(before), 8);

    /* OUT = IN, by name, through a hard link and through a symlink: refused, nothing written */
    assert_int_equal(at_rec_pick_best(hist, hist, NULL), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "are the same file"));
    assert_int_equal(link(hist, link_p), 0);
    assert_int_equal(symlink(hist, sym_p), 0);
    assert_int_equal(at_rec_pick_best(hist, link_p, NULL), AT_EINVAL);
    assert_int_equal(at_rec_pick_best(sym_p, hist, NULL), AT_EINVAL);
    char *after = slurp(hist);
    assert_string_equal(after, before);
    at_free(after);

    /* the right way round: 2 winners */
    at_rec_pick_stats st;
    assert_ok(at_rec_pick_best(hist, best, &st));
    assert_int_equal(st.written, 2);
    /* again into the best file: it holds only best records, so it may be replaced */
    assert_ok(at_rec_pick_best(hist, best, &st));
    assert_int_equal(st.written, 2);

    /* swapped arguments: the tuning log would shrink from 8 records to 2 -- refused */
    assert_int_equal(at_rec_pick_best(best, hist, NULL), AT_EINVAL);
    assert_string_equal(at_last_error() + strlen(at_last_error()) - strlen("(--force to allow)"), "(--force to allow)");
    assert_non_null(strstr(at_last_error(), "holds 8 records of which only 2 are best per workload"));
    after = slurp(hist);
    assert_string_equal(after, before);
    at_free(after);
    /* unless forced */
    at_rec_pick_opts force = {.force = true};
    assert_ok(at_rec_pick_best_opts(best, hist, &force, &st));
    assert_int_equal(st.written, 2);
    after = slurp(hist);
    assert_int_equal(count_lines(after), 2);
    at_free(after);

    /* an output that is not a regular file is never replaced */
    assert_int_equal(at_rec_pick_best(best, dir, NULL), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "is not a regular file"));
    struct stat sst;
    assert_int_equal(stat(dir, &sst), 0);
    assert_true(S_ISDIR(sst.st_mode));
    at_free(before);
}

int main(void)
{
    at_strbuf_init(&warnings);
    at_log_set_sink(capture, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appender_should_start_on_a_fresh_line_after_a_cut_off_last_line),
        cmocka_unit_test(loading_a_device_or_a_directory_should_fail_without_reading_it),
        cmocka_unit_test(a_pipe_should_be_read_once_to_its_end),
        cmocka_unit_test(a_cost_that_is_not_positive_should_make_the_line_malformed),
        cmocka_unit_test(nan_and_infinity_should_be_named_in_the_error),
        cmocka_unit_test(pick_best_should_refuse_the_same_file_and_a_tuning_log_as_output),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    at_strbuf_fini(&warnings);
    return rc;
}
