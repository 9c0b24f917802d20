/* vta/sim: each instruction against hand-computed results (GEMM with reset and accumulate against
 * a naive int8 matmul, ALU ops with immediates, padded loads, narrowing stores), dependency
 * tokens ordering modules, deadlock and bad-program detection, the cycle model's formulas,
 * determinism, and allocation failure. */
#include "tests/support/test_support.h"

#include <limits.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "vta/isa.h"
#include "vta/sim.h"

enum { MAX_INSNS = 2048 };

typedef struct prog {
    const at_vta_hw *hw;
    uint64_t w[2 * MAX_INSNS];
    size_t n;
} prog;

static void emit(prog *p, at_vta_insn in)
{
    assert_true(p->n < MAX_INSNS);
    assert_ok(at_vta_insn_encode(p->hw, &in, &p->w[2 * p->n]));
    p->n++;
}

#define INSN(...) ((at_vta_insn){__VA_ARGS__})
#define FINISH(...) INSN(.opcode = AT_VTA_OP_FINISH, __VA_ARGS__)

/* Allocates DRAM, copies data in, returns the address in elements of mem. */
static uint32_t put(at_vta_sim *sim, at_vta_mem mem, const void *data, size_t bytes)
{
    uint64_t phys;
    assert_ok(at_vta_sim_dram_alloc(sim, bytes, &phys));
    assert_ok(at_vta_sim_dram_write(sim, phys, data, bytes));
    int eb = at_vta_hw_dram_elem_bytes(at_vta_sim_hw(sim), mem);
    assert_int_equal(phys % (uint64_t)eb, 0);
    return (uint32_t)(phys / (uint64_t)eb);
}

static uint32_t put_uops(at_vta_sim *sim, const at_vta_uop *uops, size_t n)
{
    uint32_t words[64];
    assert_true(n <= 64);
    for (size_t i = 0; i < n; i++) assert_ok(at_vta_uop_encode(at_vta_sim_hw(sim), &uops[i], &words[i]));
    return put(sim, AT_VTA_MEM_UOP, words, n * 4);
}

static at_vta_sim *new_sim(const at_vta_hw *hw, const at_vta_timing *timing)
{
    at_vta_sim *sim;
    at_vta_sim_opts o = {.timing = timing};
    assert_ok(at_vta_sim_new(hw, &o, &sim));
    return sim;
}

static at_vta_hw hw16;

static int setup(void **state)
{
    (void)state;
    at_vta_hw_default(&hw16);
    return 0;
}

/* Lane i (bits wide, LSB-first packing) of a packed element, for the non-int8 configs. */
static void pack(uint8_t *p, int bits, size_t i, int32_t v)
{
    if (bits == 8) {
        p[i] = (uint8_t)v;
        return;
    }
    if (bits == 16) {
        p[2 * i] = (uint8_t)v;
        p[2 * i + 1] = (uint8_t)((uint32_t)v >> 8);
        return;
    }
    uint32_t bit = (uint32_t)(i * (size_t)bits), mask = (1u << bits) - 1;
    p[bit / 8] = (uint8_t)((p[bit / 8] & ~(mask << bit % 8)) | (((uint32_t)v & mask) << bit % 8));
}

static int32_t unpack(const uint8_t *p, int bits, size_t i)
{
    if (bits == 32) {
        uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                     (uint32_t)p[4 * i + 3] << 24;
        return (int32_t)u;
    }
    if (bits == 16) return (int16_t)(uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
    AT_ASSERT(bits == 8);
    return (int8_t)p[i];
}

/* ---------------------------------------------------------------- GEMM */

/* C[M][N] = A[M][K] . W[N][K]^T, run as: reset, GEMM, GEMM (so ACC = 2*C), on any config.
 * DRAM layout: A as INP elements (m, kb), W as WGT elements (nb, kb), uops for one (m, nb)
 * walk kb; the outer loop walks m, the inner nb. */
static void gemm_case(const at_vta_hw *hw, int M, int KB, int NB, uint64_t seed)
{
    int bi = hw->block_in, bo = hw->block_out, K = KB * bi, N = NB * bo;
    int lo_in = -(1 << (hw->inp_width - 1)), lo_w = -(1 << (hw->wgt_width - 1));
    at_rng r;
    at_rng_seed(&r, seed);
    int32_t *A = at_malloc(sizeof(int32_t) * (size_t)(M * K)), *W = at_malloc(sizeof(int32_t) * (size_t)(N * K));
    uint8_t *ad = at_calloc((size_t)(M * KB), (size_t)hw->inp_elem_bytes);
    uint8_t *wd = at_calloc((size_t)(NB * KB), (size_t)hw->wgt_elem_bytes);
    uint8_t *junk = at_malloc((size_t)(M * NB) * (size_t)hw->acc_elem_bytes);
    assert_true(A && W && ad && wd && junk);
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++) {
            A[m * K + k] = lo_in + (int32_t)at_rng_below(&r, (uint64_t)1 << hw->inp_width);
            pack(ad + (size_t)(m * KB + k / bi) * (size_t)hw->inp_elem_bytes, hw->inp_width, (size_t)(k % bi),
                 A[m * K + k]);
        }
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++) {
            W[n * K + k] = lo_w + (int32_t)at_rng_below(&r, (uint64_t)1 << hw->wgt_width);
            /* WGT element (nb, kb) holds w[o][k'] at lane o*BLOCK_IN + k' */
            pack(wd + (size_t)((n / bo) * KB + k / bi) * (size_t)hw->wgt_elem_bytes, hw->wgt_width,
                 (size_t)((n % bo) * bi + k % bi), W[n * K + k]);
        }
    for (size_t i = 0; i < (size_t)(M * NB) * (size_t)hw->acc_elem_bytes; i++) junk[i] = (uint8_t)at_rng_next_u64(&r);

    at_vta_sim *sim = new_sim(hw, NULL);
    at_vta_uop uops[16];
    for (int kb = 0; kb < KB; kb++) uops[kb] = (at_vta_uop){.dst = 0, .src = (uint32_t)kb, .wgt = (uint32_t)kb};
    uint32_t uop_at = put_uops(sim, uops, (size_t)KB);
    uint32_t a_at = put(sim, AT_VTA_MEM_INP, ad, (size_t)(M * KB) * (size_t)hw->inp_elem_bytes);
    uint32_t w_at = put(sim, AT_VTA_MEM_WGT, wd, (size_t)(NB * KB) * (size_t)hw->wgt_elem_bytes);
    uint32_t j_at = put(sim, AT_VTA_MEM_ACC, junk, (size_t)(M * NB) * (size_t)hw->acc_elem_bytes);

    /* first run: garbage into the accumulators, so the reset has something to clear */
    prog p = {.hw = hw};
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC, .dram_base = j_at, .y_size = 1,
                  .x_size = (uint32_t)(M * NB), .x_stride = (uint32_t)(M * NB)));
    emit(&p, FINISH());
    assert_ok(at_vta_sim_run(sim, p.w, p.n, NULL));

    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_UOP, .dram_base = uop_at, .y_size = 1,
                  .x_size = (uint32_t)KB, .x_stride = (uint32_t)KB));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .dram_base = a_at, .y_size = 1,
                  .x_size = (uint32_t)(M * KB), .x_stride = (uint32_t)(M * KB)));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_WGT, .push_next = 1, .dram_base = w_at, .y_size = 1,
                  .x_size = (uint32_t)(NB * KB), .x_stride = (uint32_t)(NB * KB)));
    at_vta_insn g = {.opcode = AT_VTA_OP_GEMM,
                     .uop_bgn = 0,
                     .uop_end = (uint32_t)KB,
                     .iter_out = (uint32_t)M,
                     .iter_in = (uint32_t)NB,
                     .dst_factor_out = (uint32_t)NB,
                     .dst_factor_in = 1,
                     .src_factor_out = (uint32_t)KB,
                     .src_factor_in = 0,
                     .wgt_factor_out = 0,
                     .wgt_factor_in = (uint32_t)KB};
    at_vta_insn reset = g;
    reset.reset = 1;
    reset.uop_end = 1;
    emit(&p, reset);
    g.pop_prev = 1;
    emit(&p, g);
    g.pop_prev = 0;
    emit(&p, g);
    emit(&p, FINISH());
    at_vta_stats st;
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.gemm_ops, 2u * (uint64_t)(M * NB * KB)); /* the reset does not count */
    assert_int_equal(st.uop_load_bytes, 4u * (uint64_t)KB);
    assert_int_equal(st.inp_load_bytes, (uint64_t)(M * KB * hw->inp_elem_bytes));
    assert_int_equal(st.wgt_load_bytes, (uint64_t)(NB * KB * hw->wgt_elem_bytes));

    uint8_t *acc = at_malloc((size_t)(M * NB) * (size_t)hw->acc_elem_bytes);
    assert_non_null(acc);
    assert_ok(at_vta_sim_sram_read(sim, AT_VTA_MEM_ACC, 0, (uint32_t)(M * NB), acc));
    int32_t acc_mask_shift = 32 - hw->acc_width;
    size_t checked = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int64_t ref = 0;
            for (int k = 0; k < K; k++) ref += (int64_t)A[m * K + k] * W[n * K + k];
            /* 2 * C in the accumulator's two's complement width */
            int32_t want = (int32_t)((uint32_t)(2 * ref) << acc_mask_shift) >> acc_mask_shift;
            int32_t got =
                unpack(acc + (size_t)(m * NB + n / bo) * (size_t)hw->acc_elem_bytes, hw->acc_width, (size_t)(n % bo));
            if (got != want) fail_msg("%s C[%d][%d]: got %d, want %d", hw->model, m, n, got, want);
            checked++;
        }
    assert_int_equal(checked, (size_t)(M * N));
    at_free(acc);
    at_free(A);
    at_free(W);
    at_free(ad);
    at_free(wd);
    at_free(junk);
    at_vta_sim_free(sim);
}

