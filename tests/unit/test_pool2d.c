/* pool2d_max_nchw (templates/ops_pool2d.c) and its template pool2d_max_nchw.mali: workload JSON
 * in topi pool2d's argument order, argument errors, FLOPs as compute_flop counts topi's compute,
 * the reference on hand-worked windows (padding is the lowest value, not zero), and sampled
 * configs of the template through the IR interpreter against the reference, bit for bit, with
 * clamped reads exactly where a loop is vectorized. */
#include <setjmp.h>
#include <float.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "core/strbuf.h"
#include "templates/template.h"
#include "tests/support/test_support.h"

#define NAME "pool2d_max_nchw.mali"

static at_task *task(const char *args)
{
    at_task *t = NULL;
    assert_ok(at_task_create(NAME, AT_TARGET_OPENCL, args, &t));
    return t;
}

static void workload_should_be_pool2ds_argument_list(void **state)
{
    (void)state;
    at_task *t = task("1,64,112,112,3,3,2,1");
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_task_write_workload(t, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "[\"pool2d_max_nchw.mali\", [\"TENSOR\", [1, 64, 112, 112], \"float32\"], [3, 3], "
                                             "[2, 2], [1, 1], [1, 1, 1, 1], \"max\", false, \"NCHW\", true]");
    at_task_free(t);
    /* the JSON form reads back byte for byte, ceil_mode and asymmetric padding included */
    const char *json = "[[\"TENSOR\", [2, 3, 7, 8], \"float32\"], [3, 2], [2, 1], [1, 2], [0, 1, 1, 0], \"max\", true, "
                       "\"NCHW\", false]";
    t = task(json);
    at_strbuf_clear(&sb);
    at_task_write_workload(t, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "[\"pool2d_max_nchw.mali\", [\"TENSOR\", [2, 3, 7, 8], \"float32\"], [3, 2], [2, 1], "
                                             "[1, 2], [0, 1, 1, 0], \"max\", true, \"NCHW\", false]");
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    assert_int_equal(at_op_tensors(at_task_args(t), d), 2);
    /* H: 7 + 0 + (1 + 1) padded, window 3, stride 2 -> 6 / 2 + 1 = 4; W: 8 + 1 + 0 padded (stride
     * 1 adds no ceil padding), dilated window 3 -> 7 */
    assert_int_equal(d[1].shape[2], 4);
    assert_int_equal(d[1].shape[3], 7);
    at_strbuf_fini(&sb);
    at_task_free(t);
}

