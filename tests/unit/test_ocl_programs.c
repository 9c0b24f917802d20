/* Fixture programs for the OpenCL backend tests (see test_ocl_programs.h). Every output element
 * is written exactly once (or deterministically last), so a device run and an interpreter run
 * from the same inputs must agree. */
#include "tests/unit/test_ocl_programs.h"

#define I(v) at_ir_i32(s, (v))
#define F(v) at_ir_f32(s, (v))
#define V(x) at_ir_v(s, (x))

/* out[i] = alpha[0] * x[i] + y[i], four lanes per work-item: vload4/vstore4 and a broadcast. */
static void vector_axpy(at_ir_sched *s)
{
    const at_ir_buffer *alpha = at_ir_param(s, "alpha", AT_IR_F32, 1, AT_IR_INPUT);
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, 256, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, 256, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 256, AT_IR_OUTPUT);
    const at_ir_var *bx = at_ir_var_new(s, "bx", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32),
                    *v = at_ir_var_new(s, "v", AT_IR_I32);
    const at_ir_expr *i = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, V(bx), I(8)), V(tx)), I(4)), V(v));
    const at_ir_expr *val = at_ir_add(s, at_ir_mul(s, at_ir_load(s, alpha, I(0), 1), at_ir_load(s, x, i, 1)), at_ir_load(s, y, i, 1));
    const at_ir_stmt *body = at_ir_for(s, v, 4, AT_IR_VECTORIZED, at_ir_store(s, out, i, val));
    at_ir_add_kernel(s, "axpy", at_ir_for(s, bx, 8, AT_IR_BLOCK_X, at_ir_for(s, tx, 8, AT_IR_THREAD_X, body)));
}

/* Eight lanes of everything that does not map straight onto vector operators: a strided gather,
 * a strided scatter, vector and scalar lets, a select, casts, calls, integer vector arithmetic
 * on the loop variable. */
static void vector_mixed(at_ir_sched *s)
{
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, 128, AT_IR_INPUT);
    const at_ir_buffer *k = at_ir_param(s, "k", AT_IR_I32, 64, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 128, AT_IR_OUTPUT);
    const at_ir_buffer *iout = at_ir_param(s, "iout", AT_IR_I32, 64, AT_IR_OUTPUT);
    const at_ir_buffer *out2 = at_ir_param(s, "out2", AT_IR_F32, 64, AT_IR_OUTPUT);
    const at_ir_var *bx = at_ir_var_new(s, "bx", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_var *v = at_ir_var_new(s, "v", AT_IR_I32), *t = at_ir_var_new(s, "t", AT_IR_F32),
                    *sc = at_ir_var_new(s, "sc", AT_IR_F32);
    const at_ir_expr *base = at_ir_mul(s, at_ir_add(s, at_ir_mul(s, V(bx), I(4)), V(tx)), I(8));
    const at_ir_expr *e = at_ir_add(s, base, V(v));
    const at_ir_expr *two_e = at_ir_mul(s, e, I(2));
    const at_ir_expr *kv = at_ir_load(s, k, e, 1);
    const at_ir_expr *diff[1] = {at_ir_sub(s, V(t), V(sc))};
    const at_ir_stmt *stores[4] = {
        at_ir_store(s, out, at_ir_add(s, two_e, I(1)), at_ir_select(s, at_ir_bin(s, AT_IR_GT, V(t), F(1)), V(t), V(sc))),
        at_ir_store(s, out, two_e, V(t)),
        at_ir_store(s, out2, e,
                    at_ir_add(s, at_ir_max(s, at_ir_min(s, V(t), F(1.5)), at_ir_cast(s, AT_IR_F32, kv)),
                              at_ir_call(s, "fabs", AT_IR_F32, diff, 1))),
        at_ir_store(s, iout, e, at_ir_mod(s, at_ir_add(s, at_ir_mul(s, kv, I(3)), V(v)), I(5))),
    };
    const at_ir_stmt *body = at_ir_let(s, t, at_ir_mul(s, at_ir_load(s, x, two_e, 1), F(2)),
                                       at_ir_let(s, sc, at_ir_add(s, at_ir_load(s, x, base, 1), F(1)), at_ir_seq(s, stores, 4)));
    body = at_ir_for(s, v, 8, AT_IR_VECTORIZED, body);
    at_ir_add_kernel(s, "mixed", at_ir_for(s, bx, 2, AT_IR_BLOCK_X, at_ir_for(s, tx, 4, AT_IR_THREAD_X, body)));
}