static void gemm_with_reset_and_accumulate_should_match_a_naive_int8_matmul(void **state)
{
    (void)state;
    gemm_case(&hw16, 5, 3, 4, 1);
}

static void gemm_should_match_the_reference_on_1x32_and_a_4_bit_config(void **state)
{
    (void)state;
    at_vta_hw hw32 = hw16;
    hw32.log_block = 5;
    assert_ok(at_vta_hw_derive(&hw32));
    gemm_case(&hw32, 3, 2, 2, 2);

    /* 1x16_i4w4a16: 4-bit lanes packed two per byte, 16-bit accumulators that wrap */
    at_vta_hw hw4 = hw16;
    hw4.log_inp_width = 2;
    hw4.log_wgt_width = 2;
    hw4.log_acc_width = 4;
    hw4.log_inp_buff_size = 14;
    hw4.log_wgt_buff_size = 17;
    hw4.log_acc_buff_size = 16;
    assert_ok(at_vta_hw_derive(&hw4));
    assert_string_equal(hw4.bitstream, "1x16_i4w4a16_15_14_17_16");
    gemm_case(&hw4, 4, 2, 3, 3);
}

/* ---------------------------------------------------------------- ALU */

static const int32_t alu_x[16] = {0, 1, -1, 7, -8, 100, -100, INT_MAX, INT_MIN, 12345, -12345, 5, 6, -3, -4, 65536};
static const int32_t alu_y[16] = {1, 2, 3, -1, -2, 20, 32, 1, 1, -31, 33, 0, -32, 2, 4, -16};

static void alu_ops_should_compute_fsim_results_with_and_without_immediates(void **state)
{
    (void)state;
    static const struct {
        at_vta_alu_op op;
        bool use_imm;
        int32_t imm;
        int32_t want[16];
    } cases[] = {
        {AT_VTA_ALU_MIN, 1, 5, {0, 1, -1, 5, -8, 5, -100, 5, INT_MIN, 5, -12345, 5, 5, -3, -4, 5}},
        {AT_VTA_ALU_MAX, 1, -3, {0, 1, -1, 7, -3, 100, -3, INT_MAX, -3, 12345, -3, 5, 6, -3, -3, 65536}},
        {AT_VTA_ALU_ADD,
         1,
         -1000,
         {-1000, -999, -1001, -993, -1008, -900, -1100, 2147482647, 2147482648, 11345, -13345, -995, -994, -1003, -1004,
          64536}},
        {AT_VTA_ALU_SHR, 1, 2, {0, 0, -1, 1, -2, 25, -25, 536870911, -536870912, 3086, -3087, 1, 1, -1, -1, 16384}},
        {AT_VTA_ALU_SHR,
         1,
         -4,
         {0, 16, -16, 112, -128, 1600, -1600, -16, 0, 197520, -197520, 80, 96, -48, -64, 1048576}},
        {AT_VTA_ALU_MUL,
         1,
         -3,
         {0, -3, 3, -21, 24, -300, 300, -2147483645, INT_MIN, -37035, 37035, -15, -18, 9, 12, -196608}},
        {AT_VTA_ALU_ADD, 0, 0, {1, 3, 2, 6, -10, 120, -68, INT_MIN, -2147483647, 12314, -12312, 5, -26, -1, 0, 65520}},
        /* shift counts from the source lanes, negative ones shifting left, low 5 bits used */
        {AT_VTA_ALU_SHR, 0, 0, {0, 0, -1, 14, -32, 0, -100, 1073741823, -1073741824, INT_MIN, -6173, 5, 6, -1, -1, 0}},
        {AT_VTA_ALU_MIN, 0, 0, {0, 1, -1, -1, -8, 20, -100, 1, INT_MIN, -31, -12345, 0, -32, -3, -4, -16}},
        {AT_VTA_ALU_MAX, 0, 0, {1, 2, 3, 7, -2, 100, 32, INT_MAX, 1, 12345, 33, 5, 6, 2, 4, 65536}},
        {AT_VTA_ALU_MUL,
         0,
         0,
         {0, 2, -3, -7, 16, 2000, -3200, INT_MAX, INT_MIN, -382695, -407385, 0, -192, -6, -16, -1048576}},
    };
    enum { N = sizeof cases / sizeof cases[0], SRC = 20 };
    at_vta_sim *sim = new_sim(&hw16, NULL);
    uint8_t xe[64], ye[64];
    for (int l = 0; l < 16; l++) {
        memcpy(xe + 4 * l, &alu_x[l], 4);
        memcpy(ye + 4 * l, &alu_y[l], 4);
    }
    uint32_t x_at = put(sim, AT_VTA_MEM_ACC, xe, 64), y_at = put(sim, AT_VTA_MEM_ACC, ye, 64);
    at_vta_uop uops[N];
    for (int k = 0; k < N; k++) uops[k] = (at_vta_uop){.dst = (uint32_t)k, .src = SRC};
    uint32_t u_at = put_uops(sim, uops, N);
    prog p = {.hw = &hw16};
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_UOP, .dram_base = u_at, .y_size = 1, .x_size = N,
                  .x_stride = N));
    /* N copies of x (a zero stride re-reads one DRAM element), y at SRC */
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC, .dram_base = x_at, .y_size = N, .x_size = 1,
                  .x_stride = 0));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC, .sram_base = SRC, .dram_base = y_at, .y_size = 1,
                  .x_size = 1, .x_stride = 1));
    for (int k = 0; k < N; k++)
        emit(&p, INSN(.opcode = AT_VTA_OP_ALU, .uop_bgn = (uint32_t)k, .uop_end = (uint32_t)k + 1, .iter_out = 1,
                      .iter_in = 1, .alu_op = cases[k].op, .use_imm = cases[k].use_imm, .imm = cases[k].imm));
    emit(&p, FINISH());
    at_vta_stats st;
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.alu_ops, N);
    assert_int_equal(st.acc_load_bytes, (N + 1) * 64);
    uint8_t acc[N * 64];
    assert_ok(at_vta_sim_sram_read(sim, AT_VTA_MEM_ACC, 0, N, acc));
    size_t checked = 0;
    for (int k = 0; k < N; k++)
        for (int l = 0; l < 16; l++) {
            int32_t got = unpack(acc + 64 * k, 32, (size_t)l);
            if (got != cases[k].want[l])
                fail_msg("case %d (%s%s) lane %d: got %d, want %d", k, at_vta_alu_op_name(cases[k].op),
                         cases[k].use_imm ? " imm" : "", l, got, cases[k].want[l]);
            checked++;
        }
    assert_int_equal(checked, N * 16);
    uint8_t src_after[64];
    assert_ok(at_vta_sim_sram_read(sim, AT_VTA_MEM_ACC, SRC, 1, src_after));
    assert_memory_equal(src_after, ye, 64); /* the source operand is only read */
    at_vta_sim_free(sim);
}

