/* Helpers the OpenCL benches share: the median of timed rounds and GFLOPS of configs measured
 * through measure/'s OpenCL pool. */
#ifndef AT_BENCH_OCL_UTIL_H
#define AT_BENCH_OCL_UTIL_H

#include <stddef.h>

#include "measure/ocl.h"
#include "records/record.h"

/* Median of v[0..n) (sorts v); 0 for n == 0. */
double at_bench_median(double *v, size_t n);

/* Measures configs cfg[0..n) of t on m; gflops[i] = task FLOPs / median round time / 1e9, or 0 for a
 * config that failed (printed on stderr, prefixed by who, when verbose). */
void at_bench_measure_gflops(at_meas_ocl *m, const at_task *t, at_config *const *cfg, size_t n, double *gflops,
                             int verbose, const char *who);

/* Is record r TopHub's for task tm with args ours? The same args, or for dense the same shapes and
 * dtype (the pack's dense records carry TVM 0.6's bias argument). */
bool at_bench_same_workload(const at_template *tm, const at_args *ours, const at_rec *r);

#endif
