/* VTA simulator runner: task + config -> tiling -> backends/vta program -> at_vta_sim run. The
 * cost is the simulated cycle count over the clock (deterministic), one cost per measurement as
 * the repeat is pointless on a deterministic device; outputs are compared bit for bit with the
 * op's int8 reference. */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/rng.h"
#include "measure/vta_runner.h"
#include "templates/ops.h"

static at_status set_fail(at_result *res, at_meas_err err, const char *msg)
{
    at_result_fini(res);
    res->err = err;
    size_t n = strlen(msg) + 1;
    res->msg = at_malloc(n);
    if (!res->msg) return AT_OOM();
    memcpy(res->msg, msg, n);
    res->timestamp = at_clock_wall_s();
    return AT_OK;
}

at_status at_meas_vta_conv2d_plan(const at_vta_hw *hw, const at_task *task, const at_config *c, at_vtagen_conv2d *out)
{
    const at_args *a = at_task_args(task);
    if (a->op != AT_OP_CONV2D_PACKED) return AT_FAIL(AT_EINVAL, "the VTA runner measures conv2d_packed tasks only");
    const at_conv2d_packed_args *p = &a->u.conv2d_packed;
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(p, &g);
    if (g.batch != hw->batch || g.block_in != hw->block_in || g.block_out != hw->block_out)
        return AT_FAIL(AT_EINVAL, "workload packed as %lldx%lld (BATCH x BLOCK) does not match %s", (long long)g.batch,
                       (long long)g.block_in, hw->model);
    int64_t sz[2];
    at_vtagen_conv2d v = {.n_b = g.n_b, .ci_b = g.ci_b, .h = g.h, .w = g.w, .co_b = g.co_b, .kh = g.kh, .kw = g.kw,
                          .sh = g.sh, .sw = g.sw, .ph = g.ph, .pw = g.pw, .oh = g.oh, .ow = g.ow,
                          .shift = AT_CONV2D_PACKED_SHIFT, .clip_lo = AT_CONV2D_PACKED_CLIP_LO,
                          .clip_hi = AT_CONV2D_PACKED_CLIP_HI};
    at_config_split(c, 1, sz, 2), v.tile_h = sz[1];
    at_config_split(c, 2, sz, 2), v.tile_w = sz[1];
    at_config_split(c, 3, sz, 2), v.tile_ci = sz[1];
    at_config_split(c, 4, sz, 2), v.tile_co = sz[1];
    v.oc_nthread = at_config_other_int(c, 5);
    v.h_nthread = at_config_other_int(c, 6);
    *out = v;
    return AT_OK;
}

at_status at_meas_vta_alu_plan(const at_vta_hw *hw, const at_task *task, const at_config *c, at_vtagen_alu *out)
{
    const at_args *a = at_task_args(task);
    if (a->op != AT_OP_ADD_PACKED && a->op != AT_OP_MULTIPLY_PACKED)
        return AT_FAIL(AT_EINVAL, "not an add.vta / multiply.vta task");
    const at_alu_packed_args *p = &a->u.alu_packed;
    if (!at_op_alu_packed_on_vta(p))
        return AT_FAIL(AT_EINVAL, "schedule_alu_packed leaves this op on the CPU (not a 6-D integer op): nothing runs on VTA");
    if (p->lhs[4] != hw->batch || p->lhs[5] != hw->block_out)
        return AT_FAIL(AT_EINVAL, "workload packed as %lldx%lld (BATCH x BLOCK) does not match %s", (long long)p->lhs[4],
                       (long long)p->lhs[5], hw->model);
    int64_t sz[2];
    at_vtagen_alu v = {.n_b = p->lhs[0], .c_b = p->lhs[1], .h = p->lhs[2], .w = p->lhs[3],
                       .op = a->op == AT_OP_ADD_PACKED ? AT_VTA_ALU_ADD : AT_VTA_ALU_MUL,
                       .int8 = at_ir_type_eq(p->dtype, AT_IR_I8), .n_imm = 2,
                       .imm = {{AT_VTA_ALU_MIN, AT_ALU_PACKED_CLIP_HI}, {AT_VTA_ALU_MAX, AT_ALU_PACKED_CLIP_LO}}};
    at_config_split(c, 0, sz, 2), v.tile_co = sz[1];
    at_config_split(c, 1, sz, 2), v.tile_h = sz[1];
    at_config_split(c, 2, sz, 2), v.tile_w = sz[1];
    int64_t rs[AT_ALU_PACKED_MAX_DIMS];
    at_op_alu_packed_rhs_shape(p, rs);
    if (rs[4] != p->lhs[4] || rs[5] != p->lhs[5])
        return AT_FAIL(AT_EINVAL, "rhs broadcasts within the %lldx%lld accumulator lanes: no ALU pattern",
                       (long long)p->lhs[4], (long long)p->lhs[5]);
    v.rhs_bcast_n = rs[0] != p->lhs[0], v.rhs_bcast_c = rs[1] != p->lhs[1];
    v.rhs_bcast_h = rs[2] != p->lhs[2], v.rhs_bcast_w = rs[3] != p->lhs[3];
    *out = v;
    return AT_OK;
}

