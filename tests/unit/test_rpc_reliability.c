/* rpc/ against idle and half-open peers (issue 19): connections that never finish their
 * handshake must not keep clients from an rpc-server (handshakes are served concurrently, each
 * with its own deadline), and peers that send half a message must not hold a tracker's slots (a
 * read deadline drops them). A tracker and an rpc-server run in forked processes. */
#include "tests/support/test_support.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "rpc/client.h"
#include "rpc/codec.h"
#include "rpc/internal.h"
#include "rpc/server.h"
#include "rpc/tracker.h"

static void quiet(at_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)msg;
    (void)user;
}

static void reap(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}

/* The processes a case started: reaped by the teardown even when the case fails half-way. */
static pid_t children[2];

static int reap_children(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        reap(children[i]);
        children[i] = 0;
    }
    return 0;
}

/* Forks a tracker with opts; returns its pid, *port its port. */
static pid_t start_tracker(const at_rpc_tracker_opts *o, int *port)
{
    at_rpc_tracker *t;
    assert_ok(at_rpc_tracker_new(o, &t));
    *port = at_rpc_tracker_port(t);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(at_rpc_tracker_run(t) == AT_OK ? 0 : 1);
    at_rpc_tracker_free(t);
    return pid;
}

static at_status echo(void *ctx, const unsigned char *req, size_t len, at_strbuf *reply)
{
    (void)ctx;
    at_strbuf_append(reply, (const char *)req, len);
    return AT_OK;
}

static const at_rpc_tclient_opts tc_opts = {.connect_timeout_ms = 2000, .retry_period_ms = 50, .io_timeout_ms = 2000};

/* Number of servers registered under key (-1 when the tracker cannot be asked now). */
static int servers_under(int tracker_port, const char *key)
{
    at_rpc_tclient *c;
    if (at_rpc_tclient_connect("127.0.0.1", tracker_port, &tc_opts, &c) != AT_OK) return -1;
    cJSON *s = NULL;
    at_status st = at_rpc_tclient_summary(c, &s);
    at_rpc_tclient_free(c);
    if (st != AT_OK) return -1;
    int n = 0;
    const cJSON *si = cJSON_GetObjectItemCaseSensitive(s, "server_info");
    for (const cJSON *e = si ? si->child : NULL; e; e = e->next) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "key");
        if (cJSON_IsString(k) && !strncmp(k->valuestring, "server:", 7) && !strcmp(k->valuestring + 7, key)) n++;
    }
    at_json_free(s);
    return n;
}

/* A connection that says nothing. */
static int idle_connection(int port)
{
    int fd;
    assert_ok(at_rpc_net_connect("127.0.0.1", port, 2000, &fd, NULL));
    return fd;
}

static void idle_connections_should_not_keep_clients_from_an_rpc_server(void **state)
{
    (void)state;
    at_rpc_tracker_opts to = {.port = AT_RPC_PORT_ANY, .stop_key = "tracker:rel"};
    int tport;
    children[0] = start_tracker(&to, &tport);
    /* a handshake may take a minute: before the fix one silent peer blocked the server that long */
    at_rpc_server_opts so = {.port = AT_RPC_PORT_ANY, .tracker_host = "127.0.0.1", .tracker_port = tport, .key = "rel",
                             .seed = 7, .tracker_connect_timeout_ms = 5000, .tracker_retry_ms = 100,
                             .io_timeout_ms = 60000, .handler = {.measure = echo}};
    at_rpc_server *srv;
    assert_ok(at_rpc_server_new(&so, &srv));
    int sport = at_rpc_server_port(srv);
    pid_t server = fork();
    assert_true(server >= 0);
    if (server == 0) _exit(at_rpc_server_run(srv) == AT_OK ? 0 : 1);
    children[1] = server;
    at_rpc_server_free(srv);
    double end = at_clock_mono_s() + 20;
    while (servers_under(tport, "rel") != 1) {
        if (at_clock_mono_s() > end) fail_msg("the rpc-server did not register");
        poll(NULL, 0, 20);
    }

    /* the two idle connections, then more than the server handshakes at once */
    int idle[70];
    for (int round = 0; round < 2; round++) {
        int n_idle = round == 0 ? 2 : 70;
        for (int i = 0; i < n_idle; i++) idle[i] = idle_connection(sport);
        poll(NULL, 0, 100); /* let the server accept them first */
        at_rpc_request_opts ro = {.tracker_host = "127.0.0.1", .tracker_port = tport, .key = "rel", .priority = 1,
                                  .request_timeout_ms = 10000, .max_retry = 1, .tracker = tc_opts,
                                  .session = {.io_timeout_ms = 5000}};
        at_rpc_session *sess;
        assert_ok(at_rpc_request_session(&ro, &sess));
        unsigned char *reply;
        size_t len;
        assert_ok(at_rpc_session_measure(sess, "ping", 4, 0, &reply, &len));
        assert_int_equal(len, 4);
        assert_memory_equal(reply, "ping", 4);
        at_free(reply);
        at_rpc_session_free(sess);
        for (int i = 0; i < n_idle; i++) at_rpc_net_close(idle[i]);
        /* the server registers again after its session */
        end = at_clock_mono_s() + 20;
        while (servers_under(tport, "rel") != 1) {
            if (at_clock_mono_s() > end) fail_msg("the rpc-server did not come back");
            poll(NULL, 0, 20);
        }
    }
}

