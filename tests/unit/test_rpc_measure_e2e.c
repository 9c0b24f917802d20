/* Remote measurement on loopback with a real device (PoCL here): a tracker and rpc-servers in
 * forked processes, each session measuring with its own OpenCL worker; the runner in this process.
 * Built twice (tests/rpc_measure.cmake): test_rpc_measure_e2e runs the matching and refusal cases,
 * test_rpc_measure_faults (AT_RPC_FAULTS) the crashes, timeouts, bad replies and the killed server.
 * Remote results match local ones config for config (error numbers, plausible costs, both servers
 * used); a session that crashes, hangs past its timeout or answers another request costs one
 * attempt and the config is measured again; a server killed mid-batch loses no record; malformed
 * payloads are refused while the server keeps serving; a tracker or key that is not there fails
 * the runner's creation. This process never uses OpenCL itself (its workers and the servers' do). */
#include "tests/support/test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "measure/ocl.h"
#include "measure/rpc_handler.h"
#include "measure/rpc_proto.h"
#include "measure/rpc_runner.h"
#include "measure/vta_runner.h"
#include "rpc/client.h"
#include "rpc/server.h"
#include "rpc/tracker.h"

#define KEY "pocl"

#include "tests/fakes/fault_template.h"

/* the fault template's modes (tests/fakes/fault_template.h) */
enum {
    OK_MODE = AT_FAULT_OK,
    WRONG = AT_FAULT_WRONG,
    NO_COMPILE = AT_FAULT_NO_COMPILE,
    CRASH = AT_FAULT_CRASH,
    TOO_BIG = AT_FAULT_TOO_BIG,
    FOREVER = AT_FAULT_FOREVER,
    SLOW_BUILD = AT_FAULT_SLOW_BUILD,
    N_MODES = AT_FAULT_N_MODES
};
#define fault_tmpl at_fake_fault_tmpl
static const at_template *const extra[] = {&fault_tmpl};

/* ---- the world: tracker + servers, each a forked process -------------------------------------- */

static char cache_dir[4096], flags_dir[4096];

/* One server's handler, wrapped with one-shot faults that the test arms by creating a file in
 * flags_dir: whichever session first unlinks it suffers the fault. */
typedef struct chaos {
    at_meas_rpc_handler *h;
    int                  index;
} chaos;

static bool take_flag(const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", flags_dir, name);
    return unlink(path) == 0;
}

static void write_flag(const char *name, const char *text)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", flags_dir, name);
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
    rename(tmp, path);
}

static at_status chaos_measure(void *ctx, const unsigned char *req, size_t len, at_strbuf *reply)
{
    chaos *c = ctx;
    char name[64], pid[32];
    snprintf(name, sizeof name, "busy-%d", c->index);
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    write_flag(name, pid); /* this session's process, for the test that kills a server mid-run */
    if (take_flag("crash")) raise(SIGKILL);
    if (take_flag("hang"))
        for (;;) pause();
    at_status st = at_meas_rpc_handler_measure(c->h, req, len, reply);
    if (st == AT_OK && reply->len > 16 && take_flag("badid")) reply->data[8] ^= 0x5A; /* another request's id */
    return st;
}

static void chaos_end(void *ctx)
{
    at_meas_rpc_handler_reset(((chaos *)ctx)->h);
}

typedef struct world {
    pid_t tracker;
    int   tracker_port;
    pid_t servers[4];
    int   ports[4];
    int   n_servers;
} world;

static chaos chaos_of[4];

static void reap(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}

static void start_tracker(world *w)
{
    at_rpc_tracker_opts o = {.port = AT_RPC_PORT_ANY, .stop_key = "tracker:test"};
    at_rpc_tracker *t;
    assert_ok(at_rpc_tracker_new(&o, &t));
    w->tracker_port = at_rpc_tracker_port(t);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(at_rpc_tracker_run(t) == AT_OK ? 0 : 1);
    at_rpc_tracker_free(t);
    w->tracker = pid;
}

