/* rpc/ codec and tracker state machine: the exact bytes TVM's Python tracker, server and client
 * exchange (built by hand from spec §8 and TVM v0.18's rpc/base.py, tracker.py, server.py,
 * client.py), TVM's scheduling order, the query-tracker text, our session frames, SHA-256/HMAC. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/numfmt.h"
#include "rpc/codec.h"
#include "rpc/internal.h"

#define LIT(s) s, sizeof(s) - 1

static void assert_bytes(const at_strbuf *sb, const char *want, size_t n)
{
    assert_ok(at_strbuf_status(sb));
    if (sb->len != n || memcmp(sb->data, want, n)) {
        print_error("got %zu bytes, want %zu\n", sb->len, n);
        for (size_t i = 0; i < sb->len; i++) print_error("%02x%s", (unsigned char)sb->data[i], i + 1 < sb->len ? " " : "\n");
        fail();
    }
}

/* ---- tracker encoders: what TVM's base.sendjson puts on the wire ------------------------- */

static void tracker_magic_should_be_little_endian_0x2F271(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_put_i32(&sb, AT_RPC_TRACKER_MAGIC);
    assert_bytes(&sb, LIT("\x71\xf2\x02\x00"));
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    int32_t v = 0;
    assert_ok(at_rpc_reader_feed(&r, "\x71\xf2\x02", 3));
    assert_false(at_rpc_reader_take_i32(&r, &v));
    assert_ok(at_rpc_reader_feed(&r, "\x00", 1));
    assert_true(at_rpc_reader_take_i32(&r, &v));
    assert_int_equal(v, 0x2F271);
    at_rpc_reader_fini(&r);
    at_strbuf_fini(&sb);
}

static void tracker_encoders_should_write_json_dumps_bytes(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    /* server.py _accept_conn: sendjson([PUT, rpc_key, (port, matchkey), custom_addr]) */
    at_rpc_enc_put(&sb, "rk3399", 9090, "rk3399:0.8444218515250481", NULL);
    assert_bytes(&sb, LIT("\x38\x00\x00\x00"
                          "[3, \"rk3399\", [9090, \"rk3399:0.8444218515250481\"], null]"));
    at_strbuf_clear(&sb);
    at_rpc_enc_put(&sb, "rk3399", 9090, "rk3399:0.5", "10.0.0.7");
    assert_bytes(&sb, LIT("\x2f\x00\x00\x00"
                          "[3, \"rk3399\", [9090, \"rk3399:0.5\"], \"10.0.0.7\"]"));
    at_strbuf_clear(&sb);
    /* client.py TrackerSession.request: sendjson([REQUEST, key, "", priority]) */
    at_rpc_enc_request(&sb, "rk3399", "", 1);
    assert_bytes(&sb, LIT("\x14\x00\x00\x00"
                          "[4, \"rk3399\", \"\", 1]"));
    at_strbuf_clear(&sb);
    /* server.py _listen_loop: UPDATE_INFO {"key": "server:" + rpc_key, "addr": (custom_addr, port)} */
    at_rpc_enc_update_info(&sb, "server:rk3399", NULL, 9090);
    assert_bytes(&sb, LIT("\x33\x00\x00\x00"
                          "[5, {\"key\": \"server:rk3399\", \"addr\": [null, 9090]}]"));
    at_strbuf_clear(&sb);
    at_rpc_enc_summary(&sb);
    at_rpc_enc_get_pending(&sb);
    at_rpc_enc_ping(&sb);
    assert_bytes(&sb, LIT("\x03\x00\x00\x00[6]\x03\x00\x00\x00[7]\x03\x00\x00\x00[1]"));
    at_strbuf_clear(&sb);
    at_rpc_enc_stop(&sb, "tracker:0.5");
    assert_bytes(&sb, LIT("\x12\x00\x00\x00"
                          "[2, \"tracker:0.5\"]"));
    at_strbuf_clear(&sb);
    /* tracker.py ret_value(TrackerCode.SUCCESS / FAIL) and the REQUEST callback's value */
    at_rpc_enc_code_reply(&sb, 0);
    at_rpc_enc_code_reply(&sb, -1);
    assert_bytes(&sb, LIT("\x01\x00\x00\x00"
                          "0"
                          "\x02\x00\x00\x00"
                          "-1"));
    at_strbuf_clear(&sb);
    at_rpc_enc_assign_reply(&sb, "127.0.0.1", 9090, "rk3399:0.8444218515250481");
    assert_bytes(&sb, LIT("\x35\x00\x00\x00"
                          "[0, [\"127.0.0.1\", 9090, \"rk3399:0.8444218515250481\"]]"));
    at_strbuf_clear(&sb);
    /* json.dumps escapes non-ASCII (ensure_ascii): the length counts the escaped text */
    at_rpc_enc_request(&sb, "pi\xc3\xa9", "", 100);
    assert_bytes(&sb, LIT("\x18\x00\x00\x00"
                          "[4, \"pi\\u00e9\", \"\", 100]"));
    at_strbuf_fini(&sb);
}

