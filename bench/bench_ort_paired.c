/* bench_ort_paired: one ONNX model through our LLVM executor and through onnxruntime (a PyPI peer,
 * bench/ort_server.py) taking turns on the same cores. A noisy host (a shared VM) speeds up and
 * slows down over seconds; timing one framework's runs and then the other's lets such a spell
 * fall on one side only. Here the two alternate in bursts of --burst runs, each side's first run
 * of a burst is left out (its thread pool wakes, its weights come back into the caches), and each
 * round (one burst each) gives a ratio ours / onnxruntime of the burst medians. Between bursts
 * both sides sit idle for --gap-ms: onnxruntime's workers spin on a core for ~40 ms after its last
 * run (ours for 0.2 ms), and a burst timed while the other side still spins measures that instead.
 *
 *   bench_ort_paired MODEL.onnx [--log FILE] [--graph-log FILE] [--threads N (2)] [--rounds N (40)]
 *                    [--burst N (4)] [--gap-ms MS (150)] [--python PATH (python3)] [--ort-no-spin]
 *                    [--target llvm]
 *
 * The input is MODEL.onnx.x.npy (written by the peer when missing: seeded normal values). Our
 * output is checked against the reference executor. Prints each side's median of the kept runs,
 * the median of the round ratios and how many rounds we won. */
#define _DEFAULT_SOURCE /* usleep */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/stats.h"
#include "tune/network.h"

#ifndef AT_BENCH_DIR
#define AT_BENCH_DIR "bench"
#endif

typedef struct peer {
    pid_t  pid;
    FILE  *to, *from;
    size_t burst;
    unsigned gap_us; /* idle time between the two sides' bursts */
    double *ms; /* rounds * burst: the peer's times, in the order run */
    size_t n;
    int    failed;
} peer;

static void usage(void)
{
    fprintf(stderr, "usage: bench_ort_paired MODEL.onnx [--log FILE] [--graph-log FILE] [--threads N] [--rounds N]\n"
                    "                        [--burst N] [--gap-ms MS] [--python PATH] [--ort-no-spin]\n"
                    "                        [--target llvm|arm_cpu]\n");
    exit(2);
}

