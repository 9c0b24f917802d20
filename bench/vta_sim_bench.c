/* vta_sim_bench: simulator speed (simulated cycles per host second) on a GEMM-heavy program, the
 * 3x3 conv of resnet-18 VTA task #4 (56x56, 64 -> 64 channels) tiled as TopHub config 807 does
 * (spec §5.7), built by hand the way the runtime would emit it; serially and with two virtual
 * threads, with and without functional execution. Also prints the modelled GOPS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "vta/isa.h"
#include "vta/sim.h"

enum { H = 56, W = 56, CI_B = 4, CO_B = 4, TILE_W = 8, IN_W = W + 2, IN_H = H + 2, MAX_INSNS = 4096 };
/* per thread: ACC 2 co-blocks x 56 rows x 8 cols, INP 58 x 10, WGT 2 x 9 */
enum { ACC_T = 2 * H * TILE_W, INP_T = IN_H * (TILE_W + 2), WGT_T = 2 * 9 };

typedef struct prog {
    const at_vta_hw *hw;
    uint64_t w[2 * MAX_INSNS];
    size_t n;
} prog;

static void die(const char *what)
{
    fprintf(stderr, "vta_sim_bench: %s: %s\n", what, at_last_error());
    exit(1);
}

static void emit(prog *p, at_vta_insn in)
{
    if (p->n >= MAX_INSNS || at_vta_insn_encode(p->hw, &in, &p->w[2 * p->n]) != AT_OK) die("encode");
    p->n++;
}

#define INSN(...) ((at_vta_insn){__VA_ARGS__})

typedef struct layout {
    uint32_t in, wgt, out, uop; /* DRAM element addresses */
    uint64_t out_phys;
} layout;

/* Uop kernels of one thread t (SRAM bases shifted by t tiles), appended to u from index *n:
 * reset (56 uops), conv (336 uops over d_i, x_co, x_i), copy-for-ALU (1 uop). */
static void kernels(const at_vta_hw *hw, int t, uint32_t *u, uint32_t *n, uint32_t bgn[3], uint32_t end[3])
{
    uint32_t acc0 = (uint32_t)(t * ACC_T), inp0 = (uint32_t)(t * INP_T), wgt0 = (uint32_t)(t * WGT_T);
    at_vta_uop x;
    bgn[0] = *n;
    for (uint32_t i = 0; i < H; i++) {
        x = (at_vta_uop){.dst = acc0 + i * TILE_W};
        if (at_vta_uop_encode(hw, &x, &u[(*n)++]) != AT_OK) die("uop");
    }
    end[0] = bgn[1] = *n;
    for (uint32_t di = 0; di < 3; di++)
        for (uint32_t co = 0; co < 2; co++)
            for (uint32_t xi = 0; xi < H; xi++) {
                x = (at_vta_uop){.dst = acc0 + co * H * TILE_W + xi * TILE_W,
                                 .src = inp0 + (xi + di) * (TILE_W + 2),
                                 .wgt = wgt0 + co * 9 + di * 3};
                if (at_vta_uop_encode(hw, &x, &u[(*n)++]) != AT_OK) die("uop");
            }
    end[1] = bgn[2] = *n;
    x = (at_vta_uop){.dst = acc0, .src = acc0};
    if (at_vta_uop_encode(hw, &x, &u[(*n)++]) != AT_OK) die("uop");
    end[2] = *n;
}

/* The instruction stream: nthreads 1 walks 14 (column tile, co pair) tiles; nthreads 2 walks 7
 * column tiles with one co pair per virtual thread, every stage emitted for thread 0 then 1 with
 * its own dependency flags (the runtime's cthread expansion). */
