/* bench_rpc: remote measurement throughput (trials/s) of testing/matmul through a tracker and 1, 2,
 * 4 ... local rpc-servers (forked processes, each session measuring with its own OpenCL worker),
 * with the local one-worker pool as the reference. Measurement-dominated by default: min_repeat_ms
 * makes every timed round last that long whatever the kernel, so each trial occupies its server
 * for about repeat x min_repeat_ms and parallel servers can overlap. Kernels are compiled once in
 * a warm-up batch (PoCL kernel cache) before the timed runs. Each figure is the median of --runs.
 * On a CPU OpenCL device every server shares the same cores: the measured costs then rise with
 * the number of servers (also printed), which a fleet of boards would not show.
 *
 * usage: bench_rpc [--servers 1,2,4] [--args N,L,M] [--configs K] [--runs R] [--number N]
 *                  [--repeat N] [--min-repeat-ms M] [--device SPEC] */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/rng.h"
#include "measure/ocl.h"
#include "measure/rpc_handler.h"
#include "measure/rpc_runner.h"
#include "rpc/client.h"
#include "rpc/server.h"
#include "rpc/tracker.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void reap(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}

static const char *device_spec;
static char        cache_dir[256];

static at_status start_tracker(pid_t *pid, int *port)
{
    at_rpc_tracker_opts o = {.port = AT_RPC_PORT_ANY};
    at_rpc_tracker *t;
    AT_TRY(at_rpc_tracker_new(&o, &t));
    *port = at_rpc_tracker_port(t);
    fflush(NULL);
    *pid = fork();
    if (*pid == 0) _exit(at_rpc_tracker_run(t) == AT_OK ? 0 : 1);
    at_rpc_tracker_free(t);
    return *pid > 0 ? AT_OK : AT_FAIL(AT_EIO, "fork failed");
}

static at_status start_server(int tracker_port, const char *key, uint64_t seed, pid_t *pid)
{
    at_meas_rpc_handler_opts ho = {.device = device_spec, .cache_dir = cache_dir, .no_probe = true};
    at_meas_rpc_handler *h;
    AT_TRY(at_meas_rpc_handler_new(&ho, &h));
    at_rpc_server_opts o = {.port = AT_RPC_PORT_ANY, .tracker_host = "127.0.0.1", .tracker_port = tracker_port,
                            .key = key, .seed = seed, .tracker_retry_ms = 100,
                            .handler = at_meas_rpc_handler_hooks(h)};
    at_rpc_server *s;
    at_status st = at_rpc_server_new(&o, &s);
    if (st != AT_OK) {
        at_meas_rpc_handler_free(h);
        return st;
    }
    fflush(NULL);
    *pid = fork();
    if (*pid == 0) _exit(at_rpc_server_run(s) == AT_OK ? 0 : 1);
    at_rpc_server_free(s);
    at_meas_rpc_handler_free(h);
    return *pid > 0 ? AT_OK : AT_FAIL(AT_EIO, "fork failed");
}

/* Servers registered under key, from the tracker's SUMMARY. */
static int registered(int tport, const char *key)
{
    at_rpc_tclient_opts to = {.connect_timeout_ms = 2000, .retry_period_ms = 50};
    at_rpc_tclient *tc;
    cJSON *sum = NULL;
    int n = 0;
    if (at_rpc_tclient_connect("127.0.0.1", tport, &to, &tc) != AT_OK) return -1;
    if (at_rpc_tclient_summary(tc, &sum) == AT_OK) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sum, "server_info"))
        {
            const cJSON *kk = cJSON_GetObjectItemCaseSensitive(e, "key");
            n += cJSON_IsString(kk) && !strncmp(kk->valuestring, "server:", 7) && !strcmp(kk->valuestring + 7, key);
        }
        at_json_free(sum);
    }
    at_rpc_tclient_free(tc);
    return n;
}

