/* rpc/ on loopback: a tracker and rpc-servers in forked processes, clients in this one (or in
 * forked ones). Priorities, vanished servers, malformed and oversize frames, auth keys, session
 * timeouts, crashes and matchkey renewal, each checked through the tracker's own SUMMARY. */
#include "tests/support/test_support.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "rpc/client.h"
#include "rpc/codec.h"
#include "rpc/internal.h"
#include "rpc/server.h"
#include "rpc/tracker.h"

#define STOP_KEY "tracker:test"

typedef struct world {
    pid_t tracker;
    int   tracker_port;
    pid_t servers[4];
    int   server_ports[4];
    int   n_servers;
} world;

static void reap(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}

static void start_tracker(world *w)
{
    at_rpc_tracker_opts o = {.port = AT_RPC_PORT_ANY, .stop_key = STOP_KEY};
    at_rpc_tracker *t;
    assert_ok(at_rpc_tracker_new(&o, &t));
    w->tracker_port = at_rpc_tracker_port(t);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        at_status st = at_rpc_tracker_run(t);
        _exit(st == AT_OK ? 0 : 1);
    }
    at_rpc_tracker_free(t); /* the child holds the listening socket now */
    w->tracker = pid;
}

/* A handler for tests: "echo:X" -> "X", "fail" -> AT_EDEVICE, "hang" -> sleeps, "die" -> SIGKILL. */
static at_status test_measure(void *ctx, const unsigned char *req, size_t len, at_strbuf *reply)
{
    (void)ctx;
    if (len >= 5 && !memcmp(req, "echo:", 5)) {
        at_strbuf_append(reply, (const char *)req + 5, len - 5);
        return AT_OK;
    }
    if (len == 4 && !memcmp(req, "fail", 4)) return AT_FAIL(AT_EDEVICE, "clBuildProgram failed: -11");
    if (len == 4 && !memcmp(req, "hang", 4)) {
        for (;;) pause();
    }
    if (len == 3 && !memcmp(req, "die", 3)) raise(SIGKILL);
    return AT_FAIL(AT_EINVAL, "unknown request");
}

static at_rpc_server_opts server_opts(const world *w, const char *key)
{
    return (at_rpc_server_opts){
        .port = AT_RPC_PORT_ANY,
        .tracker_host = "127.0.0.1",
        .tracker_port = w->tracker_port,
        .key = key,
        .seed = 1000u + (uint64_t)w->n_servers,
        .tracker_connect_timeout_ms = 5000,
        .tracker_retry_ms = 100,
        .handler = {.measure = test_measure},
    };
}

static int start_server_opts(world *w, const at_rpc_server_opts *o)
{
    AT_ASSERT(w->n_servers < 4);
    at_rpc_server *s;
    assert_ok(at_rpc_server_new(o, &s));
    int i = w->n_servers++;
    w->server_ports[i] = at_rpc_server_port(s);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        at_status st = at_rpc_server_run(s);
        _exit(st == AT_OK ? 0 : 1);
    }
    at_rpc_server_free(s);
    w->servers[i] = pid;
    return i;
}

static int start_server(world *w, const char *key)
{
    at_rpc_server_opts o = server_opts(w, key);
    return start_server_opts(w, &o);
}

static void stop_world(world *w)
{
    for (int i = 0; i < w->n_servers; i++) reap(w->servers[i]);
    reap(w->tracker);
}

static at_rpc_tclient *tracker_client(const world *w)
{
    at_rpc_tclient_opts o = {.connect_timeout_ms = 2000, .retry_period_ms = 50, .io_timeout_ms = 2000};
    at_rpc_tclient *c;
    assert_ok(at_rpc_tclient_connect("127.0.0.1", w->tracker_port, &o, &c));
    return c;
}

/* The queue of key: free and pending (-1 when the key is unknown) and the number of servers. */
typedef struct queue_state {
    int free, pending, servers;
} queue_state;

