/* TVM's CUDA/GPU templates depthwise_conv2d_nchw.cuda, dense_small_batch.gpu and
 * dense_large_batch.gpu, built as two tests from this file:
 *   test_gpu_dwdense (unit): a seeded sample of configs of small workloads (ragged extents,
 *     padding on some sides only, strides, dilation, channel multipliers, batch) through the IR
 *     interpreter against the op's reference; config indexes of hand-written TVM-format records of
 *     real workloads decoded and pinned; the fallback configs;
 *   test_gpu_dwdense_pocl (e2e, GPU_DWDENSE_OCL): the same samples on PoCL through measure/'s
 *     worker pool with output verification. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/json.h"
#include "core/rng.h"
#include "core/strbuf.h"
#include "templates/template.h"
#ifdef GPU_DWDENSE_OCL
#include "tests/support/test_measure_support.h"
#else
#include "tests/support/test_op_data.h"
#endif

typedef struct workload {
    const char *tmpl, *args;
} workload;

#define T(s) "[\"TENSOR\", " s ", \"float32\"]"
static const workload workloads[] = {
    /* 9 x 9 output, padding 1 */
    {"depthwise_conv2d_nchw.cuda", "[" T("[1, 8, 9, 9]") ", " T("[8, 1, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]"},
    /* multiplier 2, stride 2, padding on top and left only */
    {"depthwise_conv2d_nchw.cuda", "[" T("[1, 6, 10, 7]") ", " T("[6, 2, 3, 3]") ", [2, 2], [1, 1, 0, 0], [1, 1], \"float32\"]"},
    /* batch 2, dilation 2, 5 x 5 window span */
    {"depthwise_conv2d_nchw.cuda", "[" T("[2, 4, 8, 8]") ", " T("[4, 1, 3, 3]") ", [1, 1], [2, 2, 2, 2], [2, 2], \"float32\"]"},
    /* multiplier 3: channel blocks that straddle an input channel */
    {"depthwise_conv2d_nchw.cuda", "[" T("[1, 2, 5, 6]") ", " T("[2, 3, 3, 3]") ", [1, 2], [1, 1, 1, 1], [1, 1], \"float32\"]"},
    /* batch 1, K = 100 (factors 1 2 4 5 10 20 25 50 100; the fallback's 64 does not divide it) */
    {"dense_small_batch.gpu", "[" T("[1, 100]") ", " T("[7, 100]") ", null, \"float32\"]"},
    /* batch 3, K = 24, TopHub's old form with a bias */
    {"dense_small_batch.gpu", "[" T("[3, 24]") ", " T("[5, 24]") ", " T("[5]") ", null]"},
    /* K = 48 < 64: the fallback [1, 64] runs 64 threads over 48 */
    {"dense_small_batch.gpu", "[" T("[2, 48]") ", " T("[3, 48]") ", null, \"float32\"]"},
    /* ragged everything: 6 x 10 outputs, K = 9 */
    {"dense_large_batch.gpu", "[" T("[6, 9]") ", " T("[10, 9]") ", null, \"float32\"]"},
    /* 16 x 8, K = 12, with a bias */
    {"dense_large_batch.gpu", "[" T("[16, 12]") ", " T("[8, 12]") ", " T("[8]") ", null]"},
    /* batch 1 (the fallback's [1, 1, 1, 1]), K = 20 */
    {"dense_large_batch.gpu", "[" T("[1, 20]") ", " T("[12, 20]") ", null, \"float32\"]"},
    /* the fallback's 64-row tiles and 8-column steps overrun 33 x 40 with K = 13 */
    {"dense_large_batch.gpu", "[" T("[33, 13]") ", " T("[40, 13]") ", null, \"float32\"]"},
};
#undef T

enum { N_WORKLOADS = sizeof workloads / sizeof workloads[0] };

static at_task *task_of(const workload *w)
{
    at_task *t;
    at_status st = at_task_create(w->tmpl, AT_TARGET_OPENCL, w->args, &t);
    if (st != AT_OK) print_error("%s %s: %s\n", w->tmpl, w->args, at_last_error());
    assert_ok(st);
    return t;
}

#ifndef GPU_DWDENSE_OCL
/* Interprets config c of t on dt and checks every output (1e-4 relative, 1e-3 absolute floor). */
static void run_config(const at_task *t, const at_config *c, at_test_data *dt, const char *what)
{
    at_test_data_run_config(t, c, dt, false, what);
    at_test_data_check(dt, 1e-3, 1e-4, what);
}

