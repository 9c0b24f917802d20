/* Running a network.
 *
 * The reference executor is the oracle: naive C over the graph, the anchors through the ops'
 * reference implementations (templates/ops.h, double accumulation), everything else in plain
 * loops. It runs fused and unfused graphs alike (so it also checks BN folding).
 *
 * The tuned executor runs a fused network the way TVM's compiled module does: per anchor the
 * implementation dispatch selects (TVM's select_implementation, spec/autotvm_core.md §2.9: among
 * the implementations whose config is a tuned record, the lowest cost, first on ties; with none
 * tuned, the highest plevel with its fallback config), instantiated from its template; its
 * epilogue and every other op as small generated IR programs (one work-item per element). The
 * programs run on a backend: the IR interpreter here (at_net_interp_backend), an OpenCL device
 * in the layers above (networks/ sits below backends/). Flatten and dropout are aliases. */
#ifndef AT_NETWORKS_EXEC_H
#define AT_NETWORKS_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "ir/ir.h"
#include "knobs/config.h"
#include "networks/extract.h"
#include "networks/net.h"

/* ---- reference executor (networks/reference.c) ----------------------------------------------- */

typedef struct at_net_values at_net_values;

/* Runs net (with parameters) on input (at_net_node_numel(node 0) floats, NCHW). keep_all keeps
 * every node's output, else only the network output's. *out owned by the caller
 * (at_net_values_free). AT_EINVAL (net has no parameters), AT_ENOMEM. */
at_status at_net_run_reference(const at_net *net, const float *input, bool keep_all, at_net_values **out);

void at_net_values_free(at_net_values *v);

/* Node i's output (at_net_node_numel floats), NULL when it was not kept; borrowed. */
const float *at_net_values_get(const at_net_values *v, size_t node);

/* ---- dispatch and implementation choice (networks/exec.c) ------------------------------------ */

/* What dispatch answered for one task. */
typedef struct at_net_choice {
    at_config *config; /* the config to instantiate; ownership passes to the caller of the fn */
    double     cost_s; /* the record's mean cost (TVM's cfg.cost) when tuned */
    bool       tuned;  /* false: a fallback config (no record) */
} at_net_choice;

/* Dispatch: the config for a task, as the caller's contexts decide (user logs > TopHub >
 * fallback). args_json is the task's args text (at_net_tasks_args_json), the key the best-record
 * tables use. Must fill out->config on AT_OK; any other status aborts the plan. */
typedef at_status (*at_net_dispatch_fn)(void *ctx, const at_task *task, const char *args_json, at_net_choice *out);

/* A dispatch with no records: every task untuned with at_task_fallback_config(task, NULL, 0).
 * ctx unused. AT_EINVAL, AT_ENOMEM as that call. */
at_status at_net_dispatch_fallback(void *ctx, const at_task *task, const char *args_json, at_net_choice *out);

/* The implementation chosen for one anchor. */
typedef struct at_net_pick {
    size_t           impl;   /* index into at_net_tasks_node_impls(node) */
    size_t           task;   /* its task index */
    const at_config *config; /* borrowed until at_net_plan_free */
    double           cost_s; /* when tuned */
    bool             tuned;
} at_net_pick;

typedef struct at_net_plan at_net_plan;

/* Asks fn once per task of every anchor's implementations and picks one per anchor. tasks must
 * come from at_net_extract(net, ..., AT_NET_OPS_ALL) and stay alive with net until the plan is
 * freed. A tuned answer must be a point of the task's space (at_space_index_of; records of
 * another knob layout are refused here, before a template could see them). *out owned by the
 * caller. AT_EINVAL (an anchor without implementations: tasks extracted for other ops or every
 * one dropped; a tuned config outside its task's space), fn's status, AT_ENOMEM. */
at_status at_net_plan_new(const at_net *net, const at_net_tasks *tasks, at_net_dispatch_fn fn, void *ctx,
                          at_net_plan **out);
void at_net_plan_free(at_net_plan *p);

/* The pick for node; false (and *out untouched) when the node is not an anchor. */
bool at_net_plan_pick(const at_net_plan *p, size_t node, at_net_pick *out);

