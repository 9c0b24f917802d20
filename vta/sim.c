/* The VTA simulator object, its DRAM, and the discrete-event cycle model that drives exec.c.
 * Design: four agents (fetch, load, compute, store) each process their instructions in order;
 * the next event is always the agent whose next instruction can start earliest (ties: fetch,
 * load, compute, store), so instructions execute functionally in start-time order, the memory
 * port's read and write channels are granted first come first served per burst, and the whole run
 * is deterministic. An agent
 * that cannot compute its start (missing token, not yet fetched, full command queue) waits; when
 * none can and work remains, that is a deadlock, reported instead of hanging. */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "vta/internal.h"

#define DRAM_LIMIT ((uint64_t)1 << 32)

const char *at_vta_module_name(at_vta_module m)
{
    static const char *const names[AT_VTA_MODULE_COUNT] = {
        [AT_VTA_FETCH] = "fetch", [AT_VTA_LOAD] = "load", [AT_VTA_COMPUTE] = "compute", [AT_VTA_STORE] = "store"};
    AT_ASSERT((unsigned)m < AT_VTA_MODULE_COUNT);
    return names[m];
}

const char *at_vta_dep_queue_name(at_vta_dep_queue q)
{
    static const char *const names[AT_VTA_DEP_QUEUE_COUNT] = {
        [AT_VTA_L2G] = "l2g", [AT_VTA_G2L] = "g2l", [AT_VTA_S2G] = "s2g", [AT_VTA_G2S] = "g2s"};
    AT_ASSERT((unsigned)q < AT_VTA_DEP_QUEUE_COUNT);
    return names[q];
}

/* ---------------------------------------------------------------- object and memories */

void at_vta_sim_set_timing(at_vta_sim *sim, const at_vta_timing *timing)
{
    if (timing)
        sim->timing = *timing;
    else
        at_vta_timing_default(&sim->timing);
}

at_status at_vta_sim_new(const at_vta_hw *hw, const at_vta_sim_opts *opts, at_vta_sim **out)
{
    const uint32_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    AT_ASSERT(first == 1); /* SRAM/DRAM bytes are little-endian, as on the device */
    at_vta_sim *sim = at_calloc(1, sizeof *sim);
    if (!sim) return AT_OOM();
    sim->hw = *hw;
    if (opts && opts->timing)
        sim->timing = *opts->timing;
    else
        at_vta_timing_default(&sim->timing);
    sim->skip_exec = opts && opts->skip_exec;
    sim->max_cycles = opts ? opts->max_cycles : 0;
    sim->fast_i8a32 = hw->inp_width == 8 && hw->wgt_width == 8 && hw->acc_width == 32;
    const long bytes[AT_VTA_MEM_OUT] = {
        [AT_VTA_MEM_UOP] = (long)hw->uop_buff_depth * hw->uop_elem_bytes,
        [AT_VTA_MEM_WGT] = (long)hw->wgt_buff_depth * hw->wgt_elem_bytes,
        [AT_VTA_MEM_INP] = (long)hw->inp_buff_depth * hw->inp_elem_bytes,
        [AT_VTA_MEM_ACC] = (long)hw->acc_buff_depth * hw->acc_elem_bytes,
    };
    for (int m = 0; m < AT_VTA_MEM_OUT; m++) {
        sim->sram[m] = at_calloc(1, (size_t)bytes[m]);
        if (!sim->sram[m]) goto oom;
    }
    sim->uops = at_calloc((size_t)hw->uop_buff_depth, sizeof *sim->uops);
    if (!sim->uops) goto oom;
    sim->dram_top = AT_VTA_DRAM_BASE;
    *out = sim;
    return AT_OK;
oom:
    at_vta_sim_free(sim);
    return AT_OOM();
}

void at_vta_sim_free(at_vta_sim *sim)
{
    if (!sim) return;
    for (int m = 0; m < AT_VTA_MEM_OUT; m++) at_free(sim->sram[m]);
    at_free(sim->uops);
    at_free(sim->dram);
    at_free(sim);
}

