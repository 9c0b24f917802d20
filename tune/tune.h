/* The tuning loop for one task (TVM's Tuner.tune, spec/autotvm_core.md §4.1 and §6): the tuner
 * proposes a batch (the runner's parallelism), the runner measures it, every result is appended
 * to the log as it arrives, the tuner learns from it, progress is reported in TVM's format, and
 * TVM's early-stopping rule ends the search. Also the transfer-learning history of a task read
 * from a log of earlier tasks. Library code: nothing here prints (progress goes to a callback). */
#ifndef AT_TUNE_TUNE_H
#define AT_TUNE_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/strbuf.h"
#include "measure/measure.h"
#include "records/log.h"
#include "templates/template.h"
#include "tuners/tuner.h"

/* Where tuning stands after a batch (TVM's progress_bar state). */
typedef struct at_tune_progress {
    size_t done, total;   /* trials measured (failures count) / n_trial */
    double current_flops; /* FLOP/s of the last successful result of the batch, 0 if none */
    double best_flops;    /* best FLOP/s so far, 0 if none */
    double elapsed_s;     /* since at_tune_task started */
} at_tune_progress;

/* Options; zero means the default. */
typedef struct at_tune_opts {
    size_t      n_trial;        /* trials at most (required, >= 1) */
    size_t      early_stopping; /* stop once this many trials passed without a better config
                                   (TVM's rule, checked per batch); 0 = off */
    size_t      batch_size;     /* configs per batch; 0 -> the runner's batch size */
    const char *target_str;     /* the target logs record; NULL -> "opencl" */
    /* (optional) every record is appended here as soon as its batch is measured (borrowed) */
    at_rec_appender *log;
    /* (optional) called once before the first batch (all zeros) and after every batch */
    void (*on_progress)(void *user, const at_tune_progress *p);
    void *user;
    /* (optional) monotonic seconds; defaults to at_clock_mono_s (tests pass a fake clock) */
    double (*clock_s)(void *ctx);
    void *clock_ctx;
    /* (optional) resuming: configs of this task measured by an interrupted run (distinct indexes
     * of the task's space, with their results; borrowed for the call). They are never measured
     * again: before the first batch they are reported to the tuner (at_tuner_update, so it counts
     * them visited and learns from them), they count towards n_trial, the best and early
     * stopping, and when the tuner proposes one anyway (ga's first population) its stored
     * result is replayed to the tuner instead of a measurement, and not appended to the log. */
    const int64_t   *measured;
    const at_result *measured_results;
    size_t           n_measured;
    /* Configs the template's schedule rejects (TVM's INSTANTIATION_ERROR) are found in process
     * when proposed and are no trials: not measured, not logged, not counted, only reported to the
     * tuner. true: measure and log them as TVM does. */
    bool             measure_invalid;
} at_tune_opts;

/* What a tuning run did. */
typedef struct at_tune_result {
    size_t  n_trials;      /* trials measured */
    size_t  n_errors;      /* of which failed */
    int64_t best_index;    /* config index of the best result, -1 when nothing succeeded */
    double  best_flops;    /* its FLOP/s (0 when none) */
    double  best_cost_s;   /* its mean cost in seconds (AT_FAILED_COST_S when none) */
    size_t  best_iter;     /* 0-based trial number of the best result */
    bool    early_stopped; /* the early-stopping rule ended the run */
    size_t  n_resumed;     /* of n_trials, taken from o->measured (not measured by this call) */
    size_t  n_replayed;    /* proposals answered from o->measured instead of measuring */
    size_t  n_invalid;     /* proposals that could not instantiate (no trials, not logged) */
    /* where the call's wall time went, in at_clock_mono_s seconds (not o->clock_s, whose fake
     * clocks tests count readings of): proposing and learning (at_tuner_next_batch and
     * at_tuner_update: an xgb tuner's fits, plans and features) and measuring (the runner);
     * the rest is checking proposals and writing the log */
    double  tuner_s, measure_s;
} at_tune_result;

/* Tunes task with tuner (made for this task) and runner until n_trial trials, the tuner's space
 * is exhausted, or early stopping. Per batch: next_batch, measure, append each record to
 * o->log, at_tuner_update, progress. Logs (at_log) each trial at debug level, a warning once
 * more than 150 consecutive trials failed (TVM switches to debug mode there), and a warning
 * with the first error when every trial failed. *out is written on AT_OK and, on failure,
 * holds what was done so far. Returns AT_OK, AT_EINVAL (n_trial 0), or the first failure of
 * the tuner (AT_EDEVICE from XGBoost, AT_ENOMEM), the runner (it cannot go on) or the log
 * (AT_EIO). */
at_status at_tune_task(const at_task *task, at_tuner *tuner, at_meas_runner *runner, const at_tune_opts *o,
                       at_tune_result *out);

/* Appends TVM's progress text without the leading "\r":
 * "<prefix> Current/Best: %7.2f/%7.2f GFLOPS | Progress: (%d/%d) | %.2f s", where the prefix is
 * e.g. "[Task  1/16] " (TVM's "[Task %2d/%2d] ", trailing space included). Failure shows in
 * sb->failed. */
void at_tune_format_progress(const char *prefix, const at_tune_progress *p, at_strbuf *sb);

/* TVM's tutorial prefix "[Task %2d/%2d] " for task i (1-based) of n into buf[32]; returns buf. */
const char *at_tune_task_prefix(size_t i, size_t n, char buf[32]);

/* ---- transfer-learning history --------------------------------------------------------------- */

/* The records of a log that a tuner of `task` can learn from: those of the task's template and
 * target family, each with its own task (built from the record's workload; one per distinct
 * workload). Records whose workload cannot be parsed or whose template differs are left out;
 * whether a config fits its task is the tuner's to check. */
typedef struct at_tune_history at_tune_history;

/* Builds the history of task from log (borrowed: it must outlive the history). *out owned by
 * the caller. Returns AT_OK or AT_ENOMEM. */
at_status at_tune_history_new(const at_task *task, const at_rec_log *log, at_tune_history **out);
void      at_tune_history_free(at_tune_history *h);
/* The records (borrowed until at_tune_history_free) and their count. */
const at_tuner_record *at_tune_history_records(const at_tune_history *h, size_t *n);
/* Distinct workloads among them. */
size_t at_tune_history_n_workloads(const at_tune_history *h);

#endif
