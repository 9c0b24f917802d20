/* add.vta / multiply.vta: vta/top/op.py's schedule_alu_packed (knobs tile_co, tile_h, tile_w, spec
 * templates_vta.md 5.4) over the seeds' tune_alu_vta templates (op, clip [0, 127], cast int8).
 * The IR is the schedule's loop nest with the on-chip tiles as private buffers: per output tile
 * (x_bo, x_i0, x_co0, x_j0) a DMA of the lhs and rhs tiles into the accumulator, the ALU stages
 * in place (op, min, max), one store per x_co1. It is what the tuners' features read and what the
 * conformance interpreter checks; backends/vta/alu.c lowers the same tiling to VTA instructions.
 * Arguments TVM's schedule leaves on the CPU (not 6-D, or float32) define no knob (a space of one
 * config) and schedule as the unscheduled compute. */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_CO, TILE_H, TILE_W, N_KNOBS };

static at_status define_space(const at_args *a, at_space *s)
{
    const at_alu_packed_args *p = &a->u.alu_packed;
    if (!at_op_alu_packed_on_vta(p)) return AT_OK; /* TVM returns before cfg.define_split */
    AT_TRY(at_space_split(s, TILE_CO, "tile_co", p->lhs[1], 2));
    AT_TRY(at_space_split(s, TILE_H, "tile_h", p->lhs[2], 2));
    return at_space_split(s, TILE_W, "tile_w", p->lhs[3], 2);
}

/* TVM's InjectDMAIntrin folds the DRAM region of a copy (unit dims dropped, contiguous dims
 * merged) and accepts at most two strided dimensions, the inner one of stride 1 unless it is the
 * only one. dims: (extent, stride in elements), outer first. */
static bool dma_2d_ok(const int64_t (*dims)[2], size_t n)
{
    int64_t size = 0, stride = 0, groups = 0, inner_stride = 1;
    for (size_t k = n; k-- > 0;) {
        if (dims[k][0] == 1) continue;
        if (groups && size * stride == dims[k][1]) {
            size *= dims[k][0];
            continue;
        }
        if (!groups) inner_stride = dims[k][1];
        size = dims[k][0], stride = dims[k][1], groups++;
    }
    return groups + (groups > 0 && inner_stride != 1) <= 2;
}

static const at_ir_expr *v_(at_ir_sched *s, const at_tmpl_loop *l)
{
    return at_ir_v(s, l->var);
}

