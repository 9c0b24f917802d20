/* templates/: the registry, ops (args JSON, signatures, reference), tasks, testing/matmul's space
 * and golden IR, and the conformance walk of STYLE 2.9: every registered template on a tiny
 * shape, a seeded sample of configs, instantiate + verify + interpreter == reference. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/json.h"
#include "core/rng.h"
#include "core/strbuf.h"
#include "templates/template.h"
#include "tests/support/test_op_data.h"
#include "tests/support/test_op_examples.h"
#include "tests/support/test_support.h"

static void registry_should_be_sorted_and_find_every_entry(void **state)
{
    (void)state;
    size_t n = at_tmpl_count();
    assert_true(n >= 1);
    for (size_t i = 0; i < n; i++) {
        const at_template *t = at_tmpl_at(i);
        assert_ptr_equal(at_tmpl_find(t->name, t->target), t);
        if (i) {
            const at_template *p = at_tmpl_at(i - 1);
            int c = strcmp(p->name, t->name);
            assert_true(c < 0 || (c == 0 && p->target < t->target));
        }
    }
    assert_non_null(at_tmpl_find("testing/matmul", AT_TARGET_OPENCL));
    assert_null(at_tmpl_find("testing/matmul", AT_TARGET_VTA));
    assert_null(at_tmpl_find("testing/matmu", AT_TARGET_OPENCL));
    assert_null(at_tmpl_find("zzz", AT_TARGET_OPENCL));
}

static void matmul_args_should_parse_both_forms_and_write_tvms_workload(void **state)
{
    (void)state;
    at_args a;
    assert_ok(at_op_args_parse(AT_OP_MATMUL, "512,256,128", &a));
    assert_int_equal(a.u.matmul.n, 512);
    assert_int_equal(a.u.matmul.l, 256);
    assert_int_equal(a.u.matmul.m, 128);
    assert_true(at_ir_type_eq(a.u.matmul.dtype, AT_IR_F32));
    assert_ok(at_op_args_parse(AT_OP_MATMUL, "4,5,6,int32", &a));
    assert_true(at_ir_type_eq(a.u.matmul.dtype, AT_IR_I32));
    assert_ok(at_op_args_parse(AT_OP_MATMUL, "[8, 8, 8, \"float64\"]", &a));
    assert_true(at_ir_type_eq(a.u.matmul.dtype, AT_IR_F64));
    assert_int_equal(at_op_args_parse(AT_OP_MATMUL, "8,8", &a), AT_EPARSE);
    assert_int_equal(at_op_args_parse(AT_OP_MATMUL, "8,0,8", &a), AT_EINVAL);
    assert_int_equal(at_op_args_parse(AT_OP_MATMUL, "8,8,8,float7", &a), AT_EPARSE);
    assert_int_equal(at_op_args_parse(AT_OP_MATMUL, "8,8,8,int8", &a), AT_EINVAL);
    assert_int_equal(at_op_args_parse(AT_OP_MATMUL, "[8, 8, 8.0, \"float32\"]", &a), AT_EPARSE);
    assert_int_equal(at_op_args_parse(AT_OP_MATMUL, "[8, 8, 8]", &a), AT_EPARSE);
    assert_int_equal(at_op_args_parse(AT_OP_MATMUL, "2000000,2000000,1", &a), AT_EINVAL);

    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "512,512,512", &t));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_task_write_workload(t, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "[\"testing/matmul\", 512, 512, 512, \"float32\"]");
    at_strbuf_fini(&sb);
    assert_true(at_task_flop(t) == 2.0 * 512 * 512 * 512);
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    assert_int_equal(at_op_tensors(at_task_args(t), d), 3);
    assert_string_equal(d[2].name, "C");
    assert_true(d[2].is_output);
    assert_int_equal(d[0].shape[1], 512);
    at_task_free(t);
    assert_int_equal(at_task_create("testing/nope", AT_TARGET_OPENCL, "1,1,1", &t), AT_ENOTFOUND);
    assert_null(t);
    assert_int_equal(at_task_create("testing/matmul", AT_TARGET_OPENCL, "1,1", &t), AT_EPARSE);
}

static void matmul_space_should_be_the_tutorials_10_by_10(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "512,512,512", &t));
    const at_space *s = at_task_space(t);
    assert_int_equal(at_space_len(s), 100);
    assert_int_equal(at_space_n_knobs(s), 2);
    assert_string_equal(at_space_knob_name(s, 0), "tile_y");
    assert_string_equal(at_space_knob_name(s, 1), "tile_x");
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_space_write_repr(s, &sb);
    assert_non_null(strstr(at_strbuf_cstr(&sb), "tile_y: Split(policy=factors, product=512, num_outputs=2) len=10"));
    at_strbuf_fini(&sb);
    /* the first knob is the fastest digit: index 13 = tile_y entity 3, tile_x entity 1 */
    at_config *c;
    assert_ok(at_task_config(t, 13, &c));
    int64_t y[2], x[2];
    at_config_split(c, 0, y, 2);
    at_config_split(c, 1, x, 2);
    assert_int_equal(y[0], -1);
    assert_int_equal(y[1], 8);
    assert_int_equal(x[1], 2);
    at_config_free(c);
    at_task_free(t);
}