static void reader_should_reassemble_frames_split_at_every_byte(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_enc_put(&sb, "rk3399", 9090, "rk3399:0.25", NULL);
    at_rpc_enc_ping(&sb);
    at_rpc_enc_request(&sb, "rk3399", "", 7);
    assert_ok(at_strbuf_status(&sb));
    for (size_t split = 1; split < sb.len; split++) {
        at_rpc_reader r;
        at_rpc_reader_init(&r);
        int codes[4], n = 0;
        for (size_t off = 0; off < sb.len; off += split) {
            size_t k = sb.len - off < split ? sb.len - off : split;
            assert_ok(at_rpc_reader_feed(&r, sb.data + off, k));
            for (;;) {
                cJSON *msg;
                bool got;
                assert_ok(at_rpc_reader_take_json(&r, AT_RPC_TRACKER_MAX_MSG, &msg, &got));
                if (!got) break;
                at_rpc_tracker_msg m;
                assert_ok(at_rpc_tracker_msg_parse(msg, &m));
                assert_true(n < 4);
                codes[n++] = m.code;
                at_json_free(msg);
            }
        }
        assert_int_equal(n, 3);
        assert_int_equal(codes[0], AT_RPC_TRACKER_PUT);
        assert_int_equal(codes[1], AT_RPC_TRACKER_PING);
        assert_int_equal(codes[2], AT_RPC_TRACKER_REQUEST);
        assert_int_equal(at_rpc_reader_buffered(&r), 0);
        at_rpc_reader_fini(&r);
    }
    at_strbuf_fini(&sb);
}

static void reader_should_reject_bad_sizes_and_bad_json(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t      n;
        const char *why;
    } bad[] = {
        {LIT("\x00\x00\x00\x00[1]"), "invalid message size 0"},
        {LIT("\xff\xff\xff\xff[1]"), "invalid message size -1"},
        {LIT("\x01\x00\x10\x00"), "invalid message size 1048577"},
        {LIT("\x04\x00\x00\x00[1,]"), "invalid JSON"},
        {LIT("\x05\x00\x00\x00[1] x"), "extra data"},
        {LIT("\x03\x00\x00\x00\xff\xfe\x5d"), "UTF-8"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        at_rpc_reader r;
        at_rpc_reader_init(&r);
        assert_ok(at_rpc_reader_feed(&r, bad[i].bytes, bad[i].n));
        cJSON *msg = (cJSON *)1;
        bool got = true;
        assert_int_equal(at_rpc_reader_take_json(&r, AT_RPC_TRACKER_MAX_MSG, &msg, &got), AT_EPARSE);
        assert_null(msg);
        assert_false(got);
        if (!strstr(at_last_error(), bad[i].why)) fail_msg("case %zu: '%s' lacks '%s'", i, at_last_error(), bad[i].why);
        at_rpc_reader_fini(&r);
    }
    /* exactly the limit is fine */
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    assert_ok(at_rpc_reader_feed(&r, LIT("\x03\x00\x00\x00[1]")));
    const char *p;
    size_t n;
    bool got;
    assert_ok(at_rpc_reader_take_frame(&r, 3, &p, &n, &got));
    assert_true(got);
    assert_int_equal(n, 3);
    assert_memory_equal(p, "[1]", 3);
    assert_ok(at_rpc_reader_feed(&r, LIT("\x04\x00\x00\x00[1 ]")));
    assert_int_equal(at_rpc_reader_take_frame(&r, 3, &p, &n, &got), AT_EPARSE);
    at_rpc_reader_fini(&r);
}

static void tracker_msg_parse_should_check_every_field(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        at_status   want;
    } cases[] = {
        {"[1]", AT_OK},
        {"[6, \"extra\"]", AT_OK},
        {"[3, \"rk\", [9090, \"rk:0.1\"], null]", AT_OK},
        {"[3, \"rk\", [9090, \"rk:0.1\"]]", AT_OK},
        {"[3, \"rk\", [9090, \"rk:0.1\"], \"10.1.1.1\"]", AT_OK},
        {"[4, \"rk\", \"\", 1]", AT_OK},
        {"[4, \"rk\", \"\", 2.5]", AT_OK},
        {"[5, {\"key\": \"server:rk\", \"addr\": [null, 9090]}]", AT_OK},
        {"[2, 17]", AT_OK},
        {"[]", AT_EPARSE},
        {"{\"a\": 1}", AT_EPARSE},
        {"[\"3\"]", AT_EPARSE},
        {"[3.0, \"rk\", [1, \"k\"]]", AT_EPARSE},
        {"[9]", AT_EPARSE},
        {"[0]", AT_EPARSE},
        {"[3, \"rk\"]", AT_EPARSE},
        {"[3, 5, [9090, \"k\"]]", AT_EPARSE},
        {"[3, \"rk\", [9090]]", AT_EPARSE},
        {"[3, \"rk\", [9090, \"k\", 1]]", AT_EPARSE},
        {"[3, \"rk\", [\"9090\", \"k\"]]", AT_EPARSE},
        {"[3, \"rk\", [70000, \"k\"]]", AT_EPARSE},
        {"[3, \"rk\", [9090, \"k\"], 5]", AT_EPARSE},
        {"[4, \"rk\", \"\"]", AT_EPARSE},
        {"[4, \"rk\", \"\", \"1\"]", AT_EPARSE},
        {"[4, [\"rk\"], \"\", 1]", AT_EPARSE},
        {"[5, [1]]", AT_EPARSE},
        {"[5, {\"key\": \"server:rk\"}]", AT_EPARSE},
        {"[5, {\"key\": \"server:rk\", \"addr\": []}]", AT_EPARSE},
        {"[5, {\"key\": 3, \"addr\": [null, 1]}]", AT_EPARSE},
        {"[2]", AT_EPARSE},
    };
    size_t checked = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *msg;
        assert_ok(at_json_parse(cases[i].json, strlen(cases[i].json), &msg));
        at_rpc_tracker_msg m;
        at_status st = at_rpc_tracker_msg_parse(msg, &m);
        if (st != cases[i].want) fail_msg("%s: got %s (%s)", cases[i].json, at_status_str(st), at_last_error());
        at_json_free(msg);
        checked++;
    }
    assert_int_equal(checked, 30);
    cJSON *msg;
    const char *put = "[3, \"rk3399\", [9091, \"rk3399:0.75\"], \"10.0.0.9\"]";
    assert_ok(at_json_parse(put, strlen(put), &msg));
    at_rpc_tracker_msg m;
    assert_ok(at_rpc_tracker_msg_parse(msg, &m));
    assert_int_equal(m.code, AT_RPC_TRACKER_PUT);
    assert_string_equal(m.key, "rk3399");
    assert_int_equal(m.port, 9091);
    assert_string_equal(m.matchkey, "rk3399:0.75");
    assert_string_equal(m.custom_addr, "10.0.0.9");
    at_json_free(msg);
}

