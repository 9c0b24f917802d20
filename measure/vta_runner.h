/* The VTA runner: conv2d_packed.vta, add.vta and multiply.vta configs lowered by backends/vta and run on the VTA simulator;
 * cost = simulated cycles / the configuration's clock, so the same program always costs the same.
 * Error numbers as TVM's: a tiling that does not fit the hardware is INSTANTIATION_ERROR, a
 * program the device rejects RUNTIME_DEVICE, an output that differs from the int8 reference
 * (checked bit for bit) WRONG_ANSWER. Logs name the target
 * "ext_dev -device=vta -keys=cpu -model=sim_1x16_i8w8a32_15_15_18_17" (AT_MEAS_VTA_TARGET). */
#ifndef AT_MEASURE_VTA_RUNNER_H
#define AT_MEASURE_VTA_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/vta/vtagen.h"
#include "measure/measure.h"
#include "vta/hw.h"
#include "vta/sim.h"

#define AT_MEAS_VTA_TARGET "ext_dev -device=vta -keys=cpu -model=sim_1x16_i8w8a32_15_15_18_17"

/* The tiling a conv2d_packed.vta config gives (split entities applied as given: inner sizes).
 * AT_EINVAL when the task is not conv2d_packed or its BATCH / BLOCK differ from hw's. */
at_status at_meas_vta_conv2d_plan(const at_vta_hw *hw, const at_task *task, const at_config *c, at_vtagen_conv2d *out);

/* The tiling an add.vta / multiply.vta config gives (the tensor-tensor op, then the templates'
 * clip as MIN 127, MAX 0 immediate stages; a broadcast rhs's dimensions). AT_EINVAL when the task
 * is neither, TVM's schedule leaves it on the CPU (not 6-D, float32), its BATCH / BLOCK differ
 * from hw's, or rhs broadcasts within the lanes. */
at_status at_meas_vta_alu_plan(const at_vta_hw *hw, const at_task *task, const at_config *c, at_vtagen_alu *out);

/* Measures one config on a fresh simulator for hw (NULL: the default pynq 1x16): random int8
 * inputs from seed (0 -> 1), lowering, the run, and (when check) the output against the reference.
 * Writes *res (initialized by the caller) and, when stats is not NULL and the run happened, *stats.
 * A failing config is a result, not a status; returns AT_OK, or AT_ENOMEM. */
at_status at_meas_vta_measure_one(const at_vta_hw *hw, const at_task *task, const at_config *c, bool check,
                                  uint64_t seed, at_result *res, at_vta_stats *stats);

/* A runner over at_meas_vta_measure_one (hw NULL: the default; copied). opts: check_correctness
 * and seed are used. AT_ENOMEM. */
at_status at_meas_vta_runner_new(const at_vta_hw *hw, const at_measure_opts *opts, at_meas_runner **out);

#endif
