/* Record lines: byte-exact round trip of every TopHub record, the golden lines, TVM's writer
 * rules (failed costs, int all_cost), lenient loading with file:line warnings, the appender. */
#include "tests/support/test_support.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"
#include "records/log.h"
#include "records/record.h"

/* ---- a log sink that keeps the messages ---- */

enum { MAX_MSGS = 128 };
static char captured[MAX_MSGS][512];
static size_t n_captured, n_dropped;

static void capture_sink(at_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    if (n_captured < MAX_MSGS)
        snprintf(captured[n_captured++], sizeof captured[0], "%s", msg);
    else
        n_dropped++;
}

static void capture_start(void)
{
    n_captured = n_dropped = 0;
    at_log_set_sink(capture_sink, NULL);
}

static void capture_stop(void)
{
    at_log_set_sink(NULL, NULL);
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle)) {
        print_error("'%s' does not contain '%s'\n", hay, needle);
        fail();
    }
}

static char *line_of(const at_rec *r)
{
    char *s = at_rec_to_line(r);
    assert_non_null(s);
    size_t n = strlen(s);
    assert_true(n > 0 && s[n - 1] == '\n');
    s[n - 1] = '\0';
    return s;
}

/* Every record line of a pack re-encodes to itself. */
static void check_round_trip(const char *rel, size_t want_records, size_t want_comments)
{
    at_rec_log *log;
    capture_start();
    assert_ok(at_rec_log_load_file(at_test_shared_path(rel), &log));
    capture_stop();
    assert_int_equal(n_captured, 0);
    assert_int_equal(log->n, want_records);
    assert_int_equal(log->stats.records, want_records);
    assert_int_equal(log->stats.comments, want_comments);
    assert_int_equal(log->stats.malformed + log->stats.blank + log->stats.old_version, 0);
    assert_int_equal(log->stats.lines, want_records + want_comments);

    size_t len;
    char *raw = at_test_read_file(at_test_shared_path(rel), &len);
    assert_non_null(raw);
    size_t checked = 0, line_no = 0;
    for (char *p = raw, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        assert_non_null(nl);
        *nl = '\0';
        line_no++;
        if (*p == '#') continue;
        const at_rec *r = &log->recs[checked++];
        assert_int_equal(r->line, line_no);
        assert_string_equal(r->text, p);
        char *again = line_of(r);
        if (strcmp(again, p)) {
            print_error("%s:%zu differs after parse+write:\n  %s\n  %s\n", rel, line_no, p, again);
            fail();
        }
        at_free(again);
    }
    assert_int_equal(checked, want_records);
    at_free(raw);
    at_rec_log_free(log);
}

static void every_mali_pack_record_should_round_trip_byte_for_byte(void **state)
{
    (void)state;
    check_round_trip("data/tophub/mali_v0.06.log", 528, 2);
}

static void every_vta_pack_record_should_round_trip_byte_for_byte(void **state)
{
    (void)state;
    check_round_trip("data/tophub/vta_v0.10.log", 106, 14);
}

/* Golden files: "# source: tophub/<file> line <n> (...)" then the line; both are checked. */
static void check_golden(const char *golden_rel, const char *pack, size_t want)
{
    size_t glen, plen;
    char *golden = at_test_read_file(at_test_source_path(golden_rel), &glen);
    assert_non_null(golden);
    char pack_rel[128];
    snprintf(pack_rel, sizeof pack_rel, "data/tophub/%s", pack);
    char *packtext = at_test_read_file(at_test_shared_path(pack_rel), &plen);
    assert_non_null(packtext);
    char *pack_lines[1024];
    size_t n_pack = 0;
    for (char *p = packtext, *nl; *p && n_pack < 1024; p = nl + 1) {
        nl = strchr(p, '\n');
        *nl = '\0';
        pack_lines[n_pack++] = p;
    }
    char prefix[128];
    snprintf(prefix, sizeof prefix, "# source: tophub/%s line ", pack);
    size_t found = 0;
    long src_line = -1;
    for (char *p = golden, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        assert_non_null(nl);
        *nl = '\0';
        if (!strncmp(p, prefix, strlen(prefix))) {
            src_line = strtol(p + strlen(prefix), NULL, 10);
            continue;
        }
        if (*p == '#') continue;
        assert_true(src_line >= 1 && (size_t)src_line <= n_pack);
        assert_string_equal(p, pack_lines[src_line - 1]);
        at_rec r;
        assert_ok(at_rec_parse_line(p, strlen(p), &r));
        char *again = line_of(&r);
        assert_string_equal(again, p);
        at_free(again);
        at_rec_fini(&r);
        src_line = -1;
        found++;
    }
    assert_int_equal(found, want);
    at_free(golden);
    at_free(packtext);
}

