/* core/: Python float repr, JSON strictness and bytes, allocator accounting, arena, rng, errors. */
#include "tests/support/test_support.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/json.h"
#include "core/numfmt.h"
#include "core/result.h"
#include "core/rng.h"
#include "core/strbuf.h"

static void fmt_double_should_match_python_repr_examples(void **state)
{
    (void)state;
    static const struct { double v; const char *s; } cases[] = {
        {1e-05, "1e-05"}, {5.69732536806342e-05, "5.69732536806342e-05"}, {1000000000.0, "1000000000.0"},
        {1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {0.0001, "0.0001"}, {3.0, "3.0"}, {-0.0, "-0.0"},
        {0.0, "0.0"}, {0.1, "0.1"}, {1.5e-07, "1.5e-07"}, {1e100, "1e+100"}, {-2.5, "-2.5"},
        {1538219132.0322816, "1538219132.0322816"}, {NAN, "NaN"}, {INFINITY, "Infinity"}, {-INFINITY, "-Infinity"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[AT_FMT_DOUBLE_MAX];
        size_t n = at_fmt_double(cases[i].v, buf);
        assert_string_equal(buf, cases[i].s);
        assert_int_equal(n, strlen(cases[i].s));
    }
}

static void fmt_double_should_match_python_on_6526_golden_values(void **state)
{
    (void)state;
    char *text = at_test_read_file(at_test_source_path("tests/golden/core/pyrepr.txt"), NULL);
    assert_non_null(text);
    size_t checked = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') continue;
        unsigned long long bits;
        char expect[64];
        assert_int_equal(sscanf(line, "%llx %63s", &bits, expect), 2);
        double v;
        memcpy(&v, &bits, sizeof v);
        char buf[AT_FMT_DOUBLE_MAX];
        at_fmt_double(v, buf);
        if (strcmp(buf, expect)) fail_msg("bits %016llx: got %s, python says %s", bits, buf, expect);
        checked++;
    }
    at_free(text);
    assert_int_equal(checked, 6526);
}

static void fmt_double_should_ignore_a_comma_locale(void **state)
{
    (void)state;
    if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "fr_FR.UTF-8")) skip();
    char buf[AT_FMT_DOUBLE_MAX];
    at_fmt_double(0.5, buf);
    setlocale(LC_NUMERIC, "C");
    assert_string_equal(buf, "0.5");
}

static void json_parse_should_tag_ints_and_floats_in_document_order(void **state)
{
    (void)state;
    const char *text = "{\"a\": [10, 10.0, 1e3, -0, \"5\", {\"x\": 7}], \"b\": 2.5}";
    cJSON *root;
    assert_ok(at_json_parse(text, strlen(text), &root));
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "a");
    assert_true(at_json_number_is_int(cJSON_GetArrayItem(a, 0)));
    assert_false(at_json_number_is_int(cJSON_GetArrayItem(a, 1)));
    assert_false(at_json_number_is_int(cJSON_GetArrayItem(a, 2)));
    assert_true(at_json_number_is_int(cJSON_GetArrayItem(a, 3)));
    assert_true(at_json_number_is_int(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(a, 5), "x")));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_json_write_value(&sb, root);
    assert_ok(at_strbuf_status(&sb));
    assert_string_equal(at_strbuf_cstr(&sb), "{\"a\": [10, 10.0, 1000.0, 0, \"5\", {\"x\": 7}], \"b\": 2.5}");
    at_strbuf_fini(&sb);
    at_json_free(root);
}

static void json_parse_should_reject_what_python_rejects(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "[1, 2",            /* truncated */
        "[007]",            /* leading zero */
        "[1] x",            /* trailing garbage */
        "\"a\tb\"",         /* raw control character */
        "[9007199254740993]", /* integer beyond 2^53 */
        "[1e400, 99999999999999999999]",
        "\xff\xfe[]",       /* not UTF-8 */
        "[\"\xc3\x28\"]",   /* invalid continuation byte */
        "",
        "[NaN]",            /* json.loads takes it, cJSON cannot: such lines are skipped */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *root = NULL;
        at_status st = at_json_parse(bad[i], strlen(bad[i]), &root);
        if (st != AT_EPARSE) fail_msg("case %zu accepted", i);
        assert_null(root);
        assert_true(strlen(at_last_error()) > 0);
    }
}

static void json_write_string_should_escape_like_json_dumps(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_json_write_string(&sb, "a\"b\\c\n\x01\x7f\xc3\xa9\xf0\x9f\x98\x80/");
    assert_string_equal(at_strbuf_cstr(&sb), "\"a\\\"b\\\\c\\n\\u0001\\u007f\\u00e9\\ud83d\\ude00/\"");
    at_strbuf_fini(&sb);
}