static void sampled_configs_should_match_the_reference(void **state)
{
    (void)state;
    for (size_t wi = 0; wi < N_WORKLOADS; wi++) {
        at_task *t = task_of(&workloads[wi]);
        const at_space *sp = at_task_space(t);
        int64_t len = at_space_len(sp);
        enum { PER = 40 };
        size_t m = len < PER ? (size_t)len : PER;
        int64_t idx[PER];
        at_rng rng;
        at_rng_seed(&rng, 300 + wi);
        assert_ok(at_space_sample_ints(sp, &rng, m, idx));
        at_test_data dt;
        at_test_data_init(&dt, at_task_args(t), 11 + wi, AT_TEST_FILL_CENTERED);
        char what[200];
        for (size_t k = 0; k < m; k++) {
            at_config *c;
            assert_ok(at_task_config(t, idx[k], &c));
            snprintf(what, sizeof what, "%s workload %zu config %lld", workloads[wi].tmpl, wi, (long long)idx[k]);
            run_config(t, c, &dt, what);
            at_config_free(c);
        }
        /* the fallback config with no reference records: entity 0 of every knob */
        at_config *fb;
        assert_ok(at_task_fallback_config(t, NULL, 0, &fb));
        snprintf(what, sizeof what, "%s workload %zu fallback", workloads[wi].tmpl, wi);
        run_config(t, fb, &dt, what);
        at_config_free(fb);
        at_test_data_fini(&dt);
        print_message("%-28s workload %zu: %zu configs of %lld matched\n", workloads[wi].tmpl, wi, m, (long long)len);
        at_task_free(t);
    }
}

/* A record's config (TVM's JSON) on a real workload: its index in our space, which must be the
 * index TVM wrote, and that config must instantiate. */
typedef struct pinned {
    const char *tmpl, *args, *config;
    int64_t     index;
} pinned;

static const pinned pins[] = {
    /* mobilenet's 1024-channel 7 x 7 layer (as TopHub's opencl pack tunes it on a 1080 Ti) */
    {"depthwise_conv2d_nchw.cuda",
     "[[\"TENSOR\", [1, 1024, 7, 7], \"float32\"], [\"TENSOR\", [1024, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
     "{\"index\": 12024, \"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [-1, 2, 2, 1]], [\"tile_y\", \"sp\", [-1, 1, 7, 1]], "
     "[\"tile_x\", \"sp\", [-1, 1, 7, 1]], [\"auto_unroll_max_step\", \"ot\", 1500], [\"unroll_explicit\", \"ot\", 0]]}",
     12024},
    /* mobilenet's 32-channel 112 x 112 layer */
    {"depthwise_conv2d_nchw.cuda",
     "[[\"TENSOR\", [1, 32, 112, 112], \"float32\"], [\"TENSOR\", [32, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
     "{\"index\": 1102290, \"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [-1, 1, 1, 1]], [\"tile_y\", \"sp\", [-1, 1, 2, 4]], "
     "[\"tile_x\", \"sp\", [-1, 1, 16, 1]], [\"auto_unroll_max_step\", \"ot\", 1500], [\"unroll_explicit\", \"ot\", 1]]}",
     5782616},
    /* resnet's classifier at batch 1: tile_k [-1, 64] is the 7th factor split of 512 */
    {"dense_small_batch.gpu", "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"]",
     "{\"index\": 6, \"code_hash\": null, \"entity\": [[\"tile_k\", \"sp\", [-1, 64]]]}", 6},
    /* vgg's classifier at batch 1: tile_y [-1, 2, 4, 5] is entity 212 of the 400 4-way splits of
     * 1000 (100 + 60 + 30 with last size 1, 2, 4; then 12 + 9 + 1 with last size 5), tile_k
     * [-1, 8, 4] entity 28 of 91: 0 + 1 x (212 + 400 x 28) */
    {"dense_large_batch.gpu", "[[\"TENSOR\", [1, 4096], \"float32\"], [\"TENSOR\", [1000, 4096], \"float32\"], null, \"float32\"]",
     "{\"index\": 11412, \"code_hash\": null, \"entity\": [[\"tile_x\", \"sp\", [-1, 1, 1, 1]], [\"tile_y\", \"sp\", [-1, 2, 4, 5]], "
     "[\"tile_k\", \"sp\", [-1, 8, 4]]]}",
     11412},
};

