/* bench_vta_predict: fidelity of the VTA simulator's cycle model against the measured Pynq records
 * of TopHub's vta_v0.10 pack -- median relative error and Spearman rank correlation, over all
 * records and per hardware model (1x16, 4x8) -- for the first-order HLS model the simulator started
 * from (the pre-calibration table, vta/CYCLE_MODEL.md) and for the calibrated defaults of
 * vta/timing.c; plus the wall time of one prediction pass (median of --reps).
 *
 * usage: bench_vta_predict [--log PATH] [--reps R]
 * (defaults: ../shared/data/tophub/vta_v0.10.log or $AT_SHARED_DIR's, 3 reps) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "records/log.h"
#include "tune/vta_predict.h"
#include "vta/timing.h"

/* The table before calibration: HLS pipeline depths and DMA latencies as first guessed from the
 * design's pragmas (CYCLE_MODEL.md, "before" column); the constants it did not have stay 0. */
static const struct {
    const char *name;
    long        value;
} first_order[] = {
    {"insn_overhead", 4}, {"dma_read_latency", 32}, {"dma_write_latency", 16}, {"dma_row_overhead", 2},
    {"gemm_depth", 10},   {"alu_depth", 8},         {"loop_out_overhead", 1},  {"host_call_cycles", 0},
    {"dma_bytes_per_cycle", 0},
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_summary(const char *table, const at_vta_pred_summary *s)
{
    printf("%-12s %-34s %5zu  %8.3f  %8.3f\n", table, s->model[0] ? s->model : "all", s->n, s->median_rel_err,
           s->spearman);
}

static int run_table(const char *label, const at_rec_log *log, const at_vta_timing *timing, int reps)
{
    at_vta_pred_opts po = {.timing = timing};
    double *secs = calloc((size_t)reps, sizeof *secs);
    if (!secs) return 1;
    at_vta_pred *p = NULL;
    for (int r = 0; r < reps; r++) {
        at_vta_pred_free(p);
        p = NULL;
        double t0 = at_clock_mono_s();
        at_status st = at_vta_predict_log(log, &po, &p);
        secs[r] = at_clock_mono_s() - t0;
        if (st != AT_OK) {
            fprintf(stderr, "bench_vta_predict: %s\n", at_last_error());
            free(secs);
            return 1;
        }
    }
    qsort(secs, (size_t)reps, sizeof *secs, cmp_double);
    print_summary(label, &p->all);
    for (size_t m = 0; m < p->n_models; m++) print_summary(label, &p->models[m]);
    printf("%-12s %zu records predicted, %zu excluded, %zu skipped; one pass %.2f s (median of %d)\n\n", label,
           p->n_rows - p->n_failed, p->n_failed, p->n_skipped, secs[reps / 2], reps);
    at_vta_pred_free(p);
    free(secs);
    return 0;
}

int main(int argc, char **argv)
{
    char path[4096];
    const char *shared = getenv("AT_SHARED_DIR");
    snprintf(path, sizeof path, "%s/data/tophub/vta_v0.10.log", shared && *shared ? shared : "../shared");
    int reps = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--log") && i + 1 < argc) snprintf(path, sizeof path, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_vta_predict [--log PATH] [--reps R]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    at_rec_log *log = NULL;
    if (at_rec_log_load_file(path, &log) != AT_OK) {
        fprintf(stderr, "bench_vta_predict: %s\n", at_last_error());
        return 1;
    }
    at_vta_timing calibrated, first;
    at_vta_timing_default(&calibrated);
    first = calibrated;
    for (size_t i = 0; i < sizeof first_order / sizeof first_order[0]; i++) {
        if (at_vta_timing_set(&first, first_order[i].name, first_order[i].value) != AT_OK) {
            fprintf(stderr, "bench_vta_predict: %s\n", at_last_error());
            at_rec_log_free(log);
            return 1;
        }
    }
    printf("VTA cycle model vs measured Pynq records (%s)\n", path);
    printf("%-12s %-34s %5s  %8s  %8s\n", "table", "model", "n", "med.rel", "spearman");
    int rc = run_table("first-order", log, &first, reps);
    if (!rc) rc = run_table("calibrated", log, &calibrated, reps);
    at_rec_log_free(log);
    return rc;
}
