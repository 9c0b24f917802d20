/* autotvm evaluate: builds a network with dispatch (a tuning log > the TopHub pack > fallback
 * configs), times it end to end on an OpenCL device (or on this CPU through LLVM for --target
 * arm_cpu) and optionally checks its output against the reference executor -- the last part of `autotvm tune`, which shares the printing here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "tune/network.h"
#include "tune/network_vta.h"

static const char usage[] =
    "usage: autotvm evaluate NETWORK --target mali [--log FILE] [options]\n"
    "\n"
    "Builds NETWORK with the best records of FILE, then TopHub's pack, then fallback configs\n"
    "(TVM's apply_history_best over the TopHub context), runs it on an OpenCL device and prints\n"
    "TVM's \"Mean inference time (std dev)\" line. With --target arm_cpu every layer runs on this\n"
    "CPU through LLVM-compiled kernels (the templates' for the convolutions and dense layers).\n"
    "\n"
    "  --target T                mali, opencl (TVM's cuda/gpu templates), arm_cpu, or a TVM target\n"
    "                            string with one of the keys mali, gpu, arm_cpu (required)\n"    "                            vta (or \"ext_dev -device=vta ...\"): resnet-18 quantized and packed\n"
    "                            for VTA (or a MODEL.onnx that quantizes as it does), its convs on\n"
    "                            the VTA simulator, the rest on this CPU;\n"
    "                            latency = simulated VTA time + measured CPU time\n"
    "  --host naive|llvm         vta: the host layers (stem conv, quantize, pooling, dense) as\n"
    "                            LLVM-compiled kernels (default) or the naive C reference loops\n"
    "  --threads N               arm_cpu: threads of the parallel loops (default: cores)\n"

    "  --log FILE                tuned records (optional: without it TopHub and fallbacks only)\n"
    "  --repeat N                timed runs after one warm-up (default 10)\n"
    "  --check                   compare the output with the reference executor (exit 1 if not)\n"
    "  --profile                 per-layer table: device time (median of --repeat runs), template,\n"
    "                            config, GFLOPS\n"
    "  --peak-gflops P           with --profile: each layer's share of the device's peak P\n"
    "  --device SPEC             OpenCL device: index or substring of \"platform / device\"\n"
    "  --batch N                 batch size (default 1)\n"
    "  --image-shape C,H,W       input image shape (default 3,224,224)\n"
    "  --input-shape NAME=DIMS   MODEL.onnx: the input's shape (1,3,224,224), filling symbolic dims\n"
    "  --input FILE.npy          the input tensor (float32, C order; default: seeded values)\n"
    "  --save-output FILE.npy    write the network's output there\n"
    "  --graph-tune OUT          llvm: TVM's graph tuner -- choose, per NCHW[x]c convolution, one of\n"
    "                            the best records of --log (all of a tuning run's records, e.g. the\n"
    "                            .tmp log) so that kernels plus layout transforms cost least; write\n"
    "                            the choice to OUT (one record per node, TVM's format) and time it\n"
    "  --graph-top-k K           --graph-tune: candidates per node (default 20)\n"
    "  --no-graph-refine         --graph-tune: keep the modelled choice (by default it is refined\n"
    "                            in the network: each node's neighbouring block sizes and tiles\n"
    "                            are timed there, run for run, and kept when faster)\n"
    "  --graph-log FILE          apply a graph tuner's output (TVM's apply_graph_best) over --log\n"
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

/* The per-layer table of --profile: device time, and for anchors the template, config, GFLOPS
 * and (given the device's peak) the share of it reached. */
static void print_profile(const at_tune_eval_result *r, double peak_gflops)
{
    printf("%-40s %-18s %-34s %9s %9s %9s %7s\n", "layer", "op", "template", "config", "ms", "GFLOPS", "% peak");
    double total = 0;
    for (size_t i = 0; i < r->n_layers; i++) {
        const at_tune_eval_layer *l = &r->layers[i];
        total += l->ms;
        char cfg[24] = "-", gf[16] = "-", pk[16] = "-";
        if (l->tmpl) snprintf(cfg, sizeof cfg, l->tuned ? "%lld" : "fallback", (long long)l->config);
        double g = l->ms > 0 ? l->flop / (l->ms * 1e6) : 0;
        if (l->flop > 0) snprintf(gf, sizeof gf, "%.1f", g);
        if (l->flop > 0 && peak_gflops > 0) snprintf(pk, sizeof pk, "%.1f", 100 * g / peak_gflops);
        printf("%-40.40s %-18s %-34s %9s %9.4f %9s %7s\n", l->name, l->op, l->tmpl ? l->tmpl->name : "-", cfg, l->ms, gf, pk);
    }
    printf("%-40s %-18s %-34s %9s %9.4f\n", "total", "", "", "", total);
}

