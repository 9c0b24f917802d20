/* IR -> OpenCL C 1.2 text. Fully parenthesized expressions, integer constants folded as they
 * print, one C identifier per variable and buffer fixed up front (so the text depends only on
 * the IR). Bindings and lets declare into the current C block; loops and ifs open blocks.
 * A vectorized loop becomes one block of vector code: an expression that depends on the loop
 * variable prints as a vector (vloadN for unit-stride indices, lane-by-lane construction for
 * anything that does not map onto OpenCL's vector operators), everything else as a scalar; a
 * loop whose statements do not vectorize is unrolled instead. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backends/opencl/opencl.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "ir/affine.h"
#include "ir/vec.h"

typedef struct decl {
    uint32_t var;
    int      depth, prev_depth;
} decl;

typedef struct cg {
    at_strbuf           *sb;
    const at_ir_program *p;
    const at_ir_kernel  *k;
    at_status            st;
    char               **var_names; /* by var id */
    char               **buf_names; /* by buffer id */
    size_t               n_buf_ids;
    bool                *cbound;    /* by var id: printed as the constant cval */
    int64_t             *cval;
    bool                *varying;   /* by var id: a let holding a vector inside a vectorized loop */
    int                 *decl_depth;/* by var id: C block depth of its declaration, -1 if none */
    uint32_t            *bind_seq;  /* by var id: order in which its loop or let was entered */
    int64_t             *extent;    /* by var id: its loop's extent while inside it, else 0 */
    uint32_t             n_bound;
    decl                *decls;
    size_t               n_decls, cap_decls;
    int                  depth;     /* C block depth (and indentation) */
    const at_ir_var     *vvar;      /* the vectorized loop's variable, NULL outside one */
    int                  vlanes;
    int                  lane;      /* >= 0 while printing lane `lane` of a vectorized expression */
    bool                 uses_f64, uses_f16;
} cg;

