/* knobs/config: entity JSON both ways, equality, typed reads, allocation failure. */
#include "tests/support/test_support.h"

#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "knobs/config.h"

/* tophub mali_v0.06.log line 4 and a modern-style config (spec §2.1), as TVM wrote them */
static const char *const configs[] = {
    "{\"index\": 36225, \"code_hash\": null, \"entity\": [[\"tile_co\", \"sp\", [32, 2, 2]], [\"tile_oh\", \"sp\", [1, 7, 1]], "
    "[\"tile_ow\", \"sp\", [1, 1, 7]], [\"reorder_0\", \"re\", [0, 1, 2, 3, 4, 5, 6, 9, 7, 8]], [\"ann_reduce\", \"an\", "
    "[\"unroll\", \"unroll\"]], [\"ann_spatial\", \"an\", [\"unroll\", \"unroll\", \"vec\"]]]}",
    "{\"index\": 1591, \"code_hash\": null, \"entity\": [[\"auto_unroll_max_step\", \"ot\", 4], [\"tile_y\", \"sp\", [-1, 1, 32]], "
    "[\"tile_x\", \"sp\", [-1, 4, 2]], [\"tile_rc\", \"sp\", [-1, 8]]]}",
    "{\"index\": 3, \"code_hash\": \"1a2b\", \"entity\": [[\"cache\", \"an\", [0, 2]], [\"f\", \"ot\", 0.5], [\"b\", \"ot\", true], "
    "[\"s\", \"ot\", \"x\"], [\"n\", \"ot\", null]]}",
};

static at_config *parse_config(const char *text)
{
    cJSON *j;
    assert_ok(at_json_parse(text, strlen(text), &j));
    at_config *c;
    assert_ok(at_config_from_json(j, &c));
    at_json_free(j);
    return c;
}

static void config_json_should_round_trip_byte_for_byte(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        at_config *c = parse_config(configs[i]);
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_config_write_json(c, &sb);
        assert_string_equal(at_strbuf_cstr(&sb), configs[i]);
        at_strbuf_fini(&sb);
        at_config_free(c);
    }
}

static void config_should_expose_entities_in_knob_order(void **state)
{
    (void)state;
    at_config *c = parse_config(configs[0]);
    assert_int_equal(at_config_index(c), 36225);
    assert_null(at_config_code_hash(c));
    assert_int_equal(at_config_len(c), 6);
    int64_t co[3];
    at_config_split(c, 0, co, 3);
    assert_int_equal(co[0], 32);
    assert_int_equal(co[2], 2);
    const at_entity *re = at_config_find(c, "reorder_0");
    assert_non_null(re);
    assert_int_equal(re->kind, AT_KNOB_REORDER);
    assert_int_equal(re->n, 10);
    assert_int_equal(re->ints[7], 9);
    const at_entity *an = at_config_at(c, 5);
    assert_string_equal(an->anns[2], "vec");
    assert_null(at_config_find(c, "tile_x"));
    at_config_free(c);

    c = parse_config(configs[1]);
    assert_int_equal(at_config_other_int(c, 0), 4);
    at_config_free(c);
}

static void config_equal_should_compare_values_like_python_repr(void **state)
{
    (void)state;
    at_config *a = parse_config(configs[1]), *b = parse_config(configs[1]), *c;
    assert_true(at_config_equal(a, b));
    assert_ok(at_config_clone(a, &c));
    assert_true(at_config_equal(a, c));
    at_config_set_index(c, 1592);
    assert_false(at_config_equal(a, c));
    at_config_free(c);
    /* 4 and 4.0 print differently in a key, so they are different configs */
    const char *f = "{\"index\": 1591, \"code_hash\": null, \"entity\": [[\"auto_unroll_max_step\", \"ot\", 4.0], "
                    "[\"tile_y\", \"sp\", [-1, 1, 32]], [\"tile_x\", \"sp\", [-1, 4, 2]], [\"tile_rc\", \"sp\", [-1, 8]]]}";
    c = parse_config(f);
    assert_false(at_config_equal(a, c));
    assert_true(at_val_equal(&at_config_at(a, 0)->val, &at_config_at(c, 0)->val));
    at_config_free(a);
    at_config_free(b);
    at_config_free(c);
}

static void config_from_json_should_name_the_bad_field(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; } bad[] = {
        {"{\"index\": 1, \"code_hash\": null, \"entity\": [[\"t\", \"zz\", [1]]]}", "config.entity[0]: knob 't': unknown knob tag 'zz'"},
        {"{\"index\": 1.5, \"code_hash\": null, \"entity\": []}", "config.index: expected an integer, got 1.5"},
        {"{\"code_hash\": null, \"entity\": []}", "config: missing 'index'"},
        {"{\"index\": 1, \"entity\": [[\"t\", \"sp\", [1, \"a\"]]]}", "config.entity[0]: knob 't': item 1: expected an integer"},
        {"{\"index\": 1, \"entity\": [[\"t\", \"sp\"]]}", "config.entity[0]: expected [name, tag, value]"},
        {"{\"index\": -3, \"entity\": []}", "config.index: negative index -3"},
        {"[1]", "config: expected an object"},
    };
    long live = at_alloc_live();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *j;
        assert_ok(at_json_parse(bad[i].text, strlen(bad[i].text), &j));
        at_config *c = (at_config *)1;
        assert_int_equal(at_config_from_json(j, &c), AT_EPARSE);
        assert_null(c);
        assert_string_equal(at_last_error(), bad[i].msg);
        at_json_free(j);
    }
    assert_int_equal(at_alloc_live(), live);
}

static void config_from_json_should_fail_cleanly_at_every_allocation(void **state)
{
    (void)state;
    cJSON *j;
    assert_ok(at_json_parse(configs[2], strlen(configs[2]), &j));
    long live = at_alloc_live();
    int done = 0;
    for (long n = 0; n < 1000 && !done; n++) {
        at_alloc_fail_after(n);
        at_config *c = NULL, *d = NULL;
        at_status st = at_config_from_json(j, &c);
        if (st == AT_OK) st = at_config_clone(c, &d);
        at_alloc_fail_after(-1);
        if (st == AT_OK) done = 1;
        else assert_int_equal(st, AT_ENOMEM);
        at_config_free(c);
        at_config_free(d);
        assert_int_equal(at_alloc_live(), live);
    }
    assert_true(done);
    at_json_free(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_json_should_round_trip_byte_for_byte),
        cmocka_unit_test(config_should_expose_entities_in_knob_order),
        cmocka_unit_test(config_equal_should_compare_values_like_python_repr),
        cmocka_unit_test(config_from_json_should_name_the_bad_field),
        cmocka_unit_test(config_from_json_should_fail_cleanly_at_every_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
