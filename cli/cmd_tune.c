/* autotvm tune NETWORK: TVM's tune_tasks flow (extract, tune every task in reverse order into
 * FILE.tmp with transfer learning, pick-best into FILE), then the evaluation of cmd_evaluate.c
 * with FILE > TopHub > fallback, on an OpenCL device or, for arm_cpu, on this CPU through LLVM; --resume continues a killed run from FILE.tmp. With
 * --total-trials the trial scheduler (tune/scheduler.h) shares N trials over the tasks instead of
 * n_trial each, printing TVM's [ Task Scheduler ] table before every round. With --rpc-key
 * the tasks are measured on a tracker's rpc-servers; the evaluation stays local. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "measure/rpc_runner.h"
#include "tune/network.h"
#include "tune/network_vta.h"

static const char usage_head[] =
    "usage: autotvm tune NETWORK --target mali --tuner NAME [options]\n"
    "\n"
    "Extracts NETWORK's tasks, tunes each (last extracted first, as TVM's tune_tasks) on an OpenCL\n"
    "device appending every result to FILE.tmp, learns each task from the records of the tasks\n"
    "before it, keeps the best record per workload in FILE, then builds the network with FILE >\n"
    "TopHub > fallback configs, times it and checks its output against the reference executor.\n"
    "With --rpc-key and --tracker the tasks are tuned on the rpc-servers registered under KEY\n"
    "(autotvm rpc-server); the evaluation of the whole network still runs here, on --device.\n"
    "\n"
    "  --target T                mali, opencl (TVM's cuda strategy: conv2d_nchw.cuda, winograd,\n"
    "                            depthwise, dense_*_batch.gpu; cuda-target records apply by key\n"
    "                            gpu), arm_cpu (TVM's \"llvm -device=arm_cpu\": measured and run on\n"
    "                            this CPU through LLVM), or a TVM target string with one of the keys\n"
    "                            mali, gpu, arm_cpu (required)\n"    "                            vta (or \"ext_dev -device=vta ...\"): resnet-18 quantized and packed\n"
    "                            for VTA, its conv2d_packed.vta tasks tuned on the VTA simulator\n"
    "                            (a MODEL.onnx when it quantizes as resnet18_v1 does; log default\n"
    "                            vta.NETWORK.log, MODEL.onnx.vta.log; --ops all: the add.vta tasks too),\n"
    "                            then evaluated as autotvm evaluate\n"
    "  --threads N               arm_cpu: threads of the parallel loops (default: cores)\n"
    "  --cache-flush             arm_cpu: flush the arguments but the first from the caches before\n"
    "                            each timing round (TVM's enable_cpu_cache_flush)\n"

    "  --tuner NAME              the tuner (below; required)\n"
    "  --n-trial N               trials per task, capped at its space size (default 1000)\n"
    "  --total-trials N          instead of --n-trial: N trials for the whole network, allotted\n"
    "                            in rounds to the task whose tuning lowers the estimated network\n"
    "                            latency most (TVM's auto-scheduler TaskScheduler: a warm-up round\n"
    "                            per task, then the gradient); prints its [ Task Scheduler ] table\n"
    "                            before every round\n"
    "  --trials-per-round K      with --total-trials: trials per round (default 64; at most\n"
    "                            N / tasks)\n"
    "  --sched-epsilon E         with --total-trials: probability that a round goes to a random\n"
    "                            task (epsilon-greedy; default 0, as TVM)\n"
    "  --early-stopping N        stop a task after N trials without a better config (default off)\n"
    "  --log FILE                the tuned log (default NETWORK.log); FILE.tmp while tuning\n"
    "  --resume                  continue from FILE.tmp: configs in it are never measured again\n"
    "  --overwrite               discard an existing FILE.tmp (without --resume or this flag an\n"
    "                            existing FILE.tmp is refused: it holds earlier measurements)\n"
    "  --no-transfer             no transfer learning from FILE.tmp\n"
    "  --keep-tmp                keep FILE.tmp after pick-best (every measurement)\n"
    "  --graph-tune OUT          llvm: after tuning, TVM's graph tuner over FILE.tmp's records (kept)\n"
    "                            chooses per convolution what costs least with the layout\n"
    "                            transforms; its records go to OUT and the evaluation applies them\n"
    "  --no-graph-refine         --graph-tune: keep the modelled choice (not refined in the network)\n"
    "  --ops LIST                conv2d,dense (default: all)\n"
    "  --batch N                 batch size (default 1)\n"
    "  --image-shape C,H,W       input image shape (default 3,224,224)\n"
    "  --input-shape NAME=DIMS   MODEL.onnx: the input's shape (1,3,224,224), filling symbolic dims\n"
    "  --input FILE.npy          the evaluation's input tensor (float32, C order; default: seeded values)\n"
    "  --save-output FILE.npy    write the evaluated network's output there\n"
    "  --num-classes N           classifier width (default 1000)\n"
    "  --seed N                  seeds the tuners, the parameters and the input (default 0)\n"
    "  --device SPEC             OpenCL device: index or substring of \"platform / device\"\n"
    "                            (with --rpc-key: the evaluation's device only)\n"
    "  --number N                runs per timing round (default 4)\n"
    "  --repeat N                timing rounds per trial (default 3)\n"
    "  --timeout S               run timeout in seconds (default 10)\n"
    "  --build-timeout S         build timeout in seconds (default 10 for each builder a core\n"
    "                            serves: 10 with --n-parallel at most the cores)\n"
    "  --cooldown-ms N           pause after each run (default 100)\n"
    "  --n-parallel N            builder processes (default: cores); with --rpc-key:\n"
    "                            measurements in flight (default: servers registered)\n"
    "  --eval-repeat N           timed runs of the whole network (default 10)\n"
    "  --no-evaluate             stop after pick-best\n"
    "  --tophub-dir DIR          TopHub cache directory (default: $AT_TOPHUB_DIR, else ~/.tvm/tophub)\n"
    "  --no-tophub               evaluate without TopHub's pack and reference records\n"
    "  --cache-dir DIR           PoCL's kernel cache (POCL_CACHE_DIR)\n"
    "  --rpc-key KEY             tune on the rpc-servers registered under KEY (needs --tracker)\n"
    "  --tracker HOST:PORT       the tracker those servers registered with\n"
    "  --priority N              priority of the requests for a device (default 1, TVM's RPCRunner)\n"
    "  --auth-key KEY            the servers' shared key (rpc-server --auth-key)\n"
    "  -h, --help                show this help\n"
    "\n"
    "tuners:\n";

static void on_event(void *user, const at_tune_net_event *ev)
{
    (void)user;
    if (ev->kind == AT_TUNE_NET_EXTRACTED) {
        fprintf(stderr, "autotvm: %zu tasks\n", ev->n_tasks);
        printf("Tuning...\n");
    } else if (ev->kind == AT_TUNE_NET_TASK_BEGIN) {
        if (ev->n_resumed) fprintf(stderr, "autotvm: %s%zu trials resumed from the tmp log\n", ev->prefix, ev->n_resumed);
        if (ev->n_history) fprintf(stderr, "autotvm: %stransfer learning from %zu records\n", ev->prefix, ev->n_history);
    } else if (ev->kind == AT_TUNE_NET_PROGRESS) {
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_tune_format_progress(ev->prefix, ev->progress, &sb);
        printf("\r%s", at_strbuf_cstr(&sb));
        at_strbuf_fini(&sb);
    } else if (ev->kind == AT_TUNE_NET_TASK_END) {
        if (ev->skipped)
            printf("%s already tuned: %zu trials in the tmp log Done.\n", ev->prefix, ev->n_resumed);
        else
            printf(" Done.\n");
    } else if (ev->kind == AT_TUNE_NET_SCHED_TABLE) {
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_tune_sched_format_table(ev->sched, ev->next_id, ev->elapsed_s, &sb);
        fputs(at_strbuf_cstr(&sb), stdout);
        at_strbuf_fini(&sb);
    } else if (ev->kind == AT_TUNE_NET_PICKED) {
        fprintf(stderr, "autotvm: pick-best: %zu records kept\n", ev->pick->written);
    }
    fflush(stdout);
}

static int parse_num(const char *opt, const char *text, long lo, long *out)
{
    int rc = at_cli_parse_long("tune", opt, text, out);
    if (rc) return rc;
    if (*out < lo) return at_cli_usage_error("tune", "--%s must be >= %ld", opt, lo);
    if (*out > 1000000000L) return at_cli_usage_error("tune", "option '--%s' is too large", opt);
    return 0;
}

static int parse_seconds(const char *opt, const char *text, int *ms)
{
    char *end = NULL;
    double s = strtod(text, &end);
    if (!text[0] || *end || !(s > 0) || s > 86400)
        return at_cli_usage_error("tune", "option '--%s' needs a positive number of seconds, got '%s'", opt, text);
    *ms = (int)(s * 1000 + 0.5);
    return 0;
}

/* An existing non-empty FILE.tmp holds measurements: without --resume or --overwrite it is a usage
 * error (the library refuses it too, with AT_EINVAL; here the exit code is 2). */