static void alu_loops_should_apply_both_affine_index_factors(void **state)
{
    (void)state;
    at_vta_sim *sim = new_sim(&hw16, NULL);
    /* two uops (dst 0 and dst 10, both reading src 40); outer loop dst +4 / src +1, inner dst +1 */
    at_vta_uop uops[2] = {{.dst = 0, .src = 40}, {.dst = 10, .src = 40}};
    uint32_t u_at = put_uops(sim, uops, 2);
    uint8_t srcs[2 * 64];
    for (int e = 0; e < 2; e++)
        for (int l = 0; l < 16; l++) {
            int32_t v = (e + 1) * 100 + l;
            memcpy(srcs + 64 * e + 4 * l, &v, 4);
        }
    uint32_t s_at = put(sim, AT_VTA_MEM_ACC, srcs, sizeof srcs);
    prog p = {.hw = &hw16};
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_UOP, .dram_base = u_at, .y_size = 1, .x_size = 2,
                  .x_stride = 2));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC, .sram_base = 40, .dram_base = s_at, .y_size = 1,
                  .x_size = 2, .x_stride = 2));
    emit(&p, INSN(.opcode = AT_VTA_OP_ALU, .uop_bgn = 0, .uop_end = 2, .iter_out = 2, .iter_in = 2, .dst_factor_out = 4,
                  .dst_factor_in = 1, .src_factor_out = 1, .src_factor_in = 0, .alu_op = AT_VTA_ALU_ADD));
    emit(&p, FINISH());
    at_vta_stats st;
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.alu_ops, 8);
    uint8_t acc[16 * 64];
    assert_ok(at_vta_sim_sram_read(sim, AT_VTA_MEM_ACC, 0, 16, acc));
    /* touched: i=0 -> dst {0,1} / {10,11} add src 40; i=1 -> {4,5} / {14,15} add src 41 */
    static const int base[16] = {100, 100, 0, 0, 200, 200, 0, 0, 0, 0, 100, 100, 0, 0, 200, 200};
    for (int e = 0; e < 16; e++)
        for (int l = 0; l < 16; l++) assert_int_equal(unpack(acc + 64 * e, 32, (size_t)l), base[e] ? base[e] + l : 0);
    at_vta_sim_free(sim);
}

/* ---------------------------------------------------------------- loads and stores */

static void loads_should_zero_pad_around_the_copied_rows(void **state)
{
    (void)state;
    at_vta_sim *sim = new_sim(&hw16, NULL);
    /* a 5x5 grid of INP elements, every lane of element (r, c) = 10*r + c */
    uint8_t grid[25 * 16], fill[48 * 16];
    for (int e = 0; e < 25; e++) memset(grid + 16 * e, 10 * (e / 5) + e % 5, 16);
    memset(fill, 0x55, sizeof fill);
    uint32_t g_at = put(sim, AT_VTA_MEM_INP, grid, sizeof grid), f_at = put(sim, AT_VTA_MEM_INP, fill, sizeof fill);
    prog p = {.hw = &hw16};
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .dram_base = f_at, .y_size = 1, .x_size = 48,
                  .x_stride = 48));
    /* rows 1..2, columns 1..3, padded 1 row above and below, 1 column left, 2 right */
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .sram_base = 10, .dram_base = g_at + 6, .y_size = 2,
                  .x_size = 3, .x_stride = 5, .y_pad0 = 1, .y_pad1 = 1, .x_pad0 = 1, .x_pad1 = 2));
    emit(&p, FINISH());
    at_vta_stats st;
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.inp_load_bytes, (48 + 6) * 16); /* padding is not counted, as in fsim */
    uint8_t inp[48 * 16];
    assert_ok(at_vta_sim_sram_read(sim, AT_VTA_MEM_INP, 0, 48, inp));
    /* SRAM 10..33 = 4 rows of 6: [pad row] [0 (1,1) (1,2) (1,3) 0 0] [0 (2,1) (2,2) (2,3) 0 0] [pad row] */
    int want[48];
    for (int e = 0; e < 48; e++) want[e] = 0x55;
    for (int e = 10; e < 34; e++) want[e] = 0;
    for (int c = 0; c < 3; c++) {
        want[17 + c] = 11 + c;
        want[23 + c] = 21 + c;
    }
    for (int e = 0; e < 48; e++)
        for (int l = 0; l < 16; l++)
            if (inp[16 * e + l] != want[e])
                fail_msg("INP element %d lane %d: got %d, want %d", e, l, inp[16 * e + l], want[e]);

    /* ACC_8BIT: int8 DRAM lanes sign-extended into int32, with x padding; WGT pads like INP */
    int8_t small[2 * 16];
    for (int i = 0; i < 32; i++) small[i] = (int8_t)(i * 9 - 140);
    uint32_t s_at = put(sim, AT_VTA_MEM_ACC_8BIT, small, sizeof small);
    uint8_t w1[256];
    memset(w1, 0x7f, sizeof w1);
    uint32_t w_at = put(sim, AT_VTA_MEM_WGT, w1, sizeof w1);
    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC_8BIT, .sram_base = 3, .dram_base = s_at, .y_size = 1,
                  .x_size = 2, .x_stride = 2, .x_pad0 = 1));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_WGT, .sram_base = 0, .dram_base = w_at, .y_size = 1,
                  .x_size = 1, .x_stride = 1, .x_pad0 = 1, .y_pad1 = 1));
    emit(&p, FINISH());
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.acc_load_bytes, 2 * 64); /* fsim counts ACC element bytes for ACC_8BIT */
    uint8_t acc[3 * 64];
    assert_ok(at_vta_sim_sram_read(sim, AT_VTA_MEM_ACC, 3, 3, acc));
    for (int l = 0; l < 16; l++) assert_int_equal(unpack(acc, 32, (size_t)l), 0);
    for (int i = 0; i < 32; i++) assert_int_equal(unpack(acc + 64, 32, (size_t)i), (int8_t)(i * 9 - 140));
    uint8_t wgt[4 * 256];
    assert_ok(at_vta_sim_sram_read(sim, AT_VTA_MEM_WGT, 0, 4, wgt));
    for (int i = 0; i < 256; i++) {
        assert_int_equal(wgt[i], 0);
        assert_int_equal(wgt[256 + i], 0x7f);
        assert_int_equal(wgt[512 + i], 0);
        assert_int_equal(wgt[768 + i], 0);
    }
    at_vta_sim_free(sim);
}

