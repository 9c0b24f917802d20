/* knobs/space: the flat index (first knob fastest), get, multi_filter, index_of, random helpers
 * and the knob feature vector (spec/autotvm_core.md 1.7-1.9). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "knobs/space.h"
#include "tests/support/test_support.h"

static at_space *new_space(void)
{
    at_space *s = NULL;
    assert_ok(at_space_new(&s));
    return s;
}

/* The tutorial's matmul 512^3: tile_y then tile_x, two 2-way factor splits. */
static at_space *matmul_space(void)
{
    at_space *s = new_space();
    assert_ok(at_space_split(s, 0, "tile_y", 512, 2));
    assert_ok(at_space_split(s, 1, "tile_x", 512, 2));
    return s;
}

static void assert_split(const at_config *c, size_t i, const char *name, const int64_t *want, size_t n)
{
    const at_entity *e = at_config_at(c, i);
    assert_string_equal(e->name, name);
    assert_int_equal(e->kind, AT_KNOB_SPLIT);
    assert_int_equal(e->n, n);
    for (size_t j = 0; j < n; j++) assert_int_equal(e->ints[j], want[j]);
}

static void matmul_index_37_should_be_tile_y_128_and_tile_x_8(void **state)
{
    (void)state;
    at_space *s = matmul_space();
    assert_int_equal(at_space_len(s), 100);
    assert_int_equal(at_space_range_len(s), 100);
    assert_int_equal(at_space_n_knobs(s), 2);
    assert_int_equal(at_space_dim(s, 0), 10);
    at_config *c;
    assert_ok(at_space_get(s, 37, &c));
    assert_int_equal(at_config_index(c), 37);
    assert_null(at_config_code_hash(c));
    assert_int_equal(at_config_len(c), 2);
    assert_split(c, 0, "tile_y", (int64_t[]){-1, 128}, 2);
    assert_split(c, 1, "tile_x", (int64_t[]){-1, 8}, 2);
    int64_t knobs[2];
    at_space_point_to_knobs(s, 37, knobs);
    assert_int_equal(knobs[0], 7);
    assert_int_equal(knobs[1], 3);
    assert_int_equal(at_space_knobs_to_point(s, knobs), 37);
    int64_t idx = -5;
    assert_ok(at_space_index_of(s, c, &idx));
    assert_int_equal(idx, 37);
    at_config_free(c);
    assert_int_equal(at_space_get(s, 100, &c), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "out of range"));
    assert_int_equal(at_space_get(s, -1, &c), AT_EINVAL);
    at_space_free(s);
}

static void empty_space_should_have_one_point(void **state)
{
    (void)state;
    at_space *s = new_space();
    assert_int_equal(at_space_range_len(s), 1);
    assert_int_equal(at_space_len(s), 1);
    at_config *c;
    assert_ok(at_space_get(s, 0, &c));
    assert_int_equal(at_config_len(c), 0);
    at_config_free(c);
    assert_int_equal(at_space_knob_feature_len(s), 0);
    at_space_free(s);
}

/* A small space with every knob kind, for whole-space properties. */
static at_space *mixed_space(void)
{
    static const int64_t unroll[] = {0, 512, 1500};
    at_space *s = new_space();
    assert_ok(at_space_split(s, 0, "tile_f", 12, 3));
    assert_ok(at_space_reorder(s, 1, "reorder", 3, AT_REORDER_ALL));
    assert_ok(at_space_annotate(s, 2, "ann", 2, "try_unroll_vec"));
    assert_ok(at_space_other(s, 3, "auto_unroll_max_step", unroll, 3));
    assert_ok(at_space_annotate_locate_cache(s, 4, "cache", 3, 1));
    assert_ok(at_space_split_ex(s, 5, "tile_v", 10, &(at_split_opts){.policy = AT_SPLIT_VERBOSE, .num_outputs = 2}));
    return s;
}

