/* ONNX import: the model is decoded by protoc-c's code generated from Debian's onnx.proto, then
 * its graph is walked in order, each node converted by its row of the operator table
 * (onnx_ops.c) into at_net nodes -- the same graph the zoo builds, so fusion, task extraction
 * and both executors treat an imported model as a zoo network. Values computable at import
 * (initializers, Constant, Shape of a known shape and arithmetic on them) are folded into
 * constants, never graph nodes. */
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/internal.h"
#include "networks/onnx_internal.h"

enum { TYPE_FLOAT = 1, TYPE_UINT8 = 2, TYPE_INT8 = 3, TYPE_INT32 = 6, TYPE_INT64 = 7, TYPE_BOOL = 9, TYPE_DOUBLE = 11 };

at_status ox_fail(const ox *o, at_status code, const char *fmt, ...)
{
    char msg[512], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!o->cur)
        snprintf(line, sizeof line, "%s: %s", o->label, msg);
    else
        snprintf(line, sizeof line, "%s: node '%s' (%s, opset %" PRId64 "): %s", o->label, o->cur->name ? o->cur->name : "",
                 o->cur->op_type ? o->cur->op_type : "?", o->opset, msg);
    /* names come from the file: control bytes in them must not break the one-line error */
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    return AT_FAIL(code, "%s", line);
}

/* ---- values ------------------------------------------------------------------------------- */

static ox_value *find(ox *o, const char *name)
{
    for (size_t i = o->n_vals; i-- > 0;)
        if (!strcmp(o->vals[i].name, name)) return &o->vals[i];
    return NULL;
}

static void value_fini(ox_value *v)
{
    at_free(v->f);
    at_free(v->i);
    v->f = NULL;
    v->i = NULL;
}

static at_status push(ox *o, const ox_value *v)
{
    if (o->n_vals == o->cap_vals) {
        size_t cap = o->cap_vals ? o->cap_vals * 2 : 64;
        ox_value *p = at_realloc(o->vals, cap * sizeof *p);
        if (!p) return AT_OOM();
        o->vals = p;
        o->cap_vals = cap;
    }
    o->vals[o->n_vals++] = *v;
    return AT_OK;
}

bool ox_has_in(const ox *o, size_t k)
{
    return k < o->cur->n_input && o->cur->input[k][0];
}

const ox_value *ox_in(ox *o, size_t k, at_status *st)
{
    if (!ox_has_in(o, k)) {
        *st = ox_fail(o, AT_EINVAL, "input %zu missing", k);
        return NULL;
    }
    const ox_value *v = find(o, o->cur->input[k]);
    if (!v) *st = ox_fail(o, AT_EINVAL, "input '%s' is neither an initializer, a graph input nor an earlier output", o->cur->input[k]);
    return v;
}

static at_status bind(ox *o, size_t k, ox_value *v)
{
    if (k >= o->cur->n_output || !o->cur->output[k][0]) {
        value_fini(v);
        return AT_OK; /* an unused optional output (Dropout's mask) */
    }
    v->name = o->cur->output[k];
    at_status st = push(o, v);
    if (st != AT_OK) value_fini(v);
    return st;
}

at_status ox_out_node(ox *o, size_t k, size_t node, size_t rank, const int64_t *dims)
{
    ox_value v = {.node = node, .rank = rank};
    memcpy(v.dims, dims, rank * sizeof *dims);
    return bind(o, k, &v);
}

at_status ox_out_const(ox *o, size_t k, size_t rank, const int64_t *dims, float *f, int64_t *i)
{
    ox_value v = {.is_const = true, .rank = rank, .f = f, .i = i, .numel = 1};
    if (rank > OX_MAX_RANK) {
        value_fini(&v);
        return ox_fail(o, AT_EUNSUPPORTED, "a constant of rank %zu", rank);
    }
    for (size_t d = 0; d < rank; d++) v.numel *= v.dims[d] = dims[d];
    return bind(o, k, &v);
}

at_status ox_out_alias(ox *o, size_t k, const ox_value *src)
{
    ox_value v = *src;
    v.f = NULL;
    v.i = NULL;
    if (src->is_const) {
        size_t bytes = (size_t)(src->numel ? src->numel : 1) * (src->f ? sizeof(float) : sizeof(int64_t));
        void *p = at_malloc(bytes);
        if (!p) return AT_OOM();
        memcpy(p, src->f ? (const void *)src->f : (const void *)src->i, (size_t)src->numel * (src->f ? sizeof(float) : sizeof(int64_t)));
        if (src->f) v.f = p;
        else v.i = p;
    }
    return bind(o, k, &v);
}

