/* The report page: one HTML file with inline CSS and SVG, readable without scripts or network.
 * Every coordinate is computed here with fixed-width number formats, so a page is a pure function
 * of the log (and network): the same log gives the same bytes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "knobs/config.h"
#include "report/report.h"

/* chart geometry, px */
enum { CW = 480, CH = 240, CL = 64, CR = 16, CT = 16, CB = 40 };
/* allocation chart */
enum { AW = 960, AL = 72, AR = 16, ROW = 18 };

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define N_PALETTE (sizeof palette / sizeof palette[0])

static void esc(at_strbuf *sb, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': at_strbuf_puts(sb, "&amp;"); break;
        case '<': at_strbuf_puts(sb, "&lt;"); break;
        case '>': at_strbuf_puts(sb, "&gt;"); break;
        case '"': at_strbuf_puts(sb, "&quot;"); break;
        default: at_strbuf_putc(sb, *s);
        }
    }
}

/* A round axis step near span / 4: 1, 2 or 5 times a power of ten. */
static double nice_step(double span)
{
    if (!(span > 0)) return 1;
    double raw = span / 4, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* The axis end: the first multiple of the step at or above max (at least one step). */
static double axis_max(double max, double *step)
{
    *step = nice_step(max);
    double n = ceil(max / *step - 1e-9);
    return (n < 1 ? 1 : n) * *step;
}

typedef struct chart {
    double xmax, xstep, ymax, ystep;
} chart;

static double px(const chart *c, double x)
{
    return CL + x / c->xmax * (CW - CL - CR);
}

static double py(const chart *c, double y)
{
    return CT + (CH - CT - CB) - y / c->ymax * (CH - CT - CB);
}

static void chart_open(at_strbuf *sb, chart *c, double xmax, double ymax, const char *title, const char *xlabel)
{
    c->xmax = axis_max(xmax, &c->xstep);
    c->ymax = axis_max(ymax, &c->ystep);
    at_strbuf_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                         "role=\"img\"><title>",
                     CW, CH, CW, CH);
    esc(sb, title);
    at_strbuf_puts(sb, "</title>\n");
    for (int k = 0; k * c->ystep <= c->ymax * (1 + 1e-9); k++) {
        double y = py(c, k * c->ystep);
        at_strbuf_printf(sb, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                             "<text class=\"yt\" x=\"%d\" y=\"%.1f\">%g</text>\n",
                         CL, y, CW - CR, y, CL - 6, y + 4, k * c->ystep);
    }
    for (int k = 0; k * c->xstep <= c->xmax * (1 + 1e-9); k++) {
        double x = px(c, k * c->xstep);
        at_strbuf_printf(sb, "<text class=\"xt\" x=\"%.1f\" y=\"%d\">%g</text>\n", x, CH - CB + 16, k * c->xstep);
    }
    at_strbuf_printf(sb, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                         "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
                     CL, CT, CL, CH - CB, CL, CH - CB, CW - CR, CH - CB);
    at_strbuf_printf(sb, "<text class=\"xl\" x=\"%d\" y=\"%d\">", (CL + CW - CR) / 2, CH - 6);
    esc(sb, xlabel);
    at_strbuf_printf(sb, "</text><text class=\"yl\" transform=\"translate(14 %d) rotate(-90)\">GFLOPS</text>\n",
                     (CT + CH - CB) / 2);
}

/* Best-so-far GFLOPS of task t as a step line over x = trial number (by_time false) or seconds
 * since the log's first record, with a dot per successful trial. */