static void start_server(world *w)
{
    AT_ASSERT(w->n_servers < 4);
    int i = w->n_servers;
    at_meas_rpc_handler_opts ho = {.cache_dir = cache_dir, .extra_templates = extra, .n_extra_templates = 1,
                                   .device = getenv("AT_TEST_DEVICE"), .no_probe = true};
    at_meas_rpc_handler *h;
    assert_ok(at_meas_rpc_handler_new(&ho, &h));
    chaos_of[i] = (chaos){h, i};
    at_rpc_server_opts o = {
        .port = AT_RPC_PORT_ANY,
        .tracker_host = "127.0.0.1",
        .tracker_port = w->tracker_port,
        .key = KEY,
        .seed = 77u + (uint64_t)i,
        .tracker_connect_timeout_ms = 5000,
        .tracker_retry_ms = 100,
        .handler = {.measure = chaos_measure, .session_end = chaos_end, .ctx = &chaos_of[i]},
    };
    at_rpc_server *s;
    assert_ok(at_rpc_server_new(&o, &s));
    w->ports[i] = at_rpc_server_port(s);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(at_rpc_server_run(s) == AT_OK ? 0 : 1);
    at_rpc_server_free(s);
    at_meas_rpc_handler_free(h); /* the child has its copy */
    w->servers[w->n_servers++] = pid;
}

static int registered(const world *w)
{
    at_rpc_tclient_opts o = {.connect_timeout_ms = 2000, .retry_period_ms = 50, .io_timeout_ms = 2000};
    at_rpc_tclient *c;
    assert_ok(at_rpc_tclient_connect("127.0.0.1", w->tracker_port, &o, &c));
    cJSON *s;
    assert_ok(at_rpc_tclient_summary(c, &s));
    at_rpc_tclient_free(c);
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "server_info"))
    {
        n += !strcmp(cJSON_GetObjectItemCaseSensitive(e, "key")->valuestring, "server:" KEY);
    }
    at_json_free(s);
    return n;
}

static void wait_registered(const world *w, int n)
{
    double end = at_clock_mono_s() + 10;
    int got;
    while ((got = registered(w)) != n) {
        if (at_clock_mono_s() > end) fail_msg("%d servers registered, waited for %d", got, n);
        poll(NULL, 0, 20);
    }
}

/* One world at a time, static so that a failed test's teardown can still stop it. */
static world the_world;
static bool  world_live;

static world *start_world(int n_servers)
{
    world *w = &the_world;
    memset(w, 0, sizeof *w);
    world_live = true;
    start_tracker(w);
    for (int i = 0; i < n_servers; i++) start_server(w);
    wait_registered(w, n_servers);
    return w;
}

static void stop_world(world *w)
{
    for (int i = 0; i < w->n_servers; i++) reap(w->servers[i]);
    reap(w->tracker);
    memset(w, 0, sizeof *w);
    world_live = false;
}

static int teardown(void **state)
{
    (void)state;
    if (world_live) stop_world(&the_world);
    return 0;
}

static at_measure_opts measure_opts(void)
{
    return (at_measure_opts){.number = 2, .repeat = 3, .timeout_ms = 4000, .build_timeout_ms = 30000, .cooldown_ms = -1,
                             .check_correctness = true, .seed = 3};
}

static at_meas_rpc_opts rpc_opts(const world *w)
{
    return (at_meas_rpc_opts){
        .tracker_host = "127.0.0.1",
        .tracker_port = w->tracker_port,
        .key = KEY,
        .priority = 1,
        .measure = measure_opts(),
        .request_timeout_ms = 20000,
        .check_timeout_ms = 5000,
        .tracker = {.connect_timeout_ms = 2000, .retry_period_ms = 50, .io_timeout_ms = 5000},
    };
}

/* ---- inputs ---------------------------------------------------------------------------------- */

typedef struct inputs {
    at_task      *matmul, *fault;
    at_config    *cfg[16];
    at_meas_input in[16];
    size_t        n;
} inputs;

static void add(inputs *x, at_task *t, int64_t index)
{
    assert_true(x->n < 16);
    assert_ok(at_task_config(t, index, &x->cfg[x->n]));
    x->in[x->n] = (at_meas_input){t, x->cfg[x->n]};
    x->n++;
}

