/* Tasks: a template with its arguments and the space define_space built once; instantiation
 * schedules one config into an arena and verifies the result, so a bad config is caught before
 * any backend sees it. */
#include <string.h>

#include "core/alloc.h"
#include "templates/template.h"

struct at_task {
    const at_template *tmpl;
    at_args            args;
    at_space          *space;
};

const char *at_target_family_name(at_target_family t)
{
    static const char *const names[AT_TARGET_FAMILY_COUNT] = {
        [AT_TARGET_OPENCL] = "opencl", [AT_TARGET_LLVM] = "llvm", [AT_TARGET_VTA] = "vta"};
    AT_ASSERT((unsigned)t < AT_TARGET_FAMILY_COUNT);
    return names[t];
}

at_status at_task_new(const at_template *t, const at_args *args, at_task **out)
{
    *out = NULL;
    if (args->op != t->op)
        return AT_FAIL(AT_EINVAL, "template %s takes %s arguments, not %s", t->name, at_op_name(t->op), at_op_name(args->op));
    AT_TRY(at_op_check_args(args));
    at_task *task = at_calloc(1, sizeof *task);
    if (!task) return AT_OOM();
    task->tmpl = t;
    task->args = *args;
    at_status st = at_space_new(&task->space);
    if (st == AT_OK) {
        st = t->define_space(args, task->space);
        if (st != AT_OK) st = AT_FAIL_WRAP(st, "template %s: defining the space", t->name);
    }
    if (st == AT_OK && at_space_n_knobs(task->space) != t->n_knobs &&
        !(t->knobs_conditional && at_space_n_knobs(task->space) == 0))
        st = AT_FAIL(AT_EINVAL, "template %s defined %zu knobs, declares %zu", t->name, at_space_n_knobs(task->space),
                     t->n_knobs);
    if (st != AT_OK) {
        at_task_free(task);
        return st;
    }
    *out = task;
    return AT_OK;
}

at_status at_task_create(const char *name, at_target_family target, const char *args_text, at_task **out)
{
    *out = NULL;
    const at_template *t = at_tmpl_find(name, target);
    if (!t) return AT_FAIL(AT_ENOTFOUND, "no template '%s' for target %s", name, at_target_family_name(target));
    at_args args;
    at_status st = at_op_args_parse(t->op, args_text, &args);
    if (st != AT_OK) return AT_FAIL_WRAP(st, "template %s", name);
    return at_task_new(t, &args, out);
}

void at_task_free(at_task *t)
{
    if (!t) return;
    at_space_free(t->space);
    at_free(t);
}

const at_template *at_task_template(const at_task *t)
{
    return t->tmpl;
}

const at_args *at_task_args(const at_task *t)
{
    return &t->args;
}

const at_space *at_task_space(const at_task *t)
{
    return t->space;
}

double at_task_flop(const at_task *t)
{
    return t->tmpl->flop ? t->tmpl->flop(&t->args) : at_op_flop(&t->args);
}

void at_task_write_workload(const at_task *t, at_strbuf *sb)
{
    at_strbuf_putc(sb, '[');
    at_json_write_string(sb, t->tmpl->name);
    at_strbuf_puts(sb, ", ");
    at_op_args_write_json(&t->args, sb);
    at_strbuf_putc(sb, ']');
}

at_status at_task_config(const at_task *t, int64_t index, at_config **out)
{
    return at_space_get(t->space, index, out);
}

/* The program's parameters must be the op's signature (then an epilogue's): a template bug
 * otherwise. */
static void check_signature(const at_task *t, const at_ir_program *p, bool fused)
{
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    size_t n = at_op_tensors(&t->args, d);
    AT_ASSERT(fused ? at_ir_program_n_params(p) >= n : at_ir_program_n_params(p) == n);
    for (size_t i = 0; i < n; i++) {
        AT_ASSERT(at_ir_type_eq(p->bufs[i]->elem, d[i].dtype));
        AT_ASSERT(p->bufs[i]->size == d[i].n_elems);
        AT_ASSERT((p->bufs[i]->role == AT_IR_OUTPUT) == d[i].is_output);
    }
}

static at_status instantiate(const at_task *t, const at_config *c, const at_ir_epilogue *epi, bool packed,
                             at_arena *arena, const at_ir_program **out)
{
    *out = NULL;
    at_ir_sched *s = at_ir_sched_begin(arena, t->tmpl->name);
    if (!s) return AT_OOM();
    if (epi) at_ir_sched_set_epilogue(s, epi);
    /* templates read knobs by position; a log's config naming them in another order applies by
     * name, as in TVM */
    at_config *ordered = NULL;
    AT_TRY(at_space_config_in_space_order(t->space, c, &ordered));
    at_status st = (packed ? t->tmpl->schedule_packed : t->tmpl->schedule)(&t->args, ordered ? ordered : c, s);
    at_config_free(ordered);
    if (st != AT_OK) return st;
    const at_ir_program *p;
    AT_TRY(at_ir_sched_finish(s, &p));
    check_signature(t, p, epi != NULL);
    AT_TRY(at_ir_verify(p));
    *out = p;
    return AT_OK;
}

at_status at_task_instantiate(const at_task *t, const at_config *c, at_arena *arena, const at_ir_program **out)
{
    return instantiate(t, c, NULL, false, arena, out);
}

at_status at_task_instantiate_fused(const at_task *t, const at_config *c, const at_ir_epilogue *epi, at_arena *arena,
                                    const at_ir_program **out)
{
    return instantiate(t, c, epi, false, arena, out);
}

at_status at_task_instantiate_packed(const at_task *t, const at_config *c, const at_ir_epilogue *epi, at_arena *arena,
                                     const at_ir_program **out)
{
    if (!t->tmpl->schedule_packed) return AT_FAIL(AT_EINVAL, "%s: no NCHW[x]c form", t->tmpl->name);
    return instantiate(t, c, epi, true, arena, out);
}
