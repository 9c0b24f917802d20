/* ONNX Slice (opsets 7-18): starts, ends, axes and steps as attributes (opset < 10) or constant
 * inputs. A constant is sliced at import (any positive step, shape arithmetic); a runtime tensor
 * with step 1 becomes a pad node with negative pads, which crops -- the channel split
 * torchvision's shufflenet writes as x.chunk(2, dim=1). */
#include <inttypes.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/onnx_internal.h"

#define UNSUP(...) ox_fail(o, AT_EUNSUPPORTED, __VA_ARGS__)

/* Parameter k (1 starts, 2 ends, 3 axes, 4 steps): n values into v; false when absent. */
static at_status param(ox *o, size_t k, const char *attr, int64_t *v, size_t *n, bool *present)
{
    *present = false;
    *n = 0;
    if (o->opset < 10) {
        const int64_t *a;
        size_t m = ox_attr_ints(o, attr, &a);
        if (!m && k > 2) return AT_OK;
        if (m > OX_MAX_RANK) return UNSUP("%s of %zu values", attr, m);
        memcpy(v, a, m * sizeof *a);
        *n = m;
        *present = true;
        return AT_OK;
    }
    if (!ox_has_in(o, k)) return k > 2 ? AT_OK : ox_fail(o, AT_EINVAL, "input %zu (%s) missing", k, attr);
    at_status st = AT_OK;
    const ox_value *c = ox_in(o, k, &st);
    if (!c) return st;
    if (!c->is_const) return UNSUP("%s '%s' must be a constant", attr, c->name);
    if (c->numel > OX_MAX_RANK) return UNSUP("%s of %" PRId64 " values", attr, c->numel);
    for (int64_t i = 0; i < c->numel; i++) v[i] = ox_ci(c, i);
    *n = (size_t)c->numel;
    *present = true;
    return AT_OK;
}

/* Clamps a start or end index to [0, dim] as the spec does for a positive step. */
static int64_t clamp_index(int64_t i, int64_t dim)
{
    if (i < 0) i += dim;
    return i < 0 ? 0 : i > dim ? dim : i;
}

at_status ox_op_slice(ox *o)
{
    at_status st = AT_OK;
    const ox_value *x = ox_in(o, 0, &st);
    if (!x) return st;
    int64_t starts[OX_MAX_RANK], ends[OX_MAX_RANK], axes[OX_MAX_RANK], steps[OX_MAX_RANK];
    size_t ns, ne, na, nst;
    bool has;
    AT_TRY(param(o, 1, "starts", starts, &ns, &has));
    AT_TRY(param(o, 2, "ends", ends, &ne, &has));
    AT_TRY(param(o, 3, "axes", axes, &na, &has));
    if (!has) {
        na = ns;
        for (size_t k = 0; k < na; k++) axes[k] = (int64_t)k;
    }
    AT_TRY(param(o, 4, "steps", steps, &nst, &has));
    if (!has) {
        nst = ns;
        for (size_t k = 0; k < nst; k++) steps[k] = 1;
    }
    if (ne != ns || na != ns || nst != ns) return ox_fail(o, AT_EINVAL, "starts, ends, axes and steps differ in length");
    size_t r = x->rank;
    int64_t lo[OX_MAX_RANK], step[OX_MAX_RANK], dims[OX_MAX_RANK];
    bool seen[OX_MAX_RANK] = {0};
    for (size_t d = 0; d < r; d++) {
        lo[d] = 0;
        step[d] = 1;
        dims[d] = x->dims[d];
    }
    for (size_t k = 0; k < ns; k++) {
        int64_t a = axes[k] < 0 ? axes[k] + (int64_t)r : axes[k];
        if (a < 0 || a >= (int64_t)r || seen[a]) return ox_fail(o, AT_EINVAL, "axis %" PRId64 " out of range or repeated", axes[k]);
        seen[a] = true;
        if (steps[k] < 1) return UNSUP("step %" PRId64 " (only positive steps)", steps[k]);
        int64_t dim = x->dims[a], b = clamp_index(starts[k], dim), e = clamp_index(ends[k], dim);
        if (e <= b) return UNSUP("an empty slice of axis %" PRId64, a);
        lo[a] = b;
        step[a] = steps[k];
        dims[a] = (e - b + steps[k] - 1) / steps[k];
    }
    if (x->is_const) {
        int64_t total = 1;
        for (size_t d = 0; d < r; d++) total *= dims[d];
        float *f = x->f ? at_malloc((size_t)(total ? total : 1) * sizeof *f) : NULL;
        int64_t *iv = x->f ? NULL : at_malloc((size_t)(total ? total : 1) * sizeof *iv);
        if (!f && !iv) return AT_OOM();
        for (int64_t i = 0; i < total; i++) {
            int64_t rest = i, src = 0, stride = 1;
            for (size_t d = r; d-- > 0;) {
                int64_t c = rest % dims[d];
                rest /= dims[d];
                src += (lo[d] + c * step[d]) * stride;
                stride *= x->dims[d];
            }
            if (f) f[i] = x->f[src];
            else iv[i] = x->i[src];
        }
        return ox_out_const(o, 0, r, dims, f, iv);
    }
    if (r > 4) return UNSUP("an input of rank %zu (at most 4)", r);
    at_net_attrs a = {0};
    bool whole = true;
    for (size_t d = 0; d < r; d++) {
        if (step[d] != 1) return UNSUP("step %" PRId64 " on a runtime tensor (only 1)", step[d]);
        a.pad_nd[d] = -lo[d];
        a.pad_nd[4 + d] = -(x->dims[d] - lo[d] - dims[d]);
        whole = whole && dims[d] == x->dims[d];
    }
    if (whole) return ox_out_alias(o, 0, x);
    size_t node;
    AT_TRY(ox_append(o, AT_NET_PAD, NULL, &x->node, 1, &a, &node));
    return ox_out_node(o, 0, node, r, dims);
}
