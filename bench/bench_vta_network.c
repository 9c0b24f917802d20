/* bench_vta_network: resnet-18 on VTA (the quantized, packed resnet18_v1; convs and adds on the
 * VTA simulator with TopHub's vta_v0.10 configs) and its host layers on this CPU, naive C vs
 * LLVM-compiled (the stem conv and dense through their templates with TopHub's arm_cpu / x86
 * records): per host layer the median over N runs, the simulated VTA time, end-to-end latency
 * both ways. Each configuration is one at_tune_vta_evaluate call (one functional simulator run,
 * then N timed runs of the host layers); the naive C loops are serial, LLVM runs on a pool of
 * --threads (and once more on 1 thread, for a like-for-like comparison with the serial loops).
 *
 * usage: bench_vta_network [--repeat N] [--threads T] [--image HW] [--tophub-dir DIR] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/network_vta.h"

static int run(at_tune_vta_host_kind host, int threads, size_t repeat, int64_t hw, const char *tophub_dir,
               at_tune_vta_eval_result *r)
{
    at_tune_vta_eval_opts o = {.network = "resnet-18",
                               .net = {.image_hw = hw},
                               .repeat = repeat,
                               .check = true,
                               .host = host,
                               .host_threads = threads};
    o.tophub.cache_dir = tophub_dir;
    at_status st = at_tune_vta_evaluate(&o, r);
    if (st != AT_OK) {
        fprintf(stderr, "bench_vta_network: %s\n", at_last_error());
        return 1;
    }
    if (r->n_bad || r->n_bad_logits || r->host_check.stem_n_bad || r->host_check.quant_n_unexplained) {
        fprintf(stderr, "bench_vta_network: the %s host path failed its check\n",
                host == AT_TUNE_VTA_HOST_NAIVE ? "naive" : "LLVM");
        return 1;
    }
    return 0;
}

static double host_sum(const at_tune_vta_eval_result *r)
{
    double s = 0;
    for (int i = 0; i < AT_TUNE_VTA_N_HOST; i++) s += r->host_layers[i].ms;
    return s;
}

int main(int argc, char **argv)
{
    size_t repeat = 30;
    int threads = 2;
    int64_t hw = 224;
    const char *tophub_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = (size_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--image") && i + 1 < argc)
            hw = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--tophub-dir") && i + 1 < argc)
            tophub_dir = argv[++i];
        else {
            fprintf(stderr, "usage: bench_vta_network [--repeat N] [--threads T] [--image HW] [--tophub-dir DIR]\n");
            return 2;
        }
    }
    if (repeat < 1 || threads < 1) return 2;
    at_tune_vta_eval_result rn, rl, r1;
    if (run(AT_TUNE_VTA_HOST_NAIVE, threads, repeat, hw, tophub_dir, &rn)) return 1;
    if (run(AT_TUNE_VTA_HOST_LLVM, threads, repeat, hw, tophub_dir, &rl)) return 1;
    if (run(AT_TUNE_VTA_HOST_LLVM, 1, repeat, hw, tophub_dir, &r1)) return 1;
    printf("resnet-18 on VTA, %lldx%lld, host layers: median of %zu runs (ms); LLVM pool %d threads\n", (long long)hw,
           (long long)hw, repeat, threads);
    printf("%-30s %-34s %-14s %10s %10s %10s %8s\n", "host layer", "LLVM implementation", "config", "naive C",
           "LLVM 1t", "LLVM", "speedup");
    for (int i = 0; i < AT_TUNE_VTA_N_HOST; i++) {
        const at_tune_vta_host_report *n = &rn.host_layers[i], *l = &rl.host_layers[i], *o = &r1.host_layers[i];
        char cfg[32] = "-";
        if (l->config_index >= 0) snprintf(cfg, sizeof cfg, "%s[%lld]", l->source, (long long)l->config_index);
        printf("%-30s %-34s %-14s %10.3f %10.3f %10.3f %7.2fx\n", l->name, l->impl, cfg, n->ms, o->ms, l->ms,
               l->ms > 0 ? n->ms / l->ms : 0);
    }
    double hn = host_sum(&rn), hl = host_sum(&rl), h1 = host_sum(&r1);
    printf("%-30s %-34s %-14s %10.3f %10.3f %10.3f %7.2fx\n", "host layers, total", "", "", hn, h1, hl, hn / hl);
    printf("%-30s %-34s %-14s %10.3f %10.3f %10.3f\n", "VTA (simulated)", "", "", rn.vta_ms, r1.vta_ms, rl.vta_ms);
    printf("%-30s %-34s %-14s %10.3f %10.3f %10.3f %7.2fx\n", "end to end (median)", "", "", rn.median_ms, r1.median_ms,
           rl.median_ms, rn.median_ms / rl.median_ms);
    printf("LLVM check: stem max abs error %.3g, %zu quantized elements flipped at a rounding boundary, packed region "
           "bit-exact, logits max abs error %.3g\n",
           rl.host_check.stem_max_err, rl.host_check.quant_n_diff, rl.host_check.logits_max_err);
    at_tune_vta_eval_result_fini(&rn);
    at_tune_vta_eval_result_fini(&rl);
    at_tune_vta_eval_result_fini(&r1);
    return 0;
}