static void task_chart(at_strbuf *sb, const at_report *r, const at_report_task *t, bool by_time)
{
    double ymax = 0;
    for (size_t k = 0; k < t->n_recs; k++) {
        double g = at_report_gflops(t, &r->log->recs[t->recs[k]].result);
        if (g > ymax) ymax = g;
    }
    double xmax = by_time ? r->t1_s - r->t0_s : (double)t->n_recs;
    chart c;
    chart_open(sb, &c, xmax, ymax, by_time ? "best GFLOPS against wall time" : "best GFLOPS against trials",
               by_time ? "seconds since the log's first record" : "trial");
    at_strbuf_puts(sb, "<polyline class=\"best\" points=\"");
    double best = 0;
    for (size_t k = 0; k < t->n_recs; k++) {
        const at_result *res = &r->log->recs[t->recs[k]].result;
        double x = by_time ? res->timestamp - r->t0_s : (double)(k + 1);
        if (k) at_strbuf_printf(sb, " %.1f,%.1f", px(&c, x), py(&c, best));
        double g = at_report_gflops(t, res);
        if (g > best) best = g;
        at_strbuf_printf(sb, "%s%.1f,%.1f", k ? " " : "", px(&c, x), py(&c, best));
    }
    at_strbuf_puts(sb, "\"/>\n");
    for (size_t k = 0; k < t->n_recs; k++) {
        const at_result *res = &r->log->recs[t->recs[k]].result;
        double g = at_report_gflops(t, res);
        if (g <= 0) continue;
        double x = by_time ? res->timestamp - r->t0_s : (double)(k + 1);
        at_strbuf_printf(sb, "<circle class=\"trial\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>", px(&c, x), py(&c, g));
    }
    at_strbuf_puts(sb, "</svg>\n");
}

static void allocation(at_strbuf *sb, const at_report *r)
{
    size_t n = r->log->n;
    int h = (int)r->n_tasks * ROW + 44;
    double pw = AW - AL - AR;
    at_strbuf_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                         "role=\"img\"><title>trials per task in log order</title>\n",
                     AW, h, AW, h);
    for (size_t i = 0; i < r->n_tasks; i++)
        at_strbuf_printf(sb, "<text class=\"yt\" x=\"%d\" y=\"%zu\">task %zu</text>\n", AL - 6, i * ROW + 13, i);
    for (size_t k = 0; k < r->n_runs; k++) {
        const at_report_run *run = &r->runs[k];
        double x = AL + (double)run->first / (double)n * pw, w = (double)run->n / (double)n * pw;
        at_strbuf_printf(sb, "<rect x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>run %zu: task "
                             "%zu, %zu trials (records %zu-%zu)</title></rect>\n",
                         x, run->task * ROW + 2, w < 0.5 ? 0.5 : w, ROW - 4, palette[run->task % N_PALETTE], k + 1,
                         run->task, run->n, run->first + 1, run->first + run->n);
    }
    double step = nice_step((double)n);
    for (int k = 0; k * step <= (double)n; k++)
        at_strbuf_printf(sb, "<text class=\"xt\" x=\"%.1f\" y=\"%zu\">%g</text>\n", AL + k * step / (double)n * pw,
                         r->n_tasks * ROW + 16, k * step);
    at_strbuf_printf(sb, "<text class=\"xl\" x=\"%d\" y=\"%d\">record in the log</text></svg>\n", AL + (int)pw / 2,
                     h - 6);
}

static void fmt_ms(char *buf, size_t cap, const at_report_task *t)
{
    if (t->best == SIZE_MAX)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.4f", t->best_cost_s * 1e3);
}

static void fmt_gflops(char *buf, size_t cap, const at_report_task *t)
{
    if (t->best == SIZE_MAX || t->flop <= 0)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.2f", t->flop / t->best_cost_s / 1e9);
}

static size_t n_errors(const at_report_task *t)
{
    return t->n_recs - t->n_err[AT_MEAS_OK];
}

static void summary(at_strbuf *sb, const at_report *r)
{
    at_strbuf_puts(sb, "<h2>Tasks</h2>\n<table><tr><th>ID</th><th>Template</th><th>Workload</th><th>Trials</th>"
                       "<th>Errors</th><th>Best latency (ms)</th><th>Best GFLOPS</th><th>Best at trial</th></tr>\n");
    for (size_t i = 0; i < r->n_tasks; i++) {
        const at_report_task *t = &r->tasks[i];
        char ms[32], gf[32];
        fmt_ms(ms, sizeof ms, t);
        fmt_gflops(gf, sizeof gf, t);
        at_strbuf_printf(sb, "<tr><td><a href=\"#task-%zu\">%zu</a></td><td>", i, i);
        esc(sb, t->name);
        at_strbuf_puts(sb, "</td><td class=\"wl\">");
        esc(sb, t->args_json);
        at_strbuf_printf(sb, "</td><td>%zu</td><td>%zu</td><td>%s</td><td>%s</td><td>", t->n_recs, n_errors(t), ms, gf);
        if (t->best != SIZE_MAX) at_strbuf_printf(sb, "%zu", t->best_trial);
        at_strbuf_puts(sb, "</td></tr>\n");
    }
    at_strbuf_puts(sb, "</table>\n");
}

