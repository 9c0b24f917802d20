/* Workloads and the reference check of the CPU-template conformance tests: seeded random inputs in
 * [0, 1), the op's naive reference as the oracle, one tolerance for float32 sums. */
#include "tests/support/test_support.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "tests/unit/test_arm_cpu_cases.h"

const char *const arm_cpu_templates[4] = {"conv2d_nchw_spatial_pack.arm_cpu", "depthwise_conv2d_nchw.arm_cpu",
                                          "dense_nopack.x86", "dense_pack.x86"};

#define T(shape) "[\"TENSOR\", " shape ", \"float32\"]"

static const char *const conv_cases[] = {
    "[" T("[1, 2, 8, 8]") ", " T("[8, 2, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
    "[" T("[2, 2, 9, 9]") ", " T("[6, 2, 3, 3]") ", [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"]",
    "[" T("[1, 2, 9, 9]") ", " T("[4, 2, 3, 3]") ", [1, 1], [2, 2, 2, 2], [2, 2], \"float32\"]",
    "[" T("[1, 4, 6, 6]") ", " T("[32, 4, 1, 1]") ", [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"]",
    "[" T("[1, 2, 7, 20]") ", " T("[4, 2, 1, 3]") ", [1, 1], [0, 1, 0, 1], [1, 1], \"float32\"]",
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

size_t arm_cpu_cases(const char *tmpl_name, const char *const **out)
{
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
        size_t bytes = (size_t)d[i].n_elems * sizeof(float);
        buf[i] = at_calloc(1, bytes);
        ref[i] = at_calloc(1, bytes);
        assert_non_null(buf[i]);
        assert_non_null(ref[i]);
        if (d[i].is_output) {
            for (int64_t k = 0; k < d[i].n_elems; k++) ((float *)buf[i])[k] = NAN; /* every element must be written */
            outs[no++] = ref[i];
        } else {
            for (int64_t k = 0; k < d[i].n_elems; k++) ((float *)buf[i])[k] = (float)at_rng_uniform(&rng);
            in[ni++] = buf[i];
        }
    }
    at_op_reference(a, in, outs);
    st = exec(p, buf, n, ctx);
    if (st != AT_OK) fail_msg("%s config %lld: %s", at_task_template(t)->name, (long long)at_config_index(c), at_last_error());
    for (size_t i = 0; i < n; i++) {
        if (!d[i].is_output) continue;
        for (int64_t k = 0; k < d[i].n_elems; k++) {
            double got = ((float *)buf[i])[k], want = ((float *)ref[i])[k];
            if (!(fabs(got - want) <= 1e-4 + 1e-4 * fabs(want)))
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
    for (size_t ti = 0; ti < 4; ti++) {
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
