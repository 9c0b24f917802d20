/* knobs/space against real TopHub data (shared/data/tophub/mali_v0.06.log, explicit-size splits
 * written by TVM 0.7.dev0): the Mali templates' spaces (spec/templates_vta.md 1.2-1.5) are
 * rebuilt by hand here, every record must map onto its own index, and the fallback
 * reference-log vectors of spec/templates_vta.md 0.2b must come out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/json.h"
#include "knobs/space.h"
#include "tests/support/test_support.h"

#define MAX_RECS 600

typedef struct rec {
    int        line;      /* 1-based line in the log */
    char       tmpl[48];  /* input[1] */
    int64_t    data[4];   /* data shape (dense: 2 dims) */
    int64_t    kernel[4]; /* kernel / weight shape */
    int64_t    stride[2], pad[4], dil[2];
    at_config *cfg;
} rec;

static rec recs[MAX_RECS];
static size_t n_recs;

static void read_ints(const cJSON *arr, int64_t *out, size_t max)
{
    assert_true(cJSON_IsArray(arr));
    size_t i = 0;
    for (const cJSON *it = arr->child; it && i < max; it = it->next, i++) assert_ok(at_json_get_int64(it, &out[i]));
}

static int load_log(void **state)
{
    (void)state;
    size_t len;
    char *text = at_test_read_file(at_test_shared_path("data/tophub/mali_v0.06.log"), &len);
    assert_non_null(text);
    int line = 0;
    for (char *p = text; *p;) {
        char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        line++;
        if (n > 0 && p[0] != '#') {
            assert_true(n_recs < MAX_RECS);
            rec *r = &recs[n_recs++];
            cJSON *root;
            assert_ok(at_json_parse(p, n, &root));
            const cJSON *input = cJSON_GetObjectItemCaseSensitive(root, "input");
            const cJSON *name = cJSON_GetArrayItem(input, 1), *args = cJSON_GetArrayItem(input, 2);
            r->line = line;
            snprintf(r->tmpl, sizeof r->tmpl, "%s", name->valuestring);
            read_ints(cJSON_GetArrayItem(cJSON_GetArrayItem(args, 0), 1), r->data, 4);
            read_ints(cJSON_GetArrayItem(cJSON_GetArrayItem(args, 1), 1), r->kernel, 4);
            if (strcmp(r->tmpl, "dense.mali") != 0) {
                read_ints(cJSON_GetArrayItem(args, 2), r->stride, 2);
                read_ints(cJSON_GetArrayItem(args, 3), r->pad, 4);
                read_ints(cJSON_GetArrayItem(args, 4), r->dil, 2);
            }
            assert_ok(at_config_from_json(cJSON_GetObjectItemCaseSensitive(root, "config"), &r->cfg));
            at_json_free(root);
        }
        p += n + (end ? 1 : 0);
    }
    at_free(text);
    return 0;
}

static int free_log(void **state)
{
    (void)state;
    for (size_t i = 0; i < n_recs; i++) at_config_free(recs[i].cfg);
    n_recs = 0;
    return 0;
}

static int64_t out_size(int64_t in, int64_t pad_a, int64_t pad_b, int64_t k, int64_t dil, int64_t stride)
{
    return (in + pad_a + pad_b - ((k - 1) * dil + 1)) / stride + 1;
}

enum { DN_TILE_Y, DN_TILE_X, DN_C_UNROLL, DN_N };

/* dense.mali: tile_y split(M, 3), tile_x split(N, 3), c_unroll split(K, 2, max_factor 64). */
static at_space *dense_space(int64_t m, int64_t n, int64_t k)
{
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_split(s, DN_TILE_Y, "tile_y", m, 3));
    assert_ok(at_space_split(s, DN_TILE_X, "tile_x", n, 3));
    assert_ok(at_space_split_ex(s, DN_C_UNROLL, "c_unroll", k, &(at_split_opts){.num_outputs = 2, .max_factor = 64}));
    return s;
}

enum { SP_TILE_CO, SP_TILE_OH, SP_TILE_OW, SP_REORDER_0, SP_ANN_REDUCE, SP_ANN_SPATIAL, SP_N };

/* conv2d_nchw_spatial_pack.mali (num_tile 3). */
static at_space *spatial_pack_space(int64_t co, int64_t oh, int64_t ow)
{
    static const int64_t perms[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 9, 7, 8};
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_split(s, SP_TILE_CO, "tile_co", co, 3));
    assert_ok(at_space_split(s, SP_TILE_OH, "tile_oh", oh, 3));
    assert_ok(at_space_split(s, SP_TILE_OW, "tile_ow", ow, 3));
    assert_ok(at_space_reorder_ex(s, SP_REORDER_0, "reorder_0", 10,
                                  &(at_reorder_opts){.policy = AT_REORDER_CANDIDATE, .candidates = perms, .n_candidates = 2}));
    assert_ok(at_space_annotate(s, SP_ANN_REDUCE, "ann_reduce", 2, "try_unroll"));
    assert_ok(at_space_annotate(s, SP_ANN_SPATIAL, "ann_spatial", 3, "try_unroll_vec"));
    return s;
}

