/* knobs/space: fallback configs (spec/autotvm_core.md 1.10) and the fail-alloc loop over the
 * space builder and every allocating space function. */
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

static void assert_sizes(const at_config *c, size_t knob, const int64_t *want, size_t n)
{
    const at_entity *e = at_config_at(c, knob);
    assert_int_equal(e->kind, AT_KNOB_SPLIT);
    assert_int_equal(e->n, n);
    for (size_t i = 0; i < n; i++) {
        if (e->ints[i] != want[i]) {
            print_error("%s[%zu]: got %lld want %lld\n", e->name, i, (long long)e->ints[i], (long long)want[i]);
            fail();
        }
    }
}

static void fallback_config_should_hold_entity_zero_of_every_knob(void **state)
{
    (void)state;
    static const int64_t unroll[] = {0, 512, 1500};
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_split(s, 0, "tile_0", 128, 3));
    assert_ok(at_space_reorder(s, 1, "re", 3, AT_REORDER_ALL));
    assert_ok(at_space_annotate(s, 2, "an", 2, "try_unroll"));
    assert_ok(at_space_other(s, 3, "auto_unroll_max_step", unroll, 3));
    assert_ok(at_space_set_code_hash(s, "abc"));
    at_config *c;
    assert_ok(at_space_fallback_config(s, &c));
    assert_int_equal(at_config_index(c), -1);
    assert_string_equal(at_config_code_hash(c), "abc");
    assert_int_equal(at_config_len(c), 4);
    assert_sizes(c, 0, (int64_t[]){-1, 1, 1}, 3);
    const at_entity *re = at_config_at(c, 1);
    assert_true(re->ints[0] == 0 && re->ints[1] == 1 && re->ints[2] == 2);
    assert_string_equal(at_config_at(c, 2)->anns[1], "none");
    assert_int_equal(at_config_other_int(c, 3), 0);
    at_config_free(c);
    at_space_free(s);
}

static void fallback_split_should_match_the_docstring_examples(void **state)
{
    (void)state;
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_split(s, 0, "tile_0", 128, 3));
    assert_ok(at_space_split(s, 1, "tile_1", 49, 3));
    assert_ok(at_space_split(s, 2, "tile_t1", 512, 2));
    at_config *c;
    assert_ok(at_space_fallback_config(s, &c));
    at_config *before = c;
    assert_ok(at_space_fallback_split(s, &c, 0, (int64_t[]){-1, 8, 4}, 3));
    assert_true(c != before); /* a new config replaced the old one */
    assert_sizes(c, 0, (int64_t[]){4, 8, 4}, 3);
    assert_sizes(c, 1, (int64_t[]){-1, 1, 1}, 3);
    assert_ok(at_space_fallback_split(s, &c, 1, (int64_t[]){-1, 8, 4}, 3));
    assert_sizes(c, 0, (int64_t[]){4, 8, 4}, 3);
    assert_sizes(c, 1, (int64_t[]){7, 7, 1}, 3);
    /* winograd's fallback on [1,512,7,7] x [512,512,3,3]: tile_t1 [-1,128] -> [4,128] */
    assert_ok(at_space_fallback_split(s, &c, 2, (int64_t[]){-1, 128}, 2));
    assert_sizes(c, 2, (int64_t[]){4, 128}, 2);
    /* no divisor of 49 is <= 0: the config stays as it was */
    before = c;
    assert_int_equal(at_space_fallback_split(s, &c, 1, (int64_t[]){-1, 0, 4}, 3), AT_EINVAL);
    assert_string_equal(at_last_error(), "Cannot find feasible fallback split entity for node: tile_1");
    assert_ptr_equal(c, before);
    assert_sizes(c, 1, (int64_t[]){7, 7, 1}, 3);
    /* the first size is limited too when asked */
    assert_ok(at_space_fallback_split(s, &c, 0, (int64_t[]){2, 8, 4}, 3));
    assert_sizes(c, 0, (int64_t[]){2, 8, 4}, 3);
    at_config_free(c);
    at_space_free(s);
}

