/* tophub/: the version table, pack selection in TVM's order, name checks, the cache directory,
 * file:// mirrors, clearing, and dispatch from a cached pack (no network: see test_tophub_net;
 * allocation failures: test_tophub_alloc). */
#include "tests/support/test_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "records/best.h"
#include "records/log.h"
#include "tophub/tophub.h"

static char *dup_tmpdir(const char *tag)
{
    char *d = at_strdup(at_test_tmpdir(tag));
    assert_non_null(d);
    return d;
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = at_malloc(n);
    assert_non_null(s);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

static void copy_shared_pack(const char *name, const char *dir)
{
    char rel[256];
    snprintf(rel, sizeof rel, "data/tophub/%s", name);
    size_t len = 0;
    char *data = at_test_read_file(at_test_shared_path(rel), &len);
    assert_non_null(data);
    char *dst = join(dir, name);
    FILE *f = fopen(dst, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
    at_free(dst);
    at_free(data);
}

static bool same_bytes_as_shared(const char *path, const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "data/tophub/%s", name);
    size_t la = 0, lb = 0;
    char *a = at_test_read_file(path, &la);
    char *b = at_test_read_file(at_test_shared_path(rel), &lb);
    bool same = a && b && la == lb && memcmp(a, b, la) == 0;
    at_free(a);
    at_free(b);
    return same;
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

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- version table ---- */

static void version_table_should_be_tvm_v0_18s(void **state)
{
    (void)state;
    static const char *const want[AT_TOPHUB_PACKAGE_COUNT][3] = {
        {"arm_cpu", "v0.08", "arm_cpu_v0.08"}, {"llvm", "v0.04", "llvm_v0.04"},
        {"cuda", "v0.10", "cuda_v0.10"},       {"rocm", "v0.05", "rocm_v0.05"},
        {"opencl", "v0.04", "opencl_v0.04"},   {"mali", "v0.06", "mali_v0.06"},
        {"intel_graphics", "v0.02", "intel_graphics_v0.02"},
        {"vta", "v0.10", "vta_v0.10"},         {"amd_apu", "v0.01", "amd_apu_v0.01"},
        {"adreno", "v0.01", "adreno_v0.01"},
    };
    assert_int_equal(AT_TOPHUB_PACKAGE_COUNT, 10);
    for (size_t i = 0; i < AT_TOPHUB_PACKAGE_COUNT; i++) {
        const at_tophub_package *p = at_tophub_package_at(i);
        assert_string_equal(p->backend, want[i][0]);
        assert_string_equal(p->version, want[i][1]);
        assert_string_equal(p->pack, want[i][2]);
        assert_ptr_equal(at_tophub_find(want[i][0]), p);
        assert_ptr_equal(at_tophub_find_pack(want[i][2]), p);
        assert_true(at_tophub_is_pack_name(p->pack));
    }
    assert_null(at_tophub_find("metal"));
    assert_null(at_tophub_find("gpu"));
    assert_null(at_tophub_find_pack("mali_v0.05"));
}

static void aliases_should_map_as_tvms(void **state)
{
    (void)state;
    assert_string_equal(at_tophub_alias("vtacpu"), "vta");
    assert_string_equal(at_tophub_alias("webgpu"), "opencl");
    assert_string_equal(at_tophub_alias("vulkan"), "opencl");
    assert_string_equal(at_tophub_alias("nvptx"), "cuda");
    assert_string_equal(at_tophub_alias("amd_apu"), "amd_apu");
    assert_string_equal(at_tophub_alias("adreno"), "adreno");
    assert_string_equal(at_tophub_alias("mali"), "mali");
    assert_string_equal(at_tophub_alias("whatever"), "whatever");
    assert_string_equal(at_tophub_find("vtacpu")->pack, "vta_v0.10");
    assert_string_equal(at_tophub_find("nvptx")->pack, "cuda_v0.10");
    assert_string_equal(at_tophub_find("vulkan")->pack, "opencl_v0.04");
}

/* ---- which pack a target selects ---- */

static const struct {
    const char *target;
    const char *packs; /* candidates in order, space separated */
} selections[] = {
    {"opencl -device=mali", "mali_v0.06 opencl_v0.04"},
    {"opencl -model=rk3399 -device=mali", "mali_v0.06 opencl_v0.04"},
    {"opencl -device=mali -model=rk3399", "mali_v0.06 opencl_v0.04"},
    {"ext_dev -device=vta", "vta_v0.10"},
    {"ext_dev -device=vta -keys=vta,cpu -model=unknown", "vta_v0.10"},
    {"ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17", "vta_v0.10"},
    {"ext_dev -device=vtacpu", "vta_v0.10"},
    {"llvm -device=arm_cpu", "arm_cpu_v0.08 llvm_v0.04"},
    {"llvm -device=arm_cpu -model=bcm2837 -mtriple=armv7l-linux-gnueabihf -mattr=+neon", "arm_cpu_v0.08 llvm_v0.04"},
    {"llvm -keys=arm_cpu,cpu", "arm_cpu_v0.08 llvm_v0.04"},
    {"llvm", "llvm_v0.04"},
    {"llvm -mcpu=skylake-avx512", "llvm_v0.04"},
    {"cuda", "cuda_v0.10"},
    {"cuda -model=titanx", "cuda_v0.10"},
    {"nvptx", "cuda_v0.10"},
    {"rocm", "rocm_v0.05"},
    {"opencl", "opencl_v0.04"},
    {"vulkan", "opencl_v0.04"},
    {"webgpu", "opencl_v0.04"},
    {"vulkan -device=amd_apu", "amd_apu_v0.01 opencl_v0.04"},
    {"opencl -device=intel_graphics", "intel_graphics_v0.02 opencl_v0.04"},
    {"opencl -device=adreno", "adreno_v0.01 opencl_v0.04"},
    {"opencl -keys=adreno,opencl,gpu -device=adreno -max_num_threads=256", "adreno_v0.01 opencl_v0.04"},
    {"opencl -keys=mali", "mali_v0.06 opencl_v0.04"},
    {"opencl -device=unknown_gpu", "opencl_v0.04"},
    {"opencl -device=../../etc/passwd", "opencl_v0.04"},
    {"metal", ""},
    {"c", ""},
    {"hexagon", ""},
    {"ext_dev", ""},
};

static void targets_should_select_packs_in_tvms_order(void **state)
{
    (void)state;
    size_t n_checked = 0;
    for (size_t i = 0; i < sizeof selections / sizeof selections[0]; i++) {
        const at_tophub_package *c[AT_TOPHUB_PACKAGE_COUNT];
        size_t n = 99;
        assert_ok(at_tophub_candidates(selections[i].target, c, &n));
        char got[256] = "";
        for (size_t k = 0; k < n; k++) {
            if (k) strcat(got, " ");
            strcat(got, c[k]->pack);
        }
        if (strcmp(got, selections[i].packs) != 0) {
            print_error("target '%s': got '%s', want '%s'\n", selections[i].target, got, selections[i].packs);
            fail();
        }
        n_checked++;
    }
    assert_int_equal(n_checked, 30);
}

static void malformed_targets_should_be_parse_errors(void **state)
{
    (void)state;
    const at_tophub_package *c[AT_TOPHUB_PACKAGE_COUNT];
    size_t n = 7;
    assert_int_equal(at_tophub_candidates("", c, &n), AT_EPARSE);
    assert_int_equal(n, 0);
    assert_int_equal(at_tophub_candidates("notakind -device=mali", c, &n), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "notakind"));
}

/* ---- names ---- */

static void pack_names_should_be_validated(void **state)
{
    (void)state;
    static const char *const good[] = {"mali_v0.06", "a", "A-b.c_1", "intel_graphics_v0.02"};
    static const char *const bad[] = {
        "",           ".hidden",      "../x_v0.01", "a/b",        "a..b",         "mali_v0.06/../../x",
        "a b",        "a\nb",         "%2e%2e",     "/etc/passwd", "mali_v0.06\\x", "..",
        "x_v0.01.log/",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) assert_true(at_tophub_pack_name_is_valid(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_false(at_tophub_pack_name_is_valid(bad[i]));
    assert_false(at_tophub_pack_name_is_valid(NULL));
    char long_name[80];
    memset(long_name, 'a', 65);
    long_name[65] = '\0';
    assert_false(at_tophub_pack_name_is_valid(long_name));
    long_name[64] = '\0';
    assert_true(at_tophub_pack_name_is_valid(long_name));

    assert_true(at_tophub_is_pack_name("mali_v0.05"));
    assert_true(at_tophub_is_pack_name("my_pack_v12.345"));
    assert_false(at_tophub_is_pack_name("mali"));
    assert_false(at_tophub_is_pack_name("mali_v0."));
    assert_false(at_tophub_is_pack_name("mali_v.06"));
    assert_false(at_tophub_is_pack_name("mali_v0.06x"));
    assert_false(at_tophub_is_pack_name("../mali_v0.06"));
}

static void hostile_pack_names_should_never_become_paths(void **state)
{
    (void)state;
    char *root = dup_tmpdir("tophub_hostile");
    char *cache = join(root, "cache");
    at_tophub_opts o = {.cache_dir = cache, .location = "file:///nonexistent"};
    static const char *const hostile[] = {"../evil_v0.01", "sub/evil_v0.01", "..", ".evil_v0.01", "/tmp/evil_v0.01"};
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        static char sentinel[] = "unchanged";
        char *path = sentinel;
        assert_int_equal(at_tophub_pack_path(&o, hostile[i], &path), AT_EINVAL);
        assert_null(path);
        assert_non_null(strstr(at_last_error(), "invalid pack name"));
        at_tophub_info info;
        assert_int_equal(at_tophub_fetch(&o, hostile[i], true, &info), AT_EINVAL);
        assert_null(info.path);
        assert_int_equal(at_tophub_cached(&o, hostile[i], &info), AT_EINVAL);
    }
    /* nothing was created, not even the cache directory */
    assert_false(exists(cache));
    char *evil = join(root, "evil_v0.01.log");
    assert_false(exists(evil));
    at_free(evil);
    rm_rf_flat(root);
    at_free(cache);
    at_free(root);
}

/* ---- options ---- */

static void cache_dir_should_come_from_opts_then_env_then_home(void **state)
{
    (void)state;
    char *saved_home = getenv("HOME") ? at_strdup(getenv("HOME")) : NULL;
    char *d = NULL;
    setenv("HOME", "/home/someone", 1);
    unsetenv(AT_TOPHUB_DIR_ENV);
    assert_ok(at_tophub_cache_dir(NULL, &d));
    assert_string_equal(d, "/home/someone/.tvm/tophub");
    at_free(d);
    setenv("HOME", "/home/someone/", 1);
    assert_ok(at_tophub_cache_dir(NULL, &d));
    assert_string_equal(d, "/home/someone/.tvm/tophub");
    at_free(d);
    setenv(AT_TOPHUB_DIR_ENV, "/var/cache/th//", 1);
    assert_ok(at_tophub_cache_dir(NULL, &d));
    assert_string_equal(d, "/var/cache/th");
    at_free(d);
    at_tophub_opts o = {.cache_dir = "/opt/packs"};
    assert_ok(at_tophub_cache_dir(&o, &d));
    assert_string_equal(d, "/opt/packs");
    at_free(d);
    assert_ok(at_tophub_pack_path(&o, "mali_v0.06", &d));
    assert_string_equal(d, "/opt/packs/mali_v0.06.log");
    at_free(d);
    unsetenv(AT_TOPHUB_DIR_ENV);
    unsetenv("HOME");
    static char sentinel[] = "unchanged";
    d = sentinel;
    assert_int_equal(at_tophub_cache_dir(NULL, &d), AT_EINVAL);
    assert_null(d);
    assert_non_null(strstr(at_last_error(), "HOME"));
    if (saved_home) {
        setenv("HOME", saved_home, 1);
        at_free(saved_home);
    }
}

static void location_should_come_from_opts_then_env_then_default(void **state)
{
    (void)state;
    char *saved = getenv(AT_TOPHUB_LOCATION_ENV) ? at_strdup(getenv(AT_TOPHUB_LOCATION_ENV)) : NULL;
    unsetenv(AT_TOPHUB_LOCATION_ENV);
    assert_string_equal(at_tophub_location(NULL), "https://raw.githubusercontent.com/tlc-pack/tophub/main/tophub");
    assert_false(at_tophub_is_off(NULL));
    setenv(AT_TOPHUB_LOCATION_ENV, "NONE", 1);
    assert_string_equal(at_tophub_location(NULL), "NONE");
    assert_true(at_tophub_is_off(NULL));
    at_tophub_opts o = {.location = "http://mirror.example/tophub"};
    assert_string_equal(at_tophub_location(&o), "http://mirror.example/tophub");
    assert_false(at_tophub_is_off(&o));
    unsetenv(AT_TOPHUB_LOCATION_ENV);
    if (saved) {
        setenv(AT_TOPHUB_LOCATION_ENV, saved, 1);
        at_free(saved);
    }
}

static void plain_paths_should_be_refused_as_locations(void **state)
{
    (void)state;
    char *dir = dup_tmpdir("tophub_loc");
    at_tophub_opts o = {.cache_dir = dir, .location = "/srv/tophub"};
    at_tophub_info info;
    assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", false, &info), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "file://"));
    o.location = "ftp://mirror.example/tophub";
    assert_int_equal(at_tophub_fetch(&o, "mali_v0.06", false, &info), AT_EINVAL);
    rm_rf_flat(dir);
    at_free(dir);
}

/* ---- the cache ---- */

static void cached_packs_should_report_their_record_counts(void **state)
{
    (void)state;
    char *dir = dup_tmpdir("tophub_cached");
    at_tophub_opts o = {.cache_dir = dir, .location = AT_TOPHUB_NONE_LOCATION};
    at_tophub_info info;
    assert_int_equal(at_tophub_cached(&o, "mali_v0.06", &info), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), "not cached"));
    copy_shared_pack("mali_v0.06.log", dir);
    copy_shared_pack("vta_v0.10.log", dir);
    assert_ok(at_tophub_cached(&o, "mali_v0.06", &info));
    assert_int_equal(info.n_records, 528);
    assert_int_equal(info.n_bad, 0);
    assert_int_equal(info.bytes, 318180);
    assert_false(info.downloaded);
    char *want = join(dir, "mali_v0.06.log");
    assert_string_equal(info.path, want);
    at_free(want);
    at_tophub_info_fini(&info);
    assert_null(info.path);
    assert_ok(at_tophub_cached(&o, "vta_v0.10", &info));
    assert_int_equal(info.n_records, 106);
    assert_int_equal(info.bytes, 63738);
    at_tophub_info_fini(&info);
    rm_rf_flat(dir);
    at_free(dir);
}

