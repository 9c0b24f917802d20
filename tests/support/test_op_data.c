/* Test data for templates against ops' references (test_op_data.h). */
#include "tests/support/test_op_data.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/rng.h"

static float draw_float(at_rng *rng, at_test_fill fill)
{
    switch (fill) {
    case AT_TEST_FILL_CENTERED: return (float)at_rng_uniform(rng) - 0.5f;
    case AT_TEST_FILL_SIGNED: return (float)(at_rng_uniform(rng) * 2 - 1);
    case AT_TEST_FILL_UNIT: break;
    }
    return (float)at_rng_uniform(rng);
}

static size_t tensor_bytes(const at_tensor_desc *d)
{
    return (size_t)d->n_elems * at_ir_type_bytes(d->dtype);
}

void at_test_data_init(at_test_data *dt, const at_args *a, uint64_t seed, at_test_fill fill)
{
    memset(dt, 0, sizeof *dt);
    dt->n = at_op_tensors(a, dt->d);
    at_rng rng;
    at_rng_seed(&rng, seed);
    const void *in[AT_OP_MAX_TENSORS];
    void *out[AT_OP_MAX_TENSORS];
    size_t ni = 0, no = 0;
    for (size_t i = 0; i < dt->n; i++) {
        const at_tensor_desc *d = &dt->d[i];
        dt->buf[i] = at_calloc(1, tensor_bytes(d));
        dt->ref[i] = at_calloc(1, tensor_bytes(d));
        assert_non_null(dt->buf[i]);
        assert_non_null(dt->ref[i]);
        if (d->is_output) {
            out[no++] = dt->ref[i];
            continue;
        }
        for (int64_t k = 0; k < d->n_elems; k++) {
            if (at_ir_type_is_float(d->dtype))
                ((float *)dt->buf[i])[k] = draw_float(&rng, fill);
            else if (at_ir_type_bytes(d->dtype) == 1)
                ((int8_t *)dt->buf[i])[k] = (int8_t)((int)at_rng_below(&rng, 17) - 8);
            else
                ((int32_t *)dt->buf[i])[k] = (int32_t)at_rng_below(&rng, 17) - 8;
        }
        in[ni++] = dt->buf[i];
    }
    at_op_reference(a, in, out);
}

void at_test_data_fini(at_test_data *dt)
{
    for (size_t i = 0; i < dt->n; i++) {
        at_free(dt->buf[i]);
        at_free(dt->ref[i]);
    }
}

void at_test_data_run(const at_ir_program *p, at_test_data *dt, const char *what)
{
    for (size_t i = 0; i < dt->n; i++)
        if (dt->d[i].is_output) memset(dt->buf[i], 0xFF, tensor_bytes(&dt->d[i]));
    at_status st = at_ir_interp(p, dt->buf);
    if (st != AT_OK) print_error("%s: %s\n", what, at_last_error());
    assert_ok(st);
}

bool at_test_data_run_config(const at_task *t, const at_config *c, at_test_data *dt, bool allow_reject,
                             const char *what)
{
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    at_status st = at_task_instantiate(t, c, ar, &p);
    bool ok = st == AT_OK;
    if (!ok && !(allow_reject && st == AT_EINVAL)) {
        print_error("%s: %s\n", what, at_last_error());
        assert_ok(st);
    }
    if (ok) at_test_data_run(p, dt, what);
    at_arena_free(ar);
    return ok;
}

double at_test_max_rel_err(const float *got, const float *want, int64_t n, double floor)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - (double)want[i]) / fmax(fabs((double)want[i]), floor);
        if (isnan(e)) return e;
        if (e > worst) worst = e;
    }
    return worst;
}

double at_test_data_check(const at_test_data *dt, double floor, double tol, const char *what)
{
    double worst = 0;
    for (size_t i = 0; i < dt->n; i++) {
        if (!dt->d[i].is_output) continue;
        double e = at_test_max_rel_err(dt->buf[i], dt->ref[i], dt->d[i].n_elems, floor);
        if (!(e <= tol)) {
            print_error("%s: output %s: max relative error %g > %g\n", what, dt->d[i].name, e, tol);
            fail();
        }
        if (e > worst) worst = e;
    }
    return worst;
}
