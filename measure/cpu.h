/* The local CPU measurer: the worker-process pool of measure/ocl.h with workers that compile
 * LLVM-family templates through backends/llvm (IR -> LLVM IR -> O3 -> ORC LLJIT for the host, or
 * -mcpu) instead of OpenCL. Builds run in parallel, one per worker; runs are serial, one config
 * at a time, so the run in progress has the machine to itself.
 *
 * One trial: the worker prepares the task's data (random inputs, the reference output when
 * checking), instantiates and verifies the IR (INSTANTIATION_ERROR), JIT-compiles it
 * (COMPILE_HOST when LLVM code generation fails, the backend's message kept), then runs TVM's
 * time evaluator (measure.h) on wall-clock time: one untimed warm-up that also runs the
 * preparation kernels (weight packing), then `repeat` rounds of `number` runs without them,
 * number grown to min_repeat_ms; with enable_cpu_cache_flush every argument but the first is
 * flushed from the caches before each round (TVM's cache_flush_cpu_non_first_arg). Parallel
 * loops share a pool of n_threads threads (0: online cores, as TVM's runtime threads). A worker
 * that crashes gives RUNTIME_DEVICE, one the run timeout kills RUN_TIMEOUT; either costs only
 * its own trial and the worker is restarted. Built without LLVM, the workers fail to start with
 * AT_EUNSUPPORTED. The pool accessors of measure/ocl.h apply to this pool too: the device info
 * describes the CPU (name "<model> (N threads)", is_cpu, compute_units = threads); in
 * at_meas_times, compile_s is the whole LLVM build (IR, O3, JIT), codegen_s 0 and
 * first_launch_s the allocation of the program's temporaries (nothing is launched before the
 * timed run: LLJIT has compiled everything by then). */
#ifndef AT_MEASURE_CPU_H
#define AT_MEASURE_CPU_H

#include "ir/ir.h"
#include "measure/measure.h"
#include "measure/ocl.h"

/* Starts opts->n_parallel CPU workers (copying the options) and waits until each has
 * initialized LLVM and its thread pool. *out owned by the caller (at_meas_ocl_free).
 * AT_EUNSUPPORTED (built without LLVM, or LLVM lacks the host target), AT_EINVAL (bad options),
 * AT_EIO (fork/socket/thread failure), AT_ENOMEM. */
at_status at_meas_cpu_new(const at_measure_opts *opts, at_meas_ocl **out);

/* A runner (named "llvm") over a new CPU pool; the runner owns the pool. Statuses as
 * at_meas_cpu_new. Inputs of other template families are answered COMPILE_HOST. */
at_status at_meas_cpu_runner_new(const at_measure_opts *opts, at_meas_runner **out);

/* The pool behind a runner made by at_meas_cpu_runner_new, NULL for other runners. */
at_meas_ocl *at_meas_cpu_of(const at_meas_runner *r);

/* The local runner for a template family: the OpenCL pool for AT_TARGET_OPENCL, the CPU pool
 * for AT_TARGET_LLVM (TVM's "llvm" and "llvm -device=arm_cpu" targets). Statuses as those, or
 * AT_EUNSUPPORTED for another family (VTA has measure/vta_runner.h). */
at_status at_meas_local_runner_new(at_target_family family, const at_measure_opts *opts, at_meas_runner **out);

/* Removes the n buffers from the CPU's data caches (clflush per line on x86-64, dc civac on
 * AArch64; nothing elsewhere). bufs[i] holds bytes[i] bytes. */
void at_meas_cpu_cache_flush(void *const *bufs, const size_t *bytes, size_t n);

/* The buffers of p that TVM's cache_flush_cpu_non_first_arg flushes, as indexes into p->bufs
 * written to idx (room for p->n_bufs); returns their count. TVM's first argument is the output,
 * so every input of the timed kernels: the parameters they read and the temporaries preparation
 * kernels fill (TVM's placeholders for packed data and weights: a network reads the weights cold,
 * and a flush that kept them cached would time them hot). */
size_t at_meas_cpu_flush_set(const at_ir_program *p, size_t *idx);

#endif
