/* IR printer: one deterministic text form for golden files and error messages. Binary operations
 * are fully parenthesized; a variable whose name another variable of the program shares is
 * printed as name#id, so the text never aliases two variables. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "ir/internal.h"
#include "ir/ir.h"

typedef struct printer {
    at_strbuf        *sb;
    const at_ir_var **vars; /* by id, NULL until seen */
    uint32_t          n_vars;
} printer;

static const char *const binop_text[AT_IR_BINOP_COUNT] = {
    [AT_IR_ADD] = "+",  [AT_IR_SUB] = "-",  [AT_IR_MUL] = "*",  [AT_IR_DIV] = "/",     [AT_IR_MOD] = "%",
    [AT_IR_MIN] = "min", [AT_IR_MAX] = "max", [AT_IR_EQ] = "==", [AT_IR_NE] = "!=",     [AT_IR_LT] = "<",
    [AT_IR_LE] = "<=",  [AT_IR_GT] = ">",   [AT_IR_GE] = ">=",  [AT_IR_AND] = "&&",    [AT_IR_OR] = "||",
    [AT_IR_BIT_AND] = "&", [AT_IR_BIT_OR] = "|", [AT_IR_BIT_XOR] = "^", [AT_IR_SHL] = "<<", [AT_IR_SHR] = ">>",
};

static const char *const scope_text[] = {[AT_IR_GLOBAL] = "global", [AT_IR_LOCAL] = "local", [AT_IR_PRIVATE] = "private"};
static const char *const role_text[] = {
    [AT_IR_INPUT] = "input", [AT_IR_OUTPUT] = "output", [AT_IR_TEMP] = "temp", [AT_IR_SCRATCH] = "scratch"};

static void print_var(const printer *pr, const at_ir_var *v)
{
    at_strbuf_puts(pr->sb, v->name);
    if (!pr->vars) return;
    for (uint32_t i = 0; i < pr->n_vars; i++) {
        if (pr->vars[i] && pr->vars[i] != v && !strcmp(pr->vars[i]->name, v->name)) {
            at_strbuf_printf(pr->sb, "#%u", v->id);
            return;
        }
    }
}

static void print_float(at_strbuf *sb, at_ir_type t, double v)
{
    char buf[40];
    if (isnan(v)) {
        snprintf(buf, sizeof buf, "nan");
    } else if (isinf(v)) {
        snprintf(buf, sizeof buf, v > 0 ? "inf" : "-inf");
    } else {
        snprintf(buf, sizeof buf, t.bits == 64 ? "%.17g" : "%.9g", v);
        if (!strpbrk(buf, ".e")) strcat(buf, ".0");
    }
    at_strbuf_puts(sb, buf);
    if (t.bits == 32) at_strbuf_putc(sb, 'f');
    if (t.bits == 16) at_strbuf_putc(sb, 'h');
}