static void location_none_should_use_the_cache_and_never_download(void **state)
{
    (void)state;
    char *dir = dup_tmpdir("tophub_none");
    at_tophub_opts o = {.cache_dir = dir, .location = AT_TOPHUB_NONE_LOCATION};
    at_tophub_info info;
    assert_int_equal(at_tophub_fetch(&o, "vta_v0.10", false, &info), AT_EUNSUPPORTED);
    assert_non_null(strstr(at_last_error(), "NONE"));
    copy_shared_pack("vta_v0.10.log", dir);
    assert_ok(at_tophub_fetch(&o, "vta_v0.10", false, &info));
    assert_false(info.downloaded);
    assert_int_equal(info.n_records, 106);
    at_tophub_info_fini(&info);
    assert_int_equal(at_tophub_fetch(&o, "vta_v0.10", true, &info), AT_EUNSUPPORTED);
    rm_rf_flat(dir);
    at_free(dir);
}

static void file_mirrors_should_give_byte_identical_packs(void **state)
{
    (void)state;
    char *dir = dup_tmpdir("tophub_file");
    char *cache = join(dir, "deep/er/cache");
    char loc[4200];
    snprintf(loc, sizeof loc, "file://%s", at_test_shared_path("data/tophub"));
    at_tophub_opts o = {.cache_dir = cache, .location = loc};
    at_tophub_info info;
    assert_ok(at_tophub_fetch(&o, "mali_v0.06", false, &info));
    assert_true(info.downloaded);
    assert_int_equal(info.n_records, 528);
    assert_int_equal(info.bytes, 318180);
    assert_true(same_bytes_as_shared(info.path, "mali_v0.06.log"));
    struct stat st;
    assert_int_equal(stat(info.path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    at_tophub_info_fini(&info);
    /* a second fetch is a cache hit */
    assert_ok(at_tophub_fetch(&o, "mali_v0.06", false, &info));
    assert_false(info.downloaded);
    assert_int_equal(info.n_records, 528);
    at_tophub_info_fini(&info);
    /* a pack the mirror lacks */
    assert_int_equal(at_tophub_fetch(&o, "cuda_v0.10", false, &info), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), "cannot fetch cuda_v0.10 from file://"));
    char *cuda = join(cache, "cuda_v0.10.log");
    assert_false(exists(cuda));
    at_free(cuda);
    rm_rf_flat(cache);
    at_free(cache);
    char *p = join(dir, "deep/er");
    rmdir(p);
    at_free(p);
    p = join(dir, "deep");
    rmdir(p);
    at_free(p);
    rmdir(dir);
    at_free(dir);
}

