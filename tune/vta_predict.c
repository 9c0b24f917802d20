/* VTA predict: measured log records against the simulator's cycle model. Each record is prepared
 * once (task, tiling, template instantiation, lowering, encoding, a skip-exec simulator holding its
 * DRAM and micro-ops) and can then be re-timed under any table of constants without rebuilding
 * anything, which is what makes the calibration search cheap: only the cycle model runs. */
#include "tune/vta_predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/vta/vtagen.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "measure/vta_runner.h"
#include "templates/ops.h"
#include "templates/template.h"
#include "vta/sim.h"

/* ---- hardware from a model name -------------------------------------------------------------- */

static int log2_exact(long v)
{
    int l = 0;
    if (v < 1) return -1;
    while ((1L << l) < v) l++;
    return (1L << l) == v ? l : -1;
}

at_status at_vta_pred_hw_for_model(const char *model, at_vta_hw *out)
{
    char target[AT_VTA_TARGET_MAX];
    const char *us = strchr(model, '_');
    size_t tlen = us ? (size_t)(us - model) : strlen(model);
    if (tlen == 0 || tlen >= sizeof target) return AT_FAIL(AT_EINVAL, "vta model '%s': no target name", model);
    memcpy(target, model, tlen);
    target[tlen] = '\0';
    for (size_t i = 0; i < tlen; i++)
        if (!((target[i] >= 'a' && target[i] <= 'z') || (target[i] >= '0' && target[i] <= '9')))
            return AT_FAIL(AT_EINVAL, "vta model '%s': bad target name", model);
    long b = 1, blk = 16, iw = 8, ww = 8, aw = 32, lu = 15, li = 15, lw = 18, la = 17;
    if (us) {
        int used = 0;
        if (sscanf(us + 1, "%ldx%ld_i%ldw%lda%ld_%ld_%ld_%ld_%ld%n", &b, &blk, &iw, &ww, &aw, &lu, &li, &lw, &la,
                   &used) != 9 ||
            us[1 + used] != '\0')
            return AT_FAIL(AT_EINVAL,
                           "vta model '%s': expected TARGET_<BATCH>x<BLOCK>_i<bits>w<bits>a<bits>_<uop>_<inp>_<wgt>_<acc>",
                           model);
    }
    int lb = log2_exact(b), lk = log2_exact(blk), li_w = log2_exact(iw), lw_w = log2_exact(ww), la_w = log2_exact(aw);
    if (lb < 0 || lk < 0 || li_w < 0 || lw_w < 0 || la_w < 0)
        return AT_FAIL(AT_EINVAL, "vta model '%s': batch, block and widths must be powers of two", model);
    char json[512];
    snprintf(json, sizeof json,
             "{\"TARGET\": \"%s\", \"HW_VER\": \"0.0.2\", \"LOG_INP_WIDTH\": %d, \"LOG_WGT_WIDTH\": %d, "
             "\"LOG_ACC_WIDTH\": %d, \"LOG_BATCH\": %d, \"LOG_BLOCK\": %d, \"LOG_UOP_BUFF_SIZE\": %ld, "
             "\"LOG_INP_BUFF_SIZE\": %ld, \"LOG_WGT_BUFF_SIZE\": %ld, \"LOG_ACC_BUFF_SIZE\": %ld}",
             target, li_w, lw_w, la_w, lb, lk, lu, li, lw, la);
    at_status st = at_vta_hw_from_json(json, strlen(json), out);
    if (st == AT_EPARSE) return AT_FAIL(AT_EINVAL, "vta model '%s': %s", model, at_last_error());
    return st;
}

/* ---- statistics -------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double at_vta_pred_median(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct keyed {
    double v;
    size_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
    return (x->i > y->i) - (x->i < y->i);
}

/* 1-based ranks, ties averaged. */
static void ranks(const double *v, size_t n, keyed *tmp, double *rank)
{
    for (size_t i = 0; i < n; i++) tmp[i] = (keyed){v[i], i};
    qsort(tmp, n, sizeof *tmp, cmp_keyed);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b + 1 < n && tmp[b + 1].v == tmp[a].v) b++;
        double r = ((double)a + (double)b) / 2 + 1;
        for (size_t k = a; k <= b; k++) rank[tmp[k].i] = r;
        a = b + 1;
    }
}