static void matmul_ir_should_match_the_golden_text(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "64,64,64", &t));
    at_config *c;
    assert_ok(at_task_config(t, 30, &c));
    at_arena *a;
    assert_ok(at_arena_new(0, &a));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, a, &p));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_ir_print(p, &sb);
    at_test_check_golden("ir/testing_matmul_64x64x64_c30.ir", at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
    at_ir_launch l;
    at_ir_kernel_launch(p, 0, &l);
    int64_t y[2], x[2];
    at_config_split(c, 0, y, 2);
    at_config_split(c, 1, x, 2);
    assert_int_equal(l.local[1], y[1]);
    assert_int_equal(l.local[0], x[1]);
    assert_int_equal(l.groups[1] * l.local[1], 64);
    assert_int_equal(l.groups[0] * l.local[0], 64);
    at_arena_free(a);
    at_config_free(c);
    at_task_free(t);
}

static void instantiate_should_reject_a_split_that_does_not_divide(void **state)
{
    (void)state;
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "64,64,64", &t));
    at_config *c;
    assert_ok(at_config_new(7, NULL, &c));
    const int64_t y[2] = {-1, 3}, x[2] = {-1, 4};
    assert_ok(at_config_add_split(c, "tile_y", y, 2));
    assert_ok(at_config_add_split(c, "tile_x", x, 2));
    at_arena *a;
    assert_ok(at_arena_new(0, &a));
    const at_ir_program *p;
    assert_int_equal(at_task_instantiate(t, c, a, &p), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "tile_y = [-1, 3] does not divide 64"));
    assert_null(p);
    at_arena_free(a);
    at_config_free(c);
    at_task_free(t);
}

/* NMSE of float32 outputs (ggml's check), or exact equality for int32. */
static void assert_outputs_match(const at_test_data *dt, const char *what)
{
    for (size_t i = 0; i < dt->n; i++) {
        if (!dt->d[i].is_output) continue;
        at_ir_type dtype = dt->d[i].dtype;
        double err = 0, norm = 0;
        for (int64_t k = 0; k < dt->d[i].n_elems; k++) {
            double g, r;
            if (at_ir_type_is_float(dtype)) {
                g = ((float *)dt->buf[i])[k];
                r = ((float *)dt->ref[i])[k];
            } else if (at_ir_type_bytes(dtype) == 1) {
                g = ((int8_t *)dt->buf[i])[k];
                r = ((int8_t *)dt->ref[i])[k];
            } else {
                g = ((int32_t *)dt->buf[i])[k];
                r = ((int32_t *)dt->ref[i])[k];
            }
            err += (g - r) * (g - r);
            norm += r * r;
        }
        double nmse = norm > 0 ? err / norm : err;
        if (!(nmse <= (at_ir_type_is_float(dtype) ? 1e-7 : 0))) {
            print_error("%s: output %s NMSE %g\n", what, dt->d[i].name, nmse);
            fail();
        }
    }
}

/* The first two tiny examples of the op kind (at_op_def.tiny): every template runs on both. */
static bool tiny_args(at_op_kind op, int variant, at_args *out)
{
    at_args a[2];
    size_t n = test_op_examples(op, false, a, 2);
    if ((size_t)variant >= n) return false;
    *out = a[variant];
    return true;
}

static void unscheduled_compute_should_match_the_reference(void **state)
{
    (void)state;
    for (int op = 0; op < AT_OP_COUNT; op++) {
        at_args args[8];
        size_t n = test_op_examples((at_op_kind)op, false, args, 8);
        for (size_t i = 0; i < n; i++) {
            at_args a = args[i];
            at_arena *ar;
            assert_ok(at_arena_new(0, &ar));
            at_ir_sched *s = at_ir_sched_begin(ar, "compute");
            at_op_compute(&a, s);
            const at_ir_program *p;
            assert_ok(at_ir_sched_finish(s, &p));
            assert_ok(at_ir_verify(p));
            at_test_data dt;
            at_test_data_init(&dt, &a, 7, AT_TEST_FILL_UNIT);
            assert_ok(at_ir_interp(p, dt.buf));
            char what[160];
            snprintf(what, sizeof what, "%s example %zu", at_op_name((at_op_kind)op), i);
            assert_outputs_match(&dt, what);
            at_test_data_fini(&dt);
            at_arena_free(ar);
        }
    }
}

/* Every row of the op-kind table is complete: a name that at_op_find gives back, every entry,
 * tiny and typical examples (at least two of those) that parse, check and write back as workload
 * JSON that reads to the same arguments (byte-identical when written again). */
