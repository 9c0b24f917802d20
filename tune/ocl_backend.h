/* The network executor's OpenCL backend (networks/exec.h at_net_backend_i over backends/opencl):
 * IR programs are emitted as OpenCL C and built on an at_ocl_ctx; buffers are device buffers.
 * It lives in tune/ because networks/ may not include backends/. */
#ifndef AT_TUNE_OCL_BACKEND_H
#define AT_TUNE_OCL_BACKEND_H

#include "backends/opencl/runtime.h"
#include "networks/exec.h"

/* The backend (static). Its ctx is an at_ocl_ctx * (borrowed: it must outlive every executor
 * using it). prog_new fails with AT_EDEVICE carrying the compiler log's first lines in the
 * detail; prog_run times the device work (profiling events) when device_ms is asked for. */
const at_net_backend_i *at_tune_ocl_backend(void);

#endif