static at_status schedule(const at_args *a, const at_config *c, at_ir_sched *s)
{
    const at_alu_packed_args *p = &a->u.alu_packed;
    if (!at_op_alu_packed_on_vta(p)) {
        at_op_alu_packed_compute(a->op, p, s);
        return at_ir_sched_status(s);
    }
    const int64_t n_b = p->lhs[0], c_b = p->lhs[1], h = p->lhs[2], w = p->lhs[3], lanes = p->lhs[4] * p->lhs[5];
    int64_t tco = 1, th = 1, tw = 1;
    AT_TRY(at_tmpl_split_inner_size(c, TILE_CO, "tile_co", c_b, &tco));
    AT_TRY(at_tmpl_split_inner_size(c, TILE_H, "tile_h", h, &th));
    AT_TRY(at_tmpl_split_inner_size(c, TILE_W, "tile_w", w, &tw));
    /* the accumulator holds the lhs tile (where the ALU stages run in place) and the rhs tile; the
     * buffer is 2^17 bytes on 1x16 and 2^18 on 4x8 (the bitstreams TVM ships): 2048 elements */
    int64_t acc_bytes = p->lhs[4] == 4 && p->lhs[5] == 8 ? 1 << 18 : 1 << 17;
    int64_t rs[AT_ALU_PACKED_MAX_DIMS];
    at_op_alu_packed_rhs_shape(p, rs);
    if (rs[4] != p->lhs[4] || rs[5] != p->lhs[5])
        return AT_FAIL(AT_EINVAL, "rhs broadcasts within the %lldx%lld accumulator lanes (InjectALUIntrin needs whole "
                                  "lanes)", (long long)p->lhs[4], (long long)p->lhs[5]);
    /* the rhs tile: extent 1 along the dimensions rhs broadcasts */
    const int64_t rco = rs[1] == 1 ? 1 : tco, rth = rs[2] == 1 ? 1 : th, rtw = rs[3] == 1 ? 1 : tw;
    int64_t tile = tco * th * tw, rtile = rco * rth * rtw;
    if ((tile + rtile) * lanes * 4 > acc_bytes)
        return AT_FAIL(AT_EINVAL, "lhs and rhs tiles of %lld and %lld elements exceed the %lld-byte accumulator buffer",
                       (long long)tile, (long long)rtile, (long long)acc_bytes);
    const int64_t region[3][2] = {{tco, h * w}, {th, w}, {tw, 1}};
    const int64_t rregion[3][2] = {{rco, rs[2] * rs[3]}, {rth, rs[3]}, {rtw, 1}};
    if (!dma_2d_ok(region, 3) || !dma_2d_ok(rregion, 3))
        return AT_FAIL(AT_EINVAL, "a %lldx%lldx%lld tile of a %lldx%lldx%lld tensor is no 2-D DMA pattern (TVM's "
                                  "InjectDMAIntrin cannot load it)", (long long)tco, (long long)th, (long long)tw,
                       (long long)c_b, (long long)h, (long long)w);

    at_tensor_desc t[3];
    at_op_alu_packed_tensors(p, t);
    const at_ir_buffer *L = at_ir_param(s, "lhs", p->dtype, t[0].n_elems, AT_IR_INPUT);
    const at_ir_buffer *R = at_ir_param(s, "rhs", p->rhs_dtype, t[1].n_elems, AT_IR_INPUT);
    const at_ir_buffer *O = at_ir_param(s, "res", AT_IR_I8, t[2].n_elems, AT_IR_OUTPUT);
    const at_ir_buffer *AL = at_ir_alloc(s, "lhs_acc", AT_IR_I32, tile * lanes, AT_IR_PRIVATE);
    const at_ir_buffer *AR = at_ir_alloc(s, "rhs_acc", AT_IR_I32, rtile * lanes, AT_IR_PRIVATE);

    at_tmpl_loop outer[4] = {
        at_tmpl_loop_new(s, "x_bo", n_b, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "x_i0", h / th, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "x_co0", c_b / tco, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "x_j0", w / tw, AT_IR_SERIAL),
    };
    const at_ir_expr *bo = v_(s, &outer[0]);
    const at_ir_expr *i_base = at_ir_mul(s, v_(s, &outer[1]), at_tmpl_i(s, th));
    const at_ir_expr *co_base = at_ir_mul(s, v_(s, &outer[2]), at_tmpl_i(s, tco));
    const at_ir_expr *j_base = at_ir_mul(s, v_(s, &outer[3]), at_tmpl_i(s, tw));
    int64_t tdims[4] = {tco, th, tw, lanes}, gdims[5] = {n_b, c_b, h, w, lanes};
    int64_t rtdims[4] = {rco, rth, rtw, lanes}, rgdims[5] = {rs[0], rs[1], rs[2], rs[3], lanes};
    const at_ir_expr *zero = at_tmpl_i(s, 0);

    /* DMA of the lhs and rhs tiles into the accumulator (ACC, or ACC_8BIT widening int8) */
    const at_ir_stmt *stage[5];
    const at_ir_buffer *src[2] = {L, R}, *dst[2] = {AL, AR};
    for (int k = 0; k < 2; k++) {
        const int64_t *td = k ? rtdims : tdims, *gd = k ? rgdims : gdims;
        at_tmpl_loop l[4] = {at_tmpl_loop_new(s, "co", td[0], AT_IR_SERIAL), at_tmpl_loop_new(s, "i", td[1], AT_IR_SERIAL),
                             at_tmpl_loop_new(s, "j", td[2], AT_IR_SERIAL), at_tmpl_loop_new(s, "e", lanes, AT_IR_SERIAL)};
        const at_ir_expr *li[4] = {v_(s, &l[0]), v_(s, &l[1]), v_(s, &l[2]), v_(s, &l[3])};
        const at_ir_expr *gi[5] = {gd[0] == 1 ? zero : bo, gd[1] == 1 ? zero : at_ir_add(s, co_base, li[0]),
                                   gd[2] == 1 ? zero : at_ir_add(s, i_base, li[1]),
                                   gd[3] == 1 ? zero : at_ir_add(s, j_base, li[2]), li[3]};
        const at_ir_expr *val = at_tmpl_cast(s, AT_IR_I32, at_ir_load(s, src[k], at_tmpl_index(s, gi, gd, 5), 1));
        stage[k] = at_tmpl_nest(s, l, 4, at_ir_store(s, dst[k], at_tmpl_index(s, li, td, 4), val));
    }
    /* the op (tensor-tensor, rhs broadcast where its tile has extent 1), in place on the lhs tile */
    at_tmpl_loop ol[4] = {
        at_tmpl_loop_new(s, "alu_co", tco, AT_IR_SERIAL), at_tmpl_loop_new(s, "alu_i", th, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "alu_j", tw, AT_IR_SERIAL), at_tmpl_loop_new(s, "alu_e", lanes, AT_IR_SERIAL)};
    const at_ir_expr *oi[4] = {v_(s, &ol[0]), v_(s, &ol[1]), v_(s, &ol[2]), v_(s, &ol[3])};
    const at_ir_expr *ri4[4] = {rco == 1 ? zero : oi[0], rth == 1 ? zero : oi[1], rtw == 1 ? zero : oi[2], oi[3]};
    const at_ir_expr *at = at_tmpl_index(s, oi, tdims, 4);
    const at_ir_expr *x = at_ir_load(s, AL, at, 1), *y = at_ir_load(s, AR, at_tmpl_index(s, ri4, rtdims, 4), 1);
    const at_ir_expr *v = a->op == AT_OP_ADD_PACKED ? at_ir_add(s, x, y) : at_ir_mul(s, x, y);
    stage[2] = at_tmpl_nest(s, ol, 4, at_ir_store(s, AL, at, v));
    /* clipA (min), clipB (max), in place */
    for (int k = 0; k < 2; k++) {
        at_tmpl_loop l = at_tmpl_loop_new(s, k == 0 ? "clip_a" : "clip_b", tile * lanes, AT_IR_SERIAL);
        const at_ir_expr *e = at_ir_load(s, AL, v_(s, &l), 1);
        e = k == 0 ? at_ir_min(s, e, at_tmpl_i(s, AT_ALU_PACKED_CLIP_HI))
                   : at_ir_max(s, e, at_tmpl_i(s, AT_ALU_PACKED_CLIP_LO));
        stage[3 + k] = at_tmpl_nest(s, &l, 1, at_ir_store(s, AL, v_(s, &l), e));
    }
    /* one STORE per x_co1 of a Th x Tw block, truncated to int8 */
    at_tmpl_loop st[4] = {at_tmpl_loop_new(s, "x_co1", tco, AT_IR_SERIAL), at_tmpl_loop_new(s, "x_i1", th, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "x_j1", tw, AT_IR_SERIAL), at_tmpl_loop_new(s, "x_e", lanes, AT_IR_SERIAL)};
    const at_ir_expr *sti[4] = {v_(s, &st[0]), v_(s, &st[1]), v_(s, &st[2]), v_(s, &st[3])};
    const at_ir_expr *ri[5] = {bo, at_ir_add(s, co_base, sti[0]), at_ir_add(s, i_base, sti[1]),
                               at_ir_add(s, j_base, sti[2]), sti[3]};
    const at_ir_expr *res = at_ir_cast(s, AT_IR_I8, at_ir_load(s, AL, at_tmpl_index(s, sti, tdims, 4), 1));
    const at_ir_stmt *store = at_tmpl_nest(s, st, 4, at_ir_store(s, O, at_tmpl_index(s, ri, gdims, 5), res));
    const at_ir_stmt *body[6] = {stage[0], stage[1], stage[2], stage[3], stage[4], store};
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, outer, 4, at_ir_seq(s, body, 6)));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_add_vta = {
    .name = "add.vta",
    .op = AT_OP_ADD_PACKED,
    .target = AT_TARGET_VTA,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .knobs_conditional = true,
};

const at_template at_tmpl_multiply_vta = {
    .name = "multiply.vta",
    .op = AT_OP_MULTIPLY_PACKED,
    .target = AT_TARGET_VTA,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .knobs_conditional = true,
};
