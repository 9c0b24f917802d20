/* knobs/space: each policy's enumeration against TVM v0.18's (spec/autotvm_core.md 1.3-1.6, 1.9). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "knobs/space.h"
#include "tests/support/test_support.h"

static at_space *new_space(void)
{
    at_space *s = NULL;
    assert_ok(at_space_new(&s));
    return s;
}

/* Asserts knob k's entities are exactly the rows of want (n_rows x width). */
static void assert_int_entities(const at_space *s, size_t k, const int64_t *want, size_t n_rows, size_t width)
{
    assert_int_equal(at_space_dim(s, k), (int64_t)n_rows);
    for (size_t i = 0; i < n_rows; i++) {
        const at_entity *e = at_space_entity(s, k, (int64_t)i);
        assert_int_equal(e->n, width);
        assert_non_null(e->ints);
        for (size_t j = 0; j < width; j++) {
            if (e->ints[j] != want[i * width + j]) {
                print_error("knob %zu entity %zu item %zu: got %lld want %lld\n", k, i, j, (long long)e->ints[j],
                            (long long)want[i * width + j]);
                fail();
            }
        }
    }
}

/* The factor order of a 2-output split (entities [-1, f] in factor-list order). */
static void assert_split2_factors(at_split_policy policy, int64_t extent, const int64_t *want, size_t n)
{
    at_space *s = new_space();
    assert_ok(at_space_split_ex(s, 0, "t", extent, &(at_split_opts){.policy = policy, .num_outputs = 2}));
    assert_int_equal(at_space_dim(s, 0), (int64_t)n);
    for (size_t i = 0; i < n; i++) {
        const at_entity *e = at_space_entity(s, 0, (int64_t)i);
        assert_int_equal(e->ints[0], -1);
        if (e->ints[1] != want[i]) {
            print_error("extent %lld position %zu: got %lld want %lld\n", (long long)extent, i, (long long)e->ints[1],
                        (long long)want[i]);
            fail();
        }
    }
    at_space_free(s);
}

static void split_factors_of_8_into_3_should_give_tvms_10_entities(void **state)
{
    (void)state;
    static const int64_t want[] = {-1, 1, 1, -1, 2, 1, -1, 4, 1, -1, 8, 1, -1, 1, 2,
                                   -1, 2, 2, -1, 4, 2, -1, 1, 4, -1, 2, 4, -1, 1, 8};
    at_space *s = new_space();
    assert_ok(at_space_split(s, 0, "tile", 8, 3));
    assert_int_entities(s, 0, want, 10, 3);
    assert_int_equal(at_space_knob_kind(s, 0), AT_KNOB_SPLIT);
    assert_int_equal(at_space_split_product(s, 0), 8);
    assert_string_equal(at_space_entity(s, 0, 0)->name, "tile");
    at_space_free(s);
}

static void split_power2_should_allow_tails(void **state)
{
    (void)state;
    static const int64_t want[] = {-1, 1, -1, 2, -1, 4, -1, 8};
    at_space *s = new_space();
    assert_ok(at_space_split_ex(s, 0, "t", 12, &(at_split_opts){.policy = AT_SPLIT_POWER2, .num_outputs = 2}));
    assert_int_entities(s, 0, want, 4, 2);
    /* power2 with tails forbidden keeps only divisors of 12 */
    assert_ok(at_space_split_ex(s, 1, "u", 12,
                                &(at_split_opts){.policy = AT_SPLIT_POWER2, .num_outputs = 2, .no_tail = AT_SPLIT_TAIL_FORBID}));
    assert_int_entities(s, 1, want, 3, 2);
    at_space_free(s);
}

