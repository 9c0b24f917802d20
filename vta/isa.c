/* VTA instruction and micro-op words by shift-and-mask. Every field lies inside one 64-bit word
 * (the layout's no-straddle rule guarantees it), so each access is a single shift of w[pos/64]. */
#include "vta/isa.h"

#include <inttypes.h>
#include <string.h>

enum { OPCODE_BITS = 3, BIT_POP_PREV = 3, BIT_POP_NEXT = 4, BIT_PUSH_PREV = 5, BIT_PUSH_NEXT = 6 };

static uint64_t mask_of(int width)
{
    return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

static at_status put(uint64_t w[2], at_vta_field f, uint64_t v, const char *name)
{
    if (v > mask_of(f.width))
        return AT_FAIL(AT_EINVAL, "vta insn: %s = %" PRIu64 " does not fit its %d bits", name, v, f.width);
    w[f.shift / 64] |= v << (f.shift % 64);
    return AT_OK;
}

static uint64_t get(const uint64_t w[2], at_vta_field f)
{
    return (w[f.shift / 64] >> (f.shift % 64)) & mask_of(f.width);
}

static at_status put_mem(const at_vta_layout *l, const at_vta_insn *in, uint64_t w[2])
{
    if ((unsigned)in->mem >= AT_VTA_MEM_COUNT)
        return AT_FAIL(AT_EINVAL, "vta insn: memory type %d is not one of UOP..ACC_8BIT", (int)in->mem);
    AT_TRY(put(w, l->mem_type, (uint64_t)in->mem, "memory_type"));
    AT_TRY(put(w, l->sram_base, in->sram_base, "sram_base"));
    AT_TRY(put(w, l->dram_base, in->dram_base, "dram_base"));
    AT_TRY(put(w, l->y_size, in->y_size, "y_size"));
    AT_TRY(put(w, l->x_size, in->x_size, "x_size"));
    AT_TRY(put(w, l->x_stride, in->x_stride, "x_stride"));
    AT_TRY(put(w, l->y_pad0, in->y_pad0, "y_pad_0"));
    AT_TRY(put(w, l->y_pad1, in->y_pad1, "y_pad_1"));
    AT_TRY(put(w, l->x_pad0, in->x_pad0, "x_pad_0"));
    AT_TRY(put(w, l->x_pad1, in->x_pad1, "x_pad_1"));
    return AT_OK;
}

static at_status put_loops(const at_vta_layout *l, const at_vta_insn *in, uint64_t w[2])
{
    AT_TRY(put(w, l->reset, in->reset, "reset_reg"));
    AT_TRY(put(w, l->uop_bgn, in->uop_bgn, "uop_bgn"));
    AT_TRY(put(w, l->uop_end, in->uop_end, "uop_end"));
    AT_TRY(put(w, l->iter_out, in->iter_out, "iter_out"));
    AT_TRY(put(w, l->iter_in, in->iter_in, "iter_in"));
    AT_TRY(put(w, l->dst_factor_out, in->dst_factor_out, "dst_factor_out"));
    AT_TRY(put(w, l->dst_factor_in, in->dst_factor_in, "dst_factor_in"));
    return AT_OK;
}

at_status at_vta_insn_encode(const at_vta_hw *hw, const at_vta_insn *in, uint64_t out[2])
{
    const at_vta_layout *l = &hw->layout;
    uint64_t w[2] = {0, 0};
    if ((unsigned)in->opcode >= AT_VTA_OP_COUNT)
        return AT_FAIL(AT_EINVAL, "vta insn: opcode %d is not one of LOAD..ALU", (int)in->opcode);
    w[0] = (uint64_t)in->opcode | (uint64_t)in->pop_prev << BIT_POP_PREV | (uint64_t)in->pop_next << BIT_POP_NEXT |
           (uint64_t)in->push_prev << BIT_PUSH_PREV | (uint64_t)in->push_next << BIT_PUSH_NEXT;
    switch (in->opcode) {
    case AT_VTA_OP_LOAD:
    case AT_VTA_OP_STORE: AT_TRY(put_mem(l, in, w)); break;
    case AT_VTA_OP_GEMM:
        AT_TRY(put_loops(l, in, w));
        AT_TRY(put(w, l->gemm_src_factor_out, in->src_factor_out, "src_factor_out"));
        AT_TRY(put(w, l->gemm_src_factor_in, in->src_factor_in, "src_factor_in"));
        AT_TRY(put(w, l->wgt_factor_out, in->wgt_factor_out, "wgt_factor_out"));
        AT_TRY(put(w, l->wgt_factor_in, in->wgt_factor_in, "wgt_factor_in"));
        break;
    case AT_VTA_OP_ALU: {
        AT_TRY(put_loops(l, in, w));
        AT_TRY(put(w, l->alu_src_factor_out, in->src_factor_out, "src_factor_out"));
        AT_TRY(put(w, l->alu_src_factor_in, in->src_factor_in, "src_factor_in"));
        if ((unsigned)in->alu_op >= AT_VTA_ALU_COUNT)
            return AT_FAIL(AT_EINVAL, "vta insn: ALU opcode %d is not one of MIN..MUL", (int)in->alu_op);
        AT_TRY(put(w, l->alu_opcode, (uint64_t)in->alu_op, "alu_opcode"));
        AT_TRY(put(w, l->use_imm, in->use_imm, "use_imm"));
        int64_t lo = -((int64_t)1 << (l->imm.width - 1)), hi = ((int64_t)1 << (l->imm.width - 1)) - 1;
        if (in->imm < lo || in->imm > hi)
            return AT_FAIL(AT_EINVAL, "vta insn: imm = %" PRId32 " does not fit a signed %d-bit field", in->imm,
                           l->imm.width);
        AT_TRY(put(w, l->imm, (uint64_t)in->imm & mask_of(l->imm.width), "imm"));
        break;
    }
    case AT_VTA_OP_FINISH:
    case AT_VTA_OP_COUNT: break;
    }
    out[0] = w[0];
    out[1] = w[1];
    return AT_OK;
}

at_status at_vta_insn_decode(const at_vta_hw *hw, const uint64_t w[2], at_vta_insn *out)
{
    const at_vta_layout *l = &hw->layout;
    unsigned op = (unsigned)(w[0] & mask_of(OPCODE_BITS));
    if (op >= AT_VTA_OP_COUNT) return AT_FAIL(AT_EINVAL, "vta insn: opcode %u is not one of LOAD..ALU", op);
    at_vta_insn in;
    memset(&in, 0, sizeof in);
    in.opcode = (at_vta_opcode)op;
    in.pop_prev = (w[0] >> BIT_POP_PREV) & 1;
    in.pop_next = (w[0] >> BIT_POP_NEXT) & 1;
    in.push_prev = (w[0] >> BIT_PUSH_PREV) & 1;
    in.push_next = (w[0] >> BIT_PUSH_NEXT) & 1;
    switch (in.opcode) {
    case AT_VTA_OP_LOAD:
    case AT_VTA_OP_STORE:
        in.mem = (at_vta_mem)get(w, l->mem_type);
        in.sram_base = (uint32_t)get(w, l->sram_base);
        in.dram_base = (uint32_t)get(w, l->dram_base);
        in.y_size = (uint32_t)get(w, l->y_size);
        in.x_size = (uint32_t)get(w, l->x_size);
        in.x_stride = (uint32_t)get(w, l->x_stride);
        in.y_pad0 = (uint32_t)get(w, l->y_pad0);
        in.y_pad1 = (uint32_t)get(w, l->y_pad1);
        in.x_pad0 = (uint32_t)get(w, l->x_pad0);
        in.x_pad1 = (uint32_t)get(w, l->x_pad1);
        break;
    case AT_VTA_OP_GEMM:
    case AT_VTA_OP_ALU:
        in.reset = get(w, l->reset);
        in.uop_bgn = (uint32_t)get(w, l->uop_bgn);
        in.uop_end = (uint32_t)get(w, l->uop_end);
        in.iter_out = (uint32_t)get(w, l->iter_out);
        in.iter_in = (uint32_t)get(w, l->iter_in);
        in.dst_factor_out = (uint32_t)get(w, l->dst_factor_out);
        in.dst_factor_in = (uint32_t)get(w, l->dst_factor_in);
        if (in.opcode == AT_VTA_OP_GEMM) {
            in.src_factor_out = (uint32_t)get(w, l->gemm_src_factor_out);
            in.src_factor_in = (uint32_t)get(w, l->gemm_src_factor_in);
            in.wgt_factor_out = (uint32_t)get(w, l->wgt_factor_out);
            in.wgt_factor_in = (uint32_t)get(w, l->wgt_factor_in);
        } else {
            in.src_factor_out = (uint32_t)get(w, l->alu_src_factor_out);
            in.src_factor_in = (uint32_t)get(w, l->alu_src_factor_in);
            in.alu_op = (at_vta_alu_op)get(w, l->alu_opcode);
            in.use_imm = get(w, l->use_imm);
            uint64_t raw = get(w, l->imm), sign = (uint64_t)1 << (l->imm.width - 1);
            in.imm = (int32_t)((int64_t)(raw ^ sign) - (int64_t)sign); /* sign extension */
        }
        break;
    case AT_VTA_OP_FINISH:
    case AT_VTA_OP_COUNT: break;
    }
    *out = in;
    return AT_OK;
}

at_status at_vta_uop_encode(const at_vta_hw *hw, const at_vta_uop *uop, uint32_t *out)
{
    const at_vta_layout *l = &hw->layout;
    const struct {
        at_vta_field f;
        uint32_t v;
        const char *name;
    } fields[] = {
        {l->uop_dst, uop->dst, "dst_idx"}, {l->uop_src, uop->src, "src_idx"}, {l->uop_wgt, uop->wgt, "wgt_idx"}};
    uint32_t w = 0;
    for (size_t i = 0; i < 3; i++) {
        if (fields[i].v > mask_of(fields[i].f.width))
            return AT_FAIL(AT_EINVAL, "vta uop: %s = %" PRIu32 " does not fit its %d bits", fields[i].name, fields[i].v,
                           fields[i].f.width);
        w |= fields[i].v << fields[i].f.shift;
    }
    *out = w;
    return AT_OK;
}

void at_vta_uop_decode(const at_vta_hw *hw, uint32_t word, at_vta_uop *out)
{
    const at_vta_layout *l = &hw->layout;
    out->dst = (uint32_t)((word >> l->uop_dst.shift) & mask_of(l->uop_dst.width));
    out->src = (uint32_t)((word >> l->uop_src.shift) & mask_of(l->uop_src.width));
    out->wgt = (uint32_t)((word >> l->uop_wgt.shift) & mask_of(l->uop_wgt.width));
}

bool at_vta_insn_equal(const at_vta_insn *a, const at_vta_insn *b)
{
    return a->opcode == b->opcode && a->pop_prev == b->pop_prev && a->pop_next == b->pop_next &&
           a->push_prev == b->push_prev && a->push_next == b->push_next && a->mem == b->mem &&
           a->sram_base == b->sram_base && a->dram_base == b->dram_base && a->y_size == b->y_size &&
           a->x_size == b->x_size && a->x_stride == b->x_stride && a->y_pad0 == b->y_pad0 && a->y_pad1 == b->y_pad1 &&
           a->x_pad0 == b->x_pad0 && a->x_pad1 == b->x_pad1 && a->reset == b->reset && a->uop_bgn == b->uop_bgn &&
           a->uop_end == b->uop_end && a->iter_out == b->iter_out && a->iter_in == b->iter_in &&
           a->dst_factor_out == b->dst_factor_out && a->dst_factor_in == b->dst_factor_in &&
           a->src_factor_out == b->src_factor_out && a->src_factor_in == b->src_factor_in &&
           a->wgt_factor_out == b->wgt_factor_out && a->wgt_factor_in == b->wgt_factor_in && a->alu_op == b->alu_op &&
           a->use_imm == b->use_imm && a->imm == b->imm;
}

const char *at_vta_opcode_name(at_vta_opcode op)
{
    static const char *const names[AT_VTA_OP_COUNT] = {
        [AT_VTA_OP_LOAD] = "LOAD",     [AT_VTA_OP_STORE] = "STORE", [AT_VTA_OP_GEMM] = "GEMM",
        [AT_VTA_OP_FINISH] = "FINISH", [AT_VTA_OP_ALU] = "ALU",
    };
    return (unsigned)op < AT_VTA_OP_COUNT ? names[op] : "?";
}

const char *at_vta_alu_op_name(at_vta_alu_op op)
{
    static const char *const names[AT_VTA_ALU_COUNT] = {
        [AT_VTA_ALU_MIN] = "MIN", [AT_VTA_ALU_MAX] = "MAX", [AT_VTA_ALU_ADD] = "ADD",
        [AT_VTA_ALU_SHR] = "SHR", [AT_VTA_ALU_MUL] = "MUL",
    };
    return (unsigned)op < AT_VTA_ALU_COUNT ? names[op] : "?";
}

void at_vta_insn_describe(const at_vta_insn *in, at_strbuf *sb)
{
    at_strbuf_puts(sb, at_vta_opcode_name(in->opcode));
    if (in->opcode == AT_VTA_OP_LOAD || in->opcode == AT_VTA_OP_STORE) {
        at_strbuf_putc(sb, ' ');
        at_strbuf_puts(sb, in->x_size ? at_vta_mem_name(in->mem) : "NOP");
    } else if (in->opcode == AT_VTA_OP_ALU) {
        at_strbuf_printf(sb, " %s%s", at_vta_alu_op_name(in->alu_op), in->use_imm ? "I" : "");
    }
    const char *flags[4] = {in->pop_prev ? "pop_prev" : NULL, in->pop_next ? "pop_next" : NULL,
                            in->push_prev ? "push_prev" : NULL, in->push_next ? "push_next" : NULL};
    int any = 0;
    for (int i = 0; i < 4; i++)
        if (flags[i]) at_strbuf_printf(sb, "%s%s", any++ ? "," : " dep(", flags[i]);
    if (any) at_strbuf_putc(sb, ')');
    switch (in->opcode) {
    case AT_VTA_OP_LOAD:
    case AT_VTA_OP_STORE:
        if (!in->x_size) break;
        at_strbuf_printf(sb,
                         " sram 0x%" PRIx32 " dram 0x%" PRIx32 " y %" PRIu32 " [%" PRIu32 ",%" PRIu32 "] x %" PRIu32
                         " stride %" PRIu32 " [%" PRIu32 ",%" PRIu32 "]",
                         in->sram_base, in->dram_base, in->y_size, in->y_pad0, in->y_pad1, in->x_size, in->x_stride,
                         in->x_pad0, in->x_pad1);
        break;
    case AT_VTA_OP_GEMM:
    case AT_VTA_OP_ALU:
        at_strbuf_printf(sb,
                         "%s uop [%" PRIu32 ",%" PRIu32 ") out %" PRIu32 " (acc %" PRIu32 ", src %" PRIu32
                         ", wgt %" PRIu32 ") in %" PRIu32 " (acc %" PRIu32 ", src %" PRIu32 ", wgt %" PRIu32 ")",
                         in->reset ? " reset" : "", in->uop_bgn, in->uop_end, in->iter_out, in->dst_factor_out,
                         in->src_factor_out, in->wgt_factor_out, in->iter_in, in->dst_factor_in, in->src_factor_in,
                         in->wgt_factor_in);
        if (in->opcode == AT_VTA_OP_ALU && in->use_imm) at_strbuf_printf(sb, " imm %" PRId32, in->imm);
        break;
    case AT_VTA_OP_FINISH:
    case AT_VTA_OP_COUNT: break;
    }
}
