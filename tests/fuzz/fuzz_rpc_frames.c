/* libFuzzer target for what rpc/ reads from the network: the first byte picks the reader, the
 * rest is the peer's byte stream.
 *   0: a tracker's peer: magic, then length-prefixed JSON requests, each checked
 *      (at_rpc_tracker_msg_parse) and handled by the tracker's state machine (two connections),
 *      whose SUMMARY must stay JSON;
 *   1: a tracker client's replies: every reply parser, and the summary's text tables;
 *   2: session frames (ours): each frame taken, an ERROR frame's fields read, and every frame
 *      re-encoded and taken back identical;
 *   3: the data-plane handshake key: parsed, rebuilt from its parts and parsed back the same.
 * Any crash, sanitizer report, abort() or leaked block (at_alloc_live) is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "rpc/codec.h"
#include "rpc/internal.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_MSG = 1 << 16 };

static bool sink(void *ctx, uint64_t conn, const char *d, size_t n)
{
    (void)conn;
    (void)d;
    *(size_t *)ctx += n;
    return true;
}

static void tracker_peer(at_rpc_reader *r)
{
    int32_t magic;
    if (!at_rpc_reader_take_i32(r, &magic)) return;
    size_t sent = 0;
    at_rpc_tstate *t;
    CHECK(at_rpc_tstate_new("tracker:fuzz", sink, &sent, &t) == AT_OK);
    CHECK(at_rpc_tstate_open(t, 1, "127.0.0.1") == AT_OK);
    CHECK(at_rpc_tstate_open(t, 2, "10.0.0.2") == AT_OK);
    for (uint64_t conn = 1;; conn = 3 - conn) {
        cJSON *msg = NULL;
        bool got = false;
        at_status st = at_rpc_reader_take_json(r, MAX_MSG, &msg, &got);
        CHECK(st == AT_OK || st == AT_EPARSE);
        if (st != AT_OK || !got) break;
        at_rpc_tracker_msg m;
        (void)at_rpc_tracker_msg_parse(msg, &m);
        bool stop = false;
        st = at_rpc_tstate_handle(t, conn, msg, &stop);
        CHECK(st == AT_OK || st == AT_EPARSE);
        at_json_free(msg);
        if (st != AT_OK || stop) break; /* the tracker closes a connection that sent garbage */
    }
    /* what the tracker answers SUMMARY with is JSON, whatever its peers sent */
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_tstate_summary(t, &sb);
    CHECK(at_strbuf_status(&sb) == AT_OK);
    cJSON *sum = NULL;
    CHECK(at_json_parse(sb.data, sb.len, &sum) == AT_OK);
    at_json_free(sum);
    at_strbuf_fini(&sb);
    at_rpc_tstate_close(t, 1);
    at_rpc_tstate_free(t);
}

static void tracker_client(at_rpc_reader *r)
{
    for (;;) {
        cJSON *v = NULL;
        bool got = false;
        at_status st = at_rpc_reader_take_json(r, MAX_MSG, &v, &got);
        if (st != AT_OK || !got) break;
        int code;
        (void)at_rpc_parse_code_reply(v, &code);
        const char *host, *matchkey;
        int port;
        if (at_rpc_parse_assign_reply(v, &host, &port, &matchkey) == AT_OK) CHECK(host && matchkey);
        bool has;
        (void)at_rpc_parse_pending_reply(v, "key:abc", &has);
        const cJSON *summary;
        if (at_rpc_parse_summary_reply(v, &summary) == AT_OK) {
            at_strbuf sb;
            at_strbuf_init(&sb);
            at_status ts = at_rpc_summary_text(summary, &sb);
            CHECK(ts == AT_OK || ts == AT_EPARSE);
            at_strbuf_fini(&sb);
        }
        at_json_free(v);
    }
}

static void session_frames(at_rpc_reader *r)
{
    for (;;) {
        at_rpc_sess_frame f;
        bool got = false;
        uint32_t bad_version = 0;
        at_status st = at_rpc_sess_take(r, MAX_MSG, &f, &got, &bad_version);
        CHECK(st == AT_OK || st == AT_EPARSE || st == AT_EINVAL);
        if (st != AT_OK || !got) break;
        CHECK(f.len <= MAX_MSG);
        if (f.type == AT_RPC_SESS_ERROR) {
            at_rpc_sess_err err;
            at_status est;
            const char *msg;
            size_t msg_len;
            if (at_rpc_sess_parse_error(&f, &err, &est, &msg, &msg_len) == AT_OK)
                CHECK(msg_len <= AT_RPC_SESS_MAX_ERROR_MSG && msg_len + 8 == f.len);
        }
        /* re-encoded, the frame reads back the same */
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_rpc_sess_enc(&sb, f.type, f.seq, f.payload, f.len);
        CHECK(at_strbuf_status(&sb) == AT_OK);
        at_rpc_reader r2;
        at_rpc_reader_init(&r2);
        CHECK(at_rpc_reader_feed(&r2, sb.data, sb.len) == AT_OK);
        at_rpc_sess_frame g;
        bool got2 = false;
        CHECK(at_rpc_sess_take(&r2, MAX_MSG, &g, &got2, NULL) == AT_OK && got2);
        CHECK(g.type == f.type && g.seq == f.seq && g.len == f.len && (!f.len || !memcmp(g.payload, f.payload, f.len)));
        at_rpc_reader_fini(&r2);
        at_strbuf_fini(&sb);
    }
}

static void dp_key(const char *key, size_t len)
{
    char *header = NULL;
    double timeout = -1;
    at_status st = at_rpc_dp_parse_key(key, len, &header, &timeout);
    CHECK(st == AT_OK || st == AT_EPARSE);
    if (st != AT_OK) {
        CHECK(header == NULL);
        return;
    }
    CHECK(header && timeout >= 0);
    if (!strncmp(header, "client:", 7)) {
        char *k = NULL;
        CHECK(at_rpc_dp_client_key(header + 7, timeout, &k) == AT_OK);
        char *h2 = NULL;
        double t2 = -1;
        CHECK(at_rpc_dp_parse_key(k, strlen(k), &h2, &t2) == AT_OK);
        CHECK(!strcmp(h2, header) && t2 == timeout);
        at_free(h2);
        at_free(k);
    }
    at_free(header);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    at_log_set_sink(at_fuzz_quiet, NULL);
    if (size < 1) return 0;
    long live = at_alloc_live();
    unsigned mode = data[0] % 4;
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    if (mode != 3) CHECK(at_rpc_reader_feed(&r, data + 1, size - 1) == AT_OK);
    switch (mode) {
    case 0: tracker_peer(&r); break;
    case 1: tracker_client(&r); break;
    case 2: session_frames(&r); break;
    default: dp_key((const char *)data + 1, size - 1); break;
    }
    at_rpc_reader_fini(&r);
    CHECK(at_alloc_live() == live);
    return 0;
}
