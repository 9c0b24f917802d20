/* IR types and the builder: every node lives in the caller's arena; a failed allocation makes the
 * builder's status AT_ENOMEM and the node NULL, and NULL propagates upward, so templates build
 * freely and check once (at_ir_sched_finish). Integer constants fold as nodes are made. */
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/internal.h"

/* ---- types ---------------------------------------------------------------------------------- */

at_ir_type at_ir_type_with_lanes(at_ir_type t, int lanes)
{
    AT_ASSERT(lanes >= 1 && lanes <= AT_IR_MAX_LANES);
    t.lanes = (uint16_t)lanes;
    return t;
}

bool at_ir_type_eq(at_ir_type a, at_ir_type b)
{
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

bool at_ir_type_is_int(at_ir_type t)
{
    return t.code == AT_IR_TINT || t.code == AT_IR_TUINT;
}

bool at_ir_type_is_float(at_ir_type t)
{
    return t.code == AT_IR_TFLOAT;
}

size_t at_ir_type_bytes(at_ir_type t)
{
    return t.code == AT_IR_TBOOL ? 1 : (size_t)t.bits / 8;
}

const char *at_ir_type_str(at_ir_type t, char buf[16])
{
    static const char *const base[] = {
        [AT_IR_TINT] = "int", [AT_IR_TUINT] = "uint", [AT_IR_TFLOAT] = "float", [AT_IR_TBOOL] = "bool"};
    AT_ASSERT(t.code <= AT_IR_TBOOL);
    int n = t.code == AT_IR_TBOOL ? snprintf(buf, 16, "bool") : snprintf(buf, 16, "%s%u", base[t.code], t.bits);
    if (t.lanes > 1) snprintf(buf + n, (size_t)(16 - n), "x%u", t.lanes);
    return buf;
}

at_status at_ir_type_parse(const char *text, at_ir_type *out)
{
    static const struct { const char *name; at_ir_type t; } names[] = {
        {"bool", AT_IR_BOOL}, {"int8", AT_IR_I8}, {"int16", AT_IR_I16}, {"int32", AT_IR_I32},
        {"int64", AT_IR_I64}, {"uint8", AT_IR_U8}, {"uint16", {AT_IR_TUINT, 16, 1}}, {"uint32", AT_IR_U32},
        {"uint64", {AT_IR_TUINT, 64, 1}}, {"float16", AT_IR_F16}, {"float32", AT_IR_F32}, {"float64", AT_IR_F64},
    };
    const char *x = strchr(text, 'x');
    size_t base_len = x ? (size_t)(x - text) : strlen(text);
    long lanes = 1;
    if (x) {
        char *end = NULL;
        lanes = strtol(x + 1, &end, 10);
        if (end == x + 1 || *end || lanes < 1 || lanes > AT_IR_MAX_LANES)
            return AT_FAIL(AT_EPARSE, "bad dtype '%s': lanes must be 1..%d", text, AT_IR_MAX_LANES);
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strlen(names[i].name) == base_len && !strncmp(names[i].name, text, base_len)) {
            *out = at_ir_type_with_lanes(names[i].t, (int)lanes);
            return AT_OK;
        }
    }
    return AT_FAIL(AT_EPARSE, "unknown dtype '%s'", text);
}

const char *at_ir_for_kind_str(at_ir_for_kind k)
{
    static const char *const names[AT_IR_FOR_KIND_COUNT] = {
        [AT_IR_SERIAL] = "serial",         [AT_IR_UNROLLED] = "unrolled",     [AT_IR_VECTORIZED] = "vectorized",
        [AT_IR_VTHREAD] = "vthread",       [AT_IR_BLOCK_X] = "blockIdx.x",    [AT_IR_BLOCK_Y] = "blockIdx.y",
        [AT_IR_BLOCK_Z] = "blockIdx.z",    [AT_IR_THREAD_X] = "threadIdx.x", [AT_IR_THREAD_Y] = "threadIdx.y",
        [AT_IR_THREAD_Z] = "threadIdx.z",  [AT_IR_PARALLEL] = "parallel",
    };
    AT_ASSERT((unsigned)k < AT_IR_FOR_KIND_COUNT);
    return names[k];
}

bool at_ir_for_kind_is_binding(at_ir_for_kind k)
{
    return k >= AT_IR_BLOCK_X && k <= AT_IR_THREAD_Z;
}

