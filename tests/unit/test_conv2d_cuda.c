/* conv2d_nchw.cuda (TVM's direct GPU convolution) without a device: its space against TVM's
 * (knob order, candidates, size), config indexes of hand-written TVM-format records of real
 * workloads (v0.18's knob order, and TopHub's 2018 order with tile_rx before tile_ry), FLOPs as
 * cfg.add_flop counts them, the reference-log fallback, and seeded samples of configs on tiny
 * workloads (padding, strides, dilation, batch, asymmetric padding, a 1x3 kernel, extents that
 * are not powers of two) through the IR interpreter against the op's reference. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "records/record.h"
#include "templates/template.h"
#include "tests/support/test_op_data.h"

static const char *const name = "conv2d_nchw.cuda";

static at_task *task(const char *args)
{
    at_task *t;
    assert_ok(at_task_create(name, AT_TARGET_OPENCL, args, &t));
    return t;
}

static const at_entity *ent(const at_config *c, const char *knob)
{
    for (size_t i = 0; i < at_config_len(c); i++)
        if (!strcmp(at_config_at(c, i)->name, knob)) return at_config_at(c, i);
    print_error("no knob %s\n", knob);
    fail();
    return NULL;
}

static void assert_sizes(const at_config *c, const char *knob, const int64_t *want, size_t n)
{
    const at_entity *e = ent(c, knob);
    assert_int_equal(e->kind, AT_KNOB_SPLIT);
    assert_int_equal(e->n, n);
    for (size_t i = 0; i < n; i++)
        if (e->ints[i] != want[i]) {
            print_error("%s[%zu] = %lld, want %lld\n", knob, i, (long long)e->ints[i], (long long)want[i]);
            fail();
        }
}

/* resnet-18's second conv: [1, 64, 56, 56] x [64, 64, 3, 3], stride 1, padding 1 */
static const char r18_c2[] = "[[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [64, 64, 3, 3], \"float32\"], "
                             "[1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]";

static void space_should_be_tvms(void **state)
{
    (void)state;
    at_task *t = task(r18_c2);
    const at_space *s = at_task_space(t);
    static const char *const knobs[8] = {"tile_f", "tile_y", "tile_x", "tile_rc", "tile_ry", "tile_rx",
                                         "auto_unroll_max_step", "unroll_explicit"};
    assert_int_equal(at_space_n_knobs(s), 8);
    for (size_t k = 0; k < 8; k++) {
        size_t at;
        assert_true(at_space_find_knob(s, knobs[k], &at));
        assert_int_equal(at, k);
    }
    /* 4-way factorizations of 64 (84) and 56 (80, twice), 2-way of 64 (7) and 3 (2, twice), 3 x 2 */
    const int64_t dims[8] = {84, 80, 80, 7, 2, 2, 3, 2};
    for (size_t k = 0; k < 8; k++) assert_int_equal(at_space_dim(s, k), dims[k]);
    assert_int_equal(at_space_len(s), 90316800);
    /* the last config: the last candidates of both knobs */
    at_config *c;
    assert_ok(at_task_config(t, at_space_len(s) - 1, &c));
    assert_int_equal(at_config_other_int(c, 6), 1500);
    assert_int_equal(at_config_other_int(c, 7), 1);
    at_config_free(c);
    /* FLOPs: cfg.add_flop(2 N OH OW CO CI KH KW), no pad term */
    assert_true(at_task_flop(t) == 2.0 * 56 * 56 * 64 * 64 * 9);
    at_task_free(t);
    /* a dilated kernel counts KH KW, not the dilated extent */
    t = task("1,8,20,20,16,3,3,1,2,2");
    assert_true(at_task_flop(t) == 2.0 * 20 * 20 * 16 * 8 * 9);
    at_task_free(t);
}

/* Records as TVM writes them (these lines were written for this test in TVM's format). */
static at_rec parse(const char *line)
{
    at_rec r;
    assert_ok(at_rec_parse_line(line, strlen(line), &r));
    return r;
}

