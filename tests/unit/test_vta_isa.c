/* vta/isa: golden instruction and micro-op words (hand-derived, in tests/golden/vta) for every
 * instruction kind on two configurations, encode -> decode properties, width errors. */
#include "tests/support/test_support.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "vta/isa.h"

static at_vta_hw hw16, hw32;

static int setup(void **state)
{
    (void)state;
    at_vta_hw_default(&hw16);
    hw32 = hw16;
    hw32.log_block = 5;
    assert_ok(at_vta_hw_derive(&hw32));
    return 0;
}

/* The field values behind every golden word (the .hex files show the derivations). */
typedef struct golden_insn {
    const char *name;
    const at_vta_hw *hw;
    at_vta_insn insn;
} golden_insn;

static const golden_insn golden_insns[] = {
    {"load_inp",
     &hw16,
     {.opcode = AT_VTA_OP_LOAD,
      .pop_next = 1,
      .push_next = 1,
      .mem = AT_VTA_MEM_INP,
      .sram_base = 0x123,
      .dram_base = 0x89ABCDEF,
      .y_size = 0x38,
      .x_size = 0xA,
      .x_stride = 0x38,
      .y_pad0 = 1,
      .y_pad1 = 2,
      .x_pad0 = 3,
      .x_pad1 = 4}},
    {"load_uop",
     &hw16,
     {.opcode = AT_VTA_OP_LOAD,
      .mem = AT_VTA_MEM_UOP,
      .sram_base = 0x10,
      .dram_base = 0x100,
      .y_size = 1,
      .x_size = 0x150,
      .x_stride = 0x150}},
    {"load_acc8",
     &hw16,
     {.opcode = AT_VTA_OP_LOAD,
      .pop_next = 1,
      .push_prev = 1,
      .mem = AT_VTA_MEM_ACC_8BIT,
      .sram_base = 0x7FF,
      .dram_base = 0xFFFFFFFF,
      .y_size = 0xFFFF,
      .x_size = 1,
      .x_stride = 0x8000,
      .y_pad0 = 15,
      .x_pad1 = 15}},
    {"store",
     &hw16,
     {.opcode = AT_VTA_OP_STORE,
      .pop_prev = 1,
      .push_prev = 1,
      .mem = AT_VTA_MEM_OUT,
      .sram_base = 0xFFFF,
      .dram_base = 0xFFFFFFFF,
      .y_size = 0x38,
      .x_size = 8,
      .x_stride = 0x38}},
    {"gemm",
     &hw16,
     {.opcode = AT_VTA_OP_GEMM,
      .pop_prev = 1,
      .push_prev = 1,
      .reset = 1,
      .uop_bgn = 0x155,
      .uop_end = 0x2000,
      .iter_out = 0x123,
      .iter_in = 0x456,
      .dst_factor_out = 0x7FF,
      .dst_factor_in = 1,
      .src_factor_out = 0x400,
      .src_factor_in = 0x3FF,
      .wgt_factor_out = 0x3FF,
      .wgt_factor_in = 0x200}},
    {"alu_max_imm",
     &hw16,
     {.opcode = AT_VTA_OP_ALU,
      .pop_next = 1,
      .push_next = 1,
      .uop_bgn = 1,
      .uop_end = 2,
      .iter_out = 1,
      .iter_in = 0x380,
      .dst_factor_in = 1,
      .src_factor_in = 1,
      .alu_op = AT_VTA_ALU_MAX,
      .use_imm = 1,
      .imm = -127}},
    {"alu_add",
     &hw16,
     {.opcode = AT_VTA_OP_ALU,
      .pop_prev = 1,
      .uop_bgn = 0x1FFF,
      .uop_end = 0x2000,
      .iter_out = 0x3FFF,
      .iter_in = 0x2AAA,
      .dst_factor_out = 0x555,
      .dst_factor_in = 0x2AA,
      .src_factor_out = 0x7FF,
      .src_factor_in = 1,
      .alu_op = AT_VTA_ALU_ADD}},
    {"alu_shl",
     &hw16,
     {.opcode = AT_VTA_OP_ALU,
      .uop_end = 1,
      .iter_out = 1,
      .iter_in = 1,
      .alu_op = AT_VTA_ALU_SHR,
      .use_imm = 1,
      .imm = -3}},
    {"finish", &hw16, {.opcode = AT_VTA_OP_FINISH}},
    {"gemm_1x32",
     &hw32,
     {.opcode = AT_VTA_OP_GEMM,
      .pop_prev = 1,
      .push_prev = 1,
      .reset = 1,
      .uop_bgn = 0x155,
      .uop_end = 0x2000,
      .iter_out = 0x123,
      .iter_in = 0x456,
      .dst_factor_out = 0x3FF,
      .dst_factor_in = 1,
      .src_factor_out = 0x200,
      .src_factor_in = 0x3FF,
      .wgt_factor_out = 0xFF,
      .wgt_factor_in = 0x80}},
    {"alu_1x32",
     &hw32,
     {.opcode = AT_VTA_OP_ALU,
      .uop_end = 1,
      .iter_out = 1,
      .iter_in = 1,
      .dst_factor_out = 0x3FF,
      .src_factor_in = 0x3FF,
      .alu_op = AT_VTA_ALU_ADD,
      .use_imm = 1,
      .imm = 0x7FFF}},
};

