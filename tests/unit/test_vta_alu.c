/* add.vta / multiply.vta: TVM's space (192 configs for (1,4,56,56,1,16), knob order, one config
 * when schedule_alu_packed leaves the op on the CPU), the workload as TVM writes it (including the
 * tutorial's rhs = [] alias record), FLOPs, the template IR against the reference, the lowered
 * program on the simulator bit-exact against the reference for both ops, int8 and int32, golden
 * instruction words of a tiny add, instantiation errors (accumulator overflow, 3-D DMA), and cycles
 * that grow with the tensor. */
#include "tests/support/test_support.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "measure/vta_runner.h"
#include "templates/template.h"

static at_task *task_of(const char *name, const char *args)
{
    at_task *t = NULL;
    assert_ok(at_task_create(name, AT_TARGET_VTA, args, &t));
    return t;
}

static at_meas_err run(const at_task *t, const at_config *c, uint64_t seed, uint64_t *cycles)
{
    at_result r;
    at_result_init(&r);
    at_vta_stats s = {0};
    assert_ok(at_meas_vta_measure_one(NULL, t, c, true, seed, &r, &s));
    at_meas_err e = r.err;
    if (e == AT_MEAS_OK && cycles) *cycles = s.cycles;
    if (e == AT_MEAS_WRONG_ANSWER || e == AT_MEAS_RUNTIME_DEVICE) print_message("err %d: %s\n", e, r.msg ? r.msg : "");
    at_result_fini(&r);
    return e;
}

/* The config with the given inner split sizes. */
static at_config *config_with(const at_task *t, int64_t tco, int64_t th, int64_t tw)
{
    int64_t n = at_space_len(at_task_space(t));
    for (int64_t i = 0; i < n; i++) {
        at_config *c = NULL;
        assert_ok(at_task_config(t, i, &c));
        int64_t co[2], h[2], w[2];
        at_config_split(c, 0, co, 2);
        at_config_split(c, 1, h, 2);
        at_config_split(c, 2, w, 2);
        if (co[1] == tco && h[1] == th && w[1] == tw) return c;
        at_config_free(c);
    }
    fail_msg("no config %lld %lld %lld", (long long)tco, (long long)th, (long long)tw);
    return NULL;
}