static void golden_lines_should_match_their_sources_and_round_trip(void **state)
{
    (void)state;
    check_golden("tests/golden/records/tophub_mali_v0.06.log", "mali_v0.06.log", 5);
    check_golden("tests/golden/records/tophub_vta_v0.10.log", "vta_v0.10.log", 15);
}

static const char vta_line17[] =
    "{\"input\": [\"ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17\", \"conv2d_packed.vta\", "
    "[[\"TENSOR\", [1, 32, 7, 7, 1, 16], \"int8\"], [\"TENSOR\", [32, 32, 3, 3, 16, 16], \"int8\"], [1, 1], [1, 1, 1, "
    "1], [1, 1], \"NCHW1n16c\", \"int32\"], {}], \"config\": {\"index\": 243, \"code_hash\": null, \"entity\": "
    "[[\"tile_b\", \"sp\", [1, 1]], [\"tile_h\", \"sp\", [1, 7]], [\"tile_w\", \"sp\", [1, 7]], [\"tile_ci\", \"sp\", "
    "[32, 1]], [\"tile_co\", \"sp\", [2, 16]], [\"oc_nthread\", \"ot\", 2], [\"h_nthread\", \"ot\", 1]]}, \"result\": "
    "[[0.0073480856], 0, 8.748790264129639, 1562808382.7584333], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}";

static void parsed_record_should_expose_every_field(void **state)
{
    (void)state;
    size_t len;
    char *raw = at_test_read_file(at_test_shared_path("data/tophub/vta_v0.10.log"), &len);
    assert_non_null(raw);
    /* the constant above is line 17 of the pack */
    char *p = raw;
    for (int i = 1; i < 17; i++) p = strchr(p, '\n') + 1;
    assert_int_equal(strncmp(p, vta_line17, strlen(vta_line17)), 0);
    assert_int_equal(p[strlen(vta_line17)], '\n');
    at_free(raw);

    at_rec r;
    assert_ok(at_rec_parse_line(vta_line17, strlen(vta_line17), &r));
    assert_string_equal(r.target_str, "ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17");
    assert_string_equal(r.target.kind, "ext_dev");
    assert_int_equal(r.target.n_keys, 2);
    assert_string_equal(r.target.keys[0], "cpu");
    assert_string_equal(r.target.keys[1], "vta");
    assert_string_equal(r.target.model, "pynq_1x16_i8w8a32_15_15_18_17");
    assert_string_equal(r.task_name, "conv2d_packed.vta");
    assert_string_equal(r.args_json, "[[\"TENSOR\", [1, 32, 7, 7, 1, 16], \"int8\"], [\"TENSOR\", [32, 32, 3, 3, 16, "
                                     "16], \"int8\"], [1, 1], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]");
    assert_string_equal(r.kwargs_json, "{}");
    assert_int_equal(at_config_index(r.config), 243);
    assert_int_equal(at_config_len(r.config), 7);
    assert_string_equal(at_config_at(r.config, 3)->name, "tile_ci");
    assert_int_equal(r.result.err, AT_MEAS_OK);
    assert_int_equal(r.result.n_costs, 1);
    assert_true(r.result.costs_s[0] == 0.0073480856);
    assert_true(at_rec_cost(&r) == 0.0073480856);
    assert_true(r.result.all_cost_s == 8.748790264129639);
    assert_false(r.result.all_cost_is_int);
    assert_true(r.result.timestamp == 1562808382.7584333);
    assert_true(r.version == 0.2);
    assert_false(r.version_is_int);
    assert_string_equal(r.tvm_version, "0.7.dev0");
    assert_int_equal(r.line, 0);
    assert_null(r.text);

    at_rec c;
    assert_ok(at_rec_copy(&c, &r));
    at_rec_fini(&r);
    char *again = line_of(&c);
    assert_string_equal(again, vta_line17);
    at_free(again);
    assert_string_equal(c.target.keys[1], "vta");
    at_rec_fini(&c);
}

