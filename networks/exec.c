/* The tuned executor: a plan (per anchor the implementation TVM's select_implementation would
 * choose from what dispatch answers) and a list of steps, each a prepared backend program with
 * its buffers bound. Every node owns one device buffer (flatten and dropout alias their input);
 * an anchor with an epilogue writes into one shared scratch buffer that its epilogue program
 * reads, so the template's program runs exactly as tuned. A program is prepared once per task
 * (and per affine shape) and launched by every node that needs it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "networks/exec.h"
#include "networks/internal.h"
#include "templates/ops.h"

/* ---- dispatch and plan ------------------------------------------------------------------------ */

at_status at_net_dispatch_fallback(void *ctx, const at_task *task, const char *args_json, at_net_choice *out)
{
    (void)ctx;
    (void)args_json;
    *out = (at_net_choice){0};
    return at_task_fallback_config(task, NULL, 0, &out->config);
}

struct at_net_plan {
    const at_net_tasks *tasks;
    size_t       n_nodes, n_tasks, n_fallback;
    bool        *is_anchor;
    at_net_pick *picks;
    at_config  **configs; /* per task, NULL when no anchor asked for it */
    at_config  **node_configs; /* per node: a graph tuner's choice (at_net_plan_set_pick), else NULL */
    double      *cost_s;
    bool        *tuned;
};

void at_net_plan_free(at_net_plan *p)
{
    if (!p) return;
    for (size_t i = 0; p->configs && i < p->n_tasks; i++) at_config_free(p->configs[i]);
    for (size_t i = 0; p->node_configs && i < p->n_nodes; i++) at_config_free(p->node_configs[i]);
    at_free(p->configs);
    at_free(p->node_configs);
    at_free(p->cost_s);
    at_free(p->tuned);
    at_free(p->is_anchor);
    at_free(p->picks);
    at_free(p);
}

bool at_net_plan_pick(const at_net_plan *p, size_t node, at_net_pick *out)
{
    AT_ASSERT(node < p->n_nodes);
    if (!p->is_anchor[node]) return false;
    *out = p->picks[node];
    return true;
}

const at_net_tasks *at_net_plan_tasks(const at_net_plan *p)
{
    return p->tasks;
}

size_t at_net_plan_n_fallback(const at_net_plan *p)
{
    return p->n_fallback;
}

at_status at_net_plan_set_pick(at_net_plan *p, size_t node, const at_config *config, double cost_s)
{
    AT_ASSERT(node < p->n_nodes && p->is_anchor[node]);
    at_config *c;
    AT_TRY(at_config_clone(config, &c));
    at_config_free(p->node_configs[node]);
    p->node_configs[node] = c;
    at_net_pick *k = &p->picks[node];
    if (!k->tuned) p->n_fallback--;
    k->config = c;
    k->cost_s = cost_s;
    k->tuned = true;
    return AT_OK;
}

/* c's index in the task's space, as the template applies records (as given or exactly). */
static at_status index_in_space(const at_task *task, const at_config *c, int64_t *index)
{
    return at_task_template(task)->entities_as_given ? at_space_index_of_as_given(at_task_space(task), c, index)
                                                     : at_space_index_of(at_task_space(task), c, index);
}

static at_status ask(at_net_plan *p, const at_net_tasks *tasks, size_t t, at_net_dispatch_fn fn, void *ctx)
{
    if (p->configs[t]) return AT_OK;
    at_net_choice c = {0};
    at_status st = fn(ctx, at_net_tasks_at(tasks, t), at_net_tasks_args_json(tasks, t), &c);
    if (st != AT_OK) {
        at_config_free(c.config);
        return st;
    }
    AT_ASSERT(c.config != NULL);
    if (c.tuned) {
        /* a record from a log: it must be a point of the task's space before any template sees it */
        const at_task *task = at_net_tasks_at(tasks, t);
        int64_t index;
        st = index_in_space(task, c.config, &index);
        if (st == AT_EPARSE) {
            /* a pre-0.6 log's names paired out of order: its values in definition order, when they
             * give the index it stored */
            at_config *pos = NULL;
            at_status pst = at_space_config_by_position_checked(at_task_space(task), c.config,
                                                                at_task_template(task)->entities_as_given, &pos, &index);
            if (pos) {
                at_config_free(c.config);
                c.config = pos;
                st = AT_OK;
            }
            if (pst == AT_ENOMEM) st = pst;
        }
        if (st != AT_OK) {
            at_config_free(c.config);
            return st == AT_ENOMEM ? st
                                   : AT_FAIL_WRAP(AT_EINVAL, "task %zu (%s %s): the dispatched config is not in its space",
                                                  t + 1, at_task_template(task)->name, at_net_tasks_args_json(tasks, t));
        }
    }
    p->configs[t] = c.config;
    p->cost_s[t] = c.cost_s;
    p->tuned[t] = c.tuned;
    return AT_OK;
}

at_status at_net_plan_new(const at_net *net, const at_net_tasks *tasks, at_net_dispatch_fn fn, void *ctx,
                          at_net_plan **out)
{
    *out = NULL;
    at_net_plan *p = at_calloc(1, sizeof *p);
    if (!p) return AT_OOM();
    p->tasks = tasks;
    p->n_nodes = at_net_n_nodes(net);
    p->n_tasks = at_net_tasks_count(tasks);
    p->is_anchor = at_calloc(p->n_nodes, sizeof *p->is_anchor);
    p->picks = at_calloc(p->n_nodes, sizeof *p->picks);
    p->node_configs = at_calloc(p->n_nodes, sizeof *p->node_configs);
    p->configs = at_calloc(p->n_tasks + 1, sizeof *p->configs);
    p->cost_s = at_calloc(p->n_tasks + 1, sizeof *p->cost_s);
    p->tuned = at_calloc(p->n_tasks + 1, sizeof *p->tuned);
    at_status st = p->is_anchor && p->picks && p->node_configs && p->configs && p->cost_s && p->tuned ? AT_OK : AT_OOM();
    for (size_t i = 0; st == AT_OK && i < p->n_nodes; i++) {
        const at_net_node *n = at_net_node_at(net, i);
        if (!at_net_op_is_anchor(n->op)) continue;
        const at_net_impl *impls;
        size_t n_impls = at_net_tasks_node_impls(tasks, i, &impls);
        size_t best = SIZE_MAX, top = SIZE_MAX;
        for (size_t k = 0; st == AT_OK && k < n_impls; k++) {
            size_t t = impls[k].task;
            if (t == SIZE_MAX) continue;
            st = ask(p, tasks, t, fn, ctx);
            if (st != AT_OK) break;
            /* TVM: lowest cost among tuned configs, first on ties; untuned: highest plevel */
            if (p->tuned[t] && (best == SIZE_MAX || p->cost_s[t] < p->cost_s[impls[best].task])) best = k;
            if (top == SIZE_MAX || impls[k].plevel > impls[top].plevel) top = k;
        }
        if (st != AT_OK) break;
        /* a grouped convolution the target has no template for runs untuned (group_conv.c) */
        if (n_impls == 0 && at_net_conv_is_grouped(net, n)) continue;
        if (top == SIZE_MAX) {
            st = AT_FAIL(AT_EINVAL, "node %s (%s): no implementation task (extract with all ops)", n->name,
                         at_net_op_name(n->op));
            break;
        }
        size_t k = best != SIZE_MAX ? best : top, t = impls[k].task;
        p->is_anchor[i] = true;
        p->picks[i] = (at_net_pick){.impl = k, .task = t, .config = p->configs[t], .cost_s = p->cost_s[t], .tuned = p->tuned[t]};
        p->n_fallback += !p->tuned[t];
    }
    if (st != AT_OK) {
        at_net_plan_free(p);
        return st;
    }
    *out = p;
    return AT_OK;
}

