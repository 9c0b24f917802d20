/* at_result helpers: the failed-cost convention lives here so no caller re-invents it. */
#include "core/result.h"

#include <string.h>

#include "core/alloc.h"

static const char *const err_names[AT_MEAS_ERR_COUNT] = {
    [AT_MEAS_OK] = "NO_ERROR",
    [AT_MEAS_INSTANTIATION_ERROR] = "INSTANTIATION_ERROR",
    [AT_MEAS_COMPILE_HOST] = "COMPILE_HOST",
    [AT_MEAS_COMPILE_DEVICE] = "COMPILE_DEVICE",
    [AT_MEAS_RUNTIME_DEVICE] = "RUNTIME_DEVICE",
    [AT_MEAS_WRONG_ANSWER] = "WRONG_ANSWER",
    [AT_MEAS_BUILD_TIMEOUT] = "BUILD_TIMEOUT",
    [AT_MEAS_RUN_TIMEOUT] = "RUN_TIMEOUT",
    [AT_MEAS_UNKNOWN_ERROR] = "UNKNOWN_ERROR",
};

const char *at_meas_err_name(at_meas_err e)
{
    if ((unsigned)e >= AT_MEAS_ERR_COUNT) return "UNKNOWN_ERROR";
    return err_names[e];
}

void at_result_init(at_result *r)
{
    memset(r, 0, sizeof *r);
}

void at_result_fini(at_result *r)
{
    at_free(r->costs_s);
    at_free(r->msg);
    memset(r, 0, sizeof *r);
}

double at_result_mean_cost(const at_result *r)
{
    if (r->err != AT_MEAS_OK || r->n_costs == 0) return AT_FAILED_COST_S;
    double sum = 0;
    for (size_t i = 0; i < r->n_costs; i++) sum += r->costs_s[i];
    return sum / (double)r->n_costs;
}

at_status at_result_set_costs(at_result *r, const double *costs_s, size_t n)
{
    double *c = NULL;
    if (n) {
        c = at_malloc(n * sizeof *c);
        if (!c) return AT_OOM();
        memcpy(c, costs_s, n * sizeof *c);
    }
    at_free(r->costs_s);
    r->costs_s = c;
    r->n_costs = n;
    return AT_OK;
}

at_status at_result_copy(at_result *dst, const at_result *src)
{
    if (dst == src) return AT_OK;
    at_result tmp = *src;
    tmp.costs_s = NULL;
    tmp.n_costs = 0;
    tmp.msg = NULL;
    if (src->msg && !(tmp.msg = at_strdup(src->msg))) return AT_OOM();
    at_status st = at_result_set_costs(&tmp, src->costs_s, src->n_costs);
    if (st != AT_OK) {
        at_free(tmp.msg);
        return st;
    }
    at_result_fini(dst);
    *dst = tmp;
    return AT_OK;
}