double ox_cf(const ox_value *v, int64_t k)
{
    return v->f ? (double)v->f[k] : (double)v->i[k];
}

int64_t ox_ci(const ox_value *v, int64_t k)
{
    return v->i ? v->i[k] : (int64_t)v->f[k];
}

/* ---- attributes --------------------------------------------------------------------------- */

static const Onnx__AttributeProto *attr(const ox *o, const char *name)
{
    for (size_t i = 0; i < o->cur->n_attribute; i++)
        if (o->cur->attribute[i]->name && !strcmp(o->cur->attribute[i]->name, name)) return o->cur->attribute[i];
    return NULL;
}

int64_t ox_attr_i(const ox *o, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = attr(o, name);
    return a && a->has_i ? a->i : def;
}

double ox_attr_f(const ox *o, const char *name, double def)
{
    const Onnx__AttributeProto *a = attr(o, name);
    return a && a->has_f ? (double)a->f : def;
}

size_t ox_attr_ints(const ox *o, const char *name, const int64_t **v)
{
    const Onnx__AttributeProto *a = attr(o, name);
    *v = a ? a->ints : NULL;
    return a ? a->n_ints : 0;
}

const char *ox_attr_s(const ox *o, const char *name, const char *def, char *buf, size_t cap)
{
    const Onnx__AttributeProto *a = attr(o, name);
    if (!a || !a->has_s) return def;
    size_t n = a->s.len < cap - 1 ? a->s.len : cap - 1;
    memcpy(buf, a->s.data, n);
    buf[n] = 0;
    return buf;
}

const Onnx__TensorProto *ox_attr_t(const ox *o, const char *name)
{
    const Onnx__AttributeProto *a = attr(o, name);
    return a ? a->t : NULL;
}

/* ---- tensors ------------------------------------------------------------------------------ */

/* An external-data tensor's bytes, read from the file its "location" names inside o->dir. */
static at_status external(ox *o, const Onnx__TensorProto *t, size_t need, uint8_t **out)
{
    *out = NULL;
    const char *loc = NULL;
    int64_t offset = 0, length = -1;
    for (size_t i = 0; i < t->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = t->external_data[i];
        if (!e->key || !e->value) continue;
        if (!strcmp(e->key, "location")) loc = e->value;
        else if (!strcmp(e->key, "offset")) offset = strtoll(e->value, NULL, 10);
        else if (!strcmp(e->key, "length")) length = strtoll(e->value, NULL, 10);
    }
    if (!loc || !o->dir) return ox_fail(o, AT_EINVAL, "tensor '%s': external data without a location", t->name ? t->name : "");
    if (loc[0] == '/' || strstr(loc, ".."))
        return ox_fail(o, AT_EINVAL, "tensor '%s': external data '%s' leaves the model's folder", t->name ? t->name : "", loc);
    if (offset < 0 || (length >= 0 && (size_t)length != need))
        return ox_fail(o, AT_EINVAL, "tensor '%s': external data offset/length do not fit its shape", t->name ? t->name : "");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", o->dir, loc);
    FILE *fp = fopen(path, "rb");
    if (!fp) return ox_fail(o, AT_EIO, "tensor '%s': cannot open external data %s", t->name ? t->name : "", path);
    uint8_t *p = at_malloc(need ? need : 1);
    bool ok = p && fseek(fp, (long)offset, SEEK_SET) == 0 && fread(p, 1, need, fp) == need;
    fclose(fp);
    if (!ok) {
        at_free(p);
        return p ? ox_fail(o, AT_EIO, "tensor '%s': external data %s shorter than its shape", t->name ? t->name : "", path)
                 : AT_OOM();
    }
    *out = p;
    return AT_OK;
}

