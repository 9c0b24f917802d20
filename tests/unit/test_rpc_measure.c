/* measure/'s remote-measurement pieces without a device or a network: the measure payload codec
 * (pinned bytes, round trips, every field's check, every truncation, allocation failures), the
 * rpc-server handler's refusals of requests that do not fit its templates (before any device is
 * touched), a VTA measurement by the handler (the simulator: no device) against a local one, and
 * the runner's option and address checks. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "measure/rpc_handler.h"
#include "measure/rpc_proto.h"
#include "measure/rpc_runner.h"
#include "measure/vta_runner.h"

static const char ARGS[] = "[64, 64, 64, \"float32\"]";
static const char CONFIG[] =
    "{\"index\": 9, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [-1, 4]], [\"tile_x\", \"sp\", [-1, 2]]]}";

static at_meas_rpc_request sample_request(void)
{
    return (at_meas_rpc_request){
        .id = 0x0102030405060708ull,
        .target = 0,
        .number = 4,
        .repeat = 3,
        .min_repeat_ms = 150,
        .timeout_ms = 10000,
        .build_timeout_ms = 20000,
        .cooldown_ms = 100,
        .check_correctness = true,
        .seed = 7,
        .space_len = 49,
        .config_index = 9,
        .template_name = "testing/matmul",
        .args_json = ARGS,
        .config_json = CONFIG,
        .build_options = "-cl-fast-relaxed-math",
    };
}

static void encode_request(const at_meas_rpc_request *q, at_strbuf *sb)
{
    at_strbuf_init(sb);
    assert_ok(at_meas_rpc_request_encode(q, sb));
}

static uint32_t le32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

/* ---- request codec ---------------------------------------------------------------------------- */

static void request_should_encode_to_the_documented_little_endian_layout(void **state)
{
    (void)state;
    at_meas_rpc_request q = sample_request();
    at_strbuf sb;
    encode_request(&q, &sb);
    const char *p = sb.data;
    assert_memory_equal(p, "ATMQ", 4);
    assert_memory_equal(p + 4, "\x01\x00", 2);                              /* version */
    assert_memory_equal(p + 6, "\x00\x00", 2);                              /* target OpenCL */
    assert_memory_equal(p + 8, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);      /* id */
    assert_int_equal(le32(p + 16), 4);                                      /* number */
    assert_int_equal(le32(p + 20), 3);                                      /* repeat */
    assert_int_equal(le32(p + 24), 150);
    assert_int_equal(le32(p + 28), 10000);
    assert_int_equal(le32(p + 32), 20000);
    assert_int_equal(le32(p + 36), 100);
    assert_int_equal(le32(p + 40), 1);                                      /* flags: check */
    assert_memory_equal(p + 44, "\x07\0\0\0\0\0\0\0", 8);                   /* seed */
    assert_memory_equal(p + 52, "\x31\0\0\0\0\0\0\0", 8);                   /* space_len 49 */
    assert_memory_equal(p + 60, "\x09\0\0\0\0\0\0\0", 8);                   /* config_index */
    assert_int_equal(le32(p + 68), 14);
    assert_memory_equal(p + 72, "testing/matmul", 14);
    size_t off = 86;
    assert_int_equal(le32(p + off), strlen(ARGS));
    off += 4 + strlen(ARGS);
    assert_int_equal(le32(p + off), strlen(CONFIG));
    off += 4 + strlen(CONFIG);
    assert_int_equal(le32(p + off), strlen("-cl-fast-relaxed-math"));
    off += 4 + strlen("-cl-fast-relaxed-math");
    assert_int_equal(sb.len, off);

    at_meas_rpc_request d;
    assert_ok(at_meas_rpc_request_decode(sb.data, sb.len, &d));
    assert_true(d.id == q.id);
    assert_int_equal(d.target, 0);
    assert_int_equal(d.number, 4);
    assert_int_equal(d.repeat, 3);
    assert_int_equal(d.min_repeat_ms, 150);
    assert_int_equal(d.timeout_ms, 10000);
    assert_int_equal(d.build_timeout_ms, 20000);
    assert_int_equal(d.cooldown_ms, 100);
    assert_true(d.check_correctness);
    assert_int_equal(d.seed, 7);
    assert_int_equal(d.space_len, 49);
    assert_int_equal(d.config_index, 9);
    assert_string_equal(d.template_name, "testing/matmul");
    assert_string_equal(d.args_json, ARGS);
    assert_string_equal(d.config_json, CONFIG);
    assert_string_equal(d.build_options, "-cl-fast-relaxed-math");
    at_meas_rpc_request_fini(&d);
    assert_null(d.template_name);
    at_strbuf_fini(&sb);
}

