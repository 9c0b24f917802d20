/* unit: the tuning report (report/report.h) of a hand-written log of two of vgg-16's dense
 * workloads, records interleaved as a scheduler writes them: the exact numbers of the page --
 * summary cells, runs and their allocation bars, chart polylines worked out by hand, error
 * shares, chosen config -- and the per-layer table against vgg-16's dense layers. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "records/log.h"
#include "report/report.h"

#define T "\"opencl -device=mali\""
/* vgg-16 at 3x32x32 with 10 classes: fc8 is [1, 4096] x [10, 4096] (81920 FLOPs), fc6 is
 * [1, 512] x [4096, 512] (4194304 FLOPs) */
#define FC8 "[[\"TENSOR\", [1, 4096], \"float32\"], [\"TENSOR\", [10, 4096], \"float32\"], null, \"float32\"]"
#define FC6 "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [4096, 512], \"float32\"], null, \"float32\"]"
#define CFG(i, u)                                                                                                 \
    "{\"index\": " #i ", \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [-1, 1, 1]], [\"tile_x\", \"sp\", " \
    "[-1, 1, 1]], [\"c_unroll\", \"sp\", [-1, " #u "]]]}"
#define REC(args, cfg, result) \
    "{\"input\": [" T ", \"dense.mali\", " args ", {}], \"config\": " cfg ", \"result\": " result ", \"version\": 0.2, \"tvm_version\": \"0.18.0\"}\n"

/* fc8: 1 GFLOPS, a runtime error, then 2 GFLOPS; fc6 in between: 1 then 2 GFLOPS */
static const char log_text[] =
    REC(FC8, CFG(2, 4), "[[8.192e-05], 0, 0.5, 1000.0]")
    REC(FC8, CFG(3, 8), "[[1000000000.0], 4, 0.5, 1002.0]")
    REC(FC6, CFG(4, 16), "[[0.004194304], 0, 0.5, 1004.0]")
    REC(FC6, CFG(5, 32), "[[0.002097152], 0, 0.5, 1006.0]")
    REC(FC8, CFG(6, 64), "[[4.096e-05, 4.096e-05], 0, 0.5, 1010.0]");

static char *page(const at_report_network *nw, at_report *keep)
{
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer("sched.log.tmp", log_text, strlen(log_text), &log));
    assert_int_equal(log->n, 5);
    at_report r;
    assert_ok(at_report_init(&r, log, nw));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_report_write_html(&r, &sb);
    assert_ok(at_strbuf_status(&sb));
    if (keep) *keep = r;
    else at_report_fini(&r);
    at_rec_log_free(log);
    return at_strbuf_take(&sb);
}

static void expect(const char *html, const char *needle)
{
    if (!strstr(html, needle)) print_error("missing: %s\n", needle);
    assert_non_null(strstr(html, needle));
}