static queue_state queue_of(const world *w, const char *key)
{
    at_rpc_tclient *c = tracker_client(w);
    cJSON *s;
    assert_ok(at_rpc_tclient_summary(c, &s));
    at_rpc_tclient_free(c);
    queue_state q = {-1, -1, 0};
    const cJSON *qi = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "queue_info"), key);
    if (qi) {
        q.free = (int)cJSON_GetObjectItemCaseSensitive(qi, "free")->valuedouble;
        q.pending = (int)cJSON_GetObjectItemCaseSensitive(qi, "pending")->valuedouble;
    }
    const cJSON *si = cJSON_GetObjectItemCaseSensitive(s, "server_info");
    for (const cJSON *e = si->child; e; e = e->next) {
        const char *k = cJSON_GetObjectItemCaseSensitive(e, "key")->valuestring;
        if (!strncmp(k, "server:", 7) && !strcmp(k + 7, key)) q.servers++;
    }
    at_json_free(s);
    return q;
}

/* Polls the tracker until key's queue shows free and servers (pending ignored when < 0). */
static void wait_queue(const world *w, const char *key, int free_n, int pending, int servers)
{
    double end = at_clock_mono_s() + 8.0;
    queue_state q;
    for (;;) {
        q = queue_of(w, key);
        if (q.free == free_n && q.servers == servers && (pending < 0 || q.pending == pending)) return;
        if (at_clock_mono_s() > end) break;
        poll(NULL, 0, 20);
    }
    fail_msg("queue %s: free %d pending %d servers %d, waited for %d/%d/%d", key, q.free, q.pending, q.servers, free_n,
             pending, servers);
}

static at_rpc_request_opts req_opts(const world *w, const char *key, int64_t prio)
{
    return (at_rpc_request_opts){
        .tracker_host = "127.0.0.1",
        .tracker_port = w->tracker_port,
        .key = key,
        .priority = prio,
        .request_timeout_ms = 5000,
        .max_retry = 2,
        .tracker = {.connect_timeout_ms = 2000, .retry_period_ms = 50, .io_timeout_ms = 2000},
        .session = {.io_timeout_ms = 3000},
    };
}

static void measure_echo(at_rpc_session *s, const char *text)
{
    char req[64];
    snprintf(req, sizeof req, "echo:%s", text);
    unsigned char *reply;
    size_t n;
    assert_ok(at_rpc_session_measure(s, req, strlen(req), 0, &reply, &n));
    assert_int_equal(n, strlen(text));
    assert_memory_equal(reply, text, n);
    at_free(reply);
}

/* ------------------------------------------------------------------------------------------ */

static void session_should_ping_and_measure_through_the_tracker(void **state)
{
    world *w = *state;
    start_tracker(w);
    start_server(w, "rk3399");
    wait_queue(w, "rk3399", 1, 0, 1);
    at_rpc_request_opts ro = req_opts(w, "rk3399", 1);
    at_rpc_session *s;
    assert_ok(at_rpc_request_session(&ro, &s));
    assert_string_equal(at_rpc_session_server_key(s), "server:rk3399");
    wait_queue(w, "rk3399", 0, 0, 1);
    assert_ok(at_rpc_session_ping(s, "hello", 5, 0));
    assert_ok(at_rpc_session_ping(s, NULL, 0, 0));
    measure_echo(s, "0.000123");
    /* a handler's failure travels back with its status and message; the session goes on */
    unsigned char *reply;
    size_t n;
    assert_int_equal(at_rpc_session_measure(s, "fail", 4, 0, &reply, &n), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "clBuildProgram failed: -11"));
    assert_null(reply);
    measure_echo(s, "again");
    /* a 1 MiB request and reply */
    size_t big = 1u << 20;
    char *req = at_malloc(big + 5);
    memcpy(req, "echo:", 5);
    for (size_t i = 0; i < big; i++) req[5 + i] = (char)('a' + i % 26);
    assert_ok(at_rpc_session_measure(s, req, big + 5, 0, &reply, &n));
    assert_int_equal(n, big);
    assert_memory_equal(reply, req + 5, big);
    at_free(reply);
    at_free(req);
    at_rpc_session_free(s);
    /* after the session the server registers again */
    wait_queue(w, "rk3399", 1, 0, 1);
}

