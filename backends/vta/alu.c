/* add.vta / multiply.vta lowered to VTA: schedule_alu_packed's loop nest (spec templates_vta.md
 * 5.4) walked from the config's tiling, emitting what the runtime receives from the compiled
 * schedule: per output tile the lhs and rhs tiles DMA'd into the accumulator (compute-queue LOAD
 * ACC, or ACC_8BIT for int8 tensors) with the 2-D pattern InjectDMAIntrin folds, the tensor-tensor
 * ALU op in place on the lhs tile (one uop; the tile's loops merged as InjectALUIntrin and
 * _flatten_loop merge them, a broadcast rhs with source factor 0), the immediate stages (clip),
 * one STORE per output-channel block, and CoProcSync's tokens: everything but the stores runs on
 * the compute queue, so the only hazards are compute -> store (RAW) and store -> compute (WAR on
 * the accumulator, loop-carried). */
#include "backends/vta/internal.h"
#include "core/alloc.h"

/* A DMA of the region dims[0..n) (extent, stride in elements; outer first) as InjectDMAIntrin's
 * _get_2d_pattern returns it: unit dims dropped, contiguous ones merged; at most two groups, the
 * inner one of stride 1 unless it is the only one. */
typedef struct dma2d {
    int64_t y, x, stride;
} dma2d;

static bool dma_pattern(const int64_t (*dims)[2], size_t n, dma2d *out)
{
    int64_t size[3] = {0}, stride[3] = {0};
    size_t groups = 0;
    for (size_t k = n; k-- > 0;) {
        if (dims[k][0] == 1) continue;
        if (groups && size[groups - 1] * stride[groups - 1] == dims[k][1]) {
            size[groups - 1] *= dims[k][0];
            continue;
        }
        if (groups == 2) return false;
        size[groups] = dims[k][0], stride[groups] = dims[k][1], groups++;
    }
    if (groups == 0) {
        *out = (dma2d){1, 1, 1};
    } else if (groups == 1) {
        *out = stride[0] == 1 ? (dma2d){1, size[0], size[0]} : (dma2d){size[0], 1, stride[0]};
    } else {
        if (stride[0] != 1) return false;
        *out = (dma2d){size[1], size[0], stride[1]};
    }
    return true;
}

/* The rhs tensor (n, c, h, w, in elements) and its tile: extent 1 where it broadcasts. */
typedef struct rhs_geom {
    int64_t n, c, h, w, tco, th, tw, tile;
} rhs_geom;

static void rhs_of(const at_vtagen_alu *a, rhs_geom *r)
{
    r->n = a->rhs_bcast_n ? 1 : a->n_b;
    r->c = a->rhs_bcast_c ? 1 : a->c_b;
    r->h = a->rhs_bcast_h ? 1 : a->h;
    r->w = a->rhs_bcast_w ? 1 : a->w;
    r->tco = a->rhs_bcast_c ? 1 : a->tile_co;
    r->th = a->rhs_bcast_h ? 1 : a->tile_h;
    r->tw = a->rhs_bcast_w ? 1 : a->tile_w;
    r->tile = r->tco * r->th * r->tw;
}