static void request_decoder_should_reject_every_truncation_and_trailing_bytes(void **state)
{
    (void)state;
    at_meas_rpc_request q = sample_request();
    at_strbuf sb;
    encode_request(&q, &sb);
    long live = at_alloc_live();
    size_t rejected = 0;
    for (size_t k = 0; k < sb.len; k++) {
        at_meas_rpc_request d;
        at_status st = at_meas_rpc_request_decode(sb.data, k, &d);
        if (st != AT_EPARSE) fail_msg("prefix of %zu bytes: status %d", k, (int)st);
        assert_null(d.template_name);
        rejected++;
    }
    assert_int_equal(rejected, sb.len);
    assert_int_equal(at_alloc_live(), live);
    at_strbuf_putc(&sb, 'x');
    at_meas_rpc_request d;
    assert_int_equal(at_meas_rpc_request_decode(sb.data, sb.len, &d), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "1 trailing bytes"));
    assert_int_equal(at_meas_rpc_request_decode(NULL, 0, &d), AT_EPARSE);
    at_strbuf_fini(&sb);
}

/* A patch of the encoded sample request and the status its decoding must give. */
typedef struct patch {
    size_t      off;
    const char *bytes;
    size_t      n;
    at_status   want;
    const char *needle;
} patch;

static void request_decoder_should_check_every_field(void **state)
{
    (void)state;
    at_meas_rpc_request q = sample_request();
    at_strbuf sb;
    encode_request(&q, &sb);
    const patch cases[] = {
        {0, "ATMX", 4, AT_EPARSE, "bad magic"},
        {4, "\x02\x00", 2, AT_EUNSUPPORTED, "version 2"},
        {8, "\0\0\0\0\0\0\0\0", 8, AT_EPARSE, "id is 0"},
        {16, "\0\0\0\0", 4, AT_EPARSE, "number = 0"},
        {16, "\xff\xff\xff\xff", 4, AT_EPARSE, "number = -1"},
        {20, "\x41\0\0\0", 4, AT_EPARSE, "repeat = 65"},
        {24, "\xff\xff\xff\xff", 4, AT_EPARSE, "min_repeat_ms"},
        {28, "\0\0\0\0", 4, AT_EPARSE, "timeout_ms = 0"},
        {32, "\x01\x5c\x26\x05", 4, AT_EPARSE, "build_timeout_ms"},
        {36, "\xff\xff\xff\x7f", 4, AT_EPARSE, "cooldown_ms"},
        {40, "\x03\0\0\0", 4, AT_EPARSE, "unknown flags"},
        {44, "\0\0\0\0\0\0\0\0", 8, AT_EPARSE, "seed is 0"},
        {52, "\0\0\0\0\0\0\0\0", 8, AT_EPARSE, "space_len 0"},
        {60, "\xff\xff\xff\xff\xff\xff\xff\xff", 8, AT_EPARSE, "config_index -1 below 0"},
        {68, "\0\0\0\0", 4, AT_EPARSE, "template of 0 bytes"},
        {68, "\x01\x01\0\0", 4, AT_EPARSE, "template of 257 bytes"},
        {72 + 7, " ", 1, AT_EPARSE, "template holds a byte outside"},
        {86, "\xff\xff\xff\xff", 4, AT_EPARSE, "args of 4294967295 bytes"},
        {90 + 3, "\0", 1, AT_EPARSE, "args holds a byte outside"},
    };
    size_t n_cases = sizeof cases / sizeof cases[0];
    assert_int_equal(n_cases, 19);
    for (size_t i = 0; i < n_cases; i++) {
        char *buf = at_malloc(sb.len);
        assert_non_null(buf);
        memcpy(buf, sb.data, sb.len);
        memcpy(buf + cases[i].off, cases[i].bytes, cases[i].n);
        at_meas_rpc_request d;
        at_status st = at_meas_rpc_request_decode(buf, sb.len, &d);
        if (st != cases[i].want || !strstr(at_last_error(), cases[i].needle))
            fail_msg("case %zu: status %d '%s', want %d with '%s'", i, (int)st, at_last_error(), (int)cases[i].want,
                     cases[i].needle);
        at_free(buf);
    }
    /* the last string: build options must be printable */
    q.build_options = "-D X=\t1";
    at_strbuf bad;
    at_strbuf_init(&bad);
    assert_int_equal(at_meas_rpc_request_encode(&q, &bad), AT_EINVAL);
    q.build_options = "-D X=11";
    assert_ok(at_meas_rpc_request_encode(&q, &bad));
    bad.data[bad.len - 2] = '\t';
    at_meas_rpc_request d;
    assert_int_equal(at_meas_rpc_request_decode(bad.data, bad.len, &d), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "build_options holds a byte outside its alphabet (printable ASCII)"));
    at_strbuf_fini(&bad);
    at_strbuf_fini(&sb);
}

