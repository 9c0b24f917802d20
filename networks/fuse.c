/* Fusion: the unfused relay-style graph becomes what TVM compiles at opt_level 3 -- batch_norm
 * folded (SimplifyInference + FoldScaleAxis), element-wise ops fused after their anchor (FuseOps).
 * Two passes: groups are formed walking the graph in topological order (an op joins the group
 * of its producer when that producer's last node has no other consumer); then groups are
 * emitted by a post-order DFS from the output that visits a group's inputs in the order of its
 * fused function's parameters. That is the order TVM lowers the fused functions in, so the fused
 * graph's node order is the task extraction order (a conv + residual add lowers after the
 * shortcut conv it adds, spec/templates_vta.md §2.2). */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/internal.h"
#include "networks/net.h"

typedef struct group {
    at_net_op       op;
    size_t          head;      /* the old node that names the group and gives its attrs */
    size_t          last;      /* the old node whose value the group produces */
    size_t          data;      /* old node of the group's input (inputs[0]) */
    size_t          residual;  /* old node of the residual operand (epi.residual) */
    at_net_epilogue epi;
    bool            open;      /* another op may still join: `last` has exactly one consumer */
    bool            copy;      /* a node copied as is (its inputs are its old inputs) */
    float          *weight, *bias, *scale, *shift; /* owned until emitted */
    size_t          emitted;   /* index in the new graph, SIZE_MAX before */
    bool            visiting;
} group;

typedef struct fuser {
    const at_net *src;
    at_net       *dst;
    group        *groups;
    size_t        n_groups;
    size_t       *grp;   /* old node -> group */
    size_t       *uses;  /* old node -> consumers */
    bool          params;
} fuser;

static void set_open(fuser *f, group *g)
{
    g->open = f->uses[g->last] == 1 && g->last != at_net_output(f->src);
}

static group *new_group(fuser *f, at_net_op op, size_t head)
{
    group *g = &f->groups[f->n_groups++];
    memset(g, 0, sizeof *g);
    g->op = op;
    g->head = g->last = head;
    g->emitted = SIZE_MAX;
    const at_net_node *n = at_net_node_at(f->src, head);
    g->data = n->n_inputs ? n->inputs[0] : SIZE_MAX;
    g->residual = SIZE_MAX;
    f->grp[head] = (size_t)(g - f->groups);
    set_open(f, g);
    return g;
}

static void join(fuser *f, group *g, size_t node)
{
    g->last = node;
    f->grp[node] = (size_t)(g - f->groups);
    set_open(f, g);
}

/* The producer group of old node i's input k when i may join it. */
static group *joinable(fuser *f, size_t i, size_t k)
{
    group *g = &f->groups[f->grp[at_net_node_at(f->src, i)->inputs[k]]];
    return g->open && g->last == at_net_node_at(f->src, i)->inputs[k] ? g : NULL;
}

/* BN as per-channel scale and shift: gamma / sqrt(var + eps), beta - mean * scale (a
 * scale_shift of an unfused graph: its own). */
static at_status bn_affine(const at_net_node *bn, int64_t c, float **scale, float **shift)
{
    if (bn->op == AT_NET_SCALE_SHIFT) {
        *scale = at_net_floats_dup(bn->scale, c);
        *shift = at_net_floats_dup(bn->shift, c);
        return *scale && *shift ? AT_OK : AT_OOM();
    }
    *scale = at_net_floats(c);
    *shift = at_net_floats(c);
    if (!*scale || !*shift) return AT_OOM();
    for (int64_t i = 0; i < c; i++) {
        double s = 1.0 / sqrt((double)bn->var[i] + bn->attrs.eps);
        if (!bn->attrs.no_scale) s *= bn->gamma[i];
        (*scale)[i] = (float)s;
        (*shift)[i] = (float)((double)bn->beta[i] - (double)bn->mean[i] * s);
    }
    return AT_OK;
}