static void make_tasks(inputs *x)
{
    memset(x, 0, sizeof *x);
    assert_ok(at_task_create("testing/matmul", AT_TARGET_OPENCL, "64,64,64", &x->matmul));
    at_args a = {.op = AT_OP_MATMUL, .u.matmul = {64, 64, 64, AT_IR_F32}};
    assert_ok(at_task_new(&fault_tmpl, &a, &x->fault));
}

static void free_inputs(inputs *x)
{
    for (size_t i = 0; i < x->n; i++) at_config_free(x->cfg[i]);
    at_task_free(x->matmul);
    at_task_free(x->fault);
}

static void init_results(at_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++) at_result_init(&r[i]);
}

static void fini_results(at_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++) at_result_fini(&r[i]);
}

/* fault configs: mode + N_MODES * work_index (mode is the first knob, fastest) */
static int64_t fault_index(int mode)
{
    return mode;
}

static void expect_ok(const at_result *r, size_t i)
{
    if (r->err != AT_MEAS_OK) fail_msg("input %zu: %s: %s", i, at_meas_err_name(r->err), r->msg ? r->msg : "");
    assert_int_equal(r->n_costs, 1);
    assert_true(r->costs_s[0] > 0 && r->costs_s[0] < 0.5);
    assert_true(r->all_cost_s > 0);
    assert_true(r->timestamp > 1e9);
    assert_null(r->msg);
}

/* ---- tests ------------------------------------------------------------------------------------- */

static void remote_results_should_match_local_ones_config_for_config(void **state)
{
    (void)state;
    inputs x;
    make_tasks(&x);
    const int64_t mm[] = {0, 9, 24, 48};
    for (size_t i = 0; i < 4; i++) add(&x, x.matmul, mm[i]);
    /* failures interleaved with successes: a result on the wrong config would show */
    const int modes[] = {WRONG, OK_MODE, NO_COMPILE, CRASH, TOO_BIG, FOREVER};
    for (size_t i = 0; i < 6; i++) add(&x, x.fault, fault_index(modes[i]));
    assert_int_equal(x.n, 10);
    const at_meas_err want[10] = {AT_MEAS_OK,          AT_MEAS_OK,       AT_MEAS_OK,
                                  AT_MEAS_OK,          AT_MEAS_WRONG_ANSWER, AT_MEAS_OK,
                                  AT_MEAS_COMPILE_DEVICE, AT_MEAS_RUNTIME_DEVICE, AT_MEAS_INSTANTIATION_ERROR,
                                  AT_MEAS_RUN_TIMEOUT};
    const char *needle[10] = {NULL, NULL, NULL, NULL, "differs from the reference", NULL, "no_such_function",
                              "worker process killed by signal 9", "Skipped because of invalid gpu kernel",
                              "exceeded the 4 s timeout"};

    /* local: the pool in worker processes of this one */
    at_result local[10], remote[10];
    init_results(local, 10);
    init_results(remote, 10);
    at_measure_opts lo = measure_opts();
    lo.n_parallel = 2;
    lo.cache_dir = cache_dir;
    lo.device = getenv("AT_TEST_DEVICE");
    lo.extra_templates = extra;
    lo.n_extra_templates = 1;
    at_meas_ocl *pool;
    assert_ok(at_meas_ocl_new(&lo, &pool));
    assert_ok(at_meas_ocl_measure(pool, x.in, x.n, local));
    at_meas_ocl_free(pool);

    world *w = start_world(2);
    at_meas_rpc_opts ro = rpc_opts(w);
    at_meas_runner *r;
    assert_ok(at_meas_rpc_runner_new(&ro, &r));
    assert_int_equal(at_meas_runner_batch_size(r), 2); /* the two servers it found while checking */
    assert_string_equal(at_meas_runner_name(r), "rpc");
    assert_ok(at_meas_runner_measure(r, x.in, x.n, remote));
    at_meas_rpc_stats stats;
    at_meas_rpc_stats_get(r, &stats);
    assert_int_equal(stats.last_parallel, 2); /* two servers registered: two in flight */
    assert_int_equal(at_meas_runner_batch_size(r), 2);
    assert_int_equal(stats.n_trials, 10);
    assert_int_equal(stats.n_attempts, 10);
    assert_int_equal(stats.n_requeued, 0);

    size_t n_tr;
    const at_meas_rpc_trace *tr = at_meas_rpc_last_traces(r, &n_tr);
    assert_int_equal(n_tr, 10);
    int used[2] = {0, 0};
    for (size_t i = 0; i < 10; i++) {
        if (local[i].err != want[i] || remote[i].err != want[i])
            fail_msg("input %zu: local %s (%s), remote %s (%s), want %s", i, at_meas_err_name(local[i].err),
                     local[i].msg ? local[i].msg : "", at_meas_err_name(remote[i].err), remote[i].msg ? remote[i].msg : "",
                     at_meas_err_name(want[i]));
        assert_int_equal(tr[i].attempts, 1);
        assert_true(tr[i].server[0] && tr[i].device[0]);
        if (!strcmp(tr[i].server, tr[0].server))
            used[0]++;
        else
            used[1]++;
        if (want[i] == AT_MEAS_OK) {
            expect_ok(&local[i], i);
            expect_ok(&remote[i], i);
            /* the same kernel on the same kind of device: within a factor of 50 (ASan, a loaded 2-core CI) */
            double ratio = remote[i].costs_s[0] / local[i].costs_s[0];
            if (ratio < 0.02 || ratio > 50) fail_msg("input %zu: remote %g s, local %g s", i, remote[i].costs_s[0], local[i].costs_s[0]);
        } else {
            assert_int_equal(remote[i].n_costs, 0);
            if (!remote[i].msg || !strstr(remote[i].msg, needle[i]) || !strstr(local[i].msg, needle[i]))
                fail_msg("input %zu: messages '%s' / '%s' lack '%s'", i, remote[i].msg, local[i].msg, needle[i]);
        }
    }
    assert_true(used[0] > 0 && used[1] > 0);
    /* a timeout's all_cost is the timeout, an int, as TVM logs it */
    assert_true(remote[9].all_cost_is_int && remote[9].all_cost_s == 4);

    at_meas_runner_free(r);
    stop_world(w);
    fini_results(local, 10);
    fini_results(remote, 10);
    free_inputs(&x);
}

