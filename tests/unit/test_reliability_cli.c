/* e2e (issue 19): the built autotvm binary as a hostile user drives it. A log cut mid-line keeps
 * the next measurement; pick-best never writes over its input or a tuning log; devices and endless
 * pipes are refused with one line (each run is watched: killed past 1 GiB of memory or 120 s, a
 * failure, so a regression cannot take the machine down); records check reads its input once;
 * `tune --target vta` resumes and never deletes FILE.tmp unasked; usage errors exit 2. */
#include "tests/support/test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/strbuf.h"
#include "records/log.h"

static char work[4096];
static char *out_text, *err_text;

enum { WATCH_MAX_MB = 1024, WATCH_MAX_S = 120 };

/* Resident memory of pid in MiB (0 when gone). */
static long rss_mb(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long size = 0, resident = 0;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

/* Runs autotvm with args (NULL-terminated) in the work dir, stdout/stderr into out_text/err_text.
 * pass_fd >= 0 is given to the child as descriptor 3. The child is killed (and the test fails)
 * past WATCH_MAX_MB of resident memory or WATCH_MAX_S seconds. Returns the exit code. */
static int run_fd(int pass_fd, const char *const *args)
{
    const char *prog = getenv("AT_AUTOTVM");
    if (!prog || !*prog) fail_msg("AT_AUTOTVM is not set (run through ctest)");
    char out_path[4200], err_path[4200];
    snprintf(out_path, sizeof out_path, "%s/.stdout", work);
    snprintf(err_path, sizeof err_path, "%s/.stderr", work);
    char *argv[32];
    size_t n = 0;
    memcpy(&argv[n++], &prog, sizeof prog);
    for (size_t i = 0; args[i]; i++) {
        assert_true(n < 31);
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
        if (pass_fd >= 0 && pass_fd != 3) {
            dup2(pass_fd, 3);
            close(pass_fd);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    double end = at_clock_mono_s() + WATCH_MAX_S;
    int status = 0;
    const char *killed = NULL;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        assert_true(w == 0 || errno == EINTR);
        long mb = rss_mb(pid);
        if (!killed && mb > WATCH_MAX_MB) killed = "memory";
        if (!killed && at_clock_mono_s() > end) killed = "time";
        if (killed) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        poll(NULL, 0, 5);
    }
    at_free(out_text);
    at_free(err_text);
    out_text = at_test_read_file(out_path, NULL);
    err_text = at_test_read_file(err_path, NULL);
    assert_non_null(out_text);
    assert_non_null(err_text);
    if (killed) fail_msg("autotvm %s: killed past the %s limit (%d MiB, %d s)", args[0], killed, WATCH_MAX_MB, WATCH_MAX_S);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

#define RUN(...) run_fd(-1, (const char *const[]){__VA_ARGS__, NULL})

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle)) fail_msg("output does not contain '%s':\n%s", needle, hay);
}

static const char *in_work(const char *name)
{
    static char buf[4][4200];
    static int slot;
    slot = (slot + 1) % 4;
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", work, name);
    return buf[slot];
}