const at_vta_hw *at_vta_sim_hw(const at_vta_sim *sim)
{
    return &sim->hw;
}

at_status at_vta_sim_dram_alloc(at_vta_sim *sim, size_t nbytes, uint64_t *phys)
{
    if (nbytes == 0) return AT_FAIL(AT_EINVAL, "vta dram: cannot allocate 0 bytes");
    uint64_t size = ((uint64_t)nbytes + AT_VTA_DRAM_ALIGN - 1) / AT_VTA_DRAM_ALIGN * AT_VTA_DRAM_ALIGN;
    uint64_t at = sim->dram_top;
    if (size > DRAM_LIMIT - at)
        return AT_FAIL(AT_ENOMEM, "vta dram: %zu more bytes exceed the 4 GiB the simulator addresses", nbytes);
    uint64_t top = at + size;
    if (top > sim->dram_cap) {
        uint64_t cap = sim->dram_cap ? sim->dram_cap : (uint64_t)1 << 20;
        while (cap < top) cap *= 2;
        if (cap > DRAM_LIMIT) cap = DRAM_LIMIT;
        uint8_t *d = sim->dram ? at_realloc(sim->dram, (size_t)cap) : at_malloc((size_t)cap);
        if (!d) return AT_FAIL(AT_ENOMEM, "vta dram: out of memory growing to %llu bytes", (unsigned long long)cap);
        sim->dram = d;
        sim->dram_cap = cap;
    }
    memset(sim->dram + at, 0, (size_t)size);
    sim->dram_top = top;
    *phys = at;
    return AT_OK;
}

void at_vta_sim_dram_reset(at_vta_sim *sim)
{
    sim->dram_top = AT_VTA_DRAM_BASE;
}

static bool dram_range_ok(const at_vta_sim *sim, uint64_t phys, size_t n)
{
    return phys >= AT_VTA_DRAM_BASE && phys <= sim->dram_top && n <= sim->dram_top - phys;
}

at_status at_vta_sim_dram_write(at_vta_sim *sim, uint64_t phys, const void *src, size_t n)
{
    if (!dram_range_ok(sim, phys, n))
        return AT_FAIL(AT_EINVAL, "vta dram: write of %zu bytes at 0x%llx is outside allocated DRAM", n,
                       (unsigned long long)phys);
    if (n) memcpy(sim->dram + phys, src, n);
    return AT_OK;
}

at_status at_vta_sim_dram_read(const at_vta_sim *sim, uint64_t phys, void *dst, size_t n)
{
    if (!dram_range_ok(sim, phys, n))
        return AT_FAIL(AT_EINVAL, "vta dram: read of %zu bytes at 0x%llx is outside allocated DRAM", n,
                       (unsigned long long)phys);
    if (n) memcpy(dst, sim->dram + phys, n);
    return AT_OK;
}

uint8_t *at_vta_sim_dram_ptr(at_vta_sim *sim, uint64_t phys, size_t n)
{
    return dram_range_ok(sim, phys, n) ? sim->dram + phys : NULL;
}

at_status at_vta_sim_sram_read(const at_vta_sim *sim, at_vta_mem mem, uint32_t first, uint32_t n, void *dst)
{
    if ((unsigned)mem >= AT_VTA_MEM_COUNT) return AT_FAIL(AT_EINVAL, "vta sram: bad memory type %d", (int)mem);
    uint64_t depth = (uint64_t)at_vta_hw_sram_depth(&sim->hw, mem);
    if ((uint64_t)first + n > depth)
        return AT_FAIL(AT_EINVAL, "vta sram: elements [%u, %llu) of %s exceed its depth %llu", first,
                       (unsigned long long)first + n, at_vta_mem_name(mem), (unsigned long long)depth);
    at_vta_mem m = mem == AT_VTA_MEM_OUT || mem == AT_VTA_MEM_ACC_8BIT ? AT_VTA_MEM_ACC : mem;
    size_t eb = (size_t)at_vta_sram_elem_bytes(&sim->hw, m);
    if (n) memcpy(dst, sim->sram[m] + (size_t)first * eb, (size_t)n * eb);
    return AT_OK;
}

