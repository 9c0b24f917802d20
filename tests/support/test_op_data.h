/* Random inputs, the op's reference outputs and the buffers a program runs on, for the tests that
 * check templates against ops' references on the IR interpreter. Include after test_support.h;
 * link with DEPS test_op_data (it links templates/). */
#ifndef AT_TESTS_SUPPORT_TEST_OP_DATA_H
#define AT_TESTS_SUPPORT_TEST_OP_DATA_H

#include "templates/template.h"
#include "tests/support/test_support.h"

/* How a float input element is drawn from u, uniform in [0, 1): each test keeps the values its
 * tolerances were set for. Integer inputs are always at_rng_below(17) - 8. */
typedef enum at_test_fill {
    AT_TEST_FILL_UNIT,     /* (float)u */
    AT_TEST_FILL_CENTERED, /* (float)u - 0.5f */
    AT_TEST_FILL_SIGNED,   /* (float)(u * 2 - 1) */
} at_test_fill;

typedef struct at_test_data {
    size_t         n;                                               /* tensors, as at_op_tensors */
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    void          *buf[AT_OP_MAX_TENSORS], *ref[AT_OP_MAX_TENSORS]; /* ref: outputs' reference */
} at_test_data;

/* Allocates every tensor of a, fills the inputs from seed (one draw per element, tensors in
 * order) and runs the op's reference into ref. */
void at_test_data_init(at_test_data *dt, const at_args *a, uint64_t seed, at_test_fill fill);
void at_test_data_fini(at_test_data *dt);

/* Fills the outputs with 0xFF bytes (a NaN for floats: an element the program does not write
 * cannot pass) and interprets p on dt->buf; fails the test naming what on an error. */
void at_test_data_run(const at_ir_program *p, at_test_data *dt, const char *what);

/* Instantiates config c of t and runs it as at_test_data_run. Returns false, running nothing, when
 * allow_reject and the config does not instantiate (AT_EINVAL); any other failure fails the test. */
bool at_test_data_run_config(const at_task *t, const at_config *c, at_test_data *dt, bool allow_reject,
                             const char *what);

/* The largest |got - want| / max(|want|, floor) over n floats; NaN when any element gives NaN. */
double at_test_max_rel_err(const float *got, const float *want, int64_t n, double floor);

/* Fails the test naming what unless every (float) output is within tol of the reference by
 * at_test_max_rel_err(floor); returns the largest error. */
double at_test_data_check(const at_test_data *dt, double floor, double tol, const char *what);

#endif