/* Vectorized loops the backend must unroll instead: an if inside, five lanes, and an invariant
 * store index (every lane writes one place: the last iteration wins). */
static void vector_fallback(at_ir_sched *s)
{
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, 64, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 64, AT_IR_OUTPUT);
    const at_ir_buffer *out5 = at_ir_param(s, "out5", AT_IR_F32, 40, AT_IR_OUTPUT);
    const at_ir_buffer *last = at_ir_param(s, "last", AT_IR_F32, 8, AT_IR_OUTPUT);
    const at_ir_var *tx = at_ir_var_new(s, "tx", AT_IR_I32), *v = at_ir_var_new(s, "v", AT_IR_I32),
                    *w = at_ir_var_new(s, "w", AT_IR_I32), *u = at_ir_var_new(s, "u", AT_IR_I32);
    const at_ir_expr *i = at_ir_add(s, at_ir_mul(s, V(tx), I(8)), V(v));
    const at_ir_stmt *branchy = at_ir_if(s, at_ir_bin(s, AT_IR_LT, V(v), I(4)), at_ir_store(s, out, i, at_ir_load(s, x, i, 1)),
                                         at_ir_store(s, out, i, at_ir_un(s, AT_IR_NEG, at_ir_load(s, x, i, 1))));
    const at_ir_expr *j = at_ir_add(s, at_ir_mul(s, V(tx), I(5)), V(w));
    const at_ir_stmt *items[3] = {
        at_ir_for(s, v, 8, AT_IR_VECTORIZED, branchy),
        at_ir_for(s, w, 5, AT_IR_VECTORIZED, at_ir_store(s, out5, j, at_ir_mul(s, at_ir_load(s, x, j, 1), F(3)))),
        at_ir_for(s, u, 4, AT_IR_VECTORIZED,
                  at_ir_store(s, last, V(tx), at_ir_load(s, x, at_ir_add(s, at_ir_mul(s, V(tx), I(4)), V(u)), 1))),
    };
    at_ir_add_kernel(s, "fallback", at_ir_for(s, tx, 8, AT_IR_THREAD_X, at_ir_seq(s, items, 3)));
}

/* A 16x16 transpose through an 8x8 __local tile with a barrier, a private array filled by an
 * explicitly unrolled loop and summed by a #pragma unroll loop, and a vthread loop. */
static void unroll_local(at_ir_sched *s)
{
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 256, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 256, AT_IR_OUTPUT);
    const at_ir_buffer *sum = at_ir_param(s, "sum", AT_IR_F32, 256, AT_IR_OUTPUT);
    const at_ir_buffer *pair = at_ir_param(s, "pair", AT_IR_F32, 512, AT_IR_OUTPUT);
    const at_ir_buffer *tile = at_ir_alloc(s, "tile", AT_IR_F32, 64, AT_IR_LOCAL);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, 4, AT_IR_PRIVATE);
    const at_ir_var *by = at_ir_var_new(s, "by", AT_IR_I32), *bx = at_ir_var_new(s, "bx", AT_IR_I32);
    const at_ir_var *ty = at_ir_var_new(s, "ty", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_var *r = at_ir_var_new(s, "r", AT_IR_I32), *q = at_ir_var_new(s, "q", AT_IR_I32),
                    *vt = at_ir_var_new(s, "vt", AT_IR_I32);
    const at_ir_expr *own = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, V(by), I(8)), V(ty)), I(16)),
                                      at_ir_add(s, at_ir_mul(s, V(bx), I(8)), V(tx)));
    const at_ir_expr *moved = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, V(bx), I(8)), V(ty)), I(16)),
                                        at_ir_add(s, at_ir_mul(s, V(by), I(8)), V(tx)));
    const at_ir_expr *rot = at_ir_add(s, at_ir_mul(s, V(tx), I(8)), at_ir_mod(s, at_ir_add(s, V(ty), V(r)), I(8)));
    const at_ir_stmt *items[7] = {
        at_ir_store(s, tile, at_ir_add(s, at_ir_mul(s, V(ty), I(8)), V(tx)), at_ir_load(s, in, own, 1)),
        at_ir_barrier(s, AT_IR_LOCAL),
        at_ir_store(s, out, moved, at_ir_load(s, tile, at_ir_add(s, at_ir_mul(s, V(tx), I(8)), V(ty)), 1)),
        at_ir_for(s, r, 4, AT_IR_UNROLLED, at_ir_store(s, acc, V(r), at_ir_load(s, tile, rot, 1))),
        at_ir_store(s, sum, own, F(0)),
        at_ir_for_flags(s, q, 4, AT_IR_UNROLLED, AT_IR_LOOP_PRAGMA_UNROLL,
                        at_ir_store(s, sum, own, at_ir_add(s, at_ir_load(s, sum, own, 1), at_ir_load(s, acc, V(q), 1)))),
        at_ir_for(s, vt, 2, AT_IR_VTHREAD,
                  at_ir_store(s, pair, at_ir_add(s, at_ir_mul(s, own, I(2)), V(vt)),
                              at_ir_mul(s, at_ir_load(s, in, own, 1), at_ir_cast(s, AT_IR_F32, at_ir_add(s, V(vt), I(1)))))),
    };
    const at_ir_stmt *body = at_ir_seq(s, items, 7);
    body = at_ir_for(s, tx, 8, AT_IR_THREAD_X, body);
    body = at_ir_for(s, ty, 8, AT_IR_THREAD_Y, body);
    body = at_ir_for(s, bx, 2, AT_IR_BLOCK_X, body);
    at_ir_add_kernel(s, "transpose", at_ir_for(s, by, 2, AT_IR_BLOCK_Y, body));
}