static void build(prog *p, const layout *l, int nthreads)
{
    static uint32_t u[2 * 400];
    uint32_t n = 0, bgn[2][3], end[2][3];
    for (int t = 0; t < nthreads; t++) kernels(p->hw, t, u, &n, bgn[t], end[t]);
    (void)u;
    emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_UOP, .dram_base = l->uop, .y_size = 1, .x_size = n,
                 .x_stride = n));
    for (int t = 0; t < nthreads; t++) emit(p, INSN(.opcode = AT_VTA_OP_STORE, .push_prev = 1));
    int iters = nthreads == 1 ? (W / TILE_W) * (CO_B / 2) : W / TILE_W;
    for (int it = 0; it < iters; it++) {
        int col = nthreads == 1 ? it / 2 : it;
        for (int t = 0; t < nthreads; t++)
            emit(p, INSN(.opcode = AT_VTA_OP_GEMM, .pop_next = 1, .push_prev = 1, .reset = 1, .uop_bgn = bgn[t][0],
                         .uop_end = end[t][0], .iter_out = TILE_W, .iter_in = 2, .dst_factor_out = 1,
                         .dst_factor_in = H * TILE_W));
        for (int k = 0; k < CI_B; k++) {
            for (int t = 0; t < nthreads; t++) {
                int pair = nthreads == 1 ? it % 2 : t;
                emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .pop_next = 1,
                             .sram_base = (uint32_t)(t * INP_T),
                             .dram_base = l->in + (uint32_t)(k * IN_H * IN_W + col * TILE_W), .y_size = IN_H,
                             .x_size = TILE_W + 2, .x_stride = IN_W));
                emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_WGT, .push_next = 1,
                             .sram_base = (uint32_t)(t * WGT_T),
                             .dram_base = l->wgt + (uint32_t)(pair * 2 * CI_B * 9 + k * 9), .y_size = 2, .x_size = 9,
                             .x_stride = CI_B * 9));
            }
            for (int t = 0; t < nthreads; t++)
                emit(p, INSN(.opcode = AT_VTA_OP_GEMM, .pop_prev = 1, .push_prev = 1, .uop_bgn = bgn[t][1],
                             .uop_end = end[t][1], .iter_out = TILE_W, .iter_in = 3, .dst_factor_out = 1,
                             .src_factor_out = 1, .src_factor_in = 1, .wgt_factor_in = 1));
        }
        for (int t = 0; t < nthreads; t++)
            emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .pop_next = 1));
        static const struct {
            at_vta_alu_op op;
            int32_t imm;
        } epi[3] = {{AT_VTA_ALU_SHR, 8}, {AT_VTA_ALU_MIN, 127}, {AT_VTA_ALU_MAX, 0}};
        for (int t = 0; t < nthreads; t++)
            for (int e = 0; e < 3; e++)
                emit(p, INSN(.opcode = AT_VTA_OP_ALU, .push_next = e == 2, .uop_bgn = bgn[t][2], .uop_end = end[t][2],
                             .iter_out = 1, .iter_in = ACC_T, .dst_factor_in = 1, .src_factor_in = 1,
                             .alu_op = epi[e].op, .use_imm = 1, .imm = epi[e].imm));
        for (int t = 0; t < nthreads; t++) {
            int pair = nthreads == 1 ? it % 2 : t;
            for (int co = 0; co < 2; co++)
                emit(p, INSN(.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .pop_prev = co == 0,
                             .push_prev = co == 1, .sram_base = (uint32_t)(t * ACC_T + co * H * TILE_W),
                             .dram_base = l->out + (uint32_t)((pair * 2 + co) * H * W + col * TILE_W), .y_size = H,
                             .x_size = TILE_W, .x_stride = W));
        }
    }
    for (int t = 1; t < nthreads; t++) emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_UOP, .pop_next = 1));
    emit(p, INSN(.opcode = AT_VTA_OP_FINISH, .pop_next = 1));
}

static uint32_t put(at_vta_sim *sim, at_vta_mem mem, const void *data, size_t bytes, uint64_t *phys_out)
{
    uint64_t phys;
    if (at_vta_sim_dram_alloc(sim, bytes, &phys) != AT_OK ||
        (data && at_vta_sim_dram_write(sim, phys, data, bytes) != AT_OK))
        die("dram");
    if (phys_out) *phys_out = phys;
    return (uint32_t)(phys / (uint64_t)at_vta_hw_dram_elem_bytes(at_vta_sim_hw(sim), mem));
}

typedef struct result {
    at_vta_stats st;
    double wall_s;
    size_t insns;
    uint8_t *out;
} result;

