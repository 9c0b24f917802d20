/* Helpers shared by the files of ir/ (not for other modules). */
#ifndef AT_IR_INTERNAL_H
#define AT_IR_INTERNAL_H

#include <stdint.h>

#include "ir/ir.h"

/* v wrapped to the width and signedness of integer type t (bool: 0 or 1). */
int64_t at_ir_wrap_int(at_ir_type t, int64_t v);

/* The binding kind's dimension: 0 for .x, 1 for .y, 2 for .z (AT_ASSERT a binding kind). */
int at_ir_binding_dim(at_ir_for_kind k);

/* Marks the builder out of memory (its sticky status), for passes of ir/ that allocate in its arena
 * themselves; returns NULL. */
void *at_ir_sched_oom(at_ir_sched *s);

#endif
