/* testing/fake_tile: a GPU-style tiled matmul whose space holds every knob kind (split,
 * annotate, other) so tuners and features see realistic structure; the loop nest has the same
 * shape for every config (only extents and annotations change), as TVM's templates do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tests/fakes/fakes.h"
#include "tests/support/test_support.h"

enum { TILE_Y, TILE_X, TILE_K, ANN_K, AUTO_UNROLL, N_KNOBS };

static at_status define_space(const at_args *a, at_space *s)
{
    static const int64_t unroll[] = {0, 512};
    const at_matmul_args *m = &a->u.matmul;
    AT_TRY(at_space_split(s, TILE_Y, "tile_y", m->n, 3));
    AT_TRY(at_space_split(s, TILE_X, "tile_x", m->m, 3));
    AT_TRY(at_space_split(s, TILE_K, "tile_k", m->l, 2));
    AT_TRY(at_space_annotate(s, ANN_K, "ann_k", 1, "try_unroll"));
    return at_space_other(s, AUTO_UNROLL, "auto_unroll_max_step", unroll, 2);
}

/* Outer extent of a split whose inner sizes are sizes[1..n): AT_EINVAL unless they divide it. */
static at_status outer_of(const char *name, const int64_t *sizes, size_t n, int64_t extent, int64_t *outer)
{
    int64_t p = 1;
    for (size_t i = 1; i < n; i++) p *= sizes[i];
    if (p < 1 || extent % p != 0) return AT_FAIL(AT_EINVAL, "%s does not divide %lld", name, (long long)extent);
    *outer = extent / p;
    return AT_OK;
}

static const at_ir_expr *idx3(at_ir_sched *s, const at_ir_var *o, const at_ir_var *m, const at_ir_var *i,
                              const int64_t *ext)
{
    const at_ir_var *v[3] = {o, m, i};
    return at_ir_fuse(s, v, ext, 3);
}

