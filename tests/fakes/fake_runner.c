/* The fake runner: measure/'s runner interface over at_fake_measure, so tune/ runs its real
 * loop with deterministic measurements and no device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "tests/fakes/fake_runner.h"

typedef struct fake_runner {
    size_t                 batch;
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

static void free_ctx(void *ctx)
{
    at_free(ctx);
}

static const at_meas_runner_i fake_runner_i = {
    .name = "fake", .measure = measure, .batch_size = batch_size, .free = free_ctx};

at_status at_fake_runner_new(size_t batch, const at_fake_failure *fails, size_t n_fails, at_fake_clock *clock,
                             size_t *n_calls, at_meas_runner **out)
{
    fake_runner *f = at_calloc(1, sizeof *f);
    if (!f) return AT_OOM();
    *f = (fake_runner){batch, fails, n_fails, clock, n_calls};
    return at_meas_runner_new(&fake_runner_i, f, out);
}