/* A VTA task through tracker and rpc-server: the server simulates it (no OpenCL on its side),
 * and the deterministic simulator gives the remote cost bit for bit equal to a local one. */
static void vta_task_should_be_measured_remotely_as_locally(void **state)
{
    (void)state;
    at_task *task;
    at_config *cfg;
    assert_ok(at_task_create("conv2d_packed.vta", AT_TARGET_VTA, "1,16,8,8,16,3,3,1,1", &task));
    assert_ok(at_task_config(task, 0, &cfg));
    at_measure_opts mo = measure_opts();
    at_result local, remote;
    at_result_init(&local);
    at_result_init(&remote);
    assert_ok(at_meas_vta_measure_one(NULL, task, cfg, mo.check_correctness, mo.seed, &local, NULL));
    assert_int_equal(local.err, AT_MEAS_OK);

    world *w = start_world(1);
    at_meas_rpc_opts ro = rpc_opts(w);
    at_meas_runner *r;
    assert_ok(at_meas_rpc_runner_new(&ro, &r));
    at_meas_input in = {task, cfg};
    assert_ok(at_meas_runner_measure(r, &in, 1, &remote));
    if (remote.err != AT_MEAS_OK) fail_msg("remote: %s: %s", at_meas_err_name(remote.err), remote.msg ? remote.msg : "");
    assert_int_equal(remote.n_costs, 1);
    assert_true(remote.costs_s[0] > 0 && remote.costs_s[0] == local.costs_s[0]);
    size_t n_tr;
    const at_meas_rpc_trace *tr = at_meas_rpc_last_traces(r, &n_tr);
    assert_int_equal(n_tr, 1);
    assert_non_null(strstr(tr[0].device, "VTA simulator"));

    at_meas_runner_free(r);
    stop_world(w);
    at_result_fini(&local);
    at_result_fini(&remote);
    at_config_free(cfg);
    at_task_free(task);
}