static void fallback_set_should_replace_one_entity(void **state)
{
    (void)state;
    static const int64_t bn[] = {1, 2, 4, 8, 16};
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_other(s, 0, "tile_bna", bn, 5));
    assert_ok(at_space_split(s, 1, "tile_k", 64, 2));
    at_config *c;
    assert_ok(at_space_fallback_config(s, &c));
    at_entity bna = {.kind = AT_KNOB_OTHER, .val = AT_VAL_OF_INT(4)};
    assert_ok(at_space_fallback_set(s, &c, 0, &bna));
    assert_string_equal(at_config_at(c, 0)->name, "tile_bna");
    assert_int_equal(at_config_other_int(c, 0), 4);
    at_entity k = {.name = "ignored", .kind = AT_KNOB_SPLIT, .n = 2, .ints = (int64_t[]){16, 4}};
    assert_ok(at_space_fallback_set(s, &c, 1, &k));
    assert_sizes(c, 1, (int64_t[]){16, 4}, 2);
    assert_string_equal(at_config_at(c, 1)->name, "tile_k");
    assert_int_equal(at_config_other_int(c, 0), 4);
    at_config_free(c);
    at_space_free(s);
}

static void fallback_with_reference_log_should_pick_the_first_best_record(void **state)
{
    (void)state;
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_split(s, 0, "tile_x", 64, 3));
    assert_ok(at_space_annotate(s, 1, "ann", 2, "try_unroll"));
    /* ref a: product 32 -> F(32) has 6 of F(64)'s 7 divisors; refs b and c: product 64 (7/7); c comes later */
    at_config *a, *b, *cc, *neg;
    assert_ok(at_config_new(5, NULL, &a));
    assert_ok(at_config_add_split(a, "tile_x", (int64_t[]){2, 4, 4}, 3));
    assert_ok(at_config_add_annotate(a, "ann", (const char *[]){"unroll", "unroll"}, 2));
    assert_ok(at_config_new(6, NULL, &b));
    assert_ok(at_config_add_split(b, "tile_x", (int64_t[]){4, 2, 8}, 3));
    assert_ok(at_config_add_annotate(b, "ann", (const char *[]){"none", "unroll"}, 2));
    assert_ok(at_config_new(7, NULL, &cc));
    assert_ok(at_config_add_split(cc, "tile_x", (int64_t[]){1, 8, 8}, 3));
    assert_ok(at_config_add_annotate(cc, "ann", (const char *[]){"unroll", "none"}, 2));
    const at_config *refs[] = {a, b, cc};
    at_config *c;
    assert_ok(at_space_fallback_config(s, &c));
    assert_ok(at_space_fallback_with_reference_log(s, &c, refs, 3));
    assert_sizes(c, 0, (int64_t[]){4, 2, 8}, 3);
    assert_string_equal(at_config_at(c, 1)->anns[0], "none");
    assert_string_equal(at_config_at(c, 1)->anns[1], "unroll");
    assert_int_equal(at_config_index(c), -1);
    /* a reference with the modern -1 form cannot be scored */
    assert_ok(at_config_new(8, NULL, &neg));
    assert_ok(at_config_add_split(neg, "tile_x", (int64_t[]){-1, 8, 8}, 3));
    assert_ok(at_config_add_annotate(neg, "ann", (const char *[]){"unroll", "none"}, 2));
    const at_config *bad[] = {a, neg};
    at_config *keep = c;
    assert_int_equal(at_space_fallback_with_reference_log(s, &c, bad, 2), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "reference config 1: knob 'tile_x' sizes [-1, 8, 8]"));
    assert_ptr_equal(c, keep);
    at_config_free(neg);
    at_config_free(c);
    at_config_free(a);
    at_config_free(b);
    at_config_free(cc);
    at_space_free(s);
}

