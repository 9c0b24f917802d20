/* VTA hardware configuration: the fields of tvm-vta config JSON files plus every constant derived from
 * them (hw_spec_const.h, pkg_config.py) and the bit layout of the instruction words. Plain data:
 * copy it freely; nothing in it is owned. */
#ifndef AT_VTA_HW_H
#define AT_VTA_HW_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Memory types of LOAD/STORE (VTA_MEM_ID_*); the values are the 3-bit wire encoding. */
typedef enum at_vta_mem {
    AT_VTA_MEM_UOP = 0,
    AT_VTA_MEM_WGT = 1,
    AT_VTA_MEM_INP = 2,
    AT_VTA_MEM_ACC = 3,
    AT_VTA_MEM_OUT = 4,
    AT_VTA_MEM_ACC_8BIT = 5, /* ACC loaded from int8 DRAM (functional simulator only) */
    AT_VTA_MEM_COUNT
} at_vta_mem;

/* Position and width of one bit field of an instruction (bits of the 128-bit word, word0 =
 * bits 0..63) or of a micro-op (bits of the 32-bit word). */
typedef struct at_vta_field {
    uint8_t shift;
    uint8_t width;
} at_vta_field;

/* Bit layouts, computed from the field widths of hw_spec.h with GCC's rule for uint64_t (uop:
 * uint32_t) bit-fields: fields are laid out in order and one that would straddle a 64-bit
 * (32-bit) unit starts at the next unit. The header (opcode 0..2, pop_prev 3, pop_next 4,
 * push_prev 5, push_next 6) is fixed. */
typedef struct at_vta_layout {
    /* VTAMemInsn */
    at_vta_field mem_type, sram_base, dram_base, y_size, x_size, x_stride, y_pad0, y_pad1, x_pad0, x_pad1;
    /* VTAGemInsn and VTAAluInsn share everything up to src_factor_in */
    at_vta_field reset, uop_bgn, uop_end, iter_out, iter_in;
    at_vta_field dst_factor_out, dst_factor_in;
    at_vta_field gemm_src_factor_out, gemm_src_factor_in, wgt_factor_out, wgt_factor_in;
    at_vta_field alu_src_factor_out, alu_src_factor_in, alu_opcode, use_imm, imm;
    /* VTAUop */
    at_vta_field uop_dst, uop_src, uop_wgt;
    int gemm_bits, alu_bits, mem_bits, uop_bits; /* bits used, padding included (<= 128 / 32) */
} at_vta_layout;

enum {
    AT_VTA_TARGET_MAX = 32, /* bytes of target, NUL included */
    AT_VTA_HW_VER_MAX = 16,
    AT_VTA_BITSTREAM_MAX = 48,
    AT_VTA_MODEL_MAX = 96, /* TARGET + '_' + bitstream fits */
    AT_VTA_INSN_BYTES = 16, /* VTA_LOG_INS_WIDTH 7 */
    AT_VTA_UOP_BYTES = 4,   /* VTA_LOG_UOP_WIDTH 5 */
};

typedef struct at_vta_hw {
    /* --- the JSON fields (tvm-vta config format) --- */
    char target[AT_VTA_TARGET_MAX];  /* "TARGET": pynq, sim, tsim, ultra96, zcu104, de10nano, ... */
    char hw_ver[AT_VTA_HW_VER_MAX];  /* "HW_VER": "0.0.2" */
    int  log_inp_width, log_wgt_width, log_acc_width, log_batch, log_block;
    int  log_uop_buff_size, log_inp_buff_size, log_wgt_buff_size, log_acc_buff_size; /* log2 bytes */
    /* FPGA parameters: pkg_config.py derives them from TARGET; "HW_FREQ" (MHz, in older tvm-vta
     * configs) and our extension keys "FPGA_FREQ" (MHz, wins over HW_FREQ) and "LOG_BUS_WIDTH"
     * (log2 bits) override them. */
    int fpga_freq_mhz;
    int log_bus_width;

    /* --- derived (at_vta_hw_derive) --- */
    int log_block_in, log_block_out, log_out_width, log_out_buff_size;
    int inp_width, wgt_width, acc_width, out_width; /* bits per scalar, signed */
    int batch, block_in, block_out;
    int inp_elem_bits, wgt_elem_bits, acc_elem_bits, out_elem_bits; /* one SRAM element (matrix) */
    int inp_elem_bytes, wgt_elem_bytes, acc_elem_bytes, out_elem_bytes;
    int uop_elem_bytes, insn_bytes; /* 4, 16 */
    long uop_buff_bytes, inp_buff_bytes, wgt_buff_bytes, acc_buff_bytes, out_buff_bytes;
    int log_uop_buff_depth, log_inp_buff_depth, log_wgt_buff_depth, log_acc_buff_depth;
    int uop_buff_depth, inp_buff_depth, wgt_buff_depth, acc_buff_depth, out_buff_depth; /* elements */
    int bus_width, bus_bytes; /* AXI data bus: bits, bytes per beat */
    int inp_axi_ratio, wgt_axi_ratio, acc_axi_ratio, out_axi_ratio; /* elem bits / bus bits (hw_spec) */
    int gemm_macs_per_uop; /* BATCH * BLOCK_IN * BLOCK_OUT */
    double gemm_peak_gops; /* 2 * macs per uop * clock (one uop per cycle) */
    int shr_arg_width, mul_arg_width; /* ALU operand widths of the HLS design (LOG_ACC_WIDTH, 8) */
    char bitstream[AT_VTA_BITSTREAM_MAX]; /* "1x16_i8w8a32_15_15_18_17" */
    char model[AT_VTA_MODEL_MAX];     /* TARGET + "_" + bitstream, e.g. "pynq_1x16_i8w8a32_15_15_18_17" */
    at_vta_layout layout;
} at_vta_hw;

