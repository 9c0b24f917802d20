/* autotvm measure: builds and runs chosen configs of one task on an OpenCL device through the
 * worker pool (on the host CPU through LLVM with --target arm_cpu / llvm: measure/cpu.h), or with --rpc-key on the devices registered with a tracker (measure/rpc_runner.h),
 * printing each result as the v0.2 log line TVM would append (stdout) and a readable summary
 * (stderr). A failed config is a result, not a command failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "measure/cpu.h"
#include "measure/ocl.h"
#include "measure/rpc_runner.h"
#include "records/record.h"
#include "templates/template.h"

static const char usage[] =
    "usage: autotvm measure TEMPLATE --args ARGS --config INDEX[,INDEX...] [options]\n"
    "\n"
    "Measures configs of a task on an OpenCL device (PoCL by default) the way a tuner does:\n"
    "build in worker processes, run with TVM's time evaluator, and print each result as one\n"
    "AutoTVM v0.2 log line on stdout (append it to a log) plus a summary on stderr.\n"
    "With --rpc-key and --tracker the configs are measured instead on the rpc-servers registered\n"
    "under KEY (autotvm rpc-server), one session per config, as many at once as servers are\n"
    "registered; a config whose session fails (server gone, session killed) is measured again\n"
    "once on the next free server.\n"
    "\n"
    "With --target arm_cpu (TVM's \"llvm -device=arm_cpu\") or llvm the task is a CPU template,\n"
    "compiled by LLVM for this machine in the worker processes and timed on wall-clock time.\n"
    "\n"
    "  TEMPLATE            a registered template of the target, e.g. testing/matmul\n"
    "  --args ARGS         the task's arguments: 512,512,512 or a JSON list [512, 512, 512, \"float32\"]\n"
    "  --config LIST       config indices in the task's space\n"
    "\n"
    "options:\n"
    "  --target T            opencl (default), mali, arm_cpu, llvm, or a TVM target string of kind\n"
    "                        opencl or llvm (an llvm -mcpu=NAME compiles for that CPU)\n"
    "  --threads N           CPU targets: threads of a run's parallel loops (default: cores)\n"
    "  --cache-flush         CPU targets: flush every argument but the first from the caches\n"
    "                        before each timing round (TVM's enable_cpu_cache_flush)\n"
    "  --device SPEC         OpenCL device: index or substring of \"platform / device\" (autotvm devices)\n"
    "  --number N            runs per timing round (default 4)\n"
    "  --repeat N            timing rounds (default 3; with more than 2 the min and max are dropped)\n"
    "  --min-repeat-ms N     grow number until a round lasts N ms (default 0)\n"
    "  --timeout S           run timeout in seconds (default 10)\n"
    "  --build-timeout S     build timeout in seconds (default 10 per builder a core serves)\n"
    "  --cooldown-ms N       pause after each run (default 100)\n"
    "  --n-parallel N        worker processes (default: cores, at most one per config); with\n"
    "                        --rpc-key: measurements in flight (default: servers registered)\n"
    "  --check-correctness   compare outputs with the reference (WRONG_ANSWER otherwise)\n"
    "  --target-string T     target written into the log line (default: --target's TVM string)\n"
    "  --cache-dir DIR       PoCL's kernel cache (POCL_CACHE_DIR)\n"
    "  --rpc-key KEY         measure on the rpc-servers registered under KEY (needs --tracker)\n"
    "  --tracker HOST:PORT   the tracker those servers registered with\n"
    "  --priority N          priority of the requests for a device (default 1, TVM's RPCRunner)\n"
    "  --auth-key KEY        the servers' shared key (rpc-server --auth-key)\n"
    "  -h, --help            show this help\n";

static int parse_seconds(const char *opt, const char *text, int *ms)
{
    char *end = NULL;
    double s = strtod(text, &end);
    if (!text[0] || *end || !(s > 0) || s > 86400)
        return at_cli_usage_error("measure", "option '--%s' needs a positive number of seconds, got '%s'", opt, text);
    *ms = (int)lround(s * 1000);
    return 0;
}

static int parse_int(const char *opt, const char *text, int *out)
{
    long v;
    int rc = at_cli_parse_long("measure", opt, text, &v);
    if (rc) return rc;
    if (v > 1000000000L) return at_cli_usage_error("measure", "option '--%s' is too large", opt);
    *out = (int)v;
    return 0;
}

/* Parses "3,5,7" into a new array. */
static int parse_indices(const char *text, int64_t **out, size_t *n)
{
    size_t cap = 1;
    for (const char *p = text; *p; p++) cap += *p == ',';
    int64_t *v = at_malloc(cap * sizeof *v);
    if (!v) return at_cli_fail(AT_OOM());
    size_t k = 0;
    const char *p = text;
    while (*p) {
        char *end = NULL;
        long long x = strtoll(p, &end, 10);
        if (end == p || x < 0 || (*end && *end != ',')) {
            at_free(v);
            return at_cli_usage_error("measure", "bad config list '%s' (non-negative indices, comma-separated)", text);
        }
        v[k++] = x;
        p = *end ? end + 1 : end;
    }
    if (k == 0) {
        at_free(v);
        return at_cli_usage_error("measure", "empty config list");
    }
    *out = v;
    *n = k;
    return 0;
}

