/* tophub/ under allocation failure: every call that reads, loads or downloads a pack returns
 * AT_ENOMEM and leaves no block behind whichever allocation fails, and a download that fails so
 * keeps the old cache file and leaves no temp file. */
#include "tests/support/test_support.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"
#include "records/best.h"
#include "records/log.h"
#include "tophub/tophub.h"

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = at_malloc(n);
    assert_non_null(s);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

static void rm_rf_flat(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = join(dir, e->d_name);
        if (unlink(p) != 0) rmdir(p);
        at_free(p);
    }
    closedir(d);
    rmdir(dir);
}

static void quiet(at_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)msg;
    (void)user;
}

/* Runs one call with allocation k failing, for k = 0, 1, ... until it succeeds: each failing run
 * must return AT_ENOMEM and leave no block behind. Returns the number of failing runs. */
typedef at_status (*oom_call)(const at_tophub_opts *o);

static at_status oom_cached(const at_tophub_opts *o)
{
    at_tophub_info info;
    at_status st = at_tophub_cached(o, "mali_v0.06", &info);
    if (st == AT_OK) assert_int_equal(info.n_records, 2);
    at_tophub_info_fini(&info);
    return st;
}

static at_status oom_context(const at_tophub_opts *o)
{
    at_rec_best *b = NULL;
    size_t n = 0;
    at_status st = at_rec_best_new(&b);
    if (st == AT_OK) st = at_tophub_context(o, "opencl -device=mali", b, NULL, &n);
    if (st == AT_OK) assert_int_equal(n, 2);
    at_rec_best_free(b);
    return st;
}

static at_status oom_reference(const at_tophub_opts *o)
{
    at_rec_log *log = NULL;
    at_status st = at_tophub_load_reference_log(o, "mali", "rk3399", "dense.mali", &log);
    if (st == AT_OK) assert_int_equal(log->n, 1);
    at_rec_log_free(log);
    return st;
}

static at_status oom_fetch(const at_tophub_opts *o)
{
    at_tophub_info info;
    at_status st = at_tophub_fetch(o, "mali_v0.06", true, &info);
    if (st == AT_OK) {
        assert_true(info.downloaded);
        assert_int_equal(info.n_records, 2);
    } else {
        /* a failed download leaves the old file and no temp file */
        at_tophub_info old;
        at_tophub_opts off = *o;
        off.location = AT_TOPHUB_NONE_LOCATION;
        at_alloc_fail_after(-1);
        assert_ok(at_tophub_cached(&off, "mali_v0.06", &old));
        assert_int_equal(old.n_records, 2);
        at_tophub_info_fini(&old);
        DIR *d = opendir(o->cache_dir);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) assert_null(strstr(e->d_name, ".log."));
        closedir(d);
    }
    at_tophub_info_fini(&info);
    return st;
}

static size_t fail_each_allocation(oom_call call, const at_tophub_opts *o)
{
    long base = at_alloc_live();
    for (long k = 0; k < 100000; k++) {
        at_alloc_fail_after(k);
        at_status st = call(o);
        at_alloc_fail_after(-1);
        assert_int_equal(at_alloc_live(), base);
        if (st == AT_OK) return (size_t)k;
        assert_int_equal(st, AT_ENOMEM);
    }
    fail();
    return 0;
}

static void every_allocation_failure_should_be_clean(void **state)
{
    (void)state;
    char *dir = at_strdup(at_test_tmpdir("tophub_oom"));
    assert_non_null(dir);
    /* a pack of two comment lines and two records (dense.mali, spatial pack) keeps the loops short */
    size_t len = 0;
    char *mali = at_test_read_file(at_test_shared_path("data/tophub/mali_v0.06.log"), &len);
    assert_non_null(mali);
    char *end = mali;
    for (int lines = 0; lines < 4; lines++) end = strchr(end, '\n') + 1;
    *end = '\0';
    char *path = join(dir, "mali_v0.06.log");
    at_test_write_file(path, mali);
    at_tophub_opts o = {.cache_dir = dir, .location = "file:///nonexistent-mirror"};
    at_log_set_sink(quiet, NULL);
    size_t n1 = fail_each_allocation(oom_cached, &o);
    size_t n2 = fail_each_allocation(oom_context, &o);
    size_t n3 = fail_each_allocation(oom_reference, &o);
    /* downloads: the same pack from a file:// mirror (dir itself) into a second cache */
    char *cache2 = join(dir, "cache2");
    char mirror[4200];
    snprintf(mirror, sizeof mirror, "file://%s", dir);
    at_tophub_opts o2 = {.cache_dir = cache2, .location = mirror};
    assert_int_equal(mkdir(cache2, 0755), 0);
    char *old = join(cache2, "mali_v0.06.log");
    at_test_write_file(old, mali);
    size_t n4 = fail_each_allocation(oom_fetch, &o2);
    at_log_set_sink(NULL, NULL);
    assert_true(n1 > 20);
    assert_true(n2 > n1);
    assert_true(n3 > 20);
    assert_true(n4 > 20);
    rm_rf_flat(cache2);
    at_free(mali);
    at_free(old);
    at_free(cache2);
    at_free(path);
    rm_rf_flat(dir);
    at_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_allocation_failure_should_be_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
