/* The single-task tuning loop (TVM's Tuner.tune with its progress_bar and log_to_file
 * callbacks). Records are appended before the tuner learns from them, so a failure of the
 * tuner never loses a measurement; everything else follows TVM's order and rules. */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/log.h"
#include "records/record.h"
#include "tune/tune.h"

/* TVM switches the logger to debug mode after this many consecutive failures. */
#define ERROR_CT_THRESHOLD 150
/* Proposals in a row that cannot instantiate before the loop gives up on the space. */
#define MAX_INVALID_IN_A_ROW 20000

enum { FRESH, REPLAYED, INVALID }; /* what one proposal of a batch is */

/* The proposals of one batch, in the order the tuner made them: a batch asks the tuner again
 * until it holds n_parallel configs to measure, so it may hold more proposals than that. */
typedef struct proposals {
    int64_t       *idx;
    at_config    **configs;
    at_result     *results; /* proposal order; what the tuner is updated with */
    size_t        *replay;  /* index into o->measured, or SIZE_MAX */
    unsigned char *kind;
    size_t         cap;
} proposals;

static at_status proposals_reserve(proposals *p, size_t n)
{
    if (n <= p->cap) return AT_OK;
    size_t cap = p->cap ? p->cap : 8;
    while (cap < n) cap *= 2;
    int64_t *idx = at_realloc(p->idx, cap * sizeof *idx);
    if (idx) p->idx = idx;
    at_config **configs = at_realloc(p->configs, cap * sizeof *configs);
    if (configs) p->configs = configs;
    at_result *results = at_realloc(p->results, cap * sizeof *results);
    if (results) p->results = results;
    size_t *replay = at_realloc(p->replay, cap * sizeof *replay);
    if (replay) p->replay = replay;
    unsigned char *kind = at_realloc(p->kind, cap);
    if (kind) p->kind = kind;
    if (!idx || !configs || !results || !replay || !kind) return AT_OOM();
    for (size_t k = p->cap; k < cap; k++) {
        p->configs[k] = NULL;
        at_result_init(&p->results[k]);
    }
    p->cap = cap;
    return AT_OK;
}

static void proposals_fini(proposals *p)
{
    for (size_t k = 0; k < p->cap; k++) {
        at_config_free(p->configs[k]);
        at_result_fini(&p->results[k]);
    }
    at_free(p->idx);
    at_free(p->configs);
    at_free(p->results);
    at_free(p->replay);
    at_free(p->kind);
}

/* Does config c of task instantiate (the template's schedule accepts it, and the runner's device
 * limits: at_meas_runner_check)? When it does not, *r
 * becomes the INSTANTIATION_ERROR result a builder would have returned, without a builder: such a
 * config is no trial (issue 18: never sent, never logged, never counted), but the tuner still
 * learns it. Only AT_EINVAL is a verdict; anything else (memory) leaves it to the builder. */
static bool instantiates(const at_task *task, const at_config *c, const at_meas_runner *runner, at_result *r,
                         at_status *st)
{
    at_arena *arena = NULL;
    const at_ir_program *p = NULL;
    *st = at_arena_new(0, &arena);
    if (*st != AT_OK) return true;
    at_status ist = at_task_instantiate(task, c, arena, &p);
    if (ist == AT_OK) ist = at_meas_runner_check(runner, p); /* the device's limits */
    at_arena_free(arena);
    if (ist != AT_EINVAL) return true;
    at_result_fini(r);
    r->err = AT_MEAS_INSTANTIATION_ERROR;
    r->msg = at_strdup(at_last_error());
    r->timestamp = at_clock_wall_s();
    if (!r->msg) *st = AT_OOM();
    return false;
}

static double mono_clock(void *ctx)
{
    (void)ctx;
    return at_clock_mono_s();
}