at_status at_meas_vta_measure_one(const at_vta_hw *hw_in, const at_task *task, const at_config *c, bool check,
                                  uint64_t seed, at_result *res, at_vta_stats *stats)
{
    at_vta_hw hw;
    if (hw_in)
        hw = *hw_in;
    else
        at_vta_hw_default(&hw);
    double t0 = at_clock_mono_s();
    at_vtagen_conv2d plan;
    at_vtagen_alu alu_plan;
    bool is_alu = at_task_args(task)->op == AT_OP_ADD_PACKED || at_task_args(task)->op == AT_OP_MULTIPLY_PACKED;
    at_status st = is_alu ? at_meas_vta_alu_plan(&hw, task, c, &alu_plan) : at_meas_vta_conv2d_plan(&hw, task, c, &plan);
    if (st != AT_OK) return set_fail(res, AT_MEAS_INSTANTIATION_ERROR, at_last_error());
    /* the template's own instantiation (its checks, as a builder would run them) */
    at_arena *arena = NULL;
    AT_TRY(at_arena_new(0, &arena));
    const at_ir_program *prog_ir;
    st = at_task_instantiate(task, c, arena, &prog_ir);
    at_arena_free(arena);
    if (st == AT_ENOMEM) return st;
    if (st != AT_OK) return set_fail(res, AT_MEAS_INSTANTIATION_ERROR, at_last_error());

    at_tensor_desc t[AT_OP_MAX_TENSORS];
    at_op_tensors(at_task_args(task), t);
    size_t nb[3];
    for (int i = 0; i < 3; i++) nb[i] = (size_t)t[i].n_elems * at_ir_type_bytes(t[i].dtype);
    int8_t *host[4] = {at_malloc(nb[0]), at_malloc(nb[1]), at_malloc(nb[2]), at_malloc(nb[2])};
    at_vta_sim *sim = NULL;
    at_vtagen_prog *prog = NULL;
    uint64_t *words = NULL;
    uint32_t *uops = NULL;
    char msg[512];
    if (!host[0] || !host[1] || !host[2] || !host[3]) {
        st = AT_OOM();
        goto done;
    }
    at_rng rng;
    at_rng_seed(&rng, seed ? seed : 1);
    for (size_t i = 0; i < 2; i++) /* values in [-127, 127] (int32 tensors too: the clip keeps them telling) */
        for (size_t j = 0; j < (size_t)t[i].n_elems; j++) {
            int v = (int)(at_rng_next_u64(&rng) % 255) - 127;
            if (at_ir_type_bytes(t[i].dtype) == 4)
                memcpy(host[i] + 4 * j, &(int32_t){v}, 4);
            else
                host[i][j] = (int8_t)v;
        }
    if ((st = at_vta_sim_new(&hw, NULL, &sim)) != AT_OK) goto done;
    at_vtagen_addrs addrs;
    if ((st = at_vta_sim_dram_alloc(sim, nb[0], &addrs.data)) != AT_OK ||
        (st = at_vta_sim_dram_alloc(sim, nb[1], &addrs.kernel)) != AT_OK ||
        (st = at_vta_sim_dram_alloc(sim, nb[2], &addrs.out)) != AT_OK)
        goto done;
    if (is_alu) {
        at_vtagen_alu_addrs aa = {addrs.data, addrs.kernel, addrs.out};
        st = at_vtagen_alu_lower(&hw, &alu_plan, &aa, &prog);
    } else {
        st = at_vtagen_conv2d_lower(&hw, &plan, &addrs, &prog);
    }
    if (st == AT_EINVAL || st == AT_EDEVICE) {
        st = set_fail(res, st == AT_EINVAL ? AT_MEAS_INSTANTIATION_ERROR : AT_MEAS_RUNTIME_DEVICE, at_last_error());
        goto done;
    }
    if (st != AT_OK) goto done;
    size_t ni = at_vtagen_prog_n_insns(prog), nu = at_vtagen_prog_n_uops(prog);
    uint64_t uop_phys = 0;
    words = at_malloc(2 * ni * sizeof *words);
    uops = at_malloc((nu ? nu : 1) * sizeof *uops);
    if (!words || !uops) {
        st = AT_OOM();
        goto done;
    }
    if ((st = at_vta_sim_dram_alloc(sim, (nu ? nu : 1) * sizeof *uops, &uop_phys)) != AT_OK) goto done;
    st = at_vtagen_prog_encode(&hw, prog, uop_phys, words, uops);
    if (st == AT_EINVAL) {
        st = set_fail(res, AT_MEAS_INSTANTIATION_ERROR, at_last_error());
        goto done;
    }
    if ((st = at_vta_sim_dram_write(sim, uop_phys, uops, nu * sizeof *uops)) != AT_OK ||
        (st = at_vta_sim_dram_write(sim, addrs.data, host[0], nb[0])) != AT_OK ||
        (st = at_vta_sim_dram_write(sim, addrs.kernel, host[1], nb[1])) != AT_OK)
        goto done;
    at_vta_stats s;
    st = at_vta_sim_run(sim, words, ni, &s);
    if (st == AT_EDEVICE || st == AT_ETIMEOUT) {
        st = set_fail(res, st == AT_EDEVICE ? AT_MEAS_RUNTIME_DEVICE : AT_MEAS_RUN_TIMEOUT, at_last_error());
        goto done;
    }
    if (st != AT_OK) goto done;
    if (stats) *stats = s;
    if (check) {
        if ((st = at_vta_sim_dram_read(sim, addrs.out, host[2], nb[2])) != AT_OK) goto done;
        const void *in[2] = {host[0], host[1]};
        void *outs[1] = {host[3]};
        at_op_reference(at_task_args(task), in, outs);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < nb[2]; i++)
            if (host[2][i] != host[3][i] && bad++ == 0) first = i;
        if (bad) {
            snprintf(msg, sizeof msg, "%zu of %zu output elements differ from the reference (first at %zu: %d, want %d)",
                     bad, nb[2], first, host[2][first], host[3][first]);
            st = set_fail(res, AT_MEAS_WRONG_ANSWER, msg);
            goto done;
        }
    }
    double cost = (double)s.cycles / ((double)hw.fpga_freq_mhz * 1e6);
    at_result_fini(res);
    if ((st = at_result_set_costs(res, &cost, 1)) != AT_OK) goto done;
    res->err = AT_MEAS_OK;
    res->all_cost_s = at_clock_mono_s() - t0;
    res->timestamp = at_clock_wall_s();