static void fail(cg *c, at_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(cg *c, at_status code, const char *fmt, ...)
{
    if (c->st != AT_OK) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->st = AT_FAIL(code, "kernel %s: %s", c->k ? c->k->name : "?", msg);
}

/* ---- types and names ------------------------------------------------------------------------ */

static const char *scalar_name(at_ir_type t)
{
    switch (t.code) {
    case AT_IR_TFLOAT: return t.bits == 64 ? "double" : t.bits == 16 ? "half" : "float";
    case AT_IR_TBOOL: return "bool";
    case AT_IR_TINT: return t.bits == 8 ? "char" : t.bits == 16 ? "short" : t.bits == 64 ? "long" : "int";
    case AT_IR_TUINT: return t.bits == 8 ? "uchar" : t.bits == 16 ? "ushort" : t.bits == 64 ? "ulong" : "uint";
    default: AT_ASSERT(!"bad type code");
    }
    return NULL;
}

static bool lanes_ok(int lanes)
{
    return lanes == 1 || lanes == 2 || lanes == 3 || lanes == 4 || lanes == 8 || lanes == 16;
}

at_status at_ocl_type_name(at_ir_type t, char buf[16])
{
    char tb[16];
    if (!lanes_ok(t.lanes) || (t.code == AT_IR_TBOOL && t.lanes > 1))
        return AT_FAIL(AT_EUNSUPPORTED, "OpenCL C has no type for %s", at_ir_type_str(t, tb));
    if (t.lanes == 1)
        snprintf(buf, 16, "%s", scalar_name(t));
    else
        snprintf(buf, 16, "%s%u", scalar_name(t), t.lanes);
    return AT_OK;
}

/* Type name into buf; records failure in c and prints "void" when OpenCL lacks the type. */
static const char *tname(cg *c, at_ir_type t, char buf[16])
{
    if (t.code == AT_IR_TFLOAT && t.bits == 64) c->uses_f64 = true;
    if (t.code == AT_IR_TFLOAT && t.bits == 16) c->uses_f16 = true;
    if (at_ocl_type_name(t, buf) != AT_OK) {
        if (c->st == AT_OK) c->st = AT_FAIL_WRAP(AT_EUNSUPPORTED, "kernel %s", c->k ? c->k->name : "?");
        snprintf(buf, 16, "void");
    }
    return buf;
}

static bool is_reserved(const char *n)
{
    static const char *const words[] = {
        "auto", "bool", "break", "case", "char", "complex", "const", "constant", "continue", "default", "do",
        "double", "else", "enum", "extern", "false", "float", "for", "global", "goto", "half", "if", "imaginary",
        "inline", "int", "kernel", "local", "long", "private", "read_only", "read_write", "register", "restrict",
        "return", "short", "signed", "sizeof", "static", "struct", "switch", "true", "typedef", "uchar", "uint",
        "ulong", "union", "unsigned", "ushort", "void", "volatile", "while", "write_only", "barrier", "select",
        "min", "max", "fmin", "fmax", "fmod", "mad", "fma", "exp", "log", "sqrt", "abs", "clamp", "size_t",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(n, words[i])) return true;
    if (n[0] == '_' && n[1] == '_') return true;
    static const char *const prefixes[] = {"get_", "vload", "vstore", "convert_", "as_", "atomic_", "work_group_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(n, prefixes[i], strlen(prefixes[i]))) return true;
    /* vector type names: float4, uchar16 ... */
    static const char *const types[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half", "bool"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t len = strlen(types[i]);
        if (!strncmp(n, types[i], len) && n[len] && strspn(n + len, "0123456789") == strlen(n + len)) return true;
    }
    return false;
}

/* A C identifier for text that no earlier name in taken[0..n) uses; NULL when out of memory. */
static char *unique_ident(const char *text, char *const *taken, size_t n)
{
    char base[96];
    size_t j = 0;
    if (!isalpha((unsigned char)text[0]) && text[0] != '_') base[j++] = 'v';
    for (size_t i = 0; text[i] && j < sizeof base - 16; i++)
        base[j++] = isalnum((unsigned char)text[i]) ? text[i] : '_';
    base[j] = '\0';
    if (j == 0) snprintf(base, sizeof base, "v");
    if (is_reserved(base)) strcat(base, "_");
    char cand[112];
    snprintf(cand, sizeof cand, "%s", base);
    for (int suffix = 1;; suffix++) {
        bool clash = false;
        for (size_t i = 0; i < n && !clash; i++) clash = taken[i] && !strcmp(taken[i], cand);
        if (!clash) break;
        snprintf(cand, sizeof cand, "%s_%d", base, suffix);
    }
    return at_strdup(cand);
}

static void collect_vars(const at_ir_stmt *s, const at_ir_var **vars)
{
    switch (s->kind) {
    case AT_IR_FOR:
        vars[s->u.loop.var->id] = s->u.loop.var;
        collect_vars(s->u.loop.body, vars);
        break;
    case AT_IR_LET:
        vars[s->u.let.var->id] = s->u.let.var;
        collect_vars(s->u.let.body, vars);
        break;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) collect_vars(s->u.seq.items[i], vars);
        break;
    case AT_IR_IF:
        collect_vars(s->u.if_.then_s, vars);
        if (s->u.if_.else_s) collect_vars(s->u.if_.else_s, vars);
        break;
    case AT_IR_STORE:
    case AT_IR_PREFETCH:
    case AT_IR_BARRIER: break;
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
}

/* Names every buffer (program order, then allocations) and every variable (by id), uniquely. */
static at_status assign_names(cg *c)
{
    const at_ir_program *p = c->p;
    size_t n_vars = p->n_vars, n_names = 0;
    char **taken = at_calloc(c->n_buf_ids + n_vars + 1, sizeof *taken);
    const at_ir_var **vars = at_calloc(n_vars + 1, sizeof *vars);
    at_status st = AT_OK;
    if (!taken || !vars) {
        st = AT_OOM();
        goto done;
    }
    for (size_t i = 0; i < p->n_bufs && st == AT_OK; i++) {
        char *n = unique_ident(p->bufs[i]->name, taken, n_names);
        if (!n) st = AT_OOM();
        c->buf_names[p->bufs[i]->id] = taken[n_names++] = n;
    }
    for (size_t k = 0; k < p->n_kernels && st == AT_OK; k++) {
        for (size_t a = 0; a < p->kernels[k].n_allocs && st == AT_OK; a++) {
            const at_ir_buffer *b = p->kernels[k].allocs[a];
            char *n = unique_ident(b->name, taken, n_names);
            if (!n) st = AT_OOM();
            c->buf_names[b->id] = taken[n_names++] = n;
        }
        collect_vars(p->kernels[k].body, vars);
    }
    for (size_t v = 0; v < n_vars && st == AT_OK; v++) {
        if (!vars[v]) continue;
        char *n = unique_ident(vars[v]->name, taken, n_names);
        if (!n) st = AT_OOM();
        c->var_names[v] = taken[n_names++] = n;
    }
done:
    at_free(taken); /* the names themselves belong to c */
    at_free(vars);
    return st;
}

/* ---- declarations and blocks ---------------------------------------------------------------- */

static void indent(cg *c)
{
    for (int i = 0; i < c->depth; i++) at_strbuf_puts(c->sb, "  ");
}

/* True when var must be declared here (not yet declared in this very block). */
static bool declare(cg *c, const at_ir_var *v)
{
    if (c->decl_depth[v->id] == c->depth) return false;
    if (c->n_decls == c->cap_decls) {
        size_t cap = c->cap_decls ? 2 * c->cap_decls : 32;
        decl *d = at_realloc(c->decls, cap * sizeof *d);
        if (!d) {
            if (c->st == AT_OK) c->st = AT_OOM();
            return true;
        }
        c->decls = d;
        c->cap_decls = cap;
    }
    c->decls[c->n_decls++] = (decl){v->id, c->depth, c->decl_depth[v->id]};
    c->decl_depth[v->id] = c->depth;
    return true;
}

static void open_block(cg *c)
{
    at_strbuf_puts(c->sb, "{\n");
    c->depth++;
}

static void close_block(cg *c)
{
    while (c->n_decls && c->decls[c->n_decls - 1].depth >= c->depth) {
        decl d = c->decls[--c->n_decls];
        c->decl_depth[d.var] = d.prev_depth;
    }
    c->depth--;
    indent(c);
    at_strbuf_puts(c->sb, "}\n");
}

/* ---- constants ------------------------------------------------------------------------------ */

static int64_t wrap(at_ir_type t, int64_t v)
{
    if (t.bits >= 64) return v;
    uint64_t mask = ((uint64_t)1 << t.bits) - 1, u = (uint64_t)v & mask;
    if (t.code == AT_IR_TUINT) return (int64_t)u;
    uint64_t sign = (uint64_t)1 << (t.bits - 1);
    return (int64_t)((u ^ sign) - sign);
}

/* Value of a scalar integer expression that is constant here (immediates, constant-bound
 * variables, + - * / % min max of those). */
static bool cint(const cg *c, const at_ir_expr *e, int64_t *v)
{
    if (!at_ir_type_is_int(e->type) || e->type.lanes != 1) return false;
    int64_t a, b;
    switch (e->kind) {
    case AT_IR_INT_IMM: *v = e->u.int_val; return true;
    case AT_IR_VAR:
        if (!c->cbound[e->u.var->id]) return false;
        *v = c->cval[e->u.var->id];
        return true;
    case AT_IR_CAST:
        if (!cint(c, e->u.cast.a, &a)) return false;
        *v = wrap(e->type, a);
        return true;
    case AT_IR_BINARY:
        if (!cint(c, e->u.bin.a, &a) || !cint(c, e->u.bin.b, &b)) return false;
        switch (e->u.bin.op) {
        case AT_IR_ADD: *v = wrap(e->type, (int64_t)((uint64_t)a + (uint64_t)b)); return true;
        case AT_IR_SUB: *v = wrap(e->type, (int64_t)((uint64_t)a - (uint64_t)b)); return true;
        case AT_IR_MUL: *v = wrap(e->type, (int64_t)((uint64_t)a * (uint64_t)b)); return true;
        case AT_IR_MIN: *v = a < b ? a : b; return e->type.code == AT_IR_TINT;
        case AT_IR_MAX: *v = a > b ? a : b; return e->type.code == AT_IR_TINT;
        case AT_IR_DIV:
        case AT_IR_MOD:
            if (b <= 0 || a < 0) return false; /* fold only where C and unsigned agree */
            *v = e->u.bin.op == AT_IR_DIV ? a / b : a % b;
            return true;
        case AT_IR_EQ: case AT_IR_NE: case AT_IR_LT: case AT_IR_LE: case AT_IR_GT: case AT_IR_GE:
        case AT_IR_AND: case AT_IR_OR: case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR:
        case AT_IR_SHL: case AT_IR_SHR: case AT_IR_BINOP_COUNT:
        default: return false;
        }
    case AT_IR_FLOAT_IMM: case AT_IR_UNARY: case AT_IR_SELECT: case AT_IR_LOAD: case AT_IR_BROADCAST:
    case AT_IR_LANE: case AT_IR_VECTOR: case AT_IR_CALL: case AT_IR_EXPR_KIND_COUNT:
    default: return false;
    }
}

#define RANGE_LIMIT ((int64_t)1 << 40) /* bounds past this are not tracked (no overflow below) */

/* Bounds lo <= e <= hi of a signed 32/64-bit integer expression from the ranges of the loop
 * variables in it (0 .. extent-1), as TVM's simplifier bounds an index by its loops: constants,
 * + - *, and / % by a positive constant of a non-negative operand. */
static bool range(const cg *c, const at_ir_expr *e, int64_t *lo, int64_t *hi)
{
    int64_t v, alo, ahi, blo, bhi;
    if (e->type.code != AT_IR_TINT || e->type.bits < 32 || e->type.lanes != 1) return false;
    if (cint(c, e, &v)) {
        *lo = *hi = v;
        return v > -RANGE_LIMIT && v < RANGE_LIMIT;
    }
    if (e->kind == AT_IR_VAR) {
        if (c->extent[e->u.var->id] <= 0 || c->extent[e->u.var->id] >= RANGE_LIMIT) return false;
        *lo = 0;
        *hi = c->extent[e->u.var->id] - 1;
        return true;
    }
    if (e->kind != AT_IR_BINARY || !range(c, e->u.bin.a, &alo, &ahi) || !range(c, e->u.bin.b, &blo, &bhi)) return false;
    switch (e->u.bin.op) {
    case AT_IR_ADD: *lo = alo + blo; *hi = ahi + bhi; break;
    case AT_IR_SUB: *lo = alo - bhi; *hi = ahi - blo; break;
    case AT_IR_MUL: {
        if (alo != ahi && blo != bhi) return false; /* products by a constant only */
        int64_t k = alo == ahi ? alo : blo, xlo = alo == ahi ? blo : alo, xhi = alo == ahi ? bhi : ahi;
        int64_t kabs = k < 0 ? -k : k, xabs = xhi > -xlo ? xhi : -xlo;
        if (kabs > 1 && xabs > RANGE_LIMIT / kabs) return false;
        *lo = k >= 0 ? xlo * k : xhi * k;
        *hi = k >= 0 ? xhi * k : xlo * k;
        break;
    }
    case AT_IR_DIV:
    case AT_IR_MOD:
        if (blo != bhi || blo <= 0 || alo < 0) return false;
        *lo = e->u.bin.op == AT_IR_DIV ? alo / blo : 0;
        *hi = e->u.bin.op == AT_IR_DIV ? ahi / blo : (ahi < blo - 1 ? ahi : blo - 1);
        break;
    case AT_IR_MIN: case AT_IR_MAX: case AT_IR_EQ: case AT_IR_NE: case AT_IR_LT: case AT_IR_LE: case AT_IR_GT:
    case AT_IR_GE: case AT_IR_AND: case AT_IR_OR: case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR:
    case AT_IR_SHL: case AT_IR_SHR: case AT_IR_BINOP_COUNT:
    default: return false;
    }
    return *lo > -RANGE_LIMIT && *hi < RANGE_LIMIT;
}

/* Truth of a comparison that the operands' ranges decide (a pad check such as h * 8 + 9 >= 1). */
static bool compare_by_range(const cg *c, at_ir_binop op, const at_ir_expr *a, const at_ir_expr *b, bool *v)
{
    int64_t alo, ahi, blo, bhi;
    if (!range(c, a, &alo, &ahi) || !range(c, b, &blo, &bhi)) return false;
    switch (op) {
    case AT_IR_LT: if (ahi < blo || alo >= bhi) { *v = ahi < blo; return true; } return false;
    case AT_IR_LE: if (ahi <= blo || alo > bhi) { *v = ahi <= blo; return true; } return false;
    case AT_IR_GT: if (alo > bhi || ahi <= blo) { *v = alo > bhi; return true; } return false;
    case AT_IR_GE: if (alo >= bhi || ahi < blo) { *v = alo >= bhi; return true; } return false;
    case AT_IR_EQ: case AT_IR_NE:
        if (ahi < blo || alo > bhi) {
            *v = op == AT_IR_NE;
            return true;
        }
        return false;
    case AT_IR_ADD: case AT_IR_SUB: case AT_IR_MUL: case AT_IR_DIV: case AT_IR_MOD: case AT_IR_MIN: case AT_IR_MAX:
    case AT_IR_AND: case AT_IR_OR: case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR: case AT_IR_SHL:
    case AT_IR_SHR: case AT_IR_BINOP_COUNT:
    default: return false;
    }
}

/* Truth of a scalar condition that is constant here (comparisons of constant integers and
 * logic over them), so unrolled code drops branches it can never take. */
static bool cbool(const cg *c, const at_ir_expr *e, bool *v)
{
    if (e->type.lanes != 1) return false;
    int64_t a, b;
    bool x, y;
    if (e->kind == AT_IR_INT_IMM && e->type.code == AT_IR_TBOOL) {
        *v = e->u.int_val != 0;
        return true;
    }
    if (e->kind == AT_IR_UNARY && e->u.un.op == AT_IR_NOT && cbool(c, e->u.un.a, &x)) {
        *v = !x;
        return true;
    }
    if (e->kind != AT_IR_BINARY) return false;
    at_ir_binop op = e->u.bin.op;
    if (op == AT_IR_AND || op == AT_IR_OR) {
        bool ka = cbool(c, e->u.bin.a, &x), kb = cbool(c, e->u.bin.b, &y);
        /* a constant side decides alone only where C's short circuit would too */
        if (ka && kb) {
            *v = op == AT_IR_AND ? x && y : x || y;
            return true;
        }
        if (ka && ((op == AT_IR_AND && !x) || (op == AT_IR_OR && x))) {
            *v = x;
            return true;
        }
        return false;
    }
    if (op < AT_IR_EQ || op > AT_IR_GE) return false;
    if (!cint(c, e->u.bin.a, &a) || !cint(c, e->u.bin.b, &b)) return compare_by_range(c, op, e->u.bin.a, e->u.bin.b, v);
    bool uns = e->u.bin.a->type.code == AT_IR_TUINT;
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case AT_IR_EQ: *v = a == b; return true;
    case AT_IR_NE: *v = a != b; return true;
    case AT_IR_LT: *v = uns ? ua < ub : a < b; return true;
    case AT_IR_LE: *v = uns ? ua <= ub : a <= b; return true;
    case AT_IR_GT: *v = uns ? ua > ub : a > b; return true;
    case AT_IR_GE: *v = uns ? ua >= ub : a >= b; return true;
    case AT_IR_ADD: case AT_IR_SUB: case AT_IR_MUL: case AT_IR_DIV: case AT_IR_MOD: case AT_IR_MIN:
    case AT_IR_MAX: case AT_IR_AND: case AT_IR_OR: case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR:
    case AT_IR_SHL: case AT_IR_SHR: case AT_IR_BINOP_COUNT:
    default: return false;
    }
}

static void print_int(cg *c, at_ir_type t, int64_t v)
{
    char tb[16];
    if (t.code == AT_IR_TBOOL) {
        at_strbuf_puts(c->sb, v ? "true" : "false");
        return;
    }
    const char *suffix = t.code == AT_IR_TUINT ? (t.bits == 64 ? "UL" : "U") : (t.bits == 64 ? "L" : "");
    bool plain = t.bits == 32 || t.bits == 64;
    if (!plain) at_strbuf_printf(c->sb, "((%s)", tname(c, t, tb));
    if (t.code == AT_IR_TUINT)
        at_strbuf_printf(c->sb, "%llu%s", (unsigned long long)v, suffix);
    else if (v == INT64_MIN)
        at_strbuf_puts(c->sb, "(-9223372036854775807L - 1L)");
    else if (t.bits == 32 && v == INT32_MIN)
        at_strbuf_puts(c->sb, "(-2147483647 - 1)");
    else if (v < 0)
        at_strbuf_printf(c->sb, "(%lld%s)", (long long)v, suffix);
    else
        at_strbuf_printf(c->sb, "%lld%s", (long long)v, suffix);
    if (!plain) at_strbuf_putc(c->sb, ')');
}

static void print_float(cg *c, at_ir_type t, double v)
{
    char buf[48];
    if (t.bits == 64) c->uses_f64 = true;
    if (t.bits == 16) c->uses_f16 = true;
    if (isnan(v)) {
        snprintf(buf, sizeof buf, "NAN");
    } else if (isinf(v)) {
        snprintf(buf, sizeof buf, v > 0 ? "INFINITY" : "(-INFINITY)");
    } else {
        snprintf(buf, sizeof buf, t.bits == 64 ? "%.17g" : "%.9g", v);
        if (!strpbrk(buf, ".en")) strcat(buf, ".0");
        if (t.bits != 64) strcat(buf, "f");
    }
    bool paren = !isnan(v) && !isinf(v) && v < 0;
    if (t.bits == 16)
        at_strbuf_printf(c->sb, "((half)%s)", buf);
    else if (t.bits == 64 && (isnan(v) || isinf(v)))
        at_strbuf_printf(c->sb, "((double)%s)", buf);
    else
        at_strbuf_printf(c->sb, paren ? "(%s)" : "%s", buf);
}

/* ---- expressions ---------------------------------------------------------------------------- */

static void scalar(cg *c, const at_ir_expr *e);
static void vector(cg *c, const at_ir_expr *e);

static const char *const binop_c[AT_IR_BINOP_COUNT] = {
    [AT_IR_ADD] = "+",  [AT_IR_SUB] = "-",  [AT_IR_MUL] = "*",  [AT_IR_DIV] = "/",  [AT_IR_MOD] = "%",
    [AT_IR_EQ] = "==",  [AT_IR_NE] = "!=",  [AT_IR_LT] = "<",   [AT_IR_LE] = "<=",  [AT_IR_GT] = ">",
    [AT_IR_GE] = ">=",  [AT_IR_AND] = "&&", [AT_IR_OR] = "||",  [AT_IR_BIT_AND] = "&", [AT_IR_BIT_OR] = "|",
    [AT_IR_BIT_XOR] = "^", [AT_IR_SHL] = "<<", [AT_IR_SHR] = ">>",
};

/* Does e depend on the vectorized loop's variable (directly or through a vector let)? */
static bool varies(const cg *c, const at_ir_expr *e)
{
    return c->vvar && c->lane < 0 && at_ir_vec_varies(e, c->vvar, c->varying);
}

static bool cint_fn(const void *ctx, const at_ir_expr *e, int64_t *v)
{
    return cint(ctx, e, v);
}

/* Stride of an integer index in the vectorized variable, when it is base + stride * v with a
 * constant stride (variables of unrolled loops count as constants). */
static bool affine_stride(const cg *c, const at_ir_expr *e, int64_t *stride)
{
    if (!varies(c, e)) {
        *stride = 0;
        return true;
    }
    return at_ir_vec_affine_stride(e, c->vvar, c->varying, cint_fn, c, stride);
}

/* Prints e with the vectorized variable fixed to `lane` (one lane of a vectorized expression). */
static void at_lane(cg *c, const at_ir_expr *e, int lane)
{
    int saved = c->lane;
    uint32_t id = c->vvar->id;
    c->lane = lane;
    c->cbound[id] = true;
    c->cval[id] = lane;
    scalar(c, e);
    c->cbound[id] = false;
    c->lane = saved;
}

/* A vector built lane by lane: ((floatN)(e@0, e@1, ...)). */
static void by_lanes(cg *c, const at_ir_expr *e)
{
    char tb[16];
    at_strbuf_printf(c->sb, "((%s)(", tname(c, at_ir_type_with_lanes(e->type, c->vlanes), tb));
    for (int l = 0; l < c->vlanes; l++) {
        if (l) at_strbuf_puts(c->sb, ", ");
        at_lane(c, e, l);
    }
    at_strbuf_puts(c->sb, "))");
}

/* An operand of a vector operation: the vector if it varies, else the scalar broadcast. */
static void vec_operand(cg *c, const at_ir_expr *e)
{
    char tb[16];
    if (varies(c, e)) {
        vector(c, e);
        return;
    }
    at_strbuf_printf(c->sb, "((%s)(", tname(c, at_ir_type_with_lanes(e->type, c->vlanes), tb));
    scalar(c, e);
    at_strbuf_puts(c->sb, "))");
}

static void buffer_ptr(cg *c, const at_ir_buffer *b, const at_ir_expr *index)
{
    at_strbuf_printf(c->sb, "%s + ", c->buf_names[b->id]);
    scalar(c, index);
}

/* e varies with the vectorized variable: print it as a vector of c->vlanes lanes. */
static void vector(cg *c, const at_ir_expr *e)
{
    char tb[16];
    at_ir_type t = e->type;
    if (t.code == AT_IR_TBOOL || t.lanes != 1) {
        fail(c, AT_EUNSUPPORTED, "cannot vectorize a %s expression", at_ir_type_str(t, tb));
        return;
    }
    switch (e->kind) {
    case AT_IR_VAR:
        if (e->u.var == c->vvar) {
            by_lanes(c, e);
        } else {
            at_strbuf_puts(c->sb, c->var_names[e->u.var->id]);
        }
        return;
    case AT_IR_BINARY: {
        at_ir_binop op = e->u.bin.op;
        bool flt = at_ir_type_is_float(t);
        if (op >= AT_IR_EQ && op <= AT_IR_OR) break; /* bool results: lane by lane */
        if (op == AT_IR_MIN || op == AT_IR_MAX || (op == AT_IR_MOD && flt)) {
            at_strbuf_puts(c->sb, op == AT_IR_MOD ? "fmod(" : flt ? (op == AT_IR_MIN ? "fmin(" : "fmax(")
                                                           : (op == AT_IR_MIN ? "min(" : "max("));
            vec_operand(c, e->u.bin.a);
            at_strbuf_puts(c->sb, ", ");
            vec_operand(c, e->u.bin.b);
            at_strbuf_putc(c->sb, ')');
            return;
        }
        at_strbuf_putc(c->sb, '(');
        vec_operand(c, e->u.bin.a);
        at_strbuf_printf(c->sb, " %s ", binop_c[op]);
        vec_operand(c, e->u.bin.b);
        at_strbuf_putc(c->sb, ')');
        return;
    }
    case AT_IR_UNARY:
        if (e->u.un.op == AT_IR_NOT) break;
        at_strbuf_puts(c->sb, e->u.un.op == AT_IR_NEG ? "(-" : "(~");
        vector(c, e->u.un.a);
        at_strbuf_putc(c->sb, ')');
        return;
    case AT_IR_CAST:
        if (e->u.cast.a->type.code == AT_IR_TBOOL) break;
        at_strbuf_printf(c->sb, "convert_%s(", tname(c, at_ir_type_with_lanes(t, c->vlanes), tb));
        vector(c, e->u.cast.a);
        at_strbuf_putc(c->sb, ')');
        return;
    case AT_IR_LOAD: {
        int64_t stride;
        if (affine_stride(c, e->u.load.index, &stride) && stride == 1) {
            at_strbuf_printf(c->sb, "vload%d(0, ", c->vlanes);
            uint32_t id = c->vvar->id;
            c->cbound[id] = true;
            c->cval[id] = 0;
            int saved = c->lane;
            c->lane = 0; /* the base: lane 0's index (vector lets would not be affine) */
            buffer_ptr(c, e->u.load.buf, e->u.load.index);
            c->lane = saved;
            c->cbound[id] = false;
            at_strbuf_putc(c->sb, ')');
            return;
        }
        break; /* gather */
    }
    case AT_IR_CALL:
        if (!at_ir_type_is_float(t)) break;
        for (size_t i = 0; i < e->u.call.n_args; i++)
            if (!at_ir_type_is_float(e->u.call.args[i]->type)) goto lanes;
        at_strbuf_printf(c->sb, "%s(", e->u.call.name);
        for (size_t i = 0; i < e->u.call.n_args; i++) {
            if (i) at_strbuf_puts(c->sb, ", ");
            vec_operand(c, e->u.call.args[i]);
        }
        at_strbuf_putc(c->sb, ')');
        return;
    case AT_IR_SELECT: case AT_IR_INT_IMM: case AT_IR_FLOAT_IMM: case AT_IR_BROADCAST: case AT_IR_LANE:
    case AT_IR_VECTOR: case AT_IR_EXPR_KIND_COUNT:
    default: break;
    }
lanes:
    by_lanes(c, e);
}

/* Bits of the integer vector OpenCL gives for a vector condition (comparison operands' width). */
static int cond_bits(const at_ir_expr *e)
{
    if (e->kind == AT_IR_BINARY && e->u.bin.op >= AT_IR_EQ && e->u.bin.op <= AT_IR_GE) return e->u.bin.a->type.bits;
    if (e->kind == AT_IR_BINARY && (e->u.bin.op == AT_IR_AND || e->u.bin.op == AT_IR_OR)) {
        int a = cond_bits(e->u.bin.a), b = cond_bits(e->u.bin.b);
        return a == b ? a : 0;
    }
    if (e->kind == AT_IR_UNARY && e->u.un.op == AT_IR_NOT) return cond_bits(e->u.un.a);
    return 0;
}

static void lane_suffix(cg *c, int lane)
{
    at_strbuf_printf(c->sb, ".s%c", "0123456789abcdef"[lane]);
}

/* A scalar expression, or an expression whose type the IR already made a vector. */
/* Latest binding among the variables of e (0 for none): orders an affine form's terms. */
static uint32_t last_bound(const cg *c, const at_ir_expr *e)
{
    uint32_t m = 0, x;
    switch (e->kind) {
    case AT_IR_VAR: return c->bind_seq[e->u.var->id];
    case AT_IR_BINARY:
        m = last_bound(c, e->u.bin.a);
        x = last_bound(c, e->u.bin.b);
        return m > x ? m : x;
    case AT_IR_UNARY: return last_bound(c, e->u.un.a);
    case AT_IR_CAST: return last_bound(c, e->u.cast.a);
    case AT_IR_LOAD: return last_bound(c, e->u.load.index);
    case AT_IR_SELECT:
        m = last_bound(c, e->u.select.cond);
        x = last_bound(c, e->u.select.t);
        m = m > x ? m : x;
        x = last_bound(c, e->u.select.f);
        return m > x ? m : x;
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++) {
            x = last_bound(c, e->u.call.args[i]);
            m = m > x ? m : x;
        }
        return m;
    case AT_IR_INT_IMM: case AT_IR_FLOAT_IMM: case AT_IR_BROADCAST: case AT_IR_LANE: case AT_IR_VECTOR:
    case AT_IR_EXPR_KIND_COUNT:
    default: return 0;
    }
}

