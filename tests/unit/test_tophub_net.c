/* tophub/ downloads over HTTP against a server this test starts on 127.0.0.1 and stops again:
 * byte-identical fetches, cache hits without requests, one clear error per failure mode with the
 * old cache file intact, TOPHUB_LOCATION=NONE without network calls, concurrent fetches from
 * several processes, and the 1 s give-up on an unreachable mirror. No internet needed. */
#include "tests/support/test_support.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "records/best.h"
#include "tests/tophub_server/http_server.h"
#include "tophub/tophub.h"

typedef struct fixture {
    at_test_http *srv;
    char         *dir;  /* scratch cache directory */
    char         *root; /* what the server serves: shared/data/tophub */
    char          base[128];
} fixture;

static int setup(void **state)
{
    fixture *f = at_calloc(1, sizeof *f);
    f->root = at_strdup(at_test_shared_path("data/tophub"));
    f->srv = at_test_http_start(f->root);
    f->dir = at_strdup(at_test_tmpdir("tophub_net"));
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", at_test_http_port(f->srv));
    unsetenv(AT_TOPHUB_LOCATION_ENV);
    unsetenv(AT_TOPHUB_DIR_ENV);
    *state = f;
    return 0;
}

static void clean_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[4200];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
}

static int teardown(void **state)
{
    fixture *f = *state;
    at_test_http_stop(f->srv);
    clean_dir(f->dir);
    rmdir(f->dir);
    at_free(f->dir);
    at_free(f->root);
    at_free(f);
    return 0;
}

/* "<base>/<mode>" in a static buffer */
static const char *loc(const fixture *f, const char *mode)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", f->base, mode);
    return buf;
}

static char *pack_path(const fixture *f, const char *pack)
{
    at_tophub_opts o = {.cache_dir = f->dir};
    char *p = NULL;
    assert_ok(at_tophub_pack_path(&o, pack, &p));
    return p;
}

static bool same_bytes_as_shared(const char *path, const char *file)
{
    char rel[256];
    snprintf(rel, sizeof rel, "data/tophub/%s", file);
    size_t la = 0, lb = 0;
    char *a = at_test_read_file(path, &la);
    char *b = at_test_read_file(at_test_shared_path(rel), &lb);
    bool same = a && b && la == lb && memcmp(a, b, la) == 0;
    at_free(a);
    at_free(b);
    return same;
}

/* Temp files left in the cache directory (".<pack>.log.XXXXXX"). */
static int n_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strstr(e->d_name, ".log.")) n++;
    closedir(d);
    return n;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void fetch_should_give_byte_identical_files(void **state)
{
    fixture *f = *state;
    at_tophub_opts o = {.cache_dir = f->dir, .location = loc(f, "ok")};
    static const struct {
        const char *pack;
        size_t      n_records, bytes;
    } packs[] = {{"mali_v0.06", 528, 318180}, {"vta_v0.10", 106, 63738}};
    for (size_t i = 0; i < 2; i++) {
        long before = at_test_http_requests(f->srv);
        at_tophub_info info;
        assert_ok(at_tophub_fetch(&o, packs[i].pack, false, &info));
        assert_true(info.downloaded);
        assert_int_equal(info.n_records, packs[i].n_records);
        assert_int_equal(info.bytes, packs[i].bytes);
        assert_true(info.seconds > 0 && info.seconds < 5);
        char file[64];
        snprintf(file, sizeof file, "%s.log", packs[i].pack);
        assert_true(same_bytes_as_shared(info.path, file));
        assert_int_equal(at_test_http_requests(f->srv), before + 1);
        at_tophub_info_fini(&info);
    }
    assert_int_equal(n_temp_files(f->dir), 0);
}