static void every_index_should_survive_get_and_index_of(void **state)
{
    (void)state;
    at_space *s = mixed_space();
    int64_t n = at_space_range_len(s);
    /* S3(12) = 18 splits x 3! x 8 x 3 x C(3,1) x 6 (verbose factors of 10: {1,2,4,5,8,10}) */
    assert_int_equal(at_space_dim(s, 0), 18);
    assert_int_equal(at_space_dim(s, 5), 6);
    assert_int_equal(n, 18 * 6 * 8 * 3 * 3 * 6);
    int64_t knobs[6];
    for (int64_t i = 0; i < n; i++) {
        at_config *c;
        assert_ok(at_space_get(s, i, &c));
        int64_t back = -1;
        assert_ok(at_space_index_of(s, c, &back));
        if (back != i) {
            print_error("index %lld came back as %lld\n", (long long)i, (long long)back);
            fail();
        }
        at_space_point_to_knobs(s, i, knobs);
        assert_int_equal(at_space_knobs_to_point(s, knobs), i);
        for (size_t k = 0; k < 6; k++)
            assert_ptr_equal(at_space_entity(s, k, knobs[k])->name, at_space_knob_name(s, k));
        at_config_free(c);
    }
    /* first knob fastest */
    at_space_point_to_knobs(s, 1, knobs);
    assert_int_equal(knobs[0], 1);
    assert_int_equal(knobs[1], 0);
    at_space_point_to_knobs(s, 18, knobs);
    assert_int_equal(knobs[0], 0);
    assert_int_equal(knobs[1], 1);
    at_space_free(s);
}

static const int64_t tile_candidates[] = {16, 64, 32, 32, 64, 16};

static bool first_not_16(const int64_t *sizes, size_t n, void *ctx)
{
    (void)n, (void)ctx;
    return sizes[0] != 16;
}

static bool sum_at_most_64(const at_entity *const *e, size_t n, void *ctx)
{
    (*(int *)ctx)++;
    assert_int_equal(n, 2);
    return e[0]->ints[0] + e[1]->ints[0] <= 64;
}

static void multi_filter_docstring_cases_should_match_tvm(void **state)
{
    (void)state;
    /* case 1: no filters */
    at_space *s = new_space();
    at_split_opts o = {.policy = AT_SPLIT_CANDIDATE, .num_outputs = 2, .candidates = tile_candidates, .n_candidates = 3};
    assert_ok(at_space_split_ex(s, 0, "tile_x", 128, &o));
    assert_ok(at_space_split_ex(s, 1, "tile_y", 128, &o));
    at_config *c;
    assert_ok(at_space_get(s, 1, &c));
    assert_split(c, 0, "tile_x", (int64_t[]){32, 32}, 2);
    assert_split(c, 1, "tile_y", (int64_t[]){16, 64}, 2);
    at_config_free(c);
    assert_ok(at_space_get(s, 3, &c));
    assert_split(c, 0, "tile_x", (int64_t[]){16, 64}, 2);
    assert_split(c, 1, "tile_y", (int64_t[]){32, 32}, 2);
    at_config_free(c);
    at_space_free(s);

    /* case 2: per-knob filter */
    s = new_space();
    o.filter = first_not_16;
    assert_ok(at_space_split_ex(s, 0, "tile_x", 128, &o));
    assert_ok(at_space_split_ex(s, 1, "tile_y", 128, &o));
    assert_int_equal(at_space_len(s), 4);
    assert_ok(at_space_get(s, 1, &c));
    assert_split(c, 0, "tile_x", (int64_t[]){64, 16}, 2);
    assert_split(c, 1, "tile_y", (int64_t[]){32, 32}, 2);
    at_config_free(c);

    /* case 3: plus multi_filter: only index 0 survives */
    int calls = 0;
    assert_ok(at_space_multi_filter(s, sum_at_most_64, &calls));
    assert_int_equal(calls, 4);
    assert_int_equal(at_space_range_len(s), 4);
    assert_int_equal(at_space_len(s), 1);
    assert_true(at_space_is_index_valid(s, 0));
    for (int64_t i = 1; i < 4; i++) assert_false(at_space_is_index_valid(s, i));
    assert_int_equal(at_space_subrange_len(s, 0, 4), 1);
    assert_int_equal(at_space_subrange_len(s, 1, 4), 0);
    assert_ok(at_space_get(s, 0, &c));
    assert_split(c, 0, "tile_x", (int64_t[]){32, 32}, 2);
    assert_split(c, 1, "tile_y", (int64_t[]){32, 32}, 2);
    int64_t idx;
    assert_ok(at_space_index_of(s, c, &idx));
    assert_int_equal(idx, 0);
    at_config_free(c);
    assert_int_equal(at_space_get(s, 1, &c), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "multi_filter"));
    /* index_of of a filtered-out point fails */
    at_config *bad;
    assert_ok(at_config_new(1, NULL, &bad));
    assert_ok(at_config_add_split(bad, "tile_x", (int64_t[]){64, 16}, 2));
    assert_ok(at_config_add_split(bad, "tile_y", (int64_t[]){32, 32}, 2));
    assert_int_equal(at_space_index_of(s, bad, &idx), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "multi_filter rejects"));
    at_config_free(bad);
    /* feature of a filtered-out index fails too */
    float f[4];
    assert_int_equal(at_space_knob_feature(s, 1, f), AT_EINVAL);
    /* removing the filter restores the range */
    assert_ok(at_space_multi_filter(s, NULL, NULL));
    assert_int_equal(at_space_len(s), 4);
    at_space_free(s);
}