static const struct {
    const char *name;
    const at_vta_hw *hw;
    at_vta_uop uop;
} golden_uops[] = {
    {"uop_max", &hw16, {0x7FF, 0x001, 0x3FF}},
    {"uop_mix", &hw16, {0x123, 0x456, 0x155}},
    {"uop_1x32", &hw32, {0x3FF, 0x001, 0xFF}},
};

enum { N_GOLDEN_INSNS = sizeof golden_insns / sizeof golden_insns[0], N_GOLDEN_UOPS = 3 };

/* Reads one golden file; checks every line against the tables. Returns lines checked. */
static size_t check_golden_file(const char *rel, int *seen_insn, int *seen_uop)
{
    char *text = at_test_read_file(at_test_source_path(rel), NULL);
    assert_non_null(text);
    size_t checked = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') continue;
        char kind[8], name[64];
        unsigned long long a = 0, b = 0;
        int got = sscanf(line, "%7s %63s %llx %llx", kind, name, &a, &b);
        if (!strcmp(kind, "insn")) {
            assert_int_equal(got, 4);
            size_t k = 0;
            while (k < N_GOLDEN_INSNS && strcmp(golden_insns[k].name, name)) k++;
            if (k == N_GOLDEN_INSNS) fail_msg("%s: no field table for golden insn '%s'", rel, name);
            const golden_insn *g = &golden_insns[k];
            uint64_t w[2];
            assert_ok(at_vta_insn_encode(g->hw, &g->insn, w));
            if (w[1] != a || w[0] != b)
                fail_msg("%s: encode(%s) = %016" PRIx64 " %016" PRIx64 ", golden %016llx %016llx", rel, name, w[1],
                         w[0], a, b);
            uint64_t gw[2] = {b, a};
            at_vta_insn d;
            assert_ok(at_vta_insn_decode(g->hw, gw, &d));
            if (!at_vta_insn_equal(&d, &g->insn)) fail_msg("%s: decode(%s) differs from its fields", rel, name);
            seen_insn[k]++;
        } else if (!strcmp(kind, "uop")) {
            assert_int_equal(got, 3);
            size_t k = 0;
            while (k < N_GOLDEN_UOPS && strcmp(golden_uops[k].name, name)) k++;
            if (k == N_GOLDEN_UOPS) fail_msg("%s: no field table for golden uop '%s'", rel, name);
            uint32_t w;
            assert_ok(at_vta_uop_encode(golden_uops[k].hw, &golden_uops[k].uop, &w));
            assert_int_equal(w, a);
            at_vta_uop u;
            at_vta_uop_decode(golden_uops[k].hw, (uint32_t)a, &u);
            assert_int_equal(u.dst, golden_uops[k].uop.dst);
            assert_int_equal(u.src, golden_uops[k].uop.src);
            assert_int_equal(u.wgt, golden_uops[k].uop.wgt);
            seen_uop[k]++;
        } else {
            fail_msg("%s: bad line '%s'", rel, line);
        }
        checked++;
    }
    at_free(text);
    return checked;
}