static void reply_parsers_should_read_tvm_replies(void **state)
{
    (void)state;
    cJSON *v;
    const char *a = "[0, [\"127.0.0.1\", 9090, \"rk3399:0.5\"]]";
    assert_ok(at_json_parse(a, strlen(a), &v));
    const char *host, *mk;
    int port;
    assert_ok(at_rpc_parse_assign_reply(v, &host, &port, &mk));
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 9090);
    assert_string_equal(mk, "rk3399:0.5");
    at_json_free(v);
    const char *p = "[\"rk3399:0.5\", \"rk3399:0.25\"]";
    assert_ok(at_json_parse(p, strlen(p), &v));
    bool has;
    assert_ok(at_rpc_parse_pending_reply(v, "rk3399:0.25", &has));
    assert_true(has);
    assert_ok(at_rpc_parse_pending_reply(v, "rk3399:0.1", &has));
    assert_false(has);
    at_json_free(v);
    static const char *bad_assign[] = {"0", "[-1, [\"h\", 1, \"k\"]]", "[0, [\"h\", 1]]", "[0, [\"h\", 0, \"k\"]]",
                                       "[0, [1, 1, \"k\"]]"};
    for (size_t i = 0; i < 5; i++) {
        assert_ok(at_json_parse(bad_assign[i], strlen(bad_assign[i]), &v));
        assert_int_equal(at_rpc_parse_assign_reply(v, &host, &port, &mk), AT_EPARSE);
        at_json_free(v);
    }
    assert_ok(at_json_parse("[\"a\", 1]", 8, &v));
    assert_int_equal(at_rpc_parse_pending_reply(v, "a", &has), AT_EPARSE);
    at_json_free(v);
    assert_ok(at_json_parse("-1", 2, &v));
    int code;
    assert_ok(at_rpc_parse_code_reply(v, &code));
    assert_int_equal(code, -1);
    at_json_free(v);
}

/* ---- the tracker state machine on a scripted conversation -------------------------------- */

typedef struct capture {
    at_strbuf out[8]; /* bytes sent to connection i */
    bool      gone[8];
    int       n_sends;
} capture;

static bool capture_send(void *ctx, uint64_t conn, const char *data, size_t n)
{
    capture *c = ctx;
    assert_true(conn < 8);
    c->n_sends++;
    if (c->gone[conn]) return false;
    at_strbuf_append(&c->out[conn], data, n);
    return true;
}

static void capture_init(capture *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 8; i++) at_strbuf_init(&c->out[i]);
}

static void capture_fini(capture *c)
{
    for (int i = 0; i < 8; i++) at_strbuf_fini(&c->out[i]);
}

/* Feeds the framed bytes of one message into the state machine as the tracker's loop does. */
static at_status feed(at_rpc_tstate *t, uint64_t conn, const char *bytes, size_t n, bool *stop)
{
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    at_status st = at_rpc_reader_feed(&r, bytes, n);
    cJSON *msg = NULL;
    bool got = false;
    if (st == AT_OK) st = at_rpc_reader_take_json(&r, AT_RPC_TRACKER_MAX_MSG, &msg, &got);
    if (st == AT_OK) {
        assert_true(got);
        st = at_rpc_tstate_handle(t, conn, msg, stop);
    }
    at_json_free(msg);
    at_rpc_reader_fini(&r);
    return st;
}

#define FEED(t, conn, lit)                                   \
    do {                                                     \
        bool stop_;                                          \
        assert_ok(feed((t), (conn), LIT(lit), &stop_));      \
        assert_false(stop_);                                 \
    } while (0)