/* Prints integer e as its affine form, TVM's canonical index: terms of outer bindings first, the
 * constant last, so the accesses of an unrolled block differ only in that constant. Only forms
 * whose coefficients are all positive (indices; no term then overflows where e does not); false
 * (nothing printed) otherwise, or when e is one atom already. */
static bool affine(cg *c, const at_ir_expr *e)
{
    at_ir_affine f;
    if (!at_ir_affine_collect(e, cint_fn, c, &f) || f.n == 0) return false;
    if (f.n == 1 && f.terms[0].coeff == 1 && f.constant == 0 && f.terms[0].atom == e) return false;
    uint32_t key[AT_IR_AFFINE_MAX_TERMS];
    for (size_t i = 0; i < f.n; i++) {
        if (f.terms[i].coeff < 0) return false;
        key[i] = last_bound(c, f.terms[i].atom);
    }
    for (size_t i = 1; i < f.n; i++) /* stable insertion sort by binding order */
        for (size_t j = i; j > 0 && key[j - 1] > key[j]; j--) {
            at_ir_affine_term t = f.terms[j];
            f.terms[j] = f.terms[j - 1];
            f.terms[j - 1] = t;
            uint32_t k = key[j];
            key[j] = key[j - 1];
            key[j - 1] = k;
        }
    bool paren = f.n > 1 || f.constant != 0;
    if (paren) at_strbuf_putc(c->sb, '(');
    for (size_t i = 0; i < f.n; i++) {
        if (i) at_strbuf_puts(c->sb, " + ");
        if (f.terms[i].coeff == 1) {
            scalar(c, f.terms[i].atom);
            continue;
        }
        at_strbuf_putc(c->sb, '(');
        scalar(c, f.terms[i].atom);
        at_strbuf_puts(c->sb, " * ");
        print_int(c, e->type, f.terms[i].coeff);
        at_strbuf_putc(c->sb, ')');
    }
    if (f.constant > 0) {
        at_strbuf_puts(c->sb, " + ");
        print_int(c, e->type, f.constant);
    } else if (f.constant < 0 && f.constant > INT64_MIN) {
        at_strbuf_puts(c->sb, " - ");
        print_int(c, e->type, -f.constant);
    } else if (f.constant < 0) {
        at_strbuf_puts(c->sb, " + ");
        print_int(c, e->type, f.constant);
    }
    if (paren) at_strbuf_putc(c->sb, ')');
    return true;
}

