/* The remote runner: a batch is a queue of inputs served by up to n_parallel threads, each with
 * its own tracker connection, each taking one input at a time through REQUEST -> session ->
 * MEASURE -> BYE (TVM's request_remote per measurement). An attempt that fails for reasons of
 * infrastructure goes back to the queue once; every other outcome is final. results[i] is
 * written only by the thread that holds input i, from a reply whose id and config index are
 * checked against what that thread sent. */
#include "measure/rpc_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/log.h"
#include "measure/rpc_proto.h"

#define MAX_ATTEMPTS 2
#define CHECK_PRIORITY 100 /* TVM's check_remote */

typedef struct rr {
    at_meas_rpc_opts  o; /* strings below replace the caller's; measure defaults applied */
    char             *tracker_host, *key, *auth_key, *build_options;
    int               session_timeout_ms;
    pthread_mutex_t   mu;
    uint64_t          next_id;
    at_meas_rpc_stats stats;
    at_meas_rpc_trace *traces;
    size_t            n_traces;
} rr;

/* ---- small helpers -------------------------------------------------------------------------- */

static int or_default(int v, int d)
{
    return v > 0 ? v : d;
}

static uint64_t random_u64(void)
{
    uint64_t v = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) v = 0;
        close(fd);
    }
    if (!v) v = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^ (uint64_t)(at_clock_mono_s() * 1e9);
    return v;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

at_status at_meas_rpc_parse_addr(const char *text, char **host, int *port)
{
    *host = NULL;
    *port = 0;
    const char *colon = text ? strrchr(text, ':') : NULL;
    if (!colon || colon == text || !colon[1])
        return AT_FAIL(AT_EINVAL, "--tracker expects HOST:PORT, got '%s'", text ? text : "");
    long p = 0;
    for (const char *c = colon + 1; *c; c++) {
        if (*c < '0' || *c > '9' || p > 65535) return AT_FAIL(AT_EINVAL, "--tracker expects HOST:PORT, got '%s'", text);
        p = p * 10 + (*c - '0');
    }
    if (p < 1 || p > 65535) return AT_FAIL(AT_EINVAL, "--tracker port must be in 1..65535, got '%s'", colon + 1);
    const char *h = text;
    size_t n = (size_t)(colon - text);
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']') h++, n -= 2;
    if (n == 0) return AT_FAIL(AT_EINVAL, "--tracker expects HOST:PORT, got '%s'", text);
    char *d = at_strndup(h, n);
    if (!d) return AT_OOM();
    *host = d;
    *port = (int)p;
    return AT_OK;
}

/* Servers registered under the key, from the tracker's SUMMARY (query-tracker's "total"). */
static at_status count_servers(const rr *r, size_t *n)
{
    *n = 0;
    at_rpc_tclient *tc;
    AT_TRY(at_rpc_tclient_connect(r->tracker_host, r->o.tracker_port, &r->o.tracker, &tc));
    cJSON *sum = NULL;
    at_status st = at_rpc_tclient_summary(tc, &sum);
    at_rpc_tclient_free(tc);
    if (st != AT_OK) return st;
    size_t count = 0;
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(sum, "server_info"), *it;
    cJSON_ArrayForEach(it, info)
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(it, "key");
        if (cJSON_IsString(k) && !strncmp(k->valuestring, "server:", 7) && !strcmp(k->valuestring + 7, r->key)) count++;
    }
    at_json_free(sum);
    *n = count;
    return AT_OK;
}

/* ---- one attempt ---------------------------------------------------------------------------- */

typedef struct wctx {
    rr             *r;
    at_rpc_tclient *tc; /* this thread's tracker connection, kept between requests */
    at_strbuf       req, args, config;
} wctx;

typedef enum outcome { O_FINAL, O_RETRY, O_FATAL } outcome;