static void stores_should_narrow_accumulators_to_the_output_width(void **state)
{
    (void)state;
    at_vta_sim *sim = new_sim(&hw16, NULL);
    static const int32_t v[16] = {0x12345680, 255, -129, 128, -1,  127, -128, INT_MAX,
                                  INT_MIN,    0,   1,    -2,  256, 383, -385, 0x7f00ff01};
    static const uint8_t b[16] = {0x80, 0xff, 0x7f, 0x80, 0xff, 0x7f, 0x80, 0xff,
                                  0x00, 0x00, 0x01, 0xfe, 0x00, 0x7f, 0x7f, 0x01};
    uint8_t acc[4 * 64];
    for (int e = 0; e < 4; e++)
        for (int l = 0; l < 16; l++) {
            int32_t x = v[(l + e) % 16];
            memcpy(acc + 64 * e + 4 * l, &x, 4);
        }
    uint32_t a_at = put(sim, AT_VTA_MEM_ACC, acc, sizeof acc);
    uint8_t out[6 * 16];
    memset(out, 0xAA, sizeof out);
    uint64_t o_phys;
    assert_ok(at_vta_sim_dram_alloc(sim, sizeof out, &o_phys));
    assert_ok(at_vta_sim_dram_write(sim, o_phys, out, sizeof out));
    prog p = {.hw = &hw16};
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC, .push_next = 1, .dram_base = a_at, .y_size = 1,
                  .x_size = 4, .x_stride = 4));
    emit(&p, INSN(.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .pop_prev = 1, .push_prev = 1,
                  .dram_base = (uint32_t)(o_phys / 16), .y_size = 2, .x_size = 2, .x_stride = 3));
    emit(&p, FINISH(.pop_next = 1));
    at_vta_stats st;
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.out_store_bytes, 4 * 16);
    assert_ok(at_vta_sim_dram_read(sim, o_phys, out, sizeof out));
    /* DRAM elements 0,1 <- ACC 0,1 and 3,4 <- ACC 2,3; 2 and 5 untouched */
    static const int from[6] = {0, 1, -1, 2, 3, -1};
    for (int d = 0; d < 6; d++)
        for (int l = 0; l < 16; l++) assert_int_equal(out[16 * d + l], from[d] < 0 ? 0xAA : b[(l + from[d]) % 16]);
    at_vta_sim_free(sim);
}

/* ---------------------------------------------------------------- dependency tokens */

/* load A/W, reset, a long GEMM, then a store of the results; with_deps = the GEMM pushes a g2s
 * token that the store pops (and the store hands back an s2g token to FINISH). */
static void run_store_after_gemm(bool with_deps, at_vta_stats *st, int8_t out[16])
{
    at_vta_sim *sim = new_sim(&hw16, NULL);
    int8_t a[16], w[256];
    for (int i = 0; i < 16; i++) a[i] = (int8_t)(i - 8);
    for (int i = 0; i < 256; i++) w[i] = (int8_t)(i % 16 == i / 16 ? 1 : 0); /* identity */
    at_vta_uop uops[2] = {{.dst = 0, .src = 0, .wgt = 0}, {.dst = 1, .src = 0, .wgt = 0}};
    uint32_t u_at = put_uops(sim, uops, 2), a_at = put(sim, AT_VTA_MEM_INP, a, 16),
             w_at = put(sim, AT_VTA_MEM_WGT, w, 256);
    uint64_t o_phys;
    assert_ok(at_vta_sim_dram_alloc(sim, 16, &o_phys));
    prog p = {.hw = &hw16};
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_UOP, .dram_base = u_at, .y_size = 1, .x_size = 2,
                  .x_stride = 2));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .dram_base = a_at, .y_size = 1, .x_size = 1,
                  .x_stride = 1));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_WGT, .push_next = 1, .dram_base = w_at, .y_size = 1,
                  .x_size = 1, .x_stride = 1));
    emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .reset = 1, .uop_bgn = 0, .uop_end = 1, .iter_out = 1, .iter_in = 1));
    /* 4000 accumulations alternating between ACC 0 and 1: ACC 0 = 2000 * a */
    emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .pop_prev = 1, .push_next = with_deps, .uop_bgn = 0, .uop_end = 2,
                  .iter_out = 40, .iter_in = 50));
    emit(&p, INSN(.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .pop_prev = with_deps, .push_prev = with_deps,
                  .dram_base = (uint32_t)(o_phys / 16), .y_size = 1, .x_size = 1, .x_stride = 1));
    emit(&p, FINISH(.pop_next = with_deps));
    assert_ok(at_vta_sim_run(sim, p.w, p.n, st));
    assert_ok(at_vta_sim_dram_read(sim, o_phys, out, 16));
    at_vta_sim_free(sim);
}

static void a_store_should_wait_for_the_compute_that_pushes_its_token(void **state)
{
    (void)state;
    at_vta_stats with, without;
    int8_t out_with[16], out_without[16];
    run_store_after_gemm(true, &with, out_with);
    run_store_after_gemm(false, &without, out_without);
    /* with the token the store starts after the GEMM and stores 2000 * a truncated to 8 bits */
    assert_true(with.end_cycle[AT_VTA_STORE] > with.end_cycle[AT_VTA_COMPUTE] - 50);
    assert_true(with.stall_cycles[AT_VTA_STORE] > 4000);
    assert_int_equal(with.tokens[AT_VTA_G2S], 1);
    assert_int_equal(with.tokens[AT_VTA_S2G], 1);
    assert_int_equal(with.tokens[AT_VTA_L2G], 1);
    for (int i = 0; i < 16; i++) assert_int_equal(out_with[i], (int8_t)(uint8_t)(2000 * (i - 8)));
    /* without it the store runs as soon as it is fetched, before any GEMM: it sees empty accumulators */
    assert_true(without.end_cycle[AT_VTA_STORE] < 200);
    assert_int_equal(without.stall_cycles[AT_VTA_STORE], 0);
    for (int i = 0; i < 16; i++) assert_int_equal(out_without[i], 0);
    assert_true(with.cycles > without.end_cycle[AT_VTA_STORE]);
    assert_int_equal(with.gemm_ops, 4000);
}

static void deadlocked_programs_should_fail_naming_the_stuck_modules(void **state)
{
    (void)state;
    at_vta_sim *sim = new_sim(&hw16, NULL);
    prog p = {.hw = &hw16};
    /* compute waits for a load token that no load pushes */
    emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .pop_prev = 1, .uop_end = 0, .iter_out = 1, .iter_in = 1));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "deadlock"));
    assert_non_null(strstr(at_last_error(), "compute waits at insn #0 (GEMM dep(pop_prev)"));
    assert_non_null(strstr(at_last_error(), "for a l2g token"));

    /* load and compute wait for each other */
    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .pop_next = 1, .push_next = 1));
    emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .pop_prev = 1, .push_prev = 1, .iter_out = 1, .iter_in = 1));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "load waits at insn #0"));
    assert_non_null(strstr(at_last_error(), "for a g2l token"));
    assert_non_null(strstr(at_last_error(), "compute waits at insn #1"));
    assert_non_null(strstr(at_last_error(), "for a l2g token"));

    /* the store waits for a g2s token after compute already finished */
    p.n = 0;
    emit(&p, FINISH());
    emit(&p, INSN(.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .pop_prev = 1));
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "store waits at insn #1 (STORE NOP dep(pop_prev)) for a g2s token"));
    assert_null(strstr(at_last_error(), "compute waits"));

    /* a full command queue behind a blocked instruction stops fetch (depth 2 here) */
    at_vta_timing t;
    at_vta_timing_default(&t);
    t.cmd_queue_depth = 2;
    at_vta_sim *small = new_sim(&hw16, &t);
    p.n = 0;
    /* GEMM #0 took its command and waits; #1 and #2 fill the FIFO; #3 cannot be fetched, nor the
     * load behind it that would release #0 */
    for (int i = 0; i < 4; i++)
        emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .pop_prev = i == 0, .iter_out = 1, .iter_in = 1));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .push_next = 1));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(small, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "fetch waits at insn #3 for room in the compute command queue"));
    t.cmd_queue_depth = 0; /* unbounded: the same program completes */
    at_vta_sim *big = new_sim(&hw16, &t);
    assert_ok(at_vta_sim_run(big, p.w, p.n, NULL));
    at_vta_sim_free(small);
    at_vta_sim_free(big);
    at_vta_sim_free(sim);
}

