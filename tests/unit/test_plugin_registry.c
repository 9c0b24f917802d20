/* templates/registry_ext.c: the run-time extension of the op-kind table and the template
 * registry, driven through the example plugin's own at_plugin_init (examples/plugin/vecadd.c,
 * compiled into this test): the kind's value, lookups, the built-in tables unchanged, the refused
 * registrations, and a task of the plugin template (space, workload, interpreter == reference). */
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/arena.h"
#include "core/strbuf.h"
#include "ir/ir.h"
#include "templates/plugin.h"
#include "tests/support/test_support.h"

static size_t n_builtin;

static const at_plugin_api api = {
    .api_version = AT_PLUGIN_API_VERSION,
    .path = "vecadd.c",
    .register_op = at_op_register,
    .register_template = at_tmpl_register,
};

static int setup(void **state)
{
    (void)state;
    n_builtin = at_tmpl_count();
    return at_plugin_init(&api) == AT_OK ? 0 : -1;
}

static void plugin_kind_should_follow_the_builtin_table(void **state)
{
    (void)state;
    at_op_kind k;
    assert_ok(at_op_find("vecadd", &k));
    assert_int_equal(k, AT_OP_COUNT);
    assert_int_equal(at_op_ext_count(), 1);
    assert_string_equal(at_op_name(k), "vecadd");
    assert_ok(at_op_find("matmul", &k));
    assert_int_equal(k, AT_OP_MATMUL);
    assert_int_equal(at_op_find("vecad", &k), AT_ENOTFOUND);
    const char *e = at_last_error();
    assert_non_null(strstr(e, "no op kind 'vecad' (kinds: matmul, "));
    char tail[128]; /* the run-time kind after the table's last row */
    snprintf(tail, sizeof tail, ", %s, vecadd)", at_op_name((at_op_kind)(AT_OP_COUNT - 1)));
    assert_non_null(strstr(e, tail));
}

static void plugin_template_should_be_found_after_the_builtin_ones(void **state)
{
    (void)state;
    assert_int_equal(at_tmpl_count(), n_builtin + 1);
    const at_template *t = at_tmpl_find("vecadd.example", AT_TARGET_OPENCL);
    assert_non_null(t);
    assert_ptr_equal(at_tmpl_at(n_builtin), t);
    assert_null(at_tmpl_find("vecadd.example", AT_TARGET_LLVM));
    for (size_t i = 0; i < n_builtin; i++) {
        const at_template *b = at_tmpl_at(i);
        assert_ptr_equal(at_tmpl_find(b->name, b->target), b);
    }
}

static void bad_registrations_should_be_refused(void **state)
{
    (void)state;
    at_op_kind k;
    assert_ok(at_op_find("vecadd", &k));
    at_op_def again = *at_op_def_of(k);
    assert_int_equal(at_op_register(&again, &k), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "op kind vecadd is already defined"));
    again.name = "vecadd2";
    again.reference = NULL;
    assert_int_equal(at_op_register(&again, &k), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "op kind vecadd2: every at_op_def member but tiny and typical is required"));

    at_template t = *at_tmpl_find("vecadd.example", AT_TARGET_OPENCL);
    assert_int_equal(at_tmpl_register(&t), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "template vecadd.example for opencl is already registered"));
    t.target = AT_TARGET_LLVM;
    t.op = (at_op_kind)(AT_OP_COUNT + 5);
    assert_int_equal(at_tmpl_register(&t), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "template vecadd.example: op kind"));
    t.op = AT_OP_MATMUL;
    t.schedule = NULL;
    assert_int_equal(at_tmpl_register(&t), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "define_space and schedule are required"));
    assert_int_equal(at_tmpl_count(), n_builtin + 1);
    assert_int_equal(at_op_ext_count(), 1);
}

static void plugin_task_should_run_like_a_builtin_one(void **state)
{
    (void)state;
    at_task *task = NULL;
    assert_ok(at_task_create("vecadd.example", AT_TARGET_OPENCL, "16", &task));
    assert_int_equal(at_space_len(at_task_space(task)), 5); /* tile_x inner 1, 2, 4, 8, 16 */
    assert_true(at_task_flop(task) == 16.0);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_task_write_workload(task, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "[\"vecadd.example\", 16, \"float32\"]");
    at_strbuf_fini(&sb);

    at_config *c = NULL;
    assert_ok(at_task_config(task, 2, &c));
    at_arena *arena = NULL;
    assert_ok(at_arena_new(0, &arena));
    const at_ir_program *prog = NULL;
    assert_ok(at_task_instantiate(task, c, arena, &prog));
    float a[16], b[16], got[16], want[16];
    for (int i = 0; i < 16; i++) a[i] = (float)i * 0.5f, b[i] = 100.0f - (float)i;
    void *bufs[3] = {a, b, got};
    assert_ok(at_ir_interp(prog, bufs));
    const void *in[2] = {a, b};
    void *out[1] = {want};
    at_op_reference(at_task_args(task), in, out);
    assert_memory_equal(got, want, sizeof got);
    assert_true(want[3] == 98.5f);
    at_arena_free(arena);
    at_config_free(c);
    at_task_free(task);

    assert_int_equal(at_task_create("vecadd.example", AT_TARGET_OPENCL, "16,float64", &task), AT_EPARSE);
    assert_int_equal(at_task_create("vecadd.example", AT_TARGET_OPENCL, "[16, \"float64\"]", &task), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "vecadd: dtype must be float32"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plugin_kind_should_follow_the_builtin_table),
        cmocka_unit_test(plugin_template_should_be_found_after_the_builtin_ones),
        cmocka_unit_test(bad_registrations_should_be_refused),
        cmocka_unit_test(plugin_task_should_run_like_a_builtin_one),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
