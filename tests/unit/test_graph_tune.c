/* The graph tuner (networks/graph_tune.c): its model of the layout transforms agrees with what the
 * executor builds, the choice it makes on mobilenet's chain of NCHW[x]c convolutions is the
 * cheapest one for the costs given (worked out below), and the network it sets up still computes
 * the reference executor's output, every node (IR interpreter, 16 x 16 input). */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/graph_tune.h"
#include "networks/net.h"
#include "records/log.h"
#include "records/record.h"
#include "templates/template.h"
#include "tune/graph_tune.h"
#include "tests/unit/test_x86_cases.h"

enum { MAX_NODES = 256 };

static at_status half_ms_per_copy(void *ctx, const at_net_node *n, int64_t from, int64_t to, double *cost_s)
{
    (void)n;
    size_t *asked = ctx;
    (*asked)++;
    assert_true(from != to);
    *cost_s = 0.5e-3;
    return AT_OK;
}

typedef struct fixture {
    at_net       *net;
    at_net_tasks *ts;
    at_net_plan  *plan;
    at_config    *own[MAX_NODES][2];
    at_net_gt_cand cand[MAX_NODES][2];
    const at_net_gt_cand *cands[MAX_NODES];
    size_t        n_cands[MAX_NODES];
    size_t        n_packed;
} fixture;

/* mobilenet on fallback picks (blocks 4 throughout); every packed anchor after the first gets two
 * candidates: a cheaper one (1.0 ms) with blocks 8 on even anchors and 2 on odd ones -- no two
 * neighbours agree -- and its fallback blocks (4, 4) at 1.1 ms. */
static void setup_fixture(fixture *f)
{
    at_net_opts o = {.image_shape = {3, 16, 16}, .num_classes = 10, .params = true, .seed = 3};
    assert_ok(at_net_load("mobilenet", &o, &f->net));
    assert_ok(at_net_extract(f->net, AT_NET_TARGET_X86, AT_NET_OPS_ALL, &f->ts));
    assert_ok(at_net_plan_new(f->net, f->ts, at_net_dispatch_fallback, NULL, &f->plan));
    size_t nn = at_net_n_nodes(f->net);
    assert_true(nn <= MAX_NODES);
    bool first = true;
    for (size_t i = 1; i < nn; i++) {
        at_net_pick pick;
        if (!at_net_plan_pick(f->plan, i, &pick)) continue;
        const at_task *t = at_net_tasks_at(f->ts, pick.task);
        if (!at_task_template(t)->schedule_packed) continue;
        if (first) { /* the stem reads 3 channels: left as it is */
            first = false;
            continue;
        }
        int64_t b = f->n_packed % 2 ? 2 : 8;
        f->own[i][0] = x86_config_with_blocks(t, b, b);
        f->own[i][1] = x86_config_with_blocks(t, 4, 4);
        assert_non_null(f->own[i][0]);
        assert_non_null(f->own[i][1]);
        f->cand[i][0] = (at_net_gt_cand){f->own[i][0], 1.0e-3, b, b};
        f->cand[i][1] = (at_net_gt_cand){f->own[i][1], 1.1e-3, 4, 4};
        f->cands[i] = f->cand[i];
        f->n_cands[i] = 2;
        f->n_packed++;
    }
}

static void teardown_fixture(fixture *f)
{
    for (size_t i = 0; i < MAX_NODES; i++) {
        at_config_free(f->own[i][0]);
        at_config_free(f->own[i][1]);
    }
    at_net_plan_free(f->plan);
    at_net_tasks_free(f->ts);
    at_net_free(f->net);
}

static void check_network(fixture *f, size_t want_copies)
{
    at_net_exec *e;
    assert_ok(at_net_exec_new(f->net, f->plan, at_net_interp_backend(), NULL, &e));
    size_t modelled;
    assert_ok(at_net_graph_count_copies(f->net, f->plan, &modelled));
    assert_int_equal(at_net_exec_n_layout_copies(e), want_copies);
    assert_int_equal(modelled, want_copies);
    int64_t n_in = at_net_node_numel(at_net_node_at(f->net, 0));
    float *x = at_malloc((size_t)n_in * sizeof *x);
    assert_non_null(x);
    at_rng rng;
    at_rng_seed(&rng, 11);
    for (int64_t i = 0; i < n_in; i++) x[i] = (float)at_rng_uniform(&rng);
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    at_net_check chk;
    assert_ok(at_net_exec_check(e, x, 1e-4, 1e-3, true, &chk));
    if (chk.n_bad) fail_msg("%zu values off, worst at node %zu", chk.n_bad, chk.node);
    at_free(x);
    at_net_exec_free(e);
}

