/* autotvm evaluate: builds a network with dispatch (a tuning log > the TopHub pack > fallback
 * configs), times it end to end on an OpenCL device and optionally checks its output against the
 * reference executor -- the last part of `autotvm tune`, which shares the printing here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "tune/network.h"

static const char usage[] =
    "usage: autotvm evaluate NETWORK --target mali [--log FILE] [options]\n"
    "\n"
    "Builds NETWORK with the best records of FILE, then TopHub's pack, then fallback configs\n"
    "(TVM's apply_history_best over the TopHub context), runs it on an OpenCL device and prints\n"
    "TVM's \"Mean inference time (std dev)\" line.\n"
    "\n"
    "  --target T                mali, or a TVM target string with the mali key (required)\n"
    "  --log FILE                tuned records (optional: without it TopHub and fallbacks only)\n"
    "  --repeat N                timed runs after one warm-up (default 10)\n"
    "  --check                   compare the output with the reference executor (exit 1 if not)\n"
    "  --device SPEC             OpenCL device: index or substring of \"platform / device\"\n"
    "  --batch N                 batch size (default 1)\n"
    "  --image-shape C,H,W       input image shape (default 3,224,224)\n"
    "  --num-classes N           classifier width (default 1000)\n"
    "  --seed N                  parameter and input values (default 0)\n"
    "  --tophub-dir DIR          TopHub cache directory (default: $AT_TOPHUB_DIR, else ~/.tvm/tophub)\n"
    "  --no-tophub               no TopHub pack, no reference records (TOPHUB_LOCATION=NONE)\n"
    "  --cache-dir DIR           PoCL's kernel cache (POCL_CACHE_DIR)\n"
    "  -h, --help                show this help\n";

static void on_event(void *user, const at_tune_net_event *ev)
{
    (void)user;
    if (ev->kind == AT_TUNE_NET_TOPHUB) {
        if (ev->pack)
            printf("tophub: %s (%zu records)\n", ev->pack->pack, ev->n_records);
        else
            printf("tophub: no pack (fallback configs only)\n");
    } else if (ev->kind == AT_TUNE_NET_COMPILE) {
        printf("Compile...\n");
    } else if (ev->kind == AT_TUNE_NET_EVALUATE) {
        printf("Evaluate inference time cost...\n");
    }
    fflush(stdout);
}

int at_cli_evaluate(struct at_tune_eval_opts *o)
{
    o->on_event = on_event;
    at_tune_eval_result r;
    at_status st = at_tune_evaluate(o, &r);
    if (st != AT_OK) return at_cli_fail(st);
    printf("Mean inference time (std dev): %.2f ms (%.2f ms)\n", r.mean_ms, r.std_ms);
    fprintf(stderr, "autotvm: dispatch: %zu tuned by the log, %zu by TopHub, %zu fallback tasks; %zu anchors run a fallback config; device time %.2f ms (median)\n",
            r.dispatch.n_user, r.dispatch.n_tophub, r.dispatch.n_fallback, r.n_anchors_fallback, r.device_ms);
    if (r.checked) {
        if (r.check.n_bad == 0) {
            printf("Output check: matches the reference executor (max abs error %.3g)\n", r.check.abs_err);
        } else {
            printf("Output check: MISMATCH: %zu elements outside tolerance (worst [%lld]: %.9g vs %.9g)\n",
                   r.check.n_bad, (long long)r.check.index, r.check.got, r.check.want);
            fflush(stdout);
            fprintf(stderr, "autotvm: error: the network output differs from the reference executor\n");
            return 1;
        }
    }
    fflush(stdout);
    return 0;
}

int at_cli_parse_image_shape(const char *cmd, const char *text, int64_t out[3])
{
    long v[3];
    char extra;
    if (sscanf(text, "%ld,%ld,%ld%c", &v[0], &v[1], &v[2], &extra) != 3 || v[0] < 1 || v[1] < 1 || v[2] < 1 ||
        v[0] > 65536 || v[1] > 65536 || v[2] > 65536)
        return at_cli_usage_error(cmd, "option '--image-shape' needs C,H,W (positive), got '%s'", text);
    for (int i = 0; i < 3; i++) out[i] = v[i];
    return 0;
}

int at_cmd_evaluate(int argc, char **argv)
{
    const char *target = NULL, *log = NULL, *repeat = NULL, *device = NULL, *batch = NULL, *shape = NULL,
               *classes = NULL, *seed = NULL, *tophub_dir = NULL, *cache_dir = NULL;
    int check = 0, no_tophub = 0;
    const at_cli_opt opts[] = {
        {"target", &target, NULL},       {"log", &log, NULL},         {"repeat", &repeat, NULL},
        {"check", NULL, &check},         {"device", &device, NULL},   {"batch", &batch, NULL},
        {"image-shape", &shape, NULL},   {"num-classes", &classes, NULL}, {"seed", &seed, NULL},
        {"tophub-dir", &tophub_dir, NULL}, {"no-tophub", NULL, &no_tophub}, {"cache-dir", &cache_dir, NULL},
    };
    const char *pos[1];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 1, &n_pos, "evaluate");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("evaluate", "missing the NETWORK");
    if (!target) return at_cli_usage_error("evaluate", "missing --target");
    at_tune_eval_opts o = {.network = pos[0], .log_path = log, .no_tophub = no_tophub != 0, .device = device,
                           .cache_dir = cache_dir, .check = check != 0};
    o.tophub.cache_dir = tophub_dir;
    long v;
    if (repeat) {
        if ((rc = at_cli_parse_long("evaluate", "repeat", repeat, &v))) return rc;
        if (v < 1) return at_cli_usage_error("evaluate", "--repeat must be >= 1");
        o.repeat = (size_t)v;
    }
    if (batch) {
        if ((rc = at_cli_parse_long("evaluate", "batch", batch, &v))) return rc;
        if (v < 1) return at_cli_usage_error("evaluate", "--batch must be >= 1");
        o.net.batch = v;
    }
    if (classes) {
        if ((rc = at_cli_parse_long("evaluate", "num-classes", classes, &v))) return rc;
        if (v < 1) return at_cli_usage_error("evaluate", "--num-classes must be >= 1");
        o.net.num_classes = v;
    }
    if (seed) {
        if ((rc = at_cli_parse_long("evaluate", "seed", seed, &v))) return rc;
        o.net.seed = (uint64_t)v;
    }
    if (shape && (rc = at_cli_parse_image_shape("evaluate", shape, o.net.image_shape))) return rc;
    at_status st = at_net_target_parse(target, &o.target);
    if (st != AT_OK) return at_cli_fail(st);
    return at_cli_evaluate(&o);
}