static void split_factors_of_512_into_2_should_have_10_ascending_entities(void **state)
{
    (void)state;
    static const int64_t f[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
    assert_split2_factors(AT_SPLIT_FACTORS, 512, f, 10);
    static const int64_t f12[] = {1, 2, 3, 4, 6, 12};
    assert_split2_factors(AT_SPLIT_FACTORS, 12, f12, 6);
    static const int64_t f1[] = {1};
    assert_split2_factors(AT_SPLIT_FACTORS, 1, f1, 1);
    static const int64_t f49[] = {1, 7, 49};
    assert_split2_factors(AT_SPLIT_FACTORS, 49, f49, 3);
}

static void split_verbose_should_follow_cpython_set_order(void **state)
{
    (void)state;
    static const int64_t v1000[] = {64, 1, 2, 128, 4, 5, 256, 512, 8, 200, 10, 16, 20, 25, 32, 100, 40, 1000, 50, 500, 250, 125};
    static const int64_t v224[] = {64, 1, 2, 128, 4, 7, 8, 14, 16, 28, 32, 224, 112, 56};
    static const int64_t v96[] = {64, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 96, 48};
    static const int64_t v49[] = {32, 1, 2, 4, 7, 8, 16, 49};
    static const int64_t v512[] = {64, 1, 2, 128, 4, 256, 512, 8, 16, 32};
    static const int64_t v7[] = {1, 2, 4, 7};
    assert_split2_factors(AT_SPLIT_VERBOSE, 1000, v1000, sizeof v1000 / sizeof *v1000);
    assert_split2_factors(AT_SPLIT_VERBOSE, 224, v224, sizeof v224 / sizeof *v224);
    assert_split2_factors(AT_SPLIT_VERBOSE, 96, v96, sizeof v96 / sizeof *v96);
    assert_split2_factors(AT_SPLIT_VERBOSE, 49, v49, sizeof v49 / sizeof *v49);
    assert_split2_factors(AT_SPLIT_VERBOSE, 512, v512, sizeof v512 / sizeof *v512);
    assert_split2_factors(AT_SPLIT_VERBOSE, 7, v7, sizeof v7 / sizeof *v7);
}

static void split_verbose_with_three_outputs_should_walk_the_set_order(void **state)
{
    (void)state;
    /* factor list of 7 = [1, 2, 4, 7]; outer DFS variable is the last size; tails allowed */
    at_space *s = new_space();
    assert_ok(at_space_split_ex(s, 0, "t", 7, &(at_split_opts){.policy = AT_SPLIT_VERBOSE, .num_outputs = 3}));
    static const int64_t want[] = {-1, 1, 1, -1, 2, 1, -1, 4, 1, -1, 7, 1, -1, 1, 2,
                                   -1, 2, 2, -1, 1, 4, -1, 1, 7};
    assert_int_entities(s, 0, want, 8, 3);
    at_space_free(s);
}

static void split_max_factor_should_drop_large_factors(void **state)
{
    (void)state;
    at_space *s = new_space();
    assert_ok(at_space_split_ex(s, 0, "c_unroll", 1024, &(at_split_opts){.num_outputs = 2, .max_factor = 64}));
    static const int64_t want[] = {-1, 1, -1, 2, -1, 4, -1, 8, -1, 16, -1, 32, -1, 64};
    assert_int_entities(s, 0, want, 7, 2);
    at_space_free(s);
}

static void split_factors_with_tails_allowed_should_still_only_use_divisors(void **state)
{
    (void)state;
    /* factors of 6 = [1,2,3,6]; with no_tail False, products < 6 that do not divide are kept */
    at_space *s = new_space();
    assert_ok(at_space_split_ex(s, 0, "t", 6,
                                &(at_split_opts){.num_outputs = 3, .no_tail = AT_SPLIT_TAIL_ALLOW}));
    static const int64_t want[] = {-1, 1, 1, -1, 2, 1, -1, 3, 1, -1, 6, 1, -1, 1, 2, -1, 2, 2, -1, 3, 2,
                                   -1, 1, 3, -1, 2, 3, -1, 1, 6};
    assert_int_entities(s, 0, want, 10, 3);
    at_space_free(s);
}

static bool inner_at_most_4(const int64_t *sizes, size_t n, void *ctx)
{
    (*(int *)ctx)++;
    return sizes[n - 1] <= 4;
}

static void split_filter_should_drop_entities_after_enumeration(void **state)
{
    (void)state;
    int calls = 0;
    at_space *s = new_space();
    assert_ok(at_space_split_ex(s, 0, "t", 8,
                                &(at_split_opts){.num_outputs = 3, .filter = inner_at_most_4, .filter_ctx = &calls}));
    assert_int_equal(calls, 10);
    static const int64_t want[] = {-1, 1, 1, -1, 2, 1, -1, 4, 1, -1, 8, 1, -1, 1, 2,
                                   -1, 2, 2, -1, 4, 2, -1, 1, 4, -1, 2, 4};
    assert_int_entities(s, 0, want, 9, 3);
    at_space_free(s);
}

static void split_candidate_should_keep_candidates_verbatim(void **state)
{
    (void)state;
    static const int64_t cand[] = {1, 4, 4, 4, 1, 4};
    at_space *s = new_space();
    assert_ok(at_space_split_ex(s, 0, "tile_x", 16,
                                &(at_split_opts){.policy = AT_SPLIT_CANDIDATE, .num_outputs = 3, .candidates = cand,
                                                 .n_candidates = 2}));
    assert_int_entities(s, 0, cand, 2, 3);
    at_space_free(s);
}

static void split_misuse_should_fail_with_einval(void **state)
{
    (void)state;
    at_space *s = new_space();
    assert_int_equal(at_space_split(s, 0, "t", 0, 2), AT_EINVAL);
    assert_int_equal(at_space_split(s, 0, "t", 8, 0), AT_EINVAL);
    assert_int_equal(at_space_split(s, 0, "t", 8, 1), AT_EINVAL);
    assert_int_equal(at_space_split_ex(s, 0, "t", 8, &(at_split_opts){.policy = AT_SPLIT_CANDIDATE, .num_outputs = 2}),
                     AT_EINVAL);
    /* max_factor below 1 leaves nothing */
    assert_int_equal(at_space_split_ex(s, 0, "t", 8, &(at_split_opts){.num_outputs = 2, .max_factor = -1}), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "no entity"));
    assert_int_equal(at_space_split(s, 0, "", 8, 2), AT_EINVAL);
    assert_int_equal(at_space_n_knobs(s), 0);
    assert_ok(at_space_split(s, 0, "t", 8, 2));
    assert_int_equal(at_space_split(s, 1, "t", 8, 2), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "defined twice"));
    assert_int_equal(at_space_n_knobs(s), 1);
    assert_int_equal(at_space_range_len(s), 4);
    at_space_free(s);
}