static void second_fetch_should_use_the_cache(void **state)
{
    fixture *f = *state;
    at_tophub_opts o = {.cache_dir = f->dir, .location = loc(f, "ok")};
    at_tophub_info info;
    assert_ok(at_tophub_fetch(&o, "mali_v0.06", false, &info));
    assert_true(info.downloaded);
    at_tophub_info_fini(&info);
    long before = at_test_http_requests(f->srv);
    assert_int_equal(before, 1);
    for (int k = 0; k < 3; k++) {
        assert_ok(at_tophub_fetch(&o, "mali_v0.06", false, &info));
        assert_false(info.downloaded);
        assert_int_equal(info.n_records, 528);
        assert_true(same_bytes_as_shared(info.path, "mali_v0.06.log"));
        at_tophub_info_fini(&info);
    }
    /* a target string and a backend's candidates hit the same file */
    const at_tophub_package *used = NULL;
    assert_ok(at_tophub_fetch_target(&o, "opencl -device=mali -model=rk3399", &used, &info));
    assert_string_equal(used->pack, "mali_v0.06");
    assert_false(info.downloaded);
    at_tophub_info_fini(&info);
    assert_int_equal(at_test_http_requests(f->srv), before);
}

static const struct {
    const char *mode;
    at_status   status;
    const char *says;
} failures[] = {
    {"404", AT_ENOTFOUND, "HTTP 404"},
    {"short", AT_EIO, "body cut short"},
    {"corrupt", AT_EPARSE, "not a valid pack"},
    {"html", AT_EPARSE, "line 1"},
    {"empty", AT_EPARSE, "no record"},
    {"tofile", AT_EIO, "protocol not allowed"},
    {"500", AT_EIO, "HTTP 500"},
    {"huge", AT_EIO, "larger than 67108864 bytes"},
};

static void each_failure_should_say_why_and_keep_the_old_cache(void **state)
{
    fixture *f = *state;
    at_tophub_opts o = {.cache_dir = f->dir, .location = loc(f, "ok")};
    at_tophub_info info;
    assert_ok(at_tophub_fetch(&o, "vta_v0.10", false, &info));
    at_tophub_info_fini(&info);
    char *path = pack_path(f, "vta_v0.10");
    struct stat st0;
    assert_int_equal(stat(path, &st0), 0);
    size_t n_checked = 0;
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++) {
        char where[256];
        snprintf(where, sizeof where, "%s", loc(f, failures[i].mode));
        o.location = where;
        long before = at_test_http_requests(f->srv);
        memset(&info, 0x5a, sizeof info);
        at_status st = at_tophub_fetch(&o, "vta_v0.10", true, &info);
        const char *msg = at_last_error();
        if (st != failures[i].status || !strstr(msg, failures[i].says) || !strstr(msg, "cached copy is kept") ||
            !strstr(msg, where) || strchr(msg, '\n')) {
            print_error("mode %s: %s: %s\n", failures[i].mode, at_status_str(st), msg);
            fail();
        }
        assert_null(info.path);
        assert_true(at_test_http_requests(f->srv) >= before + 1);
        /* the previous file is untouched, byte for byte and inode for inode */
        struct stat st1;
        assert_int_equal(stat(path, &st1), 0);
        assert_int_equal(st1.st_ino, st0.st_ino);
        assert_true(same_bytes_as_shared(path, "vta_v0.10.log"));
        assert_int_equal(n_temp_files(f->dir), 0);
        n_checked++;
    }
    assert_int_equal(n_checked, 8);

    /* connection refused */
    char refused[128];
    snprintf(refused, sizeof refused, "http://127.0.0.1:%d/ok", at_test_closed_port());
    o.location = refused;
    double t0 = at_clock_mono_s();
    assert_int_equal(at_tophub_fetch(&o, "vta_v0.10", true, &info), AT_EIO);
    double dt = at_clock_mono_s() - t0;
    assert_non_null(strstr(at_last_error(), "cannot connect"));
    assert_non_null(strstr(at_last_error(), "cached copy is kept"));
    assert_true(dt < 0.5);
    assert_true(same_bytes_as_shared(path, "vta_v0.10.log"));
    at_free(path);
}

static void failures_without_a_cache_should_leave_nothing(void **state)
{
    fixture *f = *state;
    char *path = pack_path(f, "mali_v0.06");
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++) {
        at_tophub_opts o = {.cache_dir = f->dir, .location = loc(f, failures[i].mode)};
        at_tophub_info info;
        assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", false, &info), failures[i].status);
        assert_null(strstr(at_last_error(), "kept"));
        assert_false(exists(path));
        assert_int_equal(n_temp_files(f->dir), 0);
    }
    at_free(path);
}

