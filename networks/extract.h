/* Task extraction with TVM's rules (spec/autotvm_core.md §9.2, spec/templates_vta.md §1.1, §2):
 * for every anchor of the selected ops, in lowering order (the fused graph's node order), every
 * implementation the target's strategy offers becomes a task (template, workload args); tasks
 * are de-duplicated by exact equality keeping the first seen, and one whose creation fails (the
 * template rejects the shape: TVM's InvalidShapeError) is dropped with a warning log. */
#ifndef AT_NETWORKS_EXTRACT_H
#define AT_NETWORKS_EXTRACT_H

#include <stddef.h>

#include "core/status.h"
#include "networks/net.h"
#include "templates/template.h"

/* Strategy tables: which templates implement an anchor, with TVM's plevels. */
typedef enum at_net_target {
    AT_NET_TARGET_MALI = 0,
    AT_NET_TARGET_ARM_CPU, /* "llvm -device=arm_cpu": the arm_cpu strategy's templates we have */
    AT_NET_TARGET_GPU,     /* "opencl" (keys opencl, gpu; also cuda's): TVM's cuda strategy */
    AT_NET_TARGET_X86,     /* "llvm" (key cpu): TVM's x86 strategy, the network run in NCHW[x]c */
    AT_NET_TARGET_COUNT
} at_net_target;

/* "mali", "arm_cpu"; AT_ASSERT a valid target. */
const char *at_net_target_name(at_net_target t);

/* The TVM target string of the target as the tutorials write it ("opencl -device=mali",
 * "llvm -device=arm_cpu"). */
const char *at_net_target_string(at_net_target t);

/* The template family the target's templates are registered under (AT_TARGET_OPENCL for mali,
 * AT_TARGET_LLVM for arm_cpu). */
at_target_family at_net_target_family(at_net_target t);

/* Reads "mali", "arm_cpu" or a TVM target string whose keys include mali or arm_cpu ("opencl
 * -device=mali -model=rk3399", "llvm -device=arm_cpu -mtriple=aarch64-linux-gnu"; plain "llvm",
 * keys cpu, is TVM's x86 strategy, which has none of our templates). AT_EPARSE (an unreadable target string), AT_EUNSUPPORTED (no strategy for it:
 * the detail names the supported ones), AT_ENOMEM. */
at_status at_net_target_parse(const char *text, at_net_target *out);

/* Selected ops: relay's nn.conv2d (depthwise included) and nn.dense. */
enum { AT_NET_OPS_CONV2D = 1u << 0, AT_NET_OPS_DENSE = 1u << 1, AT_NET_OPS_ALL = (1u << 2) - 1 };

/* Reads a comma list of "conv2d" / "nn.conv2d", "dense" / "nn.dense", or "all". AT_EPARSE naming
 * the unknown item (or an empty list). */
at_status at_net_ops_parse(const char *text, unsigned *out);

/* One implementation of an anchor. */
typedef struct at_net_impl {
    const at_template *tmpl;
    int                plevel; /* TVM's strategy plevel: the untuned choice is the highest */
    size_t             task;   /* index in the task list; SIZE_MAX when the task was dropped */
} at_net_impl;

typedef struct at_net_tasks at_net_tasks;

/* Extracts the tasks of the fused network net (at_net_fuse) for target, anchors of the ops in
 * the ops mask only. *out owned by the caller (at_net_tasks_free); it refers to net's node
 * indices but does not borrow net. AT_EINVAL (net not fused, ops selects nothing), AT_ENOTFOUND
 * (a strategy template is not registered), AT_ENOMEM. */
at_status at_net_extract(const at_net *net, at_net_target target, unsigned ops, at_net_tasks **out);

void at_net_tasks_free(at_net_tasks *ts);

size_t at_net_tasks_count(const at_net_tasks *ts);

/* Task i in extraction order (AT_ASSERT i < count), borrowed until at_net_tasks_free. */
const at_task *at_net_tasks_at(const at_net_tasks *ts, size_t i);

/* Task i's args as a log's "input"[2] holds them: `[["TENSOR", [1, 3, 224, 224], "float32"], ...]`
 * (json.dumps text, equal to at_rec.args_json of a matching record). Borrowed. */
const char *at_net_tasks_args_json(const at_net_tasks *ts, size_t i);

/* The node whose anchor first produced task i. */
size_t at_net_tasks_first_node(const at_net_tasks *ts, size_t i);

/* The implementations of node `node` in strategy order (*impls borrowed), or 0 when the node is
 * not an anchor of a selected op. AT_ASSERT node < the network's node count at extraction. */
size_t at_net_tasks_node_impls(const at_net_tasks *ts, size_t node, const at_net_impl **impls);

/* The target the tasks were extracted for. */
at_net_target at_net_tasks_target(const at_net_tasks *ts);

#endif
