/* UnrollLoop's counters, kept as TVM keeps them: step counts stores reached so far in the current
 * statement of a sequence, the depths count unrolled and kept loops below; a sequence restarts
 * them for each statement and merges (sum of steps, max of depths). */
#include "ir/unroll.h"

#include "ir/internal.h"

enum { AUTO_MAX_DEPTH = 8 };

typedef struct unroller {
    at_ir_sched *s;
    int64_t      max_step;
    bool         explicit_unroll;
    int64_t      step;
    int          unroll_depth, normal_depth;
} unroller;

static const at_ir_stmt *visit(unroller *u, const at_ir_stmt *st);

static const at_ir_stmt *visit_seq(unroller *u, const at_ir_stmt *st)
{
    size_t n = st->u.seq.n;
    const at_ir_stmt **items = at_arena_alloc(at_ir_sched_arena(u->s), n * sizeof *items);
    if (!items) return at_ir_sched_oom(u->s);
    for (size_t i = 0; i < n; i++) {
        int64_t step = u->step;
        int unroll_depth = u->unroll_depth, normal_depth = u->normal_depth;
        u->step = 0, u->unroll_depth = 0, u->normal_depth = 0;
        items[i] = visit(u, st->u.seq.items[i]);
        u->step += step;
        if (normal_depth > u->normal_depth) u->normal_depth = normal_depth;
        if (unroll_depth > u->unroll_depth) u->unroll_depth = unroll_depth;
    }
    return at_ir_seq(u->s, items, n);
}

static const at_ir_stmt *visit_for(unroller *u, const at_ir_stmt *st)
{
    const at_ir_var *var = st->u.loop.var;
    int64_t extent = st->u.loop.extent;
    at_ir_for_kind kind = st->u.loop.kind;
    unsigned flags = st->u.loop.flags;
    const at_ir_stmt *body = visit(u, st->u.loop.body);
    if (at_ir_for_kind_is_binding(kind) || kind == AT_IR_VECTORIZED)
        return at_ir_for_flags(u->s, var, extent, kind, flags, body);
    if (kind == AT_IR_VTHREAD) {
        u->step *= extent;
        return at_ir_for_flags(u->s, var, extent, kind, flags, body);
    }
    bool unroll = kind == AT_IR_UNROLLED ||
                  (kind == AT_IR_SERIAL && u->normal_depth == 0 && u->unroll_depth <= AUTO_MAX_DEPTH &&
                   extent * u->step <= u->max_step);
    if (!unroll) {
        u->normal_depth++;
        return at_ir_for_flags(u->s, var, extent, kind, flags, body);
    }
    u->step *= extent;
    u->unroll_depth++;
    return at_ir_for_flags(u->s, var, extent, AT_IR_UNROLLED, u->explicit_unroll ? 0 : AT_IR_LOOP_PRAGMA_UNROLL, body);
}

static const at_ir_stmt *visit(unroller *u, const at_ir_stmt *st)
{
    if (!st) return NULL;
    switch (st->kind) {
    case AT_IR_FOR: return visit_for(u, st);
    case AT_IR_SEQ: return visit_seq(u, st);
    case AT_IR_IF: {
        const at_ir_stmt *t = visit(u, st->u.if_.then_s);
        const at_ir_stmt *f = st->u.if_.else_s ? visit(u, st->u.if_.else_s) : NULL;
        if (!t || (st->u.if_.else_s && !f)) return NULL;
        return at_ir_if(u->s, st->u.if_.cond, t, f);
    }
    case AT_IR_LET: return at_ir_let(u->s, st->u.let.var, st->u.let.value, visit(u, st->u.let.body));
    case AT_IR_STORE:
    case AT_IR_PREFETCH:
    case AT_IR_BARRIER: u->step++; return st;
    case AT_IR_STMT_KIND_COUNT: break;
    }
    AT_ASSERT(!"statement kind");
    return NULL;
}

const at_ir_stmt *at_ir_auto_unroll(at_ir_sched *s, const at_ir_stmt *body, int64_t max_step, bool explicit_unroll)
{
    unroller u = {.s = s, .max_step = max_step, .explicit_unroll = explicit_unroll};
    return visit(&u, body);
}
