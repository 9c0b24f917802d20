/* A fault-injecting matmul template for measurement tests: knob "mode" chooses how a config goes
 * wrong (wrong answer, compile error, crashing build, oversized work-group, endless kernel, slow
 * build) and knob "work" scales the real work by 32, so a cost that lands on the wrong config
 * shows. index = mode + AT_FAULT_N_MODES * work_entity (the first knob varies fastest). */
#ifndef AT_TESTS_FAKES_FAULT_TEMPLATE_H
#define AT_TESTS_FAKES_FAULT_TEMPLATE_H

#include "templates/template.h"

enum {
    AT_FAULT_OK = 0,
    AT_FAULT_WRONG,
    AT_FAULT_NO_COMPILE,
    AT_FAULT_CRASH,
    AT_FAULT_TOO_BIG,
    AT_FAULT_FOREVER,
    AT_FAULT_SLOW_BUILD,
    AT_FAULT_N_MODES
};

/* "testing/fault" for OpenCL, and the same template registered for LLVM (which the OpenCL
 * runner must refuse). */
extern const at_template at_fake_fault_tmpl;
extern const at_template at_fake_fault_tmpl_llvm;

#endif