static void set_failure(at_result *res, at_meas_err err, double all_cost_s, bool is_int, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void set_failure(at_result *res, at_meas_err err, double all_cost_s, bool is_int, const char *fmt, ...)
{
    at_result_fini(res);
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    res->err = err;
    res->msg = at_strdup(msg); /* NULL under memory pressure: the error number still tells */
    res->all_cost_s = all_cost_s;
    res->all_cost_is_int = is_int;
    res->timestamp = at_clock_wall_s();
}

/* REQUEST a device and open a session with it. *fatal: the tracker itself is unreachable. */
static at_status open_session(wctx *w, at_rpc_session **out, char *server, size_t server_cap, bool *fatal)
{
    rr *r = w->r;
    at_rpc_session_opts so = {.auth_key = r->auth_key, .session_timeout_s = r->session_timeout_ms / 1e3};
    int tries = or_default(r->o.max_retry, 5);
    at_status st = AT_EIO;
    for (int i = 0; i < tries; i++) {
        if (!w->tc) {
            st = at_rpc_tclient_connect(r->tracker_host, r->o.tracker_port, &r->o.tracker, &w->tc);
            if (st != AT_OK) {
                w->tc = NULL;
                *fatal = st != AT_ENOMEM;
                return AT_FAIL_WRAP(st, "tracker %s:%d", r->tracker_host, r->o.tracker_port);
            }
        }
        at_rpc_assignment a;
        int req_ms = or_default(r->o.request_timeout_ms, 60000);
        st = at_rpc_tclient_request(w->tc, r->key, r->o.priority, req_ms, &a);
        if (st != AT_OK) {
            at_rpc_tclient_free(w->tc); /* closed or unusable after any failure */
            w->tc = NULL;
            if (st == AT_ETIMEOUT)
                return AT_FAIL(AT_ETIMEOUT, "no rpc-server under key '%s' became free within %g s", r->key, req_ms / 1e3);
            if (st == AT_ENOMEM) return st;
            continue; /* the tracker connection broke: reconnect */
        }
        snprintf(server, server_cap, "%s:%d", a.host, a.port);
        st = at_rpc_session_open(a.host, a.port, a.matchkey, &so, out);
        at_rpc_assignment_fini(&a);
        if (st == AT_OK) return AT_OK;
        if (st != AT_EIO && st != AT_ETIMEOUT) return st;
        /* the server went away (or re-keyed) between the tracker's answer and our connect */
        pthread_mutex_lock(&r->mu);
        r->stats.n_session_retries++;
        pthread_mutex_unlock(&r->mu);
        at_log(AT_LOG_DEBUG, "rpc runner: session with %s failed: %s", server, at_last_error());
    }
    return AT_FAIL_WRAP(AT_EIO, "no session with an rpc-server under key '%s' after %d tries", r->key, tries);
}

static at_status encode_request(wctx *w, const at_meas_input *in, uint64_t id)
{
    rr *r = w->r;
    const at_measure_opts *m = &r->o.measure;
    const at_template *t = at_task_template(in->task);
    at_strbuf_clear(&w->req);
    at_strbuf_clear(&w->args);
    at_strbuf_clear(&w->config);
    at_strbuf_putc(&w->args, '[');
    at_op_args_write_json(at_task_args(in->task), &w->args);
    at_strbuf_putc(&w->args, ']');
    at_config_write_json(in->config, &w->config);
    AT_TRY(at_strbuf_status(&w->args));
    AT_TRY(at_strbuf_status(&w->config));
    at_meas_rpc_request q = {
        .id = id,
        .target = (uint32_t)t->target,
        .number = m->number,
        .repeat = m->repeat,
        .min_repeat_ms = m->min_repeat_ms,
        .timeout_ms = m->timeout_ms,
        .build_timeout_ms = m->build_timeout_ms,
        .cooldown_ms = m->cooldown_ms > 0 ? m->cooldown_ms : 0,
        .check_correctness = m->check_correctness,
        .seed = m->seed,
        .space_len = at_space_range_len(at_task_space(in->task)),
        .config_index = at_config_index(in->config),
        .template_name = t->name,
        .args_json = at_strbuf_cstr(&w->args),
        .config_json = at_strbuf_cstr(&w->config),
        .build_options = r->build_options,
    };
    return at_meas_rpc_request_encode(&q, &w->req);
}

/* Measures one input once. res gets the outcome (final, or the failure of this attempt). */
static outcome attempt(wctx *w, const at_meas_input *in, at_result *res, at_meas_rpc_trace *tr)
{
    rr *r = w->r;
    double t0 = at_clock_mono_s();
    pthread_mutex_lock(&r->mu);
    uint64_t id = r->next_id++;
    if (!id) id = r->next_id++;
    pthread_mutex_unlock(&r->mu);
    tr->server[0] = tr->device[0] = '\0';
    if (encode_request(w, in, id) != AT_OK) {
        set_failure(res, AT_MEAS_UNKNOWN_ERROR, 0, false, "encoding the measure request: %s", at_last_error());
        return O_FINAL;
    }
    at_rpc_session *s = NULL;
    bool fatal = false;
    at_status st = open_session(w, &s, tr->server, sizeof tr->server, &fatal);
    if (st != AT_OK) {
        if (fatal) {
            set_failure(res, AT_MEAS_UNKNOWN_ERROR, 0, false, "%s", at_last_error());
            return O_FATAL;
        }
        if (st == AT_ETIMEOUT) {
            int ms = or_default(r->o.request_timeout_ms, 60000);
            set_failure(res, AT_MEAS_RUN_TIMEOUT, ms / 1e3, ms % 1000 == 0, "%s", at_last_error());
        } else {
            set_failure(res, AT_MEAS_RUNTIME_DEVICE, at_clock_mono_s() - t0, false, "%s", at_last_error());
        }
        return st == AT_ENOMEM ? O_FINAL : O_RETRY;
    }
    pthread_mutex_lock(&r->mu);
    r->stats.n_attempts++;
    pthread_mutex_unlock(&r->mu);
    unsigned char *rep = NULL;
    size_t rep_len = 0;
    st = at_rpc_session_measure(s, w->req.data, w->req.len, r->session_timeout_ms + 10000, &rep, &rep_len);
    at_rpc_session_free(s);
    if (st != AT_OK) {
        outcome oc = O_RETRY;
        if (st == AT_ETIMEOUT) {
            set_failure(res, AT_MEAS_RUN_TIMEOUT, r->session_timeout_ms / 1e3, r->session_timeout_ms % 1000 == 0,
                        "rpc-server %s: %s", tr->server, at_last_error());
        } else if (st == AT_EDEVICE || st == AT_EIO || st == AT_ENOMEM) {
            set_failure(res, AT_MEAS_RUNTIME_DEVICE, at_clock_mono_s() - t0, false, "rpc-server %s: %s", tr->server,
                        at_last_error());
        } else { /* the server refused this request: asking another one would not help */
            set_failure(res, AT_MEAS_UNKNOWN_ERROR, at_clock_mono_s() - t0, false, "rpc-server %s refused the request: %s",
                        tr->server, at_last_error());
            oc = O_FINAL;
        }
        return oc;
    }
    at_meas_rpc_reply a;
    st = at_meas_rpc_reply_decode(rep, rep_len, &a);
    at_free(rep);
    if (st == AT_OK && (a.id != id || a.config_index != at_config_index(in->config)))
        st = AT_FAIL(AT_EPARSE, "reply for request %llu (config %lld), sent request %llu (config %lld)",
                     (unsigned long long)a.id, (long long)a.config_index, (unsigned long long)id,
                     (long long)at_config_index(in->config));
    if (st != AT_OK) {
        set_failure(res, AT_MEAS_RUNTIME_DEVICE, at_clock_mono_s() - t0, false, "rpc-server %s sent a bad reply: %s",
                    tr->server, at_last_error());
        at_meas_rpc_reply_fini(&a);
        return O_RETRY;
    }
    at_result_fini(res);
    res->err = a.err;
    if (a.err != AT_MEAS_OK) res->msg = at_strdup(a.msg);
    if (a.err == AT_MEAS_OK && at_result_set_costs(res, a.costs_s, a.n_costs) != AT_OK) {
        res->err = AT_MEAS_UNKNOWN_ERROR;
        res->msg = at_strdup("out of memory");
    }
    /* a timeout's all_cost is the timeout (TVM); otherwise the attempt's wall time as TVM's
     * run_through_rpc counts it: from the request for a device to the reply */
    res->all_cost_is_int = a.all_cost_is_int;
    res->all_cost_s = a.all_cost_is_int ? a.all_cost_s : at_clock_mono_s() - t0;
    res->timestamp = at_clock_wall_s();
    snprintf(tr->device, sizeof tr->device, "%s", a.device);
    at_meas_rpc_reply_fini(&a);
    return O_FINAL;
}

/* ---- the batch ------------------------------------------------------------------------------ */

typedef struct job {
    int   attempts;
    char *first; /* the failed first attempt's message, for the final message */
} job;

typedef struct batch {
    rr                  *r;
    const at_meas_input *inputs;
    at_result           *results;
    job                 *jobs;
    size_t               n, n_final;
    size_t              *queue; /* ring of input indices, capacity n */
    size_t               head, len;
    pthread_cond_t       cv;
    bool                 fatal;
    char                 fatal_msg[1024];
} batch;

static void push(batch *b, size_t i)
{
    b->queue[(b->head + b->len) % b->n] = i;
    b->len++;
}

static size_t pop(batch *b)
{
    size_t i = b->queue[b->head];
    b->head = (b->head + 1) % b->n;
    b->len--;
    return i;
}

/* Called with the lock held: input i's result is final. */
static void finalize(batch *b)
{
    b->n_final++;
    b->r->stats.n_trials++;
    if (b->n_final == b->n) pthread_cond_broadcast(&b->cv);
}

static void *serve(void *arg)
{
    batch *b = arg;
    rr *r = b->r;
    wctx w = {.r = r};
    at_strbuf_init(&w.req);
    at_strbuf_init(&w.args);
    at_strbuf_init(&w.config);
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (b->len == 0 && b->n_final < b->n) pthread_cond_wait(&b->cv, &r->mu);
        if (b->len == 0) break;
        size_t i = pop(b);
        job *j = &b->jobs[i];
        at_meas_rpc_trace *tr = &r->traces[i];
        if (b->fatal) {
            set_failure(&b->results[i], AT_MEAS_UNKNOWN_ERROR, 0, false, "%s", b->fatal_msg);
            finalize(b);
            continue;
        }
        j->attempts++;
        tr->attempts = j->attempts;
        pthread_mutex_unlock(&r->mu);

        at_result res;
        at_result_init(&res);
        outcome oc = attempt(&w, &b->inputs[i], &res, tr);
        if (oc != O_FINAL && j->attempts == 1 && res.msg)
            at_log(AT_LOG_WARN, "rpc runner: config %lld: %s", (long long)at_config_index(b->inputs[i].config), res.msg);
        if (j->attempts > 1 && j->first && res.err != AT_MEAS_OK) {
            /* the result of the second attempt says what happened to the first */
            char *m = NULL;
            at_strbuf sb;
            at_strbuf_init(&sb);
            at_strbuf_printf(&sb, "%s; first attempt: %s", res.msg ? res.msg : at_meas_err_name(res.err), j->first);
            m = at_strbuf_take(&sb);
            if (m) {
                at_free(res.msg);
                res.msg = m;
            }
        }

        pthread_mutex_lock(&r->mu);
        if (oc == O_FATAL && !b->fatal) {
            b->fatal = true;
            snprintf(b->fatal_msg, sizeof b->fatal_msg, "%s", res.msg ? res.msg : "tracker unreachable");
        }
        if (oc == O_RETRY && j->attempts < MAX_ATTEMPTS && !b->fatal) {
            tr->first_err = res.err;
            snprintf(tr->first_msg, sizeof tr->first_msg, "%s", res.msg ? res.msg : at_meas_err_name(res.err));
            at_free(j->first);
            j->first = res.msg ? at_strdup(res.msg) : NULL;
            at_result_fini(&res);
            r->stats.n_requeued++;
            push(b, i);
            pthread_cond_signal(&b->cv);
            continue;
        }
        at_result_fini(&b->results[i]);
        b->results[i] = res; /* moved */
        finalize(b);
    }
    pthread_mutex_unlock(&r->mu);
    at_rpc_tclient_free(w.tc);
    at_strbuf_fini(&w.req);
    at_strbuf_fini(&w.args);
    at_strbuf_fini(&w.config);
    return NULL;
}