static void request_encoder_should_refuse_what_a_decoder_would_reject(void **state)
{
    (void)state;
    char big_name[AT_MEAS_RPC_MAX_NAME + 2];
    memset(big_name, 'a', sizeof big_name - 1);
    big_name[sizeof big_name - 1] = '\0';
    at_meas_rpc_request cases[10];
    for (size_t i = 0; i < 10; i++) cases[i] = sample_request();
    cases[0].id = 0;
    cases[1].number = 0;
    cases[2].repeat = 65;
    cases[3].timeout_ms = 0;
    cases[4].cooldown_ms = -1;
    cases[5].seed = 0;
    cases[6].config_index = -1;
    cases[7].template_name = big_name;
    cases[8].template_name = "bad name";
    cases[9].args_json = "";
    for (size_t i = 0; i < 10; i++) {
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_strbuf_puts(&sb, "keep");
        if (at_meas_rpc_request_encode(&cases[i], &sb) != AT_EINVAL) fail_msg("case %zu was encoded", i);
        assert_int_equal(sb.len, 4); /* nothing appended */
        at_strbuf_fini(&sb);
    }
}

static void decoders_should_fail_cleanly_at_every_allocation(void **state)
{
    (void)state;
    at_meas_rpc_request q = sample_request();
    at_strbuf sb;
    encode_request(&q, &sb);
    long live = at_alloc_live();
    size_t n_fail = 0;
    for (long k = 0;; k++) {
        at_meas_rpc_request d;
        at_alloc_fail_after(k);
        at_status st = at_meas_rpc_request_decode(sb.data, sb.len, &d);
        at_alloc_fail_after(-1);
        if (st == AT_OK) {
            at_meas_rpc_request_fini(&d);
            break;
        }
        assert_int_equal(st, AT_ENOMEM);
        assert_int_equal(at_alloc_live(), live);
        n_fail++;
    }
    assert_int_equal(n_fail, 4); /* one copy per string */
    at_strbuf_fini(&sb);
}

/* ---- reply codec ------------------------------------------------------------------------------ */