static void bad_programs_should_be_device_errors_naming_the_instruction(void **state)
{
    (void)state;
    at_vta_sim *sim = new_sim(&hw16, NULL);
    uint8_t data[64 * 4] = {0};
    put(sim, AT_VTA_MEM_ACC, data, sizeof data); /* DRAM exists, but not at address 0 */
    at_vta_uop far = {.dst = 2047, .src = 2047, .wgt = 1023};
    uint32_t far_at = put_uops(sim, &far, 1);
    static const struct {
        at_vta_insn insn;
        const char *expect;
    } cases[] = {
        {{.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .pop_prev = 1}, "load module has no previous stage"},
        {{.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_WGT, .push_prev = 1}, "load module has no previous stage"},
        {{.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .push_next = 1}, "store module has no next stage"},
        {{.opcode = AT_VTA_OP_LOAD,
          .mem = AT_VTA_MEM_INP,
          .sram_base = 2040,
          .dram_base = 0,
          .y_size = 1,
          .x_size = 4,
          .x_pad1 = 5},
         "INP SRAM elements [2040, 2049) exceed its depth 2048"},
        {{.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC, .y_size = 1, .x_size = 1}, "DRAM bytes [0x0, 0x40)"},
        {{.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_OUT, .y_size = 1, .x_size = 1},
         "LOAD cannot write memory type 4"},
        {{.opcode = AT_VTA_OP_LOAD, .mem = (at_vta_mem)6, .y_size = 1, .x_size = 1}, "LOAD cannot write memory type 6"},
        {{.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_INP, .y_size = 1, .x_size = 1},
         "STORE reads memory type OUT only"},
        {{.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .y_size = 1, .x_size = 1, .x_pad0 = 1}, "STORE cannot pad"},
        {{.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .sram_base = 2047, .y_size = 2, .x_size = 1},
         "OUT SRAM elements [2047, 2049) exceed its depth 2048"},
        {{.opcode = AT_VTA_OP_GEMM, .uop_bgn = 5, .uop_end = 4}, "uop_bgn 5 is after uop_end 4"},
        {{.opcode = AT_VTA_OP_ALU, .uop_bgn = 0, .uop_end = 9000},
         "uop_end 9000 exceeds the micro-op buffer depth 8192"},
        {{.opcode = AT_VTA_OP_ALU, .alu_op = (at_vta_alu_op)6}, "unknown ALU opcode 6"},
    };
    size_t checked = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        prog p = {.hw = &hw16};
        emit(&p, FINISH());
        at_vta_insn in = cases[c].insn;
        uint64_t w[2];
        if (in.opcode == AT_VTA_OP_ALU && in.alu_op >= AT_VTA_ALU_COUNT) {
            /* not encodable through the API: patch the 3-bit field by hand */
            at_vta_insn ok = in;
            ok.alu_op = AT_VTA_ALU_MIN;
            assert_ok(at_vta_insn_encode(&hw16, &ok, w));
            w[1] |= (uint64_t)in.alu_op << (hw16.layout.alu_opcode.shift - 64);
        } else if ((unsigned)in.mem >= AT_VTA_MEM_COUNT) {
            at_vta_insn ok = in;
            ok.mem = AT_VTA_MEM_UOP;
            assert_ok(at_vta_insn_encode(&hw16, &ok, w));
            w[0] |= (uint64_t)in.mem << hw16.layout.mem_type.shift;
        } else {
            assert_ok(at_vta_insn_encode(&hw16, &in, w));
        }
        p.w[2] = w[0];
        p.w[3] = w[1];
        p.n = 2;
        at_status s = at_vta_sim_run(sim, p.w, p.n, NULL);
        if (s != AT_EDEVICE) fail_msg("case %zu: status %d", c, s);
        if (!strstr(at_last_error(), "vta insn #1 (") || !strstr(at_last_error(), cases[c].expect))
            fail_msg("case %zu: '%s' lacks '%s'", c, at_last_error(), cases[c].expect);
        checked++;
    }
    assert_int_equal(checked, 13);

    /* indexes produced by micro-ops and loop factors, checked before anything is written */
    prog p = {.hw = &hw16};
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_UOP, .sram_base = 7, .dram_base = far_at, .y_size = 1,
                  .x_size = 1, .x_stride = 1));
    emit(&p,
         INSN(.opcode = AT_VTA_OP_GEMM, .uop_bgn = 7, .uop_end = 8, .iter_out = 2, .iter_in = 1, .dst_factor_out = 1));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "vta insn #1 (GEMM"));
    assert_non_null(strstr(at_last_error(), "uop 7 reaches ACC index 2048 (depth 2048)"));
    p.n = 1;
    emit(&p,
         INSN(.opcode = AT_VTA_OP_GEMM, .uop_bgn = 7, .uop_end = 8, .iter_out = 1, .iter_in = 2, .wgt_factor_in = 1));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "uop 7 reaches WGT index 1024 (depth 1024)"));
    p.n = 1;
    emit(&p,
         INSN(.opcode = AT_VTA_OP_GEMM, .uop_bgn = 7, .uop_end = 8, .iter_out = 1, .iter_in = 2, .src_factor_in = 1));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "uop 7 reaches INP index 2048 (depth 2048)"));
    p.n = 1;
    emit(&p, INSN(.opcode = AT_VTA_OP_ALU, .uop_bgn = 7, .uop_end = 8, .iter_out = 3, .iter_in = 1, .src_factor_out = 1,
                  .alu_op = AT_VTA_ALU_ADD));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "uop 7 reaches ACC index 2049"));
    /* a reset only touches ACC: the same far uop with a zero-iteration-free reset is fine */
    p.n = 1;
    emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .reset = 1, .uop_bgn = 7, .uop_end = 8, .iter_out = 1, .iter_in = 1));
    emit(&p, FINISH());
    assert_ok(at_vta_sim_run(sim, p.w, p.n, NULL));

    /* a legal but absurd kernel (about 2e12 cycles) stops at the cycle budget before it runs */
    at_vta_sim *bounded;
    at_vta_sim_opts budget = {.max_cycles = 1000000, .skip_exec = true}; /* timing is what counts here */
    assert_ok(at_vta_sim_new(&hw16, &budget, &bounded));
    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 8192, .iter_out = 16383, .iter_in = 16383));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(bounded, p.w, p.n, NULL), AT_ETIMEOUT);
    assert_non_null(strstr(at_last_error(), "vta insn #0 (GEMM"));
    assert_non_null(strstr(at_last_error(), "past its budget of 1000000 cycles"));
    /* many GEMMs of 1 + 40 * 100 = 4001 cycles (default timing) from cycle 34 (fetch latency 32 + 2
     * beats): #k ends at 34 + 4001 (k + 1), so #249 is the first that would cross the budget */
    p.n = 0;
    for (int i = 0; i < 300; i++)
        emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 100, .iter_out = 40, .iter_in = 1));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(bounded, p.w, p.n, NULL), AT_ETIMEOUT);
    assert_non_null(strstr(at_last_error(), "vta insn #249 (GEMM"));
    p.n = 70; /* the first 70 fit */
    emit(&p, FINISH());
    at_vta_stats bst;
    assert_ok(at_vta_sim_run(bounded, p.w, p.n, &bst));
    assert_int_equal(bst.cycles, 34 + 70 * 4001 + 1); /* the GEMMs back to back, then FINISH */
    /* long transfers (2000 rows of 4 cycles) are stopped between their row events */
    uint32_t one = put(bounded, AT_VTA_MEM_INP, data, 16);
    p.n = 0;
    for (int i = 0; i < 150; i++)
        emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .dram_base = one, .y_size = 2000, .x_size = 1,
                      .x_stride = 0));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(bounded, p.w, p.n, NULL), AT_ETIMEOUT);
    assert_non_null(strstr(at_last_error(), "vta program runs past its budget of 1000000 cycles"));
    at_vta_sim_free(bounded);

    /* program-level errors */
    assert_int_equal(at_vta_sim_run(sim, p.w, (size_t)UINT32_MAX, NULL), AT_EDEVICE); /* not read */
    assert_non_null(strstr(at_last_error(), "is too long"));
    assert_int_equal(at_vta_sim_run(sim, p.w, 0, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "without a FINISH"));
    assert_int_equal(at_vta_sim_run(sim, p.w, 1, NULL), AT_EDEVICE); /* the uop load alone */
    assert_non_null(strstr(at_last_error(), "without a FINISH"));
    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_WGT, .push_next = 1));
    emit(&p, FINISH());
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "left 1 l2g token(s) never popped"));
    p.w[0] = 6;
    p.w[1] = 0;
    assert_int_equal(at_vta_sim_run(sim, p.w, p.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "vta insn #0 (words 0x0000000000000000 0x0000000000000006)"));
    assert_non_null(strstr(at_last_error(), "opcode 6"));

    /* ACC_8BIT needs i8/a32 */
    at_vta_hw hw4 = hw16;
    hw4.log_inp_width = 2;
    hw4.log_wgt_width = 2;
    hw4.log_acc_width = 4;
    hw4.log_inp_buff_size = 14;
    hw4.log_wgt_buff_size = 17;
    hw4.log_acc_buff_size = 16;
    assert_ok(at_vta_hw_derive(&hw4));
    at_vta_sim *sim4 = new_sim(&hw4, NULL);
    uint32_t at4 = put(sim4, AT_VTA_MEM_ACC_8BIT, data, 16);
    prog p4 = {.hw = &hw4};
    emit(&p4, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC_8BIT, .dram_base = at4, .y_size = 1, .x_size = 1));
    emit(&p4, FINISH());
    assert_int_equal(at_vta_sim_run(sim4, p4.w, p4.n, NULL), AT_EDEVICE);
    assert_non_null(strstr(at_last_error(), "ACC_8BIT loads need int8 inputs and int32 accumulators"));
    at_vta_sim_free(sim4);
    at_vta_sim_free(sim);
}

