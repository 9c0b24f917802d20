/* Refinement of the graph tuner's choice in the network (graph_refine.h). Every network built here
 * goes through one program cache, so a move compiles only the anchors it changes. */
#include "networks/graph_refine.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/rng.h"
#include "core/stats.h"
#include "networks/graph_tune.h"
#include "networks/internal.h"
#include "networks/prog_cache.h"
#include "templates/template.h"

enum { DEFAULT_ROUNDS = 15, DEFAULT_SWEEPS = 2, MAX_PRODUCERS = 8, EARLY_ROUNDS = 5 };
#define DEFAULT_MIN_GAIN 0.01


typedef struct refiner {
    const at_net           *net;
    at_net_plan            *plan;
    at_net_prog_cache      *cache;
    const at_net_backend_i *be; /* the cache's */
    float                  *input;
    size_t                  nn, rounds;
    double                  min_gain;
    bool                   *movable;
    const at_net_gt_cand *const *cands; /* per node, the log's candidates (NULL: none) */
    const size_t           *n_cands;
    bool                   *packed;
    int64_t                *blk;      /* the layout each node writes under the current plan */
    bool                   *affected; /* nodes whose time a change can move */
    double                 *node_ms, *copy_ms;
    double                 *sa, *sb, *ratio, *scratch; /* rounds each */
} refiner;

/* Nodes and the configs a move gives them (owned), with what they had, to go back; room for
 * every node of the network. */
typedef struct change {
    size_t      n, cap;
    size_t     *node;
    at_config **to, **from;
    double     *from_cost;
} change;

static at_status change_init(change *c, size_t cap)
{
    *c = (change){.cap = cap};
    c->node = at_calloc(cap, sizeof *c->node);
    c->to = at_calloc(cap, sizeof *c->to);
    c->from = at_calloc(cap, sizeof *c->from);
    c->from_cost = at_calloc(cap, sizeof *c->from_cost);
    return c->node && c->to && c->from && c->from_cost ? AT_OK : AT_OOM();
}

/* Forgets the nodes (the arrays stay for the next move). */
static void change_clear(change *c)
{
    for (size_t k = 0; k < c->n; k++) {
        at_config_free(c->to[k]);
        at_config_free(c->from[k]);
        c->to[k] = c->from[k] = NULL;
    }
    c->n = 0;
}

static void change_fini(change *c)
{
    change_clear(c);
    at_free(c->node);
    at_free(c->to);
    at_free(c->from);
    at_free(c->from_cost);
}

/* Adds node's new config (taken over, NULL: nothing to add); a config equal to its pick's is dropped. */
static void change_add(const refiner *r, change *c, size_t node, at_config *to)
{
    at_net_pick pick;
    if (!to) return;
    if (c->n == c->cap || !at_net_plan_pick(r->plan, node, &pick) ||
        at_config_index(pick.config) == at_config_index(to)) {
        at_config_free(to);
        return;
    }
    c->node[c->n] = node;
    c->to[c->n] = to;
    c->from[c->n++] = NULL;
}

static at_status change_apply(at_net_plan *plan, change *c)
{
    for (size_t k = 0; k < c->n; k++) {
        at_net_pick pick;
        AT_ASSERT(at_net_plan_pick(plan, c->node[k], &pick));
        at_config_free(c->from[k]);
        c->from[k] = NULL;
        AT_TRY(at_config_clone(pick.config, &c->from[k]));
        c->from_cost[k] = pick.cost_s;
        AT_TRY(at_net_plan_set_pick(plan, c->node[k], c->to[k], 0));
    }
    return AT_OK;
}

static at_status change_revert(at_net_plan *plan, const change *c)
{
    for (size_t k = c->n; k-- > 0;)
        if (c->from[k]) AT_TRY(at_net_plan_set_pick(plan, c->node[k], c->from[k], c->from_cost[k]));
    return AT_OK;
}

