/* The fault-injecting matmul template shared by the local and remote measurement tests. */
#include "tests/fakes/fault_template.h"

#include <signal.h>
#include <time.h>

enum { MODE, WORK, N_KNOBS };
enum {
    OK_MODE = AT_FAULT_OK,
    WRONG = AT_FAULT_WRONG,
    NO_COMPILE = AT_FAULT_NO_COMPILE,
    CRASH = AT_FAULT_CRASH,
    TOO_BIG = AT_FAULT_TOO_BIG,
    FOREVER = AT_FAULT_FOREVER,
    SLOW_BUILD = AT_FAULT_SLOW_BUILD,
    N_MODES = AT_FAULT_N_MODES
};

static at_status fault_space(const at_args *a, at_space *s)
{
    (void)a;
    static const int64_t modes[N_MODES] = {0, 1, 2, 3, 4, 5, 6}, work[2] = {1, 32};
    AT_TRY(at_space_other(s, MODE, "mode", modes, N_MODES));
    return at_space_other(s, WORK, "work", work, 2);
}

static at_status fault_schedule(const at_args *a, const at_config *c, at_ir_sched *s)
{
    const at_matmul_args *m = &a->u.matmul;
    int64_t mode = at_config_other_int(c, MODE), work = at_config_other_int(c, WORK);
    if (mode == CRASH) raise(SIGKILL); /* a crashing driver: only this worker dies */
    if (mode == SLOW_BUILD) {
        struct timespec ts = {60, 0};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    const at_ir_buffer *A = at_ir_param(s, "A", m->dtype, m->n * m->l, AT_IR_INPUT);
    const at_ir_buffer *B = at_ir_param(s, "B", m->dtype, m->l * m->m, AT_IR_INPUT);
    const at_ir_buffer *C = at_ir_param(s, "C", m->dtype, m->n * m->m, AT_IR_OUTPUT);
    if (mode == TOO_BIG) {
        /* 8192 work-items in one group: more than PoCL's 4096 or any GPU's 1024 */
        const at_ir_var *tx = at_ir_var_new(s, "tx", AT_IR_I32);
        at_ir_add_kernel(s, "too_big", at_ir_for(s, tx, 8192, AT_IR_THREAD_X,
                                                  at_ir_store(s, C, at_ir_mod(s, at_ir_v(s, tx), at_ir_i32(s, m->n * m->m)),
                                                              at_ir_f32(s, 0))));
        return at_ir_sched_status(s);
    }
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", m->dtype, 1, AT_IR_PRIVATE);
    const at_ir_var *by = at_ir_var_new(s, "by", AT_IR_I32), *bx = at_ir_var_new(s, "bx", AT_IR_I32);
    const at_ir_var *ty = at_ir_var_new(s, "ty", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_var *k = at_ir_var_new(s, "k", AT_IR_I32), *w = at_ir_var_new(s, "w", AT_IR_I64);
    const at_ir_expr *y = at_ir_add(s, at_ir_mul(s, at_ir_v(s, by), at_ir_i32(s, 8)), at_ir_v(s, ty));
    const at_ir_expr *x = at_ir_add(s, at_ir_mul(s, at_ir_v(s, bx), at_ir_i32(s, 8)), at_ir_v(s, tx));
    const at_ir_expr *z = at_ir_i32(s, 0);
    /* each repetition w adds A*B scaled by (w == 0): the sum is exact, the work real */
    const at_ir_expr *scale = at_ir_select(s, at_ir_bin(s, AT_IR_EQ, at_ir_v(s, w), at_ir_int(s, AT_IR_I64, 0)), at_ir_f32(s, 1),
                                           at_ir_f32(s, 0));
    const at_ir_expr *prod = at_ir_mul(s, at_ir_mul(s, at_ir_load(s, A, at_ir_add(s, at_ir_mul(s, y, at_ir_i32(s, m->l)), at_ir_v(s, k)), 1),
                                                    at_ir_load(s, B, at_ir_add(s, at_ir_mul(s, at_ir_v(s, k), at_ir_i32(s, m->m)), x), 1)),
                                       scale);
    int64_t reps = mode == FOREVER ? (int64_t)1 << 40 : work;
    const at_ir_stmt *loop = at_ir_for(s, w, reps, AT_IR_SERIAL,
                                       at_ir_for(s, k, m->l, AT_IR_SERIAL, at_ir_store(s, acc, z, at_ir_add(s, at_ir_load(s, acc, z, 1), prod))));
    const at_ir_expr *result = at_ir_load(s, acc, z, 1);
    if (mode == WRONG) result = at_ir_add(s, result, at_ir_f32(s, 1));
    if (mode == NO_COMPILE) {
        const at_ir_expr *arg[1] = {result};
        result = at_ir_call(s, "no_such_function", AT_IR_F32, arg, 1);
    }
    const at_ir_stmt *items[3] = {at_ir_store(s, acc, z, at_ir_f32(s, 0)), loop,
                                  at_ir_store(s, C, at_ir_add(s, at_ir_mul(s, y, at_ir_i32(s, m->m)), x), result)};
    const at_ir_stmt *body = at_ir_seq(s, items, 3);
    body = at_ir_for(s, tx, 8, AT_IR_THREAD_X, body);
    body = at_ir_for(s, ty, 8, AT_IR_THREAD_Y, body);
    body = at_ir_for(s, bx, m->m / 8, AT_IR_BLOCK_X, body);
    at_ir_add_kernel(s, "fault", at_ir_for(s, by, m->n / 8, AT_IR_BLOCK_Y, body));
    return at_ir_sched_status(s);
}

const at_template at_fake_fault_tmpl = {
    .name = "testing/fault",
    .op = AT_OP_MATMUL,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = fault_space,
    .schedule = fault_schedule,
};

const at_template at_fake_fault_tmpl_llvm = {
    .name = "testing/fault",
    .op = AT_OP_MATMUL,
    .target = AT_TARGET_LLVM,
    .n_knobs = N_KNOBS,
    .define_space = fault_space,
    .schedule = fault_schedule,
};
