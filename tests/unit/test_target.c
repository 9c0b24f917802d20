/* Target-string parsing against spec/autotvm_core.md §2.8 and TVM v0.18's FromRawString. */
#include "tests/support/test_support.h"

#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/target.h"

static void assert_keys(const at_target *t, const char *const *keys, size_t n)
{
    assert_int_equal(t->n_keys, n);
    for (size_t i = 0; i < n; i++) assert_string_equal(t->keys[i], keys[i]);
}

#define ASSERT_KEYS(t, ...)                                                      \
    do {                                                                         \
        static const char *const want_[] = {__VA_ARGS__};                        \
        assert_keys((t), want_, sizeof want_ / sizeof want_[0]);                 \
    } while (0)

static void target_should_take_device_then_kind_default_keys(void **state)
{
    (void)state;
    at_target t;
    assert_ok(at_target_parse("opencl -device=mali", &t));
    assert_string_equal(t.kind, "opencl");
    ASSERT_KEYS(&t, "mali", "opencl", "gpu");
    assert_string_equal(t.model, "unknown");
    assert_string_equal(t.device, "mali");
    at_target_fini(&t);

    assert_ok(at_target_parse("llvm -device=arm_cpu", &t));
    ASSERT_KEYS(&t, "arm_cpu", "cpu");
    at_target_fini(&t);

    assert_ok(at_target_parse("cuda", &t));
    ASSERT_KEYS(&t, "cuda", "gpu");
    assert_null(t.device);
    assert_int_equal(t.n_attrs, 0);
    at_target_fini(&t);
}

static void target_should_put_user_keys_first_and_skip_defaults(void **state)
{
    (void)state;
    at_target t;
    /* tvm.target.vta() */
    assert_ok(at_target_parse("ext_dev -device=vta -keys=vta,cpu -model=unknown", &t));
    ASSERT_KEYS(&t, "vta", "cpu");
    assert_string_equal(t.model, "unknown");
    at_target_fini(&t);

    /* the TopHub VTA form: -keys=cpu given, device appended after it */
    assert_ok(at_target_parse("ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17", &t));
    ASSERT_KEYS(&t, "cpu", "vta");
    assert_string_equal(t.model, "pynq_1x16_i8w8a32_15_15_18_17");
    at_target_fini(&t);

    assert_ok(at_target_parse("cuda -keys=a,b", &t));
    ASSERT_KEYS(&t, "a", "b");
    at_target_fini(&t);

    assert_ok(at_target_parse("opencl -keys=gpu,gpu,x -device=gpu", &t));
    ASSERT_KEYS(&t, "gpu", "x");
    at_target_fini(&t);

    assert_ok(at_target_parse("opencl -keys=adreno,opencl,gpu -device=adreno -max_num_threads=256", &t));
    ASSERT_KEYS(&t, "adreno", "opencl", "gpu");
    assert_string_equal(at_target_attr_value(&t, "max_num_threads"), "256");
    at_target_fini(&t);
}

static void target_should_read_attributes_in_any_order(void **state)
{
    (void)state;
    at_target a, b;
    assert_ok(at_target_parse("opencl -model=rk3399 -device=mali", &a));
    assert_ok(at_target_parse("opencl -device=mali -model=rk3399", &b));
    ASSERT_KEYS(&a, "mali", "opencl", "gpu");
    ASSERT_KEYS(&b, "mali", "opencl", "gpu");
    assert_string_equal(a.model, "rk3399");
    assert_string_equal(b.model, "rk3399");
    at_strbuf sa, sb;
    at_strbuf_init(&sa);
    at_strbuf_init(&sb);
    at_target_write_canonical(&a, &sa);
    at_target_write_canonical(&b, &sb);
    assert_ok(at_strbuf_status(&sa));
    assert_string_equal(sa.data, "opencl -keys=mali,opencl,gpu -device=mali -model=rk3399");
    assert_string_equal(sa.data, sb.data);
    at_strbuf_fini(&sa);
    at_strbuf_fini(&sb);
    at_target_fini(&a);
    at_target_fini(&b);

    assert_ok(at_target_parse("llvm -device=arm_cpu -model=pynq -mtriple=armv7a-linux-eabi -mattr=+neon", &a));
    ASSERT_KEYS(&a, "arm_cpu", "cpu");
    assert_string_equal(a.model, "pynq");
    assert_int_equal(a.n_attrs, 4);
    assert_string_equal(at_target_attr_value(&a, "mtriple"), "armv7a-linux-eabi");
    assert_string_equal(at_target_attr_value(&a, "mattr"), "+neon");
    assert_null(at_target_attr_value(&a, "keys"));
    at_target_fini(&a);
}

static void target_should_accept_tvm_option_spellings(void **state)
{
    (void)state;
    at_target t;
    /* "-key value" when the next word does not start with '-'; bare flags are "1"; "--key" */
    assert_ok(at_target_parse("opencl -device mali --model=rk3399 -fast", &t));
    assert_string_equal(t.device, "mali");
    assert_string_equal(t.model, "rk3399");
    assert_string_equal(at_target_attr_value(&t, "fast"), "1");
    ASSERT_KEYS(&t, "mali", "opencl", "gpu");
    at_target_fini(&t);

    assert_ok(at_target_parse("llvm -flag -device=x", &t));
    assert_string_equal(at_target_attr_value(&t, "flag"), "1");
    assert_string_equal(t.device, "x");
    at_target_fini(&t);

    /* quotes group words and are removed; escapes resolved; extra spaces ignored */
    assert_ok(at_target_parse("  llvm   -device='my dev'  -mattr='+neon,+vfp' -model=a\\'b ", &t));
    assert_string_equal(t.device, "my dev");
    assert_string_equal(at_target_attr_value(&t, "mattr"), "+neon,+vfp");
    assert_string_equal(t.model, "a'b");
    ASSERT_KEYS(&t, "my dev", "cpu");
    at_target_fini(&t);
}