/* ---------------------------------------------------------------- cycle model */

static at_vta_timing round_timing(void)
{
    at_vta_timing t;
    at_vta_timing_default(&t);
    t.insn_overhead = 3;
    t.dep_latency = 1;
    t.fetch_latency = 20;
    t.dma_read_latency = 30;
    t.dma_write_latency = 10;
    t.dma_row_overhead = 2;
    t.pad_elem_cycles = 1;
    t.store_elem_cycles = 1;
    t.gemm_ii = 1;
    t.gemm_depth = 7;
    t.alu_ii = 2;
    t.alu_depth = 5;
    t.loop_out_overhead = 4;
    return t;
}

static void cycle_model_should_follow_its_documented_formulas(void **state)
{
    (void)state;
    at_vta_timing t = round_timing();
    at_vta_sim *sim = new_sim(&hw16, &t);
    uint8_t zeros[4096] = {0};
    uint32_t inp_at = put(sim, AT_VTA_MEM_INP, zeros, sizeof zeros);
    prog p = {.hw = &hw16};
    /* GEMM: overhead + iter_out * (loop + iter_in * (depth + uops * II)) = 3 + 3 * (4 + 5 * (7 + 100)) */
    emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 100, .iter_out = 3, .iter_in = 5));
    /* ALU: 3 + 2 * (4 + 1 * (5 + 10 * 2)) */
    emit(&p, INSN(.opcode = AT_VTA_OP_ALU, .uop_bgn = 0, .uop_end = 10, .iter_out = 2, .iter_in = 1,
                  .alu_op = AT_VTA_ALU_MAX, .use_imm = 1));
    emit(&p, FINISH()); /* 3 */
    at_vta_stats st;
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    uint64_t gemm = 3 + 3 * (4 + 5 * (7 + 100)), alu = 3 + 2 * (4 + 1 * (5 + 10 * 2));
    assert_int_equal(st.busy_cycles[AT_VTA_COMPUTE], gemm + alu + 3);
    assert_int_equal(st.gemm_ops, 1500);
    assert_int_equal(st.alu_ops, 20);
    /* fetch: 20 cycles latency, then 2 beats (16 B on the 64-bit port) per instruction */
    assert_int_equal(st.end_cycle[AT_VTA_FETCH], 20 + 3 * 2);
    assert_int_equal(st.bus_beats, 3 * 2);
    /* the GEMM starts when it arrives (cycle 22) */
    assert_int_equal(st.cycles, 22 + gemm + alu + 3);
    assert_int_equal(st.finish_cycle, st.cycles);
    assert_int_equal(st.stall_cycles[AT_VTA_COMPUTE], 0);

    /* a padded 2-D load: 3 + pad rows + latency + per row (x_pad0 + row overhead + beats + x_pad1) */
    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .push_next = 1, .dram_base = inp_at, .y_size = 4,
                  .x_size = 10, .x_stride = 12, .y_pad0 = 1, .y_pad1 = 2, .x_pad0 = 1, .x_pad1 = 1));
    emit(&p, FINISH(.pop_prev = 1));
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    uint64_t load = 3 + 1 * 12 + 30 + 4 * (1 + 2 + 20 + 1) + 2 * 12;
    assert_int_equal(st.busy_cycles[AT_VTA_LOAD], load);
    assert_int_equal(st.bus_wait_cycles[AT_VTA_LOAD], 0);
    /* FINISH waits for the token: arrives at 24, starts at 22 + load + 1 */
    assert_int_equal(st.finish_cycle, 22 + load + 1 + 3);
    assert_int_equal(st.stall_cycles[AT_VTA_COMPUTE], 22 + load + 1 - 24);
    assert_int_equal(st.bus_beats, 2 * 2 + 4 * 20);

    /* the memory port is shared: a concurrent ACC load (compute) waits for INP rows and back */
    uint32_t acc_at = put(sim, AT_VTA_MEM_ACC, zeros, sizeof zeros);
    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .push_next = 1, .dram_base = inp_at, .y_size = 8,
                  .x_size = 16, .x_stride = 16));
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_ACC, .dram_base = acc_at, .y_size = 8, .x_size = 4,
                  .x_stride = 4));
    emit(&p, FINISH(.pop_prev = 1));
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.bus_beats, 3 * 2 + 8 * 32 + 8 * 32);
    assert_true(st.bus_wait_cycles[AT_VTA_LOAD] + st.bus_wait_cycles[AT_VTA_COMPUTE] >= 200);
    uint64_t alone = 3 + 30 + 8 * (2 + 32);
    assert_true(st.busy_cycles[AT_VTA_LOAD] > alone || st.busy_cycles[AT_VTA_COMPUTE] - 3 > alone);

    /* a store: row time = max(beats, elements), write latency at the end */
    uint64_t o;
    assert_ok(at_vta_sim_dram_alloc(sim, 4096, &o));
    /* reads and writes use separate channels: a store alongside a load waits for nobody */
    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .push_next = 1, .dram_base = inp_at, .y_size = 8,
                  .x_size = 16, .x_stride = 16));
    emit(&p, INSN(.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .push_prev = 1, .dram_base = (uint32_t)(o / 16),
                  .y_size = 8, .x_size = 16, .x_stride = 16));
    emit(&p, FINISH(.pop_prev = 1, .pop_next = 1));
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.bus_wait_cycles[AT_VTA_LOAD] + st.bus_wait_cycles[AT_VTA_STORE], 0);
    assert_int_equal(st.busy_cycles[AT_VTA_STORE], 3 + 8 * (2 + 32) + 10);
    assert_int_equal(st.busy_cycles[AT_VTA_LOAD], alone);
    p.n = 0;
    emit(&p, INSN(.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .push_prev = 1, .dram_base = (uint32_t)(o / 16),
                  .y_size = 3, .x_size = 5, .x_stride = 5));
    emit(&p, FINISH(.pop_next = 1));
    assert_ok(at_vta_sim_run(sim, p.w, p.n, &st));
    assert_int_equal(st.busy_cycles[AT_VTA_STORE], 3 + 3 * (2 + 10) + 10);
    at_vta_sim_free(sim);
}

