/* conv2d_nchw.cuda: TVM v0.18's direct GPU convolution (topi/cuda/conv2d.py on topi's
 * nn.conv2d_nchw, schedule conv2d_direct.py schedule_direct_cuda). Knobs, in TVM's order: tile_f,
 * tile_y, tile_x (4-way splits of the output's channels, rows and columns: blocks, virtual
 * threads, threads, per-thread), tile_rc, tile_ry, tile_rx (2-way splits of the reductions),
 * auto_unroll_max_step [0, 512, 1500] and unroll_explicit [0, 1] (the candidates of target kinds
 * other than nvptx / rocm).
 *
 * One kernel, built in the shape TVM's lowering gives it: blockIdx.z/y/x = (n fused with the
 * channel blocks), row blocks, column blocks; threadIdx.z/y/x = the thread parts. The cached
 * output OL (private, attached at threadIdx.x) is zeroed, then for every (rco, ryo, rxo) the work-
 * group fetches the padded-data window AA and the kernel slice WW into local memory (each stage's
 * axes fused, split by the three thread extents, a tail guard where a split does not divide,
 * barriers around), then accumulates over rci, ryi, rxi, fi, yi, xi. The virtual threads are
 * injected as TVM's InjectVirtualThread does: pushed down to each statement that touches OL,
 * which is repeated per virtual thread (a serial loop for 16 and more), innermost-injected
 * thread outermost, and OL grows to [vf][vy][vx][fi][yi][xi]. The padding stage is inlined into
 * the AA fetch. Dilation is in the index (v0.18's nn.conv computes pad[.. y sh + ry dh ..]; it
 * no longer builds a dilated kernel), so AA covers (YT - 1) sh + (RYI - 1) dh + 1 rows. Loops of
 * one iteration are left out, as TVM's loop nests drop them. The auto_unroll_max_step /
 * unroll_explicit pragmas on the kernel scope cover the whole kernel.
 *
 * FLOPs: cfg.add_flop(2 N OH OW CO CI KH KW) (no pad term). Fallback: TVM's reference-log
 * fallback over TopHub's records of this template for the target kind, here opencl (pack
 * opencl_v0.04; model "unknown" is not in it, so load_reference_log takes the model with the most
 * records, 1080ti). */
#include "core/intmath.h"
#include "ir/unroll.h"
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_F, TILE_Y, TILE_X, TILE_RC, TILE_RY, TILE_RX, AUTO_UNROLL_MAX_STEP, UNROLL_EXPLICIT, N_KNOBS };

