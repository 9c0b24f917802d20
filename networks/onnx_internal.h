/* What onnx.c (model, values, constants) and onnx_ops.c (one converter per operator) share. */
#ifndef AT_NETWORKS_ONNX_INTERNAL_H
#define AT_NETWORKS_ONNX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "networks/net.h"
#include "onnx.pb-c.h"

#define OX_MAX_RANK 8

/* An ONNX value: a graph node (a runtime tensor) or a constant known at import. A runtime
 * value's graph node holds its dims right-padded with 1s to 4-D, or exactly [d0, d1] when the
 * node is 2-D, so ONNX axis k is graph axis k either way. */
typedef struct ox_value {
    const char *name; /* borrowed from the model */
    bool        is_const;
    size_t      node; /* runtime: its graph node */
    size_t      rank;
    int64_t     dims[OX_MAX_RANK];
    /* constants: numel elements, as floats (float types) or int64s (integer types) */
    int64_t  numel;
    float   *f;
    int64_t *i;
} ox_value;

typedef struct ox {
    const char *label, *dir;
    int64_t     opset;
    at_net     *net;
    ox_value   *vals;
    size_t      n_vals, cap_vals;
    const Onnx__NodeProto *cur; /* the node being converted, for errors */
    /* the graph and cur's index in it; a converter that also converts later nodes (a
     * recognised chain) marks them in skip (allocated by it, n_node entries) */
    const Onnx__GraphProto *graph;
    size_t                  at;
    bool                   *skip;
} ox;

/* "m.onnx: node 'Einsum_12' (Einsum, opset 13): <detail>", status code. */
at_status ox_fail(const ox *o, at_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The value named name (an input of the current node); NULL with the error set in *st. */
const ox_value *ox_in(ox *o, size_t k, at_status *st);
/* Input k exists and is not the empty name (an omitted optional input). */
bool ox_has_in(const ox *o, size_t k);

/* Attributes of the current node, or the default. */
int64_t     ox_attr_i(const ox *o, const char *name, int64_t def);
double      ox_attr_f(const ox *o, const char *name, double def);
/* ints attribute: count, *v borrowed; 0 when absent. */
size_t      ox_attr_ints(const ox *o, const char *name, const int64_t **v);
/* string attribute copied into buf (def when absent). */
const char *ox_attr_s(const ox *o, const char *name, const char *def, char *buf, size_t cap);
const Onnx__TensorProto *ox_attr_t(const ox *o, const char *name);

/* Binds output k of the current node to a runtime graph node with ONNX shape dims[0..rank). */
at_status ox_out_node(ox *o, size_t k, size_t node, size_t rank, const int64_t *dims);
/* Binds output k to a new constant (takes f or i, one of them NULL; freed on failure). */
at_status ox_out_const(ox *o, size_t k, size_t rank, const int64_t *dims, float *f, int64_t *i);
/* Binds output k to the same meaning as value v (identity ops). */
at_status ox_out_alias(ox *o, size_t k, const ox_value *v);
/* A constant tensor as a value (unnamed); statuses as ox_out_const. */
at_status ox_tensor(ox *o, const Onnx__TensorProto *t, ox_value *v);

/* Element k of a constant as a double / an int64. */
double  ox_cf(const ox_value *v, int64_t k);
int64_t ox_ci(const ox_value *v, int64_t k);

/* Appends a graph node (at_net_append with the current node's name, suffixed when it makes
 * more than one); errors become ox_fail lines. */
at_status ox_append(ox *o, at_net_op op, const char *suffix, const size_t *inputs, size_t n_inputs, const at_net_attrs *a,
                    size_t *out);
/* The graph node of runtime value v as a 2-D node [d0, d1] (rank-2 values only; appends a
 * reshape when v's node is 4-D). */
at_status ox_node_2d(ox *o, const ox_value *v, size_t *node);

/* Reshape of runtime value x (rank 4) to dims[0..5): when it starts a channel shuffle
 * (onnx_shuffle.c), converts the chain, binds its last node's output, marks the chain's later
 * nodes in o->skip and sets *done; otherwise *done = false and nothing changes. Statuses as
 * ox_append. */
at_status ox_channel_shuffle(ox *o, const ox_value *x, const int64_t dims[5], bool *done);

/* Slice (onnx_slice.c), a converter of the table. */
at_status ox_op_slice(ox *o);

/* The operator table (onnx_ops.c). */
typedef at_status (*ox_convert_fn)(ox *o);
ox_convert_fn ox_find_op(const char *op_type);

#endif