/* A one-shot fault armed through a flag file costs one attempt; everything ends measured. */
static void check_fault_requeues_once(const char *flag, int session_timeout_ms, at_meas_err first_err, const char *first_msg)
{
    inputs x;
    make_tasks(&x);
    const int64_t mm[] = {1, 2, 3, 4};
    for (size_t i = 0; i < 4; i++) add(&x, x.matmul, mm[i]);
    world *w = start_world(2);
    at_meas_rpc_opts ro = rpc_opts(w);
    ro.session_timeout_ms = session_timeout_ms;
    at_meas_runner *r;
    assert_ok(at_meas_rpc_runner_new(&ro, &r));
    write_flag(flag, "armed\n");
    at_result res[4];
    init_results(res, 4);
    assert_ok(at_meas_runner_measure(r, x.in, x.n, res));
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", flags_dir, flag);
    assert_int_equal(access(path, F_OK), -1); /* the fault fired */
    at_meas_rpc_stats stats;
    at_meas_rpc_stats_get(r, &stats);
    assert_int_equal(stats.n_trials, 4);
    assert_int_equal(stats.n_requeued, 1);
    assert_int_equal(stats.n_attempts, 5);
    size_t n_tr, twice = 0;
    const at_meas_rpc_trace *tr = at_meas_rpc_last_traces(r, &n_tr);
    assert_int_equal(n_tr, 4);
    for (size_t i = 0; i < 4; i++) {
        expect_ok(&res[i], i);
        if (tr[i].attempts == 1) {
            assert_int_equal(tr[i].first_err, AT_MEAS_OK);
            continue;
        }
        twice++;
        if (tr[i].first_err != first_err || !strstr(tr[i].first_msg, first_msg))
            fail_msg("first attempt: %s '%s', want %s '%s'", at_meas_err_name(tr[i].first_err), tr[i].first_msg,
                     at_meas_err_name(first_err), first_msg);
    }
    assert_int_equal(twice, 1);
    /* both servers are still there: a session that fails is the session's loss, not the server's */
    wait_registered(w, 2);
    fini_results(res, 4);
    at_meas_runner_free(r);
    stop_world(w);
    free_inputs(&x);
}

static void crashed_session_should_cost_one_attempt_and_be_measured_again(void **state)
{
    (void)state;
    check_fault_requeues_once("crash", 0, AT_MEAS_RUNTIME_DEVICE, "session process died");
}

static void reply_for_another_request_should_be_refused_and_measured_again(void **state)
{
    (void)state;
    check_fault_requeues_once("badid", 0, AT_MEAS_RUNTIME_DEVICE, "sent a bad reply");
}

static void session_killed_at_its_timeout_should_be_measured_again(void **state)
{
    (void)state;
    check_fault_requeues_once("hang", 10000, AT_MEAS_RUN_TIMEOUT, "RPCSessionTimeoutError");
}

/* Kills server 0 and its session process as soon as that session starts measuring. */
typedef struct killer {
    world *w;
    pid_t  session;
    bool   done;
} killer;

static void *kill_server_0(void *arg)
{
    killer *k = arg;
    char path[4200];
    snprintf(path, sizeof path, "%s/busy-0", flags_dir);
    double end = at_clock_mono_s() + 30;
    while (at_clock_mono_s() < end) {
        FILE *f = fopen(path, "r");
        if (f) {
            int pid = 0;
            if (fscanf(f, "%d", &pid) == 1 && pid > 0) {
                kill(k->w->servers[0], SIGKILL);
                kill(pid, SIGKILL);
                k->session = pid;
                k->done = true;
            }
            fclose(f);
            if (k->done) break;
        }
        poll(NULL, 0, 2);
    }
    return NULL;
}