static void golden_words_should_match_hand_derived_layouts_for_every_insn_kind(void **state)
{
    (void)state;
    int seen_insn[N_GOLDEN_INSNS] = {0}, seen_uop[N_GOLDEN_UOPS] = {0};
    size_t n = check_golden_file("tests/golden/vta/insn_1x16_i8w8a32_15_15_18_17.hex", seen_insn, seen_uop);
    assert_int_equal(n, 11);
    n = check_golden_file("tests/golden/vta/insn_1x32_i8w8a32_15_15_18_17.hex", seen_insn, seen_uop);
    assert_int_equal(n, 3);
    for (size_t k = 0; k < N_GOLDEN_INSNS; k++) assert_int_equal(seen_insn[k], 1);
    for (size_t k = 0; k < N_GOLDEN_UOPS; k++) assert_int_equal(seen_uop[k], 1);
    /* every opcode and every memory type of LOAD/STORE is pinned */
    int ops[AT_VTA_OP_COUNT] = {0};
    for (size_t k = 0; k < N_GOLDEN_INSNS; k++) ops[golden_insns[k].insn.opcode]++;
    for (int o = 0; o < AT_VTA_OP_COUNT; o++) assert_true(ops[o] > 0);
}

static void layout_should_follow_the_spec_bit_positions(void **state)
{
    (void)state;
    const at_vta_layout *l = &hw16.layout;
    assert_int_equal(l->dram_base.shift, 26);
    assert_int_equal(l->y_size.shift, 64);
    assert_int_equal(l->x_pad1.shift, 124);
    assert_int_equal(l->uop_end.shift, 21);
    assert_int_equal(l->uop_end.width, 14);
    assert_int_equal(l->iter_in.shift, 49);
    assert_int_equal(l->dst_factor_out.shift, 64);
    assert_int_equal(l->wgt_factor_in.shift, 118);
    assert_int_equal(l->alu_opcode.shift, 108);
    assert_int_equal(l->imm.shift, 112);
    assert_int_equal(l->uop_wgt.shift, 22);
    assert_int_equal(l->gemm_bits, 128);
    assert_int_equal(l->uop_bits, 32);
    assert_int_equal(hw32.layout.wgt_factor_in.shift, 112);
    assert_int_equal(hw32.layout.imm.shift, 108);
    assert_int_equal(hw32.layout.uop_bits, 28);
}

static uint32_t rnd_bits(at_rng *r, int width)
{
    return (uint32_t)(at_rng_next_u64(r) & ((1ull << width) - 1));
}

static at_vta_insn random_insn(at_rng *r, const at_vta_hw *hw)
{
    const at_vta_layout *l = &hw->layout;
    at_vta_insn in;
    memset(&in, 0, sizeof in);
    in.opcode = (at_vta_opcode)at_rng_below(r, AT_VTA_OP_COUNT);
    in.pop_prev = at_rng_below(r, 2);
    in.pop_next = at_rng_below(r, 2);
    in.push_prev = at_rng_below(r, 2);
    in.push_next = at_rng_below(r, 2);
    switch (in.opcode) {
    case AT_VTA_OP_LOAD:
    case AT_VTA_OP_STORE:
        in.mem = (at_vta_mem)at_rng_below(r, AT_VTA_MEM_COUNT);
        in.sram_base = rnd_bits(r, l->sram_base.width);
        in.dram_base = rnd_bits(r, l->dram_base.width);
        in.y_size = rnd_bits(r, 16);
        in.x_size = rnd_bits(r, 16);
        in.x_stride = rnd_bits(r, 16);
        in.y_pad0 = rnd_bits(r, 4);
        in.y_pad1 = rnd_bits(r, 4);
        in.x_pad0 = rnd_bits(r, 4);
        in.x_pad1 = rnd_bits(r, 4);
        break;
    case AT_VTA_OP_GEMM:
    case AT_VTA_OP_ALU:
        in.reset = at_rng_below(r, 2);
        in.uop_bgn = rnd_bits(r, l->uop_bgn.width);
        in.uop_end = rnd_bits(r, l->uop_end.width);
        in.iter_out = rnd_bits(r, 14);
        in.iter_in = rnd_bits(r, 14);
        in.dst_factor_out = rnd_bits(r, l->dst_factor_out.width);
        in.dst_factor_in = rnd_bits(r, l->dst_factor_in.width);
        if (in.opcode == AT_VTA_OP_GEMM) {
            in.src_factor_out = rnd_bits(r, l->gemm_src_factor_out.width);
            in.src_factor_in = rnd_bits(r, l->gemm_src_factor_in.width);
            in.wgt_factor_out = rnd_bits(r, l->wgt_factor_out.width);
            in.wgt_factor_in = rnd_bits(r, l->wgt_factor_in.width);
        } else {
            in.src_factor_out = rnd_bits(r, l->alu_src_factor_out.width);
            in.src_factor_in = rnd_bits(r, l->alu_src_factor_in.width);
            in.alu_op = (at_vta_alu_op)at_rng_below(r, AT_VTA_ALU_COUNT);
            in.use_imm = at_rng_below(r, 2);
            in.imm = (int32_t)at_rng_below(r, 65536) - 32768;
        }
        break;
    case AT_VTA_OP_FINISH:
    case AT_VTA_OP_COUNT: break;
    }
    return in;
}

