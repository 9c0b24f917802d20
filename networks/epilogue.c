/* The anchor epilogue fused into a template's output stores, as TVM's FuseOps puts injective ops
 * into the anchor's output stage. A store of L lanes at flat index i covers elements i .. i+L-1,
 * whose channels may differ (a dense row, a row end): the bias is gathered lane by lane, the
 * residual is one L-lane load. */
#include "networks/internal.h"

static void epi_params(at_ir_sched *s, void *ctx)
{
    at_net_fused_epilogue *e = ctx;
    if (e->a.shift) e->shift = at_ir_param(s, "epilogue_bias", AT_IR_F32, e->a.channels, AT_IR_INPUT);
    if (e->a.residual) e->residual = at_ir_param(s, "epilogue_residual", AT_IR_F32, e->a.total, AT_IR_INPUT);
}

/* e as a * k with k a constant; NULL when it is not */
static const at_ir_expr *times(const at_ir_expr *e, int64_t *k)
{
    if (e->kind != AT_IR_BINARY || e->u.bin.op != AT_IR_MUL || e->u.bin.b->kind != AT_IR_INT_IMM) return NULL;
    *k = e->u.bin.b->u.int_val;
    return e->u.bin.a;
}

/* i read as x * block + b with b a loop variable, a constant below block, or vo * L + vi (a block
 * longer than the vector split into L-lane vectors, at_tmpl_cpu_axis): how the NCHW[x]c templates
 * build an index, the block's lane last. b then runs over the lanes of one block. */
static bool split_block(const at_ir_expr *i, int64_t block, const at_ir_expr **x, const at_ir_expr **b)
{
    if (i->kind != AT_IR_BINARY || i->u.bin.op != AT_IR_ADD) return false;
    const at_ir_expr *r = i->u.bin.b;
    int64_t k, l;
    const at_ir_expr *m = times(i->u.bin.a, &k);
    if (!m || k != block) return false;
    bool lane = r->kind == AT_IR_VAR || (r->kind == AT_IR_INT_IMM && r->u.int_val >= 0 && r->u.int_val < block);
    if (!lane && r->kind == AT_IR_BINARY && r->u.bin.op == AT_IR_ADD && r->u.bin.b->kind == AT_IR_VAR) {
        const at_ir_expr *vo = times(r->u.bin.a, &l);
        lane = vo && vo->kind == AT_IR_VAR && l > 1 && block % l == 0;
    }
    if (!lane) return false;
    *x = m;
    *b = r;
    return true;
}

const at_ir_expr *at_net_affine_channel(at_ir_sched *s, const at_net_affine *a, const at_ir_expr *i)
{
    const at_ir_expr *x, *lane;
    if (a->block > 1 && split_block(i, a->block, &x, &lane)) {
        /* the channel as block number x block + lane: a loop vectorized over the lane reads
         * block consecutive channels, where i / (inner block) and i % block (below) make the
         * backend compute every lane's channel and gather (issue 16: a fused bias made
         * depthwise convolutions 3x slower than tuned) */
        const at_ir_expr *blk = at_ir_mod(s, at_ir_div(s, x, at_ir_i32(s, a->inner)), at_ir_i32(s, a->channels / a->block));
        return at_ir_add(s, at_ir_mul(s, blk, at_ir_i32(s, a->block)), lane);
    }
    if (a->block > 1) {
        const at_ir_expr *blk = at_ir_mod(s, at_ir_div(s, i, at_ir_i32(s, a->inner * a->block)),
                                          at_ir_i32(s, a->channels / a->block));
        return at_ir_add(s, at_ir_mul(s, blk, at_ir_i32(s, a->block)), at_ir_mod(s, i, at_ir_i32(s, a->block)));
    }
    if (a->inner > 1) i = at_ir_div(s, i, at_ir_i32(s, a->inner));
    return at_ir_mod(s, i, at_ir_i32(s, a->channels));
}

static const at_ir_expr *epi_apply(at_ir_sched *s, void *ctx, const at_ir_expr *index, const at_ir_expr *v)
{
    at_net_fused_epilogue *e = ctx;
    int lanes = v->type.lanes;
    AT_ASSERT(at_ir_type_eq(at_ir_type_with_lanes(AT_IR_F32, lanes), v->type));
    if (e->shift) {
        const at_ir_expr *b;
        if (lanes == 1) {
            b = at_ir_load(s, e->shift, at_net_affine_channel(s, &e->a, index), 1);
        } else if (e->a.block == lanes) {
            /* a packed output's only vectorized axis is its c block (the x86 NCHW[x]c templates):
             * a store of block lanes is one whole block, whose biases lie side by side */
            b = at_ir_load(s, e->shift, at_net_affine_channel(s, &e->a, index), lanes);
        } else {
            const at_ir_expr *lane[AT_IR_MAX_LANES];
            for (int l = 0; l < lanes; l++)
                lane[l] = at_ir_load(s, e->shift, at_net_affine_channel(s, &e->a, at_ir_add(s, index, at_ir_i32(s, l))), 1);
            b = at_ir_vector(s, lane, (size_t)lanes);
        }
        v = at_ir_add(s, v, b);
    }
    if (e->residual) v = at_ir_add(s, v, at_ir_load(s, e->residual, index, lanes));
    if (e->a.relu) v = at_ir_max(s, v, at_ir_broadcast(s, at_ir_f32(s, 0), lanes));
    return v;
}

void at_net_fused_epilogue_init(at_net_fused_epilogue *e, const at_net_affine *a)
{
    *e = (at_net_fused_epilogue){.a = *a, .epi = {.params = epi_params, .apply = epi_apply}};
    e->epi.ctx = e;
}