static char *slurp(const char *name)
{
    size_t len;
    char *t = at_test_read_file(in_work(name), &len);
    assert_non_null(t);
    return t;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static int setup(void **state)
{
    (void)state;
    snprintf(work, sizeof work, "%s", at_test_tmpdir("rel_cli"));
    return 0;
}

#define VTA_TASK "conv2d_packed.vta", "--target", "vta", "--args", "1,16,14,14,16,3,3,1,1", "--tuner", "random"

static void a_record_appended_after_a_cut_off_line_should_be_kept(void **state)
{
    (void)state;
    assert_int_equal(RUN("tune-task", VTA_TASK, "--n-trial", "4", "--seed", "1", "--log", "A.log"), 0);
    char *a = slurp("A.log");
    assert_int_equal(count_lines(a), 4);
    size_t first = (size_t)(strchr(a, '\n') - a) + 1;
    assert_true(first < 700 && strlen(a) > 800);
    /* `head -c 700 A.log > A2.log`: line 1 and the start of line 2, as a crash leaves it */
    char saved = a[700];
    a[700] = '\0';
    at_test_write_file(in_work("A2.log"), a);
    a[700] = saved;
    assert_int_equal(RUN("tune-task", VTA_TASK, "--n-trial", "4", "--seed", "1", "--log", "A2.log"), 0);
    assert_contains(err_text, "A2.log: the last line has no newline (cut off?); appending on a fresh line");

    at_rec_log *l1, *l2;
    assert_ok(at_rec_log_load_file(in_work("A.log"), &l1));
    assert_ok(at_rec_log_load_file(in_work("A2.log"), &l2));
    assert_int_equal(l1->n, 4);
    /* line 1, the fragment (its own line, unreadable), then all four new records */
    assert_int_equal(l2->stats.lines, 6);
    assert_int_equal(l2->stats.malformed, 1);
    assert_int_equal(l2->n, 5);
    char *a2 = slurp("A2.log");
    assert_memory_equal(a2, a, 700);
    assert_int_equal(a2[700], '\n');
    for (size_t i = 0; i < 4; i++) {
        /* same seed, same configs and costs (the host time and timestamp differ) */
        assert_int_equal(l2->recs[i + 1].line, i + 3);
        assert_int_equal(at_config_index(l2->recs[i + 1].config), at_config_index(l1->recs[i].config));
        assert_int_equal(l2->recs[i + 1].result.err, l1->recs[i].result.err);
    }
    at_rec_log_free(l1);
    at_rec_log_free(l2);
    at_free(a);
    at_free(a2);
}

/* A tuning log: two workloads, four measurements each (one failed). */
static void write_history(const char *name)
{
    static const char tmpl[] =
        "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"dense.mali\", [[\"TENSOR\", [1, %d], \"float32\"], "
        "null], {}], \"config\": {\"index\": %d, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [1, 1, 1]]]}, "
        "\"result\": [[%s], %d, 0.5, 1538219132.0322816], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}\n";
    static const char *const costs[4] = {"0.5", "0.25", "1000000000.0", "0.75"};
    at_strbuf sb;
    at_strbuf_init(&sb);
    for (int wl = 1; wl <= 2; wl++)
        for (int i = 0; i < 4; i++) at_strbuf_printf(&sb, tmpl, wl, i, costs[i], i == 2 ? 4 : 0);
    at_test_write_file(in_work(name), sb.data);
    at_strbuf_fini(&sb);
}

static void pick_best_should_never_write_over_its_input_or_a_tuning_log(void **state)
{
    (void)state;
    write_history("B.log");
    char *before = slurp("B.log");
    assert_int_equal(count_lines(before), 8);
    assert_int_equal(RUN("pick-best", "B.log", "B.log"), 2);
    assert_contains(err_text, "autotvm pick-best: error: input 'B.log' and output 'B.log' are the same file");
    assert_int_equal(link(in_work("B.log"), in_work("B.link")), 0);
    assert_int_equal(RUN("pick-best", "B.log", "B.link"), 2);
    assert_contains(err_text, "are the same file");
    char *now = slurp("B.log");
    assert_string_equal(now, before);
    at_free(now);

    assert_int_equal(RUN("pick-best", "B.log", "best.log"), 0);
    assert_contains(out_text, "pick-best: read 8 records from B.log (0 lines skipped), wrote 2 records to best.log");
    /* swapped arguments */
    assert_int_equal(RUN("pick-best", "best.log", "B.log"), 2);
    assert_contains(err_text, "output 'B.log' holds 8 records of which only 2 are best per workload (a tuning log?); "
                              "refusing to replace it (--force to allow)");
    now = slurp("B.log");
    assert_string_equal(now, before);
    at_free(now);
    assert_int_equal(RUN("pick-best", "best.log", "B.log", "--force"), 0);
    now = slurp("B.log");
    assert_int_equal(count_lines(now), 2);
    at_free(now);
    at_free(before);
}

static void devices_and_endless_pipes_should_fail_with_one_line(void **state)
{
    (void)state;
    assert_int_equal(RUN("records", "check", "/dev/urandom"), 1);
    assert_string_equal(err_text,
                        "autotvm: error: cannot read '/dev/urandom': a character device, not a regular file or a pipe\n");
    assert_int_equal(RUN("records", "show", "/dev/zero"), 1);
    assert_string_equal(err_text, "autotvm: error: cannot read '/dev/zero': a character device, not a regular file or a pipe\n");
    write_history("t0.log");
    assert_int_equal(RUN("pick-best", "t0.log", "/dev/full"), 2);
    assert_contains(err_text, "autotvm pick-best: error: output '/dev/full' is not a regular file; refusing to replace it\n");
    struct stat st;
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));

    /* a pipe that never ends: cut at AT_REC_MAX_STREAM_BYTES */
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t writer = fork();
    assert_true(writer >= 0);
    if (writer == 0) {
        close(p[0]);
        signal(SIGPIPE, SIG_DFL);
        static char zeros[1 << 16];
        for (;;)
            if (write(p[1], zeros, sizeof zeros) < 0) _exit(0);
    }
    close(p[1]);
    int rc = run_fd(p[0], (const char *const[]){"records", "check", "/dev/fd/3", NULL});
    close(p[0]);
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
    assert_int_equal(rc, 1);
    assert_string_equal(err_text, "autotvm: error: cannot read '/dev/fd/3': a pipe longer than 256 MiB (give a regular file)\n");
}