/* ---- executor --------------------------------------------------------------------------------- */

enum { MAX_ARGS = AT_NET_MAX_INPUTS + 4, MAX_BUFS = MAX_ARGS + 28 };

/* What a prepared program computes, so nodes that need the same program share it: an anchor's
 * (task, config index, epilogue) or an affine program's parameters. */
typedef enum prog_kind { PROG_OTHER = 0, PROG_TASK, PROG_AFFINE, PROG_LAYOUT } prog_kind;

typedef struct prog_key {
    prog_kind     kind;
    size_t        task;
    int64_t       config;
    at_net_affine affine;
} prog_key;

typedef struct prepared {
    prog_key             key;
    const at_ir_program *p;
    void                *prog;
    bool                 has_prepare; /* a kernel is a preparation kernel (weight packing) */
} prepared;

/* A node's buffer in another layout than its own, made once and shared by every reader. */
typedef struct layout_copy {
    size_t  node;
    int64_t blk;
    void   *buf;
} layout_copy;

/* One launch: the program and every buffer it takes -- the signature's (borrowed from the nodes
 * and parameters) then its temporaries (owned: per launch site, so packed weights persist). */
typedef struct step {
    prepared *prog;
    size_t    node;
    size_t    n_params, n_bufs;
    void     *bufs[MAX_BUFS];
    /* per temporary: 0 when the step owns it, else 1 + the workspace slot it borrows */
    size_t    slot[MAX_BUFS];
} step;

struct at_net_exec {
    const at_net           *net;
    const at_net_plan      *plan;
    const at_net_backend_i *be;
    void                   *ctx;
    at_arena               *arena;
    void                  **node_buf; /* per node; aliases share */
    bool                   *owns;
    bool                   *reused;   /* per node: its buffer is shared with others (at_net_exec_share_buffers) */
    void                  **shared;   /* the shared buffers, owned */
    size_t                  n_shared, shared_bytes;
    void                  **params;   /* uploaded parameter buffers */
    size_t                  n_params, cap_params;
    void                   *scratch;
    /* Workspace slots shared by every step's temporaries that no preparation kernel writes (a
     * padded input, say): the k-th such temporary of any step is slot k, sized for the largest.
     * Steps run one after another and such a temporary is written before it is read within its
     * step, so sharing is safe; it keeps the working set small and the buffers hot in the
     * caches, as TVM's workspace pool does (issue 16: a layer touching a cold padded copy ran
     * 1.5x slower than warm). */
    void                  **work;
    size_t                 *work_bytes;
    size_t                  n_work, cap_work;
    int64_t                *blk;      /* per node: its buffer's layout, NCHW (1) or NCHW[blk]c */
    layout_copy            *copies;   /* converted copies of node buffers, one per (node, block) */
    size_t                  n_copies, cap_copies;
    size_t                  cap_steps; /* of steps and progs */
    prepared               *progs;
    size_t                  n_progs;
    step                   *steps;
    size_t                  n_steps;
    void                   *seq;      /* the backend's recorded sequence of every step, if it has one */
    size_t                  cur_node; /* the node whose steps are being added */
    bool                    prepared; /* a run completed: packed weights are in place */
};

void at_net_exec_free(at_net_exec *e)
{
    if (!e) return;
    if (e->seq) e->be->seq_free(e->ctx, e->seq);
    for (size_t i = 0; e->steps && i < e->n_steps; i++)
        for (size_t k = e->steps[i].n_params; k < e->steps[i].n_bufs; k++)
            if (e->steps[i].bufs[k] && !e->steps[i].slot[k]) e->be->buf_free(e->ctx, e->steps[i].bufs[k]);
    for (size_t j = 0; e->work && j < e->n_work; j++)
        if (e->work[j]) e->be->buf_free(e->ctx, e->work[j]);
    at_free(e->work);
    at_free(e->work_bytes);
    for (size_t i = 0; e->progs && i < e->n_progs; i++)
        if (e->progs[i].prog) e->be->prog_free(e->ctx, e->progs[i].prog);
    for (size_t i = 0; e->node_buf && e->owns && i < at_net_n_nodes(e->net); i++)
        if (e->owns[i] && e->node_buf[i]) e->be->buf_free(e->ctx, e->node_buf[i]);
    for (size_t i = 0; i < e->n_params; i++) e->be->buf_free(e->ctx, e->params[i]);
    if (e->scratch) e->be->buf_free(e->ctx, e->scratch);
    for (size_t i = 0; i < e->n_copies; i++)
        if (e->copies[i].buf) e->be->buf_free(e->ctx, e->copies[i].buf);
    for (size_t i = 0; i < e->n_shared; i++) e->be->buf_free(e->ctx, e->shared[i]);
    at_free(e->shared);
    at_free(e->reused);
    at_free(e->copies);
    at_free(e->blk);
    at_free(e->progs);
    at_free(e->steps);
    at_free(e->node_buf);
    at_free(e->owns);
    at_free(e->params);
    at_arena_free(e->arena);
    at_free(e);
}

size_t at_net_exec_n_programs(const at_net_exec *e)
{
    return e->n_steps;
}

size_t at_net_exec_n_prepared(const at_net_exec *e)
{
    return e->n_progs;
}

/* Bytes of node's values (its buffer or a layout copy of it). */
static size_t node_bytes(const at_net_exec *e, size_t node)
{
    return (size_t)at_net_node_numel(at_net_node_at(e->net, node)) * sizeof(float);
}