static void run_variant(const at_vta_hw *hw, int nthreads, bool skip, int reps, result *r)
{
    at_vta_sim_opts o = {.skip_exec = skip};
    at_vta_sim *sim;
    if (at_vta_sim_new(hw, &o, &sim) != AT_OK) die("sim");
    size_t in_bytes = (size_t)CI_B * IN_H * IN_W * 16, w_bytes = (size_t)CO_B * CI_B * 9 * 256,
           out_bytes = (size_t)CO_B * H * W * 16;
    uint8_t *buf = at_malloc(in_bytes > w_bytes ? in_bytes : w_bytes);
    if (!buf) die("memory");
    uint32_t seed = 12345;
    for (size_t i = 0; i < in_bytes; i++) buf[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 24) & 0x3f;
    layout l;
    l.in = put(sim, AT_VTA_MEM_INP, buf, in_bytes, NULL);
    for (size_t i = 0; i < w_bytes; i++) buf[i] = (uint8_t)((int)((seed = seed * 1103515245u + 12345u) >> 28) - 7);
    l.wgt = put(sim, AT_VTA_MEM_WGT, buf, w_bytes, NULL);
    l.out = put(sim, AT_VTA_MEM_OUT, NULL, out_bytes, &l.out_phys);
    at_free(buf);
    static uint32_t uops[2 * 400];
    uint32_t n = 0, b[3], e[3];
    for (int t = 0; t < nthreads; t++) kernels(hw, t, uops, &n, b, e);
    l.uop = put(sim, AT_VTA_MEM_UOP, uops, n * 4u, NULL);
    static prog p;
    p.hw = hw;
    p.n = 0;
    build(&p, &l, nthreads);
    double t0 = at_clock_mono_s();
    for (int i = 0; i < reps; i++)
        if (at_vta_sim_run(sim, p.w, p.n, &r->st) != AT_OK) die("run");
    r->wall_s = (at_clock_mono_s() - t0) / reps;
    r->insns = p.n;
    r->out = at_malloc(out_bytes);
    if (!r->out || at_vta_sim_dram_read(sim, l.out_phys, r->out, out_bytes) != AT_OK) die("read");
    at_vta_sim_free(sim);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    if (reps < 1) reps = 1;
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    printf("vta_sim_bench: %s, %d MHz, resnet-18 VTA task #4 conv (56x56, 64->64, 3x3), tiling of TopHub cfg 807\n",
           hw.model, hw.fpga_freq_mhz);
    printf("%-22s %6s %10s %9s %8s %7s %6s %9s %12s\n", "variant", "insns", "cycles", "gemm_uops", "sim_ms", "GOPS",
           "%peak", "wall_ms", "Mcycles/s");
    static const struct {
        const char *name;
        int nthreads;
        bool skip;
    } variants[] = {
        {"serial, exec", 1, false},
        {"2 vthreads, exec", 2, false},
        {"serial, skip_exec", 1, true},
        {"2 vthreads, skip_exec", 2, true},
    };
    result res[4];
    for (int v = 0; v < 4; v++) {
        result *r = &res[v];
        run_variant(&hw, variants[v].nthreads, variants[v].skip, reps, r);
        double sim_s = (double)r->st.cycles / (hw.fpga_freq_mhz * 1e6);
        double gops = (double)r->st.gemm_ops * 2.0 * hw.gemm_macs_per_uop / sim_s / 1e9;
        printf("%-22s %6zu %10llu %9llu %8.3f %7.2f %5.1f%% %9.2f %12.2f\n", variants[v].name, r->insns,
               (unsigned long long)r->st.cycles, (unsigned long long)r->st.gemm_ops, sim_s * 1e3, gops,
               100.0 * gops / hw.gemm_peak_gops, r->wall_s * 1e3, (double)r->st.cycles / r->wall_s / 1e6);
    }
    for (int v = 0; v < 2; v++) {
        const at_vta_stats *s = &res[v].st;
        printf("%s: busy load/compute/store %llu/%llu/%llu, token stalls %llu/%llu/%llu, bus beats %llu, bus waits "
               "%llu/%llu/%llu, fetch stalls %llu\n",
               variants[v].name, (unsigned long long)s->busy_cycles[AT_VTA_LOAD],
               (unsigned long long)s->busy_cycles[AT_VTA_COMPUTE], (unsigned long long)s->busy_cycles[AT_VTA_STORE],
               (unsigned long long)s->stall_cycles[AT_VTA_LOAD], (unsigned long long)s->stall_cycles[AT_VTA_COMPUTE],
               (unsigned long long)s->stall_cycles[AT_VTA_STORE], (unsigned long long)s->bus_beats,
               (unsigned long long)s->bus_wait_cycles[AT_VTA_LOAD],
               (unsigned long long)s->bus_wait_cycles[AT_VTA_COMPUTE],
               (unsigned long long)s->bus_wait_cycles[AT_VTA_STORE], (unsigned long long)s->stall_cycles[AT_VTA_FETCH]);
    }
    size_t out_bytes = (size_t)CO_B * H * W * 16, distinct = 0;
    int seen[256] = {0};
    for (size_t i = 0; i < out_bytes; i++) distinct += !seen[res[0].out[i]]++;
    int same = !memcmp(res[0].out, res[1].out, out_bytes);
    printf("outputs of the serial and 2-vthread programs %s (%zu bytes, %zu distinct values)\n",
           same ? "are identical" : "DIFFER", out_bytes, distinct);
    for (int v = 0; v < 4; v++) at_free(res[v].out);
    return same ? 0 : 1;
}
