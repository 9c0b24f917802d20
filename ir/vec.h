/* Analyses a backend's vectorizer runs over one loop's body, independent of the code it emits
 * (OpenCL C vector types, LLVM vector values): which expressions vary with the vectorized loop's
 * variable, and the constant stride of an index in it. */
#ifndef AT_IR_VEC_H
#define AT_IR_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

/* A backend's constant folder: true with *v when e is a scalar integer constant to it (an
 * immediate, or more, e.g. the variable of an unrolled loop). */
typedef bool (*at_ir_const_fn)(const void *ctx, const at_ir_expr *e, int64_t *v);

/* Does e depend on v, directly or through a variable marked in varying (indexed by variable id:
 * the vector lets)? */
bool at_ir_vec_varies(const at_ir_expr *e, const at_ir_var *v, const bool *varying);

/* When integer index e is base + stride * v with a constant stride (sums, differences, products
 * by a constant of cint, widening integer casts), sets *stride (0 when e does not vary) and
 * returns true; false otherwise. */
bool at_ir_vec_affine_stride(const at_ir_expr *e, const at_ir_var *v, const bool *varying, at_ir_const_fn cint,
                             const void *ctx, int64_t *stride);

/* Are e and all its operands scalar (one lane) and free of vector nodes (lane, broadcast,
 * vector)? Only such expressions are vectorized. */
bool at_ir_vec_scalar_typed(const at_ir_expr *e);

/* Number of lets in s, nested loops and ifs included (a bound for the lets a vectorizer marks). */
size_t at_ir_count_lets(const at_ir_stmt *s);

#endif