static void fallback_with_unusable_references_should_fail_with_einval(void **state)
{
    (void)state;
    at_space *s;
    assert_ok(at_space_new(&s));
    assert_ok(at_space_split(s, 0, "tile_x", 64, 3));
    assert_ok(at_space_other(s, 1, "unroll", (int64_t[]){0, 1}, 2));
    at_config *c, *r;
    assert_ok(at_space_fallback_config(s, &c));
    at_config *keep = c;
    const at_config *refs[1];
    /* split knob of the wrong kind */
    assert_ok(at_config_new(0, NULL, &r));
    assert_ok(at_config_add_reorder(r, "tile_x", (int64_t[]){0, 1, 2}, 3));
    refs[0] = r;
    assert_int_equal(at_space_fallback_with_reference_log(s, &c, refs, 1), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "knob 'tile_x' is 're', not a split"));
    at_config_free(r);
    /* wrong number of sizes */
    assert_ok(at_config_new(0, NULL, &r));
    assert_ok(at_config_add_split(r, "tile_x", (int64_t[]){8, 8}, 2));
    assert_ok(at_config_add_other(r, "unroll", &AT_VAL_OF_INT(1)));
    refs[0] = r;
    assert_int_equal(at_space_fallback_with_reference_log(s, &c, refs, 1), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "has 2 sizes, the space's has 3"));
    at_config_free(r);
    /* the best reference lacks a non-split knob */
    assert_ok(at_config_new(0, NULL, &r));
    assert_ok(at_config_add_split(r, "tile_x", (int64_t[]){8, 4, 2}, 3));
    refs[0] = r;
    assert_int_equal(at_space_fallback_with_reference_log(s, &c, refs, 1), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "reference config 0 lacks knob 'unroll'"));
    /* with it, the other knob is copied and the split mimicked */
    assert_ok(at_config_add_other(r, "unroll", &AT_VAL_OF_INT(1)));
    assert_ptr_equal(c, keep);
    assert_ok(at_space_fallback_with_reference_log(s, &c, refs, 1));
    assert_sizes(c, 0, (int64_t[]){8, 4, 2}, 3);
    assert_int_equal(at_config_other_int(c, 1), 1);
    at_config_free(r);
    at_config_free(c);
    at_space_free(s);
    /* a candidate split over an axis without extent cannot fall back */
    assert_ok(at_space_new(&s));
    assert_ok(at_space_split_ex(s, 0, "t", -1,
                                &(at_split_opts){.policy = AT_SPLIT_CANDIDATE, .num_outputs = 2,
                                                 .candidates = (int64_t[]){4, 4}, .n_candidates = 1}));
    assert_ok(at_space_fallback_config(s, &c));
    assert_int_equal(at_space_fallback_split(s, &c, 0, (int64_t[]){-1, 4}, 2), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "has no divisors"));
    assert_ok(at_config_new(0, NULL, &r));
    assert_ok(at_config_add_split(r, "t", (int64_t[]){4, 4}, 2));
    refs[0] = r;
    assert_int_equal(at_space_fallback_with_reference_log(s, &c, refs, 1), AT_EINVAL);
    at_config_free(r);
    at_config_free(c);
    at_space_free(s);
}

static bool small_tiles(const at_entity *const *e, size_t n, void *ctx)
{
    (void)ctx;
    return n >= 2 && e[0]->ints[1] * e[1]->ints[1] <= 4;
}

static bool keep_even(const int64_t *sizes, size_t n, void *ctx)
{
    (void)ctx;
    return sizes[n - 1] % 2 == 0 || sizes[n - 1] == 1;
}

/* Builds a space touching every allocation site of the builder, then uses it (kept small: the
 * multi_filter runs over the whole range once per attempt). */