/* The network under the current plan, its weights packed by a first run. */
static at_status build(refiner *r, at_net_exec **out)
{
    at_net_exec *e = NULL;
    at_status st = at_net_exec_new(r->net, r->plan, r->be, r->cache, &e);
    if (st == AT_OK) st = at_net_exec_share_buffers(e);
    if (st == AT_OK) st = at_net_exec_set_input(e, r->input);
    if (st == AT_OK) st = at_net_exec_run(e, NULL);
    if (st != AT_OK) {
        at_net_exec_free(e);
        return st;
    }
    *out = e;
    return AT_OK;
}

/* One profiled run after an unprofiled one (a run then finds what its own previous run left in
 * the caches, as in a loop of inferences); the time of the affected nodes and every transform. */
static at_status timed_run(refiner *r, at_net_exec *e, double *ms)
{
    AT_TRY(at_net_exec_run(e, NULL));
    AT_TRY(at_net_exec_profile(e, r->node_ms, r->copy_ms));
    double s = 0;
    for (size_t i = 0; i < r->nn; i++) s += (r->affected[i] ? r->node_ms[i] : 0) + r->copy_ms[i];
    *ms = s;
    return AT_OK;
}

/* Runs of a and b in turn (which goes first alternates); *ratio = the median over rounds of b's
 * time over a's, *ms_a and *ms_b their medians. With early_stop, b is given up after
 * EARLY_ROUNDS rounds whose median ratio is not below 1 (most moves are not kept: this cuts the
 * refinement's time by about half, and a move that gains the 1 % it must is rarely behind then). */
static at_status compare(refiner *r, at_net_exec *a, at_net_exec *b, bool early_stop, double *ratio, double *ms_a,
                         double *ms_b, bool *stopped)
{
    if (stopped) *stopped = false;
    size_t n = 0;
    for (size_t k = 0; k < r->rounds; k++) {
        if (k % 2 == 0) {
            AT_TRY(timed_run(r, a, &r->sa[k]));
            AT_TRY(timed_run(r, b, &r->sb[k]));
        } else {
            AT_TRY(timed_run(r, b, &r->sb[k]));
            AT_TRY(timed_run(r, a, &r->sa[k]));
        }
        r->ratio[k] = r->sa[k] > 0 ? r->sb[k] / r->sa[k] : 1;
        n = k + 1;
        if (early_stop && n == EARLY_ROUNDS && n < r->rounds) {
            memcpy(r->scratch, r->ratio, n * sizeof *r->scratch);
            if (at_median(r->scratch, n) >= 1) {
                if (stopped) *stopped = true;
                break;
            }
        }
    }
    *ratio = at_median(r->ratio, n);
    if (ms_a) *ms_a = at_median(r->sa, n);
    if (ms_b) *ms_b = at_median(r->sb, n);
    return AT_OK;
}

static bool in_change(const change *c, size_t node)
{
    for (size_t k = 0; k < c->n; k++)
        if (c->node[k] == node) return true;
    return false;
}

/* The changed nodes and those reading them, directly or through nodes that keep their layout. */
static void mark_affected(refiner *r, const change *c)
{
    for (size_t i = 0; i < r->nn; i++) {
        r->affected[i] = in_change(c, i);
        const at_net_node *n = at_net_node_at(r->net, i);
        for (size_t k = 0; i > 0 && !r->affected[i] && k < n->n_inputs; k++) {
            size_t j = n->inputs[k];
            const at_net_node *p = at_net_node_at(r->net, j);
            r->affected[i] = r->affected[j] && (in_change(c, j) || at_net_keeps_layout(p) || p->op == AT_NET_CONCAT);
        }
    }
}

/* Node's pick with one knob moved: to the split entity whose block (last size) is v (by_block), or
 * v entities on from where it is. NULL when the space has no such point (or no such knob). */