static void definitions_beyond_limits_should_fail_with_einval(void **state)
{
    (void)state;
    at_space *s = new_space();
    /* "vec" on two axes: the only assignment has two vecs, so nothing is left (TVM: IndexError) */
    assert_int_equal(at_space_annotate(s, 0, "a", 2, "vec"), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "leaves no entity"));
    assert_int_equal(at_space_annotate(s, 0, "a", 0, "try_unroll"), AT_EINVAL);
    assert_int_equal(at_space_annotate(s, 0, "a", 20, "try_unroll_vec"), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "too many"));
    assert_int_equal(at_space_annotate_locate_cache(s, 0, "a", 40, 20), AT_EINVAL);
    assert_int_equal(at_space_reorder(s, 0, "r", 11, AT_REORDER_ALL), AT_EINVAL);
    /* 63 two-entity knobs make 2^63 indices, one more than int64 holds */
    size_t k = 0;
    at_status st = AT_OK;
    char name[16];
    for (; k < 64 && st == AT_OK; k++) {
        snprintf(name, sizeof name, "k%zu", k);
        st = at_space_split(s, k, name, 2, 2);
    }
    assert_int_equal(st, AT_EINVAL);
    assert_int_equal(k, 63);
    assert_non_null(strstr(at_last_error(), "beyond 2^63"));
    assert_int_equal(at_space_n_knobs(s), 62);
    assert_int_equal(at_space_range_len(s), (int64_t)1 << 62);
    at_space_free(s);
}

static void reorder_all_should_list_permutations_lexicographically(void **state)
{
    (void)state;
    static const int64_t want[] = {0, 1, 2, 0, 2, 1, 1, 0, 2, 1, 2, 0, 2, 0, 1, 2, 1, 0};
    at_space *s = new_space();
    assert_ok(at_space_reorder(s, 0, "reorder_inner", 3, AT_REORDER_ALL));
    assert_int_entities(s, 0, want, 6, 3);
    assert_ok(at_space_reorder(s, 1, "id", 4, AT_REORDER_IDENTITY));
    static const int64_t id[] = {0, 1, 2, 3};
    assert_int_entities(s, 1, id, 1, 4);
    assert_int_equal(at_space_reorder(s, 2, "big", 21, AT_REORDER_ALL), AT_EINVAL);
    assert_int_equal(at_space_reorder(s, 2, "none", 0, AT_REORDER_ALL), AT_EINVAL);
    at_space_free(s);
}