at_status ox_tensor(ox *o, const Onnx__TensorProto *t, ox_value *v)
{
    memset(v, 0, sizeof *v);
    v->is_const = true;
    v->name = t->name ? t->name : "";
    if (t->n_dims > OX_MAX_RANK) return ox_fail(o, AT_EUNSUPPORTED, "tensor '%s' of rank %zu", v->name, t->n_dims);
    v->rank = t->n_dims;
    double numel = 1;
    for (size_t d = 0; d < t->n_dims; d++) {
        if (t->dims[d] < 0) return ox_fail(o, AT_EINVAL, "tensor '%s': negative dim", v->name);
        numel *= (double)(v->dims[d] = t->dims[d]);
    }
    if (numel > (double)(1LL << 31)) return ox_fail(o, AT_EUNSUPPORTED, "tensor '%s' of more than 2^31 elements", v->name);
    int64_t n = v->numel = (int64_t)numel;
    int type = t->data_type;
    size_t esize = type == TYPE_FLOAT || type == TYPE_INT32 ? 4 : type == TYPE_INT64 || type == TYPE_DOUBLE ? 8
                 : type == TYPE_UINT8 || type == TYPE_INT8 || type == TYPE_BOOL ? 1 : 0;
    if (!esize) return ox_fail(o, AT_EUNSUPPORTED, "tensor '%s': data type %d (float, double, int8/32/64, uint8, bool are read)", v->name, type);
    bool is_float = type == TYPE_FLOAT || type == TYPE_DOUBLE;
    if (is_float) v->f = at_malloc((size_t)(n ? n : 1) * sizeof *v->f);
    else v->i = at_malloc((size_t)(n ? n : 1) * sizeof *v->i);
    if (!v->f && !v->i) return AT_OOM();
    const uint8_t *raw = NULL;
    uint8_t *ext = NULL;
    size_t need = (size_t)n * esize;
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        at_status st = external(o, t, need, &ext);
        if (st != AT_OK) {
            value_fini(v);
            return st;
        }
        raw = ext;
    } else if (t->has_raw_data) {
        if (t->raw_data.len != need) {
            value_fini(v);
            return ox_fail(o, AT_EINVAL, "tensor '%s': raw_data of %zu bytes for %" PRId64 " elements", v->name, t->raw_data.len, n);
        }
        raw = t->raw_data.data;
    }
    /* typed fields: float_data (float), double_data, int64_data, int32_data (int32, int8, uint8, bool) */
    size_t have = raw ? (size_t)n : type == TYPE_FLOAT ? t->n_float_data : type == TYPE_DOUBLE ? t->n_double_data
                : type == TYPE_INT64 ? t->n_int64_data : t->n_int32_data;
    if (have != (size_t)n) {
        value_fini(v);
        return ox_fail(o, AT_EINVAL, "tensor '%s': %zu values for %" PRId64 " elements", v->name, have, n);
    }
    for (int64_t k = 0; k < n; k++) {
        const uint8_t *p = raw ? raw + (size_t)k * esize : NULL;
        switch (type) {
        case TYPE_FLOAT: {
            float x;
            if (p) memcpy(&x, p, 4);
            else x = t->float_data[k];
            v->f[k] = x;
            break;
        }
        case TYPE_DOUBLE: {
            double x;
            if (p) memcpy(&x, p, 8);
            else x = t->double_data[k];
            v->f[k] = (float)x;
            break;
        }
        case TYPE_INT64:
            if (p) memcpy(&v->i[k], p, 8);
            else v->i[k] = t->int64_data[k];
            break;
        case TYPE_INT32: {
            int32_t x;
            if (p) memcpy(&x, p, 4);
            else x = t->int32_data[k];
            v->i[k] = x;
            break;
        }
        default: /* one-byte types */
            v->i[k] = p ? (type == TYPE_INT8 ? (int64_t)(int8_t)*p : (int64_t)*p) : t->int32_data[k];
            break;
        }
    }
    at_free(ext);
    return AT_OK;
}

/* ---- graph nodes -------------------------------------------------------------------------- */

at_status ox_append(ox *o, at_net_op op, const char *suffix, const size_t *inputs, size_t n_inputs, const at_net_attrs *a,
                    size_t *out)
{
    char name[256];
    const char *base = o->cur && o->cur->name && o->cur->name[0] ? o->cur->name
                     : o->cur && o->cur->n_output ? o->cur->output[0] : "node";
    snprintf(name, sizeof name, "%s%s%s", base, suffix ? "/" : "", suffix ? suffix : "");
    /* names must be unique in a network; ONNX does not require it of node names */
    for (int k = 2; at_net_find(o->net, name) != SIZE_MAX && k < 1000000; k++)
        snprintf(name, sizeof name, "%s%s%s#%d", base, suffix ? "/" : "", suffix ? suffix : "", k);
    at_status st = at_net_append(o->net, op, name, inputs, n_inputs, a, out);
    if (st == AT_OK || st == AT_ENOMEM) return st;
    return ox_fail(o, AT_EUNSUPPORTED, "%s", at_last_error());
}