static at_status schedule(const at_args *a, const at_config *c, at_ir_sched *s)
{
    const at_matmul_args *m = &a->u.matmul;
    int64_t ty[3], tx[3], tk[2];
    at_config_split(c, TILE_Y, ty, 3);
    at_config_split(c, TILE_X, tx, 3);
    at_config_split(c, TILE_K, tk, 2);
    AT_TRY(outer_of("tile_y", ty, 3, m->n, &ty[0]));
    AT_TRY(outer_of("tile_x", tx, 3, m->m, &tx[0]));
    AT_TRY(outer_of("tile_k", tk, 2, m->l, &tk[0]));
    const at_entity *ann = at_config_at(c, ANN_K);
    bool unroll_k = ann->anns && !strcmp(ann->anns[0], "unroll");
    bool unroll_x = at_config_other_int(c, AUTO_UNROLL) > 0;

    const at_ir_buffer *A = at_ir_param(s, "A", m->dtype, m->n * m->l, AT_IR_INPUT);
    const at_ir_buffer *B = at_ir_param(s, "B", m->dtype, m->l * m->m, AT_IR_INPUT);
    const at_ir_buffer *C = at_ir_param(s, "C", m->dtype, m->n * m->m, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "C.local", m->dtype, ty[2] * tx[2], AT_IR_PRIVATE);
    const at_ir_var *by = at_ir_var_new(s, "by", AT_IR_I32), *bx = at_ir_var_new(s, "bx", AT_IR_I32);
    const at_ir_var *thy = at_ir_var_new(s, "ty", AT_IR_I32), *thx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_var *vy[3], *vx[3];
    for (int i = 0; i < 3; i++) {
        vy[i] = at_ir_var_new(s, "vy", AT_IR_I32);
        vx[i] = at_ir_var_new(s, "vx", AT_IR_I32);
    }
    const at_ir_var *ko = at_ir_var_new(s, "ko", AT_IR_I32), *ki = at_ir_var_new(s, "ki", AT_IR_I32);
    const at_ir_expr *zero = at_ir_float(s, m->dtype, 0);

    /* C.local[vy * tx2 + vx] */
#define ACC(i) at_ir_add(s, at_ir_mul(s, at_ir_v(s, vy[i]), at_ir_i32(s, tx[2])), at_ir_v(s, vx[i]))
    const at_ir_stmt *init = at_ir_for(
        s, vy[0], ty[2], AT_IR_SERIAL, at_ir_for(s, vx[0], tx[2], AT_IR_SERIAL, at_ir_store(s, acc, ACC(0), zero)));
    const at_ir_expr *y = idx3(s, by, thy, vy[1], ty), *x = idx3(s, bx, thx, vx[1], tx);
    const at_ir_var *kv[2] = {ko, ki};
    const at_ir_expr *k = at_ir_fuse(s, kv, tk, 2);
    const at_ir_expr *a_ld = at_ir_load(s, A, at_ir_add(s, at_ir_mul(s, y, at_ir_i32(s, m->l)), k), 1);
    const at_ir_expr *b_ld = at_ir_load(s, B, at_ir_add(s, at_ir_mul(s, k, at_ir_i32(s, m->m)), x), 1);
    const at_ir_stmt *upd =
        at_ir_store(s, acc, ACC(1), at_ir_add(s, at_ir_load(s, acc, ACC(1), 1), at_ir_mul(s, a_ld, b_ld)));
    upd = at_ir_for(s, vx[1], tx[2], unroll_x ? AT_IR_UNROLLED : AT_IR_SERIAL, upd);
    upd = at_ir_for(s, vy[1], ty[2], AT_IR_SERIAL, upd);
    upd = at_ir_for(s, ki, tk[1], unroll_k ? AT_IR_UNROLLED : AT_IR_SERIAL, upd);
    upd = at_ir_for(s, ko, tk[0], AT_IR_SERIAL, upd);
    const at_ir_expr *y2 = idx3(s, by, thy, vy[2], ty), *x2 = idx3(s, bx, thx, vx[2], tx);
    const at_ir_stmt *wb = at_ir_store(s, C, at_ir_add(s, at_ir_mul(s, y2, at_ir_i32(s, m->m)), x2),
                                       at_ir_load(s, acc, ACC(2), 1));
    wb = at_ir_for(s, vy[2], ty[2], AT_IR_SERIAL, at_ir_for(s, vx[2], tx[2], AT_IR_SERIAL, wb));
#undef ACC
    const at_ir_stmt *items[3] = {init, upd, wb};
    const at_ir_stmt *body = at_ir_seq(s, items, 3);
    body = at_ir_for(s, thx, tx[1], AT_IR_THREAD_X, body);
    body = at_ir_for(s, thy, ty[1], AT_IR_THREAD_Y, body);
    body = at_ir_for(s, bx, tx[0], AT_IR_BLOCK_X, body);
    body = at_ir_for(s, by, ty[0], AT_IR_BLOCK_Y, body);
    at_ir_add_kernel(s, "default_function_kernel", body);
    return at_ir_sched_status(s);
}

/* A GPU's work-group limit as a cross-knob filter: at most 64 threads per block. */
static bool threads_le_64(const at_entity *const *e, size_t n_knobs, void *ctx)
{
    (void)ctx;
    return n_knobs < 2 || e[0]->ints[1] * e[1]->ints[1] <= 64;
}

static at_status define_space_filtered(const at_args *a, at_space *s)
{
    AT_TRY(define_space(a, s));
    return at_space_multi_filter(s, threads_le_64, NULL);
}

const at_template at_fake_tmpl_filtered = {
    .name = "testing/fake_filtered",
    .op = AT_OP_MATMUL,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space_filtered,
    .schedule = schedule,
};

const at_template at_fake_tmpl_tile = {
    .name = "testing/fake_tile",
    .op = AT_OP_MATMUL,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
};

at_task *at_fake_task_of(const at_template *tmpl, int64_t n, int64_t m, int64_t l)
{
    at_args args = {.op = AT_OP_MATMUL, .u.matmul = {.n = n, .l = l, .m = m, .dtype = AT_IR_F32}};
    at_task *t = NULL;
    assert_ok(at_task_new(tmpl, &args, &t));
    return t;
}

at_task *at_fake_task(int64_t n, int64_t m, int64_t l)
{
    return at_fake_task_of(&at_fake_tmpl_tile, n, m, l);
}