/* ---------------------------------------------------------------- one run */

/* A load or store in flight: its 2-D transfer advances one row (one burst on the memory port
 * that all modules share) per event, so bursts of concurrent modules interleave in request-time
 * order. */
typedef struct flight {
    bool active;
    uint32_t insn, row;
    uint64_t t; /* when the next row requests the port */
    uint64_t start, beats, row_cycles;
} flight;

typedef struct run {
    at_vta_sim *sim;
    at_vta_insn *insns;
    uint8_t *module;                      /* per instruction */
    uint32_t *qpos;                       /* index within its module's queue */
    uint32_t *queue[AT_VTA_MODULE_COUNT]; /* instruction indices per module (fetch: unused) */
    uint32_t nq[AT_VTA_MODULE_COUNT], head[AT_VTA_MODULE_COUNT];
    uint64_t *arrival; /* when fetch delivered the instruction to its module */
    uint64_t *deq;     /* when its module took the command (then it may wait for tokens) */
    uint64_t free_at[AT_VTA_MODULE_COUNT];
    flight fl[AT_VTA_MODULE_COUNT];
    size_t n, fetched;
    uint64_t *push_t[AT_VTA_DEP_QUEUE_COUNT]; /* push time of each token, in order */
    uint32_t npush[AT_VTA_DEP_QUEUE_COUNT], npop[AT_VTA_DEP_QUEUE_COUNT];
    uint64_t port_free[2]; /* the memory port's read [0] and write [1] channels are busy until */
    bool finished;
    at_vta_stats st;
} run;

static at_vta_module route(const at_vta_insn *in)
{
    if (in->opcode == AT_VTA_OP_STORE) return AT_VTA_STORE;
    if (in->opcode == AT_VTA_OP_LOAD && (in->mem == AT_VTA_MEM_INP || in->mem == AT_VTA_MEM_WGT)) return AT_VTA_LOAD;
    return AT_VTA_COMPUTE;
}