static void scalar(cg *c, const at_ir_expr *e)
{
    char tb[16];
    int64_t v;
    bool bv;
    if (cint(c, e, &v)) {
        print_int(c, e->type, v);
        return;
    }
    if (e->type.code == AT_IR_TBOOL && cbool(c, e, &bv)) {
        print_int(c, e->type, bv);
        return;
    }
    if (e->kind == AT_IR_CAST && at_ir_type_is_float(e->type) && e->type.lanes == 1 && cint(c, e->u.cast.a, &v)) {
        bool uns64 = e->u.cast.a->type.code == AT_IR_TUINT && e->u.cast.a->type.bits == 64;
        print_float(c, e->type, uns64 ? (double)(uint64_t)v : (double)v);
        return;
    }
    switch (e->kind) {
    case AT_IR_INT_IMM: print_int(c, e->type, e->u.int_val); return;
    case AT_IR_FLOAT_IMM: print_float(c, e->type, e->u.float_val); return;
    case AT_IR_VAR:
        at_strbuf_puts(c->sb, c->var_names[e->u.var->id]);
        if (c->lane >= 0 && c->varying[e->u.var->id]) lane_suffix(c, c->lane);
        return;
    case AT_IR_BINARY: {
        at_ir_binop op = e->u.bin.op;
        const at_ir_expr *a = e->u.bin.a, *b = e->u.bin.b;
        at_ir_type t = a->type;
        if ((op == AT_IR_ADD || op == AT_IR_SUB || op == AT_IR_MUL) && affine(c, e)) return;
        bool side;
        if ((op == AT_IR_AND || op == AT_IR_OR) && t.lanes == 1) {
            /* a side the ranges decide to the identity (true for &&, false for ||) drops out */
            if (cbool(c, a, &side) && side == (op == AT_IR_AND)) {
                scalar(c, b);
                return;
            }
            if (cbool(c, b, &side) && side == (op == AT_IR_AND)) {
                scalar(c, a);
                return;
            }
        }
        int64_t alo, ahi, kd;
        if ((op == AT_IR_DIV || op == AT_IR_MOD) && cint(c, b, &kd) && kd > 1 && (kd & (kd - 1)) == 0 &&
            range(c, a, &alo, &ahi) && alo >= 0) {
            /* a non-negative operand by a power of two: a shift or a mask, as TVM prints them */
            int sh = 0;
            while (((int64_t)1 << sh) < kd) sh++;
            at_strbuf_putc(c->sb, '(');
            scalar(c, a);
            if (op == AT_IR_DIV)
                at_strbuf_printf(c->sb, " >> %d)", sh);
            else
                at_strbuf_printf(c->sb, " & %lld)", (long long)(kd - 1));
            return;
        }
        bool flt = at_ir_type_is_float(t);
        int64_t ka = 1, kb = 1;
        bool ca = cint(c, a, &ka), cb = cint(c, b, &kb);
        /* identities that constant-bound variables expose */
        if ((op == AT_IR_ADD && cb && kb == 0) || (op == AT_IR_SUB && cb && kb == 0) ||
            (op == AT_IR_MUL && cb && kb == 1) || (op == AT_IR_DIV && cb && kb == 1)) {
            scalar(c, a);
            return;
        }
        if ((op == AT_IR_ADD && ca && ka == 0) || (op == AT_IR_MUL && ca && ka == 1)) {
            scalar(c, b);
            return;
        }
        if (op == AT_IR_MUL && ((ca && ka == 0) || (cb && kb == 0)) && t.lanes == 1) {
            print_int(c, t, 0);
            return;
        }
        if (op == AT_IR_MIN || op == AT_IR_MAX || (op == AT_IR_MOD && flt)) {
            at_strbuf_puts(c->sb, op == AT_IR_MOD ? "fmod(" : flt ? (op == AT_IR_MIN ? "fmin(" : "fmax(")
                                                           : (op == AT_IR_MIN ? "min(" : "max("));
            scalar(c, a);
            at_strbuf_puts(c->sb, ", ");
            scalar(c, b);
            at_strbuf_putc(c->sb, ')');
            return;
        }
        at_strbuf_putc(c->sb, '(');
        scalar(c, a);
        at_strbuf_printf(c->sb, " %s ", binop_c[op]);
        scalar(c, b);
        at_strbuf_putc(c->sb, ')');
        return;
    }
    case AT_IR_UNARY:
        at_strbuf_puts(c->sb, e->u.un.op == AT_IR_NEG ? "(-" : e->u.un.op == AT_IR_NOT ? "(!" : "(~");
        scalar(c, e->u.un.a);
        at_strbuf_putc(c->sb, ')');
        return;
    case AT_IR_SELECT: {
        const at_ir_expr *cond = e->u.select.cond;
        if (cbool(c, cond, &bv)) {
            scalar(c, bv ? e->u.select.t : e->u.select.f);
        } else if (cond->type.lanes == 1) {
            at_strbuf_putc(c->sb, '(');
            scalar(c, cond);
            at_strbuf_puts(c->sb, " ? ");
            scalar(c, e->u.select.t);
            at_strbuf_puts(c->sb, " : ");
            scalar(c, e->u.select.f);
            at_strbuf_putc(c->sb, ')');
        } else if (cond_bits(cond) == e->type.bits) {
            at_strbuf_puts(c->sb, "select(");
            scalar(c, e->u.select.f);
            at_strbuf_puts(c->sb, ", ");
            scalar(c, e->u.select.t);
            at_strbuf_puts(c->sb, ", ");
            scalar(c, cond);
            at_strbuf_putc(c->sb, ')');
        } else {
            at_strbuf_printf(c->sb, "((%s)(", tname(c, e->type, tb));
            for (int l = 0; l < e->type.lanes; l++) {
                if (l) at_strbuf_puts(c->sb, ", ");
                at_strbuf_puts(c->sb, "((");
                scalar(c, cond);
                at_strbuf_putc(c->sb, ')');
                lane_suffix(c, l);
                at_strbuf_puts(c->sb, " ? (");
                scalar(c, e->u.select.t);
                at_strbuf_putc(c->sb, ')');
                lane_suffix(c, l);
                at_strbuf_puts(c->sb, " : (");
                scalar(c, e->u.select.f);
                at_strbuf_putc(c->sb, ')');
                lane_suffix(c, l);
                at_strbuf_putc(c->sb, ')');
            }
            at_strbuf_puts(c->sb, "))");
        }
        return;
    }
    case AT_IR_CAST:
        if (e->type.lanes > 1) {
            at_strbuf_printf(c->sb, "convert_%s(", tname(c, e->type, tb));
            scalar(c, e->u.cast.a);
            at_strbuf_putc(c->sb, ')');
        } else {
            at_strbuf_printf(c->sb, "((%s)", tname(c, e->type, tb));
            scalar(c, e->u.cast.a);
            at_strbuf_putc(c->sb, ')');
        }
        return;
    case AT_IR_LOAD:
        if (e->type.lanes > 1) {
            at_strbuf_printf(c->sb, "vload%u(0, ", e->type.lanes);
            buffer_ptr(c, e->u.load.buf, e->u.load.index);
            at_strbuf_putc(c->sb, ')');
            tname(c, e->type, tb); /* checks the width */
        } else {
            at_strbuf_printf(c->sb, "%s[", c->buf_names[e->u.load.buf->id]);
            scalar(c, e->u.load.index);
            at_strbuf_putc(c->sb, ']');
        }
        return;
    case AT_IR_BROADCAST:
        at_strbuf_printf(c->sb, "((%s)(", tname(c, e->type, tb));
        scalar(c, e->u.broadcast.a);
        at_strbuf_puts(c->sb, "))");
        return;
    case AT_IR_LANE:
        at_strbuf_putc(c->sb, '(');
        scalar(c, e->u.lane.a);
        at_strbuf_putc(c->sb, ')');
        lane_suffix(c, e->u.lane.lane);
        return;
    case AT_IR_VECTOR:
        at_strbuf_printf(c->sb, "((%s)(", tname(c, e->type, tb));
        for (size_t i = 0; i < e->u.vector.n; i++) {
            if (i) at_strbuf_puts(c->sb, ", ");
            scalar(c, e->u.vector.elems[i]);
        }
        at_strbuf_puts(c->sb, "))");
        return;
    case AT_IR_CALL:
        tname(c, e->type, tb);
        at_strbuf_printf(c->sb, "%s(", e->u.call.name);
        for (size_t i = 0; i < e->u.call.n_args; i++) {
            if (i) at_strbuf_puts(c->sb, ", ");
            scalar(c, e->u.call.args[i]);
        }
        at_strbuf_putc(c->sb, ')');
        return;
    case AT_IR_EXPR_KIND_COUNT:
    default: AT_ASSERT(!"bad expression kind");
    }
}

