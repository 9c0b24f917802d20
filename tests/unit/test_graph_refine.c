/* The graph tuner's refinement in the network (networks/graph_refine.c) and the program cache it
 * builds through (networks/prog_cache.c), on mobilenet with a 16 x 16 input:
 * - cached LLVM programs outlive the executor whose IR they were made from, a second network of
 *   the same plan compiles nothing and a plan one anchor apart compiles that anchor alone, and
 *   every network still computes the reference executor's output;
 * - on a device whose times are a fixed model of the programs (an anchor writing blocks of 8
 *   takes half the time of any other), the refinement ends where that model's optimum is -- every
 *   block 8, readers following, no transform added -- and a flat model keeps every pick;
 * - the graph tuner writes the refined configs the log does not hold as records of their
 *   workloads, which apply_graph_best reads back onto the same nodes. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "core/strbuf.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/graph_refine.h"
#include "networks/graph_tune.h"
#include "networks/net.h"
#include "networks/prog_cache.h"
#include "records/log.h"
#include "records/record.h"
#include "templates/template.h"
#include "tune/graph_tune.h"
#include "tune/llvm_backend.h"
#include "tests/unit/test_x86_cases.h"

typedef struct netfix {
    at_net       *net;
    at_net_tasks *ts;
    at_net_plan  *plan;
} netfix;

static bool packed_blocks_of(const netfix *f, const at_net_plan *plan, size_t i, int64_t *ic, int64_t *oc);

/* mobilenet 16 x 16, every anchor on a point of its space with its fallback's blocks: 4
 * throughout, the stem reading 3 channels (a fallback config is no point: index -1) */
static void netfix_setup(netfix *f)
{
    at_net_opts o = {.image_shape = {3, 16, 16}, .num_classes = 10, .params = true, .seed = 3};
    assert_ok(at_net_load("mobilenet", &o, &f->net));
    assert_ok(at_net_extract(f->net, AT_NET_TARGET_X86, AT_NET_OPS_ALL, &f->ts));
    assert_ok(at_net_plan_new(f->net, f->ts, at_net_dispatch_fallback, NULL, &f->plan));
    for (size_t i = 1; i < at_net_n_nodes(f->net); i++) {
        at_net_pick pick;
        int64_t ic, oc;
        if (!packed_blocks_of(f, f->plan, i, &ic, &oc)) continue;
        assert_true(at_net_plan_pick(f->plan, i, &pick));
        at_config *c = x86_config_with_blocks(at_net_tasks_at(f->ts, pick.task), ic, oc);
        assert_non_null(c);
        assert_ok(at_net_plan_set_pick(f->plan, i, c, 1e-3));
        at_config_free(c);
    }
}

static void netfix_teardown(netfix *f)
{
    at_net_plan_free(f->plan);
    at_net_tasks_free(f->ts);
    at_net_free(f->net);
}

static bool packed_blocks_of(const netfix *f, const at_net_plan *plan, size_t i, int64_t *ic, int64_t *oc)
{
    at_net_pick pick;
    if (!at_net_plan_pick(plan, i, &pick)) return false;
    const at_template *t = at_task_template(at_net_tasks_at(f->ts, pick.task));
    return t->schedule_packed && at_tmpl_packed_blocks(t, pick.config, ic, oc) == AT_OK;
}

/* Runs net under plan on be and compares every node (or, after buffer sharing, the output) with
 * the reference executor. */
static void expect_reference(const netfix *f, at_net_exec *e)
{
    int64_t n_in = at_net_node_numel(at_net_node_at(f->net, 0));
    float *x = at_malloc((size_t)n_in * sizeof *x);
    assert_non_null(x);
    at_rng rng;
    at_rng_seed(&rng, 5);
    for (int64_t i = 0; i < n_in; i++) x[i] = (float)(2 * at_rng_uniform(&rng) - 1);
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    at_net_check chk;
    assert_ok(at_net_exec_check(e, x, 1e-4, 1e-3, true, &chk));
    if (chk.n_bad) fail_msg("%zu values off, worst at node %zu", chk.n_bad, chk.node);
    at_free(x);
}

/* A config of node i's task with i's blocks and another point of the space (tile_ow, unroll_kw). */
static at_config *same_blocks_other_point(const netfix *f, size_t i)
{
    at_net_pick pick;
    assert_true(at_net_plan_pick(f->plan, i, &pick));
    const at_task *t = at_net_tasks_at(f->ts, pick.task);
    int64_t ic, oc;
    assert_true(packed_blocks_of(f, f->plan, i, &ic, &oc));
    for (int64_t k = 0; k < at_space_len(at_task_space(t)); k++) {
        at_config *c;
        if (at_task_config(t, k, &c) != AT_OK) continue;
        int64_t a, b;
        if (at_config_index(c) != at_config_index(pick.config) &&
            at_tmpl_packed_blocks(at_task_template(t), c, &a, &b) == AT_OK && a == ic && b == oc)
            return c;
        at_config_free(c);
    }
    return NULL;
}