static void spaces_should_be_tvms(void **state)
{
    (void)state;
    const char *names[2] = {"add.vta", "multiply.vta"};
    for (int k = 0; k < 2; k++) {
        at_task *t = task_of(names[k], "1,64,56,56");
        const at_space *s = at_task_space(t);
        assert_int_equal(at_space_len(s), 3 * 8 * 8); /* tau(4) tau(56) tau(56) */
        assert_int_equal(at_space_n_knobs(s), 3);
        assert_string_equal(at_space_knob_name(s, 0), "tile_co");
        assert_string_equal(at_space_knob_name(s, 1), "tile_h");
        assert_string_equal(at_space_knob_name(s, 2), "tile_w");
        assert_true(at_task_flop(t) == 3.0 * 64 * 56 * 56); /* op + clipA + clipB per element */
        at_task_free(t);
        /* float32 inputs or an unpacked (4-D) output: TVM's schedule defines no knob */
        t = task_of(names[k], "[[\"TENSOR\", [1, 4, 56, 56, 1, 16], \"float32\"], [\"TENSOR\", [1, 4, 56, 56, 1, 16], "
                              "\"float32\"]]");
        assert_int_equal(at_space_len(at_task_space(t)), 1);
        assert_int_equal(at_space_n_knobs(at_task_space(t)), 0);
        at_config *c = NULL;
        assert_ok(at_task_config(t, 0, &c));
        assert_int_equal(run(t, c, 1, NULL), AT_MEAS_INSTANTIATION_ERROR); /* nothing runs on VTA */
        at_config_free(c);
        at_task_free(t);
        /* such a task's program is the CPU's: the unscheduled compute, float clip and truncation */
        t = task_of(names[k], "[[\"TENSOR\", [2, 3, 5, 16], \"float32\"], [\"TENSOR\", [3, 1, 16], \"float32\"]]");
        assert_ok(at_task_config(t, 0, &c));
        at_arena *arena = NULL;
        assert_ok(at_arena_new(0, &arena));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, c, arena, &p));
        float x[480], y[48];
        int8_t got[480], want[480];
        for (int i = 0; i < 480; i++) x[i] = (float)(i % 37) * 1.75f - 20.0f;
        for (int i = 0; i < 48; i++) y[i] = (float)(i % 11) * 2.5f - 3.0f;
        void *bufs[3] = {x, y, got};
        assert_ok(at_ir_interp(p, bufs));
        const void *ins[2] = {x, y};
        void *outs[1] = {want};
        at_op_reference(at_task_args(t), ins, outs);
        assert_memory_equal(got, want, sizeof got);
        int mid = 0;
        for (int i = 0; i < 480; i++) mid += want[i] > 0 && want[i] < 127;
        assert_true(mid > 0);
        at_arena_free(arena);
        at_config_free(c);
        at_task_free(t);
        t = task_of(names[k], "[[\"TENSOR\", [1, 64, 56, 56], \"int32\"], [\"TENSOR\", [1, 64, 56, 56], \"int32\"]]");
        assert_int_equal(at_space_len(at_task_space(t)), 1);
        at_task_free(t);
    }
    at_task *t = task_of("add.vta", "1,16,7,7,int8");
    assert_int_equal(at_space_len(at_task_space(t)), 1 * 2 * 2);
    at_task_free(t);
    /* packed for a 4x8 configuration: a task, but not for the default 1x16 simulator */
    t = task_of("add.vta", "[[\"TENSOR\", [1, 2, 4, 4, 4, 8], \"int32\"], [\"TENSOR\", [1, 2, 4, 4, 4, 8], \"int32\"]]");
    assert_int_equal(at_space_len(at_task_space(t)), 2 * 3 * 3);
    at_config *c = NULL;
    assert_ok(at_task_config(t, 0, &c));
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    at_vtagen_alu plan;
    assert_int_equal(at_meas_vta_alu_plan(&hw, t, c, &plan), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "does not match"));
    assert_int_equal(run(t, c, 1, NULL), AT_MEAS_INSTANTIATION_ERROR);
    at_config_free(c);
    at_task_free(t);
}

static void workloads_should_round_trip_as_tvm_writes_them(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"[[\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int32\"], [\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int32\"]]",
         "[\"add.vta\", [\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int32\"], [\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int32\"]]"},
        /* the tutorial's extra record for a 0-D rhs: rhs = (lhs name, (), lhs dtype) */
        {"[[\"TENSOR\", [1, 8, 28, 28, 1, 16], \"int8\"], [\"TENSOR\", [], \"int8\"]]",
         "[\"add.vta\", [\"TENSOR\", [1, 8, 28, 28, 1, 16], \"int8\"], [\"TENSOR\", [], \"int8\"]]"},
        /* graph_pack's packed bias (C/16, 1, 1, 1, 16), broadcast */
        {"[[\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int32\"], [\"TENSOR\", [4, 1, 1, 1, 16], \"int32\"]]",
         "[\"add.vta\", [\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int32\"], [\"TENSOR\", [4, 1, 1, 1, 16], \"int32\"]]"},
    };
    for (size_t i = 0; i < 3; i++) {
        at_task *t = task_of("add.vta", cases[i][0]);
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_task_write_workload(t, &sb);
        assert_string_equal(at_strbuf_cstr(&sb), cases[i][1]);
        at_strbuf_fini(&sb);
        at_task_free(t);
    }
    /* the alias task is the rhs = lhs task: same space, same signature */
    at_task *a = task_of("add.vta", cases[1][0]);
    at_task *b = task_of("add.vta", "1,128,28,28,int8");
    assert_int_equal(at_space_len(at_task_space(a)), at_space_len(at_task_space(b)));
    at_tensor_desc da[AT_OP_MAX_TENSORS], db[AT_OP_MAX_TENSORS];
    assert_int_equal(at_op_tensors(at_task_args(a), da), 3);
    at_op_tensors(at_task_args(b), db);
    for (int i = 0; i < 3; i++) assert_int_equal(da[i].n_elems, db[i].n_elems);
    at_task_free(a);
    at_task_free(b);
    at_task *t = NULL;
    /* the bias task's signature: rhs as written; its space is lhs's */
    t = task_of("add.vta", cases[2][0]);
    assert_int_equal(at_op_tensors(at_task_args(t), da), 3);
    assert_int_equal(da[1].ndim, 5);
    assert_int_equal(da[1].n_elems, 4 * 16);
    assert_int_equal(at_space_len(at_task_space(t)), 192);
    at_task_free(t);
    t = NULL;
    /* rhs that does not broadcast, rhs of higher rank, mixed dtypes */
    assert_int_equal(at_task_create("add.vta", AT_TARGET_VTA,
                                    "[[\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int32\"], [\"TENSOR\", [3, 1, 1, 1, 16], \"int32\"]]",
                                    &t),
                     AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "broadcasts"));
    assert_int_equal(at_task_create("add.vta", AT_TARGET_VTA,
                                    "[[\"TENSOR\", [4, 1, 1, 1, 16], \"int32\"], [\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int32\"]]",
                                    &t),
                     AT_EINVAL);
    assert_int_equal(at_task_create("add.vta", AT_TARGET_VTA,
                                    "[[\"TENSOR\", [1, 4, 5, 5, 1, 16], \"int32\"], [\"TENSOR\", [1, 4, 5, 5, 1, 16], \"int8\"]]",
                                    &t),
                     AT_EINVAL);
    assert_int_equal(at_task_create("add.vta", AT_TARGET_VTA, "1,20,5,5", &t), AT_EINVAL);
}