done:
    at_free(words);
    at_free(uops);
    at_vtagen_prog_free(prog);
    at_vta_sim_free(sim);
    for (int i = 0; i < 4; i++) at_free(host[i]);
    return st;
}

typedef struct vta_runner {
    at_vta_hw hw;
    bool      check;
    uint64_t  seed;
} vta_runner;

static at_status measure(void *ctx, const at_meas_input *inputs, size_t n, at_result *results)
{
    vta_runner *r = ctx;
    for (size_t i = 0; i < n; i++)
        AT_TRY(at_meas_vta_measure_one(&r->hw, inputs[i].task, inputs[i].config, r->check, r->seed, &results[i], NULL));
    return AT_OK;
}

static void runner_free(void *ctx)
{
    at_free(ctx);
}

static const at_meas_runner_i vta_iface = {.name = "vta-sim", .measure = measure, .free = runner_free};

at_status at_meas_vta_runner_new(const at_vta_hw *hw, const at_measure_opts *opts, at_meas_runner **out)
{
    *out = NULL;
    vta_runner *r = at_calloc(1, sizeof *r);
    if (!r) return AT_OOM();
    if (hw)
        r->hw = *hw;
    else
        at_vta_hw_default(&r->hw);
    r->check = opts ? opts->check_correctness : true;
    r->seed = opts && opts->seed ? opts->seed : 1;
    return at_meas_runner_new(&vta_iface, r, out);
}