static void tracker_should_answer_a_tvm_conversation_byte_for_byte(void **state)
{
    (void)state;
    capture cap;
    capture_init(&cap);
    at_rpc_tstate *t;
    assert_ok(at_rpc_tstate_new("tracker:0.5", capture_send, &cap, &t));
    assert_ok(at_rpc_tstate_open(t, 1, "127.0.0.1"));
    assert_ok(at_rpc_tstate_open(t, 2, "10.0.0.2"));
    /* server: UPDATE_INFO with a null address, then PUT */
    FEED(t, 1, "\x33\x00\x00\x00[5, {\"key\": \"server:rk3399\", \"addr\": [null, 9090]}]");
    assert_bytes(&cap.out[1], LIT("\x01\x00\x00\x00"
                                  "0"));
    at_strbuf_clear(&cap.out[1]);
    FEED(t, 1, "\x38\x00\x00\x00[3, \"rk3399\", [9090, \"rk3399:0.8444218515250481\"], null]");
    assert_bytes(&cap.out[1], LIT("\x01\x00\x00\x00"
                                  "0"));
    at_strbuf_clear(&cap.out[1]);
    FEED(t, 1, "\x03\x00\x00\x00[7]");
    assert_bytes(&cap.out[1], LIT("\x1d\x00\x00\x00"
                                  "[\"rk3399:0.8444218515250481\"]"));
    at_strbuf_clear(&cap.out[1]);
    /* query-tracker: SUMMARY (the null address became the server's peer address) */
    FEED(t, 2, "\x03\x00\x00\x00[6]");
    assert_bytes(&cap.out[2], LIT("\x82\x00\x00\x00"
                                  "[0, {\"queue_info\": {\"rk3399\": {\"free\": 1, \"pending\": 0}}, \"server_info\": "
                                  "[{\"key\": \"server:rk3399\", \"addr\": [\"127.0.0.1\", 9090]}]}]"));
    at_strbuf_clear(&cap.out[2]);
    /* client: REQUEST gets the server's address and matchkey */
    FEED(t, 2, "\x14\x00\x00\x00[4, \"rk3399\", \"\", 1]");
    assert_bytes(&cap.out[2], LIT("\x35\x00\x00\x00"
                                  "[0, [\"127.0.0.1\", 9090, \"rk3399:0.8444218515250481\"]]"));
    /* the matchkey is no longer pending, and the queue is empty */
    FEED(t, 1, "\x03\x00\x00\x00[7]");
    assert_bytes(&cap.out[1], LIT("\x02\x00\x00\x00[]"));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_tstate_summary(t, &sb);
    assert_string_equal(sb.data, "{\"queue_info\": {\"rk3399\": {\"free\": 0, \"pending\": 0}}, \"server_info\": "
                                 "[{\"key\": \"server:rk3399\", \"addr\": [\"127.0.0.1\", 9090]}]}");
    /* PING, then STOP with a wrong and the right key */
    at_strbuf_clear(&cap.out[2]);
    FEED(t, 2, "\x03\x00\x00\x00[1]");
    FEED(t, 2, "\x0c\x00\x00\x00[2, \"wrong\"]");
    assert_bytes(&cap.out[2], LIT("\x01\x00\x00\x00"
                                  "0"
                                  "\x02\x00\x00\x00"
                                  "-1"));
    bool stop;
    assert_ok(feed(t, 2, LIT("\x12\x00\x00\x00[2, \"tracker:0.5\"]"), &stop));
    assert_true(stop);
    /* a malformed request is an error for its connection only */
    assert_int_equal(feed(t, 2, LIT("\x03\x00\x00\x00[9]"), &stop), AT_EPARSE);
    at_strbuf_fini(&sb);
    at_rpc_tstate_free(t);
    capture_fini(&cap);
}

static void tracker_should_merge_update_info_like_dict_update(void **state)
{
    (void)state;
    capture cap;
    capture_init(&cap);
    at_rpc_tstate *t;
    assert_ok(at_rpc_tstate_new("s", capture_send, &cap, &t));
    assert_ok(at_rpc_tstate_open(t, 1, "10.1.2.3"));
    assert_ok(at_rpc_tstate_open(t, 2, "10.1.2.4"));
    FEED(t, 1, "\x30\x00\x00\x00[5, {\"key\": \"server:a\", \"addr\": [\"1.1.1.1\", 1]}]");
    FEED(t, 1, "\x33\x00\x00\x00[5, {\"x\": 1, \"addr\": [null, 2], \"key\": \"server:b\"}]");
    /* a client's info (no "server" key) stays out of server_info */
    FEED(t, 2, "\x2b\x00\x00\x00[5, {\"key\": \"client:x\", \"addr\": [null, 0]}]");
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_tstate_summary(t, &sb);
    assert_string_equal(sb.data, "{\"queue_info\": {}, \"server_info\": [{\"key\": \"server:b\", \"addr\": "
                                 "[\"10.1.2.3\", 2], \"x\": 1}]}");
    at_strbuf_fini(&sb);
    at_rpc_tstate_free(t);
    capture_fini(&cap);
}

static void put_conn(at_rpc_tstate *t, uint64_t conn, const char *matchkey, int port)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_enc_put(&sb, "rk", port, matchkey, NULL);
    bool stop;
    assert_ok(feed(t, conn, sb.data, sb.len, &stop));
    at_strbuf_fini(&sb);
}

static void request_conn(at_rpc_tstate *t, uint64_t conn, int64_t prio)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_enc_request(&sb, "rk", "", prio);
    bool stop;
    assert_ok(feed(t, conn, sb.data, sb.len, &stop));
    at_strbuf_fini(&sb);
}

/* The matchkey a client connection was handed ("" when none). */
static const char *assigned(const capture *c, int conn)
{
    static char buf[64];
    buf[0] = '\0';
    const char *s = at_strbuf_cstr(&c->out[conn]);
    const char *k = c->out[conn].len > 4 ? strstr(s + 4, "\"rk:") : NULL;
    if (k) snprintf(buf, sizeof buf, "%.*s", (int)(strchr(k + 1, '"') - k - 1), k + 1);
    return buf;
}