size_t at_net_exec_value_bytes(const at_net_exec *e)
{
    size_t bytes = e->shared_bytes;
    for (size_t i = 1; i < at_net_n_nodes(e->net); i++)
        if (e->owns[i] && at_net_node_at(e->net, i)->op != AT_NET_CONSTANT) bytes += node_bytes(e, i);
    for (size_t c = 0; c < e->n_copies; c++)
        if (e->copies[c].buf) bytes += node_bytes(e, e->copies[c].node);
    return bytes;
}

size_t at_net_exec_n_layout_copies(const at_net_exec *e)
{
    return e->n_copies;
}

static bool key_equal(const prog_key *a, const prog_key *b)
{
    if (a->kind != b->kind || a->kind == PROG_OTHER || a->kind == PROG_LAYOUT) return false;
    if (a->kind == PROG_TASK && (a->task != b->task || a->config != b->config)) return false;
    const at_net_affine *x = &a->affine, *y = &b->affine;
    return x->total == y->total && x->channels == y->channels && x->inner == y->inner && x->block == y->block &&
           x->scale == y->scale &&
           x->shift == y->shift && x->residual == y->residual && x->relu == y->relu;
}

/* The prepared program of key, or NULL. */
static prepared *cached(at_net_exec *e, const prog_key *key)
{
    for (size_t i = 0; i < e->n_progs; i++)
        if (key_equal(&e->progs[i].key, key)) return &e->progs[i];
    return NULL;
}

/* The workspace slot j, growing to hold bytes (allocated by alloc_workspace). */
static at_status need_work(at_net_exec *e, size_t j, size_t bytes)
{
    if (j >= e->cap_work) {
        size_t cap = e->cap_work ? 2 * e->cap_work : 4;
        size_t *wb = at_realloc(e->work_bytes, cap * sizeof *wb);
        if (!wb) return AT_OOM();
        e->work_bytes = wb;
        for (size_t i = e->cap_work; i < cap; i++) wb[i] = 0;
        e->cap_work = cap;
    }
    if (j >= e->n_work) e->n_work = j + 1;
    if (bytes > e->work_bytes[j]) e->work_bytes[j] = bytes;
    return AT_OK;
}

/* Allocates the workspace slots and hands them to the steps that borrow them. */
static at_status alloc_workspace(at_net_exec *e)
{
    if (!e->n_work) return AT_OK;
    e->work = at_calloc(e->n_work, sizeof *e->work);
    if (!e->work) return AT_OOM();
    for (size_t j = 0; j < e->n_work; j++) AT_TRY(e->be->buf_new(e->ctx, e->work_bytes[j], &e->work[j]));
    for (size_t i = 0; i < e->n_steps; i++)
        for (size_t k = e->steps[i].n_params; k < e->steps[i].n_bufs; k++)
            if (e->steps[i].slot[k]) e->steps[i].bufs[k] = e->work[e->steps[i].slot[k] - 1];
    return AT_OK;
}

/* Appends a launch of q with its signature buffers args and its temporaries: new ones for what
 * preparation kernels write, workspace slots (alloc_workspace) for the rest. */
static at_status push_step(at_net_exec *e, prepared *q, void *const *args, size_t n_args)
{
    const at_ir_program *p = q->p;
    AT_ASSERT(e->n_steps < e->cap_steps);
    AT_ASSERT(n_args <= MAX_ARGS && n_args == at_ir_program_n_params(p) && p->n_bufs <= MAX_BUFS);
    step *s = &e->steps[e->n_steps++];
    memset(s, 0, sizeof *s);
    s->prog = q;
    s->node = e->cur_node;
    s->n_params = n_args;
    s->n_bufs = p->n_bufs;
    memcpy(s->bufs, args, n_args * sizeof *args);
    size_t n_borrowed = 0;
    for (size_t k = n_args; k < p->n_bufs; k++) {
        size_t bytes = (size_t)p->bufs[k]->size * at_ir_type_bytes(p->bufs[k]->elem);
        if (at_ir_program_prepares(p, p->bufs[k])) {
            AT_TRY(e->be->buf_new(e->ctx, bytes, &s->bufs[k]));
        } else {
            AT_TRY(need_work(e, n_borrowed, bytes));
            s->slot[k] = ++n_borrowed;
        }
    }
    return AT_OK;
}

/* Registers p under key (built on the backend once every step is known: build_programs) and
 * appends a launch of it. */
static at_status add_step(at_net_exec *e, const prog_key *key, const at_ir_program *p, void *const *args, size_t n_args)
{
    AT_ASSERT(e->n_progs < e->cap_steps);
    prepared *q = &e->progs[e->n_progs];
    memset(q, 0, sizeof *q);
    q->key = *key;
    q->p = p;
    for (size_t k = 0; k < p->n_kernels; k++) q->has_prepare |= p->kernels[k].prepare;
    e->n_progs++;
    return push_step(e, q, args, n_args);
}

/* Every distinct program made runnable, all at once where the backend can. */
static at_status build_programs(at_net_exec *e)
{
    if (!e->be->prog_new_all) {
        for (size_t i = 0; i < e->n_progs; i++) AT_TRY(e->be->prog_new(e->ctx, e->progs[i].p, &e->progs[i].prog));
        return AT_OK;
    }
    const at_ir_program **ps = at_calloc(e->n_progs + 1, sizeof *ps);
    void **out = at_calloc(e->n_progs + 1, sizeof *out);
    at_status st = ps && out ? AT_OK : AT_OOM();
    for (size_t i = 0; st == AT_OK && i < e->n_progs; i++) ps[i] = e->progs[i].p;
    if (st == AT_OK) {
        st = e->be->prog_new_all(e->ctx, ps, e->n_progs, out);
        for (size_t i = 0; i < e->n_progs; i++) e->progs[i].prog = out[i];
    }
    at_free(ps);
    at_free(out);
    return st;
}

/* A device buffer holding a copy of host[0..n). */
static at_status upload(at_net_exec *e, const float *host, int64_t n, void **out)
{
    *out = NULL;
    if (e->n_params == e->cap_params) {
        size_t cap = e->cap_params ? e->cap_params * 2 : 64;
        void **p = at_realloc(e->params, cap * sizeof *p);
        if (!p) return AT_OOM();
        e->params = p;
        e->cap_params = cap;
    }
    void *b;
    AT_TRY(e->be->buf_new(e->ctx, (size_t)n * sizeof(float), &b));
    e->params[e->n_params++] = b;
    AT_TRY(e->be->buf_write(e->ctx, b, host));
    *out = b;
    return AT_OK;
}

