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
 * stack arrays of the function that uses them: the kernel, or the outlined body of its parallel
 * loop (one copy per chunk, reused by its iterations, as a work-group reuses its local memory).
 *
 * The entry of kernel k is `void <program>_<kernel>(void *const *bufs, at_llvm_pool *pool)`
 * ("<program>_<kernel>" with every character outside [A-Za-z0-9_] as '_'; testing/matmul's kernel
 * is testing_matmul_default_function_kernel): bufs[i] is program buffer i. Buffers never alias
 * (the body's parameters are noalias). Values follow ir/interp.c: integer division truncates,
 * INT_MIN / -1 wraps, a zero divisor gives 0 (the interpreter rejects it), shift counts are masked
 * to the width, float -> int truncates and saturates (NaN -> 0) through int64; float a*b+c may
 * contract to an FMA as OpenCL C's default FP_CONTRACT allows; f32 builtins call f32 libm. */
#ifndef AT_BACKENDS_LLVM_LLVM_H
#define AT_BACKENDS_LLVM_LLVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/strbuf.h"
#include "ir/ir.h"

/* Code generation target; zero / NULL fields mean the host (STYLE 2.6). */
typedef struct at_llvm_target {
    const char *triple;   /* "aarch64-linux-gnu"; NULL: the host's triple */
    const char *cpu;      /* -mcpu ("cortex-a53", "generic"); NULL: the host CPU (or "generic" off-host) */
    const char *features; /* -mattr ("+neon"); NULL: the host's features (none off-host) */
    int         opt_level;/* 1..3: LLVM's O1..O3 pipeline and codegen level; 0: the default, 3; -1: no
                             optimization (what the IR builder made, codegen level None) */
} at_llvm_target;

/* Initializes LLVM's native target and every target the object emitter needs, once per process
 * (thread-safe). AT_EUNSUPPORTED when LLVM lacks the host target. Other calls call it. */
at_status at_llvm_init(void);

/* The LLVM IR of p for t as text (verified; optimized unless t->opt_level < 0), appended to out:
 * deterministic for a given program and target (golden files). AT_EUNSUPPORTED (barrier, an
 * intrinsic LLVM has no mapping for: the detail names it), AT_EINVAL (the module fails LLVM's
 * verifier: a backend bug, the verifier's message in the detail), AT_ENOMEM. */
at_status at_llvm_program_ir(const at_ir_program *p, const at_llvm_target *t, at_strbuf *out);

/* Writes an ELF object file (position-independent) of p for t to path: the kernel entries above
 * as global functions, at_llvm_parallel_for as an undefined symbol the loader must provide (link
 * backends/llvm/pool.c's implementation into the program that loads it). Statuses as
 * at_llvm_program_ir, plus AT_ENOTFOUND (a triple LLVM 15 has no target for) and AT_EIO (path
 * not writable). An unknown cpu is not detected: LLVM warns on stderr and uses its generic model.
 * Cost: about as at_llvm_jit_new; cross-compiling at O3 can take longer (matmul 64^3 for
 * cortex-a53: ~2 s at O3, 0.4 s at O1). */
at_status at_llvm_program_object(const at_ir_program *p, const at_llvm_target *t, const char *path);

/* ---- thread pool the generated code shares parallel loops over ------------------------------ */

typedef struct at_llvm_pool at_llvm_pool;

/* A pool of n_threads threads, the caller counting as one (0: online cores; 1: everything runs on
 * the caller; workers have 16 MiB stacks for the kernels' stack arrays). *out owned by the caller
 * (at_llvm_pool_free joins the workers; NULL is fine). A pool runs one parallel loop at a time:
 * give each thread that runs kernels concurrently a pool of its own. A child forked after the
 * pool was made has no workers: there the pool runs everything on the caller (make pools after
 * fork). AT_ENOMEM, AT_EIO (thread creation failed). */
at_status at_llvm_pool_new(int n_threads, at_llvm_pool **out);
void      at_llvm_pool_free(at_llvm_pool *p);
/* Threads of p (1 for NULL). */
int       at_llvm_pool_threads(const at_llvm_pool *p);

/* What generated code calls for a parallel loop of n iterations: fn(closure, begin, end) over
 * disjoint ranges covering [0, n) once: each pool thread's contiguous chunk (the caller's is the
 * first) in pieces, a thread done with its own chunk running the pieces left of the others'
 * (pool.c), and returns when all are done. band > 0 says the loop's iterations come in bands of
 * that many (the innermost of its fused axes: a block's rows); when band divides n and is a
 * multiple of the threads, 4 rows or more each, a thread's share is instead the same rows of
 * every band, so a layer reads what the same thread wrote in the last one whatever the channel
 * blocks (0: no bands). Runs fn(closure, 0, n) on the caller when pool is NULL, has one thread, or is already
 * running a loop for another caller (a pool is never shared by two loops at once; such a caller
 * is not blocked, only serial). An object file from at_llvm_program_object references this
 * symbol; the JIT resolves it to this function. */
void at_llvm_parallel_for(at_llvm_pool *pool, void (*fn)(void *closure, int64_t begin, int64_t end), void *closure,
                          int64_t n, int64_t band);

/* ---- JIT --------------------------------------------------------------------------------------- */

typedef struct at_llvm_jit at_llvm_jit;

/* Compiles p for the host into an LLJIT instance of its own (t NULL: host CPU and features at O3;
 * t's cpu, features and opt_level apply, its triple is ignored: a JIT runs on the host) and looks
 * up every kernel's address, which is when LLJIT generates machine code: running is then a plain
 * call. p is borrowed only for the call. *out owned by the caller (at_llvm_jit_free releases the
 * code and all LLVM state). Thread-safe: calls on several threads compile in parallel (each in
 * its own LLVMContext). Cost on this 2-core VM at O3: 20-150 ms for testing/matmul and the
 * OpenCL fixtures, 0.2-1.5 s for conv2d_nchw_spatial_pack.mali configs of a resnet-18 layer
 * (their unrolled bodies); about 10 ms without optimization. Statuses as at_llvm_program_ir, plus
 * AT_EDEVICE (LLJIT failed: its message in the detail). */
at_status at_llvm_jit_new(const at_ir_program *p, const at_llvm_target *t, at_llvm_jit **out);
void      at_llvm_jit_free(at_llvm_jit *j);

/* Number of kernels, and whether kernel k is a preparation kernel (at_ir_kernel.prepare;
 * AT_ASSERT k < n_kernels). */
size_t at_llvm_jit_n_kernels(const at_llvm_jit *j);
bool   at_llvm_jit_kernel_is_prepare(const at_llvm_jit *j, size_t k);

/* Runs kernel k with bufs[0..n): every global buffer of the program in its order (signature
 * parameters, then temporaries: the caller allocates those, any alignment of their element type),
 * parallel loops shared over pool (NULL: serial on the caller). The JIT is read-only: several
 * threads may run its kernels at once, each with its own pool (or NULL). AT_EINVAL when n differs
 * from the program's buffer count or k is out of range. */
at_status at_llvm_jit_run_kernel(const at_llvm_jit *j, size_t k, void *const *bufs, size_t n, at_llvm_pool *pool);

/* Runs every kernel in order, preparation and finishing kernels left out when skip_prepare (a
 * timed run after one full run: TVM feeds packed weights as inputs and times the tensor before
 * a finishing kernel's unpacking). AT_EINVAL as at_llvm_jit_run_kernel. */
at_status at_llvm_jit_run(const at_llvm_jit *j, void *const *bufs, size_t n, bool skip_prepare, at_llvm_pool *pool);

#endif
