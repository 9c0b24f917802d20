/* testing/matmul for CPUs (LLVM): TVM's tutorial template as written (autotvm_matmul_x86: knobs
 * tile_y and tile_x, 2-way "factors" splits of C's rows N and columns M, reorder(yo, xo, k, yi,
 * xi)). Lowered as TVM lowers that schedule: per (yo, xo) tile the init nest C = 0 over (yi, xi),
 * then the reduction over k with (yi, xi) innermost, accumulating in C itself. */
#include "templates/internal.h"
#include "templates/template.h"

static at_status schedule(const at_args *a, const at_config *c, at_ir_sched *s)
{
    const at_matmul_args *m = &a->u.matmul;
    at_tmpl_matmul mm;
    AT_TRY(at_tmpl_matmul_init(a, c, s, &mm));
    const int64_t yo = mm.yo, yi = mm.yi, xo = mm.xo, xi = mm.xi;
    const at_ir_buffer *A = mm.A, *B = mm.B, *C = mm.C;
    const at_ir_var *vyo = at_ir_var_new(s, "y_outer", AT_IR_I32), *vxo = at_ir_var_new(s, "x_outer", AT_IR_I32);
    const at_ir_var *vyi = at_ir_var_new(s, "y_inner", AT_IR_I32), *vxi = at_ir_var_new(s, "x_inner", AT_IR_I32);
    const at_ir_var *vyi0 = at_ir_var_new(s, "y_inner_init", AT_IR_I32), *vxi0 = at_ir_var_new(s, "x_inner_init", AT_IR_I32);
    const at_ir_var *k = at_ir_var_new(s, "k", AT_IR_I32);

    const at_ir_var *yv[2] = {vyo, vyi}, *xv[2] = {vxo, vxi}, *yv0[2] = {vyo, vyi0}, *xv0[2] = {vxo, vxi0};
    const int64_t ye[2] = {yo, yi}, xe[2] = {xo, xi};
    const at_ir_expr *y = at_ir_fuse(s, yv, ye, 2), *x = at_ir_fuse(s, xv, xe, 2);
    const at_ir_expr *y0 = at_ir_fuse(s, yv0, ye, 2), *x0 = at_ir_fuse(s, xv0, xe, 2);
    const at_ir_expr *zero = at_ir_type_is_float(m->dtype) ? at_ir_float(s, m->dtype, 0) : at_ir_int(s, m->dtype, 0);
    const at_ir_expr *c_at = at_ir_add(s, at_ir_mul(s, y, at_ir_i32(s, m->m)), x);
    const at_ir_expr *a_ld = at_ir_load(s, A, at_ir_add(s, at_ir_mul(s, y, at_ir_i32(s, m->l)), at_ir_v(s, k)), 1);
    const at_ir_expr *b_ld = at_ir_load(s, B, at_ir_add(s, at_ir_mul(s, at_ir_v(s, k), at_ir_i32(s, m->m)), x), 1);

    const at_ir_stmt *init = at_ir_store(s, C, at_ir_add(s, at_ir_mul(s, y0, at_ir_i32(s, m->m)), x0), zero);
    init = at_ir_for(s, vxi0, xi, AT_IR_SERIAL, init);
    init = at_ir_for(s, vyi0, yi, AT_IR_SERIAL, init);
    const at_ir_stmt *upd = at_ir_store(s, C, c_at, at_ir_add(s, at_ir_load(s, C, c_at, 1), at_ir_mul(s, a_ld, b_ld)));
    upd = at_ir_for(s, vxi, xi, AT_IR_SERIAL, upd);
    upd = at_ir_for(s, vyi, yi, AT_IR_SERIAL, upd);
    upd = at_ir_for(s, k, m->l, AT_IR_SERIAL, upd);
    const at_ir_stmt *body = at_ir_seq2(s, init, upd);
    body = at_ir_for(s, vxo, xo, AT_IR_SERIAL, body);
    body = at_ir_for(s, vyo, yo, AT_IR_SERIAL, body);
    at_ir_add_kernel(s, "default_function", body);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_matmul_llvm = {
    .name = "testing/matmul",
    .op = AT_OP_MATMUL,
    .target = AT_TARGET_LLVM,
    .n_knobs = AT_TMPL_MATMUL_N_KNOBS,
    .define_space = at_tmpl_matmul_define_space,
    .schedule = schedule,
};
