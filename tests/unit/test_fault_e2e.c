/* e2e (issue 19): fault injection on a real tuning run of the autotvm binary ($AT_AUTOTVM) on the
 * OpenCL device (PoCL): `tune vgg-16 --ops dense` (3 tasks x N_TRIAL trials, random tuner, 2
 * measurement workers) with its FILE.tmp on a small tmpfs of its own, in three runs:
 *
 *   1. after a random number of records, one measurement worker (a child process of autotvm, found
 *      through /proc) chosen at random is SIGKILLed; tuning goes on, until the tmpfs fills: the
 *      run stops with exit 1 naming ENOSPC.
 *   2. the tmpfs is grown (the disk is freed) and `--resume` goes on; once a few more records are
 *      in, the tuner itself (not its group) is SIGKILLed: its workers must die with it.
 *   3. `--resume` again, to the end; then pick-best, `records check` and `evaluate --check` on it.
 *
 * Then FILE.tmp holds every trial exactly once (no (workload, config index) twice, N_TASKS x
 * N_TRIAL records), every line parses (no fragment of a line cut by the full disk), and every
 * record written before a fault is still there, byte for byte and in order.
 *
 * The tmpfs is mounted in a private mount namespace (unshare(CLONE_NEWNS); as a non-root user
 * with a user namespace too), so nothing outside this test process and its children sees it and
 * it goes away with them. Where the machine refuses (a container without CAP_SYS_ADMIN and no
 * user namespaces; or AT_FAULT_NO_TMPFS=1) the disk-full step is skipped with a message: run 1
 * then ends with the kill -9 of the tuner and run 2 is left out; the other faults still run.
 * Before records/log.c cut off the part of a line a failed write left, run 1 left a fragment
 * ("vgg.log.tmp:21: invalid JSON") that stayed in the log as an unreadable line. The 8 KiB tmpfs
 * fills after about 20 records; the log path is the only file on it.
 * Every wait polls for progress (lines in the log, processes in /proc), with generous limits,
 * never a fixed sleep. AT_FAULT_SEED=N replays the random choices (printed). */
#define _GNU_SOURCE
#include "tests/support/test_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/rng.h"
#include "records/log.h"
#include "records/record.h"

enum { N_TASKS = 3, N_TRIAL = 16, N_RECORDS = N_TASKS * N_TRIAL };
#define DISK_SMALL "size=8k,mode=0755"  /* about 20 records of ~400 bytes: full in task 2 */
#define DISK_LARGE "size=1m,mode=0755"
#define WAIT_S     60.0                 /* a limit on each wait, never an expected time */

static char work[2048], disk[2300], log_path[2400], tmp_path[2500], cache[4200], tophub[4200];
static char *out_text, *err_text;
static bool have_disk; /* the tmpfs is mounted on disk */
static char no_disk_why[256];

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("fault_e2e: ");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
}

static bool write_proc(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    size_t n = strlen(text);
    bool ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    return ok;
}

/* A private mount namespace for this process (and the children it starts), then a small tmpfs
 * on disk. false, with the reason in no_disk_why, where the machine does not allow it. */
static bool mount_private_tmpfs(void)
{
    if (geteuid() == 0) {
        if (unshare(CLONE_NEWNS) != 0) {
            snprintf(no_disk_why, sizeof no_disk_why, "unshare(CLONE_NEWNS): %s", strerror(errno));
            return false;
        }
    } else {
        uid_t uid = geteuid();
        gid_t gid = getegid();
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
            snprintf(no_disk_why, sizeof no_disk_why, "unshare(CLONE_NEWUSER | CLONE_NEWNS): %s", strerror(errno));
            return false;
        }
        char map[64];
        snprintf(map, sizeof map, "%d %d 1", (int)uid, (int)uid);
        bool ok = write_proc("/proc/self/setgroups", "deny") && write_proc("/proc/self/uid_map", map);
        snprintf(map, sizeof map, "%d %d 1", (int)gid, (int)gid);
        if (!ok || !write_proc("/proc/self/gid_map", map)) {
            snprintf(no_disk_why, sizeof no_disk_why, "cannot map ids in a user namespace: %s", strerror(errno));
            return false;
        }
    }
    /* nothing mounted here propagates to the parent namespace */
    if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        snprintf(no_disk_why, sizeof no_disk_why, "mount --make-rprivate /: %s", strerror(errno));
        return false;
    }
    if (mount("tmpfs", disk, "tmpfs", MS_NOSUID | MS_NODEV, DISK_SMALL) != 0) {
        snprintf(no_disk_why, sizeof no_disk_why, "mount -t tmpfs -o %s: %s", DISK_SMALL, strerror(errno));
        return false;
    }
    return true;
}

