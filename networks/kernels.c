/* IR programs for everything in a network that is not a tuned anchor: the anchors' epilogues
 * and the element-wise ops (one affine kernel family), pooling, concatenation and softmax
 * (tensor_ops.c has the layout and broadcasting ops). Each
 * is a plain data-parallel kernel -- one work-item per output element (per row for softmax) in
 * groups of up to 64 along blockIdx.x / threadIdx.x with a bounds guard -- so any backend that
 * runs the templates' programs runs these too. */
#include <float.h>
#include <stdio.h>

#include "core/intmath.h"
#include "networks/internal.h"

enum { GROUP = 64 };

typedef const at_ir_expr *E;

static E i32(at_ir_sched *s, int64_t v)
{
    return at_ir_i32(s, v);
}

/* for bx, tx: let i = bx * L + tx in (if i < total) body -- body built on i beforehand. */
const at_ir_stmt *at_net_grid(at_ir_sched *s, const at_ir_var *i, int64_t total, const at_ir_stmt *body)
{
    int64_t local = total < GROUP ? total : GROUP, groups = (total + local - 1) / local;
    const at_ir_var *bx = at_ir_var_new(s, "bx", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    if (groups * local != total) body = at_ir_if(s, at_ir_bin(s, AT_IR_LT, at_ir_v(s, i), i32(s, total)), body, NULL);
    body = at_ir_let(s, i, at_ir_add(s, at_ir_mul(s, at_ir_v(s, bx), i32(s, local)), at_ir_v(s, tx)), body);
    body = at_ir_for(s, tx, local, AT_IR_THREAD_X, body);
    return at_ir_for(s, bx, groups, AT_IR_BLOCK_X, body);
}

static at_status finish(at_ir_sched *s, const at_ir_program **out)
{
    AT_TRY(at_ir_sched_finish(s, out));
    return at_ir_verify(*out);
}

/* Lanes of one grid point: the largest power of two up to AT_IR_MAX_LANES dividing n. */
static int64_t lanes_dividing(int64_t n)
{
    int64_t lanes = 1;
    for (int64_t l = AT_IR_MAX_LANES; l > 1 && lanes == 1; l /= 2)
        if (n % l == 0) lanes = l;
    return lanes;
}

/* A grid point is L lanes: in NCHW[block]c L consecutive channels of one block (their parameters
 * side by side), in NCHW L positions of one channel (its parameters broadcast). */
at_status at_net_prog_affine(at_arena *arena, const char *name, const at_net_affine *a, const at_ir_program **out)
{
    *out = NULL;
    at_ir_sched *s = at_ir_sched_begin(arena, name);
    if (!s) return AT_OOM();
    bool blocked = a->block > 1;
    int64_t lanes = lanes_dividing(blocked ? a->block : a->inner > 1 ? a->inner : 1);
    int l = (int)lanes;
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, a->total, AT_IR_INPUT);
    const at_ir_buffer *scale = a->scale ? at_ir_param(s, "scale", AT_IR_F32, a->channels, AT_IR_INPUT) : NULL;
    const at_ir_buffer *shift = a->shift ? at_ir_param(s, "shift", AT_IR_F32, a->channels, AT_IR_INPUT) : NULL;
    const at_ir_buffer *res = a->residual ? at_ir_param(s, "residual", AT_IR_F32, a->total, AT_IR_INPUT) : NULL;
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, a->total, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32);
    E at = at_ir_mul(s, at_ir_v(s, i), i32(s, lanes));
    E c;
    if (blocked && l > 1) { /* at_net_affine_channel's channel, spelled so the verifier's bounds see lanes stay in the block */
        E iv = at_ir_v(s, i);
        E blk = at_ir_mod(s, at_ir_div(s, iv, i32(s, a->inner * a->block / lanes)), i32(s, a->channels / a->block));
        c = at_ir_add(s, at_ir_mul(s, blk, i32(s, a->block)), at_ir_mul(s, at_ir_mod(s, iv, i32(s, a->block / lanes)), i32(s, lanes)));
    } else {
        c = at_net_affine_channel(s, a, at);
    }
    E v = at_ir_load(s, x, at, l);
    if (scale) {
        E k = blocked || l == 1 ? at_ir_load(s, scale, c, l) : at_ir_broadcast(s, at_ir_load(s, scale, c, 1), l);
        v = at_ir_mul(s, v, k);
    }
    if (shift) {
        E k = blocked || l == 1 ? at_ir_load(s, shift, c, l) : at_ir_broadcast(s, at_ir_load(s, shift, c, 1), l);
        v = at_ir_add(s, v, k);
    }
    if (res) v = at_ir_add(s, v, at_ir_load(s, res, at, l));
    if (a->relu) v = at_ir_max(s, v, l > 1 ? at_ir_broadcast(s, at_ir_f32(s, 0), l) : at_ir_f32(s, 0));
    at_ir_add_kernel(s, name, at_net_grid(s, i, a->total / lanes, at_ir_store(s, y, at, v)));
    return finish(s, out);
}