static void runs(at_strbuf *sb, const at_report *r)
{
    at_strbuf_printf(sb, "<h2>Trial allocation</h2>\n<p>%zu runs of consecutive records of one task (a scheduler's "
                         "rounds; back-to-back rounds of one task show as one run).</p>\n",
                     r->n_runs);
    allocation(sb, r);
    at_strbuf_puts(sb, "<table><tr><th>Run</th><th>Task</th><th>Trials</th><th>Records</th><th>Start (s)</th></tr>\n");
    for (size_t k = 0; k < r->n_runs; k++) {
        const at_report_run *run = &r->runs[k];
        at_strbuf_printf(sb, "<tr><td>%zu</td><td><a href=\"#task-%zu\">%zu</a></td><td>%zu</td><td>%zu-%zu</td>"
                             "<td>%.1f</td></tr>\n",
                         k + 1, run->task, run->task, run->n, run->first + 1, run->first + run->n, run->start_s);
    }
    at_strbuf_puts(sb, "</table>\n");
}

static void layers(at_strbuf *sb, const at_report *r)
{
    at_strbuf_puts(sb, "<h2>Network: ");
    esc(sb, r->network);
    at_strbuf_puts(sb, " on ");
    esc(sb, r->target_str);
    at_strbuf_puts(sb, "</h2>\n<table><tr><th>Node</th><th>Op</th><th>Implementations (task)</th><th>Chosen</th>"
                       "<th>Config</th><th>Latency (ms)</th><th>GFLOPS</th></tr>\n");
    double total = 0;
    size_t missing = 0;
    for (size_t i = 0; i < r->n_layers; i++) {
        const at_report_layer *l = &r->layers[i];
        at_strbuf_puts(sb, "<tr><td>");
        esc(sb, l->name);
        at_strbuf_puts(sb, "</td><td>");
        esc(sb, l->op);
        at_strbuf_puts(sb, "</td><td>");
        for (size_t j = 0; j < l->n_impls; j++) {
            if (j) at_strbuf_puts(sb, ", ");
            if (l->impls[j] == SIZE_MAX)
                at_strbuf_puts(sb, "not in the log");
            else
                at_strbuf_printf(sb, "<a href=\"#task-%zu\">%zu</a> ", l->impls[j], l->impls[j]);
            if (l->impls[j] != SIZE_MAX) esc(sb, r->tasks[l->impls[j]].name);
        }
        if (l->chosen == SIZE_MAX) {
            missing++;
            at_strbuf_puts(sb, "</td><td>-</td><td>-</td><td>-</td><td>-</td></tr>\n");
            continue;
        }
        const at_report_task *t = &r->tasks[l->chosen];
        char ms[32], gf[32];
        fmt_ms(ms, sizeof ms, t);
        fmt_gflops(gf, sizeof gf, t);
        total += t->best_cost_s;
        at_strbuf_printf(sb, "</td><td>%zu</td><td>%lld</td><td>%s</td><td>%s</td></tr>\n", l->chosen,
                         (long long)at_config_index(r->log->recs[t->best].config), ms, gf);
    }
    at_strbuf_printf(sb, "</table>\n<p>Estimated network latency (the sum of the chosen latencies): ");
    if (missing)
        at_strbuf_printf(sb, "- (%zu of %zu layers have no successful record in the log)</p>\n", missing, r->n_layers);
    else
        at_strbuf_printf(sb, "<b>%.4f ms</b> over %zu layers</p>\n", total * 1e3, r->n_layers);
}

