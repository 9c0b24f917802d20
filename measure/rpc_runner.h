/* The remote runner (TVM's RPCRunner): measures configs on whichever rpc-servers registered under
 * a device key with a tracker are free, one session per measurement as TVM does, as many at once
 * as there are servers (or n_parallel). Each session carries a measure request
 * (measure/rpc_proto.h: template, args, config and the runner's settings); the server rebuilds
 * and measures on its device (measure/rpc_handler.h) and returns the result.
 *
 * Infrastructure failures are not the config's fault: a session the server killed at its
 * timeout, a reply that never came (RUN_TIMEOUT), a session process that died, a connection
 * lost, a reply that does not answer this request (RUNTIME_DEVICE) make that *attempt* fail, and
 * the config is queued again once, for the next free device (the tracker's FIFO hands out
 * another server first when one is free). The second attempt's outcome is the result. Every
 * reply carries the request's id and config index, so a result can only land on its config. */
#ifndef AT_MEASURE_RPC_RUNNER_H
#define AT_MEASURE_RPC_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "measure/measure.h"
#include "rpc/client.h"

/* Zero means default, except priority. */
typedef struct at_meas_rpc_opts {
    const char *tracker_host; /* required */
    int         tracker_port; /* required, 1..65535 */
    const char *key;          /* device key the servers registered under, e.g. "rk3399" (required) */
    int64_t     priority;     /* of the tracker requests, as given (TVM's RPCRunner uses 1) */
    const char *auth_key;     /* the servers' --auth-key (NULL or "": none) */
    /* number, repeat, min_repeat_ms, timeout_ms, build_timeout_ms, cooldown_ms, check_correctness,
     * seed, build_options: sent with every request, defaults as the local runner's; n_parallel:
     * measurements in flight (0: as many as servers are registered under key when a batch
     * starts, at least 1). device, cache_dir and extra_templates are the servers' business and
     * ignored here. */
    at_measure_opts measure;
    int request_timeout_ms;  /* wait for a free device per attempt (default 60000): then RUN_TIMEOUT */
    int session_timeout_ms;  /* asked of the server (default: 60 s + build_timeout + 2 timeout + cooldown) */
    int max_retry;           /* session opens per attempt when a server vanishes before its session (default 5) */
    int check_timeout_ms;    /* at_meas_rpc_runner_new waits this long for a server under key (default 10000) */
    at_rpc_tclient_opts tracker; /* connecting to the tracker (TVM's 60 s retry of a refused connection) */
} at_meas_rpc_opts;

/* Checks the options, then does TVM's check_remote: waits up to check_timeout_ms for a server
 * under key, opens one session with priority 100 and pings it (so a wrong auth key fails here);
 * when every registered server stays busy past check_timeout_ms it waits again, up to
 * request_timeout_ms in all (tuners sharing a tracker queue behind each other).
 * The runner's batch_size is n_parallel, or else the number of servers under key, counted here
 * and again at the start of every batch.
 * *out owned by the caller (at_meas_runner_free). AT_EINVAL (bad options), AT_EIO (tracker
 * unreachable, session refused: auth key, version), AT_ENOTFOUND (no server registered under key
 * in time), AT_ETIMEOUT, AT_ENOMEM. */
at_status at_meas_rpc_runner_new(const at_meas_rpc_opts *opts, at_meas_runner **out);

/* Splits "HOST:PORT" at the last ':' as TVM does ("[v6]:port" loses its brackets). *host
 * at_malloc'ed, owned by the caller. AT_EINVAL ("--tracker expects HOST:PORT ..."), AT_ENOMEM. */
at_status at_meas_rpc_parse_addr(const char *text, char **host, int *port);

/* Counters since the runner started. */
typedef struct at_meas_rpc_stats {
    size_t n_trials;          /* results produced */
    size_t n_attempts;        /* measure requests sent (sessions that carried one) */
    size_t n_requeued;        /* configs queued again after an attempt failed */
    size_t n_session_retries; /* sessions re-requested because the assigned server was gone */
    size_t last_parallel;     /* measurements in flight allowed in the last batch (before the first:
                               * the servers registered when the runner was made) */
} at_meas_rpc_stats;

/* The counters of a runner made by at_meas_rpc_runner_new. AT_ASSERTs that it is one. */
void at_meas_rpc_stats_get(const at_meas_runner *r, at_meas_rpc_stats *out);

/* Where input i of the last batch went. */
typedef struct at_meas_rpc_trace {
    char        server[80];     /* "host:port" of the last attempt's server ("" when no session opened) */
    char        device[128];    /* the device that server reported ("" when none) */
    int         attempts;       /* 1, or 2 after a re-queue */
    at_meas_err first_err;      /* with 2 attempts: what the first one cost (RUN_TIMEOUT or RUNTIME_DEVICE) */
    char        first_msg[256]; /* and why, "" with 1 attempt */
} at_meas_rpc_trace;

/* One per input of the last measure call (borrowed until the next call). AT_ASSERTs the runner
 * was made by at_meas_rpc_runner_new. */
const at_meas_rpc_trace *at_meas_rpc_last_traces(const at_meas_runner *r, size_t *n);

/* True when r was made by at_meas_rpc_runner_new. */
bool at_meas_rpc_is_rpc(const at_meas_runner *r);

#endif