/* The template's IR on the interpreter equals the reference, for both ops and dtypes. */
static void template_ir_should_match_the_reference(void **state)
{
    (void)state;
    static const struct {
        const char *name, *args;
        int64_t     tco, th, tw;
    } cases[] = {
        {"add.vta", "1,32,4,6", 2, 4, 6},  {"add.vta", "2,48,3,4,int8", 1, 3, 2},
        {"multiply.vta", "1,32,4,6", 1, 2, 3}, {"multiply.vta", "1,32,5,3,int8", 2, 1, 3},
        {"add.vta", "[[\"TENSOR\", [2, 4, 4, 6, 1, 16], \"int32\"], [\"TENSOR\", [4, 1, 1, 1, 16], \"int32\"]]", 2, 2, 6},
        {"multiply.vta", "[[\"TENSOR\", [1, 2, 4, 6, 1, 16], \"int8\"], [\"TENSOR\", [1, 1, 4, 1, 1, 16], \"int8\"]]", 2, 4, 3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        at_task *t = task_of(cases[k].name, cases[k].args);
        at_config *c = config_with(t, cases[k].tco, cases[k].th, cases[k].tw);
        at_arena *arena = NULL;
        assert_ok(at_arena_new(0, &arena));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, c, arena, &p));
        at_tensor_desc d[AT_OP_MAX_TENSORS];
        assert_int_equal(at_op_tensors(at_task_args(t), d), 3);
        size_t eb = at_ir_type_bytes(d[0].dtype), n = (size_t)d[0].n_elems, nr = (size_t)d[1].n_elems;
        uint8_t *in[2] = {at_calloc(n, eb), at_calloc(nr, eb)};
        int8_t *got = at_calloc(n, 1), *want = at_calloc(n, 1);
        for (size_t i = 0; i < n; i++)
            for (int j = 0; j < 2; j++) {
                if (j == 1 && i >= nr) continue;
                int v = (int)((i * 37 + (size_t)j * 11 + k) % 61) - 30;
                if (eb == 4)
                    memcpy(in[j] + 4 * i, &(int32_t){v}, 4);
                else
                    in[j][i] = (uint8_t)(int8_t)v;
            }
        void *bufs[3] = {in[0], in[1], got};
        assert_ok(at_ir_interp(p, bufs));
        const void *ins[2] = {in[0], in[1]};
        void *outs[1] = {want};
        at_op_reference(at_task_args(t), ins, outs);
        int mid = 0;
        for (size_t i = 0; i < n; i++) mid += want[i] > 0 && want[i] < 127;
        assert_true(mid > 0);
        assert_memory_equal(got, want, n);
        for (int j = 0; j < 2; j++) at_free(in[j]);
        at_free(got);
        at_free(want);
        at_arena_free(arena);
        at_config_free(c);
        at_task_free(t);
    }
}

