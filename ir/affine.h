/* Integer index expressions as affine forms: constant + sum of coeff * atom. Backends print an
 * index in this canonical form (terms in binding order, the constant last) so every access of an
 * unrolled block shares one base expression plus a constant, as TVM's arithmetic simplifier
 * prints them: a nested mixed-radix index such as ((((x * 8) + vh) * 2) + vw) * 8 + vc hides
 * that sharing from the device compiler (measured on PoCL 3.1: 10x slower for the same loops). */
#ifndef AT_IR_AFFINE_H
#define AT_IR_AFFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "ir/vec.h"

enum { AT_IR_AFFINE_MAX_TERMS = 16 };

typedef struct at_ir_affine_term {
    const at_ir_expr *atom; /* a variable, or an expression that is not + - or * by a constant */
    int64_t           coeff;
} at_ir_affine_term;

typedef struct at_ir_affine {
    at_ir_affine_term terms[AT_IR_AFFINE_MAX_TERMS];
    size_t            n;
    int64_t           constant;
} at_ir_affine;

/* Expands scalar integer e into out: sums, differences and products with a constant (cint, the
 * backend's folder) distribute; anything else is an atom. Atoms that are the same node or the
 * same variable merge; terms whose coefficient becomes 0 are dropped. Coefficients and the
 * constant wrap to e's type (two's complement ring arithmetic, so the form has e's value).
 * False when e is not a scalar integer or has more than AT_IR_AFFINE_MAX_TERMS atoms. */
bool at_ir_affine_collect(const at_ir_expr *e, at_ir_const_fn cint, const void *ctx, at_ir_affine *out);

#endif
