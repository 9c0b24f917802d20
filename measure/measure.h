/* Measuring configs: the options TVM's measure_option takes, the runner interface every
 * measurer implements (local OpenCL here; LLVM, VTA simulator, RPC and test fakes elsewhere),
 * TVM's time-evaluator algorithm as a pure function, and output verification.
 *
 * A config that fails to build or run is a measurement, not an error: it comes back as an
 * at_result with TVM's MeasureErrorNo and a message. A runner's measure call fails (at_status)
 * only when the runner itself cannot go on. */
#ifndef AT_MEASURE_MEASURE_H
#define AT_MEASURE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/result.h"
#include "core/rng.h"
#include "core/status.h"
#include "knobs/config.h"
#include "templates/ops.h"
#include "templates/template.h"

/* Options; zero means the default (STYLE 2.6). Defaults are TVM's LocalBuilder/LocalRunner. */
typedef struct at_measure_opts {
    int         number;           /* runs per timing round; 0 -> 4 */
    int         repeat;           /* timing rounds; 0 -> 3 */
    int         min_repeat_ms;    /* grow number until a round lasts this long; 0 -> 0 */
    int         timeout_ms;       /* one run (first launch, or warm-up + timed rounds); 0 -> 10000 */
    int         build_timeout_ms; /* instantiate + codegen + device compile; 0 -> 10000 per
                                     builder a core serves (ceil(n_parallel / cores) x 10 s) */
    int         cooldown_ms;      /* sleep after each run; 0 -> 100 (TVM's 0.1 s), < 0 -> none */
    int         n_parallel;       /* builder worker processes; 0 -> online CPU cores */
    bool        check_correctness;/* compare outputs with the op's reference (WRONG_ANSWER) */
    const char *device;           /* device spec (at_ocl_device_select); NULL -> PoCL */
    const char *cache_dir;        /* POCL_CACHE_DIR; NULL -> at_ocl_runtime_init's default */
    const char *build_options;    /* clBuildProgram options; NULL -> none */
    uint64_t    seed;             /* random inputs; 0 -> 1 */
    /* CPU runner (measure/cpu.h) only */
    int         n_threads;        /* threads a run's parallel loops share; 0 -> online cores */
    const char *cpu;              /* LLVM -mcpu to compile for; NULL -> the host CPU */
    bool        enable_cpu_cache_flush; /* TVM's option: flush every argument but the first
                                           from the CPU caches before each timing round */
    /* templates a worker may instantiate besides the registry's (tests' fault templates);
     * borrowed, must outlive the runner */
    const at_template *const *extra_templates;
    size_t                    n_extra_templates;
} at_measure_opts;

/* What to measure: a config of a task (both borrowed for the call). */
typedef struct at_meas_input {
    const at_task   *task;
    const at_config *config;
} at_meas_input;

/* ---- runner interface (STYLE 2.6: ggml's vtable + ctx) ------------------------------------- */

typedef struct at_meas_runner_i {
    const char *name;
    /* Measures inputs[0..n) and writes results[i] for input i (each initialized by the caller
     * with at_result_init; previous content is released). Returns AT_OK when every result was
     * written, or a status when the runner cannot go on (results then hold UNKNOWN_ERROR). */
    at_status (*measure)(void *ctx, const at_meas_input *inputs, size_t n, at_result *results);
    /* (optional) how many inputs one call measures best (defaults to 1); TVM's n_parallel. */
    size_t (*batch_size)(void *ctx);
    /* (optional) how many inputs one call measures best when they are known ahead (a tuner
     * whose proposals ignore the results): more than batch_size where builds go on while
     * programs run, so only the call's last build finishes alone (defaults to batch_size). */
    size_t (*batch_ahead)(void *ctx);
    /* (optional) releases ctx (defaults to nothing). */
    void (*free)(void *ctx);
    /* (optional) the builders' verdict on an instantiated program without building it: AT_EINVAL
     * when they would reject it as INSTANTIATION_ERROR (the detail is that result's message: a
     * work-group or local memory past the device's limits), else AT_OK (defaults to AT_OK). */
    at_status (*check)(void *ctx, const at_ir_program *p);
} at_meas_runner_i;