static at_status build_and_use(void)
{
    static const int64_t spatial[] = {0, 1, 2, 3}, reduce[] = {4, 5};
    static const size_t slens[] = {2, 2}, rlens[] = {2};
    static const int64_t cand[] = {4, 4, 8, 2};
    at_val vals[] = {{.kind = AT_VAL_STR, .s = "a"}, {.kind = AT_VAL_STR, .s = "b"}, AT_VAL_OF_INT(3)};
    at_space *s = NULL;
    at_config *c = NULL, *f = NULL, *ref = NULL;
    at_status st;
    at_rng r;
    at_rng_seed(&r, 1);
    int64_t idx, out[8];
    if ((st = at_space_new(&s)) != AT_OK) return st;
    if ((st = at_space_split_ex(s, 0, "tile_y", 6, &(at_split_opts){.policy = AT_SPLIT_VERBOSE, .num_outputs = 3})) ||
        (st = at_space_split_ex(s, 1, "tile_x", 4, &(at_split_opts){.num_outputs = 3, .filter = keep_even})) ||
        (st = at_space_split_ex(s, 2, "tile_c", 32,
                                &(at_split_opts){.policy = AT_SPLIT_CANDIDATE, .num_outputs = 2, .candidates = cand,
                                                 .n_candidates = 2})) ||
        (st = at_space_reorder(s, 3, "re", 2, AT_REORDER_ALL)) ||
        (st = at_space_reorder_ex(s, 4, "il", 6,
                                  &(at_reorder_opts){.policy = AT_REORDER_INTERLEAVE, .spatial = spatial,
                                                     .spatial_lens = slens, .n_spatial = 2, .reduce = reduce,
                                                     .reduce_lens = rlens, .n_reduce = 1})) ||
        (st = at_space_annotate(s, 5, "ann", 2, "try_unroll")) ||
        (st = at_space_annotate(s, 6, "bind", 4, "bind_gpu")) ||
        (st = at_space_annotate_locate_cache(s, 7, "loc", 3, 2)) ||
        (st = at_space_other_vals(s, 8, "mode", vals, 3)) ||
        (st = at_space_other(s, 9, "unroll", (int64_t[]){0, 1}, 2)) || (st = at_space_set_code_hash(s, "h")) ||
        (st = at_space_multi_filter(s, small_tiles, NULL)))
        goto done;
    if ((st = at_space_split(s, 10, "late", 4, 2))) goto done; /* refreshes the filter cache */
    if (at_space_len(s) >= at_space_range_len(s)) { /* the filter must bite */
        st = AT_EINVAL;
        goto done;
    }
    if ((st = at_space_get(s, 0, &c)) || (st = at_space_index_of(s, c, &idx))) goto done;
    if ((st = at_space_sample_ints(s, &r, 8, out))) goto done;
    if ((st = at_space_fallback_config(s, &f)) ||
        (st = at_space_fallback_split(s, &f, 0, (int64_t[]){-1, 3, 2}, 3)))
        goto done;
    if ((st = at_space_fallback_config(s, &ref)) ||
        (st = at_space_fallback_split(s, &ref, 1, (int64_t[]){-1, 2, 1}, 3)) ||
        (st = at_space_fallback_split(s, &ref, 0, (int64_t[]){-1, 2, 2}, 3)) ||
        (st = at_space_fallback_split(s, &ref, 10, (int64_t[]){-1, 2}, 2)))
        goto done;
    /* candidate split tile_c has extent 32 */
    if ((st = at_space_fallback_split(s, &ref, 2, (int64_t[]){-1, 4}, 2))) goto done;
    at_entity mode = {.kind = AT_KNOB_OTHER, .val = {.kind = AT_VAL_STR, .s = "b"}};
    if ((st = at_space_fallback_set(s, &ref, 8, &mode))) goto done;
    const at_config *refs[] = {ref};
    st = at_space_fallback_with_reference_log(s, &f, refs, 1);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_space_write_repr(s, &sb);
    if (st == AT_OK) st = at_strbuf_status(&sb);
    at_strbuf_fini(&sb);
done:
    at_config_free(ref);
    at_config_free(f);
    at_config_free(c);
    at_space_free(s);
    return st;
}

static void every_failing_allocation_should_give_enomem_and_leak_nothing(void **state)
{
    (void)state;
    long live = at_alloc_live();
    assert_ok(build_and_use()); /* it works at all */
    assert_int_equal(at_alloc_live(), live);
    long n;
    at_status st = AT_ENOMEM;
    for (n = 0; st != AT_OK; n++) {
        at_alloc_fail_after(n);
        st = build_and_use();
        at_alloc_fail_after(-1);
        if (st != AT_OK && st != AT_ENOMEM) {
            print_error("allocation %ld: %s (%s)\n", n, at_status_str(st), at_last_error());
            fail();
        }
        if (at_alloc_live() != live) {
            print_error("allocation %ld failed: %ld blocks leaked\n", n, at_alloc_live() - live);
            fail();
        }
    }
    assert_true(n > 50); /* the loop really walked through many allocation sites */
}

int main(void)
{
    long live = at_alloc_live();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fallback_config_should_hold_entity_zero_of_every_knob),
        cmocka_unit_test(fallback_split_should_match_the_docstring_examples),
        cmocka_unit_test(fallback_set_should_replace_one_entity),
        cmocka_unit_test(fallback_with_reference_log_should_pick_the_first_best_record),
        cmocka_unit_test(fallback_with_unusable_references_should_fail_with_einval),
        cmocka_unit_test(every_failing_allocation_should_give_enomem_and_leak_nothing),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed && at_alloc_live() != live) {
        fprintf(stderr, "leak: %ld blocks still live\n", at_alloc_live() - live);
        return 1;
    }
    return failed;
}