/* Two kernels through a padded temporary (guarded by a select), a 3-point stencil, an int64
 * index and a float64 output (the fp64 pragma). */
static void two_kernels(at_ir_sched *s)
{
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 32, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 32, AT_IR_OUTPUT);
    const at_ir_buffer *dout = at_ir_param(s, "dout", AT_IR_F64, 32, AT_IR_OUTPUT);
    const at_ir_buffer *pad = at_ir_temp(s, "pad", AT_IR_F32, 34);
    const at_ir_var *g = at_ir_var_new(s, "g", AT_IR_I32), *t = at_ir_var_new(s, "t", AT_IR_I32);
    const at_ir_expr *j = at_ir_add(s, at_ir_mul(s, V(g), I(17)), V(t));
    const at_ir_expr *inside = at_ir_bin(s, AT_IR_AND, at_ir_bin(s, AT_IR_GE, j, I(1)), at_ir_bin(s, AT_IR_LE, j, I(32)));
    const at_ir_stmt *k0 = at_ir_store(s, pad, j, at_ir_select(s, inside, at_ir_load(s, in, at_ir_sub(s, j, I(1)), 1), F(0)));
    at_ir_add_kernel(s, "pad", at_ir_for(s, g, 2, AT_IR_BLOCK_X, at_ir_for(s, t, 17, AT_IR_THREAD_X, k0)));

    const at_ir_var *g2 = at_ir_var_new(s, "g", AT_IR_I32), *t2 = at_ir_var_new(s, "t", AT_IR_I32);
    const at_ir_var *w = at_ir_var_new(s, "w", AT_IR_I64);
    const at_ir_expr *i = at_ir_add(s, at_ir_mul(s, V(g2), I(8)), V(t2));
    const at_ir_expr *sum = at_ir_add(s, at_ir_add(s, at_ir_load(s, pad, i, 1), at_ir_load(s, pad, at_ir_add(s, i, I(1)), 1)),
                                      at_ir_load(s, pad, at_ir_add(s, i, I(2)), 1));
    const at_ir_stmt *k1 = at_ir_seq2(
        s, at_ir_store(s, out, i, sum),
        at_ir_let(s, w, at_ir_cast(s, AT_IR_I64, i),
                  at_ir_store(s, dout, V(w),
                              at_ir_mul(s, at_ir_cast(s, AT_IR_F64, at_ir_load(s, pad, at_ir_add(s, i, I(1)), 1)),
                                        at_ir_float(s, AT_IR_F64, 0.1)))));
    at_ir_add_kernel(s, "stencil", at_ir_for(s, g2, 4, AT_IR_BLOCK_X, at_ir_for(s, t2, 8, AT_IR_THREAD_X, k1)));
}