static void clear_should_remove_only_tophub_files(void **state)
{
    (void)state;
    char *dir = dup_tmpdir("tophub_clear");
    static const char *const ours[] = {"mali_v0.06.log", "vta_v0.10.log", "mali_v0.05.log", ".mali_v0.06.lock",
                                       ".vta_v0.10.log.Ab12Cd"};
    static const char *const theirs[] = {"notes.txt", "my.log", "mali.log", ".bashrc", "mali_v0.06.log.bak"};
    for (size_t i = 0; i < 5; i++) {
        char *p = join(dir, ours[i]);
        at_test_write_file(p, "x\n");
        at_free(p);
        p = join(dir, theirs[i]);
        at_test_write_file(p, "x\n");
        at_free(p);
    }
    char *sub = join(dir, "cuda_v0.10.log");
    assert_int_equal(mkdir(sub, 0755), 0); /* a directory with a pack's name is not ours to remove */
    at_tophub_opts o = {.cache_dir = dir};
    size_t n = 99;
    assert_ok(at_tophub_clear(&o, &n));
    assert_int_equal(n, 5);
    for (size_t i = 0; i < 5; i++) {
        char *p = join(dir, ours[i]);
        assert_false(exists(p));
        at_free(p);
        p = join(dir, theirs[i]);
        assert_true(exists(p));
        at_free(p);
    }
    assert_true(exists(sub));
    assert_ok(at_tophub_clear(&o, &n));
    assert_int_equal(n, 0);
    rmdir(sub);
    at_free(sub);
    rm_rf_flat(dir);
    /* a cache directory that does not exist is already clear */
    assert_ok(at_tophub_clear(&o, &n));
    assert_int_equal(n, 0);
    at_free(dir);
}