at_status at_vtagen_alu_check(const at_vta_hw *hw, const at_vtagen_alu *a)
{
    if (a->n_b < 1 || a->c_b < 1 || a->h < 1 || a->w < 1 || a->tile_co < 1 || a->c_b % a->tile_co || a->tile_h < 1 ||
        a->h % a->tile_h || a->tile_w < 1 || a->w % a->tile_w)
        return AT_FAIL(AT_EINVAL, "tile sizes co %lld, h %lld, w %lld do not divide %lld, %lld, %lld",
                       (long long)a->tile_co, (long long)a->tile_h, (long long)a->tile_w, (long long)a->c_b,
                       (long long)a->h, (long long)a->w);
    int64_t tile = a->tile_co * a->tile_h * a->tile_w;
    rhs_geom r;
    rhs_of(a, &r);
    if (tile + r.tile > hw->acc_buff_depth)
        return AT_FAIL(AT_EINVAL, "lhs and rhs tiles need %lld elements, the accumulator buffer holds %d",
                       (long long)(tile + r.tile), hw->acc_buff_depth);
    const int64_t region[3][2] = {{a->tile_co, a->h * a->w}, {a->tile_h, a->w}, {a->tile_w, 1}};
    const int64_t rregion[3][2] = {{r.tco, r.h * r.w}, {r.th, r.w}, {r.tw, 1}};
    dma2d d;
    if (!dma_pattern(region, 3, &d) || !dma_pattern(rregion, 3, &d))
        return AT_FAIL(AT_EINVAL, "a %lldx%lldx%lld tile of a %lldx%lldx%lld tensor (or its rhs tile) is no 2-D DMA "
                                  "pattern",
                       (long long)a->tile_co, (long long)a->tile_h, (long long)a->tile_w, (long long)a->c_b,
                       (long long)a->h, (long long)a->w);
    if (a->op != AT_VTA_ALU_ADD && a->op != AT_VTA_ALU_MUL)
        return AT_FAIL(AT_EINVAL, "the tensor-tensor op must be ADD or MUL");
    if (a->n_imm > AT_VTAGEN_ALU_MAX_IMM) return AT_FAIL(AT_EINVAL, "at most %d immediate stages", AT_VTAGEN_ALU_MAX_IMM);
    for (size_t i = 0; i < a->n_imm; i++)
        if (a->imm[i].imm < -32768 || a->imm[i].imm > 32767 || (unsigned)a->imm[i].op >= AT_VTA_ALU_COUNT)
            return AT_FAIL(AT_EINVAL, "immediate stage %zu: op %d imm %d does not fit the ALU instruction", i,
                           (int)a->imm[i].op, (int)a->imm[i].imm);
    if (a->int8 && (hw->inp_width != 8 || hw->acc_width != 32))
        return AT_FAIL(AT_EINVAL, "int8 tensors need ACC_8BIT loads: an int8-input, int32-accumulator configuration");
    return AT_OK;
}

/* An ALU kernel of one uop (dst 0, src) over the loops l[0..n) (outer first; extent, dst and src
 * factors in elements) as InjectALUIntrin leaves them: unit loops gone, then _flatten_loop merges
 * an outer loop into the inner one where both factors continue it. More than two loops left is
 * the runtime's UopLoopBegin CHECK (AT_EDEVICE). */
static at_vtagen_kernel *alu_kernel(at_vtagen_prog *p, at_vta_alu_op op, bool use_imm, int32_t imm, uint32_t src,
                                    const int64_t (*l)[3], size_t n)
{
    int64_t f[3][3];
    size_t m = 0;
    for (size_t i = n; i-- > 0;) { /* inner to outer */
        if (l[i][0] == 1) continue;
        if (m && f[m - 1][1] * f[m - 1][0] == l[i][1] && f[m - 1][2] * f[m - 1][0] == l[i][2]) {
            f[m - 1][0] *= l[i][0];
            continue;
        }
        f[m][0] = l[i][0], f[m][1] = l[i][1], f[m][2] = l[i][2], m++;
    }
    if (m > 2) {
        p->st = AT_FAIL(AT_EDEVICE, "the broadcast ALU op needs %zu uop loops, the runtime allows 2", m);
        return NULL;
    }
    at_vtagen_kernel *k = at_vtagen_kernel_new(p, 1);
    if (!k) return NULL;
    k->is_alu = true;
    k->alu_op = op;
    k->use_imm = use_imm;
    k->imm = imm;
    k->uops[0] = (at_vta_uop){0, src, 0};
    k->n_loops = (int)m;
    for (size_t i = 0; i < m; i++) { /* outer first */
        k->extent[i] = (uint32_t)f[m - 1 - i][0];
        k->dst_f[i] = (uint32_t)f[m - 1 - i][1];
        k->src_f[i] = (uint32_t)f[m - 1 - i][2];
    }
    return k;
}

static void load_tile(at_vtagen_prog *p, at_vta_mem mem, uint32_t sram, int64_t elem0, const dma2d *d)
{
    at_vta_insn *in = at_vtagen_mem(p, AT_VTA_OP_LOAD, mem);
    if (!in) return;
    in->sram_base = sram;
    in->dram_base = (uint32_t)elem0;
    in->y_size = (uint32_t)d->y;
    in->x_size = (uint32_t)d->x;
    in->x_stride = (uint32_t)d->stride;
}