static at_status moved_pick(const refiner *r, size_t node, const char *knob, bool by_block, int64_t v, at_config **out)
{
    *out = NULL;
    at_net_pick pick;
    AT_ASSERT(at_net_plan_pick(r->plan, node, &pick));
    const at_task *t = at_net_tasks_at(at_net_plan_tasks(r->plan), pick.task);
    const at_space *s = at_task_space(t);
    size_t nk = at_space_n_knobs(s), k;
    int64_t at = 0; /* a fallback pick carries index -1: its point is where its entities are */
    if (!at_space_find_knob(s, knob, &k)) return AT_OK;
    if (at_space_index_of(s, pick.config, &at) != AT_OK) {
        at_clear_error();
        return AT_OK;
    }
    int64_t *knobs = at_calloc(nk, sizeof *knobs);
    if (!knobs) return AT_OOM();
    at_space_point_to_knobs(s, at, knobs);
    int64_t e = by_block ? -1 : knobs[k] + v;
    for (int64_t q = 0; by_block && q < at_space_dim(s, k) && e < 0; q++) {
        const at_entity *x = at_space_entity(s, k, q);
        if (x->kind == AT_KNOB_SPLIT && x->n > 0 && x->ints[x->n - 1] == v) e = q;
    }
    int64_t index = -1;
    if (e >= 0 && e < at_space_dim(s, k)) {
        knobs[k] = e;
        index = at_space_knobs_to_point(s, knobs);
    }
    at_free(knobs);
    if (index < 0 || !at_space_is_index_valid(s, index)) return AT_OK;
    return at_task_config(t, index, out);
}

static void blocks_of(const refiner *r, size_t node, int64_t *ic, int64_t *oc)
{
    at_net_pick pick;
    AT_ASSERT(at_net_plan_pick(r->plan, node, &pick));
    const at_template *t = at_task_template(at_net_tasks_at(at_net_plan_tasks(r->plan), pick.task));
    AT_ASSERT(at_tmpl_packed_blocks(t, pick.config, ic, oc) == AT_OK);
}

/* Measures c against the current network *cur: kept (the new network becomes *cur) or undone. */
static at_status try_change(refiner *r, at_net_exec **cur, change *c, at_net_refine_result *res)
{
    at_status st = change_apply(r->plan, c);
    at_net_exec *b = NULL;
    if (st == AT_OK) st = build(r, &b);
    if (st == AT_EINVAL || st == AT_EDEVICE) {
        at_log(AT_LOG_WARN, "graph tuner refinement: a move of node %s skipped: %s",
               at_net_node_at(r->net, c->node[0])->name, at_last_error());
        at_clear_error();
        return change_revert(r->plan, c);
    }
    double ratio = 1;
    bool stopped = false;
    mark_affected(r, c);
    if (st == AT_OK) st = compare(r, *cur, b, true, &ratio, NULL, NULL, &stopped);
    if (st == AT_OK) res->n_tried++;
    if (st == AT_OK) res->n_early += stopped;
    if (st == AT_OK)
        at_log(AT_LOG_DEBUG, "graph tuner refinement: node %s and %zu more to config %lld: %.4f of the time",
               at_net_node_at(r->net, c->node[0])->name, c->n - 1, (long long)at_config_index(c->to[0]), ratio);
    if (st == AT_OK && ratio < 1 - r->min_gain) {
        at_net_exec_free(*cur);
        *cur = b;
        res->n_kept++;
        return AT_OK;
    }
    at_net_exec_free(b);
    at_status rv = change_revert(r->plan, c);
    return st != AT_OK ? st : rv;
}

/* The moves of an anchor, in the order tried. */
enum { MOVE_IC, MOVE_OC_UP, MOVE_OC_DOWN, MOVE_OW_UP, MOVE_OW_DOWN, MOVE_OH_UP, MOVE_OH_DOWN, MOVE_LOG, N_LOG_MOVES = 3 };

/* Every movable packed anchor reading node i's output takes input block bn where its space has it. */
static at_status readers_follow(refiner *r, size_t i, int64_t bn, change *c)
{
    for (size_t j = i + 1; j < r->nn; j++) {
        const at_net_node *m = at_net_node_at(r->net, j);
        if (!r->movable[j] || !m->n_inputs) continue;
        size_t ps[MAX_PRODUCERS];
        size_t np = at_net_packed_producers(r->net, r->packed, m->inputs[0], ps, MAX_PRODUCERS, 0);
        bool reads = false;
        for (size_t k = 0; k < np; k++) reads |= ps[k] == i;
        at_config *x = NULL;
        if (reads) AT_TRY(moved_pick(r, j, "tile_ic", true, bn, &x));
        change_add(r, c, j, x);
    }
    return AT_OK;
}