int at_cmd_measure(int argc, char **argv)
{
    const char *args = NULL, *config = NULL, *device = NULL, *number = NULL, *repeat = NULL, *min_repeat = NULL,
               *timeout = NULL, *build_timeout = NULL, *cooldown = NULL, *n_parallel = NULL, *target_string = NULL,
               *cache_dir = NULL, *rpc_key = NULL, *tracker = NULL, *priority = NULL, *auth_key = NULL,
               *target = "opencl", *threads = NULL;
    int check = 0, cache_flush = 0;
    const at_cli_opt opts[] = {
        {"args", &args, NULL},           {"config", &config, NULL},         {"device", &device, NULL},
        {"number", &number, NULL},       {"repeat", &repeat, NULL},         {"min-repeat-ms", &min_repeat, NULL},
        {"timeout", &timeout, NULL},     {"build-timeout", &build_timeout, NULL},
        {"cooldown-ms", &cooldown, NULL}, {"n-parallel", &n_parallel, NULL}, {"check-correctness", NULL, &check},
        {"target-string", &target_string, NULL}, {"cache-dir", &cache_dir, NULL},
        {"rpc-key", &rpc_key, NULL},     {"tracker", &tracker, NULL},       {"priority", &priority, NULL},
        {"auth-key", &auth_key, NULL},
        {"target", &target, NULL},       {"threads", &threads, NULL},       {"cache-flush", NULL, &cache_flush},
    };
    const char *pos[1];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 1, &n_pos, "measure");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("measure", "missing the TEMPLATE");
    if (!args) return at_cli_usage_error("measure", "missing --args");
    if (!config) return at_cli_usage_error("measure", "missing --config");

    int on_cpu = 0;
    const char *tstr = NULL, *cpu = NULL;
    char cpu_buf[128];
    if ((rc = at_cli_task_target("measure", target, &on_cpu, &tstr, cpu_buf, sizeof cpu_buf, &cpu))) return rc;
    if (!target_string) target_string = tstr;
    if (!on_cpu && (threads || cache_flush))
        return at_cli_usage_error("measure", "--threads and --cache-flush set CPU measurement (--target arm_cpu or llvm)");
    if (on_cpu && (device || cache_dir || rpc_key))
        return at_cli_usage_error("measure", "--device, --cache-dir and --rpc-key choose OpenCL devices; a CPU target runs here");
    at_measure_opts mo = {.device = device, .cache_dir = cache_dir, .check_correctness = check != 0, .cpu = cpu,
                          .enable_cpu_cache_flush = cache_flush != 0};
    if (threads && (rc = parse_int("threads", threads, &mo.n_threads))) return rc;
    if ((number && (rc = parse_int("number", number, &mo.number))) || (repeat && (rc = parse_int("repeat", repeat, &mo.repeat))) ||
        (min_repeat && (rc = parse_int("min-repeat-ms", min_repeat, &mo.min_repeat_ms))) ||
        (timeout && (rc = parse_seconds("timeout", timeout, &mo.timeout_ms))) ||
        (build_timeout && (rc = parse_seconds("build-timeout", build_timeout, &mo.build_timeout_ms))) ||
        (n_parallel && (rc = parse_int("n-parallel", n_parallel, &mo.n_parallel))))
        return rc;
    if (cooldown) {
        if ((rc = parse_int("cooldown-ms", cooldown, &mo.cooldown_ms))) return rc;
        if (mo.cooldown_ms == 0) mo.cooldown_ms = -1; /* an explicit 0: no pause */
    }
    if (number && mo.number == 0) return at_cli_usage_error("measure", "--number must be >= 1");
    if (repeat && (mo.repeat == 0 || mo.repeat > 64)) return at_cli_usage_error("measure", "--repeat must be 1..64");
    if ((rpc_key != NULL) != (tracker != NULL)) return at_cli_usage_error("measure", "--rpc-key and --tracker go together");
    if (!rpc_key && (priority || auth_key))
        return at_cli_usage_error("measure", "--priority and --auth-key need --rpc-key and --tracker");
    if (rpc_key && (device || cache_dir))
        return at_cli_usage_error("measure", "--device and --cache-dir choose a local device; with --rpc-key the servers' devices measure");
    at_meas_rpc_opts ro = {.key = rpc_key, .priority = 1, .auth_key = auth_key};
    char *thost = NULL;
    if (rpc_key) {
        long prio = 1;
        if (priority && (rc = at_cli_parse_long("measure", "priority", priority, &prio))) return rc;
        ro.priority = prio;
        if (at_meas_rpc_parse_addr(tracker, &thost, &ro.tracker_port) != AT_OK)
            return at_cli_usage_error("measure", "%s", at_last_error());
        ro.tracker_host = thost;
    }

    int64_t *indices = NULL;
    size_t n = 0;
    if ((rc = parse_indices(config, &indices, &n))) {
        at_free(thost);
        return rc;
    }

    at_task *task = NULL;
    at_config **configs = at_calloc(n, sizeof *configs);
    at_meas_input *inputs = at_calloc(n, sizeof *inputs);
    at_result *results = at_calloc(n, sizeof *results);
    at_meas_runner *runner = NULL;
    at_strbuf args_json;
    at_strbuf_init(&args_json);
    at_status st = configs && inputs && results ? AT_OK : AT_OOM();
    int usage_rc = 0; /* an unknown template or bad --args */
    if (st == AT_OK) {
        st = at_task_create(pos[0], on_cpu ? AT_TARGET_LLVM : AT_TARGET_OPENCL, args, &task);
        if (st != AT_OK && st != AT_ENOMEM) usage_rc = at_cli_usage_error("measure", "%s", at_last_error());
    }
    for (size_t i = 0; i < n && st == AT_OK; i++) {
        st = at_task_config(task, indices[i], &configs[i]);
        if (st != AT_OK)
            st = AT_FAIL_WRAP(st, "config %lld of %s (the space has %lld)", (long long)indices[i], pos[0],
                              (long long)at_space_range_len(at_task_space(task)));
        inputs[i] = (at_meas_input){task, configs[i]};
        at_result_init(&results[i]);
    }
    if (st == AT_OK && !n_parallel && !rpc_key) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        mo.n_parallel = (int)((size_t)(cores > 0 ? cores : 1) < n ? (size_t)(cores > 0 ? cores : 1) : n);
    }
    ro.measure = mo;
    if (st == AT_OK)
        st = rpc_key ? at_meas_rpc_runner_new(&ro, &runner)
                     : at_meas_local_runner_new(on_cpu ? AT_TARGET_LLVM : AT_TARGET_OPENCL, &mo, &runner);
    if (st == AT_OK) st = at_meas_runner_measure(runner, inputs, n, results);
    if (st == AT_OK) {
        at_strbuf_putc(&args_json, '[');
        at_op_args_write_json(at_task_args(task), &args_json);
        at_strbuf_putc(&args_json, ']');
        st = at_strbuf_status(&args_json);
    }
    const at_ocl_device_info *dev =
        st == AT_OK && !rpc_key ? at_meas_ocl_device(on_cpu ? at_meas_cpu_of(runner) : at_meas_ocl_of(runner)) : NULL;
    size_t n_traces = 0;
    const at_meas_rpc_trace *traces = st == AT_OK && rpc_key ? at_meas_rpc_last_traces(runner, &n_traces) : NULL;
    for (size_t i = 0; i < n && st == AT_OK; i++) {
        at_rec rec;
        st = at_rec_make(target_string, pos[0], at_strbuf_cstr(&args_json), configs[i], &results[i], &rec);
        if (st != AT_OK) break;
        char *line = at_rec_to_line(&rec);
        at_rec_fini(&rec);
        if (!line) {
            st = AT_OOM();
            break;
        }
        fputs(line, stdout);
        fflush(stdout);
        at_free(line);
        const at_result *r = &results[i];
        char where[256];
        if (dev)
            snprintf(where, sizeof where, "%s", dev->name);
        else if (i < n_traces && traces[i].device[0])
            snprintf(where, sizeof where, "%s at %s", traces[i].device, traces[i].server);
        else
            snprintf(where, sizeof where, "key %s", rpc_key);
        if (r->err == AT_MEAS_OK) {
            double mean = at_result_mean_cost(r);
            fprintf(stderr, "config %lld on %s: %.6g ms, %.4g GFLOPS\n", (long long)indices[i], where, mean * 1e3,
                    at_task_flop(task) / mean / 1e9);
        } else {
            fprintf(stderr, "config %lld on %s: %s: %s\n", (long long)indices[i], where, at_meas_err_name(r->err),
                    r->msg ? r->msg : "");
        }
    }
    at_strbuf_fini(&args_json);
    at_meas_runner_free(runner);
    for (size_t i = 0; configs && i < n; i++) at_config_free(configs[i]);
    for (size_t i = 0; results && i < n; i++) at_result_fini(&results[i]);
    at_free(configs);
    at_free(inputs);
    at_free(results);
    at_free(indices);
    at_free(thost);
    at_task_free(task);
    if (usage_rc) return usage_rc;
    return st == AT_OK ? 0 : at_cli_fail(st);
}
