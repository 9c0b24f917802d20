/* depthwise_conv2d_nchw.cuda: TVM v0.18's CUDA depthwise schedule (topi/cuda/depthwise_conv2d.py)
 * on topi's nn.depthwise_conv2d_nchw, which TVM also runs for the opencl target. Knobs tile_f,
 * tile_y, tile_x (4-way splits of the output's channels, rows and columns: blocks, virtual threads,
 * threads, per-thread), auto_unroll_max_step [0, 256, 1500] and unroll_explicit [0, 1].
 *
 * One kernel. Padding is inlined. Per block (n fused with the channel blocks on z), the padded
 * input window and the kernel slice the block reads are fetched into shared memory (AA, WW) by
 * all its threads: the stage's axes fused and split by the thread extents tile_x[2], tile_y[2],
 * tile_f[2], the tail guarded; one barrier. Inside the virtual threads each thread copies its own
 * window and weights into registers (AL, WL), accumulates its tile_f[3] x tile_y[3] x tile_x[3]
 * outputs in OL (spatial loops outside the reduction) and writes them out. Both pragmas sit on the
 * kernel's outermost loop, so the unroll pass runs over the whole kernel.
 *
 * A channel multiplier > 1 makes TVM's region of AA the input channels of the block's outputs;
 * here AL and WL are indexed by output channel (f / multiplier reads AA), which loads the same
 * values. TopHub's opencl pack has records whose first split size disagrees with the extent
 * (tile_f [64, 1, 4, 1] on 512 channels): TVM applies a split by the sizes after the first, so
 * they are read as given. Fallback: TVM's reference-log fallback over TopHub's opencl records of this template,
 * then unroll_explicit forced to 0 (TVM's workaround). */
#include "ir/unroll.h"
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_F, TILE_Y, TILE_X, AUTO_UNROLL_MAX_STEP, UNROLL_EXPLICIT, N_KNOBS };

