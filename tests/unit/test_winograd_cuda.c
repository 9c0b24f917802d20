/* conv2d_nchw_winograd.cuda (templates/conv2d_winograd_cuda.c), built as two tests:
 *   test_winograd_cuda (unit): TVM's space (knob order, tile_b's filter, the tile-size rule, FLOPs,
 *     entity-0 fallback), TVM-format records of real workloads pinned to their indices and launch
 *     sizes, and seeded configs of small workloads (m = 2 and 4, ragged tiles, batch, asymmetric
 *     padding, odd channel counts) interpreted against the op's reference (max relative error
 *     1e-3);
 *   test_winograd_cuda_pocl (e2e, WINO_POCL): the same small workloads plus the structure of real
 *     TopHub configs on small shapes, compiled and run on PoCL through measure/ with output
 *     checks. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "knobs/config.h"
#include "templates/template.h"
#ifdef WINO_POCL
#include "tests/support/test_measure_support.h"
#else
#include "records/log.h"
#include "tests/support/test_op_data.h"
#endif

static const char *const NAME = "conv2d_nchw_winograd.cuda";

/* Small workloads: data N,CI,H,W + kernel CO,KH,KW + stride + pad (or TVM's JSON). */
static const char *const small[] = {
    "1,4,8,8,8,3,3,1,1",  /* H % 8 == 0: m = 4 */
    "1,3,7,7,5,3,3,1,1",  /* m = 2, ragged 7 / 2, odd channels */
    "2,3,6,10,4,3,3,1,0", /* batch 2, no padding, 4 x 8 output */
    "1,5,8,6,6,3,3,1,2",  /* m = 4, pad 2: 10 x 8 output, ragged rows */
    "[[\"TENSOR\", [1, 2, 16, 5], \"float32\"], [\"TENSOR\", [3, 2, 3, 3], \"float32\"], [1, 1], [0, 1, 1, 0], [1, 1], \"float32\"]",
};
enum { N_SMALL = sizeof small / sizeof small[0] };

/* TopHub configs' per-work-item programs on small shapes: the real records' tile_y / tile_x /
 * tile_rc inner sizes (threads, virtual threads, per-thread blocks, shared slices, unroll pragmas)
 * on workloads whose CO, P and CI are one block's worth. */
static const struct {
    const char *args;
    int64_t     y[4], x[4], rc[2], step, expl;
} shaped[] = {
    /* resnet-18 [1, 64, 56, 56] (titanx 263327): 4 x 98 threads, 2 vthreads on x, 8 x 1 each */
    {"1,8,28,28,32,3,3,1,1", {-1, 1, 4, 8}, {-1, 2, 98, 1}, {-1, 8}, 128, 1},
    /* inception [1, 96, 35, 35] (titanx 1352202): 2 x 2 vthreads x 108 threads x 4 rows */
    {"1,8,35,35,16,3,3,1,1", {-1, 2, 2, 4}, {-1, 3, 108, 1}, {-1, 8}, 128, 0},
    /* [1, 448, 8, 8] (1080ti 359623): 128 threads on y, 4 columns each, full unroll */
    {"1,16,8,8,128,3,3,1,1", {-1, 1, 128, 1}, {-1, 1, 1, 4}, {-1, 8}, 1500, 1},
};
enum { N_SHAPED = sizeof shaped / sizeof shaped[0] };

static at_task *task(const char *args)
{
    at_task *t;
    at_status st = at_task_create(NAME, AT_TARGET_OPENCL, args, &t);
    if (st != AT_OK) print_error("%s: %s\n", args, at_last_error());
    assert_ok(st);
    return t;
}

/* A config of t given by its entities (split sizes with -1 first). */
static at_config *config_of(const at_task *t, const int64_t y[4], const int64_t x[4], const int64_t rc[2], int64_t step,
                            int64_t expl)
{
    static const int64_t b[4] = {-1, 1, 1, 1};
    at_config *c;
    assert_ok(at_config_new(-1, NULL, &c));
    assert_ok(at_config_add_split(c, "tile_b", b, 4));
    assert_ok(at_config_add_split(c, "tile_y", y, 4));
    assert_ok(at_config_add_split(c, "tile_x", x, 4));
    assert_ok(at_config_add_split(c, "tile_rc", rc, 2));
    at_val v = AT_VAL_OF_INT(step);
    assert_ok(at_config_add_other(c, "auto_unroll_max_step", &v));
    v = (at_val)AT_VAL_OF_INT(expl);
    assert_ok(at_config_add_other(c, "unroll_explicit", &v));
    int64_t idx;
    assert_ok(at_space_index_of(at_task_space(t), c, &idx));
    at_config_set_index(c, idx);
    return c;
}