static int setup(void **state)
{
    (void)state;
    snprintf(work, sizeof work, "%s", at_test_tmpdir("fault_e2e"));
    snprintf(disk, sizeof disk, "%s/disk", work);
    assert_int_equal(mkdir(disk, 0755), 0);
    snprintf(log_path, sizeof log_path, "%s/vgg.log", disk);
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp", log_path);
    const char *bin = getenv("AT_BINARY_DIR");
    snprintf(cache, sizeof cache, "%s/pocl-cache", bin && *bin ? bin : ".");
    snprintf(tophub, sizeof tophub, "%s", at_test_shared_path("data/tophub"));
    const char *no = getenv("AT_FAULT_NO_TMPFS"); /* =1: run as where no tmpfs can be mounted */
    if (no && !strcmp(no, "1"))
        snprintf(no_disk_why, sizeof no_disk_why, "AT_FAULT_NO_TMPFS=1");
    else
        have_disk = mount_private_tmpfs();
    if (have_disk)
        note("FILE.tmp on a private tmpfs (%s)", DISK_SMALL);
    else
        note("disk-full step skipped: %s", no_disk_why);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (have_disk) umount2(disk, MNT_DETACH);
    at_free(out_text);
    at_free(err_text);
    return 0;
}

/* Lines (complete or not) in path; 0 when it does not exist. */
static size_t count_lines(const char *path)
{
    size_t len = 0;
    char *t = at_test_read_file(path, &len);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) n += t[i] == '\n';
    if (len && t[len - 1] != '\n') n++;
    at_free(t);
    return n;
}

/* Live processes whose parent (by_group false) or process group (true) is id, into pids[0..cap). */
static size_t processes_of(long id, bool by_group, long *pids, size_t cap)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        at_test_proc pr;
        if (*end || pid <= 0 || pid == id || !at_test_proc_stat(pid, &pr)) continue;
        if ((by_group ? pr.pgrp : pr.ppid) == id && n < cap) pids[n++] = pid;
    }
    closedir(d);
    return n;
}

/* Polls until FILE.tmp has at least n lines; false if pid ended first (or after WAIT_S). */
static bool wait_lines(pid_t pid, size_t n)
{
    double end = at_clock_mono_s() + WAIT_S;
    while (count_lines(tmp_path) < n) {
        if (waitpid(pid, NULL, WNOHANG) != 0 || kill(pid, 0) != 0) return false;
        if (at_clock_mono_s() > end) fail_msg("FILE.tmp: fewer than %zu lines after %g s", n, WAIT_S);
        poll(NULL, 0, 10);
    }
    return true;
}

static at_rec_log *load(const char *path)
{
    at_rec_log *l = NULL;
    assert_ok(at_rec_log_load_file(path, &l));
    return l;
}

/* No (workload, config index) twice; every line a record. Returns the number of records. */
static size_t assert_clean_and_distinct(const at_rec_log *l)
{
    if (l->stats.malformed || l->stats.blank || l->stats.lines != l->n)
        fail_msg("%s: %zu lines, %zu records, %zu malformed, %zu blank", l->name, l->stats.lines, l->n,
                 l->stats.malformed, l->stats.blank);
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = 0; j < i; j++) {
            const at_rec *a = &l->recs[i], *b = &l->recs[j];
            if (!strcmp(a->task_name, b->task_name) && !strcmp(a->args_json, b->args_json) &&
                at_config_index(a->config) == at_config_index(b->config))
                fail_msg("%s: config %lld measured twice (lines %zu and %zu)", l->name, (long long)at_config_index(a->config),
                         b->line, a->line);
        }
    return l->n;
}

