/* Mali templates on the IR interpreter (no device): every Mali template of the registry on tiny
 * workloads with a seeded sample of configs, and every TopHub config of 25 sampled real workloads
 * on shrunk copies of them (mali_cases.h), instantiate + verify + interpret and match the op's
 * reference: max relative error 1e-4 (Winograd 1e-3). Plus golden OpenCL text for one config per
 * template (tests/golden/opencl/, regenerate with AT_UPDATE_GOLDEN=1). */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"
#include "core/strbuf.h"
#include "templates/template.h"
#include "tests/support/test_op_data.h"
#include "tests/unit/mali_cases.h"

static bool is_mali(const at_template *t)
{
    size_t n = strlen(t->name);
    return n > 5 && !strcmp(t->name + n - 5, ".mali");
}

/* Random inputs in [0, 1) and the reference outputs; every Mali workload is float32. */
static void data_init(at_test_data *dt, const at_args *a, uint64_t seed)
{
    at_test_data_init(dt, a, seed, AT_TEST_FILL_UNIT);
    for (size_t i = 0; i < dt->n; i++) assert_true(at_ir_type_eq(dt->d[i].dtype, AT_IR_F32));
}

/* Interprets config index of task t on dt; returns false when the config does not instantiate
 * (AT_EINVAL), else checks the output (1e-3 floor) and tracks the worst error. */
static bool run_config(const at_task *t, int64_t index, at_test_data *dt, double tol, double *worst, const char *what)
{
    at_config *c;
    assert_ok(at_task_config(t, index, &c));
    char name[256];
    snprintf(name, sizeof name, "%s config %lld", what, (long long)index);
    bool ok = at_test_data_run_config(t, c, dt, true, name);
    if (ok) {
        double e = at_test_data_check(dt, 1e-3, tol, name);
        if (e > *worst) *worst = e;
    }
    at_config_free(c);
    return ok;
}

static double tolerance(const at_template *t)
{
    return t->op == AT_OP_CONV2D_NCHW_WINOGRAD ? 1e-3 : 1e-4;
}

static void sampled_configs_should_match_the_reference_on_tiny_workloads(void **state)
{
    (void)state;
    size_t n_templates = 0;
    for (size_t ti = 0; ti < at_tmpl_count(); ti++) {
        const at_template *tm = at_tmpl_at(ti);
        if (!is_mali(tm)) continue;
        n_templates++;
        at_args args[8];
        size_t n_args = mali_tiny_args(tm, args, 8);
        assert_true(n_args >= 3);
        size_t n_ok = 0, n_rejected = 0;
        double worst = 0;
        for (size_t ai = 0; ai < n_args; ai++) {
            at_task *t;
            assert_ok(at_task_new(tm, &args[ai], &t));
            const at_space *sp = at_task_space(t);
            int64_t len = at_space_len(sp);
            size_t m = len < 10 ? (size_t)len : 10;
            int64_t idx[10];
            at_rng rng;
            at_rng_seed(&rng, 1000 + ti * 10 + ai);
            assert_ok(at_space_sample_ints(sp, &rng, m, idx));
            at_test_data dt;
            data_init(&dt, &args[ai], 7 + ai);
            for (size_t k = 0; k < m; k++) {
                if (run_config(t, idx[k], &dt, tolerance(tm), &worst, tm->name))
                    n_ok++;
                else
                    n_rejected++;
            }
            /* the fallback config (entity 0 and the template's own choice) runs too */
            at_config *fb;
            assert_ok(at_task_fallback_config(t, NULL, 0, &fb));
            at_config_free(fb);
            at_test_data_fini(&dt);
            at_task_free(t);
        }
        print_message("%-32s %zu configs checked, %zu rejected at instantiation, max rel err %.3g\n", tm->name, n_ok,
                      n_rejected, worst);
        assert_true(n_ok >= 2 * n_args);
    }
    assert_true(n_templates > 0); /* every .mali row of the registry, whatever their number */
}