/* ---- statements ----------------------------------------------------------------------------- */

static void stmt(cg *c, const at_ir_stmt *s);

/* Can the body of a vectorized loop print as vector code? Marks vector lets as it goes (the
 * caller clears them). */
static bool vectorizable(cg *c, const at_ir_stmt *s, uint32_t *marked, size_t *n_marked)
{
    switch (s->kind) {
    case AT_IR_STORE:
        if (!at_ir_vec_scalar_typed(s->u.store.value) || !at_ir_vec_scalar_typed(s->u.store.index)) return false;
        if (!varies(c, s->u.store.index)) return false; /* every lane writes one place: unroll */
        return !(varies(c, s->u.store.value) && s->u.store.value->type.code == AT_IR_TBOOL);
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++)
            if (!vectorizable(c, s->u.seq.items[i], marked, n_marked)) return false;
        return true;
    case AT_IR_LET:
        if (!at_ir_vec_scalar_typed(s->u.let.value)) return false;
        if (varies(c, s->u.let.value)) {
            if (s->u.let.var->type.code == AT_IR_TBOOL) return false;
            c->varying[s->u.let.var->id] = true;
            marked[(*n_marked)++] = s->u.let.var->id;
        }
        return vectorizable(c, s->u.let.body, marked, n_marked);
    case AT_IR_FOR: case AT_IR_IF: case AT_IR_BARRIER: case AT_IR_PREFETCH: case AT_IR_STMT_KIND_COUNT:
    default: return false;
    }
}