static void bad_arguments_should_name_the_problem(void **state)
{
    (void)state;
    static const struct {
        const char *args, *needle;
        at_status   st;
    } cases[] = {
        {"1,64,112,112,3,3,2", "expected N,C,H,W,KH,KW,stride,pad", AT_EPARSE},
        {"[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [3, 3], [2, 2], [1, 1], [1, 1, 1, 1], \"avg\", false, \"NCHW\", true]",
         "argument 5 (pool_type): expected \"max\"", AT_EPARSE},
        {"[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [3, 3], [2, 2], [1, 1], [1, 1, 1, 1], \"max\", false, \"NHWC\", true]",
         "argument 7 (layout): expected \"NCHW\"", AT_EPARSE},
        {"[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [3, 3], [2, 2], [1, 1], [1, 1], \"max\", false, \"NCHW\", true]",
         "argument 4 (padding): expected 4 values, got 2", AT_EPARSE},
        {"[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [3, 3], [2, 2], [1, 1], [1, 1, 1, 1], \"max\", 0, \"NCHW\", true]",
         "argument 6 (ceil_mode): expected true or false", AT_EPARSE},
        {"[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [3, 3], [2, 2], [1, 1], [1, 1, 1, 1], \"max\", false, \"NCHW\"]",
         "expected [data, kernel, stride, dilation, padding", AT_EPARSE},
        {"1,4,8,8,3,3,2,1,1,float16", "dtype float16 is not supported", AT_EINVAL},
        {"1,1,2,2,5,5,1,0", "larger than the padded input", AT_EINVAL},
        {"1,4,8,8,3,3,0,1", "strides and dilation must be in 1 .. 1024", AT_EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_task *t = NULL;
        at_status st = at_task_create(NAME, AT_TARGET_OPENCL, cases[i].args, &t);
        if (st != cases[i].st || !strstr(at_last_error(), cases[i].needle))
            fail_msg("case %zu: got %s '%s', want %s with '%s'", i, at_status_str(st), at_last_error(),
                     at_status_str(cases[i].st), cases[i].needle);
        assert_null(t);
    }
}

/* compute_flop of topi's pool2d: 1 per window element (the max combiner) plus, when padded, the
 * pad stage's 2k - 1 per padded element for k non-zero pads. */
static void flops_should_count_topis_compute(void **state)
{
    (void)state;
    static const struct {
        const char *args;
        double      flop;
    } cases[] = {
        /* resnet-18: 64 x 56 x 56 x 9 = 1806336, pad stage 7 x 64 x 114 x 114 = 5822208 */
        {"1,64,112,112,3,3,2,1", 7628544},
        /* no padding: 96 x 54 x 54 x 9 */
        {"1,96,109,109,3,3,2,0", 2519424},
        /* ceil_mode: pads 0, 1, 1 + 1, 0 + 1 -> 3 non-zero, 5 x 3 x 9 x 10; window 3 x 4 x 4 x 9 */
        {"[[\"TENSOR\", [1, 3, 7, 8], \"float32\"], [3, 3], [2, 2], [1, 1], [0, 1, 1, 0], \"max\", true, \"NCHW\", true]", 1782},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_task *t = task(cases[i].args);
        assert_float_equal(at_task_flop(t), cases[i].flop, 0);
        at_task_free(t);
    }
}

static void reference_should_pad_with_the_lowest_value(void **state)
{
    (void)state;
    at_args a;
    assert_ok(at_op_args_parse(AT_OP_POOL2D_MAX_NCHW, "1,1,3,3,3,3,2,1", &a));
    float in[9], out[4];
    const void *ins[1] = {in};
    void *outs[1] = {out};
    for (int i = 0; i < 9; i++) in[i] = (float)(i + 1);
    at_op_reference(&a, ins, outs);
    assert_true(out[0] == 5 && out[1] == 6 && out[2] == 8 && out[3] == 9);
    for (int i = 0; i < 9; i++) in[i] = -(float)(i + 1);
    at_op_reference(&a, ins, outs);
    assert_true(out[0] == -1 && out[1] == -2 && out[2] == -4 && out[3] == -5); /* zero padding would give 0 */
    /* a window entirely in ceil_mode's padding holds the lowest value, as topi's does */
    assert_ok(at_op_args_parse(AT_OP_POOL2D_MAX_NCHW,
                               "[[\"TENSOR\", [1, 1, 1, 2], \"float32\"], [1, 1], [2, 2], [1, 1], [0, 0, 0, 0], \"max\", "
                               "true, \"NCHW\", true]", &a));
    float row[2] = {1, 2}, o[2];
    ins[0] = row;
    outs[0] = o;
    at_op_reference(&a, ins, outs);
    assert_true(o[0] == 1 && o[1] == -FLT_MAX);
}

/* The space of resnet-18's max pool: 28 x 30 x 30 x 4 x 20. */
static void space_should_have_its_five_knobs(void **state)
{
    (void)state;
    at_task *t = task("1,64,112,112,3,3,2,1");
    const at_space *s = at_task_space(t);
    assert_int_equal(at_space_len(s), 2016000);
    assert_int_equal(at_space_n_knobs(s), 5);
    at_task_free(t);
}

static void sampled_configs_should_match_the_reference_bit_for_bit(void **state)
{
    (void)state;
    at_task *t = task("1,4,7,7,3,3,2,1"); /* 4 x 4 outputs: vector widths 2 and 4 fit */
    const at_args *a = at_task_args(t);
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    assert_int_equal(at_op_tensors(a, d), 2);
    float *in = at_malloc((size_t)d[0].n_elems * sizeof *in), *out = at_malloc((size_t)d[1].n_elems * sizeof *out),
          *ref = at_malloc((size_t)d[1].n_elems * sizeof *ref);
    at_rng rng;
    at_rng_seed(&rng, 5);
    for (int64_t i = 0; i < d[0].n_elems; i++) in[i] = (float)(at_rng_uniform(&rng) * 2 - 1.5); /* mostly negative */
    at_op_reference(a, (const void *const[]){in}, (void *const[]){ref});
    int64_t idx[300];
    assert_ok(at_space_sample_ints(at_task_space(t), &rng, 300, idx));
    size_t n_ok = 0, n_vec = 0;
    for (size_t k = 0; k < 300; k++) {
        at_config *c;
        assert_ok(at_task_config(t, idx[k], &c));
        at_arena *ar;
        assert_ok(at_arena_new(0, &ar));
        const at_ir_program *p;
        at_status st = at_task_instantiate(t, c, ar, &p);
        if (st == AT_OK) {
            memset(out, 0xFF, (size_t)d[1].n_elems * sizeof *out);
            assert_ok(at_ir_interp(p, (void *const[]){in, out}));
            if (memcmp(out, ref, (size_t)d[1].n_elems * sizeof *out) != 0) fail_msg("config %lld differs", (long long)idx[k]);
            const at_entity *e = at_config_find(c, "ann_spatial");
            bool vec = false;
            for (size_t i = 0; i < 3; i++) vec |= !strcmp(e->anns[i], "vec");
            at_strbuf sb;
            at_strbuf_init(&sb);
            at_ir_print(p, &sb);
            if (vec != (strstr(at_strbuf_cstr(&sb), "min(max(") != NULL))
                fail_msg("config %lld: vectorized %d, clamped reads %d", (long long)idx[k], vec, !vec);
            at_strbuf_fini(&sb);
            n_ok++;
            n_vec += vec;
        } else {
            assert_int_equal(st, AT_EINVAL); /* an unroll or vector width the annotation refuses */
        }
        at_arena_free(ar);
        at_config_free(c);
    }
    print_message("%zu of 300 sampled configs instantiated, %zu of them vectorized\n", n_ok, n_vec);
    assert_true(n_ok >= 100);
    assert_true(n_vec >= 10);
    at_free(in);
    at_free(out);
    at_free(ref);
    at_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(workload_should_be_pool2ds_argument_list),
        cmocka_unit_test(bad_arguments_should_name_the_problem),
        cmocka_unit_test(flops_should_count_topis_compute),
        cmocka_unit_test(reference_should_pad_with_the_lowest_value),
        cmocka_unit_test(space_should_have_its_five_knobs),
        cmocka_unit_test(sampled_configs_should_match_the_reference_bit_for_bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