static void record_indexes_should_be_tvms(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
        workload w = {pins[i].tmpl, pins[i].args};
        at_task *t = task_of(&w);
        cJSON *j = cJSON_Parse(pins[i].config);
        assert_non_null(j);
        at_config *c;
        assert_ok(at_config_from_json(j, &c));
        cJSON_Delete(j);
        int64_t index;
        assert_ok(at_space_index_of(at_task_space(t), c, &index));
        print_message("%s record %zu: index %lld\n", pins[i].tmpl, i, (long long)index);
        assert_int_equal(index, pins[i].index);
        at_config *back;
        assert_ok(at_task_config(t, index, &back));
        at_arena *ar;
        assert_ok(at_arena_new(0, &ar));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, back, ar, &p));
        at_arena_free(ar);
        at_config_free(back);
        at_config_free(c);
        at_task_free(t);
    }
}
/* TopHub's opencl pack stores tile_y [7, 1, 2, 4] on an extent of 112 (written before TVM checked
 * a split's first size): TVM applies a split by the sizes after the first, so the record runs as
 * 14 x 1 x 2 x 4 -- on the interpreter against the reference here, as the network executor runs it. */
static void a_record_with_a_stale_first_size_should_apply_by_its_inner_sizes(void **state)
{
    (void)state;
    workload w = {"depthwise_conv2d_nchw.cuda",
                  "[[\"TENSOR\", [1, 32, 112, 112], \"float32\"], [\"TENSOR\", [32, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], "
                  "[1, 1], \"float32\"]"};
    at_task *t = task_of(&w);
    cJSON *j = cJSON_Parse("{\"index\": 349720, \"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [32, 1, 1, 1]], "
                           "[\"tile_y\", \"sp\", [7, 1, 2, 4]], [\"tile_x\", \"sp\", [1, 1, 112, 1]], "
                           "[\"auto_unroll_max_step\", \"ot\", 0], [\"unroll_explicit\", \"ot\", 0]]}");
    assert_non_null(j);
    at_config *c;
    assert_ok(at_config_from_json(j, &c));
    cJSON_Delete(j);
    int64_t index;
    assert_int_equal(at_space_index_of(at_task_space(t), c, &index), AT_EPARSE);
    /* the point [-1, 1, 1, 1] [-1, 1, 2, 4] [-1, 1, 112, 1] 0 0 of our space; the stored 349720 is
     * not that point's index (the 2018 log's index is not what dispatch keys on) */
    assert_ok(at_space_index_of_as_given(at_task_space(t), c, &index));
    assert_int_equal(index, 349496);
    at_test_data dt;
    at_test_data_init(&dt, at_task_args(t), 11, AT_TEST_FILL_CENTERED);
    run_config(t, c, &dt, "stale first size");
    at_test_data_fini(&dt);
    at_config_free(c);
    at_task_free(t);
}

/* TVM's fallbacks: depthwise reads a reference record (its splits fitted to the workload, its
 * other knobs copied) and then forces unroll_explicit to 0; the dense ones set fixed tiles. */