static void a_stalled_server_should_time_out(void **state)
{
    fixture *f = *state;
    at_tophub_opts o = {.cache_dir = f->dir, .location = loc(f, "stall"), .timeout_ms = 300};
    at_tophub_info info;
    double t0 = at_clock_mono_s();
    assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", false, &info), AT_ETIMEOUT);
    double dt = at_clock_mono_s() - t0;
    assert_non_null(strstr(at_last_error(), "timed out"));
    assert_true(dt >= 0.25 && dt < 1.5);
    assert_int_equal(n_temp_files(f->dir), 0);
}

static void an_unreachable_mirror_should_fail_within_a_second(void **state)
{
    fixture *f = *state;
    int fds[2];
    int port = at_test_blackhole_port(fds);
    char where[128];
    snprintf(where, sizeof where, "http://127.0.0.1:%d/ok", port);
    at_tophub_opts o = {.cache_dir = f->dir, .location = where};
    /* the target's two candidates (mali, opencl) cost one connect timeout, not two */
    const at_tophub_package *used = (const at_tophub_package *)1;
    at_tophub_info info;
    at_log_set_level(AT_LOG_ERROR); /* the per-candidate warnings are expected here */
    double t0 = at_clock_mono_s();
    at_status st = at_tophub_fetch_target(&o, "opencl -device=mali", &used, &info);
    double dt = at_clock_mono_s() - t0;
    at_log_set_level(AT_LOG_INFO);
    assert_int_equal(st, AT_ENOTFOUND);
    assert_null(used);
    assert_non_null(strstr(at_last_error(), "tried mali_v0.06; not cached, and the mirror failed: opencl_v0.04"));
    assert_true(dt >= 0.9 && dt < 1.5);
    /* and the same through the API directly names the timeout */
    t0 = at_clock_mono_s();
    assert_int_equal(at_tophub_fetch(&o, "vta_v0.10", false, &info), AT_ETIMEOUT);
    dt = at_clock_mono_s() - t0;
    assert_non_null(strstr(at_last_error(), "timed out"));
    assert_true(dt >= 0.9 && dt < 1.5);
    close(fds[0]);
    close(fds[1]);
    assert_int_equal(at_test_http_requests(f->srv), 0);
}

static void location_none_should_make_no_network_call(void **state)
{
    fixture *f = *state;
    setenv(AT_TOPHUB_LOCATION_ENV, AT_TOPHUB_NONE_LOCATION, 1);
    at_tophub_opts o = {.cache_dir = f->dir};
    at_tophub_info info;
    at_log_set_level(AT_LOG_ERROR);
    assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", false, &info), AT_EUNSUPPORTED);
    assert_int_equal(at_tophub_fetch_target(&o, "opencl -device=mali", NULL, &info), AT_ENOTFOUND);
    at_rec_best *b = NULL;
    assert_ok(at_rec_best_new(&b));
    const at_tophub_package *used = NULL;
    size_t n = 9;
    assert_ok(at_tophub_context(&o, "opencl -device=mali", b, &used, &n));
    assert_null(used);
    assert_int_equal(n, 0);
    at_rec_best_free(b);
    at_rec_log *log = NULL;
    assert_ok(at_tophub_load_reference_log(&o, "mali", "rk3399", "dense.mali", &log));
    assert_int_equal(log->n, 0);
    at_rec_log_free(log);
    at_log_set_level(AT_LOG_INFO);
    assert_int_equal(at_test_http_requests(f->srv), 0);
    assert_int_equal(n_temp_files(f->dir), 0);
    /* the environment variable is what switched it off: pointing it at the server downloads */
    setenv(AT_TOPHUB_LOCATION_ENV, loc(f, "ok"), 1);
    assert_ok(at_tophub_fetch(&o, "mali_v0.06", false, &info));
    assert_true(info.downloaded);
    at_tophub_info_fini(&info);
    assert_int_equal(at_test_http_requests(f->srv), 1);
    unsetenv(AT_TOPHUB_LOCATION_ENV);
}

