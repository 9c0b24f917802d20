/* Shared by backends/vta's files only: the runtime emulation (stream.c) that conv2d.c drives. */
#ifndef AT_BACKENDS_VTA_INTERNAL_H
#define AT_BACKENDS_VTA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/vta/vtagen.h"

enum { AT_VTAGEN_LOAD = 1, AT_VTAGEN_COMPUTE = 2, AT_VTAGEN_STORE = 3 };

/* A uop kernel as VTAPushGEMMOp / VTAPushALUOp record it: uops, <= 2 loops, mode and ALU fields. */
typedef struct at_vtagen_kernel {
    at_vta_uop   *uops;
    size_t        n_uops;
    int           n_loops;
    uint32_t      extent[2], dst_f[2], src_f[2], wgt_f[2];
    bool          is_alu, reset;
    at_vta_alu_op alu_op;
    int32_t       imm;
    bool          use_imm;
    /* residency in uop SRAM */
    bool     resident;
    uint32_t sram_begin;
} at_vtagen_kernel;

struct at_vtagen_prog {
    at_vta_insn *insns;
    size_t       n_insns, cap_insns;
    at_vta_uop  *uops; /* DRAM uop buffer */
    size_t       n_uops, cap_uops;
    /* runtime state */
    bool     pending_pop_prev[4], pending_pop_next[4];
    uint32_t uop_sram_end, uop_depth;
    at_vtagen_kernel **kernels; /* every kernel recorded (owned) */
    size_t             n_kernels, cap_kernels;
    at_status          st;      /* first failure; later calls do nothing */
};

at_vtagen_prog *at_vtagen_prog_new(uint32_t uop_depth);
/* A kernel owned by p; NULL on ENOMEM (p->st set). */
at_vtagen_kernel *at_vtagen_kernel_new(at_vtagen_prog *p, size_t n_uops);
void at_vtagen_dep_push(at_vtagen_prog *p, int from, int to);
void at_vtagen_dep_pop(at_vtagen_prog *p, int from, int to);
/* A LOAD (INP/WGT/ACC) or STORE with the stage's pending pops; returns it for the caller to fill
 * (NULL after a failure). */
at_vta_insn *at_vtagen_mem(at_vtagen_prog *p, at_vta_opcode op, at_vta_mem mem);
/* GEMM or ALU from a kernel, loading its uops first when not resident. */
void at_vtagen_push_kernel(at_vtagen_prog *p, at_vtagen_kernel *k);
/* VTASynchronize's stream tail: the final dependencies and FINISH. */
void at_vtagen_finish(at_vtagen_prog *p);

#endif