size_t at_ir_program_n_params(const at_ir_program *p)
{
    size_t n = 0;
    while (n < p->n_bufs && (p->bufs[n]->role == AT_IR_INPUT || p->bufs[n]->role == AT_IR_OUTPUT)) n++;
    return n;
}

bool at_ir_program_prepares(const at_ir_program *p, const at_ir_buffer *b)
{
    for (size_t k = 0; k < p->n_kernels; k++)
        if (p->kernels[k].prepare && at_ir_stmt_stores_to(p->kernels[k].body, b)) return true;
    return false;
}

static bool any_expr(const at_ir_expr *e, bool (*fn)(const at_ir_expr *e, void *ctx), void *ctx)
{
    if (!e) return false;
    if (fn(e, ctx)) return true;
    switch (e->kind) {
    case AT_IR_LOAD: return any_expr(e->u.load.index, fn, ctx);
    case AT_IR_BINARY: return any_expr(e->u.bin.a, fn, ctx) || any_expr(e->u.bin.b, fn, ctx);
    case AT_IR_UNARY: return any_expr(e->u.un.a, fn, ctx);
    case AT_IR_SELECT:
        return any_expr(e->u.select.cond, fn, ctx) || any_expr(e->u.select.t, fn, ctx) || any_expr(e->u.select.f, fn, ctx);
    case AT_IR_CAST: return any_expr(e->u.cast.a, fn, ctx);
    case AT_IR_BROADCAST: return any_expr(e->u.broadcast.a, fn, ctx);
    case AT_IR_LANE: return any_expr(e->u.lane.a, fn, ctx);
    case AT_IR_VECTOR:
        for (size_t i = 0; i < e->u.vector.n; i++)
            if (any_expr(e->u.vector.elems[i], fn, ctx)) return true;
        return false;
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++)
            if (any_expr(e->u.call.args[i], fn, ctx)) return true;
        return false;
    case AT_IR_INT_IMM:
    case AT_IR_FLOAT_IMM:
    case AT_IR_VAR:
    case AT_IR_EXPR_KIND_COUNT: return false;
    }
    return false;
}

bool at_ir_stmt_any_expr(const at_ir_stmt *s, bool (*fn)(const at_ir_expr *e, void *ctx), void *ctx)
{
    if (!s) return false;
    switch (s->kind) {
    case AT_IR_FOR: return at_ir_stmt_any_expr(s->u.loop.body, fn, ctx);
    case AT_IR_STORE: return any_expr(s->u.store.index, fn, ctx) || any_expr(s->u.store.value, fn, ctx);
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++)
            if (at_ir_stmt_any_expr(s->u.seq.items[i], fn, ctx)) return true;
        return false;
    case AT_IR_IF:
        return any_expr(s->u.if_.cond, fn, ctx) || at_ir_stmt_any_expr(s->u.if_.then_s, fn, ctx) ||
               at_ir_stmt_any_expr(s->u.if_.else_s, fn, ctx);
    case AT_IR_LET: return any_expr(s->u.let.value, fn, ctx) || at_ir_stmt_any_expr(s->u.let.body, fn, ctx);
    case AT_IR_PREFETCH: return any_expr(s->u.prefetch.index, fn, ctx);
    case AT_IR_BARRIER:
    case AT_IR_STMT_KIND_COUNT: return false;
    }
    return false;
}

static bool is_load_of(const at_ir_expr *e, void *ctx)
{
    const at_ir_buffer *const *b = ctx;
    return e->kind == AT_IR_LOAD && e->u.load.buf == *b;
}

/* a prefetch's hint reads no value, but its index may load */
bool at_ir_stmt_loads_from(const at_ir_stmt *s, const at_ir_buffer *b)
{
    return at_ir_stmt_any_expr(s, is_load_of, &b);
}

bool at_ir_stmt_stores_to(const at_ir_stmt *s, const at_ir_buffer *b)
{
    if (!s) return false;
    switch (s->kind) {
    case AT_IR_FOR: return at_ir_stmt_stores_to(s->u.loop.body, b);
    case AT_IR_STORE: return s->u.store.buf == b;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++)
            if (at_ir_stmt_stores_to(s->u.seq.items[i], b)) return true;
        return false;
    case AT_IR_IF: return at_ir_stmt_stores_to(s->u.if_.then_s, b) || at_ir_stmt_stores_to(s->u.if_.else_s, b);
    case AT_IR_LET: return at_ir_stmt_stores_to(s->u.let.body, b);
    case AT_IR_PREFETCH:
    case AT_IR_BARRIER:
    case AT_IR_STMT_KIND_COUNT: return false;
    }
    return false;
}