/* Seeded sample of n config indices of t, the first and last index among them. */
static size_t sample(const at_task *t, uint64_t seed, size_t n, int64_t *idx)
{
    const at_space *sp = at_task_space(t);
    int64_t len = at_space_len(sp);
    size_t m = (size_t)len < n - 2 ? (size_t)len : n - 2;
    at_rng rng;
    at_rng_seed(&rng, seed);
    assert_ok(at_space_sample_ints(sp, &rng, m, idx));
    idx[m++] = 0;
    idx[m++] = len - 1;
    return m;
}

#ifndef WINO_POCL

static const at_entity *ent(const at_config *c, const char *name)
{
    const at_entity *e = at_config_find(c, name);
    assert_non_null(e);
    return e;
}

static void space_should_follow_tvm(void **state)
{
    (void)state;
    at_task *t = task("1,64,56,56,64,3,3,1,1"); /* resnet-18: H % 8 == 0, m = 4, alpha 6 */
    const at_space *sp = at_task_space(t);
    static const char *const names[6] = {"tile_b", "tile_y", "tile_x", "tile_rc", "auto_unroll_max_step", "unroll_explicit"};
    for (size_t i = 0; i < 6; i++) assert_string_equal(at_space_knob_name(sp, i), names[i]);
    assert_int_equal(at_space_dim(sp, 0), 1); /* the filter keeps [-1, 1, 1, 1] only */
    assert_int_equal(at_space_split_product(sp, 0), 36);
    assert_int_equal(at_space_split_product(sp, 2), 196); /* P = 14 x 14 tiles */
    assert_int_equal(at_space_dim(sp, 4), 3);
    assert_int_equal(at_space_dim(sp, 5), 2);
    assert_true(at_task_flop(t) == 2.0 * 64 * 56 * 56 * 64 * 9);
    at_config *c;
    assert_ok(at_task_fallback_config(t, NULL, 0, &c)); /* no cfg.is_fallback branch: entity 0 */
    assert_int_equal(ent(c, "tile_y")->ints[1], 1);
    assert_int_equal(ent(c, "tile_x")->ints[3], 1);
    assert_int_equal(ent(c, "auto_unroll_max_step")->val.i, 0);
    assert_int_equal(ent(c, "unroll_explicit")->val.i, 0);
    at_config_free(c);
    at_task_free(t);

    t = task("1,96,35,35,96,3,3,1,1"); /* H % 8 != 0: m = 2, alpha 4, P = 18 x 18 */
    assert_int_equal(at_space_split_product(at_task_space(t), 0), 16);
    assert_int_equal(at_space_split_product(at_task_space(t), 2), 324);
    at_task_free(t);

    at_task *bad;
    assert_int_equal(at_task_create(NAME, AT_TARGET_OPENCL, "1,4,8,8,8,3,3,2,1", &bad), AT_EINVAL); /* stride 2 */
    assert_int_equal(at_task_create(NAME, AT_TARGET_OPENCL, "1,4,8,8,8,5,5,1,2", &bad), AT_EINVAL); /* 5 x 5 */
}