static void json_parse_should_fail_cleanly_at_every_allocation(void **state)
{
    (void)state;
    const char *text = "{\"input\": [\"opencl\", \"t\", [[\"TENSOR\", [1, 2], \"float32\"]], {}], \"v\": [1.5, 2, 3]}";
    long live = at_alloc_live();
    int succeeded = 0;
    for (long n = 0; n < 10000 && !succeeded; n++) {
        at_alloc_fail_after(n);
        cJSON *root = NULL;
        at_status st = at_json_parse(text, strlen(text), &root);
        at_alloc_fail_after(-1);
        if (st == AT_OK) {
            succeeded = 1;
            at_json_free(root);
        } else {
            assert_int_equal(st, AT_ENOMEM);
            assert_null(root);
        }
        assert_int_equal(at_alloc_live(), live);
    }
    assert_true(succeeded);
}

static void alloc_should_count_live_blocks_and_inject_failures(void **state)
{
    (void)state;
    long live = at_alloc_live();
    void *p = at_malloc(10);
    char *s = at_strdup("abc");
    assert_int_equal(at_alloc_live(), live + 2);
    at_alloc_fail_after(1);
    void *ok = at_malloc(1);
    void *bad = at_malloc(1);
    void *ok2 = at_malloc(1);
    assert_non_null(ok);
    assert_null(bad);
    assert_non_null(ok2);
    at_free(ok);
    at_free(ok2);
    at_free(p);
    at_free(s);
    at_free(NULL);
    assert_int_equal(at_alloc_live(), live);
}

static void arena_should_align_zero_and_free_everything(void **state)
{
    (void)state;
    long live = at_alloc_live();
    at_arena *a;
    assert_ok(at_arena_new(128, &a));
    for (int i = 0; i < 100; i++) {
        unsigned char *p = at_arena_alloc(a, (size_t)(i * 7 + 1));
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
        for (int k = 0; k < i * 7 + 1; k++) assert_int_equal(p[k], 0);
        memset(p, 0xAB, (size_t)(i * 7 + 1));
    }
    assert_non_null(at_arena_alloc(a, 100000));
    assert_string_equal(at_arena_strdup(a, "hello"), "hello");
    at_arena_free(a);
    at_arena_free(NULL);
    assert_int_equal(at_alloc_live(), live);
}

static void rng_should_repeat_for_a_seed_and_stay_in_range(void **state)
{
    (void)state;
    at_rng a, b, c;
    at_rng_seed(&a, 42);
    at_rng_seed(&b, 42);
    at_rng_seed(&c, 43);
    int differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = at_rng_next_u64(&a), y = at_rng_next_u64(&b), z = at_rng_next_u64(&c);
        assert_true(x == y);
        differ += x != z;
    }
    assert_true(differ > 990);
    int hist[7] = {0};
    for (int i = 0; i < 7000; i++) hist[at_rng_below(&a, 7)]++;
    for (int i = 0; i < 7; i++) assert_in_range(hist[i], 800, 1200);
    for (int i = 0; i < 1000; i++) {
        double u = at_rng_uniform(&a);
        assert_true(u >= 0.0 && u < 1.0);
    }
}

static void fail_wrap_should_prefix_the_lower_detail(void **state)
{
    (void)state;
    AT_FAIL(AT_EPARSE, "unknown knob tag '%s'", "zz");
    at_status st = AT_FAIL_WRAP(AT_EPARSE, "%s:%d", "x.log", 7);
    assert_int_equal(st, AT_EPARSE);
    assert_string_equal(at_last_error(), "x.log:7: unknown knob tag 'zz'");
    assert_string_equal(at_status_str(AT_ENOMEM), "out of memory");
    assert_string_equal(at_status_str((at_status)999), "unknown status");
}

static void result_mean_should_follow_tvm_for_failures(void **state)
{
    (void)state;
    at_result r;
    at_result_init(&r);
    double c[3] = {1.0, 2.0, 6.0};
    assert_ok(at_result_set_costs(&r, c, 3));
    assert_true(at_result_mean_cost(&r) == 3.0);
    r.err = AT_MEAS_RUN_TIMEOUT;
    assert_true(at_result_mean_cost(&r) == AT_FAILED_COST_S);
    assert_string_equal(at_meas_err_name(AT_MEAS_WRONG_ANSWER), "WRONG_ANSWER");
    at_result_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmt_double_should_match_python_repr_examples),
        cmocka_unit_test(fmt_double_should_match_python_on_6526_golden_values),
        cmocka_unit_test(fmt_double_should_ignore_a_comma_locale),
        cmocka_unit_test(json_parse_should_tag_ints_and_floats_in_document_order),
        cmocka_unit_test(json_parse_should_reject_what_python_rejects),
        cmocka_unit_test(json_write_string_should_escape_like_json_dumps),
        cmocka_unit_test(json_parse_should_fail_cleanly_at_every_allocation),
        cmocka_unit_test(alloc_should_count_live_blocks_and_inject_failures),
        cmocka_unit_test(arena_should_align_zero_and_free_everything),
        cmocka_unit_test(rng_should_repeat_for_a_seed_and_stay_in_range),
        cmocka_unit_test(fail_wrap_should_prefix_the_lower_detail),
        cmocka_unit_test(result_mean_should_follow_tvm_for_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
