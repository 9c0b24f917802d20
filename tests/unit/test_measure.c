/* measure/ without a device: TVM's time evaluator against a fake clock (number growth, zero
 * timings, failures), cost trimming, output comparison, random inputs, device-limit checks on
 * emitted programs, the worker wire format, and the runner wrapper. */
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
#include "measure/internal.h"
#include "measure/measure.h"
#include "measure/ocl.h"
#include "tests/support/test_support.h"

/* ---- time evaluator ------------------------------------------------------------------------- */

typedef struct fake {
    double  per_run_ms[16]; /* per timing call (index = call number, clamped to the last) */
    size_t  n_per_run;
    int64_t numbers[512];   /* the `number` of each call */
    size_t  n_calls;
    size_t  fail_at;        /* call number that fails (0 = never) */
} fake;

static at_status fake_time(void *ctx, int64_t number, double *duration_ms)
{
    fake *f = ctx;
    size_t call = f->n_calls++;
    if (call < 512) f->numbers[call] = number;
    if (f->fail_at && call + 1 == f->fail_at) return AT_FAIL(AT_EDEVICE, "fake device lost");
    size_t k = call < f->n_per_run ? call : f->n_per_run - 1;
    if (duration_ms) *duration_ms = f->per_run_ms[k] * (double)number;
    return AT_OK;
}

static void evaluator_should_warm_up_once_then_time_repeat_rounds(void **state)
{
    (void)state;
    fake f = {.per_run_ms = {1}, .n_per_run = 1};
    double costs[3];
    int64_t number = 0;
    assert_ok(at_meas_time_evaluator(fake_time, &f, 4, 3, 0, costs, &number));
    assert_int_equal(f.n_calls, 4);
    const int64_t want[4] = {1, 4, 4, 4};
    for (int i = 0; i < 4; i++) assert_int_equal(f.numbers[i], want[i]);
    for (int i = 0; i < 3; i++) assert_true(fabs(costs[i] - 1e-3) < 1e-15);
    assert_int_equal(number, 4);
}

