/* autotvm tune-task: tunes one task on an OpenCL device, on this CPU through LLVM (--target
 * arm_cpu / llvm: measure/cpu.h), on the VTA simulator (--target vta:
 * cost = simulated cycles / clock, so a seed gives the same records every run), or with
 * --rpc-key on the devices registered with a tracker (measure/rpc_runner.h), with one of the
 * tuners of the names table (tuners/tuner.h), appending every result to a log and showing TVM's
 * progress line; --history gives the tuner earlier tasks' records (transfer learning). */
#include <math.h>
#include <stdbool.h>
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
#include "measure/vta_runner.h"
#include "records/log.h"
#include "templates/template.h"
#include "tune/tune.h"
#include "tuners/tuner.h"
#include "vta/hw.h"

static const char usage_head[] =
    "usage: autotvm tune-task TEMPLATE --args ARGS --tuner NAME --n-trial N --log FILE [options]\n"
    "\n"
    "Tunes one task on an OpenCL device (PoCL by default): the tuner proposes configs, worker\n"
    "processes build them in parallel and run them one at a time, every result is appended to\n"
    "FILE as an AutoTVM v0.2 log line, and the progress line is TVM's.\n"
    "With --rpc-key and --tracker the configs are measured instead on the rpc-servers registered\n"
    "under KEY (autotvm rpc-server), as many at once as servers are registered.\n"
    "With --target vta the task is a VTA template (conv2d_packed.vta, ...) measured on the VTA\n"
    "simulator: cost = simulated cycles / clock, so the same --seed gives the same records (all\n"
    "but each record's host duration and timestamp), and the log names the target\n"
    "\"ext_dev -device=vta -keys=cpu -model=sim_<BATCHxBLOCK_...>\" of the hardware config.\n"
    "\n"
    "  TEMPLATE                  a registered template of the target, e.g. testing/matmul\n"
    "  --args ARGS               the task's arguments: 512,512,512 or a JSON list\n"
    "  --tuner NAME              the tuner (below)\n"
    "  --n-trial N               trials at most\n"
    "  --log FILE                append every result to FILE\n"
    "\n"
    "options:\n"
    "  --target T                the template's target and where configs run: opencl (default),\n"
    "                            mali, vta, arm_cpu (TVM's \"llvm -device=arm_cpu\": LLVM on this\n"
    "                            CPU), llvm, or a TVM target string of kind opencl or llvm\n"
    "  --threads N               CPU targets: threads of a run's parallel loops (default: cores)\n"
    "  --cache-flush             CPU targets: flush the arguments but the first from the caches\n"
    "                            before each timing round (TVM's enable_cpu_cache_flush)\n"
    "  --vta-config FILE|JSON    vta: hardware config in tvm-vta's format (default pynq 1x16);\n"
    "                            the log's model is sim_ + its BATCHxBLOCK_... name\n"
    "  --early-stopping N        stop once N trials passed without a better config (default: off)\n"
    "  --seed N                  seeds every random choice of the tuner (default 0)\n"
    "  --history LOG             learn from the records of TEMPLATE in LOG before the first trial\n"
    "                            (xgb tuners; e.g. the log of the tasks tuned before this one)\n"
    "  --prefix TEXT             progress line prefix (default \"[Task  1/ 1] \")\n"
    "  --min-seed-records N      xgb: learn from --history only if it holds N records of TEMPLATE\n"
    "                            (default 500, TVM's min_seed_records)\n"
    "  --plan-size N             xgb: refit after every N samples (default 64)\n"
    "  --diversity-filter-ratio R  xgb: pick a plan of plan-size among R x plan-size candidates\n"
    "  --xgb-threads N           xgb: XGBoost threads (default 1)\n"
    "  --pop-size N              ga: population (default 100)\n"
    "  --elite-num N             ga: elites kept per generation (default 3)\n"
    "  --mutation-prob P         ga: per-knob mutation probability (default 0.1)\n"
    "  --device SPEC             OpenCL device: index or substring of \"platform / device\"\n"
    "  --number N                runs per timing round (default 4)\n"
    "  --repeat N                timing rounds (default 3)\n"
    "  --min-repeat-ms N         grow number until a round lasts N ms (default 0)\n"
    "  --timeout S               run timeout in seconds (default 10)\n"
    "  --build-timeout S         build timeout in seconds (default 10 for each builder a core\n"
    "                            serves: 10 with --n-parallel at most the cores)\n"
    "  --cooldown-ms N           pause after each run (default 100)\n"
    "  --n-parallel N            builder processes = configs per batch (default: cores); with\n"
    "                            --rpc-key: measurements in flight (default: servers registered)\n"
    "  --check-correctness       compare outputs with the reference (WRONG_ANSWER otherwise)\n"
    "  --target-string T         target written into the log (default \"opencl\"; vta: the\n"
    "                            simulator's ext_dev string)\n"
    "  --cache-dir DIR           PoCL's kernel cache (POCL_CACHE_DIR)\n"
    "  --rpc-key KEY             measure on the rpc-servers registered under KEY (needs --tracker)\n"
    "  --tracker HOST:PORT       the tracker those servers registered with\n"
    "  --priority N              priority of the requests for a device (default 1, TVM's RPCRunner)\n"
    "  --auth-key KEY            the servers' shared key (rpc-server --auth-key)\n"
    "  -h, --help                show this help\n"
    "\n"
    "tuners:\n";

