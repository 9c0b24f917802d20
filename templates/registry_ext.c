/* The run-time extension of the op-kind table (ops.c) and the template registry (registry.c):
 * what plugins register. The static tables stay the first and only lookup of a build without
 * plugins; these arrays are consulted only on a miss, so built-in lookups cost the same. */
#include <string.h>

#include "core/alloc.h"
#include "templates/internal.h"
#include "templates/plugin.h"

static const at_op_def  **ext_ops;
static size_t             n_ext_ops;
static const at_template **ext_tmpls;
static size_t              n_ext_tmpls;

const at_op_def *at_op_ext_def(at_op_kind op)
{
    size_t i = (size_t)op - AT_OP_COUNT;
    return (unsigned)op >= AT_OP_COUNT && i < n_ext_ops ? ext_ops[i] : NULL;
}

bool at_op_ext_find(const char *name, at_op_kind *out)
{
    for (size_t i = 0; i < n_ext_ops; i++)
        if (!strcmp(ext_ops[i]->name, name)) {
            *out = (at_op_kind)(AT_OP_COUNT + i);
            return true;
        }
    return false;
}

void at_op_ext_list(at_strbuf *sb)
{
    for (size_t i = 0; i < n_ext_ops; i++) at_strbuf_printf(sb, ", %s", ext_ops[i]->name);
}

size_t at_op_ext_count(void)
{
    return n_ext_ops;
}

at_status at_op_register(const at_op_def *d, at_op_kind *kind)
{
    if (!d || !d->name || !d->name[0]) return AT_FAIL(AT_EINVAL, "op kind: no name");
    if (!d->check_args || !d->tensors || !d->write_json || !d->read_json || !d->parse_list || !d->comma_form ||
        !d->flop || !d->compute || !d->reference || !d->tolerance)
        return AT_FAIL(AT_EINVAL, "op kind %s: every at_op_def member but tiny and typical is required", d->name);
    at_op_kind k;
    if (at_op_find(d->name, &k) == AT_OK) return AT_FAIL(AT_EINVAL, "op kind %s is already defined", d->name);
    at_clear_error(); /* at_op_find's "no op kind" is the expected answer */
    const at_op_def **ops = at_realloc(ext_ops, (n_ext_ops + 1) * sizeof *ops);
    if (!ops) return AT_OOM();
    ext_ops = ops;
    ext_ops[n_ext_ops] = d;
    *kind = (at_op_kind)(AT_OP_COUNT + n_ext_ops++);
    return AT_OK;
}

size_t at_tmpl_ext_count(void)
{
    return n_ext_tmpls;
}

const at_template *at_tmpl_ext_at(size_t i)
{
    AT_ASSERT(i < n_ext_tmpls);
    return ext_tmpls[i];
}

const at_template *at_tmpl_ext_find(const char *name, at_target_family target)
{
    for (size_t i = 0; i < n_ext_tmpls; i++)
        if (ext_tmpls[i]->target == target && !strcmp(ext_tmpls[i]->name, name)) return ext_tmpls[i];
    return NULL;
}

at_status at_tmpl_register(const at_template *t)
{
    if (!t || !t->name || !t->name[0]) return AT_FAIL(AT_EINVAL, "template: no name");
    if ((unsigned)t->target >= AT_TARGET_FAMILY_COUNT)
        return AT_FAIL(AT_EINVAL, "template %s: target %d is not opencl, llvm or vta", t->name, (int)t->target);
    if ((unsigned)t->op >= AT_OP_COUNT && !at_op_ext_def(t->op))
        return AT_FAIL(AT_EINVAL, "template %s: op kind %d is not registered", t->name, (int)t->op);
    if (!t->define_space || !t->schedule)
        return AT_FAIL(AT_EINVAL, "template %s: define_space and schedule are required", t->name);
    if (at_tmpl_find(t->name, t->target))
        return AT_FAIL(AT_EINVAL, "template %s for %s is already registered", t->name,
                       at_target_family_name(t->target));
    const at_template **ts = at_realloc(ext_tmpls, (n_ext_tmpls + 1) * sizeof *ts);
    if (!ts) return AT_OOM();
    ext_tmpls = ts;
    ext_tmpls[n_ext_tmpls++] = t;
    return AT_OK;
}