/* Is tap (y, x) in rows [y_lo, y_hi) and columns [x_lo, x_hi)? */
static E tap_within(at_ir_sched *s, E y, E x, int64_t y_lo, int64_t y_hi, int64_t x_lo, int64_t x_hi)
{
    return at_ir_bin(s, AT_IR_AND,
                     at_ir_bin(s, AT_IR_AND, at_ir_bin(s, AT_IR_GE, y, i32(s, y_lo)), at_ir_bin(s, AT_IR_LT, y, i32(s, y_hi))),
                     at_ir_bin(s, AT_IR_AND, at_ir_bin(s, AT_IR_GE, x, i32(s, x_lo)), at_ir_bin(s, AT_IR_LT, x, i32(s, x_hi))));
}

/* Pooling in NCHW (block 1) or NCHW[block]c, the layout of the conv before it (TVM's
 * alter_op_layout keeps pooling in NCHWc): a grid point is L lanes of one block -- the window and
 * its bounds are the same for every channel of a block, so the lanes load side by side. */
at_status at_net_prog_pool(at_arena *arena, const at_net_node *n, const at_net_node *in, int64_t block,
                           const at_ir_program **out)
{
    *out = NULL;
    at_ir_sched *s = at_ir_sched_begin(arena, n->name);
    if (!s) return AT_OOM();
    const at_net_attrs *a = &n->attrs;
    bool avg = n->op == AT_NET_AVG_POOL2D;
    int64_t b = block > 1 ? block : 1, lanes = lanes_dividing(b);
    int64_t ih = in->shape[2], iw = in->shape[3], oh = n->shape[2], ow = n->shape[3], total = at_net_node_numel(n);
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, at_net_node_numel(in), AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, total, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, lanes, AT_IR_PRIVATE); /* max or sum */
    const at_ir_buffer *cnt_buf = at_ir_alloc(s, "cnt", AT_IR_F32, 1, AT_IR_PRIVATE); /* the divisor */
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32), *kh = at_ir_var_new(s, "kh", AT_IR_I32),
                    *kw = at_ir_var_new(s, "kw", AT_IR_I32);
    E iv = at_ir_v(s, i), zero = i32(s, 0);
    /* i: (n c/b, h, w, b/lanes) of the output, lanes channels each */
    int64_t per_block = b / lanes;
    E sub = at_ir_mod(s, iv, i32(s, per_block)), pos = at_ir_div(s, iv, i32(s, per_block));
    E w = at_ir_mod(s, pos, i32(s, ow)), h = at_ir_mod(s, at_ir_div(s, pos, i32(s, ow)), i32(s, oh));
    E nc = at_ir_div(s, pos, i32(s, ow * oh));
    E y0 = at_ir_sub(s, at_ir_add(s, at_ir_mul(s, h, i32(s, a->stride[0])), at_ir_v(s, kh)), i32(s, a->pad[0]));
    E x0 = at_ir_sub(s, at_ir_add(s, at_ir_mul(s, w, i32(s, a->stride[1])), at_ir_v(s, kw)), i32(s, a->pad[1]));
    E src = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, nc, i32(s, ih)), y0), i32(s, iw)), x0),
                                   i32(s, b)),
                      at_ir_mul(s, sub, i32(s, lanes)));
    E v = at_ir_load(s, x, src, (int)lanes), m = at_ir_load(s, acc, zero, (int)lanes), cnt = at_ir_load(s, cnt_buf, zero, 1);
    /* Without padding, and with no ceil_mode window past the input, every tap is inside: no test
     * per tap then (squeezenet's 3x3 stride-2 poolings) */
    bool all_inside = !a->pad[0] && !a->pad[1] && (oh - 1) * a->stride[0] + a->kernel[0] <= ih &&
                      (ow - 1) * a->stride[1] + a->kernel[1] <= iw;
    const at_ir_stmt *upd = at_ir_store(s, acc, zero, avg ? at_ir_add(s, m, v) : at_ir_max(s, m, v));
    E inside = all_inside ? NULL : tap_within(s, y0, x0, 0, ih, 0, iw);
    if (inside) upd = at_ir_if(s, inside, upd, NULL);
    if (avg) {
        /* the divisor: the window's input elements, or with count_include_pad every position
         * inside the padded input (not those ceil_mode adds past it) */
        const at_ir_stmt *count = at_ir_store(s, cnt_buf, zero, at_ir_add(s, cnt, at_ir_f32(s, 1)));
        E counted = inside && a->count_include_pad
                        ? tap_within(s, y0, x0, -a->pad[0], ih + a->pad[2], -a->pad[1], iw + a->pad[3])
                        : inside;
        upd = at_ir_seq2(s, upd, counted ? at_ir_if(s, counted, count, NULL) : count);
    }
    E init = at_ir_f32(s, avg ? 0 : -FLT_MAX), res = m;
    if (lanes > 1) init = at_ir_broadcast(s, init, (int)lanes);
    if (avg) res = at_ir_div(s, m, lanes > 1 ? at_ir_broadcast(s, cnt, (int)lanes) : cnt);
    const at_ir_stmt *items[4] = {
        at_ir_store(s, acc, zero, init),
        at_ir_store(s, cnt_buf, zero, at_ir_f32(s, 0)),
        at_ir_for(s, kh, a->kernel[0], AT_IR_SERIAL, at_ir_for(s, kw, a->kernel[1], AT_IR_SERIAL, upd)),
        at_ir_store(s, y, at_ir_mul(s, iv, i32(s, lanes)), res),
    };
    at_ir_add_kernel(s, n->name, at_net_grid(s, i, total / lanes, at_ir_seq(s, items, 4)));
    return finish(s, out);
}