/* Records written in TVM's format (old TVM wrote tile_b's first size as the extent). */
static const char records[] =
    "{\"input\": [\"cuda -model=titanx\", \"conv2d_nchw_winograd.cuda\", [[\"TENSOR\", [1, 64, 56, 56], \"float32\"], "
    "[\"TENSOR\", [64, 64, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": "
    "263327, \"code_hash\": null, \"entity\": [[\"tile_b\", \"sp\", [36, 1, 1, 1]], [\"tile_y\", \"sp\", [2, 1, 4, 8]], "
    "[\"tile_x\", \"sp\", [1, 2, 98, 1]], [\"tile_rc\", \"sp\", [8, 8]], [\"auto_unroll_max_step\", \"ot\", 128], "
    "[\"unroll_explicit\", \"ot\", 1]]}, \"result\": [[6.1e-05], 0, 3.0, 1535525600.0], \"version\": 0.2, \"tvm_version\": "
    "\"0.7.dev0\"}\n"
    "{\"input\": [\"opencl -model=1080ti\", \"conv2d_nchw_winograd.cuda\", [[\"TENSOR\", [1, 448, 8, 8], \"float32\"], "
    "[\"TENSOR\", [384, 448, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": "
    "359623, \"code_hash\": null, \"entity\": [[\"tile_b\", \"sp\", [-1, 1, 1, 1]], [\"tile_y\", \"sp\", [-1, 1, 128, 1]], "
    "[\"tile_x\", \"sp\", [-1, 1, 1, 4]], [\"tile_rc\", \"sp\", [-1, 8]], [\"auto_unroll_max_step\", \"ot\", 1500], "
    "[\"unroll_explicit\", \"ot\", 1]]}, \"result\": [[8.3e-05], 0, 2.0, 1535951100.0], \"version\": 0.2, \"tvm_version\": "
    "\"0.18.0\"}\n"
    "{\"input\": [\"cuda -model=titanx\", \"conv2d_nchw_winograd.cuda\", [[\"TENSOR\", [1, 96, 35, 35], \"float32\"], "
    "[\"TENSOR\", [96, 96, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"], {}], \"config\": {\"index\": "
    "1352202, \"code_hash\": null, \"entity\": [[\"tile_b\", \"sp\", [16, 1, 1, 1]], [\"tile_y\", \"sp\", [6, 2, 2, 4]], "
    "[\"tile_x\", \"sp\", [1, 3, 108, 1]], [\"tile_rc\", \"sp\", [12, 8]], [\"auto_unroll_max_step\", \"ot\", 128], "
    "[\"unroll_explicit\", \"ot\", 0]]}, \"result\": [[5.6e-05], 0, 11.0, 1535461200.0], \"version\": 0.2, \"tvm_version\": "
    "\"0.7.dev0\"}\n";

/* The launch sizes TVM gives the bgemm kernel: grid (tile_x[0], tile_y[0], alpha^2) of
 * (tile_x[2], tile_y[2], 1) work-items; one record per expectation row. */
static const struct {
    int64_t index, groups[3], local[3];
    size_t  local_bytes;
} expect[3] = {
    {263327, {1, 2, 36}, {98, 4, 1}, (8 * 32 + 8 * 196) * 4},
    {359623, {1, 3, 36}, {1, 128, 1}, (8 * 128 + 8 * 4) * 4},
    {1352202, {1, 6, 16}, {108, 2, 1}, (8 * 16 + 8 * 324) * 4},
};

static void tvm_records_should_pin_their_indices_and_launch_sizes(void **state)
{
    (void)state;
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer("wino.log", records, sizeof records - 1, &log));
    assert_int_equal(log->n, 3);
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        at_task *t;
        assert_ok(at_task_create(r->task_name, AT_TARGET_OPENCL, r->args_json, &t));
        int64_t idx;
        assert_ok(at_space_index_of(at_task_space(t), r->config, &idx));
        assert_int_equal(idx, expect[i].index);
        assert_int_equal(at_config_index(r->config), idx);
        at_config *c;
        assert_ok(at_task_config(t, idx, &c));
        const at_entity *ry = at_config_find(r->config, "tile_y"), *cy = ent(c, "tile_y");
        for (size_t k = 1; k < 4; k++) assert_int_equal(cy->ints[k], ry->ints[k]);
        assert_int_equal(ent(c, "tile_b")->ints[0], -1);
        at_arena *ar;
        assert_ok(at_arena_new(0, &ar));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, c, ar, &p));
        assert_int_equal(p->n_kernels, 4);
        assert_true(p->kernels[0].prepare); /* kernel_pack: debug_skip_region while tuning */
        assert_string_equal(p->kernels[2].name, "bgemm_kernel");
        at_ir_launch l;
        at_ir_kernel_launch(p, 2, &l);
        for (int d = 0; d < 3; d++) {
            assert_int_equal(l.groups[d], expect[i].groups[d]);
            assert_int_equal(l.local[d], expect[i].local[d]);
        }
        assert_int_equal(at_ir_kernel_local_bytes(p, 2), expect[i].local_bytes);
        at_arena_free(ar);
        at_config_free(c);
        at_task_free(t);
    }
    at_rec_log_free(log);
}

/* Interprets config c of t on dt and checks every output (max relative error 1e-3, 1e-2 floor). */
static void run_on_interpreter(const at_task *t, const at_config *c, at_test_data *dt, const char *what)
{
    at_test_data_run_config(t, c, dt, false, what);
    at_test_data_check(dt, 1e-2, 1e-3, what);
}