/* The two example lines of spec §2.1 (TVM's cuda pack and TVM's own tests). */
static void spec_example_lines_should_round_trip(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "{\"input\": [\"cuda -model=titanx\", \"conv2d_nchw.cuda\", [[\"TENSOR\", [1, 2048, 8, 8], \"float32\"], "
        "[\"TENSOR\", [192, 2048, 1, 1], \"float32\"], [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"], {}], \"config\": "
        "{\"index\": 8797896, \"code_hash\": null, \"entity\": [[\"tile_f\", \"sp\", [6, 1, 32, 1]], [\"tile_y\", "
        "\"sp\", [4, 1, 2, 1]], [\"tile_x\", \"sp\", [1, 1, 8, 1]], [\"tile_rc\", \"sp\", [64, 32]], [\"tile_rx\", "
        "\"sp\", [1, 1]], [\"tile_ry\", \"sp\", [1, 1]], [\"auto_unroll_max_step\", \"ot\", 1500], "
        "[\"unroll_explicit\", \"ot\", 1]]}, \"result\": [[5.69732536806342e-05], 0, 14.116215467453003, "
        "1535423916.7184713], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
        "{\"input\": [\"opencl -keys=adreno,opencl,gpu -device=adreno -max_num_threads=256\", "
        "\"conv2d_nchw_winograd.image2d\", [[\"TENSOR\", [1, 512, 28, 28], \"float16\"], [\"TENSOR\", [512, 512, 3, "
        "3], \"float16\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float16\"], {}], \"config\": {\"index\": 1591, "
        "\"code_hash\": null, \"entity\": [[\"auto_unroll_max_step\", \"ot\", 4], [\"tile_y\", \"sp\", [-1, 1, 32]], "
        "[\"tile_x\", \"sp\", [-1, 4, 2]], [\"tile_rc\", \"sp\", [-1, 8]]]}, \"result\": [[0.0037244], 0, "
        "7.06374192237854, 1653898629.7427933], \"version\": 0.2, \"tvm_version\": \"0.8.dev0\"}",
    };
    for (size_t i = 0; i < 2; i++) {
        at_rec r;
        assert_ok(at_rec_parse_line(lines[i], strlen(lines[i]), &r));
        char *again = line_of(&r);
        assert_string_equal(again, lines[i]);
        at_free(again);
        at_rec_fini(&r);
    }
}

static const char failed_line[] =
    "{\"input\": [\"llvm -keys=cpu -mtriple=x86_64-linux-gnu\", \"dense_nopack.x86\", [[\"TENSOR\", [1, 512], "
    "\"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"], {}], \"config\": {\"index\": 5, "
    "\"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [-1, 1]], [\"tile_x\", \"sp\", [-1, 8]], [\"tile_k\", "
    "\"sp\", [-1, 4]]]}, \"result\": [[1000000000.0], 6, 10, 1712345678.1234567], \"version\": 0.2, "
    "\"tvm_version\": \"0.18.0\"}";