static void requests_should_be_served_by_priority_then_arrival(void **state)
{
    world *w = *state;
    start_tracker(w);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    static const int64_t prio[4] = {1, 10, 5, 10};
    pid_t kids[4];
    for (int i = 0; i < 4; i++) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            close(fds[0]);
            at_rpc_request_opts ro = req_opts(w, "rk3399", prio[i]);
            ro.request_timeout_ms = 20000;
            at_rpc_session *s;
            if (at_rpc_request_session(&ro, &s) != AT_OK) _exit(1);
            char c = (char)('0' + i);
            if (write(fds[1], &c, 1) != 1) _exit(2);
            if (at_rpc_session_ping(s, "x", 1, 0) != AT_OK) _exit(3);
            at_rpc_session_free(s);
            _exit(0);
        }
        /* one at a time, so arrival order is the fork order */
        wait_queue(w, "rk3399", 0, i + 1, 0);
    }
    close(fds[1]);
    start_server(w, "rk3399");
    char order[5] = {0};
    size_t got = 0;
    while (got < 4) {
        ssize_t k = read(fds[0], order + got, 4 - got);
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fds[0]);
    assert_int_equal(got, 4);
    /* priority 10 (first, then second arrival), 5, 1 */
    assert_string_equal(order, "1320");
    for (int i = 0; i < 4; i++) {
        int st;
        assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    wait_queue(w, "rk3399", 1, 0, 1);
}

static void a_server_that_disappears_should_leave_the_summary(void **state)
{
    world *w = *state;
    start_tracker(w);
    start_server(w, "rk3399");
    start_server(w, "rk3399");
    int c = start_server(w, "rasp3b");
    wait_queue(w, "rk3399", 2, 0, 2);
    wait_queue(w, "rasp3b", 1, 0, 1);
    reap(w->servers[0]);
    w->servers[0] = -1;
    wait_queue(w, "rk3399", 1, 0, 1);
    /* the query-tracker text for the state left: one rk3399, one rasp3b */
    at_rpc_tclient *tc = tracker_client(w);
    at_strbuf text, want;
    at_strbuf_init(&text);
    at_strbuf_init(&want);
    assert_ok(at_rpc_tclient_summary_text(tc, &text));
    at_rpc_tclient_free(tc);
    char a[32], b[32];
    snprintf(a, sizeof a, "127.0.0.1:%d", w->server_ports[c]);
    snprintf(b, sizeof b, "127.0.0.1:%d", w->server_ports[1]);
    at_strbuf_printf(&want,
                     "Server List\n"
                     "------------------------------\n"
                     "server-address           key\n"
                     "------------------------------\n"
                     "%21s    server:rasp3b\n"
                     "%21s    server:rk3399\n"
                     "------------------------------\n"
                     "\n"
                     "Queue Status\n"
                     "------------------------------\n"
                     "key      total  free  pending\n"
                     "------------------------------\n"
                     "rasp3b   1      1     0      \n"
                     "rk3399   1      1     0      \n"
                     "------------------------------\n",
                     a, b);
    assert_string_equal(text.data, want.data);
    at_strbuf_fini(&text);
    at_strbuf_fini(&want);
    /* the remaining rk3399 still serves */
    at_rpc_request_opts ro = req_opts(w, "rk3399", 1);
    at_rpc_session *s;
    assert_ok(at_rpc_request_session(&ro, &s));
    measure_echo(s, "ok");
    at_rpc_session_free(s);
}

/* A raw socket that has done the tracker handshake (or not, when magic is 0). */
static int raw_tracker(const world *w, int32_t magic)
{
    int fd;
    assert_ok(at_rpc_net_connect("127.0.0.1", w->tracker_port, 2000, &fd, NULL));
    if (!magic) return fd;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_put_i32(&sb, magic);
    assert_ok(at_rpc_net_send_all(fd, sb.data, sb.len, at_rpc_deadline(2000)));
    at_strbuf_fini(&sb);
    if (magic != AT_RPC_TRACKER_MAGIC) return fd;
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    int32_t got = 0;
    while (!at_rpc_reader_take_i32(&r, &got)) assert_ok(at_rpc_net_recv(fd, &r, at_rpc_deadline(2000)));
    assert_int_equal(got, AT_RPC_TRACKER_MAGIC);
    at_rpc_reader_fini(&r);
    return fd;
}