static void cached_programs_should_be_shared_and_outlive_their_executor(void **state)
{
    (void)state;
    netfix f;
    netfix_setup(&f);
    at_llvm_pool *pool = NULL;
    at_status pst = at_tune_llvm_pool_new(1, &pool);
    if (pst == AT_EUNSUPPORTED) {
        netfix_teardown(&f);
        skip();
    }
    assert_ok(pst);
    at_net_prog_cache *cache;
    assert_ok(at_net_prog_cache_new(at_tune_llvm_backend(), pool, &cache));
    const at_net_backend_i *be = at_net_prog_cache_backend(cache);
    at_net_exec *a, *b, *c;
    assert_ok(at_net_exec_new(f.net, f.plan, be, cache, &a));
    size_t built = at_net_prog_cache_n_built(cache);
    assert_int_equal(built, at_net_exec_n_prepared(a));
    /* the same plan again: every program comes from the cache */
    assert_ok(at_net_exec_new(f.net, f.plan, be, cache, &b));
    assert_int_equal(at_net_prog_cache_n_built(cache), built);
    /* a's IR is gone with a; b runs the programs made from it */
    at_net_exec_free(a);
    expect_reference(&f, b);
    /* one anchor on another point of its space: that program alone is compiled */
    size_t node = 0;
    for (size_t i = 1; i < at_net_n_nodes(f.net) && !node; i++) {
        int64_t ic, oc;
        if (packed_blocks_of(&f, f.plan, i, &ic, &oc) && ic == 4) node = i;
    }
    assert_true(node > 0);
    at_config *other = same_blocks_other_point(&f, node);
    assert_non_null(other);
    assert_ok(at_net_plan_set_pick(f.plan, node, other, 1e-3));
    at_config_free(other);
    assert_ok(at_net_exec_new(f.net, f.plan, be, cache, &c));
    assert_int_equal(at_net_prog_cache_n_built(cache), built + 1);
    expect_reference(&f, c);
    at_net_exec_free(b);
    at_net_exec_free(c);
    at_net_prog_cache_free(cache);
    at_tune_llvm_pool_free(pool);
    netfix_teardown(&f);
}

/* ---- a device whose times are a model of the programs ------------------------------------------ */

typedef struct model_dev {
    bool   flat;    /* every program the same time */
    size_t n_runs;
} model_dev;

typedef struct model_prog {
    void  *inner; /* the interpreter's: buffers and builds are real, runs are not */
    double ms;
} model_prog;

/* An NCHW[x]c anchor takes 1 ms, or 0.5 ms when it writes blocks of 8 (its output loop runs over
 * 8 lanes); every other program (transforms, pooling, dense) 0.2 ms. */
static double model_ms(const model_dev *d, const at_ir_program *p)
{
    if (d->flat) return 1;
    if (!strstr(p->name, "NCHWc.x86")) return 0.2;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_ir_print(p, &sb);
    assert_false(sb.failed);
    double ms = 1.0;
    /* "for ocb.out in 0..8 vectorized", the loop name maybe with a #id after it */
    for (const char *at = strstr(sb.data, "for ocb.out"); at; at = strstr(at + 1, "for ocb.out")) {
        const char *eol = strchr(at, '\n');
        const char *hit = strstr(at, " in 0..8 vectorized");
        if (hit && (!eol || hit < eol)) ms = 0.5;
    }
    at_strbuf_fini(&sb);
    return ms;
}

static at_status m_buf_new(void *ctx, size_t bytes, void **buf)
{
    (void)ctx;
    return at_net_interp_backend()->buf_new(NULL, bytes, buf);
}

static void m_buf_free(void *ctx, void *buf)
{
    (void)ctx;
    at_net_interp_backend()->buf_free(NULL, buf);
}

static at_status m_buf_write(void *ctx, void *buf, const void *src)
{
    (void)ctx;
    return at_net_interp_backend()->buf_write(NULL, buf, src);
}

static at_status m_buf_read(void *ctx, void *buf, void *dst)
{
    (void)ctx;
    return at_net_interp_backend()->buf_read(NULL, buf, dst);
}

static at_status m_prog_new(void *ctx, const at_ir_program *p, void **out)
{
    model_prog *q = at_calloc(1, sizeof *q);
    assert_non_null(q);
    q->ms = model_ms(ctx, p);
    assert_ok(at_net_interp_backend()->prog_new(NULL, p, &q->inner));
    *out = q;
    return AT_OK;
}

static void m_prog_free(void *ctx, void *prog)
{
    (void)ctx;
    model_prog *q = prog;
    at_net_interp_backend()->prog_free(NULL, q->inner);
    at_free(q);
}

