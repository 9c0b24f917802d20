/* tuners/feature: TVM's touch extractor on hand-built IR (values worked out by hand from
 * spec/autotvm_core.md §5.3), the itervar and curve grids, and the fixed feature length of
 * every registered template across configs and workloads. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "tests/fakes/fakes.h"
#include "tests/support/test_op_examples.h"
#include "tests/support/test_support.h"
#include "tuners/feature.h"

#define LOOP_ACC0 (4 + AT_FEAT_ANN_WIDTH + 3) /* first access slot inside a loop row */

/* for i in 4: for j in 8: for k in 16: C[i*8 + j] = C[i*8 + j] + A[i*16 + k] * B[k*8 + j] */
static const at_ir_program *serial_matmul(at_arena *arena)
{
    at_ir_sched *s = at_ir_sched_begin(arena, "mm");
    const at_ir_buffer *A = at_ir_param(s, "A", AT_IR_F32, 64, AT_IR_INPUT);
    const at_ir_buffer *B = at_ir_param(s, "B", AT_IR_F32, 128, AT_IR_INPUT);
    const at_ir_buffer *C = at_ir_param(s, "C", AT_IR_F32, 32, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32), *j = at_ir_var_new(s, "j", AT_IR_I32),
                    *k = at_ir_var_new(s, "k", AT_IR_I32);
    const at_ir_expr *ci = at_ir_add(s, at_ir_mul(s, at_ir_v(s, i), at_ir_i32(s, 8)), at_ir_v(s, j));
    const at_ir_expr *ai = at_ir_add(s, at_ir_mul(s, at_ir_v(s, i), at_ir_i32(s, 16)), at_ir_v(s, k));
    const at_ir_expr *bi = at_ir_add(s, at_ir_mul(s, at_ir_v(s, k), at_ir_i32(s, 8)), at_ir_v(s, j));
    const at_ir_stmt *st = at_ir_store(
        s, C, ci,
        at_ir_add(s, at_ir_load(s, C, ci, 1), at_ir_mul(s, at_ir_load(s, A, ai, 1), at_ir_load(s, B, bi, 1))));
    st = at_ir_for(s, k, 16, AT_IR_SERIAL, st);
    st = at_ir_for(s, j, 8, AT_IR_SERIAL, st);
    st = at_ir_for(s, i, 4, AT_IR_SERIAL, st);
    at_ir_add_kernel(s, "k0", st);
    const at_ir_program *p = NULL;
    assert_ok(at_ir_sched_finish(s, &p));
    assert_ok(at_ir_verify(p));
    return p;
}

static const at_tuner_touch_pattern *find(const at_tuner_touch *t, const at_tuner_touch_loop *l, const char *name)
{
    for (size_t k = 0; k < l->n_touch; k++)
        if (!strcmp(t->access_names[l->touch[k].access], name)) return &l->touch[k];
    fail_msg("no access %s", name);
    return NULL;
}

static void assert_pattern(const at_tuner_touch *t, size_t loop, const char *name, int64_t stride, int64_t count,
                           int64_t reuse, int64_t thread_count, int64_t thread_reuse)
{
    const at_tuner_touch_pattern *p = find(t, &t->loops[loop], name);
    assert_int_equal(p->stride, stride);
    assert_int_equal(p->mod, -1);
    assert_int_equal(p->count, count);
    assert_int_equal(p->reuse, reuse);
    assert_int_equal(p->thread_count, thread_count);
    assert_int_equal(p->thread_reuse, thread_reuse);
}