/* The records of before are the first records of after, byte for byte. */
static void assert_prefix(const at_rec_log *before, const at_rec_log *after)
{
    assert_true(after->n >= before->n);
    for (size_t i = 0; i < before->n; i++)
        if (strcmp(before->recs[i].text, after->recs[i].text))
            fail_msg("record %zu changed:\n%s\n%s", i, before->recs[i].text, after->recs[i].text);
}

/* kill -9 of the tuner alone (not its group); its workers must die with it (PR_SET_PDEATHSIG):
 * none is left in its process group. */
static void kill_tuner(pid_t pid)
{
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(at_test_cli_finish(work, pid, &out_text, &err_text), 128 + SIGKILL);
    long left[16];
    for (double end = at_clock_mono_s() + WAIT_S; processes_of(pid, true, left, 16) > 0;) {
        if (at_clock_mono_s() > end) fail_msg("process %ld outlived its killed tuner", left[0]);
        poll(NULL, 0, 10);
    }
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle)) fail_msg("output does not contain '%s':\n%s", needle, hay);
}

static void tuning_should_keep_every_measurement_once_through_faults(void **state)
{
    (void)state;
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
    const char *seed_env = getenv("AT_FAULT_SEED");
    if (seed_env && *seed_env) seed = strtoull(seed_env, NULL, 10);
    at_rng rng;
    at_rng_seed(&rng, seed);
    note("AT_FAULT_SEED=%llu", (unsigned long long)seed);
    double t0 = at_clock_mono_s();

    const char *args[] = {"tune", "vgg-16", "--target", "mali", "--tuner", "random", "--n-trial", "16", "--ops", "dense",
                          "--image-shape", "3,32,32", "--num-classes", "10", "--seed", "5", "--log", log_path,
                          "--keep-tmp", "--no-evaluate", "--cache-dir", cache, "--number", "1", "--repeat", "1",
                          "--cooldown-ms", "0", "--n-parallel", "2", "--build-timeout", "60", "--timeout", "60",
                          NULL, NULL};
    const size_t resume_slot = sizeof args / sizeof args[0] - 2;

    /* 1. a worker killed at random mid-run, then the disk fills */
    pid_t pid = at_test_cli_start(work, args);
    size_t k = 2 + (size_t)at_rng_below(&rng, 5);
    if (!wait_lines(pid, k)) fail_msg("the tuner ended before %zu records", k);
    long workers[16];
    size_t nw = processes_of(pid, false, workers, 16);
    if (nw == 0) fail_msg("no worker process under autotvm (pid %d)", (int)pid);
    long victim = workers[at_rng_below(&rng, nw)];
    size_t n_at_kill = count_lines(tmp_path);
    assert_int_equal(kill((pid_t)victim, SIGKILL), 0);
    note("run 1: killed worker %ld (1 of %zu) at %zu records", victim, nw, n_at_kill);
    /* the pool notices, reaps it and starts another: records keep coming */
    size_t more = n_at_kill + 4;
    if (!wait_lines(pid, more) && !have_disk) fail_msg("the tuner ended before %zu records, after a worker was killed", more);
    int rc;
    at_rec_log *run1, *run2 = NULL;
    if (have_disk) {
        /* the full disk stops the run; no cut-off line is left behind */
        rc = at_test_cli_finish(work, pid, &out_text, &err_text);
        if (rc != 1) fail_msg("run 1 on a full disk: exit %d", rc);
        assert_contains(err_text, "No space left on device");
        run1 = load(tmp_path);
        assert_true(run1->n > n_at_kill && run1->n < N_RECORDS);
        struct stat st;
        assert_int_equal(stat(tmp_path, &st), 0);
        /* a disk that fills mid-line: the part written is cut off again (records/log.c) */
        note("run 1: disk full at %zu records (%lld bytes)%s", run1->n, (long long)st.st_size,
             strstr(err_text, "the part of the line written was removed") ? "; the cut-off line was removed" : "");
    } else {
        kill_tuner(pid); /* no disk to fill: the tuner is killed in this run */
        run1 = load(tmp_path);
        note("run 1: tuner killed -9 at %zu records", run1->n);
    }
    assert_clean_and_distinct(run1);
    size_t n_err1 = 0;
    for (size_t i = 0; i < run1->n; i++) n_err1 += run1->recs[i].result.err != AT_MEAS_OK;
    note("run 1: %zu records, %zu failed measurements (the killed worker's trial, if it had one)", run1->n, n_err1);

    /* 2. the disk is freed; --resume; the tuner itself is killed (-9) once a few records are in */
    args[resume_slot] = "--resume";
    if (have_disk) {
        assert_int_equal(mount(NULL, disk, "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, DISK_LARGE), 0);
        pid = at_test_cli_start(work, args);
        size_t target = run1->n + 2 + (size_t)at_rng_below(&rng, 6);
        if (!wait_lines(pid, target)) fail_msg("run 2 ended before %zu records", target);
        kill_tuner(pid);
        run2 = load(tmp_path);
        assert_clean_and_distinct(run2);
        assert_prefix(run1, run2);
        note("run 2 (--resume): killed -9 at %zu records", run2->n);
    }

    /* 3. --resume to the end */
    rc = at_test_cli_finish(work, at_test_cli_start(work, args), &out_text, &err_text);
    assert_int_equal(rc, 0);
    assert_contains(err_text, "trials resumed from the tmp log");
    at_rec_log *final = load(tmp_path);
    assert_int_equal(assert_clean_and_distinct(final), N_RECORDS);
    assert_prefix(run2 ? run2 : run1, final);
    size_t per_task[N_TASKS] = {0};
    const char *wkl[N_TASKS] = {NULL};
    for (size_t i = 0; i < final->n; i++) {
        size_t t = 0;
        while (t < N_TASKS && wkl[t] && strcmp(wkl[t], final->recs[i].args_json)) t++;
        assert_true(t < N_TASKS);
        wkl[t] = final->recs[i].args_json;
        per_task[t]++;
    }
    for (size_t t = 0; t < N_TASKS; t++) assert_int_equal(per_task[t], N_TRIAL);
    note("run 3 (--resume): %zu records, %zu per task, none twice, every line a record", final->n, (size_t)N_TRIAL);

    /* the log is usable: tune's own pick-best wrote FILE; pick-best, records check, evaluate */
    at_rec_log *best = load(log_path);
    assert_int_equal(best->n, N_TASKS);
    char best2[2600];
    snprintf(best2, sizeof best2, "%s/best2.log", work);
    assert_int_equal(at_test_cli_finish(work, at_test_cli_start(work, (const char *const[]){"pick-best", tmp_path, best2, NULL}),
                                        &out_text, &err_text),
                     0);
    char *b1 = at_test_read_file(log_path, NULL), *b2 = at_test_read_file(best2, NULL);
    assert_non_null(b1);
    assert_non_null(b2);
    assert_string_equal(b1, b2);
    at_free(b1);
    at_free(b2);
    assert_int_equal(at_test_cli_finish(work, at_test_cli_start(work, (const char *const[]){"records", "check", tmp_path, NULL}),
                                        &out_text, &err_text),
                     0);
    char valid[64];
    snprintf(valid, sizeof valid, "%d/%d records valid", N_RECORDS, N_RECORDS);
    assert_contains(out_text, valid);
    const char *eval[] = {"evaluate", "vgg-16", "--target", "mali", "--log", log_path, "--image-shape", "3,32,32",
                          "--num-classes", "10", "--seed", "5", "--repeat", "2", "--check", "--tophub-dir", tophub,
                          "--cache-dir", cache, NULL};
    assert_int_equal(at_test_cli_finish(work, at_test_cli_start(work, eval), &out_text, &err_text), 0);
    assert_contains(err_text, "dispatch: 3 tuned by the log");
    assert_contains(out_text, "Output check: matches the reference executor");
    note("pick-best, records check and evaluate --check pass; %.1f s in all", at_clock_mono_s() - t0);

    at_rec_log_free(best);
    at_rec_log_free(final);
    at_rec_log_free(run2);
    at_rec_log_free(run1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tuning_should_keep_every_measurement_once_through_faults),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