static void records_check_should_read_a_pipe_once(void **state)
{
    (void)state;
    size_t len;
    char *pack = at_test_read_file(at_test_shared_path("data/tophub/vta_v0.10.log"), &len);
    assert_non_null(pack);
    at_strbuf sb;
    at_strbuf_init(&sb);
    size_t n = 0;
    for (const char *l = pack; *l && n < 3;) {
        const char *nl = strchr(l, '\n');
        assert_non_null(nl);
        if (*l != '#') {
            at_strbuf_append(&sb, l, (size_t)(nl - l) + 1);
            n++;
        }
        l = nl + 1;
    }
    at_strbuf_puts(&sb, "{\"input\": [\n");
    at_free(pack);
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_true(sb.len < 65536); /* fits the pipe: written before the reader starts */
    assert_int_equal(write(p[1], sb.data, sb.len), (ssize_t)sb.len);
    close(p[1]);
    int rc = run_fd(p[0], (const char *const[]){"records", "check", "/dev/fd/3", NULL});
    close(p[0]);
    assert_int_equal(rc, 1); /* the malformed line */
    assert_string_equal(out_text, "/dev/fd/3: 4 lines: 3 records, 0 comments, 0 blank, 1 malformed, 0 v0.1 rows\n"
                                  "3/3 records valid\n");
    /* its warning once, then the summary */
    assert_int_equal(count_lines(err_text), 2);
    assert_true(!strncmp(err_text, "autotvm: warning: /dev/fd/3:4: ", 31));
    assert_contains(err_text, "\nautotvm: error: /dev/fd/3 has 1 blank or malformed lines\n");
    at_strbuf_fini(&sb);
}

#define VTA_TUNE "tune", "resnet-18", "--target", "vta", "--tuner", "random", "--seed", "1", "--no-evaluate", "--log", "G.log"

static void vta_tuning_should_resume_and_never_delete_the_tmp_log_unasked(void **state)
{
    (void)state;
    assert_int_equal(RUN(VTA_TUNE, "--n-trial", "1", "--keep-tmp"), 0);
    char *tmp1 = slurp("G.log.tmp");
    assert_int_equal(count_lines(tmp1), 10);

    /* neither --resume nor --overwrite: refused, the tmp log untouched */
    assert_int_equal(RUN(VTA_TUNE, "--n-trial", "2"), 2);
    assert_contains(err_text, "G.log.tmp exists (");
    assert_contains(err_text, "it holds the measurements of an earlier run; --resume to continue it, --overwrite to "
                              "discard it");
    char *now = slurp("G.log.tmp");
    assert_string_equal(now, tmp1);
    at_free(now);

    /* --resume: the 10 measurements are kept and not measured again; 10 new ones follow */
    assert_int_equal(RUN(VTA_TUNE, "--n-trial", "2", "--resume", "--keep-tmp"), 0);
    assert_contains(err_text, "autotvm: 10 tasks (0 already done), 10 configs measured on the VTA simulator, 10 resumed;");
    char *tmp2 = slurp("G.log.tmp");
    assert_int_equal(strncmp(tmp2, tmp1, strlen(tmp1)), 0);
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(in_work("G.log.tmp"), &log));
    assert_int_equal(log->n, 20);
    for (size_t i = 0; i < log->n; i++)
        for (size_t j = 0; j < i; j++)
            assert_false(!strcmp(log->recs[i].args_json, log->recs[j].args_json) &&
                         at_config_index(log->recs[i].config) == at_config_index(log->recs[j].config));
    at_rec_log_free(log);
    /* resuming a finished run measures nothing */
    assert_int_equal(RUN(VTA_TUNE, "--n-trial", "2", "--resume", "--keep-tmp"), 0);
    assert_contains(err_text, "autotvm: 10 tasks (10 already done), 0 configs measured on the VTA simulator, 20 resumed;");

    /* --overwrite starts over, as asked */
    assert_int_equal(RUN(VTA_TUNE, "--n-trial", "1", "--overwrite"), 0);
    assert_contains(err_text, "10 configs measured on the VTA simulator, 0 resumed;");
    assert_int_equal(access(in_work("G.log.tmp"), F_OK), -1);
    assert_int_equal(RUN(VTA_TUNE, "--n-trial", "1", "--overwrite", "--resume"), 2);
    at_free(tmp1);
    at_free(tmp2);
}

