/* The graph tuner over a tuning log (graph_tune.h): candidates from records, output as records. */
#include "tune/graph_tune.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "records/log.h"
#include "records/record.h"
#include "templates/template.h"

enum { DEFAULT_TOP_K = 20 };

/* An anchor's candidates: configs of its task (owned) and the records they came from. */
typedef struct node_cands {
    at_net_gt_cand *c;
    at_config     **own; /* c[k].config, owned */
    const at_rec  **rec;
    size_t          n;
} node_cands;

static int cmp_cost(const void *a, const void *b)
{
    const at_rec *x = *(const at_rec *const *)a, *y = *(const at_rec *const *)b;
    double cx = at_rec_cost(x), cy = at_rec_cost(y);
    if (cx != cy) return (cx > cy) - (cx < cy);
    return (x->line > y->line) - (x->line < y->line); /* TVM keeps the first of equal records */
}

static bool record_of(const at_rec *r, const at_task *t, const char *args_json)
{
    return r->result.err == AT_MEAS_OK && !strcmp(r->task_name, at_task_template(t)->name) &&
           !strcmp(r->args_json, args_json);
}

/* The top_k distinct measured configs of node i's task in log, cheapest first. */
static at_status collect(const at_net_plan *plan, size_t i, const at_rec_log *log, size_t top_k, node_cands *out)
{
    at_net_pick pick;
    if (!at_net_plan_pick(plan, i, &pick) || !pick.tuned) return AT_OK;
    const at_net_tasks *ts = at_net_plan_tasks(plan);
    const at_task *t = at_net_tasks_at(ts, pick.task);
    const at_template *tmpl = at_task_template(t);
    const char *args = at_net_tasks_args_json(ts, pick.task);
    if (!tmpl->schedule_packed) return AT_OK;
    const at_rec **all = at_calloc(log->n + 1, sizeof *all);
    if (!all) return AT_OOM();
    size_t n = 0;
    for (size_t k = 0; k < log->n; k++)
        if (record_of(&log->recs[k], t, args)) all[n++] = &log->recs[k];
    qsort(all, n, sizeof *all, cmp_cost);
    out->c = at_calloc(top_k, sizeof *out->c);
    out->rec = at_calloc(top_k, sizeof *out->rec);
    out->own = at_calloc(top_k, sizeof *out->own);
    at_status st = out->c && out->rec && out->own ? AT_OK : AT_OOM();
    for (size_t k = 0; st == AT_OK && k < n && out->n < top_k; k++) {
        int64_t index = at_config_index(all[k]->config);
        bool dup = false;
        for (size_t q = 0; q < out->n; q++) dup |= at_config_index(out->c[q].config) == index;
        if (dup) continue;
        at_config *c;
        if (at_task_config(t, index, &c) != AT_OK) continue; /* another knob layout: the plan refused it too */
        at_net_gt_cand *x = &out->c[out->n];
        *x = (at_net_gt_cand){.config = c, .cost_s = at_rec_cost(all[k])};
        if (at_tmpl_packed_blocks(tmpl, c, &x->ic_bn, &x->oc_bn) != AT_OK) {
            at_config_free(c);
            continue;
        }
        out->own[out->n] = c;
        out->rec[out->n++] = all[k];
    }
    at_free(all);
    /* the plan's pick is the cheapest record of the workload, so the search starts from it */
    if (st == AT_OK && out->n && at_config_index(out->c[0].config) != at_config_index(pick.config)) out->n = 0;
    return st;
}

/* The record of a config the refinement chose that the log does not hold: the workload of the
 * anchor's best record, the config, and as its cost the anchor's median time in the network. */
static at_status made_record(const at_rec *like, const at_config *config, double node_ms, at_strbuf *sb)
{
    double cost_s = node_ms * 1e-3;
    at_result res = {.err = AT_MEAS_OK, .n_costs = 1, .costs_s = &cost_s, .timestamp = (double)time(NULL)};
    at_rec r;
    AT_TRY(at_rec_make(like->target_str, like->task_name, like->args_json, config, &res, &r));
    at_rec_write(&r, sb);
    at_rec_fini(&r);
    return sb->failed ? AT_OOM() : AT_OK;
}

static at_status write_choice(const at_net *net, const at_net_plan *plan, const node_cands *nc, const double *node_ms,
                              const char *path, size_t *n_written, size_t *n_made)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    size_t n = 0, made = 0;
    at_status st = AT_OK;
    for (size_t i = 0; st == AT_OK && i < at_net_n_nodes(net); i++) {
        at_net_pick pick;
        if (!nc[i].n || !at_net_plan_pick(plan, i, &pick)) continue;
        size_t k = 0;
        while (k < nc[i].n && at_config_index(nc[i].c[k].config) != at_config_index(pick.config)) k++;
        if (k < nc[i].n) {
            at_strbuf_puts(&sb, nc[i].rec[k]->text);
        } else {
            AT_ASSERT(node_ms); /* only the refinement picks configs outside the candidates */
            st = made_record(nc[i].rec[0], pick.config, node_ms[i], &sb);
            made++;
        }
        at_strbuf_putc(&sb, '\n');
        n++;
    }
    if (st == AT_OK) st = sb.data || n == 0 ? at_rec_write_file_atomic(path, sb.data ? sb.data : "", sb.len) : AT_OOM();
    at_strbuf_fini(&sb);
    *n_written = n;
    *n_made = made;
    return st;
}