static at_status runner_measure(void *ctx, const at_meas_input *inputs, size_t n, at_result *results)
{
    rr *r = ctx;
    at_meas_rpc_trace *traces = n ? at_calloc(n, sizeof *traces) : NULL;
    if (n && !traces) return AT_OOM();
    at_free(r->traces);
    r->traces = traces;
    r->n_traces = n;
    if (n == 0) return AT_OK;

    size_t par = (size_t)r->o.measure.n_parallel;
    if (!par) {
        size_t servers = 0;
        if (count_servers(r, &servers) != AT_OK) {
            AT_FAIL_WRAP(AT_EIO, "tracker %s:%d", r->tracker_host, r->o.tracker_port);
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", at_last_error());
            for (size_t i = 0; i < n; i++) set_failure(&results[i], AT_MEAS_UNKNOWN_ERROR, 0, false, "%s", msg);
            return AT_FAIL(AT_EIO, "%s", msg);
        }
        par = servers ? servers : 1;
    }
    if (par > n) par = n;

    batch b = {.r = r, .inputs = inputs, .results = results, .n = n};
    b.jobs = at_calloc(n, sizeof *b.jobs);
    b.queue = at_calloc(n, sizeof *b.queue);
    pthread_t *th = at_calloc(par, sizeof *th);
    if (!b.jobs || !b.queue || !th || pthread_cond_init(&b.cv, NULL) != 0) {
        at_free(b.jobs);
        at_free(b.queue);
        at_free(th);
        return AT_OOM();
    }
    for (size_t i = 0; i < n; i++) push(&b, i);
    pthread_mutex_lock(&r->mu);
    r->stats.last_parallel = par;
    pthread_mutex_unlock(&r->mu);
    /* par - 1 helper threads; this thread serves too, so a batch runs even when none starts */
    size_t started = 0;
    for (size_t t = 1; t < par; t++)
        if (pthread_create(&th[started], NULL, serve, &b) == 0) started++;
    serve(&b);
    for (size_t t = 0; t < started; t++) pthread_join(th[t], NULL);
    pthread_cond_destroy(&b.cv);
    for (size_t i = 0; i < n; i++) at_free(b.jobs[i].first);
    at_free(b.jobs);
    at_free(b.queue);
    at_free(th);
    if (b.fatal) return AT_FAIL(AT_EIO, "%s", b.fatal_msg);
    return AT_OK;
}

