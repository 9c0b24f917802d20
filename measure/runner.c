/* The runner wrapper: a vtable and the context it owns (ggml's backend shape, STYLE 2.6). */
#include "core/alloc.h"
#include "measure/measure.h"

struct at_meas_runner {
    const at_meas_runner_i *i;
    void                   *ctx;
};

at_status at_meas_runner_new(const at_meas_runner_i *i, void *ctx, at_meas_runner **out)
{
    AT_ASSERT(i && i->measure);
    *out = NULL;
    at_meas_runner *r = at_malloc(sizeof *r);
    if (!r) {
        if (i->free) i->free(ctx);
        return AT_OOM();
    }
    r->i = i;
    r->ctx = ctx;
    *out = r;
    return AT_OK;
}

void at_meas_runner_free(at_meas_runner *r)
{
    if (!r) return;
    if (r->i->free) r->i->free(r->ctx);
    at_free(r);
}

at_status at_meas_runner_measure(at_meas_runner *r, const at_meas_input *inputs, size_t n, at_result *results)
{
    return r->i->measure(r->ctx, inputs, n, results);
}

size_t at_meas_runner_batch_size(const at_meas_runner *r)
{
    return r->i->batch_size ? r->i->batch_size(r->ctx) : 1;
}

size_t at_meas_runner_batch_ahead(const at_meas_runner *r)
{
    return r->i->batch_ahead ? r->i->batch_ahead(r->ctx) : at_meas_runner_batch_size(r);
}

at_status at_meas_runner_check(const at_meas_runner *r, const at_ir_program *p)
{
    return r->i->check ? r->i->check(r->ctx, p) : AT_OK;
}

const char *at_meas_runner_name(const at_meas_runner *r)
{
    return r->i->name;
}

void *at_meas_runner_ctx(const at_meas_runner *r)
{
    return r->ctx;
}

const at_meas_runner_i *at_meas_runner_iface(const at_meas_runner *r)
{
    return r->i;
}
