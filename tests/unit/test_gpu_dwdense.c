/* TVM's CUDA/GPU templates depthwise_conv2d_nchw.cuda, dense_small_batch.gpu and
 * dense_large_batch.gpu, built as two tests from this file:
 *   test_gpu_dwdense (unit): a seeded sample of configs of small workloads (ragged extents,
 *     padding on some sides only, strides, dilation, channel multipliers, batch) through the IR
 *     interpreter against the op's reference; config indexes of hand-written TVM-format records of
 *     real workloads decoded and pinned; the fallback configs;
 *   test_gpu_dwdense_pocl (e2e, GPU_DWDENSE_OCL): the same samples on PoCL through measure/'s
 *     worker pool with output verification. */
#include "tests/support/test_support.h"

#include <math.h>
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
#include "measure/ocl.h"
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
/* Random inputs, the reference outputs, and an output buffer for the program. */
typedef struct data {
    size_t         n;
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    void          *buf[AT_OP_MAX_TENSORS], *ref[AT_OP_MAX_TENSORS];
} data;

static void data_init(data *dt, const at_args *a, uint64_t seed)
{
    memset(dt, 0, sizeof *dt);
    dt->n = at_op_tensors(a, dt->d);
    at_rng rng;
    at_rng_seed(&rng, seed);
    const void *in[AT_OP_MAX_TENSORS];
    void *outs[AT_OP_MAX_TENSORS];
    size_t ni = 0, no = 0;
    for (size_t i = 0; i < dt->n; i++) {
        size_t bytes = (size_t)dt->d[i].n_elems * sizeof(float);
        dt->buf[i] = at_calloc(1, bytes);
        dt->ref[i] = at_calloc(1, bytes);
        assert_non_null(dt->buf[i]);
        assert_non_null(dt->ref[i]);
        if (dt->d[i].is_output) {
            outs[no++] = dt->ref[i];
        } else {
            for (int64_t k = 0; k < dt->d[i].n_elems; k++) ((float *)dt->buf[i])[k] = (float)at_rng_uniform(&rng) - 0.5f;
            in[ni++] = dt->buf[i];
        }
    }
    at_op_reference(a, in, outs);
}

static void data_fini(data *dt)
{
    for (size_t i = 0; i < dt->n; i++) {
        at_free(dt->buf[i]);
        at_free(dt->ref[i]);
    }
}

/* Interprets config c of t on dt and checks every output (1e-4 relative, 1e-3 absolute floor). */
static void run_config(const at_task *t, const at_config *c, data *dt, const char *what)
{
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    at_status st = at_task_instantiate(t, c, ar, &p);
    if (st != AT_OK) print_error("%s: %s\n", what, at_last_error());
    assert_ok(st);
    for (size_t i = 0; i < dt->n; i++)
        if (dt->d[i].is_output) memset(dt->buf[i], 0xFF, (size_t)dt->d[i].n_elems * sizeof(float));
    st = at_ir_interp(p, dt->buf);
    if (st != AT_OK) print_error("%s: %s\n", what, at_last_error());
    assert_ok(st);
    for (size_t i = 0; i < dt->n; i++) {
        if (!dt->d[i].is_output) continue;
        const float *got = dt->buf[i], *want = dt->ref[i];
        for (int64_t k = 0; k < dt->d[i].n_elems; k++) {
            double e = fabs((double)got[k] - want[k]) / fmax(fabs((double)want[k]), 1e-3);
            if (!(e <= 1e-4)) {
                print_error("%s: output[%lld] = %g, want %g\n", what, (long long)k, got[k], want[k]);
                fail();
            }
        }
    }
    at_arena_free(ar);
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
        data dt;
        data_init(&dt, at_task_args(t), 11 + wi);
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
        data_fini(&dt);
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
static char cache_dir[4096];
static at_meas_ocl *pool;

static int group_setup(void **state)
{
    (void)state;
    const char *bin = getenv("AT_BINARY_DIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/pocl-cache", bin && *bin ? bin : ".");
    at_measure_opts o = {.number = 1, .repeat = 1, .timeout_ms = 60000, .build_timeout_ms = 120000, .cooldown_ms = -1,
                         .n_parallel = 2, .check_correctness = true, .device = getenv("AT_TEST_DEVICE"),
                         .cache_dir = cache_dir};
    at_status st = at_meas_ocl_new(&o, &pool);
    if (st != AT_OK) {
        print_error("pool: %s\n", at_last_error());
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    at_meas_ocl_free(pool);
    return 0;
}

/* Every sampled config must come back OK (verified) or be rejected before compiling
 * (INSTANTIATION_ERROR: the device's work-group or local-memory limits). */
static void sampled_configs_should_run_and_verify(void **state)
{
    (void)state;
    enum { PER = 2 };
    at_task *tasks[N_WORKLOADS];
    at_config *cfg[N_WORKLOADS * PER];
    at_meas_input in[N_WORKLOADS * PER];
    char names[N_WORKLOADS * PER][120];
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
        }
    }
    at_result res[N_WORKLOADS * PER];
    for (size_t i = 0; i < n; i++) at_result_init(&res[i]);
    assert_ok(at_meas_ocl_measure(pool, in, n, res));
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (res[i].err == AT_MEAS_OK) {
            ok++;
        } else if (res[i].err != AT_MEAS_INSTANTIATION_ERROR) {
            print_error("%s: %s: %s\n", names[i], at_meas_err_name(res[i].err), res[i].msg ? res[i].msg : "");
            fail();
        }
        at_result_fini(&res[i]);
    }
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
        cmocka_unit_test(fallbacks_should_be_tvms),
#else
        cmocka_unit_test(sampled_configs_should_run_and_verify),
#endif
    };
#ifndef GPU_DWDENSE_OCL
    return cmocka_run_group_tests(tests, NULL, NULL);
#else
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
#endif
}