/* ---- builder state -------------------------------------------------------------------------- */

typedef struct ptr_list {
    void  **items;
    size_t  n, cap;
} ptr_list;

struct at_ir_sched {
    at_arena  *arena;
    at_status  status;
    const char *name;
    ptr_list   params, temps, pending; /* at_ir_buffer * */
    ptr_list   attached;               /* at_ir_buffer * owned by kernels, in kernel order */
    ptr_list   kernels;                /* at_ir_kernel * */
    uint32_t   n_vars;
    const at_ir_epilogue *epi;
    const at_ir_buffer   *epi_out;  /* the output the epilogue rewrites, once created */
    bool                  in_epi;   /* building the epilogue's own expressions */
    bool                  epi_read; /* the program loads from epi_out */
};

static void *oom(at_ir_sched *s)
{
    if (s->status == AT_OK) s->status = AT_OOM();
    return NULL;
}

void *at_ir_sched_oom(at_ir_sched *s)
{
    return oom(s);
}

static void *alloc(at_ir_sched *s, size_t n)
{
    void *p = at_arena_alloc(s->arena, n);
    return p ? p : oom(s);
}

static const char *dup(at_ir_sched *s, const char *text)
{
    char *d = at_arena_strdup(s->arena, text);
    return d ? d : oom(s);
}

static bool push(at_ir_sched *s, ptr_list *l, void *item)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        void **items = alloc(s, cap * sizeof *items);
        if (!items) return false;
        if (l->n) memcpy(items, l->items, l->n * sizeof *items);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = item;
    return true;
}

at_ir_sched *at_ir_sched_begin(at_arena *arena, const char *name)
{
    at_ir_sched *s = at_arena_alloc(arena, sizeof *s);
    if (!s) return NULL;
    s->arena = arena;
    s->status = AT_OK;
    s->name = at_arena_strdup(arena, name);
    return s->name ? s : NULL;
}

at_status at_ir_sched_status(const at_ir_sched *s)
{
    return s->status;
}

at_arena *at_ir_sched_arena(at_ir_sched *s)
{
    return s->arena;
}

at_status at_ir_sched_finish(at_ir_sched *s, const at_ir_program **out)
{
    *out = NULL;
    if (s->status != AT_OK) return AT_FAIL(s->status, "building the IR of %s: out of memory", s->name);
    if (s->kernels.n == 0) return AT_FAIL(AT_EINVAL, "program %s has no kernel", s->name);
    if (s->epi_read)
        return AT_FAIL(AT_EINVAL, "%s reads its output %s: an epilogue cannot be fused into it", s->name, s->epi_out->name);
    at_ir_program *p = alloc(s, sizeof *p);
    const at_ir_buffer **bufs = alloc(s, (s->params.n + s->temps.n + 1) * sizeof *bufs);
    at_ir_kernel *kernels = alloc(s, s->kernels.n * sizeof *kernels);
    if (!p || !bufs || !kernels) return AT_FAIL(AT_ENOMEM, "building the IR of %s: out of memory", s->name);
    uint32_t id = 0;
    for (size_t i = 0; i < s->params.n; i++, id++) {
        ((at_ir_buffer *)s->params.items[i])->id = id;
        bufs[id] = s->params.items[i];
    }
    for (size_t i = 0; i < s->temps.n; i++, id++) {
        ((at_ir_buffer *)s->temps.items[i])->id = id;
        bufs[id] = s->temps.items[i];
    }
    for (size_t k = 0; k < s->kernels.n; k++) kernels[k] = *(at_ir_kernel *)s->kernels.items[k];
    for (size_t a = 0; a < s->attached.n; a++) ((at_ir_buffer *)s->attached.items[a])->id = id++;
    p->name = s->name;
    p->bufs = bufs;
    p->n_bufs = s->params.n + s->temps.n;
    p->kernels = kernels;
    p->n_kernels = s->kernels.n;
    p->n_vars = s->n_vars;
    *out = p;
    return AT_OK;
}

