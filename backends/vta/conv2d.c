/* conv2d_packed lowered to VTA: the loop nest of vta_conv2d.py's schedule (spec templates_vta.md
 * 5.2) walked from the config's tiling, emitting what the runtime receives from the compiled
 * schedule: per tile and virtual thread a reset GEMM, per k_o.outer LOAD INP (zero padding at the
 * image border) and LOAD WGT then a GEMM whose two outermost non-unit loops are folded (FoldUopLoop)
 * and the rest are explicit uops, then SHR/MIN/MAX ALU ops and one STORE per output-channel block,
 * with CoProcSync's push/pop pairs. Virtual threads own disjoint SRAM regions and every statement
 * is copied per thread, back to back (InjectVirtualThread), which lets one thread's loads overlap
 * another's GEMMs. */
#include "backends/vta/internal.h"
#include "core/alloc.h"

typedef struct loop {
    int64_t extent, dst, src, wgt;
} loop;

/* A GEMM or reset kernel from loops[0..n) (outer first): unit loops vanish, the first two left
 * fold into the instruction, the rest enumerate explicit uops from the thread's bases. */
static at_vtagen_kernel *gemm_kernel(at_vtagen_prog *p, const loop *loops, size_t n, bool reset, int64_t acc0,
                                     int64_t inp0, int64_t wgt0)
{
    loop l[8];
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (loops[i].extent > 1) l[m++] = loops[i];
    size_t folded = m < 2 ? m : 2, n_uops = 1;
    for (size_t i = folded; i < m; i++) n_uops *= (size_t)l[i].extent;
    if (n_uops > p->uop_depth) {
        p->st = AT_FAIL(AT_EINVAL, "a GEMM uop kernel of %zu uops exceeds the %u-entry uop buffer", n_uops, p->uop_depth);
        return NULL;
    }
    at_vtagen_kernel *k = at_vtagen_kernel_new(p, n_uops);
    if (!k) return NULL;
    k->reset = reset;
    k->n_loops = (int)folded;
    for (size_t i = 0; i < folded; i++) {
        k->extent[i] = (uint32_t)l[i].extent;
        k->dst_f[i] = (uint32_t)l[i].dst;
        k->src_f[i] = reset ? 0 : (uint32_t)l[i].src;
        k->wgt_f[i] = reset ? 0 : (uint32_t)l[i].wgt;
    }
    int64_t idx[8] = {0};
    for (size_t u = 0; u < n_uops; u++) {
        int64_t d = acc0, s = inp0, w = wgt0;
        for (size_t i = folded; i < m; i++) {
            d += idx[i] * l[i].dst;
            s += idx[i] * l[i].src;
            w += idx[i] * l[i].wgt;
        }
        k->uops[u] = (at_vta_uop){(uint32_t)d, reset ? 0 : (uint32_t)s, reset ? 0 : (uint32_t)w};
        /* VerifyDep: no accumulator written by either of the two previous uops */
        if (!reset && ((u >= 1 && k->uops[u - 1].dst == k->uops[u].dst) || (u >= 2 && k->uops[u - 2].dst == k->uops[u].dst))) {
            p->st = AT_FAIL(AT_EDEVICE, "uop %zu of a GEMM kernel writes accumulator %u as one of the two uops before it "
                                        "(the runtime's VerifyDep check)", u, k->uops[u].dst);
            return NULL;
        }
        for (size_t i = m; i-- > folded;) { /* odometer, innermost fastest */
            if (++idx[i] < l[i].extent) break;
            idx[i] = 0;
        }
    }
    return k;
}

static at_vtagen_kernel *alu_kernel(at_vtagen_prog *p, at_vta_alu_op op, int32_t imm, int64_t acc0, int64_t n)
{
    at_vtagen_kernel *k = at_vtagen_kernel_new(p, 1);
    if (!k) return NULL;
    k->is_alu = true;
    k->alu_op = op;
    k->use_imm = true;
    k->imm = imm;
    k->uops[0] = (at_vta_uop){(uint32_t)acc0, (uint32_t)acc0, 0};
    k->n_loops = n > 1 ? 1 : 0;
    k->extent[0] = (uint32_t)n;
    k->dst_f[0] = k->src_f[0] = 1;
    return k;
}

/* dst[acc0 + co * plane + e] op= src[bias0 + co] for co < tco, e < plane: a tensor-tensor ALU
 * kernel with one uop and the two loops (unit loops dropped) over the tile's channel blocks. */