static int check_tmp(const char *log, const at_tune_network_opts *o)
{
    if (o->resume || o->overwrite) return 0;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_printf(&sb, "%s.tmp", log);
    if (at_strbuf_status(&sb) != AT_OK) {
        at_strbuf_fini(&sb);
        return at_cli_fail(AT_OOM());
    }
    struct stat st;
    int rc = 0;
    if (stat(sb.data, &st) == 0 && st.st_size > 0)
        rc = at_cli_usage_error("tune",
                                "%s exists (%lld bytes): it holds the measurements of an earlier run; --resume to "
                                "continue it, --overwrite to discard it",
                                sb.data, (long long)st.st_size);
    at_strbuf_fini(&sb);
    return rc;
}

/* The network must be one at_net_build knows and can build with these options. */
static at_status check_network(const at_tune_network_opts *o)
{
    at_net_opts no = o->net;
    no.params = false;
    at_net *net = NULL;
    at_status st = at_net_build(o->network, &no, &net);
    at_net_free(net);
    return st;
}

/* --target vta: the packed resnet's conv2d_packed.vta tasks tuned on the VTA simulator, then its
 * evaluation (cmd_evaluate.c). */
static int tune_vta(at_tune_network_opts *o, const at_tune_eval_opts *eo, const char *log, const char *ops, bool rpc,
                    bool evaluate)
{
    if (ops && at_net_ops_parse(ops, &o->ops) != AT_OK) return at_cli_usage_error("tune", "%s", at_last_error());
    if (rpc) return at_cli_usage_error("tune", "--target vta tunes on the local VTA simulator: no --rpc-key");
    if (o->net.batch > 1) return at_cli_usage_error("tune", "--target vta: batch 1 only (the 1x16 bitstream)");
    if (o->net.image_shape[0] && (o->net.image_shape[0] != 3 || o->net.image_shape[1] != o->net.image_shape[2]))
        return at_cli_usage_error("tune", "--target vta: the image must be 3,N,N");
    if (!at_net_vta_knows(o->network))
        return at_cli_usage_error("tune", "--target vta: no network '%s' (known: resnet-18, or a MODEL.onnx)", o->network);
    char *log_buf = NULL;
    int rc = 0;
    if (!log) {
        size_t n = strlen(o->network) + 9;
        if (!(log_buf = at_malloc(n))) return at_cli_fail(AT_OOM());
        /* a model path keeps its folder: MODEL.onnx.vta.log beside it */
        snprintf(log_buf, n, at_net_vta_is_onnx(o->network) ? "%s.vta.log" : "vta.%s.log", o->network);
        log = log_buf;
    }
    o->log_path = log;
    if ((rc = check_tmp(log, o)) != 0) {
        at_free(log_buf);
        return rc;
    }
    printf("Extract tasks...\n");
    fflush(stdout);
    at_tune_network_result r;
    at_status st = at_tune_vta_network(o, &r);
    if (st != AT_OK) {
        printf("\n");
        at_free(log_buf);
        return at_cli_fail(st);
    }
    fprintf(stderr,
            "autotvm: %zu tasks (%zu already done), %zu configs measured on the VTA simulator, %zu resumed; %zu records "
            "in %s\n",
            r.n_tasks, r.n_skipped, r.n_measured, r.n_resumed, r.n_written, log);
    if (evaluate) {
        at_tune_vta_eval_opts vo = {.network = o->network,
                                    .net = {.image_hw = o->net.image_shape[1], .num_classes = o->net.num_classes,
                                            .seed = o->net.seed},
                                    .input_seed = o->net.seed, .log_path = log, .no_tophub = eo->no_tophub,
                                    .tophub = eo->tophub, .repeat = eo->repeat, .check = true};
        vo.input_path = eo->input_path;
        vo.save_output = eo->save_output;
        vo.net.input_name = o->net.input_name;
        vo.net.input_rank = o->net.input_rank;
        memcpy(vo.net.input_shape, o->net.input_shape, sizeof vo.net.input_shape);
        rc = at_cli_evaluate_vta(&vo);
    }
    at_free(log_buf);
    return rc;
}

