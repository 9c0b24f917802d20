/* The network executor's CPU backend (networks/exec.h at_net_backend_i over backends/llvm): every
 * IR program -- the templates' programs for the anchors and networks/kernels.c's for pooling,
 * softmax, element-wise ops and the epilogues -- is compiled by LLVM and run through its JIT;
 * buffers are host memory. It lives in tune/ because networks/ may not include backends/. */
#ifndef AT_TUNE_LLVM_BACKEND_H
#define AT_TUNE_LLVM_BACKEND_H

#include "networks/exec.h"

/* The backend (static). Its ctx is an at_llvm_pool * (backends/llvm/llvm.h; borrowed: it must
 * outlive every executor using it; NULL runs every parallel loop on the caller). prog_new
 * compiles for the host CPU (AT_EUNSUPPORTED built without LLVM, or a program LLVM cannot take:
 * barrier; AT_EDEVICE: LLJIT failed); prog_run reports the wall time of the run as device_ms.
 * Built without backends/llvm every prog_new answers AT_EUNSUPPORTED. */
const at_net_backend_i *at_tune_llvm_backend(void);

/* backends/llvm/llvm.h's thread pool, declared here so users of this header need not include it */
typedef struct at_llvm_pool at_llvm_pool;

/* The backend's ctx: an LLVM thread pool of n_threads (0: online cores). *out owned by the caller
 * (at_tune_llvm_pool_free). AT_EUNSUPPORTED (built without LLVM), AT_ENOMEM, AT_EIO. */
at_status at_tune_llvm_pool_new(int n_threads, at_llvm_pool **out);
void      at_tune_llvm_pool_free(at_llvm_pool *p);

#endif
