/* Vectorizer analyses shared by the backends (ir/vec.h): plain recursive walks over expressions;
 * what counts as a constant stays the backend's (a callback), so each keeps its own folding. */
#include "ir/vec.h"

#include "core/status.h"

bool at_ir_vec_varies(const at_ir_expr *e, const at_ir_var *v, const bool *varying)
{
    switch (e->kind) {
    case AT_IR_INT_IMM:
    case AT_IR_FLOAT_IMM: return false;
    case AT_IR_VAR: return e->u.var == v || varying[e->u.var->id];
    case AT_IR_BINARY: return at_ir_vec_varies(e->u.bin.a, v, varying) || at_ir_vec_varies(e->u.bin.b, v, varying);
    case AT_IR_UNARY: return at_ir_vec_varies(e->u.un.a, v, varying);
    case AT_IR_SELECT:
        return at_ir_vec_varies(e->u.select.cond, v, varying) || at_ir_vec_varies(e->u.select.t, v, varying) ||
               at_ir_vec_varies(e->u.select.f, v, varying);
    case AT_IR_CAST: return at_ir_vec_varies(e->u.cast.a, v, varying);
    case AT_IR_LOAD: return at_ir_vec_varies(e->u.load.index, v, varying);
    case AT_IR_BROADCAST: return at_ir_vec_varies(e->u.broadcast.a, v, varying);
    case AT_IR_LANE: return at_ir_vec_varies(e->u.lane.a, v, varying);
    case AT_IR_VECTOR:
        for (size_t i = 0; i < e->u.vector.n; i++)
            if (at_ir_vec_varies(e->u.vector.elems[i], v, varying)) return true;
        return false;
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++)
            if (at_ir_vec_varies(e->u.call.args[i], v, varying)) return true;
        return false;
    case AT_IR_EXPR_KIND_COUNT:
    default: AT_ASSERT(!"bad expression kind");
    }
    return false;
}

bool at_ir_vec_affine_stride(const at_ir_expr *e, const at_ir_var *v, const bool *varying, at_ir_const_fn cint,
                             const void *ctx, int64_t *stride)
{
    if (!at_ir_vec_varies(e, v, varying)) {
        *stride = 0;
        return true;
    }
    int64_t a, b, k;
    switch (e->kind) {
    case AT_IR_VAR:
        if (e->u.var != v) return false;
        *stride = 1;
        return true;
    case AT_IR_BINARY:
        switch (e->u.bin.op) {
        case AT_IR_ADD:
        case AT_IR_SUB:
            if (!at_ir_vec_affine_stride(e->u.bin.a, v, varying, cint, ctx, &a) ||
                !at_ir_vec_affine_stride(e->u.bin.b, v, varying, cint, ctx, &b))
                return false;
            *stride = e->u.bin.op == AT_IR_ADD ? a + b : a - b;
            return true;
        case AT_IR_MUL:
            if (cint(ctx, e->u.bin.b, &k) && at_ir_vec_affine_stride(e->u.bin.a, v, varying, cint, ctx, &a)) {
                *stride = a * k;
                return true;
            }
            if (cint(ctx, e->u.bin.a, &k) && at_ir_vec_affine_stride(e->u.bin.b, v, varying, cint, ctx, &b)) {
                *stride = b * k;
                return true;
            }
            return false;
        case AT_IR_DIV: case AT_IR_MOD: case AT_IR_MIN: case AT_IR_MAX: case AT_IR_EQ: case AT_IR_NE:
        case AT_IR_LT: case AT_IR_LE: case AT_IR_GT: case AT_IR_GE: case AT_IR_AND: case AT_IR_OR:
        case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR: case AT_IR_SHL: case AT_IR_SHR:
        case AT_IR_BINOP_COUNT:
        default: return false;
        }
    case AT_IR_CAST:
        return at_ir_type_is_int(e->u.cast.a->type) && e->type.bits >= e->u.cast.a->type.bits &&
               at_ir_vec_affine_stride(e->u.cast.a, v, varying, cint, ctx, stride);
    case AT_IR_INT_IMM: case AT_IR_FLOAT_IMM: case AT_IR_UNARY: case AT_IR_SELECT: case AT_IR_LOAD:
    case AT_IR_BROADCAST: case AT_IR_LANE: case AT_IR_VECTOR: case AT_IR_CALL: case AT_IR_EXPR_KIND_COUNT:
    default: return false;
    }
}

bool at_ir_vec_scalar_typed(const at_ir_expr *e)
{
    if (e->type.lanes != 1) return false;
    switch (e->kind) {
    case AT_IR_BINARY: return at_ir_vec_scalar_typed(e->u.bin.a) && at_ir_vec_scalar_typed(e->u.bin.b);
    case AT_IR_UNARY: return at_ir_vec_scalar_typed(e->u.un.a);
    case AT_IR_SELECT:
        return at_ir_vec_scalar_typed(e->u.select.cond) && at_ir_vec_scalar_typed(e->u.select.t) &&
               at_ir_vec_scalar_typed(e->u.select.f);
    case AT_IR_CAST: return at_ir_vec_scalar_typed(e->u.cast.a);
    case AT_IR_LOAD: return at_ir_vec_scalar_typed(e->u.load.index);
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++)
            if (!at_ir_vec_scalar_typed(e->u.call.args[i])) return false;
        return true;
    case AT_IR_INT_IMM: case AT_IR_FLOAT_IMM: case AT_IR_VAR: return true;
    case AT_IR_LANE: case AT_IR_BROADCAST: case AT_IR_VECTOR: case AT_IR_EXPR_KIND_COUNT:
    default: return false;
    }
}

size_t at_ir_count_lets(const at_ir_stmt *s)
{
    switch (s->kind) {
    case AT_IR_LET: return 1 + at_ir_count_lets(s->u.let.body);
    case AT_IR_SEQ: {
        size_t n = 0;
        for (size_t i = 0; i < s->u.seq.n; i++) n += at_ir_count_lets(s->u.seq.items[i]);
        return n;
    }
    case AT_IR_FOR: return at_ir_count_lets(s->u.loop.body);
    case AT_IR_IF: return at_ir_count_lets(s->u.if_.then_s) + (s->u.if_.else_s ? at_ir_count_lets(s->u.if_.else_s) : 0);
    case AT_IR_STORE:
    case AT_IR_PREFETCH:
    case AT_IR_BARRIER: return 0;
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
    return 0;
}