static at_status affine_step(at_net_exec *e, const at_net_node *n, const at_net_affine *a, void *x, void *scale,
                             void *shift, void *res, void *y)
{
    void *args[5];
    size_t k = 0;
    args[k++] = x;
    if (a->scale) args[k++] = scale;
    if (a->shift) args[k++] = shift;
    if (a->residual) args[k++] = res;
    args[k++] = y;
    prog_key key = {.kind = PROG_AFFINE, .affine = *a};
    prepared *q = cached(e, &key);
    if (q) return push_step(e, q, args, k);
    const at_ir_program *p;
    AT_TRY(at_net_prog_affine(e->arena, n->name, a, &p));
    return add_step(e, &key, p, args, k);
}

static at_net_affine affine_of(const at_net_node *n)
{
    return (at_net_affine){.total = at_net_node_numel(n), .channels = n->shape[1],
                           .inner = n->ndim == 4 ? n->shape[2] * n->shape[3] : 1};
}

static bool has_epilogue(const at_net_node *n)
{
    return n->epi.bias || n->epi.residual || n->epi.relu;
}

/* ---- layouts: TVM's alter_op_layout for the NCHW[x]c anchors ------------------------------------
 * A packed anchor (TVM's x86 conv2d) reads NCHW[ic_bn]c and writes NCHW[oc_bn]c. The per-channel
 * element-wise nodes after it (batch norm, scale-shift, bias add, relu, add, dropout) and pooling
 * keep their first input's layout, so a conv, its pre-activation and the next conv share one layout and no
 * transform runs between them when the block sizes agree. A global average pooling reads any
 * blocking and writes NCHW (at_net_reads_any_block). Every other node reads NCHW. A reader
 * wanting another layout than its producer's gets a converted copy, made once per (node, block). */

bool at_net_keeps_layout(const at_net_node *n)
{
    at_net_op op = n->op;
    bool per_channel = op == AT_NET_BATCH_NORM || op == AT_NET_SCALE_SHIFT || op == AT_NET_BIAS_ADD || op == AT_NET_RELU ||
                       op == AT_NET_ADD || op == AT_NET_DROPOUT;
    /* pooling windows run over H and W only: any channel blocking serves (TVM's NCHWc pooling) */
    bool pool = op == AT_NET_MAX_POOL2D || op == AT_NET_AVG_POOL2D;
    return (per_channel || pool) && n->ndim == 4;
}

bool at_net_reads_any_block(const at_net_node *n)
{
    return n->op == AT_NET_GLOBAL_AVG_POOL2D && n->ndim == 4;
}

int64_t at_net_concat_block(const at_net *net, const at_net_node *n, const int64_t *blk)
{
    if (n->op != AT_NET_CONCAT || n->ndim != 4 || n->attrs.axis != 1 || n->n_inputs == 0) return 1;
    int64_t b = blk[n->inputs[0]];
    for (size_t k = 0; b > 1 && k < n->n_inputs; k++)
        if (blk[n->inputs[k]] != b || at_net_node_at(net, n->inputs[k])->shape[1] % b) b = 1;
    return b;
}

/* The packed anchor's (ic_bn, oc_bn), or false for a node that is none. */
static bool packed_blocks(const at_net_exec *e, size_t i, int64_t *ic_bn, int64_t *oc_bn)
{
    const at_net_node *n = at_net_node_at(e->net, i);
    at_net_pick pick;
    if (!at_net_op_is_anchor(n->op) || !at_net_plan_pick(e->plan, i, &pick)) return false;
    const at_template *t = at_task_template(at_net_tasks_at(e->plan->tasks, pick.task));
    return t->schedule_packed && at_tmpl_packed_blocks(t, pick.config, ic_bn, oc_bn) == AT_OK;
}

static void plan_layouts(at_net_exec *e)
{
    size_t nn = at_net_n_nodes(e->net);
    e->blk[0] = 1;
    for (size_t i = 1; i < nn; i++) {
        const at_net_node *n = at_net_node_at(e->net, i);
        int64_t ic_bn, oc_bn;
        e->blk[i] = 1;
        if (packed_blocks(e, i, &ic_bn, &oc_bn))
            e->blk[i] = oc_bn;
        else if (at_net_keeps_layout(n))
            e->blk[i] = e->blk[n->inputs[0]];
        else if (n->op == AT_NET_CONCAT)
            e->blk[i] = at_net_concat_block(e->net, n, e->blk);
    }
}

/* Node j's values in layout blk: its own buffer, or a converted copy made by steps added now. */
static at_status in_layout(at_net_exec *e, size_t j, int64_t blk, void **out)
{
    if (e->blk[j] == blk) {
        *out = e->node_buf[j];
        return AT_OK;
    }
    for (size_t k = 0; k < e->n_copies; k++)
        if (e->copies[k].node == j && e->copies[k].blk == blk) {
            *out = e->copies[k].buf;
            return AT_OK;
        }
    const at_net_node *n = at_net_node_at(e->net, j);
    AT_ASSERT(n->ndim == 4);
    if (e->n_copies == e->cap_copies) {
        size_t cap = e->cap_copies ? 2 * e->cap_copies : 16;
        layout_copy *c = at_realloc(e->copies, cap * sizeof *c);
        if (!c) return AT_OOM();
        e->copies = c;
        e->cap_copies = cap;
    }
    layout_copy *c = &e->copies[e->n_copies];
    AT_TRY(e->be->buf_new(e->ctx, (size_t)at_net_node_numel(n) * sizeof(float), &c->buf));
    c->node = j;
    c->blk = blk;
    e->n_copies++;
    char name[96];
    if (blk > 1)
        snprintf(name, sizeof name, "%s_to_NCHW%" PRId64 "c", n->name, blk);
    else
        snprintf(name, sizeof name, "%s_to_NCHW", n->name);
    const at_ir_program *p;
    const prog_key layout = {.kind = PROG_LAYOUT};
    AT_TRY(at_net_prog_layout(e->arena, name, n->shape[0], n->shape[1], n->shape[2] * n->shape[3], e->blk[j], blk, &p));
    AT_TRY(add_step(e, &layout, p, (void *[]){e->node_buf[j], c->buf}, 2));
    *out = c->buf;
    return AT_OK;
}

/* The anchor's program: with its epilogue fused into the output stores where the template takes
 * it, else the plain program on the scratch output and the epilogue as an affine step after it.
 * args: the signature's buffers, the epilogue's (bias, residual) after the first 3. */