static at_vtagen_kernel *alu_bias_kernel(at_vtagen_prog *p, at_vta_alu_op op, int64_t acc0, int64_t bias0, int64_t tco,
                                         int64_t plane)
{
    at_vtagen_kernel *k = at_vtagen_kernel_new(p, 1);
    if (!k) return NULL;
    k->is_alu = true;
    k->alu_op = op;
    k->uops[0] = (at_vta_uop){(uint32_t)acc0, (uint32_t)bias0, 0};
    int n = 0;
    if (tco > 1) k->extent[n] = (uint32_t)tco, k->dst_f[n] = (uint32_t)plane, k->src_f[n] = 1, n++;
    if (plane > 1) k->extent[n] = (uint32_t)plane, k->dst_f[n] = 1, k->src_f[n] = 0, n++;
    k->n_loops = n;
    return k;
}

static bool has_bias(const at_vtagen_conv2d *c)
{
    for (size_t i = 0; i < c->n_epi && i < AT_VTAGEN_MAX_EPI; i++)
        if (c->epi[i].bias) return true;
    return false;
}

at_status at_vtagen_conv2d_check(const at_vta_hw *hw, const at_vtagen_conv2d *c)
{
    if (c->tile_h < 1 || c->oh % c->tile_h || c->tile_w < 1 || c->ow % c->tile_w || c->tile_ci < 1 ||
        c->ci_b % c->tile_ci || c->tile_co < 1 || c->co_b % c->tile_co)
        return AT_FAIL(AT_EINVAL, "tile sizes h %lld, w %lld, ci %lld, co %lld do not divide %lld, %lld, %lld, %lld",
                       (long long)c->tile_h, (long long)c->tile_w, (long long)c->tile_ci, (long long)c->tile_co,
                       (long long)c->oh, (long long)c->ow, (long long)c->ci_b, (long long)c->co_b);
    if (c->oc_nthread < 1 || c->h_nthread < 1 || (c->co_b / c->tile_co) % c->oc_nthread ||
        (c->oh / c->tile_h) % c->h_nthread)
        return AT_FAIL(AT_EINVAL, "virtual threads %lld x %lld do not divide the %lld x %lld outer tiles",
                       (long long)c->oc_nthread, (long long)c->h_nthread, (long long)(c->co_b / c->tile_co),
                       (long long)(c->oh / c->tile_h));
    int64_t nvt = c->oc_nthread * c->h_nthread;
    int64_t iy = (c->tile_h - 1) * c->sh + c->kh, ix = (c->tile_w - 1) * c->sw + c->kw;
    if (nvt * c->tile_ci * iy * ix > hw->inp_buff_depth)
        return AT_FAIL(AT_EINVAL, "input tiles need %lld elements, the input buffer holds %d",
                       (long long)(nvt * c->tile_ci * iy * ix), hw->inp_buff_depth);
    if (nvt * c->tile_co * c->tile_ci * c->kh * c->kw > hw->wgt_buff_depth)
        return AT_FAIL(AT_EINVAL, "weight tiles need %lld elements, the weight buffer holds %d",
                       (long long)(nvt * c->tile_co * c->tile_ci * c->kh * c->kw), hw->wgt_buff_depth);
    int64_t bias_tile = has_bias(c) ? c->tile_co : 0;
    if (nvt * (c->tile_co * c->tile_h * c->tile_w + bias_tile) > hw->acc_buff_depth)
        return AT_FAIL(AT_EINVAL, "accumulator tiles need %lld elements, the accumulator buffer holds %d",
                       (long long)(nvt * (c->tile_co * c->tile_h * c->tile_w + bias_tile)), hw->acc_buff_depth);
    if (c->n_epi > AT_VTAGEN_MAX_EPI) return AT_FAIL(AT_EINVAL, "at most %d epilogue stages", AT_VTAGEN_MAX_EPI);
    for (size_t i = 0; i < c->n_epi; i++)
        if (!c->epi[i].bias && (c->epi[i].imm < -32768 || c->epi[i].imm > 32767))
            return AT_FAIL(AT_EINVAL, "epilogue stage %zu: immediate %d does not fit 16 bits", i, (int)c->epi[i].imm);
    if (c->ph > 15 || c->pw > 15) return AT_FAIL(AT_EINVAL, "padding above 15 does not fit a load's pad fields");
    return AT_OK;
}

enum { MAX_VT = 64 };

