/* The graph tuner (graph_tune.h). Its model of where transforms run follows exec.c: a packed
 * anchor reads its input in ic_bn blocks and its residual in oc_bn blocks and writes oc_bn; a
 * per-channel element-wise node or pooling keeps its first input's layout and reads its inputs in
 * it; a channel concatenation of inputs in one blocking keeps it (at_net_concat_block); a global
 * average pooling reads any blocking (at_net_reads_any_block); every other node reads and writes
 * NCHW; a transform is made once per (node, block) a reader wants. */
#include "networks/graph_tune.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/stats.h"
#include "networks/internal.h"
#include "templates/template.h"

enum { MAX_SEEN = 8, MAX_SWEEPS = 32, MAX_PRODUCERS = 8 };

typedef struct copy_memo {
    size_t  node;
    int64_t from, to;
    double  cost_s;
} copy_memo;

typedef struct gt {
    const at_net              *net;
    const at_net_plan         *plan;
    const at_net_gt_cand *const *cands;
    const size_t              *n_cands;
    size_t                     nn;
    bool                      *packed;  /* a packed anchor */
    int64_t                   *ic, *oc; /* its blocks under the current choice */
    size_t                    *choice;
    int64_t                   *blk;     /* per node: the layout it writes */
    int64_t                   *seen;    /* per node: the other layouts asked of it, MAX_SEEN each */
    size_t                    *n_seen;
    copy_memo                 *memo;
    size_t                     n_memo, cap_memo;
    at_net_gt_copy_fn          copy;
    void                      *ctx;
} gt;

static at_status copy_cost(gt *g, size_t node, int64_t from, int64_t to, double *out)
{
    for (size_t k = 0; k < g->n_memo; k++)
        if (g->memo[k].node == node && g->memo[k].from == from && g->memo[k].to == to) {
            *out = g->memo[k].cost_s;
            return AT_OK;
        }
    if (g->n_memo == g->cap_memo) {
        size_t cap = g->cap_memo ? 2 * g->cap_memo : 64;
        copy_memo *m = at_realloc(g->memo, cap * sizeof *m);
        if (!m) return AT_OOM();
        g->memo = m;
        g->cap_memo = cap;
    }
    double c;
    AT_TRY(g->copy(g->ctx, at_net_node_at(g->net, node), from, to, &c));
    g->memo[g->n_memo++] = (copy_memo){node, from, to, c};
    *out = c;
    return AT_OK;
}

static void choose(gt *g, size_t i, size_t k)
{
    g->choice[i] = k;
    g->ic[i] = g->cands[i][k].ic_bn;
    g->oc[i] = g->cands[i][k].oc_bn;
}

/* Node j read in layout want: a transform unless j is in it or one was made already. */
static at_status read_as(gt *g, size_t j, int64_t want, double *cost, size_t *n_copies)
{
    if (g->blk[j] == want) return AT_OK;
    int64_t *s = &g->seen[j * MAX_SEEN];
    for (size_t k = 0; k < g->n_seen[j]; k++)
        if (s[k] == want) return AT_OK;
    if (g->n_seen[j] < MAX_SEEN) s[g->n_seen[j]++] = want;
    double c = 0;
    AT_TRY(copy_cost(g, j, g->blk[j], want, &c));
    *cost += c;
    (*n_copies)++;
    return AT_OK;
}