static at_status on_batch_norm(fuser *f, size_t i)
{
    const at_net_node *n = at_net_node_at(f->src, i);
    int64_t c = n->shape[1];
    group *g = joinable(f, i, 0);
    float *s = NULL, *t = NULL;
    if (f->params) {
        at_status st = bn_affine(n, c, &s, &t);
        if (st != AT_OK) {
            at_free(s);
            at_free(t);
            return st;
        }
    }
    if (g && at_net_op_is_anchor(g->op) && !g->epi.residual && !g->epi.relu) {
        /* fold: w[co] *= s[co]; b = b * s + t */
        if (f->params) {
            int64_t per = at_net_weight_numel(f->src, at_net_node_at(f->src, g->head)) / c;
            for (int64_t co = 0; co < c; co++)
                for (int64_t k = 0; k < per; k++) g->weight[co * per + k] = (float)((double)g->weight[co * per + k] * s[co]);
            if (g->epi.bias) {
                for (int64_t co = 0; co < c; co++) t[co] = (float)((double)g->bias[co] * s[co] + t[co]);
                at_free(g->bias);
            }
            g->bias = t;
            at_free(s);
        }
        g->epi.bias = true;
        join(f, g, i);
        return AT_OK;
    }
    if (g && g->op == AT_NET_SCALE_SHIFT && !g->epi.relu) {
        /* two affines in a row compose */
        if (f->params) {
            for (int64_t k = 0; k < c; k++) {
                g->scale[k] = (float)((double)g->scale[k] * s[k]);
                g->shift[k] = (float)((double)g->shift[k] * s[k] + t[k]);
            }
            at_free(s);
            at_free(t);
        }
        join(f, g, i);
        return AT_OK;
    }
    g = new_group(f, AT_NET_SCALE_SHIFT, i);
    g->scale = s;
    g->shift = t;
    return AT_OK;
}

static at_status on_bias_add(fuser *f, size_t i)
{
    const at_net_node *n = at_net_node_at(f->src, i);
    int64_t c = n->shape[1];
    group *g = joinable(f, i, 0);
    if (g && at_net_op_is_anchor(g->op) && !g->epi.bias && !g->epi.residual && !g->epi.relu) {
        if (f->params && !(g->bias = at_net_floats_dup(n->bias, c))) return AT_OOM();
        g->epi.bias = true;
        join(f, g, i);
        return AT_OK;
    }
    if (g && g->op == AT_NET_SCALE_SHIFT && !g->epi.relu) {
        if (f->params)
            for (int64_t k = 0; k < c; k++) g->shift[k] = (float)((double)g->shift[k] + n->bias[k]);
        join(f, g, i);
        return AT_OK;
    }
    g = new_group(f, AT_NET_BIAS_ADD, i);
    g->copy = true;
    if (f->params && !(g->bias = at_net_floats_dup(n->bias, c))) return AT_OOM();
    return AT_OK;
}

static void on_relu(fuser *f, size_t i)
{
    group *g = joinable(f, i, 0);
    if (g && (at_net_op_is_anchor(g->op) || g->op == AT_NET_SCALE_SHIFT) && !g->epi.relu) {
        g->epi.relu = true;
        join(f, g, i);
        return;
    }
    new_group(f, AT_NET_RELU, i)->copy = true;
}

static void on_add(fuser *f, size_t i)
{
    const at_net_node *n = at_net_node_at(f->src, i);
    for (size_t k = 0; k < 2; k++) {
        group *g = joinable(f, i, k);
        if (g && at_net_op_is_anchor(g->op) && !g->epi.residual && !g->epi.relu) {
            g->epi.residual = true;
            g->epi.residual_first = k == 1;
            g->residual = n->inputs[1 - k];
            join(f, g, i);
            return;
        }
    }
    new_group(f, AT_NET_ADD, i)->copy = true;
}

static at_status on_copy(fuser *f, size_t i)
{
    const at_net_node *n = at_net_node_at(f->src, i);
    group *g = new_group(f, n->op, i);
    g->copy = true;
    if (f->params && at_net_op_has_weight(n->op)) {
        if (!(g->weight = at_net_floats_dup(n->weight, at_net_weight_numel(f->src, n)))) return AT_OOM();
    }
    return AT_OK;
}

static at_status form_groups(fuser *f)
{
    size_t n = at_net_n_nodes(f->src);
    group *in = new_group(f, AT_NET_INPUT, 0);
    in->copy = true;
    for (size_t i = 1; i < n; i++) {
        const at_net_node *node = at_net_node_at(f->src, i);
        at_status st = AT_OK;
        switch (node->op) {
        case AT_NET_DROPOUT: {
            group *g = &f->groups[f->grp[node->inputs[0]]];
            f->grp[i] = f->grp[node->inputs[0]];
            if (g->last == node->inputs[0] && g->open) join(f, g, i);
            break;
        }
        case AT_NET_BATCH_NORM:
        case AT_NET_SCALE_SHIFT: st = on_batch_norm(f, i); break;
        case AT_NET_BIAS_ADD: st = on_bias_add(f, i); break;
        case AT_NET_RELU: on_relu(f, i); break;
        case AT_NET_ADD: on_add(f, i); break;
        case AT_NET_CONV2D:
        case AT_NET_DENSE:
        case AT_NET_MAX_POOL2D:
        case AT_NET_GLOBAL_AVG_POOL2D:
        case AT_NET_BATCH_FLATTEN:
        case AT_NET_CONCAT:
        case AT_NET_SOFTMAX:
        case AT_NET_ACTIVATION:
        case AT_NET_RESHAPE:
        case AT_NET_BINARY:
        case AT_NET_CONSTANT:
        case AT_NET_AVG_POOL2D:
        case AT_NET_PAD:
        case AT_NET_REDUCE_MEAN:
        case AT_NET_TRANSPOSE:
        case AT_NET_RESIZE:
        case AT_NET_CONV2D_TRANSPOSE:
            st = on_copy(f, i);
            break;
        case AT_NET_INPUT:
        case AT_NET_OP_COUNT:
            AT_ASSERT(!"unexpected node in an unfused network");
        }
        if (st != AT_OK) return st;
    }
    return AT_OK;
}

