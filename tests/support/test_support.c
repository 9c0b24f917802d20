/* Test helpers: paths to fixtures and scratch directories, status and measurement-result
 * assertions. Only core/ is linked here, so helpers needing other modules live in headers. */
#include "tests/support/test_support.h"

#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"

void at_test_assert_ok(at_status s, const char *expr, const char *file, int line)
{
    if (s == AT_OK) return;
    print_error("%s returned %s: %s\n", expr, at_status_str(s), at_last_error());
    _fail(file, line);
}

void at_test_expect_result(const at_result *r, at_meas_err err, const char *needle, size_t i)
{
    if (r->err != err || (needle && (!r->msg || !strstr(r->msg, needle)))) {
        print_error("input %zu: got %s (%s), want %s with '%s'\n", i, at_meas_err_name(r->err), r->msg ? r->msg : "",
                    at_meas_err_name(err), needle ? needle : "");
        fail();
    }
    if (err == AT_MEAS_OK) {
        assert_int_equal(r->n_costs, 1); /* repeat 3: min and max dropped */
        assert_true(r->costs_s[0] > 0 && r->costs_s[0] < 10);
        assert_null(r->msg);
    } else {
        assert_int_equal(r->n_costs, 0);
    }
    assert_true(r->all_cost_s > 0);
    assert_true(r->timestamp > 1e9);
}

static char path_buf[4096];

const char *at_test_shared_path(const char *rel)
{
    const char *base = getenv("AT_SHARED_DIR");
    snprintf(path_buf, sizeof path_buf, "%s/%s", base && *base ? base : "../shared", rel);
    return path_buf;
}

const char *at_test_source_path(const char *rel)
{
    const char *base = getenv("AT_SOURCE_DIR");
    snprintf(path_buf, sizeof path_buf, "%s/%s", base && *base ? base : ".", rel);
    return path_buf;
}

const char *at_test_pocl_cache_dir(void)
{
    const char *bin = getenv("AT_BINARY_DIR");
    snprintf(path_buf, sizeof path_buf, "%s/pocl-cache", bin && *bin ? bin : ".");
    return path_buf;
}

const char *at_test_tmpdir(const char *tag)
{
    const char *t = getenv("TMPDIR");
    snprintf(path_buf, sizeof path_buf, "%s/at_test_%s_XXXXXX", t && *t ? t : "/tmp", tag);
    if (!mkdtemp(path_buf)) {
        print_error("mkdtemp %s failed\n", path_buf);
        fail();
    }
    return path_buf;
}