static void fallbacks_should_be_tvms(void **state)
{
    (void)state;
    workload w = {"depthwise_conv2d_nchw.cuda", "[[\"TENSOR\", [1, 512, 14, 14], \"float32\"], [\"TENSOR\", [512, 1, 3, 3], \"float32\"], "
                                                "[1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]"};
    at_task *t = task_of(&w);
    cJSON *j = cJSON_Parse("{\"index\": 1, \"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [256, 2, 2, 1]], "
                           "[\"tile_y\", \"sp\", [1, 1, 7, 1]], [\"tile_x\", \"sp\", [1, 1, 7, 1]], "
                           "[\"auto_unroll_max_step\", \"ot\", 1500], [\"unroll_explicit\", \"ot\", 1]]}");
    assert_non_null(j);
    at_config *ref;
    assert_ok(at_config_from_json(j, &ref));
    cJSON_Delete(j);
    const at_config *refs[1] = {ref};
    at_config *fb;
    assert_ok(at_task_fallback_config(t, refs, 1, &fb));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_config_write_json(fb, &sb);
    assert_string_equal(sb.data, "{\"index\": -1, \"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [128, 2, 2, 1]], "
                                 "[\"tile_y\", \"sp\", [2, 1, 7, 1]], [\"tile_x\", \"sp\", [2, 1, 7, 1]], "
                                 "[\"auto_unroll_max_step\", \"ot\", 1500], [\"unroll_explicit\", \"ot\", 0]]}");
    at_strbuf_fini(&sb);
    at_config_free(fb);
    at_config_free(ref);
    at_task_free(t);

    static const struct {
        workload    w;
        const char *json;
    } fixed[] = {
        {{"dense_small_batch.gpu", "[[\"TENSOR\", [1, 48], \"float32\"], [\"TENSOR\", [3, 48], \"float32\"], null, \"float32\"]"},
         "{\"index\": -1, \"code_hash\": null, \"entity\": [[\"tile_k\", \"sp\", [1, 64]]]}"},
        {{"dense_large_batch.gpu", "[[\"TENSOR\", [1, 4096], \"float32\"], [\"TENSOR\", [1000, 4096], \"float32\"], null, \"float32\"]"},
         "{\"index\": -1, \"code_hash\": null, \"entity\": [[\"tile_x\", \"sp\", [1, 1, 1, 1]], [\"tile_y\", \"sp\", [-1, 2, 16, 2]], "
         "[\"tile_k\", \"sp\", [-1, 8, 1]]]}"},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        t = task_of(&fixed[i].w);
        assert_ok(at_task_fallback_config(t, NULL, 0, &fb));
        at_strbuf_init(&sb);
        at_config_write_json(fb, &sb);
        assert_string_equal(sb.data, fixed[i].json);
        at_arena *ar;
        assert_ok(at_arena_new(0, &ar));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, fb, ar, &p));
        at_arena_free(ar);
        at_strbuf_fini(&sb);
        at_config_free(fb);
        at_task_free(t);
    }
}
#else
/* Every sampled config must come back OK (verified) or be rejected before compiling
 * (INSTANTIATION_ERROR: the device's work-group or local-memory limits). */
static void sampled_configs_should_run_and_verify(void **state)
{
    enum { PER = 2 };
    at_task *tasks[N_WORKLOADS];
    at_config *cfg[N_WORKLOADS * PER];
    at_meas_input in[N_WORKLOADS * PER];
    char names[N_WORKLOADS * PER][120];
    const char *what[N_WORKLOADS * PER];
    size_t n = 0;
    for (size_t wi = 0; wi < N_WORKLOADS; wi++) {
        tasks[wi] = task_of(&workloads[wi]);
        int64_t idx[PER];
        at_rng rng;
        at_rng_seed(&rng, 400 + wi);
        assert_ok(at_space_sample_ints(at_task_space(tasks[wi]), &rng, PER, idx));
        for (size_t k = 0; k < PER; k++, n++) {
            assert_ok(at_task_config(tasks[wi], idx[k], &cfg[n]));
            in[n] = (at_meas_input){tasks[wi], cfg[n]};
            snprintf(names[n], sizeof names[n], "%s workload %zu config %lld", workloads[wi].tmpl, wi, (long long)idx[k]);
            what[n] = names[n];
        }
    }
    size_t ok = at_test_verify_batch(*state, in, n, true, what);
    print_message("%zu of %zu sampled configs ran and verified on the device\n", ok, n);
    assert_true(ok >= n / 2);
    for (size_t i = 0; i < n; i++) at_config_free(cfg[i]);
    for (size_t wi = 0; wi < N_WORKLOADS; wi++) at_task_free(tasks[wi]);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifndef GPU_DWDENSE_OCL
        cmocka_unit_test(sampled_configs_should_match_the_reference),
        cmocka_unit_test(record_indexes_should_be_tvms),
        cmocka_unit_test(a_record_with_a_stale_first_size_should_apply_by_its_inner_sizes),
        cmocka_unit_test(fallbacks_should_be_tvms),
#else
        cmocka_unit_test(sampled_configs_should_run_and_verify),
#endif
    };
#ifndef GPU_DWDENSE_OCL
    return cmocka_run_group_tests(tests, NULL, NULL);
#else
    return cmocka_run_group_tests(tests, at_test_verify_pool_setup, at_test_verify_pool_teardown);
#endif
}