at_status at_vta_pred_spearman(const double *x, const double *y, size_t n, double *out)
{
    *out = 0;
    if (n < 2) return AT_OK;
    keyed *tmp = at_malloc(n * sizeof *tmp);
    double *rx = at_malloc(n * sizeof *rx), *ry = at_malloc(n * sizeof *ry);
    if (!tmp || !rx || !ry) {
        at_free(tmp), at_free(rx), at_free(ry);
        return AT_OOM();
    }
    ranks(x, n, tmp, rx);
    ranks(y, n, tmp, ry);
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) mx += rx[i], my += ry[i];
    mx /= (double)n, my /= (double)n;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    if (sxx > 0 && syy > 0) *out = sxy / sqrt(sxx * syy);
    at_free(tmp), at_free(rx), at_free(ry);
    return AT_OK;
}

/* ---- one record, prepared once, timed many times -------------------------------------------- */

typedef struct prep {
    at_vta_sim *sim; /* skip-exec simulator with the program's DRAM and micro-ops; NULL: cannot run */
    uint64_t   *words;
    size_t      n_insns;
    double      hz;
} prep;

static void prep_fini(prep *p)
{
    at_vta_sim_free(p->sim);
    at_free(p->words);
    memset(p, 0, sizeof *p);
}

static void row_error(at_vta_pred_row *row, const char *what, const char *detail)
{
    row->ok = false;
    snprintf(row->error, sizeof row->error, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

static void workload_text(const at_task *t, char *buf, size_t cap)
{
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(&at_task_args(t)->u.conv2d_packed, &g);
    snprintf(buf, cap, "N=%lld %lldx%lldx%lld -> %lld k%lldx%lld s%lld p%lld", (long long)(g.n_b * g.batch),
             (long long)(g.ci_b * g.block_in), (long long)g.h, (long long)g.w, (long long)(g.co_b * g.block_out),
             (long long)g.kh, (long long)g.kw, (long long)g.sh, (long long)g.ph);
}

/* Fills the row's identity and measurement; returns false when the record is not one to predict
 * (another task, or a failed measurement). */
static bool row_from_record(const at_rec *r, at_vta_pred_row *row)
{
    memset(row, 0, sizeof *row);
    if (strcmp(r->task_name, "conv2d_packed.vta") != 0 || r->result.err != AT_MEAS_OK || r->result.n_costs == 0)
        return false;
    row->line = r->line;
    snprintf(row->model, sizeof row->model, "%s", r->target.model ? r->target.model : "unknown");
    row->config_index = at_config_index(r->config);
    double sum = 0;
    for (size_t i = 0; i < r->result.n_costs; i++) sum += r->result.costs_s[i];
    row->measured_s = sum / (double)r->result.n_costs;
    return true;
}

/* Prepares a record: AT_OK with p->sim set, or AT_OK with the row's error set (p->sim NULL); only
 * AT_ENOMEM is a failure. */
static at_status prepare(const at_rec *r, const at_vta_pred_opts *o, at_vta_pred_row *row, prep *p)
{
    memset(p, 0, sizeof *p);
    at_vta_hw hw;
    if (o->hw) {
        hw = *o->hw;
    } else {
        at_status st = at_vta_pred_hw_for_model(row->model, &hw);
        if (st == AT_ENOMEM) return st;
        if (st != AT_OK) {
            row_error(row, "unknown hardware model", at_last_error());
            return AT_OK;
        }
    }
    at_task *t = NULL;
    at_status st = at_task_create("conv2d_packed.vta", AT_TARGET_VTA, r->args_json, &t);
    if (st == AT_ENOMEM) return st;
    if (st != AT_OK) {
        row_error(row, "bad workload", at_last_error());
        return AT_OK;
    }
    workload_text(t, row->workload, sizeof row->workload);
    /* a measurement above the GEMM peak cannot be of this workload (TopHub's Yolo-tiny rows carry
     * another layer's costs): nothing to compare the model with */
    double gops = at_op_conv2d_packed_flop(&at_task_args(t)->u.conv2d_packed) / row->measured_s / 1e9;
    if (gops > hw.gemm_peak_gops) {
        char d[96];
        snprintf(d, sizeof d, "%.1f GOPS measured, the peak is %.1f", gops, hw.gemm_peak_gops);
        row_error(row, "measured faster than the GEMM peak", d);
        at_task_free(t);
        return AT_OK;
    }
    at_vtagen_conv2d plan;
    at_vtagen_prog *prog = NULL;
    uint32_t *uops = NULL;
    at_arena *arena = NULL;
    st = at_meas_vta_conv2d_plan(&hw, t, r->config, &plan);
    if (st != AT_OK) {
        row_error(row, "instantiation error", at_last_error());
        st = AT_OK;
        goto done;
    }
    /* the template's own checks, as the builder runs them */
    if ((st = at_arena_new(0, &arena)) != AT_OK) goto done;
    const at_ir_program *ir;
    st = at_task_instantiate(t, r->config, arena, &ir);
    if (st == AT_ENOMEM) goto done;
    if (st != AT_OK) {
        row_error(row, "instantiation error", at_last_error());
        st = AT_OK;
        goto done;
    }
    at_vta_sim_opts so = {.skip_exec = true, .timing = o->timing};
    if ((st = at_vta_sim_new(&hw, &so, &p->sim)) != AT_OK) goto done;
    at_tensor_desc td[AT_OP_MAX_TENSORS];
    at_op_tensors(at_task_args(t), td);
    at_vtagen_addrs addrs = {0};
    if ((st = at_vta_sim_dram_alloc(p->sim, (size_t)td[0].n_elems, &addrs.data)) != AT_OK ||
        (st = at_vta_sim_dram_alloc(p->sim, (size_t)td[1].n_elems, &addrs.kernel)) != AT_OK ||
        (st = at_vta_sim_dram_alloc(p->sim, (size_t)td[2].n_elems, &addrs.out)) != AT_OK)
        goto done;
    st = at_vtagen_conv2d_lower(&hw, &plan, &addrs, &prog);
    if (st == AT_EINVAL || st == AT_EDEVICE) {
        row_error(row, st == AT_EINVAL ? "instantiation error" : "runtime device error", at_last_error());
        st = AT_OK;
        goto done;
    }
    if (st != AT_OK) goto done;
    size_t ni = at_vtagen_prog_n_insns(prog), nu = at_vtagen_prog_n_uops(prog);
    uint64_t uop_phys = 0;
    p->words = at_malloc(2 * ni * sizeof *p->words);
    uops = at_malloc((nu ? nu : 1) * sizeof *uops);
    if (!p->words || !uops) {
        st = AT_OOM();
        goto done;
    }
    if ((st = at_vta_sim_dram_alloc(p->sim, (nu ? nu : 1) * sizeof *uops, &uop_phys)) != AT_OK) goto done;
    st = at_vtagen_prog_encode(&hw, prog, uop_phys, p->words, uops);
    if (st == AT_EINVAL) {
        row_error(row, "instantiation error", at_last_error());
        st = AT_OK;
        goto done;
    }
    if (st != AT_OK) goto done;
    if ((st = at_vta_sim_dram_write(p->sim, uop_phys, uops, nu * sizeof *uops)) != AT_OK) goto done;
    p->n_insns = ni;
    p->hz = (double)hw.fpga_freq_mhz * 1e6;
    row->ok = true;
done:
    if (st != AT_OK || !row->ok) {
        at_free(p->words);
        p->words = NULL;
        at_vta_sim_free(p->sim);
        p->sim = NULL;
    }
    at_free(uops);
    at_arena_free(arena);
    at_vtagen_prog_free(prog);
    at_task_free(t);
    return st;
}

/* Runs a prepared record under timing; a device failure becomes the row's error. */
static at_status time_prep(prep *p, const at_vta_timing *timing, at_vta_pred_row *row)
{
    if (!p->sim) return AT_OK;
    at_vta_sim_set_timing(p->sim, timing);
    at_vta_stats s;
    at_status st = at_vta_sim_run(p->sim, p->words, p->n_insns, &s);
    if (st == AT_EDEVICE || st == AT_ETIMEOUT) {
        row_error(row, "runtime device error", at_last_error());
        prep_fini(p);
        return AT_OK;
    }
    AT_TRY(st);
    row->cycles = s.cycles;
    at_vta_timing dflt;
    if (!timing) at_vta_timing_default(&dflt);
    row->simulated_s = (double)at_vta_timing_call_cycles(timing ? timing : &dflt, s.cycles) / p->hz;
    row->ratio = row->simulated_s / row->measured_s;
    return AT_OK;
}

/* ---- predict ------------------------------------------------------------------------------------ */

static at_status summarize(const at_vta_pred_row *rows, size_t n, const char *model, at_vta_pred_summary *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->model, sizeof out->model, "%s", model ? model : "");
    double *err = at_malloc((n ? n : 1) * sizeof *err), *sim = at_malloc((n ? n : 1) * sizeof *sim),
           *meas = at_malloc((n ? n : 1) * sizeof *meas);
    if (!err || !sim || !meas) {
        at_free(err), at_free(sim), at_free(meas);
        return AT_OOM();
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].ok || (model && strcmp(rows[i].model, model) != 0)) continue;
        err[k] = fabs(rows[i].simulated_s - rows[i].measured_s) / rows[i].measured_s;
        sim[k] = rows[i].simulated_s;
        meas[k] = rows[i].measured_s;
        k++;
    }
    out->n = k;
    out->median_rel_err = at_vta_pred_median(err, k);
    at_status st = at_vta_pred_spearman(sim, meas, k, &out->spearman);
    at_free(err), at_free(sim), at_free(meas);
    return st;
}

