/* The instruction-stream half of tvm-vta's runtime (runtime.cc InsnQueue/UopQueue) in C: pending
 * pops attach to the next instruction of their stage, pushes ride on the last instruction when it
 * belongs to the pushing stage and the flag is free (else a NOP carries them), and uop kernels are
 * loaded into a ring in uop SRAM on first use (a kernel that does not fit restarts the ring and
 * evicts everything). Errors are sticky in prog->st, so the lowering code reads straight. */
#include <string.h>

#include "backends/vta/internal.h"
#include "core/alloc.h"

at_vtagen_prog *at_vtagen_prog_new(uint32_t uop_depth)
{
    at_vtagen_prog *p = at_calloc(1, sizeof *p);
    if (p) p->uop_depth = uop_depth;
    return p;
}

void at_vtagen_prog_free(at_vtagen_prog *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n_kernels; i++) {
        at_free(p->kernels[i]->uops);
        at_free(p->kernels[i]);
    }
    at_free(p->kernels);
    at_free(p->insns);
    at_free(p->uops);
    at_free(p);
}

size_t at_vtagen_prog_n_insns(const at_vtagen_prog *p)
{
    return p->n_insns;
}

const at_vta_insn *at_vtagen_prog_insns(const at_vtagen_prog *p)
{
    return p->insns;
}

size_t at_vtagen_prog_n_uops(const at_vtagen_prog *p)
{
    return p->n_uops;
}

static void *grow(at_vtagen_prog *p, void *arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return arr;
    size_t nc = *cap ? *cap * 2 : 256;
    while (nc < need) nc *= 2;
    void *n = at_realloc(arr, nc * elem);
    if (!n) {
        p->st = AT_OOM();
        return NULL;
    }
    *cap = nc;
    return n;
}

at_vtagen_kernel *at_vtagen_kernel_new(at_vtagen_prog *p, size_t n_uops)
{
    if (p->st != AT_OK) return NULL;
    at_vtagen_kernel **ks = grow(p, p->kernels, &p->cap_kernels, p->n_kernels + 1, sizeof *ks);
    if (!ks) return NULL;
    p->kernels = ks;
    at_vtagen_kernel *k = at_calloc(1, sizeof *k);
    if (k) k->uops = at_calloc(n_uops ? n_uops : 1, sizeof *k->uops);
    if (!k || !k->uops) {
        if (k) at_free(k);
        p->st = AT_OOM();
        return NULL;
    }
    k->n_uops = n_uops;
    p->kernels[p->n_kernels++] = k;
    return k;
}

static at_vta_insn *next_insn(at_vtagen_prog *p)
{
    if (p->st != AT_OK) return NULL;
    at_vta_insn *a = grow(p, p->insns, &p->cap_insns, p->n_insns + 1, sizeof *a);
    if (!a) return NULL;
    p->insns = a;
    at_vta_insn *i = &p->insns[p->n_insns++];
    memset(i, 0, sizeof *i);
    return i;
}

/* GetPipelineStage: a zero-size LOAD belongs to no stage (for the push test only). */
static int stage_of(const at_vta_insn *i)
{
    switch (i->opcode) {
    case AT_VTA_OP_GEMM:
    case AT_VTA_OP_ALU: return AT_VTAGEN_COMPUTE;
    case AT_VTA_OP_STORE: return AT_VTAGEN_STORE;
    case AT_VTA_OP_LOAD:
        if (i->x_size == 0) return 0;
        return (i->mem == AT_VTA_MEM_INP || i->mem == AT_VTA_MEM_WGT) ? AT_VTAGEN_LOAD : AT_VTAGEN_COMPUTE;
    case AT_VTA_OP_FINISH:
    case AT_VTA_OP_COUNT: break;
    }
    return 0;
}

