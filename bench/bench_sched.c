/* bench_sched: the whole-network trial scheduler (tune --total-trials N) against TVM's per-task
 * flow given the same total (N / tasks trials each), side by side on one OpenCL device: trials
 * measured, wall time of the tuning, the estimated network latency (each layer's fastest tuned
 * implementation, summed: report/report.h) and the measured one (at_tune_evaluate, median of
 * --repeat runs; layers not tuned run fallback configs in both). Logs go to --workdir.
 *
 *   bench_sched [--network resnet-18] [--image-shape 3,32,32] [--ops conv2d] [--tuner xgb]
 *               [--total N] [--per-round K] [--seed S] [--repeat R] [--workdir DIR] [--device SPEC] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "report/report.h"
#include "bench/bench_sched_args.h"
#include "tune/network.h"

static void usage(void)
{
    fprintf(stderr, "usage: bench_sched [--network NET] [--image-shape C,H,W] [--ops LIST] [--tuner NAME] [--total N]\n"
                    "                   [--per-round K] [--seed S] [--repeat R] [--workdir DIR] [--device SPEC]\n");
    exit(2);
}

typedef struct mode_result {
    size_t trials;
    double wall_s, est_ms, eval_ms;
    size_t per_task[64], n_tasks;
} mode_result;

static void on_event(void *user, const at_tune_net_event *ev)
{
    (void)user;
    if (ev->kind == AT_TUNE_NET_SCHED_TABLE && ev->next_id == SIZE_MAX) {
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_tune_sched_format_table(ev->sched, ev->next_id, ev->elapsed_s, &sb);
        fputs(at_strbuf_cstr(&sb), stdout);
        at_strbuf_fini(&sb);
        fflush(stdout);
    }
}

/* The estimated latency of the picked log, and the trials per task in the tmp log. */
static int estimate(const at_tune_network_opts *o, const char *tmp, mode_result *m)
{
    at_report_network nw = {.name = o->network, .net = o->net, .target = o->target, .ops = o->ops};
    at_rec_log *log = NULL;
    at_report r;
    at_status st = at_rec_log_load_file(o->log_path, &log);
    if (st == AT_OK) st = at_report_init(&r, log, &nw);
    if (st != AT_OK) {
        fprintf(stderr, "bench_sched: %s: %s\n", o->log_path, at_last_error());
        at_rec_log_free(log);
        return 1;
    }
    double total = 0;
    for (size_t i = 0; i < r.n_layers; i++)
        if (r.layers[i].chosen != SIZE_MAX) total += r.tasks[r.layers[i].chosen].best_cost_s;
    m->est_ms = total * 1e3;
    at_report_fini(&r);
    at_rec_log_free(log);
    if (at_rec_log_load_file(tmp, &log) != AT_OK || at_report_init(&r, log, &nw) != AT_OK) return 1;
    m->n_tasks = r.n_tasks < 64 ? r.n_tasks : 64;
    for (size_t i = 0; i < m->n_tasks; i++) m->per_task[i] = r.tasks[i].n_recs;
    at_report_fini(&r);
    at_rec_log_free(log);
    return 0;
}

static int tune(at_tune_network_opts *o, const char *dir, const char *name, mode_result *m)
{
    static char log[2][1024], tmp[2][1100];
    int k = !strcmp(name, "scheduler");
    snprintf(log[k], sizeof log[k], "%s/%s.log", dir, name);
    snprintf(tmp[k], sizeof tmp[k], "%s.tmp", log[k]);
    unlink(log[k]);
    o->log_path = log[k];
    o->overwrite = true;
    o->keep_tmp = true;
    double t0 = at_clock_mono_s();
    at_tune_network_result r;
    at_status st = at_tune_network(o, &r);
    m->wall_s = at_clock_mono_s() - t0;
    if (st != AT_OK) {
        fprintf(stderr, "bench_sched: %s: %s: %s\n", name, at_status_str(st), at_last_error());
        return 1;
    }
    m->trials = r.n_measured;
    return estimate(o, tmp[k], m);
}

int main(int argc, char **argv)
{
    bench_sched_args a = {.network = "resnet-18", .ops = "conv2d", .tuner = "xgb", .dir = ".", .shape = {3, 32, 32}};
    size_t repeat = 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = (size_t)strtoul(argv[++i], NULL, 10);
            continue;
        }
        if ((i = bench_sched_arg(&a, argc, argv, i)) < 0) usage();
    }
    at_log_set_level(AT_LOG_ERROR);
    at_tune_network_opts o;
    if (bench_sched_opts(&a, &o)) usage();
    o.on_event = on_event;
    /* the task count, for the per-task share of the total */
    at_net *net = NULL;
    at_net_tasks *ts = NULL;
    at_net_opts no = o.net;
    if (at_net_load(a.network, &no, &net) != AT_OK || at_net_extract(net, o.target, o.ops, &ts) != AT_OK) {
        fprintf(stderr, "bench_sched: %s\n", at_last_error());
        return 1;
    }
    size_t n_tasks = at_net_tasks_count(ts);
    at_net_tasks_free(ts);
    at_net_free(net);
    if (a.total == 0) a.total = 16 * n_tasks;
    mode_result per = {0}, sch = {0};
    o.n_trial = a.total / n_tasks;
    printf("%s %lldx%lldx%lld (%s), %zu tasks, tuner %s, seed %llu: per-task flow %zu trials each vs scheduler "
           "%zu total\n",
           a.network, a.shape[0], a.shape[1], a.shape[2], a.ops, n_tasks, a.tuner, a.seed, o.n_trial, a.total);
    fflush(stdout);
    if (tune(&o, a.dir, "per-task", &per)) return 1;
    o.n_trial = 0;
    o.total_trials = a.total;
    o.trials_per_round = a.per_round;
    if (tune(&o, a.dir, "scheduler", &sch)) return 1;
    /* evaluations last: no measuring runner may follow this process's OpenCL use */
    mode_result *ms[2] = {&per, &sch};
    const char *names[2] = {"per-task", "scheduler"};
    for (int k = 0; k < 2; k++) {
        char log[1024];
        snprintf(log, sizeof log, "%s/%s.log", a.dir, names[k]);
        at_tune_eval_opts eo = {.network = a.network, .net = o.net, .target = o.target, .log_path = log,
                                .no_tophub = true, .device = a.device, .repeat = repeat, .check = true};
        at_tune_eval_result er;
        if (at_tune_evaluate(&eo, &er) != AT_OK) {
            fprintf(stderr, "bench_sched: evaluate %s: %s\n", log, at_last_error());
            return 1;
        }
        ms[k]->eval_ms = er.median_ms;
        at_tune_eval_result_fini(&er);
    }
    printf("%-10s %7s %9s %14s %16s\n", "mode", "trials", "wall (s)", "estimate (ms)", "measured (ms)");
    for (int k = 0; k < 2; k++)
        printf("%-10s %7zu %9.1f %14.3f %16.3f\n", names[k], ms[k]->trials, ms[k]->wall_s, ms[k]->est_ms,
               ms[k]->eval_ms);
    printf("trials per task (in order of first record: the scheduler's task IDs; the per-task flow's reversed):\n");
    for (int k = 0; k < 2; k++) {
        printf("  %-10s", names[k]);
        for (size_t i = 0; i < ms[k]->n_tasks; i++) printf(" %zu", ms[k]->per_task[i]);
        printf("\n");
    }
    return 0;
}