static size_t runner_batch(void *ctx)
{
    rr *r = ctx;
    if (r->o.measure.n_parallel > 0) return (size_t)r->o.measure.n_parallel;
    pthread_mutex_lock(&r->mu);
    size_t n = r->stats.last_parallel;
    pthread_mutex_unlock(&r->mu);
    return n ? n : 1;
}

static void rr_free(void *ctx)
{
    rr *r = ctx;
    if (!r) return;
    pthread_mutex_destroy(&r->mu);
    at_free(r->tracker_host);
    at_free(r->key);
    at_free(r->auth_key);
    at_free(r->build_options);
    at_free(r->traces);
    at_free(r);
}

static const at_meas_runner_i rpc_runner_i = {
    .name = "rpc",
    .measure = runner_measure,
    .batch_size = runner_batch,
    .free = rr_free,
};

/* ---- construction --------------------------------------------------------------------------- */

static at_status check_opts(const at_meas_rpc_opts *o)
{
    const at_measure_opts *m = &o->measure;
    if (!o->tracker_host || !*o->tracker_host) return AT_FAIL(AT_EINVAL, "rpc runner: no tracker host");
    if (o->tracker_port < 1 || o->tracker_port > 65535)
        return AT_FAIL(AT_EINVAL, "rpc runner: tracker port %d outside 1..65535", o->tracker_port);
    if (!o->key || !*o->key || strchr(o->key, ':') || strpbrk(o->key, " \t\r\n"))
        return AT_FAIL(AT_EINVAL, "rpc runner: device key '%s' must be non-empty, without ':' or spaces", o->key ? o->key : "");
    if (m->number < 0 || m->number > AT_MEAS_RPC_MAX_NUMBER || m->repeat < 0 || m->repeat > AT_MEAS_RPC_MAX_REPEAT ||
        m->min_repeat_ms < 0 || m->min_repeat_ms > AT_MEAS_RPC_MAX_MS || m->timeout_ms < 0 || m->timeout_ms > AT_MEAS_RPC_MAX_MS ||
        m->build_timeout_ms < 0 || m->build_timeout_ms > AT_MEAS_RPC_MAX_MS || m->cooldown_ms > AT_MEAS_RPC_MAX_MS ||
        m->n_parallel < 0 || m->n_parallel > 1024)
        return AT_FAIL(AT_EINVAL, "rpc runner: bad measure options (negative, or above the protocol's limits)");
    if (m->build_options && strlen(m->build_options) > AT_MEAS_RPC_MAX_BUILD_OPTIONS)
        return AT_FAIL(AT_EINVAL, "rpc runner: build options longer than %u bytes", AT_MEAS_RPC_MAX_BUILD_OPTIONS);
    for (const char *c = m->build_options; c && *c; c++)
        if (*c < 0x20 || *c > 0x7E) return AT_FAIL(AT_EINVAL, "rpc runner: build options must be printable ASCII");
    if (o->request_timeout_ms < 0 || o->session_timeout_ms < 0 || o->max_retry < 0 || o->check_timeout_ms < 0)
        return AT_FAIL(AT_EINVAL, "rpc runner: negative timeout or retry count");
    return AT_OK;
}