void at_tune_format_progress(const char *prefix, const at_tune_progress *p, at_strbuf *sb)
{
    at_strbuf_printf(sb, "%s Current/Best: %7.2f/%7.2f GFLOPS | Progress: (%zu/%zu) | %.2f s", prefix ? prefix : "",
                     p->current_flops / 1e9, p->best_flops / 1e9, p->done, p->total, p->elapsed_s);
}

const char *at_tune_task_prefix(size_t i, size_t n, char buf[32])
{
    snprintf(buf, 32, "[Task %2zu/%2zu] ", i, n);
    return buf;
}

/* Debug line per trial, as TVM's "No: %d\tGFLOPS: %.2f/%.2f\tresult: %s\t%s". */
static void log_trial(size_t no, double flops, double best, const at_result *r, const at_config *c)
{
    if (at_log_get_level() > AT_LOG_DEBUG) return;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_config_write_json(c, &sb);
    if (r->err == AT_MEAS_OK)
        at_log(AT_LOG_DEBUG, "No: %zu\tGFLOPS: %.2f/%.2f\tresult: mean %.6g s over %zu costs\t%s", no, flops / 1e9,
               best / 1e9, at_result_mean_cost(r), r->n_costs, at_strbuf_cstr(&sb));
    else
        at_log(AT_LOG_DEBUG, "No: %zu\tGFLOPS: %.2f/%.2f\tresult: %s %s\t%s", no, flops / 1e9, best / 1e9,
               at_meas_err_name(r->err), r->msg ? r->msg : "", at_strbuf_cstr(&sb));
    at_strbuf_fini(&sb);
}