static void print_usage(void)
{
    fputs(usage_head, stdout);
    for (size_t i = 0; i < at_tuner_kind_count(); i++) {
        const at_tuner_kind *k = at_tuner_kind_at(i);
        printf("  %-24s  %s\n", k->name, k->help);
    }
}

static int parse_size(const char *opt, const char *text, size_t *out)
{
    long v;
    int rc = at_cli_parse_long("tune-task", opt, text, &v);
    if (rc) return rc;
    *out = (size_t)v;
    return 0;
}

static int parse_int(const char *opt, const char *text, int *out)
{
    long v;
    int rc = at_cli_parse_long("tune-task", opt, text, &v);
    if (rc) return rc;
    if (v > 1000000000L) return at_cli_usage_error("tune-task", "option '--%s' is too large", opt);
    *out = (int)v;
    return 0;
}

static int parse_seconds(const char *opt, const char *text, int *ms)
{
    char *end = NULL;
    double s = strtod(text, &end);
    if (!text[0] || *end || !(s > 0) || s > 86400)
        return at_cli_usage_error("tune-task", "option '--%s' needs a positive number of seconds, got '%s'", opt,
                                  text);
    *ms = (int)lround(s * 1000);
    return 0;
}

static int parse_double(const char *opt, const char *text, double lo, double hi, double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (!text[0] || *end || !(v >= lo && v <= hi))
        return at_cli_usage_error("tune-task", "option '--%s' needs a number in [%g, %g], got '%s'", opt, lo, hi, text);
    *out = v;
    return 0;
}

static void show_progress(void *user, const at_tune_progress *p)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_tune_format_progress(user, p, &sb);
    printf("\r%s", at_strbuf_cstr(&sb));
    fflush(stdout);
    at_strbuf_fini(&sb);
}