/* TVM's check_remote: a server under the key exists and a session with it works. */
static at_status check_remote(rr *r)
{
    int wait_ms = or_default(r->o.check_timeout_ms, 10000);
    double end = at_clock_mono_s() + wait_ms / 1e3;
    size_t servers = 0;
    for (;;) {
        AT_TRY(count_servers(r, &servers));
        if (servers > 0) break;
        if (at_clock_mono_s() >= end)
            return AT_FAIL(AT_ENOTFOUND,
                           "no rpc-server is registered under key '%s' with tracker %s:%d (see autotvm query-tracker)",
                           r->key, r->tracker_host, r->o.tracker_port);
        sleep_ms(100);
    }
    at_rpc_request_opts ro = {
        .tracker_host = r->tracker_host,
        .tracker_port = r->o.tracker_port,
        .key = r->key,
        .priority = CHECK_PRIORITY,
        .request_timeout_ms = wait_ms,
        .max_retry = r->o.max_retry,
        .tracker = r->o.tracker,
        .session = {.auth_key = r->auth_key},
    };
    at_rpc_session *s;
    at_status st;
    /* Servers that exist but stay busy (other tuners' measurements) are not a failure: while any
     * server is registered the check waits again, up to the wait a measurement gets
     * (request_timeout_ms), as TVM's tuners queue behind each other at a shared tracker. */
    double give_up = at_clock_mono_s() + or_default(r->o.request_timeout_ms, 60000) / 1e3;
    for (;;) {
        st = at_rpc_request_session(&ro, &s);
        if (st != AT_ETIMEOUT || at_clock_mono_s() >= give_up) break;
        if (count_servers(r, &servers) != AT_OK || servers == 0) break;
        at_log(AT_LOG_WARN, "checking device key '%s': all %zu rpc-servers are busy; waiting again", r->key, servers);
    }
    if (st == AT_OK) {
        st = at_rpc_session_ping(s, "check", 5, 0);
        at_rpc_session_free(s);
    }
    if (st != AT_OK) return AT_FAIL_WRAP(st, "checking device key '%s' with tracker %s:%d", r->key, r->tracker_host, r->o.tracker_port);
    /* the first batch_size() a tuner asks for: the servers seen now */
    r->stats.last_parallel = r->o.measure.n_parallel > 0 ? (size_t)r->o.measure.n_parallel : servers;
    return AT_OK;
}