static void expr(const printer *pr, const at_ir_expr *e)
{
    at_strbuf *sb = pr->sb;
    char tb[16];
    switch (e->kind) {
    case AT_IR_INT_IMM:
        if (e->type.code == AT_IR_TBOOL) {
            at_strbuf_puts(sb, e->u.int_val ? "true" : "false");
        } else {
            at_strbuf_printf(sb, "%lld", (long long)e->u.int_val);
            if (!(e->type.code == AT_IR_TINT && e->type.bits == 32))
                at_strbuf_printf(sb, "%s%u", e->type.code == AT_IR_TUINT ? "u" : "i", e->type.bits);
        }
        break;
    case AT_IR_FLOAT_IMM: print_float(sb, e->type, e->u.float_val); break;
    case AT_IR_VAR: print_var(pr, e->u.var); break;
    case AT_IR_BINARY:
        if (e->u.bin.op == AT_IR_MIN || e->u.bin.op == AT_IR_MAX) {
            at_strbuf_printf(sb, "%s(", binop_text[e->u.bin.op]);
            expr(pr, e->u.bin.a);
            at_strbuf_puts(sb, ", ");
            expr(pr, e->u.bin.b);
            at_strbuf_putc(sb, ')');
        } else {
            at_strbuf_putc(sb, '(');
            expr(pr, e->u.bin.a);
            at_strbuf_printf(sb, " %s ", binop_text[e->u.bin.op]);
            expr(pr, e->u.bin.b);
            at_strbuf_putc(sb, ')');
        }
        break;
    case AT_IR_UNARY:
        at_strbuf_puts(sb, e->u.un.op == AT_IR_NEG ? "-" : e->u.un.op == AT_IR_NOT ? "!" : "~");
        expr(pr, e->u.un.a);
        break;
    case AT_IR_SELECT:
        at_strbuf_puts(sb, "select(");
        expr(pr, e->u.select.cond);
        at_strbuf_puts(sb, ", ");
        expr(pr, e->u.select.t);
        at_strbuf_puts(sb, ", ");
        expr(pr, e->u.select.f);
        at_strbuf_putc(sb, ')');
        break;
    case AT_IR_CAST:
        at_strbuf_printf(sb, "%s(", at_ir_type_str(e->type, tb));
        expr(pr, e->u.cast.a);
        at_strbuf_putc(sb, ')');
        break;
    case AT_IR_LOAD:
        at_strbuf_printf(sb, "%s[", e->u.load.buf->name);
        expr(pr, e->u.load.index);
        if (e->type.lanes > 1) at_strbuf_printf(sb, ":+%u", e->type.lanes);
        at_strbuf_putc(sb, ']');
        break;
    case AT_IR_BROADCAST:
        at_strbuf_puts(sb, "broadcast(");
        expr(pr, e->u.broadcast.a);
        at_strbuf_printf(sb, ", %u)", e->type.lanes);
        break;
    case AT_IR_LANE:
        at_strbuf_puts(sb, "lane(");
        expr(pr, e->u.lane.a);
        at_strbuf_printf(sb, ", %d)", e->u.lane.lane);
        break;
    case AT_IR_VECTOR:
        at_strbuf_puts(sb, "vector(");
        for (size_t i = 0; i < e->u.vector.n; i++) {
            if (i) at_strbuf_puts(sb, ", ");
            expr(pr, e->u.vector.elems[i]);
        }
        at_strbuf_putc(sb, ')');
        break;
    case AT_IR_CALL:
        at_strbuf_printf(sb, "@%s:%s(", e->u.call.name, at_ir_type_str(e->type, tb));
        for (size_t i = 0; i < e->u.call.n_args; i++) {
            if (i) at_strbuf_puts(sb, ", ");
            expr(pr, e->u.call.args[i]);
        }
        at_strbuf_putc(sb, ')');
        break;
    case AT_IR_EXPR_KIND_COUNT:
    default: AT_ASSERT(!"bad expression kind");
    }
}

static void indent(at_strbuf *sb, int depth)
{
    for (int i = 0; i < depth; i++) at_strbuf_puts(sb, "  ");
}