static void touch_extractor_should_count_strides_counts_and_reuse_of_a_serial_matmul(void **state)
{
    (void)state;
    at_arena *arena;
    assert_ok(at_arena_new(0, &arena));
    at_tuner_touch *t;
    assert_ok(at_tuner_touch_analyze(serial_matmul(arena), &t));
    assert_int_equal(t->n_loops, 3);
    assert_int_equal(t->n_access, 4);
    /* the store is named before the loads of its value */
    assert_string_equal(t->access_names[0], "C_0");
    assert_string_equal(t->access_names[1], "C_1");
    assert_string_equal(t->access_names[2], "A_0");
    assert_string_equal(t->access_names[3], "B_0");
    assert_string_equal(t->access_names[t->names_sorted[0]], "A_0");
    assert_string_equal(t->access_names[t->names_sorted[3]], "C_1");
    assert_int_equal(t->n_buffers, 3);
    assert_string_equal(t->buffer_names[0], "A");
    assert_string_equal(t->buffer_names[2], "C");
    assert_int_equal(t->access_buffer[1], 2); /* C_1 */

    const int64_t len[3] = {4, 8, 16}, topdown[3] = {4, 32, 512}, bottomup[3] = {512, 128, 16};
    for (size_t l = 0; l < 3; l++) {
        assert_int_equal(t->loops[l].length, len[l]);
        assert_int_equal(t->loops[l].nest_level, (int)l + 1);
        assert_int_equal(t->loops[l].topdown, topdown[l]);
        assert_int_equal(t->loops[l].bottomup, bottomup[l]);
        assert_int_equal(t->loops[l].ann, AT_TUNER_TOUCH_SERIAL);
        assert_int_equal(t->loops[l].n_touch, 4);
    }
    assert_int_equal(t->loops[2].add_ct, 1);
    assert_int_equal(t->loops[2].mul_ct, 1);
    assert_int_equal(t->loops[0].add_ct, 0); /* integer index arithmetic is not counted */
    /*            loop name  stride count reuse */
    assert_pattern(t, 0, "C_0", 8, 32, 16, 0, 0);
    assert_pattern(t, 0, "A_0", 16, 64, 8, 0, 0);
    assert_pattern(t, 0, "B_0", 0, 128, 4, 0, 0);
    assert_pattern(t, 1, "C_1", 1, 8, 16, 0, 0);
    assert_pattern(t, 1, "A_0", 0, 16, 8, 0, 0);
    assert_pattern(t, 1, "B_0", 1, 128, 1, 0, 0);
    assert_pattern(t, 2, "C_0", 0, 1, 16, 0, 0);
    assert_pattern(t, 2, "A_0", 1, 16, 1, 0, 0);
    assert_pattern(t, 2, "B_0", 8, 16, 1, 0, 0);

    float *f = at_malloc(AT_FEAT_ITERVAR_IR_LEN * sizeof *f);
    at_tuner_touch_itervar(t, f);
    assert_float_equal(f[0], log2(5.0), 1e-6);   /* T(length 4) */
    assert_float_equal(f[1], 1.0, 0);            /* nest level, raw */
    assert_float_equal(f[2], log2(5.0), 1e-6);   /* T(topdown 4) */
    assert_float_equal(f[3], log2(513.0), 1e-6); /* T(bottomup 512) */
    for (int a = 0; a < AT_FEAT_ANN_WIDTH; a++) assert_float_equal(f[4 + a], a == AT_TUNER_TOUCH_SERIAL, 0);
    /* loop 0, buffer slot 0 = A (A_0): stride 16, mod -1, count 64, reuse 8 */
    assert_float_equal(f[LOOP_ACC0 + 0], log2(17.0), 1e-6);
    assert_float_equal(f[LOOP_ACC0 + 1], -1.0, 1e-6);
    assert_float_equal(f[LOOP_ACC0 + 2], log2(65.0), 1e-6);
    assert_float_equal(f[LOOP_ACC0 + 3], log2(9.0), 1e-6);
    /* buffer slot 2 = C of loop 2 (k), its first access C_0: stride 0, count 1, reuse 16 */
    const float *k2 = f + 2 * AT_FEAT_LOOP_WIDTH + LOOP_ACC0 + 6 * 2;
    assert_float_equal(k2[0], 0.0, 0);
    assert_float_equal(k2[2], 1.0, 1e-6);
    assert_float_equal(k2[3], log2(17.0), 1e-6);
    /* the add and the mul of loop k */
    assert_float_equal(f[2 * AT_FEAT_LOOP_WIDTH + 4 + AT_FEAT_ANN_WIDTH], 1.0, 1e-6);
    assert_float_equal(f[2 * AT_FEAT_LOOP_WIDTH + 4 + AT_FEAT_ANN_WIDTH + 1], 1.0, 1e-6);
    /* buffer slot 3 of any loop and loop slot 3 onwards are empty */
    for (size_t i = 0; i < 6; i++) assert_float_equal(f[LOOP_ACC0 + 6 * 3 + i], 0.0, 0);
    for (size_t i = 3 * AT_FEAT_LOOP_WIDTH; i < AT_FEAT_ITERVAR_IR_LEN; i++) assert_float_equal(f[i], 0.0, 0);
    at_free(f);
    at_tuner_touch_free(t);
    at_arena_free(arena);
}

