/* Functional semantics of VTA instructions, identical to tvm-vta's fsim (sim_driver.cc): padded
 * 2-D loads, GEMM with reset, ALU MIN/MAX/ADD/SHR/MUL, stores that narrow ACC to the output
 * width. Every index an instruction or its micro-ops can produce is checked before anything is
 * written, so a bad program fails cleanly; SRAM elements are raw little-endian bytes. */
#include <string.h>

#include "vta/internal.h"

static uint8_t *sram_of(at_vta_sim *sim, at_vta_mem mem)
{
    return sim->sram[mem == AT_VTA_MEM_ACC_8BIT || mem == AT_VTA_MEM_OUT ? AT_VTA_MEM_ACC : mem];
}

int at_vta_sram_elem_bytes(const at_vta_hw *hw, at_vta_mem mem)
{
    switch (mem) {
    case AT_VTA_MEM_UOP: return hw->uop_elem_bytes;
    case AT_VTA_MEM_WGT: return hw->wgt_elem_bytes;
    case AT_VTA_MEM_INP: return hw->inp_elem_bytes;
    case AT_VTA_MEM_ACC:
    case AT_VTA_MEM_OUT:
    case AT_VTA_MEM_ACC_8BIT: return hw->acc_elem_bytes;
    case AT_VTA_MEM_COUNT: break;
    }
    AT_ASSERT(0);
    return 0;
}

/* ---- lanes of 1..32 bits, packed LSB-first (fsim's BitPacker on a little-endian host) ---- */

static int32_t ld32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static void st32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)u;
    p[1] = (uint8_t)(u >> 8);
    p[2] = (uint8_t)(u >> 16);
    p[3] = (uint8_t)(u >> 24);
}

static int32_t lane_get(const uint8_t *p, int bits, uint32_t i)
{
    switch (bits) {
    case 32: return ld32(p + 4 * (size_t)i);
    case 16: return (int16_t)(uint16_t)(p[2 * (size_t)i] | p[2 * (size_t)i + 1] << 8);
    case 8: return (int8_t)p[i];
    default: {
        uint32_t bit = i * (uint32_t)bits, mask = (1u << bits) - 1, sign = 1u << (bits - 1);
        uint32_t u = ((uint32_t)p[bit >> 3] >> (bit & 7)) & mask;
        return (int32_t)(u ^ sign) - (int32_t)sign;
    }
    }
}

static void lane_set(uint8_t *p, int bits, uint32_t i, int32_t v)
{
    switch (bits) {
    case 32: st32(p + 4 * (size_t)i, v); return;
    case 16:
        p[2 * (size_t)i] = (uint8_t)v;
        p[2 * (size_t)i + 1] = (uint8_t)((uint32_t)v >> 8);
        return;
    case 8: p[i] = (uint8_t)v; return;
    default: {
        uint32_t bit = i * (uint32_t)bits, mask = (1u << bits) - 1, sh = bit & 7;
        p[bit >> 3] = (uint8_t)((p[bit >> 3] & ~(mask << sh)) | (((uint32_t)v & mask) << sh));
        return;
    }
    }
}

/* ---- static checks ---- */

static at_status check_dram(const at_vta_sim *sim, const at_vta_insn *in, int eb)
{
    if (in->y_size == 0) return AT_OK;
    uint64_t first = (uint64_t)in->dram_base * (uint64_t)eb;
    uint64_t end = ((uint64_t)in->dram_base + (uint64_t)(in->y_size - 1) * in->x_stride + in->x_size) * (uint64_t)eb;
    if (first < AT_VTA_DRAM_BASE || end > sim->dram_top)
        return AT_FAIL(AT_EDEVICE, "DRAM bytes [0x%llx, 0x%llx) are outside the allocated [0x%x, 0x%llx)",
                       (unsigned long long)first, (unsigned long long)end, AT_VTA_DRAM_BASE,
                       (unsigned long long)sim->dram_top);
    return AT_OK;
}