static void every_op_kind_should_be_a_complete_row_with_examples(void **state)
{
    (void)state;
    for (int op = 0; op < AT_OP_COUNT; op++) {
        const at_op_def *d = at_op_def_of((at_op_kind)op);
        assert_non_null(d->name);
        at_op_kind found;
        assert_ok(at_op_find(d->name, &found));
        assert_int_equal(found, op);
        assert_true(d->check_args && d->tensors && d->write_json && d->read_json && d->parse_list && d->comma_form &&
                    d->flop && d->compute && d->reference && d->tolerance);
        const char *const *typical = test_op_example_texts((at_op_kind)op, true);
        if (!typical[1]) fail_msg("op kind %s has fewer than two typical examples", d->name);
        for (int which = 0; which < 2; which++) {
            at_args args[8];
            size_t n = test_op_examples((at_op_kind)op, which == 1, args, 8);
            for (size_t i = 0; i < n; i++) {
                at_strbuf sb;
                at_strbuf_init(&sb);
                at_strbuf_putc(&sb, '[');
                at_op_args_write_json(&args[i], &sb);
                at_strbuf_putc(&sb, ']');
                at_args back;
                assert_ok(at_op_args_parse((at_op_kind)op, at_strbuf_cstr(&sb), &back));
                at_strbuf again;
                at_strbuf_init(&again);
                at_strbuf_putc(&again, '[');
                at_op_args_write_json(&back, &again);
                at_strbuf_putc(&again, ']');
                assert_string_equal(at_strbuf_cstr(&again), at_strbuf_cstr(&sb));
                assert_true(at_op_flop(&back) > 0);
                at_strbuf_fini(&again);
                at_strbuf_fini(&sb);
            }
        }
    }
    at_op_kind k;
    assert_int_equal(at_op_find("conv3d", &k), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), "depthwise_conv2d_nchw"));
}

static void every_template_should_instantiate_verify_and_match_the_reference(void **state)
{
    (void)state;
    size_t n_checked = 0;
    for (size_t ti = 0; ti < at_tmpl_count(); ti++) {
        const at_template *tm = at_tmpl_at(ti);
        size_t n_rejected = 0, n_tmpl_checked = 0;
        for (int variant = 0; variant < 2; variant++) {
            at_args a;
            if (!tiny_args(tm->op, variant, &a)) continue;
            at_task *t;
            at_status tst = at_task_new(tm, &a, &t);
            if (tst == AT_EINVAL && variant > 0) continue; /* a workload of the op this template does not take (a bias) */
            assert_ok(tst);
            const at_space *sp = at_task_space(t);
            int64_t len = at_space_len(sp);
            assert_true(len >= 1);
            size_t m = len < 6 ? (size_t)len : 6;
            int64_t idx[6];
            at_rng rng;
            at_rng_seed(&rng, 42 + ti);
            assert_ok(at_space_sample_ints(sp, &rng, m, idx));
            at_test_data dt;
            at_test_data_init(&dt, &a, 11 + ti, AT_TEST_FILL_UNIT);
            for (size_t k = 0; k < m; k++) {
                at_config *c;
                assert_ok(at_task_config(t, idx[k], &c));
                char what[128];
                snprintf(what, sizeof what, "%s config %lld", tm->name, (long long)idx[k]);
                if (at_test_data_run_config(t, c, &dt, true, what)) {
                    assert_outputs_match(&dt, what);
                    n_tmpl_checked++;
                } else {
                    n_rejected++;
                }
                at_config_free(c);
            }
            at_test_data_fini(&dt);
            at_task_free(t);
        }
        if (n_tmpl_checked == 0) {
            print_error("%s: none of the sampled configs instantiated\n", tm->name);
            fail();
        }
        if (!strcmp(tm->name, "testing/matmul")) assert_int_equal(n_rejected, 0); /* exact splits only */
        n_checked += n_tmpl_checked;
    }
    assert_true(n_checked >= 10);
}

static void task_building_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    long base = at_alloc_live();
    int n_fail = 0;
    for (long k = 0;; k++) {
        at_task *t = NULL;
        at_config *c = NULL;
        at_arena *a = NULL;
        const at_ir_program *p = NULL;
        at_alloc_fail_after(k);
        at_status st = at_task_create("testing/matmul", AT_TARGET_OPENCL, "32,16,64", &t);
        if (st == AT_OK) st = at_task_config(t, 5, &c);
        if (st == AT_OK) st = at_arena_new(512, &a);
        if (st == AT_OK) st = at_task_instantiate(t, c, a, &p);
        at_alloc_fail_after(-1);
        at_arena_free(a);
        at_config_free(c);
        at_task_free(t);
        assert_int_equal(at_alloc_live(), base);
        if (st == AT_OK) break;
        assert_int_equal(st, AT_ENOMEM);
        n_fail++;
        assert_true(k < 100000);
    }
    assert_true(n_fail > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_should_be_sorted_and_find_every_entry),
        cmocka_unit_test(matmul_args_should_parse_both_forms_and_write_tvms_workload),
        cmocka_unit_test(matmul_space_should_be_the_tutorials_10_by_10),
        cmocka_unit_test(matmul_ir_should_match_the_golden_text),
        cmocka_unit_test(instantiate_should_reject_a_split_that_does_not_divide),
        cmocka_unit_test(unscheduled_compute_should_match_the_reference),
        cmocka_unit_test(every_op_kind_should_be_a_complete_row_with_examples),
        cmocka_unit_test(every_template_should_instantiate_verify_and_match_the_reference),
        cmocka_unit_test(task_building_should_survive_every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