enum { DW_TILE_C, DW_TILE_Y, DW_TILE_X, DW_ANN_SPATIAL, DW_N };

/* depthwise_conv2d_nchw.mali. */
static at_space *depthwise_space(int64_t c, int64_t oh, int64_t ow)
{
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_split(s, DW_TILE_C, "tile_c", c, 3));
    assert_ok(at_space_split(s, DW_TILE_Y, "tile_y", oh, 3));
    assert_ok(at_space_split(s, DW_TILE_X, "tile_x", ow, 3));
    assert_ok(at_space_annotate(s, DW_ANN_SPATIAL, "ann_spatial", 3, "try_unroll_vec"));
    return s;
}

enum { WG_TILE_BNA, WG_TILE_BNB, WG_TILE_T1, WG_TILE_T2, WG_C_UNROLL, WG_YT, WG_N };

/* conv2d_nchw_winograd.mali. */
static at_space *winograd_space(int64_t ci, int64_t co)
{
    static const int64_t bn[] = {1, 2, 4, 8, 16}, yt[] = {1, 2, 4, 8, 16, 32};
    int64_t bna[5];
    size_t n_bna = 0;
    for (size_t i = 0; i < 5; i++)
        if (co % bn[i] == 0) bna[n_bna++] = bn[i];
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_other(s, WG_TILE_BNA, "tile_bna", bna, n_bna));
    assert_ok(at_space_other(s, WG_TILE_BNB, "tile_bnb", bn, 5));
    assert_ok(at_space_split_ex(s, WG_TILE_T1, "tile_t1", ci, &(at_split_opts){.num_outputs = 2, .max_factor = 128}));
    assert_ok(at_space_split_ex(s, WG_TILE_T2, "tile_t2", co, &(at_split_opts){.num_outputs = 2, .max_factor = 128}));
    assert_ok(at_space_split_ex(s, WG_C_UNROLL, "c_unroll", ci, &(at_split_opts){.num_outputs = 2, .max_factor = 8}));
    assert_ok(at_space_other(s, WG_YT, "yt", yt, 6));
    return s;
}

/* The space a record's template defines for the record's workload. */
static at_space *space_of(const rec *r)
{
    if (strcmp(r->tmpl, "dense.mali") == 0) return dense_space(r->data[0], r->kernel[0], r->data[1]);
    int64_t oh = out_size(r->data[2], r->pad[0], r->pad[2], r->kernel[2], r->dil[0], r->stride[0]);
    int64_t ow = out_size(r->data[3], r->pad[1], r->pad[3], r->kernel[3], r->dil[1], r->stride[1]);
    if (strcmp(r->tmpl, "conv2d_nchw_spatial_pack.mali") == 0) return spatial_pack_space(r->kernel[0], oh, ow);
    if (strcmp(r->tmpl, "depthwise_conv2d_nchw.mali") == 0) return depthwise_space(r->kernel[0] * r->kernel[1], oh, ow);
    if (strcmp(r->tmpl, "conv2d_nchw_winograd.mali") == 0) return winograd_space(r->data[1], r->kernel[0]);
    return NULL;
}

static void dense_line_3_should_map_to_index_407(void **state)
{
    (void)state;
    assert_int_equal(n_recs, 528);
    const rec *r = &recs[0];
    assert_int_equal(r->line, 3);
    assert_string_equal(r->tmpl, "dense.mali");
    at_space *s = space_of(r);
    assert_int_equal(at_space_len(s), 700); /* spec/templates_vta.md: 1 x 100 x 7 */
    int64_t idx = -1;
    assert_ok(at_space_index_of(s, r->cfg, &idx));
    assert_int_equal(idx, 407);
    assert_int_equal(at_config_index(r->cfg), 407);
    at_config *c;
    assert_ok(at_space_get(s, 407, &c));
    int64_t y[3], x[3], k[2];
    at_config_split(c, DN_TILE_Y, y, 3);
    at_config_split(c, DN_TILE_X, x, 3);
    at_config_split(c, DN_C_UNROLL, k, 2);
    assert_true(y[0] == -1 && y[1] == 1 && y[2] == 1);
    assert_true(x[0] == -1 && x[1] == 25 && x[2] == 1);
    assert_true(k[0] == -1 && k[1] == 16);
    at_config_free(c);
    at_space_free(s);
}