static void usage_errors_should_exit_2_with_the_option_named_once(void **state)
{
    (void)state;
    assert_int_equal(RUN("tasks", "resnet-18", "--batch", "-1"), 2);
    assert_contains(err_text, "autotvm tasks: error: --batch expects a non-negative integer, got '-1'\n");
    assert_null(strstr(err_text, "----"));
    assert_int_equal(RUN("tasks", "resnet-18", "--num-classes", "x"), 2);
    assert_contains(err_text, "autotvm tasks: error: --num-classes expects a non-negative integer, got 'x'\n");

    const char *const *const cases[] = {
        (const char *const[]){"tune", "no-such-net", "--target", "mali", "--tuner", "random", NULL},
        (const char *const[]){"tune", "resnet-18", "--target", "no-such-target", "--tuner", "random", NULL},
        (const char *const[]){"evaluate", "no-such-net", "--target", "mali", NULL},
        (const char *const[]){"evaluate", "resnet-18", "--target", "no-such-target", NULL},
        (const char *const[]){"evaluate", "resnet-18", "--target", "llvm", "--graph-tune", "x.log", NULL},
        (const char *const[]){"evaluate", "resnet-18", "--target", "llvm", "--graph-top-k", "0", NULL},
        (const char *const[]){"tune", "resnet-18", "--target", "llvm", "--tuner", "random", "--graph-tune", "g.log",
                              "--no-evaluate", NULL},
        (const char *const[]){"tasks", "no-such-net", NULL},
        (const char *const[]){"tune-task", "no/such", "--args", "1", "--tuner", "random", "--n-trial", "1", "--log", "x.log", NULL},
        (const char *const[]){"tune-task", "conv2d_packed.vta", "--target", "vta", "--args", "1,2", "--tuner", "random",
                              "--n-trial", "1", "--log", "x.log", NULL},
        (const char *const[]){"measure", "no/such", "--args", "1", "--config", "0", NULL},
        (const char *const[]){"tune-task", "conv2d_packed.vta", "--target", "vta", "--args", "1,16,14,14,16,3,3,1,1",
                              "--tuner", "no-such-tuner", "--n-trial", "1", "--log", "x.log", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = run_fd(-1, cases[i]);
        if (rc != 2) fail_msg("case %zu (%s %s): exit %d, want 2; stderr:\n%s", i, cases[i][0], cases[i][1], rc, err_text);
        char want[64];
        snprintf(want, sizeof want, "autotvm %s: error: ", cases[i][0]);
        assert_contains(err_text, want);
        assert_contains(err_text, "Try 'autotvm ");
    }
    assert_int_equal(RUN("evaluate", "resnet-18", "--target", "llvm", "--graph-tune", "x.log"), 2);
    assert_contains(err_text, "autotvm evaluate: error: --graph-tune reads the records of --log\n");
    assert_int_equal(access(in_work("x.log"), F_OK), -1); /* nothing was started */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_record_appended_after_a_cut_off_line_should_be_kept, setup),
        cmocka_unit_test_setup(pick_best_should_never_write_over_its_input_or_a_tuning_log, setup),
        cmocka_unit_test_setup(devices_and_endless_pipes_should_fail_with_one_line, setup),
        cmocka_unit_test_setup(records_check_should_read_a_pipe_once, setup),
        cmocka_unit_test_setup(vta_tuning_should_resume_and_never_delete_the_tmp_log_unasked, setup),
        cmocka_unit_test_setup(usage_errors_should_exit_2_with_the_option_named_once, setup),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    at_free(out_text);
    at_free(err_text);
    return rc;
}