static void failed_records_should_write_tvm_failure_costs_and_int_all_cost(void **state)
{
    (void)state;
    at_rec r;
    assert_ok(at_rec_parse_line(failed_line, strlen(failed_line), &r));
    assert_int_equal(r.result.err, AT_MEAS_BUILD_TIMEOUT);
    assert_int_equal(r.result.n_costs, 0);
    assert_true(r.result.all_cost_is_int);
    assert_true(r.result.all_cost_s == 10.0);
    assert_true(at_rec_cost(&r) == 1e9);
    char *again = line_of(&r);
    assert_string_equal(again, failed_line);
    at_free(again);

    /* the same record made from scratch, as the tuning loop would: costs given are not written */
    at_result res;
    at_result_init(&res);
    double cost = 0.5;
    assert_ok(at_result_set_costs(&res, &cost, 1));
    res.err = AT_MEAS_BUILD_TIMEOUT;
    res.all_cost_s = 10;
    res.all_cost_is_int = true;
    res.timestamp = 1712345678.1234567;
    static const char args[] = "[[\"TENSOR\",[1,512],\"float32\"],[\"TENSOR\",[1000,512],\"float32\"],null,\"float32\"]";
    at_rec m;
    assert_ok(at_rec_make("llvm -keys=cpu -mtriple=x86_64-linux-gnu", "dense_nopack.x86", args, r.config, &res, &m));
    char *made = line_of(&m);
    assert_string_equal(made, failed_line);
    at_free(made);
    at_rec_fini(&m);

    /* a successful one keeps its costs, repr-formatted */
    res.err = AT_MEAS_OK;
    res.all_cost_is_int = false;
    res.all_cost_s = 1.25;
    double costs[2] = {1e-05, 5.69732536806342e-05};
    assert_ok(at_result_set_costs(&res, costs, 2));
    assert_ok(at_rec_make("llvm", "t", "[1, 2.5, \"x\"]", r.config, &res, &m));
    made = line_of(&m);
    assert_contains(made, "{\"input\": [\"llvm\", \"t\", [1, 2.5, \"x\"], {}], \"config\": {\"index\": 5, ");
    assert_contains(made, "\"result\": [[1e-05, 5.69732536806342e-05], 0, 1.25, 1712345678.1234567], "
                          "\"version\": 0.2, \"tvm_version\": \"0.18.0\"}");
    at_free(made);
    at_rec_fini(&m);
    assert_int_equal(at_rec_make("nope", "t", "[]", r.config, &res, &m), AT_EPARSE);
    assert_int_equal(at_rec_make("llvm", "t", "{}", r.config, &res, &m), AT_EPARSE);
    assert_null(m.task_name);
    at_result_fini(&res);
    at_rec_fini(&r);
}

/* A valid line with one part replaced, for malformed-input cases. */
static char *variant(const char *from, const char *to)
{
    const char *base = vta_line17;
    const char *hit = strstr(base, from);
    assert_non_null(hit);
    size_t n = strlen(base) - strlen(from) + strlen(to);
    char *s = at_malloc(n + 1);
    size_t pre = (size_t)(hit - base);
    memcpy(s, base, pre);
    memcpy(s + pre, to, strlen(to));
    strcpy(s + pre + strlen(to), hit + strlen(from));
    return s;
}

static void expect_bad(const char *line, size_t len, at_status want, const char *detail)
{
    at_rec r;
    memset(&r, 0x5A, sizeof r);
    long live = at_alloc_live();
    at_status st = at_rec_parse_line(line, len, &r);
    if (st != want) {
        print_error("status %s (%s) for: %.200s\n", at_status_str(st), at_last_error(), line);
        fail();
    }
    assert_null(r.config); /* zeroed on failure */
    assert_null(r.target_str);
    assert_int_equal(at_alloc_live(), live);
    assert_contains(at_last_error(), detail);
}

static void expect_bad_variant(const char *from, const char *to, const char *detail)
{
    char *s = variant(from, to);
    expect_bad(s, strlen(s), AT_EPARSE, detail);
    at_free(s);
}