static void every_mali_record_should_map_onto_its_own_index(void **state)
{
    (void)state;
    assert_int_equal(n_recs, 528);
    size_t per[4] = {0};
    static const char *const names[4] = {"dense.mali", "conv2d_nchw_spatial_pack.mali", "depthwise_conv2d_nchw.mali",
                                         "conv2d_nchw_winograd.mali"};
    for (size_t i = 0; i < n_recs; i++) {
        const rec *r = &recs[i];
        at_space *s = space_of(r);
        assert_non_null(s);
        for (size_t t = 0; t < 4; t++) per[t] += strcmp(r->tmpl, names[t]) == 0;
        int64_t idx = -1;
        at_status st = at_space_index_of(s, r->cfg, &idx);
        if (st != AT_OK || idx != at_config_index(r->cfg)) {
            print_error("line %d (%s): %s, index %lld, record says %lld\n", r->line, r->tmpl,
                        st == AT_OK ? "ok" : at_last_error(), (long long)idx, (long long)at_config_index(r->cfg));
            fail();
        }
        at_space_free(s);
    }
    assert_int_equal(per[0], 14);
    assert_int_equal(per[1], 406);
    assert_int_equal(per[2], 45);
    assert_int_equal(per[3], 63);
}

static void spatial_pack_index_36225_should_decode_to_the_stored_entities(void **state)
{
    (void)state;
    const rec *r = &recs[1]; /* line 4: [1,992,7,7] x [128,992,1,1] */
    assert_int_equal(r->line, 4);
    assert_int_equal(at_config_index(r->cfg), 36225);
    at_space *s = space_of(r);
    at_config *c;
    assert_ok(at_space_get(s, 36225, &c));
    int64_t co[3];
    at_config_split(c, SP_TILE_CO, co, 3);
    assert_true(co[0] == -1 && co[1] == 2 && co[2] == 2); /* stored as [32, 2, 2] */
    const at_entity *re = at_config_at(c, SP_REORDER_0);
    assert_int_equal(re->ints[7], 9); /* perm1 */
    const at_entity *an = at_config_at(c, SP_ANN_SPATIAL);
    assert_string_equal(an->anns[0], "unroll");
    assert_string_equal(an->anns[1], "unroll");
    assert_string_equal(an->anns[2], "vec");
    at_config_free(c);
    at_space_free(s);
}

/* Reference configs of one template, in file order (load_reference_log). */
static size_t refs_of(const char *tmpl, const at_config **out)
{
    size_t n = 0;
    for (size_t i = 0; i < n_recs; i++)
        if (strcmp(recs[i].tmpl, tmpl) == 0) out[n++] = recs[i].cfg;
    return n;
}

static at_config *fallback_from_log(const at_space *s, const char *tmpl, size_t want_refs)
{
    static const at_config *refs[MAX_RECS];
    size_t n = refs_of(tmpl, refs);
    assert_int_equal(n, want_refs);
    at_config *c;
    assert_ok(at_space_fallback_config(s, &c));
    assert_ok(at_space_fallback_with_reference_log(s, &c, refs, n));
    return c;
}

static void assert_sizes(const at_config *c, size_t knob, const int64_t *want, size_t n)
{
    int64_t got[4];
    at_config_split(c, knob, got, n);
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            print_error("%s[%zu]: got %lld want %lld\n", at_config_at(c, knob)->name, i, (long long)got[i],
                        (long long)want[i]);
            fail();
        }
    }
}

static void assert_anns(const at_config *c, size_t knob, const char *const *want, size_t n)
{
    const at_entity *e = at_config_at(c, knob);
    assert_int_equal(e->n, n);
    for (size_t i = 0; i < n; i++) assert_string_equal(e->anns[i], want[i]);
}

static void dense_fallback_should_follow_the_reference_log(void **state)
{
    (void)state;
    at_space *s = dense_space(1, 1000, 1024);
    at_config *c = fallback_from_log(s, "dense.mali", 14);
    assert_int_equal(at_config_index(c), -1);
    assert_sizes(c, DN_TILE_Y, (int64_t[]){1, 1, 1}, 3);
    assert_sizes(c, DN_TILE_X, (int64_t[]){40, 25, 1}, 3);
    assert_sizes(c, DN_C_UNROLL, (int64_t[]){64, 16}, 2);
    at_config_free(c);
    at_space_free(s);
    s = dense_space(1, 1000, 512); /* resnet-18's dense */
    c = fallback_from_log(s, "dense.mali", 14);
    assert_sizes(c, DN_TILE_X, (int64_t[]){40, 25, 1}, 3);
    assert_sizes(c, DN_C_UNROLL, (int64_t[]){32, 16}, 2);
    /* the fallback config still maps onto the space (explicit sizes, old form) */
    int64_t idx;
    assert_ok(at_space_index_of(s, c, &idx));
    at_config_free(c);
    at_space_free(s);
}

