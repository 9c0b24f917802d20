/* ShuffleNet's channel shuffle as torch.onnx exports it: Reshape(N, g, C/g, H, W) ->
 * Transpose(0, 2, 1, 3, 4) -> Reshape(N, C, H, W). The graph holds tensors of rank 4 at most,
 * so the three nodes are recognised together, at the first Reshape, and become one channel
 * permutation: the free reshape [N, g, C/g, H W] (an alias), a 4-D transpose (0, 2, 1, 3) --
 * output channel j g + i reads input channel i C/g + j -- and the free reshape back to NCHW.
 * The chain must be consecutive and its two intermediate tensors used nowhere else; any other
 * rank-5 tensor keeps the Reshape's "runtime tensor of rank 5" error. */
#include <string.h>

#include "networks/onnx_internal.h"

static bool same(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* Whether tensor name is read by a node other than `reader` or is a graph output. */
static bool used_elsewhere(const Onnx__GraphProto *g, const char *name, size_t reader)
{
    for (size_t k = 0; k < g->n_node; k++)
        for (size_t j = 0; k != reader && j < g->node[k]->n_input; j++)
            if (same(g->node[k]->input[j], name)) return true;
    for (size_t k = 0; k < g->n_output; k++)
        if (same(g->output[k]->name, name)) return true;
    return false;
}

/* The final Reshape's target shape (its input 1, a constant) resolved against the transposed
 * dims t[5] (0 copies the input's dim, -1 takes the rest); false when it is not a rank-4 shape. */
static bool final_shape(ox *o, const int64_t t[5], int64_t out[4], at_status *st)
{
    if (!ox_has_in(o, 1) || ox_attr_i(o, "allowzero", 0)) return false;
    const ox_value *s = ox_in(o, 1, st);
    if (!s || !s->is_const || s->numel != 4) return false;
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

at_status ox_channel_shuffle(ox *o, const ox_value *x, const int64_t dims[5], bool *done)
{
    *done = false;
    const Onnx__GraphProto *g = o->graph;
    const Onnx__NodeProto *reshape = o->cur;
    size_t at = o->at;
    if (!g || x->is_const || x->rank != 4 || at + 2 >= g->n_node || reshape->n_output < 1) return AT_OK;
    int64_t n = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3], grp = dims[1];
    if (dims[0] != n || dims[1] * dims[2] != c || dims[3] != h || dims[4] != w) return AT_OK;
    const Onnx__NodeProto *tr = g->node[at + 1], *back = g->node[at + 2];
    if (!same(tr->op_type, "Transpose") || tr->n_input < 1 || !same(tr->input[0], reshape->output[0]) || tr->n_output < 1 ||
        !same(back->op_type, "Reshape") || back->n_input < 2 || !same(back->input[0], tr->output[0]) || back->n_output < 1)
        return AT_OK;
    if (used_elsewhere(g, reshape->output[0], at + 1) || used_elsewhere(g, tr->output[0], at + 2)) return AT_OK;
    o->cur = tr;
    const int64_t *perm;
    static const int64_t shuffle[5] = {0, 2, 1, 3, 4};
    bool perm_ok = ox_attr_ints(o, "perm", &perm) == 5 && !memcmp(perm, shuffle, sizeof shuffle);
    o->cur = back;
    int64_t t[5] = {n, dims[2], grp, h, w}, out[4];
    at_status st = AT_OK;
    bool shape_ok = perm_ok && final_shape(o, t, out, &st);
    o->cur = reshape;
    if (st != AT_OK) return st;
    if (!shape_ok || out[0] != n || out[1] != c || out[2] != h || out[3] != w) return AT_OK;

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
    o->consumed = 2;
    *done = true;
    return AT_OK;
}