at_status ox_node_2d(ox *o, const ox_value *v, size_t *node)
{
    AT_ASSERT(v->rank == 2 && !v->is_const);
    if (at_net_node_at(o->net, v->node)->ndim == 2) {
        *node = v->node;
        return AT_OK;
    }
    at_net_attrs a = {.to_ndim = 2, .to_shape = {v->dims[0], v->dims[1]}};
    return ox_append(o, AT_NET_RESHAPE, "2d", &v->node, 1, &a, node);
}

/* ---- the model ---------------------------------------------------------------------------- */

static void ox_fini(ox *o)
{
    for (size_t i = 0; i < o->n_vals; i++) value_fini(&o->vals[i]);
    at_free(o->vals);
    at_free(o->skip);
}

static bool is_initializer(const Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && !strcmp(g->initializer[i]->name, name)) return true;
    return false;
}

/* The data input's shape: the model's, with --input-shape overriding it or filling symbolic dims. */
static at_status input_shape(ox *o, const Onnx__ValueInfoProto *vi, const at_net_opts *opts, size_t *rank, int64_t dims[4])
{
    const Onnx__TypeProto *tp = vi->type;
    const Onnx__TensorShapeProto *sh = tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type
                                           ? tp->tensor_type->shape : NULL;
    if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type && tp->tensor_type->has_elem_type &&
        tp->tensor_type->elem_type != TYPE_FLOAT)
        return ox_fail(o, AT_EUNSUPPORTED, "input '%s' has element type %d: only float32 inputs are supported", vi->name,
                       tp->tensor_type->elem_type);
    bool named = opts && opts->input_rank && (!opts->input_name || !strcmp(opts->input_name, vi->name));
    if (named) {
        *rank = opts->input_rank;
        memcpy(dims, opts->input_shape, *rank * sizeof *dims);
        if (sh && sh->n_dim != *rank)
            return ox_fail(o, AT_EINVAL, "--input-shape gives %zu dims, input '%s' has %zu", *rank, vi->name, sh->n_dim);
        return AT_OK;
    }
    if (!sh) return ox_fail(o, AT_EINVAL, "input '%s' has no shape: give --input-shape %s=...", vi->name, vi->name);
    if (sh->n_dim < 1 || sh->n_dim > 4)
        return ox_fail(o, AT_EUNSUPPORTED, "input '%s' of rank %zu (1 to 4 are supported)", vi->name, sh->n_dim);
    *rank = sh->n_dim;
    for (size_t d = 0; d < sh->n_dim; d++) {
        const Onnx__TensorShapeProto__Dimension *dim = sh->dim[d];
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dim->dim_value > 0)
            dims[d] = dim->dim_value;
        else if (d == 0)
            dims[d] = opts && opts->batch > 0 ? opts->batch : 1; /* a symbolic batch */
        else
            return ox_fail(o, AT_EINVAL, "input '%s': dim %zu is symbolic: give --input-shape %s=...", vi->name, d, vi->name);
    }
    return AT_OK;
}

