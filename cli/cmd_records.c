/* autotvm records show|split|check: reading tuning logs (TVM's `--mode read` and `--mode split`)
 * plus a validity check. One table maps the sub-subcommands to their functions and help. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/records_check.h"
#include "records/log.h"
#include "records/pick.h"

static void print_ints(const int64_t *v, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) printf("%s%" PRId64, i ? ", " : "", v[i]);
    putchar(']');
}

static void print_entity(const at_entity *e)
{
    printf("%s=", e->name);
    switch (e->kind) {
    case AT_KNOB_SPLIT:
    case AT_KNOB_REORDER:
    case AT_KNOB_ANNOTATE:
        if (e->anns) {
            putchar('[');
            for (size_t i = 0; i < e->n; i++) printf("%s%s", i ? ", " : "", e->anns[i]);
            putchar(']');
        } else {
            print_ints(e->ints, e->n);
        }
        return;
    case AT_KNOB_OTHER:
        switch (e->val.kind) {
        case AT_VAL_NULL: fputs("None", stdout); return;
        case AT_VAL_BOOL: fputs(e->val.b ? "True" : "False", stdout); return;
        case AT_VAL_INT: printf("%" PRId64, e->val.i); return;
        case AT_VAL_FLOAT: printf("%.17g", e->val.f); return;
        case AT_VAL_STR: printf("'%s'", e->val.s); return;
        }
        return;
    case AT_KNOB_COUNT: break;
    }
}

static void print_record(size_t index, const at_rec *r)
{
    printf("#%zu  line %zu  %s\n", index, r->line, r->target_str);
    printf("    task      %s\n", r->task_name);
    printf("    workload  %s\n", r->args_json);
    printf("    config    %" PRId64 ":", at_config_index(r->config));
    for (size_t i = 0; i < at_config_len(r->config); i++) {
        putchar(' ');
        print_entity(at_config_at(r->config, i));
    }
    putchar('\n');
    if (r->result.err == AT_MEAS_OK)
        printf("    cost      %.6g ms (mean of %zu), all_cost %.3g s\n", at_rec_cost(r) * 1e3, r->result.n_costs,
               r->result.all_cost_s);
    else
        printf("    error     %s (%d), all_cost %.3g s\n", at_meas_err_name(r->result.err), (int)r->result.err,
               r->result.all_cost_s);
}

static const char show_usage[] =
    "usage: autotvm records show LOG [--begin N] [--end M]\n"
    "\n"
    "Prints the records of tuning log LOG readably: record index (0-based, as TVM's --mode read\n"
    "counts), line, target, task, workload (task args), config index and knob values, and the\n"
    "mean cost or the error. --begin/--end select records N <= index < M (default: all).\n"
    "Bad lines are skipped with a warning naming the file and line.\n";

static int cmd_show(int argc, char **argv)
{
    const char *begin_s = NULL, *end_s = NULL, *pos[1];
    size_t n_pos;
    const at_cli_opt opts[] = {{"begin", &begin_s, NULL}, {"end", &end_s, NULL}};
    int rc = at_cli_parse(argc, argv, opts, 2, pos, 1, &n_pos, "records show");
    if (rc == AT_CLI_HELP) {
        fputs(show_usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("records show", "missing the log file LOG");
    long begin = 0, end = -1;
    if (begin_s && (rc = at_cli_parse_long("records show", "begin", begin_s, &begin)) != 0) return rc;
    if (end_s && (rc = at_cli_parse_long("records show", "end", end_s, &end)) != 0) return rc;
    at_rec_log *log;
    at_status st = at_rec_log_load_file(pos[0], &log);
    if (st != AT_OK) return at_cli_fail(st);
    for (size_t i = (size_t)begin; i < log->n && (end < 0 || i < (size_t)end); i++) {
        if (i > (size_t)begin) putchar('\n');
        print_record(i, &log->recs[i]);
    }
    at_rec_log_free(log);
    return 0;
}

static const char split_usage[] =
    "usage: autotvm records split LOG\n"
    "\n"
    "Splits tuning log LOG into one file per workload (target, task, args), LOG.000.wkl,\n"
    "LOG.001.wkl, ... in order of first appearance, as TVM's --mode split: within a workload a\n"
    "record whose config was already written is dropped. Lines are copied as read.\n";

static int cmd_split(int argc, char **argv)
{
    const char *pos[1];
    size_t n_pos;
    int rc = at_cli_parse(argc, argv, NULL, 0, pos, 1, &n_pos, "records split");
    if (rc == AT_CLI_HELP) {
        fputs(split_usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("records split", "missing the log file LOG");
    at_rec_split_stats s;
    at_status st = at_rec_split(pos[0], &s);
    if (st != AT_OK) return at_cli_fail(st);
    printf("split: %zu records of %s into %zu workload files %s.NNN.wkl (%zu duplicates dropped)\n", s.written,
           pos[0], s.files, pos[0], s.duplicates);
    return 0;
}

static const char check_usage[] =
    "usage: autotvm records check LOG\n"
    "\n"
    "Reads tuning log LOG and prints how many lines are records, comments, blank, malformed or\n"
    "old-format (v0.1) rows, with a warning for each bad line. Then maps every record whose\n"
    "template this build knows onto its config space (rebuilt from the record's workload): each\n"
    "knob value must exist and the entities must give the record's index. Prints\n"
    "'N/M records valid' and lists the failures. Exits 1 when a line is bad or a record invalid.\n";

static int cmd_check(int argc, char **argv)
{
    const char *pos[1];
    size_t n_pos;
    int rc = at_cli_parse(argc, argv, NULL, 0, pos, 1, &n_pos, "records check");
    if (rc == AT_CLI_HELP) {
        fputs(check_usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("records check", "missing the log file LOG");
    /* read once: the input may be a pipe, and its warnings are printed once */
    at_rec_log *log;
    at_status st = at_rec_log_load_file(pos[0], &log);
    if (st != AT_OK) return at_cli_fail(st);
    at_rec_log_stats s = log->stats;
    printf("%s: %zu lines: %zu records, %zu comments, %zu blank, %zu malformed, %zu v0.1 rows\n", pos[0], s.lines,
           s.records, s.comments, s.blank, s.malformed, s.old_version);
    int space_rc = at_cli_records_check_log(log);
    at_rec_log_free(log);
    if (s.blank + s.malformed) {
        fprintf(stderr, "autotvm: error: %s has %zu blank or malformed lines\n", pos[0], s.blank + s.malformed);
        return 1;
    }
    return space_rc;
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subs[] = {
    {"show", cmd_show, "print records readably (--begin N --end M)"},
    {"split", cmd_split, "one file per workload, duplicates dropped (LOG.NNN.wkl)"},
    {"check", cmd_check, "count records and bad lines; exit 1 if any line is bad"},
};

static void records_usage(FILE *f)
{
    fprintf(f, "usage: autotvm records <show|split|check> LOG [options]   (autotvm records <cmd> --help)\n\n");
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) fprintf(f, "  %-6s %s\n", subs[i].name, subs[i].summary);
}

int at_cmd_records(int argc, char **argv)
{
    if (argc < 2) {
        records_usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        records_usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (!strcmp(argv[1], subs[i].name)) return subs[i].run(argc - 1, argv + 1);
    fprintf(stderr, "autotvm records: error: unknown subcommand '%s'\n", argv[1]);
    records_usage(stderr);
    return 2;
}