static void evaluator_should_grow_number_to_min_repeat_ms_and_keep_it(void **state)
{
    (void)state;
    fake f = {.per_run_ms = {1}, .n_per_run = 1};
    double costs[3];
    int64_t number = 0;
    assert_ok(at_meas_time_evaluator(fake_time, &f, 4, 3, 150, costs, &number));
    /* 4 runs = 4 ms < 150: number = max(150 / (4 / 4) + 1, 4 * 1.618) = 151; later rounds keep it */
    const int64_t want[5] = {1, 4, 151, 151, 151};
    assert_int_equal(f.n_calls, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(f.numbers[i], want[i]);
    assert_int_equal(number, 151);
    for (int i = 0; i < 3; i++) assert_true(fabs(costs[i] - 1e-3) < 1e-15);
}

static void evaluator_should_grow_by_the_golden_ratio_when_that_is_more(void **state)
{
    (void)state;
    /* first timing: 10 runs of 9 ms = 90 ms < 100: max(100 / 9 + 1 = 12.1, 10 * 1.618 = 16.18) */
    fake f = {.per_run_ms = {5, 9, 9}, .n_per_run = 3};
    double costs[1];
    assert_ok(at_meas_time_evaluator(fake_time, &f, 10, 1, 100, costs, NULL));
    assert_int_equal(f.n_calls, 3);
    assert_int_equal(f.numbers[2], 16);
    assert_true(fabs(costs[0] - 9e-3) < 1e-15);
}

static void evaluator_should_stop_after_100_zero_timings_per_round(void **state)
{
    (void)state;
    fake f = {.per_run_ms = {0}, .n_per_run = 1};
    double costs[2];
    assert_ok(at_meas_time_evaluator(fake_time, &f, 3, 2, 10, costs, NULL));
    assert_int_equal(f.n_calls, 1 + 2 * 100);
    assert_int_equal(f.numbers[200], 3); /* a zero duration never grows number */
    assert_true(costs[0] == 0 && costs[1] == 0);
}

static void evaluator_should_return_the_first_failure(void **state)
{
    (void)state;
    fake f = {.per_run_ms = {1}, .n_per_run = 1, .fail_at = 3};
    double costs[3];
    assert_int_equal(at_meas_time_evaluator(fake_time, &f, 2, 3, 0, costs, NULL), AT_EDEVICE);
    assert_int_equal(f.n_calls, 3);
    assert_string_equal(at_last_error(), "fake device lost");
}

static void trim_should_drop_min_and_max_only_beyond_two_costs(void **state)
{
    (void)state;
    double a[3] = {3, 1, 2};
    assert_int_equal(at_meas_trim_costs(a, 3), 1);
    assert_true(a[0] == 2);
    double b[5] = {5, 1, 4, 2, 3};
    assert_int_equal(at_meas_trim_costs(b, 5), 3);
    assert_true(b[0] == 2 && b[1] == 3 && b[2] == 4);
    double c[2] = {9, 1};
    assert_int_equal(at_meas_trim_costs(c, 2), 2);
    assert_true(c[0] == 9 && c[1] == 1);
}

/* ---- verification --------------------------------------------------------------------------- */

static void compare_should_find_the_worst_element_and_count_nans(void **state)
{
    (void)state;
    float want[5] = {1, 2, 3, 100, 5}, got[5] = {1, 2.0001f, 3, 100.005f, 5};
    at_op_tolerance tol = {.atol = 1e-4, .rtol = 1e-4};
    at_meas_mismatch mm;
    assert_true(at_meas_compare(AT_IR_F32, got, want, 5, tol, &mm));
    assert_int_equal(mm.index, -1);
    assert_int_equal(mm.n_bad, 0);
    assert_true(mm.abs_err > 0.004); /* the largest error within tolerance, for the message */
    got[1] = 2.1f;
    got[4] = NAN;
    assert_false(at_meas_compare(AT_IR_F32, got, want, 5, tol, &mm));
    assert_int_equal(mm.n_bad, 2);
    assert_int_equal(mm.index, 4); /* NaN is the worst */
    got[4] = 5;
    assert_false(at_meas_compare(AT_IR_F32, got, want, 5, tol, &mm));
    assert_int_equal(mm.n_bad, 1);
    assert_int_equal(mm.index, 1);
    assert_true(fabs(mm.want - 2) < 1e-12);
    int32_t gi[3] = {1, 2, 3}, wi[3] = {1, 2, 4};
    assert_false(at_meas_compare(AT_IR_I32, gi, wi, 3, (at_op_tolerance){0, 0}, &mm));
    assert_int_equal(mm.index, 2);
}

static void random_fill_should_be_seeded(void **state)
{
    (void)state;
    float a[64], b[64];
    int32_t c[64];
    at_rng r1, r2;
    at_rng_seed(&r1, 9);
    at_rng_seed(&r2, 9);
    at_meas_random_fill(AT_IR_F32, a, 64, &r1);
    at_meas_random_fill(AT_IR_F32, b, 64, &r2);
    assert_memory_equal(a, b, sizeof a);
    bool differ = false;
    for (int i = 0; i < 64; i++) {
        assert_true(a[i] >= 0 && a[i] < 1);
        differ |= a[i] != a[0];
    }
    assert_true(differ);
    at_meas_random_fill(AT_IR_I32, c, 64, &r1);
    for (int i = 0; i < 64; i++) assert_true(c[i] >= -8 && c[i] <= 8);
}

/* ---- device limits -------------------------------------------------------------------------- */

static at_ocl_device_info small_gpu(void)
{
    return (at_ocl_device_info){.max_work_group_size = 256, .max_work_item_dims = 3, .max_work_item_sizes = {256, 256, 64},
                                .local_mem_bytes = 32768, .max_alloc_bytes = 1 << 20, .fp64 = false};
}

/* Emits testing/matmul `args` config `index` and checks it against dev. */
static at_status check_matmul(const char *args, int64_t index, const at_ocl_device_info *dev)
{
    at_task *t;
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, args, &t));
    at_config *c;
    assert_ok(at_task_config(t, index, &c));
    at_arena *a;
    assert_ok(at_arena_new(0, &a));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, a, &p));
    at_ocl_code code;
    assert_ok(at_ocl_emit(p, &code));
    at_status st = at_meas_ocl_check_limits(p, &code, dev);
    at_ocl_code_fini(&code);
    at_arena_free(a);
    at_config_free(c);
    at_task_free(t);
    return st;
}