static void unrolled(cg *c, const at_ir_stmt *s)
{
    uint32_t id = s->u.loop.var->id;
    for (int64_t i = 0; i < s->u.loop.extent; i++) {
        indent(c);
        open_block(c);
        c->cbound[id] = true;
        c->cval[id] = i;
        stmt(c, s->u.loop.body);
        c->cbound[id] = false;
        close_block(c);
    }
}

static void vectorized(cg *c, const at_ir_stmt *s)
{
    int lanes = (int)s->u.loop.extent;
    size_t n_lets = at_ir_count_lets(s->u.loop.body), n_marked = 0;
    uint32_t *marked = at_malloc((n_lets + 1) * sizeof *marked);
    if (!marked) {
        if (c->st == AT_OK) c->st = AT_OOM();
        return;
    }
    c->vvar = s->u.loop.var;
    c->vlanes = lanes;
    bool ok = lanes_ok(lanes) && vectorizable(c, s->u.loop.body, marked, &n_marked);
    for (size_t i = 0; i < n_marked; i++) c->varying[marked[i]] = false;
    at_free(marked);
    if (!ok) {
        c->vvar = NULL;
        unrolled(c, s);
        return;
    }
    indent(c);
    open_block(c);
    stmt(c, s->u.loop.body);
    close_block(c);
    c->vvar = NULL;
}