static at_status anchor_program(at_net_exec *e, size_t i, const at_task *t, const at_net_pick *pick, bool packed,
                                const at_net_affine *a, void **args, size_t n_args, void *bias, void *res)
{
    const at_net_node *n = at_net_node_at(e->net, i);
    bool epi = has_epilogue(n);
    prog_key key = {.kind = PROG_TASK, .task = pick->task, .config = at_config_index(pick->config),
                    .affine = epi ? *a : (at_net_affine){0}};
    prepared *q = cached(e, &key);
    if (q) return push_step(e, q, args, n_args);
    const at_ir_program *p;
    at_status st;
    if (epi) {
        at_net_fused_epilogue fused;
        at_net_fused_epilogue_init(&fused, a);
        st = packed ? at_task_instantiate_packed(t, pick->config, &fused.epi, e->arena, &p)
                    : at_task_instantiate_fused(t, pick->config, &fused.epi, e->arena, &p);
        if (st == AT_OK) return add_step(e, &key, p, args, n_args);
        if (st == AT_ENOMEM) return st;
        key.affine = (at_net_affine){0};
    }
    void *plain[3] = {args[0], args[1], epi ? e->scratch : e->node_buf[i]};
    if ((q = cached(e, &key))) {
        AT_TRY(push_step(e, q, plain, 3));
    } else {
        st = packed ? at_task_instantiate_packed(t, pick->config, NULL, e->arena, &p)
                    : at_task_instantiate(t, pick->config, e->arena, &p);
        if (st != AT_OK)
            return st == AT_ENOMEM ? st
                                   : AT_FAIL_WRAP(st, "node %s: %s config %" PRId64, n->name, at_task_template(t)->name,
                                                  at_config_index(pick->config));
        AT_TRY(add_step(e, &key, p, plain, 3));
    }
    if (!epi) return AT_OK;
    return affine_step(e, n, a, e->scratch, NULL, bias, res, e->node_buf[i]);
}

/* An anchor: its weights (and bias) uploaded, its input in its layout -- NCHW[ic_bn]c for a
 * packed anchor (TVM's x86 conv2d, whose kernel_vec a preparation kernel packs once), which
 * writes NCHW[oc_bn]c and reads its residual so, else NCHW -- and its program. */
static at_status anchor_steps(at_net_exec *e, size_t i)
{
    const at_net_node *n = at_net_node_at(e->net, i);
    at_net_pick pick;
    AT_ASSERT(at_net_plan_pick(e->plan, i, &pick));
    const at_task *t = at_net_tasks_at(e->plan->tasks, pick.task);
    void *w, *bias = NULL, *res = NULL;
    AT_TRY(upload(e, n->weight, at_net_weight_numel(e->net, n), &w));
    if (n->epi.bias) AT_TRY(upload(e, n->bias, n->attrs.channels, &bias));
    at_net_affine a = affine_of(n);
    a.shift = n->epi.bias;
    a.residual = n->epi.residual;
    a.relu = n->epi.relu;
    bool packed = at_task_template(t)->schedule_packed;
    int64_t ic_bn = 1, oc_bn = 1;
    if (packed) {
        AT_TRY(at_tmpl_packed_blocks(at_task_template(t), pick.config, &ic_bn, &oc_bn));
        a.block = oc_bn;
    }
    void *x;
    AT_TRY(in_layout(e, n->inputs[0], ic_bn, &x));
    if (n->epi.residual) AT_TRY(in_layout(e, n->inputs[1], oc_bn, &res));
    void *args[5] = {x, w, e->node_buf[i]}; /* at_op_tensors' order, then the epilogue's */
    size_t n_args = 3;
    if (a.shift) args[n_args++] = bias;
    if (a.residual) args[n_args++] = res;
    return anchor_program(e, i, t, &pick, packed, &a, args, n_args, bias, res);
}