static void tophub_configs_should_match_the_reference_on_shrunk_workloads(void **state)
{
    (void)state;
    mali_case *cases;
    size_t n;
    mali_tophub_cases(7, &cases, &n);
    /* 7 workloads of each conv template and every dense one, a record or two each */
    assert_true(n >= 24);
    size_t per[4] = {0}, workloads = 0;
    double worst[4] = {0};
    for (size_t i = 0; i < n; i++) {
        mali_case *c = &cases[i];
        at_task *t;
        assert_ok(at_task_new(c->tmpl, &c->shrunk, &t));
        int64_t index = mali_config_index(t, c->config);
        at_test_data dt;
        data_init(&dt, &c->shrunk, 100 + i);
        char what[160];
        snprintf(what, sizeof what, "%s (mali_v0.06.log line %zu, shrunk)", c->tmpl->name, c->line);
        int k = c->tmpl->op == AT_OP_CONV2D_NCHW ? 0 : c->tmpl->op == AT_OP_CONV2D_NCHW_WINOGRAD ? 1
              : c->tmpl->op == AT_OP_DEPTHWISE_CONV2D_NCHW ? 2 : 3;
        if (!run_config(t, index, &dt, tolerance(c->tmpl), &worst[k], what)) {
            print_error("%s: config %lld does not instantiate: %s\n", what, (long long)index, at_last_error());
            fail();
        }
        per[k]++;
        if (i == 0 || cases[i - 1].workload != c->workload) workloads++;
        at_test_data_fini(&dt);
        at_task_free(t);
    }
    print_message("TopHub configs: spatial pack %zu (max rel err %.3g), winograd %zu (%.3g), depthwise %zu (%.3g), "
                  "dense %zu (%.3g), %zu workloads\n", per[0], worst[0], per[1], worst[1], per[2], worst[2], per[3], worst[3],
                  workloads);
    assert_true(workloads >= 20);
    for (int k = 0; k < 4; k++) assert_true(per[k] >= 4);
    mali_cases_free(cases, n);
}

/* The OpenCL text of one TopHub config per template, on its real workload (spec 1.8 - 1.11). */
static void tophub_configs_should_emit_the_golden_opencl(void **state)
{
    (void)state;
    static const struct {
        const char *tmpl, *args, *file;
        int64_t     index;
    } cases[] = {
        {"conv2d_nchw_spatial_pack.mali",
         "[[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [128, 64, 3, 3], \"float32\"], [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"]",
         "opencl/conv2d_nchw_spatial_pack_mali_resnet18_c5.cl", 1255196},
        {"conv2d_nchw_winograd.mali",
         "[[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [64, 64, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
         "opencl/conv2d_nchw_winograd_mali_resnet18_c3.cl", 18786},
        {"depthwise_conv2d_nchw.mali",
         "[[\"TENSOR\", [1, 32, 112, 112], \"float32\"], [\"TENSOR\", [32, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
         "opencl/depthwise_conv2d_nchw_mali_mobilenet_c2.cl", 418680},
        {"dense.mali", "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"]",
         "opencl/dense_mali_resnet18.cl", 403},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_task *t;
        assert_ok(at_task_create(cases[i].tmpl, AT_TARGET_OPENCL, cases[i].args, &t));
        at_config *c;
        assert_ok(at_task_config(t, cases[i].index, &c));
        at_arena *ar;
        assert_ok(at_arena_new(0, &ar));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, c, ar, &p));
        /* the weight-layout stages TVM feeds as placeholders while tuning are preparation kernels */
        size_t n_prepare = 0;
        for (size_t k = 0; k < p->n_kernels; k++) n_prepare += p->kernels[k].prepare;
        bool packs = at_task_template(t)->op == AT_OP_CONV2D_NCHW || at_task_template(t)->op == AT_OP_CONV2D_NCHW_WINOGRAD;
        assert_int_equal(n_prepare, packs ? 1 : 0);
        assert_true(!packs || p->kernels[0].prepare);
        at_ocl_code code;
        assert_ok(at_ocl_emit(p, &code));
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_strbuf_printf(&sb, "// %s %s config %lld\n", cases[i].tmpl, cases[i].args, (long long)cases[i].index);
        for (size_t k = 0; k < code.n_kernels; k++)
            at_strbuf_printf(&sb, "// kernel %s: global %zu %zu %zu, local %zu %zu %zu\n", code.kernels[k].name,
                             code.kernels[k].gws[0], code.kernels[k].gws[1], code.kernels[k].gws[2], code.kernels[k].lws[0],
                             code.kernels[k].lws[1], code.kernels[k].lws[2]);
        at_strbuf_puts(&sb, code.source);
        at_test_check_golden(cases[i].file, at_strbuf_cstr(&sb));
        at_strbuf_fini(&sb);
        at_ocl_code_fini(&code);
        at_arena_free(ar);
        at_config_free(c);
        at_task_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampled_configs_should_match_the_reference_on_tiny_workloads),
        cmocka_unit_test(tophub_configs_should_match_the_reference_on_shrunk_workloads),
        cmocka_unit_test(tophub_configs_should_emit_the_golden_opencl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