/* The log's k-th cheapest candidate of node i among those with its present blocks (a copy), or NULL. */
static at_status log_candidate(const refiner *r, size_t i, size_t k, int64_t ic, int64_t oc, at_config **out)
{
    *out = NULL;
    for (size_t q = 0; r->cands && q < r->n_cands[i]; q++) {
        const at_net_gt_cand *x = &r->cands[i][q];
        if (x->ic_bn != ic || x->oc_bn != oc) continue;
        if (k-- == 0) return at_config_clone(x->config, out);
    }
    return AT_OK;
}

/* Node i's move as a change (empty when the move does not apply here). */
static at_status make_move(refiner *r, size_t i, int move, change *c)
{
    int64_t ic, oc, want;
    blocks_of(r, i, &ic, &oc);
    at_config *x = NULL;
    switch (move) {
    case MOVE_IC: /* read what the producer writes */
        AT_TRY(at_net_graph_layouts(r->net, r->plan, NULL, r->blk));
        want = r->blk[at_net_node_at(r->net, i)->inputs[0]];
        if (want > 1 && want != ic) AT_TRY(moved_pick(r, i, "tile_ic", true, want, &x));
        change_add(r, c, i, x);
        return AT_OK;
    case MOVE_OC_UP:
    case MOVE_OC_DOWN: {
        int64_t bn = move == MOVE_OC_UP ? 2 * oc : oc / 2;
        if (bn >= 2 && (move == MOVE_OC_UP || oc % 2 == 0)) AT_TRY(moved_pick(r, i, "tile_oc", true, bn, &x));
        change_add(r, c, i, x);
        return c->n ? readers_follow(r, i, bn, c) : AT_OK;
    }
    case MOVE_OW_UP:
    case MOVE_OW_DOWN:
        AT_TRY(moved_pick(r, i, "tile_ow", false, move == MOVE_OW_UP ? 1 : -1, &x));
        change_add(r, c, i, x);
        return AT_OK;
    case MOVE_OH_UP: /* a 1x1 conv's rows per chunk: the chunks per block decide whether the */
    case MOVE_OH_DOWN: /* LLVM pool shares the layer out by rows (backends/llvm/pool.c, bands) */
        AT_TRY(moved_pick(r, i, "tile_oh", false, move == MOVE_OH_UP ? 1 : -1, &x));
        change_add(r, c, i, x);
        return AT_OK;
    default: /* the log's next candidates with these blocks, its records measured here */
        AT_TRY(log_candidate(r, i, (size_t)(move - MOVE_LOG), ic, oc, &x));
        change_add(r, c, i, x);
        return AT_OK;
    }
}

/* The moves of node i, each measured: its input block made its producer's; its output block
 * doubled, then halved, with every movable packed reader's input block following it; its row
 * tile one entity up and down; a 1x1 conv's other rows per chunk (tile_oh); the log's cheapest
 * other configs with its blocks. */
static at_status refine_node(refiner *r, at_net_exec **cur, size_t i, change *c, at_net_refine_result *res)
{
    for (int move = 0; move < MOVE_LOG + N_LOG_MOVES; move++) {
        change_clear(c);
        at_status st = make_move(r, i, move, c);
        if (st == AT_OK && c->n) st = try_change(r, cur, c, res);
        change_clear(c);
        AT_TRY(st);
    }
    return AT_OK;
}