static at_status load_graph(ox *o, const Onnx__GraphProto *g, const at_net_opts *opts, const at_net_onnx_opts *xo,
                            at_net_io_shape *io)
{
    for (size_t i = 0; i < g->n_initializer; i++) {
        ox_value v;
        AT_TRY(ox_tensor(o, g->initializer[i], &v));
        at_status st = push(o, &v);
        if (st != AT_OK) {
            value_fini(&v);
            return st;
        }
    }
    const Onnx__ValueInfoProto *data = NULL;
    size_t n_bound = 0;
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = g->input[i];
        if (!vi->name || is_initializer(g, vi->name)) continue;
        if (!data) {
            data = vi;
            continue;
        }
        if (!xo || n_bound >= xo->n_bound)
            return ox_fail(o, AT_EUNSUPPORTED, "input '%s': only one runtime input is supported (the others must be initializers)", vi->name);
        Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, xo->bound_len[n_bound], xo->bound[n_bound]);
        n_bound++;
        if (!t) return ox_fail(o, AT_EPARSE, "input '%s': bound tensor is not a TensorProto", vi->name);
        ox_value v;
        at_status st = ox_tensor(o, t, &v);
        onnx__tensor_proto__free_unpacked(t, NULL);
        AT_TRY(st);
        v.name = vi->name;
        if ((st = push(o, &v)) != AT_OK) {
            value_fini(&v);
            return st;
        }
    }
    if (!data) return ox_fail(o, AT_EINVAL, "the graph has no runtime input");
    size_t rank = 0;
    int64_t dims[4];
    AT_TRY(input_shape(o, data, opts, &rank, dims));
    int64_t shape4[4] = {1, 1, 1, 1};
    memcpy(shape4, dims, rank * sizeof *dims);
    at_status st = at_net_new(o->label, shape4, true, opts ? opts->seed : 0, &o->net);
    if (st != AT_OK) return st == AT_ENOMEM ? st : ox_fail(o, AT_EINVAL, "input '%s': %s", data->name, at_last_error());
    io[0].rank = rank;
    memcpy(io[0].dims, dims, sizeof dims);
    ox_value in = {.name = data->name, .node = 0, .rank = rank};
    memcpy(in.dims, dims, rank * sizeof *dims);
    AT_TRY(push(o, &in));
    o->graph = g;
    for (size_t i = 0; i < g->n_node; i++) {
        if (o->skip && o->skip[i]) continue;
        o->cur = g->node[i];
        o->at = i;
        const char *type = o->cur->op_type ? o->cur->op_type : "";
        if (o->cur->domain && o->cur->domain[0] && strcmp(o->cur->domain, "ai.onnx"))
            return ox_fail(o, AT_EUNSUPPORTED, "operator domain '%s' not supported", o->cur->domain);
        ox_convert_fn fn = ox_find_op(type);
        if (!fn) return ox_fail(o, AT_EUNSUPPORTED, "operator not supported");
        AT_TRY(fn(o));
    }
    o->cur = NULL;
    if (g->n_output < 1 || !g->output[0]->name) return ox_fail(o, AT_EINVAL, "the graph has no output");
    const ox_value *out = find(o, g->output[0]->name);
    if (!out) return ox_fail(o, AT_EINVAL, "output '%s' is not computed by any node", g->output[0]->name);
    if (out->is_const) return ox_fail(o, AT_EUNSUPPORTED, "output '%s' is a constant", out->name);
    if (out->rank > 4) return ox_fail(o, AT_EUNSUPPORTED, "output '%s' of rank %zu", out->name, out->rank);
    io[1].rank = out->rank;
    memcpy(io[1].dims, out->dims, out->rank * sizeof *out->dims);
    /* the network's output is its last node */
    if (out->node != at_net_output(o->net)) {
        size_t node = out->node;
        AT_TRY(at_net_append(o->net, AT_NET_DROPOUT, "output", &node, 1, NULL, NULL));
    }
    return AT_OK;
}

static int64_t default_opset(const Onnx__ModelProto *m)
{
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *p = m->opset_import[i];
        if (!p->domain || !p->domain[0] || !strcmp(p->domain, "ai.onnx")) return p->has_version ? p->version : 0;
    }
    return 0;
}

at_status at_net_onnx_parse(const uint8_t *bytes, size_t len, const char *label, const char *dir, const at_net_opts *opts,
                            const at_net_onnx_opts *xo, at_net **out)
{
    *out = NULL;
    ox o = {.label = label, .dir = dir};
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, bytes);
    if (!m) return AT_FAIL(AT_EPARSE, "%s: not an ONNX model (the protobuf does not decode: truncated or another format)", label);
    at_status st = AT_OK;
    o.opset = default_opset(m);
    if (!m->graph) st = ox_fail(&o, AT_EPARSE, "not an ONNX model (no graph)");
    else if (o.opset < 6 || o.opset > 18) st = ox_fail(&o, AT_EUNSUPPORTED, "opset %" PRId64 " (6 to 18 are supported)", o.opset);
    at_net_io_shape io[2] = {{0}};
    if (st == AT_OK) st = load_graph(&o, m->graph, opts, xo, io);
    onnx__model_proto__free_unpacked(m, NULL);
    ox_fini(&o);
    if (st != AT_OK) {
        at_net_free(o.net);
        return st;
    }
    at_net_set_io_shapes(o.net, &io[0], &io[1]);
    *out = o.net;
    return AT_OK;
}

at_status at_net_onnx_import(const char *path, const at_net_opts *opts, at_net **out)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) return AT_FAIL(AT_EIO, "%s: cannot open", path);
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    at_status st = AT_OK;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            uint8_t *p = at_realloc(buf, cap);
            if (!p) {
                st = AT_OOM();
                break;
            }
            buf = p;
        }
        size_t r = fread(buf + len, 1, cap - len, fp);
        len += r;
        if (r == 0) break;
    }
    if (st == AT_OK && ferror(fp)) st = AT_FAIL(AT_EIO, "%s: read error", path);
    fclose(fp);
    char *copy = at_strdup(path);
    if (st == AT_OK && !copy) st = AT_OOM();
    if (st == AT_OK) st = at_net_onnx_parse(buf, len, path, dirname(copy), opts, NULL, out);
    at_free(copy);
    at_free(buf);
    return st;
}