static void scheduler_should_serve_higher_priority_first_then_arrival(void **state)
{
    (void)state;
    capture cap;
    capture_init(&cap);
    at_rpc_tstate *t;
    assert_ok(at_rpc_tstate_new("s", capture_send, &cap, &t));
    for (uint64_t i = 1; i <= 6; i++) assert_ok(at_rpc_tstate_open(t, i, "127.0.0.1"));
    request_conn(t, 2, 1);
    request_conn(t, 3, 5);
    request_conn(t, 4, 3);
    request_conn(t, 5, 5);
    assert_int_equal(cap.n_sends, 0);
    put_conn(t, 1, "rk:1", 9001);
    assert_string_equal(assigned(&cap, 3), "rk:1");
    put_conn(t, 1, "rk:2", 9002);
    assert_string_equal(assigned(&cap, 5), "rk:2");
    put_conn(t, 1, "rk:3", 9003);
    assert_string_equal(assigned(&cap, 4), "rk:3");
    put_conn(t, 1, "rk:4", 9004);
    assert_string_equal(assigned(&cap, 2), "rk:4");
    /* free values are FIFO */
    put_conn(t, 1, "rk:5", 9005);
    put_conn(t, 1, "rk:6", 9006);
    at_strbuf_clear(&cap.out[6]);
    request_conn(t, 6, 0);
    assert_string_equal(assigned(&cap, 6), "rk:5");
    at_rpc_tstate_free(t);
    capture_fini(&cap);
}

static void scheduler_should_skip_gone_clients_and_drop_gone_servers(void **state)
{
    (void)state;
    capture cap;
    capture_init(&cap);
    at_rpc_tstate *t;
    assert_ok(at_rpc_tstate_new("s", capture_send, &cap, &t));
    for (uint64_t i = 1; i <= 4; i++) assert_ok(at_rpc_tstate_open(t, i, "127.0.0.1"));
    FEED(t, 1, "\x2c\x00\x00\x00[5, {\"key\": \"server:rk\", \"addr\": [null, 1]}]");
    request_conn(t, 2, 10);
    request_conn(t, 3, 1);
    /* client 2 goes away: its request stays queued (TVM does not purge it) ... */
    cap.gone[2] = true;
    at_rpc_tstate_close(t, 2);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_tstate_summary(t, &sb);
    assert_non_null(strstr(sb.data, "\"rk\": {\"free\": 0, \"pending\": 2}"));
    /* ... and is skipped when a server arrives: the value goes to the next request */
    put_conn(t, 1, "rk:1", 9001);
    assert_string_equal(assigned(&cap, 3), "rk:1");
    /* a server's free values leave with its connection, and so does its info */
    put_conn(t, 1, "rk:2", 9002);
    at_strbuf_clear(&sb);
    at_rpc_tstate_summary(t, &sb);
    assert_string_equal(sb.data, "{\"queue_info\": {\"rk\": {\"free\": 1, \"pending\": 0}}, \"server_info\": "
                                 "[{\"key\": \"server:rk\", \"addr\": [\"127.0.0.1\", 1]}]}");
    at_rpc_tstate_close(t, 1);
    at_strbuf_clear(&sb);
    at_rpc_tstate_summary(t, &sb);
    assert_string_equal(sb.data, "{\"queue_info\": {\"rk\": {\"free\": 0, \"pending\": 0}}, \"server_info\": []}");
    request_conn(t, 4, 1);
    assert_string_equal(assigned(&cap, 4), "");
    at_strbuf_fini(&sb);
    at_rpc_tstate_free(t);
    capture_fini(&cap);
}

static void tracker_state_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    long done = 0;
    for (long n = 0;; n++) {
        long live = at_alloc_live();
        capture cap;
        capture_init(&cap);
        at_rpc_tstate *t = NULL;
        at_alloc_fail_after(n);
        at_status st = at_rpc_tstate_new("s", capture_send, &cap, &t);
        bool stop;
        if (st == AT_OK) st = at_rpc_tstate_open(t, 1, "127.0.0.1");
        if (st == AT_OK) st = at_rpc_tstate_open(t, 2, "127.0.0.1");
        if (st == AT_OK) st = feed(t, 1, LIT("\x33\x00\x00\x00[5, {\"key\": \"server:rk3399\", \"addr\": [null, 9090]}]"), &stop);
        if (st == AT_OK) st = feed(t, 1, LIT("\x38\x00\x00\x00[3, \"rk3399\", [9090, \"rk3399:0.8444218515250481\"], null]"), &stop);
        if (st == AT_OK) st = feed(t, 2, LIT("\x03\x00\x00\x00[6]"), &stop);
        if (st == AT_OK) st = feed(t, 2, LIT("\x14\x00\x00\x00[4, \"rk3399\", \"\", 1]"), &stop);
        at_alloc_fail_after(-1);
        at_rpc_tstate_free(t);
        capture_fini(&cap);
        assert_int_equal(at_alloc_live(), live);
        if (st == AT_OK) {
            done = n;
            break;
        }
        assert_int_equal(st, AT_ENOMEM);
    }
    assert_true(done > 10);
}

/* ---- query-tracker text -------------------------------------------------------------------- */