static void encode_then_decode_should_give_back_every_field(void **state)
{
    (void)state;
    const at_vta_hw *cfgs[2] = {&hw16, &hw32};
    at_rng r;
    at_rng_seed(&r, 7);
    int per_op[AT_VTA_OP_COUNT] = {0};
    for (int c = 0; c < 2; c++) {
        for (int i = 0; i < 5000; i++) {
            at_vta_insn in = random_insn(&r, cfgs[c]), out;
            uint64_t w[2], w2[2];
            assert_ok(at_vta_insn_encode(cfgs[c], &in, w));
            assert_ok(at_vta_insn_decode(cfgs[c], w, &out));
            assert_true(at_vta_insn_equal(&in, &out));
            assert_ok(at_vta_insn_encode(cfgs[c], &out, w2));
            assert_true(w2[0] == w[0] && w2[1] == w[1]);
            per_op[in.opcode]++;
        }
        for (int i = 0; i < 5000; i++) {
            at_vta_uop u = {rnd_bits(&r, cfgs[c]->layout.uop_dst.width), rnd_bits(&r, cfgs[c]->layout.uop_src.width),
                            rnd_bits(&r, cfgs[c]->layout.uop_wgt.width)},
                       v;
            uint32_t w;
            assert_ok(at_vta_uop_encode(cfgs[c], &u, &w));
            at_vta_uop_decode(cfgs[c], w, &v);
            assert_true(u.dst == v.dst && u.src == v.src && u.wgt == v.wgt);
        }
    }
    for (int o = 0; o < AT_VTA_OP_COUNT; o++) assert_true(per_op[o] > 1500);
}

static void decode_then_encode_should_keep_every_used_bit_of_random_words(void **state)
{
    (void)state;
    at_rng r;
    at_rng_seed(&r, 11);
    int decoded = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t w[2] = {at_rng_next_u64(&r), at_rng_next_u64(&r)}, w2[2];
        at_vta_insn in;
        if (at_vta_insn_decode(&hw16, w, &in) != AT_OK) {
            assert_true((w[0] & 7) > 4);
            continue;
        }
        decoded++;
        if (in.opcode == AT_VTA_OP_ALU && (unsigned)in.alu_op >= AT_VTA_ALU_COUNT) continue;
        if ((in.opcode == AT_VTA_OP_LOAD || in.opcode == AT_VTA_OP_STORE) && (unsigned)in.mem >= AT_VTA_MEM_COUNT)
            continue;
        assert_ok(at_vta_insn_encode(&hw16, &in, w2));
        /* the bits an opcode uses: header 0..6 always; unused positions come back zero */
        uint64_t m0 = 0x7f, m1 = 0;
        switch (in.opcode) {
        case AT_VTA_OP_LOAD:
        case AT_VTA_OP_STORE: m0 = (1ull << 58) - 1, m1 = ~0ull; break;
        case AT_VTA_OP_GEMM:
        case AT_VTA_OP_ALU: m0 = (1ull << 63) - 1, m1 = ~0ull; break;
        case AT_VTA_OP_FINISH:
        case AT_VTA_OP_COUNT: break;
        }
        assert_true(w2[0] == (w[0] & m0));
        assert_true(w2[1] == (w[1] & m1));
    }
    assert_true(decoded > 10000);
}