static at_status define_space(const at_args *args, at_space *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(args->op, &args->u.conv2d, &g);
    static const int64_t steps[3] = {0, 256, 1500}, expl[2] = {0, 1};
    AT_TRY(at_space_split_ex(s, TILE_F, "tile_f", g.co, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_split_ex(s, TILE_Y, "tile_y", g.oh, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_split_ex(s, TILE_X, "tile_x", g.ow, &(at_split_opts){.num_outputs = 4}));
    AT_TRY(at_space_other(s, AUTO_UNROLL_MAX_STEP, "auto_unroll_max_step", steps, 3));
    return at_space_other(s, UNROLL_EXPLICIT, "unroll_explicit", expl, 2);
}

static at_status fallback(const at_args *args, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c)
{
    AT_TRY(at_tmpl_fallback_reference_log(args, s, refs, n_refs, c));
    return at_tmpl_fallback_other(s, c, UNROLL_EXPLICIT, 0);
}

typedef struct dw {
    at_conv2d_geom      g;
    int64_t             tf[4], ty[4], tx[4];
    int64_t             F, Y, X;       /* outputs per block along f, y, x */
    int64_t             cc, ah, aw;    /* AA: channels, rows, columns */
    int64_t             alh, alw;      /* AL: rows, columns per output channel */
    const at_ir_buffer *data, *kernel, *out, *aa, *ww;
    at_tmpl_loop        bind[6];       /* blockIdx z y x, threadIdx z y x */
    const at_ir_expr   *nn, *f0, *c0; /* batch, first output and input channel of the block */
} dw;

/* The loop `o` that with the bound threads covers [0, total) as ((o tz + z) ty + y) tx + x, and the
 * flat index; body(flat) runs under a guard when the threads do not divide total. */
static const at_ir_stmt *coop_fetch(at_ir_sched *s, const dw *d, int64_t total, const at_ir_stmt *(*body)(at_ir_sched *, const dw *, const at_ir_expr *),
                                    const char *name)
{
    int64_t nt = d->tf[2] * d->ty[2] * d->tx[2];
    at_tmpl_loop o = at_tmpl_loop_new(s, name, (total + nt - 1) / nt, AT_IR_SERIAL);
    const at_ir_var *v[4] = {o.var, d->bind[3].var, d->bind[4].var, d->bind[5].var};
    const int64_t e[4] = {o.extent, d->tf[2], d->ty[2], d->tx[2]};
    const at_ir_expr *flat = at_ir_fuse(s, v, e, 4);
    const at_ir_stmt *st = body(s, d, flat);
    if (total % nt) st = at_ir_if(s, at_ir_bin(s, AT_IR_LT, flat, at_tmpl_i(s, total)), st, NULL);
    return at_tmpl_nest(s, &o, 1, st);
}

/* AA[c][h][w] = PaddedInput[n][c0 + c][by Y sh + h][bx X sw + w]. */
static const at_ir_stmt *aa_body(at_ir_sched *s, const dw *d, const at_ir_expr *flat)
{
    const at_conv2d_geom *g = &d->g;
    const at_ir_expr *hw = at_tmpl_i(s, d->ah * d->aw);
    const at_ir_expr *c = at_ir_add(s, d->c0, at_ir_div(s, flat, hw));
    const at_ir_expr *h = at_ir_add(s, at_ir_mul(s, at_ir_v(s, d->bind[1].var), at_tmpl_i(s, d->Y * g->sh)),
                                    at_ir_div(s, at_ir_mod(s, flat, hw), at_tmpl_i(s, d->aw)));
    const at_ir_expr *w = at_ir_add(s, at_ir_mul(s, at_ir_v(s, d->bind[2].var), at_tmpl_i(s, d->X * g->sw)),
                                    at_ir_mod(s, flat, at_tmpl_i(s, d->aw)));
    const at_ir_expr *v = at_tmpl_pad_load(s, d->data, g, d->nn, c, h, w, (g->oh - 1) * g->sh + g->khd - 1,
                                           (g->ow - 1) * g->sw + g->kwd - 1);
    /* a channel window straddling the multiplier may run one channel past the input's */
    if (d->cc * g->mult > d->F)
        v = at_ir_select(s, at_ir_bin(s, AT_IR_LT, c, at_tmpl_i(s, g->ci)), v, at_tmpl_f(s, d->data->elem, 0));
    return at_ir_store(s, d->aa, flat, v);
}

/* WW[f][di][dj] = kernel[f0 + f][di][dj] (the kernel's (c, multiplier) axes are the output channel). */
static const at_ir_stmt *ww_body(at_ir_sched *s, const dw *d, const at_ir_expr *flat)
{
    const at_ir_expr *base = at_ir_mul(s, d->f0, at_tmpl_i(s, d->g.kh * d->g.kw));
    return at_ir_store(s, d->ww, flat, at_ir_load(s, d->kernel, at_ir_add(s, base, flat), 1));
}

static at_status init(const at_args *args, const at_config *c, at_ir_sched *s, dw *d)
{
    const at_conv2d_args *a = &args->u.conv2d;
    at_conv2d_geom *g = &d->g;
    at_op_conv2d_geom(args->op, a, g);
    AT_TRY(at_tmpl_split_inner(c, TILE_F, g->co, 4, d->tf));
    AT_TRY(at_tmpl_split_inner(c, TILE_Y, g->oh, 4, d->ty));
    AT_TRY(at_tmpl_split_inner(c, TILE_X, g->ow, 4, d->tx));
    d->F = d->tf[1] * d->tf[2] * d->tf[3];
    d->Y = d->ty[1] * d->ty[2] * d->ty[3];
    d->X = d->tx[1] * d->tx[2] * d->tx[3];
    /* blocks start at multiples of F: aligned to the multiplier when F is a multiple of it */
    d->cc = d->F % g->mult == 0 ? d->F / g->mult : (d->F - 1) / g->mult + 2;
    if (d->cc > g->ci) d->cc = g->ci;
    d->ah = (d->Y - 1) * g->sh + g->khd;
    d->aw = (d->X - 1) * g->sw + g->kwd;
    d->alh = (d->ty[3] - 1) * g->sh + g->khd;
    d->alw = (d->tx[3] - 1) * g->sw + g->kwd;
    d->data = at_ir_param(s, "data", a->dtype, g->n * g->ci * g->ih * g->iw, AT_IR_INPUT);
    d->kernel = at_ir_param(s, "kernel", a->kernel_dtype, g->co * g->kh * g->kw, AT_IR_INPUT);
    d->out = at_ir_param(s, "output", a->out_dtype, g->n * g->co * g->oh * g->ow, AT_IR_OUTPUT);
    d->aa = at_ir_alloc(s, "PaddedInput_shared", a->dtype, d->cc * d->ah * d->aw, AT_IR_LOCAL);
    d->ww = at_ir_alloc(s, "kernel_shared", a->kernel_dtype, d->F * g->kh * g->kw, AT_IR_LOCAL);
    d->bind[0] = at_tmpl_loop_new(s, "n_bf", g->n * d->tf[0], AT_IR_BLOCK_Z);
    d->bind[1] = at_tmpl_loop_new(s, "by", d->ty[0], AT_IR_BLOCK_Y);
    d->bind[2] = at_tmpl_loop_new(s, "bx", d->tx[0], AT_IR_BLOCK_X);
    d->bind[3] = at_tmpl_loop_new(s, "tf", d->tf[2], AT_IR_THREAD_Z);
    d->bind[4] = at_tmpl_loop_new(s, "ty", d->ty[2], AT_IR_THREAD_Y);
    d->bind[5] = at_tmpl_loop_new(s, "tx", d->tx[2], AT_IR_THREAD_X);
    const at_ir_expr *nbf = at_ir_v(s, d->bind[0].var);
    d->nn = at_ir_div(s, nbf, at_tmpl_i(s, d->tf[0]));
    d->f0 = at_ir_mul(s, at_ir_mod(s, nbf, at_tmpl_i(s, d->tf[0])), at_tmpl_i(s, d->F));
    d->c0 = g->mult == 1 ? d->f0 : at_ir_div(s, d->f0, at_tmpl_i(s, g->mult));
    return AT_OK;
}

/* A thread's first row (column) in its block: (v T + t) I for virtual thread v, thread t. */
static const at_ir_expr *thread_base(at_ir_sched *s, const at_tmpl_loop *v, const at_tmpl_loop *t, const int64_t *tile)
{
    const at_ir_var *vs[2] = {v->var, t->var};
    const int64_t e[2] = {tile[1], tile[2]};
    return at_ir_mul(s, at_ir_fuse(s, vs, e, 2), at_tmpl_i(s, tile[3]));
}

/* Everything under the virtual threads: AL, WL, OL at tx and the output. */
static const at_ir_stmt *thread_tile(at_ir_sched *s, const dw *d, const at_tmpl_loop *vt)
{
    const at_conv2d_geom *g = &d->g;
    at_ir_type ot = d->out->elem;
    int64_t fi_n = d->tf[3], yi_n = d->ty[3], xi_n = d->tx[3];
    const at_ir_expr *fb = thread_base(s, &vt[0], &d->bind[3], d->tf);
    const at_ir_expr *rb = thread_base(s, &vt[1], &d->bind[4], d->ty);
    const at_ir_expr *cb = thread_base(s, &vt[2], &d->bind[5], d->tx);
    const at_ir_buffer *al = at_ir_alloc(s, "PaddedInput_shared_local", d->data->elem, fi_n * d->alh * d->alw, AT_IR_PRIVATE);
    const at_ir_buffer *wl = at_ir_alloc(s, "kernel_shared_local", d->kernel->elem, fi_n * g->kh * g->kw, AT_IR_PRIVATE);
    const at_ir_buffer *ol = at_ir_alloc(s, "DepthwiseConv2d_local", ot, fi_n * yi_n * xi_n, AT_IR_PRIVATE);

    /* AL[fi][h][w] = AA[(f0 + fb + fi) / mult - c0][rb sh + h][cb sw + w] */
    at_tmpl_loop la[3] = {at_tmpl_loop_new(s, "al_f", fi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "al_h", d->alh, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "al_w", d->alw, AT_IR_SERIAL)};
    const at_ir_expr *fl = at_ir_add(s, fb, at_ir_v(s, la[0].var));
    /* (f0 + fl) / mult - f0 / mult, written so that the verifier sees its range */
    const at_ir_expr *ac = fl, *m = at_tmpl_i(s, g->mult);
    if (g->mult > 1)
        ac = at_ir_div(s, d->F % g->mult ? at_ir_add(s, at_ir_mod(s, d->f0, m), fl) : fl, m);
    const at_ir_expr *ah = at_ir_add(s, at_ir_mul(s, rb, at_tmpl_i(s, g->sh)), at_ir_v(s, la[1].var));
    const at_ir_expr *aw = at_ir_add(s, at_ir_mul(s, cb, at_tmpl_i(s, g->sw)), at_ir_v(s, la[2].var));
    const at_ir_expr *aai[3] = {ac, ah, aw}, *ali[3] = {at_ir_v(s, la[0].var), at_ir_v(s, la[1].var), at_ir_v(s, la[2].var)};
    const int64_t aad[3] = {d->cc, d->ah, d->aw}, ald[3] = {fi_n, d->alh, d->alw};
    const at_ir_stmt *al_fill =
        at_tmpl_nest(s, la, 3, at_ir_store(s, al, at_tmpl_index(s, ali, ald, 3), at_ir_load(s, d->aa, at_tmpl_index(s, aai, aad, 3), 1)));

    /* WL[fi][di][dj] = WW[fb + fi][di][dj] */
    at_tmpl_loop lw[3] = {at_tmpl_loop_new(s, "wl_f", fi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "wl_h", g->kh, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "wl_w", g->kw, AT_IR_SERIAL)};
    const at_ir_expr *wwi[3] = {at_ir_add(s, fb, at_ir_v(s, lw[0].var)), at_ir_v(s, lw[1].var), at_ir_v(s, lw[2].var)};
    const at_ir_expr *wli[3] = {at_ir_v(s, lw[0].var), at_ir_v(s, lw[1].var), at_ir_v(s, lw[2].var)};
    const int64_t wwd[3] = {d->F, g->kh, g->kw}, wld[3] = {fi_n, g->kh, g->kw};
    const at_ir_stmt *wl_fill =
        at_tmpl_nest(s, lw, 3, at_ir_store(s, wl, at_tmpl_index(s, wli, wld, 3), at_ir_load(s, d->ww, at_tmpl_index(s, wwi, wwd, 3), 1)));

    /* OL: for fi, yi, xi { OL = 0; for di, dj { OL += AL * WL } } */
    at_tmpl_loop lo[5] = {at_tmpl_loop_new(s, "f_c", fi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "y_c", yi_n, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "x_c", xi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "di", g->kh, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "dj", g->kw, AT_IR_SERIAL)};
    const at_ir_expr *f = at_ir_v(s, lo[0].var), *y = at_ir_v(s, lo[1].var), *x = at_ir_v(s, lo[2].var);
    const at_ir_expr *di = at_ir_v(s, lo[3].var), *dj = at_ir_v(s, lo[4].var);
    const at_ir_expr *oi[3] = {f, y, x};
    const int64_t od[3] = {fi_n, yi_n, xi_n};
    const at_ir_expr *o_at = at_tmpl_index(s, oi, od, 3);
    const at_ir_expr *ali2[3] = {f, at_ir_add(s, at_ir_mul(s, y, at_tmpl_i(s, g->sh)), at_ir_mul(s, di, at_tmpl_i(s, g->dh))),
                                 at_ir_add(s, at_ir_mul(s, x, at_tmpl_i(s, g->sw)), at_ir_mul(s, dj, at_tmpl_i(s, g->dw)))};
    const at_ir_expr *wli2[3] = {f, di, dj};
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, ot, at_ir_load(s, al, at_tmpl_index(s, ali2, ald, 3), 1)),
                                       at_tmpl_cast(s, ot, at_ir_load(s, wl, at_tmpl_index(s, wli2, wld, 3), 1)));
    const at_ir_stmt *upd = at_tmpl_nest(s, &lo[3], 2, at_ir_store(s, ol, o_at, at_ir_add(s, at_ir_load(s, ol, o_at, 1), prod)));
    const at_ir_stmt *ol_st = at_tmpl_nest(s, lo, 3, at_ir_seq2(s, at_ir_store(s, ol, o_at, at_tmpl_f(s, ot, 0)), upd));

    /* output[n][f0 + fb + fi][by Y + rb + yi][bx X + cb + xi] = OL[fi][yi][xi] */
    at_tmpl_loop lx[3] = {at_tmpl_loop_new(s, "fi", fi_n, AT_IR_SERIAL), at_tmpl_loop_new(s, "yi", yi_n, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "xi", xi_n, AT_IR_SERIAL)};
    const at_ir_expr *xo[3] = {at_ir_v(s, lx[0].var), at_ir_v(s, lx[1].var), at_ir_v(s, lx[2].var)};
    const at_ir_expr *gi[4] = {
        d->nn, at_ir_add(s, d->f0, at_ir_add(s, fb, xo[0])),
        at_ir_add(s, at_ir_mul(s, at_ir_v(s, d->bind[1].var), at_tmpl_i(s, d->Y)), at_ir_add(s, rb, xo[1])),
        at_ir_add(s, at_ir_mul(s, at_ir_v(s, d->bind[2].var), at_tmpl_i(s, d->X)), at_ir_add(s, cb, xo[2]))};
    const int64_t gd[4] = {g->n, g->co, g->oh, g->ow};
    const at_ir_stmt *store = at_tmpl_nest(s, lx, 3, at_ir_store(s, d->out, at_tmpl_index(s, gi, gd, 4),
                                                                 at_ir_load(s, ol, at_tmpl_index(s, xo, od, 3), 1)));
    const at_ir_stmt *items[4] = {al_fill, wl_fill, ol_st, store};
    return at_ir_seq(s, items, 4);
}