at_status at_tune_graph_tune(const at_net *net, at_net_plan *plan, const char *records_path, size_t top_k,
                             const at_net_backend_i *be, void *be_ctx, const at_net_refine_opts *refine,
                             const char *out_path, at_tune_graph_result *out)
{
    if (!top_k) top_k = DEFAULT_TOP_K;
    size_t nn = at_net_n_nodes(net);
    at_rec_log *log = NULL;
    AT_TRY(at_rec_log_load_file(records_path, &log));
    node_cands *nc = at_calloc(nn, sizeof *nc);
    const at_net_gt_cand **cands = at_calloc(nn, sizeof *cands);
    size_t *n_cands = at_calloc(nn, sizeof *n_cands);
    at_status st = nc && cands && n_cands ? AT_OK : AT_OOM();
    for (size_t i = 1; st == AT_OK && i < nn; i++) {
        st = collect(plan, i, log, top_k, &nc[i]);
        cands[i] = nc[i].c;
        n_cands[i] = nc[i].n;
    }
    at_net_gt_timer timer = {.be = be, .be_ctx = be_ctx};
    at_tune_graph_result r = {0};
    if (st == AT_OK) st = at_net_graph_tune(net, plan, cands, n_cands, at_net_gt_time_copy, &timer, &r.choice);
    r.n_timed = timer.n_timed;
    at_net_refine_result rr = {0};
    bool *movable = refine ? at_calloc(nn, sizeof *movable) : NULL;
    if (st == AT_OK && refine && !movable) st = AT_OOM();
    if (st == AT_OK && refine) {
        for (size_t i = 0; i < nn; i++) movable[i] = nc[i].n > 0;
        at_net_refine_opts ro = *refine;
        ro.movable = movable;
        ro.cands = cands;
        ro.n_cands = n_cands;
        st = at_net_graph_refine(net, plan, be, be_ctx, &ro, &rr);
        r.refined = st == AT_OK;
        r.refine = rr;
        r.refine.node_ms = NULL;
    }
    if (st == AT_OK && out_path) st = write_choice(net, plan, nc, rr.node_ms, out_path, &r.n_records, &r.n_made);
    at_net_refine_result_fini(&rr);
    at_free(movable);
    at_net_gt_timer_fini(&timer);
    for (size_t i = 0; nc && i < nn; i++) {
        for (size_t k = 0; nc[i].own && k < top_k; k++) at_config_free(nc[i].own[k]);
        at_free(nc[i].own);
        at_free(nc[i].c);
        at_free(nc[i].rec);
    }
    at_free(nc);
    at_free(cands);
    at_free(n_cands);
    at_rec_log_free(log);
    if (st == AT_OK && out) *out = r;
    return st;
}

at_status at_tune_graph_apply(const at_net *net, at_net_plan *plan, const char *path, size_t *n_applied)
{
    at_rec_log *log;
    AT_TRY(at_rec_log_load_file(path, &log));
    const at_net_tasks *ts = at_net_plan_tasks(plan);
    size_t next = 0;
    at_status st = AT_OK;
    for (size_t i = 1; st == AT_OK && i < at_net_n_nodes(net) && next < log->n; i++) {
        at_net_pick pick;
        if (!at_net_plan_pick(plan, i, &pick)) continue;
        const at_task *t = at_net_tasks_at(ts, pick.task);
        const at_rec *r = &log->recs[next];
        if (!record_of(r, t, at_net_tasks_args_json(ts, pick.task))) continue;
        at_config *c;
        st = at_task_config(t, at_config_index(r->config), &c);
        if (st != AT_OK) {
            st = AT_FAIL_WRAP(st, "%s:%zu: config %lld is no point of %s's space", path, r->line,
                              (long long)at_config_index(r->config), r->task_name);
            break;
        }
        st = at_net_plan_set_pick(plan, i, c, at_rec_cost(r));
        at_config_free(c);
        next++;
    }
    if (st == AT_OK && next < log->n)
        st = AT_FAIL(AT_EINVAL, "%s:%zu: no anchor left for this %s record (a graph-tuner log of another network?)",
                     path, log->recs[next].line, log->recs[next].task_name);
    if (st == AT_OK && n_applied) *n_applied = next;
    at_rec_log_free(log);
    return st;
}
