/* bench_cpu_network: end-to-end batch-1 latency of resnet-18 and mobilenet with --target arm_cpu
 * (TVM's "llvm -device=arm_cpu") on this machine's CPU through LLVM: first with the untuned
 * fallback configs, then after tuning every task with --n-trial trials (xgb_rank, TVM's
 * tune_tasks flow into WORK/NET.arm_cpu.log), then onnxruntime on the same thread count
 * (bench/ort_reference.py, a PyPI peer: --python names an interpreter that has onnx and
 * onnxruntime). Each figure is the median wall time of --repeat runs after a warm-up; the
 * outputs are checked against the reference executor.
 *
 *   bench_cpu_network [--n-trial N (64)] [--threads N (2)] [--repeat N (10)] [--tuner NAME]
 *                     [--networks resnet-18,mobilenet] [--work DIR] [--python PATH|none]
 *                     [--number N] [--seed N] [--image-shape C,H,W] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/clock.h"
#include "core/log.h"
#include "tune/network.h"

#ifndef AT_BENCH_DIR
#define AT_BENCH_DIR "bench"
#endif

static void usage(void)
{
    fprintf(stderr, "usage: bench_cpu_network [--n-trial N] [--threads N] [--repeat N] [--tuner NAME]\n"
                    "                         [--networks resnet-18,mobilenet] [--work DIR] [--python PATH|none]\n"
                    "                         [--number N] [--seed N] [--image-shape C,H,W]\n");
    exit(2);
}

static int evaluate(const char *net, const char *mode, at_tune_eval_opts *o, double *median_ms)
{
    at_tune_eval_result r;
    at_status st = at_tune_evaluate(o, &r);
    if (st != AT_OK) {
        fprintf(stderr, "bench_cpu_network: %s %s: %s: %s\n", net, mode, at_status_str(st), at_last_error());
        return 1;
    }
    printf("%-10s %-9s median %9.2f ms  mean %9.2f ms (std %6.2f)  tuned %2zu/%2zu tasks  check %s\n", net, mode,
           r.median_ms, r.mean_ms, r.std_ms, r.dispatch.n_user + r.dispatch.n_tophub,
           r.dispatch.n_user + r.dispatch.n_tophub + r.dispatch.n_fallback, r.check.n_bad ? "MISMATCH" : "ok");
    fflush(stdout);
    *median_ms = r.median_ms;
    return r.check.n_bad ? 1 : 0;
}

static void on_event(void *user, const at_tune_net_event *ev)
{
    (void)user;
    if (ev->kind == AT_TUNE_NET_TASK_END && ev->result)
        fprintf(stderr, "  %s%s: %zu trials, best %.2f GFLOPS\n", ev->prefix, at_task_template(ev->task)->name,
                ev->result->n_trials, ev->result->best_flops / 1e9);
}

int main(int argc, char **argv)
{
    const char *nets = "resnet-18,mobilenet", *work = "bench-cpu-work", *python = NULL, *tuner = "xgb_rank";
    size_t repeat = 10, n_trial = 64;
    int threads = 2, number = 0;
    unsigned long long seed = 0;
    long long shape[3] = {3, 224, 224};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char *a = argv[i], *v = argv[++i];
        if (!strcmp(a, "--n-trial"))
            n_trial = (size_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--repeat"))
            repeat = (size_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--tuner"))
            tuner = v;
        else if (!strcmp(a, "--networks"))
            nets = v;
        else if (!strcmp(a, "--work"))
            work = v;
        else if (!strcmp(a, "--python"))
            python = v;
        else if (!strcmp(a, "--number"))
            number = atoi(v);
        else if (!strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--image-shape")) {
            if (sscanf(v, "%lld,%lld,%lld", &shape[0], &shape[1], &shape[2]) != 3) usage();
        } else
            usage();
    }
    if (repeat == 0 || threads < 1) usage();
    at_log_set_level(AT_LOG_ERROR);
    mkdir(work, 0777);
    printf("target: arm_cpu (llvm -device=arm_cpu) on this CPU, %d threads; %zu trials per task (%s); "
           "median of %zu runs after a warm-up\n",
           threads, n_trial, tuner, repeat);
    fflush(stdout);
    int rc = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", nets);
    for (char *save = NULL, *net = strtok_r(list, ",", &save); net; net = strtok_r(NULL, ",", &save)) {
        at_tune_eval_opts eo = {.network = net, .n_threads = threads, .repeat = repeat, .check = true, .no_tophub = true};
        at_net_target target;
        if (at_net_target_parse("arm_cpu", &target) != AT_OK) {
            fprintf(stderr, "bench_cpu_network: %s\n", at_last_error());
            return 1;
        }
        eo.target = target;
        eo.net.seed = seed;
        for (int k = 0; k < 3; k++) eo.net.image_shape[k] = shape[k];
        double fallback_ms = 0, tuned_ms = 0;
        rc |= evaluate(net, "fallback", &eo, &fallback_ms);
        if (n_trial == 0) continue;
        char log[1024];
        snprintf(log, sizeof log, "%s/%s.arm_cpu.log", work, net);
        remove(log);
        at_tune_network_opts to = {.network = net, .target = target, .tuner = tuner, .n_trial = n_trial, .log_path = log,
                                   .on_event = on_event};
        to.net = eo.net;
        to.tuner_opts.seed = seed;
        to.measure = (at_measure_opts){.n_threads = threads, .number = number, .cooldown_ms = -1};
        at_tune_network_result tr;
        double t0 = at_clock_mono_s();
        at_status st = at_tune_network(&to, &tr);
        if (st != AT_OK) {
            fprintf(stderr, "bench_cpu_network: tuning %s: %s: %s\n", net, at_status_str(st), at_last_error());
            rc = 1;
            continue;
        }
        printf("%-10s tuned %zu tasks, %zu configs measured in %.0f s -> %s\n", net, tr.n_tasks, tr.n_measured,
               at_clock_mono_s() - t0, log);
        eo.log_path = log;
        rc |= evaluate(net, "tuned", &eo, &tuned_ms);
        if (tuned_ms > 0) printf("%-10s speedup over fallback: %.2fx\n", net, fallback_ms / tuned_ms);
        fflush(stdout);
    }
    if (python && strcmp(python, "none")) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "'%s' '%s/ort_reference.py' %d", python, AT_BENCH_DIR, threads);
        printf("peer: %s\n", cmd);
        fflush(stdout);
        int prc = system(cmd);
        if (prc != 0) {
            fprintf(stderr, "bench_cpu_network: the onnxruntime peer failed (%d)\n", prc);
            rc = 1;
        }
    }
    return rc;
}