/* ---- buffers, kernels, vars ----------------------------------------------------------------- */

static at_ir_buffer *new_buffer(at_ir_sched *s, const char *name, at_ir_type elem, int64_t size, at_ir_scope scope,
                                at_ir_role role)
{
    AT_ASSERT(elem.lanes == 1);
    AT_ASSERT(size >= 1);
    at_ir_buffer *b = alloc(s, sizeof *b);
    const char *n = dup(s, name);
    if (!b || !n) return NULL;
    b->name = n;
    b->elem = elem;
    b->size = size;
    b->scope = scope;
    b->role = role;
    return b;
}

const at_ir_buffer *at_ir_param(at_ir_sched *s, const char *name, at_ir_type elem, int64_t size, at_ir_role role)
{
    AT_ASSERT(role == AT_IR_INPUT || role == AT_IR_OUTPUT);
    at_ir_buffer *b = new_buffer(s, name, elem, size, AT_IR_GLOBAL, role);
    if (!b || !push(s, &s->params, b)) return NULL;
    if (role == AT_IR_OUTPUT && s->epi && !s->epi_out) {
        s->epi_out = b;
        s->epi->params(s, s->epi->ctx);
    }
    return b;
}

void at_ir_sched_set_epilogue(at_ir_sched *s, const at_ir_epilogue *epi)
{
    AT_ASSERT(s->params.n == 0 && !s->epi);
    s->epi = epi;
}

const at_ir_buffer *at_ir_temp(at_ir_sched *s, const char *name, at_ir_type elem, int64_t size)
{
    at_ir_buffer *b = new_buffer(s, name, elem, size, AT_IR_GLOBAL, AT_IR_TEMP);
    return b && push(s, &s->temps, b) ? b : NULL;
}

const at_ir_buffer *at_ir_alloc(at_ir_sched *s, const char *name, at_ir_type elem, int64_t size, at_ir_scope scope)
{
    AT_ASSERT(scope == AT_IR_LOCAL || scope == AT_IR_PRIVATE);
    at_ir_buffer *b = new_buffer(s, name, elem, size, scope, AT_IR_SCRATCH);
    return b && push(s, &s->pending, b) ? b : NULL;
}

static void add_kernel(at_ir_sched *s, const char *name, const at_ir_stmt *body, bool prepare, bool finish)
{
    if (!body) {
        oom(s);
        return;
    }
    at_ir_kernel *k = alloc(s, sizeof *k);
    const char *n = dup(s, name);
    const at_ir_buffer **allocs = alloc(s, (s->pending.n + 1) * sizeof *allocs);
    if (!k || !n || !allocs) return;
    for (size_t i = 0; i < s->pending.n; i++) allocs[i] = s->pending.items[i];
    k->name = n;
    k->body = body;
    k->allocs = allocs;
    k->n_allocs = s->pending.n;
    k->prepare = prepare;
    k->finish = finish;
    for (size_t i = 0; i < s->pending.n; i++)
        if (!push(s, &s->attached, s->pending.items[i])) return;
    if (push(s, &s->kernels, k)) s->pending.n = 0;
}

void at_ir_add_kernel(at_ir_sched *s, const char *name, const at_ir_stmt *body)
{
    add_kernel(s, name, body, false, false);
}

void at_ir_add_prepare_kernel(at_ir_sched *s, const char *name, const at_ir_stmt *body)
{
    add_kernel(s, name, body, true, false);
}

void at_ir_add_finish_kernel(at_ir_sched *s, const char *name, const at_ir_stmt *body)
{
    add_kernel(s, name, body, false, true);
}

const at_ir_var *at_ir_var_new(at_ir_sched *s, const char *name, at_ir_type type)
{
    at_ir_var *v = alloc(s, sizeof *v);
    const char *n = dup(s, name);
    if (!v || !n) return NULL;
    v->name = n;
    v->type = type;
    v->id = s->n_vars++;
    return v;
}

/* ---- expressions ---------------------------------------------------------------------------- */

static at_ir_expr *new_expr(at_ir_sched *s, at_ir_expr_kind kind, at_ir_type type)
{
    at_ir_expr *e = alloc(s, sizeof *e);
    if (!e) return NULL;
    e->kind = kind;
    e->type = type;
    return e;
}

