/* OpenCL backend: IR program -> OpenCL C 1.2 source (one cl_program holding every kernel) plus,
 * per kernel, its launch sizes and which program buffers it takes as arguments. The text is a
 * pure function of the IR (golden-file tests pin it). The device side (platforms, contexts,
 * builds, launches) is in backends/opencl/runtime.h. */
#ifndef AT_BACKENDS_OPENCL_OPENCL_H
#define AT_BACKENDS_OPENCL_OPENCL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "ir/ir.h"

/* One kernel of the emitted program. */
typedef struct at_ocl_kernel_info {
    char    *name;       /* the C identifier in the source; owned */
    unsigned work_dim;   /* 1..3 */
    size_t   gws[3];     /* global work size: groups * local, a multiple of lws in every dimension */
    size_t   lws[3];     /* local work size (reqd_work_group_size in the source) */
    size_t   local_bytes; /* __local memory the kernel declares */
    size_t   n_args;
    size_t  *args;       /* owned: indices into the program's buffers, in argument order */
    bool     prepare;    /* weight packing (at_ir_kernel.prepare): TVM feeds its output as an
                            input while tuning, so timed runs skip it */
    bool     finish;     /* at_ir_kernel.finish: after what TVM times, so timed runs skip it */
} at_ocl_kernel_info;

typedef struct at_ocl_code {
    char               *source; /* owned, NUL-terminated */
    size_t              n_kernels;
    at_ocl_kernel_info *kernels; /* owned, in launch order */
} at_ocl_code;

/* Emits a verified program (at_ir_verify) as OpenCL C 1.2: vector types and vloadN/vstoreN for
 * vectorized loops (lane-by-lane code where an expression does not vectorize; the whole loop
 * unrolled where a statement does not), explicit unrolling of unrolled and vthread loops
 * (#pragma unroll when the loop asks for it), private and __local arrays, bindings through
 * get_group_id / get_local_id. On success *out is filled (release with at_ocl_code_fini);
 * on failure it is zeroed. AT_EUNSUPPORTED (a vector width OpenCL lacks, a vector of bools, an
 * fp16 program on a build without it...: the detail names it), AT_EINVAL (two kernels with one
 * name), AT_ENOMEM. */
at_status at_ocl_emit(const at_ir_program *p, at_ocl_code *out);

/* Frees what the code owns and zeroes it; a zeroed code is fine. */
void at_ocl_code_fini(at_ocl_code *c);

/* OpenCL C name of a scalar or vector type ("float", "int4", "uchar16"). AT_EUNSUPPORTED for
 * vector bools and lane counts other than 1, 2, 3, 4, 8, 16. buf holds 16 bytes. */
at_status at_ocl_type_name(at_ir_type t, char buf[16]);

#endif