static void curve_should_sample_sorted_reuse_count_and_topdown_of_innermost_buffers(void **state)
{
    (void)state;
    at_arena *arena;
    assert_ok(at_arena_new(0, &arena));
    at_tuner_touch *t;
    assert_ok(at_tuner_touch_analyze(serial_matmul(arena), &t));
    float *f = at_malloc(AT_FEAT_CURVE_IR_LEN * sizeof *f);
    at_tuner_touch_curve(t, f);
    /* innermost buffers A_0, B_0, C_0 (C_1 has C's raw name): slot 0 is A_0, whose curves over
     * loops i, j, k with the leading 0 are count {0,4,4,6}, reuse {0,0,3,3} (log2, sorted) */
    const float *cr = f; /* sample(count, reuse): pairs (reuse, xx - count) */
    assert_float_equal(cr[0], 0.0, 0);
    assert_float_equal(cr[1], 0.0, 0);
    assert_float_equal(cr[2 * 3 + 0], 0.0, 0); /* xx = 3: last count <= 3 is 0 */
    assert_float_equal(cr[2 * 3 + 1], 3.0, 1e-6);
    assert_float_equal(cr[2 * 5 + 0], 3.0, 1e-6); /* xx = 5: count 4 */
    assert_float_equal(cr[2 * 5 + 1], 1.0, 1e-6);
    assert_float_equal(cr[2 * 19 + 0], 3.0, 1e-6); /* xx = 19: count 6 */
    assert_float_equal(cr[2 * 19 + 1], 13.0, 1e-6);
    /* slot 2 (C_0) is filled, slot 3 empty */
    float sum2 = 0, sum3 = 0;
    for (size_t i = 0; i < 8 * AT_FEAT_CURVE_SAMPLES; i++) {
        sum2 += fabsf(f[2 * 8 * AT_FEAT_CURVE_SAMPLES + i]);
        sum3 += fabsf(f[3 * 8 * AT_FEAT_CURVE_SAMPLES + i]);
    }
    assert_true(sum2 > 0);
    assert_float_equal(sum3, 0.0, 0);
    at_free(f);
    at_tuner_touch_free(t);
    at_arena_free(arena);
}