/* Sends bytes and checks the peer closes the connection (reads reach EOF, no reply). */
static void expect_closed_after(int fd, const void *bytes, size_t n)
{
    if (n) {
        at_status st = at_rpc_net_send_all(fd, bytes, n, at_rpc_deadline(2000));
        assert_true(st == AT_OK || st == AT_EIO);
    }
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    at_status st;
    do {
        st = at_rpc_net_recv(fd, &r, at_rpc_deadline(3000));
    } while (st == AT_OK);
    assert_int_equal(st, AT_EIO); /* closed, not timed out */
    at_rpc_reader_fini(&r);
    at_rpc_net_close(fd);
}

static void malformed_and_oversize_frames_should_close_only_their_connection(void **state)
{
    world *w = *state;
    start_tracker(w);
    start_server(w, "rk3399");
    wait_queue(w, "rk3399", 1, 0, 1);
    at_rpc_tclient *keep = tracker_client(w);
    static const struct {
        const char *bytes;
        size_t      n;
    } bad[] = {
        {"\x00\x00\x20\x00", 4},                 /* 2 MiB frame */
        {"\x00\x00\x00\x00", 4},                 /* empty frame */
        {"\xf0\xff\xff\xff", 4},                 /* negative length */
        {"\x05\x00\x00\x00[1, ]", 9},            /* invalid JSON */
        {"\x03\x00\x00\x00[9]", 7},              /* unknown code */
        {"\x07\x00\x00\x00[3, 1]", 11},          /* PUT with bad fields */
        {"\x03\x00\x00\x00\xff\xfe]", 7},        /* invalid UTF-8 */
        {"\x08\x00\x00\x00{\"a\": 1}", 12},      /* not a list */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_closed_after(raw_tracker(w, AT_RPC_TRACKER_MAGIC), bad[i].bytes, bad[i].n);
    expect_closed_after(raw_tracker(w, 0x12345), NULL, 0); /* wrong magic */
    expect_closed_after(raw_tracker(w, AT_RPC_MAGIC), NULL, 0);
    /* a 2 MiB frame actually sent in full */
    size_t big = (2u << 20) + 4;
    char *blob = at_calloc(1, big);
    blob[2] = 0x20;
    expect_closed_after(raw_tracker(w, AT_RPC_TRACKER_MAGIC), blob, big);
    at_free(blob);
    /* everyone else is still served: an open connection, new ones, the registration */
    assert_ok(at_rpc_tclient_ping(keep));
    at_rpc_tclient_free(keep);
    wait_queue(w, "rk3399", 1, 0, 1);

    /* the rpc-server's data plane: wrong magic, a key above the limit, a wrong matchkey */
    int fd;
    assert_ok(at_rpc_net_connect("127.0.0.1", w->server_ports[0], 2000, &fd, NULL));
    expect_closed_after(fd, "\x01\x02\x03\x04", 4);
    assert_ok(at_rpc_net_connect("127.0.0.1", w->server_ports[0], 2000, &fd, NULL));
    expect_closed_after(fd, "\x71\xf2\x0f\x00\x00\x00\x10\x00", 8);
    at_rpc_session *s;
    at_rpc_session_opts so = {.io_timeout_ms = 2000};
    assert_int_equal(at_rpc_session_open("127.0.0.1", w->server_ports[0], "rk3399:0.123", &so, &s), AT_EIO);
    assert_non_null(strstr(at_last_error(), "mismatch"));
    /* garbage after a good handshake: the session answers ERROR and closes; the server goes on */
    at_rpc_assignment a;
    keep = tracker_client(w);
    assert_ok(at_rpc_tclient_request(keep, "rk3399", 1, 3000, &a));
    at_rpc_tclient_free(keep);
    assert_ok(at_rpc_net_connect(a.host, a.port, 2000, &fd, NULL));
    at_strbuf sb;
    at_strbuf_init(&sb);
    char *key;
    assert_ok(at_rpc_dp_client_key(a.matchkey, 0, &key));
    at_rpc_enc_dp_hello(&sb, key);
    at_free(key);
    at_strbuf_append(&sb, "GARBAGE-GARBAGE-GARBAGE", 23);
    assert_ok(at_rpc_net_send_all(fd, sb.data, sb.len, at_rpc_deadline(2000)));
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    at_status st;
    do {
        st = at_rpc_net_recv(fd, &r, at_rpc_deadline(3000));
    } while (st == AT_OK);
    assert_int_equal(st, AT_EIO);
    int32_t code;
    assert_true(at_rpc_reader_take_i32(&r, &code));
    assert_int_equal(code, AT_RPC_CODE_SUCCESS);
    const char *p;
    size_t n;
    bool got;
    assert_ok(at_rpc_reader_take_frame(&r, 100, &p, &n, &got));
    assert_true(got);
    at_rpc_sess_frame f;
    assert_ok(at_rpc_sess_take(&r, 4096, &f, &got, NULL));
    assert_true(got);
    assert_int_equal(f.type, AT_RPC_SESS_ERROR);
    at_rpc_sess_err err;
    const char *msg;
    assert_ok(at_rpc_sess_parse_error(&f, &err, &st, &msg, &n));
    assert_int_equal(err, AT_RPC_SERR_PROTOCOL);
    at_rpc_reader_fini(&r);
    at_strbuf_fini(&sb);
    at_rpc_net_close(fd);
    at_rpc_assignment_fini(&a);
    wait_queue(w, "rk3399", 1, 0, 1);
    at_rpc_request_opts ro = req_opts(w, "rk3399", 1);
    assert_ok(at_rpc_request_session(&ro, &s));
    measure_echo(s, "still here");
    at_rpc_session_free(s);
}

static at_status open_assigned(const world *w, const char *key, const char *auth, at_rpc_session **s)
{
    at_rpc_request_opts ro = req_opts(w, key, 1);
    ro.max_retry = 1;
    ro.session.auth_key = auth;
    return at_rpc_request_session(&ro, s);
}

static void auth_keys_should_be_checked_on_both_sides(void **state)
{
    world *w = *state;
    start_tracker(w);
    at_rpc_server_opts o = server_opts(w, "secure");
    o.auth_key = "s3cret";
    start_server_opts(w, &o);
    start_server(w, "open");
    wait_queue(w, "secure", 1, 0, 1);
    wait_queue(w, "open", 1, 0, 1);
    at_rpc_session *s;
    assert_int_equal(open_assigned(w, "secure", "wrong", &s), AT_EIO);
    assert_non_null(strstr(at_last_error(), "auth key differs"));
    wait_queue(w, "secure", 1, 0, 1);
    assert_int_equal(open_assigned(w, "secure", NULL, &s), AT_EIO);
    assert_non_null(strstr(at_last_error(), "requires an auth key"));
    wait_queue(w, "secure", 1, 0, 1);
    assert_int_equal(open_assigned(w, "open", "s3cret", &s), AT_EIO);
    assert_non_null(strstr(at_last_error(), "presented no auth key"));
    wait_queue(w, "open", 1, 0, 1);

    /* the server's own check: a client that answers the CHALLENGE with a made-up proof */
    at_rpc_tclient *tc = tracker_client(w);
    at_rpc_assignment a;
    assert_ok(at_rpc_tclient_request(tc, "secure", 1, 3000, &a));
    at_rpc_tclient_free(tc);
    int fd;
    assert_ok(at_rpc_net_connect(a.host, a.port, 2000, &fd, NULL));
    at_strbuf sb;
    at_strbuf_init(&sb);
    char *key;
    assert_ok(at_rpc_dp_client_key(a.matchkey, 0, &key));
    at_rpc_enc_dp_hello(&sb, key);
    at_free(key);
    unsigned char hello[40] = {0}, proof[32];
    hello[32] = 1;     /* flags: holds a key */
    hello[36 + 1] = 1; /* max payload 256 */
    memset(proof, 0x5a, sizeof proof);
    at_rpc_sess_enc(&sb, AT_RPC_SESS_HELLO, 0, hello, sizeof hello);
    at_rpc_sess_enc(&sb, AT_RPC_SESS_AUTH, 0, proof, sizeof proof);
    assert_ok(at_rpc_net_send_all(fd, sb.data, sb.len, at_rpc_deadline(2000)));
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    at_status st;
    do {
        st = at_rpc_net_recv(fd, &r, at_rpc_deadline(3000));
    } while (st == AT_OK);
    assert_int_equal(st, AT_EIO);
    int32_t code;
    const char *p;
    size_t n;
    bool got;
    assert_true(at_rpc_reader_take_i32(&r, &code));
    assert_ok(at_rpc_reader_take_frame(&r, 100, &p, &n, &got));
    at_rpc_sess_frame f;
    assert_ok(at_rpc_sess_take(&r, 4096, &f, &got, NULL));
    assert_true(got);
    assert_int_equal(f.type, AT_RPC_SESS_CHALLENGE);
    assert_int_equal(f.len, 72);
    assert_ok(at_rpc_sess_take(&r, 4096, &f, &got, NULL));
    assert_true(got);
    assert_int_equal(f.type, AT_RPC_SESS_ERROR);
    at_rpc_sess_err err;
    const char *msg;
    assert_ok(at_rpc_sess_parse_error(&f, &err, &st, &msg, &n));
    assert_int_equal(err, AT_RPC_SERR_AUTH);
    at_rpc_reader_fini(&r);
    at_strbuf_fini(&sb);
    at_rpc_net_close(fd);
    at_rpc_assignment_fini(&a);

    /* the right key works, and the tracker served all along */
    wait_queue(w, "secure", 1, 0, 1);
    assert_ok(open_assigned(w, "secure", "s3cret", &s));
    measure_echo(s, "authenticated");
    at_rpc_session_free(s);
}

static void session_timeout_should_kill_a_hung_handler_and_the_server_comes_back(void **state)
{
    world *w = *state;
    start_tracker(w);
    start_server(w, "rk3399");
    wait_queue(w, "rk3399", 1, 0, 1);
    at_rpc_request_opts ro = req_opts(w, "rk3399", 1);
    ro.session.session_timeout_s = 0.5;
    at_rpc_session *s;
    assert_ok(at_rpc_request_session(&ro, &s));
    double t0 = at_clock_mono_s();
    unsigned char *reply;
    size_t n;
    assert_int_equal(at_rpc_session_measure(s, "hang", 4, 5000, &reply, &n), AT_ETIMEOUT);
    double took = at_clock_mono_s() - t0;
    assert_non_null(strstr(at_last_error(), "RPCSessionTimeoutError: Your 0.5s session has expired, try to increase "
                                            "the \"session_timeout\" value."));
    assert_true(took >= 0.4 && took < 2.5);
    /* the session is closed on the client side too */
    assert_int_equal(at_rpc_session_ping(s, "x", 1, 0), AT_EIO);
    at_rpc_session_free(s);
    wait_queue(w, "rk3399", 1, 0, 1);

    /* a session process that dies is reported as such, and the server comes back again */
    ro.session.session_timeout_s = 0;
    assert_ok(at_rpc_request_session(&ro, &s));
    assert_int_equal(at_rpc_session_measure(s, "die", 3, 5000, &reply, &n), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "signal 9"));
    at_rpc_session_free(s);
    wait_queue(w, "rk3399", 1, 0, 1);
    assert_ok(at_rpc_request_session(&ro, &s));
    measure_echo(s, "alive");
    at_rpc_session_free(s);
    /* the server process itself never died */
    assert_int_equal(waitpid(w->servers[0], NULL, WNOHANG), 0);
}

