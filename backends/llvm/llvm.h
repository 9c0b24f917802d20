/* LLVM backend: IR programs -> LLVM IR (LLVM 15 C API) -> optimized at O3 with the new pass
 * manager -> run in-process through ORC LLJIT, or emitted as an object file for another target
 * triple (aarch64-linux-gnu boards). LLVM 15 is the LLVM Debian 12's PoCL is built on, so the
 * JIT and PoCL share one process (spec toolchain.md).
 *
 * Execution model on a CPU: each IR kernel becomes one function over every program buffer
 * (signature parameters, then temporaries). Loops bound to blockIdx.* / threadIdx.* run as plain
 * loops (block loops outermost, the outermost one shared out over the thread pool like a parallel
 * loop); AT_IR_PARALLEL loops are outlined and shared out over an at_llvm_pool; vectorized loops
 * become LLVM vector operations; unrolled and vthread loops are unrolled. A kernel with a barrier
 * cannot run on a CPU here (AT_EUNSUPPORTED at compile time). Local and private buffers become
 * stack arrays of the work-item / iteration that owns them. */
#ifndef AT_BACKENDS_LLVM_LLVM_H
#define AT_BACKENDS_LLVM_LLVM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "core/strbuf.h"
#include "ir/ir.h"

/* Code generation target; zero / NULL fields mean the host (STYLE 2.6). */
typedef struct at_llvm_target {
    const char *triple;   /* "aarch64-linux-gnu"; NULL: the host's triple */
    const char *cpu;      /* -mcpu ("cortex-a53", "generic"); NULL: the host CPU (or "generic" off-host) */
    const char *features; /* -mattr ("+neon"); NULL: the host's features (none off-host) */
    int         opt_level;/* 0..3; 0 here means the default, 3 (use -1 for no optimization) */
} at_llvm_target;

/* Initializes LLVM's native target and every target the object emitter needs, once per process
 * (thread-safe). AT_EUNSUPPORTED when LLVM lacks the host target. Other calls call it. */
at_status at_llvm_init(void);

/* The LLVM IR of p for t as text (verified; optimized unless t->opt_level < 0), appended to out:
 * deterministic for a given program and target (golden files). AT_EUNSUPPORTED (barrier, an
 * intrinsic LLVM has no mapping for: the detail names it), AT_EINVAL (the module fails LLVM's
 * verifier: a backend bug, the verifier's message in the detail), AT_ENOMEM. */
at_status at_llvm_program_ir(const at_ir_program *p, const at_llvm_target *t, at_strbuf *out);

/* Writes an ELF object file of p for t to path (functions named "<program>_<kernel>"; the pool
 * entry the parallel loops call is an external symbol, at_llvm_parallel_for). Statuses as
 * at_llvm_program_ir, plus AT_ENOTFOUND (unknown triple / CPU) and AT_EIO. */
at_status at_llvm_program_object(const at_ir_program *p, const at_llvm_target *t, const char *path);

/* ---- thread pool the generated code shares parallel loops over ------------------------------ */

typedef struct at_llvm_pool at_llvm_pool;

/* A pool of n_threads workers (0: online cores; 1: everything runs on the caller). *out owned by
 * the caller. AT_ENOMEM, AT_EIO (thread creation failed). */
at_status at_llvm_pool_new(int n_threads, at_llvm_pool **out);
void      at_llvm_pool_free(at_llvm_pool *p);
int       at_llvm_pool_threads(const at_llvm_pool *p);

/* ---- JIT --------------------------------------------------------------------------------------- */

typedef struct at_llvm_jit at_llvm_jit;

/* Compiles p for the host (t NULL or a host target) into a JIT dylib of its own. p is borrowed
 * only for the call. *out owned by the caller (at_llvm_jit_free). Statuses as at_llvm_program_ir,
 * plus AT_EDEVICE (LLJIT failed to materialize; its message in the detail). */
at_status at_llvm_jit_new(const at_ir_program *p, const at_llvm_target *t, at_llvm_jit **out);
void      at_llvm_jit_free(at_llvm_jit *j);

/* Number of kernels, and whether kernel k is a preparation kernel (at_ir_kernel.prepare). */
size_t at_llvm_jit_n_kernels(const at_llvm_jit *j);
bool   at_llvm_jit_kernel_is_prepare(const at_llvm_jit *j, size_t k);

/* Runs kernel k with bufs[0..n): every global buffer of the program in its order (signature
 * parameters, then temporaries: the caller allocates those), parallel loops shared over pool
 * (NULL: serial on the caller). AT_EINVAL when n differs from the program's buffer count or
 * k is out of range. */
at_status at_llvm_jit_run_kernel(const at_llvm_jit *j, size_t k, void *const *bufs, size_t n, at_llvm_pool *pool);

/* Runs every kernel in order, preparation kernels left out when skip_prepare. */
at_status at_llvm_jit_run(const at_llvm_jit *j, void *const *bufs, size_t n, bool skip_prepare, at_llvm_pool *pool);

#endif