static at_status check_sram(const at_vta_hw *hw, at_vta_mem mem, uint64_t first, uint64_t count)
{
    uint64_t depth = (uint64_t)at_vta_hw_sram_depth(hw, mem);
    if (first + count > depth)
        return AT_FAIL(AT_EDEVICE, "%s SRAM elements [%llu, %llu) exceed its depth %llu", at_vta_mem_name(mem),
                       (unsigned long long)first, (unsigned long long)(first + count), (unsigned long long)depth);
    return AT_OK;
}

at_status at_vta_exec_check(const at_vta_sim *sim, const at_vta_insn *in)
{
    const at_vta_hw *hw = &sim->hw;
    switch (in->opcode) {
    case AT_VTA_OP_LOAD: {
        if (in->x_size == 0) return AT_OK; /* a dependency NOP: fsim returns before looking further */
        if (in->mem == AT_VTA_MEM_OUT || (unsigned)in->mem >= AT_VTA_MEM_COUNT)
            return AT_FAIL(AT_EDEVICE, "LOAD cannot write memory type %d (%s)", (int)in->mem, at_vta_mem_name(in->mem));
        if (in->mem == AT_VTA_MEM_ACC_8BIT && (hw->acc_width != 32 || hw->inp_width != 8))
            return AT_FAIL(AT_EDEVICE, "ACC_8BIT loads need int8 inputs and int32 accumulators (as fsim's Load_int8)");
        uint64_t xtotal = (uint64_t)in->x_pad0 + in->x_size + in->x_pad1;
        uint64_t ytotal = (uint64_t)in->y_pad0 + in->y_size + in->y_pad1;
        AT_TRY(check_sram(hw, in->mem, in->sram_base, xtotal * ytotal));
        return check_dram(sim, in, at_vta_hw_dram_elem_bytes(hw, in->mem));
    }
    case AT_VTA_OP_STORE:
        if (in->x_size == 0) return AT_OK;
        if (in->mem != AT_VTA_MEM_OUT)
            return AT_FAIL(AT_EDEVICE, "STORE reads memory type OUT only, not %d (%s)", (int)in->mem,
                           at_vta_mem_name(in->mem));
        if (in->x_pad0 || in->x_pad1 || in->y_pad0 || in->y_pad1)
            return AT_FAIL(AT_EDEVICE, "STORE cannot pad (pads %u/%u/%u/%u)", in->y_pad0, in->y_pad1, in->x_pad0,
                           in->x_pad1);
        AT_TRY(check_sram(hw, AT_VTA_MEM_OUT, in->sram_base, (uint64_t)in->y_size * in->x_size));
        return check_dram(sim, in, hw->out_elem_bytes);
    case AT_VTA_OP_GEMM:
    case AT_VTA_OP_ALU:
        if (in->uop_bgn > in->uop_end)
            return AT_FAIL(AT_EDEVICE, "uop_bgn %u is after uop_end %u", in->uop_bgn, in->uop_end);
        if (in->uop_end > (uint32_t)hw->uop_buff_depth)
            return AT_FAIL(AT_EDEVICE, "uop_end %u exceeds the micro-op buffer depth %d", in->uop_end,
                           hw->uop_buff_depth);
        if (in->opcode == AT_VTA_OP_ALU && (unsigned)in->alu_op >= AT_VTA_ALU_COUNT)
            return AT_FAIL(AT_EDEVICE, "unknown ALU opcode %d", (int)in->alu_op);
        return AT_OK;
    case AT_VTA_OP_FINISH: return AT_OK;
    case AT_VTA_OP_COUNT: break;
    }
    AT_ASSERT(0); /* at_vta_insn_decode only yields opcodes below AT_VTA_OP_COUNT */
    return AT_OK;
}

/* ---- loads and stores ---- */