static bool tile_y_even_index(const at_entity *const *e, size_t n, void *ctx)
{
    (void)ctx;
    return n == 2 && e[1]->ints[1] % 4 == 0; /* tile_y inner size in {4, 8, ...} */
}

static void next_index_should_step_over_invalid_indices(void **state)
{
    (void)state;
    at_space *s = new_space();
    assert_ok(at_space_split(s, 0, "tile_x", 8, 2)); /* 4 entities */
    assert_ok(at_space_split(s, 1, "tile_y", 8, 2)); /* [-1,1] [-1,2] [-1,4] [-1,8] */
    int64_t out = -1;
    assert_true(at_space_next_index(s, 3, 1, 0, 0, &out));
    assert_int_equal(out, 4);
    assert_true(at_space_next_index(s, 3, -2, 0, 0, &out));
    assert_int_equal(out, 1);
    assert_false(at_space_next_index(s, 15, 1, 0, 0, &out));
    assert_false(at_space_next_index(s, 2, 3, 0, 5, &out));
    assert_false(at_space_next_index(s, 1, -2, 0, 0, &out));
    assert_ok(at_space_multi_filter(s, tile_y_even_index, NULL));
    /* valid: tile_y digit 2 or 3 -> indices 8..15 */
    assert_int_equal(at_space_len(s), 8);
    assert_true(at_space_next_index(s, 0, 1, 0, 0, &out));
    assert_int_equal(out, 8);
    assert_true(at_space_next_index(s, 0, 3, 0, 0, &out));
    assert_int_equal(out, 10);
    assert_true(at_space_next_index(s, 9, -1, 0, 0, &out));
    assert_int_equal(out, 8);
    assert_false(at_space_next_index(s, 8, -1, 0, 0, &out));
    assert_false(at_space_next_index(s, 15, 1, 0, 0, &out));
    assert_false(at_space_next_index(s, 0, 1, 0, 8, &out));
    assert_int_equal(at_space_subrange_len(s, 4, 12), 4);
    at_space_free(s);
}

static bool exclude_below(int64_t index, void *ctx)
{
    return index < *(int64_t *)ctx;
}

static void rand_index_should_be_seeded_valid_and_not_excluded(void **state)
{
    (void)state;
    at_space *s = new_space();
    assert_ok(at_space_split(s, 0, "tile_x", 8, 2));
    assert_ok(at_space_split(s, 1, "tile_y", 8, 2));
    assert_ok(at_space_multi_filter(s, tile_y_even_index, NULL));
    at_rng r1, r2;
    at_rng_seed(&r1, 42);
    at_rng_seed(&r2, 42);
    int64_t limit = 12, seen[16] = {0};
    for (int i = 0; i < 200; i++) {
        int64_t a, b;
        assert_ok(at_space_rand_index(s, &r1, 0, 0, exclude_below, &limit, &a));
        assert_ok(at_space_rand_index(s, &r2, 0, 0, exclude_below, &limit, &b));
        assert_int_equal(a, b);
        assert_true(a >= 12 && a < 16);
        seen[a]++;
    }
    for (int i = 12; i < 16; i++) assert_true(seen[i] > 20);
    /* everything excluded: ends with AT_ENOTFOUND instead of spinning */
    limit = 16;
    int64_t out;
    assert_int_equal(at_space_rand_index(s, &r1, 0, 0, exclude_below, &limit, &out), AT_ENOTFOUND);
    /* a sub-range with no valid index */
    assert_int_equal(at_space_rand_index(s, &r1, 0, 8, NULL, NULL, &out), AT_ENOTFOUND);
    assert_ok(at_space_rand_index(s, &r1, 6, 10, NULL, NULL, &out));
    assert_true(out == 8 || out == 9);
    at_space_free(s);
}

