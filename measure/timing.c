/* TVM's time evaluator and cost trimming, as pure functions over a timing callback so the
 * number-growth rule is unit-tested with a fake clock. */
#include <stdlib.h>

#include "core/stats.h"
#include "measure/measure.h"

at_status at_meas_time_evaluator(at_meas_time_fn fn, void *ctx, int64_t number, int repeat, double min_repeat_ms,
                                 double *costs_s, int64_t *final_number)
{
    return at_meas_time_evaluator_pre(fn, NULL, ctx, number, repeat, min_repeat_ms, costs_s, final_number);
}

at_status at_meas_time_evaluator_pre(at_meas_time_fn fn, at_meas_preproc_fn preproc, void *ctx, int64_t number,
                                     int repeat, double min_repeat_ms, double *costs_s, int64_t *final_number)
{
    AT_ASSERT(number >= 1 && repeat >= 1);
    /* warm-up, untimed: NULL also lets a program run its preparation kernels (weight packing) */
    AT_TRY(fn(ctx, 1, NULL));
    for (int r = 0; r < repeat; r++) {
        if (preproc) AT_TRY(preproc(ctx));
        double duration_ms = 0;
        int zero_times = 0;
        do {
            if (duration_ms > 0) {
                double grown = min_repeat_ms / (duration_ms / (double)number) + 1, golden = (double)number * 1.618;
                number = (int64_t)(grown > golden ? grown : golden);
            }
            AT_TRY(fn(ctx, number, &duration_ms));
            if (duration_ms == 0) zero_times++;
        } while (duration_ms < min_repeat_ms && zero_times < 100);
        costs_s[r] = duration_ms / 1e3 / (double)number;
    }
    if (final_number) *final_number = number;
    return AT_OK;
}

size_t at_meas_trim_costs(double *costs_s, size_t n)
{
    if (n <= 2) return n;
    qsort(costs_s, n, sizeof *costs_s, at_cmp_double);
    for (size_t i = 1; i + 1 < n; i++) costs_s[i - 1] = costs_s[i];
    return n - 2;
}