int at_cmd_tune_task(int argc, char **argv)
{
    const char *args = NULL, *tuner_name = NULL, *n_trial_s = NULL, *log_path = NULL, *early_s = NULL,
               *seed_s = NULL, *history_path = NULL, *prefix = "[Task  1/ 1] ", *plan_s = NULL, *div_s = NULL,
               *min_seed_s = NULL, *xgb_threads_s = NULL, *pop_s = NULL, *elite_s = NULL, *mut_s = NULL,
               *device = NULL, *number = NULL, *repeat = NULL, *min_repeat = NULL, *timeout = NULL,
               *build_timeout = NULL, *cooldown = NULL,
               *n_parallel = NULL, *target_string = NULL, *cache_dir = NULL, *rpc_key = NULL, *tracker = NULL,
               *priority = NULL, *auth_key = NULL, *target_name = "opencl", *vta_config = NULL,
               *threads = NULL;
    int cache_flush = 0;
    int check = 0;
    const at_cli_opt opts[] = {
        {"args", &args, NULL},
        {"tuner", &tuner_name, NULL},
        {"n-trial", &n_trial_s, NULL},
        {"log", &log_path, NULL},
        {"early-stopping", &early_s, NULL},
        {"seed", &seed_s, NULL},
        {"history", &history_path, NULL},
        {"prefix", &prefix, NULL},
        {"plan-size", &plan_s, NULL},
        {"min-seed-records", &min_seed_s, NULL},
        {"diversity-filter-ratio", &div_s, NULL},
        {"xgb-threads", &xgb_threads_s, NULL},
        {"pop-size", &pop_s, NULL},
        {"elite-num", &elite_s, NULL},
        {"mutation-prob", &mut_s, NULL},
        {"device", &device, NULL},
        {"number", &number, NULL},
        {"repeat", &repeat, NULL},
        {"min-repeat-ms", &min_repeat, NULL},
        {"timeout", &timeout, NULL},
        {"build-timeout", &build_timeout, NULL},
        {"cooldown-ms", &cooldown, NULL},
        {"n-parallel", &n_parallel, NULL},
        {"check-correctness", NULL, &check},
        {"target-string", &target_string, NULL},
        {"cache-dir", &cache_dir, NULL},
        {"rpc-key", &rpc_key, NULL},
        {"tracker", &tracker, NULL},
        {"priority", &priority, NULL},
        {"auth-key", &auth_key, NULL},
        {"target", &target_name, NULL},
        {"vta-config", &vta_config, NULL},
        {"threads", &threads, NULL},
        {"cache-flush", NULL, &cache_flush},
    };
    const char *pos[1];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 1, &n_pos, "tune-task");
    if (rc == AT_CLI_HELP) {
        print_usage();
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("tune-task", "missing the TEMPLATE");
    if (!args) return at_cli_usage_error("tune-task", "missing --args");
    if (!tuner_name) return at_cli_usage_error("tune-task", "missing --tuner");
    if (!n_trial_s) return at_cli_usage_error("tune-task", "missing --n-trial");
    if (!log_path) return at_cli_usage_error("tune-task", "missing --log");
    if (!at_tuner_kind_find(tuner_name))
        return at_cli_usage_error("tune-task", "unknown tuner '%s' (see autotvm tune-task --help)", tuner_name);
    bool vta = !strcmp(target_name, "vta");
    int on_cpu = 0;
    const char *task_target = "opencl", *cpu = NULL;
    char cpu_buf[128];
    if (!vta && (rc = at_cli_task_target("tune-task", target_name, &on_cpu, &task_target, cpu_buf, sizeof cpu_buf, &cpu)))
        return rc;
    if (!on_cpu && (threads || cache_flush))
        return at_cli_usage_error("tune-task", "--threads and --cache-flush set CPU measurement (--target arm_cpu or llvm)");
    if (on_cpu && (device || cache_dir || rpc_key))
        return at_cli_usage_error("tune-task", "--device, --cache-dir and --rpc-key choose OpenCL devices; a CPU target runs here");
    if (vta_config && !vta) return at_cli_usage_error("tune-task", "--vta-config needs --target vta");
    if (vta && rpc_key && vta_config)
        return at_cli_usage_error("tune-task",
                                  "rpc-servers simulate the default VTA config; --vta-config goes without --rpc-key");
    if (vta && !rpc_key) {
        const char *opencl_only = device          ? "device"
                                  : cache_dir     ? "cache-dir"
                                  : number        ? "number"
                                  : repeat        ? "repeat"
                                  : min_repeat    ? "min-repeat-ms"
                                  : timeout       ? "timeout"
                                  : build_timeout ? "build-timeout"
                                  : cooldown      ? "cooldown-ms"
                                  : n_parallel    ? "n-parallel"
                                                  : NULL;
        if (opencl_only)
            return at_cli_usage_error("tune-task",
                                      "--%s sets OpenCL measurement; the VTA simulator's cost is its cycle count",
                                      opencl_only);
    }
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    if (vta_config) {
        const char *p = vta_config;
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        at_status hst = *p == '{' ? at_vta_hw_from_json(vta_config, strlen(vta_config), &hw)
                                  : at_vta_hw_load(vta_config, &hw);
        if (hst != AT_OK) return at_cli_fail(hst);
    }
    char vta_target[64 + AT_VTA_BITSTREAM_MAX];
    snprintf(vta_target, sizeof vta_target, "ext_dev -device=vta -keys=cpu -model=sim_%s", hw.bitstream);
    if (!target_string) target_string = vta ? vta_target : task_target;

    char prefix_buf[256];
    snprintf(prefix_buf, sizeof prefix_buf, "%s", prefix);
    at_tune_opts to = {.target_str = target_string, .on_progress = show_progress, .user = prefix_buf};
    at_tuner_opts tu = {0};
    at_measure_opts mo = {.device = device, .cache_dir = cache_dir, .check_correctness = check != 0, .cpu = cpu,
                          .enable_cpu_cache_flush = cache_flush != 0};
    size_t seed = 0;
    if ((rc = parse_size("n-trial", n_trial_s, &to.n_trial)) ||
        (early_s && (rc = parse_size("early-stopping", early_s, &to.early_stopping))) ||
        (seed_s && (rc = parse_size("seed", seed_s, &seed))) ||
        (plan_s && (rc = parse_size("plan-size", plan_s, &tu.plan_size))) ||
        (min_seed_s && (rc = parse_size("min-seed-records", min_seed_s, &tu.min_seed_records))) ||
        (div_s && (rc = parse_double("diversity-filter-ratio", div_s, 1, 1e6, &tu.diversity_filter_ratio))) ||
        (xgb_threads_s && (rc = parse_int("xgb-threads", xgb_threads_s, &tu.n_threads))) ||
        (pop_s && (rc = parse_size("pop-size", pop_s, &tu.pop_size))) ||
        (elite_s && (rc = parse_size("elite-num", elite_s, &tu.elite_num))) ||
        (mut_s && (rc = parse_double("mutation-prob", mut_s, 0, 1, &tu.mutation_prob))) ||
        (number && (rc = parse_int("number", number, &mo.number))) ||
        (repeat && (rc = parse_int("repeat", repeat, &mo.repeat))) ||
        (min_repeat && (rc = parse_int("min-repeat-ms", min_repeat, &mo.min_repeat_ms))) ||
        (timeout && (rc = parse_seconds("timeout", timeout, &mo.timeout_ms))) ||
        (build_timeout && (rc = parse_seconds("build-timeout", build_timeout, &mo.build_timeout_ms))) ||
        (n_parallel && (rc = parse_int("n-parallel", n_parallel, &mo.n_parallel))) ||
        (threads && (rc = parse_int("threads", threads, &mo.n_threads))))
        return rc;
    tu.seed = seed;
    if (mut_s && tu.mutation_prob == 0) tu.mutation_prob = -1; /* an explicit 0: no mutation */
    if (cooldown) {
        if ((rc = parse_int("cooldown-ms", cooldown, &mo.cooldown_ms))) return rc;
        if (mo.cooldown_ms == 0) mo.cooldown_ms = -1; /* an explicit 0: no pause */
    }
    if (to.n_trial == 0) return at_cli_usage_error("tune-task", "--n-trial must be >= 1");
    if (number && mo.number == 0) return at_cli_usage_error("tune-task", "--number must be >= 1");
    if (repeat && (mo.repeat == 0 || mo.repeat > 64)) return at_cli_usage_error("tune-task", "--repeat must be 1..64");
    if (plan_s && tu.plan_size == 0) return at_cli_usage_error("tune-task", "--plan-size must be >= 1");
    if (min_seed_s && tu.min_seed_records == 0)
        return at_cli_usage_error("tune-task", "--min-seed-records must be >= 1");
    if (pop_s && tu.pop_size == 0) return at_cli_usage_error("tune-task", "--pop-size must be >= 1");
    if ((rpc_key != NULL) != (tracker != NULL)) return at_cli_usage_error("tune-task", "--rpc-key and --tracker go together");
    if (!rpc_key && (priority || auth_key))
        return at_cli_usage_error("tune-task", "--priority and --auth-key need --rpc-key and --tracker");
    if (rpc_key && (device || cache_dir))
        return at_cli_usage_error("tune-task",
                                  "--device and --cache-dir choose a local device; with --rpc-key the servers' devices measure");
    at_meas_rpc_opts ro = {.key = rpc_key, .priority = 1, .auth_key = auth_key};
    char *thost = NULL;
    if (rpc_key) {
        long prio = 1;
        if (priority && (rc = at_cli_parse_long("tune-task", "priority", priority, &prio))) return rc;
        ro.priority = prio;
        if (at_meas_rpc_parse_addr(tracker, &thost, &ro.tracker_port) != AT_OK)
            return at_cli_usage_error("tune-task", "%s", at_last_error());
        ro.tracker_host = thost;
    }
    ro.measure = mo;

    at_task *task = NULL;
    at_tuner *tuner = NULL;
    at_meas_runner *runner = NULL;
    at_rec_appender *app = NULL;
    at_rec_log *hist_log = NULL;
    at_tune_history *hist = NULL;
    at_tune_result res;
    at_status st = at_task_create(pos[0], vta ? AT_TARGET_VTA : on_cpu ? AT_TARGET_LLVM : AT_TARGET_OPENCL, args, &task);
    if (st != AT_OK && st != AT_ENOMEM) {
        /* an unknown template or bad --args: the arguments are wrong */
        at_free(thost);
        return at_cli_usage_error("tune-task", "%s", at_last_error());
    }
    if (st == AT_OK) st = at_tuner_new(tuner_name, task, &tu, &tuner);
    if (st == AT_OK) st = at_rec_appender_open(log_path, &app);
    /* the worker processes fork before XGBoost trains anything in this process */
    if (st == AT_OK)
        st = rpc_key ? at_meas_rpc_runner_new(&ro, &runner)
             : vta   ? at_meas_vta_runner_new(&hw, &mo, &runner)
                     : at_meas_local_runner_new(on_cpu ? AT_TARGET_LLVM : AT_TARGET_OPENCL, &mo, &runner);
    if (st == AT_OK && history_path) {
        st = at_rec_log_load_file(history_path, &hist_log);
        if (st == AT_OK) st = at_tune_history_new(task, hist_log, &hist);
        size_t n = 0, used = 0;
        const at_tuner_record *recs = st == AT_OK ? at_tune_history_records(hist, &n) : NULL;
        if (st == AT_OK) st = at_tuner_load_history(tuner, recs, n, &used);
        if (st == AT_OK)
            fprintf(stderr, "autotvm: history: %zu records of %s from %zu workloads in %s, %zu learned from\n", n,
                    pos[0], at_tune_history_n_workloads(hist), history_path, used);
    }
    if (st == AT_OK) {
        to.log = app;
        st = at_tune_task(task, tuner, runner, &to, &res);
        printf(" Done.\n");
        fflush(stdout);
    }
    if (st == AT_OK) {
        if (res.best_index >= 0)
            fprintf(stderr, "autotvm: best of %zu trials: config %lld, %.2f GFLOPS (trial %zu)%s\n", res.n_trials,
                    (long long)res.best_index, res.best_flops / 1e9, res.best_iter + 1,
                    res.early_stopped ? ", early stopped" : "");
        else
            fprintf(stderr, "autotvm: no valid config in %zu trials\n", res.n_trials);
        if (res.n_invalid)
            fprintf(stderr, "autotvm: %zu proposed configs could not instantiate (skipped: no trial, not logged)\n",
                    res.n_invalid);
    }
    at_status cst = at_rec_appender_close(app);
    if (st == AT_OK) st = cst;
    at_meas_runner_free(runner);
    at_tune_history_free(hist);
    at_rec_log_free(hist_log);
    at_tuner_free(tuner);
    at_task_free(task);
    at_free(thost);
    return st == AT_OK ? 0 : at_cli_fail(st);
}