static void stmt(const printer *pr, const at_ir_stmt *s, int depth)
{
    at_strbuf *sb = pr->sb;
    char tb[16];
    switch (s->kind) {
    case AT_IR_FOR:
        indent(sb, depth);
        at_strbuf_puts(sb, "for ");
        print_var(pr, s->u.loop.var);
        at_strbuf_printf(sb, " in 0..%lld %s%s\n", (long long)s->u.loop.extent, at_ir_for_kind_str(s->u.loop.kind),
                         s->u.loop.flags & AT_IR_LOOP_PRAGMA_UNROLL ? " pragma" : "");
        stmt(pr, s->u.loop.body, depth + 1);
        break;
    case AT_IR_STORE:
        indent(sb, depth);
        at_strbuf_printf(sb, "%s[", s->u.store.buf->name);
        expr(pr, s->u.store.index);
        if (s->u.store.value->type.lanes > 1) at_strbuf_printf(sb, ":+%u", s->u.store.value->type.lanes);
        at_strbuf_puts(sb, "] = ");
        expr(pr, s->u.store.value);
        at_strbuf_putc(sb, '\n');
        break;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) stmt(pr, s->u.seq.items[i], depth);
        break;
    case AT_IR_IF:
        indent(sb, depth);
        at_strbuf_puts(sb, "if ");
        expr(pr, s->u.if_.cond);
        at_strbuf_putc(sb, '\n');
        stmt(pr, s->u.if_.then_s, depth + 1);
        if (s->u.if_.else_s) {
            indent(sb, depth);
            at_strbuf_puts(sb, "else\n");
            stmt(pr, s->u.if_.else_s, depth + 1);
        }
        break;
    case AT_IR_LET:
        indent(sb, depth);
        at_strbuf_puts(sb, "let ");
        print_var(pr, s->u.let.var);
        at_strbuf_printf(sb, ": %s = ", at_ir_type_str(s->u.let.var->type, tb));
        expr(pr, s->u.let.value);
        at_strbuf_putc(sb, '\n');
        stmt(pr, s->u.let.body, depth);
        break;
    case AT_IR_BARRIER:
        indent(sb, depth);
        at_strbuf_printf(sb, "barrier %s\n", scope_text[s->u.barrier.scope]);
        break;
    case AT_IR_PREFETCH:
        indent(sb, depth);
        at_strbuf_printf(sb, "prefetch %s[", s->u.prefetch.buf->name);
        expr(pr, s->u.prefetch.index);
        at_strbuf_puts(sb, "]\n");
        break;
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
}

/* Records every variable bound in s by id (the printer's alias check). */
static void collect(const printer *pr, const at_ir_stmt *s)
{
    switch (s->kind) {
    case AT_IR_FOR:
        pr->vars[s->u.loop.var->id] = s->u.loop.var;
        collect(pr, s->u.loop.body);
        break;
    case AT_IR_LET:
        pr->vars[s->u.let.var->id] = s->u.let.var;
        collect(pr, s->u.let.body);
        break;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) collect(pr, s->u.seq.items[i]);
        break;
    case AT_IR_IF:
        collect(pr, s->u.if_.then_s);
        if (s->u.if_.else_s) collect(pr, s->u.if_.else_s);
        break;
    case AT_IR_STORE:
    case AT_IR_PREFETCH:
    case AT_IR_BARRIER: break;
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
}

static void print_buffer(at_strbuf *sb, const char *what, const at_ir_buffer *b)
{
    char tb[16];
    at_strbuf_printf(sb, "  %s %s: %s[%lld] %s\n", what, b->name, at_ir_type_str(b->elem, tb), (long long)b->size,
                     b->scope == AT_IR_GLOBAL ? role_text[b->role] : scope_text[b->scope]);
}

void at_ir_print(const at_ir_program *p, at_strbuf *sb)
{
    printer pr = {.sb = sb, .n_vars = p->n_vars};
    pr.vars = p->n_vars ? at_calloc(p->n_vars, sizeof *pr.vars) : NULL;
    if (p->n_vars && !pr.vars) {
        sb->failed = 1;
        return;
    }
    for (size_t k = 0; k < p->n_kernels; k++) collect(&pr, p->kernels[k].body);
    at_strbuf_printf(sb, "program %s\n", p->name);
    for (size_t i = 0; i < p->n_bufs; i++) print_buffer(sb, p->bufs[i]->role == AT_IR_TEMP ? "temp" : "param", p->bufs[i]);
    for (size_t k = 0; k < p->n_kernels; k++) {
        const at_ir_kernel *kn = &p->kernels[k];
        at_strbuf_printf(sb, "%skernel %s\n", kn->prepare ? "prepare " : kn->finish ? "finish " : "", kn->name);
        for (size_t a = 0; a < kn->n_allocs; a++) print_buffer(sb, "alloc", kn->allocs[a]);
        stmt(&pr, kn->body, 1);
    }
    at_free(pr.vars);
}

void at_ir_print_expr(const at_ir_expr *e, at_strbuf *sb)
{
    printer pr = {.sb = sb};
    expr(&pr, e);
}