static int report(const at_tune_eval_result *r, double peak_gflops);

int at_cli_evaluate(struct at_tune_eval_opts *o, double peak_gflops)
{
    o->on_event = on_event;
    at_tune_eval_result r;
    at_status st = at_tune_evaluate(o, &r);
    if (st != AT_OK) return at_cli_fail(st);
    int rc = report(&r, peak_gflops);
    at_tune_eval_result_fini(&r);
    return rc;
}

static int report(const at_tune_eval_result *rr, double peak_gflops)
{
    const at_tune_eval_result r = *rr;
    printf("Mean inference time (std dev): %.2f ms (%.2f ms)\n", r.mean_ms, r.std_ms);
    fprintf(stderr, "autotvm: dispatch: %zu tuned by the log, %zu by TopHub, %zu fallback tasks; %zu anchors run a fallback config; device time %.2f ms (median), host overhead %.2f ms (median wall %.2f ms - device)\n",
            r.dispatch.n_user, r.dispatch.n_tophub, r.dispatch.n_fallback, r.n_anchors_fallback, r.device_ms,
            r.median_ms - r.device_ms, r.median_ms);
    fprintf(stderr, "autotvm: memory: node values %.1f MB in shared buffers (%.1f MB with one buffer per node)\n",
            (double)r.value_bytes / 1048576.0, (double)r.value_bytes_own / 1048576.0);
    if (r.graph_tuned) {
        const at_net_gt_result *g = &r.graph.choice;
        printf("Graph tuner: %zu of %zu nodes changed, layout transforms %zu -> %zu, modelled %.3f -> %.3f ms "
               "(%zu transforms timed); %zu records written\n",
               g->n_changed, g->n_tuned, g->copies_before, g->copies_after, g->before_s * 1e3, g->after_s * 1e3,
               r.graph.n_timed, r.graph.n_records);
        const at_net_refine_result *f = &r.graph.refine;
        if (r.graph.refined)
            printf("Graph tuner refinement in the network: %zu of %zu moves kept (%zu given up early), %zu nodes "
                   "changed, %.3f -> %.3f ms (medians, run for run); %zu programs compiled, %zu records made\n",
                   f->n_kept, f->n_tried, f->n_early, f->n_changed, f->before_ms, f->after_ms, f->n_built,
                   r.graph.n_made);
    }
    if (r.graph_applied) printf("Graph tuner records applied: %zu\n", r.graph_applied);
    if (r.n_layers) print_profile(&r, peak_gflops);
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

int at_cli_evaluate_vta(struct at_tune_vta_eval_opts *o)
{
    o->on_event = on_event;
    at_tune_vta_eval_result r;
    at_status st = at_tune_vta_evaluate(o, &r);
    if (st != AT_OK) return at_cli_fail(st);
    printf("Mean inference time (std dev): %.2f ms (%.2f ms)\n", r.mean_ms, r.std_ms);
    printf("%-26s  %-6s  %-15s  %10s  %9s  %6s\n", "layer", "device", "config", "cycles", "ms", "GOPS");
    for (size_t i = 0; i < r.n_layers; i++) {
        const at_tune_vta_layer_report *l = &r.layers[i];
        if (l->on_vta) {
            char cfg[32];
            snprintf(cfg, sizeof cfg, "%s #%lld", l->source, (long long)l->config_index);
            char gops[16] = "-";
            if (l->gops > 0) snprintf(gops, sizeof gops, "%.2f", l->gops);
            printf("%-26s  %-6s  %-15s  %10llu  %9.3f  %6s\n", l->name, "vta", cfg, (unsigned long long)l->cycles,
                   l->ms, gops);
        } else {
            printf("%-26s  %-6s  %-15s  %10s  %9.3f  %6s\n", l->name, "cpu", "-", "-", l->ms, "-");
        }
    }
    printf("host layers (%s; median ms per run):\n", r.host == AT_TUNE_VTA_HOST_NAIVE ? "naive C" : "LLVM");
    for (size_t i = 0; i < AT_TUNE_VTA_N_HOST; i++) {
        const at_tune_vta_host_report *h = &r.host_layers[i];
        char cfg[64] = "-";
        if (h->config_index >= 0 || strcmp(h->source, "-") != 0)
            snprintf(cfg, sizeof cfg, "%s[%lld]", h->source, (long long)h->config_index);
        printf("  %-28s  %-32s  %-15s  %9.3f\n", h->name, h->impl, cfg, h->ms);
    }
    printf("VTA (simulated, %zu layers): %.2f ms (%llu cycles); CPU (measured): %.2f ms\n",
           (size_t)(r.dispatch.n_user + r.dispatch.n_tophub + r.dispatch.n_fallback), r.vta_ms,
           (unsigned long long)r.cycles, r.cpu_ms);
    fprintf(stderr, "autotvm: dispatch: %zu VTA layers tuned by the log, %zu by TopHub, %zu run the fallback config\n",
            r.dispatch.n_user, r.dispatch.n_tophub, r.dispatch.n_fallback);
    int rc = 0;
    if (r.checked && r.host == AT_TUNE_VTA_HOST_LLVM) {
        const at_tune_vta_host_check *c = &r.host_check;
        printf("Check: stem conv (LLVM) vs reference float: max abs error %.3g, %zu beyond tolerance: %s\n",
               c->stem_max_err, c->stem_n_bad, c->stem_n_bad ? "FAILED" : "held");
        printf("Check: quantized stem: %zu int8 elements differ from the reference, %zu not at a rounding boundary: %s\n",
               c->quant_n_diff, c->quant_n_unexplained, c->quant_n_unexplained ? "FAILED" : "held");
        printf("Check: max_pool2d+pack bit-exact on the executor's quantized stem: %s (%zu differ)\n",
               c->pool_n_bad ? "FAILED" : "held", c->pool_n_bad);
        printf("Check: packed VTA region bit-exact vs the reference run from the same int8 input: %s (%zu differ)\n",
               c->region_n_bad ? "FAILED" : "held", c->region_n_bad);
        printf("Check: logits within tolerance: %s (max abs error %.3g, %zu outside); vs the reference run from the "
               "image: max abs error %.3g, value 0 differs in %zu elements\n",
               c->logits_n_bad ? "FAILED" : "held", c->logits_max_err, c->logits_n_bad, c->logits_ref_max_err,
               c->value0_n_diff);
        if (c->stem_n_bad || c->quant_n_unexplained || r.n_bad || r.n_bad_logits) {
            printf("Output check: MISMATCH with the reference executor\n");
            fflush(stdout);
            fprintf(stderr, "autotvm: error: the network output differs from the reference executor\n");
            rc = 1;
        } else {
            printf("Output check: bit-exact with the reference executor on every packed int8 value (run from the "
                   "executor's own quantized stem output); LLVM stem and logits within tolerance\n");
        }
    } else if (r.checked) {
        if (r.n_bad == 0 && r.n_bad_logits == 0) {
            printf("Output check: bit-exact with the reference executor (every packed int8 value and the logits)\n");
        } else {
            printf("Output check: MISMATCH: %zu int8 elements (first in layer %s), %zu logits differ\n", r.n_bad,
                   r.first_bad_layer < r.n_layers - 2 ? r.layers[r.first_bad_layer + 1].name : "-", r.n_bad_logits);
            fflush(stdout);
            fprintf(stderr, "autotvm: error: the network output differs from the reference executor\n");
            rc = 1;
        }
    }
    fflush(stdout);
    at_tune_vta_eval_result_fini(&r);
    return rc;
}

/* --target vta: the evaluate options mapped onto the VTA network's. */
static int evaluate_vta(const at_tune_eval_opts *e, const char *host)
{
    at_tune_vta_host_kind hk = AT_TUNE_VTA_HOST_LLVM;
    if (host && !strcmp(host, "naive"))
        hk = AT_TUNE_VTA_HOST_NAIVE;
    else if (host && strcmp(host, "llvm") != 0)
        return at_cli_usage_error("evaluate", "--host must be naive or llvm, got '%s'", host);
    if (e->net.batch > 1) return at_cli_usage_error("evaluate", "--target vta: batch 1 only (the 1x16 bitstream)");
    if (e->net.image_shape[0] && (e->net.image_shape[0] != 3 || e->net.image_shape[1] != e->net.image_shape[2]))
        return at_cli_usage_error("evaluate", "--target vta: the image must be 3,N,N");
    at_tune_vta_eval_opts o = {.network = e->network, .net = {.image_hw = e->net.image_shape[1],
                                                              .num_classes = e->net.num_classes, .seed = e->net.seed},
                               .input_seed = e->net.seed, .log_path = e->log_path, .no_tophub = e->no_tophub,
                               .tophub = e->tophub, .repeat = e->repeat, .check = e->check, .host = hk,
                               .host_threads = e->n_threads};
    o.input_path = e->input_path;
    o.save_output = e->save_output;
    o.net.input_name = e->net.input_name;
    o.net.input_rank = e->net.input_rank;
    memcpy(o.net.input_shape, e->net.input_shape, sizeof o.net.input_shape);
    if (!at_net_vta_knows(e->network))
        return at_cli_usage_error("evaluate", "--target vta: no network '%s' (known: resnet-18, or a MODEL.onnx)", e->network);
    return at_cli_evaluate_vta(&o);
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
               *classes = NULL, *seed = NULL, *tophub_dir = NULL, *cache_dir = NULL, *threads = NULL, *host = NULL,
               *peak = NULL, *input_shape = NULL, *input = NULL, *save_output = NULL, *graph_tune = NULL,
               *graph_top_k = NULL, *graph_log = NULL;
    int check = 0, no_tophub = 0, profile = 0, no_refine = 0;
    const at_cli_opt opts[] = {
        {"target", &target, NULL},       {"log", &log, NULL},         {"repeat", &repeat, NULL},
        {"check", NULL, &check},         {"device", &device, NULL},   {"batch", &batch, NULL},
        {"image-shape", &shape, NULL},   {"num-classes", &classes, NULL}, {"seed", &seed, NULL},
        {"tophub-dir", &tophub_dir, NULL}, {"no-tophub", NULL, &no_tophub}, {"cache-dir", &cache_dir, NULL},
        {"threads", &threads, NULL},     {"host", &host, NULL},       {"profile", NULL, &profile},
        {"peak-gflops", &peak, NULL},    {"input-shape", &input_shape, NULL}, {"input", &input, NULL},
        {"save-output", &save_output, NULL}, {"graph-tune", &graph_tune, NULL}, {"graph-top-k", &graph_top_k, NULL},
        {"graph-log", &graph_log, NULL}, {"no-graph-refine", NULL, &no_refine},
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
                           .cache_dir = cache_dir, .check = check != 0, .profile = profile != 0,
                           .input_path = input, .save_output = save_output, .graph_tune = graph_tune,
                           .graph_log = graph_log, .graph_no_refine = no_refine != 0};
    char input_name[256];
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
    if (input_shape && (rc = at_cli_parse_input_shape("evaluate", input_shape, input_name, sizeof input_name, o.net.input_shape, &o.net.input_rank)))
        return rc;
    if (input_shape) o.net.input_name = input_name[0] ? input_name : NULL;
    if (graph_top_k) {
        if ((rc = at_cli_parse_long("evaluate", "graph-top-k", graph_top_k, &v))) return rc;
        if (v < 1 || v > 1000) return at_cli_usage_error("evaluate", "--graph-top-k must be 1..1000");
        o.graph_top_k = (size_t)v;
    }
    if (graph_tune && !log) return at_cli_usage_error("evaluate", "--graph-tune reads the records of --log");
    if (threads) {
        if ((rc = at_cli_parse_long("evaluate", "threads", threads, &v))) return rc;
        if (v < 1 || v > 4096) return at_cli_usage_error("evaluate", "--threads must be 1..4096");
        o.n_threads = (int)v;
    }
    if (at_net_vta_target_is(target)) return evaluate_vta(&o, host);
    if (host) return at_cli_usage_error("evaluate", "--host applies to --target vta only");
    at_status st = at_net_target_parse(target, &o.target);
    if (st == AT_OK) {
        /* an unknown network (or one these options cannot build) is a usage error, found before
         * the parameters are made and the device opened */
        at_net_opts probe = o.net;
        probe.params = false;
        at_net *net = NULL;
        st = at_net_build(o.network, &probe, &net);
        at_net_free(net);
    }
    if (st == AT_ENOMEM) return at_cli_fail(st);
    if (st != AT_OK) return at_cli_usage_error("evaluate", "%s", at_last_error());
    double peak_gflops = 0;
    if (peak) {
        char *end;
        peak_gflops = strtod(peak, &end);
        if (*end || !(peak_gflops > 0)) return at_cli_usage_error("evaluate", "--peak-gflops: '%s' is not a positive number", peak);
    }
    return at_cli_evaluate(&o, peak_gflops);
}