static void fetch_should_stall_when_a_command_queue_is_full(void **state)
{
    (void)state;
    at_vta_timing t = round_timing();
    t.cmd_queue_depth = 4;
    at_vta_stats bounded, unbounded;
    for (int pass = 0; pass < 2; pass++) {
        at_vta_sim *sim = new_sim(&hw16, &t);
        prog p = {.hw = &hw16};
        /* a long GEMM releases the first load; 12 more loads queue up behind it */
        emit(&p, INSN(.opcode = AT_VTA_OP_GEMM, .push_prev = 1, .uop_end = 1000, .iter_out = 1, .iter_in = 1));
        emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .pop_next = 1));
        for (int i = 0; i < 12; i++) emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP));
        emit(&p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_WGT, .push_next = 1));
        emit(&p, FINISH(.pop_prev = 1));
        assert_ok(at_vta_sim_run(sim, p.w, p.n, pass ? &unbounded : &bounded));
        at_vta_sim_free(sim);
        t.cmd_queue_depth = 0;
    }
    assert_true(bounded.stall_cycles[AT_VTA_FETCH] > 900);
    assert_int_equal(unbounded.stall_cycles[AT_VTA_FETCH], 0);
    /* the FINISH itself is fetched late when fetch stalls, but the program ends when the loads do */
    assert_true(bounded.end_cycle[AT_VTA_FETCH] > 1000);
    assert_true(unbounded.end_cycle[AT_VTA_FETCH] < 100);
    assert_int_equal(bounded.insns[AT_VTA_LOAD], 14);
}

/* ---------------------------------------------------------------- determinism, modes, memory */

static size_t build_tiled_gemm(prog *p, at_vta_sim *sim)
{
    /* 4 tiles: load INP/WGT, GEMM, ALU shift, store; double-buffered through the tokens */
    uint8_t buf[8192];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 31 + 7);
    uint32_t inp_at = put(sim, AT_VTA_MEM_INP, buf, 1024), wgt_at = put(sim, AT_VTA_MEM_WGT, buf, 8192);
    uint64_t o;
    assert_ok(at_vta_sim_dram_alloc(sim, 4 * 16 * 16, &o));
    at_vta_uop uops[9];
    for (int k = 0; k < 8; k++) uops[k] = (at_vta_uop){.dst = (uint32_t)k, .src = (uint32_t)k, .wgt = (uint32_t)k % 4};
    uops[8] = (at_vta_uop){.dst = 0, .src = 0};
    uint32_t u_at = put_uops(sim, uops, 9);
    emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_UOP, .dram_base = u_at, .y_size = 1, .x_size = 9,
                 .x_stride = 9));
    emit(p, INSN(.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .push_prev = 1)); /* s2g for tile 0 */
    for (int tile = 0; tile < 4; tile++) {
        emit(p, INSN(.opcode = AT_VTA_OP_GEMM, .pop_next = 1, .push_prev = 1, .reset = 1, .uop_bgn = 0, .uop_end = 8,
                     .iter_out = 1, .iter_in = 2, .dst_factor_in = 8));
        emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .pop_next = 1, .sram_base = 0,
                     .dram_base = inp_at + (uint32_t)tile * 16, .y_size = 1, .x_size = 16, .x_stride = 16));
        emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_WGT, .push_next = 1,
                     .dram_base = wgt_at + (uint32_t)tile * 8, .y_size = 1, .x_size = 8, .x_stride = 8));
        emit(p, INSN(.opcode = AT_VTA_OP_GEMM, .pop_prev = 1, .push_prev = 1, .uop_bgn = 0, .uop_end = 8,
                     .iter_out = 10, .iter_in = 2, .dst_factor_in = 8, .src_factor_in = 8, .wgt_factor_in = 4));
        emit(p, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .pop_next = 1)); /* drain g2l */
        emit(p, INSN(.opcode = AT_VTA_OP_ALU, .push_next = 1, .uop_bgn = 8, .uop_end = 9, .iter_out = 1, .iter_in = 16,
                     .dst_factor_in = 1, .src_factor_in = 1, .alu_op = AT_VTA_ALU_SHR, .use_imm = 1, .imm = 3));
        emit(p, INSN(.opcode = AT_VTA_OP_STORE, .mem = AT_VTA_MEM_OUT, .pop_prev = 1, .push_prev = 1,
                     .dram_base = (uint32_t)(o / 16) + (uint32_t)tile * 16, .y_size = 1, .x_size = 16, .x_stride = 16));
    }
    emit(p, FINISH(.pop_next = 1));
    return (size_t)(o);
}

static void runs_should_be_deterministic_and_skip_exec_should_time_the_same(void **state)
{
    (void)state;
    at_vta_stats a, b, c, d;
    uint8_t out_a[1024], out_c[1024];
    at_vta_sim *s1 = new_sim(&hw16, NULL), *s2 = new_sim(&hw16, NULL);
    prog p1 = {.hw = &hw16}, p2 = {.hw = &hw16};
    size_t o1 = build_tiled_gemm(&p1, s1), o2 = build_tiled_gemm(&p2, s2);
    assert_int_equal(p1.n, p2.n);
    assert_ok(at_vta_sim_run(s1, p1.w, p1.n, &a));
    assert_ok(at_vta_sim_dram_read(s1, o1, out_a, sizeof out_a));
    assert_ok(at_vta_sim_run(s1, p1.w, p1.n, &b)); /* again on the same simulator */
    assert_ok(at_vta_sim_run(s2, p2.w, p2.n, &c)); /* and on a fresh one */
    assert_ok(at_vta_sim_dram_read(s2, o2, out_c, sizeof out_c));
    assert_memory_equal(&a, &b, sizeof a);
    assert_memory_equal(&a, &c, sizeof a);
    assert_memory_equal(out_a, out_c, sizeof out_a);
    assert_int_equal(a.gemm_ops, 4 * 160);
    assert_int_equal(a.tokens[AT_VTA_G2S], 4);
    assert_true(a.cycles > 4 * 160);
    size_t nonzero = 0;
    for (size_t i = 0; i < sizeof out_a; i++) nonzero += out_a[i] != 0;
    assert_true(nonzero > 500);

    at_vta_sim *s3;
    at_vta_sim_opts skip = {.skip_exec = true};
    assert_ok(at_vta_sim_new(&hw16, &skip, &s3));
    prog p3 = {.hw = &hw16};
    size_t o3 = build_tiled_gemm(&p3, s3);
    assert_ok(at_vta_sim_run(s3, p3.w, p3.n, &d));
    assert_memory_equal(&a, &d, sizeof a); /* same counters and cycles */
    uint8_t out_d[1024];
    assert_ok(at_vta_sim_dram_read(s3, o3, out_d, sizeof out_d));
    for (size_t i = 0; i < sizeof out_d; i++) assert_int_equal(out_d[i], 0); /* nothing stored */
    uint8_t u[4];
    assert_ok(at_vta_sim_sram_read(s3, AT_VTA_MEM_UOP, 1, 1, u)); /* but uops were loaded */
    at_vta_uop dec;
    uint32_t word = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
    at_vta_uop_decode(&hw16, word, &dec);
    assert_int_equal(dec.dst, 1);
    assert_int_equal(dec.wgt, 1);
    at_vta_sim_free(s1);
    at_vta_sim_free(s2);
    at_vta_sim_free(s3);
}