static void spatial_pack_fallback_should_follow_the_reference_log(void **state)
{
    (void)state;
    at_space *s = spatial_pack_space(64, 56, 56); /* resnet-18 #2: [1,64,56,56] x [64,64,3,3] */
    at_config *c = fallback_from_log(s, "conv2d_nchw_spatial_pack.mali", 406);
    assert_sizes(c, SP_TILE_CO, (int64_t[]){1, 16, 4}, 3);
    assert_sizes(c, SP_TILE_OH, (int64_t[]){56, 1, 1}, 3);
    assert_sizes(c, SP_TILE_OW, (int64_t[]){1, 14, 4}, 3);
    assert_int_equal(at_config_at(c, SP_REORDER_0)->ints[7], 9);
    assert_anns(c, SP_ANN_REDUCE, (const char *[]){"none", "none"}, 2);
    assert_anns(c, SP_ANN_SPATIAL, (const char *[]){"unroll", "unroll", "vec"}, 3);
    at_config_free(c);
    at_space_free(s);

    s = spatial_pack_space(64, 112, 112); /* mobilenet #3: [1,32,112,112] x [64,32,1,1] */
    c = fallback_from_log(s, "conv2d_nchw_spatial_pack.mali", 406);
    assert_sizes(c, SP_TILE_CO, (int64_t[]){4, 4, 4}, 3);
    assert_sizes(c, SP_TILE_OH, (int64_t[]){112, 1, 1}, 3);
    assert_sizes(c, SP_TILE_OW, (int64_t[]){2, 14, 4}, 3);
    assert_int_equal(at_config_at(c, SP_REORDER_0)->ints[7], 7);
    assert_anns(c, SP_ANN_REDUCE, (const char *[]){"unroll", "none"}, 2);
    assert_anns(c, SP_ANN_SPATIAL, (const char *[]){"none", "unroll", "vec"}, 3);
    at_config_free(c);
    at_space_free(s);
}

static void depthwise_fallback_should_follow_the_reference_log(void **state)
{
    (void)state;
    at_space *s = depthwise_space(32, 112, 112); /* mobilenet #2 */
    at_config *c = fallback_from_log(s, "depthwise_conv2d_nchw.mali", 45);
    assert_sizes(c, DW_TILE_C, (int64_t[]){8, 4, 1}, 3);
    assert_sizes(c, DW_TILE_Y, (int64_t[]){112, 1, 1}, 3);
    assert_sizes(c, DW_TILE_X, (int64_t[]){2, 7, 8}, 3);
    assert_anns(c, DW_ANN_SPATIAL, (const char *[]){"unroll", "vec", "unroll"}, 3);
    at_config_free(c);
    at_space_free(s);
}

static void fallback_without_references_should_keep_entity_zero(void **state)
{
    (void)state;
    at_space *s = depthwise_space(32, 112, 112);
    at_config *c;
    assert_ok(at_space_fallback_config(s, &c));
    at_config *before = c;
    assert_ok(at_space_fallback_with_reference_log(s, &c, NULL, 0));
    assert_ptr_equal(c, before);
    assert_sizes(c, DW_TILE_C, (int64_t[]){-1, 1, 1}, 3);
    assert_anns(c, DW_ANN_SPATIAL, (const char *[]){"none", "none", "none"}, 3);
    /* references of another template lack the knobs */
    static const at_config *refs[MAX_RECS];
    size_t n = refs_of("dense.mali", refs);
    assert_int_equal(at_space_fallback_with_reference_log(s, &c, refs, n), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "lacks split knob 'tile_c'"));
    assert_ptr_equal(c, before);
    at_config_free(c);
    at_space_free(s);
}

int main(void)
{
    long live = at_alloc_live();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dense_line_3_should_map_to_index_407),
        cmocka_unit_test(every_mali_record_should_map_onto_its_own_index),
        cmocka_unit_test(spatial_pack_index_36225_should_decode_to_the_stored_entities),
        cmocka_unit_test(dense_fallback_should_follow_the_reference_log),
        cmocka_unit_test(spatial_pack_fallback_should_follow_the_reference_log),
        cmocka_unit_test(depthwise_fallback_should_follow_the_reference_log),
        cmocka_unit_test(fallback_without_references_should_keep_entity_zero),
    };
    int failed = cmocka_run_group_tests(tests, load_log, free_log);
    if (!failed && at_alloc_live() != live) {
        fprintf(stderr, "leak: %ld blocks still live\n", at_alloc_live() - live);
        return 1;
    }
    return failed;
}
