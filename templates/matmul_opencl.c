/* testing/matmul for OpenCL: TVM's tutorial matmul template (autotvm_matmul_x86: knobs tile_y
 * and tile_x, 2-way "factors" splits of C's rows N and columns M, loop order yo, xo, k, yi, xi)
 * mapped onto a GPU: the outer parts bind to blockIdx.y/x, the inner parts to threadIdx.y/x, so
 * each work-item owns one output and runs the k loop into a private accumulator (C.local). A
 * config whose work-group exceeds a device's limits is rejected by measure/ before compiling. */
#include "templates/internal.h"
#include "templates/template.h"

static at_status schedule(const at_args *a, const at_config *c, at_ir_sched *s)
{
    const at_matmul_args *m = &a->u.matmul;
    at_tmpl_matmul mm;
    AT_TRY(at_tmpl_matmul_init(a, c, s, &mm));
    const int64_t yo = mm.yo, yi = mm.yi, xo = mm.xo, xi = mm.xi;
    const at_ir_buffer *A = mm.A, *B = mm.B, *C = mm.C;
    const at_ir_buffer *acc = at_ir_alloc(s, "C_local", m->dtype, 1, AT_IR_PRIVATE);
    const at_ir_var *by = at_ir_var_new(s, "by", AT_IR_I32), *bx = at_ir_var_new(s, "bx", AT_IR_I32);
    const at_ir_var *ty = at_ir_var_new(s, "ty", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_var *k = at_ir_var_new(s, "k", AT_IR_I32);

    const at_ir_var *yv[2] = {by, ty}, *xv[2] = {bx, tx};
    const int64_t ye[2] = {yo, yi}, xe[2] = {xo, xi};
    const at_ir_expr *y = at_ir_fuse(s, yv, ye, 2), *x = at_ir_fuse(s, xv, xe, 2);
    const at_ir_expr *zero0 = at_ir_i32(s, 0);
    const at_ir_expr *zero = at_ir_type_is_float(m->dtype) ? at_ir_float(s, m->dtype, 0) : at_ir_int(s, m->dtype, 0);
    const at_ir_expr *a_ld = at_ir_load(s, A, at_ir_add(s, at_ir_mul(s, y, at_ir_i32(s, m->l)), at_ir_v(s, k)), 1);
    const at_ir_expr *b_ld = at_ir_load(s, B, at_ir_add(s, at_ir_mul(s, at_ir_v(s, k), at_ir_i32(s, m->m)), x), 1);
    const at_ir_stmt *items[3] = {
        at_ir_store(s, acc, zero0, zero),
        at_ir_for(s, k, m->l, AT_IR_SERIAL,
                  at_ir_store(s, acc, zero0, at_ir_add(s, at_ir_load(s, acc, zero0, 1), at_ir_mul(s, a_ld, b_ld)))),
        at_ir_store(s, C, at_ir_add(s, at_ir_mul(s, y, at_ir_i32(s, m->m)), x), at_ir_load(s, acc, zero0, 1)),
    };
    const at_ir_stmt *body = at_ir_seq(s, items, 3);
    body = at_ir_for(s, tx, xi, AT_IR_THREAD_X, body);
    body = at_ir_for(s, ty, yi, AT_IR_THREAD_Y, body);
    body = at_ir_for(s, bx, xo, AT_IR_BLOCK_X, body);
    body = at_ir_for(s, by, yo, AT_IR_BLOCK_Y, body);
    at_ir_add_kernel(s, "default_function_kernel", body);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_matmul_opencl = {
    .name = "testing/matmul",
    .op = AT_OP_MATMUL,
    .target = AT_TARGET_OPENCL,
    .n_knobs = AT_TMPL_MATMUL_N_KNOBS,
    .define_space = at_tmpl_matmul_define_space,
    .schedule = schedule,
};