/* Seeded configs of several shapes run bit-exact on the simulator (or are instantiation errors
 * that the template and the lowering agree on). */
static void simulated_outputs_should_be_bit_exact(void **state)
{
    (void)state;
    static const char *const shapes[] = {
        "1,32,4,6", "1,64,3,8,int8", "2,16,5,2", "1,48,2,3,int8",
        "[[\"TENSOR\", [2, 4, 4, 6, 1, 16], \"int32\"], [\"TENSOR\", [4, 1, 1, 1, 16], \"int32\"]]",
        "[[\"TENSOR\", [1, 3, 2, 8, 1, 16], \"int8\"], [\"TENSOR\", [3, 1, 1, 1, 16], \"int8\"]]",
    };
    const char *names[2] = {"add.vta", "multiply.vta"};
    int ok = 0, inst = 0;
    at_rng rng;
    at_rng_seed(&rng, 2026);
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int k = 0; k < 2; k++) {
            at_task *t = task_of(names[k], shapes[si]);
            int64_t n = at_space_len(at_task_space(t));
            for (int r = 0; r < 4; r++) {
                at_config *c = NULL;
                assert_ok(at_task_config(t, (int64_t)at_rng_below(&rng, (uint64_t)n), &c));
                at_meas_err e = run(t, c, 1 + (uint64_t)r, NULL);
                assert_true(e == AT_MEAS_OK || e == AT_MEAS_INSTANTIATION_ERROR);
                ok += e == AT_MEAS_OK;
                inst += e == AT_MEAS_INSTANTIATION_ERROR;
                at_config_free(c);
            }
            at_task_free(t);
        }
    print_message("exact %d, instantiation errors %d\n", ok, inst);
    assert_true(ok >= 36);
}

static void a_tile_too_large_or_not_2d_should_be_an_instantiation_error(void **state)
{
    (void)state;
    at_task *t = task_of("add.vta", "1,64,56,56");
    /* 4 x 8 x 56 = 1792 elements per tile, x2 tensors > 2048 accumulator elements */
    at_config *c = config_with(t, 4, 8, 56);
    at_arena *arena = NULL;
    assert_ok(at_arena_new(0, &arena));
    const at_ir_program *p;
    assert_int_equal(at_task_instantiate(t, c, arena, &p), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "accumulator"));
    assert_int_equal(run(t, c, 1, NULL), AT_MEAS_INSTANTIATION_ERROR);
    at_config_free(c);
    /* co 2, rows 2, cols 8 of 56: three strided dimensions, no 2-D DMA */
    c = config_with(t, 2, 2, 8);
    assert_int_equal(at_task_instantiate(t, c, arena, &p), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "2-D DMA"));
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    at_vtagen_alu plan;
    assert_ok(at_meas_vta_alu_plan(&hw, t, c, &plan));
    assert_int_equal(at_vtagen_alu_check(&hw, &plan), AT_EINVAL);
    assert_int_equal(run(t, c, 1, NULL), AT_MEAS_INSTANTIATION_ERROR);
    at_config_free(c);
    /* the same with full rows folds to (co x rows, cols): fine */
    c = config_with(t, 2, 56, 8);
    assert_int_equal(run(t, c, 1, NULL), AT_MEAS_OK);
    at_config_free(c);
    at_arena_free(arena);
    at_task_free(t);
}

/* A packed bias broadcasts with two uop loops (co: dst th*tw, src 1; the rest: dst 1, src 0); an rhs
 * that broadcasts along h only needs three, which the runtime refuses (RUNTIME_DEVICE, as in TVM);
 * broadcasting within the lanes is no ALU pattern (INSTANTIATION_ERROR). */