static void limits_should_reject_work_groups_and_buffers_the_device_cannot_take(void **state)
{
    (void)state;
    at_ocl_device_info dev = small_gpu();
    /* 64x64: factors 1,2,4,8,16,32,64 (7 each); index = y + 7 x */
    assert_ok(check_matmul("64,64,64", 4 + 7 * 3, &dev)); /* 16 x 8 = 128 */
    assert_int_equal(check_matmul("64,64,64", 5 + 7 * 5, &dev), AT_EINVAL); /* 32 x 32 = 1024 */
    assert_non_null(strstr(at_last_error(), "work-group of 1024 work-items (32 x 32 x 1) exceeds the device's 256"));
    dev.max_work_group_size = 4096;
    dev.max_work_item_sizes[1] = 16;
    assert_int_equal(check_matmul("64,64,64", 5 + 7 * 0, &dev), AT_EINVAL); /* threadIdx.y = 32 */
    assert_non_null(strstr(at_last_error(), "local size 32 in dimension 1 exceeds the device's 16"));
    dev = small_gpu();
    assert_int_equal(check_matmul("1024,512,1024", 0, &dev), AT_EINVAL); /* 2 MiB > 1 MiB */
    assert_non_null(strstr(at_last_error(), "exceeds the device's largest allocation"));
    assert_ok(check_matmul("64,64,64,float32", 0, &dev));
    assert_int_equal(check_matmul("64,64,64,float64", 0, &dev), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "no fp64"));
}

static void limits_should_count_local_memory(void **state)
{
    (void)state;
    at_arena *a;
    assert_ok(at_arena_new(0, &a));
    at_ir_sched *s = at_ir_sched_begin(a, "lm");
    const at_ir_buffer *o = at_ir_param(s, "o", AT_IR_F32, 4, AT_IR_OUTPUT);
    const at_ir_buffer *big = at_ir_alloc(s, "big", AT_IR_F32, 10000, AT_IR_LOCAL);
    at_ir_add_kernel(s, "k", at_ir_seq2(s, at_ir_store(s, big, at_ir_i32(s, 0), at_ir_f32(s, 1)),
                                        at_ir_store(s, o, at_ir_i32(s, 0), at_ir_load(s, big, at_ir_i32(s, 0), 1))));
    const at_ir_program *p;
    assert_ok(at_ir_sched_finish(s, &p));
    at_ocl_code code;
    assert_ok(at_ocl_emit(p, &code));
    at_ocl_device_info dev = small_gpu();
    assert_int_equal(at_meas_ocl_check_limits(p, &code, &dev), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "40000 bytes of local memory exceed the device's 32768"));
    dev.local_mem_bytes = 65536;
    assert_ok(at_meas_ocl_check_limits(p, &code, &dev));
    at_ocl_code_fini(&code);
    at_arena_free(a);
}

/* ---- wire ----------------------------------------------------------------------------------- */