static void records_should_map_onto_the_space(void **state)
{
    (void)state;
    /* v0.18's knob order */
    at_rec r = parse("{\"input\": [\"opencl -keys=cuda,gpu -max_num_threads=1024 -thread_warp_size=32\", "
                     "\"conv2d_nchw.cuda\", [[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [64, 64, 3, 3], "
                     "\"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": 72845770, "
                     "\"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [-1, 1, 16, 2]], [\"tile_y\", \"sp\", "
                     "[-1, 7, 2, 1]], [\"tile_x\", \"sp\", [-1, 1, 4, 2]], [\"tile_rc\", \"sp\", [-1, 4]], [\"tile_ry\", "
                     "\"sp\", [-1, 3]], [\"tile_rx\", \"sp\", [-1, 3]], [\"auto_unroll_max_step\", \"ot\", 512], "
                     "[\"unroll_explicit\", \"ot\", 1]]}, \"result\": [[4.2e-05], 0, 1.1, 1700000000.0], \"version\": "
                     "0.2, \"tvm_version\": \"0.18.0\"}");
    at_task *t = task(r.args_json);
    int64_t index;
    assert_ok(at_space_index_of(at_task_space(t), r.config, &index));
    assert_int_equal(index, 72845770);
    at_config *c;
    assert_ok(at_task_config(t, 72845770, &c));
    assert_sizes(c, "tile_f", (const int64_t[]){-1, 1, 16, 2}, 4);
    assert_sizes(c, "tile_y", (const int64_t[]){-1, 7, 2, 1}, 4);
    assert_sizes(c, "tile_x", (const int64_t[]){-1, 1, 4, 2}, 4);
    assert_sizes(c, "tile_rc", (const int64_t[]){-1, 4}, 2);
    assert_sizes(c, "tile_ry", (const int64_t[]){-1, 3}, 2);
    assert_int_equal(at_config_other_int(c, 6), 512);
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, ar, &p));
    assert_int_equal(p->n_kernels, 1);
    at_ir_launch l;
    at_ir_kernel_launch(p, 0, &l);
    /* blocks (x, y, z) = (56 / 8, 56 / 14, 64 / 32); threads (4, 2, 16) */
    assert_int_equal(l.groups[0], 7);
    assert_int_equal(l.groups[1], 4);
    assert_int_equal(l.groups[2], 2);
    assert_int_equal(l.local[0], 4);
    assert_int_equal(l.local[1], 2);
    assert_int_equal(l.local[2], 16);
    /* AA: 4 channels x 16 x 10 (14 rows and 8 columns of outputs through a 3x3 window), WW: 32 x 4 x 3 x 3 */
    assert_int_equal(at_ir_kernel_local_bytes(p, 0), (4 * 16 * 10 + 32 * 4 * 9) * 4);
    at_arena_free(ar);
    at_config_free(c);
    at_task_free(t);
    at_rec_fini(&r);

    /* TopHub's 2018 order (tile_rx before tile_ry, real outer sizes) on a 7x1 kernel: tile_rx names
     * the 7-split; TVM applies a record by knob name and by the sizes after the first */
    r = parse("{\"input\": [\"opencl -model=1080ti\", \"conv2d_nchw.cuda\", [[\"TENSOR\", [1, 192, 17, 17], "
              "\"float32\"], [\"TENSOR\", [192, 192, 7, 1], \"float32\"], [1, 1], [3, 0, 3, 0], [1, 1], \"float32\"], "
              "{}], \"config\": {\"index\": 624492, \"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [8, 1, 6, "
              "4]], [\"tile_y\", \"sp\", [1, 1, 17, 1]], [\"tile_x\", \"sp\", [17, 1, 1, 1]], [\"tile_rc\", \"sp\", "
              "[32, 6]], [\"tile_rx\", \"sp\", [7, 1]], [\"tile_ry\", \"sp\", [1, 1]], [\"auto_unroll_max_step\", "
              "\"ot\", 512], [\"unroll_explicit\", \"ot\", 1]]}, \"result\": [[0.000103], 0, 3.2, 1535963369.3], "
              "\"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}");
    t = task(r.args_json);
    assert_true(at_tmpl_find(name, AT_TARGET_OPENCL)->entities_as_given);
    assert_int_equal(at_space_index_of(at_task_space(t), r.config, &index), AT_EPARSE);
    assert_ok(at_space_index_of_as_given(at_task_space(t), r.config, &index));
    assert_int_equal(index, 624492);
    assert_ok(at_arena_new(0, &ar));
    assert_ok(at_task_instantiate(t, r.config, ar, &p));
    at_ir_kernel_launch(p, 0, &l);
    assert_int_equal(l.local[2], 6);
    assert_int_equal(l.local[1], 17);
    at_arena_free(ar);
    at_task_free(t);
    at_rec_fini(&r);

    /* The same 2018 logs paired names and values out of order (names from an unordered dict, values
     * in definition order): tile_rx [1, 7] on a 7x1 kernel is ry's split, as the stored index says
     * -- by name it is no point of the space, by position it is exactly entity 312287 */
    r = parse("{\"input\": [\"opencl -model=1080ti\", \"conv2d_nchw.cuda\", [[\"TENSOR\", [1, 160, 17, 17], "
              "\"float32\"], [\"TENSOR\", [160, 160, 7, 1], \"float32\"], [1, 1], [3, 0, 3, 0], [1, 1], \"float32\"], "
              "{}], \"config\": {\"index\": 312287, \"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [16, 2, "
              "5, 1]], [\"tile_y\", \"sp\", [1, 1, 17, 1]], [\"tile_x\", \"sp\", [17, 1, 1, 1]], [\"tile_rc\", \"sp\", "
              "[32, 5]], [\"tile_rx\", \"sp\", [1, 7]], [\"tile_ry\", \"sp\", [1, 1]], [\"auto_unroll_max_step\", "
              "\"ot\", 0], [\"unroll_explicit\", \"ot\", 1]]}, \"result\": [[0.000101], 0, 3.1, 1535963369.3], "
              "\"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}");
    t = task(r.args_json);
    assert_int_equal(at_space_index_of_as_given(at_task_space(t), r.config, &index), AT_EPARSE);
    at_config *pos;
    assert_ok(at_space_config_by_position(at_task_space(t), r.config, &pos));
    assert_non_null(pos);
    assert_string_equal(at_config_at(pos, 4)->name, "tile_ry");
    assert_int_equal(at_config_at(pos, 4)->ints[1], 7);
    assert_ok(at_space_index_of_as_given(at_task_space(t), pos, &index));
    assert_int_equal(index, 312287);
    at_config_free(pos);
    /* a config already in the space's order has no other reading */
    assert_ok(at_task_config(t, 312287, &c));
    assert_ok(at_space_config_by_position(at_task_space(t), c, &pos));
    assert_null(pos);
    at_config_free(c);
    at_task_free(t);
    at_rec_fini(&r);
}