static const at_ir_expr *null_child(at_ir_sched *s)
{
    /* a NULL child comes from an earlier failed allocation, which set the status; anything else
     * is a template passing a node it never made */
    AT_ASSERT(s->status != AT_OK);
    return NULL;
}

/* Wraps an int64 to the width of an integer type, as the target's arithmetic does. */
int64_t at_ir_wrap_int(at_ir_type t, int64_t v)
{
    if (t.code == AT_IR_TBOOL) return v != 0;
    if (t.bits >= 64) return v;
    uint64_t mask = ((uint64_t)1 << t.bits) - 1, u = (uint64_t)v & mask;
    if (t.code == AT_IR_TUINT) return (int64_t)u;
    uint64_t sign = (uint64_t)1 << (t.bits - 1);
    return (int64_t)((u ^ sign) - sign);
}

const at_ir_expr *at_ir_int(at_ir_sched *s, at_ir_type t, int64_t v)
{
    AT_ASSERT(t.lanes == 1 && (at_ir_type_is_int(t) || t.code == AT_IR_TBOOL));
    AT_ASSERT(at_ir_wrap_int(t, v) == v);
    at_ir_expr *e = new_expr(s, AT_IR_INT_IMM, t);
    if (e) e->u.int_val = v;
    return e;
}

const at_ir_expr *at_ir_i32(at_ir_sched *s, int64_t v)
{
    return at_ir_int(s, AT_IR_I32, v);
}

const at_ir_expr *at_ir_float(at_ir_sched *s, at_ir_type t, double v)
{
    AT_ASSERT(t.lanes == 1 && t.code == AT_IR_TFLOAT);
    at_ir_expr *e = new_expr(s, AT_IR_FLOAT_IMM, t);
    if (e) e->u.float_val = t.bits == 32 ? (double)(float)v : v;
    return e;
}

const at_ir_expr *at_ir_f32(at_ir_sched *s, double v)
{
    return at_ir_float(s, AT_IR_F32, v);
}

const at_ir_expr *at_ir_v(at_ir_sched *s, const at_ir_var *var)
{
    if (!var) return null_child(s);
    at_ir_expr *e = new_expr(s, AT_IR_VAR, var->type);
    if (e) e->u.var = var;
    return e;
}

static bool is_int_imm(const at_ir_expr *e, int64_t v)
{
    return e->kind == AT_IR_INT_IMM && e->u.int_val == v;
}

static bool is_cmp(at_ir_binop op)
{
    return op >= AT_IR_EQ && op <= AT_IR_GE;
}

const at_ir_expr *at_ir_bin(at_ir_sched *s, at_ir_binop op, const at_ir_expr *a, const at_ir_expr *b)
{
    AT_ASSERT((unsigned)op < AT_IR_BINOP_COUNT);
    if (!a || !b) return null_child(s);
    AT_ASSERT(at_ir_type_eq(a->type, b->type));
    at_ir_type t = a->type;
    if (op == AT_IR_AND || op == AT_IR_OR) AT_ASSERT(t.code == AT_IR_TBOOL);
    if (op >= AT_IR_BIT_AND) AT_ASSERT(at_ir_type_is_int(t));
    if (op <= AT_IR_MAX) AT_ASSERT(t.code != AT_IR_TBOOL);
    /* fold integer constants and the identities templates produce when an extent is 1 */
    if (at_ir_type_is_int(t) && t.lanes == 1) {
        if (a->kind == AT_IR_INT_IMM && b->kind == AT_IR_INT_IMM) {
            int64_t x = a->u.int_val, y = b->u.int_val, r;
            bool ok = true;
            switch (op) {
            case AT_IR_ADD: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
            case AT_IR_SUB: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
            case AT_IR_MUL: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
            case AT_IR_MIN: r = x < y ? x : y; break;
            case AT_IR_MAX: r = x > y ? x : y; break;
            case AT_IR_DIV: ok = y != 0 && !(y == -1 && x == INT64_MIN); r = ok ? x / y : 0; break;
            case AT_IR_MOD: ok = y != 0 && !(y == -1 && x == INT64_MIN); r = ok ? x % y : 0; break;
            case AT_IR_EQ: case AT_IR_NE: case AT_IR_LT: case AT_IR_LE: case AT_IR_GT: case AT_IR_GE:
            case AT_IR_AND: case AT_IR_OR: case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR:
            case AT_IR_SHL: case AT_IR_SHR: case AT_IR_BINOP_COUNT:
            default: ok = false; r = 0; break;
            }
            if (ok) return at_ir_int(s, t, at_ir_wrap_int(t, r));
        }
        if (op == AT_IR_ADD && is_int_imm(b, 0)) return a;
        if (op == AT_IR_ADD && is_int_imm(a, 0)) return b;
        if (op == AT_IR_SUB && is_int_imm(b, 0)) return a;
        if (op == AT_IR_MUL && is_int_imm(b, 1)) return a;
        if (op == AT_IR_MUL && is_int_imm(a, 1)) return b;
        if (op == AT_IR_MUL && (is_int_imm(a, 0) || is_int_imm(b, 0))) return at_ir_int(s, t, 0);
        if ((op == AT_IR_DIV) && is_int_imm(b, 1)) return a;
    }
    at_ir_expr *e = new_expr(s, AT_IR_BINARY, is_cmp(op) ? at_ir_type_with_lanes(AT_IR_BOOL, t.lanes) : t);
    if (!e) return NULL;
    e->u.bin.op = op;
    e->u.bin.a = a;
    e->u.bin.b = b;
    return e;
}