static void killed_server_should_lose_no_record(void **state)
{
    (void)state;
    inputs x;
    make_tasks(&x);
    /* mixed outcomes again, so a result landing on another config would show */
    const int modes[] = {OK_MODE, WRONG, NO_COMPILE, OK_MODE + N_MODES, WRONG + N_MODES, TOO_BIG};
    const at_meas_err want[] = {AT_MEAS_OK, AT_MEAS_WRONG_ANSWER, AT_MEAS_COMPILE_DEVICE, AT_MEAS_OK, AT_MEAS_WRONG_ANSWER,
                                AT_MEAS_INSTANTIATION_ERROR};
    for (size_t i = 0; i < 6; i++) add(&x, x.fault, modes[i]);
    for (size_t i = 0; i < 2; i++) add(&x, x.matmul, (int64_t)(10 + i));
    assert_int_equal(x.n, 8);
    world *w = start_world(2);
    at_meas_rpc_opts ro = rpc_opts(w);
    at_meas_runner *r;
    assert_ok(at_meas_rpc_runner_new(&ro, &r));
    char path[4200];
    snprintf(path, sizeof path, "%s/busy-0", flags_dir);
    unlink(path); /* the runner's check session on server 0 measured nothing, but be sure */
    killer k = {.w = w};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, kill_server_0, &k), 0);
    at_result res[8];
    init_results(res, 8);
    assert_ok(at_meas_runner_measure(r, x.in, x.n, res));
    pthread_join(th, NULL);
    assert_true(k.done);
    while (waitpid(w->servers[0], NULL, 0) < 0 && errno == EINTR) {
    }
    w->servers[0] = -1;

    at_meas_rpc_stats stats;
    at_meas_rpc_stats_get(r, &stats);
    assert_int_equal(stats.n_trials, 8);
    assert_int_equal(stats.n_requeued, 1);
    size_t n_tr, twice = 0;
    const at_meas_rpc_trace *tr = at_meas_rpc_last_traces(r, &n_tr);
    for (size_t i = 0; i < 8; i++) {
        at_meas_err e = i < 6 ? want[i] : AT_MEAS_OK;
        if (res[i].err != e) fail_msg("input %zu: %s (%s), want %s", i, at_meas_err_name(res[i].err), res[i].msg ? res[i].msg : "",
                                      at_meas_err_name(e));
        if (e == AT_MEAS_OK) expect_ok(&res[i], i);
        if (tr[i].attempts == 2) {
            /* lost with server 0, measured again on server 1 */
            twice++;
            char s0[32], s1[32];
            snprintf(s0, sizeof s0, "127.0.0.1:%d", w->ports[0]);
            snprintf(s1, sizeof s1, "127.0.0.1:%d", w->ports[1]);
            assert_string_equal(tr[i].server, s1);
            assert_int_equal(tr[i].first_err, AT_MEAS_RUNTIME_DEVICE);
            if (!strstr(tr[i].first_msg, s0)) fail_msg("first attempt: '%s'", tr[i].first_msg);
        }
    }
    assert_int_equal(twice, 1);
    /* the tracker dropped the dead server; the other keeps serving */
    wait_registered(w, 1);
    at_result again[1];
    init_results(again, 1);
    assert_ok(at_meas_runner_measure(r, x.in, 1, again));
    assert_int_equal(again[0].err, AT_MEAS_OK);
    fini_results(again, 1);
    fini_results(res, 8);
    at_meas_runner_free(r);
    stop_world(w);
    free_inputs(&x);
}

