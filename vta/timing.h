/* The constants of the VTA simulator's cycle model (vta/CYCLE_MODEL.md), all in clock cycles.
 * One table (vta/timing.c) holds their defaults; calibration against measured TopHub records
 * changes them there, or per simulator through at_vta_sim_opts.timing. */
#ifndef AT_VTA_TIMING_H
#define AT_VTA_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef struct at_vta_timing {
    uint32_t insn_overhead;     /* every instruction of load/compute/store: command pop, decode, tokens */
    uint32_t dep_latency;       /* a pushed token becomes visible to its consumer this much later */
    uint32_t cmd_queue_depth;   /* fetch -> module command FIFO entries; fetch stalls when full (0 = no limit) */
    uint32_t fetch_latency;     /* from run start to the first instruction beat */
    uint32_t dma_read_latency;  /* request to first data beat, once per LOAD (also UOP/ACC loads) */
    uint32_t dma_write_latency; /* last beat to write response, once per STORE */
    uint32_t dma_row_overhead;  /* per row of a 2-D transfer (each row is one burst) */
    uint32_t pad_elem_cycles;   /* zero-filling one padded SRAM element (no bus traffic) */
    uint32_t store_elem_cycles; /* reading one element of the output buffer in a STORE row */
    uint32_t gemm_ii;           /* GEMM uop loop initiation interval (HLS PIPELINE II=1) */
    uint32_t gemm_depth;        /* GEMM pipeline fill, paid on each pass of the uop loop */
    uint32_t alu_ii;            /* ALU uop loop initiation interval (HLS PIPELINE II=2) */
    uint32_t alu_depth;         /* ALU pipeline fill, paid on each pass of the uop loop */
    uint32_t loop_out_overhead; /* per iteration of the outer (iter_out) loop of GEMM/ALU */
    uint32_t dma_bytes_per_cycle; /* effective bytes per memory-port beat (0: the bus width, 8 on Pynq) */
    uint32_t host_call_cycles;  /* NOT simulated: the host's share of one measured call (runtime, cache
                                   maintenance, launch, completion poll), added by predictions to the
                                   device cycles (at_vta_timing_call_cycles) */
} at_vta_timing;

/* The defaults (vta/timing.c's table). */
void at_vta_timing_default(at_vta_timing *out);

/* Number of constants, and the name / one-line meaning / value of the i-th (i < count;
 * AT_ASSERTed), in table order. Names are the struct member names. */
size_t      at_vta_timing_count(void);
const char *at_vta_timing_name(size_t i);
const char *at_vta_timing_doc(size_t i);
uint32_t    at_vta_timing_get(const at_vta_timing *t, size_t i);

/* The cycles a measured call takes for a device run of device_cycles: device_cycles +
 * host_call_cycles (what TVM's time evaluator measures on a board: the whole module call). */
uint64_t at_vta_timing_call_cycles(const at_vta_timing *t, uint64_t device_cycles);

/* Sets a constant by name. AT_ENOTFOUND for an unknown name, AT_EINVAL for a value outside
 * [0, 1000000] or a zero initiation interval. */
at_status at_vta_timing_set(at_vta_timing *t, const char *name, long value);

#endif