static void check_text(const char *summary_json, const char *want)
{
    cJSON *s;
    assert_ok(at_json_parse(summary_json, strlen(summary_json), &s));
    at_strbuf sb;
    at_strbuf_init(&sb);
    assert_ok(at_rpc_summary_text(s, &sb));
    assert_string_equal(sb.data, want);
    at_strbuf_fini(&sb);
    at_json_free(s);
}

/* Expected texts come from running TVM v0.18's TrackerSession.text_summary on these inputs. */
static void summary_text_should_match_tvm_text_summary(void **state)
{
    (void)state;
    check_text("{\"queue_info\": {\"rk3399\": {\"free\": 1, \"pending\": 0}, \"rasp3b\": {\"free\": 0, \"pending\": 2}, "
               "\"idle\": {\"free\": 0, \"pending\": 0}, \"mali-long-key-name\": {\"free\": 2, \"pending\": 0}}, "
               "\"server_info\": [{\"key\": \"server:rk3399\", \"addr\": [\"192.168.1.10\", 9090]}, {\"key\": "
               "\"server:rasp3b\", \"addr\": [\"10.0.0.5\", 9091]}, {\"key\": \"server:mali-long-key-name\", \"addr\": "
               "[\"127.0.0.1\", 9093]}, {\"key\": \"server:mali-long-key-name\", \"addr\": [\"127.0.0.1\", 9092]}, "
               "{\"key\": \"server:rasp3b\", \"addr\": [\"10.0.0.6\", 9091]}]}",
               "Server List\n"
               "------------------------------\n"
               "server-address           key\n"
               "------------------------------\n"
               "       127.0.0.1:9093    server:mali-long-key-name\n"
               "       127.0.0.1:9092    server:mali-long-key-name\n"
               "        10.0.0.5:9091    server:rasp3b\n"
               "        10.0.0.6:9091    server:rasp3b\n"
               "    192.168.1.10:9090    server:rk3399\n"
               "------------------------------\n"
               "\n"
               "Queue Status\n"
               "------------------------------------------\n"
               "key                  total  free  pending\n"
               "------------------------------------------\n"
               "mali-long-key-name   2      2     0      \n"
               "rasp3b               2      0     2      \n"
               "rk3399               1      1     0      \n"
               "------------------------------------------\n");
    check_text("{\"queue_info\": {}, \"server_info\": []}",
               "Server List\n"
               "------------------------------\n"
               "server-address           key\n"
               "------------------------------\n"
               "------------------------------\n"
               "\n"
               "Queue Status\n"
               "---------------------------\n"
               "key   total  free  pending\n"
               "---------------------------\n"
               "---------------------------\n");
    check_text("{\"queue_info\": {\"a\": {\"free\": 0, \"pending\": 3}}, \"server_info\": []}",
               "Server List\n"
               "------------------------------\n"
               "server-address           key\n"
               "------------------------------\n"
               "------------------------------\n"
               "\n"
               "Queue Status\n"
               "---------------------------\n"
               "key   total  free  pending\n"
               "---------------------------\n"
               "a   0      0     3      \n"
               "---------------------------\n");
    /* widths count code points, as Python's format does */
    check_text("{\"queue_info\": {\"pi\\u00e9\": {\"free\": 1, \"pending\": 0}}, \"server_info\": [{\"key\": "
               "\"server:pi\\u00e9\", \"addr\": [\"h\\u00e9\", 1]}]}",
               "Server List\n"
               "------------------------------\n"
               "server-address           key\n"
               "------------------------------\n"
               "                 h\xc3\xa9:1    server:pi\xc3\xa9\n"
               "------------------------------\n"
               "\n"
               "Queue Status\n"
               "---------------------------\n"
               "key   total  free  pending\n"
               "---------------------------\n"
               "pi\xc3\xa9   1      1     0      \n"
               "---------------------------\n");
}

static void summary_text_should_reject_wrong_shapes(void **state)
{
    (void)state;
    static const char *bad[] = {
        "{\"queue_info\": []}",
        "{\"queue_info\": {}, \"server_info\": [{\"addr\": [\"h\", 1]}]}",
        "{\"queue_info\": {}, \"server_info\": [{\"key\": \"server:a\", \"addr\": [[1], 1]}]}",
        "{\"queue_info\": {\"a\": {\"free\": \"1\", \"pending\": 0}}, \"server_info\": []}",
        "{\"queue_info\": {\"a\": {\"free\": 1}}, \"server_info\": []}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *s;
        assert_ok(at_json_parse(bad[i], strlen(bad[i]), &s));
        at_strbuf sb;
        at_strbuf_init(&sb);
        assert_int_equal(at_rpc_summary_text(s, &sb), AT_EPARSE);
        at_strbuf_fini(&sb);
        at_json_free(s);
    }
}

static void summary_text_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    const char *json = "{\"queue_info\": {\"rk3399\": {\"free\": 1, \"pending\": 0}, \"b\": {\"free\": 0, \"pending\": 1}}, "
                       "\"server_info\": [{\"key\": \"server:rk3399\", \"addr\": [\"10.0.0.1\", 9090]}]}";
    cJSON *s;
    assert_ok(at_json_parse(json, strlen(json), &s));
    long ok_at = -1;
    for (long n = 0; n < 1000 && ok_at < 0; n++) {
        long live = at_alloc_live();
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_alloc_fail_after(n);
        at_status st = at_rpc_summary_text(s, &sb);
        at_alloc_fail_after(-1);
        at_strbuf_fini(&sb);
        assert_int_equal(at_alloc_live(), live);
        if (st == AT_OK)
            ok_at = n;
        else
            assert_int_equal(st, AT_ENOMEM);
    }
    assert_true(ok_at >= 3);
    at_json_free(s);
}