at_status at_net_prog_global_avg_pool(at_arena *arena, const at_net_node *n, const at_net_node *in, int64_t in_block,
                                      const at_ir_program **out)
{
    *out = NULL;
    at_ir_sched *s = at_ir_sched_begin(arena, n->name);
    if (!s) return AT_OOM();
    int64_t b = in_block > 1 ? in_block : 1, hw = in->shape[2] * in->shape[3], total = at_net_node_numel(n);
    /* blocked, a grid point sums `lanes` neighbouring channels of one block, a vector per pixel */
    int64_t lanes = lanes_dividing(b);
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, at_net_node_numel(in), AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, total, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, lanes, AT_IR_PRIVATE);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32), *k = at_ir_var_new(s, "k", AT_IR_I32);
    E iv = at_ir_v(s, i), zero = i32(s, 0);
    /* channel index n * C + c = i * lanes; in NCHW[b]c its pixel k lies at ((i * lanes / b) * hw + k) * b
     * + i * lanes % b (b divides C; b = 1 is NCHW) */
    E blk = at_ir_div(s, iv, i32(s, b / lanes)), in_blk = at_ir_mul(s, at_ir_mod(s, iv, i32(s, b / lanes)), i32(s, lanes));
    E src = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, blk, i32(s, hw)), at_ir_v(s, k)), i32(s, b)), in_blk);
    E sum = at_ir_load(s, acc, zero, (int)lanes), init = at_ir_f32(s, 0), div = at_ir_f32(s, (double)hw);
    if (lanes > 1) {
        init = at_ir_broadcast(s, init, (int)lanes);
        div = at_ir_broadcast(s, div, (int)lanes);
    }
    const at_ir_stmt *items[3] = {
        at_ir_store(s, acc, zero, init),
        at_ir_for(s, k, hw, AT_IR_SERIAL, at_ir_store(s, acc, zero, at_ir_add(s, sum, at_ir_load(s, x, src, (int)lanes)))),
        at_ir_store(s, y, at_ir_mul(s, iv, i32(s, lanes)), at_ir_div(s, sum, div)),
    };
    at_ir_add_kernel(s, n->name, at_net_grid(s, i, total / lanes, at_ir_seq(s, items, 3)));
    return finish(s, out);
}

