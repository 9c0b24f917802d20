/* ShuffleNet's channel shuffle as torch.onnx exports it: Reshape(N, g, C/g, H, W) ->
 * Transpose(0, 2, 1, 3, 4) -> Reshape(N, C, H, W). The graph holds tensors of rank 4 at most,
 * so the three nodes are recognised together, at the first Reshape, and become one channel
 * permutation: the free reshape [N, g, C/g, H W] (an alias), a 4-D transpose (0, 2, 1, 3) --
 * output channel j g + i reads input channel i C/g + j -- and the free reshape back to NCHW.
 * The two intermediate tensors must have no other reader (other nodes may sit between the three,
 * as the final Reshape's shape Constant does in torch's export); the Transpose and the final
 * Reshape are then skipped when the import reaches them. Any other rank-5 tensor keeps the
 * Reshape's "runtime tensor of rank 5" error. */
#include <string.h>

#include "core/alloc.h"
#include "networks/onnx_internal.h"

static bool same(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* The one node reading tensor name (and not a graph output), after node `after`; SIZE_MAX when
 * none or several read it. */
static size_t sole_reader(const Onnx__GraphProto *g, const char *name, size_t after)
{
    size_t found = SIZE_MAX;
    for (size_t k = 0; k < g->n_node; k++)
        for (size_t j = 0; j < g->node[k]->n_input; j++)
            if (same(g->node[k]->input[j], name)) {
                if (found != SIZE_MAX || k <= after) return SIZE_MAX;
                found = k;
            }
    for (size_t k = 0; k < g->n_output; k++)
        if (same(g->output[k]->name, name)) return SIZE_MAX;
    return found;
}

/* shape (a constant, rank 1) resolved against the transposed dims t[5] as Reshape does (0
 * copies the input's dim, -1 takes the rest); false when it is not a rank-4 shape. */
static bool resolve(const ox_value *s, const int64_t t[5], int64_t out[4])
{
    if (!s->is_const || s->f || s->numel != 4) return false;
    int64_t total = t[0] * t[1] * t[2] * t[3] * t[4], known = 1;
    int infer = -1;
    for (int d = 0; d < 4; d++) {
        out[d] = ox_ci(s, d);
        if (out[d] == 0) out[d] = t[d];
        if (out[d] == -1) {
            if (infer >= 0) return false;
            infer = d;
        } else if (out[d] < 1) {
            return false;
        } else {
            known *= out[d];
        }
    }
    if (infer >= 0) {
        if (total % known) return false;
        out[infer] = total / known;
    }
    return true;
}

/* The final Reshape's (node k's) target shape: an initializer or earlier value, or the output of a
 * Constant node between the chain's first Reshape (at) and k, which the import has not reached
 * yet (torch.onnx puts the shape's Constant right before the Reshape). */
static bool final_shape(ox *o, size_t at, size_t k, const int64_t t[5], int64_t out[4], at_status *st)
{
    const Onnx__GraphProto *g = o->graph;
    const Onnx__NodeProto *back = g->node[k];
    if (back->n_input < 2 || !back->input[1][0]) return false;
    for (size_t c = at + 1; c < k; c++) {
        const Onnx__NodeProto *cn = g->node[c];
        if (!same(cn->op_type, "Constant") || cn->n_output < 1 || !same(cn->output[0], back->input[1])) continue;
        o->cur = cn;
        const Onnx__TensorProto *tp = ox_attr_t(o, "value");
        if (!tp) return false;
        ox_value v;
        if ((*st = ox_tensor(o, tp, &v)) != AT_OK) return false;
        bool ok = resolve(&v, t, out);
        at_free(v.f);
        at_free(v.i);
        return ok;
    }
    o->cur = back;
    if (ox_attr_i(o, "allowzero", 0)) return false;
    at_status ignored = AT_OK;
    const ox_value *v = ox_in(o, 1, &ignored);
    return v && resolve(v, t, out);
}

at_status ox_channel_shuffle(ox *o, const ox_value *x, const int64_t dims[5], bool *done)
{
    *done = false;
    const Onnx__GraphProto *g = o->graph;
    const Onnx__NodeProto *reshape = o->cur;
    size_t at = o->at;
    if (!g || x->is_const || x->rank != 4 || reshape->n_output < 1) return AT_OK;
    int64_t n = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3], grp = dims[1];
    if (dims[0] != n || dims[1] * dims[2] != c || dims[3] != h || dims[4] != w) return AT_OK;
    size_t j = sole_reader(g, reshape->output[0], at);
    if (j == SIZE_MAX) return AT_OK;
    const Onnx__NodeProto *tr = g->node[j];
    if (!same(tr->op_type, "Transpose") || tr->n_output < 1) return AT_OK;
    size_t k = sole_reader(g, tr->output[0], j);
    if (k == SIZE_MAX || !same(g->node[k]->op_type, "Reshape") || !same(g->node[k]->input[0], tr->output[0]) ||
        g->node[k]->n_output < 1)
        return AT_OK;
    const Onnx__NodeProto *back = g->node[k];
    o->cur = tr;
    const int64_t *perm;
    static const int64_t shuffle[5] = {0, 2, 1, 3, 4};
    bool ok = ox_attr_ints(o, "perm", &perm) == 5 && !memcmp(perm, shuffle, sizeof shuffle);
    int64_t t[5] = {n, dims[2], grp, h, w}, out[4];
    at_status st = AT_OK;
    ok = ok && final_shape(o, at, k, t, out, &st);
    o->cur = reshape;
    if (st != AT_OK) return st;
    if (!ok || out[0] != n || out[1] != c || out[2] != h || out[3] != w) return AT_OK;
    if (!o->skip && !(o->skip = at_calloc(g->n_node, sizeof *o->skip))) return AT_OOM();

    at_net_attrs split = {.to_ndim = 4, .to_shape = {n, grp, c / grp, h * w}};
    size_t s1, s2, s3;
    AT_TRY(ox_append(o, AT_NET_RESHAPE, "shuffle_split", &x->node, 1, &split, &s1));
    o->cur = tr;
    at_net_attrs perm4 = {.perm = {0, 2, 1, 3}};
    AT_TRY(ox_append(o, AT_NET_TRANSPOSE, "channel_shuffle", &s1, 1, &perm4, &s2));
    o->cur = back;
    at_net_attrs nchw = {.to_ndim = 4, .to_shape = {n, c, h, w}};
    AT_TRY(ox_append(o, AT_NET_RESHAPE, NULL, &s2, 1, &nchw, &s3));
    AT_TRY(ox_out_node(o, 0, s3, 4, out));
    o->cur = reshape;
    o->skip[j] = o->skip[k] = true;
    *done = true;
    return AT_OK;
}