const at_ir_expr *at_ir_add(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b) { return at_ir_bin(s, AT_IR_ADD, a, b); }
const at_ir_expr *at_ir_sub(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b) { return at_ir_bin(s, AT_IR_SUB, a, b); }
const at_ir_expr *at_ir_mul(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b) { return at_ir_bin(s, AT_IR_MUL, a, b); }
const at_ir_expr *at_ir_div(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b) { return at_ir_bin(s, AT_IR_DIV, a, b); }
const at_ir_expr *at_ir_mod(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b) { return at_ir_bin(s, AT_IR_MOD, a, b); }
const at_ir_expr *at_ir_min(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b) { return at_ir_bin(s, AT_IR_MIN, a, b); }
const at_ir_expr *at_ir_max(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b) { return at_ir_bin(s, AT_IR_MAX, a, b); }

const at_ir_expr *at_ir_un(at_ir_sched *s, at_ir_unop op, const at_ir_expr *a)
{
    AT_ASSERT((unsigned)op < AT_IR_UNOP_COUNT);
    if (!a) return null_child(s);
    if (op == AT_IR_NOT) AT_ASSERT(a->type.code == AT_IR_TBOOL);
    if (op == AT_IR_BIT_NOT) AT_ASSERT(at_ir_type_is_int(a->type));
    if (op == AT_IR_NEG) AT_ASSERT(a->type.code != AT_IR_TBOOL);
    at_ir_expr *e = new_expr(s, AT_IR_UNARY, a->type);
    if (!e) return NULL;
    e->u.un.op = op;
    e->u.un.a = a;
    return e;
}

const at_ir_expr *at_ir_select(at_ir_sched *s, const at_ir_expr *cond, const at_ir_expr *t, const at_ir_expr *f)
{
    if (!cond || !t || !f) return null_child(s);
    AT_ASSERT(cond->type.code == AT_IR_TBOOL && (cond->type.lanes == 1 || cond->type.lanes == t->type.lanes));
    AT_ASSERT(at_ir_type_eq(t->type, f->type));
    at_ir_expr *e = new_expr(s, AT_IR_SELECT, t->type);
    if (!e) return NULL;
    e->u.select.cond = cond;
    e->u.select.t = t;
    e->u.select.f = f;
    return e;
}

const at_ir_expr *at_ir_cast(at_ir_sched *s, at_ir_type t, const at_ir_expr *a)
{
    if (!a) return null_child(s);
    AT_ASSERT(t.lanes == a->type.lanes);
    if (at_ir_type_eq(t, a->type)) return a;
    if (a->kind == AT_IR_INT_IMM && at_ir_type_is_int(t) && at_ir_wrap_int(t, a->u.int_val) == a->u.int_val)
        return at_ir_int(s, t, a->u.int_val);
    at_ir_expr *e = new_expr(s, AT_IR_CAST, t);
    if (e) e->u.cast.a = a;
    return e;
}

