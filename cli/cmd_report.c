/* autotvm report LOG --html FILE [--network NET --target T ...]: the tuning report page of
 * report/report.h, written atomically. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/strbuf.h"
#include "records/log.h"
#include "report/report.h"

static const char usage[] =
    "usage: autotvm report LOG --html FILE [--network NET --target T [options]]\n"
    "\n"
    "Writes one self-contained HTML page (inline SVG, no scripts, no external resources) about a\n"
    "tuning log: per task (template + workload) the best-so-far GFLOPS against the trial number\n"
    "and against wall time, the errors by MeasureErrorNo name and the chosen config; for a log of\n"
    "several tasks the allocation of trials (runs of consecutive records of one task: the rounds of\n"
    "tune --total-trials); with --network, the per-layer table (each layer's fastest\n"
    "implementation in the log and its latency). Read FILE.tmp of a tuning run (tune --keep-tmp)\n"
    "for every trial; the picked FILE holds the best record per workload only.\n"
    "\n"
    "  --html FILE               the page to write (required)\n"
    "  --network NET             a network whose layers to tabulate (as autotvm tasks NET)\n"
    "  --target T                its target: mali, opencl, arm_cpu or a TVM target string\n"
    "  --ops LIST                conv2d,dense (default: all)\n"
    "  --batch N                 batch size (default 1)\n"
    "  --image-shape C,H,W       input image shape (default 3,224,224)\n"
    "  --num-classes N           classifier width (default 1000)\n"
    "  -h, --help                show this help\n";

int at_cmd_report(int argc, char **argv)
{
    const char *html = NULL, *network = NULL, *target = NULL, *ops = NULL, *batch = NULL, *shape = NULL,
               *classes = NULL;
    const at_cli_opt opts[] = {
        {"html", &html, NULL},       {"network", &network, NULL}, {"target", &target, NULL},
        {"ops", &ops, NULL},         {"batch", &batch, NULL},     {"image-shape", &shape, NULL},
        {"num-classes", &classes, NULL},
    };
    const char *pos[1];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 1, &n_pos, "report");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("report", "missing the LOG");
    if (!html) return at_cli_usage_error("report", "missing --html FILE");
    if (!network && (target || ops || batch || shape || classes))
        return at_cli_usage_error("report", "--target, --ops, --batch, --image-shape and --num-classes need --network");
    if (network && !target) return at_cli_usage_error("report", "--network needs --target");
    at_report_network nw = {.name = network};
    long v;
    if (batch) {
        if ((rc = at_cli_parse_long("report", "batch", batch, &v))) return rc;
        if (v < 1) return at_cli_usage_error("report", "--batch must be >= 1");
        nw.net.batch = v;
    }
    if (classes) {
        if ((rc = at_cli_parse_long("report", "num-classes", classes, &v))) return rc;
        if (v < 1) return at_cli_usage_error("report", "--num-classes must be >= 1");
        nw.net.num_classes = v;
    }
    if (shape && (rc = at_cli_parse_image_shape("report", shape, nw.net.image_shape))) return rc;
    if (network) {
        at_status st = at_net_target_parse(target, &nw.target);
        if (st == AT_OK && ops) st = at_net_ops_parse(ops, &nw.ops);
        if (st == AT_ENOMEM) return at_cli_fail(st);
        if (st != AT_OK) return at_cli_usage_error("report", "%s", at_last_error());
    }
    at_rec_log *log = NULL;
    at_status st = at_rec_log_load_file(pos[0], &log);
    if (st != AT_OK) return at_cli_fail(st);
    at_report r;
    st = at_report_init(&r, log, network ? &nw : NULL);
    if (st != AT_OK) {
        at_rec_log_free(log);
        return at_cli_fail(st);
    }
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_report_write_html(&r, &sb);
    st = at_strbuf_status(&sb);
    if (st == AT_OK) st = at_rec_write_file_atomic(html, sb.data, sb.len);
    if (st == AT_OK)
        fprintf(stderr, "autotvm: report: %zu records, %zu tasks%s%s -> %s\n", log->n, r.n_tasks,
                network ? ", layers of " : "", network ? network : "", html);
    at_strbuf_fini(&sb);
    at_report_fini(&r);
    at_rec_log_free(log);
    return st == AT_OK ? 0 : at_cli_fail(st);
}
