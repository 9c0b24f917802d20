/* Output verification against the op's reference, and the random inputs both sides use. */
#include <math.h>
#include <string.h>

#include "measure/measure.h"

static double elem(at_ir_type t, const void *p, int64_t i)
{
    if (t.code == AT_IR_TFLOAT && t.bits == 32) return ((const float *)p)[i];
    if (t.code == AT_IR_TFLOAT && t.bits == 64) return ((const double *)p)[i];
    if (t.code == AT_IR_TINT && t.bits == 32) return ((const int32_t *)p)[i];
    if (t.code == AT_IR_TINT && t.bits == 8) return ((const int8_t *)p)[i];
    if (t.code == AT_IR_TUINT && t.bits == 8) return ((const uint8_t *)p)[i];
    if (t.code == AT_IR_TINT && t.bits == 64) return (double)((const int64_t *)p)[i];
    AT_ASSERT(!"dtype not supported by at_meas_compare");
    return 0;
}

bool at_meas_compare(at_ir_type dtype, const void *got, const void *want, int64_t n, at_op_tolerance tol,
                     at_meas_mismatch *worst)
{
    at_meas_mismatch w = {.index = -1};
    double worst_excess = 0, best_ok_err = -1;
    for (int64_t i = 0; i < n; i++) {
        double g = elem(dtype, got, i), r = elem(dtype, want, i);
        double err = fabs(g - r), limit = tol.atol + tol.rtol * fabs(r);
        if (isnan(err) || err > limit) {
            double excess = isnan(err) ? INFINITY : err - limit;
            if (w.n_bad++ == 0 || excess > worst_excess) {
                worst_excess = excess;
                w = (at_meas_mismatch){.index = i, .got = g, .want = r, .abs_err = isnan(err) ? INFINITY : err, .n_bad = w.n_bad};
            }
        } else if (w.n_bad == 0 && err > best_ok_err) {
            best_ok_err = err; /* no violation yet: report the largest error seen */
            w.got = g;
            w.want = r;
            w.abs_err = err;
        }
    }
    if (worst) *worst = w;
    return w.n_bad == 0;
}

void at_meas_random_fill(at_ir_type dtype, void *data, int64_t n, at_rng *rng)
{
    for (int64_t i = 0; i < n; i++) {
        if (dtype.code == AT_IR_TFLOAT && dtype.bits == 32)
            ((float *)data)[i] = (float)at_rng_uniform(rng);
        else if (dtype.code == AT_IR_TFLOAT && dtype.bits == 64)
            ((double *)data)[i] = at_rng_uniform(rng);
        else if (dtype.code == AT_IR_TINT && dtype.bits == 32)
            ((int32_t *)data)[i] = (int32_t)at_rng_below(rng, 17) - 8;
        else if (dtype.code == AT_IR_TINT && dtype.bits == 8)
            ((int8_t *)data)[i] = (int8_t)((int)at_rng_below(rng, 17) - 8);
        else if (dtype.code == AT_IR_TUINT && dtype.bits == 8)
            ((uint8_t *)data)[i] = (uint8_t)at_rng_below(rng, 9);
        else if (dtype.code == AT_IR_TINT && dtype.bits == 64)
            ((int64_t *)data)[i] = (int64_t)at_rng_below(rng, 17) - 8;
        else
            AT_ASSERT(!"dtype not supported by at_meas_random_fill");
    }
}
