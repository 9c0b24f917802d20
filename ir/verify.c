/* IR verifier and launch analysis. Buffer bounds use interval arithmetic over the variables'
 * ranges (loops and bindings: 0..extent-1; lets: their value's range); an access whose range
 * is unknown, or which sits under an if or a select arm (a guard), is left to run time. */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "ir/internal.h"
#include "ir/ir.h"

int at_ir_binding_dim(at_ir_for_kind k)
{
    AT_ASSERT(at_ir_for_kind_is_binding(k));
    return (int)((k - AT_IR_BLOCK_X) % 3);
}

typedef struct range {
    bool    known;
    int64_t lo, hi;
} range;

typedef struct vctx {
    const at_ir_program *p;
    const at_ir_kernel  *k;
    range               *vars;  /* by var id */
    bool                *bound; /* by var id: in scope now */
    int64_t              tag_extent[6];
    int                  tag_depth[6];
    int                  thread_depth, vec_depth, guard_depth, par_depth;
} vctx;

static range unknown(void)
{
    return (range){0};
}

static range span(int64_t lo, int64_t hi)
{
    return (range){true, lo, hi};
}

static range expr_range(vctx *c, const at_ir_expr *e);

static int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t m = a < b ? a : b;
    m = m < c ? m : c;
    return m < d ? m : d;
}

static int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t m = a > b ? a : b;
    m = m > c ? m : c;
    return m > d ? m : d;
}

static range bin_range(at_ir_binop op, range a, range b)
{
    if (!a.known || !b.known) return unknown();
    int64_t x0, x1, x2, x3;
    switch (op) {
    case AT_IR_ADD:
        if (__builtin_add_overflow(a.lo, b.lo, &x0) || __builtin_add_overflow(a.hi, b.hi, &x1)) return unknown();
        return span(x0, x1);
    case AT_IR_SUB:
        if (__builtin_sub_overflow(a.lo, b.hi, &x0) || __builtin_sub_overflow(a.hi, b.lo, &x1)) return unknown();
        return span(x0, x1);
    case AT_IR_MUL:
        if (__builtin_mul_overflow(a.lo, b.lo, &x0) || __builtin_mul_overflow(a.lo, b.hi, &x1) ||
            __builtin_mul_overflow(a.hi, b.lo, &x2) || __builtin_mul_overflow(a.hi, b.hi, &x3))
            return unknown();
        return span(min4(x0, x1, x2, x3), max4(x0, x1, x2, x3));
    case AT_IR_DIV:
        /* truncating division by a positive constant is monotonic */
        if (b.lo != b.hi || b.lo <= 0) return unknown();
        return span(a.lo / b.lo, a.hi / b.lo);
    case AT_IR_MOD:
        if (b.lo != b.hi || b.lo <= 0) return unknown();
        if (a.lo >= 0 && a.hi < b.lo) return a;
        if (a.lo >= 0) return span(0, b.lo - 1);
        return span(-(b.lo - 1), b.lo - 1);
    case AT_IR_MIN: return span(a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi);
    case AT_IR_MAX: return span(a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
    case AT_IR_EQ: case AT_IR_NE: case AT_IR_LT: case AT_IR_LE: case AT_IR_GT: case AT_IR_GE:
    case AT_IR_AND: case AT_IR_OR: case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR:
    case AT_IR_SHL: case AT_IR_SHR: case AT_IR_BINOP_COUNT:
    default: return unknown();
    }
}

static at_status check_access(vctx *c, const char *what, const at_ir_buffer *buf, const at_ir_expr *index, int lanes);

/* Checks the accesses inside an expression (guarded under select arms) and returns its range. */
static at_status walk_expr(vctx *c, const at_ir_expr *e)
{
    switch (e->kind) {
    case AT_IR_INT_IMM:
    case AT_IR_FLOAT_IMM: return AT_OK;
    case AT_IR_VAR:
        if (!c->bound[e->u.var->id])
            return AT_FAIL(AT_EINVAL, "kernel %s: variable %s used outside its scope", c->k->name, e->u.var->name);
        return AT_OK;
    case AT_IR_BINARY:
        AT_TRY(walk_expr(c, e->u.bin.a));
        return walk_expr(c, e->u.bin.b);
    case AT_IR_UNARY: return walk_expr(c, e->u.un.a);
    case AT_IR_SELECT: {
        AT_TRY(walk_expr(c, e->u.select.cond));
        c->guard_depth++;
        at_status st = walk_expr(c, e->u.select.t);
        if (st == AT_OK) st = walk_expr(c, e->u.select.f);
        c->guard_depth--;
        return st;
    }
    case AT_IR_CAST: return walk_expr(c, e->u.cast.a);
    case AT_IR_LOAD:
        AT_TRY(walk_expr(c, e->u.load.index));
        return check_access(c, "load from", e->u.load.buf, e->u.load.index, e->type.lanes);
    case AT_IR_BROADCAST: return walk_expr(c, e->u.broadcast.a);
    case AT_IR_LANE: return walk_expr(c, e->u.lane.a);
    case AT_IR_VECTOR:
        for (size_t i = 0; i < e->u.vector.n; i++) AT_TRY(walk_expr(c, e->u.vector.elems[i]));
        return AT_OK;
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++) AT_TRY(walk_expr(c, e->u.call.args[i]));
        return AT_OK;
    case AT_IR_EXPR_KIND_COUNT:
    default: AT_ASSERT(!"bad expression kind");
    }
    return AT_OK;
}