static at_status m_prog_run(void *ctx, void *prog, void *const *bufs, size_t n, bool skip_prepare, double *device_ms)
{
    (void)bufs, (void)n, (void)skip_prepare;
    ((model_dev *)ctx)->n_runs++;
    if (device_ms) *device_ms = ((model_prog *)prog)->ms;
    return AT_OK;
}

static const at_net_backend_i model_backend = {
    .name = "model",
    .buf_new = m_buf_new,
    .buf_free = m_buf_free,
    .buf_write = m_buf_write,
    .buf_read = m_buf_read,
    .prog_new = m_prog_new,
    .prog_free = m_prog_free,
    .prog_run = m_prog_run,
};

static size_t n_packed(const netfix *f)
{
    size_t n = 0;
    int64_t ic, oc;
    for (size_t i = 1; i < at_net_n_nodes(f->net); i++) n += packed_blocks_of(f, f->plan, i, &ic, &oc);
    return n;
}

static void refinement_should_reach_the_timed_optimum_with_readers_following(void **state)
{
    (void)state;
    netfix f;
    netfix_setup(&f);
    assert_int_equal(n_packed(&f), 27);
    model_dev dev = {0};
    at_net_refine_opts o = {.rounds = 3, .seed = 1};
    at_net_refine_result r;
    assert_ok(at_net_graph_refine(f.net, f.plan, &model_backend, &dev, &o, &r));
    /* every anchor writes 8 and its readers read 8: the stem still reads the 3 input channels */
    bool stem = true;
    for (size_t i = 1; i < at_net_n_nodes(f.net); i++) {
        int64_t ic, oc;
        if (!packed_blocks_of(&f, f.plan, i, &ic, &oc)) continue;
        assert_int_equal(oc, 8);
        assert_int_equal(ic, stem ? 3 : 8);
        stem = false;
    }
    /* sweep 1 keeps each anchor's doubling (27 moves); sweep 2 keeps nothing and ends */
    assert_int_equal(r.n_kept, 27);
    assert_int_equal(r.n_changed, 27);
    assert_int_equal(r.n_early, 0); /* 3 rounds: fewer than it takes to give a move up */
    /* 27 anchors at 1 ms, then at 0.5 ms; the other programs' times are the same in both */
    assert_true(fabs(r.before_ms - r.after_ms - 27 * 0.5) < 1e-9);
    for (size_t i = 1; i < at_net_n_nodes(f.net); i++) {
        int64_t ic, oc;
        if (packed_blocks_of(&f, f.plan, i, &ic, &oc)) assert_true(fabs(r.node_ms[i] - 0.5) < 1e-12);
    }
    size_t copies;
    assert_ok(at_net_graph_count_copies(f.net, f.plan, &copies));
    assert_int_equal(copies, 1); /* the input's packing into blocks of 3 */
    at_net_refine_result_fini(&r);
    at_net_exec *e;
    assert_ok(at_net_exec_new(f.net, f.plan, at_net_interp_backend(), NULL, &e));
    expect_reference(&f, e);
    at_net_exec_free(e);
    netfix_teardown(&f);
}

static void refinement_should_keep_every_pick_when_nothing_runs_faster(void **state)
{
    (void)state;
    netfix f;
    netfix_setup(&f);
    size_t nn = at_net_n_nodes(f.net);
    int64_t *before = at_calloc(nn, sizeof *before);
    assert_non_null(before);
    for (size_t i = 1; i < nn; i++) {
        at_net_pick pick;
        if (at_net_plan_pick(f.plan, i, &pick)) before[i] = at_config_index(pick.config);
    }
    model_dev dev = {.flat = true};
    at_net_refine_opts o = {.rounds = 15, .seed = 1};
    at_net_refine_result r;
    assert_ok(at_net_graph_refine(f.net, f.plan, &model_backend, &dev, &o, &r));
    assert_int_equal(r.n_kept, 0);
    assert_int_equal(r.n_changed, 0);
    assert_true(r.n_tried > 27); /* each anchor's doubling and halving at least */
    /* every move ties: each is given up after 5 of its 15 rounds */
    assert_int_equal(r.n_early, r.n_tried);
    assert_true(dev.n_runs > 0);
    for (size_t i = 1; i < nn; i++) {
        at_net_pick pick;
        if (at_net_plan_pick(f.plan, i, &pick)) assert_int_equal(at_config_index(pick.config), before[i]);
    }
    at_net_refine_result_fini(&r);
    at_free(before);
    netfix_teardown(&f);
}