at_status at_tune_task(const at_task *task, at_tuner *tuner, at_meas_runner *runner, const at_tune_opts *o,
                       at_tune_result *out)
{
    AT_ASSERT(task && tuner && runner && o && out);
    *out = (at_tune_result){.best_index = -1, .best_cost_s = AT_FAILED_COST_S};
    if (o->n_trial == 0) return AT_FAIL(AT_EINVAL, "n_trial must be at least 1");
    double (*clock)(void *) = o->clock_s ? o->clock_s : mono_clock;
    double t0 = clock(o->clock_ctx);
    size_t batch = o->batch_size ? o->batch_size : at_meas_runner_batch_size(runner);
    if (batch == 0) batch = 1;
    size_t np = batch, most = o->batch_size ? batch : at_meas_runner_batch_ahead(runner);
    if (most < np) most = np;
    size_t early = o->early_stopping ? o->early_stopping : SIZE_MAX;
    const char *target = o->target_str ? o->target_str : "opencl";
    const char *name = at_task_template(task)->name;

    proposals pr = {0};
    at_meas_input *inputs = at_calloc(most, sizeof *inputs);
    at_result *fresh = at_calloc(most, sizeof *fresh);
    size_t invalid_in_a_row = 0;
    char *first_error = NULL;
    at_strbuf args;
    at_strbuf_init(&args);
    at_strbuf_putc(&args, '[');
    at_op_args_write_json(at_task_args(task), &args);
    at_strbuf_putc(&args, ']');
    at_status st = inputs && fresh ? at_strbuf_status(&args) : AT_OOM();
    if (st == AT_OK) st = proposals_reserve(&pr, most);
    for (size_t k = 0; fresh && k < most; k++) at_result_init(&fresh[k]);

    at_tune_progress prog = {.total = o->n_trial};
    size_t i = 0, error_ct = 0;
    bool warned = false;
    /* resuming: the earlier trials come first, as if this call had measured them */
    if (st == AT_OK && o->n_measured) {
        AT_ASSERT(o->measured && o->measured_results);
        for (size_t k = 0; k < o->n_measured; k++) {
            const at_result *r = &o->measured_results[k];
            double flops = at_tuner_result_flops(task, r);
            if (r->err == AT_MEAS_OK)
                error_ct = 0;
            else {
                error_ct++;
                out->n_errors++;
            }
            if (flops > out->best_flops) {
                out->best_flops = flops;
                out->best_cost_s = at_result_mean_cost(r);
                out->best_index = o->measured[k];
                out->best_iter = k;
            }
        }
        double u0 = at_clock_mono_s();
        st = at_tuner_update(tuner, o->measured, o->measured_results, o->n_measured);
        out->tuner_s += at_clock_mono_s() - u0;
        i = out->n_trials = out->n_resumed = o->n_measured;
        prog.done = i;
        prog.best_flops = out->best_flops;
    }
    if (st == AT_OK && o->on_progress) o->on_progress(o->user, &prog);
    if (st == AT_OK && early != SIZE_MAX && i > 0 && i >= out->best_iter + early) {
        out->early_stopped = true; /* the interrupted run would have stopped here */
    }
    while (st == AT_OK && !out->early_stopped && i < o->n_trial && at_tuner_has_next(tuner)) {
        /* Proposals that no pending result can change (all of random search's, a model-based
         * tuner's until its next refit) go to the runner in one longer batch, where it overlaps
         * their builds with runs; in whole multiples of n_parallel, and never past the trial at
         * which early stopping would end the run, so the proposals, refits and stopping point are
         * TVM's batches of n_parallel (issue 18). */
        size_t window = SIZE_MAX, this_batch = np;
        if (most > np) {
            size_t ahead = at_tuner_ahead(tuner);
            if (early != SIZE_MAX) {
                size_t left = out->best_iter + early > i ? out->best_iter + early - i : 0;
                if (left < ahead) ahead = left;
            }
            if (ahead > np) {
                size_t whole = ahead >= most ? most : (ahead + np - 1) / np * np;
                this_batch = whole < most ? whole : most;
                if (ahead != SIZE_MAX) window = this_batch; /* proposals, the invalid ones included */
            }
        }
        size_t want = o->n_trial - i < this_batch ? o->n_trial - i : this_batch, got = 0, n_new = 0;
        /* Ask again until the batch holds `want` configs to measure: a proposal that cannot
         * instantiate (or was measured before) takes no builder slot, and a batch short of
         * n_parallel leaves a builder idle and costs one more build-run-cooldown round (issue 18:
         * 14 of 39 batches held one config on PoCL). The tuner still hears of every proposal,
         * in the order it made them, once the batch is measured. */
        while (st == AT_OK && n_new < want && got < window && at_tuner_has_next(tuner) &&
               invalid_in_a_row <= MAX_INVALID_IN_A_ROW) {
            size_t g = 0, ask = want - n_new;
            if (window != SIZE_MAX && ask > window - got) ask = window - got;
            st = proposals_reserve(&pr, got + ask);
            double p0 = at_clock_mono_s();
            if (st == AT_OK) st = at_tuner_next_batch(tuner, ask, pr.idx + got, &g);
            out->tuner_s += at_clock_mono_s() - p0;
            if (st != AT_OK || g == 0) break;
            for (size_t k = got; k < got + g && st == AT_OK; k++) {
                st = at_task_config(task, pr.idx[k], &pr.configs[k]);
                pr.replay[k] = SIZE_MAX;
                pr.kind[k] = FRESH;
                for (size_t j = 0; j < o->n_measured; j++)
                    if (o->measured[j] == pr.idx[k]) pr.replay[k] = j;
                if (pr.replay[k] != SIZE_MAX)
                    pr.kind[k] = REPLAYED;
                else if (st == AT_OK && !o->measure_invalid &&
                         !instantiates(task, pr.configs[k], runner, &pr.results[k], &st))
                    pr.kind[k] = INVALID;
                if (pr.kind[k] == INVALID)
                    invalid_in_a_row++;
                else
                    invalid_in_a_row = 0;
                if (pr.kind[k] == FRESH) inputs[n_new++] = (at_meas_input){task, pr.configs[k]};
            }
            got += g;
        }
        if (st != AT_OK || got == 0) break;
        if (n_new) {
            double m0 = at_clock_mono_s();
            st = at_meas_runner_measure(runner, inputs, n_new, fresh);
            out->measure_s += at_clock_mono_s() - m0;
        }
        for (size_t k = 0, m = 0; k < got && st == AT_OK; k++) {
            if (pr.kind[k] == FRESH) st = at_result_copy(&pr.results[k], &fresh[m++]);
            if (pr.kind[k] == REPLAYED) st = at_result_copy(&pr.results[k], &o->measured_results[pr.replay[k]]);
        }
        double current = 0;
        size_t t = i; /* trial number of the next fresh result */
        for (size_t k = 0; k < got && st == AT_OK; k++) {
            if (pr.kind[k] == INVALID) {
                out->n_invalid++;
                continue; /* no trial: the tuner alone hears of it */
            }
            if (pr.kind[k] == REPLAYED) {
                out->n_replayed++;
                continue; /* counted, logged and scored when it was measured */
            }
            const at_result *r = &pr.results[k];
            double flops = at_tuner_result_flops(task, r);
            if (r->err == AT_MEAS_OK) {
                error_ct = 0;
                current = flops;
            } else {
                error_ct++;
                out->n_errors++;
                if (!first_error) {
                    at_strbuf e;
                    at_strbuf_init(&e);
                    at_strbuf_printf(&e, "%s: %s", at_meas_err_name(r->err), r->msg ? r->msg : "");
                    first_error = at_strbuf_take(&e);
                }
            }
            if (flops > out->best_flops) {
                out->best_flops = flops;
                out->best_cost_s = at_result_mean_cost(r);
                out->best_index = pr.idx[k];
                out->best_iter = t;
            }
            log_trial(++t, flops, out->best_flops, r, pr.configs[k]);
            if (o->log) {
                at_rec rec;
                st = at_rec_make(target, name, at_strbuf_cstr(&args), pr.configs[k], r, &rec);
                if (st == AT_OK) {
                    st = at_rec_appender_write(o->log, &rec);
                    at_rec_fini(&rec);
                }
            }
        }
        if (st == AT_OK) {
            i += n_new;
            out->n_trials = i;
            double u0 = at_clock_mono_s();
            st = at_tuner_update(tuner, pr.idx, pr.results, got);
            out->tuner_s += at_clock_mono_s() - u0;
        }
        for (size_t k = 0; k < got; k++) {
            at_config_free(pr.configs[k]);
            pr.configs[k] = NULL;
        }
        if (st != AT_OK) break;
        prog.done = i;
        prog.current_flops = current;
        prog.best_flops = out->best_flops;
        prog.elapsed_s = clock(o->clock_ctx) - t0;
        if (o->on_progress) o->on_progress(o->user, &prog);
        if (early != SIZE_MAX && i >= out->best_iter + early) {
            out->early_stopped = true;
            at_log(AT_LOG_DEBUG, "Early stopped. Best iter: %zu.", out->best_iter);
            break;
        }
        if (invalid_in_a_row > MAX_INVALID_IN_A_ROW) {
            at_log(AT_LOG_WARN, "%s: the last %zu configs proposed cannot instantiate; stopping after %zu trials", name,
                   invalid_in_a_row, i);
            break;
        }
        if (error_ct > ERROR_CT_THRESHOLD && !warned) {
            at_log(AT_LOG_WARN, "Too many errors happen in the tuning of %s: %zu consecutive failures (last: %s)", name,
                   error_ct, first_error ? first_error : "");
            warned = true;
        } else if (error_ct == 0) {
            warned = false;
        }
    }
    if (st == AT_OK && i > 0 && out->n_errors == i)
        at_log(AT_LOG_WARN, "Could not find any valid schedule for task %s; first error: %s", name,
               first_error ? first_error : "");
    for (size_t k = 0; fresh && k < most; k++) at_result_fini(&fresh[k]);
    proposals_fini(&pr);
    at_free(fresh);
    at_free(first_error);
    at_strbuf_fini(&args);
    at_free(inputs);
    return st;
}

