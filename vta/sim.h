/* The VTA simulator: tvm-vta's functional simulator (src/sim/sim_driver.cc) semantics, bit for
 * bit, driven by a discrete-event cycle model of the fetch, load, compute and store modules that
 * synchronise only through the four dependency-token queues (vta/CYCLE_MODEL.md). A program is an
 * array of encoded 128-bit instructions; its data and micro-ops live in a simulated DRAM that
 * the caller allocates and fills through this API. Deterministic: same program and DRAM, same
 * results and cycle counts. A bad program (out-of-range index, deadlock) is AT_EDEVICE, never a
 * crash or a hang. */
#ifndef AT_VTA_SIM_H
#define AT_VTA_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "vta/hw.h"
#include "vta/timing.h"

typedef struct at_vta_sim at_vta_sim;

/* The modules of the design; the numbers are VTA's stage ids (load 1, compute 2, store 3). */
typedef enum at_vta_module {
    AT_VTA_FETCH = 0,
    AT_VTA_LOAD = 1,
    AT_VTA_COMPUTE = 2,
    AT_VTA_STORE = 3,
    AT_VTA_MODULE_COUNT
} at_vta_module;

/* The dependency-token queues: producer -> consumer (l2g: load -> compute, ...). */
typedef enum at_vta_dep_queue {
    AT_VTA_L2G = 0,
    AT_VTA_G2L = 1,
    AT_VTA_S2G = 2,
    AT_VTA_G2S = 3,
    AT_VTA_DEP_QUEUE_COUNT
} at_vta_dep_queue;

/* Options; zero means default. */
typedef struct at_vta_sim_opts {
    bool                 skip_exec; /* count and time only, as fsim's profiler_debug_mode(1): SRAM and
                                       DRAM data are not touched except micro-op loads; every index
                                       is still checked */
    const at_vta_timing *timing;    /* NULL: at_vta_timing_default (copied at _new) */
    uint64_t             max_cycles; /* a run fails with AT_ETIMEOUT, before executing the
                                        instruction, once simulated time would pass this
                                        (0: no limit); bounds legal but absurd programs */
} at_vta_sim_opts;

/* What one run did. Byte and op counters have fsim's profiler meaning (vta.simulator.
 * profiler_status), so they compare with TVM's numbers: loads count x_size*y_size*SRAM element
 * bytes (an ACC_8BIT load counts ACC element bytes, as fsim does), stores x_size*y_size*OUT
 * element bytes, gemm_ops/alu_ops count uop executions (iter_out*iter_in*uops; reset GEMMs none).
 * Cycle counters are per module (fetch included). */
typedef struct at_vta_stats {
    uint64_t cycles;       /* run start to the end of the last instruction of any module */
    uint64_t finish_cycle; /* end of the FINISH instruction */
    uint64_t insns[AT_VTA_MODULE_COUNT];           /* executed (fetch: routed) */
    uint64_t busy_cycles[AT_VTA_MODULE_COUNT];     /* sum over instructions of end - start */
    uint64_t stall_cycles[AT_VTA_MODULE_COUNT];    /* load/compute/store: holding a command while
                                                      waiting for dependency tokens; fetch: waiting
                                                      for room in a full command queue */
    uint64_t bus_wait_cycles[AT_VTA_MODULE_COUNT]; /* waiting for a channel of the shared memory
                                                      port (part of busy_cycles) */
    uint64_t end_cycle[AT_VTA_MODULE_COUNT];       /* end of the module's last instruction */
    uint64_t tokens[AT_VTA_DEP_QUEUE_COUNT];       /* tokens pushed (= popped) per queue */
    uint64_t inp_load_bytes, wgt_load_bytes, acc_load_bytes, uop_load_bytes, out_store_bytes;
    uint64_t gemm_ops, alu_ops;
    uint64_t bus_beats; /* memory-port beats (both channels) of instruction, micro-op and data transfers */
} at_vta_stats;

/* Lowest physical address a DRAM allocation can have: 0 .. AT_VTA_DRAM_BASE-1 is never valid,
 * so an unset dram_base of 0 faults instead of reading a buffer. */
#define AT_VTA_DRAM_BASE 4096u
/* Allocations are aligned to this many bytes (a page, as the drivers' contiguous buffers are),
 * so that physical address / element bytes is exact for every memory type. */
#define AT_VTA_DRAM_ALIGN 4096u

