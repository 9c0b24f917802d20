/* Tuning a whole network (TVM's tune_relay_* tune_tasks flow, spec/autotvm_core.md §9.3) and
 * evaluating it end to end: extract the tasks, tune them in reverse order into FILE.tmp with
 * transfer learning from it, pick the best into FILE, then build the network with dispatch
 * (FILE > TopHub > fallback), time it on the OpenCL device and check it against the reference
 * executor. Resuming continues an interrupted run from FILE.tmp without measuring any config
 * twice. Library code: everything a user sees goes through the event callback. */
#ifndef AT_TUNE_NETWORK_H
#define AT_TUNE_NETWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/measure.h"
#include "measure/rpc_runner.h"
#include "networks/exec.h"
#include "tune/graph_tune.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "records/pick.h"
#include "tophub/tophub.h"
#include "tune/dispatch.h"
#include "tune/scheduler.h"
#include "tune/tune.h"
#include "tuners/tuner.h"

/* What happened (the CLI prints these as TVM's tutorials do). */
typedef enum at_tune_net_event_kind {
    AT_TUNE_NET_EXTRACTED,  /* n_tasks tasks extracted */
    AT_TUNE_NET_TASK_BEGIN, /* task task_no (1-based, tuning order) of n_tasks starts; n_resumed,
                               n_history (records learned from) set */
    AT_TUNE_NET_PROGRESS,   /* progress of the current task */
    AT_TUNE_NET_TASK_END,   /* result of the current task (skipped: its budget was spent) */
    AT_TUNE_NET_PICKED,     /* pick-best wrote the final log (pick) */
    AT_TUNE_NET_TOPHUB,     /* evaluation loaded TopHub pack (pack, NULL if none) with n_records */
    AT_TUNE_NET_COMPILE,    /* building the network's programs */
    AT_TUNE_NET_EVALUATE,   /* timing it */
    AT_TUNE_NET_SCHED_TABLE,/* total_trials: before each round, the scheduler (sched) and the task
                               the round goes to (next_id; SIZE_MAX once the run is over), with
                               the seconds since tuning began (elapsed_s) */
    AT_TUNE_NET_SCHED_ROUND,/* total_trials: after each round, its task (next_id), what the round's
                               at_tune_task did (result: trials, tuner_s, measure_s) and the
                               seconds spent making the task's tuner before it (setup_s: transfer
                               learning included; 0 after the task's first round) */
} at_tune_net_event_kind;

typedef struct at_tune_net_event {
    at_tune_net_event_kind   kind;
    size_t                   task_no, n_tasks;
    const char              *prefix;   /* "[Task  1/16] " */
    const at_task           *task;
    const at_tune_progress  *progress; /* PROGRESS */
    const at_tune_result    *result;   /* TASK_END */
    bool                     skipped;  /* TASK_END: nothing left to measure */
    size_t                   n_resumed, n_history;
    const at_rec_pick_stats *pick;     /* PICKED */
    const at_tophub_package *pack;     /* TOPHUB */
    size_t                   n_records;/* TOPHUB */
    const at_tune_sched     *sched;    /* SCHED_TABLE */
    size_t                   next_id;  /* SCHED_TABLE */
    double                   elapsed_s;/* SCHED_TABLE, SCHED_ROUND */
    double                   setup_s;  /* SCHED_ROUND */
} at_tune_net_event;

typedef void (*at_tune_net_event_fn)(void *user, const at_tune_net_event *ev);

/* Options of at_tune_network; zero means the default. */
typedef struct at_tune_network_opts {
    const char     *network;       /* at_net_build name (required) */
    at_net_opts     net;           /* batch, image shape (params not needed for tuning) */
    at_net_target   target;
    unsigned        ops;           /* 0 -> AT_NET_OPS_ALL */
    const char     *tuner;         /* a name of the tuner table (required) */
    at_tuner_opts   tuner_opts;
    size_t          n_trial;       /* per task, capped at len(space); 0 -> 1000 */
    size_t          early_stopping;/* 0 = off (with total_trials: the scheduler's per-task rule) */
    /* > 0: the whole-network scheduler (tune/scheduler.h) spends this many trials over the tasks
     * in rounds of trials_per_round (0 -> 64) instead of n_trial per task; the rounds go to the
     * tasks in the order of the gradient of the estimated network latency, every task keeps its
     * tuner from round to round, and resume restores the scheduler from FILE.tmp */
    size_t          total_trials;
    size_t          trials_per_round;
    double          sched_epsilon; /* the scheduler's epsilon-greedy probability (0: TVM's none) */
    bool            no_transfer;   /* true: no transfer learning from the tmp log */
    const char     *log_path;      /* FILE (required); the tmp log is FILE.tmp */
    bool            resume;        /* keep FILE.tmp and continue from it */
    bool            overwrite;     /* without resume: discard an existing FILE.tmp (else AT_EINVAL) */
    bool            keep_tmp;      /* leave FILE.tmp in place after pick-best (TVM removes it) */
    at_measure_opts measure;
    const at_meas_rpc_opts *rpc;   /* NULL: measure on the local OpenCL device; else on the
                                      rpc-servers under rpc->key (rpc->measure is replaced by
                                      measure above) */
    at_tune_net_event_fn on_event;
    void           *user;
} at_tune_network_opts;

/* Summary of a network tuning run. */
typedef struct at_tune_network_result {
    size_t n_tasks, n_skipped;  /* tasks, of which had nothing left to measure */
    size_t n_measured;          /* configs measured by this call */
    size_t n_resumed;           /* configs taken from FILE.tmp */
    size_t n_written;           /* records pick-best wrote to FILE */
} at_tune_network_result;