static void push_noop(at_vtagen_prog *p, int stage, bool push_prev, bool push_next, bool pop_prev, bool pop_next)
{
    at_vta_insn *i = next_insn(p);
    if (!i) return;
    i->opcode = stage == AT_VTAGEN_STORE ? AT_VTA_OP_STORE : AT_VTA_OP_LOAD;
    i->mem = stage == AT_VTAGEN_LOAD ? AT_VTA_MEM_INP : stage == AT_VTAGEN_STORE ? AT_VTA_MEM_OUT : AT_VTA_MEM_UOP;
    i->push_prev = push_prev;
    i->push_next = push_next;
    i->pop_prev = pop_prev;
    i->pop_next = pop_next;
}

static void commit_pending_pop(at_vtagen_prog *p, int stage)
{
    if (p->pending_pop_prev[stage] || p->pending_pop_next[stage]) {
        push_noop(p, stage, false, false, p->pending_pop_prev[stage], p->pending_pop_next[stage]);
        p->pending_pop_prev[stage] = p->pending_pop_next[stage] = false;
    }
}

void at_vtagen_dep_push(at_vtagen_prog *p, int from, int to)
{
    commit_pending_pop(p, from);
    if (p->st != AT_OK) return;
    if (p->n_insns) {
        at_vta_insn *last = &p->insns[p->n_insns - 1];
        if (stage_of(last) == from) {
            if (from < to && !last->push_next) {
                last->push_next = true;
                return;
            }
            if (from > to && !last->push_prev) {
                last->push_prev = true;
                return;
            }
        }
    }
    push_noop(p, from, from > to, from < to, false, false);
}

void at_vtagen_dep_pop(at_vtagen_prog *p, int from, int to)
{
    bool *pending = from < to ? p->pending_pop_prev : p->pending_pop_next;
    if (pending[to]) commit_pending_pop(p, to);
    pending[to] = true;
}

/* A new instruction of stage takes the stage's pending pops. */
static at_vta_insn *stage_insn(at_vtagen_prog *p, int stage)
{
    at_vta_insn *i = next_insn(p);
    if (!i) return NULL;
    i->pop_prev = p->pending_pop_prev[stage];
    i->pop_next = p->pending_pop_next[stage];
    p->pending_pop_prev[stage] = p->pending_pop_next[stage] = false;
    return i;
}

at_vta_insn *at_vtagen_mem(at_vtagen_prog *p, at_vta_opcode op, at_vta_mem mem)
{
    int stage = op == AT_VTA_OP_STORE ? AT_VTAGEN_STORE
                : (mem == AT_VTA_MEM_INP || mem == AT_VTA_MEM_WGT) ? AT_VTAGEN_LOAD
                                                                 : AT_VTAGEN_COMPUTE;
    at_vta_insn *i = stage_insn(p, stage);
    if (!i) return NULL;
    i->opcode = op;
    i->mem = mem;
    return i;
}

/* Makes k resident in uop SRAM, emitting the LOAD UOP (compute stage) of its uops. */
static void make_resident(at_vtagen_prog *p, at_vtagen_kernel *k)
{
    if (k->resident) return;
    if (k->n_uops > p->uop_depth) {
        p->st = AT_FAIL(AT_EINVAL, "a uop kernel of %zu uops exceeds the %u-entry uop buffer", k->n_uops, p->uop_depth);
        return;
    }
    if (p->uop_sram_end + k->n_uops > p->uop_depth) { /* restart the ring: everything is evicted */
        for (size_t i = 0; i < p->n_kernels; i++) p->kernels[i]->resident = false;
        p->uop_sram_end = 0;
    }
    at_vta_uop *u = grow(p, p->uops, &p->cap_uops, p->n_uops + k->n_uops, sizeof *u);
    if (!u) return;
    p->uops = u;
    memcpy(p->uops + p->n_uops, k->uops, k->n_uops * sizeof *u);
    at_vta_insn *i = stage_insn(p, AT_VTAGEN_COMPUTE);
    if (!i) return;
    i->opcode = AT_VTA_OP_LOAD;
    i->mem = AT_VTA_MEM_UOP;
    i->sram_base = p->uop_sram_end;
    i->dram_base = (uint32_t)p->n_uops; /* relocated by at_vtagen_prog_encode */
    i->y_size = 1;
    i->x_size = (uint32_t)k->n_uops;
    i->x_stride = (uint32_t)k->n_uops;
    p->n_uops += k->n_uops;
    k->sram_begin = p->uop_sram_end;
    k->resident = true;
    p->uop_sram_end += (uint32_t)k->n_uops;
}

