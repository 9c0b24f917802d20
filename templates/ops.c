/* The op-kind table (templates/op_kinds.h) as an array, and the at_op_* functions dispatching
 * through it. Nothing here knows any kind. */
#include "templates/ops.h"

#include <string.h>

#include "core/strbuf.h"
#include "templates/internal.h"

#define AT_OP_KIND_EXTERN_(kind, def) extern const at_op_def def;
AT_OP_KIND_LIST(AT_OP_KIND_EXTERN_)
#undef AT_OP_KIND_EXTERN_

static const at_op_def *const table[AT_OP_COUNT] = {
#define AT_OP_KIND_ROW_(kind, def) [kind] = &def,
    AT_OP_KIND_LIST(AT_OP_KIND_ROW_)
#undef AT_OP_KIND_ROW_
};

const at_op_def *at_op_def_of(at_op_kind op)
{
    if ((unsigned)op < AT_OP_COUNT) return table[op];
    const at_op_def *d = at_op_ext_def(op);
    AT_ASSERT(d);
    return d;
}

at_status at_op_find(const char *name, at_op_kind *out)
{
    for (int op = 0; op < AT_OP_COUNT; op++)
        if (!strcmp(table[op]->name, name)) {
            *out = (at_op_kind)op;
            return AT_OK;
        }
    if (at_op_ext_find(name, out)) return AT_OK;
    at_strbuf sb;
    at_strbuf_init(&sb);
    for (int op = 0; op < AT_OP_COUNT; op++) {
        if (op) at_strbuf_puts(&sb, ", ");
        at_strbuf_puts(&sb, table[op]->name);
    }
    at_op_ext_list(&sb);
    at_status st = AT_FAIL(AT_ENOTFOUND, "no op kind '%s' (kinds: %s)", name, sb.failed ? "?" : at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
    return st;
}

const char *at_op_name(at_op_kind op)
{
    return at_op_def_of(op)->name;
}

at_status at_op_check_args(const at_args *a)
{
    return at_op_def_of(a->op)->check_args(a);
}

size_t at_op_tensors(const at_args *a, at_tensor_desc *out)
{
    size_t n = at_op_def_of(a->op)->tensors(a, out);
    AT_ASSERT(n >= 1 && n <= AT_OP_MAX_TENSORS);
    return n;
}

void at_op_args_write_json(const at_args *a, at_strbuf *sb)
{
    at_op_def_of(a->op)->write_json(a, sb);
}

at_status at_op_args_from_json(at_op_kind op, const cJSON *array, at_args *out)
{
    const at_op_def *d = at_op_def_of(op);
    if (!cJSON_IsArray(array)) return AT_FAIL(AT_EPARSE, "%s arguments: expected a JSON array", d->name);
    at_args a = {.op = op};
    AT_TRY(d->read_json(array, &a));
    AT_TRY(d->check_args(&a));
    *out = a;
    return AT_OK;
}

at_status at_op_args_parse(at_op_kind op, const char *text, at_args *out)
{
    const at_op_def *d = at_op_def_of(op);
    const char *p = text;
    while (*p == ' ') p++;
    if (*p == '[') {
        cJSON *j = NULL;
        AT_TRY(at_json_parse(text, strlen(text), &j));
        at_status st = at_op_args_from_json(op, j, out);
        at_json_free(j);
        return st;
    }
    at_args a = {.op = op};
    AT_TRY(d->parse_list(text, &a));
    AT_TRY(d->check_args(&a));
    *out = a;
    return AT_OK;
}

double at_op_flop(const at_args *a)
{
    return at_op_def_of(a->op)->flop(a);
}

void at_op_compute(const at_args *a, at_ir_sched *s)
{
    at_op_def_of(a->op)->compute(a, s);
}

void at_op_reference(const at_args *a, const void *const *inputs, void *const *outputs)
{
    at_op_def_of(a->op)->reference(a, inputs, outputs);
}

at_op_tolerance at_op_tolerance_of(const at_args *a)
{
    return at_op_def_of(a->op)->tolerance(a);
}