const at_ir_expr *at_ir_load(at_ir_sched *s, const at_ir_buffer *buf, const at_ir_expr *index, int lanes)
{
    if (!buf || !index) return null_child(s);
    AT_ASSERT(index->type.lanes == 1 && at_ir_type_is_int(index->type));
    if (buf == s->epi_out) s->epi_read = true;
    at_ir_expr *e = new_expr(s, AT_IR_LOAD, at_ir_type_with_lanes(buf->elem, lanes));
    if (!e) return NULL;
    e->u.load.buf = buf;
    e->u.load.index = index;
    return e;
}

const at_ir_expr *at_ir_broadcast(at_ir_sched *s, const at_ir_expr *a, int lanes)
{
    if (!a) return null_child(s);
    AT_ASSERT(a->type.lanes == 1);
    if (lanes == 1) return a;
    at_ir_expr *e = new_expr(s, AT_IR_BROADCAST, at_ir_type_with_lanes(a->type, lanes));
    if (e) e->u.broadcast.a = a;
    return e;
}

const at_ir_expr *at_ir_lane(at_ir_sched *s, const at_ir_expr *v, int lane)
{
    if (!v) return null_child(s);
    AT_ASSERT(v->type.lanes > 1 && lane >= 0 && lane < v->type.lanes);
    at_ir_expr *e = new_expr(s, AT_IR_LANE, at_ir_type_with_lanes(v->type, 1));
    if (!e) return NULL;
    e->u.lane.a = v;
    e->u.lane.lane = lane;
    return e;
}

static const at_ir_expr *const *dup_exprs(at_ir_sched *s, const at_ir_expr *const *items, size_t n)
{
    const at_ir_expr **d = alloc(s, (n + 1) * sizeof *d);
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!items[i]) {
            null_child(s);
            return NULL;
        }
        d[i] = items[i];
    }
    return d;
}

const at_ir_expr *at_ir_vector(at_ir_sched *s, const at_ir_expr *const *elems, size_t n)
{
    AT_ASSERT(n >= 2 && n <= AT_IR_MAX_LANES);
    const at_ir_expr *const *d = dup_exprs(s, elems, n);
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++) AT_ASSERT(d[i]->type.lanes == 1 && at_ir_type_eq(d[i]->type, d[0]->type));
    at_ir_expr *e = new_expr(s, AT_IR_VECTOR, at_ir_type_with_lanes(d[0]->type, (int)n));
    if (!e) return NULL;
    e->u.vector.elems = d;
    e->u.vector.n = n;
    return e;
}

const at_ir_expr *at_ir_call(at_ir_sched *s, const char *name, at_ir_type t, const at_ir_expr *const *args,
                             size_t n_args)
{
    const at_ir_expr *const *d = dup_exprs(s, args, n_args);
    const char *n = dup(s, name);
    if (!d || !n) return NULL;
    at_ir_expr *e = new_expr(s, AT_IR_CALL, t);
    if (!e) return NULL;
    e->u.call.name = n;
    e->u.call.args = d;
    e->u.call.n_args = n_args;
    return e;
}

const at_ir_expr *at_ir_fuse(at_ir_sched *s, const at_ir_var *const *vars, const int64_t *extents, size_t n)
{
    AT_ASSERT(n >= 1);
    const at_ir_expr *acc = at_ir_v(s, vars[0]);
    for (size_t i = 1; i < n; i++) {
        if (!vars[i]) return null_child(s);
        const at_ir_expr *ext = at_ir_int(s, vars[i]->type, extents[i]);
        acc = at_ir_add(s, at_ir_mul(s, acc, ext), at_ir_v(s, vars[i]));
    }
    return acc;
}

/* ---- statements ----------------------------------------------------------------------------- */

static at_ir_stmt *new_stmt(at_ir_sched *s, at_ir_stmt_kind kind)
{
    at_ir_stmt *st = alloc(s, sizeof *st);
    if (st) st->kind = kind;
    return st;
}

const at_ir_stmt *at_ir_for_flags(at_ir_sched *s, const at_ir_var *var, int64_t extent, at_ir_for_kind kind,
                                  unsigned flags, const at_ir_stmt *body)
{
    AT_ASSERT((unsigned)kind < AT_IR_FOR_KIND_COUNT);
    if (!var || !body) {
        null_child(s);
        return NULL;
    }
    AT_ASSERT(var->type.lanes == 1 && at_ir_type_is_int(var->type));
    at_ir_stmt *st = new_stmt(s, AT_IR_FOR);
    if (!st) return NULL;
    st->u.loop.var = var;
    st->u.loop.extent = extent;
    st->u.loop.kind = kind;
    st->u.loop.flags = flags;
    st->u.loop.body = body;
    return st;
}