/* ---- dispatch ---- */

static const at_rec *query(const at_rec_best *b, const char *target, const at_rec *like)
{
    at_target t;
    assert_ok(at_target_parse(target, &t));
    const at_rec *r = at_rec_best_query(b, &t, like->task_name, like->args_json);
    at_target_fini(&t);
    return r;
}

static void context_should_load_the_selected_pack_below_user_logs(void **state)
{
    (void)state;
    char *dir = dup_tmpdir("tophub_ctx");
    copy_shared_pack("mali_v0.06.log", dir);
    copy_shared_pack("vta_v0.10.log", dir);
    at_tophub_opts o = {.cache_dir = dir, .location = "file:///nonexistent-mirror"};
    at_rec_best *hub = NULL;
    assert_ok(at_rec_best_new(&hub));
    const at_tophub_package *used = NULL;
    size_t n = 0;
    assert_ok(at_tophub_context(&o, "opencl -device=mali", hub, &used, &n));
    assert_non_null(used);
    assert_string_equal(used->pack, "mali_v0.06");
    assert_int_equal(n, 528);
    assert_int_equal(at_rec_best_n_target_keys(hub), 3 * 528); /* keys mali, opencl, gpu */

    /* a user log with a better config for the first workload of the pack (line 3) */
    char *pack_path = join(dir, "mali_v0.06.log");
    at_rec_log *pack = NULL;
    assert_ok(at_rec_log_load_file(pack_path, &pack));
    assert_int_equal(pack->n, 528);
    const char *user_line =
        "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"dense.mali\", [[\"TENSOR\", [1, 1024], \"float32\"], "
        "[\"TENSOR\", [1000, 1024], \"float32\"], [\"TENSOR\", [1000], \"float32\"], null], {}], \"config\": {\"index\": "
        "406, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [1, 1, 1]], [\"tile_x\", \"sp\", [40, 25, 1]], "
        "[\"c_unroll\", \"sp\", [32, 32]]]}, \"result\": [[0.0001], 0, 0.5, 1700000000.0], \"version\": 0.2, "
        "\"tvm_version\": \"0.18.0\"}\n";
    at_rec_log *user = NULL;
    assert_ok(at_rec_log_load_buffer("user.log", user_line, strlen(user_line), &user));
    assert_int_equal(user->n, 1);
    at_rec_best *mine = NULL;
    assert_ok(at_rec_best_new(&mine));
    assert_ok(at_rec_best_take_log(mine, user));

    const at_rec_best *stack[2] = {mine, hub};
    at_target t;
    assert_ok(at_target_parse("opencl -device=mali -model=rk3399", &t));
    size_t which = 9;
    const at_rec *r = at_rec_best_query_stack(stack, 2, &t, pack->recs[0].task_name, pack->recs[0].args_json, &which);
    assert_non_null(r);
    assert_int_equal(which, 0);
    assert_int_equal(at_config_index(r->config), 406);
    /* a workload only TopHub knows comes from the pack */
    r = at_rec_best_query_stack(stack, 2, &t, pack->recs[1].task_name, pack->recs[1].args_json, &which);
    assert_non_null(r);
    assert_int_equal(which, 1);
    assert_int_equal(at_config_index(r->config), 36225);
    at_target_fini(&t);
    /* without -model the keys still find it */
    r = query(hub, "opencl -device=mali", &pack->recs[1]);
    assert_non_null(r);
    assert_int_equal(at_config_index(r->config), 36225);
    at_rec_best_free(mine);
    at_rec_log_free(pack);
    at_free(pack_path);
    at_rec_best_free(hub);

    /* VTA picks vta_v0.10 */
    assert_ok(at_rec_best_new(&hub));
    assert_ok(at_tophub_context(&o, "ext_dev -device=vta -keys=vta,cpu -model=unknown", hub, &used, &n));
    assert_string_equal(used->pack, "vta_v0.10");
    assert_int_equal(n, 106);
    at_rec_best_free(hub);
    rm_rf_flat(dir);
    at_free(dir);
}

