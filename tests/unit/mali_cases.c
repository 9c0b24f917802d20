/* Shared Mali test cases (mali_cases.h): tiny workloads and TopHub records with shrunk workloads. */
#include "tests/unit/mali_cases.h"

#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "records/log.h"
#include "tests/support/test_op_examples.h"
#include "tests/support/test_support.h"

static void parse(at_op_kind op, const char *text, at_args *out)
{
    at_status st = at_op_args_parse(op, text, out);
    if (st != AT_OK) print_error("%s: %s\n", text, at_last_error());
    assert_ok(st);
}

size_t mali_tiny_args(const at_template *t, at_args *out, size_t max)
{
    return test_op_examples(t->op, false, out, max);
}

static int64_t inner(const at_config *c, const char *name, size_t from)
{
    const at_entity *e = at_config_find(c, name);
    assert_non_null(e);
    int64_t p = 1;
    for (size_t i = from; i < e->n; i++) p *= e->ints[i];
    return p;
}

static int64_t lcm(int64_t a, int64_t b)
{
    int64_t x = a, y = b;
    while (y) {
        int64_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

/* Input extent giving `out` outputs along an axis (TVM's OH formula inverted), at least 1. */
static int64_t in_extent(int64_t out, int64_t stride, int64_t kd, int64_t pad)
{
    int64_t v = (out - 1) * stride + kd - pad;
    return v < 1 ? 1 : v;
}

/* A small workload the config still applies to (mali_cases.h). */
static void shrink(const at_template *t, const at_args *real, const at_config *c, at_args *out)
{
    *out = *real;
    if (t->op == AT_OP_DENSE) {
        at_dense_args *d = &out->u.dense;
        d->m = inner(c, "tile_y", 1);
        d->n = inner(c, "tile_x", 1);
        d->k = inner(c, "c_unroll", 1) * 2;
        return;
    }
    at_conv2d_args *a = &out->u.conv2d;
    at_conv2d_geom g;
    at_op_conv2d_geom(real->op, &real->u.conv2d, &g);
    int64_t oh, ow;
    if (t->op == AT_OP_CONV2D_NCHW_WINOGRAD) {
        int64_t co = lcm(at_config_find(c, "tile_bna")->val.i, inner(c, "tile_t2", 1));
        int64_t ci = lcm(inner(c, "tile_t1", 1), inner(c, "c_unroll", 1));
        a->kernel[0] = co;
        a->kernel[1] = a->data[1] = ci;
        /* keep the tile size m (input height mod 4) and make the width ragged */
        a->data[2] = g.ih % 4 == 0 ? 4 : 6;
        a->data[3] = a->data[2] == 4 ? 6 : 5;
        return;
    }
    if (t->op == AT_OP_DEPTHWISE_CONV2D_NCHW) {
        int64_t cc = inner(c, "tile_c", 1);
        assert_int_equal(cc % g.mult, 0);
        a->data[1] = a->kernel[0] = cc / g.mult;
        oh = inner(c, "tile_y", 1);
        ow = inner(c, "tile_x", 1);
    } else {
        a->kernel[0] = inner(c, "tile_co", 1);
        a->data[1] = a->kernel[1] = g.ci < 3 ? g.ci : 3; /* the reduction extent is no knob */
        oh = inner(c, "tile_oh", 1);
        ow = inner(c, "tile_ow", 1);
    }
    a->data[2] = in_extent(oh, g.sh, g.khd, g.pt + g.pb);
    a->data[3] = in_extent(ow, g.sw, g.kwd, g.pl + g.pr);
    at_conv2d_geom s;
    at_op_conv2d_geom(out->op, a, &s);
    assert_int_equal(s.oh, oh);
    assert_int_equal(s.ow, ow);
}

/* The record's config with every split's first size replaced by -1 (the real outer extent the
 * old logs store would not fit the shrunk workload). */
static at_config *normalized(const at_config *c)
{
    at_config *out;
    assert_ok(at_config_new(at_config_index(c), NULL, &out));
    for (size_t i = 0; i < at_config_len(c); i++) {
        const at_entity *e = at_config_at(c, i);
        if (e->kind == AT_KNOB_SPLIT) {
            int64_t sizes[8];
            assert_true(e->n <= 8);
            memcpy(sizes, e->ints, e->n * sizeof *sizes);
            sizes[0] = -1;
            assert_ok(at_config_add_split(out, e->name, sizes, e->n));
        } else {
            assert_ok(at_config_add_entity(out, e));
        }
    }
    return out;
}

void mali_tophub_cases(size_t per_template, mali_case **out, size_t *n_out)
{
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(at_test_shared_path("data/tophub/mali_v0.06.log"), &log));
    assert_int_equal(log->n, 528);
    mali_case *cases = at_calloc(log->n, sizeof *cases);
    size_t n = 0, n_workloads = 0;
    static const char *const names[] = {"conv2d_nchw_spatial_pack.mali", "conv2d_nchw_winograd.mali",
                                        "depthwise_conv2d_nchw.mali", "dense.mali"};
    for (size_t k = 0; k < 4; k++) {
        const at_template *t = at_tmpl_find(names[k], AT_TARGET_OPENCL);
        assert_non_null(t);
        /* the distinct float32 workloads of this template, in file order */
        const char *wk[512];
        size_t n_wk = 0;
        for (size_t i = 0; i < log->n; i++) {
            const at_rec *r = &log->recs[i];
            if (strcmp(r->task_name, names[k]) != 0 || strstr(r->args_json, "float16")) continue;
            bool seen = false;
            for (size_t j = 0; j < n_wk && !seen; j++) seen = !strcmp(wk[j], r->args_json);
            if (!seen) wk[n_wk++] = r->args_json;
        }
        assert_true(n_wk >= 3);
        size_t take = per_template < n_wk ? per_template : n_wk;
        for (size_t s = 0; s < take; s++) {
            const char *pick = wk[s * n_wk / take];
            size_t w = n_workloads++;
            for (size_t i = 0; i < log->n; i++) {
                const at_rec *r = &log->recs[i];
                if (strcmp(r->task_name, names[k]) != 0 || strcmp(r->args_json, pick) != 0) continue;
                mali_case *c = &cases[n++];
                c->tmpl = t;
                c->line = r->line;
                c->workload = w;
                parse(t->op, r->args_json, &c->real);
                c->config = normalized(r->config);
                shrink(t, &c->real, c->config, &c->shrunk);
            }
        }
    }
    at_rec_log_free(log);
    *out = cases;
    *n_out = n;
}

void mali_cases_free(mali_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) at_config_free(cases[i].config);
    at_free(cases);
}

int64_t mali_config_index(const at_task *t, const at_config *c)
{
    int64_t index;
    at_status st = at_space_index_of(at_task_space(t), c, &index);
    if (st != AT_OK) print_error("config does not map: %s\n", at_last_error());
    assert_ok(st);
    return index;
}