static range expr_range(vctx *c, const at_ir_expr *e)
{
    switch (e->kind) {
    case AT_IR_INT_IMM: return span(e->u.int_val, e->u.int_val);
    case AT_IR_VAR: return c->vars[e->u.var->id];
    case AT_IR_BINARY: return bin_range(e->u.bin.op, expr_range(c, e->u.bin.a), expr_range(c, e->u.bin.b));
    case AT_IR_CAST:
        if (at_ir_type_is_int(e->type) && at_ir_type_is_int(e->u.cast.a->type)) {
            range r = expr_range(c, e->u.cast.a);
            if (r.known && at_ir_wrap_int(e->type, r.lo) == r.lo && at_ir_wrap_int(e->type, r.hi) == r.hi) return r;
        }
        return unknown();
    case AT_IR_SELECT: {
        range t = expr_range(c, e->u.select.t), f = expr_range(c, e->u.select.f);
        if (!t.known || !f.known) return unknown();
        return span(t.lo < f.lo ? t.lo : f.lo, t.hi > f.hi ? t.hi : f.hi);
    }
    case AT_IR_FLOAT_IMM: case AT_IR_UNARY: case AT_IR_LOAD: case AT_IR_BROADCAST: case AT_IR_LANE:
    case AT_IR_VECTOR: case AT_IR_CALL: case AT_IR_EXPR_KIND_COUNT:
    default: return unknown();
    }
}

static bool buffer_in_kernel(const vctx *c, const at_ir_buffer *b)
{
    if (b->scope == AT_IR_GLOBAL) {
        for (size_t i = 0; i < c->p->n_bufs; i++)
            if (c->p->bufs[i] == b) return true;
        return false;
    }
    for (size_t i = 0; i < c->k->n_allocs; i++)
        if (c->k->allocs[i] == b) return true;
    return false;
}

static at_status check_access(vctx *c, const char *what, const at_ir_buffer *buf, const at_ir_expr *index, int lanes)
{
    if (!buffer_in_kernel(c, buf))
        return AT_FAIL(AT_EINVAL, "kernel %s: buffer %s is not a program buffer nor one of this kernel's allocations",
                       c->k->name, buf->name);
    if (lanes > buf->size)
        return AT_FAIL(AT_EINVAL, "kernel %s: %d-lane %s %s, which holds %lld elements", c->k->name, lanes, what,
                       buf->name, (long long)buf->size);
    if (c->guard_depth > 0) return AT_OK;
    range r = expr_range(c, index);
    if (r.known && (r.lo < 0 || r.hi > buf->size - lanes)) {
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_ir_print_expr(index, &sb);
        at_status st = AT_FAIL(AT_EINVAL, "kernel %s: %s %s[%s] reaches %lld..%lld, outside 0..%lld", c->k->name, what,
                               buf->name, at_strbuf_cstr(&sb), (long long)r.lo, (long long)(r.hi + lanes - 1),
                               (long long)(buf->size - 1));
        at_strbuf_fini(&sb);
        return st;
    }
    return AT_OK;
}