/* The modelled time of the current choice: candidates' kernels and every transform. */
static at_status total(gt *g, double *out, size_t *n_copies)
{
    double cost = 0;
    size_t copies = 0;
    for (size_t i = 0; i < g->nn; i++) {
        const at_net_node *n = at_net_node_at(g->net, i);
        g->n_seen[i] = 0;
        g->blk[i] = 1;
        if (g->packed[i])
            g->blk[i] = g->oc[i];
        else if (i > 0 && at_net_keeps_layout(n))
            g->blk[i] = g->blk[n->inputs[0]];
        else if (i > 0 && n->op == AT_NET_CONCAT)
            g->blk[i] = at_net_concat_block(g->net, n, g->blk);
        if (g->n_cands[i]) cost += g->cands[i][g->choice[i]].cost_s;
    }
    for (size_t i = 1; i < g->nn; i++) {
        const at_net_node *n = at_net_node_at(g->net, i);
        if (n->op == AT_NET_CONSTANT || n->op == AT_NET_DROPOUT || n->n_inputs == 0) continue;
        at_net_pick pick;
        if (at_net_op_is_anchor(n->op) && at_net_plan_pick(g->plan, i, &pick)) {
            AT_TRY(read_as(g, n->inputs[0], g->packed[i] ? g->ic[i] : 1, &cost, &copies));
            if (n->epi.residual) AT_TRY(read_as(g, n->inputs[1], g->packed[i] ? g->oc[i] : 1, &cost, &copies));
        } else if (n->op == AT_NET_CONCAT) {
            for (size_t k = 0; k < n->n_inputs; k++) AT_TRY(read_as(g, n->inputs[k], g->blk[i], &cost, &copies));
        } else if (at_net_reads_any_block(n)) {
            continue;
        } else {
            AT_TRY(read_as(g, n->inputs[0], g->blk[i], &cost, &copies));
            if (n->n_inputs > 1) AT_TRY(read_as(g, n->inputs[1], g->blk[i], &cost, &copies));
        }
    }
    *out = cost;
    if (n_copies) *n_copies = copies;
    return AT_OK;
}

size_t at_net_packed_producers(const at_net *net, const bool *packed, size_t j, size_t *out, size_t cap, size_t n)
{
    while (j > 0 && !packed[j]) {
        const at_net_node *x = at_net_node_at(net, j);
        if (x->op == AT_NET_CONCAT) {
            for (size_t k = 0; k < x->n_inputs; k++) n = at_net_packed_producers(net, packed, x->inputs[k], out, cap, n);
            return n;
        }
        if (!at_net_keeps_layout(x)) return n;
        j = x->inputs[0];
    }
    if (j > 0 && n < cap) out[n++] = j;
    return n;
}

static size_t producers(const gt *g, size_t j, size_t *out, size_t cap, size_t n)
{
    return at_net_packed_producers(g->net, g->packed, j, out, cap, n);
}

/* Tries every candidate of node i (and, with p != SIZE_MAX, every pair with p's); keeps the best.
 * *improved is set when the total fell. */
static at_status move(gt *g, size_t i, size_t p, double *best, bool *improved)
{
    size_t bi = g->choice[i], bp = p != SIZE_MAX ? g->choice[p] : 0;
    size_t np = p != SIZE_MAX ? g->n_cands[p] : 1;
    for (size_t a = 0; a < g->n_cands[i]; a++)
        for (size_t b = 0; b < np; b++) {
            choose(g, i, a);
            if (p != SIZE_MAX) choose(g, p, b);
            double t;
            AT_TRY(total(g, &t, NULL));
            if (t < *best * (1 - 1e-9)) {
                *best = t;
                bi = a;
                bp = b;
                *improved = true;
            }
        }
    choose(g, i, bi);
    if (p != SIZE_MAX) choose(g, p, bp);
    return AT_OK;
}

static at_status search(gt *g, at_net_gt_result *r)
{
    for (size_t i = 0; i < g->nn; i++)
        if (g->n_cands[i]) choose(g, i, 0);
    double best;
    AT_TRY(total(g, &best, &r->copies_before));
    r->before_s = best;
    for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
        bool improved = false;
        for (size_t i = 0; i < g->nn; i++)
            if (g->n_cands[i]) AT_TRY(move(g, i, SIZE_MAX, &best, &improved));
        /* pairs: a node and an anchor feeding it; two anchors feeding one concatenation */
        for (size_t i = 0; i < g->nn; i++) {
            if (!g->n_cands[i]) continue;
            const at_net_node *n = at_net_node_at(g->net, i);
            for (size_t k = 0; k < n->n_inputs && k < 2; k++) {
                size_t ps[MAX_PRODUCERS];
                size_t np = producers(g, n->inputs[k], ps, MAX_PRODUCERS, 0);
                for (size_t a = 0; a < np; a++) {
                    if (ps[a] != i && g->n_cands[ps[a]]) AT_TRY(move(g, i, ps[a], &best, &improved));
                    for (size_t b = a + 1; b < np; b++)
                        if (g->n_cands[ps[a]] && g->n_cands[ps[b]]) AT_TRY(move(g, ps[a], ps[b], &best, &improved));
                }
            }
        }
        if (!improved) break;
    }
    AT_TRY(total(g, &r->after_s, &r->copies_after));
    return AT_OK;
}