/* K distinct configs with at most 256 work-items per group (fits any OpenCL device). */
static size_t pick_configs(const at_task *t, uint64_t seed, int64_t *out, size_t k)
{
    const at_space *s = at_task_space(t);
    int64_t len = at_space_len(s);
    int64_t *perm = at_malloc((size_t)len * sizeof *perm);
    if (!perm) return 0;
    at_rng rng;
    at_rng_seed(&rng, seed);
    if (at_space_sample_ints(s, &rng, (size_t)len, perm) != AT_OK) {
        at_free(perm);
        return 0;
    }
    size_t n = 0;
    for (int64_t i = 0; i < len && n < k; i++) {
        at_config *c;
        if (at_task_config(t, perm[i], &c) != AT_OK) continue;
        int64_t y[2], x[2];
        at_config_split(c, 0, y, 2);
        at_config_split(c, 1, x, 2);
        at_config_free(c);
        if (y[1] * x[1] <= 256) out[n++] = perm[i];
    }
    at_free(perm);
    return n;
}

/* Measures the inputs once; returns trials/s and appends OK costs to costs[*n_costs]. */
static at_status timed_batch(at_meas_runner *r, const at_meas_input *in, size_t k, double *tps, double *costs,
                             size_t *n_costs, size_t *n_failed)
{
    at_result res[64];
    for (size_t i = 0; i < k; i++) at_result_init(&res[i]);
    double t0 = at_clock_mono_s();
    at_status st = at_meas_runner_measure(r, in, k, res);
    *tps = (double)k / (at_clock_mono_s() - t0);
    for (size_t i = 0; i < k; i++) {
        if (res[i].err == AT_MEAS_OK)
            costs[(*n_costs)++] = res[i].costs_s[0];
        else {
            (*n_failed)++;
            fprintf(stderr, "trial %zu: %s: %s\n", i, at_meas_err_name(res[i].err), res[i].msg ? res[i].msg : "");
        }
        at_result_fini(&res[i]);
    }
    return st;
}