static at_status bind(vctx *c, const at_ir_var *v, range r)
{
    if (c->bound[v->id])
        return AT_FAIL(AT_EINVAL, "kernel %s: variable %s bound again inside its own scope", c->k->name, v->name);
    c->bound[v->id] = true;
    c->vars[v->id] = r;
    return AT_OK;
}

static at_status walk_stmt(vctx *c, const at_ir_stmt *s);

static at_status walk_loop(vctx *c, const at_ir_stmt *s)
{
    const at_ir_var *v = s->u.loop.var;
    int64_t ext = s->u.loop.extent;
    at_ir_for_kind kind = s->u.loop.kind;
    const char *kname = at_ir_for_kind_str(kind);
    if (ext < 1) return AT_FAIL(AT_EINVAL, "kernel %s: loop %s (%s) has extent %lld", c->k->name, v->name, kname, (long long)ext);
    if (at_ir_wrap_int(v->type, ext - 1) != ext - 1)
        return AT_FAIL(AT_EINVAL, "kernel %s: extent %lld of loop %s overflows its type", c->k->name, (long long)ext, v->name);
    if (c->vec_depth > 0)
        return AT_FAIL(AT_EINVAL, "kernel %s: loop %s (%s) inside a vectorized loop", c->k->name, v->name, kname);
    int tag = -1;
    if (at_ir_for_kind_is_binding(kind)) {
        tag = (int)(kind - AT_IR_BLOCK_X);
        if (c->tag_depth[tag] > 0)
            return AT_FAIL(AT_EINVAL, "kernel %s: %s bound inside another %s binding", c->k->name, kname, kname);
        if (tag < 3 && c->thread_depth > 0)
            return AT_FAIL(AT_EINVAL, "kernel %s: %s bound inside a threadIdx binding", c->k->name, kname);
        if (c->tag_extent[tag] && c->tag_extent[tag] != ext)
            return AT_FAIL(AT_EINVAL, "kernel %s: %s bound with extents %lld and %lld", c->k->name, kname,
                           (long long)c->tag_extent[tag], (long long)ext);
        c->tag_extent[tag] = ext;
    }
    if (kind == AT_IR_PARALLEL && c->par_depth > 0)
        return AT_FAIL(AT_EINVAL, "kernel %s: parallel loop %s inside another parallel loop", c->k->name, v->name);
    if (kind == AT_IR_PARALLEL && (c->thread_depth > 0 || c->tag_depth[0] + c->tag_depth[1] + c->tag_depth[2] > 0))
        return AT_FAIL(AT_EINVAL, "kernel %s: parallel loop %s inside a thread binding", c->k->name, v->name);
    if (kind == AT_IR_VECTORIZED && (ext < 2 || ext > AT_IR_MAX_LANES))
        return AT_FAIL(AT_EINVAL, "kernel %s: vectorized loop %s has extent %lld (2..%d allowed)", c->k->name,
                       v->name, (long long)ext, AT_IR_MAX_LANES);
    AT_TRY(bind(c, v, span(0, ext - 1)));
    if (tag >= 0) c->tag_depth[tag]++;
    if (tag >= 3) c->thread_depth++;
    if (kind == AT_IR_VECTORIZED) c->vec_depth++;
    if (kind == AT_IR_PARALLEL) c->par_depth++;
    at_status st = walk_stmt(c, s->u.loop.body);
    if (kind == AT_IR_PARALLEL) c->par_depth--;
    if (kind == AT_IR_VECTORIZED) c->vec_depth--;
    if (tag >= 3) c->thread_depth--;
    if (tag >= 0) c->tag_depth[tag]--;
    c->bound[v->id] = false;
    return st;
}