static void sample_ints_should_draw_distinct_valid_indices(void **state)
{
    (void)state;
    at_space *s = matmul_space();
    at_rng r;
    at_rng_seed(&r, 7);
    int64_t out[100];
    assert_ok(at_space_sample_ints(s, &r, 100, out));
    int seen[100] = {0};
    for (int i = 0; i < 100; i++) {
        assert_true(out[i] >= 0 && out[i] < 100);
        seen[out[i]]++;
    }
    for (int i = 0; i < 100; i++) assert_int_equal(seen[i], 1);
    assert_int_equal(at_space_sample_ints(s, &r, 101, out), AT_EINVAL);
    assert_ok(at_space_sample_ints(s, &r, 0, out));
    /* with a multi_filter only valid ones come back */
    assert_ok(at_space_multi_filter(s, tile_y_even_index, NULL));
    int64_t n = at_space_len(s);
    assert_true(n > 0 && n < 100);
    assert_ok(at_space_sample_ints(s, &r, (size_t)n, out));
    for (int64_t i = 0; i < n; i++) assert_true(at_space_is_index_valid(s, out[i]));
    at_space_free(s);
}

static void random_walk_should_change_one_step_and_stay_valid(void **state)
{
    (void)state;
    at_space *s = mixed_space();
    at_rng r;
    at_rng_seed(&r, 3);
    int64_t p = 12345 % at_space_range_len(s), before[6], after[6];
    at_space_point_to_knobs(s, p, before);
    for (int i = 0; i < 100; i++) {
        int64_t q;
        assert_ok(at_space_random_walk(s, &r, p, &q));
        assert_true(q != p && q >= 0 && q < at_space_range_len(s));
        at_space_point_to_knobs(s, q, after);
        int diff = 0;
        for (int k = 0; k < 6; k++) diff += before[k] != after[k];
        assert_true(diff >= 1);
    }
    at_space_free(s);
    /* a one-point space has nowhere to go */
    s = new_space();
    assert_ok(at_space_split(s, 0, "t", 1, 3));
    int64_t q;
    assert_int_equal(at_space_random_walk(s, &r, 0, &q), AT_ENOTFOUND);
    at_space_free(s);
}