/* The built-in default configuration pynq_1x16_i8w8a32_15_15_18_17 (tvm-vta pynq_sample.json:
 * BATCH 1, BLOCK 16, int8 input/weight, int32 accumulator, 100 MHz, 64-bit AXI), derived. */
void at_vta_hw_default(at_vta_hw *out);

/* Fills every derived field from the JSON fields (and fpga_freq_mhz/log_bus_width, which must be
 * set: at_vta_hw_fpga_defaults gives TVM's values) and validates them. On failure *hw is left
 * as it was. Returns AT_OK or AT_EINVAL naming the field that is out of range or the fields
 * whose derived layout does not fit (e.g. a GEMM instruction needing more than 128 bits). */
at_status at_vta_hw_derive(at_vta_hw *hw);

/* Sets fpga_freq_mhz and log_bus_width from hw->target as pkg_config.py does (ultra96/zcu104:
 * 333 MHz, 128 bit; everything else, including sim/tsim/de10nano: 100 MHz, 64 bit). */
void at_vta_hw_fpga_defaults(at_vta_hw *hw);

/* Parses a config in tvm-vta's JSON format (text[0..len)): required TARGET (string), HW_VER
 * (string), LOG_INP_WIDTH, LOG_WGT_WIDTH, LOG_ACC_WIDTH, LOG_BATCH, LOG_BLOCK,
 * LOG_UOP_BUFF_SIZE, LOG_INP_BUFF_SIZE, LOG_WGT_BUFF_SIZE, LOG_ACC_BUFF_SIZE (integers);
 * optional HW_FREQ (older configs), FPGA_FREQ and LOG_BUS_WIDTH (integers, override the
 * TARGET's values); other keys are ignored, as pkg_config.py passes them through. *out is written only on success.
 * Returns AT_OK, AT_EPARSE (bad JSON, missing field, wrong type or out-of-range value: the detail
 * names the field) or AT_ENOMEM. */
at_status at_vta_hw_from_json(const char *text, size_t len, at_vta_hw *out);

/* at_vta_hw_from_json on a file. AT_EIO when it cannot be read; AT_EPARSE details start with
 * the path. */
at_status at_vta_hw_load(const char *path, at_vta_hw *out);

/* Bytes of one DRAM element of a memory type: the unit of dram_base/x_stride in LOAD/STORE
 * (UOP 4, WGT 256, INP 16, ACC 64, OUT 16, ACC_8BIT 16 for the default). AT_ASSERTs mem < COUNT. */
int at_vta_hw_dram_elem_bytes(const at_vta_hw *hw, at_vta_mem mem);

/* SRAM depth (elements) behind a memory type (ACC_8BIT -> ACC, OUT -> ACC as in the fsim,
 * which stores from the accumulator). AT_ASSERTs mem < COUNT. */
int at_vta_hw_sram_depth(const at_vta_hw *hw, at_vta_mem mem);

/* "UOP", "WGT", "INP", "ACC", "OUT", "ACC_8BIT"; "?" for other values. */
const char *at_vta_mem_name(at_vta_mem mem);

#endif