void at_vtagen_push_kernel(at_vtagen_prog *p, at_vtagen_kernel *k)
{
    if (p->st != AT_OK || !k) return;
    make_resident(p, k);
    at_vta_insn *i = stage_insn(p, AT_VTAGEN_COMPUTE);
    if (!i) return;
    i->opcode = k->is_alu ? AT_VTA_OP_ALU : AT_VTA_OP_GEMM;
    i->reset = k->reset;
    i->uop_bgn = k->sram_begin;
    i->uop_end = k->sram_begin + (uint32_t)k->n_uops;
    i->iter_out = i->iter_in = 1;
    if (k->is_alu && k->n_loops == 1) { /* ALU: one loop is the inner one */
        i->iter_in = k->extent[0];
        i->dst_factor_in = k->dst_f[0];
        i->src_factor_in = k->src_f[0];
    } else {
        if (k->n_loops >= 1) {
            i->iter_out = k->extent[0];
            i->dst_factor_out = k->dst_f[0];
            i->src_factor_out = k->src_f[0];
            i->wgt_factor_out = k->wgt_f[0];
        }
        if (k->n_loops == 2) {
            i->iter_in = k->extent[1];
            i->dst_factor_in = k->dst_f[1];
            i->src_factor_in = k->src_f[1];
            i->wgt_factor_in = k->wgt_f[1];
        }
    }
    if (k->is_alu) {
        i->alu_op = k->alu_op;
        i->use_imm = k->use_imm;
        i->imm = k->imm;
        i->wgt_factor_out = i->wgt_factor_in = 0;
    }
}

void at_vtagen_finish(at_vtagen_prog *p)
{
    at_vtagen_dep_push(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
    at_vtagen_dep_push(p, AT_VTAGEN_LOAD, AT_VTAGEN_COMPUTE);
    at_vtagen_dep_pop(p, AT_VTAGEN_STORE, AT_VTAGEN_COMPUTE);
    at_vtagen_dep_pop(p, AT_VTAGEN_LOAD, AT_VTAGEN_COMPUTE);
    commit_pending_pop(p, AT_VTAGEN_COMPUTE);
    at_vta_insn *i = next_insn(p); /* FINISH carries no pops */
    if (i) i->opcode = AT_VTA_OP_FINISH;
}

at_status at_vtagen_prog_encode(const at_vta_hw *hw, const at_vtagen_prog *p, uint64_t uop_phys, uint64_t *words,
                                uint32_t *uops)
{
    for (size_t i = 0; i < p->n_insns; i++) {
        at_vta_insn in = p->insns[i];
        if (in.opcode == AT_VTA_OP_LOAD && in.mem == AT_VTA_MEM_UOP && in.x_size)
            in.dram_base += (uint32_t)(uop_phys / AT_VTA_UOP_BYTES);
        uint64_t w[2];
        at_status st = at_vta_insn_encode(hw, &in, w);
        if (st != AT_OK) return AT_FAIL_WRAP(st, "instruction %zu", i);
        words[2 * i] = w[0];
        words[2 * i + 1] = w[1];
    }
    for (size_t i = 0; i < p->n_uops; i++) {
        at_status st = at_vta_uop_encode(hw, &p->uops[i], &uops[i]);
        if (st != AT_OK) return AT_FAIL_WRAP(st, "uop %zu", i);
    }
    return AT_OK;
}