static void malformed_lines_should_fail_with_a_reason_and_no_leak(void **state)
{
    (void)state;
    /* truncated */
    expect_bad(vta_line17, strlen(vta_line17) - 1, AT_EPARSE, "invalid JSON");
    expect_bad(vta_line17, 100, AT_EPARSE, "invalid JSON");
    expect_bad("", 0, AT_EPARSE, "invalid JSON");
    /* not an object, wrong types, missing keys */
    expect_bad("[1, 2]", 6, AT_EPARSE, "a record must be a JSON object");
    expect_bad_variant("{\"input\": [\"ext_dev -device=vta -keys=cpu -model=pynq_1x16_i8w8a32_15_15_18_17\"",
                       "{\"input\": [17", "input[0]: expected the target string");
    expect_bad_variant("\"conv2d_packed.vta\"", "null", "input[1]");
    expect_bad_variant("[[\"TENSOR\", [1, 32, 7, 7, 1, 16], \"int8\"], [\"TENSOR\", [32, 32, 3, 3, 16, 16], \"int8\"], [1, 1], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]", "\"args\"", "input[2]");
    expect_bad_variant(", {}], \"config\"", "], \"config\"", "input: expected [target, task name, args, kwargs]");
    expect_bad_variant("\"input\"", "\"inputs\"", "missing key \"input\"");
    expect_bad_variant("\"config\"", "\"konfig\"", "missing key \"config\"");
    expect_bad_variant("\"result\"", "\"res\"", "missing key \"result\"");
    expect_bad_variant("\"index\": 243", "\"index\": \"243\"", "config.index");
    expect_bad_variant("\"entity\": [", "\"entity\": 5, \"x\": [", "config.entity");
    expect_bad_variant("[[0.0073480856], 0,", "[\"0.0078698618\", 0,", "result[0]: expected the costs array");
    expect_bad_variant("[[0.0073480856], 0,", "[[\"0.0078698618\"], 0,", "result[0]: expected a number");
    expect_bad_variant("[[0.0073480856], 0,", "[[0.0078698618], 0.0,", "result[1]");
    expect_bad_variant("[[0.0073480856], 0,", "[[0.0078698618], 9,", "result[1]");
    expect_bad_variant("[[0.0073480856], 0,", "[[], 0,", "no costs");
    expect_bad_variant("1562808382.7584333]", "1562808382.7584333, 1]", "result: expected");
    expect_bad_variant("8.748790264129639", "\"11\"", "result[2]");
    expect_bad_variant("\"version\": 0.2", "\"version\": \"0.2\"", "version: expected a number");
    expect_bad_variant("\"tvm_version\": \"0.7.dev0\"", "\"tvm_version\": 7", "tvm_version");
    /* unknown knob tag */
    expect_bad_variant("[\"tile_w\", \"sp\"", "[\"tile_w\", \"zz\"", "unknown knob tag");
    /* bad target string */
    expect_bad_variant("ext_dev -device=vta", "ext_dev device=vta", "input[0]: bad target string");
    expect_bad_variant("ext_dev -device=vta", "mali -device=vta", "unknown target kind 'mali'");
    /* huge numbers: an index beyond 2^53, a cost beyond double range */
    expect_bad_variant("\"index\": 243", "\"index\": 100000000000000000000", "too large");
    expect_bad_variant("[[0.0073480856]", "[[1e400]", "result[0]: number out of range");
    expect_bad_variant("8.748790264129639", "-1e999", "result[2]: number out of range");
    /* NaN / Infinity (json.dumps could write them; they are never valid costs) */
    expect_bad_variant("[[0.0073480856]", "[[NaN]", "invalid JSON");
    expect_bad_variant("[[0.0073480856]", "[[Infinity]", "invalid JSON");
    /* non-UTF-8 bytes and NUL bytes */
    expect_bad_variant("\"int8\"], [1, 1]", "\"int\xff\"], [1, 1]", "invalid UTF-8");
    expect_bad_variant("\"int8\"], [1, 1]", "\"int\xc3\"], [1, 1]", "invalid UTF-8");
    char with_nul[] = "{\"input\": 1}\0 trailing";
    expect_bad(with_nul, sizeof with_nul - 1, AT_EPARSE, "NUL byte at column 13");
    /* trailing garbage */
    expect_bad_variant("\"0.7.dev0\"}", "\"0.7.dev0\"}}", "extra data");
}