static void exec_load(at_vta_sim *sim, const at_vta_insn *in)
{
    const at_vta_hw *hw = &sim->hw;
    size_t seb = (size_t)at_vta_sram_elem_bytes(hw, in->mem), deb = (size_t)at_vta_hw_dram_elem_bytes(hw, in->mem);
    size_t xtotal = (size_t)in->x_pad0 + in->x_size + in->x_pad1;
    uint8_t *dst = sram_of(sim, in->mem) + (size_t)in->sram_base * seb;
    memset(dst, 0, seb * xtotal * in->y_pad0);
    dst += seb * xtotal * in->y_pad0;
    for (uint32_t y = 0; y < in->y_size; y++) {
        const uint8_t *src = sim->dram + ((size_t)in->dram_base + (size_t)y * in->x_stride) * deb;
        memset(dst, 0, seb * in->x_pad0);
        dst += seb * in->x_pad0;
        if (in->mem == AT_VTA_MEM_ACC_8BIT) {
            /* int8 DRAM lanes sign-extended into int32 accumulator lanes */
            size_t lanes = (size_t)in->x_size * (size_t)(hw->batch * hw->block_out);
            for (size_t l = 0; l < lanes; l++) st32(dst + 4 * l, (int8_t)src[l]);
        } else {
            memcpy(dst, src, seb * in->x_size);
        }
        dst += seb * in->x_size;
        memset(dst, 0, seb * in->x_pad1);
        dst += seb * in->x_pad1;
    }
    memset(dst, 0, seb * xtotal * in->y_pad1);
}

static void exec_store(at_vta_sim *sim, const at_vta_insn *in)
{
    const at_vta_hw *hw = &sim->hw;
    uint32_t lanes = (uint32_t)(hw->batch * hw->block_out);
    size_t aeb = (size_t)hw->acc_elem_bytes, oeb = (size_t)hw->out_elem_bytes;
    for (uint32_t y = 0; y < in->y_size; y++) {
        for (uint32_t x = 0; x < in->x_size; x++) {
            const uint8_t *src = sim->sram[AT_VTA_MEM_ACC] + ((size_t)in->sram_base + (size_t)y * in->x_size + x) * aeb;
            uint8_t *dst = sim->dram + ((size_t)in->dram_base + (size_t)y * in->x_stride + x) * oeb;
            if (sim->fast_i8a32) {
                for (uint32_t l = 0; l < lanes; l++) dst[l] = src[4 * l]; /* low byte of the int32 */
            } else {
                for (uint32_t l = 0; l < lanes; l++) lane_set(dst, hw->out_width, l, lane_get(src, hw->acc_width, l));
            }
        }
    }
}

/* ---- micro-op kernels ---- */

static uint32_t uop_word(const at_vta_sim *sim, uint32_t k)
{
    const uint8_t *p = sim->sram[AT_VTA_MEM_UOP] + 4 * (size_t)k;
    return (uint32_t)ld32(p);
}

/* Decodes the kernel's uops into sim->uops and checks the largest index each can reach (factors
 * are unsigned, so the last iteration gives it). */
static at_status load_kernel(at_vta_sim *sim, const at_vta_insn *in)
{
    const at_vta_hw *hw = &sim->hw;
    bool gemm = in->opcode == AT_VTA_OP_GEMM;
    uint64_t io = in->iter_out ? in->iter_out - 1 : 0, ii = in->iter_in ? in->iter_in - 1 : 0;
    bool runs = in->iter_out && in->iter_in;
    for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        at_vta_uop *u = &sim->uops[k - in->uop_bgn];
        at_vta_uop_decode(hw, uop_word(sim, k), u);
        if (!runs) continue;
        uint64_t dst = u->dst + io * in->dst_factor_out + ii * in->dst_factor_in;
        uint64_t src = u->src + io * in->src_factor_out + ii * in->src_factor_in;
        uint64_t wgt = u->wgt + io * in->wgt_factor_out + ii * in->wgt_factor_in;
        if (dst >= (uint64_t)hw->acc_buff_depth)
            return AT_FAIL(AT_EDEVICE, "uop %u reaches ACC index %llu (depth %d)", k, (unsigned long long)dst,
                           hw->acc_buff_depth);
        if (gemm && in->reset) continue; /* a reset touches the accumulator only */
        uint64_t src_depth = (uint64_t)(gemm ? hw->inp_buff_depth : hw->acc_buff_depth);
        if (src >= src_depth)
            return AT_FAIL(AT_EDEVICE, "uop %u reaches %s index %llu (depth %llu)", k, gemm ? "INP" : "ACC",
                           (unsigned long long)src, (unsigned long long)src_depth);
        if (gemm && wgt >= (uint64_t)hw->wgt_buff_depth)
            return AT_FAIL(AT_EDEVICE, "uop %u reaches WGT index %llu (depth %d)", k, (unsigned long long)wgt,
                           hw->wgt_buff_depth);
    }
    return AT_OK;
}