static void encode_should_reject_values_wider_than_their_fields(void **state)
{
    (void)state;
    uint64_t w[2] = {0xdead, 0xbeef};
    at_vta_insn in = {.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .sram_base = 65536};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "sram_base"));
    assert_true(w[0] == 0xdead && w[1] == 0xbeef);
    in = (at_vta_insn){.opcode = AT_VTA_OP_LOAD, .mem = AT_VTA_MEM_INP, .y_pad1 = 16};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "y_pad_1"));
    in = (at_vta_insn){.opcode = AT_VTA_OP_GEMM, .uop_end = 0x4000};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "uop_end"));
    in = (at_vta_insn){.opcode = AT_VTA_OP_GEMM, .dst_factor_out = 0x400};
    assert_ok(at_vta_insn_encode(&hw16, &in, w));                   /* 11 bits on 1x16 ... */
    assert_int_equal(at_vta_insn_encode(&hw32, &in, w), AT_EINVAL); /* ... 10 bits on 1x32 */
    assert_non_null(strstr(at_last_error(), "dst_factor_out"));
    in = (at_vta_insn){.opcode = AT_VTA_OP_GEMM, .wgt_factor_in = 0x400};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "wgt_factor_in"));
    in = (at_vta_insn){.opcode = AT_VTA_OP_ALU, .imm = 32768};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "imm"));
    in = (at_vta_insn){.opcode = AT_VTA_OP_ALU, .imm = -32769};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    in = (at_vta_insn){.opcode = AT_VTA_OP_ALU, .alu_op = (at_vta_alu_op)5};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "ALU opcode"));
    in = (at_vta_insn){.opcode = AT_VTA_OP_STORE, .mem = (at_vta_mem)6};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "memory type"));
    in = (at_vta_insn){.opcode = (at_vta_opcode)7};
    assert_int_equal(at_vta_insn_encode(&hw16, &in, w), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "opcode"));
    assert_true(w[0] != 0xdead || w[1] != 0xbeef); /* the one success above did write */

    uint32_t u = 0x1234;
    at_vta_uop big = {.dst = 2048};
    assert_int_equal(at_vta_uop_encode(&hw16, &big, &u), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "dst_idx"));
    big = (at_vta_uop){.wgt = 256};
    assert_int_equal(at_vta_uop_encode(&hw32, &big, &u), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "wgt_idx"));
    assert_int_equal(u, 0x1234);
}

static void decode_should_reject_unknown_opcodes(void **state)
{
    (void)state;
    for (uint64_t op = 5; op < 8; op++) {
        uint64_t w[2] = {op | 0xff00, 1};
        at_vta_insn in = {.opcode = AT_VTA_OP_FINISH, .x_size = 99};
        assert_int_equal(at_vta_insn_decode(&hw16, w, &in), AT_EINVAL);
        assert_int_equal(in.x_size, 99);
    }
}

static void describe_should_read_like_the_runtime_dump(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_vta_insn_describe(&golden_insns[0].insn, &sb);
    assert_string_equal(at_strbuf_cstr(&sb),
                        "LOAD INP dep(pop_next,push_next) sram 0x123 dram 0x89abcdef y 56 [1,2] x 10 stride 56 [3,4]");
    at_strbuf_clear(&sb);
    at_vta_insn_describe(&golden_insns[5].insn, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "ALU MAXI dep(pop_next,push_next) uop [1,2) out 1 (acc 0, src 0, wgt 0) "
                                             "in 896 (acc 1, src 1, wgt 0) imm -127");
    at_strbuf_clear(&sb);
    at_vta_insn nop = {.opcode = AT_VTA_OP_STORE, .push_prev = 1};
    at_vta_insn_describe(&nop, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "STORE NOP dep(push_prev)");
    at_strbuf_fini(&sb);
    assert_string_equal(at_vta_opcode_name((at_vta_opcode)9), "?");
    assert_string_equal(at_vta_alu_op_name(AT_VTA_ALU_MUL), "MUL");
    assert_string_equal(at_vta_mem_name(AT_VTA_MEM_ACC_8BIT), "ACC_8BIT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_words_should_match_hand_derived_layouts_for_every_insn_kind),
        cmocka_unit_test(layout_should_follow_the_spec_bit_positions),
        cmocka_unit_test(encode_then_decode_should_give_back_every_field),
        cmocka_unit_test(decode_then_encode_should_keep_every_used_bit_of_random_words),
        cmocka_unit_test(encode_should_reject_values_wider_than_their_fields),
        cmocka_unit_test(decode_should_reject_unknown_opcodes),
        cmocka_unit_test(describe_should_read_like_the_runtime_dump),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