static void reply_should_round_trip_results_and_failures(void **state)
{
    (void)state;
    const double costs[2] = {1.5e-4, 0.1 + 0.2};
    at_meas_rpc_reply ok = {.id = 42, .config_index = 9, .err = AT_MEAS_OK, .n_costs = 2, .costs_s = costs,
                            .all_cost_s = 0.25, .device = "pthread-haswell"};
    at_strbuf sb;
    at_strbuf_init(&sb);
    assert_ok(at_meas_rpc_reply_encode(&ok, &sb));
    assert_memory_equal(sb.data, "ATMR\x01\x00\x00\x00", 8);
    assert_int_equal(sb.len, 40 + 16 + 4 + 4 + strlen("pthread-haswell"));
    at_meas_rpc_reply d;
    assert_ok(at_meas_rpc_reply_decode(sb.data, sb.len, &d));
    assert_int_equal(d.id, 42);
    assert_int_equal(d.config_index, 9);
    assert_int_equal(d.err, AT_MEAS_OK);
    assert_int_equal(d.n_costs, 2);
    assert_true(d.costs_s[0] == 1.5e-4 && d.costs_s[1] == 0.1 + 0.2); /* bit for bit */
    assert_true(d.all_cost_s == 0.25);
    assert_false(d.all_cost_is_int);
    assert_string_equal(d.msg, "");
    assert_string_equal(d.device, "pthread-haswell");
    at_meas_rpc_reply_fini(&d);

    at_meas_rpc_reply to = {.id = 43, .config_index = 0, .err = AT_MEAS_RUN_TIMEOUT, .all_cost_s = 10,
                            .all_cost_is_int = true, .msg = "run exceeded the 10 s timeout; worker killed"};
    at_strbuf_clear(&sb);
    assert_ok(at_meas_rpc_reply_encode(&to, &sb));
    assert_memory_equal(sb.data + 6, "\x01\x00", 2);
    assert_ok(at_meas_rpc_reply_decode(sb.data, sb.len, &d));
    assert_int_equal(d.err, AT_MEAS_RUN_TIMEOUT);
    assert_int_equal(d.n_costs, 0);
    assert_null(d.costs_s);
    assert_true(d.all_cost_is_int);
    assert_int_equal(d.config_index, 0);
    assert_string_equal(d.msg, "run exceeded the 10 s timeout; worker killed");
    assert_string_equal(d.device, "");
    at_meas_rpc_reply_fini(&d);
    for (size_t k = 0; k < sb.len; k++) assert_int_equal(at_meas_rpc_reply_decode(sb.data, k, &d), AT_EPARSE);
    at_strbuf_fini(&sb);
}

static void reply_checks_should_reject_inconsistent_results(void **state)
{
    (void)state;
    const double nan_cost[1] = {NAN}, neg_cost[1] = {-1}, one[1] = {1e-3};
    at_meas_rpc_reply cases[] = {
        {.id = 1, .err = AT_MEAS_OK, .n_costs = 0, .device = ""},                           /* OK without costs */
        {.id = 1, .err = AT_MEAS_OK, .n_costs = 1, .costs_s = nan_cost},                    /* NaN */
        {.id = 1, .err = AT_MEAS_OK, .n_costs = 1, .costs_s = neg_cost},                    /* negative */
        {.id = 1, .err = AT_MEAS_OK, .n_costs = 1, .costs_s = one, .all_cost_s = INFINITY}, /* all_cost */
        {.id = 1, .err = AT_MEAS_OK, .n_costs = 1, .costs_s = one, .msg = "x"},             /* message on OK */
        {.id = 1, .err = AT_MEAS_WRONG_ANSWER, .n_costs = 1, .costs_s = one, .msg = "x"},   /* costs on failure */
        {.id = 1, .err = AT_MEAS_WRONG_ANSWER, .msg = ""},                                  /* failure without message */
        {.id = 1, .err = AT_MEAS_ERR_COUNT, .msg = "x"},                                    /* error number 9 */
        {.id = 0, .err = AT_MEAS_WRONG_ANSWER, .msg = "x"},                                 /* id 0 */
    };
    size_t n_cases = sizeof cases / sizeof cases[0];
    assert_int_equal(n_cases, 9);
    for (size_t i = 0; i < n_cases; i++) {
        at_strbuf sb;
        at_strbuf_init(&sb);
        if (at_meas_rpc_reply_encode(&cases[i], &sb) != AT_EINVAL) fail_msg("case %zu was encoded", i);
        assert_int_equal(sb.len, 0);
        at_strbuf_fini(&sb);
    }
    /* the decoder applies the same rules to bytes from the wire */
    at_meas_rpc_reply good = {.id = 5, .err = AT_MEAS_OK, .n_costs = 1, .costs_s = one, .device = "d"};
    at_strbuf sb;
    at_strbuf_init(&sb);
    assert_ok(at_meas_rpc_reply_encode(&good, &sb));
    const patch wire[] = {
        {24, "\x09\0\0\0", 4, AT_EPARSE, "error number 9 unknown"},
        {24, "\x05\0\0\0", 4, AT_EPARSE, "1 costs with error number 5"},
        {28, "\0\0\0\0", 4, AT_EPARSE, "0 costs with error number 0"},
        {28, "\x41\0\0\0", 4, AT_EPARSE, "65 costs"},
        {40, "\0\0\0\0\0\0\xf8\x7f", 8, AT_EPARSE, "cost 0 is not a finite number"},
        {32, "\0\0\0\0\0\0\xf0\xbf", 8, AT_EPARSE, "all_cost is not a finite number"},
        {6, "\x02\0", 2, AT_EPARSE, "unknown flags"},
        {48, "\x01\0\0\0", 4, AT_EPARSE, "msg of 1 bytes"},
        {4, "\x00\x00", 2, AT_EUNSUPPORTED, "version 0 not spoken"},
    };
    for (size_t i = 0; i < sizeof wire / sizeof wire[0]; i++) {
        char *buf = at_malloc(sb.len);
        memcpy(buf, sb.data, sb.len);
        memcpy(buf + wire[i].off, wire[i].bytes, wire[i].n);
        at_meas_rpc_reply d;
        at_status st = at_meas_rpc_reply_decode(buf, sb.len, &d);
        if (st != wire[i].want || !strstr(at_last_error(), wire[i].needle))
            fail_msg("wire case %zu: status %d '%s', want '%s'", i, (int)st, at_last_error(), wire[i].needle);
        assert_null(d.costs_s);
        at_free(buf);
    }
    at_strbuf_fini(&sb);
}

