/* `autotvm tophub ...` end to end: the real binary (AT_AUTOTVM) against a local HTTP server this
 * test starts on 127.0.0.1; checks stdout lines, one-line errors, exit codes and the cache files. */
#include "tests/support/test_support.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "tests/tophub_server/http_server.h"

typedef struct fixture {
    at_test_http *srv;
    char         *root;
    char         *tmp;   /* scratch: HOME, outputs */
    char          dir[1024];    /* the cache directory given with --tophub-dir */
    char          base[128];  /* http://127.0.0.1:PORT */
    char         *out, *err;  /* last run's stdout and stderr */
} fixture;

static int setup(void **state)
{
    fixture *f = at_calloc(1, sizeof *f);
    f->root = at_strdup(at_test_shared_path("data/tophub"));
    f->srv = at_test_http_start(f->root);
    f->tmp = at_strdup(at_test_tmpdir("tophub_cli"));
    snprintf(f->dir, sizeof f->dir, "%s/cache", f->tmp);
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", at_test_http_port(f->srv));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    at_test_http_stop(f->srv);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->tmp);
    assert_int_equal(system(cmd), 0);
    at_free(f->out);
    at_free(f->err);
    at_free(f->tmp);
    at_free(f->root);
    at_free(f);
    return 0;
}

/* Runs autotvm with argv (NULL-terminated) and "NAME=VALUE" environment overrides (a bare "NAME"
 * unsets); HOME is the scratch dir and TOPHUB_LOCATION/AT_TOPHUB_DIR are unset unless given.
 * Returns the exit code; f->out and f->err hold the output. */