/* TVM's fallback_with_reference_log: the closest reference's split sizes fitted by fallback_split
 * (from the innermost part, the largest factor of what is left not above the reference's size),
 * and its other knobs. */
static void fallback_should_follow_the_reference(void **state)
{
    (void)state;
    at_rec r = parse("{\"input\": [\"opencl -model=1080ti\", \"conv2d_nchw.cuda\", [[\"TENSOR\", [1, 128, 28, 28], "
                     "\"float32\"], [\"TENSOR\", [128, 128, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], "
                     "\"float32\"], {}], \"config\": {\"index\": 0, \"code_hash\": null, \"entity\": [[\"tile_f\", "
                     "\"sp\", [4, 2, 8, 2]], [\"tile_y\", \"sp\", [7, 1, 4, 1]], [\"tile_x\", \"sp\", [7, 1, 2, 2]], "
                     "[\"tile_rc\", \"sp\", [16, 8]], [\"tile_ry\", \"sp\", [3, 1]], [\"tile_rx\", \"sp\", [1, 3]], "
                     "[\"auto_unroll_max_step\", \"ot\", 1500], [\"unroll_explicit\", \"ot\", 0]]}, \"result\": "
                     "[[1e-05], 0, 1.0, 1535963369.3], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}");
    const at_template *tm = at_tmpl_find(name, AT_TARGET_OPENCL);
    assert_string_equal(tm->ref_backend, "opencl");
    at_task *t = task(r18_c2);
    at_config *c;
    const at_config *refs[1] = {r.config};
    assert_ok(at_task_fallback_config(t, refs, 1, &c));
    assert_int_equal(at_config_index(c), -1);
    assert_sizes(c, "tile_f", (const int64_t[]){2, 2, 8, 2}, 4);
    assert_sizes(c, "tile_y", (const int64_t[]){14, 1, 4, 1}, 4);
    assert_sizes(c, "tile_x", (const int64_t[]){14, 1, 2, 2}, 4);
    assert_sizes(c, "tile_rc", (const int64_t[]){8, 8}, 2);
    assert_sizes(c, "tile_ry", (const int64_t[]){3, 1}, 2);
    assert_sizes(c, "tile_rx", (const int64_t[]){1, 3}, 2);
    assert_int_equal(at_config_other_int(c, 6), 1500);
    assert_int_equal(at_config_other_int(c, 7), 0);
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, ar, &p));
    at_arena_free(ar);
    at_config_free(c);
    /* no reference: entity 0 of every knob */
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    assert_sizes(c, "tile_f", (const int64_t[]){-1, 1, 1, 1}, 4);
    at_config_free(c);
    at_task_free(t);
    at_rec_fini(&r);
}