/* ---- the handler's refusals (no device is opened for any of them) ----------------------------- */

static at_status handle(at_meas_rpc_handler *h, const at_meas_rpc_request *q)
{
    at_strbuf req, reply;
    at_strbuf_init(&req);
    at_strbuf_init(&reply);
    assert_ok(at_meas_rpc_request_encode(q, &req));
    at_status st = at_meas_rpc_handler_measure(h, (const unsigned char *)req.data, req.len, &reply);
    assert_int_equal(reply.len, 0); /* a refusal never leaves a half reply */
    at_strbuf_fini(&req);
    at_strbuf_fini(&reply);
    return st;
}

static void handler_should_refuse_requests_that_do_not_fit_its_templates(void **state)
{
    (void)state;
    at_meas_rpc_handler_opts o = {.no_probe = true};
    at_meas_rpc_handler *h;
    assert_ok(at_meas_rpc_handler_new(&o, &h));
    assert_null(at_meas_rpc_handler_device(h));
    long live = at_alloc_live();

    /* garbage and foreign versions: the payload itself */
    at_strbuf reply;
    at_strbuf_init(&reply);
    assert_int_equal(at_meas_rpc_handler_measure(h, (const unsigned char *)"x", 1, &reply), AT_EPARSE);
    assert_int_equal(at_meas_rpc_handler_measure(h, NULL, 0, &reply), AT_EPARSE);
    at_strbuf_fini(&reply);

    typedef struct refusal {
        at_meas_rpc_request q;
        at_status           want;
        const char         *needle;
    } refusal;
    refusal cases[10];
    for (size_t i = 0; i < 10; i++) cases[i].q = sample_request();
    cases[0].q.target = 7, cases[0].want = AT_EUNSUPPORTED, cases[0].needle = "measures OpenCL, LLVM and VTA templates";
    cases[1].q.template_name = "testing/nothing", cases[1].want = AT_ENOTFOUND, cases[1].needle = "no OpenCL template 'testing/nothing'";
    cases[2].q.args_json = "[64, 64", cases[2].want = AT_EPARSE, cases[2].needle = "measure request: args";
    cases[3].q.args_json = "{\"n\": 64}", cases[3].want = AT_EPARSE, cases[3].needle = "not a JSON list";
    cases[4].q.args_json = "[64, 0, 64, \"float32\"]", cases[4].want = AT_EINVAL, cases[4].needle = "args of testing/matmul";
    cases[5].q.config_json = "{\"index\": 9, \"entity\": [[\"tile_y\", \"zz\", 1]]}", cases[5].want = AT_EPARSE,
    cases[5].needle = "measure request: config";
    cases[6].q.space_len = 50, cases[6].want = AT_EINVAL, cases[6].needle = "space has 49 configs here and 50 at the runner";
    cases[7].q.config_index = 10, cases[7].want = AT_EINVAL, cases[7].needle = "config index 9 differs from the request's 10";
    /* tile_y [-1, 3]: not a factor split of 64, not a point of the space */
    cases[8].q.config_json =
        "{\"index\": 9, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [-1, 3]], [\"tile_x\", \"sp\", [-1, 2]]]}";
    cases[8].want = AT_EINVAL, cases[8].needle = "not in this server's space";
    /* knobs of point 9 under index 10: a runner whose space orders configs differently */
    cases[9].q.config_index = 10;
    cases[9].q.config_json =
        "{\"index\": 10, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [-1, 4]], [\"tile_x\", \"sp\", [-1, 2]]]}";
    cases[9].want = AT_EINVAL, cases[9].needle = "point 9 of this server's space, not 10";
    for (size_t i = 0; i < 10; i++) {
        at_status st = handle(h, &cases[i].q);
        if (st != cases[i].want || !strstr(at_last_error(), cases[i].needle))
            fail_msg("case %zu: status %d '%s', want %d with '%s'", i, (int)st, at_last_error(), (int)cases[i].want,
                     cases[i].needle);
    }
    assert_int_equal(at_alloc_live(), live);
    at_meas_rpc_handler_reset(h);
    at_meas_rpc_handler_free(h);
    at_meas_rpc_handler_free(NULL);
    at_rpc_session_handler hooks = at_meas_rpc_handler_hooks(NULL);
    assert_true(hooks.measure == at_meas_rpc_handler_measure);
    assert_true(hooks.session_end == at_meas_rpc_handler_reset);
}

