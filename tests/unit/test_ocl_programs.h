/* Fixture programs shared by test_ocl_codegen (golden OpenCL text) and test_ocl_device (the same
 * programs run on a real device against the IR interpreter): together they reach every code
 * path of the OpenCL backend. */
#ifndef AT_TESTS_OCL_PROGRAMS_H
#define AT_TESTS_OCL_PROGRAMS_H

#include <stddef.h>

#include "ir/ir.h"

typedef struct ocl_fixture {
    const char *name;
    void (*build)(at_ir_sched *s);
} ocl_fixture;

extern const ocl_fixture ocl_fixtures[];
extern const size_t      n_ocl_fixtures;

/* Three kernels over buffers in[4], out[4], packed[4], mid[4] (in that order), one work item per
 * element: a preparation kernel packed = in * 2, a timed one mid = packed + 1, a finishing one
 * out = mid * 3. For the backends' tests that a timed run leaves out the untimed kernels. Returns
 * the finished and verified program (owned by ar), NULL on failure. */
const at_ir_program *staged_program(at_arena *ar);

#endif