static void report_should_summarize_tasks_runs_and_errors(void **state)
{
    (void)state;
    char *h = page(NULL, NULL);
    expect(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<title>autotvm report: sched.log.tmp</title>\n");
    expect(h, "<p>Log <code>sched.log.tmp</code>: 5 records, 2 tasks, 1 errors, 10.0 s from the first record to the "
              "last.</p>\n");
    /* task 0 (fc8): 3 trials, 1 error, best 0.04096 ms = 2 GFLOPS at trial 3; task 1 (fc6) */
    expect(h, "<td>3</td><td>1</td><td>0.0410</td><td>2.00</td><td>3</td></tr>\n");
    expect(h, "<td>2</td><td>0</td><td>2.0972</td><td>2.00</td><td>2</td></tr>\n");
    expect(h, "[[&quot;TENSOR&quot;, [1, 4096], &quot;float32&quot;], [&quot;TENSOR&quot;, [10, 4096]");
    /* three runs: 0 (records 1-2), 1 (3-4, 4 s in), 0 (5, 10 s in) */
    expect(h, "<p>3 runs of consecutive records of one task");
    expect(h, "<tr><td>1</td><td><a href=\"#task-0\">0</a></td><td>2</td><td>1-2</td><td>0.0</td></tr>\n"
              "<tr><td>2</td><td><a href=\"#task-1\">1</a></td><td>2</td><td>3-4</td><td>4.0</td></tr>\n"
              "<tr><td>3</td><td><a href=\"#task-0\">0</a></td><td>1</td><td>5-5</td><td>10.0</td></tr>\n");
    /* bars over 872 px for 5 records: 2/5, 2/5 and 1/5 of it */
    expect(h, "<rect x=\"72.0\" y=\"2\" width=\"348.8\" height=\"14\" fill=\"#4e79a7\"><title>run 1: task 0, 2 "
              "trials (records 1-2)</title></rect>");
    expect(h, "<rect x=\"420.8\" y=\"20\" width=\"348.8\" height=\"14\" fill=\"#f28e2b\">");
    expect(h, "<rect x=\"769.6\" y=\"2\" width=\"174.4\" height=\"14\" fill=\"#4e79a7\">");
    /* task 0's charts: x 0..3 trials over 400 px from 64, y 0..2 GFLOPS over 184 px up from 200 */
    expect(h, "<polyline class=\"best\" points=\"197.3,108.0 330.7,108.0 330.7,108.0 464.0,108.0 464.0,16.0\"/>");
    expect(h, "<circle class=\"trial\" cx=\"197.3\" cy=\"108.0\" r=\"2\"/><circle class=\"trial\" cx=\"464.0\" "
              "cy=\"16.0\" r=\"2\"/></svg>");
    /* against wall time: x 0..10 s (records at 0, 2 and 10 s) */
    expect(h, "<polyline class=\"best\" points=\"64.0,108.0 144.0,108.0 144.0,108.0 464.0,108.0 464.0,16.0\"/>");
    expect(h, "<text class=\"xt\" x=\"264.0\" y=\"216\">5</text>");
    expect(h, "<text class=\"yt\" x=\"58\" y=\"66.0\">1.5</text>");
    /* errors by MeasureErrorNo name, the chosen config */
    expect(h, "<tr><td>NO_ERROR</td><td>2</td><td>66.7 %</td></tr>\n<tr><td>RUNTIME_DEVICE</td><td>1</td><td>33.3 "
              "%</td></tr>\n");
    expect(h, "Target opencl -device=mali, 81920 FLOPs, 3 trials, 1 errors; best 0.0410 ms, 2.00 GFLOPS at trial 3.");
    expect(h, "<p>Chosen config: index 6 (log line 5)</p>\n<pre>{&quot;index&quot;: 6, &quot;code_hash&quot;: null, "
              "&quot;entity&quot;: [[&quot;tile_y&quot;, &quot;sp&quot;, [-1, 1, 1]], [&quot;tile_x&quot;, "
              "&quot;sp&quot;, [-1, 1, 1]], [&quot;c_unroll&quot;, &quot;sp&quot;, [-1, 64]]]}</pre>\n");
    expect(h, "4194304 FLOPs, 2 trials, 0 errors; best 2.0972 ms, 2.00 GFLOPS at trial 2.");
    /* self-contained: no scripts, no external resources */
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "http://www.w3.org/1999"));
    assert_null(strstr(h, "src="));
    assert_null(strstr(h, "href=\"http"));
    at_free(h);
}

static void report_should_table_the_networks_layers(void **state)
{
    (void)state;
    at_report_network nw = {.name = "vgg-16", .net = {.image_shape = {3, 32, 32}, .num_classes = 10},
                            .target = AT_NET_TARGET_MALI, .ops = AT_NET_OPS_DENSE};
    at_report r;
    char *h = page(&nw, &r);
    assert_int_equal(r.n_layers, 3); /* fc6, fc7, fc8 */
    assert_int_equal(r.layers[0].chosen, 1);
    assert_int_equal(r.layers[1].impls[0], SIZE_MAX); /* fc7's workload is not in the log */
    assert_int_equal(r.layers[2].chosen, 0);
    at_report_fini(&r);
    expect(h, "<h2>Network: vgg-16 on opencl -device=mali</h2>");
    char row[256];
    snprintf(row, sizeof row, "<td><a href=\"#task-0\">0</a> dense.mali</td><td>0</td><td>6</td><td>0.0410</td>"
                              "<td>2.00</td></tr>\n");
    expect(h, row);
    expect(h, "<td>not in the log</td><td>-</td><td>-</td><td>-</td><td>-</td></tr>\n");
    expect(h, "<td><a href=\"#task-1\">1</a> dense.mali</td><td>1</td><td>5</td><td>2.0972</td><td>2.00</td></tr>\n");
    expect(h, "Estimated network latency (the sum of the chosen latencies): - (1 of 3 layers have no successful "
              "record in the log)</p>");
    at_free(h);
}

static void empty_log_should_be_refused(void **state)
{
    (void)state;
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer("empty.log", "# nothing\n", 10, &log));
    at_report r;
    assert_int_equal(at_report_init(&r, log, NULL), AT_EINVAL);
    assert_string_equal(at_last_error(), "empty.log: no records to report");
    at_report_fini(&r);
    at_rec_log_free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_should_summarize_tasks_runs_and_errors),
        cmocka_unit_test(report_should_table_the_networks_layers),
        cmocka_unit_test(empty_log_should_be_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
