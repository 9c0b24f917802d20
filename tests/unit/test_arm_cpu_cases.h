/* Small workloads of the CPU templates (padding, strides, dilation, batch, channel multipliers,
 * vector lanes longer than 16, prime extents) and a checker that runs one config of one task on
 * a caller-given executor and compares it with the op's reference. Shared by the IR-interpreter
 * and LLVM-JIT conformance tests. */
#ifndef AT_TESTS_UNIT_TEST_ARM_CPU_CASES_H
#define AT_TESTS_UNIT_TEST_ARM_CPU_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "templates/template.h"

/* The CPU templates under test. */
enum { ARM_CPU_N_TEMPLATES = 6 };
extern const char *const arm_cpu_templates[ARM_CPU_N_TEMPLATES];

/* Workload args (JSON) of the template's op for tiny shapes; returns how many. */
size_t arm_cpu_cases(const char *tmpl_name, const char *const **out);

/* Runs a program on buffers bufs[0..n_params) laid out as the op's signature; AT_OK or a status. */
typedef at_status (*arm_cpu_exec_fn)(const at_ir_program *p, void *const *bufs, size_t n_params, void *ctx);

/* Instantiates config c of t, runs it through exec on seeded random inputs and compares every
 * output with the reference (float32: |out - ref| <= 1e-4 + 1e-4 |ref|). Returns false when the config does
 * not instantiate (AT_EINVAL); a mismatch or another failure fails the test. int32 outputs (int8
 * convolutions) must equal the reference exactly. */
bool arm_cpu_check_config(const at_task *t, const at_config *c, uint64_t seed, arm_cpu_exec_fn exec, void *ctx);

/* Checks n seeded random configs of every case of every template (plus each task's fallback
 * config); returns how many configs ran (instantiation errors skipped). */
size_t arm_cpu_check_all(size_t n, uint64_t seed, arm_cpu_exec_fn exec, void *ctx);

#endif