void at_vta_pred_free(at_vta_pred *p)
{
    if (!p) return;
    at_free(p->rows);
    at_free(p->models);
    at_free(p);
}

at_status at_vta_predict_log(const at_rec_log *log, const at_vta_pred_opts *opts, at_vta_pred **out)
{
    *out = NULL;
    at_vta_pred_opts o = {0};
    if (opts) o = *opts;
    at_vta_pred *p = at_calloc(1, sizeof *p);
    if (!p) return AT_OOM();
    at_status st = AT_OK;
    p->rows = at_calloc(log->n ? log->n : 1, sizeof *p->rows);
    p->models = at_calloc(log->n ? log->n : 1, sizeof *p->models);
    if (!p->rows || !p->models) {
        st = AT_OOM();
        goto fail;
    }
    for (size_t i = 0; i < log->n; i++) {
        at_vta_pred_row *row = &p->rows[p->n_rows];
        if (!row_from_record(&log->recs[i], row)) {
            p->n_skipped++;
            continue;
        }
        prep pr;
        if ((st = prepare(&log->recs[i], &o, row, &pr)) != AT_OK) goto fail;
        st = time_prep(&pr, o.timing, row);
        prep_fini(&pr);
        if (st != AT_OK) goto fail;
        p->n_failed += !row->ok;
        p->n_rows++;
        size_t m = 0;
        while (m < p->n_models && strcmp(p->models[m].model, row->model) != 0) m++;
        if (m == p->n_models) snprintf(p->models[p->n_models++].model, sizeof p->models[0].model, "%s", row->model);
    }
    if ((st = summarize(p->rows, p->n_rows, NULL, &p->all)) != AT_OK) goto fail;
    for (size_t m = 0; m < p->n_models; m++) {
        char model[AT_VTA_MODEL_MAX];
        memcpy(model, p->models[m].model, sizeof model);
        if ((st = summarize(p->rows, p->n_rows, model, &p->models[m])) != AT_OK) goto fail;
    }
    *out = p;
    return AT_OK;
fail:
    at_vta_pred_free(p);
    return st;
}