static int run(fixture *f, const char *const *env, const char *const *args)
{
    const char *bin = getenv("AT_AUTOTVM");
    assert_non_null(bin);
    char out_path[4300], err_path[4300];
    snprintf(out_path, sizeof out_path, "%s/stdout", f->tmp);
    snprintf(err_path, sizeof err_path, "%s/stderr", f->tmp);
    const char *argv[32];
    size_t n = 0;
    argv[n++] = bin;
    argv[n++] = "tophub";
    for (; args[n - 2]; n++) argv[n] = args[n - 2];
    argv[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
        setenv("HOME", f->tmp, 1);
        unsetenv("TOPHUB_LOCATION");
        unsetenv("AT_TOPHUB_DIR");
        for (size_t i = 0; env && env[i]; i++) {
            char name[64];
            const char *eq = strchr(env[i], '=');
            if (!eq) {
                unsetenv(env[i]);
                continue;
            }
            snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
            setenv(name, eq + 1, 1);
        }
        execv(bin, (char *const *)(void *)argv);
        _exit(127);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    at_free(f->out);
    at_free(f->err);
    f->out = at_test_read_file(out_path, NULL);
    f->err = at_test_read_file(err_path, NULL);
    assert_non_null(f->out);
    assert_non_null(f->err);
    return WEXITSTATUS(status);
}

static const char *where(const fixture *f, const char *mode)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", f->base, mode);
    return buf;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
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

/* The fields of the list row of backend: version, cached, records. */
static bool list_row(const char *out, const char *backend, char *version, char *cached, char *records)
{
    const char *p = out;
    size_t bl = strlen(backend);
    while (p && *p) {
        if (!strncmp(p, backend, bl) && p[bl] == ' ')
            return sscanf(p + bl, " %15s %7s %15s", version, cached, records) == 3;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return false;
}

static void fetch_list_path_clear_should_work_end_to_end(void **state)
{
    fixture *f = *state;
    char line[2048], pack[1100];
    snprintf(pack, sizeof pack, "%s/mali_v0.06.log", f->dir);

    const char *fetch[] = {"fetch", "mali", "--tophub-dir", f->dir, "--location", where(f, "ok"), NULL};
    assert_int_equal(run(f, NULL, fetch), 0);
    snprintf(line, sizeof line, "tophub: mali_v0.06 (528 records) -> %s\n", pack);
    assert_non_null(strstr(f->out, line));
    assert_non_null(strstr(f->out, "tophub: downloaded mali_v0.06.log from "));
    assert_string_equal(f->err, "");
    assert_true(same_bytes_as_shared(pack, "mali_v0.06.log"));
    assert_int_equal(at_test_http_requests(f->srv), 1);

    /* a target string picks the same pack, from the cache */
    const char *by_target[] = {"fetch", "opencl -device=mali -model=rk3399", "--tophub-dir", f->dir, "--location",
                               where(f, "ok"), NULL};
    assert_int_equal(run(f, NULL, by_target), 0);
    assert_string_equal(f->out, line);
    assert_int_equal(at_test_http_requests(f->srv), 1);

    const char *list[] = {"list", "--tophub-dir", f->dir, NULL};
    assert_int_equal(run(f, NULL, list), 0);
    char v[16], c[8], r[16];
    assert_true(list_row(f->out, "mali", v, c, r));
    assert_string_equal(v, "v0.06");
    assert_string_equal(c, "yes");
    assert_string_equal(r, "528");
    assert_true(list_row(f->out, "vta", v, c, r));
    assert_string_equal(v, "v0.10");
    assert_string_equal(c, "no");
    int rows = 0;
    static const char *const backends[] = {"arm_cpu", "llvm",    "cuda", "rocm",    "opencl",
                                           "mali",    "intel_graphics", "vta", "amd_apu", "adreno"};
    for (size_t i = 0; i < 10; i++) rows += list_row(f->out, backends[i], v, c, r);
    assert_int_equal(rows, 10);

    const char *path[] = {"path", "vtacpu", "--tophub-dir", f->dir, NULL};
    assert_int_equal(run(f, NULL, path), 0);
    snprintf(line, sizeof line, "%s/vta_v0.10.log\n", f->dir);
    assert_string_equal(f->out, line);

    const char *clear[] = {"clear", "--tophub-dir", f->dir, NULL};
    assert_int_equal(run(f, NULL, clear), 0);
    assert_non_null(strstr(f->out, "tophub: removed 2 files from ")); /* the pack and its lock file */
    struct stat st;
    assert_int_equal(stat(pack, &st), -1);
    assert_int_equal(run(f, NULL, list), 0);
    assert_true(list_row(f->out, "mali", v, c, r));
    assert_string_equal(c, "no");
}

static void failures_should_print_one_line_and_keep_the_cache(void **state)
{
    fixture *f = *state;
    char pack[1100];
    snprintf(pack, sizeof pack, "%s/vta_v0.10.log", f->dir);
    const char *fetch[] = {"fetch", "vta", "--tophub-dir", f->dir, "--location", where(f, "ok"), NULL};
    assert_int_equal(run(f, NULL, fetch), 0);

    static const struct {
        const char *mode, *says;
    } cases[] = {{"404", "HTTP 404"}, {"short", "body cut short"}, {"corrupt", "not a valid pack"}};
    for (size_t i = 0; i < 3; i++) {
        char loc[256];
        snprintf(loc, sizeof loc, "%s", where(f, cases[i].mode));
        const char *force[] = {"fetch", "vta", "--force", "--tophub-dir", f->dir, "--location", loc, NULL};
        assert_int_equal(run(f, NULL, force), 1);
        assert_string_equal(f->out, "");
        assert_int_equal(count_lines(f->err), 1);
        assert_non_null(strstr(f->err, "autotvm: error: tophub: cannot fetch vta_v0.10 from "));
        assert_non_null(strstr(f->err, loc));
        assert_non_null(strstr(f->err, cases[i].says));
        assert_non_null(strstr(f->err, "the cached copy is kept"));
        assert_true(same_bytes_as_shared(pack, "vta_v0.10.log"));
    }

    /* an unreachable mirror: a clear message within about a second */
    int fds[2];
    char loc[128];
    snprintf(loc, sizeof loc, "http://127.0.0.1:%d/ok", at_test_blackhole_port(fds));
    const char *force[] = {"fetch", "vta", "--force", "--tophub-dir", f->dir, "--location", loc, NULL};
    double t0 = at_clock_mono_s();
    assert_int_equal(run(f, NULL, force), 1);
    double dt = at_clock_mono_s() - t0;
    close(fds[0]);
    close(fds[1]);
    assert_true(dt < 1.8);
    assert_int_equal(count_lines(f->err), 1);
    assert_non_null(strstr(f->err, "timed out"));
    assert_true(same_bytes_as_shared(pack, "vta_v0.10.log"));
}

static void environment_should_pick_cache_and_mirror(void **state)
{
    fixture *f = *state;
    char env_dir[1100], loc_env[300], home_path[1100];
    snprintf(env_dir, sizeof env_dir, "AT_TOPHUB_DIR=%s/envcache", f->tmp);
    snprintf(loc_env, sizeof loc_env, "TOPHUB_LOCATION=%s", where(f, "ok"));
    const char *env[] = {env_dir, loc_env, NULL};
    const char *fetch[] = {"fetch", "ext_dev -device=vta", NULL};
    assert_int_equal(run(f, env, fetch), 0);
    char want[2048];
    snprintf(want, sizeof want, "tophub: vta_v0.10 (106 records) -> %s/vta_v0.10.log\n", env_dir + strlen("AT_TOPHUB_DIR="));
    assert_non_null(strstr(f->out, want));
    assert_int_equal(at_test_http_requests(f->srv), 1);

    /* TOPHUB_LOCATION=NONE: no request, a clear refusal */
    const char *off[] = {env_dir, "TOPHUB_LOCATION=NONE", NULL};
    const char *cuda[] = {"fetch", "cuda", NULL};
    assert_int_equal(run(f, off, cuda), 1);
    assert_non_null(strstr(f->err, "downloads are off (TOPHUB_LOCATION=NONE)"));
    assert_int_equal(at_test_http_requests(f->srv), 1);
    /* ... but a cached pack is still there to use */
    const char *vta[] = {"fetch", "vta", NULL};
    assert_int_equal(run(f, off, vta), 0);
    assert_non_null(strstr(f->out, want));
    assert_int_equal(at_test_http_requests(f->srv), 1);

    /* without either: ~/.tvm/tophub, as TVM */
    const char *path[] = {"path", "mali", NULL};
    assert_int_equal(run(f, NULL, path), 0);
    snprintf(home_path, sizeof home_path, "%s/.tvm/tophub/mali_v0.06.log\n", f->tmp);
    assert_string_equal(f->out, home_path);
}

static void bad_input_should_be_usage_errors(void **state)
{
    fixture *f = *state;
    static const char *const cases[][6] = {
        {"fetch", "../../evil_v0.01", NULL},
        {"path", "../evil", NULL},
        {"path", "metal", NULL},
        {"bogus", NULL},
        {"list", "extra", NULL},
        {"fetch", NULL},
        {NULL},
        {"clear", "--force", NULL},
        {"fetch", "opencl -device=mali", "--force", NULL},
        {"fetch", "mali", "--timeout-ms", "soon", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *env[] = {"TOPHUB_LOCATION=NONE", NULL};
        int rc = run(f, env, cases[i]);
        if (rc != 2 || !strstr(f->err, "autotvm tophub: error: ")) {
            print_error("case %zu: rc %d, stderr '%s'\n", i, rc, f->err);
            fail();
        }
    }
    /* nothing was written anywhere */
    char p[1100];
    snprintf(p, sizeof p, "%s/.tvm", f->tmp);
    struct stat st;
    assert_int_equal(stat(p, &st), -1);
    assert_int_equal(at_test_http_requests(f->srv), 0);

    const char *help[] = {"--help", NULL};
    assert_int_equal(run(f, NULL, help), 0);
    assert_non_null(strstr(f->out, "AT_TOPHUB_DIR"));
    assert_non_null(strstr(f->out, "TOPHUB_LOCATION"));
    assert_non_null(strstr(f->out, "--tophub-dir"));
    assert_non_null(strstr(f->out, "https://raw.githubusercontent.com/tlc-pack/tophub/main/tophub"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(fetch_list_path_clear_should_work_end_to_end, setup, teardown),
        cmocka_unit_test_setup_teardown(failures_should_print_one_line_and_keep_the_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(environment_should_pick_cache_and_mirror, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_input_should_be_usage_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
