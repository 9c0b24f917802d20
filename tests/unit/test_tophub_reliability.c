/* tophub/ against a hostile mirror and interrupted fetches (issue 19): a pack whose records are
 * for another backend (a mali pack served as vta_v0.10) never becomes the cache file, and the temp
 * files a killed fetch left are removed by the next fetch of that pack. file:// mirrors only. */
#include "tests/support/test_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"
#include "tophub/tophub.h"

static void quiet(at_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)msg;
    (void)user;
}

/* Copies shared/data/tophub/<from> to dir/<to>. */
static void copy_pack(const char *from, const char *dir, const char *to)
{
    char rel[128], dst[4200];
    snprintf(rel, sizeof rel, "data/tophub/%s", from);
    size_t len;
    char *t = at_test_read_file(at_test_shared_path(rel), &len);
    assert_non_null(t);
    snprintf(dst, sizeof dst, "%s/%s", dir, to);
    at_test_write_file(dst, t);
    at_free(t);
}

/* Entries of dir (without "." and ".."), sorted, joined by " ". */
static char *listing(const char *dir)
{
    char names[32][256];
    size_t n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        assert_true(n < 32);
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char tmp[256];
            memcpy(tmp, names[j], sizeof tmp);
            memcpy(names[j], names[j - 1], sizeof tmp);
            memcpy(names[j - 1], tmp, sizeof tmp);
        }
    char *out = at_malloc(32 * 257 + 1);
    assert_non_null(out);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(out, " ");
        strcat(out, names[i]);
    }
    return out;
}

static void a_pack_for_another_backend_should_not_be_cached(void **state)
{
    (void)state;
    char mirror[4096], cache[4096], loc[4200];
    snprintf(mirror, sizeof mirror, "%s", at_test_tmpdir("rel_th_mirror"));
    snprintf(cache, sizeof cache, "%s", at_test_tmpdir("rel_th_cache"));
    snprintf(loc, sizeof loc, "file://%s", mirror);
    /* the mirror serves the mali pack under vta's name */
    copy_pack("mali_v0.06.log", mirror, "vta_v0.10.log");
    copy_pack("mali_v0.06.log", mirror, "mali_v0.06.log");
    at_tophub_opts o = {.cache_dir = cache, .location = loc};
    at_tophub_info info;
    assert_int_equal(at_tophub_fetch(&o, "vta_v0.10", false, &info), AT_EPARSE);
    assert_null(info.path);
    const char *e = at_last_error();
    assert_non_null(strstr(e, "tophub: cannot fetch vta_v0.10 from file://"));
    assert_non_null(strstr(e, "not a vta pack: none of its 528 records has a target that selects vta (the first's is "
                              "'opencl -model=rk3399 -device=mali')"));
    char *ls = listing(cache);
    assert_string_equal(ls, ".vta_v0.10.lock"); /* no pack, no temp file */
    at_free(ls);
    /* the same bytes under their own name are fine, and so is the real vta pack (whose records
     * include arm_cpu ones) */
    assert_ok(at_tophub_fetch(&o, "mali_v0.06", false, &info));
    assert_int_equal(info.n_records, 528);
    at_tophub_info_fini(&info);
    copy_pack("vta_v0.10.log", mirror, "vta_v0.10.log");
    assert_ok(at_tophub_fetch(&o, "vta_v0.10", false, &info));
    assert_int_equal(info.n_records, 106);
    at_tophub_info_fini(&info);
}

static void a_fetch_should_remove_the_temp_files_of_an_interrupted_one(void **state)
{
    (void)state;
    char mirror[4096], cache[4096], loc[4200], path[4300];
    snprintf(mirror, sizeof mirror, "%s", at_test_tmpdir("rel_th_mirror2"));
    snprintf(cache, sizeof cache, "%s", at_test_tmpdir("rel_th_cache2"));
    snprintf(loc, sizeof loc, "file://%s", mirror);
    copy_pack("mali_v0.06.log", mirror, "mali_v0.06.log");
    /* what two killed fetches of mali left (mkstemp names), and files that are not ours */
    static const char *const left[] = {".mali_v0.06.log.Ab12Cd", ".mali_v0.06.log.zzzzzz"};
    static const char *const others[] = {".mali_v0.06.log.toolong1", ".vta_v0.10.log.Ab12Cd", "notes.txt"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", cache, left[i]);
        at_test_write_file(path, "{\"input\": [\"opencl -device=mali\", \"conv2d_nchw_spatial");
    }
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", cache, others[i]);
        at_test_write_file(path, "x");
    }
    at_tophub_opts o = {.cache_dir = cache, .location = loc};
    at_tophub_info info;
    assert_ok(at_tophub_fetch(&o, "mali_v0.06", false, &info));
    assert_true(info.downloaded);
    at_tophub_info_fini(&info);
    char *ls = listing(cache);
    assert_string_equal(ls, ".mali_v0.06.lock .mali_v0.06.log.toolong1 .vta_v0.10.log.Ab12Cd mali_v0.06.log notes.txt");
    at_free(ls);
}

int main(void)
{
    at_log_set_sink(quiet, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pack_for_another_backend_should_not_be_cached),
        cmocka_unit_test(a_fetch_should_remove_the_temp_files_of_an_interrupted_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