/* Per node, the median of its time over rounds runs of e. */
static at_status node_medians(refiner *r, at_net_exec *e, double *out)
{
    double *all = at_calloc(r->nn * r->rounds + 1, sizeof *all);
    if (!all) return AT_OOM();
    at_status st = AT_OK;
    for (size_t k = 0; st == AT_OK && k < r->rounds; k++) {
        st = at_net_exec_run(e, NULL);
        if (st == AT_OK) st = at_net_exec_profile(e, r->node_ms, r->copy_ms);
        for (size_t i = 0; st == AT_OK && i < r->nn; i++) all[i * r->rounds + k] = r->node_ms[i];
    }
    for (size_t i = 0; st == AT_OK && i < r->nn; i++) out[i] = at_median(&all[i * r->rounds], r->rounds);
    at_free(all);
    return st;
}

/* Nodes to visit: the movable ones, slowest first (an insertion sort: tens of nodes). */
static size_t visit_order(const refiner *r, const double *ms, size_t *order)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nn; i++) {
        if (!r->movable[i]) continue;
        size_t k = n++;
        for (; k > 0 && ms[order[k - 1]] < ms[i]; k--) order[k] = order[k - 1];
        order[k] = i;
    }
    return n;
}

static at_status refiner_init(refiner *r, const at_net *net, at_net_plan *plan, const at_net_refine_opts *o)
{
    size_t nn = at_net_n_nodes(net);
    *r = (refiner){.net = net, .plan = plan, .nn = nn, .rounds = o->rounds ? o->rounds : DEFAULT_ROUNDS,
                   .min_gain = o->min_gain > 0 ? o->min_gain : DEFAULT_MIN_GAIN};
    int64_t n_in = at_net_node_numel(at_net_node_at(net, 0));
    r->input = at_malloc((size_t)n_in * sizeof *r->input);
    r->movable = at_calloc(nn, sizeof *r->movable);
    r->packed = at_calloc(nn, sizeof *r->packed);
    r->blk = at_calloc(nn, sizeof *r->blk);
    r->affected = at_calloc(nn, sizeof *r->affected);
    r->node_ms = at_calloc(nn, sizeof *r->node_ms);
    r->copy_ms = at_calloc(nn, sizeof *r->copy_ms);
    r->sa = at_calloc(r->rounds, sizeof *r->sa);
    r->sb = at_calloc(r->rounds, sizeof *r->sb);
    r->ratio = at_calloc(r->rounds, sizeof *r->ratio);
    r->scratch = at_calloc(r->rounds, sizeof *r->scratch);
    if (!r->input || !r->movable || !r->packed || !r->blk || !r->affected || !r->node_ms || !r->copy_ms || !r->sa ||
        !r->sb || !r->ratio || !r->scratch)
        return AT_OOM();
    at_rng rng;
    at_rng_seed(&rng, o->seed);
    for (int64_t i = 0; i < n_in; i++) r->input[i] = (float)(2 * at_rng_uniform(&rng) - 1);
    AT_TRY(at_net_graph_layouts(net, plan, r->packed, r->blk));
    for (size_t i = 0; i < nn; i++) r->movable[i] = r->packed[i] && (!o->movable || o->movable[i]);
    r->cands = o->n_cands ? o->cands : NULL;
    r->n_cands = o->n_cands;
    return AT_OK;
}

static void refiner_fini(refiner *r)
{
    at_free(r->input);
    at_free(r->movable);
    at_free(r->packed);
    at_free(r->blk);
    at_free(r->affected);
    at_free(r->node_ms);
    at_free(r->copy_ms);
    at_free(r->sa);
    at_free(r->sb);
    at_free(r->ratio);
    at_free(r->scratch);
}

/* The movable nodes' configs as they are now, to compare with (and go back to) at the end. */
static at_status snapshot(const refiner *r, change *start)
{
    for (size_t i = 0; i < r->nn; i++) {
        at_net_pick pick;
        if (!r->movable[i] || !at_net_plan_pick(r->plan, i, &pick)) continue;
        start->node[start->n] = i;
        start->from[start->n] = NULL;
        AT_TRY(at_config_clone(pick.config, &start->to[start->n++]));
    }
    return AT_OK;
}

/* The end: the refined network against the one it started from (whole networks, run for run);
 * the start is restored when the refined one is no faster. */