/* ---- history ---------------------------------------------------------------------------------- */

typedef struct workload {
    const char *args_json; /* borrowed from the log's record */
    at_task    *task;      /* NULL when the workload cannot be used */
} workload;

struct at_tune_history {
    workload        *wl;
    size_t           n_wl, cap_wl;
    at_tuner_record *recs;
    size_t           n, cap;
    size_t           n_tasks;
};

void at_tune_history_free(at_tune_history *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->n_wl; i++) at_task_free(h->wl[i].task);
    at_free(h->wl);
    at_free(h->recs);
    at_free(h);
}

/* The task of a workload of template t, made on first sight. AT_ENOMEM only: a workload that
 * cannot be used is remembered as NULL. */
static at_status workload_task(at_tune_history *h, const at_template *t, const char *args_json, at_task **out,
                               size_t *n_bad, char *first_bad, size_t first_bad_len)
{
    for (size_t i = 0; i < h->n_wl; i++) {
        if (!strcmp(h->wl[i].args_json, args_json)) {
            *out = h->wl[i].task;
            return AT_OK;
        }
    }
    if (h->n_wl == h->cap_wl) {
        size_t c = h->cap_wl ? 2 * h->cap_wl : 16;
        workload *p = at_realloc(h->wl, c * sizeof *p);
        if (!p) return AT_OOM();
        h->wl = p;
        h->cap_wl = c;
    }
    at_task *task = NULL;
    cJSON *arr = NULL;
    at_args a;
    at_status st = at_json_parse(args_json, strlen(args_json), &arr);
    if (st == AT_OK) st = at_op_args_from_json(t->op, arr, &a);
    if (st == AT_OK) st = at_task_new(t, &a, &task);
    at_json_free(arr);
    if (st == AT_ENOMEM) return st;
    if (st != AT_OK) {
        if ((*n_bad)++ == 0) snprintf(first_bad, first_bad_len, "%s: %s", args_json, at_last_error());
        task = NULL;
    } else {
        h->n_tasks++;
    }
    h->wl[h->n_wl++] = (workload){args_json, task};
    *out = task;
    return AT_OK;
}

