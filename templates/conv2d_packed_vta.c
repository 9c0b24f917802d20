/* conv2d_packed.vta: vta_conv2d.py's template (knobs tile_b, tile_h, tile_w, tile_ci, tile_co,
 * oc_nthread, h_nthread, spec templates_vta.md 5.2) with the seeds' >> 8, clip, cast epilogue.
 * The IR built here is the schedule's loop nest with the on-chip tiles as private buffers
 * (cthreads as vthread loops): it is what the tuners' features read and what the conformance
 * interpreter checks; backends/vta lowers the same tiling to VTA instructions (its README).
 * Split entities are applied as given (TVM's SplitEntity.apply): the inner size decides. */
#include "templates/internal.h"
#include "templates/template.h"

enum { TILE_B, TILE_H, TILE_W, TILE_CI, TILE_CO, OC_NTHREAD, H_NTHREAD, N_KNOBS };

static at_status define_space(const at_args *a, at_space *s)
{
    static const int64_t nthread[] = {1, 2};
    const at_conv2d_packed_args *p = &a->u.conv2d_packed;
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(p, &g);
    AT_TRY(at_space_split(s, TILE_B, "tile_b", g.n_b, 2));
    AT_TRY(at_space_split(s, TILE_H, "tile_h", g.oh, 2));
    AT_TRY(at_space_split(s, TILE_W, "tile_w", g.ow, 2));
    AT_TRY(at_space_split(s, TILE_CI, "tile_ci", g.ci_b, 2));
    AT_TRY(at_space_split(s, TILE_CO, "tile_co", g.co_b, 2));
    AT_TRY(at_space_other(s, OC_NTHREAD, "oc_nthread", nthread, 2));
    return at_space_other(s, H_NTHREAD, "h_nthread", nthread, 2);
}

/* The on-chip buffer bytes (inp, wgt, acc) of the bitstream TVM ships for a BATCH x BLOCK shape:
 * 1x16_i8w8a32_15_15_18_17 (the default) and 4x8_i8w8a32_15_16_16_18 (TopHub's other model).
 * The template sees no hardware config; backends/vta checks the actual one again. */
static void buffer_bytes(const at_conv2d_packed_geom *g, int64_t *inp, int64_t *wgt, int64_t *acc)
{
    if (g->batch == 4 && g->block_in == 8 && g->block_out == 8) {
        *inp = 1 << 16, *wgt = 1 << 16, *acc = 1 << 18;
    } else {
        *inp = 1 << 15, *wgt = 1 << 18, *acc = 1 << 17;
    }
}

static const at_ir_expr *v_(at_ir_sched *s, const at_tmpl_loop *l)
{
    return at_ir_v(s, l->var);
}

static const at_ir_expr *lin(at_ir_sched *s, const at_ir_expr *a, int64_t k, const at_ir_expr *b)
{
    return at_ir_add(s, at_ir_mul(s, a, at_tmpl_i(s, k)), b);
}

