/* The result of measuring one config: plain data shared by measure/, records/ and tuners/. */
#ifndef AT_CORE_RESULT_H
#define AT_CORE_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* TVM's MeasureErrorNo, value for value: logs store these numbers. */
typedef enum at_meas_err {
    AT_MEAS_OK = 0,
    AT_MEAS_INSTANTIATION_ERROR = 1,
    AT_MEAS_COMPILE_HOST = 2,
    AT_MEAS_COMPILE_DEVICE = 3,
    AT_MEAS_RUNTIME_DEVICE = 4,
    AT_MEAS_WRONG_ANSWER = 5,
    AT_MEAS_BUILD_TIMEOUT = 6,
    AT_MEAS_RUN_TIMEOUT = 7,
    AT_MEAS_UNKNOWN_ERROR = 8,
    AT_MEAS_ERR_COUNT
} at_meas_err;

/* "NO_ERROR", "INSTANTIATION_ERROR", ... as TVM names them; "UNKNOWN_ERROR" for bad values. */
const char *at_meas_err_name(at_meas_err e);

/* Cost logged for a failed measurement, as TVM writes it: [1000000000.0]. */
#define AT_FAILED_COST_S 1e9

typedef struct at_result {
    at_meas_err err;            /* AT_MEAS_OK when the costs are measurements */
    size_t      n_costs;        /* 0 when err != AT_MEAS_OK (the log still writes [1e9]) */
    double     *costs_s;        /* owned, n_costs seconds per run */
    double      all_cost_s;     /* build + run wall seconds for this config */
    bool        all_cost_is_int;/* TVM logs an int here for timeouts ("10", not "10.0") */
    double      timestamp;      /* seconds since the epoch when the measurement ended */
    char       *msg;            /* owned; NULL when err == AT_MEAS_OK */
} at_result;

/* Zeroes a result (no allocation). */
void at_result_init(at_result *r);
/* Frees costs_s and msg and zeroes the result. */
void at_result_fini(at_result *r);
/* Mean of the costs, or AT_FAILED_COST_S for failed results (TVM's config.cost). */
double at_result_mean_cost(const at_result *r);
/* Copies n costs into r (replacing any). AT_ENOMEM on failure. */
at_status at_result_set_costs(at_result *r, const double *costs_s, size_t n);
/* Deep copy into an initialized *dst (its old content freed). AT_ENOMEM on failure. */
at_status at_result_copy(at_result *dst, const at_result *src);

#endif