static void reorder_interval_all_should_fix_prefix_and_suffix(void **state)
{
    (void)state;
    static const int64_t want[] = {0, 1, 2, 3, 4, 0, 1, 3, 2, 4, 0, 2, 1, 3, 4,
                                   0, 2, 3, 1, 4, 0, 3, 1, 2, 4, 0, 3, 2, 1, 4};
    at_space *s = new_space();
    assert_ok(at_space_reorder_ex(s, 0, "r", 5,
                                  &(at_reorder_opts){.policy = AT_REORDER_INTERVAL_ALL, .interval_begin = 1, .interval_end = 4}));
    assert_int_entities(s, 0, want, 6, 5);
    assert_int_equal(at_space_reorder_ex(s, 1, "bad", 5,
                                         &(at_reorder_opts){.policy = AT_REORDER_INTERVAL_ALL, .interval_begin = 3, .interval_end = 6}),
                     AT_EINVAL);
    at_space_free(s);
}

static void reorder_candidate_should_keep_candidate_order(void **state)
{
    (void)state;
    static const int64_t cand[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 9, 7, 8};
    at_space *s = new_space();
    assert_ok(at_space_reorder_ex(s, 0, "reorder_0", 10,
                                  &(at_reorder_opts){.policy = AT_REORDER_CANDIDATE, .candidates = cand, .n_candidates = 2}));
    assert_int_entities(s, 0, cand, 2, 10);
    assert_int_equal(at_space_reorder_ex(s, 1, "r", 3, &(at_reorder_opts){.policy = AT_REORDER_CANDIDATE}), AT_EINVAL);
    at_space_free(s);
}

static void reorder_interleave_should_merge_chains_into_one_entity(void **state)
{
    (void)state;
    static const int64_t spatial[] = {0, 1, 2, 3, 4, 5}, reduce[] = {6, 7};
    static const size_t slens[] = {3, 3}, rlens[] = {2};
    at_space *s = new_space();
    assert_ok(at_space_reorder_ex(s, 0, "il", 8,
                                  &(at_reorder_opts){.policy = AT_REORDER_INTERLEAVE, .spatial = spatial, .spatial_lens = slens,
                                                     .n_spatial = 2, .reduce = reduce, .reduce_lens = rlens, .n_reduce = 1}));
    static const int64_t il[] = {0, 3, 1, 4, 6, 2, 5, 7};
    assert_int_entities(s, 0, il, 1, 8);
    assert_ok(at_space_reorder_ex(s, 1, "ilc", 8,
                                  &(at_reorder_opts){.policy = AT_REORDER_INTERLEAVE_CUDA, .spatial = spatial,
                                                     .spatial_lens = slens, .n_spatial = 2, .reduce = reduce,
                                                     .reduce_lens = rlens, .n_reduce = 1}));
    static const int64_t ilc[] = {0, 3, 1, 4, 6, 7, 2, 5};
    assert_int_entities(s, 1, ilc, 1, 8);
    /* the plain chain merge: [[0,1,2],[3,4,5]] -> [0,3,1,4,2,5] (interleave_cuda, no reduce) */
    static const int64_t s2[] = {0, 1, 2, 9, 3, 4, 5, 9};
    static const size_t l2[] = {4, 4};
    assert_ok(at_space_reorder_ex(s, 2, "m", 10,
                                  &(at_reorder_opts){.policy = AT_REORDER_INTERLEAVE_CUDA, .spatial = s2, .spatial_lens = l2,
                                                     .n_spatial = 2}));
    static const int64_t merged[] = {0, 3, 1, 4, 2, 5, 9, 9};
    assert_int_entities(s, 2, merged, 1, 8);
    /* unequal chains: the longer one goes first until they tie */
    static const int64_t s3[] = {0, 1, 7, 2, 3, 4, 5, 8};
    static const size_t l3[] = {3, 5};
    assert_ok(at_space_reorder_ex(s, 3, "u", 10,
                                  &(at_reorder_opts){.policy = AT_REORDER_INTERLEAVE_CUDA, .spatial = s3, .spatial_lens = l3,
                                                     .n_spatial = 2}));
    static const int64_t um[] = {2, 3, 0, 4, 1, 5, 7, 8};
    assert_int_entities(s, 3, um, 1, 8);
    static const size_t l4[] = {0, 8};
    assert_int_equal(at_space_reorder_ex(s, 4, "e", 10,
                                         &(at_reorder_opts){.policy = AT_REORDER_INTERLEAVE_CUDA, .spatial = s3,
                                                            .spatial_lens = l4, .n_spatial = 2}),
                     AT_EINVAL);
    at_space_free(s);
}