at_status at_net_prog_concat(at_arena *arena, const at_net *net, const at_net_node *n, const at_ir_program **out)
{
    *out = NULL;
    at_ir_sched *s = at_ir_sched_begin(arena, n->name);
    if (!s) return AT_OOM();
    int64_t axis = n->attrs.axis, outer = 1, inner = 1, c_out = n->shape[axis], off = 0;
    for (int64_t d = 0; d < axis; d++) outer *= n->shape[d];
    for (size_t d = (size_t)axis + 1; d < n->ndim; d++) inner *= n->shape[d];
    const at_ir_buffer *xs[AT_NET_MAX_INPUTS];
    for (size_t k = 0; k < n->n_inputs; k++)
        xs[k] = at_ir_param(s, "x", AT_IR_F32, at_net_node_numel(at_net_node_at(net, n->inputs[k])), AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, at_net_node_numel(n), AT_IR_OUTPUT);
    /* one kernel per input: y[b][off + c][r] = x_k[b][c][r] (b over the axes before, r after).
     * Input k is a run of ck * inner values per b, copied to one run of y: a grid point copies
     * `lanes` of them, a vector that stays inside its run (a channel concatenation in NCHW[x]c
     * is such runs of whole blocks too). */
    for (size_t k = 0; k < n->n_inputs; k++) {
        int64_t ck = at_net_node_at(net, n->inputs[k])->shape[axis], run = ck * inner, total = outer * run;
        int64_t lanes = lanes_dividing(run);
        const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32);
        E iv = at_ir_v(s, i), at = at_ir_mul(s, iv, i32(s, lanes));
        E b = at_ir_div(s, iv, i32(s, run / lanes)), rest = at_ir_mul(s, at_ir_mod(s, iv, i32(s, run / lanes)), i32(s, lanes));
        E dst = at_ir_add(s, at_ir_mul(s, b, i32(s, c_out * inner)), at_ir_add(s, i32(s, off * inner), rest));
        char kname[160];
        snprintf(kname, sizeof kname, "%s_%zu", n->name, k);
        const char *kn = at_arena_strdup(at_ir_sched_arena(s), kname);
        if (!kn) return AT_OOM();
        at_ir_add_kernel(s, kn, at_net_grid(s, i, total / lanes, at_ir_store(s, y, dst, at_ir_load(s, xs[k], at, (int)lanes))));
        off += ck;
    }
    return finish(s, out);
}

at_status at_net_prog_softmax(at_arena *arena, const at_net_node *n, const at_ir_program **out)
{
    *out = NULL;
    at_ir_sched *s = at_ir_sched_begin(arena, n->name);
    if (!s) return AT_OOM();
    int64_t total = at_net_node_numel(n), cols = n->shape[n->ndim - 1], rows = total / cols;
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, total, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, total, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "acc", AT_IR_F32, 2, AT_IR_PRIVATE); /* max, sum */
    const at_ir_var *r = at_ir_var_new(s, "r", AT_IR_I32), *c0 = at_ir_var_new(s, "c", AT_IR_I32),
                    *c1 = at_ir_var_new(s, "c", AT_IR_I32), *c2 = at_ir_var_new(s, "c", AT_IR_I32);
    E zero = i32(s, 0), one = i32(s, 1), base = at_ir_mul(s, at_ir_v(s, r), i32(s, cols));
    E mx = at_ir_load(s, acc, zero, 1), sum = at_ir_load(s, acc, one, 1);
    E x0 = at_ir_load(s, x, at_ir_add(s, base, at_ir_v(s, c0)), 1);
    E arg1 = at_ir_sub(s, at_ir_load(s, x, at_ir_add(s, base, at_ir_v(s, c1)), 1), mx);
    E arg2 = at_ir_sub(s, at_ir_load(s, x, at_ir_add(s, base, at_ir_v(s, c2)), 1), mx);
    E e1 = at_ir_call(s, "exp", AT_IR_F32, &arg1, 1), e2 = at_ir_call(s, "exp", AT_IR_F32, &arg2, 1);
    const at_ir_stmt *items[5] = {
        at_ir_store(s, acc, zero, at_ir_f32(s, -FLT_MAX)),
        at_ir_for(s, c0, cols, AT_IR_SERIAL, at_ir_store(s, acc, zero, at_ir_max(s, mx, x0))),
        at_ir_store(s, acc, one, at_ir_f32(s, 0)),
        at_ir_for(s, c1, cols, AT_IR_SERIAL, at_ir_store(s, acc, one, at_ir_add(s, sum, e1))),
        at_ir_for(s, c2, cols, AT_IR_SERIAL, at_ir_store(s, y, at_ir_add(s, base, at_ir_v(s, c2)), at_ir_div(s, e2, sum))),
    };
    at_ir_add_kernel(s, n->name, at_net_grid(s, r, rows, at_ir_seq(s, items, 5)));
    return finish(s, out);
}

