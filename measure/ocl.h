/* The local OpenCL measurer: a pool of worker processes that build (schedule -> IR -> OpenCL C
 * -> clBuildProgram -> first launch) in parallel, then run serially, one config at a time, with
 * TVM's time-evaluator semantics on profiling events. A worker that crashes, or that a timeout
 * kills, costs only its own trial and is restarted.
 *
 * One trial: the parent sends (template, args, config) to a worker. The worker prepares the
 * task's data (random inputs, the reference output when checking), instantiates and verifies
 * the IR, emits OpenCL C, checks the launch against the device's limits (a violation is
 * INSTANTIATION_ERROR before anything is compiled), compiles (COMPILE_DEVICE with the compiler
 * log on failure) and launches every kernel once on a single work-group (PoCL generates machine
 * code at the first launch per local size; that launch is never timed). Deadlines: build_timeout_ms from the
 * start of instantiation to the end of the compile (BUILD_TIMEOUT), timeout_ms for the first
 * launch and again for the timed run (RUN_TIMEOUT); the worker is killed when one passes and
 * all_cost is the timeout. A worker dying otherwise gives RUNTIME_DEVICE.
 *
 * The parent process must not have used OpenCL itself (at_ocl_touched) when it creates the
 * pool or when a worker is restarted: PoCL does not survive fork. */
#ifndef AT_MEASURE_OCL_H
#define AT_MEASURE_OCL_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/opencl/runtime.h"
#include "measure/measure.h"

typedef struct at_meas_ocl at_meas_ocl;

/* Starts opts->n_parallel workers (copying the options) and waits until each has opened the
 * device. *out owned by the caller (at_meas_ocl_free). AT_ENOTFOUND (no device matches),
 * AT_EDEVICE (OpenCL failed in a worker: its message), AT_EINVAL (bad options, or this process
 * already used OpenCL), AT_EIO (fork/socket failure), AT_ENOMEM. */
at_status at_meas_ocl_new(const at_measure_opts *opts, at_meas_ocl **out);

/* Stops the workers and frees the pool; NULL does nothing. */
void at_meas_ocl_free(at_meas_ocl *m);

/* Measures inputs in chunks of as many inputs as there are workers: a chunk builds in parallel,
 * then its built configs run one after the other in input order, each followed by the
 * cooldown. The cooldown is a quiet time before the next run: the last run's carries over into
 * the next call, whose builds go on while it lasts (the device is idle; no build ever overlaps
 * a run). results[i] is input i's result (timestamp: when its measurement ended). Workers
 * lost on the way are restarted when the call returns. AT_OK unless no worker can be started
 * (AT_EIO / AT_EDEVICE; the remaining results then hold UNKNOWN_ERROR) or memory runs out. */
at_status at_meas_ocl_measure(at_meas_ocl *m, const at_meas_input *inputs, size_t n, at_result *results);

/* The device the workers opened (borrowed until at_meas_ocl_free). */
const at_ocl_device_info *at_meas_ocl_device(const at_meas_ocl *m);

size_t at_meas_ocl_n_workers(const at_meas_ocl *m);

/* The build timeout the pool applies (ms): as asked, or by default 10 s for each builder process
 * a core has to serve (ceil(workers / cores) x 10 s: builders sharing a core each build slower). */
int at_meas_ocl_build_timeout_ms(const at_meas_ocl *m);
/* Process id of worker i, or -1 while it is not running (tests kill workers with it). */
long at_meas_ocl_worker_pid(const at_meas_ocl *m, size_t i);

/* Where one trial's wall time went (seconds). */
typedef struct at_meas_times {
    double total_s;        /* dispatch of the build to the end of the run (cooldown excluded) */
    double prepare_s;      /* task data: inputs, uploads, reference (first trial per worker) */
    double instantiate_s;  /* schedule + verify */
    double codegen_s;      /* OpenCL C emission + limit checks */
    double compile_s;      /* clBuildProgram + kernel creation */
    double first_launch_s; /* the untimed first launch (PoCL's code generation + one run) */
    double run_s;          /* warm-up + timed rounds, wall time around the device work */
    double check_s;        /* output read-back and comparison */
    bool   compiled;       /* clBuildProgram was called for this trial */
    unsigned kernels_built; /* kernels in the program built (preparation kernels are left out
                               while tuning: TVM feeds their outputs as inputs) */
} at_meas_times;

/* Timings of the previous at_meas_ocl_measure call, one per input (borrowed until the next call). */
const at_meas_times *at_meas_ocl_last_times(const at_meas_ocl *m, size_t *n);

/* Counters since the pool started; the times are wall seconds summed over measure calls. */
typedef struct at_meas_ocl_stats {
    size_t n_trials;        /* results produced */
    size_t n_compiles;      /* programs handed to clBuildProgram */
    size_t n_worker_starts; /* forks, the initial ones included */
    size_t n_worker_losses; /* workers killed by a timeout or found dead */
    double measure_s;       /* inside at_meas_ocl_measure */
    double build_phase_s;   /* waiting on builds (or on a cooldown while builds go on), no run going */
    double barrier_s;       /* summed per built trial: its finished build waiting for its run
                               (worker time, not wall time) */
    size_t n_pauses;        /* builds paused (SIGSTOP) while another input's program ran */
    double run_phase_s;     /* runs: RUN sent until RAN received */
    double cooldown_s;      /* sleeping out the cooldown before a run */
} at_meas_ocl_stats;
void at_meas_ocl_stats_get(const at_meas_ocl *m, at_meas_ocl_stats *out);

/* Checks an emitted program against a device's limits before anything is compiled: work
 * dimensions, work-group size and per-dimension sizes, __local memory, buffer sizes against
 * the largest allocation, fp64/fp16 support. AT_EINVAL naming the kernel and the limit. */
at_status at_meas_ocl_check_limits(const at_ir_program *p, const at_ocl_code *code, const at_ocl_device_info *dev);

/* A runner (measure/measure.h) over a new pool; the runner owns the pool. Statuses as
 * at_meas_ocl_new. */
at_status at_meas_ocl_runner_new(const at_measure_opts *opts, at_meas_runner **out);

/* The pool behind a runner made by at_meas_ocl_runner_new, NULL for other runners. */
at_meas_ocl *at_meas_ocl_of(const at_meas_runner *r);

#endif
