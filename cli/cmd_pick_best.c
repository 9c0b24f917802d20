/* autotvm pick-best: TVM's `python -m tvm.autotvm.record --mode pick`; all the work is
 * at_rec_pick_best, this file only parses argv and prints the one-line summary. */
#include <stdio.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "records/pick.h"

static const char usage[] =
    "usage: autotvm pick-best IN [OUT] [--force]\n"
    "\n"
    "Keeps the best records of tuning log IN and writes them to OUT (default IN.best.log), as\n"
    "TVM's pick_best: failed measurements are ignored; for every (model, workload) and every\n"
    "(target key, workload) the record with the strictly lowest mean cost wins (the first one on\n"
    "ties). If OUT already exists its records are merged in after IN's. Each winner is written\n"
    "once, as its original line, in input order; OUT is replaced atomically. Comment lines are\n"
    "skipped; blank or malformed lines are skipped with a warning naming the file and line.\n"
    "OUT must not be IN (also through a link), must be a regular file, and is not replaced when it\n"
    "holds records that are not best ones (a tuning log: arguments swapped?) unless --force.\n"
    "\n"
    "options:\n"
    "  --force     replace OUT even when it holds records that are not best ones\n"
    "  -h, --help  show this help\n";

static size_t skipped(const at_rec_log_stats *s)
{
    return s->blank + s->malformed + s->old_version;
}

int at_cmd_pick_best(int argc, char **argv)
{
    const char *pos[2];
    size_t n_pos = 0;
    int force = 0;
    const at_cli_opt opts[] = {{"force", NULL, &force}};
    int rc = at_cli_parse(argc, argv, opts, 1, pos, 2, &n_pos, "pick-best");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos < 1) return at_cli_usage_error("pick-best", "missing the input log IN");

    at_strbuf out;
    at_strbuf_init(&out);
    if (n_pos == 2)
        at_strbuf_puts(&out, pos[1]);
    else
        at_strbuf_printf(&out, "%s.best.log", pos[0]);
    at_status st = at_strbuf_status(&out);
    at_rec_pick_stats stats;
    at_rec_pick_opts po = {.force = force != 0};
    if (st == AT_OK) st = at_rec_pick_best_opts(pos[0], out.data, &po, &stats);
    if (st != AT_OK) {
        at_strbuf_fini(&out);
        /* OUT = IN, OUT not a file, OUT a tuning log: the arguments are wrong */
        return st == AT_EINVAL ? at_cli_usage_error("pick-best", "%s", at_last_error()) : at_cli_fail(st);
    }
    printf("pick-best: read %zu records from %s (%zu lines skipped)", stats.in.records, pos[0], skipped(&stats.in));
    if (stats.old_out.lines)
        printf(" and %zu from the existing %s (%zu lines skipped)", stats.old_out.records, out.data,
               skipped(&stats.old_out));
    printf(", wrote %zu records to %s\n", stats.written, out.data);
    at_strbuf_fini(&out);
    return 0;
}
