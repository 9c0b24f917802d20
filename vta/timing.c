/* The one table of cycle-model constants: name, default, meaning. Structural constants are readings
 * of the HLS design (vta.cc pragmas, vivado.tcl FIFO depths); the latencies, overheads and pipeline
 * depths were calibrated against TopHub's measured Pynq records by `autotvm vta predict --fit`
 * within physical bounds (vta/CYCLE_MODEL.md gives the procedure, the bounds and the figures). */
#include "vta/timing.h"

#include <string.h>

typedef struct entry {
    const char *name;
    size_t off;
    uint32_t def;
    const char *doc;
} entry;

#define E(field, value, text)                                                                                          \
    {                                                                                                                  \
#field, offsetof(at_vta_timing, field), (value), (text)                                                        \
    }
static const entry table[] = {
    E(insn_overhead, 1, "cycles per instruction in load/compute/store: command pop, decode, token handshake"),
    E(dep_latency, 1, "cycles from a token push until the consumer can pop it"),
    E(cmd_queue_depth, 512, "entries of each fetch->module command FIFO (vivado.tcl: 512)"),
    E(fetch_latency, 32, "cycles from run start to the first instruction beat"),
    E(dma_read_latency, 16, "cycles from a read request to its first data beat, once per load"),
    E(dma_write_latency, 8, "cycles from the last write beat to the write response, once per store"),
    E(dma_row_overhead, 8, "cycles per row of a 2-D transfer (one burst per row)"),
    E(pad_elem_cycles, 1, "cycles to zero-fill one padded SRAM element"),
    E(store_elem_cycles, 1, "cycles to read one element of the output buffer in a store row"),
    E(gemm_ii, 1, "GEMM uop-loop initiation interval (HLS PIPELINE II=1)"),
    E(gemm_depth, 0, "GEMM pipeline fill, paid on every pass of the uop loop"),
    E(alu_ii, 2, "ALU uop-loop initiation interval (HLS PIPELINE II=2)"),
    E(alu_depth, 1, "ALU pipeline fill, paid on every pass of the uop loop"),
    E(loop_out_overhead, 0, "cycles per outer-loop (iter_out) iteration of GEMM/ALU"),
    E(dma_bytes_per_cycle, 0, "effective bytes per memory-port beat (0: the configuration's bus width)"),
    E(host_call_cycles, 50000, "host cycles per measured call (runtime, flush, launch, poll); not simulated"),
};
#undef E

enum { N_ENTRIES = sizeof table / sizeof table[0] };

static uint32_t *slot(at_vta_timing *t, size_t i)
{
    return (uint32_t *)(void *)((char *)t + table[i].off);
}

void at_vta_timing_default(at_vta_timing *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < N_ENTRIES; i++) *slot(out, i) = table[i].def;
}

size_t at_vta_timing_count(void)
{
    return N_ENTRIES;
}

const char *at_vta_timing_name(size_t i)
{
    AT_ASSERT(i < N_ENTRIES);
    return table[i].name;
}

const char *at_vta_timing_doc(size_t i)
{
    AT_ASSERT(i < N_ENTRIES);
    return table[i].doc;
}

uint32_t at_vta_timing_get(const at_vta_timing *t, size_t i)
{
    AT_ASSERT(i < N_ENTRIES);
    return *(const uint32_t *)(const void *)((const char *)t + table[i].off);
}

uint64_t at_vta_timing_call_cycles(const at_vta_timing *t, uint64_t device_cycles)
{
    return device_cycles + t->host_call_cycles;
}

at_status at_vta_timing_set(at_vta_timing *t, const char *name, long value)
{
    for (size_t i = 0; i < N_ENTRIES; i++) {
        if (strcmp(table[i].name, name)) continue;
        if (value < 0 || value > 1000000)
            return AT_FAIL(AT_EINVAL, "vta timing: %s = %ld is out of range [0, 1000000]", name, value);
        if (value == 0 && (!strcmp(name, "gemm_ii") || !strcmp(name, "alu_ii")))
            return AT_FAIL(AT_EINVAL, "vta timing: %s must be at least 1", name);
        *slot(t, i) = (uint32_t)value;
        return AT_OK;
    }
    return AT_FAIL(AT_ENOTFOUND, "vta timing: no constant named '%s'", name);
}