static at_status schedule(const at_args *args, const at_config *c, at_ir_sched *s)
{
    dw d;
    AT_TRY(init(args, c, s, &d));
    const at_ir_stmt *fetch[3] = {coop_fetch(s, &d, d.cc * d.ah * d.aw, aa_body, "aa_o"),
                                  coop_fetch(s, &d, d.F * d.g.kh * d.g.kw, ww_body, "ww_o"), at_ir_barrier(s, AT_IR_LOCAL)};
    at_tmpl_loop vt[3] = {at_tmpl_loop_new(s, "vf", d.tf[1], AT_IR_VTHREAD), at_tmpl_loop_new(s, "vy", d.ty[1], AT_IR_VTHREAD),
                          at_tmpl_loop_new(s, "vx", d.tx[1], AT_IR_VTHREAD)};
    const at_ir_stmt *compute = at_tmpl_nest(s, vt, 3, thread_tile(s, &d, vt));
    const at_ir_stmt *body = at_tmpl_nest(s, d.bind, 6, at_ir_seq2(s, at_ir_seq(s, fetch, 3), compute));
    body = at_ir_auto_unroll(s, body, at_config_other_int(c, AUTO_UNROLL_MAX_STEP), at_config_other_int(c, UNROLL_EXPLICIT) != 0);
    at_ir_add_kernel(s, "depthwise_conv2d_kernel", body);
    return at_ir_sched_status(s);
}

const at_template at_tmpl_depthwise_conv2d_nchw_cuda = {
    .name = "depthwise_conv2d_nchw.cuda",
    .op = AT_OP_DEPTHWISE_CONV2D_NCHW,
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .fallback = fallback,
    .ref_backend = "opencl",
    .ref_model = "unknown",
    .entities_as_given = true,
};