static void gemm_block(const at_vta_sim *sim, uint8_t *acc, const uint8_t *inp, const uint8_t *wgt)
{
    const at_vta_hw *hw = &sim->hw;
    int batch = hw->batch, bi = hw->block_in, bo = hw->block_out;
    if (sim->fast_i8a32) {
        const int8_t *x = (const int8_t *)inp, *w = (const int8_t *)wgt;
        for (int b = 0; b < batch; b++) {
            for (int o = 0; o < bo; o++) {
                /* |products| <= 2^14 and BLOCK_IN <= 64: the dot product cannot overflow int32 */
                int32_t dot = 0;
                for (int k = 0; k < bi; k++) dot += x[b * bi + k] * w[o * bi + k];
                uint8_t *a = acc + 4 * (size_t)(b * bo + o);
                st32(a, (int32_t)((uint32_t)ld32(a) + (uint32_t)dot));
            }
        }
        return;
    }
    for (int b = 0; b < batch; b++) {
        for (int o = 0; o < bo; o++) {
            uint32_t i = (uint32_t)(b * bo + o);
            uint32_t sum = (uint32_t)lane_get(acc, hw->acc_width, i); /* fsim: int32 wrap-around */
            for (int k = 0; k < bi; k++)
                sum += (uint32_t)lane_get(inp, hw->inp_width, (uint32_t)(b * bi + k)) *
                       (uint32_t)lane_get(wgt, hw->wgt_width, (uint32_t)(o * bi + k));
            lane_set(acc, hw->acc_width, i, (int32_t)sum);
        }
    }
}

static void exec_gemm(at_vta_sim *sim, const at_vta_insn *in)
{
    const at_vta_hw *hw = &sim->hw;
    size_t aeb = (size_t)hw->acc_elem_bytes, ieb = (size_t)hw->inp_elem_bytes, web = (size_t)hw->wgt_elem_bytes;
    uint32_t n = in->uop_end - in->uop_bgn;
    for (uint32_t i = 0; i < in->iter_out; i++) {
        for (uint32_t j = 0; j < in->iter_in; j++) {
            for (uint32_t k = 0; k < n; k++) {
                const at_vta_uop *u = &sim->uops[k];
                size_t a = u->dst + i * in->dst_factor_out + j * in->dst_factor_in;
                uint8_t *acc = sim->sram[AT_VTA_MEM_ACC] + a * aeb;
                if (in->reset) {
                    memset(acc, 0, aeb);
                    continue;
                }
                size_t x = u->src + i * in->src_factor_out + j * in->src_factor_in;
                size_t w = u->wgt + i * in->wgt_factor_out + j * in->wgt_factor_in;
                gemm_block(sim, acc, sim->sram[AT_VTA_MEM_INP] + x * ieb, sim->sram[AT_VTA_MEM_WGT] + w * web);
            }
        }
    }
}

/* fsim's lambdas in 32-bit two's complement. A shift count outside 0..31 is undefined in C++;
 * the fsim binary (x86-64 SAR/SHL) uses its low 5 bits, and so do we. */
static int32_t alu_apply(at_vta_alu_op op, int32_t x, int32_t y)
{
    switch (op) {
    case AT_VTA_ALU_MIN: return x < y ? x : y;
    case AT_VTA_ALU_MAX: return x > y ? x : y;
    case AT_VTA_ALU_ADD: return (int32_t)((uint32_t)x + (uint32_t)y);
    case AT_VTA_ALU_SHR:
        if (y >= 0) {
            uint32_t s = (uint32_t)y & 31;
            /* arithmetic shift right without relying on implementation-defined >> of negatives */
            return x >= 0 ? (int32_t)((uint32_t)x >> s) : (int32_t) ~(~(uint32_t)x >> s);
        } else {
            uint32_t s = (uint32_t)(-(int64_t)y) & 31;
            return (int32_t)((uint32_t)x << s);
        }
    case AT_VTA_ALU_MUL: return (int32_t)((uint32_t)x * (uint32_t)y);
    case AT_VTA_ALU_COUNT: break;
    }
    AT_ASSERT(0);
    return 0;
}