/* Extracts, tunes every task (reverse order; with total_trials: as the scheduler allots the
 * trials) into FILE.tmp, then pick-best FILE.tmp (+ an
 * existing FILE) into FILE and removes FILE.tmp. Measurements are never dropped unasked: without
 * resume, an existing non-empty FILE.tmp is refused (AT_EINVAL) unless overwrite. The measuring runner (local: the OpenCL pool,
 * this process's only OpenCL user, or the CPU pool for a target of the LLVM family; or remote
 * with rpc) is gone when this returns (evaluate afterwards). out
 * (optional) is written on AT_OK. Returns AT_OK, AT_EINVAL (missing option; FILE.tmp exists;
 * total_trials below the number of tasks),
 * AT_ENOTFOUND (unknown tuner, no device, no server under rpc->key), the runner's, tuner's and
 * log's statuses, AT_ENOMEM. */
at_status at_tune_network(const at_tune_network_opts *o, at_tune_network_result *out);

/* ---- evaluation ------------------------------------------------------------------------------ */

typedef struct at_tune_eval_opts {
    const char    *network;
    at_net_opts    net;          /* params are always created (seed: net.seed) */
    at_net_target  target;
    const char    *log_path;     /* (optional) tuned records, above TopHub */
    bool           no_tophub;
    at_tophub_opts tophub;       /* where the pack is (cache dir, location) */
    const char    *device;       /* at_ocl_device_select spec; NULL -> PoCL / the first */
    const char    *cache_dir;    /* PoCL kernel cache */
    int            n_threads;    /* CPU targets (LLVM backend): threads of the parallel loops;
                                    0 -> online cores */
    size_t         repeat;       /* timed runs; 0 -> 10 */
    bool           check;        /* compare the output with the reference executor */
    bool           profile;      /* per-layer device times (medians of `repeat` profiled runs) */
    const char    *input_path;   /* (optional) the input as a .npy file of float32 (default: seeded values) */
    const char    *save_output;  /* (optional) write the network's output there as .npy */
    const char    *graph_tune;   /* (optional) run the graph tuner on log_path's records and write
                                    its choice there (TVM's graph-tuner output) before timing */
    size_t         graph_top_k;  /* candidates per anchor (0: 20) */
    bool           graph_no_refine; /* graph_tune: keep the graph tuner's choice as the model made it
                                       (else it is refined in the network: networks/graph_refine.h) */
    const char    *graph_log;    /* (optional) a graph tuner's output applied over the picks */
    at_tune_net_event_fn on_event;
    void          *user;
    /* (optional) called with `user` before each timed wall-clock run (0-based), outside its
       timing: a benchmark runs a peer framework between our runs there, so that a host whose
       speed drifts slows both alike (bench/bench_ort_paired.c) */
    void         (*before_run)(void *user, size_t run);
    double        *run_ms;       /* (optional) `repeat` entries: each timed run's wall time */
} at_tune_eval_opts;

/* One node that runs a program, as profiled. */
typedef struct at_tune_eval_layer {
    char               name[64];  /* the node's */
    const char        *op;        /* at_net_op_name */
    const at_template *tmpl;      /* anchors: the implementation run (its fused epilogue included) */
    int64_t            config;    /* anchors: its config index (-1: fallback) */
    bool               tuned;     /* anchors: a record chose the config */
    double             ms;        /* median device time */
    double             flop;      /* anchors: FLOPs of one run (the task's); else 0 */
} at_tune_eval_layer;

typedef struct at_tune_eval_result {
    double  mean_ms, std_ms;       /* wall time per run over `repeat` runs (after a warm-up) */
    double  median_ms;
    double  device_ms;             /* median of the device time sums */
    size_t  n_anchors_fallback;    /* anchors that run a fallback config */
    at_tune_dispatch_stats dispatch;
    bool    checked;               /* check was asked for */
    at_net_check check;            /* what the check found (n_bad 0: matches) */
    bool    graph_tuned;           /* graph_tune ran: graph says what it chose */
    at_tune_graph_result graph;
    size_t  graph_applied;         /* graph_log: records applied */
    size_t  layout_copies;         /* layout transforms the executor makes */
    size_t  value_bytes_own;       /* node values, one buffer per node */
    size_t  value_bytes;           /* node values after storage planning (at_net_exec_share_buffers) */
    at_tune_eval_layer *layers;    /* profile: in node order (owned: at_tune_eval_result_fini) */
    size_t  n_layers;
} at_tune_eval_result;

/* Frees what a result owns (the layers). */
void at_tune_eval_result_fini(at_tune_eval_result *r);

/* Builds the network with parameters, dispatches every task (log > TopHub > fallback), builds
 * its programs on the OpenCL device -- or, for a target of the LLVM family (arm_cpu), compiles
 * every program for the host CPU through LLVM (tune/llvm_backend.h) -- and times `repeat` runs; with check, compares the network
 * output with the reference executor (atol 1e-4, rtol 1e-3). This process must not have made a
 * measuring runner since. *out written on AT_OK (a mismatch is AT_OK: out->check.n_bad says).
 * Returns AT_OK, AT_EINVAL, AT_ENOTFOUND (no device / log), AT_EDEVICE, AT_EIO, AT_ENOMEM. */
at_status at_tune_evaluate(const at_tune_eval_opts *o, at_tune_eval_result *out);

#endif