static void an_unused_matchkey_should_be_renewed(void **state)
{
    world *w = *state;
    start_tracker(w);
    at_rpc_server_opts o = server_opts(w, "rk3399");
    o.ping_period_ms = 50;
    o.unmatch_timeout_ms = 100;
    start_server_opts(w, &o);
    wait_queue(w, "rk3399", 1, 0, 1);
    at_rpc_tclient *tc = tracker_client(w);
    at_rpc_assignment first, second;
    assert_ok(at_rpc_tclient_request(tc, "rk3399", 1, 3000, &first));
    /* nobody connects with it: the server notices and PUTs a fresh key */
    assert_ok(at_rpc_tclient_request(tc, "rk3399", 1, 5000, &second));
    at_rpc_tclient_free(tc);
    assert_string_not_equal(first.matchkey, second.matchkey);
    assert_int_equal(first.port, second.port);
    at_rpc_session *s;
    at_rpc_session_opts so = {.io_timeout_ms = 2000};
    assert_int_equal(at_rpc_session_open(first.host, first.port, first.matchkey, &so, &s), AT_EIO);
    assert_ok(at_rpc_session_open(second.host, second.port, second.matchkey, &so, &s));
    measure_echo(s, "renewed");
    at_rpc_session_free(s);
    at_rpc_assignment_fini(&first);
    at_rpc_assignment_fini(&second);
}