static void broadcast_rhs_should_map_to_uop_loops_or_fail_as_tvm(void **state)
{
    (void)state;
    at_task *t = task_of("add.vta", "[[\"TENSOR\", [1, 4, 8, 8, 1, 16], \"int32\"], [\"TENSOR\", [4, 1, 1, 1, 16], \"int32\"]]");
    at_config *c = config_with(t, 2, 8, 4);
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    at_vtagen_alu plan;
    assert_ok(at_meas_vta_alu_plan(&hw, t, c, &plan));
    assert_true(plan.rhs_bcast_h && plan.rhs_bcast_w && !plan.rhs_bcast_c && !plan.rhs_bcast_n);
    at_vtagen_prog *p = NULL;
    assert_ok(at_vtagen_alu_lower(&hw, &plan, &(at_vtagen_alu_addrs){0x1000, 0x20000, 0x30000}, &p));
    const at_vta_insn *in = at_vtagen_prog_insns(p);
    size_t n = at_vtagen_prog_n_insns(p), n_add = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i].opcode == AT_VTA_OP_LOAD && in[i].mem == AT_VTA_MEM_ACC && in[i].sram_base == 64) {
            assert_int_equal(in[i].x_size, 2); /* the tile's two bias blocks */
            assert_int_equal(in[i].y_size, 1);
        }
        if (in[i].opcode != AT_VTA_OP_ALU || in[i].alu_op != AT_VTA_ALU_ADD) continue;
        n_add++;
        assert_int_equal(in[i].iter_out, 2);
        assert_int_equal(in[i].dst_factor_out, 32);
        assert_int_equal(in[i].src_factor_out, 1);
        assert_int_equal(in[i].iter_in, 32);
        assert_int_equal(in[i].dst_factor_in, 1);
        assert_int_equal(in[i].src_factor_in, 0);
    }
    assert_int_equal(n_add, 2 * 2); /* 2 co tiles x 2 w tiles */
    at_vtagen_prog_free(p);
    assert_int_equal(run(t, c, 4, NULL), AT_MEAS_OK);
    at_config_free(c);
    at_task_free(t);

    t = task_of("add.vta", "[[\"TENSOR\", [1, 4, 8, 8, 1, 16], \"int32\"], [\"TENSOR\", [4, 1, 8, 1, 16], \"int32\"]]");
    c = config_with(t, 2, 8, 4);
    assert_int_equal(run(t, c, 4, NULL), AT_MEAS_RUNTIME_DEVICE);
    at_config_free(c);
    c = config_with(t, 1, 8, 4); /* without the co loop two are enough */
    assert_int_equal(run(t, c, 4, NULL), AT_MEAS_OK);
    at_config_free(c);
    at_task_free(t);

    t = task_of("add.vta", "[[\"TENSOR\", [1, 4, 8, 8, 1, 16], \"int32\"], [\"TENSOR\", [4, 1, 1, 1, 1], \"int32\"]]");
    assert_int_equal(at_space_len(at_task_space(t)), 3 * 4 * 4);
    c = config_with(t, 1, 8, 8);
    assert_int_equal(run(t, c, 4, NULL), AT_MEAS_INSTANTIATION_ERROR);
    at_config_free(c);
    at_task_free(t);
}

/* Hand-derived from spec 4.3 (bit layouts), 4.8 (runtime dependency rules) and 5.4: add of
 * (1,1,1,2,1,16) int32 in one tile, lhs at 0x1000, rhs 0x2000, out 0x3000, uops at 0x4000. */
static const uint64_t golden_add[][2] = {
    {0x0000000000000221ULL, 0x0000000000000000ULL}, /* STORE NOP push_prev (s2g for the first tile) */
    {0x0000000100000190ULL, 0x0000000200020001ULL}, /* LOAD ACC lhs pop_next, dram 64, 1x2 */
    {0x0000000200000980ULL, 0x0000000200020001ULL}, /* LOAD ACC rhs -> sram 2, dram 128 */
    {0x0000004000000000ULL, 0x0000000100010001ULL}, /* LOAD UOP 1 at 0x4000/4 */
    {0x0004000800200004ULL, 0x0000200200000800ULL}, /* ALU ADD uop 0, iter_in 2, factors 1/1 */
    {0x0000004004000400ULL, 0x0000000100010001ULL}, /* LOAD UOP */
    {0x0004000800400104ULL, 0x007f800200000800ULL}, /* ALU MIN imm 127 */
    {0x0000004008000800ULL, 0x0000000100010001ULL}, /* LOAD UOP */
    {0x0004000800600244ULL, 0x0000900200000800ULL}, /* ALU MAX imm 0, push_next (g2s) */
    {0x0000000c00000229ULL, 0x0000000200020001ULL}, /* STORE pop_prev push_prev, dram 0x3000/16 */
    {0x0000000000000221ULL, 0x0000000000000000ULL}, /* VTASynchronize: STORE NOP push_prev */
    {0x0000000000000140ULL, 0x0000000000000000ULL}, /* LOAD NOP (load stage) push_next */
    {0x0000000000000010ULL, 0x0000000000000000ULL}, /* compute NOP pop_next (loop exit) */
    {0x0000000000000018ULL, 0x0000000000000000ULL}, /* compute NOP pop_prev pop_next */
    {0x0000000000000003ULL, 0x0000000000000000ULL}, /* FINISH */
};