static void report(const char *what, double *tps, int runs, double *costs, size_t n_costs, size_t n_failed)
{
    double sorted[64];
    memcpy(sorted, tps, (size_t)runs * sizeof *tps);
    printf("%-14s %7.3f trials/s (median of %d runs:", what, median(sorted, (size_t)runs), runs);
    for (int i = 0; i < runs; i++) printf(" %.3f", tps[i]);
    printf("), median cost %.4f ms, %zu failed\n", median(costs, n_costs) * 1e3, n_failed);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *args = "128,128,128", *servers_text = "1,2,4";
    int n_configs = 8, n_runs = 3, number = 4, repeat = 3, min_repeat_ms = 100;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--servers") && v) servers_text = argv[++i];
        else if (!strcmp(a, "--args") && v) args = argv[++i];
        else if (!strcmp(a, "--configs") && v) n_configs = atoi(argv[++i]);
        else if (!strcmp(a, "--runs") && v) n_runs = atoi(argv[++i]);
        else if (!strcmp(a, "--number") && v) number = atoi(argv[++i]);
        else if (!strcmp(a, "--repeat") && v) repeat = atoi(argv[++i]);
        else if (!strcmp(a, "--min-repeat-ms") && v) min_repeat_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--device") && v) device_spec = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--servers 1,2,4] [--args N,L,M] [--configs K] [--runs R] [--number N] [--repeat N] "
                            "[--min-repeat-ms M] [--device SPEC]\n", argv[0]);
            return 2;
        }
    }
    if (n_configs < 1 || n_configs > 64 || n_runs < 1 || n_runs > 64 || number < 1 || repeat < 1 || repeat > 64 ||
        min_repeat_ms < 0) {
        fprintf(stderr, "bench_rpc: bad option value\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    at_log_set_level(AT_LOG_ERROR);
    snprintf(cache_dir, sizeof cache_dir, "/tmp/autotvm_bench_rpc_cache_%d", (int)getpid());

    at_task *task;
    if (at_task_create("testing/matmul", AT_TARGET_OPENCL, args, &task) != AT_OK) {
        fprintf(stderr, "bench_rpc: %s\n", at_last_error());
        return 1;
    }
    int64_t idx[64];
    size_t k = pick_configs(task, 2024, idx, (size_t)n_configs);
    at_config *cfg[64];
    at_meas_input in[64];
    for (size_t i = 0; i < k; i++) {
        if (at_task_config(task, idx[i], &cfg[i]) != AT_OK) abort();
        in[i] = (at_meas_input){task, cfg[i]};
    }
    at_measure_opts mo = {.number = number, .repeat = repeat, .min_repeat_ms = min_repeat_ms, .cooldown_ms = -1,
                          .n_parallel = 1, .device = device_spec, .cache_dir = cache_dir};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("testing/matmul %s float32, %zu configs per batch, %d timed batches, number=%d repeat=%d min_repeat_ms=%d, "
           "no cooldown, warm kernel cache, %ld CPU cores\n",
           args, k, n_runs, number, repeat, min_repeat_ms, cores);

    int rc = 0;
    double tps[64], costs[64 * 64];
    size_t n_costs, n_failed;
    /* reference: the local pool with one worker (the same code path a server's session uses) */
    at_meas_runner *local;
    if (at_meas_ocl_runner_new(&mo, &local) != AT_OK) {
        fprintf(stderr, "bench_rpc: %s\n", at_last_error());
        return 1;
    }
    const at_ocl_device_info *dev = at_meas_ocl_device(at_meas_ocl_of(local));
    printf("device: %s / %s\n", dev->platform, dev->name);
    n_costs = n_failed = 0;
    double warm;
    size_t warm_costs = 0, warm_failed = 0;
    double warm_cost[64];
    timed_batch(local, in, k, &warm, warm_cost, &warm_costs, &warm_failed); /* compiles into the cache */
    for (int r = 0; r < n_runs && rc == 0; r++)
        if (timed_batch(local, in, k, &tps[r], costs, &n_costs, &n_failed) != AT_OK) rc = 1;
    at_meas_runner_free(local);
    if (rc == 0) report("local pool", tps, n_runs, costs, n_costs, n_failed);

    pid_t tracker = -1;
    int tport = 0;
    if (rc == 0 && start_tracker(&tracker, &tport) != AT_OK) {
        fprintf(stderr, "bench_rpc: %s\n", at_last_error());
        rc = 1;
    }
    for (const char *p = servers_text; rc == 0 && *p;) {
        int ns = atoi(p);
        p += strcspn(p, ",");
        if (*p) p++;
        if (ns < 1 || ns > 32) continue;
        char key[32];
        snprintf(key, sizeof key, "bench%d", ns);
        pid_t srv[32];
        int started = 0;
        for (int i = 0; i < ns && rc == 0; i++) {
            if (start_server(tport, key, 100u * (uint64_t)ns + (uint64_t)i, &srv[i]) != AT_OK) {
                fprintf(stderr, "bench_rpc: %s\n", at_last_error());
                rc = 1;
            } else {
                started++;
            }
        }
        /* wait until all of them registered: the runner's parallelism is what it finds */
        double end = at_clock_mono_s() + 20;
        int n_reg = 0;
        while (rc == 0 && (n_reg = registered(tport, key)) != ns) {
            if (at_clock_mono_s() > end) {
                fprintf(stderr, "bench_rpc: only %d of %d servers registered\n", n_reg, ns);
                rc = 1;
            }
            nanosleep(&(struct timespec){0, 50000000L}, NULL);
        }
        at_meas_runner *r = NULL;
        at_meas_rpc_opts ro = {.tracker_host = "127.0.0.1", .tracker_port = tport, .key = key, .priority = 1,
                               .measure = mo, .check_timeout_ms = 20000};
        ro.measure.n_parallel = 0; /* as many in flight as servers are registered */
        if (rc == 0 && at_meas_rpc_runner_new(&ro, &r) != AT_OK) {
            fprintf(stderr, "bench_rpc: %s\n", at_last_error());
            rc = 1;
        }
        if (rc == 0) {
            n_costs = n_failed = 0;
            for (int i = 0; i < n_runs && rc == 0; i++)
                if (timed_batch(r, in, k, &tps[i], costs, &n_costs, &n_failed) != AT_OK) rc = 1;
            at_meas_rpc_stats s;
            at_meas_rpc_stats_get(r, &s);
            char what[32];
            snprintf(what, sizeof what, "%d server%s", ns, ns > 1 ? "s" : "");
            if (rc == 0) report(what, tps, n_runs, costs, n_costs, n_failed);
            printf("               (%zu in flight, %zu attempts for %zu trials, %zu re-queued)\n", s.last_parallel,
                   s.n_attempts, s.n_trials, s.n_requeued);
        }
        at_meas_runner_free(r);
        for (int i = 0; i < started; i++) reap(srv[i]);
    }
    reap(tracker);
    for (size_t i = 0; i < k; i++) at_config_free(cfg[i]);
    at_task_free(task);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_rpc: could not remove %s\n", cache_dir);
    return rc;
}