static void frames_should_round_trip_and_reject_short_payloads(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_meas_frame_begin(&sb, AT_MSG_BUILD);
    at_meas_put_u64(&sb, 42);
    at_meas_put_str(&sb, "testing/matmul");
    at_meas_put_u32(&sb, 7);
    at_meas_put_f64(&sb, 2.5);
    at_meas_put_str(&sb, "");
    at_meas_frame_end(&sb);
    assert_ok(at_strbuf_status(&sb));
    uint32_t len, type;
    memcpy(&len, sb.data, 4);
    memcpy(&type, sb.data + 4, 4);
    assert_int_equal(len, sb.len - 4);
    assert_int_equal(type, AT_MSG_BUILD);
    at_meas_reader r = {.p = (const unsigned char *)sb.data + 8, .len = len - 4};
    assert_int_equal(at_meas_get_u64(&r), 42);
    char *s1 = at_meas_get_str(&r);
    assert_string_equal(s1, "testing/matmul");
    assert_int_equal(at_meas_get_u32(&r), 7);
    assert_true(at_meas_get_f64(&r) == 2.5);
    char *s2 = at_meas_get_str(&r);
    assert_string_equal(s2, "");
    assert_false(r.bad);
    assert_int_equal(at_meas_get_u32(&r), 0); /* past the end */
    assert_true(r.bad);
    at_free(s1);
    at_free(s2);
    at_meas_reader short_r = {.p = (const unsigned char *)sb.data + 8, .len = 12};
    (void)at_meas_get_u64(&short_r);
    assert_null(at_meas_get_str(&short_r)); /* the length says 14 bytes, 4 are there */
    assert_true(short_r.bad);
    at_strbuf_fini(&sb);
}

/* ---- runner wrapper ------------------------------------------------------------------------- */

static int fake_freed;

static at_status fake_measure(void *ctx, const at_meas_input *in, size_t n, at_result *out)
{
    (void)in;
    int *calls = ctx;
    (*calls)++;
    for (size_t i = 0; i < n; i++) {
        out[i].err = AT_MEAS_OK;
        double c = 1e-3 * (double)(i + 1);
        AT_TRY(at_result_set_costs(&out[i], &c, 1));
    }
    return AT_OK;
}

static void fake_free(void *ctx)
{
    (void)ctx;
    fake_freed++;
}

static void runner_should_dispatch_to_its_implementation(void **state)
{
    (void)state;
    static const at_meas_runner_i iface = {.name = "fake", .measure = fake_measure, .free = fake_free};
    int calls = 0;
    at_meas_runner *r;
    assert_ok(at_meas_runner_new(&iface, &calls, &r));
    assert_string_equal(at_meas_runner_name(r), "fake");
    assert_int_equal(at_meas_runner_batch_size(r), 1);
    assert_null(at_meas_ocl_of(r));
    at_result res[2];
    at_result_init(&res[0]);
    at_result_init(&res[1]);
    at_meas_input in[2] = {{0}};
    assert_ok(at_meas_runner_measure(r, in, 2, res));
    assert_int_equal(calls, 1);
    assert_true(res[1].costs_s[0] == 2e-3);
    at_result_fini(&res[0]);
    at_result_fini(&res[1]);
    fake_freed = 0;
    at_meas_runner_free(r);
    assert_int_equal(fake_freed, 1);
    at_meas_runner_free(NULL);
}

static void pool_should_reject_bad_options_before_forking(void **state)
{
    (void)state;
    at_meas_ocl *m = (at_meas_ocl *)&m;
    assert_int_equal(at_meas_ocl_new(&(at_measure_opts){.repeat = 65}, &m), AT_EINVAL);
    assert_null(m);
    assert_int_equal(at_meas_ocl_new(&(at_measure_opts){.number = -1}, &m), AT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(evaluator_should_warm_up_once_then_time_repeat_rounds),
        cmocka_unit_test(evaluator_should_grow_number_to_min_repeat_ms_and_keep_it),
        cmocka_unit_test(evaluator_should_grow_by_the_golden_ratio_when_that_is_more),
        cmocka_unit_test(evaluator_should_stop_after_100_zero_timings_per_round),
        cmocka_unit_test(evaluator_should_return_the_first_failure),
        cmocka_unit_test(trim_should_drop_min_and_max_only_beyond_two_costs),
        cmocka_unit_test(compare_should_find_the_worst_element_and_count_nans),
        cmocka_unit_test(random_fill_should_be_seeded),
        cmocka_unit_test(limits_should_reject_work_groups_and_buffers_the_device_cannot_take),
        cmocka_unit_test(limits_should_count_local_memory),
        cmocka_unit_test(frames_should_round_trip_and_reject_short_payloads),
        cmocka_unit_test(runner_should_dispatch_to_its_implementation),
        cmocka_unit_test(pool_should_reject_bad_options_before_forking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