static at_status walk_stmt(vctx *c, const at_ir_stmt *s)
{
    switch (s->kind) {
    case AT_IR_FOR: return walk_loop(c, s);
    case AT_IR_STORE:
        AT_TRY(walk_expr(c, s->u.store.index));
        AT_TRY(walk_expr(c, s->u.store.value));
        return check_access(c, "store to", s->u.store.buf, s->u.store.index, s->u.store.value->type.lanes);
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) AT_TRY(walk_stmt(c, s->u.seq.items[i]));
        return AT_OK;
    case AT_IR_IF: {
        AT_TRY(walk_expr(c, s->u.if_.cond));
        c->guard_depth++;
        at_status st = walk_stmt(c, s->u.if_.then_s);
        if (st == AT_OK && s->u.if_.else_s) st = walk_stmt(c, s->u.if_.else_s);
        c->guard_depth--;
        return st;
    }
    case AT_IR_LET: {
        AT_TRY(walk_expr(c, s->u.let.value));
        const at_ir_var *v = s->u.let.var;
        range r = at_ir_type_is_int(v->type) && v->type.lanes == 1 ? expr_range(c, s->u.let.value) : unknown();
        AT_TRY(bind(c, v, r));
        at_status st = walk_stmt(c, s->u.let.body);
        c->bound[v->id] = false;
        return st;
    }
    case AT_IR_BARRIER:
        if (c->vec_depth > 0) return AT_FAIL(AT_EINVAL, "kernel %s: barrier inside a vectorized loop", c->k->name);
        return AT_OK;
    case AT_IR_PREFETCH:
        if (c->vec_depth > 0) return AT_FAIL(AT_EINVAL, "kernel %s: prefetch inside a vectorized loop", c->k->name);
        AT_TRY(walk_expr(c, s->u.prefetch.index));
        return check_access(c, "prefetch of", s->u.prefetch.buf, s->u.prefetch.index, 1);
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
    return AT_OK;
}

at_status at_ir_verify(const at_ir_program *p)
{
    size_t n = p->n_vars ? p->n_vars : 1;
    range *vars = at_calloc(n, sizeof *vars);
    bool *bound = at_calloc(n, sizeof *bound);
    at_status st = AT_OK;
    if (!vars || !bound) {
        st = AT_OOM();
        goto done;
    }
    if (p->n_kernels == 0) {
        st = AT_FAIL(AT_EINVAL, "program %s has no kernel", p->name);
        goto done;
    }
    for (size_t k = 0; k < p->n_kernels && st == AT_OK; k++) {
        vctx c = {.p = p, .k = &p->kernels[k], .vars = vars, .bound = bound};
        memset(bound, 0, n * sizeof *bound);
        st = walk_stmt(&c, p->kernels[k].body);
    }
done:
    at_free(vars);
    at_free(bound);
    return st;
}

static void launch_walk(const at_ir_stmt *s, at_ir_launch *l)
{
    switch (s->kind) {
    case AT_IR_FOR:
        if (at_ir_for_kind_is_binding(s->u.loop.kind)) {
            int d = at_ir_binding_dim(s->u.loop.kind);
            if (s->u.loop.kind <= AT_IR_BLOCK_Z)
                l->groups[d] = s->u.loop.extent;
            else
                l->local[d] = s->u.loop.extent;
            if ((unsigned)d + 1 > l->work_dim) l->work_dim = (unsigned)d + 1;
        }
        launch_walk(s->u.loop.body, l);
        break;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) launch_walk(s->u.seq.items[i], l);
        break;
    case AT_IR_IF:
        launch_walk(s->u.if_.then_s, l);
        if (s->u.if_.else_s) launch_walk(s->u.if_.else_s, l);
        break;
    case AT_IR_LET: launch_walk(s->u.let.body, l); break;
    case AT_IR_STORE:
    case AT_IR_PREFETCH:
    case AT_IR_BARRIER: break;
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
}

void at_ir_kernel_launch(const at_ir_program *p, size_t k, at_ir_launch *out)
{
    AT_ASSERT(k < p->n_kernels);
    at_ir_launch l = {.groups = {1, 1, 1}, .local = {1, 1, 1}, .work_dim = 1};
    launch_walk(p->kernels[k].body, &l);
    *out = l;
}

size_t at_ir_kernel_local_bytes(const at_ir_program *p, size_t k)
{
    AT_ASSERT(k < p->n_kernels);
    size_t total = 0;
    const at_ir_kernel *kn = &p->kernels[k];
    for (size_t i = 0; i < kn->n_allocs; i++)
        if (kn->allocs[i]->scope == AT_IR_LOCAL) total += (size_t)kn->allocs[i]->size * at_ir_type_bytes(kn->allocs[i]->elem);
    return total;
}