/* Vector types written in the IR itself: vector loads and stores, a vector let, selects whose
 * condition width matches the arms (OpenCL's select) and one whose does not (lane by lane),
 * broadcast, vector construction, lanes, conversions, integer vector shifts. */
static void ir_vectors(at_ir_sched *s)
{
    at_ir_type f4 = at_ir_type_with_lanes(AT_IR_F32, 4), i4 = at_ir_type_with_lanes(AT_IR_I32, 4),
               l4 = at_ir_type_with_lanes(AT_IR_I64, 4);
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, 16, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_I32, 16, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 16, AT_IR_OUTPUT);
    const at_ir_buffer *iout = at_ir_param(s, "iout", AT_IR_I32, 8, AT_IR_OUTPUT);
    const at_ir_var *vv = at_ir_var_new(s, "vv", f4);
    const at_ir_expr *w = at_ir_load(s, x, I(4), 4), *yi = at_ir_load(s, y, I(0), 4);
    const at_ir_expr *elems[4] = {at_ir_load(s, x, I(8), 1), at_ir_mul(s, at_ir_load(s, x, I(9), 1), F(2)),
                                  at_ir_lane(s, V(vv), 3), F(1)};
    const at_ir_expr *ycond = at_ir_bin(s, AT_IR_GT, at_ir_cast(s, l4, yi), at_ir_broadcast(s, at_ir_int(s, AT_IR_I64, 0), 4));
    const at_ir_stmt *items[6] = {
        at_ir_store(s, out, I(0), at_ir_select(s, at_ir_bin(s, AT_IR_GT, V(vv), w), V(vv), w)),
        at_ir_store(s, out, I(4), at_ir_select(s, ycond, V(vv), w)),
        at_ir_store(s, out, I(8), at_ir_add(s, at_ir_vector(s, elems, 4), at_ir_broadcast(s, at_ir_load(s, x, I(0), 1), 4))),
        at_ir_store(s, iout, I(0), at_ir_cast(s, i4, at_ir_mul(s, V(vv), at_ir_broadcast(s, F(10), 4)))),
        at_ir_store(s, iout, I(4), at_ir_bin(s, AT_IR_SHR, at_ir_mul(s, yi, at_ir_broadcast(s, I(3), 4)), at_ir_broadcast(s, I(1), 4))),
        at_ir_store(s, out, I(12), at_ir_un(s, AT_IR_NEG, at_ir_lane(s, w, 0))),
    };
    at_ir_add_kernel(s, "vectors", at_ir_let(s, vv, at_ir_load(s, x, I(0), 4), at_ir_seq(s, items, 6)));
}

const at_ir_program *staged_program(at_arena *ar)
{
    at_ir_sched *s = at_ir_sched_begin(ar, "stages");
    if (!s) return NULL;
    const at_ir_buffer *in = at_ir_param(s, "in", AT_IR_F32, 4, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "out", AT_IR_F32, 4, AT_IR_OUTPUT);
    const at_ir_buffer *packed = at_ir_temp(s, "packed", AT_IR_F32, 4), *mid = at_ir_temp(s, "mid", AT_IR_F32, 4);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32);
    at_ir_add_prepare_kernel(s, "pack", at_ir_for(s, i, 4, AT_IR_THREAD_X, at_ir_store(s, packed, V(i), at_ir_mul(s, at_ir_load(s, in, V(i), 1), F(2)))));
    at_ir_add_kernel(s, "timed", at_ir_for(s, i, 4, AT_IR_THREAD_X, at_ir_store(s, mid, V(i), at_ir_add(s, at_ir_load(s, packed, V(i), 1), F(1)))));
    at_ir_add_finish_kernel(s, "unpack", at_ir_for(s, i, 4, AT_IR_THREAD_X, at_ir_store(s, out, V(i), at_ir_mul(s, at_ir_load(s, mid, V(i), 1), F(3)))));
    const at_ir_program *p;
    return at_ir_sched_finish(s, &p) == AT_OK && at_ir_verify(p) == AT_OK ? p : NULL;
}

const ocl_fixture ocl_fixtures[] = {
    {"vector_axpy", vector_axpy},   {"vector_mixed", vector_mixed}, {"vector_fallback", vector_fallback},
    {"unroll_local", unroll_local}, {"two_kernels", two_kernels},   {"ir_vectors", ir_vectors},
};
const size_t n_ocl_fixtures = sizeof ocl_fixtures / sizeof ocl_fixtures[0];
