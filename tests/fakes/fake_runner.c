/* The fake runner: measure/'s runner interface over at_fake_measure, so tune/ runs its real
 * loop with deterministic measurements and no device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "tests/fakes/fake_runner.h"

typedef struct fake_runner {
    size_t                 batch, ahead;
    const at_fake_failure *fails;
    size_t                 n_fails;
    at_fake_clock         *clock;
    size_t                *n_calls;
} fake_runner;

static at_status measure(void *ctx, const at_meas_input *inputs, size_t n, at_result *results)
{
    fake_runner *f = ctx;
    if (f->n_calls) (*f->n_calls)++;
    for (size_t i = 0; i < n; i++)
        AT_TRY(at_fake_measure(inputs[i].task, at_config_index(inputs[i].config), f->fails, f->n_fails, f->clock,
                               &results[i]));
    return AT_OK;
}

static size_t batch_size(void *ctx)
{
    return ((fake_runner *)ctx)->batch;
}

static size_t batch_ahead(void *ctx)
{
    const fake_runner *f = ctx;
    return f->ahead ? f->ahead : f->batch;
}

static void free_ctx(void *ctx)
{
    at_free(ctx);
}

static const at_meas_runner_i fake_runner_i = {
    .name = "fake", .measure = measure, .batch_size = batch_size, .batch_ahead = batch_ahead, .free = free_ctx};

void at_fake_runner_set_ahead(at_meas_runner *r, size_t ahead)
{
    ((fake_runner *)at_meas_runner_ctx(r))->ahead = ahead;
}

at_status at_fake_runner_new(size_t batch, const at_fake_failure *fails, size_t n_fails, at_fake_clock *clock,
                             size_t *n_calls, at_meas_runner **out)
{
    fake_runner *f = at_calloc(1, sizeof *f);
    if (!f) return AT_OOM();
    *f = (fake_runner){.batch = batch, .fails = fails, .n_fails = n_fails, .clock = clock, .n_calls = n_calls};
    return at_meas_runner_new(&fake_runner_i, f, out);
}

/* ---- the picky runner ---------------------------------------------------------------------- */

static at_status picky_measure(void *ctx, const at_meas_input *in, size_t n, at_result *res)
{
    at_fake_picky *p = ctx;
    if (p->n_calls++ == 0 || n < p->smallest_call) p->smallest_call = n;
    for (size_t i = 0; i < n; i++) {
        int64_t idx = at_config_index(in[i].config);
        if (p->n_measured < AT_FAKE_PICKY_MAX) p->measured[p->n_measured] = idx;
        p->n_measured++;
        at_result_fini(&res[i]);
        double cost = p->fake_costs ? at_fake_cost_s(in[i].task, idx) : 1e-3;
        assert_int_equal(at_result_set_costs(&res[i], &cost, 1), AT_OK);
        res[i].timestamp = 1.0;
    }
    return AT_OK;
}

static size_t picky_batch(void *ctx)
{
    return ((const at_fake_picky *)ctx)->batch;
}

static at_status picky_check(void *ctx, const at_ir_program *prog)
{
    at_fake_picky *p = ctx;
    (void)prog;
    if (p->n_checked++ % 2 == 0) return AT_OK;
    p->n_rejected++;
    return AT_FAIL(AT_EINVAL, "Skipped because of invalid gpu kernel: picky");
}

static const at_meas_runner_i picky_i = {.name = "picky", .measure = picky_measure, .batch_size = picky_batch,
                                         .check = picky_check};

at_status at_fake_picky_runner_new(at_fake_picky *p, at_meas_runner **out)
{
    return at_meas_runner_new(&picky_i, p, out);
}