static at_status node_steps(at_net_exec *e, size_t i)
{
    const at_net_node *n = at_net_node_at(e->net, i);
    const at_net_node *in = at_net_node_at(e->net, n->inputs[0]);
    at_net_pick pick;
    if ((n->op == AT_NET_CONV2D || n->op == AT_NET_DENSE) && at_net_plan_pick(e->plan, i, &pick)) return anchor_steps(e, i);
    if (n->op == AT_NET_CONSTANT) return AT_OK; /* its buffer holds the values from the start */
    if (n->op == AT_NET_DROPOUT) {          /* an alias, in its input's layout */
        e->node_buf[i] = e->node_buf[n->inputs[0]];
        return AT_OK;
    }
    /* a node keeping its input's layout, or reading any, reads it as it is; every other reads NCHW */
    void *x, *y = e->node_buf[i];
    int64_t in_blk = at_net_reads_any_block(n) ? e->blk[n->inputs[0]] : e->blk[i];
    AT_TRY(in_layout(e, n->inputs[0], in_blk, &x));
    at_net_affine a = affine_of(n);
    a.block = e->blk[i];
    const at_ir_program *p = NULL;
    const prog_key other = {.kind = PROG_OTHER};
    void *x2 = NULL;
    if (n->n_inputs > 1 && n->op != AT_NET_CONCAT) AT_TRY(in_layout(e, n->inputs[1], e->blk[i], &x2));
    switch (n->op) {
    case AT_NET_CONV2D:
    case AT_NET_DENSE: {
        /* a grouped conv no task covers (the OpenCL targets): a direct program, untuned */
        AT_ASSERT(at_net_conv_is_grouped(e->net, n));
        void *args[5] = {x, NULL, y};
        size_t k = 3;
        AT_TRY(upload(e, n->weight, at_net_weight_numel(e->net, n), &args[1]));
        if (n->epi.bias) AT_TRY(upload(e, n->bias, n->attrs.channels, &args[k++]));
        if (n->epi.residual) args[k++] = x2;
        AT_TRY(at_net_prog_group_conv(e->arena, e->net, n, &p));
        return add_step(e, &other, p, args, k);
    }
    case AT_NET_BATCH_NORM: {
        int64_t c = n->shape[1];
        float *sc = at_net_floats(c), *sh = at_net_floats(c);
        at_status st = sc && sh ? AT_OK : AT_OOM();
        for (int64_t k = 0; st == AT_OK && k < c; k++) {
            double s = 1.0 / sqrt((double)n->var[k] + n->attrs.eps);
            if (!n->attrs.no_scale) s *= n->gamma[k];
            sc[k] = (float)s;
            sh[k] = (float)((double)n->beta[k] - (double)n->mean[k] * s);
        }
        void *bs = NULL, *bh = NULL;
        if (st == AT_OK) st = upload(e, sc, c, &bs);
        if (st == AT_OK) st = upload(e, sh, c, &bh);
        at_free(sc);
        at_free(sh);
        AT_TRY(st);
        a.scale = a.shift = true;
        return affine_step(e, n, &a, x, bs, bh, NULL, y);
    }
    case AT_NET_SCALE_SHIFT: {
        void *bs, *bh;
        AT_TRY(upload(e, n->scale, n->shape[1], &bs));
        AT_TRY(upload(e, n->shift, n->shape[1], &bh));
        a.scale = a.shift = true;
        a.relu = n->epi.relu;
        return affine_step(e, n, &a, x, bs, bh, NULL, y);
    }
    case AT_NET_BIAS_ADD: {
        void *bh;
        AT_TRY(upload(e, n->bias, n->shape[1], &bh));
        a.shift = true;
        return affine_step(e, n, &a, x, NULL, bh, NULL, y);
    }
    case AT_NET_RELU:
        a.relu = true;
        return affine_step(e, n, &a, x, NULL, NULL, NULL, y);
    case AT_NET_ADD:
        a.residual = true;
        return affine_step(e, n, &a, x, NULL, NULL, x2, y);
    case AT_NET_MAX_POOL2D:
    case AT_NET_AVG_POOL2D:
        AT_TRY(at_net_prog_pool(e->arena, n, in, e->blk[i], &p));
        return add_step(e, &other, p, (void *[]){x, y}, 2);
    case AT_NET_PAD:
    case AT_NET_TRANSPOSE:
    case AT_NET_REDUCE_MEAN:
    case AT_NET_RESIZE:
        AT_TRY(at_net_prog_tensor(e->arena, e->net, n, &p));
        return add_step(e, &other, p, (void *[]){x, y}, 2);
    case AT_NET_CONV2D_TRANSPOSE: {
        void *wh;
        AT_TRY(upload(e, n->weight, at_net_weight_numel(e->net, n), &wh));
        AT_TRY(at_net_prog_conv_transpose(e->arena, e->net, n, &p));
        return add_step(e, &other, p, (void *[]){x, wh, y}, 3);
    }
    case AT_NET_BINARY:
        AT_TRY(at_net_prog_tensor(e->arena, e->net, n, &p));
        return add_step(e, &other, p, (void *[]){x, x2, y}, 3);
    case AT_NET_GLOBAL_AVG_POOL2D:
        AT_TRY(at_net_prog_global_avg_pool(e->arena, n, in, in_blk, &p));
        return add_step(e, &other, p, (void *[]){x, y}, 2);
    case AT_NET_SOFTMAX:
        AT_TRY(at_net_prog_softmax(e->arena, n, &p));
        return add_step(e, &other, p, (void *[]){x, y}, 2);
    case AT_NET_ACTIVATION:
        AT_TRY(at_net_prog_activation(e->arena, n, &p));
        return add_step(e, &other, p, (void *[]){x, y}, 2);
    case AT_NET_CONCAT: {
        void *args[AT_NET_MAX_INPUTS + 1];
        /* in NCHW[b]c too: an input's C_k/b blocks of H W b values lie together as its C_k rows of
         * H W do in NCHW, so the same copies concatenate the channels */
        for (size_t k = 0; k < n->n_inputs; k++) AT_TRY(in_layout(e, n->inputs[k], e->blk[i], &args[k]));
        args[n->n_inputs] = y;
        AT_TRY(at_net_prog_concat(e->arena, e->net, n, &p));
        return add_step(e, &other, p, args, n->n_inputs + 1);
    }
    case AT_NET_BATCH_FLATTEN:
    case AT_NET_RESHAPE:
        /* aliases of the NCHW input (of its NCHW copy when the input is packed) */
        e->node_buf[i] = x;
        return AT_OK;
    case AT_NET_CONSTANT:
    case AT_NET_DROPOUT:
    case AT_NET_INPUT:
    case AT_NET_OP_COUNT:
        break;
    }
    AT_ASSERT(!"unexpected node");
    return AT_OK;
}

/* Buffers: one per node (aliases share their input's) and one scratch for epilogue inputs; the
 * layout copies come with the steps that fill them (in_layout). */
static at_status alloc_buffers(at_net_exec *e)
{
    size_t nn = at_net_n_nodes(e->net);
    int64_t scratch = 0;
    for (size_t i = 0; i < nn; i++) {
        const at_net_node *n = at_net_node_at(e->net, i);
        if (n->op == AT_NET_BATCH_FLATTEN || n->op == AT_NET_DROPOUT || n->op == AT_NET_RESHAPE)
            continue; /* aliases: node_steps points them at their input's buffer */
        AT_TRY(e->be->buf_new(e->ctx, (size_t)at_net_node_numel(n) * sizeof(float), &e->node_buf[i]));
        e->owns[i] = true;
        if (n->op == AT_NET_CONSTANT) AT_TRY(e->be->buf_write(e->ctx, e->node_buf[i], n->weight));
        if (at_net_op_is_anchor(n->op) && has_epilogue(n) && at_net_node_numel(n) > scratch) scratch = at_net_node_numel(n);
    }
    if (scratch) AT_TRY(e->be->buf_new(e->ctx, (size_t)scratch * sizeof(float), &e->scratch));
    return AT_OK;
}

/* Every step bound once into the backend's sequence, so a run enqueues without host work. */
static at_status record_sequence(at_net_exec *e)
{
    AT_TRY(e->be->seq_new(e->ctx, &e->seq));
    for (size_t i = 0; i < e->n_steps; i++)
        AT_TRY(e->be->seq_add(e->ctx, e->seq, e->steps[i].prog->prog, e->steps[i].bufs, e->steps[i].n_bufs));
    return AT_OK;
}