static int n_warnings;
static void count_warnings(at_log_level level, const char *msg, void *user)
{
    (void)msg;
    (void)user;
    if (level == AT_LOG_WARN) n_warnings++;
}

static void context_should_be_empty_when_off_or_without_a_pack(void **state)
{
    (void)state;
    char *dir = dup_tmpdir("tophub_ctx_off");
    copy_shared_pack("mali_v0.06.log", dir);
    at_tophub_opts o = {.cache_dir = dir, .location = AT_TOPHUB_NONE_LOCATION};
    at_rec_best *hub = NULL;
    assert_ok(at_rec_best_new(&hub));
    const at_tophub_package *used = (const at_tophub_package *)1;
    size_t n = 7;
    /* TOPHUB_LOCATION=NONE: an empty context, the cached pack included (as TVM) */
    assert_ok(at_tophub_context(&o, "opencl -device=mali", hub, &used, &n));
    assert_null(used);
    assert_int_equal(n, 0);
    assert_int_equal(at_rec_best_n_target_keys(hub), 0);
    /* a target TopHub has nothing for */
    o.location = "file:///nonexistent-mirror";
    assert_ok(at_tophub_context(&o, "metal", hub, &used, &n));
    assert_null(used);
    /* a pack that cannot be had: warnings, then AT_OK with nothing loaded */
    at_log_set_sink(count_warnings, NULL);
    n_warnings = 0;
    assert_ok(at_tophub_context(&o, "cuda", hub, &used, &n));
    at_log_set_sink(NULL, NULL);
    assert_null(used);
    assert_int_equal(n, 0);
    assert_int_equal(n_warnings, 2); /* the failed fetch, then "going on without TopHub records" */
    assert_int_equal(at_rec_best_n_target_keys(hub), 0);
    assert_int_equal(at_tophub_context(&o, "bogus_kind", hub, &used, &n), AT_EPARSE);
    at_rec_best_free(hub);
    rm_rf_flat(dir);
    at_free(dir);
}