static at_status finish(refiner *r, at_net_exec **cur, const change *start_picks, at_net_refine_result *res)
{
    change back;
    at_status st = change_init(&back, r->nn);
    size_t n_changed = 0;
    for (size_t k = 0; st == AT_OK && k < start_picks->n; k++) {
        at_net_pick pick;
        AT_ASSERT(at_net_plan_pick(r->plan, start_picks->node[k], &pick));
        if (at_config_index(pick.config) == at_config_index(start_picks->to[k])) continue;
        n_changed++;
        at_config *x;
        st = at_config_clone(start_picks->to[k], &x);
        if (st == AT_OK) change_add(r, &back, start_picks->node[k], x);
    }
    at_net_exec *start = NULL;
    double ratio = 1;
    for (size_t i = 0; i < r->nn; i++) r->affected[i] = true;
    if (st == AT_OK && back.n) st = change_apply(r->plan, &back);
    if (st == AT_OK && back.n) st = build(r, &start);
    if (st == AT_OK && back.n) st = change_revert(r->plan, &back);
    if (st == AT_OK && start) st = compare(r, start, *cur, false, &ratio, &res->before_ms, &res->after_ms, NULL);
    if (st == AT_OK && !start) st = compare(r, *cur, *cur, false, &ratio, &res->before_ms, &res->after_ms, NULL);
    if (st == AT_OK && start && ratio >= 1) { /* no faster: back to the start */
        st = change_apply(r->plan, &back);
        at_net_exec_free(*cur);
        *cur = start;
        start = NULL;
        res->after_ms = res->before_ms;
        n_changed = 0;
    }
    at_net_exec_free(start);
    change_fini(&back);
    res->n_changed = n_changed;
    if (st == AT_OK) st = node_medians(r, *cur, res->node_ms);
    return st;
}

at_status at_net_graph_refine(const at_net *net, at_net_plan *plan, const at_net_backend_i *be, void *be_ctx,
                              const at_net_refine_opts *o, at_net_refine_result *out)
{
    at_net_refine_opts defaults = {0};
    if (!o) o = &defaults;
    refiner r;
    at_net_refine_result res = {0};
    at_net_exec *cur = NULL;
    change start, move;
    size_t *order = NULL;
    at_status st = refiner_init(&r, net, plan, o);
    at_status st1 = change_init(&start, r.nn), st2 = change_init(&move, r.nn);
    if (st == AT_OK) st = st1 != AT_OK ? st1 : st2;
    if (st == AT_OK) st = at_net_prog_cache_new(be, be_ctx, &r.cache);
    if (st == AT_OK) {
        r.be = at_net_prog_cache_backend(r.cache);
        res.node_ms = at_calloc(r.nn, sizeof *res.node_ms);
        order = at_calloc(r.nn, sizeof *order);
        if (!res.node_ms || !order) st = AT_OOM();
    }
    if (st == AT_OK) st = snapshot(&r, &start);
    if (st == AT_OK) st = build(&r, &cur);
    if (st == AT_OK) st = node_medians(&r, cur, res.node_ms);
    size_t sweeps = o->sweeps ? o->sweeps : DEFAULT_SWEEPS;
    for (size_t s = 0; st == AT_OK && s < sweeps; s++) {
        size_t kept = res.n_kept, n = visit_order(&r, res.node_ms, order);
        for (size_t k = 0; st == AT_OK && k < n; k++) st = refine_node(&r, &cur, order[k], &move, &res);
        if (res.n_kept == kept) break;
    }
    if (st == AT_OK) st = finish(&r, &cur, &start, &res);
    if (r.cache) res.n_built = at_net_prog_cache_n_built(r.cache);
    at_net_exec_free(cur);
    at_net_prog_cache_free(r.cache);
    change_fini(&start);
    change_fini(&move);
    at_free(order);
    refiner_fini(&r);
    if (st == AT_OK)
        *out = res;
    else
        at_net_refine_result_fini(&res);
    return st;
}

void at_net_refine_result_fini(at_net_refine_result *r)
{
    at_free(r->node_ms);
    r->node_ms = NULL;
}