static void dram_api_should_allocate_aligned_and_check_ranges(void **state)
{
    (void)state;
    at_vta_sim *sim = new_sim(&hw16, NULL);
    uint64_t a, b;
    assert_ok(at_vta_sim_dram_alloc(sim, 10, &a));
    assert_ok(at_vta_sim_dram_alloc(sim, 5000, &b));
    assert_int_equal(a, AT_VTA_DRAM_BASE);
    assert_int_equal(b, AT_VTA_DRAM_BASE + AT_VTA_DRAM_ALIGN);
    assert_int_equal(at_vta_sim_dram_alloc(sim, 0, &a), AT_EINVAL);
    uint8_t x[16] = {1, 2, 3};
    assert_ok(at_vta_sim_dram_write(sim, b + 8000, x, 16));
    assert_int_equal(at_vta_sim_dram_write(sim, b + 8180, x, 16), AT_EINVAL);
    assert_int_equal(at_vta_sim_dram_read(sim, 100, x, 1), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "outside allocated DRAM"));
    assert_non_null(at_vta_sim_dram_ptr(sim, b, 8192));
    assert_null(at_vta_sim_dram_ptr(sim, b, 8193));
    assert_int_equal(at_vta_sim_dram_ptr(sim, b + 8000, 1)[0], 1);
    at_vta_sim_dram_reset(sim);
    assert_null(at_vta_sim_dram_ptr(sim, b, 1));
    assert_ok(at_vta_sim_dram_alloc(sim, 1, &a));
    assert_int_equal(a, AT_VTA_DRAM_BASE);
    assert_int_equal(at_vta_sim_dram_ptr(sim, a, 1)[0], 0); /* zeroed again */
    uint64_t big;
    assert_int_equal(at_vta_sim_dram_alloc(sim, (size_t)1 << 32, &big), AT_ENOMEM);
    assert_non_null(strstr(at_last_error(), "exceed the 4 GiB"));
    at_vta_sim *fresh = new_sim(&hw16, NULL);
    at_alloc_fail_after(0); /* the host allocation behind the first DRAM block */
    assert_int_equal(at_vta_sim_dram_alloc(fresh, 100, &big), AT_ENOMEM);
    at_alloc_fail_after(-1);
    assert_non_null(strstr(at_last_error(), "out of memory growing"));
    assert_ok(at_vta_sim_dram_alloc(fresh, 100, &big));
    at_vta_sim_free(fresh);
    assert_int_equal(at_vta_sim_sram_read(sim, AT_VTA_MEM_WGT, 1020, 5, x), AT_EINVAL);
    assert_int_equal(at_vta_sim_sram_read(sim, (at_vta_mem)9, 0, 1, x), AT_EINVAL);
    assert_string_equal(at_vta_module_name(AT_VTA_COMPUTE), "compute");
    assert_string_equal(at_vta_dep_queue_name(AT_VTA_S2G), "s2g");
    at_vta_sim_free(sim);
    at_vta_sim_free(NULL);
}

static void creation_and_runs_should_fail_cleanly_at_every_allocation(void **state)
{
    (void)state;
    long base = at_alloc_live();
    long n = 0;
    for (;; n++) {
        at_vta_sim *sim = NULL;
        at_alloc_fail_after(n);
        at_status s = at_vta_sim_new(&hw16, NULL, &sim);
        at_alloc_fail_after(-1);
        if (s == AT_OK) {
            at_vta_sim_free(sim);
            break;
        }
        assert_int_equal(s, AT_ENOMEM);
        assert_null(sim);
        assert_int_equal(at_alloc_live(), base);
    }
    assert_int_equal(n, 6); /* the object, four SRAMs, the uop scratch */

    at_vta_sim *sim = new_sim(&hw16, NULL);
    prog p = {.hw = &hw16};
    build_tiled_gemm(&p, sim);
    long with_sim = at_alloc_live();
    long fails = 0;
    for (n = 0;; n++) {
        at_vta_stats st = {.cycles = 12345};
        at_alloc_fail_after(n);
        at_status s = at_vta_sim_run(sim, p.w, p.n, &st);
        at_alloc_fail_after(-1);
        assert_int_equal(at_alloc_live(), with_sim);
        if (s == AT_OK) break;
        assert_int_equal(s, AT_ENOMEM);
        assert_int_equal(st.cycles, 12345); /* untouched on failure */
        fails++;
    }
    assert_true(fails >= 9);

    /* failing programs too: a deadlock (its report allocates) and an out-of-range micro-op */
    for (int which = 0; which < 2; which++) {
        prog bad = {.hw = &hw16};
        if (which == 0) {
            emit(&bad, INSN(.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .pop_next = 1, .push_next = 1));
            emit(&bad, INSN(.opcode = AT_VTA_OP_GEMM, .pop_prev = 1, .push_prev = 1, .iter_out = 1, .iter_in = 1));
        } else {
            emit(&bad, INSN(.opcode = AT_VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 1, .iter_out = 3000, .iter_in = 1,
                            .dst_factor_out = 1));
        }
        emit(&bad, FINISH());
        long device_errors = 0;
        for (n = 0;; n++) {
            at_alloc_fail_after(n);
            at_status s = at_vta_sim_run(sim, bad.w, bad.n, NULL);
            at_alloc_fail_after(-1);
            assert_int_equal(at_alloc_live(), with_sim);
            assert_true(s == AT_ENOMEM || s == AT_EDEVICE);
            if (s == AT_EDEVICE) {
                assert_non_null(strstr(at_last_error(), which == 0 ? "deadlock" : "reaches ACC index 2999"));
                device_errors++;
            }
            if (n > 40) break;
        }
        assert_true(device_errors > 20); /* including runs whose report itself ran out of memory */
    }
    at_vta_sim_free(sim);
    assert_int_equal(at_alloc_live(), base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_with_reset_and_accumulate_should_match_a_naive_int8_matmul),
        cmocka_unit_test(gemm_should_match_the_reference_on_1x32_and_a_4_bit_config),
        cmocka_unit_test(alu_ops_should_compute_fsim_results_with_and_without_immediates),
        cmocka_unit_test(alu_loops_should_apply_both_affine_index_factors),
        cmocka_unit_test(loads_should_zero_pad_around_the_copied_rows),
        cmocka_unit_test(stores_should_narrow_accumulators_to_the_output_width),
        cmocka_unit_test(a_store_should_wait_for_the_compute_that_pushes_its_token),
        cmocka_unit_test(deadlocked_programs_should_fail_naming_the_stuck_modules),
        cmocka_unit_test(bad_programs_should_be_device_errors_naming_the_instruction),
        cmocka_unit_test(cycle_model_should_follow_its_documented_formulas),
        cmocka_unit_test(fetch_should_stall_when_a_command_queue_is_full),
        cmocka_unit_test(runs_should_be_deterministic_and_skip_exec_should_time_the_same),
        cmocka_unit_test(dram_api_should_allocate_aligned_and_check_ranges),
        cmocka_unit_test(creation_and_runs_should_fail_cleanly_at_every_allocation),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