static void gt_fini(gt *g)
{
    at_free(g->packed);
    at_free(g->ic);
    at_free(g->oc);
    at_free(g->choice);
    at_free(g->blk);
    at_free(g->seen);
    at_free(g->n_seen);
    at_free(g->memo);
}

/* The model's state for plan with the given candidates (NULL: none anywhere). */
static at_status gt_init(gt *g, const at_net *net, const at_net_plan *plan, const at_net_gt_cand *const *cands,
                         const size_t *n_cands, size_t *zeros)
{
    size_t nn = at_net_n_nodes(net);
    *g = (gt){.net = net, .plan = plan, .cands = cands, .n_cands = n_cands ? n_cands : zeros, .nn = nn};
    g->packed = at_calloc(nn, sizeof *g->packed);
    g->ic = at_calloc(nn, sizeof *g->ic);
    g->oc = at_calloc(nn, sizeof *g->oc);
    g->choice = at_calloc(nn, sizeof *g->choice);
    g->blk = at_calloc(nn, sizeof *g->blk);
    g->seen = at_calloc(nn * MAX_SEEN, sizeof *g->seen);
    g->n_seen = at_calloc(nn, sizeof *g->n_seen);
    if (!g->packed || !g->ic || !g->oc || !g->choice || !g->blk || !g->seen || !g->n_seen) return AT_OOM();
    for (size_t i = 1; i < nn; i++) {
        at_net_pick pick;
        if (!at_net_plan_pick(plan, i, &pick)) continue;
        const at_template *t = at_task_template(at_net_tasks_at(at_net_plan_tasks(plan), pick.task));
        g->packed[i] = t->schedule_packed && at_tmpl_packed_blocks(t, pick.config, &g->ic[i], &g->oc[i]) == AT_OK;
        AT_ASSERT(g->n_cands[i] == 0 || g->packed[i]);
    }
    return AT_OK;
}

static at_status no_cost(void *ctx, const at_net_node *n, int64_t from, int64_t to, double *cost_s)
{
    (void)ctx, (void)n, (void)from, (void)to;
    *cost_s = 0;
    return AT_OK;
}

/* The model's layouts for plan as it is: packed (optional) and blk (optional, nn each) get gt's
 * arrays; *n_copies the transforms. */
static at_status model_plan(const at_net *net, const at_net_plan *plan, bool *packed, int64_t *blk, size_t *n_copies)
{
    size_t nn = at_net_n_nodes(net);
    size_t *zeros = at_calloc(nn, sizeof *zeros);
    gt g;
    at_status st = zeros ? gt_init(&g, net, plan, NULL, NULL, zeros) : AT_OOM();
    g.copy = no_cost;
    double t;
    if (st == AT_OK) st = total(&g, &t, n_copies);
    if (st == AT_OK && packed) memcpy(packed, g.packed, nn * sizeof *packed);
    if (st == AT_OK && blk) memcpy(blk, g.blk, nn * sizeof *blk);
    gt_fini(&g);
    at_free(zeros);
    return st;
}

at_status at_net_graph_count_copies(const at_net *net, const at_net_plan *plan, size_t *out)
{
    return model_plan(net, plan, NULL, NULL, out);
}

at_status at_net_graph_layouts(const at_net *net, const at_net_plan *plan, bool *packed, int64_t *blk)
{
    size_t n;
    return model_plan(net, plan, packed, blk, &n);
}

