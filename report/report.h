/* A tuning log as one self-contained HTML page (issue 18): per task, the best-so-far GFLOPS
 * against the trial number and against wall time (inline SVG), its errors by MeasureErrorNo name
 * and its chosen config; for a log of several tasks, how the trials were allotted (runs of
 * consecutive records of one task: a scheduler's rounds, or the per-task flow's one run per
 * task); with a network, the per-layer table (each node's fastest implementation among its
 * tasks, as relay's strategy picks the tuned implementation). Everything the page shows is read
 * from the log as TVM writes it; nothing extra is stored. No scripts, no external resources. */
#ifndef AT_REPORT_REPORT_H
#define AT_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "records/log.h"

/* One task of the log: the records of one (template, workload), in log order. */
typedef struct at_report_task {
    const char *name;       /* template name (borrowed from the log) */
    const char *args_json;  /* workload args (borrowed from the log) */
    const char *target_str; /* the target of its first record (borrowed) */
    double      flop;       /* FLOPs of one run; 0 when the template or workload is unknown here */
    size_t     *recs;       /* indexes into the log's records, n_recs of them (owned) */
    size_t      n_recs;
    size_t      n_err[AT_MEAS_ERR_COUNT]; /* records per MeasureErrorNo */
    size_t      best;       /* log index of the fastest successful record; SIZE_MAX when none */
    size_t      best_trial; /* its 1-based trial number within the task */
    double      best_cost_s;
} at_report_task;

/* A run of consecutive records of one task (a scheduler round, or a merge of back-to-back rounds
 * of the same task). */
typedef struct at_report_run {
    size_t task;      /* index into tasks */
    size_t first, n;  /* log records first .. first + n - 1 */
    double start_s;   /* timestamp of its first record minus the log's earliest timestamp */
} at_report_run;

/* One node of the network that runs a tuned op. */
typedef struct at_report_layer {
    size_t      node;
    const char *name;   /* the node's (borrowed from the network: valid while the report lives) */
    const char *op;
    size_t      impls[8], n_impls; /* report tasks implementing it (SIZE_MAX: not in the log), the
                                     first 8 of the strategy */
    size_t      chosen; /* the implementation with the fastest record; SIZE_MAX when none has one */
} at_report_layer;

typedef struct at_report {
    const at_rec_log *log;  /* borrowed */
    at_report_task   *tasks; /* in order of first appearance */
    size_t            n_tasks;
    at_report_run    *runs;
    size_t            n_runs;
    double            t0_s, t1_s; /* earliest and latest record timestamps */
    /* with a network */
    const char       *network;
    const char       *target_str;
    at_report_layer  *layers;
    size_t            n_layers;
    at_net           *net;   /* owned */
} at_report;

/* The network whose per-layer table the report shows. */
typedef struct at_report_network {
    const char   *name;   /* at_net_load name */
    at_net_opts   net;    /* batch, image shape, classes (params not needed) */
    at_net_target target;
    unsigned      ops;    /* 0 -> AT_NET_OPS_ALL */
} at_report_network;

/* Builds the report of log (borrowed: it must outlive the report), with the per-layer table of
 * network when not NULL. *out is initialized here; release it with at_report_fini. Returns AT_OK,
 * AT_EINVAL (the log has no records), the network's statuses (AT_ENOTFOUND, AT_EINVAL) or
 * AT_ENOMEM. */
at_status at_report_init(at_report *out, const at_rec_log *log, const at_report_network *network);

/* Frees what the report owns; a zeroed report is fine. */
void at_report_fini(at_report *r);

/* Appends the page (UTF-8 HTML5, inline CSS and SVG) to sb; failure shows in sb->failed. */
void at_report_write_html(const at_report *r, at_strbuf *sb);

/* GFLOPS of a result of task t (0 when it failed or the FLOPs are unknown). */
double at_report_gflops(const at_report_task *t, const at_result *res);

#endif