/* The tasks the plan was made from. */
const at_net_tasks *at_net_plan_tasks(const at_net_plan *p);

/* Anchors that run a fallback config (TVM then logs "Cannot find tuning records"). */
size_t at_net_plan_n_fallback(const at_net_plan *p);

/* Makes node (an anchor) run config (copied; a point of its pick's task space) at cost_s, as a
 * tuned pick: a graph tuner's per-node choice (TVM's apply_graph_best), where the plan otherwise
 * gives every node of a task the same config. AT_ENOMEM. */
at_status at_net_plan_set_pick(at_net_plan *p, size_t node, const at_config *config, double cost_s);

/* ---- executor on a backend (networks/exec.c) -------------------------------------------------- */

/* Where programs run (STYLE 2.6: a vtable with a ctx). Buffers and programs are the backend's
 * own objects behind void pointers. */
typedef struct at_net_backend_i {
    const char *name;
    /* A device buffer of bytes (> 0) bytes. AT_ENOMEM, AT_EDEVICE. */
    at_status (*buf_new)(void *ctx, size_t bytes, void **buf);
    void (*buf_free)(void *ctx, void *buf);
    /* Blocking copies of a whole buffer from / to host memory. AT_EDEVICE. */
    at_status (*buf_write)(void *ctx, void *buf, const void *src);
    at_status (*buf_read)(void *ctx, void *buf, void *dst);
    /* Makes program p runnable (p is borrowed until prog_free). AT_EDEVICE (compiler error),
     * AT_EINVAL (the device cannot run it), AT_ENOMEM. */
    at_status (*prog_new)(void *ctx, const at_ir_program *p, void **prog);
    /* prog_new keeps nothing of p: a program may outlive the at_ir_program it was made from, so a
     * cache (networks/prog_cache.h) can share it among executors. (defaults to false) */
    bool prog_outlives_source;
    /* (optional) prog_new of ps[0..n) into progs[0..n), at once (a device compiler that takes
     * seconds a program builds them side by side). On failure every progs[i] that was made is
     * set (the executor frees them) and the others are NULL. (defaults to prog_new in turn) */
    at_status (*prog_new_all)(void *ctx, const at_ir_program *const *ps, size_t n, void **progs);
    void (*prog_free)(void *ctx, void *prog);
    /* Runs (or enqueues) prog with bufs[0..n): every buffer of the program in its order, the
     * signature's then the temporaries (the executor allocates those per launch site, so what a
     * preparation kernel computes persists). skip_prepare leaves out the preparation kernels
     * (at_ir_kernel.prepare: weight packing), whose temporaries a full run on the same bufs
     * already filled; a backend may run them anyway (always correct). When device_ms is not
     * NULL, sets it to the device time of the run (0 when the backend cannot time). */
    at_status (*prog_run)(void *ctx, void *prog, void *const *bufs, size_t n, bool skip_prepare, double *device_ms);
    /* (optional) waits for everything enqueued (defaults to nothing: prog_run is synchronous). */
    at_status (*finish)(void *ctx);
    /* (optional, all four or none) a recorded sequence: the executor adds every step once, bound
     * to its buffers, and a run is one seq_run: every launch enqueued back to back and one wait,
     * nothing allocated or bound per run. skip_prepare and device_ms as prog_run's, over the
     * whole sequence; step_ms (optional, with device_ms) gets each seq_add's device time.
     * (defaults to prog_run per step) */
    at_status (*seq_new)(void *ctx, void **seq);
    at_status (*seq_add)(void *ctx, void *seq, void *prog, void *const *bufs, size_t n);
    at_status (*seq_run)(void *ctx, void *seq, bool skip_prepare, double *device_ms, double *step_ms);
    void (*seq_free)(void *ctx, void *seq);
} at_net_backend_i;

/* The IR interpreter as a backend (host memory, at_ir_interp); ctx unused (NULL). Static. */
const at_net_backend_i *at_net_interp_backend(void);

typedef struct at_net_exec at_net_exec;