/* ---- calibration ------------------------------------------------------------------------------- */

typedef struct fitset {
    prep            *preps;
    at_vta_pred_row *rows;
    size_t           n;
    double          *scratch;
} fitset;

/* The mean over hardware models of the median |log(sim / meas)| of the model's records that run,
 * so that each model counts the same however many records it has; AT_EINVAL when none runs. */
static at_status objective(fitset *f, const at_vta_timing *t, double *out)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->preps[i].sim) AT_TRY(time_prep(&f->preps[i], t, &f->rows[i]));
    double sum = 0;
    size_t n_models = 0;
    for (size_t i = 0; i < f->n; i++) {
        bool first = true; /* first row of its model? */
        for (size_t j = 0; j < i && first; j++) first = strcmp(f->rows[j].model, f->rows[i].model) != 0;
        if (!first) continue;
        size_t k = 0;
        for (size_t j = i; j < f->n; j++)
            if (f->rows[j].ok && !strcmp(f->rows[j].model, f->rows[i].model))
                f->scratch[k++] = fabs(log(f->rows[j].simulated_s / f->rows[j].measured_s));
        if (k == 0) continue;
        sum += at_vta_pred_median(f->scratch, k);
        n_models++;
    }
    if (n_models == 0) return AT_FAIL(AT_EINVAL, "vta fit: no record of the log can run");
    *out = sum / (double)n_models;
    return AT_OK;
}