char *at_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = at_malloc(cap);
    for (;;) {
        if (!buf) break;
        if (n + 1 >= cap) {
            char *nb = at_realloc(buf, cap * 2);
            if (!nb) {
                at_free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        if (got == 0) break;
        n += got;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

size_t at_test_count_lines(const char *path)
{
    char *t = at_test_read_file(path, NULL);
    size_t n = 0;
    for (const char *p = t; p && *p; p++) n += *p == '\n';
    at_free(t);
    return n;
}

void at_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        print_error("cannot write %s\n", path);
        fail();
    }
    fputs(text, f);
    fclose(f);
}

pid_t at_test_cli_start(const char *workdir, const char *const *args)
{
    const char *prog = getenv("AT_AUTOTVM");
    if (!prog || !*prog) {
        print_error("AT_AUTOTVM is not set (run through ctest)\n");
        fail();
    }
    char out_path[4200], err_path[4200];
    snprintf(out_path, sizeof out_path, "%s/stdout", workdir);
    snprintf(err_path, sizeof err_path, "%s/stderr", workdir);
    char *argv[64];
    size_t n = 0;
    memcpy(&argv[n++], &prog, sizeof prog);
    for (size_t i = 0; args[i]; i++) {
        assert_true(n < 63);
        memcpy(&argv[n++], &args[i], sizeof args[i]);
    }
    argv[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0) _exit(127);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(prog, argv);
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

int at_test_cli_finish(const char *workdir, pid_t pid, char **out, char **err)
{
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char path[4200];
    at_free(*out);
    at_free(*err);
    snprintf(path, sizeof path, "%s/stdout", workdir);
    *out = at_test_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/stderr", workdir);
    *err = at_test_read_file(path, NULL);
    assert_non_null(*out);
    assert_non_null(*err);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) print_error("stdout:\n%s\nstderr:\n%s\n", *out, *err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void at_test_cli_open(at_test_cli *c, const char *tag)
{
    memset(c, 0, sizeof *c);
    snprintf(c->work, sizeof c->work, "%s", at_test_tmpdir(tag));
    snprintf(c->cache, sizeof c->cache, "%s", at_test_pocl_cache_dir());
}

int at_test_cli_run(at_test_cli *c, const char *const *args)
{
    return at_test_cli_finish(c->work, at_test_cli_start(c->work, args), &c->out, &c->err);
}

void at_test_cli_close(at_test_cli *c)
{
    at_free(c->out);
    at_free(c->err);
    c->out = c->err = NULL;
}

void at_test_check_golden(const char *rel, const char *text)
{
    char rel_path[512];
    snprintf(rel_path, sizeof rel_path, "tests/golden/%s", rel);
    const char *path = at_test_source_path(rel_path);
    const char *upd = getenv("AT_UPDATE_GOLDEN");
    if (upd && !strcmp(upd, "1")) {
        at_test_write_file(path, text);
        return;
    }
    size_t len = 0;
    char *want = at_test_read_file(path, &len);
    if (!want) {
        print_error("missing golden file %s (regenerate with AT_UPDATE_GOLDEN=1)\n", path);
        fail();
    }
    if (strcmp(want, text) != 0) {
        size_t line = 1, i = 0;
        while (want[i] && text[i] && want[i] == text[i]) line += want[i++] == '\n';
        print_error("%s differs from the output at line %zu (AT_UPDATE_GOLDEN=1 rewrites it)\n--- output ---\n%s\n",
                    path, line, text);
        at_free(want);
        fail();
    }
    at_free(want);
}

static int run_captured(int (*fn)(int, char **), const char *tag, const char *const *args, size_t n, char **out,
                        bool with_stderr)
{
    char cap[4200];
    snprintf(cap, sizeof cap, "%s/out.txt", at_test_tmpdir(tag));
    fflush(stdout);
    fflush(stderr);
    int s1 = dup(1), s2 = dup(2);
    int fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(s1 >= 0 && s2 >= 0 && fd >= 0);
    dup2(fd, 1);
    if (with_stderr) dup2(fd, 2);
    close(fd);
    char *argv[16];
    char buf[16][256];
    assert_true(n < 16);
    for (size_t i = 0; i < n; i++) {
        snprintf(buf[i], sizeof buf[i], "%s", args[i]);
        argv[i] = buf[i];
    }
    argv[n] = NULL;
    int rc = fn((int)n, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(s1, 1);
    if (with_stderr) dup2(s2, 2);
    close(s1);
    close(s2);
    at_free(*out);
    size_t len;
    *out = at_test_read_file(cap, &len);
    assert_non_null(*out);
    return rc;
}

int at_test_run_captured(int (*fn)(int, char **), const char *tag, const char *const *args, size_t n, char **out)
{
    return run_captured(fn, tag, args, n, out, true);
}

int at_test_run_stdout(int (*fn)(int, char **), const char *tag, const char *const *args, size_t n, char **out)
{
    return run_captured(fn, tag, args, n, out, false);
}

at_test_daemon at_test_daemon_start(const char *const *args)
{
    const char *prog = getenv("AT_AUTOTVM");
    if (!prog || !*prog) {
        print_error("AT_AUTOTVM is not set (run through ctest)\n");
        fail();
    }
    char *argv[64];
    size_t na = 0;
    memcpy(&argv[na++], &prog, sizeof prog);
    for (size_t i = 0; args[i]; i++) {
        assert_true(na < 63);
        memcpy(&argv[na++], &args[i], sizeof args[i]);
    }
    argv[na] = NULL;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 1);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2);
        close(p[0]);
        close(p[1]);
        execv(prog, argv);
        _exit(127);
    }
    close(p[1]);
    at_test_daemon d = {pid, p[0], 0};
    char line[128];
    size_t n = 0;
    double end = at_clock_mono_s() + 20;
    while (n < sizeof line - 1) {
        struct pollfd pf = {.fd = d.out, .events = POLLIN};
        int left = (int)((end - at_clock_mono_s()) * 1000);
        if (left <= 0 || poll(&pf, 1, left) <= 0) fail_msg("%s: no 'bind to' line", args[0]);
        if (read(d.out, line + n, 1) != 1) fail_msg("%s exited before binding", args[0]);
        if (line[n] == '\n') break;
        n++;
    }
    line[n] = '\0';
    assert_int_equal(sscanf(line, "bind to 127.0.0.1:%d", &d.port), 1);
    return d;
}

int at_test_daemon_stop(at_test_daemon *d)
{
    kill(d->pid, SIGTERM);
    double end = at_clock_mono_s() + 10;
    int st = 0;
    while (waitpid(d->pid, &st, WNOHANG) != d->pid) {
        if (at_clock_mono_s() > end) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &st, 0);
            break;
        }
        poll(NULL, 0, 10);
    }
    close(d->out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

bool at_test_proc_stat(long pid, at_test_proc *out)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    char st;
    /* after the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
     * utime stime cutime cstime priority nice threads itrealvalue starttime */
    return p &&
           sscanf(p + 1, " %c %ld %ld %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &st,
                  &out->ppid, &out->pgrp, &out->start) == 4 &&
           st != 'Z';
}