static void sampled_configs_should_match_the_reference_on_the_interpreter(void **state)
{
    (void)state;
    size_t n_run = 0;
    for (size_t wi = 0; wi < N_SMALL; wi++) {
        at_task *t = task(small[wi]);
        at_test_data dt;
        at_test_data_init(&dt, at_task_args(t), 100 + wi, AT_TEST_FILL_CENTERED);
        int64_t idx[10];
        size_t m = sample(t, 7 + wi, 10, idx);
        for (size_t k = 0; k < m; k++) {
            at_config *c;
            assert_ok(at_task_config(t, idx[k], &c));
            char what[160];
            snprintf(what, sizeof what, "%s workload %zu config %lld", NAME, wi, (long long)idx[k]);
            run_on_interpreter(t, c, &dt, what);
            at_config_free(c);
            n_run++;
        }
        at_test_data_fini(&dt);
        at_task_free(t);
    }
    print_message("%zu configs of %d workloads matched the reference\n", n_run, N_SMALL);
}

static void tophub_shaped_configs_should_match_the_reference_on_the_interpreter(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SHAPED; i++) {
        at_task *t = task(shaped[i].args);
        at_config *c = config_of(t, shaped[i].y, shaped[i].x, shaped[i].rc, shaped[i].step, shaped[i].expl);
        at_test_data dt;
        at_test_data_init(&dt, at_task_args(t), 500 + i, AT_TEST_FILL_CENTERED);
        char what[160];
        snprintf(what, sizeof what, "%s config %lld", shaped[i].args, (long long)at_config_index(c));
        run_on_interpreter(t, c, &dt, what);
        at_test_data_fini(&dt);
        at_config_free(c);
        at_task_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(space_should_follow_tvm),
        cmocka_unit_test(tvm_records_should_pin_their_indices_and_launch_sizes),
        cmocka_unit_test(sampled_configs_should_match_the_reference_on_the_interpreter),
        cmocka_unit_test(tophub_shaped_configs_should_match_the_reference_on_the_interpreter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* WINO_POCL */

/* Every result must be OK: the pool checks each output against the op's reference. */
static void sampled_configs_should_run_and_verify_on_pocl(void **state)
{
    enum { PER = 5, MAX = N_SMALL * PER };
    at_task *tasks[N_SMALL];
    at_config *cfg[MAX];
    at_meas_input in[MAX];
    char names[MAX][160];
    const char *what[MAX];
    size_t n = 0;
    for (size_t wi = 0; wi < N_SMALL; wi++) {
        tasks[wi] = task(small[wi]);
        int64_t idx[PER];
        size_t m = sample(tasks[wi], 300 + wi, PER, idx);
        for (size_t k = 0; k < m; k++, n++) {
            assert_ok(at_task_config(tasks[wi], idx[k], &cfg[n]));
            in[n] = (at_meas_input){tasks[wi], cfg[n]};
            snprintf(names[n], sizeof names[n], "workload %zu config %lld", wi, (long long)idx[k]);
            what[n] = names[n];
        }
    }
    at_test_verify_batch(*state, in, n, false, what);
    for (size_t i = 0; i < n; i++) at_config_free(cfg[i]);
    for (size_t wi = 0; wi < N_SMALL; wi++) at_task_free(tasks[wi]);
}

static void tophub_shaped_configs_should_run_and_verify_on_pocl(void **state)
{
    enum { N = N_SHAPED };
    at_task *tasks[N];
    at_config *cfg[N];
    at_meas_input in[N];
    char names[N][160];
    const char *what[N];
    for (size_t i = 0; i < N; i++) {
        tasks[i] = task(shaped[i].args);
        cfg[i] = config_of(tasks[i], shaped[i].y, shaped[i].x, shaped[i].rc, shaped[i].step, shaped[i].expl);
        in[i] = (at_meas_input){tasks[i], cfg[i]};
        snprintf(names[i], sizeof names[i], "%s config %lld", shaped[i].args, (long long)at_config_index(cfg[i]));
        what[i] = names[i];
    }
    at_test_verify_batch(*state, in, N, false, what);
    for (size_t i = 0; i < N; i++) {
        at_config_free(cfg[i]);
        at_task_free(tasks[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampled_configs_should_run_and_verify_on_pocl),
        cmocka_unit_test(tophub_shaped_configs_should_run_and_verify_on_pocl),
    };
    return cmocka_run_group_tests(tests, at_test_verify_pool_setup, at_test_verify_pool_teardown);
}

#endif