/* Asserts knob k's annotation entities equal the rows of letters ('n' none, 'u' unroll, 'v' vec). */
static void assert_ann_rows(const at_space *s, size_t k, const char *const *rows, size_t n_rows)
{
    assert_int_equal(at_space_dim(s, k), (int64_t)n_rows);
    for (size_t i = 0; i < n_rows; i++) {
        const at_entity *e = at_space_entity(s, k, (int64_t)i);
        assert_int_equal(e->n, strlen(rows[i]));
        assert_non_null(e->anns);
        assert_null(e->ints);
        for (size_t j = 0; j < e->n; j++) {
            const char *want = rows[i][j] == 'n' ? "none" : rows[i][j] == 'u' ? "unroll" : "vec";
            if (strcmp(e->anns[j], want) != 0) {
                print_error("entity %zu axis %zu: got %s want %s\n", i, j, e->anns[j], want);
                fail();
            }
        }
    }
}

static void annotate_try_unroll_vec_should_keep_at_most_one_vec(void **state)
{
    (void)state;
    static const char *const two[] = {"nn", "nu", "nv", "un", "uu", "uv", "vn", "vu"};
    static const char *const three[] = {"nnn", "nnu", "nnv", "nun", "nuu", "nuv", "nvn", "nvu", "unn", "unu",
                                        "unv", "uun", "uuu", "uuv", "uvn", "uvu", "vnn", "vnu", "vun", "vuu"};
    at_space *s = new_space();
    assert_ok(at_space_annotate(s, 0, "ann_spatial", 2, "try_unroll_vec"));
    assert_ann_rows(s, 0, two, 8);
    assert_ok(at_space_annotate(s, 1, "ann_spatial3", 3, "try_unroll_vec"));
    assert_ann_rows(s, 1, three, 20);
    static const char *const tu[] = {"nn", "nu", "un", "uu"};
    assert_ok(at_space_annotate(s, 2, "ann_reduce", 2, "try_unroll"));
    assert_ann_rows(s, 2, tu, 4);
    static const char *const tvu[] = {"n", "v", "u"};
    assert_ok(at_space_annotate(s, 3, "a", 1, "try_vec_unroll"));
    assert_ann_rows(s, 3, tvu, 3);
    static const char *const un[] = {"uu"};
    assert_ok(at_space_annotate(s, 4, "b", 2, "unroll"));
    assert_ann_rows(s, 4, un, 1);
    static const char *const vv[] = {"nn", "nv", "vn"};
    assert_ok(at_space_annotate(s, 5, "c", 2, "try_vec"));
    assert_ann_rows(s, 5, vv, 3);
    assert_int_equal(at_space_range_len(s), 8 * 20 * 4 * 3 * 1 * 3);
    at_space_free(s);
}

static void annotate_bad_policy_should_fail_with_einval(void **state)
{
    (void)state;
    at_space *s = new_space();
    assert_int_equal(at_space_annotate(s, 0, "a", 2, "try_unrol"), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "Invalid policy: try_unrol"));
    assert_int_equal(at_space_annotate(s, 0, "a", 2, "try__vec"), AT_EINVAL);
    assert_int_equal(at_space_annotate(s, 0, "a", 2, ""), AT_EINVAL);
    assert_int_equal(at_space_annotate(s, 0, "a", 2, "locate_cache"), AT_EINVAL);
    assert_int_equal(at_space_annotate(s, 0, "a", 1, "bind_gpu"), AT_EINVAL);
    assert_int_equal(at_space_annotate(s, 0, "a", 2, "bind_gpu_virtual"), AT_EINVAL);
    assert_int_equal(at_space_n_knobs(s), 0);
    at_space_free(s);
}