static at_status try_value(fitset *f, at_vta_timing *t, const at_vta_fit_param *fp, size_t idx, long v,
                           double *best, bool *improved)
{
    uint32_t old = at_vta_timing_get(t, idx);
    if (v < (long)fp->lo || (fp->hi && v > (long)fp->hi) || v == (long)old) return AT_OK;
    if (at_vta_timing_set(t, fp->name, v) != AT_OK) return AT_OK; /* outside the allowed range */
    double obj;
    AT_TRY(objective(f, t, &obj));
    if (obj < *best - 1e-12) {
        *best = obj;
        *improved = true;
        return AT_OK;
    }
    AT_TRY(at_vta_timing_set(t, fp->name, (long)old));
    return AT_OK;
}

at_status at_vta_pred_fit(const at_rec_log *log, const at_vta_pred_opts *opts, const at_vta_fit_param *params,
                          size_t n_params, int max_rounds, at_vta_timing *timing, double *objective_out)
{
    at_vta_pred_opts o = {0};
    if (opts) o = *opts;
    size_t *idx = at_malloc((n_params ? n_params : 1) * sizeof *idx);
    if (!idx) return AT_OOM();
    for (size_t k = 0; k < n_params; k++) {
        size_t i = 0;
        while (i < at_vta_timing_count() && strcmp(at_vta_timing_name(i), params[k].name) != 0) i++;
        if (i == at_vta_timing_count()) {
            at_free(idx);
            return AT_FAIL(AT_ENOTFOUND, "vta fit: no cycle-model constant named '%s'", params[k].name);
        }
        uint32_t v = at_vta_timing_get(timing, i);
        if (v < params[k].lo || (params[k].hi && v > params[k].hi)) {
            at_free(idx);
            return AT_FAIL(AT_EINVAL, "vta fit: %s = %u starts outside [%u, %u]", params[k].name, v, params[k].lo,
                           params[k].hi);
        }
        idx[k] = i;
    }
    fitset f = {0};
    at_status st = AT_OK;
    f.preps = at_calloc(log->n ? log->n : 1, sizeof *f.preps);
    f.rows = at_calloc(log->n ? log->n : 1, sizeof *f.rows);
    f.scratch = at_calloc(log->n ? log->n : 1, sizeof *f.scratch);
    if (!f.preps || !f.rows || !f.scratch) {
        st = AT_OOM();
        goto done;
    }
    for (size_t i = 0; i < log->n; i++) {
        if (!row_from_record(&log->recs[i], &f.rows[f.n])) continue;
        if ((st = prepare(&log->recs[i], &o, &f.rows[f.n], &f.preps[f.n])) != AT_OK) goto done;
        f.n++;
    }
    at_vta_timing t = *timing;
    double best;
    if ((st = objective(&f, &t, &best)) != AT_OK) goto done;
    static const double steps[] = {2.0, 1.5, 1.25, 1.1};
    size_t s = 0;
    for (int round = 0; round < max_rounds && s < sizeof steps / sizeof steps[0]; round++) {
        bool improved = false;
        for (size_t k = 0; k < n_params; k++) {
            long v = (long)at_vta_timing_get(&t, idx[k]);
            long up = (long)ceil((double)v * steps[s]), down = (long)floor((double)v / steps[s]);
            if (up == v) up = v + 1;
            if (down == v) down = v - 1;
            if ((st = try_value(&f, &t, &params[k], idx[k], up, &best, &improved)) != AT_OK) goto done;
            if ((long)at_vta_timing_get(&t, idx[k]) == v &&
                (st = try_value(&f, &t, &params[k], idx[k], down, &best, &improved)) != AT_OK)
                goto done;
        }
        if (!improved) s++;
    }
    *timing = t;
    if (objective_out) *objective_out = best;
done:
    for (size_t i = 0; i < f.n; i++) prep_fini(&f.preps[i]);
    at_free(f.preps);
    at_free(f.rows);
    at_free(f.scratch);
    at_free(idx);
    return st;
}