at_status at_net_exec_new(const at_net *net, const at_net_plan *plan, const at_net_backend_i *be, void *be_ctx,
                          at_net_exec **out)
{
    *out = NULL;
    if (!at_net_is_fused(net)) return AT_FAIL(AT_EINVAL, "network %s: run the fused form", at_net_name(net));
    if (!at_net_has_params(net)) return AT_FAIL(AT_EINVAL, "network %s was built without parameters", at_net_name(net));
    AT_ASSERT(plan->n_nodes == at_net_n_nodes(net));
    size_t nn = at_net_n_nodes(net);
    at_net_exec *e = at_calloc(1, sizeof *e);
    if (!e) return AT_OOM();
    e->net = net;
    e->plan = plan;
    e->be = be;
    e->ctx = be_ctx;
    e->node_buf = at_calloc(nn, sizeof *e->node_buf);
    e->owns = at_calloc(nn, sizeof *e->owns);
    /* at most an anchor and its epilogue (or a packed anchor's fallback epilogue) a node, plus the
     * layout copies its inputs take: one step an input edge */
    e->cap_steps = 3 * nn;
    for (size_t i = 0; i < nn; i++) e->cap_steps += at_net_node_at(net, i)->n_inputs;
    e->steps = at_calloc(e->cap_steps, sizeof *e->steps);
    e->progs = at_calloc(e->cap_steps, sizeof *e->progs);
    e->blk = at_calloc(nn, sizeof *e->blk);
    e->reused = at_calloc(nn, sizeof *e->reused);
    at_status st = e->node_buf && e->owns && e->reused && e->steps && e->progs && e->blk ? at_arena_new(0, &e->arena) : AT_OOM();
    if (st == AT_OK) {
        plan_layouts(e);
        st = alloc_buffers(e);
    }
    for (size_t i = 1; st == AT_OK && i < nn; i++) {
        e->cur_node = i;
        st = node_steps(e, i);
    }
    if (st == AT_OK) st = alloc_workspace(e);
    if (st == AT_OK) st = build_programs(e);
    if (st == AT_OK && be->seq_new) st = record_sequence(e);
    if (st != AT_OK) {
        at_net_exec_free(e);
        return st;
    }
    *out = e;
    return AT_OK;
}

/* Is b a buffer the storage plan may reuse: a node's own (not the input, a constant or the output,
 * nor one the output aliases) or a layout copy? Its index among them in *k. */
static bool reusable(const at_net_exec *e, const void *b, size_t *k)
{
    size_t nn = at_net_n_nodes(e->net), out = at_net_output(e->net);
    if (b == e->node_buf[0] || b == e->node_buf[out]) return false;
    for (size_t i = 1; i < nn; i++)
        if (e->node_buf[i] == b && e->owns[i]) {
            *k = i;
            return at_net_node_at(e->net, i)->op != AT_NET_CONSTANT;
        }
    for (size_t c = 0; c < e->n_copies; c++)
        if (e->copies[c].buf == b) {
            *k = nn + c;
            return true;
        }
    return false;
}

at_status at_net_exec_share_buffers(at_net_exec *e)
{
    AT_ASSERT(!e->n_shared);
    size_t nn = at_net_n_nodes(e->net), nb = nn + e->n_copies;
    at_net_live *live = at_calloc(nb + 1, sizeof *live);
    bool *used = at_calloc(nb + 1, sizeof *used);
    size_t *slot = at_calloc(nb + 1, sizeof *slot), *sel = at_calloc(nb + 1, sizeof *sel);
    size_t *slot_bytes = NULL, n_slots = 0, n_sel = 0;
    at_status st = live && used && slot && sel ? AT_OK : AT_OOM();
    for (size_t s = 0; st == AT_OK && s < e->n_steps; s++)
        for (size_t a = 0; a < e->steps[s].n_params; a++) {
            size_t k;
            if (!reusable(e, e->steps[s].bufs[a], &k)) continue;
            if (!used[k]) live[k] = (at_net_live){.bytes = node_bytes(e, k < nn ? k : e->copies[k - nn].node), .first = s};
            used[k] = true;
            live[k].last = s;
        }
    /* the planner sees the used buffers only, in buffer order */
    for (size_t k = 0; st == AT_OK && k < nb; k++)
        if (used[k]) live[n_sel++] = live[k];
    if (st == AT_OK) st = at_net_plan_storage(live, n_sel, slot, &slot_bytes, &n_slots);
    if (st == AT_OK && !(e->shared = at_calloc(n_slots + 1, sizeof *e->shared))) st = AT_OOM();
    for (size_t j = 0; st == AT_OK && j < n_slots; j++) {
        st = e->be->buf_new(e->ctx, slot_bytes[j], &e->shared[j]);
        if (st == AT_OK) e->n_shared++;
        if (st == AT_OK) e->shared_bytes += slot_bytes[j];
    }
    if (st == AT_OK) {
        /* each used buffer's slot, by buffer index */
        for (size_t k = 0, q = 0; k < nb; k++) sel[k] = used[k] ? slot[q++] : SIZE_MAX;
        for (size_t k = 0; k < nb; k++) {
            if (!used[k]) continue;
            void *old = k < nn ? e->node_buf[k] : e->copies[k - nn].buf, *to = e->shared[sel[k]];
            for (size_t s = 0; s < e->n_steps; s++)
                for (size_t a = 0; a < e->steps[s].n_params; a++)
                    if (e->steps[s].bufs[a] == old) e->steps[s].bufs[a] = to;
            for (size_t i = 1; i < nn; i++)
                if (e->node_buf[i] == old) {
                    e->node_buf[i] = to;
                    e->reused[i] = true;
                }
            if (k >= nn) e->copies[k - nn].buf = NULL;
            else e->owns[k] = false;
            e->be->buf_free(e->ctx, old);
        }
    }
    if (st == AT_OK && e->seq) {
        /* the recorded sequence holds the old buffers */
        e->be->seq_free(e->ctx, e->seq);
        e->seq = NULL;
        st = record_sequence(e);
    }
    at_free(live);
    at_free(used);
    at_free(slot);
    at_free(sel);
    at_free(slot_bytes);
    return st;
}

at_status at_net_exec_set_input(at_net_exec *e, const float *input)
{
    return e->be->buf_write(e->ctx, e->node_buf[0], input);
}

at_status at_net_exec_run(at_net_exec *e, double *device_ms)
{
    /* TVM packs weights at compile time: the first run runs every kernel, so the preparation
     * kernels' temporaries hold the packed weights of each launch site; later runs leave them out */
    if (e->seq) {
        AT_TRY(e->be->seq_run(e->ctx, e->seq, e->prepared, device_ms, NULL));
        e->prepared = true;
        return AT_OK;
    }
    double total = 0;
    for (size_t i = 0; i < e->n_steps; i++) {
        step *s = &e->steps[i];
        double ms = 0;
        AT_TRY(e->be->prog_run(e->ctx, s->prog->prog, s->bufs, s->n_bufs, e->prepared, device_ms ? &ms : NULL));
        total += ms;
    }
    if (e->be->finish) AT_TRY(e->be->finish(e->ctx));
    e->prepared = true;
    if (device_ms) *device_ms = total;
    return AT_OK;
}

