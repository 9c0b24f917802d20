/* Fidelity of the VTA simulator against measured logs: every conv2d_packed.vta record of a log
 * (e.g. TopHub's vta_v0.10, measured on Pynq boards) is lowered with its config as given, timed by
 * the simulator's cycle model, and compared with the record's measured cost: per record the two
 * costs and their ratio, then the median relative error and Spearman's rank correlation over all
 * records and per hardware model. Also the calibration search that fits the cycle model's
 * constants to such a log (vta/CYCLE_MODEL.md). Computation only: nothing here prints. */
#ifndef AT_TUNE_VTA_PREDICT_H
#define AT_TUNE_VTA_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "records/log.h"
#include "vta/hw.h"
#include "vta/timing.h"

/* One conv2d_packed.vta record. */
typedef struct at_vta_pred_row {
    size_t   line;          /* 1-based line of the record in its log */
    char     workload[96];  /* short: "N=1 64x56x56 -> 64 k3x3 s1 p1" (channels and batch unpacked) */
    char     model[AT_VTA_MODEL_MAX]; /* the record's -model ("unknown" when absent) */
    int64_t  config_index;
    double   measured_s;    /* mean of the record's costs */
    bool     ok;            /* simulated; false: error says why (the record is excluded) */
    char     error[160];    /* e.g. "instantiation error: ...", "unknown hardware model ..." */
    uint64_t cycles;        /* simulated device cycles (ok only) */
    double   simulated_s;   /* (cycles + the timing's host_call_cycles) / the configuration's clock (ok only) */
    double   ratio;         /* simulated_s / measured_s (ok only) */
} at_vta_pred_row;

/* Figures over a set of rows that ran. */
typedef struct at_vta_pred_summary {
    char   model[AT_VTA_MODEL_MAX]; /* "" for the summary over all models */
    size_t n;                      /* rows that ran */
    double median_rel_err;         /* median of |sim - meas| / meas; 0 when n == 0 */
    double spearman;               /* rank correlation of sim and meas; 0 when n < 2 */
} at_vta_pred_summary;

typedef struct at_vta_pred {
    at_vta_pred_row     *rows;     /* n_rows, in log order */
    size_t               n_rows;
    size_t               n_failed;  /* rows with ok == false */
    size_t               n_skipped; /* records of other tasks, and records whose measurement failed */
    at_vta_pred_summary  all;
    at_vta_pred_summary *models;    /* n_models, in order of first appearance */
    size_t               n_models;
} at_vta_pred;

/* How to predict. Zero-initialized means: hardware from each record's -model, default timing. */
typedef struct at_vta_pred_opts {
    const at_vta_hw     *hw;     /* when set, every record runs on this configuration */
    const at_vta_timing *timing; /* NULL: at_vta_timing_default */
} at_vta_pred_opts;

/* The hardware configuration a model name stands for, built as tvm-vta's config JSON and loaded
 * by at_vta_hw_from_json: "<TARGET>_<BATCH>x<BLOCK>_i<INP>w<WGT>a<ACC>_<UOP>_<INP>_<WGT>_<ACC>"
 * (e.g. pynq_4x8_i8w8a32_15_16_16_18: LOG_BATCH 2, LOG_BLOCK 3, buffers 2^15/2^16/2^16/2^18 bytes);
 * a bare target name ("pynq", "sim", ...) means the default 1x16_i8w8a32_15_15_18_17 bitstream
 * on that target. AT_EINVAL when the name does not have this form or the configuration is
 * invalid. */
at_status at_vta_pred_hw_for_model(const char *model, at_vta_hw *out);

/* Predicts every conv2d_packed.vta record of log. opts may be NULL. *out owned by the caller
 * (at_vta_pred_free). A record that cannot run (unknown model, instantiation error, a program
 * the device rejects) is a row with ok == false, not a failure. Returns AT_OK or AT_ENOMEM. */
at_status at_vta_predict_log(const at_rec_log *log, const at_vta_pred_opts *opts, at_vta_pred **out);

void at_vta_pred_free(at_vta_pred *p);

/* Median of v[0..n) (v is reordered; the mean of the two middle values when n is even; 0 when
 * n == 0). */
double at_vta_pred_median(double *v, size_t n);

/* Spearman's rank correlation of x and y (n pairs): Pearson correlation of their ranks, ties
 * getting the average of the ranks they span. 0 when n < 2 or either side is constant.
 * Returns AT_OK or AT_ENOMEM. */
at_status at_vta_pred_spearman(const double *x, const double *y, size_t n, double *out);

/* One constant the calibration may move, within [lo, hi] (hi 0: up to at_vta_timing_set's limit). */
typedef struct at_vta_fit_param {
    const char *name;
    uint32_t    lo, hi;
} at_vta_fit_param;

/* Calibration: a coordinate search over the cycle-model constants params[0..n_params) starting
 * from *timing, minimizing the mean over hardware models of the median |log(sim / meas)| of the
 * model's runnable conv2d_packed.vta records (each model counts the same; the records and
 * hardware choice are those of at_vta_predict_log with opts). Each round tries, for every
 * constant in turn, multiplying and dividing it by a step factor (2, then 1.5, 1.25, 1.1 once a
 * round no longer improves; +-1 where the product rounds back to the value), keeping a change
 * only if it lowers the objective; it stops after max_rounds rounds or when the smallest step no
 * longer improves. On success *timing holds the fitted table and *objective (may be NULL) its
 * objective. Returns AT_OK, AT_ENOTFOUND (an unknown name), AT_EINVAL (no record can run, or a
 * starting value outside its bounds) or AT_ENOMEM. */
at_status at_vta_pred_fit(const at_rec_log *log, const at_vta_pred_opts *opts, const at_vta_fit_param *params,
                          size_t n_params, int max_rounds, at_vta_timing *timing, double *objective);

#endif
