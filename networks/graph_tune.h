/* A graph tuner for the NCHW[x]c anchors (TVM's autotvm.graph_tuner): per anchor, one of its
 * tuned candidate configs, chosen for the whole network so that the sum of the kernels' costs and
 * of the layout transforms their block sizes call for is least. exec.c's alter_op_layout decides
 * where a transform runs; this file models the same rules to price a choice without building it. */
#ifndef AT_NETWORKS_GRAPH_TUNE_H
#define AT_NETWORKS_GRAPH_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "knobs/config.h"
#include "networks/exec.h"
#include "networks/net.h"

/* One candidate of an anchor: a config of its pick's task (borrowed), its measured cost and the
 * blocks it reads and writes (at_tmpl_packed_blocks). */
typedef struct at_net_gt_cand {
    const at_config *config;
    double           cost_s;
    int64_t          ic_bn, oc_bn;
} at_net_gt_cand;

/* The time (s) of converting node's values (its shape) from NCHW[from]c to NCHW[to]c, 1 meaning
 * NCHW. Statuses are passed on. */
typedef at_status (*at_net_gt_copy_fn)(void *ctx, const at_net_node *n, int64_t from, int64_t to, double *cost_s);

typedef struct at_net_gt_result {
    double before_s, after_s;           /* modelled kernels + transforms: cheapest candidates, the choice */
    size_t copies_before, copies_after; /* layout transforms */
    size_t n_tuned;                     /* anchors with candidates */
    size_t n_changed;                   /* anchors whose config differs from the plan's pick */
} at_net_gt_result;

/* Chooses one of cands[i][0..n_cands[i]) for every node i with n_cands[i] > 0 (a packed anchor of
 * plan; cands cheapest first) and sets it on plan (at_net_plan_set_pick).
 * Nodes without candidates keep their pick, whose blocks enter the model. The search starts from
 * every node's cheapest candidate and moves single nodes, then pairs -- a node and an anchor
 * feeding it, two anchors feeding one concatenation -- while the total falls (a local optimum;
 * exact on chains whose nodes interact with one neighbour). copy gives transform costs (asked once per node and block pair). out may be NULL.
 * copy's status, AT_ENOMEM. */
at_status at_net_graph_tune(const at_net *net, at_net_plan *plan, const at_net_gt_cand *const *cands,
                            const size_t *n_cands, at_net_gt_copy_fn copy, void *ctx, at_net_gt_result *out);

/* An at_net_gt_copy_fn timing exec.c's transform program on a backend, as TVM's graph tuner
 * benchmarks layout_transform: the median device time of `runs` runs after a warm-up, measured
 * once per tensor size and block pair (a copy between blocks whose gcd is small moves short
 * vectors: 32 -> 2 costs several times 32 -> 16). Zero-initialize, set be, be_ctx and runs (0:
 * 10), pass as ctx; at_net_gt_timer_fini frees what it holds. */
typedef struct at_net_gt_timer {
    const at_net_backend_i *be;
    void                   *be_ctx;
    size_t                  runs;
    int64_t                *key; /* (numel, from, to) of each timed transform */
    double                 *cost_s;
    size_t                  n, cap;
    size_t                  n_timed;  /* programs built and timed */
} at_net_gt_timer;
at_status at_net_gt_time_copy(void *timer, const at_net_node *n, int64_t from, int64_t to, double *cost_s);
void at_net_gt_timer_fini(at_net_gt_timer *t);

/* The layout transforms exec.c makes for plan (what at_net_exec_n_layout_copies reports once
 * built), counted from the model. AT_ENOMEM. */
at_status at_net_graph_count_copies(const at_net *net, const at_net_plan *plan, size_t *out);

/* The model's layouts for plan: packed[i] says whether node i is a packed anchor (NULL: not
 * wanted), blk[i] the block node i writes (1: NCHW). Both hold at_net_n_nodes entries. AT_ENOMEM. */
at_status at_net_graph_layouts(const at_net *net, const at_net_plan *plan, bool *packed, int64_t *blk);

#endif