static void store(cg *c, const at_ir_stmt *s)
{
    const at_ir_buffer *b = s->u.store.buf;
    const at_ir_expr *idx = s->u.store.index, *val = s->u.store.value;
    int64_t stride;
    if (c->vvar && varies(c, idx)) {
        if (affine_stride(c, idx, &stride) && stride == 1) {
            indent(c);
            at_strbuf_printf(c->sb, "vstore%d(", c->vlanes);
            vec_operand(c, val);
            at_strbuf_puts(c->sb, ", 0, ");
            uint32_t id = c->vvar->id;
            c->cbound[id] = true;
            c->cval[id] = 0;
            c->lane = 0;
            buffer_ptr(c, b, idx);
            c->lane = -1;
            c->cbound[id] = false;
            at_strbuf_puts(c->sb, ");\n");
            return;
        }
        for (int l = 0; l < c->vlanes; l++) { /* scatter */
            indent(c);
            at_strbuf_printf(c->sb, "%s[", c->buf_names[b->id]);
            at_lane(c, idx, l);
            at_strbuf_puts(c->sb, "] = ");
            at_lane(c, val, l);
            at_strbuf_puts(c->sb, ";\n");
        }
        return;
    }
    indent(c);
    if (val->type.lanes > 1) {
        char tb[16];
        tname(c, val->type, tb);
        at_strbuf_printf(c->sb, "vstore%u(", val->type.lanes);
        scalar(c, val);
        at_strbuf_puts(c->sb, ", 0, ");
        buffer_ptr(c, b, idx);
        at_strbuf_puts(c->sb, ");\n");
        return;
    }
    at_strbuf_printf(c->sb, "%s[", c->buf_names[b->id]);
    scalar(c, idx);
    at_strbuf_puts(c->sb, "] = ");
    scalar(c, val); /* a varying value with an invariant index is never vectorized */
    at_strbuf_puts(c->sb, ";\n");
}

/* A loop (the caller has recorded its variable's binding order and range). */
static void loop_stmt(cg *c, const at_ir_stmt *s)
{
    char tb[16];
    const at_ir_var *v = s->u.loop.var;
    at_ir_for_kind kind = s->u.loop.kind;
    if (s->u.loop.extent == 1) {
        /* one iteration (or one group / work-item along a dimension): the index is the
         * constant 0, as TVM's simplifier removes such loops; the launch keeps the dimension */
        c->cbound[v->id] = true;
        c->cval[v->id] = 0;
        stmt(c, s->u.loop.body);
        c->cbound[v->id] = false;
        return;
    }
    if (at_ir_for_kind_is_binding(kind)) {
        /* convert_int(get_group_id(d)), TVM's conversion: NVIDIA's compiler given (int) casts of
         * the ids spent 38-48 s on the spatial-pack conv of config 3203502 and ran it 40x slower
         * (6.3 vs 0.15 ms on an H100, measured); with convert_int, 1.8 s and 0.15 ms. The ids stay
         * variables declared once (PoCL: 10 % faster than reading them at each use on configs
         * 6439 and 669395) */
        int d = (int)((kind - AT_IR_BLOCK_X) % 3);
        indent(c);
        if (declare(c, v)) at_strbuf_printf(c->sb, "%s ", tname(c, v->type, tb));
        at_strbuf_printf(c->sb, "%s = convert_%s(%s(%d));\n", c->var_names[v->id], tname(c, v->type, tb),
                         kind <= AT_IR_BLOCK_Z ? "get_group_id" : "get_local_id", d);
        stmt(c, s->u.loop.body);
        return;
    }
    if (kind == AT_IR_VECTORIZED) {
        vectorized(c, s);
        return;
    }
    if ((kind == AT_IR_UNROLLED && !(s->u.loop.flags & AT_IR_LOOP_PRAGMA_UNROLL)) || kind == AT_IR_VTHREAD) {
        unrolled(c, s);
        return;
    }
    if (kind == AT_IR_UNROLLED) {
        indent(c);
        at_strbuf_puts(c->sb, "#pragma unroll\n");
    }
    indent(c);
    const char *n = c->var_names[v->id];
    at_strbuf_printf(c->sb, "for (%s %s = 0; %s < ", tname(c, v->type, tb), n, n);
    print_int(c, v->type, s->u.loop.extent);
    at_strbuf_printf(c->sb, "; ++%s) ", n);
    open_block(c);
    stmt(c, s->u.loop.body);
    close_block(c);
    return;
}

static void stmt(cg *c, const at_ir_stmt *s)
{
    char tb[16];
    switch (s->kind) {
    case AT_IR_FOR: {
        const at_ir_var *v = s->u.loop.var;
        c->bind_seq[v->id] = ++c->n_bound;
        int64_t saved_extent = c->extent[v->id];
        c->extent[v->id] = s->u.loop.extent;
        loop_stmt(c, s);
        c->extent[v->id] = saved_extent;
        return;
    }
    case AT_IR_STORE: store(c, s); return;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) stmt(c, s->u.seq.items[i]);
        return;
    case AT_IR_IF: {
        bool taken;
        if (cbool(c, s->u.if_.cond, &taken)) {
            const at_ir_stmt *branch = taken ? s->u.if_.then_s : s->u.if_.else_s;
            if (branch) stmt(c, branch);
            return;
        }
        indent(c);
        at_strbuf_puts(c->sb, "if (");
        scalar(c, s->u.if_.cond);
        at_strbuf_puts(c->sb, ") ");
        open_block(c);
        stmt(c, s->u.if_.then_s);
        if (s->u.if_.else_s) {
            close_block(c);
            indent(c);
            at_strbuf_puts(c->sb, "else ");
            open_block(c);
            stmt(c, s->u.if_.else_s);
        }
        close_block(c);
        return;
    }
    case AT_IR_LET: {
        const at_ir_var *v = s->u.let.var;
        bool vec = c->vvar && varies(c, s->u.let.value);
        c->bind_seq[v->id] = ++c->n_bound;
        indent(c);
        if (declare(c, v))
            at_strbuf_printf(c->sb, "%s ", tname(c, vec ? at_ir_type_with_lanes(v->type, c->vlanes) : v->type, tb));
        at_strbuf_printf(c->sb, "%s = ", c->var_names[v->id]);
        if (vec)
            vector(c, s->u.let.value);
        else
            scalar(c, s->u.let.value);
        at_strbuf_puts(c->sb, ";\n");
        if (vec) c->varying[v->id] = true;
        stmt(c, s->u.let.body);
        if (vec) c->varying[v->id] = false;
        return;
    }
    case AT_IR_BARRIER:
        indent(c);
        at_strbuf_printf(c->sb, "barrier(%s);\n", s->u.barrier.scope == AT_IR_LOCAL ? "CLK_LOCAL_MEM_FENCE" : "CLK_GLOBAL_MEM_FENCE");
        return;
    case AT_IR_PREFETCH: return; /* a CPU cache hint: a GPU kernel goes without it */
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
}

/* ---- kernels -------------------------------------------------------------------------------- */

static void mark_buffers(const at_ir_expr *e, bool *used);

static void mark_stmt_buffers(const at_ir_stmt *s, bool *used)
{
    switch (s->kind) {
    case AT_IR_FOR: mark_stmt_buffers(s->u.loop.body, used); return;
    case AT_IR_STORE:
        used[s->u.store.buf->id] = true;
        mark_buffers(s->u.store.index, used);
        mark_buffers(s->u.store.value, used);
        return;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) mark_stmt_buffers(s->u.seq.items[i], used);
        return;
    case AT_IR_IF:
        mark_buffers(s->u.if_.cond, used);
        mark_stmt_buffers(s->u.if_.then_s, used);
        if (s->u.if_.else_s) mark_stmt_buffers(s->u.if_.else_s, used);
        return;
    case AT_IR_LET:
        mark_buffers(s->u.let.value, used);
        mark_stmt_buffers(s->u.let.body, used);
        return;
    case AT_IR_PREFETCH: /* not emitted */
    case AT_IR_BARRIER: return;
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
}

