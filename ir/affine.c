/* Affine forms of integer expressions (ir/affine.h). */
#include "ir/affine.h"

static int64_t wrap_to(at_ir_type t, uint64_t v)
{
    if (t.bits >= 64) return (int64_t)v;
    uint64_t mask = ((uint64_t)1 << t.bits) - 1, u = v & mask;
    if (t.code == AT_IR_TUINT) return (int64_t)u;
    uint64_t sign = (uint64_t)1 << (t.bits - 1);
    return (int64_t)((u ^ sign) - sign);
}

static bool same_atom(const at_ir_expr *a, const at_ir_expr *b)
{
    return a == b || (a->kind == AT_IR_VAR && b->kind == AT_IR_VAR && a->u.var == b->u.var);
}

static bool add_term(at_ir_affine *f, const at_ir_expr *atom, uint64_t coeff)
{
    for (size_t i = 0; i < f->n; i++)
        if (same_atom(f->terms[i].atom, atom)) {
            f->terms[i].coeff = (int64_t)((uint64_t)f->terms[i].coeff + coeff);
            return true;
        }
    if (f->n == AT_IR_AFFINE_MAX_TERMS) return false;
    f->terms[f->n++] = (at_ir_affine_term){atom, (int64_t)coeff};
    return true;
}

/* Adds mult * e to f. */
static bool collect(const at_ir_expr *e, uint64_t mult, at_ir_const_fn cint, const void *ctx, at_ir_affine *f)
{
    int64_t k;
    if (cint(ctx, e, &k)) {
        f->constant = (int64_t)((uint64_t)f->constant + mult * (uint64_t)k);
        return true;
    }
    if (e->kind == AT_IR_BINARY && at_ir_type_eq(e->u.bin.a->type, e->type) && at_ir_type_eq(e->u.bin.b->type, e->type)) {
        const at_ir_expr *a = e->u.bin.a, *b = e->u.bin.b;
        switch (e->u.bin.op) {
        case AT_IR_ADD: return collect(a, mult, cint, ctx, f) && collect(b, mult, cint, ctx, f);
        case AT_IR_SUB: return collect(a, mult, cint, ctx, f) && collect(b, (uint64_t)0 - mult, cint, ctx, f);
        case AT_IR_MUL:
            if (cint(ctx, b, &k)) return collect(a, mult * (uint64_t)k, cint, ctx, f);
            if (cint(ctx, a, &k)) return collect(b, mult * (uint64_t)k, cint, ctx, f);
            break;
        case AT_IR_DIV: case AT_IR_MOD: case AT_IR_MIN: case AT_IR_MAX: case AT_IR_EQ: case AT_IR_NE:
        case AT_IR_LT: case AT_IR_LE: case AT_IR_GT: case AT_IR_GE: case AT_IR_AND: case AT_IR_OR:
        case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR: case AT_IR_SHL: case AT_IR_SHR:
        case AT_IR_BINOP_COUNT:
        default: break;
        }
    }
    return add_term(f, e, mult);
}

bool at_ir_affine_collect(const at_ir_expr *e, at_ir_const_fn cint, const void *ctx, at_ir_affine *out)
{
    out->n = 0;
    out->constant = 0;
    if (!at_ir_type_is_int(e->type) || e->type.lanes != 1) return false;
    if (!collect(e, 1, cint, ctx, out)) return false;
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        int64_t c = wrap_to(e->type, (uint64_t)out->terms[i].coeff);
        if (c) out->terms[kept++] = (at_ir_affine_term){out->terms[i].atom, c};
    }
    out->n = kept;
    out->constant = wrap_to(e->type, (uint64_t)out->constant);
    return true;
}