/* Forks n children that fetch pack at once; each exits 0 when its fetch gave a complete pack. */
static void fetch_in_children(const fixture *f, const char *mode, bool force, int n)
{
    pid_t pids[8];
    AT_ASSERT(n <= 8);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            at_tophub_opts o = {.cache_dir = f->dir, .location = loc(f, mode)};
            at_tophub_info info;
            at_status st = at_tophub_fetch(&o, "mali_v0.06", force, &info);
            _exit(st == AT_OK && info.n_records == 528 ? 0 : 1);
        }
    }
    for (int i = 0; i < n; i++) {
        int status = 0;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
}

static void concurrent_fetches_should_leave_one_valid_file(void **state)
{
    fixture *f = *state;
    char *path = pack_path(f, "mali_v0.06");
    /* not forced: one child downloads (slowly), the others wait on the lock and find the file */
    fetch_in_children(f, "drip", false, 4);
    assert_true(same_bytes_as_shared(path, "mali_v0.06.log"));
    assert_int_equal(at_test_http_requests(f->srv), 1);
    assert_int_equal(n_temp_files(f->dir), 0);
    /* forced: every child downloads and renames in turn; the file is whole throughout */
    fetch_in_children(f, "drip", true, 3);
    assert_true(same_bytes_as_shared(path, "mali_v0.06.log"));
    assert_int_equal(at_test_http_requests(f->srv), 4);
    assert_int_equal(n_temp_files(f->dir), 0);
    at_tophub_opts o = {.cache_dir = f->dir, .location = AT_TOPHUB_NONE_LOCATION};
    at_tophub_info info;
    assert_ok(at_tophub_cached(&o, "mali_v0.06", &info));
    assert_int_equal(info.n_records, 528);
    assert_int_equal(info.n_bad, 0);
    at_tophub_info_fini(&info);
    at_free(path);
}

static void target_fetch_should_fall_through_like_tvm(void **state)
{
    fixture *f = *state;
    /* 404 for mali: TVM warns and tries the next candidate, opencl, which 404s too */
    at_tophub_opts o = {.cache_dir = f->dir, .location = loc(f, "404")};
    const at_tophub_package *used = NULL;
    at_tophub_info info;
    at_log_set_level(AT_LOG_ERROR);
    assert_int_equal(at_tophub_fetch_target(&o, "opencl -device=mali", &used, &info), AT_ENOTFOUND);
    at_log_set_level(AT_LOG_INFO);
    assert_non_null(strstr(at_last_error(), "tried mali_v0.06, opencl_v0.04"));
    assert_int_equal(at_test_http_requests(f->srv), 2);
    /* a target with no pack at all makes no request */
    assert_int_equal(at_tophub_fetch_target(&o, "metal", &used, &info), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), "no TopHub pack for target 'metal'"));
    assert_int_equal(at_test_http_requests(f->srv), 2);
    /* a working mirror: the VTA target downloads vta_v0.10 */
    o.location = loc(f, "ok");
    assert_ok(at_tophub_fetch_target(&o, "ext_dev -device=vta -keys=vta,cpu -model=unknown", &used, &info));
    assert_string_equal(used->pack, "vta_v0.10");
    assert_true(info.downloaded);
    assert_int_equal(info.n_records, 106);
    at_tophub_info_fini(&info);
}

static void context_and_reference_log_should_download_when_missing(void **state)
{
    fixture *f = *state;
    at_tophub_opts o = {.cache_dir = f->dir, .location = loc(f, "ok")};
    at_rec_log *log = NULL;
    assert_ok(at_tophub_load_reference_log(&o, "mali", "rk3399", "conv2d_nchw_winograd.mali", &log));
    assert_int_equal(log->n, 63);
    at_rec_log_free(log);
    assert_int_equal(at_test_http_requests(f->srv), 1);
    at_rec_best *b = NULL;
    assert_ok(at_rec_best_new(&b));
    const at_tophub_package *used = NULL;
    size_t n = 0;
    assert_ok(at_tophub_context(&o, "opencl -device=mali", b, &used, &n));
    assert_string_equal(used->pack, "mali_v0.06");
    assert_int_equal(n, 528);
    at_rec_best_free(b);
    assert_int_equal(at_test_http_requests(f->srv), 1);
}