/* for bx in blockIdx.x 4: for tx in threadIdx.x 8: B[bx*8 + tx] = A[bx*8 + tx] */
static void touch_extractor_should_measure_thread_counts_at_the_parallel_boundary(void **state)
{
    (void)state;
    at_arena *arena;
    assert_ok(at_arena_new(0, &arena));
    at_ir_sched *s = at_ir_sched_begin(arena, "copy");
    const at_ir_buffer *A = at_ir_param(s, "A", AT_IR_F32, 32, AT_IR_INPUT);
    const at_ir_buffer *B = at_ir_param(s, "B", AT_IR_F32, 32, AT_IR_OUTPUT);
    const at_ir_var *bx = at_ir_var_new(s, "bx", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_expr *ix = at_ir_add(s, at_ir_mul(s, at_ir_v(s, bx), at_ir_i32(s, 8)), at_ir_v(s, tx));
    const at_ir_stmt *st = at_ir_store(s, B, ix, at_ir_load(s, A, ix, 1));
    st = at_ir_for(s, tx, 8, AT_IR_THREAD_X, st);
    st = at_ir_for(s, bx, 4, AT_IR_BLOCK_X, st);
    at_ir_add_kernel(s, "k0", st);
    const at_ir_program *p = NULL;
    assert_ok(at_ir_sched_finish(s, &p));
    at_tuner_touch *t;
    assert_ok(at_tuner_touch_analyze(p, &t));
    assert_int_equal(t->n_loops, 2);
    assert_int_equal(t->loops[0].ann, AT_TUNER_TOUCH_BLOCK_X);
    assert_int_equal(t->loops[1].ann, AT_TUNER_TOUCH_THREAD_X);
    assert_pattern(t, 0, "B_0", 8, 32, 1, 4, 1);
    assert_pattern(t, 1, "B_0", 1, 8, 1, 0, 0);
    assert_int_equal(t->loops[0].bottomup, 32);
    at_tuner_touch_free(t);
    at_arena_free(arena);
}

/* Strides come from the affine form, so an unsimplified (by*4 + ty)*16 + k gives by 64. */
static void touch_extractor_should_read_strides_from_unsimplified_fused_indexes(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    at_arena *arena;
    assert_ok(at_arena_new(0, &arena));
    /* tile_y = [-1, 8, 2], tile_x = [-1, 16, 4]: find that config through the knob vector */
    const at_space *sp = at_task_space(task);
    int64_t knobs[5] = {0, 0, 2, 1, 1}; /* tile_k entity 2 = [-1, 4] */
    for (int64_t e = 0; e < at_space_dim(sp, 0); e++) {
        const at_entity *ent = at_space_entity(sp, 0, e);
        if (ent->ints[1] == 8 && ent->ints[2] == 2) knobs[0] = e;
    }
    for (int64_t e = 0; e < at_space_dim(sp, 1); e++) {
        const at_entity *ent = at_space_entity(sp, 1, e);
        if (ent->ints[1] == 16 && ent->ints[2] == 4) knobs[1] = e;
    }
    at_config *c;
    assert_ok(at_task_config(task, at_space_knobs_to_point(sp, knobs), &c));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(task, c, arena, &p));
    at_tuner_touch *t;
    assert_ok(at_tuner_touch_analyze(p, &t));
    /* loops: by bx ty tx | vy vx (init) | ko ki vy vx (update) | vy vx (write back) */
    assert_int_equal(t->n_loops, 12);
    assert_int_equal(t->loops[0].length, 4);  /* by = 64 / (8 * 2) */
    assert_int_equal(t->loops[2].length, 8);  /* ty */
    assert_int_equal(t->loops[3].length, 16); /* tx */
    assert_int_equal(t->loops[7].ann, AT_TUNER_TOUCH_UNROLLED); /* ki, ann_k = unroll */
    assert_int_equal(t->loops[9].ann, AT_TUNER_TOUCH_UNROLLED); /* vx, auto_unroll 512 */
    /* A index ((by*8 + ty)*2 + vy)*16 + ko*4 + ki: by moves A by 256, ty by 32, ko by 4 */
    const at_tuner_touch_pattern *a0 = find(t, &t->loops[0], "A_0");
    assert_int_equal(a0->stride, 256);
    assert_int_equal(find(t, &t->loops[2], "A_0")->stride, 32);
    assert_int_equal(find(t, &t->loops[6], "A_0")->stride, 4);
    assert_int_equal(find(t, &t->loops[1], "A_0")->stride, 0);
    at_tuner_touch_free(t);
    at_config_free(c);
    at_arena_free(arena);
    at_task_free(task);
}

/* Checks every feature's length for a seeded sample of configs of two workloads of t. */
static void check_template_lengths(const at_template *tmpl, size_t *n_checked)
{
    at_args args[2]; /* two real-size workloads of the op kind (at_op_def.typical) */
    assert_int_equal(test_op_examples(tmpl->op, true, args, 2), 2);
    size_t len[AT_FEAT_COUNT] = {0};
    for (int w = 0; w < 2; w++) {
        at_args a = args[w];
        at_task *task;
        assert_ok(at_task_new(tmpl, &a, &task));
        at_rng rng;
        at_rng_seed(&rng, 7);
        const at_space *s = at_task_space(task);
        size_t n = at_space_len(s) < 12 ? (size_t)at_space_len(s) : 12;
        int64_t idx[12];
        assert_ok(at_space_sample_ints(s, &rng, n, idx));
        for (int f = 0; f < AT_FEAT_COUNT; f++) {
            size_t l = at_tuner_feat_len((at_feature)f, task);
            if (w == 0) len[f] = l;
            assert_int_equal(l, len[f]); /* same for every workload */
            float *v = at_malloc((l + 1) * sizeof *v);
            for (size_t i = 0; i < n; i++) {
                v[l] = 12345.0f; /* canary: nothing written past the length */
                at_status st = at_tuner_feat_extract((at_feature)f, task, idx[i], v);
                assert_true(st == AT_OK || st == AT_EINVAL);
                assert_float_equal(v[l], 12345.0f, 0);
                (*n_checked)++;
            }
            at_free(v);
        }
        at_task_free(task);
    }
}

