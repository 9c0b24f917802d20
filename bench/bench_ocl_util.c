/* Shared by the OpenCL benches (bench_ocl_util.h). */
#include "bench/bench_ocl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/strbuf.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double at_bench_median(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void at_bench_measure_gflops(at_meas_ocl *m, const at_task *t, at_config *const *cfg, size_t n, double *gflops,
                             int verbose, const char *who)
{
    at_meas_input *in = at_calloc(n, sizeof *in);
    at_result *res = at_calloc(n, sizeof *res);
    if (!in || !res) {
        fprintf(stderr, "%s: out of memory\n", who);
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        in[i] = (at_meas_input){t, cfg[i]};
        at_result_init(&res[i]);
    }
    if (at_meas_ocl_measure(m, in, n, res) != AT_OK) fprintf(stderr, "%s: %s\n", who, at_last_error());
    for (size_t i = 0; i < n; i++) {
        gflops[i] = 0;
        if (res[i].err == AT_MEAS_OK && res[i].n_costs > 0) {
            double c[64];
            size_t k = res[i].n_costs < 64 ? res[i].n_costs : 64;
            memcpy(c, res[i].costs_s, k * sizeof *c);
            gflops[i] = at_task_flop(t) / at_bench_median(c, k) / 1e9;
        } else if (verbose) {
            fprintf(stderr, "  config %lld: %s %s\n", (long long)at_config_index(cfg[i]), at_meas_err_name(res[i].err),
                    res[i].msg ? res[i].msg : "");
        }
        at_result_fini(&res[i]);
    }
    at_free(in);
    at_free(res);
}

/* Same workload for the pack's purposes: the same args, or for dense the same shapes and dtype
 * (the pack's dense records carry TVM 0.6's bias argument). */
bool at_bench_same_workload(const at_template *tm, const at_args *ours, const at_rec *r)
{
    if (strcmp(r->task_name, tm->name) != 0) return false;
    cJSON *j = NULL;
    at_args theirs;
    bool ok = at_json_parse(r->args_json, strlen(r->args_json), &j) == AT_OK && at_op_args_from_json(tm->op, j, &theirs) == AT_OK;
    at_json_free(j);
    if (!ok) return false;
    if (tm->op == AT_OP_DENSE) {
        const at_dense_args *a = &ours->u.dense, *b = &theirs.u.dense;
        return a->m == b->m && a->n == b->n && a->k == b->k && at_ir_type_eq(a->dtype, b->dtype);
    }
    at_strbuf x, y;
    at_strbuf_init(&x);
    at_strbuf_init(&y);
    at_op_args_write_json(ours, &x);
    at_op_args_write_json(&theirs, &y);
    ok = !strcmp(at_strbuf_cstr(&x), at_strbuf_cstr(&y));
    at_strbuf_fini(&x);
    at_strbuf_fini(&y);
    return ok;
}
