/* The graph tuner's choice refined in the network. Records time every config alone, with its input
 * and weights hot in the caches; in the network an anchor reads what the layer before wrote (in
 * L2, or in the other core's), and configs rank differently there: on mobilenet's 14 x 14
 * pointwise layers the tuner's best record (one vector of output channels per pixel) runs 4 %
 * slower in the network than a config with two, which no tuning log had measured. So the choice
 * is moved, one anchor at a time, to configs next to it in its task's space -- its output block
 * doubled or halved with the blocks its readers read following it, its input block made the one
 * its producer writes, its row tile one step longer or shorter, a 1x1 conv's rows per chunk
 * (which decide whether the CPU pool shares the layer out by rows) -- or to the log's next-best
 * configs with its blocks (isolated measurements on a busy host can be far off), and a move is
 * kept when the network, built with it and timed run for run against the current choice, runs
 * faster where the move reaches. */
#ifndef AT_NETWORKS_GRAPH_REFINE_H
#define AT_NETWORKS_GRAPH_REFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "networks/exec.h"
#include "networks/graph_tune.h"
#include "networks/net.h"

typedef struct at_net_refine_opts {
    const bool *movable;  /* per node: its config may change (NULL: every packed anchor) */
    /* (optional) per node, the graph tuner's candidates (cheapest first): the cheapest few with
     * the node's blocks are tried in the network too */
    const at_net_gt_cand *const *cands;
    const size_t               *n_cands;
    size_t      rounds;   /* paired profiled runs per comparison (0: 15) */
    size_t      sweeps;   /* passes over the anchors, the slowest first; a pass keeping no move ends (0: 2) */
    double      min_gain; /* a move is kept when the median over rounds of its time over the current
                             one's, on the nodes it reaches, is below 1 - min_gain (0: 0.01) */
    uint64_t    seed;     /* the input's values */
} at_net_refine_opts;

typedef struct at_net_refine_result {
    size_t  n_tried, n_kept; /* moves measured and kept */
    size_t  n_early;         /* moves given up after 5 rounds (their median ratio not below 1) */
    size_t  n_changed;       /* movable nodes whose config differs from the one they had */
    size_t  n_built;         /* programs compiled */
    double  before_ms;       /* the network's device time with the configs it had, and with the */
    double  after_ms;        /* refined ones: medians of runs alternating between the two */
    double *node_ms;         /* (owned) per node, its median device time in the network as refined */
} at_net_refine_result;

/* Refines plan's picks of the movable packed anchors (at_net_plan_set_pick) by timing the network
 * on be (with parameters: at_net_opts.params). When the refined network does not run faster than
 * the one it started from, the starting picks are restored (n_changed 0). out->node_ms is filled
 * either way; free it with at_net_refine_result_fini. The executor's and backend's statuses (a
 * move whose network cannot be built -- AT_EINVAL, AT_EDEVICE -- is skipped with a warning),
 * AT_ENOMEM. */
at_status at_net_graph_refine(const at_net *net, at_net_plan *plan, const at_net_backend_i *be, void *be_ctx,
                              const at_net_refine_opts *o, at_net_refine_result *out);
void at_net_refine_result_fini(at_net_refine_result *r);

#endif