at_status at_vtagen_alu_lower(const at_vta_hw *hw, const at_vtagen_alu *a, const at_vtagen_alu_addrs *addrs,
                              at_vtagen_prog **out)
{
    *out = NULL;
    AT_TRY(at_vtagen_alu_check(hw, a));
    const int64_t tco = a->tile_co, th = a->tile_h, tw = a->tile_w, tile = tco * th * tw;
    rhs_geom r;
    rhs_of(a, &r);
    const at_vta_mem in_mem = a->int8 ? AT_VTA_MEM_ACC_8BIT : AT_VTA_MEM_ACC;
    const int64_t in_bytes = at_vta_hw_dram_elem_bytes(hw, in_mem);
    const int64_t lhs0 = (int64_t)(addrs->lhs / (uint64_t)in_bytes), rhs0 = (int64_t)(addrs->rhs / (uint64_t)in_bytes);
    const int64_t out0 = (int64_t)(addrs->out / (uint64_t)at_vta_hw_dram_elem_bytes(hw, AT_VTA_MEM_OUT));
    const int64_t tile_dims[3][2] = {{tco, a->h * a->w}, {th, a->w}, {tw, 1}};
    const int64_t rtile_dims[3][2] = {{r.tco, r.h * r.w}, {r.th, r.w}, {r.tw, 1}};
    const int64_t row_dims[2][2] = {{th, a->w}, {tw, 1}};
    dma2d ld, rd, sd;
    bool ok = dma_pattern(tile_dims, 3, &ld) && dma_pattern(rtile_dims, 3, &rd) && dma_pattern(row_dims, 2, &sd);
    AT_ASSERT(ok); /* checked */

    at_vtagen_prog *p = at_vtagen_prog_new((uint32_t)hw->uop_buff_depth);
    if (!p) return AT_OOM();
    /* lhs tile at ACC 0 (the ALU stages run there, in place), rhs tile after it */
    const int64_t op_loops[3][3] = {{tco, th * tw, r.tco > 1 ? r.th * r.tw : 0},
                                    {th, tw, r.th > 1 ? r.tw : 0},
                                    {tw, 1, r.tw > 1 ? 1 : 0}};
    const int64_t imm_loops[1][3] = {{tile, 1, 1}};
    at_vtagen_kernel *k_op = alu_kernel(p, a->op, false, 0, (uint32_t)tile, op_loops, 3);
    at_vtagen_kernel *k_imm[AT_VTAGEN_ALU_MAX_IMM];
    for (size_t i = 0; i < a->n_imm; i++) k_imm[i] = alu_kernel(p, a->imm[i].op, true, a->imm[i].imm, 0, imm_loops, 1);

    at_vtagen_dep_push(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
    for (int64_t bo = 0; bo < a->n_b && p->st == AT_OK; bo++)
        for (int64_t i0 = 0; i0 < a->h / th && p->st == AT_OK; i0++)
            for (int64_t co0 = 0; co0 < a->c_b / tco && p->st == AT_OK; co0++)
                for (int64_t j0 = 0; j0 < a->w / tw && p->st == AT_OK; j0++) {
                    int64_t origin = ((bo * a->c_b + co0 * tco) * a->h + i0 * th) * a->w + j0 * tw;
                    /* the rhs tile's origin: index 0 along the dimensions it broadcasts */
                    int64_t rb = r.n > 1 ? bo : 0, rc = r.c > 1 ? co0 * tco : 0, ri = r.h > 1 ? i0 * th : 0;
                    int64_t rorigin = ((rb * r.c + rc) * r.h + ri) * r.w + (r.w > 1 ? j0 * tw : 0);
                    at_vtagen_dep_pop(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
                    load_tile(p, in_mem, 0, lhs0 + origin, &ld);
                    load_tile(p, in_mem, (uint32_t)tile, rhs0 + rorigin, &rd);
                    at_vtagen_push_kernel(p, k_op);
                    for (size_t i = 0; i < a->n_imm; i++) at_vtagen_push_kernel(p, k_imm[i]);
                    at_vtagen_dep_push(p, AT_VTAGEN_COMPUTE, AT_VTAGEN_STORE);
                    at_vtagen_dep_pop(p, AT_VTAGEN_COMPUTE, AT_VTAGEN_STORE);
                    for (int64_t co = 0; co < tco; co++) {
                        at_vta_insn *in = at_vtagen_mem(p, AT_VTA_OP_STORE, AT_VTA_MEM_OUT);
                        if (!in) break;
                        in->sram_base = (uint32_t)(co * th * tw);
                        in->dram_base = (uint32_t)(out0 + origin + co * a->h * a->w);
                        in->y_size = (uint32_t)sd.y;
                        in->x_size = (uint32_t)sd.x;
                        in->x_stride = (uint32_t)sd.stride;
                    }
                    at_vtagen_dep_push(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
                }
    at_vtagen_dep_pop(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
    at_vtagen_finish(p);
    at_status st = p->st;
    if (st != AT_OK) {
        at_vtagen_prog_free(p);
        return st;
    }
    *out = p;
    return AT_OK;
}