static void index_of_should_accept_both_split_forms(void **state)
{
    (void)state;
    /* dense.mali of [1,1024]x[1000,1024]: tile_y S3(1), tile_x S3(1000), c_unroll <= 64 of 1024 */
    at_space *s = new_space();
    assert_ok(at_space_split(s, 0, "tile_y", 1, 3));
    assert_ok(at_space_split(s, 1, "tile_x", 1000, 3));
    assert_ok(at_space_split_ex(s, 2, "c_unroll", 1024, &(at_split_opts){.num_outputs = 2, .max_factor = 64}));
    assert_int_equal(at_space_len(s), 700);
    at_config *old, *modern;
    assert_ok(at_config_new(407, NULL, &old));
    assert_ok(at_config_add_split(old, "tile_y", (int64_t[]){1, 1, 1}, 3));
    assert_ok(at_config_add_split(old, "tile_x", (int64_t[]){40, 25, 1}, 3));
    assert_ok(at_config_add_split(old, "c_unroll", (int64_t[]){64, 16}, 2));
    int64_t idx = -1;
    assert_ok(at_space_index_of(s, old, &idx));
    assert_int_equal(idx, 407);
    assert_ok(at_space_get(s, 407, &modern));
    assert_split(modern, 1, "tile_x", (int64_t[]){-1, 25, 1}, 3);
    assert_split(modern, 2, "c_unroll", (int64_t[]){-1, 16}, 2);
    assert_ok(at_space_index_of(s, modern, &idx));
    assert_int_equal(idx, 407);
    at_config_free(modern);
    at_config_free(old);

    /* a wrong outer extent, a size not in the space, a missing and an extra knob */
    static const struct {
        int64_t x[3];
        const char *msg;
    } bad[] = {
        {{41, 25, 1}, "knob 'tile_x': value [41, 25, 1] is not in the space (split of 1000 into 3, policy factors)"},
        {{-1, 3, 1}, "knob 'tile_x': value [-1, 3, 1] is not in the space"},
        {{0, 25, 1}, "value [0, 25, 1]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        at_config *c;
        assert_ok(at_config_new(0, NULL, &c));
        assert_ok(at_config_add_split(c, "tile_y", (int64_t[]){1, 1, 1}, 3));
        assert_ok(at_config_add_split(c, "tile_x", bad[i].x, 3));
        assert_ok(at_config_add_split(c, "c_unroll", (int64_t[]){-1, 16}, 2));
        assert_int_equal(at_space_index_of(s, c, &idx), AT_EPARSE);
        assert_non_null(strstr(at_last_error(), bad[i].msg));
        at_config_free(c);
    }
    at_config *c;
    assert_ok(at_config_new(0, NULL, &c));
    assert_ok(at_config_add_split(c, "tile_y", (int64_t[]){1, 1, 1}, 3));
    assert_ok(at_config_add_split(c, "c_unroll", (int64_t[]){-1, 16}, 2));
    assert_int_equal(at_space_index_of(s, c, &idx), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "knob 'tile_x' (sp) is missing"));
    assert_ok(at_config_add_split(c, "tile_x", (int64_t[]){-1, 1, 1}, 2));
    assert_int_equal(at_space_index_of(s, c, &idx), AT_EPARSE);
    at_config_free(c);
    assert_ok(at_config_new(0, NULL, &c));
    assert_ok(at_config_add_split(c, "tile_y", (int64_t[]){1, 1, 1}, 3));
    assert_ok(at_config_add_reorder(c, "tile_x", (int64_t[]){0, 1, 2}, 3));
    assert_int_equal(at_space_index_of(s, c, &idx), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "expected kind 'sp', got 're'"));
    at_config_free(c);
    /* entity order does not matter; an unknown knob does */
    assert_ok(at_config_new(0, NULL, &c));
    assert_ok(at_config_add_split(c, "c_unroll", (int64_t[]){-1, 1}, 2));
    assert_ok(at_config_add_split(c, "tile_x", (int64_t[]){1000, 1, 1}, 3));
    assert_ok(at_config_add_split(c, "tile_y", (int64_t[]){-1, 1, 1}, 3));
    assert_ok(at_space_index_of(s, c, &idx));
    assert_int_equal(idx, 0);
    at_val v = AT_VAL_OF_INT(1);
    assert_ok(at_config_add_other(c, "unroll_explicit", &v));
    assert_int_equal(at_space_index_of(s, c, &idx), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "config knob 'unroll_explicit' is not defined by the space"));
    at_config_free(c);
    at_space_free(s);
}

static void index_of_should_match_other_annotate_and_reorder_values(void **state)
{
    (void)state;
    at_space *s = mixed_space();
    at_config *c;
    assert_ok(at_space_get(s, 4321, &c));
    /* rebuild the same config by hand with the other value written as a float (1500.0 == 1500) */
    at_config *h;
    assert_ok(at_config_new(4321, NULL, &h));
    for (size_t i = 0; i < at_config_len(c); i++) {
        const at_entity *e = at_config_at(c, i);
        if (e->kind == AT_KNOB_OTHER) {
            assert_int_equal(e->val.i, 1500); /* digit 4321 / 864 % 3 = 2 */
            at_val f = {.kind = AT_VAL_FLOAT, .f = (double)e->val.i};
            assert_ok(at_config_add_other(h, e->name, &f));
        } else {
            assert_ok(at_config_add_entity(h, e));
        }
    }
    int64_t idx;
    assert_ok(at_space_index_of(s, h, &idx));
    assert_int_equal(idx, 4321);
    at_config_free(h);
    at_config_free(c);

    /* a value that is not a candidate */
    assert_ok(at_space_get(s, 0, &c));
    assert_ok(at_config_new(0, NULL, &h));
    for (size_t i = 0; i < at_config_len(c); i++) {
        const at_entity *e = at_config_at(c, i);
        if (e->kind == AT_KNOB_ANNOTATE && e->anns) {
            const char *anns[] = {"vec", "vec"};
            assert_ok(at_config_add_annotate(h, e->name, anns, 2));
        } else {
            assert_ok(at_config_add_entity(h, e));
        }
    }
    assert_int_equal(at_space_index_of(s, h, &idx), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "knob 'ann': value [\"vec\", \"vec\"] is not one of its 8 entities"));
    at_config_free(h);
    at_config_free(c);
    at_space_free(s);
}

