/* Workloads and checkers of the x86 NCHWc conformance tests (tests/unit/test_x86_cases.h). */
#include "tests/support/test_support.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "tests/unit/test_x86_cases.h"

const char *const x86_templates[2] = {"conv2d_NCHWc.x86", "depthwise_conv2d_NCHWc.x86"};

static const char *const conv_cases[] = {
    "1,8,8,8,8,3,3,1,1",    /* padded 3x3 */
    "2,4,9,9,6,3,3,2,1",    /* batch 2, stride 2, 5 columns: tile_ow tails */
    "1,32,6,6,32,1,1,1,0",  /* 1x1: blocks of 32 lanes, tile_oh 2 on 6 rows */
    "1,8,7,7,4,1,1,1,0",    /* 1x1, 7 rows: tile_oh 2 leaves a tail */
    "1,4,9,9,8,3,3,1,2,2",  /* dilation 2 */
    "1,3,12,12,8,7,7,2,3",  /* the 7x7 stem, 3 input channels */
};
static const char *const dw_cases[] = {
    "1,8,8,8,1,3,3,1,1",
    "2,4,9,9,1,3,3,2,1",   /* batch 2, stride 2 */
    "1,32,5,6,1,3,3,1,1",  /* 32 lanes, ic_bn != oc_bn */
    "1,6,7,7,1,3,3,1,0",   /* no padding */
};

char *x86_packed_text(const at_task *t, const at_config *c, x86_print_fn print, void *ctx)
{
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_task_instantiate_packed(t, c, NULL, ar, &p));
    at_strbuf sb;
    at_strbuf_init(&sb);
    assert_ok(print(p, ctx, &sb));
    char *text = at_strbuf_take(&sb);
    assert_non_null(text);
    at_strbuf_fini(&sb);
    at_arena_free(ar);
    return text;
}

at_config *x86_config_with_blocks(const at_task *t, int64_t ic_bn, int64_t oc_bn)
{
    for (int64_t k = 0; k < at_space_len(at_task_space(t)); k++) {
        at_config *c;
        if (at_task_config(t, k, &c) != AT_OK) continue;
        int64_t ic, oc;
        if (at_tmpl_packed_blocks(at_task_template(t), c, &ic, &oc) == AT_OK && ic == ic_bn && oc == oc_bn) return c;
        at_config_free(c);
    }
    return NULL;
}

size_t x86_cases(size_t i, const char *const **out)
{
    AT_ASSERT(i < 2);
    *out = i == 0 ? conv_cases : dw_cases;
    return i == 0 ? sizeof conv_cases / sizeof *conv_cases : sizeof dw_cases / sizeof *dw_cases;
}

bool x86_check_packed(const at_task *t, const at_config *c, uint64_t seed, arm_cpu_exec_fn exec, void *ctx)
{
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    at_status st = at_task_instantiate_packed(t, c, NULL, ar, &p);
    if (st == AT_EINVAL) {
        at_arena_free(ar);
        return false;
    }
    assert_ok(st);
    int64_t ic_bn, oc_bn;
    assert_ok(at_tmpl_packed_blocks(at_task_template(t), c, &ic_bn, &oc_bn));
    const at_args *a = at_task_args(t);
    at_tensor_desc d[3];
    assert_int_equal(at_op_tensors(a, d), 3);
    float *data = at_calloc((size_t)d[0].n_elems, 4), *kernel = at_calloc((size_t)d[1].n_elems, 4);
    float *ref = at_calloc((size_t)d[2].n_elems, 4), *packed_in = at_calloc((size_t)d[0].n_elems, 4);
    float *packed_out = at_calloc((size_t)d[2].n_elems, 4);
    assert_true(data && kernel && ref && packed_in && packed_out);
    at_rng rng;
    at_rng_seed(&rng, seed);
    for (int64_t k = 0; k < d[0].n_elems; k++) data[k] = (float)at_rng_uniform(&rng);
    for (int64_t k = 0; k < d[1].n_elems; k++) kernel[k] = (float)at_rng_uniform(&rng);
    for (int64_t k = 0; k < d[2].n_elems; k++) packed_out[k] = NAN;
    const void *in[2] = {data, kernel};
    void *outs[1] = {ref};
    at_op_reference(a, in, outs);
    /* NCHW -> NCHW[bn]c */
    const int64_t *ds = d[0].shape, *os = d[2].shape;
    for (int64_t n = 0; n < ds[0]; n++)
        for (int64_t ch = 0; ch < ds[1]; ch++)
            for (int64_t hw = 0; hw < ds[2] * ds[3]; hw++)
                packed_in[((n * (ds[1] / ic_bn) + ch / ic_bn) * ds[2] * ds[3] + hw) * ic_bn + ch % ic_bn] =
                    data[(n * ds[1] + ch) * ds[2] * ds[3] + hw];
    void *bufs[3] = {packed_in, kernel, packed_out};
    st = exec(p, bufs, 3, ctx);
    if (st != AT_OK) fail_msg("%s config %lld (packed): %s", at_task_template(t)->name, (long long)at_config_index(c), at_last_error());
    for (int64_t n = 0; n < os[0]; n++)
        for (int64_t ch = 0; ch < os[1]; ch++)
            for (int64_t hw = 0; hw < os[2] * os[3]; hw++) {
                double got = packed_out[((n * (os[1] / oc_bn) + ch / oc_bn) * os[2] * os[3] + hw) * oc_bn + ch % oc_bn];
                double want = ref[(n * os[1] + ch) * os[2] * os[3] + hw];
                if (!(fabs(got - want) <= 1e-4 + 1e-4 * fabs(want)))
                    fail_msg("%s config %lld (packed): output [%lld, %lld, %lld] is %g, reference %g", at_task_template(t)->name,
                             (long long)at_config_index(c), (long long)n, (long long)ch, (long long)hw, got, want);
            }
    at_free(data);
    at_free(kernel);
    at_free(ref);
    at_free(packed_in);
    at_free(packed_out);
    at_arena_free(ar);
    return true;
}

size_t x86_check_all(size_t n, uint64_t seed, arm_cpu_exec_fn exec, void *ctx)
{
    size_t ran = 0;
    at_rng rng;
    at_rng_seed(&rng, seed);
    for (size_t ti = 0; ti < 2; ti++) {
        const char *const *cases;
        size_t nc = x86_cases(ti, &cases);
        for (size_t ci = 0; ci < nc; ci++) {
            at_task *t;
            assert_ok(at_task_create(x86_templates[ti], AT_TARGET_LLVM, cases[ci], &t));
            int64_t len = at_space_len(at_task_space(t));
            for (size_t k = 0; k < n; k++) {
                at_config *c;
                assert_ok(at_task_config(t, (int64_t)at_rng_below(&rng, (uint64_t)len), &c));
                bool a = arm_cpu_check_config(t, c, seed + k, exec, ctx);
                bool b = x86_check_packed(t, c, seed + k, exec, ctx);
                assert_int_equal(a, b); /* one schedule, two layouts */
                ran += a;
                at_config_free(c);
            }
            at_config *fb;
            assert_ok(at_task_fallback_config(t, NULL, 0, &fb));
            assert_true(arm_cpu_check_config(t, fb, seed, exec, ctx));
            assert_true(x86_check_packed(t, fb, seed, exec, ctx));
            at_config_free(fb);
            ran++;
            at_task_free(t);
        }
    }
    return ran;
}