/* ---- data-plane handshake ------------------------------------------------------------------ */

static void data_plane_handshake_should_match_tvm_bytes(void **state)
{
    (void)state;
    char *key;
    assert_ok(at_rpc_dp_client_key("rk3399:0.5", 10, &key));
    assert_string_equal(key, "client:rk3399:0.5 -timeout=10");
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_enc_dp_hello(&sb, key);
    assert_bytes(&sb, LIT("\x71\xf2\x0f\x00\x1d\x00\x00\x00"
                          "client:rk3399:0.5 -timeout=10"));
    at_free(key);
    at_strbuf_clear(&sb);
    at_rpc_enc_dp_reply(&sb, AT_RPC_CODE_SUCCESS, "server:rk3399");
    assert_bytes(&sb, LIT("\x71\xf2\x0f\x00\x0d\x00\x00\x00server:rk3399"));
    at_strbuf_clear(&sb);
    at_rpc_enc_dp_reply(&sb, AT_RPC_CODE_MISMATCH, "server:rk3399");
    assert_bytes(&sb, LIT("\x73\xf2\x0f\x00"));
    at_strbuf_fini(&sb);
    assert_ok(at_rpc_dp_client_key("k:1", 0, &key));
    assert_string_equal(key, "client:k:1");
    at_free(key);
    assert_ok(at_rpc_dp_client_key("k:1", 2.5, &key));
    assert_string_equal(key, "client:k:1 -timeout=2.5");
    at_free(key);

    char *hdr;
    double t;
    assert_ok(at_rpc_dp_parse_key(LIT("  client:rk:0.5\t-timeout=4.0  -other "), &hdr, &t));
    assert_string_equal(hdr, "client:rk:0.5");
    assert_true(t == 4.0);
    at_free(hdr);
    assert_ok(at_rpc_dp_parse_key(LIT("client:rk"), &hdr, &t));
    assert_true(t == 0);
    at_free(hdr);
    static const char *bad[] = {"", "   ", "client:x -timeout=", "client:x -timeout=abc", "client:x -timeout=-1",
                                "client:x -timeout=inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hdr = (char *)1;
        assert_int_equal(at_rpc_dp_parse_key(bad[i], strlen(bad[i]), &hdr, &t), AT_EPARSE);
        assert_null(hdr);
    }
    assert_int_equal(at_rpc_dp_parse_key("a\0b", 3, &hdr, &t), AT_EPARSE);
}

static void random_key_should_look_like_python_random_random(void **state)
{
    (void)state;
    at_rng a, b;
    at_rng_seed(&a, 42);
    at_rng_seed(&b, 42);
    for (int i = 0; i < 200; i++) {
        char *k1, *k2;
        assert_ok(at_rpc_random_key(&a, "rk3399", &k1));
        assert_ok(at_rpc_random_key(&b, "rk3399", &k2));
        assert_string_equal(k1, k2);
        assert_memory_equal(k1, "rk3399:", 7);
        double v;
        assert_int_equal(at_parse_double(k1 + 7, &v), 0);
        assert_true(v >= 0 && v < 1);
        char back[AT_FMT_DOUBLE_MAX];
        at_fmt_double(v, back);
        assert_string_equal(back, k1 + 7);
        at_free(k1);
        at_free(k2);
    }
}

/* ---- session frames -------------------------------------------------------------------- */