typedef struct at_meas_runner at_meas_runner;

/* Wraps an implementation; the runner takes ctx (i->free(ctx) at at_meas_runner_free). i is
 * borrowed (static). AT_ENOMEM (ctx is then freed too). */
at_status at_meas_runner_new(const at_meas_runner_i *i, void *ctx, at_meas_runner **out);
void      at_meas_runner_free(at_meas_runner *r);
at_status at_meas_runner_measure(at_meas_runner *r, const at_meas_input *inputs, size_t n, at_result *results);
size_t    at_meas_runner_batch_size(const at_meas_runner *r);
size_t    at_meas_runner_batch_ahead(const at_meas_runner *r);
/* The implementation's check of an instantiated program (at_meas_runner_i.check); AT_OK without one. */
at_status at_meas_runner_check(const at_meas_runner *r, const at_ir_program *p);
const char *at_meas_runner_name(const at_meas_runner *r);
/* The implementation's context (borrowed), for the implementation's own accessors. */
void *at_meas_runner_ctx(const at_meas_runner *r);
const at_meas_runner_i *at_meas_runner_iface(const at_meas_runner *r);

/* ---- time evaluator (TVM's profiling.cc WrapTimeEvaluator, spec 3.5) ------------------------ */

/* Runs the measured function `number` times back to back and reports the device time; with
 * duration_ms NULL (the warm-up) it runs untimed, preparation kernels included. */
typedef at_status (*at_meas_time_fn)(void *ctx, int64_t number, double *duration_ms);

/* One untimed warm-up call (number 1), then `repeat` rounds: before each timing after the
 * first of a round, number = max(min_repeat_ms / (duration_ms / number) + 1, number * 1.618)
 * (truncated); a round retimes until duration_ms >= min_repeat_ms or 100 timings were zero.
 * The grown number carries into later rounds. costs_s[r] = duration_ms / 1e3 / number of
 * round r. *final_number (may be NULL) = number after the last round. A failing fn stops
 * everything and its status is returned. */
at_status at_meas_time_evaluator(at_meas_time_fn fn, void *ctx, int64_t number, int repeat, double min_repeat_ms,
                                 double *costs_s, int64_t *final_number);

/* Called before each timing round (TVM's f_preproc, e.g. cache_flush_cpu_non_first_arg). */
typedef at_status (*at_meas_preproc_fn)(void *ctx);

/* at_meas_time_evaluator with preproc (may be NULL) called at the start of every round, before
 * its first timing, as TVM's WrapTimeEvaluator calls f_preproc. Statuses as that, plus
 * preproc's. */
at_status at_meas_time_evaluator_pre(at_meas_time_fn fn, at_meas_preproc_fn preproc, void *ctx, int64_t number,
                                     int repeat, double min_repeat_ms, double *costs_s, int64_t *final_number);

/* TVM's run_through_rpc post-processing: with more than 2 costs, sort and drop the smallest and
 * the largest. Returns the new count; costs are moved to the front. */
size_t at_meas_trim_costs(double *costs_s, size_t n);

/* ---- output verification -------------------------------------------------------------------- */

/* The worst element of a comparison. */
typedef struct at_meas_mismatch {
    int64_t index;   /* -1 when every element is within tolerance */
    double  got, want, abs_err;
    int64_t n_bad;   /* elements outside tolerance (NaN counts as outside) */
} at_meas_mismatch;

/* Compares n elements of dtype: |got - want| <= atol + rtol * |want| (integers: exact).
 * Returns true when all pass; *worst describes the largest violation (or the largest error). */
bool at_meas_compare(at_ir_type dtype, const void *got, const void *want, int64_t n, at_op_tolerance tol,
                     at_meas_mismatch *worst);

/* Fills n elements of dtype with the inputs measure/ uses: uniform [0, 1) for floats, integers
 * in -8..8, from rng. */
void at_meas_random_fill(at_ir_type dtype, void *data, int64_t n, at_rng *rng);

#endif
