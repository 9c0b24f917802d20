/* Workloads and the reference check of the CPU-template conformance tests: seeded random inputs
 * (float32 in [0, 1), int8 / uint8 over their range), the op's naive reference as the oracle, one
 * tolerance for float32 sums and exact equality for int32 ones. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "tests/unit/test_arm_cpu_cases.h"

const char *const arm_cpu_templates[ARM_CPU_N_TEMPLATES] = {"conv2d_nchw_spatial_pack.arm_cpu", "depthwise_conv2d_nchw.arm_cpu",
                                                            "dense_nopack.x86", "dense_pack.x86",
                                                            "conv2d_nchw_winograd.arm_cpu", "conv2d_transpose_nchw.arm_cpu"};

#define T(shape) "[\"TENSOR\", " shape ", \"float32\"]"

static const char *const conv_cases[] = {
    "[" T("[1, 2, 8, 8]") ", " T("[8, 2, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
    "[" T("[2, 2, 9, 9]") ", " T("[6, 2, 3, 3]") ", [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"]",
    "[" T("[1, 2, 9, 9]") ", " T("[4, 2, 3, 3]") ", [1, 1], [2, 2, 2, 2], [2, 2], \"float32\"]",
    "[" T("[1, 4, 6, 6]") ", " T("[32, 4, 1, 1]") ", [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"]",
    "[" T("[1, 2, 7, 20]") ", " T("[4, 2, 1, 3]") ", [1, 1], [0, 1, 0, 1], [1, 1], \"float32\"]",
    /* TopHub's vtacpu form: int8 (uint8) data and kernel, int32 out_dtype, exact sums */
    "[[\"TENSOR\", [1, 3, 9, 9], \"int8\"], [\"TENSOR\", [8, 3, 3, 3], \"int8\"], [2, 2], [1, 1, 1, 1], [1, 1], \"int32\"]",
    "[[\"TENSOR\", [1, 4, 6, 6], \"uint8\"], [\"TENSOR\", [4, 4, 3, 3], \"uint8\"], [1, 1], [1, 1, 1, 1], [1, 1], \"int32\"]",
};
static const char *const wino_cases[] = {
    "[" T("[1, 4, 8, 8]") ", " T("[8, 4, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",  /* P = 4 */
    "[" T("[2, 3, 7, 7]") ", " T("[6, 3, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",  /* ragged, batch 2 */
    "[" T("[1, 2, 6, 11]") ", " T("[20, 2, 3, 3]") ", [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"]", /* no pad, 4 x 9 */
    "[" T("[3, 2, 5, 5]") ", " T("[4, 2, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",  /* batch 3, P = 12 */
};
static const char *const dw_cases[] = {
    "[" T("[1, 8, 8, 8]") ", " T("[8, 1, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
    "[" T("[2, 4, 9, 9]") ", " T("[4, 1, 3, 3]") ", [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"]",
    "[" T("[1, 3, 8, 8]") ", " T("[3, 2, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
    "[" T("[1, 4, 10, 10]") ", " T("[4, 1, 3, 3]") ", [1, 1], [2, 2, 2, 2], [2, 2], \"float32\"]",
    "[" T("[1, 32, 2, 17]") ", " T("[32, 1, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
};
static const char *const dense_cases[] = {
    "[" T("[1, 48]") ", " T("[34, 48]") ", null, \"float32\"]",
    "[" T("[4, 24]") ", " T("[12, 24]") ", null, \"float32\"]",
    "[" T("[6, 17]") ", " T("[40, 17]") ", null, \"float32\"]",
    "[" T("[12, 32]") ", " T("[8, 32]") ", null, \"float32\"]",
};

static const char *const transpose_cases[] = {
    "[" T("[1, 4, 5, 5]") ", " T("[4, 3, 4, 4]") ", [2, 2], [1, 1, 1, 1], \"float32\", [0, 0]]", /* TopHub's form */
    "[" T("[2, 3, 4, 6]") ", " T("[3, 4, 3, 3]") ", [1, 1], [0, 0, 0, 0], \"float32\", [0, 0]]", /* batch 2, stride 1 */
    "[" T("[1, 3, 5, 4]") ", " T("[3, 2, 3, 3]") ", [2, 1], [0, 1, 2, 0], \"float32\", [1, 0]]", /* output_padding */
    "[[\"TENSOR\", [1, 4, 4, 4], \"int8\"], [\"TENSOR\", [4, 3, 4, 4], \"int8\"], [2, 2], [1, 1, 1, 1], \"int32\", [0, 0]]",
};

size_t arm_cpu_cases(const char *tmpl_name, const char *const **out)
{
    if (!strcmp(tmpl_name, arm_cpu_templates[5])) {
        *out = transpose_cases;
        return sizeof transpose_cases / sizeof transpose_cases[0];
    }
    if (!strcmp(tmpl_name, arm_cpu_templates[4])) {
        *out = wino_cases;
        return sizeof wino_cases / sizeof wino_cases[0];
    }
    if (!strcmp(tmpl_name, arm_cpu_templates[0])) {
        *out = conv_cases;
        return sizeof conv_cases / sizeof conv_cases[0];
    }
    if (!strcmp(tmpl_name, arm_cpu_templates[1])) {
        *out = dw_cases;
        return sizeof dw_cases / sizeof dw_cases[0];
    }
    *out = dense_cases;
    return sizeof dense_cases / sizeof dense_cases[0];
}

/* Inputs: float32 uniform in [0, 1), int8 in [-128, 127], uint8 in [0, 255]. */
static void fill_random(at_ir_type t, void *p, int64_t n, at_rng *rng)
{
    for (int64_t k = 0; k < n; k++) {
        if (t.code == AT_IR_TFLOAT)
            ((float *)p)[k] = (float)at_rng_uniform(rng);
        else if (t.code == AT_IR_TINT)
            ((int8_t *)p)[k] = (int8_t)((int)at_rng_below(rng, 256) - 128);
        else
            ((uint8_t *)p)[k] = (uint8_t)at_rng_below(rng, 256);
    }
}

/* Outputs start as NaN (float32) or INT32_MIN (int32), so every element must be written. */
static void fill_unwritten(at_ir_type t, void *p, int64_t n)
{
    for (int64_t k = 0; k < n; k++) {
        if (t.code == AT_IR_TFLOAT)
            ((float *)p)[k] = NAN;
        else
            ((int32_t *)p)[k] = INT32_MIN;
    }
}

static double value(at_ir_type t, const void *p, int64_t k)
{
    return t.code == AT_IR_TFLOAT ? ((const float *)p)[k] : ((const int32_t *)p)[k];
}

bool arm_cpu_check_config(const at_task *t, const at_config *c, uint64_t seed, arm_cpu_exec_fn exec, void *ctx)
{
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    at_status st = at_task_instantiate(t, c, ar, &p);
    if (st == AT_EINVAL) {
        at_arena_free(ar);
        return false;
    }
    assert_ok(st);
    const at_args *a = at_task_args(t);
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    size_t n = at_op_tensors(a, d);
    assert_int_equal(n, at_ir_program_n_params(p));
    void *buf[AT_OP_MAX_TENSORS], *ref[AT_OP_MAX_TENSORS];
    const void *in[AT_OP_MAX_TENSORS];
    void *outs[AT_OP_MAX_TENSORS];
    size_t ni = 0, no = 0;
    at_rng rng;
    at_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        size_t bytes = (size_t)d[i].n_elems * (size_t)(d[i].dtype.bits / 8);
        buf[i] = at_calloc(1, bytes);
        ref[i] = at_calloc(1, bytes);
        assert_non_null(buf[i]);
        assert_non_null(ref[i]);
        if (d[i].is_output) {
            fill_unwritten(d[i].dtype, buf[i], d[i].n_elems);
            outs[no++] = ref[i];
        } else {
            fill_random(d[i].dtype, buf[i], d[i].n_elems, &rng);
            in[ni++] = buf[i];
        }
    }
    at_op_reference(a, in, outs);
    st = exec(p, buf, n, ctx);
    if (st != AT_OK) fail_msg("%s config %lld: %s", at_task_template(t)->name, (long long)at_config_index(c), at_last_error());
    for (size_t i = 0; i < n; i++) {
        if (!d[i].is_output) continue;
        bool exact = d[i].dtype.code != AT_IR_TFLOAT;
        for (int64_t k = 0; k < d[i].n_elems; k++) {
            double got = value(d[i].dtype, buf[i], k), want = value(d[i].dtype, ref[i], k);
            if (exact ? got != want : !(fabs(got - want) <= 1e-4 + 1e-4 * fabs(want)))
                fail_msg("%s config %lld: output %lld is %g, reference %g", at_task_template(t)->name,
                         (long long)at_config_index(c), (long long)k, got, want);
        }
    }
    for (size_t i = 0; i < n; i++) {
        at_free(buf[i]);
        at_free(ref[i]);
    }
    at_arena_free(ar);
    return true;
}

size_t arm_cpu_check_all(size_t n, uint64_t seed, arm_cpu_exec_fn exec, void *ctx)
{
    size_t ran = 0;
    at_rng rng;
    at_rng_seed(&rng, seed);
    for (size_t ti = 0; ti < ARM_CPU_N_TEMPLATES; ti++) {
        const char *const *cases;
        size_t nc = arm_cpu_cases(arm_cpu_templates[ti], &cases);
        for (size_t ci = 0; ci < nc; ci++) {
            at_task *t;
            assert_ok(at_task_create(arm_cpu_templates[ti], AT_TARGET_LLVM, cases[ci], &t));
            int64_t len = at_space_len(at_task_space(t));
            size_t ran_here = 0;
            for (size_t k = 0; k < n; k++) {
                at_config *c;
                assert_ok(at_task_config(t, (int64_t)at_rng_below(&rng, (uint64_t)len), &c));
                ran_here += arm_cpu_check_config(t, c, seed + k, exec, ctx);
                at_config_free(c);
            }
            at_config *fb;
            assert_ok(at_task_fallback_config(t, NULL, 0, &fb));
            assert_true(arm_cpu_check_config(t, fb, seed, exec, ctx)); /* the untuned config always runs */
            at_config_free(fb);
            ran += ran_here + 1;
            at_task_free(t);
        }
    }
    return ran;
}