static void a_tiny_add_should_encode_to_golden_words_and_run(void **state)
{
    (void)state;
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    at_vtagen_alu a = {.n_b = 1, .c_b = 1, .h = 1, .w = 2, .tile_co = 1, .tile_h = 1, .tile_w = 2, .op = AT_VTA_ALU_ADD,
                       .n_imm = 2, .imm = {{AT_VTA_ALU_MIN, 127}, {AT_VTA_ALU_MAX, 0}}};
    at_vtagen_alu_addrs addrs = {0x1000, 0x2000, 0x3000};
    at_vtagen_prog *p = NULL;
    assert_ok(at_vtagen_alu_lower(&hw, &a, &addrs, &p));
    size_t n = at_vtagen_prog_n_insns(p), nu = at_vtagen_prog_n_uops(p);
    assert_int_equal(n, sizeof golden_add / sizeof golden_add[0]);
    assert_int_equal(nu, 3);
    uint64_t words[2 * 15];
    uint32_t uops[3];
    assert_ok(at_vtagen_prog_encode(&hw, p, 0x4000, words, uops));
    for (size_t i = 0; i < n; i++) {
        if (words[2 * i] != golden_add[i][0] || words[2 * i + 1] != golden_add[i][1])
            fail_msg("instruction %zu: %016llx %016llx, want %016llx %016llx", i, (unsigned long long)words[2 * i],
                     (unsigned long long)words[2 * i + 1], (unsigned long long)golden_add[i][0],
                     (unsigned long long)golden_add[i][1]);
    }
    assert_int_equal(uops[0], 2u << 11); /* dst 0, src 2 (the rhs tile) */
    assert_int_equal(uops[1], 0);
    assert_int_equal(uops[2], 0);
    /* and it runs: 200 + 100 -> 127, -5 + 3 -> 0, 60 + 7 -> 67, truncated to int8 */
    at_vta_sim *sim = NULL;
    assert_ok(at_vta_sim_new(&hw, NULL, &sim));
    uint64_t phys[4];
    for (int i = 0; i < 4; i++) assert_ok(at_vta_sim_dram_alloc(sim, 128, &phys[i]));
    assert_int_equal(phys[0], 0x1000);
    assert_int_equal(phys[3], 0x4000);
    int32_t lhs[32], rhs[32];
    for (int i = 0; i < 32; i++) lhs[i] = i % 3 == 0 ? 200 : i % 3 == 1 ? -5 : 60, rhs[i] = i % 3 == 0 ? 100 : i % 3 == 1 ? 3 : 7;
    assert_ok(at_vta_sim_dram_write(sim, phys[0], lhs, sizeof lhs));
    assert_ok(at_vta_sim_dram_write(sim, phys[1], rhs, sizeof rhs));
    assert_ok(at_vta_sim_dram_write(sim, phys[3], uops, sizeof uops));
    at_vta_stats st;
    assert_ok(at_vta_sim_run(sim, words, n, &st));
    int8_t out[32];
    assert_ok(at_vta_sim_dram_read(sim, phys[2], out, sizeof out));
    for (int i = 0; i < 32; i++) assert_int_equal(out[i], i % 3 == 0 ? 127 : i % 3 == 1 ? 0 : 67);
    assert_int_equal(st.alu_ops, 6);      /* 3 instructions x 2 uop iterations */
    assert_int_equal(st.acc_load_bytes, 2 * 2 * 64);
    assert_int_equal(st.out_store_bytes, 2 * 16);
    at_vta_sim_free(sim);
    at_vtagen_prog_free(p);
}

