/* Helpers shared by the cmocka tests: include this after cmocka's prerequisites. */
#ifndef AT_TESTS_SUPPORT_H
#define AT_TESTS_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sys/types.h>

#include "core/result.h"
#include "core/status.h"

/* Fails the test with the status text and this thread's error detail unless s == AT_OK. */
#define assert_ok(s) at_test_assert_ok((s), #s, __FILE__, __LINE__)
void at_test_assert_ok(at_status s, const char *expr, const char *file, int line);

/* Asserts measurement result r (input i of a batch) is err with needle in its message (any
 * message when needle is NULL); an OK result has one cost in (0, 10) s (repeat 3, min and max
 * dropped) and no message, a failed one no costs; both a positive all_cost_s and a timestamp. */
void at_test_expect_result(const at_result *r, at_meas_err err, const char *needle, size_t i);

/* Path of a file under the shared/ folder (AT_SHARED_DIR from ctest, else ../shared); static
 * buffer, valid until the next call. */
const char *at_test_shared_path(const char *rel);

/* Path under the source tree (AT_SOURCE_DIR from ctest, else "."); static buffer. */
const char *at_test_source_path(const char *rel);

/* The cache of PoCL's compiled kernels the tests share: $AT_BINARY_DIR/pocl-cache (set by ctest,
 * else ./pocl-cache); static buffer, valid until the next call. */
const char *at_test_pocl_cache_dir(void);

/* A fresh empty directory for this test (under $TMPDIR); static buffer. */
const char *at_test_tmpdir(const char *tag);

/* Reads a whole file into an at_malloc'ed NUL-terminated buffer; NULL when unreadable. */
char *at_test_read_file(const char *path, size_t *len);

/* The newline characters of a file (0 when it cannot be read). */
size_t at_test_count_lines(const char *path);

/* The fields of /proc/PID/stat the process tests use. */
typedef struct at_test_proc {
    long               ppid, pgrp;
    unsigned long long start; /* start time in clock ticks since boot: tells a reused pid apart */
} at_test_proc;

/* Reads /proc/PID/stat into *out; false when the process is gone or a zombie. */
bool at_test_proc_stat(long pid, at_test_proc *out);

/* Writes text to a file, replacing it; fails the test on error. */
void at_test_write_file(const char *path, const char *text);

/* Starts the autotvm binary ($AT_AUTOTVM, set by ctest) with args (NULL-terminated) in its own
 * process group; its stdout and stderr go to workdir/stdout and workdir/stderr. Fails the test
 * when the binary is unknown or fork fails. */
pid_t at_test_cli_start(const char *workdir, const char *const *args);

/* Waits for pid, replaces *out and *err (at_free'd; may be NULL at first) with what it printed
 * and returns its exit code (128 + signal when killed); prints both streams on a non-zero exit. */
int at_test_cli_finish(const char *workdir, pid_t pid, char **out, char **err);

/* The autotvm runs of one CLI test file: a fresh work directory (each run's cwd, where its
 * streams land), PoCL's shared kernel cache for --cache-dir, and what the last run printed. */
typedef struct at_test_cli {
    char  work[2048];
    char  cache[2048];
    char *out, *err; /* at_free'd by the next run and by at_test_cli_close */
} at_test_cli;

/* Makes c's work directory (at_test_tmpdir(tag)) and cache path; nothing printed yet. */
void at_test_cli_open(at_test_cli *c, const char *tag);

/* Runs autotvm with args (NULL-terminated) to its end: at_test_cli_start + at_test_cli_finish. */
int at_test_cli_run(at_test_cli *c, const char *const *args);

void at_test_cli_close(at_test_cli *c);

/* A long-running autotvm (tracker / rpc-server) a test started: pid, the read end of its stdout,
 * and the port of its "bind to 127.0.0.1:PORT" line. */
typedef struct at_test_daemon {
    pid_t pid;
    int   out;
    int   port;
} at_test_daemon;

/* Starts the autotvm binary ($AT_AUTOTVM) with args (NULL-terminated), stderr to /dev/null, and
 * reads its "bind to 127.0.0.1:PORT" line (fails the test after 20 s or if it exits first). */
at_test_daemon at_test_daemon_start(const char *const *args);

/* SIGTERM, then SIGKILL after 10 s; closes its stdout. Returns its exit code (128 + signal). */
int at_test_daemon_stop(at_test_daemon *d);

/* Compares text with tests/golden/<rel> (under the source tree), or rewrites the file when
 * AT_UPDATE_GOLDEN=1; on a difference prints the first differing line and fails the test. */
void at_test_check_golden(const char *rel, const char *text);

/* Runs an in-process command entry point fn(argc, argv) (a cli/ at_cmd_*) on args[0..n) (n < 16)
 * with stdout and stderr captured into one file under at_test_tmpdir(tag); replaces *out
 * (at_free'd; may be NULL at first) with what it printed and returns fn's exit code. */
int at_test_run_captured(int (*fn)(int, char **), const char *tag, const char *const *args, size_t n, char **out);

/* Same, capturing stdout only (stderr stays the test's). */
int at_test_run_stdout(int (*fn)(int, char **), const char *tag, const char *const *args, size_t n, char **out);

#endif