static void exec_alu(at_vta_sim *sim, const at_vta_insn *in)
{
    const at_vta_hw *hw = &sim->hw;
    size_t aeb = (size_t)hw->acc_elem_bytes;
    uint32_t lanes = (uint32_t)(hw->batch * hw->block_out), n = in->uop_end - in->uop_bgn;
    uint8_t *accmem = sim->sram[AT_VTA_MEM_ACC];
    for (uint32_t i = 0; i < in->iter_out; i++) {
        for (uint32_t j = 0; j < in->iter_in; j++) {
            for (uint32_t k = 0; k < n; k++) {
                const at_vta_uop *u = &sim->uops[k];
                uint8_t *dst = accmem + (u->dst + i * in->dst_factor_out + j * in->dst_factor_in) * aeb;
                const uint8_t *src = accmem + (u->src + i * in->src_factor_out + j * in->src_factor_in) * aeb;
                for (uint32_t l = 0; l < lanes; l++) {
                    int32_t y = in->use_imm ? in->imm : lane_get(src, hw->acc_width, l);
                    lane_set(dst, hw->acc_width, l, alu_apply(in->alu_op, lane_get(dst, hw->acc_width, l), y));
                }
            }
        }
    }
}

at_status at_vta_exec(at_vta_sim *sim, const at_vta_insn *in, at_vta_stats *st)
{
    const at_vta_hw *hw = &sim->hw;
    switch (in->opcode) {
    case AT_VTA_OP_LOAD: {
        if (in->x_size == 0) return AT_OK;
        uint64_t bytes = (uint64_t)in->x_size * in->y_size * (uint64_t)at_vta_sram_elem_bytes(hw, in->mem);
        switch (in->mem) {
        case AT_VTA_MEM_UOP: st->uop_load_bytes += bytes; break;
        case AT_VTA_MEM_WGT: st->wgt_load_bytes += bytes; break;
        case AT_VTA_MEM_INP: st->inp_load_bytes += bytes; break;
        case AT_VTA_MEM_ACC:
        case AT_VTA_MEM_ACC_8BIT: st->acc_load_bytes += bytes; break;
        case AT_VTA_MEM_OUT:
        case AT_VTA_MEM_COUNT: AT_ASSERT(0);
        }
        /* micro-ops are state later instructions depend on: loaded even when skipping (as fsim) */
        if (!sim->skip_exec || in->mem == AT_VTA_MEM_UOP) exec_load(sim, in);
        return AT_OK;
    }
    case AT_VTA_OP_STORE:
        if (in->x_size == 0) return AT_OK;
        st->out_store_bytes += (uint64_t)in->x_size * in->y_size * (uint64_t)hw->out_elem_bytes;
        if (!sim->skip_exec) exec_store(sim, in);
        return AT_OK;
    case AT_VTA_OP_GEMM:
        AT_TRY(load_kernel(sim, in));
        if (!in->reset) st->gemm_ops += (uint64_t)in->iter_out * in->iter_in * (in->uop_end - in->uop_bgn);
        if (!sim->skip_exec) exec_gemm(sim, in);
        return AT_OK;
    case AT_VTA_OP_ALU:
        AT_TRY(load_kernel(sim, in));
        st->alu_ops += (uint64_t)in->iter_out * in->iter_in * (in->uop_end - in->uop_bgn);
        if (!sim->skip_exec) exec_alu(sim, in);
        return AT_OK;
    case AT_VTA_OP_FINISH: return AT_OK;
    case AT_VTA_OP_COUNT: break;
    }
    AT_ASSERT(0);
    return AT_OK;
}
