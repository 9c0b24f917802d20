/* VTA code generation: a conv2d_packed tiling (the config's tile sizes and virtual threads) lowered
 * to a VTA instruction stream plus micro-op kernels, the way tvm-vta's runtime (runtime.cc) builds
 * them from the calls its compiler emits: 2-D loads with zero padding, GEMM uop kernels with up to
 * two folded loops and a reset kernel, ALU epilogue kernels, stores, dependency-token push/pop with
 * the runtime's pending-pop and NOP rules, uop residency in a ring, and virtual threads as
 * interleaved per-thread copies of every coprocessor statement (backends/vta/README.md). */
#ifndef AT_BACKENDS_VTA_VTAGEN_H
#define AT_BACKENDS_VTA_VTAGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "vta/hw.h"
#include "vta/isa.h"

/* One element-wise stage of a network layer's epilogue, applied in place to the accumulator tile
 * before the STORE (spec templates_vta.md 6.2b): ALU op with the immediate imm, or with the layer's
 * bias (bias: a LOAD ACC of the tile's output-channel blocks, then a tensor-tensor ALU op). */
typedef struct at_vtagen_epi {
    at_vta_alu_op op;
    bool          bias; /* operand: the bias tensor (at_vtagen_addrs.bias) instead of imm */
    int32_t       imm;  /* must fit the instruction's immediate (16 bits signed) */
} at_vtagen_epi;

enum { AT_VTAGEN_MAX_EPI = 8 };

/* One packed convolution and its tiling, in SRAM elements (blocks). Plain data. */
typedef struct at_vtagen_conv2d {
    int64_t n_b, ci_b, h, w;   /* data (N/BATCH, CI/BLOCK_IN, H, W) */
    int64_t co_b, kh, kw;      /* kernel (CO/BLOCK_OUT, ., KH, KW) */
    int64_t sh, sw, ph, pw;    /* strides; padding on both sides of rows / columns */
    int64_t oh, ow;            /* output rows / columns */
    int64_t tile_h, tile_w, tile_ci, tile_co; /* inner split sizes (tile_h[1] ...) */
    int64_t oc_nthread, h_nthread;            /* virtual threads (1 or more) */
    int     shift, clip_lo, clip_hi;          /* epilogue: >> shift, min clip_hi, max clip_lo */
    /* A network epilogue instead (n_epi > 0: shift and clips are unused), in order, e.g. + bias,
     * max 0 (relu), + 2^(s-1), >> s, min 127, max -127; with a bias stage the ACC tiles hold the
     * tile's bias blocks too (tile_co elements per virtual thread). */
    size_t        n_epi;
    at_vtagen_epi epi[AT_VTAGEN_MAX_EPI];
} at_vtagen_conv2d;

/* Where the tensors live in the device's DRAM (physical byte addresses, aligned to their element
 * size): data int8 NCHWnc, kernel int8 OIHWoi, out int8 (N/B, CO/BO, OH, OW, B, BO). */
typedef struct at_vtagen_addrs {
    uint64_t data, kernel, out;
    uint64_t bias; /* with a bias epilogue stage: int32 (CO/BO) ACC elements (BATCH x BLOCK_OUT each) */
} at_vtagen_addrs;

/* An instruction stream with its micro-ops (opaque). */
typedef struct at_vtagen_prog at_vtagen_prog;

/* Checks a tiling against hw: tile sizes divide their axes, virtual threads divide the outer
 * tiles, and the tiles of all virtual threads fit the INP, WGT and ACC buffers. AT_EINVAL saying
 * which (an instantiation error). */
at_status at_vtagen_conv2d_check(const at_vta_hw *hw, const at_vtagen_conv2d *c);

/* Lowers a tiling to a program (checked with at_vtagen_conv2d_check first). *out owned by the
 * caller (at_vtagen_prog_free). AT_EINVAL: the check fails, a uop kernel exceeds the uop buffer, or
 * a field does not fit the instruction format (instantiation errors); AT_EDEVICE: a GEMM kernel
 * writes one accumulator in back-to-back uops (the runtime's VerifyDep CHECK, a run-time failure
 * in TVM); AT_ENOMEM. */
at_status at_vtagen_conv2d_lower(const at_vta_hw *hw, const at_vtagen_conv2d *c, const at_vtagen_addrs *addrs,
                                 at_vtagen_prog **out);