static int peer_start(peer *p, const char *python, const char *model, int threads, const char *input, bool no_spin)
{
    int down[2], up[2];
    if (pipe(down) || pipe(up)) {
        perror("bench_ort_paired: pipe");
        return 1;
    }
    char script[1024], th[16];
    snprintf(script, sizeof script, "%s/ort_server.py", AT_BENCH_DIR);
    snprintf(th, sizeof th, "%d", threads);
    p->pid = fork();
    if (p->pid < 0) {
        perror("bench_ort_paired: fork");
        return 1;
    }
    if (p->pid == 0) {
        dup2(down[0], 0);
        dup2(up[1], 1);
        close(down[1]);
        close(up[0]);
        execlp(python, python, script, model, th, input, no_spin ? "--no-spin" : NULL, (char *)NULL);
        fprintf(stderr, "bench_ort_paired: cannot run %s: %s\n", python, strerror(errno));
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    p->to = fdopen(down[1], "w");
    p->from = fdopen(up[0], "r");
    char line[64];
    if (!p->to || !p->from || !fgets(line, sizeof line, p->from) || strncmp(line, "ready", 5)) {
        fprintf(stderr, "bench_ort_paired: onnxruntime peer did not start (%s %s)\n", python, script);
        return 1;
    }
    return 0;
}

/* Before our run `run`: at the start of each of our bursts, the peer runs a burst of its own. */
static void peer_turn(void *user, size_t run)
{
    peer *p = user;
    if (p->failed || run % p->burst) return;
    usleep(p->gap_us);
    fprintf(p->to, "%zu\n", p->burst);
    fflush(p->to);
    static char line[1 << 14];
    if (!fgets(line, sizeof line, p->from)) {
        p->failed = 1;
        return;
    }
    char *s = line;
    for (size_t k = 0; k < p->burst; k++) {
        char *end;
        p->ms[p->n++] = strtod(s, &end);
        if (end == s) p->failed = 1;
        s = end;
    }
    usleep(p->gap_us);
}

/* The kept runs (all but each burst's first) of round r, and their median. */
static double burst_median(const double *ms, size_t r, size_t burst, double *kept)
{
    double tmp[256];
    size_t n = 0;
    for (size_t k = 1; k < burst; k++) tmp[n++] = ms[r * burst + k];
    memcpy(kept + r * (burst - 1), tmp, n * sizeof *tmp);
    return at_median(tmp, n);
}

int main(int argc, char **argv)
{
    const char *model = NULL, *log = NULL, *glog = NULL, *python = "python3", *target_name = "llvm";
    int threads = 2;
    size_t rounds = 40, burst = 4;
    double gap_ms = 150; /* onnxruntime's workers spin ~40 ms after a run (bench/README) */
    bool no_spin = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--ort-no-spin")) {
            no_spin = true;
            continue;
        }
        if (a[0] != '-') {
            model = a;
            continue;
        }
        if (i + 1 >= argc) usage();
        const char *v = argv[++i];
        if (!strcmp(a, "--log"))
            log = v;
        else if (!strcmp(a, "--graph-log"))
            glog = v;
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--rounds"))
            rounds = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--burst"))
            burst = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--gap-ms"))
            gap_ms = atof(v);
        else if (!strcmp(a, "--python"))
            python = v;
        else if (!strcmp(a, "--target"))
            target_name = v;
        else
            usage();
    }
    if (!model || threads < 1 || rounds < 1 || burst < 2 || burst > 256 || !(gap_ms >= 0 && gap_ms <= 10000)) usage();
    at_log_set_level(AT_LOG_ERROR);
    signal(SIGPIPE, SIG_IGN);
    char input[1100];
    snprintf(input, sizeof input, "%s.x.npy", model);
    size_t repeat = rounds * burst;
    peer p = {.burst = burst, .gap_us = (unsigned)(gap_ms * 1e3), .ms = calloc(repeat, sizeof(double))};
    double *ours = calloc(repeat, sizeof *ours), *kept_o = calloc(repeat, sizeof *kept_o),
           *kept_p = calloc(repeat, sizeof *kept_p), *ratio = calloc(rounds, sizeof *ratio);
    if (!p.ms || !ours || !kept_o || !kept_p || !ratio) return 1;
    if (peer_start(&p, python, model, threads, input, no_spin)) return 1;
    at_tune_eval_opts eo = {.network = model, .n_threads = threads, .repeat = repeat, .check = true, .no_tophub = true,
                            .log_path = log, .graph_log = glog, .input_path = input, .before_run = peer_turn,
                            .user = &p, .run_ms = ours};
    if (at_net_target_parse(target_name, &eo.target) != AT_OK) {
        fprintf(stderr, "bench_ort_paired: %s\n", at_last_error());
        return 1;
    }
    at_tune_eval_result r;
    at_status st = at_tune_evaluate(&eo, &r);
    fclose(p.to);
    fclose(p.from);
    waitpid(p.pid, NULL, 0);
    if (st != AT_OK) {
        fprintf(stderr, "bench_ort_paired: %s: %s: %s\n", model, at_status_str(st), at_last_error());
        return 1;
    }
    if (p.failed || p.n != repeat) {
        fprintf(stderr, "bench_ort_paired: the onnxruntime peer stopped answering after %zu runs\n", p.n);
        return 1;
    }
    size_t won = 0;
    for (size_t k = 0; k < rounds; k++) {
        double mo = burst_median(ours, k, burst, kept_o), mp = burst_median(p.ms, k, burst, kept_p);
        ratio[k] = mo / mp;
        won += ratio[k] < 1;
    }
    size_t nk = rounds * (burst - 1);
    double mo = at_median(kept_o, nk), mp = at_median(kept_p, nk);
    printf("%s: %d threads, %zu rounds of %zu runs each side (first of each burst left out); check %s\n", model,
           threads, rounds, burst, r.check.n_bad ? "MISMATCH" : "ok");
    printf("  ours        median %8.3f ms\n  onnxruntime median %8.3f ms%s\n", mo, mp, no_spin ? " (no spinning)" : "");
    printf("  ratio of medians %.3f; median of round ratios %.3f; rounds won %zu/%zu\n", mo / mp,
           at_median(ratio, rounds), won, rounds);
    at_tune_eval_result_fini(&r);
    free(p.ms);
    free(ours);
    free(kept_o);
    free(kept_p);
    free(ratio);
    return r.check.n_bad ? 1 : 0;
}
