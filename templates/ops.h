/* Operator kinds: per kind, the argument struct and its workload JSON (TVM's serialize_args),
 * the tensors of its signature, FLOPs, the unscheduled compute (IR) and the naive reference
 * implementation that measure/ and the tests use as the correctness oracle. A template only
 * schedules; everything here is shared by every template of the op.
 *
 * Each kind lives in its own file, templates/ops_<kind>.c (a family sharing one argument struct,
 * like the three convolutions, shares one file), which exports one at_op_def; the table of kinds
 * is templates/op_kinds.h. The at_op_* functions below dispatch through that table. */
#ifndef AT_TEMPLATES_OPS_H
#define AT_TEMPLATES_OPS_H

#include "templates/op_kinds.h"

/* The arguments of one task: the op kind and its fields. */
typedef struct at_args {
    at_op_kind op;
    union {
        AT_OP_ARGS_MEMBERS
    } u;
} at_args;

/* One row of the op-kind table: what a kind defines, in its own file. Every entry is required. */
typedef struct at_op_def {
    const char *name; /* "conv2d_nchw": messages, tests, `autotvm space` */
    /* Checks the arguments (extents, dtypes, the asserts TVM's compute makes). AT_EINVAL naming
     * the field. */
    at_status (*check_args)(const at_args *a);
    /* The signature, inputs then outputs: at most AT_OP_MAX_TENSORS descriptors, returns how many. */
    size_t (*tensors)(const at_args *a, at_tensor_desc *out);
    /* Appends the arguments as TVM serializes them into a workload, without the brackets. */
    void (*write_json)(const at_args *a, at_strbuf *sb);
    /* Reads a workload's argument list (a JSON array) into a->u; a->op is set, the caller checks
     * the result with check_args. AT_EPARSE naming the bad element. */
    at_status (*read_json)(const cJSON *array, at_args *a);
    /* Reads the command-line comma form into a->u (the caller checks it); comma_form documents
     * it ("N,L,M[,dtype]"). AT_EPARSE (AT_EINVAL for a value the form cannot express). */
    at_status (*parse_list)(const char *text, at_args *a);
    const char *comma_form;
    /* FLOPs of one run, as TVM's compute_flop (or the template's cfg.add_flop) counts them. */
    double (*flop)(const at_args *a);
    /* The unscheduled compute on s: one serial loop nest, single work-item, the signature as
     * parameters. */
    void (*compute)(const at_args *a, at_ir_sched *s);
    /* The naive reference: inputs[i] and outputs[j] as tensors() lays them out. */
    void (*reference)(const at_args *a, const void *const *inputs, void *const *outputs);
    at_op_tolerance (*tolerance)(const at_args *a);
    /* Example arguments for the tests (comma or JSON form, NULL-terminated, each valid):
     * tiny: workloads the IR interpreter runs in milliseconds, the plainest first, then the
     * corner cases the compute has (padding, strides, dilation, batch, bias, other dtypes);
     * typical: at least two real-size workloads (network layers) for tests that only build
     * spaces and features. A kind without them fails the tests that walk this table. */
    const char *const *tiny;
    const char *const *typical;
} at_op_def;

/* The row of kind op; AT_ASSERT a valid kind. */
const at_op_def *at_op_def_of(at_op_kind op);

/* The kind named name ("dense"). AT_ENOTFOUND listing the kinds. */
at_status at_op_find(const char *name, at_op_kind *out);

/* "matmul"; AT_ASSERT a valid kind. */
const char *at_op_name(at_op_kind op);

/* The signature: writes at most AT_OP_MAX_TENSORS descriptors, returns how many. */
size_t at_op_tensors(const at_args *a, at_tensor_desc *out);

/* Checks the arguments (extents >= 1, supported dtype). AT_EINVAL naming the field. */
at_status at_op_check_args(const at_args *a);

/* Appends the arguments as TVM serializes them into a workload, without the brackets:
 * `512, 512, 512, "float32"`. Failure shows in sb->failed. */
void at_op_args_write_json(const at_args *a, at_strbuf *sb);

/* Reads the argument list of a workload (a JSON array without the template name) into *out
 * (out->op = op). AT_EPARSE naming the bad element, AT_EINVAL for values at_op_check_args
 * rejects. */
at_status at_op_args_from_json(at_op_kind op, const cJSON *array, at_args *out);

/* Parses the command-line form: the kind's comma list ("512,512,512" or "512,512,512,float32";
 * a missing dtype means the kind's default) or a JSON array. AT_EPARSE / AT_EINVAL as above. */
at_status at_op_args_parse(at_op_kind op, const char *text, at_args *out);

/* FLOPs of one run, as TVM's compute_flop counts them (matmul: 2 n l m). */
double at_op_flop(const at_args *a);

/* The unscheduled compute as a program on s (one serial loop nest, single work-item), with the
 * op's signature as parameters. Statuses show in at_ir_sched_status. */
void at_op_compute(const at_args *a, at_ir_sched *s);

/* The naive reference: reads inputs[i] and writes outputs[j] laid out as at_op_tensors says
 * (dtype elements, row-major). Floats accumulate in double. */
void at_op_reference(const at_args *a, const void *const *inputs, void *const *outputs);

/* Tolerance of an output element against the reference. */
at_op_tolerance at_op_tolerance_of(const at_args *a);

#endif