static void annotate_bind_gpu_should_fuse_leading_axes(void **state)
{
    (void)state;
    static const struct {
        const char *policy;
        size_t n;
        const char *want[10];
    } cases[] = {
        {"bind_gpu", 2, {"blockIdx.x", "threadIdx.x"}},
        {"bind_gpu", 3, {"fuse", "blockIdx.x", "threadIdx.x"}},
        {"bind_gpu", 4, {"blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"}},
        {"bind_gpu", 5, {"fuse", "blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"}},
        {"bind_gpu", 7, {"fuse", "blockIdx.z", "blockIdx.y", "blockIdx.x", "threadIdx.z", "threadIdx.y", "threadIdx.x"}},
        {"bind_gpu_virtual", 3, {"blockIdx.x", "vthread", "threadIdx.x"}},
        {"bind_gpu_virtual", 7,
         {"fuse", "blockIdx.y", "blockIdx.x", "vthread", "vthread", "threadIdx.y", "threadIdx.x"}},
        {"bind_gpu_virtual", 10,
         {"fuse", "blockIdx.z", "blockIdx.y", "blockIdx.x", "vthread", "vthread", "vthread", "threadIdx.z", "threadIdx.y",
          "threadIdx.x"}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        at_space *s = new_space();
        assert_ok(at_space_annotate(s, 0, "bind", cases[c].n, cases[c].policy));
        assert_int_equal(at_space_dim(s, 0), 1);
        const at_entity *e = at_space_entity(s, 0, 0);
        assert_int_equal(e->n, cases[c].n);
        for (size_t i = 0; i < cases[c].n; i++) assert_string_equal(e->anns[i], cases[c].want[i]);
        at_space_free(s);
    }
}

static void annotate_locate_cache_should_list_anchor_combinations(void **state)
{
    (void)state;
    at_space *s = new_space();
    assert_ok(at_space_annotate_locate_cache(s, 0, "loc", 4, 2));
    static const int64_t want[] = {0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3};
    assert_int_entities(s, 0, want, 6, 2);
    assert_null(at_space_entity(s, 0, 0)->anns);
    assert_ok(at_space_annotate_locate_cache(s, 1, "loc1", 3, 1));
    static const int64_t one[] = {0, 1, 2};
    assert_int_entities(s, 1, one, 3, 1);
    assert_int_equal(at_space_annotate_locate_cache(s, 2, "bad", 2, 3), AT_EINVAL);
    at_space_free(s);
}

static void other_should_keep_candidate_values_in_order(void **state)
{
    (void)state;
    static const int64_t unroll[] = {0, 512, 1500};
    at_space *s = new_space();
    assert_ok(at_space_other(s, 0, "auto_unroll_max_step", unroll, 3));
    assert_int_equal(at_space_dim(s, 0), 3);
    for (int i = 0; i < 3; i++) {
        const at_entity *e = at_space_entity(s, 0, i);
        assert_int_equal(e->kind, AT_KNOB_OTHER);
        assert_int_equal(e->val.kind, AT_VAL_INT);
        assert_int_equal(e->val.i, unroll[i]);
    }
    char text[] = "fast";
    at_val vals[] = {{.kind = AT_VAL_STR, .s = text}, {.kind = AT_VAL_BOOL, .b = true}, {.kind = AT_VAL_FLOAT, .f = 0.5},
                     {.kind = AT_VAL_NULL}};
    assert_ok(at_space_other_vals(s, 1, "mode", vals, 4));
    text[0] = 'X'; /* the space copied the text */
    assert_string_equal(at_space_entity(s, 1, 0)->val.s, "fast");
    assert_int_equal(at_space_other(s, 2, "empty", unroll, 0), AT_EINVAL);
    at_space_free(s);
}

static void repr_should_match_tvms_text(void **state)
{
    (void)state;
    static const int64_t unroll[] = {0, 512, 1500};
    at_space *s = new_space();
    assert_ok(at_space_split(s, 0, "tile_y", 512, 2));
    assert_ok(at_space_split(s, 1, "tile_x", 512, 2));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_space_write_repr(s, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "ConfigSpace (len=100, range_length=100, space_map=\n"
                                             "   0 tile_y: Split(policy=factors, product=512, num_outputs=2) len=10\n"
                                             "   1 tile_x: Split(policy=factors, product=512, num_outputs=2) len=10\n"
                                             ")");
    assert_ok(at_space_reorder(s, 2, "re", 3, AT_REORDER_ALL));
    assert_ok(at_space_annotate(s, 3, "an", 2, "try_unroll"));
    assert_ok(at_space_other(s, 4, "auto_unroll_max_step", unroll, 3));
    at_val vals[] = {{.kind = AT_VAL_STR, .s = "a"}, {.kind = AT_VAL_BOOL, .b = true}, {.kind = AT_VAL_FLOAT, .f = 1.0},
                     {.kind = AT_VAL_NULL}};
    assert_ok(at_space_other_vals(s, 5, "v", vals, 4));
    assert_ok(at_space_split_ex(s, 6, "p", 12, &(at_split_opts){.policy = AT_SPLIT_POWER2, .num_outputs = 2}));
    assert_ok(at_space_reorder_ex(s, 7, "c", 2,
                                  &(at_reorder_opts){.policy = AT_REORDER_CANDIDATE, .candidates = (int64_t[]){1, 0},
                                                     .n_candidates = 1}));
    at_strbuf_clear(&sb);
    at_space_write_repr(s, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "ConfigSpace (len=115200, range_length=115200, space_map=\n"
                                             "   0 tile_y: Split(policy=factors, product=512, num_outputs=2) len=10\n"
                                             "   1 tile_x: Split(policy=factors, product=512, num_outputs=2) len=10\n"
                                             "   2 re: Reorder(policy=all) len=6\n"
                                             "   3 an: Annotate(policy=try_unroll) len=4\n"
                                             "   4 auto_unroll_max_step: OtherOption([0, 512, 1500]) len=3\n"
                                             "   5 v: OtherOption([a, True, 1.0, None]) len=4\n"
                                             "   6 p: Split(policy=power2, product=12, num_outputs=2) len=4\n"
                                             "   7 c: Reorder(policy=candidate) len=1\n"
                                             ")");
    assert_ok(at_strbuf_status(&sb));
    at_strbuf_fini(&sb);
    at_space_free(s);
}

static void code_hash_should_be_carried_by_configs(void **state)
{
    (void)state;
    at_space *s = new_space();
    assert_null(at_space_code_hash(s));
    assert_ok(at_space_split(s, 0, "t", 4, 2));
    assert_ok(at_space_set_code_hash(s, "1a2b3c"));
    assert_string_equal(at_space_code_hash(s), "1a2b3c");
    at_config *c;
    assert_ok(at_space_get(s, 1, &c));
    assert_string_equal(at_config_code_hash(c), "1a2b3c");
    at_config_free(c);
    assert_ok(at_space_set_code_hash(s, NULL));
    assert_ok(at_space_get(s, 1, &c));
    assert_null(at_config_code_hash(c));
    at_config_free(c);
    at_space_free(s);
}

int main(void)
{
    long live = at_alloc_live();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_factors_of_8_into_3_should_give_tvms_10_entities),
        cmocka_unit_test(split_power2_should_allow_tails),
        cmocka_unit_test(split_factors_of_512_into_2_should_have_10_ascending_entities),
        cmocka_unit_test(split_verbose_should_follow_cpython_set_order),
        cmocka_unit_test(split_verbose_with_three_outputs_should_walk_the_set_order),
        cmocka_unit_test(split_max_factor_should_drop_large_factors),
        cmocka_unit_test(split_factors_with_tails_allowed_should_still_only_use_divisors),
        cmocka_unit_test(split_filter_should_drop_entities_after_enumeration),
        cmocka_unit_test(split_candidate_should_keep_candidates_verbatim),
        cmocka_unit_test(split_misuse_should_fail_with_einval),
        cmocka_unit_test(definitions_beyond_limits_should_fail_with_einval),
        cmocka_unit_test(reorder_all_should_list_permutations_lexicographically),
        cmocka_unit_test(reorder_interval_all_should_fix_prefix_and_suffix),
        cmocka_unit_test(reorder_candidate_should_keep_candidate_order),
        cmocka_unit_test(reorder_interleave_should_merge_chains_into_one_entity),
        cmocka_unit_test(annotate_try_unroll_vec_should_keep_at_most_one_vec),
        cmocka_unit_test(annotate_bad_policy_should_fail_with_einval),
        cmocka_unit_test(annotate_bind_gpu_should_fuse_leading_axes),
        cmocka_unit_test(annotate_locate_cache_should_list_anchor_combinations),
        cmocka_unit_test(other_should_keep_candidate_values_in_order),
        cmocka_unit_test(repr_should_match_tvms_text),
        cmocka_unit_test(code_hash_should_be_carried_by_configs),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed && at_alloc_live() != live) {
        fprintf(stderr, "leak: %ld blocks still live\n", at_alloc_live() - live);
        return 1;
    }
    return failed;
}