const at_ir_stmt *at_ir_for(at_ir_sched *s, const at_ir_var *var, int64_t extent, at_ir_for_kind kind,
                            const at_ir_stmt *body)
{
    return at_ir_for_flags(s, var, extent, kind, 0, body);
}

const at_ir_stmt *at_ir_store(at_ir_sched *s, const at_ir_buffer *buf, const at_ir_expr *index,
                              const at_ir_expr *value)
{
    if (!buf || !index || !value) {
        null_child(s);
        return NULL;
    }
    AT_ASSERT(index->type.lanes == 1 && at_ir_type_is_int(index->type));
    AT_ASSERT(at_ir_type_eq(at_ir_type_with_lanes(buf->elem, value->type.lanes), value->type));
    if (buf == s->epi_out && !s->in_epi) {
        s->in_epi = true;
        value = s->epi->apply(s, s->epi->ctx, index, value);
        s->in_epi = false;
        if (!value) return NULL;
    }
    at_ir_stmt *st = new_stmt(s, AT_IR_STORE);
    if (!st) return NULL;
    st->u.store.buf = buf;
    st->u.store.index = index;
    st->u.store.value = value;
    return st;
}

const at_ir_stmt *at_ir_seq(at_ir_sched *s, const at_ir_stmt *const *items, size_t n)
{
    AT_ASSERT(n >= 1);
    const at_ir_stmt **d = alloc(s, n * sizeof *d);
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!items[i]) {
            null_child(s);
            return NULL;
        }
        d[i] = items[i];
    }
    if (n == 1) return d[0];
    at_ir_stmt *st = new_stmt(s, AT_IR_SEQ);
    if (!st) return NULL;
    st->u.seq.items = d;
    st->u.seq.n = n;
    return st;
}

const at_ir_stmt *at_ir_seq2(at_ir_sched *s, const at_ir_stmt *a, const at_ir_stmt *b)
{
    const at_ir_stmt *items[2] = {a, b};
    return at_ir_seq(s, items, 2);
}

const at_ir_stmt *at_ir_if(at_ir_sched *s, const at_ir_expr *cond, const at_ir_stmt *then_s,
                           const at_ir_stmt *else_s)
{
    if (!cond || !then_s) {
        null_child(s);
        return NULL;
    }
    AT_ASSERT(at_ir_type_eq(cond->type, AT_IR_BOOL));
    at_ir_stmt *st = new_stmt(s, AT_IR_IF);
    if (!st) return NULL;
    st->u.if_.cond = cond;
    st->u.if_.then_s = then_s;
    st->u.if_.else_s = else_s;
    return st;
}

const at_ir_stmt *at_ir_let(at_ir_sched *s, const at_ir_var *var, const at_ir_expr *value, const at_ir_stmt *body)
{
    if (!var || !value || !body) {
        null_child(s);
        return NULL;
    }
    AT_ASSERT(at_ir_type_eq(var->type, value->type));
    at_ir_stmt *st = new_stmt(s, AT_IR_LET);
    if (!st) return NULL;
    st->u.let.var = var;
    st->u.let.value = value;
    st->u.let.body = body;
    return st;
}

const at_ir_stmt *at_ir_prefetch(at_ir_sched *s, const at_ir_buffer *buf, const at_ir_expr *index)
{
    if (!buf || !index) {
        null_child(s);
        return NULL;
    }
    AT_ASSERT(index->type.lanes == 1 && at_ir_type_is_int(index->type));
    at_ir_stmt *st = new_stmt(s, AT_IR_PREFETCH);
    if (st) {
        st->u.prefetch.buf = buf;
        st->u.prefetch.index = index;
    }
    return st;
}

const at_ir_stmt *at_ir_barrier(at_ir_sched *s, at_ir_scope scope)
{
    AT_ASSERT(scope == AT_IR_LOCAL || scope == AT_IR_GLOBAL);
    at_ir_stmt *st = new_stmt(s, AT_IR_BARRIER);
    if (st) st->u.barrier.scope = scope;
    return st;
}
