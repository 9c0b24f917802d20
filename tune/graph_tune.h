/* The graph tuner over a tuning log (TVM's autotvm.graph_tuner flow for x86): candidates are the
 * best records of every packed anchor's workload, the choice is networks/graph_tune.h's, and the
 * result is written as TVM's graph-tuner output -- one record per tuned anchor in node order --
 * which apply_graph_best (here: at_tune_graph_apply) reads back positionally. */
#ifndef AT_TUNE_GRAPH_TUNE_H
#define AT_TUNE_GRAPH_TUNE_H

#include <stddef.h>

#include "core/status.h"
#include "networks/exec.h"
#include "networks/graph_refine.h"
#include "networks/graph_tune.h"

typedef struct at_tune_graph_result {
    at_net_gt_result choice;
    size_t           n_records;  /* records written to the output log */
    size_t           n_timed;    /* transforms (tensor size, block pair) timed on the backend */
    bool             refined;    /* the choice was refined in the network; refine says how (node_ms NULL) */
    at_net_refine_result refine;
    size_t           n_made;     /* records written for configs the refinement chose outside the log */
} at_tune_graph_result;

/* Reads records_path (every record of the tuning run: candidates need more than the best), takes
 * up to top_k (0: 20) distinct measured configs per packed anchor whose pick the log tuned, times
 * transforms on be, chooses, sets the choice on plan and, with out_path, writes the chosen
 * records (their lines as read) in node order. With refine (NULL: none) the choice of the anchors
 * with candidates is then refined in the network on be (networks/graph_refine.h; refine's movable,
 * cands and n_cands are set here from the candidates; net must carry parameters), and a config it picks that the log does not hold is
 * written as a record of the anchor's workload whose cost is the anchor's median time in the
 * network. The log's statuses (a line that is no record is skipped with a warning by the loader),
 * the backend's, AT_ENOMEM. */
at_status at_tune_graph_tune(const at_net *net, at_net_plan *plan, const char *records_path, size_t top_k,
                             const at_net_backend_i *be, void *be_ctx, const at_net_refine_opts *refine,
                             const char *out_path, at_tune_graph_result *out);

/* TVM's apply_graph_best: the records of path (a graph tuner's output) are taken in order, one
 * per anchor in node order whose pick's task they are for; an anchor the next record is not for
 * keeps its pick. *n_applied (optional) = records applied. AT_EINVAL (a record left over, naming
 * its line: the log is for another network or target; a config outside its task's space), the
 * log's statuses, AT_ENOMEM. */
at_status at_tune_graph_apply(const at_net *net, at_net_plan *plan, const char *path, size_t *n_applied);

#endif