/* InjectVirtualThread unrolls a virtual thread of fewer iterations, else makes a serial loop. */
enum { VTHREAD_UNROLL_BELOW = 16 };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    static const int64_t max_step[3] = {0, 512, 1500}, explicit_[2] = {0, 1};
    AT_TRY(at_space_split_ex(s, TILE_F, "tile_f", g.co, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_split_ex(s, TILE_Y, "tile_y", g.oh, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_split_ex(s, TILE_X, "tile_x", g.ow, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_split_ex(s, TILE_RC, "tile_rc", g.ci, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, TILE_RY, "tile_ry", g.kh, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_split_ex(s, TILE_RX, "tile_rx", g.kw, &(at_split_opts){.num_outputs = 2}));
    AT_TRY(at_space_other(s, AUTO_UNROLL_MAX_STEP, "auto_unroll_max_step", max_step, 3));
    return at_space_other(s, UNROLL_EXPLICIT, "unroll_explicit", explicit_, 2);
}

static double flop(const at_args *args)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    return 2.0 * (double)g.n * (double)g.oh * (double)g.ow * (double)g.co * (double)g.ci * (double)g.kh * (double)g.kw;
}

/* One axis of a loop nest: a loop, or the constant 0 when it has one iteration. */
typedef struct axis {
    at_tmpl_loop      l; /* l.var NULL: no loop */
    const at_ir_expr *e;
} axis;

static axis axis_new(at_ir_sched *s, const char *name, int64_t extent)
{
    axis a = {{0}, at_tmpl_i(s, 0)};
    if (extent > 1) {
        a.l = at_tmpl_loop_new(s, name, extent, AT_IR_SERIAL);
        a.e = at_ir_v(s, a.l.var);
    }
    return a;
}

static const at_ir_stmt *nest(at_ir_sched *s, const axis *ax, size_t n, const at_ir_stmt *body)
{
    for (size_t k = n; k-- > 0;)
        if (ax[k].l.var) body = at_ir_for(s, ax[k].l.var, ax[k].l.extent, ax[k].l.kind, body);
    return body;
}

/* A non-negative linear index: k + sum coeff * e over terms e in 0..max (the fused index of a
 * cooperative fetch: thread ids and the serial part). */
typedef struct lin {
    struct {
        const at_ir_expr *e;
        int64_t           coeff, max;
    } t[4];
    size_t  n;
    int64_t k;
} lin;

static int64_t lin_max(const lin *x)
{
    int64_t m = x->k;
    for (size_t i = 0; i < x->n; i++) m += x->t[i].coeff * x->t[i].max;
    return m;
}

static void lin_add(lin *x, const at_ir_expr *e, int64_t coeff, int64_t max)
{
    AT_ASSERT(x->n < 4);
    if (coeff == 0 || max == 0) return;
    x->t[x->n].e = e, x->t[x->n].coeff = coeff, x->t[x->n].max = max;
    x->n++;
}

static const at_ir_expr *lin_expr(at_ir_sched *s, const lin *x)
{
    const at_ir_expr *e = NULL;
    for (size_t i = 0; i < x->n; i++) {
        const at_ir_expr *t = x->t[i].coeff == 1 ? x->t[i].e : at_ir_mul(s, x->t[i].e, at_tmpl_i(s, x->t[i].coeff));
        e = e ? at_ir_add(s, e, t) : t;
    }
    if (!e) return at_tmpl_i(s, x->k);
    return x->k ? at_ir_add(s, e, at_tmpl_i(s, x->k)) : e;
}

/* x / d (op AT_IR_DIV) or x % d (AT_IR_MOD) with the common factor g of x's coefficients, its
 * constant and d taken out first: (tx 5 + 1) / 10 stays, (tx 5) / 10 is tx / 2, (tx 5) % 10 is
 * (tx % 2) 5. */
static const at_ir_expr *div_or_mod(at_ir_sched *s, const lin *x, at_ir_binop op, int64_t d)
{
    int64_t g = at_gcd(x->k, d);
    for (size_t i = 0; i < x->n; i++) g = at_gcd(x->t[i].coeff, g);
    lin y = *x;
    y.k /= g;
    for (size_t i = 0; i < y.n; i++) y.t[i].coeff /= g;
    const at_ir_expr *e = lin_expr(s, &y);
    if (d / g > 1) e = at_ir_bin(s, op, e, at_tmpl_i(s, d / g));
    if (op == AT_IR_DIV || g == 1) return e;
    return at_ir_mul(s, e, at_tmpl_i(s, g));
}

/* x / d % m (m 0: no modulo) for x <= x_max, as TVM's simplifier leaves it: the terms d divides
 * leave the division ((tz 40 + tx 5 + 1) / 10 is tz 4 + (tx 5 + 1) / 10), the terms m divides
 * leave the modulo, and a division or modulo the range makes an identity goes. */
static const at_ir_expr *div_mod(at_ir_sched *s, const lin *x, int64_t x_max, int64_t d, int64_t m)
{
    lin q = {.k = x->k / d}, r = {.k = x->k % d};
    for (size_t i = 0; i < x->n; i++) {
        if (x->t[i].coeff % d == 0)
            lin_add(&q, x->t[i].e, x->t[i].coeff / d, x->t[i].max);
        else
            lin_add(&r, x->t[i].e, x->t[i].coeff, x->t[i].max);
    }
    int64_t r_max = lin_max(&r);
    if (r_max >= d) lin_add(&q, div_or_mod(s, &r, AT_IR_DIV, d), 1, r_max / d);
    if (m == 0 || x_max / d < m) return lin_expr(s, &q);
    lin qm = {.k = q.k % m};
    for (size_t i = 0; i < q.n; i++)
        if (q.t[i].coeff % m) lin_add(&qm, q.t[i].e, q.t[i].coeff % m, q.t[i].max);
    if (lin_max(&qm) < m) return lin_expr(s, &qm);
    return div_or_mod(s, &qm, AT_IR_MOD, m);
}

/* A reduction split as TVM applies a record's sizes: by the inner size (at_tmpl_split_inner). An
 * inner size past the axis (TopHub's 2018 records of 7x1 kernels carry tile_rx [1, 7] for an axis
 * of 1: their tile_rx / tile_ry were renamed when TVM stopped applying them crosswise) runs as
 * TVM's guarded split does, one outer iteration with the inner loop cut at the axis; TVM's bound
 * inference would still size AA for the whole inner extent (reading past an unpadded edge), this
 * window stops at the axis. */
static at_status reduce_split(const at_config *c, size_t knob, int64_t extent, int64_t parts[2])
{
    int64_t sz[2];
    at_config_split(c, knob, sz, 2);
    if (sz[1] > extent) {
        parts[0] = 1;
        parts[1] = extent;
        return AT_OK;
    }
    return at_tmpl_split_inner(c, knob, extent, 2, parts);
}

/* The config's tiles and the kernel's variables the stages share. */
typedef struct conv {
    at_conv2d_geom      g;
    at_ir_type          ot;
    int64_t             f[4], y[4], x[4], rc[2], ry[2], rx[2]; /* split parts, outer first */
    int64_t             ft, yt, xt;                           /* a block's tile: v * t * i */
    int64_t             ah, aw;                               /* AA window rows, columns */
    const at_ir_buffer *data, *kernel, *out, *ol, *aa, *ww;
    const at_ir_expr   *n, *bf, *by, *bx, *tid[3];            /* tid: threadIdx.z/y/x (f, y, x) */
    const at_ir_expr   *rco, *ryo, *rxo;
} conv;

/* ---- virtual threads ------------------------------------------------------------------------ */

/* A statement of one virtual thread (v[0..2] = vf, vy, vx) and the loop variables around it. */
typedef const at_ir_stmt *(*vt_stmt_fn)(at_ir_sched *s, const conv *cv, const void *ctx, const at_ir_expr *const v[3]);

/* body repeated over the virtual threads from level `level` in (0: vx, 1: vy, 2: vf, the order
 * InjectVirtualThread leaves them in: the innermost thread is injected first). */
static const at_ir_stmt *vthreads(at_ir_sched *s, const conv *cv, int level, const at_ir_expr *v[3], vt_stmt_fn fn,
                                  const void *ctx)
{
    if (level == 3) return fn(s, cv, ctx, v);
    int d = 2 - level;
    int64_t ext = d == 0 ? cv->f[1] : d == 1 ? cv->y[1] : cv->x[1];
    static const char *const names[3] = {"vf_s", "vy_s", "vx_s"};
    if (ext >= VTHREAD_UNROLL_BELOW) {
        const at_ir_var *var = at_ir_var_new(s, names[d], AT_IR_I32);
        v[d] = at_ir_v(s, var);
        return at_ir_for(s, var, ext, AT_IR_SERIAL, vthreads(s, cv, level + 1, v, fn, ctx));
    }
    const at_ir_stmt **items = at_arena_alloc(at_ir_sched_arena(s), (size_t)ext * sizeof *items);
    if (!items) return NULL;
    for (int64_t i = 0; i < ext; i++) {
        v[d] = at_tmpl_i(s, i);
        items[i] = vthreads(s, cv, level + 1, v, fn, ctx);
    }
    return ext == 1 ? items[0] : at_ir_seq(s, items, (size_t)ext);
}

static const at_ir_stmt *per_vthread(at_ir_sched *s, const conv *cv, vt_stmt_fn fn, const void *ctx)
{
    const at_ir_expr *v[3] = {NULL, NULL, NULL};
    return vthreads(s, cv, 0, v, fn, ctx);
}

/* ---- OL and the output ---------------------------------------------------------------------- */

/* Loop variables of OL's spatial part (fi, yi, xi) and, in the update, its reductions. */
typedef struct ol_loops {
    const at_ir_expr *fi, *yi, *xi, *rci, *ryi, *rxi;
} ol_loops;

static const at_ir_expr *ol_index(at_ir_sched *s, const conv *cv, const ol_loops *in, const at_ir_expr *const v[3])
{
    const at_ir_expr *i[6] = {v[0], v[1], v[2], in->fi, in->yi, in->xi};
    const int64_t d[6] = {cv->f[1], cv->y[1], cv->x[1], cv->f[3], cv->y[3], cv->x[3]};
    return at_tmpl_index(s, i, d, 6);
}

/* A block-tile coordinate v * (T I) + t I + i of split parts p. */
static const at_ir_expr *in_tile(at_ir_sched *s, const int64_t p[4], const at_ir_expr *v, const at_ir_expr *t,
                                 const at_ir_expr *i)
{
    return at_ir_add(s, at_ir_add(s, at_ir_mul(s, v, at_tmpl_i(s, p[2] * p[3])), at_ir_mul(s, t, at_tmpl_i(s, p[3]))), i);
}

static const at_ir_stmt *init_one(at_ir_sched *s, const conv *cv, const void *ctx, const at_ir_expr *const v[3])
{
    return at_ir_store(s, cv->ol, ol_index(s, cv, ctx, v), at_tmpl_f(s, cv->ot, 0));
}

static const at_ir_stmt *update_one(at_ir_sched *s, const conv *cv, const void *ctx, const at_ir_expr *const v[3])
{
    const ol_loops *in = ctx;
    const at_conv2d_geom *g = &cv->g;
    const at_ir_expr *oi = ol_index(s, cv, in, v);
    /* AA[rci][yy sh + ryi dh][xx sw + rxi dw], yy / xx the output row / column in the block */
    const at_ir_expr *yy = in_tile(s, cv->y, v[1], cv->tid[1], in->yi), *xx = in_tile(s, cv->x, v[2], cv->tid[2], in->xi);
    const at_ir_expr *ai[3] = {in->rci,
                               at_ir_add(s, at_ir_mul(s, yy, at_tmpl_i(s, g->sh)), at_ir_mul(s, in->ryi, at_tmpl_i(s, g->dh))),
                               at_ir_add(s, at_ir_mul(s, xx, at_tmpl_i(s, g->sw)), at_ir_mul(s, in->rxi, at_tmpl_i(s, g->dw)))};
    const int64_t ad[3] = {cv->rc[1], cv->ah, cv->aw};
    /* WW[ff][rci][ryi][rxi] */
    const at_ir_expr *wi[4] = {in_tile(s, cv->f, v[0], cv->tid[0], in->fi), in->rci, in->ryi, in->rxi};
    const int64_t wd[4] = {cv->ft, cv->rc[1], cv->ry[1], cv->rx[1]};
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, cv->ot, at_ir_load(s, cv->aa, at_tmpl_index(s, ai, ad, 3), 1)),
                                       at_tmpl_cast(s, cv->ot, at_ir_load(s, cv->ww, at_tmpl_index(s, wi, wd, 4), 1)));
    return at_ir_store(s, cv->ol, oi, at_ir_add(s, at_ir_load(s, cv->ol, oi, 1), prod));
}