static void old_version_rows_should_be_reported_as_unsupported(void **state)
{
    (void)state;
    static const char v01[] = "{\"i\": [\"llvm\", \"x\", [], {}, [\"x\"], {\"i\": 1, \"t\": \"\", \"c\": null, \"e\": "
                              "[]}], \"r\": [[1.0], 0, 1.0, 1.0], \"v\": 0.1}";
    expect_bad(v01, strlen(v01), AT_EUNSUPPORTED, "version 0.1");
    /* "v" with another value is not v0.1 (and this one has no "input") */
    static const char v02[] = "{\"v\": 0.2}";
    expect_bad(v02, strlen(v02), AT_EPARSE, "missing key \"input\"");
}

static void reader_should_ignore_unknown_keys_and_accept_crlf(void **state)
{
    (void)state;
    char *s = variant("\"version\": 0.2", "\"extra\": {\"a\": [1, 2]}, \"version\": 0.2");
    at_rec r;
    assert_ok(at_rec_parse_line(s, strlen(s), &r));
    char *again = line_of(&r);
    assert_string_equal(again, vta_line17); /* unknown keys are not written back */
    at_free(again);
    at_rec_fini(&r);
    at_free(s);

    /* duplicated keys: the last one counts, as with json.loads */
    s = variant("\"tvm_version\": \"0.7.dev0\"", "\"tvm_version\": \"x\", \"tvm_version\": \"0.7.dev0\"");
    assert_ok(at_rec_parse_line(s, strlen(s), &r));
    assert_string_equal(r.tvm_version, "0.7.dev0");
    at_rec_fini(&r);
    at_free(s);

    /* "-target" is read as "-mtriple", as TVM's decode rewrites it; the text stays as written */
    s = variant("ext_dev -device=vta -keys=cpu", "llvm -device=arm_cpu -target=armv7a-linux-eabi");
    assert_ok(at_rec_parse_line(s, strlen(s), &r));
    assert_string_equal(at_target_attr_value(&r.target, "mtriple"), "armv7a-linux-eabi");
    assert_contains(r.target_str, "-target=armv7a");
    at_rec_fini(&r);
    at_free(s);

    size_t n = strlen(vta_line17);
    char *crlf = at_malloc(n + 3);
    memcpy(crlf, vta_line17, n);
    memcpy(crlf + n, "\r\n", 3);
    assert_ok(at_rec_parse_line(crlf, n + 2, &r));
    at_rec_fini(&r);

    /* and as a log: the text kept is without "\r" */
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer("crlf.log", crlf, n + 2, &log));
    assert_int_equal(log->n, 1);
    assert_string_equal(log->recs[0].text, vta_line17);
    at_rec_log_free(log);
    at_free(crlf);
}