static at_status schedule(const at_args *a, const at_config *c, at_ir_sched *s)
{
    const at_conv2d_packed_args *p = &a->u.conv2d_packed;
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(p, &g);
    int64_t tb = 1, th = 1, tw = 1, tci = 1, tco = 1;
    AT_TRY(at_tmpl_split_inner_size(c, TILE_B, "tile_b", g.n_b, &tb)); /* defined but not applied, as in TVM */
    AT_TRY(at_tmpl_split_inner_size(c, TILE_H, "tile_h", g.oh, &th));
    AT_TRY(at_tmpl_split_inner_size(c, TILE_W, "tile_w", g.ow, &tw));
    AT_TRY(at_tmpl_split_inner_size(c, TILE_CI, "tile_ci", g.ci_b, &tci));
    AT_TRY(at_tmpl_split_inner_size(c, TILE_CO, "tile_co", g.co_b, &tco));
    (void)tb;
    int64_t ocn = at_config_other_int(c, OC_NTHREAD), hn = at_config_other_int(c, H_NTHREAD);
    if (ocn < 1 || hn < 1) return AT_FAIL(AT_EINVAL, "oc_nthread and h_nthread must be >= 1");
    int64_t co_out = g.co_b / tco, h_out = g.oh / th;
    if (co_out % ocn) return AT_FAIL(AT_EINVAL, "oc_nthread %lld does not divide %lld output-channel tiles",
                                     (long long)ocn, (long long)co_out);
    if (h_out % hn) return AT_FAIL(AT_EINVAL, "h_nthread %lld does not divide %lld row tiles", (long long)hn,
                                   (long long)h_out);
    int64_t nvt = ocn * hn;
    int64_t iy = (th - 1) * g.sh + g.kh, ix = (tw - 1) * g.sw + g.kw;
    int64_t inp_elem = g.batch * g.block_in, wgt_elem = g.block_out * g.block_in, acc_elem = g.batch * g.block_out;
    int64_t cap_inp, cap_wgt, cap_acc;
    buffer_bytes(&g, &cap_inp, &cap_wgt, &cap_acc);
    if (nvt * tci * iy * ix * inp_elem > cap_inp)
        return AT_FAIL(AT_EINVAL, "input tile of %lld elements x %lld threads exceeds the %lld-byte input buffer",
                       (long long)(tci * iy * ix), (long long)nvt, (long long)cap_inp);
    if (nvt * tco * tci * g.kh * g.kw * wgt_elem > cap_wgt)
        return AT_FAIL(AT_EINVAL, "weight tile of %lld elements x %lld threads exceeds the %lld-byte weight buffer",
                       (long long)(tco * tci * g.kh * g.kw), (long long)nvt, (long long)cap_wgt);
    if (nvt * tco * th * tw * acc_elem * 4 > cap_acc)
        return AT_FAIL(AT_EINVAL, "accumulator tile of %lld elements x %lld threads exceeds the %lld-byte buffer",
                       (long long)(tco * th * tw), (long long)nvt, (long long)cap_acc);

    at_tensor_desc t[3];
    at_op_conv2d_packed_tensors(p, t);
    const at_ir_buffer *D = at_ir_param(s, "data", AT_IR_I8, t[0].n_elems, AT_IR_INPUT);
    const at_ir_buffer *K = at_ir_param(s, "kernel", AT_IR_I8, t[1].n_elems, AT_IR_INPUT);
    const at_ir_buffer *R = at_ir_param(s, "res", AT_IR_I8, t[2].n_elems, AT_IR_OUTPUT);
    const at_ir_buffer *ACC = at_ir_alloc(s, "res_acc", AT_IR_I32, tco * th * tw * acc_elem, AT_IR_PRIVATE);
    const at_ir_buffer *INP = at_ir_alloc(s, "data_inp", AT_IR_I8, tci * iy * ix * inp_elem, AT_IR_PRIVATE);
    const at_ir_buffer *WGT = at_ir_alloc(s, "kernel_wgt", AT_IR_I8, tco * tci * g.kh * g.kw * wgt_elem, AT_IR_PRIVATE);

    /* output tiling: cthreads, x_bo, x_i0, x_co0, x_j0 */
    at_tmpl_loop outer[6] = {
        at_tmpl_loop_new(s, "cthread_oc", ocn, AT_IR_VTHREAD), at_tmpl_loop_new(s, "cthread_h", hn, AT_IR_VTHREAD),
        at_tmpl_loop_new(s, "x_bo", g.n_b, AT_IR_SERIAL),      at_tmpl_loop_new(s, "x_i0", h_out / hn, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "x_co0", co_out / ocn, AT_IR_SERIAL), at_tmpl_loop_new(s, "x_j0", g.ow / tw, AT_IR_SERIAL),
    };
    const at_ir_expr *bo = v_(s, &outer[2]);
    const at_ir_expr *co_base = at_ir_mul(s, lin(s, v_(s, &outer[4]), ocn, v_(s, &outer[0])), at_tmpl_i(s, tco));
    const at_ir_expr *i_base = at_ir_mul(s, lin(s, v_(s, &outer[3]), hn, v_(s, &outer[1])), at_tmpl_i(s, th));
    const at_ir_expr *j_base = at_ir_mul(s, v_(s, &outer[5]), at_tmpl_i(s, tw));
    const at_ir_expr *zero = at_tmpl_i(s, 0);

    /* reset: x_co, x_i, x_j, lanes */
    at_tmpl_loop rs[4] = {at_tmpl_loop_new(s, "co", tco, AT_IR_SERIAL), at_tmpl_loop_new(s, "i", th, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "j", tw, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "e", acc_elem, AT_IR_SERIAL)};
    const at_ir_expr *rsi[4] = {v_(s, &rs[0]), v_(s, &rs[1]), v_(s, &rs[2]), v_(s, &rs[3])};
    int64_t acc_dims[4] = {tco, th, tw, acc_elem};
    const at_ir_stmt *reset = at_tmpl_nest(s, rs, 4, at_ir_store(s, ACC, at_tmpl_index(s, rsi, acc_dims, 4), zero));

    /* k_o.outer: DMA of the input tile (zero padding), DMA of the weight tile, GEMM */
    at_tmpl_loop ko = at_tmpl_loop_new(s, "k_o_outer", g.ci_b / tci, AT_IR_SERIAL);
    const at_ir_expr *ci_base = at_ir_mul(s, v_(s, &ko), at_tmpl_i(s, tci));
    at_tmpl_loop li[4] = {at_tmpl_loop_new(s, "ic", tci, AT_IR_SERIAL), at_tmpl_loop_new(s, "iy", iy, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "ix", ix, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "ie", inp_elem, AT_IR_SERIAL)};
    const at_ir_expr *y = at_ir_sub(s, at_ir_add(s, at_ir_mul(s, i_base, at_tmpl_i(s, g.sh)), v_(s, &li[1])),
                                    at_tmpl_i(s, g.ph));
    const at_ir_expr *x = at_ir_sub(s, at_ir_add(s, at_ir_mul(s, j_base, at_tmpl_i(s, g.sw)), v_(s, &li[2])),
                                    at_tmpl_i(s, g.pw));
    const at_ir_expr *cond = NULL;
    if (g.ph) {
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_GE, y, zero));
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, y, at_tmpl_i(s, g.h)));
    }
    if (g.pw) {
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_GE, x, zero));
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, x, at_tmpl_i(s, g.w)));
    }
    int64_t ddims[5] = {g.n_b, g.ci_b, g.h, g.w, inp_elem};
    const at_ir_expr *dsrc[5] = {bo, at_ir_add(s, ci_base, v_(s, &li[0])), y, x, v_(s, &li[3])};
    const at_ir_expr *dval = at_ir_load(s, D, at_tmpl_index(s, dsrc, ddims, 5), 1);
    if (cond) dval = at_ir_select(s, cond, dval, at_ir_int(s, AT_IR_I8, 0));
    const at_ir_expr *lii[4] = {v_(s, &li[0]), v_(s, &li[1]), v_(s, &li[2]), v_(s, &li[3])};
    int64_t idims[4] = {tci, iy, ix, inp_elem};
    const at_ir_stmt *load_inp = at_tmpl_nest(s, li, 4, at_ir_store(s, INP, at_tmpl_index(s, lii, idims, 4), dval));

    at_tmpl_loop lw[5] = {at_tmpl_loop_new(s, "wc", tco, AT_IR_SERIAL), at_tmpl_loop_new(s, "wk", tci, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "wy", g.kh, AT_IR_SERIAL), at_tmpl_loop_new(s, "wx", g.kw, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "we", wgt_elem, AT_IR_SERIAL)};
    int64_t kdims[5] = {g.co_b, g.ci_b, g.kh, g.kw, wgt_elem};
    const at_ir_expr *ksrc[5] = {at_ir_add(s, co_base, v_(s, &lw[0])), at_ir_add(s, ci_base, v_(s, &lw[1])),
                                 v_(s, &lw[2]), v_(s, &lw[3]), v_(s, &lw[4])};
    const at_ir_expr *lwi[5] = {v_(s, &lw[0]), v_(s, &lw[1]), v_(s, &lw[2]), v_(s, &lw[3]), v_(s, &lw[4])};
    int64_t wdims[5] = {tco, tci, g.kh, g.kw, wgt_elem};
    const at_ir_stmt *load_wgt = at_tmpl_nest(
        s, lw, 5, at_ir_store(s, WGT, at_tmpl_index(s, lwi, wdims, 5), at_ir_load(s, K, at_tmpl_index(s, ksrc, kdims, 5), 1)));

    /* GEMM in the conv stage's leaf order: k_o.inner, x_j, d_j, d_i, x_co, x_i, x_bi, x_ci, k_i */
    at_tmpl_loop gl[9] = {
        at_tmpl_loop_new(s, "k_o_inner", tci, AT_IR_SERIAL), at_tmpl_loop_new(s, "x_j", tw, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "d_j", g.kw, AT_IR_SERIAL),      at_tmpl_loop_new(s, "d_i", g.kh, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "x_co", tco, AT_IR_SERIAL),      at_tmpl_loop_new(s, "x_i", th, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "x_bi", g.batch, AT_IR_SERIAL),  at_tmpl_loop_new(s, "x_ci", g.block_out, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "k_i", g.block_in, AT_IR_SERIAL),
    };
    const at_ir_expr *aidx[5] = {v_(s, &gl[4]), v_(s, &gl[5]), v_(s, &gl[1]), v_(s, &gl[6]), v_(s, &gl[7])};
    int64_t adims[5] = {tco, th, tw, g.batch, g.block_out};
    const at_ir_expr *a_at = at_tmpl_index(s, aidx, adims, 5);
    const at_ir_expr *iidx[5] = {v_(s, &gl[0]), lin(s, v_(s, &gl[5]), g.sh, v_(s, &gl[3])),
                                 lin(s, v_(s, &gl[1]), g.sw, v_(s, &gl[2])), v_(s, &gl[6]), v_(s, &gl[8])};
    int64_t gidims[5] = {tci, iy, ix, g.batch, g.block_in};
    const at_ir_expr *widx[6] = {v_(s, &gl[4]), v_(s, &gl[0]), v_(s, &gl[3]), v_(s, &gl[2]), v_(s, &gl[7]), v_(s, &gl[8])};
    int64_t gwdims[6] = {tco, tci, g.kh, g.kw, g.block_out, g.block_in};
    const at_ir_expr *prod = at_ir_mul(s, at_ir_cast(s, AT_IR_I32, at_ir_load(s, INP, at_tmpl_index(s, iidx, gidims, 5), 1)),
                                       at_ir_cast(s, AT_IR_I32, at_ir_load(s, WGT, at_tmpl_index(s, widx, gwdims, 6), 1)));
    const at_ir_stmt *gemm = at_tmpl_nest(s, gl, 9, at_ir_store(s, ACC, a_at, at_ir_add(s, at_ir_load(s, ACC, a_at, 1), prod)));
    const at_ir_stmt *kbody[3] = {load_inp, load_wgt, gemm};
    const at_ir_stmt *kloop = at_tmpl_nest(s, &ko, 1, at_ir_seq(s, kbody, 3));

    /* ALU epilogue over the accumulator tile (in place): >> 8, min 127, max 0 */
    at_tmpl_loop al = at_tmpl_loop_new(s, "alu", tco * th * tw * acc_elem, AT_IR_SERIAL);
    const at_ir_expr *ae = at_ir_load(s, ACC, v_(s, &al), 1);
    ae = at_ir_bin(s, AT_IR_SHR, ae, at_tmpl_i(s, AT_CONV2D_PACKED_SHIFT));
    ae = at_ir_max(s, at_ir_min(s, ae, at_tmpl_i(s, AT_CONV2D_PACKED_CLIP_HI)), at_tmpl_i(s, AT_CONV2D_PACKED_CLIP_LO));
    const at_ir_stmt *alu = at_tmpl_nest(s, &al, 1, at_ir_store(s, ACC, v_(s, &al), ae));

    /* STORE per x_co1 of a Th x Tw block, truncated to int8 */
    at_tmpl_loop st[4] = {at_tmpl_loop_new(s, "x_co1", tco, AT_IR_SERIAL), at_tmpl_loop_new(s, "x_i1", th, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "x_j1", tw, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "x_e", acc_elem, AT_IR_SERIAL)};
    const at_ir_expr *sti[4] = {v_(s, &st[0]), v_(s, &st[1]), v_(s, &st[2]), v_(s, &st[3])};
    const at_ir_expr *ridx[5] = {bo, at_ir_add(s, co_base, v_(s, &st[0])), at_ir_add(s, i_base, v_(s, &st[1])),
                                 at_ir_add(s, j_base, v_(s, &st[2])), v_(s, &st[3])};
    int64_t rdims[5] = {g.n_b, g.co_b, g.oh, g.ow, acc_elem};
    const at_ir_stmt *store = at_tmpl_nest(
        s, st, 4,
        at_ir_store(s, R, at_tmpl_index(s, ridx, rdims, 5),
                    at_ir_cast(s, AT_IR_I8, at_ir_load(s, ACC, at_tmpl_index(s, sti, acc_dims, 4), 1))));

    const at_ir_stmt *tile[4] = {reset, kloop, alu, store};
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, outer, 6, at_ir_seq(s, tile, 4)));
    return at_ir_sched_status(s);
}

const at_template at_tmpl_conv2d_packed_vta = {
    .name = "conv2d_packed.vta",
    .op = AT_OP_CONV2D_PACKED,
    .target = AT_TARGET_VTA,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
    .entities_as_given = true,
};