/* A simulator for hw (copied) with empty SRAMs and DRAM. opts may be NULL. *out owned by the
 * caller (at_vta_sim_free). Returns AT_OK or AT_ENOMEM. */
at_status at_vta_sim_new(const at_vta_hw *hw, const at_vta_sim_opts *opts, at_vta_sim **out);

/* Frees the simulator and its DRAM; NULL does nothing. */
void at_vta_sim_free(at_vta_sim *sim);

/* Replaces the cycle-model constants (copied) for the following runs; NULL restores the
 * defaults. For calibration: one program re-timed under many tables without rebuilding DRAM. */
void at_vta_sim_set_timing(at_vta_sim *sim, const at_vta_timing *timing);

/* The configuration the simulator was made for (borrowed until _free). */
const at_vta_hw *at_vta_sim_hw(const at_vta_sim *sim);

/* Allocates nbytes (> 0) of zeroed DRAM and returns its physical byte address (a multiple of
 * AT_VTA_DRAM_ALIGN, >= AT_VTA_DRAM_BASE) in *phys. Instructions address DRAM in elements of
 * their memory type: dram_base = phys / at_vta_hw_dram_elem_bytes(hw, mem) + element offset.
 * Returns AT_OK, AT_EINVAL (nbytes 0) or AT_ENOMEM (host memory, or past the 4 GiB the 32-bit
 * dram_base of the smallest element can reach). Pointers from at_vta_sim_dram_ptr become
 * invalid. */
at_status at_vta_sim_dram_alloc(at_vta_sim *sim, size_t nbytes, uint64_t *phys);

/* Forgets every DRAM allocation (the address space starts again at AT_VTA_DRAM_BASE). */
void at_vta_sim_dram_reset(at_vta_sim *sim);

/* Copies n bytes into / out of DRAM at physical byte address phys. AT_EINVAL (nothing copied)
 * when [phys, phys+n) is not inside allocated DRAM. */
at_status at_vta_sim_dram_write(at_vta_sim *sim, uint64_t phys, const void *src, size_t n);
at_status at_vta_sim_dram_read(const at_vta_sim *sim, uint64_t phys, void *dst, size_t n);

/* Host pointer to n bytes of allocated DRAM at phys, or NULL when out of range. Borrowed until
 * the next at_vta_sim_dram_alloc/_reset or _free. */
uint8_t *at_vta_sim_dram_ptr(at_vta_sim *sim, uint64_t phys, size_t n);

/* Copies n elements of an on-chip buffer starting at element `first` into dst (raw bytes:
 * UOP 4 B words, WGT/INP/ACC elements of their SRAM size; OUT and ACC_8BIT read ACC, which is
 * where fsim stores from). AT_EINVAL when out of range. For tests and debugging. */
at_status at_vta_sim_sram_read(const at_vta_sim *sim, at_vta_mem mem, uint32_t first, uint32_t n, void *dst);

/* Runs a program of n_insns encoded instructions (words[2*i] = bits 0..63 of instruction i,
 * words[2*i+1] = bits 64..127) to completion. SRAM contents persist from run to run (as on the
 * device); cycle counting restarts at 0. stats may be NULL; it is written only on success.
 * Returns AT_OK, AT_ENOMEM, or AT_EDEVICE with a message naming the instruction (index and
 * description) for: an undecodable instruction, a dependency flag its module does not have
 * (load: pop_prev/push_prev, store: pop_next/push_next), a bad memory type or ALU opcode, a
 * store with padding, an SRAM or DRAM access out of range (from the instruction or from its
 * micro-ops), uop_bgn > uop_end, an ACC_8BIT load on a configuration other than i8/a32, a
 * deadlock (every unfinished module waits for a token nobody will push: the message names each
 * stuck module, its instruction and the missing token), no FINISH, or tokens left in a queue at
 * the end. AT_ETIMEOUT when the program runs past opts.max_cycles. After an error the SRAM
 * contents are unspecified. */
at_status at_vta_sim_run(at_vta_sim *sim, const uint64_t *words, size_t n_insns, at_vta_stats *stats);

/* "fetch", "load", "compute", "store"; "l2g", "g2l", "s2g", "g2s". AT_ASSERT a valid value. */
const char *at_vta_module_name(at_vta_module m);
const char *at_vta_dep_queue_name(at_vta_dep_queue q);

#endif
