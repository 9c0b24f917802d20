/* autotvm space: a task's config space as TVM defines it — the knobs in order with every candidate
 * entity, the space size, and with --index the entity a flat index decodes to (mixed radix, the
 * first knob the fastest digit), in the JSON form TVM logs it. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/strbuf.h"
#include "templates/template.h"

static const char usage[] =
    "usage: autotvm space TEMPLATE --args ARGS [--index N] [--target T]\n"
    "\n"
    "Lists the task's knobs in definition order, each with its kind (sp split, re reorder, an\n"
    "annotate, ot other) and all its candidate entities in TVM's enumeration order, then the space\n"
    "size. With --index N it prints what index N decodes to: each knob's entity position and the\n"
    "config as a log line's \"config\" field holds it.\n"
    "\n"
    "  TEMPLATE        a registered template, e.g. conv2d_nchw_spatial_pack.mali\n"
    "  --args ARGS     the task's arguments (as for autotvm measure)\n"
    "  --index N       a flat config index to decode\n"
    "  --target T      opencl (default), mali, arm_cpu, llvm, or a TVM target string\n"
    "  -h, --help      show this help\n";

/* One entity's value as TVM's JSON writes it: [..] for sp/re/an, the scalar for ot. */
static void entity_value(const at_entity *e, at_strbuf *sb)
{
    if (e->kind == AT_KNOB_OTHER) {
        switch (e->val.kind) {
        case AT_VAL_NULL: at_strbuf_puts(sb, "null"); return;
        case AT_VAL_BOOL: at_strbuf_puts(sb, e->val.b ? "true" : "false"); return;
        case AT_VAL_INT: at_strbuf_printf(sb, "%lld", (long long)e->val.i); return;
        case AT_VAL_FLOAT: at_strbuf_printf(sb, "%.17g", e->val.f); return;
        case AT_VAL_STR: at_strbuf_printf(sb, "\"%s\"", e->val.s); return;
        default: at_strbuf_puts(sb, "?"); return;
        }
    }
    at_strbuf_putc(sb, '[');
    for (size_t i = 0; i < e->n; i++) {
        if (i) at_strbuf_puts(sb, ", ");
        if (e->anns)
            at_strbuf_printf(sb, "\"%s\"", e->anns[i]);
        else
            at_strbuf_printf(sb, "%lld", (long long)e->ints[i]);
    }
    at_strbuf_putc(sb, ']');
}

static at_status print_space(const at_task *task, long index, bool decode)
{
    const at_space *sp = at_task_space(task);
    size_t n = at_space_n_knobs(sp);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_printf(&sb, "%s ", at_task_template(task)->name);
    at_task_write_workload(task, &sb);
    at_strbuf_printf(&sb, "\n%zu knobs; index = mixed-radix number over them, the first knob the fastest digit\n", n);
    for (size_t k = 0; k < n; k++) {
        int64_t dim = at_space_dim(sp, k);
        at_strbuf_printf(&sb, "  %-14s %s %5lld:", at_space_knob_name(sp, k), at_knob_tag(at_space_knob_kind(sp, k)),
                         (long long)dim);
        for (int64_t i = 0; i < dim; i++) {
            at_strbuf_putc(&sb, ' ');
            entity_value(at_space_entity(sp, k, i), &sb);
        }
        at_strbuf_putc(&sb, '\n');
    }
    at_strbuf_printf(&sb, "space: %lld configs (index range %lld)\n", (long long)at_space_len(sp),
                     (long long)at_space_range_len(sp));
    at_status st = at_strbuf_status(&sb);
    if (st == AT_OK && decode) {
        at_config *cfg = NULL;
        st = at_task_config(task, index, &cfg);
        if (st != AT_OK) {
            st = AT_FAIL_WRAP(st, "index %ld of %s (the space has %lld)", index, at_task_template(task)->name,
                              (long long)at_space_range_len(sp));
        } else {
            int64_t pos[64];
            at_strbuf_printf(&sb, "index %ld:", index);
            if (n <= 64) {
                at_space_point_to_knobs(sp, index, pos);
                for (size_t k = 0; k < n; k++) at_strbuf_printf(&sb, " %s #%lld", at_space_knob_name(sp, k), (long long)pos[k]);
            }
            at_strbuf_putc(&sb, '\n');
            at_config_write_json(cfg, &sb);
            at_strbuf_putc(&sb, '\n');
            at_config_free(cfg);
            st = at_strbuf_status(&sb);
        }
    }
    if (st == AT_OK) fputs(at_strbuf_cstr(&sb), stdout);
    at_strbuf_fini(&sb);
    return st;
}

int at_cmd_space(int argc, char **argv)
{
    const char *args = NULL, *index_text = NULL, *target = "opencl";
    const at_cli_opt opts[] = {{"args", &args, NULL}, {"index", &index_text, NULL}, {"target", &target, NULL}};
    const char *pos[1];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 1, &n_pos, "space");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("space", "missing the TEMPLATE");
    if (!args) return at_cli_usage_error("space", "missing --args");
    long index = -1;
    if (index_text && (rc = at_cli_parse_long("space", "index", index_text, &index))) return rc;
    int on_cpu = 0;
    const char *tstr = NULL, *cpu = NULL;
    char cpu_buf[128];
    if ((rc = at_cli_task_target("space", target, &on_cpu, &tstr, cpu_buf, sizeof cpu_buf, &cpu))) return rc;
    at_task *task = NULL;
    at_status st = at_task_create(pos[0], on_cpu ? AT_TARGET_LLVM : AT_TARGET_OPENCL, args, &task);
    if (st == AT_OK) st = print_space(task, index, index_text != NULL);
    at_task_free(task);
    return st == AT_OK ? 0 : at_cli_fail(st);
}