static void task_section(at_strbuf *sb, const at_report *r, size_t i)
{
    const at_report_task *t = &r->tasks[i];
    at_strbuf_printf(sb, "<section id=\"task-%zu\">\n<h3>Task %zu: ", i, i);
    esc(sb, t->name);
    at_strbuf_puts(sb, "</h3>\n<p class=\"wl\">");
    esc(sb, t->args_json);
    at_strbuf_puts(sb, "</p>\n<p>Target ");
    esc(sb, t->target_str);
    char ms[32], gf[32];
    fmt_ms(ms, sizeof ms, t);
    fmt_gflops(gf, sizeof gf, t);
    if (t->flop > 0)
        at_strbuf_printf(sb, ", %.0f FLOPs", t->flop);
    else
        at_strbuf_puts(sb, ", FLOPs unknown (no such template here)");
    at_strbuf_printf(sb, ", %zu trials, %zu errors; best %s ms, %s GFLOPS", t->n_recs, n_errors(t), ms, gf);
    if (t->best != SIZE_MAX) at_strbuf_printf(sb, " at trial %zu", t->best_trial);
    at_strbuf_puts(sb, ".</p>\n<div class=\"charts\">\n");
    task_chart(sb, r, t, false);
    task_chart(sb, r, t, true);
    at_strbuf_puts(sb, "</div>\n<table class=\"errors\"><tr><th>Result</th><th>Trials</th><th>Share</th></tr>\n");
    for (int e = 0; e < AT_MEAS_ERR_COUNT; e++) {
        if (!t->n_err[e]) continue;
        at_strbuf_printf(sb, "<tr><td>%s</td><td>%zu</td><td>%.1f %%</td></tr>\n", at_meas_err_name((at_meas_err)e),
                         t->n_err[e], 100.0 * (double)t->n_err[e] / (double)t->n_recs);
    }
    at_strbuf_puts(sb, "</table>\n");
    if (t->best != SIZE_MAX) {
        const at_config *c = r->log->recs[t->best].config;
        at_strbuf_printf(sb, "<p>Chosen config: index %lld (log line %zu)</p>\n<pre>", (long long)at_config_index(c),
                         r->log->recs[t->best].line);
        at_strbuf s2;
        at_strbuf_init(&s2);
        at_config_write_json(c, &s2);
        esc(sb, at_strbuf_cstr(&s2));
        if (s2.failed) sb->failed = 1;
        at_strbuf_fini(&s2);
        at_strbuf_puts(sb, "</pre>\n");
    } else {
        at_strbuf_puts(sb, "<p>No successful trial: no config to choose.</p>\n");
    }
    at_strbuf_puts(sb, "</section>\n");
}

static const char style[] =
    "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0}"
    "th,td{border:1px solid #ccc;padding:2px 8px;text-align:right;font-size:13px}th{background:#f0f0f0}"
    "td.wl,p.wl{font-family:monospace;font-size:12px;text-align:left}pre{white-space:pre-wrap;word-break:break-all;"
    "background:#f7f7f7;padding:6px;font-size:12px}section{border-top:1px solid #ddd;margin-top:16px}"
    ".charts svg{margin-right:16px}svg text{font-size:11px;fill:#333}.yt{text-anchor:end}.xt,.xl,.yl{text-anchor:"
    "middle}.grid{stroke:#e4e4e4}.axis{stroke:#444}.best{fill:none;stroke:#d62728;stroke-width:2}"
    ".trial{fill:#1f77b4;fill-opacity:0.45}";

void at_report_write_html(const at_report *r, at_strbuf *sb)
{
    size_t errs = 0;
    for (size_t i = 0; i < r->n_tasks; i++) errs += n_errors(&r->tasks[i]);
    at_strbuf_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>autotvm report: ");
    esc(sb, r->log->name);
    at_strbuf_printf(sb, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Tuning report</h1>\n<p>Log <code>", style);
    esc(sb, r->log->name);
    at_strbuf_printf(sb, "</code>: %zu records, %zu tasks, %zu errors, %.1f s from the first record to the last.</p>\n",
                     r->log->n, r->n_tasks, errs, r->t1_s - r->t0_s);
    summary(sb, r);
    if (r->n_tasks > 1) runs(sb, r);
    if (r->network) layers(sb, r);
    at_strbuf_puts(sb, "<h2>Per task</h2>\n");
    for (size_t i = 0; i < r->n_tasks; i++) task_section(sb, r, i);
    at_strbuf_puts(sb, "</body>\n</html>\n");
}
