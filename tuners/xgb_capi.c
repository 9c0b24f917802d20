/* The XGBoost C API adapter (STYLE 2.4): the only file that sees XGBoost's handles and its
 * "-1 + XGBGetLastError()" convention, turned into AT_EDEVICE with the first line of the
 * message (the rest is a dmlc stack trace). Parameter values are validated lazily by XGBoost,
 * so a bad one surfaces at the first boosting round, also as AT_EDEVICE. Prediction buffers
 * belong to the booster and are copied before the next call. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include <xgboost/c_api.h>

#include "core/alloc.h"
#include "tuners/internal.h"
#include "tuners/tuner.h"

struct at_tuner_xgb_data {
    DMatrixHandle h;
};

struct at_tuner_xgb_booster {
    BoosterHandle h;
};

/* AT_EDEVICE naming the call, with XGBoost's first message line. */
static at_status xgb_fail(const char *call)
{
    const char *msg = XGBGetLastError();
    if (!msg) msg = "";
    size_t n = strcspn(msg, "\n");
    return AT_FAIL(AT_EDEVICE, "XGBoost %s failed: %.*s", call, (int)n, msg);
}

#define XGB_CHECK(call, expr)                  \
    do {                                       \
        if ((expr) != 0) return xgb_fail(call); \
    } while (0)

/* XGBoost's global logger prints warnings to stderr; library code never prints. */
static void quiet_once(void)
{
    static atomic_int done;
    if (atomic_exchange(&done, 1) == 0) (void)XGBSetGlobalConfig("{\"verbosity\":0}");
}

at_status at_tuner_xgb_data_new(const float *rows, size_t n_rows, size_t n_cols, int n_threads,
                                at_tuner_xgb_data **out)
{
    AT_ASSERT(rows && n_rows > 0 && n_cols > 0 && out);
    *out = NULL;
    quiet_once();
    at_tuner_xgb_data *d = at_calloc(1, sizeof *d);
    if (!d) return AT_OOM();
    if (XGDMatrixCreateFromMat_omp(rows, (bst_ulong)n_rows, (bst_ulong)n_cols, NAN, &d->h, n_threads) != 0) {
        at_free(d);
        return xgb_fail("XGDMatrixCreateFromMat_omp");
    }
    *out = d;
    return AT_OK;
}

void at_tuner_xgb_data_free(at_tuner_xgb_data *d)
{
    if (!d) return;
    (void)XGDMatrixFree(d->h);
    at_free(d);
}

at_status at_tuner_xgb_data_set_labels(at_tuner_xgb_data *d, const float *y, size_t n)
{
    XGB_CHECK("XGDMatrixSetFloatInfo(label)", XGDMatrixSetFloatInfo(d->h, "label", y, (bst_ulong)n));
    return AT_OK;
}

at_status at_tuner_xgb_data_set_base_margin(at_tuner_xgb_data *d, const float *m, size_t n)
{
    XGB_CHECK("XGDMatrixSetFloatInfo(base_margin)", XGDMatrixSetFloatInfo(d->h, "base_margin", m, (bst_ulong)n));
    return AT_OK;
}

at_status at_tuner_xgb_data_set_groups(at_tuner_xgb_data *d, const unsigned *sizes, size_t n_groups)
{
    XGB_CHECK("XGDMatrixSetUIntInfo(group)", XGDMatrixSetUIntInfo(d->h, "group", sizes, (bst_ulong)n_groups));
    return AT_OK;
}

at_status at_tuner_xgb_booster_new(at_tuner_xgb_data *train, const char *const *keys, const char *const *values,
                                   size_t n_params, at_tuner_xgb_booster **out)
{
    AT_ASSERT(train && out);
    *out = NULL;
    quiet_once();
    at_tuner_xgb_booster *b = at_calloc(1, sizeof *b);
    if (!b) return AT_OOM();
    DMatrixHandle cache[1] = {train->h};
    if (XGBoosterCreate(cache, 1, &b->h) != 0) {
        at_free(b);
        return xgb_fail("XGBoosterCreate");
    }
    for (size_t i = 0; i < n_params; i++) {
        if (XGBoosterSetParam(b->h, keys[i], values[i]) != 0) {
            at_status st = xgb_fail("XGBoosterSetParam");
            at_tuner_xgb_booster_free(b);
            return st;
        }
    }
    *out = b;
    return AT_OK;
}

void at_tuner_xgb_booster_free(at_tuner_xgb_booster *b)
{
    if (!b) return;
    (void)XGBoosterFree(b->h);
    at_free(b);
}

at_status at_tuner_xgb_booster_update(at_tuner_xgb_booster *b, int iter, at_tuner_xgb_data *train)
{
    XGB_CHECK("XGBoosterUpdateOneIter", XGBoosterUpdateOneIter(b->h, iter, train->h));
    return AT_OK;
}

at_status at_tuner_xgb_booster_predict(at_tuner_xgb_booster *b, at_tuner_xgb_data *d, bool margin, float *out,
                                       size_t n)
{
    const char *cfg = margin ? "{\"type\":1,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
                               "\"strict_shape\":false}"
                             : "{\"type\":0,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
                               "\"strict_shape\":false}";
    const bst_ulong *shape = NULL;
    bst_ulong dim = 0;
    const float *res = NULL;
    XGB_CHECK("XGBoosterPredictFromDMatrix", XGBoosterPredictFromDMatrix(b->h, d->h, cfg, &shape, &dim, &res));
    bst_ulong total = 1;
    for (bst_ulong i = 0; i < dim; i++) total *= shape[i];
    if (total != (bst_ulong)n)
        return AT_FAIL(AT_EDEVICE, "XGBoost predicted %llu values for %zu rows", (unsigned long long)total, n);
    memcpy(out, res, n * sizeof *out);
    return AT_OK;
}

void at_tuner_xgboost_version(int *major, int *minor, int *patch)
{
    XGBoostVersion(major, minor, patch);
}