/* MUL (fsim only) and int8 tensors (ACC_8BIT, sign-extended) through the same path. */
static void multiply_of_int8_should_widen_before_the_op(void **state)
{
    (void)state;
    at_task *t = task_of("multiply.vta", "[[\"TENSOR\", [1, 1, 1, 2, 1, 16], \"int8\"], [\"TENSOR\", [], \"int8\"]]");
    at_config *c = config_with(t, 1, 1, 2);
    uint64_t cycles = 0;
    assert_int_equal(run(t, c, 3, &cycles), AT_MEAS_OK); /* products up to 127^2 clip, never wrap in int8 */
    at_alu_packed_args a = at_task_args(t)->u.alu_packed;
    int8_t x[32], y[32], r[32];
    for (int i = 0; i < 32; i++) x[i] = (int8_t)(i * 7 - 100), y[i] = (int8_t)(3 - i);
    at_op_alu_packed_ref(AT_OP_MULTIPLY_PACKED, &a, x, y, r);
    for (int i = 0; i < 32; i++) {
        int v = (i * 7 - 100) * (3 - i);
        assert_int_equal(r[i], v > 127 ? 127 : v < 0 ? 0 : v);
    }
    at_config_free(c);
    at_task_free(t);
}

static void cycles_should_grow_with_the_tensor(void **state)
{
    (void)state;
    static const char *const shapes[] = {"1,16,4,4", "1,32,8,8", "1,64,16,16"};
    uint64_t prev = 0;
    for (int i = 0; i < 3; i++) {
        at_task *t = task_of("add.vta", shapes[i]);
        at_config *c = config_with(t, 1, 2, 4);
        uint64_t cy = 0;
        assert_int_equal(run(t, c, 1, &cy), AT_MEAS_OK);
        print_message("%s: %llu cycles\n", shapes[i], (unsigned long long)cy);
        assert_true(cy > prev);
        uint64_t again = 0;
        assert_int_equal(run(t, c, 2, &again), AT_MEAS_OK);
        assert_int_equal(again, cy); /* deterministic, independent of the data */
        prev = cy;
        at_config_free(c);
        at_task_free(t);
    }
}

