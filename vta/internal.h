/* Shared between vta/'s own files only (no other module includes it): the simulator object and
 * the functional-execution entry points that sim.c's cycle model drives. */
#ifndef AT_VTA_INTERNAL_H
#define AT_VTA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "vta/isa.h"
#include "vta/sim.h"

struct at_vta_sim {
    at_vta_hw     hw;
    at_vta_timing timing;
    bool          skip_exec;
    uint64_t      max_cycles;           /* 0: no limit */
    bool          fast_i8a32;           /* int8 input/weight/output, int32 accumulator: direct loops */
    uint8_t      *sram[AT_VTA_MEM_OUT]; /* UOP, WGT, INP, ACC (OUT and ACC_8BIT live in ACC) */
    at_vta_uop   *uops;                 /* scratch: the decoded uops of the current GEMM/ALU */
    uint8_t      *dram;                 /* physical bytes [0, dram_cap); allocated [BASE, dram_top) */
    uint64_t      dram_cap, dram_top;
};

/* Checks what can be checked without executing (memory types, padding on stores, SRAM and DRAM
 * ranges of loads/stores, micro-op range, ALU opcode). AT_EDEVICE with a message that the
 * caller prefixes with the instruction. */
at_status at_vta_exec_check(const at_vta_sim *sim, const at_vta_insn *in);

/* Executes one instruction functionally (fsim semantics), after checking the indexes its
 * micro-ops produce; adds fsim's profiler counts to st. AT_EDEVICE on an out-of-range index
 * (nothing was modified then). The instruction passed at_vta_exec_check. */
at_status at_vta_exec(at_vta_sim *sim, const at_vta_insn *in, at_vta_stats *st);

/* Bytes of one SRAM element of a buffer (UOP 4, WGT, INP, ACC). */
int at_vta_sram_elem_bytes(const at_vta_hw *hw, at_vta_mem mem);

#endif