static void graph_tuner_should_trade_kernel_time_for_fewer_transforms(void **state)
{
    (void)state;
    fixture *f = at_calloc(1, sizeof *f);
    assert_non_null(f);
    setup_fixture(f);
    /* mobilenet has 27 convolutions: the stem and 26 with candidates */
    assert_int_equal(f->n_packed, 26);
    size_t asked = 0;
    at_net_gt_result r;
    assert_ok(at_net_graph_tune(f->net, f->plan, f->cands, f->n_cands, half_ms_per_copy, &asked, &r));
    assert_int_equal(r.n_tuned, 26);
    /* cheapest everywhere: 26 x 1.0 ms, and a transform before each of the 26 (the stem writes 4,
     * the first candidate reads 8) and the input's packing for the stem (3 channels a block):
     * 27 x 0.5 ms. The global pooling reads the last conv's blocks as they are (TVM's NCHWc
     * global_avg_pool2d): no unpacking of the features */
    assert_int_equal(r.copies_before, 27);
    assert_true(fabs(r.before_s - (26 * 1.0e-3 + 27 * 0.5e-3)) < 1e-9);
    /* the optimum: the fallback blocks everywhere (the stem writes 4 already), 26 x 1.1 ms, and
     * the one transform no choice avoids; a 0.1 ms saving never pays for a 0.5 ms transform */
    assert_int_equal(r.copies_after, 1);
    assert_true(fabs(r.after_s - (26 * 1.1e-3 + 1 * 0.5e-3)) < 1e-9);
    /* the plan's fallback configs have the same blocks but other tile_ow / unroll knobs */
    assert_int_equal(r.n_changed, 26);
    assert_true(asked > 0);
    for (size_t i = 0; i < MAX_NODES; i++) {
        at_net_pick pick;
        if (!f->n_cands[i]) continue;
        assert_true(at_net_plan_pick(f->plan, i, &pick));
        assert_true(pick.tuned);
        assert_int_equal(at_config_index(pick.config), at_config_index(f->own[i][1]));
    }
    check_network(f, 1);
    teardown_fixture(f);
    at_free(f);
}

static at_status free_copies(void *ctx, const at_net_node *n, int64_t from, int64_t to, double *cost_s)
{
    (void)ctx, (void)n, (void)from, (void)to;
    *cost_s = 0;
    return AT_OK;
}

static void per_node_configs_should_run_and_match_the_reference(void **state)
{
    (void)state;
    fixture *f = at_calloc(1, sizeof *f);
    assert_non_null(f);
    setup_fixture(f);
    /* free transforms: every node takes its cheaper candidate, blocks alternating 8 and 2, so
     * nodes of one task run different configs and a transform sits before every candidate */
    at_net_gt_result r;
    assert_ok(at_net_graph_tune(f->net, f->plan, f->cands, f->n_cands, free_copies, NULL, &r));
    assert_int_equal(r.n_changed, 26);
    assert_int_equal(r.copies_after, 27);
    check_network(f, 27);
    teardown_fixture(f);
    at_free(f);
}

/* A record of config c of node i's task at cost_ms, as a tuning log holds it. */
static void append_record(at_strbuf *sb, const fixture *f, size_t i, const at_config *c, double cost_ms)
{
    at_net_pick pick;
    assert_true(at_net_plan_pick(f->plan, i, &pick));
    const at_task *t = at_net_tasks_at(f->ts, pick.task);
    double cost = cost_ms * 1e-3;
    at_result res = {.err = AT_MEAS_OK, .n_costs = 1, .costs_s = &cost, .all_cost_s = 1, .timestamp = 1.7e9};
    at_rec r;
    assert_ok(at_rec_make("llvm -keys=cpu", at_task_template(t)->name, at_net_tasks_args_json(f->ts, pick.task), c,
                          &res, &r));
    at_rec_write(&r, sb);
    at_strbuf_putc(sb, '\n');
    at_rec_fini(&r);
}