/* Each rejection of the lowering's check, with the field it names. */
static void bad_tilings_should_be_rejected_by_the_lowering(void **state)
{
    (void)state;
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    const at_vtagen_alu ok = {.n_b = 1, .c_b = 4, .h = 8, .w = 8, .tile_co = 2, .tile_h = 8, .tile_w = 4,
                              .op = AT_VTA_ALU_MUL, .n_imm = 1, .imm = {{AT_VTA_ALU_SHR, 3}}};
    assert_ok(at_vtagen_alu_check(&hw, &ok));
    static const struct {
        int         field;
        const char *msg;
    } bad[] = {{0, "do not divide"}, {1, "accumulator buffer"}, {2, "2-D DMA"}, {3, "ADD or MUL"},
               {4, "immediate stages"}, {5, "does not fit"}, {6, "ACC_8BIT"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        at_vtagen_alu a = ok;
        at_vta_hw h = hw;
        switch (bad[i].field) {
        case 0: a.tile_w = 3; break;
        case 1: a.c_b = 32, a.h = 64, a.w = 64, a.tile_co = 1, a.tile_h = 32, a.tile_w = 64; break;
        case 2: a.tile_h = 4; break;
        case 3: a.op = AT_VTA_ALU_MAX; break;
        case 4: a.n_imm = AT_VTAGEN_ALU_MAX_IMM + 1; break;
        case 5: a.imm[0].imm = 40000; break;
        default: a.int8 = true, h.acc_width = 16; break;
        }
        at_vtagen_prog *p = NULL;
        at_status st = at_vtagen_alu_lower(&h, &a, &(at_vtagen_alu_addrs){0x1000, 0x2000, 0x3000}, &p);
        if (st != AT_EINVAL) fail_msg("case %zu: status %d", i, st);
        assert_null(p);
        if (!strstr(at_last_error(), bad[i].msg)) fail_msg("case %zu: '%s' lacks '%s'", i, at_last_error(), bad[i].msg);
    }
}

/* Allocation n of the lowering fails, for every n: AT_ENOMEM and nothing left allocated. */
static void lowering_should_free_everything_when_an_allocation_fails(void **state)
{
    (void)state;
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    at_vtagen_alu a = {.n_b = 1, .c_b = 2, .h = 4, .w = 4, .tile_co = 1, .tile_h = 2, .tile_w = 4, .op = AT_VTA_ALU_ADD,
                       .n_imm = 2, .imm = {{AT_VTA_ALU_MIN, 127}, {AT_VTA_ALU_MAX, 0}}};
    at_vtagen_alu_addrs addrs = {0x1000, 0x2000, 0x3000};
    long live = at_alloc_live();
    int failed = 0;
    for (long n = 0;; n++) {
        at_alloc_fail_after(n);
        at_vtagen_prog *p = NULL;
        at_status st = at_vtagen_alu_lower(&hw, &a, &addrs, &p);
        at_alloc_fail_after(-1);
        if (st == AT_OK) {
            at_vtagen_prog_free(p);
            break;
        }
        assert_int_equal(st, AT_ENOMEM);
        assert_null(p);
        assert_int_equal(at_alloc_live(), live);
        failed++;
    }
    assert_true(failed >= 4);
}

/* Malformed workloads: each parse error names what was expected. */
static void malformed_workloads_should_be_parse_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "[[\"TENSOR\", [1, 4, 5, 5, 1, 16], \"int32\"]]",
        "[[\"TENSOR\", [1, 4, 5, 5, 1, 16], \"int32\"], [\"TENSOR\", [1, 4, 5, 5, 1, 16]]]",
        "[[\"TENSOR\", [1, 4, 5, 5, 1, 16, 1], \"int32\"], [\"TENSOR\", [], \"int32\"]]",
        "[[\"TENSOR\", [1, 4, 5.5, 5, 1, 16], \"int32\"], [\"TENSOR\", [], \"int32\"]]",
        "1,64,56",
        "1,64,56,56,1,16",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        at_task *t = NULL;
        at_status st = at_task_create("multiply.vta", AT_TARGET_VTA, bad[i], &t);
        if (st != AT_EPARSE) fail_msg("case %zu: status %d (%s)", i, st, at_last_error());
        assert_null(t);
    }
    at_task *t = NULL;
    assert_int_equal(at_task_create("add.vta", AT_TARGET_VTA,
                                    "[[\"TENSOR\", [1, 4, 5, 5, 1, 16], \"float64\"], [\"TENSOR\", [], \"float64\"]]", &t),
                     AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "not supported"));
    assert_int_equal(at_task_create("add.vta", AT_TARGET_VTA,
                                    "[[\"TENSOR\", [1, 4, 0, 5, 1, 16], \"int8\"], [\"TENSOR\", [], \"int8\"]]", &t),
                     AT_EINVAL);
    assert_int_equal(at_task_create("add.vta", AT_TARGET_VTA, "[[\"TENSOR\", [], \"int8\"], [\"TENSOR\", [], \"int8\"]]", &t),
                     AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "dimensions"));
    assert_int_equal(at_task_create("add.vta", AT_TARGET_VTA,
                                    "[[\"TENSOR\", [65536, 65536, 1, 1, 1, 16], \"int8\"], [\"TENSOR\", [], \"int8\"]]", &t),
                     AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "too large"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spaces_should_be_tvms),
        cmocka_unit_test(workloads_should_round_trip_as_tvm_writes_them),
        cmocka_unit_test(template_ir_should_match_the_reference),
        cmocka_unit_test(simulated_outputs_should_be_bit_exact),
        cmocka_unit_test(a_tile_too_large_or_not_2d_should_be_an_instantiation_error),
        cmocka_unit_test(broadcast_rhs_should_map_to_uop_loops_or_fail_as_tvm),
        cmocka_unit_test(a_tiny_add_should_encode_to_golden_words_and_run),
        cmocka_unit_test(multiply_of_int8_should_widen_before_the_op),
        cmocka_unit_test(cycles_should_grow_with_the_tensor),
        cmocka_unit_test(bad_tilings_should_be_rejected_by_the_lowering),
        cmocka_unit_test(lowering_should_free_everything_when_an_allocation_fails),
        cmocka_unit_test(malformed_workloads_should_be_parse_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