/* VTA requests run on the simulator in the handler's process: no probe, no pool, no OpenCL. The
 * simulator is deterministic, so the remote cost equals a local measurement's bit for bit. */
static void handler_should_measure_vta_templates_on_the_simulator_as_locally(void **state)
{
    (void)state;
    at_task *task;
    at_config *cfg;
    assert_ok(at_task_create("conv2d_packed.vta", AT_TARGET_VTA, "1,16,8,8,16,3,3,1,1", &task));
    assert_ok(at_task_config(task, 0, &cfg));
    at_result local;
    at_result_init(&local);
    assert_ok(at_meas_vta_measure_one(NULL, task, cfg, true, 7, &local, NULL));
    assert_int_equal(local.err, AT_MEAS_OK);
    assert_int_equal(local.n_costs, 1);

    at_strbuf args, config, req, reply;
    at_strbuf_init(&args);
    at_strbuf_init(&config);
    at_strbuf_init(&req);
    at_strbuf_init(&reply);
    at_strbuf_putc(&args, '[');
    at_op_args_write_json(at_task_args(task), &args);
    at_strbuf_putc(&args, ']');
    at_config_write_json(cfg, &config);
    at_meas_rpc_request q = sample_request();
    q.target = AT_TARGET_VTA;
    q.template_name = "conv2d_packed.vta";
    q.args_json = at_strbuf_cstr(&args);
    q.config_json = at_strbuf_cstr(&config);
    q.space_len = at_space_range_len(at_task_space(task));
    q.config_index = 0;
    q.seed = 7;
    encode_request(&q, &req);

    at_meas_rpc_handler_opts o = {.no_probe = true};
    at_meas_rpc_handler *h;
    assert_ok(at_meas_rpc_handler_new(&o, &h));
    assert_ok(at_meas_rpc_handler_measure(h, (const unsigned char *)req.data, req.len, &reply));
    at_meas_rpc_reply d;
    assert_ok(at_meas_rpc_reply_decode(reply.data, reply.len, &d));
    assert_int_equal(d.err, AT_MEAS_OK);
    assert_int_equal(d.id, q.id);
    assert_int_equal(d.config_index, 0);
    assert_int_equal(d.n_costs, 1);
    assert_true(d.costs_s[0] > 0);
    assert_true(d.costs_s[0] == local.costs_s[0]);
    assert_non_null(strstr(d.device, "VTA simulator"));
    at_meas_rpc_reply_fini(&d);

    /* a VTA template this server lacks is refused, naming the target it looked under */
    at_strbuf_fini(&req); /* encode_request starts a fresh buffer */
    at_strbuf_clear(&reply);
    q.template_name = "conv2d_nchw.vta";
    encode_request(&q, &req);
    assert_int_equal(at_meas_rpc_handler_measure(h, (const unsigned char *)req.data, req.len, &reply), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), "no VTA template 'conv2d_nchw.vta'"));

    at_meas_rpc_handler_free(h);
    at_strbuf_fini(&args);
    at_strbuf_fini(&config);
    at_strbuf_fini(&req);
    at_strbuf_fini(&reply);
    at_result_fini(&local);
    at_config_free(cfg);
    at_task_free(task);
}