static void graph_log_should_round_trip_through_apply_graph_best(void **state)
{
    (void)state;
    fixture *f = at_calloc(1, sizeof *f);
    assert_non_null(f);
    setup_fixture(f);
    /* every task's records: its cheaper candidate and the (4, 4) one, plus a failed trial; tasks
     * shared by several nodes get the first such node's records */
    at_strbuf sb;
    at_strbuf_init(&sb);
    bool seen[MAX_NODES] = {0};
    for (size_t i = 0; i < MAX_NODES; i++) {
        at_net_pick pick;
        if (!f->n_cands[i] || !at_net_plan_pick(f->plan, i, &pick) || seen[pick.task]) continue;
        seen[pick.task] = true;
        append_record(&sb, f, i, f->own[i][1], 1.1);
        append_record(&sb, f, i, f->own[i][0], 1.0);
    }
    char dir[] = "/tmp/test_graph_tune_XXXXXX", recs[64], out[64];
    assert_non_null(mkdtemp(dir));
    snprintf(recs, sizeof recs, "%s/tuning.log", dir);
    snprintf(out, sizeof out, "%s/graph_opt.log", dir);
    assert_ok(at_rec_write_file_atomic(recs, sb.data, sb.len));
    at_strbuf_fini(&sb);

    /* the plan as apply_history_best makes it: the cheapest record of each workload */
    at_net_plan_free(f->plan);
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(recs, &log));
    assert_ok(at_net_plan_new(f->net, f->ts, at_net_dispatch_fallback, NULL, &f->plan));
    for (size_t i = 0; i < MAX_NODES; i++)
        if (f->n_cands[i]) assert_ok(at_net_plan_set_pick(f->plan, i, f->own[i][0], 1.0e-3));
    /* the interpreter times nothing: transforms are free and the cheaper records stay */
    at_tune_graph_result r;
    assert_ok(at_tune_graph_tune(f->net, f->plan, recs, 0, at_net_interp_backend(), NULL, NULL, out, &r));
    assert_int_equal(r.choice.n_tuned, 26);
    assert_int_equal(r.choice.n_changed, 0);
    assert_int_equal(r.n_records, 26);
    at_rec_log *opt;
    assert_ok(at_rec_log_load_file(out, &opt));
    assert_int_equal(opt->n, 26);
    /* one record per tuned node, in node order: the node's own workload and choice */
    size_t k = 0;
    for (size_t i = 0; i < MAX_NODES; i++) {
        at_net_pick pick;
        if (!f->n_cands[i]) continue;
        assert_true(at_net_plan_pick(f->plan, i, &pick));
        assert_string_equal(opt->recs[k].args_json, at_net_tasks_args_json(f->ts, pick.task));
        assert_int_equal(at_config_index(opt->recs[k].config), at_config_index(f->own[i][0]));
        k++;
    }
    /* apply_graph_best on a fallback plan sets the same configs, node by node */
    at_net_plan *fresh;
    assert_ok(at_net_plan_new(f->net, f->ts, at_net_dispatch_fallback, NULL, &fresh));
    size_t applied;
    assert_ok(at_tune_graph_apply(f->net, fresh, out, &applied));
    assert_int_equal(applied, 26);
    for (size_t i = 0; i < MAX_NODES; i++) {
        at_net_pick a, b;
        if (!f->n_cands[i]) continue;
        assert_true(at_net_plan_pick(f->plan, i, &a));
        assert_true(at_net_plan_pick(fresh, i, &b));
        assert_int_equal(at_config_index(a.config), at_config_index(b.config));
        assert_true(b.tuned);
    }
    at_net_plan_free(fresh);
    /* a graph log of more nodes than the network has is refused, naming the line left over */
    assert_ok(at_net_plan_new(f->net, f->ts, at_net_dispatch_fallback, NULL, &fresh));
    FILE *fp = fopen(out, "a");
    assert_non_null(fp);
    fputs(opt->recs[0].text, fp);
    fputc('\n', fp);
    fclose(fp);
    assert_int_equal(at_tune_graph_apply(f->net, fresh, out, &applied), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "graph_opt.log:27: no anchor left"));
    at_net_plan_free(fresh);
    at_rec_log_free(opt);
    at_rec_log_free(log);
    remove(recs);
    remove(out);
    rmdir(dir);
    teardown_fixture(f);
    at_free(f);
}

/* The transform timer times each (tensor size, block pair) once: a copy between blocks of small
 * gcd (8 -> 2) is not the cost of one of large gcd (8 -> 16) on the same tensor. */
static void the_timer_should_time_each_size_and_block_pair_once(void **state)
{
    (void)state;
    at_net_opts o = {.image_shape = {3, 16, 16}, .num_classes = 10, .params = true, .seed = 3};
    at_net *net;
    assert_ok(at_net_load("mobilenet", &o, &net));
    const at_net_node *a = NULL, *b = NULL; /* two 4-D nodes of one size, 16 | channels */
    for (size_t i = 1; i < at_net_n_nodes(net) && !b; i++) {
        const at_net_node *n = at_net_node_at(net, i);
        if (n->ndim != 4 || n->shape[1] % 16) continue;
        if (!a)
            a = n;
        else if (at_net_node_numel(n) == at_net_node_numel(a) && n != a)
            b = n;
    }
    assert_non_null(b);
    at_net_gt_timer t = {.be = at_net_interp_backend(), .runs = 1};
    double c;
    assert_ok(at_net_gt_time_copy(&t, a, 8, 16, &c));
    assert_int_equal(t.n_timed, 1);
    assert_ok(at_net_gt_time_copy(&t, b, 8, 16, &c)); /* same size and pair: the same timing */
    assert_int_equal(t.n_timed, 1);
    assert_ok(at_net_gt_time_copy(&t, a, 8, 2, &c));
    assert_int_equal(t.n_timed, 2);
    assert_ok(at_net_gt_time_copy(&t, a, 16, 8, &c));
    assert_int_equal(t.n_timed, 3);
    at_net_gt_timer_fini(&t);
    at_net_free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_tuner_should_trade_kernel_time_for_fewer_transforms),
        cmocka_unit_test(the_timer_should_time_each_size_and_block_pair_once),
        cmocka_unit_test(per_node_configs_should_run_and_match_the_reference),
        cmocka_unit_test(graph_log_should_round_trip_through_apply_graph_best),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