static void loader_should_skip_bad_lines_with_file_and_line_warnings(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_puts(&sb, "# a comment\n");                                       /* 1 */
    at_strbuf_printf(&sb, "%s\n", vta_line17);                                  /* 2 */
    at_strbuf_puts(&sb, "\n");                                                  /* 3 blank */
    at_strbuf_puts(&sb, "{\"v\": 0.1, \"i\": []}\n");                           /* 4 v0.1 */
    at_strbuf_puts(&sb, "{\"input\": oops}\n");                                 /* 5 malformed */
    at_strbuf_puts(&sb, "   \t\n");                                             /* 6 blank */
    at_strbuf_puts(&sb, "{\"r\": [], \"v\": 0.1}\n");                           /* 7 v0.1 */
    at_strbuf_printf(&sb, "%s\n", failed_line);                                 /* 8 */
    at_strbuf_printf(&sb, "%.*s", 300, vta_line17);                             /* 9 truncated, no \n */
    assert_ok(at_strbuf_status(&sb));

    capture_start();
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer("mixed.log", sb.data, sb.len, &log));
    capture_stop();
    at_strbuf_fini(&sb);

    assert_int_equal(log->n, 2);
    assert_int_equal(log->recs[0].line, 2);
    assert_string_equal(log->recs[0].text, vta_line17);
    assert_int_equal(log->recs[1].line, 8);
    assert_string_equal(log->recs[1].text, failed_line);
    assert_int_equal(log->stats.lines, 9);
    assert_int_equal(log->stats.records, 2);
    assert_int_equal(log->stats.comments, 1);
    assert_int_equal(log->stats.blank, 2);
    assert_int_equal(log->stats.old_version, 2);
    assert_int_equal(log->stats.malformed, 2);
    at_rec_log_free(log);

    assert_int_equal(n_captured, 5);
    assert_contains(captured[0], "mixed.log:3: blank line");
    assert_contains(captured[1], "mixed.log:5: invalid JSON");
    assert_contains(captured[2], "mixed.log:6: blank line");
    assert_contains(captured[3], "mixed.log:9: invalid JSON");
    /* one warning for all v0.1 rows, naming the file */
    assert_contains(captured[4], "mixed.log: AutoTVM log version 0.1 is no longer supported; 2 rows skipped");
}

static void loader_should_cap_line_warnings(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    for (int i = 0; i < 70; i++) at_strbuf_puts(&sb, "garbage\n");
    capture_start();
    at_rec_log *log;
    assert_ok(at_rec_log_load_buffer(NULL, sb.data, sb.len, &log));
    capture_stop();
    at_strbuf_fini(&sb);
    assert_int_equal(log->n, 0);
    assert_int_equal(log->stats.malformed, 70);
    at_rec_log_free(log);
    assert_int_equal(n_captured, 51);
    assert_contains(captured[0], "<buffer>:1: invalid JSON");
    assert_contains(captured[49], "<buffer>:50: ");
    assert_contains(captured[50], "<buffer>: 20 more blank or malformed lines skipped");
}

static void loader_should_name_missing_and_unreadable_files(void **state)
{
    (void)state;
    at_rec_log *log = (at_rec_log *)1;
    const char *dir = at_test_tmpdir("rec_missing");
    char path[4096];
    snprintf(path, sizeof path, "%s/nope.log", dir);
    assert_int_equal(at_rec_log_load_file(path, &log), AT_ENOTFOUND);
    assert_null(log);
    assert_contains(at_last_error(), path);
    assert_int_equal(at_rec_log_load_file(dir, &log), AT_EIO);
    assert_contains(at_last_error(), "is a directory");
    rmdir(dir);
}

static void appender_should_append_whole_lines(void **state)
{
    (void)state;
    const char *dir = at_test_tmpdir("rec_append");
    char path[4096];
    snprintf(path, sizeof path, "%s/tune.log", dir);
    at_test_write_file(path, "# old content\n");
    at_rec r;
    assert_ok(at_rec_parse_line(vta_line17, strlen(vta_line17), &r));
    at_rec_appender *a;
    assert_ok(at_rec_appender_open(path, &a));
    assert_ok(at_rec_appender_write(a, &r));
    assert_ok(at_rec_appender_write_text(a, failed_line, strlen(failed_line)));
    assert_int_equal(at_rec_appender_write_text(a, "a\nb", 3), AT_EINVAL);
    assert_ok(at_rec_appender_sync(a));
    assert_ok(at_rec_appender_write(a, &r));
    assert_ok(at_rec_appender_close(a));
    assert_ok(at_rec_appender_close(NULL));
    at_rec_fini(&r);

    size_t len;
    char *got = at_test_read_file(path, &len);
    at_strbuf want;
    at_strbuf_init(&want);
    at_strbuf_printf(&want, "# old content\n%s\n%s\n%s\n", vta_line17, failed_line, vta_line17);
    assert_string_equal(got, want.data);
    at_strbuf_fini(&want);
    at_free(got);

    char bad[4096];
    snprintf(bad, sizeof bad, "%s/no/such/dir.log", dir);
    assert_int_equal(at_rec_appender_open(bad, &a), AT_EIO);
    assert_null(a);
    assert_contains(at_last_error(), bad);
    remove(path);
    rmdir(dir);
}