static const at_ir_stmt *store_one(at_ir_sched *s, const conv *cv, const void *ctx, const at_ir_expr *const v[3])
{
    const ol_loops *in = ctx;
    const at_conv2d_geom *g = &cv->g;
    const at_ir_expr *f = at_ir_add(s, at_ir_mul(s, cv->bf, at_tmpl_i(s, cv->ft)), in_tile(s, cv->f, v[0], cv->tid[0], in->fi));
    const at_ir_expr *y = at_ir_add(s, at_ir_mul(s, cv->by, at_tmpl_i(s, cv->yt)), in_tile(s, cv->y, v[1], cv->tid[1], in->yi));
    const at_ir_expr *x = at_ir_add(s, at_ir_mul(s, cv->bx, at_tmpl_i(s, cv->xt)), in_tile(s, cv->x, v[2], cv->tid[2], in->xi));
    const at_ir_expr *oi[4] = {cv->n, f, y, x};
    const int64_t od[4] = {g->n, g->co, g->oh, g->ow};
    return at_ir_store(s, cv->out, at_tmpl_index(s, oi, od, 4), at_ir_load(s, cv->ol, ol_index(s, cv, in, v), 1));
}

/* The fi, yi, xi loops of an OL stage around its per-virtual-thread statements. */
static const at_ir_stmt *spatial_stage(at_ir_sched *s, const conv *cv, ol_loops *in, axis *ax, vt_stmt_fn fn)
{
    ax[0] = axis_new(s, "ff", cv->f[3]);
    ax[1] = axis_new(s, "yy", cv->y[3]);
    ax[2] = axis_new(s, "xx", cv->x[3]);
    in->fi = ax[0].e, in->yi = ax[1].e, in->xi = ax[2].e;
    return per_vthread(s, cv, fn, in);
}

