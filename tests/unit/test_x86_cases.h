/* Small workloads of the x86 NCHWc templates (padding, strides, dilation, batch, 1x1 with row
 * and column tails, blocks longer than 16 lanes) and checkers of both their programs: the tuning
 * program on NCHW tensors (test_arm_cpu_cases.h's arm_cpu_check_config) and the packed program
 * the network runs, on NCHW[ic_bn]c data into NCHW[oc_bn]c output. Shared by the interpreter and
 * LLVM tests. */
#ifndef AT_TESTS_UNIT_TEST_X86_CASES_H
#define AT_TESTS_UNIT_TEST_X86_CASES_H

#include "core/strbuf.h"
#include "tests/unit/test_arm_cpu_cases.h"

extern const char *const x86_templates[2];

/* Workload args (comma form) of template i of x86_templates; returns how many. */
size_t x86_cases(size_t i, const char *const **out);

/* Config c of t through at_task_instantiate_packed: data packed to NCHW[ic_bn]c, run by exec,
 * the NCHW[oc_bn]c output unpacked and compared with the reference. false when the config does
 * not instantiate. */
bool x86_check_packed(const at_task *t, const at_config *c, uint64_t seed, arm_cpu_exec_fn exec, void *ctx);

/* Writes program p as text into sb (at_ir_print, an LLVM IR printer, ...). */
typedef at_status (*x86_print_fn)(const at_ir_program *p, void *ctx, at_strbuf *sb);
/* The packed program of config c of t printed by print, as a string the caller frees (at_free). */
char *x86_packed_text(const at_task *t, const at_config *c, x86_print_fn print, void *ctx);

/* The first point of t's space whose blocks (at_tmpl_packed_blocks) are (ic_bn, oc_bn), or NULL;
 * the caller frees it. */
at_config *x86_config_with_blocks(const at_task *t, int64_t ic_bn, int64_t oc_bn);

/* n seeded configs of every case of both templates plus each fallback, both programs of each;
 * returns how many configs ran. */
size_t x86_check_all(size_t n, uint64_t seed, arm_cpu_exec_fn exec, void *ctx);

#endif