at_status at_net_graph_tune(const at_net *net, at_net_plan *plan, const at_net_gt_cand *const *cands,
                            const size_t *n_cands, at_net_gt_copy_fn copy, void *ctx, at_net_gt_result *out)
{
    gt g;
    at_net_gt_result r = {0};
    at_status st = gt_init(&g, net, plan, cands, n_cands, NULL);
    g.copy = copy;
    g.ctx = ctx;
    if (st == AT_OK) st = search(&g, &r);
    for (size_t i = 0; st == AT_OK && i < g.nn; i++) {
        if (!n_cands[i]) continue;
        at_net_pick pick;
        AT_ASSERT(at_net_plan_pick(plan, i, &pick));
        const at_net_gt_cand *c = &cands[i][g.choice[i]];
        r.n_tuned++;
        r.n_changed += at_config_index(c->config) != at_config_index(pick.config);
        st = at_net_plan_set_pick(plan, i, c->config, c->cost_s);
    }
    gt_fini(&g);
    if (st == AT_OK && out) *out = r;
    return st;
}

/* ---- transform costs measured on a backend ------------------------------------------------------ */

static at_status time_layout(at_net_gt_timer *t, const at_net_node *n, int64_t from, int64_t to, double *ms)
{
    at_arena *arena;
    AT_TRY(at_arena_new(0, &arena));
    const at_net_backend_i *be = t->be;
    size_t runs = t->runs ? t->runs : 10, bytes = (size_t)at_net_node_numel(n) * sizeof(float);
    void *prog = NULL, *bufs[2] = {NULL, NULL};
    double *v = at_calloc(runs, sizeof *v);
    const at_ir_program *p;
    at_status st = v ? at_net_prog_layout(arena, "graph_tuner_layout", n->shape[0], n->shape[1],
                                          n->shape[2] * n->shape[3], from, to, &p)
                     : AT_OOM();
    if (st == AT_OK) st = be->prog_new(t->be_ctx, p, &prog);
    for (size_t k = 0; st == AT_OK && k < 2; k++) st = be->buf_new(t->be_ctx, bytes, &bufs[k]);
    for (size_t r = 0; st == AT_OK && r < runs + 1; r++) {
        double d = 0;
        st = be->prog_run(t->be_ctx, prog, bufs, 2, false, &d);
        if (st == AT_OK && be->finish) st = be->finish(t->be_ctx);
        if (r > 0) v[r - 1] = d; /* the first run is the warm-up */
    }
    if (st == AT_OK) {
        *ms = at_median(v, runs);
        t->n_timed++;
    }
    for (size_t k = 0; k < 2; k++)
        if (bufs[k]) be->buf_free(t->be_ctx, bufs[k]);
    if (prog) be->prog_free(t->be_ctx, prog);
    at_free(v);
    at_arena_free(arena);
    return st;
}

at_status at_net_gt_time_copy(void *timer, const at_net_node *n, int64_t from, int64_t to, double *cost_s)
{
    at_net_gt_timer *t = timer;
    const int64_t key[3] = {at_net_node_numel(n), from, to};
    for (size_t k = 0; k < t->n; k++)
        if (!memcmp(&t->key[3 * k], key, sizeof key)) {
            *cost_s = t->cost_s[k];
            return AT_OK;
        }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        int64_t *a = at_realloc(t->key, 3 * cap * sizeof *a);
        if (!a) return AT_OOM();
        t->key = a;
        double *b = at_realloc(t->cost_s, cap * sizeof *b);
        if (!b) return AT_OOM();
        t->cost_s = b;
        t->cap = cap;
    }
    double ms = 0;
    AT_TRY(time_layout(t, n, from, to, &ms));
    memcpy(&t->key[3 * t->n], key, sizeof key);
    t->cost_s[t->n++] = ms * 1e-3;
    *cost_s = ms * 1e-3;
    return AT_OK;
}

void at_net_gt_timer_fini(at_net_gt_timer *t)
{
    at_free(t->key);
    at_free(t->cost_s);
    t->key = NULL;
    t->cost_s = NULL;
    t->n = t->cap = 0;
}
