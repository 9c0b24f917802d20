/* VTA code generation: a conv2d_packed tiling (the config's tile sizes and virtual threads) lowered
 * to a VTA instruction stream plus micro-op kernels, the way tvm-vta's runtime (runtime.cc) builds
 * them from the calls its compiler emits: 2-D loads with zero padding, GEMM uop kernels with up to
 * two folded loops and a reset kernel, ALU epilogue kernels, stores, dependency-token push/pop with
 * the runtime's pending-pop and NOP rules, uop residency in a ring, and virtual threads as
 * interleaved per-thread copies of every coprocessor statement (backends/vta/README.md). */
#ifndef AT_BACKENDS_VTA_VTAGEN_H
#define AT_BACKENDS_VTA_VTAGEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "vta/hw.h"
#include "vta/isa.h"

/* One packed convolution and its tiling, in SRAM elements (blocks). Plain data. */
typedef struct at_vtagen_conv2d {
    int64_t n_b, ci_b, h, w;   /* data (N/BATCH, CI/BLOCK_IN, H, W) */
    int64_t co_b, kh, kw;      /* kernel (CO/BLOCK_OUT, ., KH, KW) */
    int64_t sh, sw, ph, pw;    /* strides; padding on both sides of rows / columns */
    int64_t oh, ow;            /* output rows / columns */
    int64_t tile_h, tile_w, tile_ci, tile_co; /* inner split sizes (tile_h[1] ...) */
    int64_t oc_nthread, h_nthread;            /* virtual threads (1 or more) */
    int     shift, clip_lo, clip_hi;          /* epilogue: >> shift, min clip_hi, max clip_lo */
} at_vtagen_conv2d;

/* Where the tensors live in the device's DRAM (physical byte addresses, aligned to their element
 * size): data int8 NCHWnc, kernel int8 OIHWoi, out int8 (N/B, CO/BO, OH, OW, B, BO). */
typedef struct at_vtagen_addrs {
    uint64_t data, kernel, out;
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

#endif