static void an_unusable_cache_directory_should_fail_clearly(void **state)
{
    fixture *f = *state;
    char blocker[1100], cache[1200];
    snprintf(blocker, sizeof blocker, "%s/a_file", f->dir);
    at_test_write_file(blocker, "not a directory\n");
    snprintf(cache, sizeof cache, "%s/cache", blocker);
    at_tophub_opts o = {.cache_dir = cache, .location = loc(f, "ok")};
    at_tophub_info info;
    assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", false, &info), AT_EIO);
    assert_non_null(strstr(at_last_error(), "cannot create the cache directory"));
    o.cache_dir = blocker;
    assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", false, &info), AT_EIO);
    assert_non_null(strstr(at_last_error(), "is not a directory"));
    assert_int_equal(at_test_http_requests(f->srv), 0);
}

/* openssl s_server -WWW serving shared/data/tophub over TLS with a self-signed certificate for
 * 127.0.0.1; skipped where no openssl binary is installed. */
static void https_should_verify_the_server_certificate(void **state)
{
    fixture *f = *state;
    char cert[1100], key[1100], cmd[4000];
    snprintf(cert, sizeof cert, "%s/cert.pem", f->dir);
    snprintf(key, sizeof key, "%s/key.pem", f->dir);
    snprintf(cmd, sizeof cmd,
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout '%s' -out '%s' "
             "-days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1",
             key, cert);
    if (system(cmd) != 0) skip();
    int port = at_test_closed_port();
    char accept[64];
    snprintf(accept, sizeof accept, "127.0.0.1:%d", port);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 || chdir(f->root) != 0) _exit(127);
        execlp("openssl", "openssl", "s_server", "-accept", accept, "-cert", cert, "-key", key, "-WWW", "-quiet",
               (char *)NULL);
        _exit(127);
    }
    /* wait until it listens */
    bool up = false;
    for (int i = 0; i < 200 && !up; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        up = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
        close(fd);
        if (!up) nanosleep(&(struct timespec){0, 10000000L}, NULL);
    }
    assert_true(up);
    char https[128];
    snprintf(https, sizeof https, "https://127.0.0.1:%d", port);
    at_tophub_opts o = {.cache_dir = f->dir, .location = https};
    at_tophub_info info;
    /* the system CA bundle does not trust a self-signed certificate */
    assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", false, &info), AT_EIO);
    assert_non_null(strstr(at_last_error(), "TLS certificate rejected"));
    char *path = pack_path(f, "mali_v0.06");
    assert_false(exists(path));
    /* trusting it: the download goes through, byte for byte */
    o.ca_file = cert;
    assert_ok(at_tophub_fetch(&o, "mali_v0.06", false, &info));
    assert_true(info.downloaded);
    assert_int_equal(info.n_records, 528);
    assert_true(same_bytes_as_shared(info.path, "mali_v0.06.log"));
    at_tophub_info_fini(&info);
    /* a trusted certificate for another name is still rejected */
    snprintf(https, sizeof https, "https://localhost:%d", port);
    o.location = https;
    assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", true, &info), AT_EIO);
    assert_true(strstr(at_last_error(), "TLS certificate rejected") || strstr(at_last_error(), "cannot connect"));
    assert_true(same_bytes_as_shared(path, "mali_v0.06.log"));
    at_free(path);
    kill(pid, SIGTERM);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(at_test_http_requests(f->srv), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(fetch_should_give_byte_identical_files, setup, teardown),
        cmocka_unit_test_setup_teardown(second_fetch_should_use_the_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(each_failure_should_say_why_and_keep_the_old_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(failures_without_a_cache_should_leave_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(a_stalled_server_should_time_out, setup, teardown),
        cmocka_unit_test_setup_teardown(an_unreachable_mirror_should_fail_within_a_second, setup, teardown),
        cmocka_unit_test_setup_teardown(location_none_should_make_no_network_call, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_fetches_should_leave_one_valid_file, setup, teardown),
        cmocka_unit_test_setup_teardown(target_fetch_should_fall_through_like_tvm, setup, teardown),
        cmocka_unit_test_setup_teardown(context_and_reference_log_should_download_when_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(an_unusable_cache_directory_should_fail_clearly, setup, teardown),
        cmocka_unit_test_setup_teardown(https_should_verify_the_server_certificate, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