static void half_a_message_should_not_hold_a_tracker_slot(void **state)
{
    (void)state;
    /* four slots, and a second for a message begun */
    at_rpc_tracker_opts to = {.port = AT_RPC_PORT_ANY, .stop_key = "tracker:rel", .max_conns = 4,
                              .read_timeout_ms = 1000};
    int tport;
    children[0] = start_tracker(&to, &tport);
    int half[4];
    for (int i = 0; i < 4; i++) {
        half[i] = idle_connection(tport);
        unsigned char hs[4 + 4 + 10];
        int32_t magic = AT_RPC_TRACKER_MAGIC, len = 100;
        for (int b = 0; b < 4; b++) {
            hs[b] = (unsigned char)((uint32_t)magic >> (8 * b));
            hs[4 + b] = (unsigned char)((uint32_t)len >> (8 * b));
        }
        memcpy(hs + 8, "[6, \"summ", 10); /* 10 of the 100 bytes announced */
        assert_ok(at_rpc_net_send_all(half[i], hs, sizeof hs, at_rpc_deadline(2000)));
    }
    /* every slot is taken now; a client gets in once the tracker drops the half messages */
    double end = at_clock_mono_s() + 30;
    int n = -1;
    while ((n = servers_under(tport, "any")) < 0) {
        if (at_clock_mono_s() > end) fail_msg("the tracker never served a new client: half messages hold its slots");
        poll(NULL, 0, 50);
    }
    assert_int_equal(n, 0);
    /* each half-open peer was closed by the tracker (after its magic came back) */
    for (int i = 0; i < 4; i++) {
        at_rpc_reader r;
        at_rpc_reader_init(&r);
        at_status st;
        double until = at_rpc_deadline(5000);
        do {
            st = at_rpc_net_recv(half[i], &r, until);
        } while (st == AT_OK);
        assert_int_equal(st, AT_EIO); /* closed, not timed out */
        assert_int_equal(at_rpc_reader_buffered(&r), 4);
        at_rpc_reader_fini(&r);
        at_rpc_net_close(half[i]);
    }
}

/* A fuzz finding (fuzz_json, then fuzz_rpc_frames): 1e999 parses as inf, and a tracker echoes
 * UPDATE_INFO's object in SUMMARY, where "inf" is not JSON: every client's query failed. */
static void a_message_with_a_number_out_of_range_should_be_refused(void **state)
{
    (void)state;
    static const char msg[] = "[5, {\"key\": \"server:x\", \"addr\": [null, 9090], \"load\": 1e999}]";
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_rpc_enc_frame(&sb, msg, strlen(msg));
    at_rpc_reader r;
    at_rpc_reader_init(&r);
    assert_ok(at_rpc_reader_feed(&r, sb.data, sb.len));
    cJSON *j = NULL;
    bool got = true;
    assert_int_equal(at_rpc_reader_take_json(&r, 4096, &j, &got), AT_EPARSE);
    assert_false(got);
    assert_null(j);
    assert_string_equal(at_last_error(), "message holds a number out of range (not finite)");
    at_rpc_reader_fini(&r);
    at_strbuf_fini(&sb);
}

int main(void)
{
    at_log_set_sink(quiet, NULL);
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(idle_connections_should_not_keep_clients_from_an_rpc_server, reap_children),
        cmocka_unit_test_teardown(half_a_message_should_not_hold_a_tracker_slot, reap_children),
        cmocka_unit_test(a_message_with_a_number_out_of_range_should_be_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