static void malformed_payloads_should_be_refused_while_the_server_keeps_serving(void **state)
{
    (void)state;
    world *w = start_world(1);
    at_rpc_request_opts ro = {
        .tracker_host = "127.0.0.1", .tracker_port = w->tracker_port, .key = KEY, .request_timeout_ms = 5000,
        .tracker = {.connect_timeout_ms = 2000, .retry_period_ms = 50}, .session = {.io_timeout_ms = 5000},
    };
    at_rpc_session *s;
    assert_ok(at_rpc_request_session(&ro, &s));

    inputs x;
    make_tasks(&x);
    add(&x, x.matmul, 5);
    at_meas_rpc_opts base = rpc_opts(w);
    at_strbuf args, config, good;
    at_strbuf_init(&args);
    at_strbuf_init(&config);
    at_strbuf_init(&good);
    at_strbuf_putc(&args, '[');
    at_op_args_write_json(at_task_args(x.matmul), &args);
    at_strbuf_putc(&args, ']');
    at_config_write_json(x.cfg[0], &config);
    at_meas_rpc_request q = {
        .id = 99, .number = base.measure.number, .repeat = base.measure.repeat, .timeout_ms = 4000,
        .build_timeout_ms = 30000, .check_correctness = true, .seed = 3,
        .space_len = at_space_range_len(at_task_space(x.matmul)), .config_index = 5, .template_name = "testing/matmul",
        .args_json = at_strbuf_cstr(&args), .config_json = at_strbuf_cstr(&config),
    };
    assert_ok(at_meas_rpc_request_encode(&q, &good));

    /* garbage, truncation, a flipped version, trailing bytes, a mismatched space: each refused,
     * the session still open */
    unsigned char *rep;
    size_t rep_len;
    unsigned char junk[300];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)(i * 37 + 11);
    assert_int_equal(at_rpc_session_measure(s, junk, sizeof junk, 0, &rep, &rep_len), AT_EPARSE);
    assert_int_equal(at_rpc_session_measure(s, good.data, good.len - 1, 0, &rep, &rep_len), AT_EPARSE);
    char *bad = at_malloc(good.len + 1);
    memcpy(bad, good.data, good.len);
    bad[4] = 9;
    assert_int_equal(at_rpc_session_measure(s, bad, good.len, 0, &rep, &rep_len), AT_EUNSUPPORTED);
    assert_non_null(strstr(at_last_error(), "version 9 not spoken"));
    memcpy(bad, good.data, good.len);
    bad[good.len] = 0;
    assert_int_equal(at_rpc_session_measure(s, bad, good.len + 1, 0, &rep, &rep_len), AT_EPARSE);
    bad[52] ^= 1; /* space_len 49 -> 48 */
    assert_int_equal(at_rpc_session_measure(s, bad, good.len, 0, &rep, &rep_len), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "different autotvm versions?"));
    at_free(bad);
    assert_ok(at_rpc_session_ping(s, "alive", 5, 0));

    /* and the well-formed request in the same session is measured */
    assert_ok(at_rpc_session_measure(s, good.data, good.len, 30000, &rep, &rep_len));
    at_meas_rpc_reply a;
    assert_ok(at_meas_rpc_reply_decode(rep, rep_len, &a));
    assert_int_equal(a.id, 99);
    assert_int_equal(a.config_index, 5);
    assert_int_equal(a.err, AT_MEAS_OK);
    assert_int_equal(a.n_costs, 1);
    assert_true(a.costs_s[0] > 0);
    assert_true(strlen(a.device) > 0);
    at_meas_rpc_reply_fini(&a);
    at_free(rep);
    at_rpc_session_free(s);

    /* the server registered again and serves the next runner */
    wait_registered(w, 1);
    at_meas_runner *r;
    at_meas_rpc_opts o = rpc_opts(w);
    assert_ok(at_meas_rpc_runner_new(&o, &r));
    at_result res[1];
    init_results(res, 1);
    assert_ok(at_meas_runner_measure(r, x.in, 1, res));
    expect_ok(&res[0], 0);
    fini_results(res, 1);
    at_meas_runner_free(r);
    at_strbuf_fini(&args);
    at_strbuf_fini(&config);
    at_strbuf_fini(&good);
    free_inputs(&x);
    stop_world(w);
}

static void runner_should_fail_without_a_tracker_or_a_server(void **state)
{
    (void)state;
    world *w = start_world(0);
    at_meas_rpc_opts o = rpc_opts(w);
    o.check_timeout_ms = 300;
    at_meas_runner *r = NULL;
    double t0 = at_clock_mono_s();
    assert_int_equal(at_meas_rpc_runner_new(&o, &r), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), "no rpc-server is registered under key 'pocl'"));
    assert_null(r);
    stop_world(w); /* the tracker is gone now: its port refuses */
    o.tracker.connect_timeout_ms = 300;
    assert_int_equal(at_meas_rpc_runner_new(&o, &r), AT_EIO);
    assert_non_null(strstr(at_last_error(), "127.0.0.1"));
    assert_null(r);
    assert_true(at_clock_mono_s() - t0 < 10);
}