static void atomic_write_should_replace_and_leave_no_temp_file(void **state)
{
    (void)state;
    const char *dir = at_test_tmpdir("rec_atomic");
    char path[4096];
    snprintf(path, sizeof path, "%s/out.log", dir);
    at_test_write_file(path, "old\n");
    chmod(path, 0600);
    assert_ok(at_rec_write_file_atomic(path, "new\n", 4));
    size_t len;
    char *got = at_test_read_file(path, &len);
    assert_string_equal(got, "new\n");
    at_free(got);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600); /* kept */
    DIR *d = opendir(dir);
    size_t entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.') entries++;
    closedir(d);
    assert_int_equal(entries, 1);
    char bad[4096];
    snprintf(bad, sizeof bad, "%s/missing/out.log", dir);
    assert_int_equal(at_rec_write_file_atomic(bad, "x", 1), AT_EIO);
    assert_contains(at_last_error(), bad);
    remove(path);
    rmdir(dir);
}

/* np.mean sums with 8 accumulators from 8 values on; a plain loop rounds differently here. */
static void cost_should_be_numpy_mean(void **state)
{
    (void)state;
    at_rec r;
    assert_ok(at_rec_parse_line(vta_line17, strlen(vta_line17), &r));
    double a[9] = {1, 1e-16, 1e-16, 1e-16, 1e-16, 1e-16, 1e-16, 1e-16, 1};
    assert_ok(at_result_set_costs(&r.result, a, 9));
    double numpy_order = (((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])) + a[8]) / 9;
    double loop = 0;
    for (int i = 0; i < 9; i++) loop += a[i];
    loop /= 9;
    assert_true(numpy_order != loop);
    assert_true(at_rec_cost(&r) == numpy_order);
    double b[3] = {1, 2, 4};
    assert_ok(at_result_set_costs(&r.result, b, 3));
    assert_true(at_rec_cost(&r) == 7.0 / 3);
    /* 300 values: the recursive split (blocks of at most 128) */
    double c[300];
    for (int i = 0; i < 300; i++) c[i] = 1.0 / (i + 1);
    assert_ok(at_result_set_costs(&r.result, c, 300));
    double mean = at_rec_cost(&r);
    assert_true(fabs(mean - 6.282663880299502 / 300) < 1e-15);
    r.result.err = AT_MEAS_RUNTIME_DEVICE;
    assert_true(at_rec_cost(&r) == 1e9);
    at_rec_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_mali_pack_record_should_round_trip_byte_for_byte),
        cmocka_unit_test(every_vta_pack_record_should_round_trip_byte_for_byte),
        cmocka_unit_test(golden_lines_should_match_their_sources_and_round_trip),
        cmocka_unit_test(parsed_record_should_expose_every_field),
        cmocka_unit_test(spec_example_lines_should_round_trip),
        cmocka_unit_test(failed_records_should_write_tvm_failure_costs_and_int_all_cost),
        cmocka_unit_test(malformed_lines_should_fail_with_a_reason_and_no_leak),
        cmocka_unit_test(old_version_rows_should_be_reported_as_unsupported),
        cmocka_unit_test(reader_should_ignore_unknown_keys_and_accept_crlf),
        cmocka_unit_test(loader_should_skip_bad_lines_with_file_and_line_warnings),
        cmocka_unit_test(loader_should_cap_line_warnings),
        cmocka_unit_test(loader_should_name_missing_and_unreadable_files),
        cmocka_unit_test(appender_should_append_whole_lines),
        cmocka_unit_test(atomic_write_should_replace_and_leave_no_temp_file),
        cmocka_unit_test(cost_should_be_numpy_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