static void a_request_should_time_out_and_stop_should_need_the_key(void **state)
{
    world *w = *state;
    start_tracker(w);
    at_rpc_tclient *tc = tracker_client(w);
    at_rpc_assignment a;
    double t0 = at_clock_mono_s();
    assert_int_equal(at_rpc_tclient_request(tc, "nothing", 1, 300, &a), AT_ETIMEOUT);
    assert_true(at_clock_mono_s() - t0 < 2.0);
    at_rpc_tclient_free(tc);
    /* the abandoned request stays counted, as in TVM */
    wait_queue(w, "nothing", 0, 1, 0);
    tc = tracker_client(w);
    assert_int_equal(at_rpc_tclient_stop(tc, "tracker:wrong"), AT_EINVAL);
    assert_ok(at_rpc_tclient_ping(tc));
    assert_ok(at_rpc_tclient_stop(tc, STOP_KEY));
    at_rpc_tclient_free(tc);
    int st;
    assert_int_equal(waitpid(w->tracker, &st, 0), w->tracker);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    w->tracker = -1;
    int fd;
    bool refused;
    assert_int_equal(at_rpc_net_connect("127.0.0.1", w->tracker_port, 1000, &fd, &refused), AT_EIO);
    assert_true(refused);
}

static int world_setup(void **state)
{
    world *w = calloc(1, sizeof *w);
    if (!w) return -1;
    w->tracker = -1;
    *state = w;
    return 0;
}