static void knob_feature_should_flatten_entities_in_knob_order(void **state)
{
    (void)state;
    at_space *s = new_space();
    static const int64_t unroll[] = {0, 512, 1500};
    assert_ok(at_space_split(s, 0, "tile", 8, 3));                     /* 3 */
    assert_ok(at_space_reorder(s, 1, "re", 3, AT_REORDER_ALL));         /* 3 */
    assert_ok(at_space_annotate(s, 2, "an", 2, "try_unroll_vec"));      /* 22 */
    assert_ok(at_space_other(s, 3, "auto_unroll_max_step", unroll, 3)); /* 1 */
    assert_ok(at_space_annotate(s, 4, "bind", 3, "bind_gpu"));           /* 33 */
    assert_ok(at_space_annotate_locate_cache(s, 5, "loc", 3, 2));      /* 2 */
    size_t len = at_space_knob_feature_len(s);
    assert_int_equal(len, 3 + 3 + 22 + 1 + 33 + 2);
    /* index: tile entity 5 ([-1,2,2]), reorder 3 ([1,2,0]), ann 5 ([unroll,vec]), other 2, loc 1 ([0,2]) */
    int64_t knobs[6] = {5, 3, 5, 2, 0, 1};
    int64_t index = at_space_knobs_to_point(s, knobs);
    float f[64];
    assert_ok(at_space_knob_feature(s, index, f));
    float want[64] = {-1, 2, 2, 1, 2, 0};
    want[6 + 2] = 1;      /* axis 0 unroll */
    want[6 + 11 + 1] = 1; /* axis 1 vec */
    want[28] = 1500;
    want[29 + 10] = 1;     /* fuse */
    want[29 + 11 + 3] = 1; /* blockIdx.x */
    want[29 + 22 + 6] = 1; /* threadIdx.x */
    want[62] = 0;
    want[63] = 2;
    for (size_t i = 0; i < len; i++) {
        if (f[i] != want[i]) {
            print_error("feature %zu: got %g want %g\n", i, (double)f[i], (double)want[i]);
            fail();
        }
    }
    /* the config form gives the same vector for the same config */
    at_config *c;
    assert_ok(at_space_get(s, index, &c));
    assert_int_equal(at_config_knob_feature_len(c), len);
    float g[64];
    assert_ok(at_config_knob_feature(c, g));
    assert_memory_equal(f, g, len * sizeof *f);
    at_config_free(c);
    assert_int_equal(at_space_knob_feature(s, at_space_range_len(s), f), AT_EINVAL);
    at_space_free(s);
}