/* ---- runner options ---------------------------------------------------------------------------- */

static void runner_should_reject_bad_options_before_any_network(void **state)
{
    (void)state;
    const at_meas_rpc_opts base = {.tracker_host = "127.0.0.1", .tracker_port = 9190, .key = "rk3399"};
    at_meas_rpc_opts cases[9];
    for (size_t i = 0; i < 9; i++) cases[i] = base;
    cases[0].tracker_host = NULL;
    cases[1].tracker_port = 0;
    cases[2].tracker_port = 65536;
    cases[3].key = "";
    cases[4].key = "rk:3399";
    cases[5].measure.repeat = 65;
    cases[6].measure.number = -1;
    cases[7].measure.build_options = "-D\nX";
    cases[8].request_timeout_ms = -5;
    for (size_t i = 0; i < 9; i++) {
        at_meas_runner *r = (at_meas_runner *)&cases[i]; /* must be overwritten with NULL */
        if (at_meas_rpc_runner_new(&cases[i], &r) != AT_EINVAL) fail_msg("case %zu accepted", i);
        assert_null(r);
    }
}

static void tracker_addresses_should_parse_as_tvm_splits_them(void **state)
{
    (void)state;
    char *host;
    int port;
    assert_ok(at_meas_rpc_parse_addr("10.0.0.5:9190", &host, &port));
    assert_string_equal(host, "10.0.0.5");
    assert_int_equal(port, 9190);
    at_free(host);
    assert_ok(at_meas_rpc_parse_addr("[::1]:9191", &host, &port));
    assert_string_equal(host, "::1");
    assert_int_equal(port, 9191);
    at_free(host);
    const char *bad[] = {"nohost", ":9190", "h:", "h:0", "h:65536", "h:12x", "[]:80", NULL};
    size_t n = 0;
    for (const char *const *b = bad; *b; b++, n++) {
        char untouched[] = "untouched";
        host = untouched;
        if (at_meas_rpc_parse_addr(*b, &host, &port) != AT_EINVAL) fail_msg("'%s' accepted", *b);
        assert_null(host);
    }
    assert_int_equal(n, 7);
    assert_int_equal(at_meas_rpc_parse_addr(NULL, &host, &port), AT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(request_should_encode_to_the_documented_little_endian_layout),
        cmocka_unit_test(request_decoder_should_reject_every_truncation_and_trailing_bytes),
        cmocka_unit_test(request_decoder_should_check_every_field),
        cmocka_unit_test(request_encoder_should_refuse_what_a_decoder_would_reject),
        cmocka_unit_test(decoders_should_fail_cleanly_at_every_allocation),
        cmocka_unit_test(reply_should_round_trip_results_and_failures),
        cmocka_unit_test(reply_checks_should_reject_inconsistent_results),
        cmocka_unit_test(handler_should_refuse_requests_that_do_not_fit_its_templates),
        cmocka_unit_test(handler_should_measure_vta_templates_on_the_simulator_as_locally),
        cmocka_unit_test(runner_should_reject_bad_options_before_any_network),
        cmocka_unit_test(tracker_addresses_should_parse_as_tvm_splits_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