int at_cmd_tune(int argc, char **argv)
{
    const char *target = NULL, *tuner = NULL, *n_trial = NULL, *early = NULL, *log = NULL, *ops = NULL,
               *batch = NULL, *shape = NULL, *classes = NULL, *seed = NULL, *device = NULL, *number = NULL,
               *repeat = NULL, *timeout = NULL, *build_timeout = NULL, *cooldown = NULL, *n_parallel = NULL,
               *eval_repeat = NULL, *tophub_dir = NULL, *cache_dir = NULL, *rpc_key = NULL, *tracker = NULL,
               *priority = NULL, *auth_key = NULL, *threads = NULL, *total_trials = NULL, *per_round = NULL,
               *epsilon = NULL, *input_shape = NULL, *input = NULL, *save_output = NULL, *graph_tune = NULL;
    char input_name[256];
    int resume = 0, overwrite = 0, keep_tmp = 0, no_transfer = 0, no_evaluate = 0, no_tophub = 0, cache_flush = 0,
        no_refine = 0;
    const at_cli_opt opts[] = {
        {"target", &target, NULL},         {"tuner", &tuner, NULL},
        {"n-trial", &n_trial, NULL},       {"early-stopping", &early, NULL},
        {"log", &log, NULL},               {"resume", NULL, &resume}, {"keep-tmp", NULL, &keep_tmp},
        {"no-transfer", NULL, &no_transfer}, {"ops", &ops, NULL},
        {"batch", &batch, NULL},           {"image-shape", &shape, NULL}, {"input-shape", &input_shape, NULL},
        {"input", &input, NULL},           {"save-output", &save_output, NULL},
        {"num-classes", &classes, NULL},   {"seed", &seed, NULL},
        {"device", &device, NULL},         {"number", &number, NULL},
        {"repeat", &repeat, NULL},         {"timeout", &timeout, NULL},
        {"build-timeout", &build_timeout, NULL}, {"cooldown-ms", &cooldown, NULL},
        {"n-parallel", &n_parallel, NULL}, {"eval-repeat", &eval_repeat, NULL},
        {"no-evaluate", NULL, &no_evaluate}, {"tophub-dir", &tophub_dir, NULL},
        {"no-tophub", NULL, &no_tophub},   {"cache-dir", &cache_dir, NULL},
        {"rpc-key", &rpc_key, NULL},       {"tracker", &tracker, NULL},
        {"priority", &priority, NULL},     {"auth-key", &auth_key, NULL},
        {"threads", &threads, NULL},       {"cache-flush", NULL, &cache_flush},
        {"overwrite", NULL, &overwrite},   {"total-trials", &total_trials, NULL},
        {"trials-per-round", &per_round, NULL}, {"sched-epsilon", &epsilon, NULL},
        {"graph-tune", &graph_tune, NULL}, {"no-graph-refine", NULL, &no_refine},
    };
    const char *pos[1];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 1, &n_pos, "tune");
    if (rc == AT_CLI_HELP) {
        fputs(usage_head, stdout);
        for (size_t i = 0; i < at_tuner_kind_count(); i++)
            printf("  %-24s  %s\n", at_tuner_kind_at(i)->name, at_tuner_kind_at(i)->help);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("tune", "missing the NETWORK");
    if (!target) return at_cli_usage_error("tune", "missing --target");
    if (!tuner) return at_cli_usage_error("tune", "missing --tuner");
    if (!at_tuner_kind_find(tuner))
        return at_cli_usage_error("tune", "unknown tuner '%s' (see autotvm tune --help)", tuner);
    if (resume && overwrite) return at_cli_usage_error("tune", "--resume and --overwrite exclude each other");

    at_tune_network_opts o = {.network = pos[0], .tuner = tuner, .resume = resume != 0, .overwrite = overwrite != 0, .keep_tmp = keep_tmp != 0, .no_transfer = no_transfer != 0,
                              .on_event = on_event};
    o.measure = (at_measure_opts){.device = device, .cache_dir = cache_dir};
    if ((rpc_key != NULL) != (tracker != NULL)) return at_cli_usage_error("tune", "--rpc-key and --tracker go together");
    if (!rpc_key && (priority || auth_key))
        return at_cli_usage_error("tune", "--priority and --auth-key need --rpc-key and --tracker");
    at_meas_rpc_opts ro = {.key = rpc_key, .priority = 1, .auth_key = auth_key};
    if (rpc_key) {
        long prio = 1;
        if (priority && (rc = at_cli_parse_long("tune", "priority", priority, &prio))) return rc;
        ro.priority = prio;
        o.rpc = &ro;
    }
    at_tune_eval_opts eo = {.network = pos[0], .no_tophub = no_tophub != 0, .device = device, .cache_dir = cache_dir,
                            .check = true};
    eo.tophub.cache_dir = tophub_dir;
    eo.input_path = input;
    eo.save_output = save_output;
    long v;
    if (n_trial) {
        if ((rc = parse_num("n-trial", n_trial, 1, &v))) return rc;
        o.n_trial = (size_t)v;
    }
    if (total_trials && n_trial) return at_cli_usage_error("tune", "--total-trials and --n-trial exclude each other");
    if (!total_trials && (per_round || epsilon))
        return at_cli_usage_error("tune", "--trials-per-round and --sched-epsilon need --total-trials");
    if (total_trials) {
        if ((rc = parse_num("total-trials", total_trials, 1, &v))) return rc;
        o.total_trials = (size_t)v;
    }
    if (per_round) {
        if ((rc = parse_num("trials-per-round", per_round, 1, &v))) return rc;
        o.trials_per_round = (size_t)v;
    }
    if (epsilon) {
        char *end = NULL;
        o.sched_epsilon = strtod(epsilon, &end);
        if (!epsilon[0] || *end || !(o.sched_epsilon >= 0 && o.sched_epsilon <= 1))
            return at_cli_usage_error("tune", "option '--sched-epsilon' needs a probability in [0, 1], got '%s'", epsilon);
    }
    if (early) {
        if ((rc = parse_num("early-stopping", early, 1, &v))) return rc;
        o.early_stopping = (size_t)v;
    }
    if (batch) {
        if ((rc = parse_num("batch", batch, 1, &v))) return rc;
        o.net.batch = v;
    }
    if (classes) {
        if ((rc = parse_num("num-classes", classes, 1, &v))) return rc;
        o.net.num_classes = v;
    }
    if (seed) {
        if ((rc = parse_num("seed", seed, 0, &v))) return rc;
        o.tuner_opts.seed = (uint64_t)v;
        o.net.seed = (uint64_t)v;
    }
    if (shape && (rc = at_cli_parse_image_shape("tune", shape, o.net.image_shape))) return rc;
    if (input_shape && (rc = at_cli_parse_input_shape("tune", input_shape, input_name, sizeof input_name, o.net.input_shape, &o.net.input_rank)))
        return rc;
    if (input_shape) o.net.input_name = input_name[0] ? input_name : NULL;
    if (number) {
        if ((rc = parse_num("number", number, 1, &v))) return rc;
        o.measure.number = (int)v;
    }
    if (repeat) {
        if ((rc = parse_num("repeat", repeat, 1, &v))) return rc;
        if (v > 64) return at_cli_usage_error("tune", "--repeat must be 1..64");
        o.measure.repeat = (int)v;
    }
    if (timeout && (rc = parse_seconds("timeout", timeout, &o.measure.timeout_ms))) return rc;
    if (build_timeout && (rc = parse_seconds("build-timeout", build_timeout, &o.measure.build_timeout_ms))) return rc;
    if (cooldown) {
        if ((rc = parse_num("cooldown-ms", cooldown, 0, &v))) return rc;
        o.measure.cooldown_ms = v ? (int)v : -1; /* an explicit 0: no pause */
    }
    if (n_parallel) {
        if ((rc = parse_num("n-parallel", n_parallel, 1, &v))) return rc;
        o.measure.n_parallel = (int)v;
    }
    if (eval_repeat) {
        if ((rc = parse_num("eval-repeat", eval_repeat, 1, &v))) return rc;
        eo.repeat = (size_t)v;
    }
    if (threads) {
        if ((rc = parse_num("threads", threads, 1, &v))) return rc;
        o.measure.n_threads = (int)v;
        eo.n_threads = (int)v;
    }
    o.measure.enable_cpu_cache_flush = cache_flush != 0;
    if (at_net_vta_target_is(target) && total_trials)
        return at_cli_usage_error("tune", "--target vta tunes task by task: no --total-trials");
    if (graph_tune && (no_evaluate || at_net_vta_target_is(target)))
        return at_cli_usage_error("tune", "--graph-tune runs in the evaluation after tuning (not with --no-evaluate "
                                          "or --target vta)");
    if (at_net_vta_target_is(target)) return tune_vta(&o, &eo, log, ops, rpc_key != NULL, !no_evaluate);
    char *thost = NULL;
    if (rpc_key) {
        if (at_meas_rpc_parse_addr(tracker, &thost, &ro.tracker_port) != AT_OK)
            return at_cli_usage_error("tune", "%s", at_last_error());
        ro.tracker_host = thost;
    }
    at_status st = at_net_target_parse(target, &o.target);
    if (st == AT_OK && ops) st = at_net_ops_parse(ops, &o.ops);
    if (st == AT_OK) st = check_network(&o);
    if (st != AT_OK) {
        at_free(thost);
        /* an unknown network or target, bad --ops: the arguments are wrong */
        return st == AT_ENOMEM ? at_cli_fail(st) : at_cli_usage_error("tune", "%s", at_last_error());
    }
    char *log_buf = NULL;
    if (!log) {
        size_t n = strlen(pos[0]) + 5;
        log_buf = at_malloc(n);
        if (!log_buf) {
            at_free(thost);
            return at_cli_fail(AT_OOM());
        }
        snprintf(log_buf, n, "%s.log", pos[0]);
        log = log_buf;
    }
    o.log_path = log;
    if (graph_tune) o.keep_tmp = true; /* the graph tuner's candidates are every record */
    if ((rc = check_tmp(log, &o)) != 0) {
        at_free(thost);
        at_free(log_buf);
        return rc;
    }
    printf("Extract tasks...\n");
    fflush(stdout);
    at_tune_network_result r;
    st = at_tune_network(&o, &r);
    at_free(thost);
    if (st != AT_OK) {
        printf("\n");
        at_free(log_buf);
        return at_cli_fail(st);
    }
    fprintf(stderr, "autotvm: %zu tasks (%zu already done), %zu configs measured, %zu resumed; %zu records in %s\n",
            r.n_tasks, r.n_skipped, r.n_measured, r.n_resumed, r.n_written, log);
    rc = 0;
    if (!no_evaluate) {
        eo.net = o.net;
        eo.target = o.target;
        eo.log_path = log;
        char *tmp = NULL;
        if (graph_tune) {
            size_t n = strlen(log) + 5;
            tmp = at_malloc(n);
            if (!tmp) {
                at_free(log_buf);
                return at_cli_fail(AT_OOM());
            }
            snprintf(tmp, n, "%s.tmp", log);
            eo.log_path = tmp; /* its best records are FILE's */
            eo.graph_tune = graph_tune;
            eo.graph_no_refine = no_refine != 0;
        }
        rc = at_cli_evaluate(&eo, 0);
        at_free(tmp);
    }
    at_free(log_buf);
    return rc;
}