static void knob_feature_should_keep_explicit_sizes_of_old_logs(void **state)
{
    (void)state;
    at_config *c;
    assert_ok(at_config_new(407, NULL, &c));
    assert_ok(at_config_add_split(c, "tile_x", (int64_t[]){40, 25, 1}, 3));
    const char *anns[] = {"none", "threadIdx.z"};
    assert_ok(at_config_add_annotate(c, "an", anns, 2));
    at_val vals[] = {{.kind = AT_VAL_BOOL, .b = true}, {.kind = AT_VAL_NULL}, {.kind = AT_VAL_FLOAT, .f = 0.25},
                     {.kind = AT_VAL_STR, .s = "2.5"}};
    assert_ok(at_config_add_other(c, "b", &vals[0]));
    assert_ok(at_config_add_other(c, "n", &vals[1]));
    assert_ok(at_config_add_other(c, "f", &vals[2]));
    assert_ok(at_config_add_other(c, "s", &vals[3]));
    assert_int_equal(at_config_knob_feature_len(c), 3 + 22 + 4);
    float f[29];
    assert_ok(at_config_knob_feature(c, f));
    assert_true(f[0] == 40 && f[1] == 25 && f[2] == 1);
    assert_true(f[3] == 1 && f[3 + 11 + 8] == 1);
    float sum = 0;
    for (int i = 3; i < 25; i++) sum += f[i];
    assert_true(sum == 2);
    assert_true(f[25] == 1);
    assert_true(isnan(f[26]));
    assert_true(f[27] == 0.25f && f[28] == 2.5f);
    at_config_free(c);
    /* a text that is no number and an unknown annotation fail like numpy / the dict lookup */
    assert_ok(at_config_new(0, NULL, &c));
    at_val t = {.kind = AT_VAL_STR, .s = "fast"};
    assert_ok(at_config_add_other(c, "mode", &t));
    assert_int_equal(at_config_knob_feature(c, f), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "knob 'mode': value 'fast' is not a number"));
    at_config_free(c);
    assert_ok(at_config_new(0, NULL, &c));
    const char *bad[] = {"parallel"};
    assert_ok(at_config_add_annotate(c, "an", bad, 1));
    assert_int_equal(at_config_knob_feature(c, f), AT_EINVAL);
    at_config_free(c);
}

/* TVM 0.6 defined dense_nopack's tile_x before tile_y: a record naming the knobs in another order
 * applies by name, rebuilt in the space's order with the index it maps to. */
static void config_in_space_order_should_reorder_by_name(void **state)
{
    (void)state;
    at_space *s = matmul_space();
    at_config *want = NULL, *swapped = NULL, *r = NULL;
    assert_ok(at_space_get(s, 37, &want));
    assert_ok(at_config_new(5, NULL, &swapped));
    assert_ok(at_config_add_entity(swapped, at_config_at(want, 1)));
    assert_ok(at_config_add_entity(swapped, at_config_at(want, 0)));
    assert_ok(at_space_config_in_space_order(s, swapped, &r));
    assert_non_null(r);
    assert_int_equal(at_config_index(r), 37);
    assert_split(r, 0, "tile_y", (int64_t[]){-1, 128}, 2);
    assert_split(r, 1, "tile_x", (int64_t[]){-1, 8}, 2);
    at_config_free(r);
    /* already in order, or not the space's knobs: nothing to do */
    assert_ok(at_space_config_in_space_order(s, want, &r));
    assert_null(r);
    at_config *other = NULL;
    assert_ok(at_config_new(0, NULL, &other));
    assert_ok(at_config_add_entity(other, at_config_at(want, 0)));
    assert_ok(at_space_config_in_space_order(s, other, &r));
    assert_null(r);
    at_config_free(other);
    at_config_free(swapped);
    at_config_free(want);
    at_space_free(s);
}

int main(void)
{
    long live = at_alloc_live();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matmul_index_37_should_be_tile_y_128_and_tile_x_8),
        cmocka_unit_test(empty_space_should_have_one_point),
        cmocka_unit_test(every_index_should_survive_get_and_index_of),
        cmocka_unit_test(multi_filter_docstring_cases_should_match_tvm),
        cmocka_unit_test(next_index_should_step_over_invalid_indices),
        cmocka_unit_test(rand_index_should_be_seeded_valid_and_not_excluded),
        cmocka_unit_test(sample_ints_should_draw_distinct_valid_indices),
        cmocka_unit_test(random_walk_should_change_one_step_and_stay_valid),
        cmocka_unit_test(index_of_should_accept_both_split_forms),
        cmocka_unit_test(index_of_should_match_other_annotate_and_reorder_values),
        cmocka_unit_test(knob_feature_should_flatten_entities_in_knob_order),
        cmocka_unit_test(knob_feature_should_keep_explicit_sizes_of_old_logs),
        cmocka_unit_test(config_in_space_order_should_reorder_by_name),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed && at_alloc_live() != live) {
        fprintf(stderr, "leak: %ld blocks still live\n", at_alloc_live() - live);
        return 1;
    }
    return failed;
}