at_status at_meas_rpc_runner_new(const at_meas_rpc_opts *opts, at_meas_runner **out)
{
    *out = NULL;
    AT_TRY(check_opts(opts));
    rr *r = at_calloc(1, sizeof *r);
    if (!r) return AT_OOM();
    if (pthread_mutex_init(&r->mu, NULL) != 0) {
        at_free(r);
        return AT_FAIL(AT_ENOMEM, "pthread_mutex_init failed");
    }
    r->o = *opts;
    at_measure_opts *m = &r->o.measure;
    r->tracker_host = at_strdup(opts->tracker_host);
    r->key = at_strdup(opts->key);
    r->auth_key = opts->auth_key && *opts->auth_key ? at_strdup(opts->auth_key) : NULL;
    r->build_options = m->build_options && *m->build_options ? at_strdup(m->build_options) : NULL;
    if (!r->tracker_host || !r->key || (opts->auth_key && *opts->auth_key && !r->auth_key) ||
        (m->build_options && *m->build_options && !r->build_options)) {
        rr_free(r);
        return AT_OOM();
    }
    r->o.tracker_host = r->tracker_host;
    r->o.key = r->key;
    r->o.auth_key = r->auth_key;
    /* the local runner's defaults (measure/ocl.h), so local and remote results compare */
    if (!m->number) m->number = 4;
    if (!m->repeat) m->repeat = 3;
    if (!m->timeout_ms) m->timeout_ms = 10000;
    if (!m->build_timeout_ms) m->build_timeout_ms = 10000;
    if (!m->cooldown_ms) m->cooldown_ms = 100;
    if (!m->seed) m->seed = 1;
    m->build_options = r->build_options;
    m->device = m->cache_dir = NULL;
    m->extra_templates = NULL;
    m->n_extra_templates = 0;
    long long st_ms = opts->session_timeout_ms
                          ? opts->session_timeout_ms
                          : 60000LL + m->build_timeout_ms + 2LL * m->timeout_ms + (m->cooldown_ms > 0 ? m->cooldown_ms : 0);
    r->session_timeout_ms = (int)(st_ms > AT_MEAS_RPC_MAX_MS ? AT_MEAS_RPC_MAX_MS : st_ms);
    r->next_id = random_u64();
    at_status st = check_remote(r);
    if (st != AT_OK) {
        rr_free(r);
        return st;
    }
    return at_meas_runner_new(&rpc_runner_i, r, out);
}

bool at_meas_rpc_is_rpc(const at_meas_runner *r)
{
    return at_meas_runner_iface(r) == &rpc_runner_i;
}

void at_meas_rpc_stats_get(const at_meas_runner *r, at_meas_rpc_stats *out)
{
    AT_ASSERT(at_meas_rpc_is_rpc(r));
    rr *x = at_meas_runner_ctx(r);
    pthread_mutex_lock(&x->mu);
    *out = x->stats;
    pthread_mutex_unlock(&x->mu);
}

const at_meas_rpc_trace *at_meas_rpc_last_traces(const at_meas_runner *r, size_t *n)
{
    AT_ASSERT(at_meas_rpc_is_rpc(r));
    const rr *x = at_meas_runner_ctx(r);
    *n = x->n_traces;
    return x->traces;
}
