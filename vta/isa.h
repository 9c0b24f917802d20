/* VTA instruction set: 128-bit instructions (LOAD, STORE, GEMM, ALU, FINISH) and 32-bit micro-ops,
 * encoded and decoded with shifts and masks on uint64_t words (never C bit-fields); the field
 * positions come from the configuration (at_vta_hw.layout, hw_spec.h's widths). */
#ifndef AT_VTA_ISA_H
#define AT_VTA_ISA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "core/strbuf.h"
#include "vta/hw.h"

/* Opcodes (3 bits on the wire). */
typedef enum at_vta_opcode {
    AT_VTA_OP_LOAD = 0,
    AT_VTA_OP_STORE = 1,
    AT_VTA_OP_GEMM = 2,
    AT_VTA_OP_FINISH = 3,
    AT_VTA_OP_ALU = 4,
    AT_VTA_OP_COUNT
} at_vta_opcode;

/* ALU opcodes (3 bits). MUL exists in the functional simulator only (not in the HLS/Chisel RTL). */
typedef enum at_vta_alu_op {
    AT_VTA_ALU_MIN = 0,
    AT_VTA_ALU_MAX = 1,
    AT_VTA_ALU_ADD = 2,
    AT_VTA_ALU_SHR = 3,
    AT_VTA_ALU_MUL = 4,
    AT_VTA_ALU_COUNT
} at_vta_alu_op;

/* One decoded instruction. Which fields count depends on the opcode:
 *   all:          opcode, pop_prev, pop_next, push_prev, push_next
 *   LOAD/STORE:   mem, sram_base, dram_base (elements of mem's DRAM size), y_size, x_size, x_stride,
 *                 y_pad0/y_pad1/x_pad0/x_pad1 (zero padding, loads only)
 *   GEMM/ALU:     reset, uop_bgn, uop_end (exclusive), iter_out, iter_in, dst_factor_out/in,
 *                 src_factor_out/in (GEMM: INP index, ALU: ACC index)
 *   GEMM:         wgt_factor_out/in
 *   ALU:          alu_op, use_imm, imm (signed 16 bit)
 *   FINISH:       the header only.
 * Encoding ignores the fields an opcode does not have; decoding leaves them zero. */
typedef struct at_vta_insn {
    at_vta_opcode opcode;
    bool          pop_prev, pop_next, push_prev, push_next;
    at_vta_mem    mem;
    uint32_t      sram_base, dram_base, y_size, x_size, x_stride;
    uint32_t      y_pad0, y_pad1, x_pad0, x_pad1;
    bool          reset;
    uint32_t      uop_bgn, uop_end, iter_out, iter_in;
    uint32_t      dst_factor_out, dst_factor_in, src_factor_out, src_factor_in, wgt_factor_out, wgt_factor_in;
    at_vta_alu_op alu_op;
    bool          use_imm;
    int32_t       imm;
} at_vta_insn;

/* A micro-op: ACC index, source index (INP for GEMM, ACC for ALU), WGT index (GEMM only). */
typedef struct at_vta_uop {
    uint32_t dst, src, wgt;
} at_vta_uop;

/* Encodes insn into w[0] (bits 0..63) and w[1] (bits 64..127). Returns AT_OK, or AT_EINVAL
 * naming the field whose value does not fit its width (or an invalid opcode / memory type / ALU
 * opcode); w is written only on success. */
at_status at_vta_insn_encode(const at_vta_hw *hw, const at_vta_insn *insn, uint64_t w[2]);

/* Decodes w[0..1]. Returns AT_OK, or AT_EINVAL for an opcode above 4 (*out untouched). Any
 * memory type / ALU opcode value decodes (the simulator judges them). */
at_status at_vta_insn_decode(const at_vta_hw *hw, const uint64_t w[2], at_vta_insn *out);

/* Encodes a micro-op. AT_EINVAL naming the index that does not fit its field (out untouched). */
at_status at_vta_uop_encode(const at_vta_hw *hw, const at_vta_uop *uop, uint32_t *out);

/* Decodes a micro-op word. */
void at_vta_uop_decode(const at_vta_hw *hw, uint32_t word, at_vta_uop *out);

/* True when two decoded instructions have equal fields (all of them). */
bool at_vta_insn_equal(const at_vta_insn *a, const at_vta_insn *b);

/* Appends a one-line description in the spirit of the runtime's VTA_DEBUG_DUMP_INSN, e.g.
 * "LOAD INP dep(pop_next,push_next) sram 0x0 dram 0x1000 y 56 [1,1] x 10 stride 56 [1,0]". */
void at_vta_insn_describe(const at_vta_insn *insn, at_strbuf *sb);

/* "LOAD", "STORE", "GEMM", "FINISH", "ALU"; "?" for other values. */
const char *at_vta_opcode_name(at_vta_opcode op);

/* "MIN", "MAX", "ADD", "SHR", "MUL"; "?" for other values. */
const char *at_vta_alu_op_name(at_vta_alu_op op);

#endif