static void every_template_should_give_one_feature_length_for_all_configs_and_workloads(void **state)
{
    (void)state;
    size_t n_checked = 0;
    assert_true(at_tmpl_count() >= 1);
    for (size_t i = 0; i < at_tmpl_count(); i++) check_template_lengths(at_tmpl_at(i), &n_checked);
    check_template_lengths(&at_fake_tmpl_tile, &n_checked);
    assert_true(n_checked >= (at_tmpl_count() + 1) * 2 * AT_FEAT_COUNT);
}

static void itervar_features_should_follow_the_config(void **state)
{
    (void)state;
    at_task *task = at_fake_task(64, 64, 16);
    size_t l = at_tuner_feat_len(AT_FEAT_ITERVAR, task);
    assert_int_equal(l, AT_FEAT_ITERVAR_IR_LEN + 1); /* one define_knob: auto_unroll_max_step */
    float *a = at_malloc(l * sizeof *a), *b = at_malloc(l * sizeof *b), *c = at_malloc(l * sizeof *c);
    assert_ok(at_tuner_feat_extract(AT_FEAT_ITERVAR, task, 0, a));
    assert_ok(at_tuner_feat_extract(AT_FEAT_ITERVAR, task, 1, b));
    assert_ok(at_tuner_feat_extract(AT_FEAT_ITERVAR, task, 0, c));
    assert_memory_equal(a, c, l * sizeof *a);      /* deterministic */
    assert_memory_not_equal(a, b, l * sizeof *a);  /* index 1 changes tile_y */
    assert_float_equal(a[l - 1], 0.0, 0);          /* auto_unroll_max_step of index 0 */
    int64_t last = at_space_range_len(at_task_space(task)) - 1;
    assert_ok(at_tuner_feat_extract(AT_FEAT_ITERVAR, task, last, a));
    assert_float_equal(a[l - 1], 512.0, 0);
    assert_int_equal(at_tuner_feat_extract(AT_FEAT_KNOB, task, last + 1, a), AT_EINVAL);
    at_free(a);
    at_free(b);
    at_free(c);
    at_task_free(task);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* C[k] = A[k] for k < 12, unrolled: 24 accesses named C_0, A_0, C_1, A_1, ... in visiting
 * order, whose byte order puts "C_10" before "C_2". */
static void touch_extractor_should_sort_access_names_in_byte_order(void **state)
{
    (void)state;
    at_arena *arena = NULL;
    assert_ok(at_arena_new(0, &arena));
    at_ir_sched *s = at_ir_sched_begin(arena, "copy");
    const at_ir_buffer *A = at_ir_param(s, "A", AT_IR_F32, 12, AT_IR_INPUT);
    const at_ir_buffer *C = at_ir_param(s, "C", AT_IR_F32, 12, AT_IR_OUTPUT);
    const at_ir_stmt *items[12];
    for (int k = 0; k < 12; k++) items[k] = at_ir_store(s, C, at_ir_i32(s, k), at_ir_load(s, A, at_ir_i32(s, k), 1));
    at_ir_add_kernel(s, "k0", at_ir_seq(s, items, 12));
    const at_ir_program *p = NULL;
    assert_ok(at_ir_sched_finish(s, &p));
    at_tuner_touch *t = NULL;
    assert_ok(at_tuner_touch_analyze(p, &t));
    assert_int_equal(t->n_access, 24);
    assert_string_equal(t->access_names[0], "C_0");
    assert_string_equal(t->access_names[1], "A_0");
    const char *want[24];
    for (size_t a = 0; a < 24; a++) want[a] = t->access_names[a];
    qsort(want, 24, sizeof *want, cmp_str);
    assert_string_equal(want[2], "A_10");
    for (size_t r = 0; r < 24; r++) {
        assert_string_equal(t->access_names[t->names_sorted[r]], want[r]);
        assert_int_equal(t->name_rank[t->names_sorted[r]], r);
    }
    assert_int_equal(t->n_buffers, 2);
    assert_string_equal(t->buffer_names[0], "A");
    assert_int_equal(t->access_buffer[0], 1); /* C_0 */
    at_tuner_touch_free(t);
    at_arena_free(arena);
}

/* Configs 0..39 of the filtered fake (a few filtered out) and one index past the range: the
 * rows and statuses of one-by-one extraction, whatever the threads. */
static void extract_many_should_give_the_rows_of_one_by_one_extraction(void **state)
{
    (void)state;
    at_task *task = at_fake_task_of(&at_fake_tmpl_filtered, 64, 64, 16);
    const at_space *sp = at_task_space(task);
    enum { N = 41 };
    int64_t idx[N];
    const at_task *tasks[N];
    size_t n_filtered = 0;
    for (size_t i = 0; i < N; i++) {
        idx[i] = (int64_t)i * 53;
        tasks[i] = task;
        n_filtered += i * 53 < (size_t)at_space_range_len(sp) && !at_space_is_index_valid(sp, idx[i]);
    }
    idx[N / 2] = at_space_range_len(sp);
    assert_true(n_filtered > 0);
    for (at_feature f = AT_FEAT_ITERVAR; f < AT_FEAT_COUNT; f++) {
        size_t w = at_tuner_feat_len(f, task);
        float *many = at_malloc(N * w * sizeof *many), *one = at_malloc(w * sizeof *one);
        at_status st[N];
        memset(many, 0xff, N * w * sizeof *many);
        assert_ok(at_tuner_feat_extract_many(f, tasks, idx, N, w, many, st));
        size_t n_einval = 0;
        for (size_t i = 0; i < N; i++) {
            at_status want = at_tuner_feat_extract(f, task, idx[i], one);
            assert_int_equal(st[i], want);
            if (want == AT_EINVAL) {
                n_einval++;
                memset(one, 0, w * sizeof *one);
            }
            assert_memory_equal(many + i * w, one, w * sizeof *one);
        }
        assert_int_equal(n_einval, n_filtered + 1);
        at_free(many);
        at_free(one);
    }
    at_task_free(task);
}

static void take_log_should_match_tvm(void **state)
{
    (void)state;
    assert_float_equal(at_tuner_touch_log(-1), -1.0, 1e-12);
    assert_float_equal(at_tuner_touch_log(0), 0.0, 0);
    assert_float_equal(at_tuner_touch_log(1), 1.0, 1e-12);
    assert_float_equal(at_tuner_touch_log(7), 3.0, 1e-12);
    assert_float_equal(at_tuner_touch_log(-3), -2.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(touch_extractor_should_count_strides_counts_and_reuse_of_a_serial_matmul),
        cmocka_unit_test(curve_should_sample_sorted_reuse_count_and_topdown_of_innermost_buffers),
        cmocka_unit_test(touch_extractor_should_measure_thread_counts_at_the_parallel_boundary),
        cmocka_unit_test(touch_extractor_should_read_strides_from_unsimplified_fused_indexes),
        cmocka_unit_test(every_template_should_give_one_feature_length_for_all_configs_and_workloads),
        cmocka_unit_test(itervar_features_should_follow_the_config),
        cmocka_unit_test(take_log_should_match_tvm),
        cmocka_unit_test(touch_extractor_should_sort_access_names_in_byte_order),
        cmocka_unit_test(extract_many_should_give_the_rows_of_one_by_one_extraction),
    };
    if (getenv("AT_TEST_FILTER")) cmocka_set_test_filter(getenv("AT_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