/* The largest divisor of n that is at most cap. */
static int64_t divisor_below(int64_t n, int64_t cap)
{
    for (int64_t d = cap < n ? cap : n; d > 1; d--)
        if (n % d == 0) return d;
    return 1;
}

at_status at_net_prog_layout(at_arena *arena, const char *name, int64_t n, int64_t c, int64_t hw, int64_t from_bn,
                             int64_t to_bn, const at_ir_program **out)
{
    *out = NULL;
    AT_ASSERT(from_bn >= 1 && to_bn >= 1 && c % from_bn == 0 && c % to_bn == 0);
    at_ir_sched *s = at_ir_sched_begin(arena, name);
    if (!s) return AT_OOM();
    const int64_t total = n * c * hw, cb = c / to_bn, rows = n * cb;
    const at_ir_buffer *x = at_ir_param(s, "x", AT_IR_F32, total, AT_IR_INPUT);
    const at_ir_buffer *y = at_ir_param(s, "y", AT_IR_F32, total, AT_IR_OUTPUT);
    /* A CPU loop nest (only the x86 NCHW[x]c anchors need layout copies). A destination pixel's
     * to_bn lanes are runs of g = gcd(from_bn, to_bn) channels that lie side by side in one source
     * block: each run is one vector copy. The (n, block) rows, split along the pixels into at least
     * 16 parts where the pixels allow, go over the thread pool (a 64-channel tensor in 64-lane
     * blocks is one row). Pixels, then runs: the writes run contiguously. */
    const int64_t g = at_gcd(from_bn, to_bn), runs = to_bn / g, vl = divisor_below(g, 16), parts0 = (16 + rows - 1) / rows;
    int64_t parts = 1;
    while (parts < parts0 && parts < hw) parts++;
    while (hw % parts) parts++;
    const int64_t span = hw / parts;
    const at_ir_var *r = at_ir_var_new(s, "nblk.part", AT_IR_I32), *pv = at_ir_var_new(s, "p", AT_IR_I32),
                    *jv = at_ir_var_new(s, "run", AT_IR_I32), *vo = at_ir_var_new(s, "lane.outer", AT_IR_I32),
                    *vi = at_ir_var_new(s, "lane", AT_IR_I32);
    E rv = at_ir_div(s, at_ir_v(s, r), i32(s, parts));
    E p = at_ir_add(s, at_ir_mul(s, at_ir_mod(s, at_ir_v(s, r), i32(s, parts)), i32(s, span)), at_ir_v(s, pv));
    E lane = at_ir_add(s, at_ir_mul(s, at_ir_v(s, vo), i32(s, vl)), at_ir_v(s, vi));
    E nn = at_ir_div(s, rv, i32(s, cb)), blk = at_ir_mod(s, rv, i32(s, cb));
    /* the run's first channel in units of g: its source block and run within that block */
    E run = at_ir_add(s, at_ir_mul(s, blk, i32(s, runs)), at_ir_v(s, jv));
    const int64_t src_runs = from_bn / g;
    E dst = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, rv, i32(s, hw)), p), i32(s, to_bn)),
                      at_ir_add(s, at_ir_mul(s, at_ir_v(s, jv), i32(s, g)), lane));
    E sblk = at_ir_add(s, at_ir_mul(s, nn, i32(s, c / from_bn)), src_runs > 1 ? at_ir_div(s, run, i32(s, src_runs)) : run);
    E soff = src_runs > 1 ? at_ir_add(s, at_ir_mul(s, at_ir_mod(s, run, i32(s, src_runs)), i32(s, g)), lane) : lane;
    E src = at_ir_add(s, at_ir_mul(s, at_ir_add(s, at_ir_mul(s, sblk, i32(s, hw)), p), i32(s, from_bn)), soff);
    const at_ir_stmt *body = at_ir_store(s, y, dst, at_ir_load(s, x, src, 1));
    body = at_ir_for(s, vi, vl, vl > 1 ? AT_IR_VECTORIZED : AT_IR_SERIAL, body);
    body = at_ir_for(s, vo, g / vl, AT_IR_UNROLLED, body);
    body = at_ir_for(s, jv, runs, runs <= 16 ? AT_IR_UNROLLED : AT_IR_SERIAL, body);
    body = at_ir_for(s, pv, span, AT_IR_SERIAL, body);
    at_ir_add_kernel(s, name, at_ir_for(s, r, rows * parts, AT_IR_PARALLEL, body));
    return finish(s, out);
}