/* A record of node i's pick, as a tuning log holds it. */
static void append_pick_record(at_strbuf *sb, const netfix *f, size_t i)
{
    at_net_pick pick;
    assert_true(at_net_plan_pick(f->plan, i, &pick));
    const at_task *t = at_net_tasks_at(f->ts, pick.task);
    double cost = 1e-3;
    at_result res = {.err = AT_MEAS_OK, .n_costs = 1, .costs_s = &cost, .all_cost_s = 1, .timestamp = 1.7e9};
    at_rec r;
    assert_ok(at_rec_make("llvm -keys=cpu", at_task_template(t)->name, at_net_tasks_args_json(f->ts, pick.task),
                          pick.config, &res, &r));
    at_rec_write(&r, sb);
    at_strbuf_putc(sb, '\n');
    at_rec_fini(&r);
}

static void graph_log_should_hold_the_refined_configs_the_log_lacked(void **state)
{
    (void)state;
    netfix f;
    netfix_setup(&f);
    /* the log: every packed task's pick (blocks 4), measured */
    at_strbuf sb;
    at_strbuf_init(&sb);
    size_t nn = at_net_n_nodes(f.net);
    bool *seen = at_calloc(at_net_tasks_count(f.ts) + 1, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 1; i < nn; i++) {
        at_net_pick pick;
        int64_t ic, oc;
        if (!packed_blocks_of(&f, f.plan, i, &ic, &oc) || !at_net_plan_pick(f.plan, i, &pick) || seen[pick.task])
            continue;
        seen[pick.task] = true;
        append_pick_record(&sb, &f, i);
    }
    at_free(seen);
    char dir[] = "/tmp/test_graph_refine_XXXXXX", recs[64], out[64];
    assert_non_null(mkdtemp(dir));
    snprintf(recs, sizeof recs, "%s/tuning.log", dir);
    snprintf(out, sizeof out, "%s/graph_opt.log", dir);
    assert_ok(at_rec_write_file_atomic(recs, sb.data, sb.len));
    at_strbuf_fini(&sb);
    /* the plan is what apply_history_best makes from that log: every pick tuned, at its record */
    model_dev dev = {0};
    at_tune_graph_result r;
    at_net_refine_opts o = {.rounds = 3, .seed = 1};
    assert_ok(at_tune_graph_tune(f.net, f.plan, recs, 0, &model_backend, &dev, &o, out, &r));
    assert_true(r.refined);
    assert_int_equal(r.choice.n_tuned, 27);
    assert_int_equal(r.refine.n_changed, 27);
    assert_null(r.refine.node_ms);
    assert_int_equal(r.n_records, 27);
    assert_int_equal(r.n_made, 27); /* no block-8 config was in the log */
    at_rec_log *opt;
    assert_ok(at_rec_log_load_file(out, &opt));
    assert_int_equal(opt->n, 27);
    size_t k = 0;
    for (size_t i = 1; i < nn; i++) {
        at_net_pick pick;
        int64_t ic, oc;
        if (!packed_blocks_of(&f, f.plan, i, &ic, &oc)) continue;
        assert_true(at_net_plan_pick(f.plan, i, &pick));
        const at_rec *x = &opt->recs[k++];
        assert_string_equal(x->task_name, at_task_template(at_net_tasks_at(f.ts, pick.task))->name);
        assert_string_equal(x->args_json, at_net_tasks_args_json(f.ts, pick.task));
        assert_string_equal(x->target_str, "llvm -keys=cpu");
        assert_int_equal(at_config_index(x->config), at_config_index(pick.config));
        assert_true(at_config_equal(x->config, pick.config));
        /* its cost: the anchor's time in the network, 0.5 ms on the model */
        assert_true(fabs(at_rec_cost(x) - 0.5e-3) < 1e-15);
    }
    /* apply_graph_best on a fallback plan sets the refined configs, node by node */
    at_net_plan *fresh;
    assert_ok(at_net_plan_new(f.net, f.ts, at_net_dispatch_fallback, NULL, &fresh));
    size_t applied;
    assert_ok(at_tune_graph_apply(f.net, fresh, out, &applied));
    assert_int_equal(applied, 27);
    for (size_t i = 1; i < nn; i++) {
        at_net_pick a, b;
        if (!at_net_plan_pick(f.plan, i, &a)) continue;
        assert_true(at_net_plan_pick(fresh, i, &b));
        assert_int_equal(at_config_index(a.config), at_config_index(b.config));
    }
    at_net_plan_free(fresh);
    at_rec_log_free(opt);
    remove(recs);
    remove(out);
    rmdir(dir);
    netfix_teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cached_programs_should_be_shared_and_outlive_their_executor),
        cmocka_unit_test(refinement_should_reach_the_timed_optimum_with_readers_following),
        cmocka_unit_test(refinement_should_keep_every_pick_when_nothing_runs_faster),
        cmocka_unit_test(graph_log_should_hold_the_refined_configs_the_log_lacked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