static void session_frames_should_round_trip_and_reject_bad_headers(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_sess_enc(&sb, AT_RPC_SESS_MEASURE, 7, "abc", 3);
    assert_bytes(&sb, LIT("ATRP\x01\x00\x07\x00\x07\x00\x00\x00\x03\x00\x00\x00"
                          "abc"));
    at_rpc_sess_enc_error(&sb, 9, AT_RPC_SERR_TIMEOUT, AT_ETIMEOUT, "late");
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    at_rpc_sess_frame f;
    bool got;
    for (size_t i = 0; i < sb.len; i++) {
        assert_ok(at_rpc_reader_feed(&r, sb.data + i, 1));
        assert_ok(at_rpc_sess_take(&r, 16, &f, &got, NULL));
        if (got) break;
    }
    assert_true(got);
    assert_int_equal(f.type, AT_RPC_SESS_MEASURE);
    assert_int_equal(f.seq, 7);
    assert_int_equal(f.len, 3);
    assert_memory_equal(f.payload, "abc", 3);
    assert_ok(at_rpc_reader_feed(&r, sb.data + 19, sb.len - 19));
    assert_ok(at_rpc_sess_take(&r, 16, &f, &got, NULL));
    assert_true(got);
    assert_int_equal(f.type, AT_RPC_SESS_ERROR);
    at_rpc_sess_err err;
    at_status st;
    const char *msg;
    size_t len;
    assert_ok(at_rpc_sess_parse_error(&f, &err, &st, &msg, &len));
    assert_int_equal(err, AT_RPC_SERR_TIMEOUT);
    assert_int_equal(st, AT_ETIMEOUT);
    assert_int_equal(len, 4);
    assert_memory_equal(msg, "late", 4);
    at_rpc_reader_fini(&r);

    static const struct {
        const char *bytes;
        size_t      n;
        at_status   want;
        uint32_t    version;
    } bad[] = {
        {LIT("ATRX\x01\x00\x05\x00\x01\x00\x00\x00\x00\x00\x00\x00"), AT_EPARSE, 0},
        {LIT("ATRP\x02\x00\x05\x00\x01\x00\x00\x00\x00\x00\x00\x00"), AT_EPARSE, 2},
        {LIT("ATRP\x01\x00\x0b\x00\x01\x00\x00\x00\x00\x00\x00\x00"), AT_EPARSE, 0},
        {LIT("ATRP\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"), AT_EPARSE, 0},
        {LIT("ATRP\x01\x00\x05\x00\x01\x00\x00\x00\x11\x00\x00\x00"), AT_EINVAL, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        at_rpc_reader_init(&r);
        assert_ok(at_rpc_reader_feed(&r, bad[i].bytes, bad[i].n));
        uint32_t v = 0;
        assert_int_equal(at_rpc_sess_take(&r, 16, &f, &got, &v), bad[i].want);
        assert_int_equal(v, bad[i].version);
        assert_false(got);
        at_rpc_reader_fini(&r);
    }
    /* ERROR payloads are checked too */
    at_rpc_sess_frame e = {.type = AT_RPC_SESS_ERROR, .payload = (const unsigned char *)"\x63\x00\x00\x00\x00\x00\x00\x00", .len = 8};
    assert_int_equal(at_rpc_sess_parse_error(&e, &err, &st, &msg, &len), AT_EPARSE);
    e.len = 7;
    assert_int_equal(at_rpc_sess_parse_error(&e, &err, &st, &msg, &len), AT_EPARSE);
    e.payload = (const unsigned char *)"\x01\x00\x00\x00\x63\x00\x00\x00";
    e.len = 8;
    assert_int_equal(at_rpc_sess_parse_error(&e, &err, &st, &msg, &len), AT_EPARSE);
    at_strbuf_fini(&sb);
}

/* ---- SHA-256 / HMAC vectors (FIPS 180-4 examples, RFC 4231) -------------------------------- */

static void hex(const unsigned char *d, char out[65])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void sha256_and_hmac_should_match_published_vectors(void **state)
{
    (void)state;
    unsigned char d[32];
    char h[65];
    at_rpc_sha256 s;
    at_rpc_sha256_init(&s);
    at_rpc_sha256_final(&s, d);
    hex(d, h);
    assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    at_rpc_sha256_init(&s);
    at_rpc_sha256_update(&s, "abc", 3);
    at_rpc_sha256_final(&s, d);
    hex(d, h);
    assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    at_rpc_sha256_init(&s);
    for (size_t i = 0; i < strlen(two); i++) at_rpc_sha256_update(&s, two + i, 1);
    at_rpc_sha256_final(&s, d);
    hex(d, h);
    assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

    unsigned char key1[20];
    memset(key1, 0x0b, sizeof key1);
    const void *parts[2] = {"Hi ", "There"};
    size_t lens[2] = {3, 5};
    at_rpc_hmac_sha256(key1, sizeof key1, parts, lens, 2, d);
    hex(d, h);
    assert_string_equal(h, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    const void *p2[1] = {"what do ya want for nothing?"};
    size_t l2[1] = {28};
    at_rpc_hmac_sha256("Jefe", 4, p2, l2, 1, d);
    hex(d, h);
    assert_string_equal(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    unsigned char key6[131];
    memset(key6, 0xaa, sizeof key6);
    const void *p6[1] = {"Test Using Larger Than Block-Size Key - Hash Key First"};
    size_t l6[1] = {54};
    at_rpc_hmac_sha256(key6, sizeof key6, p6, l6, 1, d);
    hex(d, h);
    assert_string_equal(h, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    assert_true(at_rpc_ct_equal("abc", "abc", 3));
    assert_false(at_rpc_ct_equal("abc", "abd", 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tracker_magic_should_be_little_endian_0x2F271),
        cmocka_unit_test(tracker_encoders_should_write_json_dumps_bytes),
        cmocka_unit_test(reader_should_reassemble_frames_split_at_every_byte),
        cmocka_unit_test(reader_should_reject_bad_sizes_and_bad_json),
        cmocka_unit_test(tracker_msg_parse_should_check_every_field),
        cmocka_unit_test(reply_parsers_should_read_tvm_replies),
        cmocka_unit_test(tracker_should_answer_a_tvm_conversation_byte_for_byte),
        cmocka_unit_test(tracker_should_merge_update_info_like_dict_update),
        cmocka_unit_test(scheduler_should_serve_higher_priority_first_then_arrival),
        cmocka_unit_test(scheduler_should_skip_gone_clients_and_drop_gone_servers),
        cmocka_unit_test(tracker_state_should_survive_every_allocation_failure),
        cmocka_unit_test(summary_text_should_match_tvm_text_summary),
        cmocka_unit_test(summary_text_should_reject_wrong_shapes),
        cmocka_unit_test(summary_text_should_survive_every_allocation_failure),
        cmocka_unit_test(data_plane_handshake_should_match_tvm_bytes),
        cmocka_unit_test(random_key_should_look_like_python_random_random),
        cmocka_unit_test(session_frames_should_round_trip_and_reject_bad_headers),
        cmocka_unit_test(sha256_and_hmac_should_match_published_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