/* Runs whether the test passed or failed, so no process outlives its test. */
static int world_teardown(void **state)
{
    world *w = *state;
    stop_world(w);
    free(w);
    return 0;
}

static void a_server_without_tracker_should_take_its_key_as_matchkey_and_stop_after_max_sessions(void **state)
{
    world *w = *state;
    at_rpc_server_opts o = {.port = AT_RPC_PORT_ANY, .key = "standalone", .max_sessions = 1,
                            .handler = {.measure = test_measure}};
    int i = start_server_opts(w, &o);
    at_rpc_session *s;
    at_rpc_session_opts so = {.io_timeout_ms = 2000};
    assert_int_equal(at_rpc_session_open("127.0.0.1", w->server_ports[i], "other", &so, &s), AT_EIO);
    assert_ok(at_rpc_session_open("127.0.0.1", w->server_ports[i], "standalone", &so, &s));
    measure_echo(s, "solo");
    at_rpc_session_free(s);
    int st;
    assert_int_equal(waitpid(w->servers[i], &st, 0), w->servers[i]);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    w->servers[i] = -1;
}

int main(void)
{
    at_log_set_level(AT_LOG_ERROR);
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(session_should_ping_and_measure_through_the_tracker, world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(requests_should_be_served_by_priority_then_arrival, world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(a_server_that_disappears_should_leave_the_summary, world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(malformed_and_oversize_frames_should_close_only_their_connection, world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(auth_keys_should_be_checked_on_both_sides, world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(session_timeout_should_kill_a_hung_handler_and_the_server_comes_back, world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(an_unused_matchkey_should_be_renewed, world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(a_request_should_time_out_and_stop_should_need_the_key, world_setup, world_teardown),
        cmocka_unit_test_setup_teardown(a_server_without_tracker_should_take_its_key_as_matchkey_and_stop_after_max_sessions,
                                        world_setup, world_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