static void expect_parse_error(const char *text, const char *detail)
{
    at_target t;
    memset(&t, 0xAB, sizeof t);
    assert_int_equal(at_target_parse(text, &t), AT_EPARSE);
    assert_null(t.kind); /* zeroed on failure */
    assert_int_equal(t.n_keys, 0);
    if (!strstr(at_last_error(), detail)) {
        print_error("'%s': detail '%s' lacks '%s'\n", text, at_last_error(), detail);
        fail();
    }
}

static void target_should_reject_what_tvm_rejects(void **state)
{
    (void)state;
    expect_parse_error("", "empty target string");
    expect_parse_error("    ", "empty target string");
    expect_parse_error("mali", "unknown target kind 'mali'");
    expect_parse_error("opencl device=mali", "start with '-'");
    expect_parse_error("opencl --", "not a target attribute key");
    expect_parse_error("opencl -=x", "empty target attribute key or value");
    expect_parse_error("opencl -device=", "empty target attribute key or value");
    expect_parse_error("opencl -device=a -device=b", "appears more than once");
    expect_parse_error("opencl -keys=a -keys=b", "appears more than once");
    expect_parse_error("opencl -kind=cuda", "appears more than once");
    expect_parse_error("opencl -device='mali", "mismatched quotes");
}

static void target_kinds_should_have_tvm_default_keys(void **state)
{
    (void)state;
    static const struct {
        const char *kind, *keys;
    } want[] = {
        {"llvm", "cpu"},         {"c", "cpu"},          {"stackvm", "cpu"},           {"cuda", "cuda,gpu"},
        {"nvptx", "cuda,gpu"},   {"rocm", "rocm,gpu"},  {"opencl", "opencl,gpu"},     {"metal", "metal,gpu"},
        {"vulkan", "vulkan,gpu"}, {"webgpu", "webgpu,gpu"}, {"hexagon", "hexagon,cpu"}, {"sdaccel", "sdaccel,hls"},
        {"aocl", "aocl,hls"},    {"aocl_sw_emu", "aocl,hls"}, {"ext_dev", ""},         {"hybrid", ""},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *const *keys;
        size_t n;
        assert_true(at_target_kind_default_keys(want[i].kind, &keys, &n));
        char joined[64] = "";
        for (size_t k = 0; k < n; k++) {
            if (k) strcat(joined, ",");
            strcat(joined, keys[k]);
        }
        assert_string_equal(joined, want[i].keys);
    }
    const char *const *keys;
    size_t n;
    assert_false(at_target_kind_default_keys("gpu", &keys, &n));
}

static void target_copy_should_be_deep(void **state)
{
    (void)state;
    at_target a, b;
    assert_ok(at_target_parse("opencl -model=rk3399 -device=mali -x=1", &a));
    assert_ok(at_target_copy(&b, &a));
    at_target_fini(&a);
    assert_string_equal(b.kind, "opencl");
    ASSERT_KEYS(&b, "mali", "opencl", "gpu");
    assert_string_equal(b.model, "rk3399");
    assert_string_equal(b.device, "mali");
    assert_string_equal(at_target_attr_value(&b, "x"), "1");
    assert_true(at_target_has_key(&b, "gpu"));
    assert_false(at_target_has_key(&b, "cpu"));
    at_target_fini(&b);
    at_target_fini(&b); /* a zeroed target is fine */
}

static void target_parse_and_copy_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    const char *text = "ext_dev -device=vta -keys=cpu,'a b' -model=pynq -mattr=+neon";
    long start = at_alloc_live();
    long n;
    for (n = 0;; n++) {
        at_target t;
        at_alloc_fail_after(n);
        at_status st = at_target_parse(text, &t);
        at_alloc_fail_after(-1);
        if (st == AT_OK) {
            at_target c;
            long with_t = at_alloc_live();
            for (long m = 0;; m++) {
                at_alloc_fail_after(m);
                at_status cs = at_target_copy(&c, &t);
                at_alloc_fail_after(-1);
                if (cs == AT_OK) break;
                assert_int_equal(cs, AT_ENOMEM);
                assert_int_equal(at_alloc_live(), with_t);
                assert_null(c.kind);
            }
            ASSERT_KEYS(&c, "cpu", "a b", "vta");
            at_target_fini(&c);
            at_target_fini(&t);
            break;
        }
        assert_int_equal(st, AT_ENOMEM);
        assert_int_equal(at_alloc_live(), start);
    }
    assert_true(n > 5);
    assert_int_equal(at_alloc_live(), start);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(target_should_take_device_then_kind_default_keys),
        cmocka_unit_test(target_should_put_user_keys_first_and_skip_defaults),
        cmocka_unit_test(target_should_read_attributes_in_any_order),
        cmocka_unit_test(target_should_accept_tvm_option_spellings),
        cmocka_unit_test(target_should_reject_what_tvm_rejects),
        cmocka_unit_test(target_kinds_should_have_tvm_default_keys),
        cmocka_unit_test(target_copy_should_be_deep),
        cmocka_unit_test(target_parse_and_copy_should_survive_every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
