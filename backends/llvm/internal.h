/* Helpers shared by the files of backends/llvm (not for other modules). */
#ifndef AT_BACKENDS_LLVM_INTERNAL_H
#define AT_BACKENDS_LLVM_INTERNAL_H

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>

#include "backends/llvm/llvm.h"

/* The symbol generated code calls to share a parallel loop out (at_llvm_parallel_for). */
#define AT_LLVM_PARALLEL_FOR "at_llvm_parallel_for"

/* The function the JIT binds AT_LLVM_PARALLEL_FOR to: pool.c's at_llvm_parallel_for in the
 * direct build, the host's (passed at load time) in the plugin (plugin.c). */
typedef void (*at_llvm_parallel_for_fn)(at_llvm_pool *pool, void (*fn)(void *closure, int64_t begin, int64_t end),
                                        void *closure, int64_t n, int64_t band);
at_llvm_parallel_for_fn at_llvm_runtime_parallel_for(void);

/* Builds the (unverified, unoptimized) LLVM module of p in ctx: one function per kernel named
 * at_llvm_kernel_symbol(p, k), `void f(void *const *bufs, at_llvm_pool *pool)`. *out owned by
 * the caller (LLVMDisposeModule). AT_EUNSUPPORTED (barrier, unknown intrinsic), AT_ENOMEM. */
at_status at_llvm_codegen(const at_ir_program *p, LLVMContextRef ctx, LLVMModuleRef *out);

/* The symbol of kernel k: "<program>_<kernel>" with every character outside [A-Za-z0-9_] as '_'. */
void at_llvm_kernel_symbol(const at_ir_program *p, size_t k, char *buf, size_t size);

/* The target machine for t (NULL: the host) with its normalized triple. *out owned by the caller
 * (LLVMDisposeTargetMachine). AT_ENOTFOUND (no such target), AT_ENOMEM. */
at_status at_llvm_target_machine(const at_llvm_target *t, LLVMTargetMachineRef *out);

/* Sets m's triple and data layout from tm, verifies it and runs the O-level pipeline of t
 * (none when t->opt_level < 0). AT_EINVAL (the verifier's message), AT_EDEVICE (pass failure). */
at_status at_llvm_prepare_module(LLVMModuleRef m, LLVMTargetMachineRef tm, const at_llvm_target *t);

/* Turns an LLVMErrorRef into code with "what: message" in the detail (consumes err). */
at_status at_llvm_error(LLVMErrorRef err, at_status code, const char *what);

#endif