static void reference_log_should_pick_model_then_template(void **state)
{
    (void)state;
    char *dir = dup_tmpdir("tophub_ref");
    copy_shared_pack("mali_v0.06.log", dir);
    copy_shared_pack("vta_v0.10.log", dir);
    at_tophub_opts o = {.cache_dir = dir, .location = AT_TOPHUB_NONE_LOCATION};
    static const struct {
        const char *backend, *model, *tmpl;
        size_t n;
        const char *model_of_result;
    } cases[] = {
        {"mali", "rk3399", "conv2d_nchw_winograd.mali", 63, "rk3399"},
        {"mali", "rk3399", "dense.mali", 14, "rk3399"},
        {"mali", "unknown", "depthwise_conv2d_nchw.mali", 45, "rk3399"}, /* most records */
        {"mali", "rk3399", "conv2d_packed.vta", 0, NULL},
        {"vta", "pynq_4x8_i8w8a32_15_16_16_18", "conv2d_packed.vta", 32, "pynq_4x8_i8w8a32_15_16_16_18"},
        {"vta", "zcu104", "conv2d_packed.vta", 54, "pynq_1x16_i8w8a32_15_15_18_17"},
        {"vtacpu", "pynq", "dense_nopack.x86", 4, "pynq"},
        {"metal", "m1", "dense.mali", 0, NULL},
        {"cuda", "titanx", "conv2d_nchw.cuda", 0, NULL}, /* not cached, downloads off */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_rec_log *log = NULL;
        assert_ok(at_tophub_load_reference_log(&o, cases[i].backend, cases[i].model, cases[i].tmpl, &log));
        assert_non_null(log);
        if (log->n != cases[i].n) {
            print_error("case %zu (%s %s %s): %zu records, want %zu\n", i, cases[i].backend, cases[i].model,
                        cases[i].tmpl, log->n, cases[i].n);
            fail();
        }
        for (size_t k = 0; k < log->n; k++) {
            assert_string_equal(log->recs[k].task_name, cases[i].tmpl);
            assert_string_equal(log->recs[k].target.model, cases[i].model_of_result);
            if (k) assert_true(log->recs[k].line > log->recs[k - 1].line); /* file order */
        }
        at_rec_log_free(log);
    }
    rm_rf_flat(dir);
    at_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_table_should_be_tvm_v0_18s),
        cmocka_unit_test(aliases_should_map_as_tvms),
        cmocka_unit_test(targets_should_select_packs_in_tvms_order),
        cmocka_unit_test(malformed_targets_should_be_parse_errors),
        cmocka_unit_test(pack_names_should_be_validated),
        cmocka_unit_test(hostile_pack_names_should_never_become_paths),
        cmocka_unit_test(cache_dir_should_come_from_opts_then_env_then_home),
        cmocka_unit_test(location_should_come_from_opts_then_env_then_default),
        cmocka_unit_test(plain_paths_should_be_refused_as_locations),
        cmocka_unit_test(cached_packs_should_report_their_record_counts),
        cmocka_unit_test(location_none_should_use_the_cache_and_never_download),
        cmocka_unit_test(file_mirrors_should_give_byte_identical_packs),
        cmocka_unit_test(clear_should_remove_only_tophub_files),
        cmocka_unit_test(context_should_load_the_selected_pack_below_user_logs),
        cmocka_unit_test(context_should_be_empty_when_off_or_without_a_pack),
        cmocka_unit_test(reference_log_should_pick_model_then_template),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