static void mark_buffers(const at_ir_expr *e, bool *used)
{
    switch (e->kind) {
    case AT_IR_BINARY:
        mark_buffers(e->u.bin.a, used);
        mark_buffers(e->u.bin.b, used);
        return;
    case AT_IR_UNARY: mark_buffers(e->u.un.a, used); return;
    case AT_IR_SELECT:
        mark_buffers(e->u.select.cond, used);
        mark_buffers(e->u.select.t, used);
        mark_buffers(e->u.select.f, used);
        return;
    case AT_IR_CAST: mark_buffers(e->u.cast.a, used); return;
    case AT_IR_LOAD:
        used[e->u.load.buf->id] = true;
        mark_buffers(e->u.load.index, used);
        return;
    case AT_IR_BROADCAST: mark_buffers(e->u.broadcast.a, used); return;
    case AT_IR_LANE: mark_buffers(e->u.lane.a, used); return;
    case AT_IR_VECTOR:
        for (size_t i = 0; i < e->u.vector.n; i++) mark_buffers(e->u.vector.elems[i], used);
        return;
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++) mark_buffers(e->u.call.args[i], used);
        return;
    case AT_IR_INT_IMM: case AT_IR_FLOAT_IMM: case AT_IR_VAR: return;
    case AT_IR_EXPR_KIND_COUNT:
    default: AT_ASSERT(!"bad expression kind");
    }
}

static at_status emit_kernel(cg *c, size_t k, at_ocl_kernel_info *info, bool *used)
{
    const at_ir_program *p = c->p;
    const at_ir_kernel *kn = &p->kernels[k];
    char tb[16];
    c->k = kn;
    at_ir_launch l;
    at_ir_kernel_launch(p, k, &l);
    info->name = unique_ident(kn->name, NULL, 0); /* sanitized like every identifier */
    if (!info->name) return AT_OOM();
    info->work_dim = l.work_dim;
    for (int d = 0; d < 3; d++) {
        info->lws[d] = (size_t)l.local[d];
        info->gws[d] = (size_t)(l.groups[d] * l.local[d]);
    }
    info->local_bytes = at_ir_kernel_local_bytes(p, k);
    info->prepare = p->kernels[k].prepare;
    info->finish = p->kernels[k].finish;
    memset(used, 0, c->n_buf_ids * sizeof *used);
    mark_stmt_buffers(kn->body, used);
    info->n_args = 0;
    info->args = at_malloc((p->n_bufs + 1) * sizeof *info->args);
    if (!info->args) return AT_OOM();
    for (size_t i = 0; i < p->n_bufs; i++)
        if (used[p->bufs[i]->id]) info->args[info->n_args++] = i;

    at_strbuf *sb = c->sb;
    at_strbuf_printf(sb, "__kernel __attribute__((reqd_work_group_size(%zu, %zu, %zu)))\nvoid %s(", info->lws[0],
                     info->lws[1], info->lws[2], info->name);
    for (size_t a = 0; a < info->n_args; a++) {
        const at_ir_buffer *b = p->bufs[info->args[a]];
        at_strbuf_printf(sb, "%s__global %s* restrict %s", a ? ", " : "", tname(c, b->elem, tb), c->buf_names[b->id]);
    }
    at_strbuf_puts(sb, ") ");
    open_block(c);
    for (size_t a = 0; a < kn->n_allocs; a++) {
        const at_ir_buffer *b = kn->allocs[a];
        indent(c);
        at_strbuf_printf(sb, "%s%s %s[%lld];\n", b->scope == AT_IR_LOCAL ? "__local " : "", tname(c, b->elem, tb),
                         c->buf_names[b->id], (long long)b->size);
    }
    stmt(c, kn->body);
    close_block(c);
    c->k = NULL;
    return c->st;
}

void at_ocl_code_fini(at_ocl_code *code)
{
    if (!code) return;
    at_free(code->source);
    for (size_t k = 0; k < code->n_kernels; k++) {
        at_free(code->kernels[k].name);
        at_free(code->kernels[k].args);
    }
    at_free(code->kernels);
    memset(code, 0, sizeof *code);
}

at_status at_ocl_emit(const at_ir_program *p, at_ocl_code *out)
{
    memset(out, 0, sizeof *out);
    at_strbuf body;
    at_strbuf_init(&body);
    cg c = {.sb = &body, .p = p, .lane = -1};
    c.n_buf_ids = p->n_bufs;
    for (size_t k = 0; k < p->n_kernels; k++) c.n_buf_ids += p->kernels[k].n_allocs;
    size_t n_vars = p->n_vars + 1;
    c.var_names = at_calloc(n_vars, sizeof *c.var_names);
    c.buf_names = at_calloc(c.n_buf_ids + 1, sizeof *c.buf_names);
    c.cbound = at_calloc(n_vars, sizeof *c.cbound);
    c.cval = at_calloc(n_vars, sizeof *c.cval);
    c.varying = at_calloc(n_vars, sizeof *c.varying);
    c.decl_depth = at_malloc(n_vars * sizeof *c.decl_depth);
    c.bind_seq = at_calloc(n_vars, sizeof *c.bind_seq);
    c.extent = at_calloc(n_vars, sizeof *c.extent);
    bool *used = at_calloc(c.n_buf_ids + 1, sizeof *used);
    at_ocl_code code = {0};
    code.kernels = at_calloc(p->n_kernels + 1, sizeof *code.kernels);
    at_status st = AT_OK;
    if (!c.var_names || !c.buf_names || !c.cbound || !c.cval || !c.varying || !c.decl_depth || !c.bind_seq || !c.extent || !used || !code.kernels) {
        st = AT_OOM();
        goto done;
    }
    for (size_t v = 0; v < n_vars; v++) c.decl_depth[v] = -1;
    st = assign_names(&c);
    for (size_t k = 0; k < p->n_kernels && st == AT_OK; k++) {
        if (k) at_strbuf_putc(&body, '\n');
        st = emit_kernel(&c, k, &code.kernels[k], used);
        code.n_kernels = k + 1;
        for (size_t j = 0; j < k && st == AT_OK; j++)
            if (!strcmp(code.kernels[j].name, code.kernels[k].name))
                st = AT_FAIL(AT_EINVAL, "program %s: two kernels named %s", p->name, code.kernels[k].name);
    }
    if (st == AT_OK) st = at_strbuf_status(&body);
    if (st == AT_OK) {
        at_strbuf src;
        at_strbuf_init(&src);
        if (c.uses_f64) at_strbuf_puts(&src, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
        if (c.uses_f16) at_strbuf_puts(&src, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
        if (c.uses_f64 || c.uses_f16) at_strbuf_putc(&src, '\n');
        at_strbuf_puts(&src, at_strbuf_cstr(&body));
        code.source = at_strbuf_take(&src);
        if (!code.source) st = AT_OOM();
    }
done:
    if (c.var_names)
        for (size_t v = 0; v < n_vars; v++) at_free(c.var_names[v]);
    if (c.buf_names)
        for (size_t b = 0; b < c.n_buf_ids + 1; b++) at_free(c.buf_names[b]);
    at_free(c.var_names);
    at_free(c.buf_names);
    at_free(c.cbound);
    at_free(c.cval);
    at_free(c.varying);
    at_free(c.decl_depth);
    at_free(c.bind_seq);
    at_free(c.extent);
    at_free(c.decls);
    at_free(used);
    at_strbuf_fini(&body);
    if (st != AT_OK) {
        at_ocl_code_fini(&code);
        return st;
    }
    *out = code;
    return AT_OK;
}