void at_vtagen_prog_free(at_vtagen_prog *p);

/* Instruction count (FINISH included) and the decoded instructions (borrowed until _free; LOAD UOP
 * dram_base is relative to the uop buffer, in uops). */
size_t             at_vtagen_prog_n_insns(const at_vtagen_prog *p);
const at_vta_insn *at_vtagen_prog_insns(const at_vtagen_prog *p);
/* Micro-op words of the DRAM uop buffer (in the order LOAD UOP reads them). */
size_t at_vtagen_prog_n_uops(const at_vtagen_prog *p);

/* Encodes the program for a uop buffer at physical byte address uop_phys (4-byte aligned):
 * words[2 * n_insns], uops[n_uops]. AT_EINVAL when a field does not fit (the detail names the
 * instruction). */
at_status at_vtagen_prog_encode(const at_vta_hw *hw, const at_vtagen_prog *p, uint64_t uop_phys, uint64_t *words,
                                uint32_t *uops);

/* ---- add.vta / multiply.vta (backends/vta/alu.c) ---------------------------------------------- */

/* An ALU stage with an immediate operand, applied in place after the tensor-tensor op. */
typedef struct at_vtagen_alu_imm {
    at_vta_alu_op op;
    int32_t       imm; /* must fit the instruction's 16-bit signed immediate */
} at_vtagen_alu_imm;

enum { AT_VTAGEN_ALU_MAX_IMM = 6 };

/* One packed element-wise op of two tensors of one shape (N/BATCH, C/BLOCK_OUT, H, W, BATCH,
 * BLOCK_OUT) and its tiling (schedule_alu_packed: tile_co, tile_h, tile_w inner sizes). Plain data. */
typedef struct at_vtagen_alu {
    int64_t           n_b, c_b, h, w;          /* shape in accumulator elements */
    int64_t           tile_co, tile_h, tile_w; /* inner split sizes */
    at_vta_alu_op     op;                      /* the tensor-tensor op (ADD or MUL; MUL exists in fsim only) */
    bool              int8;                    /* DRAM tensors are int8 (ACC_8BIT loads), else int32 (ACC) */
    size_t            n_imm;                   /* then these immediate stages, in order (<= AT_VTAGEN_ALU_MAX_IMM) */
    at_vtagen_alu_imm imm[AT_VTAGEN_ALU_MAX_IMM];
    /* rhs broadcasts along these dimensions (its extent there is 1: a packed bias broadcasts
     * along n, h and w); false: rhs has lhs's extent */
    bool rhs_bcast_n, rhs_bcast_c, rhs_bcast_h, rhs_bcast_w;
} at_vtagen_alu;

/* Physical byte addresses of lhs, rhs (int8 or int32) and out (int8), same shape. */
typedef struct at_vtagen_alu_addrs {
    uint64_t lhs, rhs, out;
} at_vtagen_alu_addrs;

/* Checks a tiling against hw: tile sizes divide their axes, the lhs and rhs tiles fit the
 * accumulator buffer together, each tile is a 2-D DMA pattern of its tensor (TVM's
 * InjectDMAIntrin folds contiguous dimensions and accepts at most two), the op is ADD or MUL,
 * immediates fit 16 bits, int8 tensors need an int8-input / int32-accumulator configuration.
 * AT_EINVAL saying which (an instantiation error). */
at_status at_vtagen_alu_check(const at_vta_hw *hw, const at_vtagen_alu *a);

/* Lowers a tiling to a program (checked with at_vtagen_alu_check first): per tile LOAD ACC (or
 * ACC_8BIT) of the lhs and rhs tiles, the tensor-tensor ALU op in place on the lhs tile, the
 * immediate stages, one STORE per output-channel block, with CoProcSync's tokens. *out owned by
 * the caller (at_vtagen_prog_free). AT_EINVAL (the check fails, a field does not fit), AT_EDEVICE
 * (a broadcast op needs three uop loops: the runtime's UopLoopBegin CHECK, a run-time failure in
 * TVM), AT_ENOMEM. */
at_status at_vtagen_alu_lower(const at_vta_hw *hw, const at_vtagen_alu *a, const at_vtagen_alu_addrs *addrs,
                              at_vtagen_prog **out);

#endif