/* ---- the interpreter against the reference -------------------------------------------------- */

static const char *const tiny[] = {
    "1,4,7,7,8,3,3,1,1",   /* odd extents, padding */
    "2,3,9,6,6,3,3,2,1",   /* batch, stride 2, H != W */
    "1,5,6,6,4,1,1,1,0",   /* 1x1 */
    "1,2,10,10,4,3,3,1,2,2", /* dilation 2 */
    /* asymmetric padding, a 1x3 kernel */
    "[[\"TENSOR\", [1, 3, 8, 7], \"float32\"], [\"TENSOR\", [6, 3, 1, 3], \"float32\"], [1, 1], [0, 1, 0, 2], [1, 1], "
    "\"float32\"]",
};

/* Runs configs idx[0..n) of the task of args on the interpreter against the reference (max
 * relative error 1e-4, 1e-3 floor); returns the worst relative error. */
static double run_configs(const char *args, const int64_t *idx, size_t n, uint64_t seed)
{
    at_task *t = task(args);
    at_test_data dt;
    at_test_data_init(&dt, at_task_args(t), seed, AT_TEST_FILL_SIGNED);
    assert_int_equal(dt.n, 3);
    double worst = 0;
    for (size_t k = 0; k < n; k++) {
        at_config *c;
        assert_ok(at_task_config(t, idx[k], &c));
        char what[400];
        snprintf(what, sizeof what, "%s config %lld", args, (long long)idx[k]);
        at_test_data_run_config(t, c, &dt, false, what);
        double e = at_test_data_check(&dt, 1e-3, 1e-4, what);
        if (e > worst) worst = e;
        at_config_free(c);
    }
    at_test_data_fini(&dt);
    at_task_free(t);
    return worst;
}

static void sampled_configs_should_match_the_reference(void **state)
{
    (void)state;
    size_t n_ok = 0;
    double worst = 0;
    for (size_t w = 0; w < sizeof tiny / sizeof tiny[0]; w++) {
        at_task *t = task(tiny[w]);
        enum { PER = 12 };
        int64_t idx[PER + 1];
        at_rng rng;
        at_rng_seed(&rng, 100 + w);
        assert_ok(at_space_sample_ints(at_task_space(t), &rng, PER, idx));
        idx[PER] = 0;
        at_task_free(t);
        double e = run_configs(tiny[w], idx, PER + 1, 11 + w);
        if (e > worst) worst = e;
        n_ok += PER + 1;
    }
    print_message("%zu configs matched the reference (max rel err %.3g)\n", n_ok, worst);
}

/* Every tile_x of a 16-wide output, the other knobs at entity 0: virtual threads up to 16 (the
 * first count InjectVirtualThread makes a serial loop), threads up to 16, tails in the fetch. */
static void every_tile_x_should_match_the_reference(void **state)
{
    (void)state;
    static const char args[] = "1,3,5,16,2,3,3,1,1";
    at_task *t = task(args);
    const at_space *s = at_task_space(t);
    int64_t stride = at_space_dim(s, 0) * at_space_dim(s, 1), n = at_space_dim(s, 2);
    assert_int_equal(n, 35);
    int64_t idx[35];
    for (int64_t k = 0; k < n; k++) idx[k] = k * stride;
    at_task_free(t);
    run_configs(args, idx, (size_t)n, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(space_should_be_tvms),
        cmocka_unit_test(records_should_map_onto_the_space),
        cmocka_unit_test(fallback_should_follow_the_reference),
        cmocka_unit_test(sampled_configs_should_match_the_reference),
        cmocka_unit_test(every_tile_x_should_match_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
