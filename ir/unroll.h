/* TVM's tir UnrollLoop pass, which the `auto_unroll_max_step` and `unroll_explicit` pragmas of
 * TVM's GPU schedules drive: which serial loops of a kernel scope become unrolled, explicitly (the
 * backend copies the body) or as `#pragma unroll` left to the device compiler. */
#ifndef AT_IR_UNROLL_H
#define AT_IR_UNROLL_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

/* body rewritten as UnrollLoop rewrites a scope under pragma_auto_unroll_max_step = max_step and
 * pragma_unroll_explicit = explicit_unroll (auto_max_depth 8, auto_max_extent 0, no local-access
 * unrolling: TVM's defaults). Walking post-order, a serial loop is unrolled when no kept loop is
 * inside it, at most 8 unrolled loops are, and extent x (stores and barriers its body executes once
 * unrolled) <= max_step; a loop the schedule already unrolls counts as unrolled. Unrolled loops
 * become AT_IR_UNROLLED, with AT_IR_LOOP_PRAGMA_UNROLL unless explicit_unroll. As TVM runs the pass
 * after vectorizing and injecting virtual threads, a vectorized loop counts as its one vector store,
 * a virtual-thread loop multiplies its body's stores, and thread bindings are transparent. Nodes
 * are allocated in s; failure shows in its sticky status (NULL returned). */
const at_ir_stmt *at_ir_auto_unroll(at_ir_sched *s, const at_ir_stmt *body, int64_t max_step, bool explicit_unroll);

#endif