at_status at_vtagen_conv2d_lower(const at_vta_hw *hw, const at_vtagen_conv2d *c, const at_vtagen_addrs *addrs,
                                 at_vtagen_prog **out)
{
    *out = NULL;
    AT_TRY(at_vtagen_conv2d_check(hw, c));
    int64_t nvt = c->oc_nthread * c->h_nthread;
    if (nvt > MAX_VT) return AT_FAIL(AT_EINVAL, "at most %d virtual threads", MAX_VT);
    at_vtagen_prog *p = at_vtagen_prog_new((uint32_t)hw->uop_buff_depth);
    if (!p) return AT_OOM();
    const int64_t th = c->tile_h, tw = c->tile_w, tci = c->tile_ci, tco = c->tile_co;
    const int64_t iy = (th - 1) * c->sh + c->kh, ix = (tw - 1) * c->sw + c->kw;
    const int64_t inp_tile = tci * iy * ix, wgt_tile = tco * tci * c->kh * c->kw, acc_tile = tco * th * tw;
    const int64_t data0 = (int64_t)(addrs->data / (uint64_t)at_vta_hw_dram_elem_bytes(hw, AT_VTA_MEM_INP));
    const int64_t kern0 = (int64_t)(addrs->kernel / (uint64_t)at_vta_hw_dram_elem_bytes(hw, AT_VTA_MEM_WGT));
    const int64_t out0 = (int64_t)(addrs->out / (uint64_t)at_vta_hw_dram_elem_bytes(hw, AT_VTA_MEM_OUT));
    /* the epilogue: the template's >> shift, min, max unless the layer gives its own */
    at_vtagen_epi epi[AT_VTAGEN_MAX_EPI] = {{AT_VTA_ALU_SHR, false, c->shift}, {AT_VTA_ALU_MIN, false, c->clip_hi},
                                            {AT_VTA_ALU_MAX, false, c->clip_lo}};
    size_t n_epi = 3;
    if (c->n_epi) {
        n_epi = c->n_epi;
        for (size_t a = 0; a < n_epi; a++) epi[a] = c->epi[a];
    }
    const bool bias = has_bias(c);
    const int64_t bias0 = nvt * acc_tile; /* bias blocks after every thread's accumulator tile */
    const int64_t bias_dram0 =
        bias ? (int64_t)(addrs->bias / (uint64_t)at_vta_hw_dram_elem_bytes(hw, AT_VTA_MEM_ACC)) : 0;
    at_vtagen_kernel *reset[MAX_VT], *gemm[MAX_VT], *alu[AT_VTAGEN_MAX_EPI][MAX_VT];
    for (int64_t t = 0; t < nvt; t++) {
        loop rl[3] = {{tw, 1, 0, 0}, {tco, th * tw, 0, 0}, {th, tw, 0, 0}}; /* x_j, x_co, x_i */
        reset[t] = gemm_kernel(p, rl, 3, true, t * acc_tile, 0, 0);
        loop gl[6] = {
            {tci, 0, iy * ix, c->kh * c->kw}, /* k_o.inner */
            {tw, 1, c->sw, 0},                /* x_j */
            {c->kw, 0, 1, 1},                 /* d_j */
            {c->kh, 0, ix, c->kw},            /* d_i */
            {tco, th * tw, 0, tci * c->kh * c->kw}, /* x_co */
            {th, tw, c->sh * ix, 0},          /* x_i */
        };
        gemm[t] = gemm_kernel(p, gl, 6, false, t * acc_tile, t * inp_tile, t * wgt_tile);
        for (size_t a = 0; a < n_epi; a++)
            alu[a][t] = epi[a].bias ? alu_bias_kernel(p, epi[a].op, t * acc_tile, bias0 + t * tco, tco, th * tw)
                                    : alu_kernel(p, epi[a].op, epi[a].imm, t * acc_tile, acc_tile);
    }
    for (int64_t t = 0; t < nvt; t++) at_vtagen_dep_push(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
    int64_t co_outer = c->co_b / tco / c->oc_nthread, h_outer = c->oh / th / c->h_nthread;
    for (int64_t bo = 0; bo < c->n_b && p->st == AT_OK; bo++)
        for (int64_t i0 = 0; i0 < h_outer && p->st == AT_OK; i0++)
            for (int64_t co0 = 0; co0 < co_outer && p->st == AT_OK; co0++)
                for (int64_t j0 = 0; j0 < c->ow / tw && p->st == AT_OK; j0++) {
                    int64_t co_blk[MAX_VT], i_start[MAX_VT], j_start = j0 * tw;
                    for (int64_t t = 0; t < nvt; t++) {
                        int64_t vo = t / c->h_nthread, vh = t % c->h_nthread;
                        co_blk[t] = (co0 * c->oc_nthread + vo) * tco;
                        i_start[t] = (i0 * c->h_nthread + vh) * th;
                    }
                    for (int64_t t = 0; t < nvt; t++) {
                        at_vtagen_dep_pop(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
                        at_vtagen_push_kernel(p, reset[t]);
                        at_vtagen_dep_push(p, AT_VTAGEN_COMPUTE, AT_VTAGEN_LOAD);
                    }
                    for (int64_t ko = 0; ko < c->ci_b / tci; ko++) {
                        for (int64_t t = 0; t < nvt; t++) {
                            at_vtagen_dep_pop(p, AT_VTAGEN_COMPUTE, AT_VTAGEN_LOAD);
                            int64_t y0 = i_start[t] * c->sh - c->ph, x0 = j_start * c->sw - c->pw;
                            int64_t yp0 = y0 < 0 ? -y0 : 0, xp0 = x0 < 0 ? -x0 : 0;
                            int64_t yp1 = y0 + iy > c->h ? y0 + iy - c->h : 0, xp1 = x0 + ix > c->w ? x0 + ix - c->w : 0;
                            for (int64_t kk = 0; kk < tci; kk++) {
                                at_vta_insn *in = at_vtagen_mem(p, AT_VTA_OP_LOAD, AT_VTA_MEM_INP);
                                if (!in) break;
                                in->sram_base = (uint32_t)(t * inp_tile + kk * iy * ix);
                                in->dram_base = (uint32_t)(data0 + ((bo * c->ci_b + ko * tci + kk) * c->h + y0 + yp0) * c->w +
                                                           x0 + xp0);
                                in->y_size = (uint32_t)(iy - yp0 - yp1);
                                in->x_size = (uint32_t)(ix - xp0 - xp1);
                                in->x_stride = (uint32_t)c->w;
                                in->y_pad0 = (uint32_t)yp0, in->y_pad1 = (uint32_t)yp1;
                                in->x_pad0 = (uint32_t)xp0, in->x_pad1 = (uint32_t)xp1;
                            }
                        }
                        for (int64_t t = 0; t < nvt; t++) {
                            at_vta_insn *in = at_vtagen_mem(p, AT_VTA_OP_LOAD, AT_VTA_MEM_WGT);
                            if (!in) break;
                            in->sram_base = (uint32_t)(t * wgt_tile);
                            in->dram_base = (uint32_t)(kern0 + (co_blk[t] * c->ci_b + ko * tci) * c->kh * c->kw);
                            in->y_size = (uint32_t)tco;
                            in->x_size = (uint32_t)(tci * c->kh * c->kw);
                            in->x_stride = (uint32_t)(c->ci_b * c->kh * c->kw);
                            at_vtagen_dep_push(p, AT_VTAGEN_LOAD, AT_VTAGEN_COMPUTE);
                        }
                        for (int64_t t = 0; t < nvt; t++) {
                            at_vtagen_dep_pop(p, AT_VTAGEN_LOAD, AT_VTAGEN_COMPUTE);
                            at_vtagen_push_kernel(p, gemm[t]);
                            at_vtagen_dep_push(p, AT_VTAGEN_COMPUTE, AT_VTAGEN_LOAD);
                        }
                    }
                    for (int64_t t = 0; t < nvt; t++) at_vtagen_dep_pop(p, AT_VTAGEN_COMPUTE, AT_VTAGEN_LOAD);
                    for (size_t a = 0; a < n_epi; a++) {
                        /* a tensor operand's DMA (compute stage) before its ALU stage, per thread */
                        for (int64_t t = 0; t < nvt && epi[a].bias; t++) {
                            at_vta_insn *in = at_vtagen_mem(p, AT_VTA_OP_LOAD, AT_VTA_MEM_ACC);
                            if (!in) break;
                            in->sram_base = (uint32_t)(bias0 + t * tco);
                            in->dram_base = (uint32_t)(bias_dram0 + co_blk[t]);
                            in->y_size = 1;
                            in->x_size = (uint32_t)tco;
                            in->x_stride = (uint32_t)tco;
                        }
                        for (int64_t t = 0; t < nvt; t++) {
                            at_vtagen_push_kernel(p, alu[a][t]);
                            if (a == n_epi - 1) at_vtagen_dep_push(p, AT_VTAGEN_COMPUTE, AT_VTAGEN_STORE);
                        }
                    }
                    for (int64_t t = 0; t < nvt; t++) {
                        at_vtagen_dep_pop(p, AT_VTAGEN_COMPUTE, AT_VTAGEN_STORE);
                        for (int64_t co = 0; co < tco; co++) {
                            at_vta_insn *in = at_vtagen_mem(p, AT_VTA_OP_STORE, AT_VTA_MEM_OUT);
                            if (!in) break;
                            in->sram_base = (uint32_t)(t * acc_tile + co * th * tw);
                            in->dram_base = (uint32_t)(out0 + ((bo * c->co_b + co_blk[t] + co) * c->oh + i_start[t]) * c->ow +
                                                       j_start);
                            in->y_size = (uint32_t)th;
                            in->x_size = (uint32_t)tw;
                            in->x_stride = (uint32_t)c->ow;
                        }
                        at_vtagen_dep_push(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
                    }
                }
    for (int64_t t = 0; t < nvt; t++) at_vtagen_dep_pop(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
    at_vtagen_finish(p);
    at_status st = p->st;
    if (st != AT_OK) {
        at_vtagen_prog_free(p);
        return st;
    }
    *out = p;
    return AT_OK;
}