at_status at_tune_history_new(const at_task *task, const at_rec_log *log, at_tune_history **out)
{
    *out = NULL;
    at_tune_history *h = at_calloc(1, sizeof *h);
    if (!h) return AT_OOM();
    const at_template *t = at_task_template(task);
    size_t n_bad = 0;
    char first_bad[256] = "";
    at_status st = AT_OK;
    for (size_t i = 0; i < log->n && st == AT_OK; i++) {
        const at_rec *r = &log->recs[i];
        if (strcmp(r->task_name, t->name) != 0) continue;
        at_task *rt = NULL;
        st = workload_task(h, t, r->args_json, &rt, &n_bad, first_bad, sizeof first_bad);
        if (st != AT_OK || !rt) continue;
        if (h->n == h->cap) {
            size_t c = h->cap ? 2 * h->cap : 256;
            at_tuner_record *p = at_realloc(h->recs, c * sizeof *p);
            if (!p) {
                st = AT_OOM();
                break;
            }
            h->recs = p;
            h->cap = c;
        }
        h->recs[h->n++] = (at_tuner_record){rt, r->config, &r->result};
    }
    if (st != AT_OK) {
        at_tune_history_free(h);
        return st;
    }
    if (n_bad)
        at_log(AT_LOG_WARN, "%s: %zu workload%s of %s in the history cannot be used (first: %s)", log->name, n_bad,
               n_bad == 1 ? "" : "s", t->name, first_bad);
    *out = h;
    return AT_OK;
}

const at_tuner_record *at_tune_history_records(const at_tune_history *h, size_t *n)
{
    *n = h->n;
    return h->recs;
}

size_t at_tune_history_n_workloads(const at_tune_history *h)
{
    return h->n_tasks;
}