/* ---- cooperative fetching ------------------------------------------------------------------- */

/* The fetch of `total` elements into dst: fused, split by nparts = the thread extents z, y, x;
 * value(flat) for each element flat (0 <= flat < total where it is called). */
typedef const at_ir_expr *(*fetch_value_fn)(at_ir_sched *s, const conv *cv, const lin *flat, int64_t total);

static const at_ir_stmt *fetch(at_ir_sched *s, const conv *cv, const char *name, const at_ir_buffer *dst, int64_t total,
                               fetch_value_fn value)
{
    const int64_t th[3] = {cv->f[2], cv->y[2], cv->x[2]};
    int64_t a1 = (total + th[0] - 1) / th[0], a2 = (a1 + th[1] - 1) / th[1], a3 = (a2 + th[2] - 1) / th[2];
    axis k = axis_new(s, name, a3);
    lin l3 = {0}, l2, l1;
    lin_add(&l3, cv->tid[2], a3, th[2] - 1);
    lin_add(&l3, k.e, 1, a3 - 1);
    l2 = l3;
    lin_add(&l2, cv->tid[1], a2, th[1] - 1);
    l1 = l2;
    lin_add(&l1, cv->tid[0], a1, th[0] - 1);
    const at_ir_expr *in3 = lin_expr(s, &l3), *in2 = lin_expr(s, &l2), *flat = lin_expr(s, &l1);
    /* TVM's likely guards of the splits that do not divide their extent */
    const at_ir_expr *cond = NULL;
    if (a1 * th[0] != total) cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, flat, at_tmpl_i(s, total)));
    if (a2 * th[1] != a1) cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, in2, at_tmpl_i(s, a1)));
    if (a3 * th[2] != a2) cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, in3, at_tmpl_i(s, a2)));
    const at_ir_stmt *st = at_ir_store(s, dst, flat, value(s, cv, &l1, total));
    if (cond) st = at_ir_if(s, cond, st, NULL);
    return nest(s, &k, 1, st);
}