/* Every server under the key busy past check_timeout_ms (another tuner's session) is no failure:
 * the runner's check waits again while servers stay registered (issue 19 E: two of four tuners
 * sharing 8 servers failed their start-up check). A child holds the only server's session for
 * 1.5 s; the check's own timeout is 0.3 s. */
static void runner_check_should_wait_while_every_server_is_busy(void **state)
{
    (void)state;
    world *w = start_world(1);
    at_meas_rpc_opts o = rpc_opts(w);
    o.check_timeout_ms = 300;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t holder = fork();
    assert_true(holder >= 0);
    if (holder == 0) {
        close(fds[0]);
        at_rpc_request_opts ro = {.tracker_host = "127.0.0.1", .tracker_port = w->tracker_port, .key = KEY,
                                  .priority = 1, .request_timeout_ms = 5000, .max_retry = 5, .tracker = o.tracker};
        at_rpc_session *sess;
        if (at_rpc_request_session(&ro, &sess) != AT_OK) _exit(1);
        if (write(fds[1], "h", 1) != 1) _exit(1);
        poll(NULL, 0, 1500);
        at_rpc_session_free(sess);
        _exit(0);
    }
    close(fds[1]);
    char c;
    assert_int_equal(read(fds[0], &c, 1), 1); /* the server is taken */
    close(fds[0]);
    double t0 = at_clock_mono_s();
    at_meas_runner *r = NULL;
    at_status st = at_meas_rpc_runner_new(&o, &r);
    if (st != AT_OK) print_error("%s\n", at_last_error());
    assert_int_equal(st, AT_OK);
    assert_true(at_clock_mono_s() - t0 > 0.3); /* it did wait past its first timeout */
    at_meas_runner_free(r);
    int status;
    assert_int_equal(waitpid(holder, &status, 0), holder);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    stop_world(w);
}

static int group_setup(void **state)
{
    (void)state;
    const char *bin = getenv("AT_BINARY_DIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/pocl-cache", bin && *bin ? bin : ".");
    snprintf(flags_dir, sizeof flags_dir, "%s", at_test_tmpdir("rpc_measure"));
    return 0;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    at_log_set_level(AT_LOG_ERROR);
    /* two executables from this file (tests/rpc_measure.cmake), each well under a minute on a
     * cold kernel cache: the matching and refusals, and the infrastructure faults */
    const struct CMUnitTest matching[] = {
        cmocka_unit_test_teardown(remote_results_should_match_local_ones_config_for_config, teardown),
        cmocka_unit_test_teardown(malformed_payloads_should_be_refused_while_the_server_keeps_serving, teardown),
        cmocka_unit_test_teardown(runner_should_fail_without_a_tracker_or_a_server, teardown),
        cmocka_unit_test_teardown(runner_check_should_wait_while_every_server_is_busy, teardown),
        cmocka_unit_test_teardown(vta_task_should_be_measured_remotely_as_locally, teardown),
    };
    const struct CMUnitTest faults[] = {
        cmocka_unit_test_teardown(crashed_session_should_cost_one_attempt_and_be_measured_again, teardown),
        cmocka_unit_test_teardown(reply_for_another_request_should_be_refused_and_measured_again, teardown),
        cmocka_unit_test_teardown(session_killed_at_its_timeout_should_be_measured_again, teardown),
        cmocka_unit_test_teardown(killed_server_should_lose_no_record, teardown),
    };
#ifdef AT_RPC_FAULTS
    (void)matching;
    return cmocka_run_group_tests(faults, group_setup, NULL);
#else
    (void)faults;
    return cmocka_run_group_tests(matching, group_setup, NULL);
#endif
}