static at_status emit(fuser *f, size_t gi);

/* Emits the group of old node `old` and returns its new index through *out. */
static at_status emit_input(fuser *f, size_t old, size_t *out)
{
    size_t gi = f->grp[old];
    AT_TRY(emit(f, gi));
    *out = f->groups[gi].emitted;
    return AT_OK;
}

static at_status emit(fuser *f, size_t gi)
{
    group *g = &f->groups[gi];
    if (g->emitted != SIZE_MAX) return AT_OK;
    AT_ASSERT(!g->visiting); /* groups form a DAG: an input never depends on its consumer */
    g->visiting = true;
    const at_net_node *head = at_net_node_at(f->src, g->head), *last = at_net_node_at(f->src, g->last);
    if (g->op == AT_NET_INPUT) {
        g->emitted = 0;
        return AT_OK;
    }
    at_net_node n = {.op = g->op, .name = head->name, .attrs = head->attrs, .epi = g->epi, .ndim = last->ndim};
    memcpy(n.shape, last->shape, sizeof n.shape);
    if (g->epi.residual) {
        n.n_inputs = 2;
        if (g->epi.residual_first) {
            AT_TRY(emit_input(f, g->residual, &n.inputs[1]));
            AT_TRY(emit_input(f, g->data, &n.inputs[0]));
        } else {
            AT_TRY(emit_input(f, g->data, &n.inputs[0]));
            AT_TRY(emit_input(f, g->residual, &n.inputs[1]));
        }
    } else if (g->copy) {
        n.n_inputs = head->n_inputs;
        for (size_t k = 0; k < head->n_inputs; k++) AT_TRY(emit_input(f, head->inputs[k], &n.inputs[k]));
    } else {
        n.n_inputs = 1;
        AT_TRY(emit_input(f, g->data, &n.inputs[0]));
    }
    if (f->params) {
        n.weight = g->weight;
        n.bias = g->bias;
        n.scale = g->scale;
        n.shift = g->shift;
        g->weight = g->bias = g->scale = g->shift = NULL; /* moved, also on failure */
    }
    AT_TRY(at_net_push_node(f->dst, &n, &g->emitted));
    return AT_OK;
}

at_status at_net_fuse(const at_net *net, at_net **out)
{
    *out = NULL;
    if (at_net_is_fused(net)) return AT_FAIL(AT_EINVAL, "network %s is already fused", at_net_name(net));
    size_t n = at_net_n_nodes(net);
    fuser f = {.src = net, .params = at_net_has_params(net)};
    f.groups = at_calloc(n, sizeof *f.groups);
    f.grp = at_calloc(n, sizeof *f.grp);
    f.uses = at_calloc(n, sizeof *f.uses);
    at_status st = f.groups && f.grp && f.uses ? AT_OK : AT_OOM();
    for (size_t i = 0; st == AT_OK && i < n; i++) {
        const at_net_node *node = at_net_node_at(net, i);
        for (size_t k = 0; k < node->n_inputs; k++) f.uses[node->inputs[k]]++;
    }
    if (st == AT_OK) st = form_groups(&f);
    if (st == AT_OK) {
        const at_net_node *in = at_net_node_at(net, 0);
        /* the seed only matters to at_net_append, which refuses fused networks */
        st = at_net_new(at_net_name(net), in->shape, f.params, 0, &f.dst);
    }
    if (st == AT_OK) st = emit(&f, f.grp[at_net_output(net)]);
    for (size_t i = 0; f.groups && i < f.n_groups; i++) {
        at_free(f.groups[i].weight);
        at_free(f.groups[i].bias);
        at_free(f.groups[i].scale);
        at_free(f.groups[i].shift);
    }
    at_free(f.groups);
    at_free(f.grp);
    at_free(f.uses);
    if (st != AT_OK) {
        at_net_free(f.dst);
        return st;
    }
    at_net_set_fused(f.dst, true);
    at_net_copy_io_shapes(f.dst, net);
    *out = f.dst;
    return AT_OK;
}