at_status at_net_exec_profile(at_net_exec *e, double *node_ms, double *copy_ms)
{
    size_t nn = at_net_n_nodes(e->net);
    for (size_t i = 0; i < nn; i++) node_ms[i] = copy_ms[i] = 0;
    double *step_ms = at_calloc(e->n_steps + 1, sizeof *step_ms);
    if (!step_ms) return AT_OOM();
    double total;
    at_status st = AT_OK;
    if (e->seq) {
        st = e->be->seq_run(e->ctx, e->seq, e->prepared, &total, step_ms);
    } else {
        for (size_t i = 0; st == AT_OK && i < e->n_steps; i++) {
            step *s = &e->steps[i];
            st = e->be->prog_run(e->ctx, s->prog->prog, s->bufs, s->n_bufs, e->prepared, &step_ms[i]);
        }
        if (st == AT_OK && e->be->finish) st = e->be->finish(e->ctx);
    }
    if (st == AT_OK) {
        e->prepared = true;
        for (size_t i = 0; i < e->n_steps; i++)
            (e->steps[i].prog->key.kind == PROG_LAYOUT ? copy_ms : node_ms)[e->steps[i].node] += step_ms[i];
    }
    at_free(step_ms);
    return st;
}

at_status at_net_exec_get(at_net_exec *e, size_t node, float *out)
{
    AT_ASSERT(node < at_net_n_nodes(e->net));
    const at_net_node *n = at_net_node_at(e->net, node);
    if (e->reused[node])
        return AT_FAIL(AT_EINVAL, "node %s: its buffer is shared with later nodes (at_net_exec_share_buffers)", n->name);
    int64_t bn = e->blk[node];
    if (bn <= 1) return e->be->buf_read(e->ctx, e->node_buf[node], out);
    /* NCHW[bn]c on the device, NCHW for the caller */
    int64_t c = n->shape[1], hw = n->shape[2] * n->shape[3], total = at_net_node_numel(n);
    float *packed = at_net_floats(total);
    if (!packed) return AT_OOM();
    at_status st = e->be->buf_read(e->ctx, e->node_buf[node], packed);
    for (int64_t i = 0; st == AT_OK && i < total; i++) {
        int64_t p = i % hw, ch = (i / hw) % c, b = i / (hw * c);
        out[i] = packed[((b * (c / bn) + ch / bn) * hw + p) * bn + ch % bn];
    }
    at_free(packed);
    return st;
}

at_status at_net_exec_check(at_net_exec *e, const float *input, double atol, double rtol, bool all_nodes,
                            at_net_check *out)
{
    *out = (at_net_check){.node = SIZE_MAX, .index = -1};
    at_net_values *ref;
    AT_TRY(at_net_run_reference(e->net, input, all_nodes, &ref));
    size_t n = at_net_n_nodes(e->net), last = at_net_output(e->net);
    float *got = NULL;
    double worst = 0;
    at_status st = AT_OK;
    for (size_t i = all_nodes ? 1 : last; st == AT_OK && i < n; i++) {
        const float *want = at_net_values_get(ref, i);
        int64_t len = at_net_node_numel(at_net_node_at(e->net, i));
        at_free(got);
        if (!(got = at_net_floats(len))) {
            st = AT_OOM();
            break;
        }
        st = at_net_exec_get(e, i, got);
        double scale = 0;
        for (int64_t k = 0; k < len; k++) scale = fmax(scale, fabs((double)want[k]));
        for (int64_t k = 0; st == AT_OK && k < len; k++) {
            double d = fabs((double)got[k] - (double)want[k]);
            bool bad = !(d <= atol + rtol * scale);
            out->n_bad += bad;
            double key = isnan(d) ? INFINITY : d; /* the largest error, NaN above all, first on ties */
            if (out->node == SIZE_MAX || key > worst) {
                worst = key;
                size_t n_bad = out->n_bad;
                *out = (at_net_check){.n_bad = n_bad, .node = i, .index = k, .got = got[k], .want = want[k], .abs_err = d};
            }
        }
    }
    at_free(got);
    at_net_values_free(ref);
    return st;
}

/* ---- the IR interpreter backend --------------------------------------------------------------- */

typedef struct ibuf {
    size_t bytes;
    void  *data;
} ibuf;

static at_status interp_buf_new(void *ctx, size_t bytes, void **out)
{
    (void)ctx;
    *out = NULL;
    ibuf *b = at_calloc(1, sizeof *b);
    if (b) b->data = at_calloc(1, bytes);
    if (!b || !b->data) {
        at_free(b);
        return AT_OOM();
    }
    b->bytes = bytes;
    *out = b;
    return AT_OK;
}

static void interp_buf_free(void *ctx, void *buf)
{
    (void)ctx;
    ibuf *b = buf;
    if (!b) return;
    at_free(b->data);
    at_free(b);
}

static at_status interp_buf_write(void *ctx, void *buf, const void *src)
{
    (void)ctx;
    ibuf *b = buf;
    memcpy(b->data, src, b->bytes);
    return AT_OK;
}

static at_status interp_buf_read(void *ctx, void *buf, void *dst)
{
    (void)ctx;
    const ibuf *b = buf;
    memcpy(dst, b->data, b->bytes);
    return AT_OK;
}

typedef struct iprog {
    const at_ir_program *p;
} iprog;

static at_status interp_prog_new(void *ctx, const at_ir_program *p, void **out)
{
    (void)ctx;
    iprog *q = at_malloc(sizeof *q);
    if (!q) return AT_OOM();
    q->p = p;
    *out = q;
    return AT_OK;
}

static void interp_prog_free(void *ctx, void *prog)
{
    (void)ctx;
    at_free(prog);
}

/* Runs the whole program whatever skip_prepare says (at_ir_interp allocates the temporaries
 * itself, so packed weights are recomputed each time: slower, same result). */
static at_status interp_prog_run(void *ctx, void *prog, void *const *bufs, size_t n, bool skip_prepare, double *device_ms)
{
    (void)ctx;
    (void)skip_prepare;
    if (device_ms) *device_ms = 0; /* the interpreter does not time */
    const iprog *q = prog;
    size_t n_params = at_ir_program_n_params(q->p);
    void *data[MAX_ARGS];
    AT_ASSERT(n >= n_params && n_params <= MAX_ARGS);
    for (size_t i = 0; i < n_params; i++) data[i] = ((ibuf *)bufs[i])->data;
    return at_ir_interp(q->p, data);
}

static const at_net_backend_i interp_backend = {
    .name = "interp",
    .buf_new = interp_buf_new,
    .buf_free = interp_buf_free,
    .buf_write = interp_buf_write,
    .buf_read = interp_buf_read,
    .prog_new = interp_prog_new,
    .prog_free = interp_prog_free,
    .prog_run = interp_prog_run,
};

const at_net_backend_i *at_net_interp_backend(void)
{
    return &interp_backend;
}