/* AA[c][h][w] = pad(data)[n][rco RCI + c][by YT sh + ryo RYI dh + h][bx XT sw + rxo RXI dw + w] */
static const at_ir_expr *aa_value(at_ir_sched *s, const conv *cv, const lin *flat, int64_t total)
{
    const at_conv2d_geom *g = &cv->g;
    const at_ir_expr *c = div_mod(s, flat, total - 1, cv->ah * cv->aw, cv->rc[1]);
    const at_ir_expr *h = div_mod(s, flat, total - 1, cv->aw, cv->ah);
    const at_ir_expr *w = div_mod(s, flat, total - 1, 1, cv->aw);
    const at_ir_expr *ci = at_ir_add(s, at_ir_mul(s, cv->rco, at_tmpl_i(s, cv->rc[1])), c);
    const at_ir_expr *hb = at_ir_add(s, at_ir_mul(s, cv->by, at_tmpl_i(s, cv->yt * g->sh)),
                                     at_ir_mul(s, cv->ryo, at_tmpl_i(s, cv->ry[1] * g->dh)));
    const at_ir_expr *wb = at_ir_add(s, at_ir_mul(s, cv->bx, at_tmpl_i(s, cv->xt * g->sw)),
                                     at_ir_mul(s, cv->rxo, at_tmpl_i(s, cv->rx[1] * g->dw)));
    /* the window never passes the padded input's last row / column TVM reads */
    int64_t h_max = (g->oh - 1) * g->sh + (g->kh - 1) * g->dh, w_max = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw;
    return at_tmpl_pad_load(s, cv->data, g, cv->n, ci, at_ir_add(s, hb, h), at_ir_add(s, wb, w), h_max, w_max);
}