/* Instantiates every program of net under plan (templates' programs for the anchors, generated
 * ones for the rest), prepares each distinct one once on the backend and uploads the parameters.
 * net, plan, its tasks and the backend must outlive the executor. *out owned by the caller.
 * AT_EINVAL (net not fused or without parameters, a config that cannot be instantiated: the
 * detail names the node, template and config index), the backend's statuses, AT_ENOMEM. */
at_status at_net_exec_new(const at_net *net, const at_net_plan *plan, const at_net_backend_i *be, void *be_ctx,
                          at_net_exec **out);
void at_net_exec_free(at_net_exec *e);

/* Storage planning (TVM's graph memory planner): node buffers whose lives do not overlap share
 * one allocation, the most recently freed first, so a layer writes into memory the caches still
 * hold. Call it before the first run. The input, the constants and the network output keep their
 * own buffers; at_net_exec_get of any other node (and at_net_exec_check of all nodes) is AT_EINVAL
 * after it. The backend's statuses, AT_ENOMEM. */
at_status at_net_exec_share_buffers(at_net_exec *e);

/* Copies the network input (at_net_node_numel(node 0) floats) to the device. */
at_status at_net_exec_set_input(at_net_exec *e, const float *input);
/* Runs every program once, in node order, and waits for the backend (backend statuses). The
 * first run also runs the preparation kernels (weight packing, which TVM does at compile time)
 * and so is the warm-up; later runs leave them out. When device_ms is not NULL it gets the sum of
 * the programs' device times (what prog_run reports). */
at_status at_net_exec_run(at_net_exec *e, double *device_ms);
/* One run (as at_net_exec_run) with every program's device time added to its node's:
 * node_ms[at_net_n_nodes] (zero for nodes without a program; an anchor includes its fused
 * epilogue), and the layout transforms made for a node's inputs apart, in copy_ms[at_net_n_nodes]
 * (TVM's graph runs them as layout_transform nodes). Backend statuses. */
at_status at_net_exec_profile(at_net_exec *e, double *node_ms, double *copy_ms);

/* Copies node's output (at_net_node_numel floats) to host; the network output is
 * at_net_output(net). */
at_status at_net_exec_get(at_net_exec *e, size_t node, float *out);

/* What a check found: how many elements disagree, and the element of the largest error (NaN
 * above all), whether or not it is outside the tolerance. */
typedef struct at_net_check {
    size_t  n_bad;   /* elements outside tolerance (NaN counts), over every node compared */
    size_t  node;    /* node of the largest error (SIZE_MAX when nothing was compared) */
    int64_t index;   /* its flat index */
    double  got, want, abs_err;
} at_net_check;

/* The executor's answer against the oracle: runs the reference executor on input (the input of
 * the executor's last run) and compares every node's output (all_nodes) or the network output:
 * |got - want| <= atol + rtol * max |want| over the node -- relative to the node's magnitude, since
 * Winograd and reordered sums err in proportion to the values they combine, not to each result.
 * Returns AT_OK whether or not they agree (out->n_bad says), or AT_ENOMEM / the backend's status. */
at_status at_net_exec_check(at_net_exec *e, const float *input, double atol, double rtol, bool all_nodes,
                            at_net_check *out);

/* Number of programs one run launches (anchors, epilogues and the other ops), and how many
 * distinct ones were prepared: anchors of one task share its program, as do epilogues and
 * element-wise ops of one shape and kind. */
size_t at_net_exec_n_programs(const at_net_exec *e);
/* Bytes of device memory holding node values past the input: the nodes' own buffers (constants
 * aside), their layout copies and the shared buffers (at_net_exec_share_buffers). */
size_t at_net_exec_value_bytes(const at_net_exec *e);
size_t at_net_exec_n_prepared(const at_net_exec *e);
/* Layout copies the executor made: a node's values converted to another NCHW[x]c block size (or
 * to NCHW) for a reader that takes them so; TVM's alter_op_layout inserts one layout_transform each. */
size_t at_net_exec_n_layout_copies(const at_net_exec *e);

#endif
