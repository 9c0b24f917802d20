/* The vocabulary every op kind's header shares: the tensors of a signature, the tolerance of an
 * output against the reference, and how a workload wrote a tuple-valued argument. */
#ifndef AT_TEMPLATES_OP_TYPES_H
#define AT_TEMPLATES_OP_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "ir/ir.h"

/* How a workload wrote strides / dilation ([h, w] or a bare int) and padding ([top, left, bottom,
 * right], [h, w] or a bare int), kept so the workload is written back byte for byte. Zero is
 * relay's form (lists, padding of 4). */
typedef enum at_args_form { AT_FORM_LIST = 0, AT_FORM_INT, AT_FORM_PAIR } at_args_form;

#define AT_OP_MAX_TENSORS 8
#define AT_OP_MAX_DIMS 6

/* One tensor of an op's signature (inputs first, then outputs). */
typedef struct at_tensor_desc {
    const char *name; /* static */
    at_ir_type  dtype;
    size_t      ndim;
    int64_t     shape[AT_OP_MAX_DIMS];
    int64_t     n_elems;
    bool        is_output;
} at_tensor_desc;

/* Tolerance of an output element against the reference: |out - ref| <= atol + rtol * |ref|. */
typedef struct at_op_tolerance {
    double atol, rtol;
} at_op_tolerance;

/* The arguments of an op kind a plugin registers (templates/plugin.h): the plugin decides what
 * each of v[0..n) means and whether dtype is used; at_args holds them by value like any kind's. */
#define AT_EXT_ARGS_MAX 16
typedef struct at_ext_args {
    int64_t    v[AT_EXT_ARGS_MAX];
    size_t     n;
    at_ir_type dtype;
} at_ext_args;

#endif