/* WW[f][c][ky][kx] = kernel[bf FT + f][rco RCI + c][ryo RYI + ky][rxo RXI + kx]. Trailing axes the
 * tile covers whole are one run of the kernel, indexed by one div_mod of flat (TVM's simplifier
 * merges them the same way), so a tile of whole 3x3 windows reads kernel[base + flat % (RCI 9)]. */
static const at_ir_expr *ww_value(at_ir_sched *s, const conv *cv, const lin *flat, int64_t total)
{
    const at_conv2d_geom *g = &cv->g;
    const int64_t t[4] = {cv->ft, cv->rc[1], cv->ry[1], cv->rx[1]}, full[4] = {g->co, g->ci, g->kh, g->kw};
    const at_ir_expr *base[4] = {at_ir_mul(s, cv->bf, at_tmpl_i(s, cv->ft)), at_ir_mul(s, cv->rco, at_tmpl_i(s, cv->rc[1])),
                                 at_ir_mul(s, cv->ryo, at_tmpl_i(s, cv->ry[1])), at_ir_mul(s, cv->rxo, at_tmpl_i(s, cv->rx[1]))};
    const at_ir_expr *idx = NULL;
    int64_t inner = 1, stride = 1; /* tile elements and kernel stride of the axes inside axis i */
    for (int i = 3; i >= 0;) {
        int j = i;
        int64_t run = t[i], run_stride = stride;
        while (j > 0 && t[j] == full[j]) {
            stride *= full[j];
            run *= t[--j];
        }
        /* axes j..i: base[j] (the others' bases are 0: a whole axis has one outer part) */
        const at_ir_expr *part = at_ir_add(s, at_ir_mul(s, base[j], at_tmpl_i(s, stride)),
                                           at_ir_mul(s, div_mod(s, flat, total - 1, inner, run), at_tmpl_i(s, run_stride)));
        idx = idx ? at_ir_add(s, part, idx) : part;
        stride *= full[j];
        inner *= run;
        i = j - 1;
    }
    return at_ir_load(s, cv->kernel, idx, 1);
}