/* The queues an instruction pops and pushes in its module (-1: none). */
static void dep_queues(int m, const at_vta_insn *in, int pops[2], int pushes[2])
{
    pops[0] = pops[1] = pushes[0] = pushes[1] = -1;
    switch ((at_vta_module)m) {
    case AT_VTA_LOAD:
        if (in->pop_next) pops[1] = AT_VTA_G2L;
        if (in->push_next) pushes[1] = AT_VTA_L2G;
        break;
    case AT_VTA_COMPUTE:
        if (in->pop_prev) pops[0] = AT_VTA_L2G;
        if (in->pop_next) pops[1] = AT_VTA_S2G;
        if (in->push_prev) pushes[0] = AT_VTA_G2L;
        if (in->push_next) pushes[1] = AT_VTA_G2S;
        break;
    case AT_VTA_STORE:
        if (in->pop_prev) pops[0] = AT_VTA_G2S;
        if (in->push_prev) pushes[0] = AT_VTA_S2G;
        break;
    case AT_VTA_FETCH:
    case AT_VTA_MODULE_COUNT: AT_ASSERT(0);
    }
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Prefixes the current error detail with the instruction's index and description; returns code. */
static at_status fail_insn_code(const run *r, size_t i, at_status code)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_vta_insn_describe(&r->insns[i], &sb);
    at_status s = AT_FAIL_WRAP(code, "vta insn #%zu (%s)", i, sb.failed ? "?" : at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
    return s;
}

static at_status fail_insn(const run *r, size_t i)
{
    return fail_insn_code(r, i, AT_EDEVICE);
}

static at_status prepare(run *r, const uint64_t *words)
{
    at_vta_sim *sim = r->sim;
    uint32_t pushes[AT_VTA_DEP_QUEUE_COUNT] = {0};
    for (size_t i = 0; i < r->n; i++) {
        at_vta_insn *in = &r->insns[i];
        if (at_vta_insn_decode(&sim->hw, words + 2 * i, in) != AT_OK)
            return AT_FAIL_WRAP(AT_EDEVICE, "vta insn #%zu (words 0x%016llx 0x%016llx)", i,
                                (unsigned long long)words[2 * i + 1], (unsigned long long)words[2 * i]);
        at_vta_module m = route(in);
        if (m == AT_VTA_LOAD && (in->pop_prev || in->push_prev)) {
            AT_FAIL(AT_EDEVICE, "the load module has no previous stage to pop from or push to");
            return fail_insn(r, i);
        }
        if (m == AT_VTA_STORE && (in->pop_next || in->push_next)) {
            AT_FAIL(AT_EDEVICE, "the store module has no next stage to pop from or push to");
            return fail_insn(r, i);
        }
        if (at_vta_exec_check(sim, in) != AT_OK) return fail_insn(r, i);
        r->module[i] = (uint8_t)m;
        r->qpos[i] = r->nq[m]++;
        int pop[2], push[2];
        dep_queues(m, in, pop, push);
        for (int k = 0; k < 2; k++)
            if (push[k] >= 0) pushes[push[k]]++;
    }
    for (int m = AT_VTA_LOAD; m < AT_VTA_MODULE_COUNT; m++) {
        r->queue[m] = at_malloc(((size_t)r->nq[m] + 1) * sizeof *r->queue[m]);
        if (!r->queue[m]) return AT_OOM();
        r->nq[m] = 0;
    }
    for (size_t i = 0; i < r->n; i++) r->queue[r->module[i]][r->nq[r->module[i]]++] = (uint32_t)i;
    for (int q = 0; q < AT_VTA_DEP_QUEUE_COUNT; q++) {
        r->push_t[q] = at_malloc(((size_t)pushes[q] + 1) * sizeof *r->push_t[q]);
        if (!r->push_t[q]) return AT_OOM();
    }
    return AT_OK;
}

/* ---- when can each agent act next ---- */

static bool fetch_next(const run *r, uint64_t *t, uint64_t *slot)
{
    if (r->fetched >= r->n) return false;
    size_t i = r->fetched;
    int m = r->module[i];
    uint32_t k = r->qpos[i], depth = r->sim->timing.cmd_queue_depth;
    *slot = 0;
    if (depth && k >= depth) {
        /* the command `depth` places ahead in the same FIFO must have been taken by its module */
        uint32_t j = k - depth;
        if (r->head[m] < j) return false;
        uint32_t jj = r->queue[m][j];
        *slot = j < r->head[m] ? r->deq[jj] : max64(r->free_at[m], r->arrival[jj]);
    }
    *t = max64(r->free_at[AT_VTA_FETCH], *slot);
    return true;
}

static bool module_next(const run *r, int m, uint64_t *t)
{
    if (r->fl[m].active) {
        *t = r->fl[m].t;
        return true;
    }
    if (r->head[m] >= r->nq[m]) return false;
    uint32_t i = r->queue[m][r->head[m]];
    if (i >= r->fetched) return false;
    uint64_t s = max64(r->free_at[m], r->arrival[i]);
    int pops[2], push[2];
    dep_queues(m, &r->insns[i], pops, push);
    for (int k = 0; k < 2; k++) {
        int q = pops[k];
        if (q < 0) continue;
        if (r->npop[q] >= r->npush[q]) return false;
        s = max64(s, r->push_t[q][r->npop[q]] + r->sim->timing.dep_latency);
    }
    *t = s;
    return true;
}

/* ---- the agents' actions ---- */

/* Grants `beats` cycles of one AXI channel (reads and writes travel on separate channels) at or
 * after req, first come first served. */
static uint64_t port_grant(run *r, int m, bool write, uint64_t req, uint64_t beats)
{
    uint64_t got = max64(req, r->port_free[write]);
    r->st.bus_wait_cycles[m] += got - req;
    r->port_free[write] = got + beats;
    r->st.bus_beats += beats;
    return got;
}

/* Bytes one beat of the memory port carries: the configuration's bus width unless the timing
 * table gives an effective DMA rate (calibration). */
static uint64_t beat_bytes(const run *r)
{
    uint32_t b = r->sim->timing.dma_bytes_per_cycle;
    return b ? b : (uint64_t)r->sim->hw.bus_bytes;
}

static void step_fetch(run *r, uint64_t start, uint64_t slot)
{
    size_t i = r->fetched;
    uint64_t was_free = r->free_at[AT_VTA_FETCH];
    if (slot > was_free) r->st.stall_cycles[AT_VTA_FETCH] += slot - was_free;
    uint64_t beats = ceil_div(AT_VTA_INSN_BYTES, beat_bytes(r));
    uint64_t end = port_grant(r, AT_VTA_FETCH, false, start, beats) + beats;
    r->arrival[i] = end;
    r->st.busy_cycles[AT_VTA_FETCH] += end - start;
    r->st.insns[AT_VTA_FETCH]++;
    r->st.end_cycle[AT_VTA_FETCH] = end;
    r->free_at[AT_VTA_FETCH] = end;
    r->fetched++;
}

static void complete(run *r, int m, uint32_t i, uint64_t start, uint64_t end)
{
    const at_vta_insn *in = &r->insns[i];
    int pops[2], pushes[2];
    dep_queues(m, in, pops, pushes);
    for (int k = 0; k < 2; k++) {
        int q = pushes[k];
        if (q < 0) continue;
        r->push_t[q][r->npush[q]++] = end;
        r->st.tokens[q]++;
    }
    r->st.busy_cycles[m] += end - start;
    r->st.insns[m]++;
    r->st.end_cycle[m] = end;
    r->free_at[m] = end;
    r->head[m]++;
    if (in->opcode == AT_VTA_OP_FINISH) {
        r->finished = true;
        r->st.finish_cycle = end;
    }
}

static at_status over_budget(const run *r, size_t i)
{
    AT_FAIL(AT_ETIMEOUT, "the program runs past its budget of %llu cycles", (unsigned long long)r->sim->max_cycles);
    return fail_insn_code(r, i, AT_ETIMEOUT);
}

/* Starts the module's next instruction at `start`: pops its tokens, executes it functionally,
 * then either completes it (compute work, NOPs, FINISH) or puts its transfer in flight. */
static at_status step_start(run *r, int m, uint64_t start)
{
    const at_vta_timing *tm = &r->sim->timing;
    const at_vta_hw *hw = &r->sim->hw;
    uint32_t i = r->queue[m][r->head[m]];
    const at_vta_insn *in = &r->insns[i];
    uint64_t deq = max64(r->free_at[m], r->arrival[i]);
    r->deq[i] = deq;
    r->st.stall_cycles[m] += start - deq;
    int pops[2], pushes[2];
    dep_queues(m, in, pops, pushes);
    for (int k = 0; k < 2; k++)
        if (pops[k] >= 0) r->npop[pops[k]]++;

    uint64_t t = start + tm->insn_overhead;
    if (in->opcode == AT_VTA_OP_GEMM || in->opcode == AT_VTA_OP_ALU) {
        /* timed before it runs: the budget must stop a huge kernel before its functional work */
        bool gemm = in->opcode == AT_VTA_OP_GEMM;
        uint64_t uops = in->uop_end - in->uop_bgn;
        uint64_t pass = (gemm ? tm->gemm_depth : tm->alu_depth) + uops * (gemm ? tm->gemm_ii : tm->alu_ii);
        t += (uint64_t)in->iter_out * (tm->loop_out_overhead + (uint64_t)in->iter_in * pass);
        if (r->sim->max_cycles && t > r->sim->max_cycles) return over_budget(r, i);
    }
    if (at_vta_exec(r->sim, in, &r->st) != AT_OK) return fail_insn(r, i);
    switch (in->opcode) {
    case AT_VTA_OP_LOAD:
    case AT_VTA_OP_STORE: {
        if (in->x_size == 0) break;
        bool store = in->opcode == AT_VTA_OP_STORE;
        uint64_t xtotal = (uint64_t)in->x_pad0 + in->x_size + in->x_pad1;
        uint64_t eb = (uint64_t)at_vta_hw_dram_elem_bytes(hw, in->mem);
        t += (uint64_t)in->y_pad0 * xtotal * tm->pad_elem_cycles;
        if (in->y_size == 0) {
            t += (uint64_t)in->y_pad1 * xtotal * tm->pad_elem_cycles;
            break;
        }
        flight *f = &r->fl[m];
        f->active = true;
        f->insn = i;
        f->row = 0;
        f->start = start;
        f->beats = ceil_div((uint64_t)in->x_size * eb, beat_bytes(r));
        f->row_cycles = store ? max64(f->beats, (uint64_t)in->x_size * tm->store_elem_cycles) : f->beats;
        f->t =
            t + (store ? 0 : tm->dma_read_latency) + (uint64_t)in->x_pad0 * tm->pad_elem_cycles + tm->dma_row_overhead;
        return AT_OK;
    }
    case AT_VTA_OP_GEMM:
    case AT_VTA_OP_ALU:
    case AT_VTA_OP_FINISH:
    case AT_VTA_OP_COUNT: break;
    }
    complete(r, m, i, start, t);
    return AT_OK;
}

/* One row of the module's transfer in flight gets its channel of the memory port. */
static void step_row(run *r, int m)
{
    const at_vta_timing *tm = &r->sim->timing;
    flight *f = &r->fl[m];
    const at_vta_insn *in = &r->insns[f->insn];
    bool store = in->opcode == AT_VTA_OP_STORE;
    uint64_t t = port_grant(r, m, store, f->t, f->beats) + f->row_cycles + (uint64_t)in->x_pad1 * tm->pad_elem_cycles;
    if (++f->row < in->y_size) {
        f->t = t + (uint64_t)in->x_pad0 * tm->pad_elem_cycles + tm->dma_row_overhead;
        return;
    }
    uint64_t xtotal = (uint64_t)in->x_pad0 + in->x_size + in->x_pad1;
    t += (uint64_t)in->y_pad1 * xtotal * tm->pad_elem_cycles + (store ? tm->dma_write_latency : 0);
    f->active = false;
    complete(r, m, f->insn, f->start, t);
}

static const char *missing_token(const run *r, int m, const at_vta_insn *in)
{
    int pops[2], push[2];
    dep_queues(m, in, pops, push);
    for (int k = 0; k < 2; k++)
        if (pops[k] >= 0 && r->npop[pops[k]] >= r->npush[pops[k]])
            return at_vta_dep_queue_name((at_vta_dep_queue)pops[k]);
    return NULL;
}

static at_status report_deadlock(const run *r)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    uint64_t now = 0;
    for (int m = 0; m < AT_VTA_MODULE_COUNT; m++) now = max64(now, r->free_at[m]);
    at_strbuf_printf(&sb, "vta deadlock after cycle %llu:", (unsigned long long)now);
    for (int m = AT_VTA_LOAD; m < AT_VTA_MODULE_COUNT; m++) {
        if (r->head[m] >= r->nq[m]) continue;
        uint32_t i = r->queue[m][r->head[m]];
        const at_vta_insn *in = &r->insns[i];
        at_strbuf_printf(&sb, " %s waits at insn #%u (", at_vta_module_name((at_vta_module)m), i);
        at_vta_insn_describe(in, &sb);
        const char *q = i < r->fetched ? missing_token(r, m, in) : NULL;
        if (q)
            at_strbuf_printf(&sb, ") for a %s token;", q);
        else
            at_strbuf_puts(&sb, ") for the fetch unit;");
    }
    if (r->fetched < r->n)
        at_strbuf_printf(&sb, " fetch waits at insn #%zu for room in the %s command queue;", r->fetched,
                         at_vta_module_name((at_vta_module)r->module[r->fetched]));
    at_strbuf_puts(&sb, " tokens available:");
    for (int q = 0; q < AT_VTA_DEP_QUEUE_COUNT; q++)
        at_strbuf_printf(&sb, " %s %u", at_vta_dep_queue_name((at_vta_dep_queue)q), r->npush[q] - r->npop[q]);
    at_status s = sb.failed ? AT_FAIL(AT_EDEVICE, "vta deadlock") : AT_FAIL(AT_EDEVICE, "%s", at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
    return s;
}

static at_status simulate(run *r)
{
    r->free_at[AT_VTA_FETCH] = r->sim->timing.fetch_latency;
    for (;;) {
        uint64_t best = 0, t, slot = 0;
        int who = -1;
        if (fetch_next(r, &t, &slot)) {
            best = t;
            who = AT_VTA_FETCH;
        }
        for (int m = AT_VTA_LOAD; m < AT_VTA_MODULE_COUNT; m++)
            if (module_next(r, m, &t) && (who < 0 || t < best)) {
                best = t;
                who = m;
            }
        if (who < 0) break;
        if (r->sim->max_cycles && best > r->sim->max_cycles)
            return AT_FAIL(AT_ETIMEOUT, "vta program runs past its budget of %llu cycles",
                           (unsigned long long)r->sim->max_cycles);
        if (who == AT_VTA_FETCH)
            step_fetch(r, best, slot);
        else if (r->fl[who].active)
            step_row(r, who);
        else
            AT_TRY(step_start(r, who, best));
    }
    bool left = r->fetched < r->n;
    for (int m = AT_VTA_LOAD; m < AT_VTA_MODULE_COUNT; m++) left |= r->head[m] < r->nq[m];
    if (left) return report_deadlock(r);
    if (!r->finished) return AT_FAIL(AT_EDEVICE, "vta program ended without a FINISH instruction");
    for (int q = 0; q < AT_VTA_DEP_QUEUE_COUNT; q++)
        if (r->npush[q] != r->npop[q])
            return AT_FAIL(AT_EDEVICE, "vta program left %u %s token(s) never popped (queues must end empty)",
                           r->npush[q] - r->npop[q], at_vta_dep_queue_name((at_vta_dep_queue)q));
    for (int m = 0; m < AT_VTA_MODULE_COUNT; m++) r->st.cycles = max64(r->st.cycles, r->st.end_cycle[m]);
    return AT_OK;
}

at_status at_vta_sim_run(at_vta_sim *sim, const uint64_t *words, size_t n_insns, at_vta_stats *stats)
{
    if (n_insns == 0) return AT_FAIL(AT_EDEVICE, "vta program ended without a FINISH instruction (it is empty)");
    if (n_insns > UINT32_MAX / 2) return AT_FAIL(AT_EDEVICE, "vta program of %zu instructions is too long", n_insns);
    run r;
    memset(&r, 0, sizeof r);
    r.sim = sim;
    r.n = n_insns;
    at_status st;
    r.insns = at_malloc(n_insns * sizeof *r.insns);
    r.module = at_malloc(n_insns);
    r.qpos = at_malloc(n_insns * sizeof *r.qpos);
    r.arrival = at_malloc(n_insns * sizeof *r.arrival);
    r.deq = at_malloc(n_insns * sizeof *r.deq);
    if (!r.insns || !r.module || !r.qpos || !r.arrival || !r.deq)
        st = AT_OOM();
    else
        st = prepare(&r, words);
    if (st == AT_OK) st = simulate(&r);
    if (st == AT_OK && stats) *stats = r.st;
    at_free(r.insns);
    at_free(r.module);
    at_free(r.qpos);
    at_free(r.arrival);
    at_free(r.deq);
    for (int m = 0; m < AT_VTA_MODULE_COUNT; m++) at_free(r.queue[m]);
    for (int q = 0; q < AT_VTA_DEP_QUEUE_COUNT; q++) at_free(r.push_t[q]);
    return st;
}