/* ---- the kernel ----------------------------------------------------------------------------- */

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_args *a = &args->u.conv2d;
    conv cv = {0};
    at_op_conv2d_geom(args->op, a, &cv.g);
    const at_conv2d_geom *g = &cv.g;
    cv.ot = a->out_dtype;
    AT_TRY(at_tmpl_split_inner(c, TILE_F, g->co, 4, cv.f));
    AT_TRY(at_tmpl_split_inner(c, TILE_Y, g->oh, 4, cv.y));
    AT_TRY(at_tmpl_split_inner(c, TILE_X, g->ow, 4, cv.x));
    AT_TRY(reduce_split(c, TILE_RC, g->ci, cv.rc));
    AT_TRY(reduce_split(c, TILE_RY, g->kh, cv.ry));
    AT_TRY(reduce_split(c, TILE_RX, g->kw, cv.rx));
    int64_t max_step = at_config_other_int(c, AUTO_UNROLL_MAX_STEP);
    bool explicit_unroll = at_config_other_int(c, UNROLL_EXPLICIT) != 0;
    cv.ft = cv.f[1] * cv.f[2] * cv.f[3];
    cv.yt = cv.y[1] * cv.y[2] * cv.y[3];
    cv.xt = cv.x[1] * cv.x[2] * cv.x[3];
    cv.ah = (cv.yt - 1) * g->sh + (cv.ry[1] - 1) * g->dh + 1;
    cv.aw = (cv.xt - 1) * g->sw + (cv.rx[1] - 1) * g->dw + 1;
    int64_t aa_size = cv.rc[1] * cv.ah * cv.aw, ww_size = cv.ft * cv.rc[1] * cv.ry[1] * cv.rx[1];
    int64_t ol_size = cv.f[1] * cv.y[1] * cv.x[1] * cv.f[3] * cv.y[3] * cv.x[3];

    cv.data = at_ir_param(s, "data", a->dtype, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    cv.kernel = at_ir_param(s, "kernel", a->kernel_dtype, g->co * g->ci * g->kh * g->kw, AT_IR_INPUT);
    cv.out = at_ir_param(s, "output", cv.ot, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    cv.aa = at_ir_alloc(s, "pad_temp_shared", a->dtype, aa_size, AT_IR_LOCAL);
    cv.ww = at_ir_alloc(s, "kernel_shared", a->kernel_dtype, ww_size, AT_IR_LOCAL);
    cv.ol = at_ir_alloc(s, "conv_local", cv.ot, ol_size, AT_IR_PRIVATE);

    /* bindings: bz = n BF + bf, by, bx; threadIdx.z/y/x = tf, ty, tx */
    at_tmpl_loop bind[6] = {at_tmpl_loop_new(s, "bz", g->n * cv.f[0], AT_IR_BLOCK_Z),
                            at_tmpl_loop_new(s, "by", cv.y[0], AT_IR_BLOCK_Y),
                            at_tmpl_loop_new(s, "bx", cv.x[0], AT_IR_BLOCK_X),
                            at_tmpl_loop_new(s, "tz", cv.f[2], AT_IR_THREAD_Z),
                            at_tmpl_loop_new(s, "ty", cv.y[2], AT_IR_THREAD_Y),
                            at_tmpl_loop_new(s, "tx", cv.x[2], AT_IR_THREAD_X)};
    const at_ir_expr *bz = at_ir_v(s, bind[0].var);
    cv.n = g->n == 1 ? at_tmpl_i(s, 0) : at_ir_div(s, bz, at_tmpl_i(s, cv.f[0]));
    cv.bf = g->n == 1 ? bz : at_ir_mod(s, bz, at_tmpl_i(s, cv.f[0]));
    cv.by = at_ir_v(s, bind[1].var);
    cv.bx = at_ir_v(s, bind[2].var);
    for (int i = 0; i < 3; i++) cv.tid[i] = at_ir_v(s, bind[3 + i].var);

    /* OL = 0 */
    ol_loops in0 = {0};
    axis init_ax[3];
    const at_ir_stmt *init = spatial_stage(s, &cv, &in0, init_ax, init_one);
    init = nest(s, init_ax, 3, init);

    /* for rco, ryo, rxo: barrier; AA, WW fetched; barrier; for rci, ryi, rxi, fi, yi, xi: OL += AA WW */
    axis red[6] = {axis_new(s, "rc_outer", cv.rc[0]), axis_new(s, "ry_outer", cv.ry[0]), axis_new(s, "rx_outer", cv.rx[0]),
                   axis_new(s, "rc_inner", cv.rc[1]), axis_new(s, "ry_inner", cv.ry[1]), axis_new(s, "rx_inner", cv.rx[1])};
    cv.rco = red[0].e, cv.ryo = red[1].e, cv.rxo = red[2].e;
    ol_loops in1 = {.rci = red[3].e, .ryi = red[4].e, .rxi = red[5].e};
    axis upd_ax[3];
    const at_ir_stmt *upd = spatial_stage(s, &cv, &in1, upd_ax, update_one);
    upd = nest(s, &red[3], 3, nest(s, upd_ax, 3, upd));
    const at_ir_stmt *step[5] = {at_ir_barrier(s, AT_IR_LOCAL), fetch(s, &cv, "ax_aa", cv.aa, aa_size, aa_value),
                                 fetch(s, &cv, "ax_ww", cv.ww, ww_size, ww_value), at_ir_barrier(s, AT_IR_LOCAL), upd};
    const at_ir_stmt *reduce = nest(s, red, 3, at_ir_seq(s, step, 5));

    /* output = OL */
    ol_loops in2 = {0};
    axis out_ax[3];
    const at_ir_stmt *store = spatial_stage(s, &cv, &in2, out_ax, store_one);
    store = nest(s, out_ax, 3, store);

    const at_ir_stmt *items[3] = {init, reduce, store};
    const at_ir_stmt *body = at_ir_seq(s, items, 3);
    body = at_ir_auto_unroll(s, body, max_step, explicit_unroll);
    for (int i = 6; i-- > 0;) body = at_ir_for(s, bind[i].var, bind[i].extent, bind[i].kind, body);
    at_ir_add_kernel(s, "default_function_kernel", body);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_nchw_cuda = {
    .name = "conv2d_nchw.cuda",
    .op = AT_OP_CONV2D_NCHW,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = at_tmpl_fallback_reference_log,
    .ref_backend = "opencl",
    .ref_model = "unknown",
    .entities_as_given = true,
    .flop = flop,
};
