/* What the report shows, computed from the log alone: tasks keyed by (template, workload) in order
 * of first appearance, each task's best successful record (TVM's pick: the lowest mean cost, the
 * first of equals), runs of consecutive records of one task, and, with a network, each anchor
 * node's implementations among the log's tasks. */
#include <string.h>

#include "core/alloc.h"
#include "report/report.h"
#include "templates/template.h"

/* The template family of a record's target kind (as records check reads it). */
static bool family_of(const char *kind, at_target_family *out)
{
    static const struct {
        const char      *kind;
        at_target_family family;
    } kinds[] = {{"opencl", AT_TARGET_OPENCL}, {"cuda", AT_TARGET_OPENCL}, {"llvm", AT_TARGET_LLVM},
                 {"ext_dev", AT_TARGET_VTA}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!strcmp(kinds[i].kind, kind)) {
            *out = kinds[i].family;
            return true;
        }
    }
    return false;
}

/* FLOPs of a record's workload, 0 when no template here knows it (the page then shows latency
 * only). AT_ENOMEM only. */
static at_status workload_flop(const at_rec *r, double *out)
{
    *out = 0;
    at_target_family fam;
    if (!family_of(r->target.kind, &fam)) return AT_OK;
    at_task *task = NULL;
    at_status st = at_task_create(r->task_name, fam, r->args_json, &task);
    if (st == AT_ENOMEM) return st;
    if (st == AT_OK) *out = at_task_flop(task);
    at_task_free(task);
    return AT_OK;
}

double at_report_gflops(const at_report_task *t, const at_result *res)
{
    if (res->err != AT_MEAS_OK || t->flop <= 0) return 0;
    double c = at_result_mean_cost(res);
    return c > 0 ? t->flop / c / 1e9 : 0;
}

static size_t find_task(const at_report *r, const char *name, const char *args_json)
{
    for (size_t i = 0; i < r->n_tasks; i++)
        if (!strcmp(r->tasks[i].name, name) && !strcmp(r->tasks[i].args_json, args_json)) return i;
    return SIZE_MAX;
}

static at_status add_record(at_report *r, size_t i, size_t *cap_tasks)
{
    const at_rec *rec = &r->log->recs[i];
    size_t k = find_task(r, rec->task_name, rec->args_json);
    if (k == SIZE_MAX) {
        if (r->n_tasks == *cap_tasks) {
            size_t c = *cap_tasks ? 2 * *cap_tasks : 8;
            at_report_task *p = at_realloc(r->tasks, c * sizeof *p);
            if (!p) return AT_OOM();
            r->tasks = p;
            *cap_tasks = c;
        }
        k = r->n_tasks++;
        r->tasks[k] = (at_report_task){.name = rec->task_name, .args_json = rec->args_json,
                                       .target_str = rec->target_str, .best = SIZE_MAX};
        /* one slot per record of the log at most: sized once, never grown */
        r->tasks[k].recs = at_malloc(r->log->n * sizeof *r->tasks[k].recs);
        if (!r->tasks[k].recs) return AT_OOM();
        AT_TRY(workload_flop(rec, &r->tasks[k].flop));
    }
    at_report_task *t = &r->tasks[k];
    t->recs[t->n_recs++] = i;
    unsigned e = (unsigned)rec->result.err;
    t->n_err[e < AT_MEAS_ERR_COUNT ? e : AT_MEAS_UNKNOWN_ERROR]++;
    double c = at_result_mean_cost(&rec->result);
    if (rec->result.err == AT_MEAS_OK && (t->best == SIZE_MAX || c < t->best_cost_s)) {
        t->best = i;
        t->best_trial = t->n_recs;
        t->best_cost_s = c;
    }
    if (r->n_runs && r->runs[r->n_runs - 1].task == k) {
        r->runs[r->n_runs - 1].n++;
    } else {
        r->runs[r->n_runs++] = (at_report_run){.task = k, .first = i, .n = 1, .start_s = rec->result.timestamp};
    }
    return AT_OK;
}

/* Each anchor node of the network with its implementations as the log's tasks. */
static at_status add_layers(at_report *r, const at_report_network *nw)
{
    at_net_opts no = nw->net;
    no.params = false;
    at_net_tasks *ts = NULL;
    AT_TRY(at_net_load(nw->name, &no, &r->net));
    at_status st = at_net_extract(r->net, nw->target, nw->ops ? nw->ops : AT_NET_OPS_ALL, &ts);
    size_t n_nodes = at_net_n_nodes(r->net);
    if (st == AT_OK && !(r->layers = at_calloc(n_nodes, sizeof *r->layers))) st = AT_OOM();
    for (size_t node = 0; node < n_nodes && st == AT_OK; node++) {
        const at_net_impl *impls = NULL;
        size_t n = at_net_tasks_node_impls(ts, node, &impls);
        if (n == 0) continue;
        at_report_layer *l = &r->layers[r->n_layers++];
        *l = (at_report_layer){.node = node, .name = at_net_node_at(r->net, node)->name,
                               .op = at_net_op_name(at_net_node_at(r->net, node)->op), .chosen = SIZE_MAX};
        for (size_t j = 0; j < n && l->n_impls < sizeof l->impls / sizeof l->impls[0]; j++) {
            if (impls[j].task == SIZE_MAX) continue; /* the template rejected the shape */
            const at_task *task = at_net_tasks_at(ts, impls[j].task);
            size_t k = find_task(r, at_task_template(task)->name, at_net_tasks_args_json(ts, impls[j].task));
            l->impls[l->n_impls++] = k;
            if (k != SIZE_MAX && r->tasks[k].best != SIZE_MAX &&
                (l->chosen == SIZE_MAX || r->tasks[k].best_cost_s < r->tasks[l->chosen].best_cost_s))
                l->chosen = k;
        }
    }
    at_net_tasks_free(ts);
    return st;
}

at_status at_report_init(at_report *out, const at_rec_log *log, const at_report_network *network)
{
    AT_ASSERT(out && log);
    *out = (at_report){.log = log};
    if (log->n == 0) return AT_FAIL(AT_EINVAL, "%s: no records to report", log->name ? log->name : "the log");
    at_report *r = out;
    size_t cap_tasks = 0;
    at_status st = (r->runs = at_malloc(log->n * sizeof *r->runs)) ? AT_OK : AT_OOM();
    for (size_t i = 0; i < log->n && st == AT_OK; i++) st = add_record(r, i, &cap_tasks);
    if (st == AT_OK) {
        r->t0_s = r->t1_s = log->recs[0].result.timestamp;
        for (size_t i = 1; i < log->n; i++) {
            double ts = log->recs[i].result.timestamp;
            if (ts < r->t0_s) r->t0_s = ts;
            if (ts > r->t1_s) r->t1_s = ts;
        }
        for (size_t i = 0; i < r->n_runs; i++) r->runs[i].start_s -= r->t0_s;
    }
    if (st == AT_OK && network) {
        r->network = network->name;
        r->target_str = at_net_target_string(network->target);
        st = add_layers(r, network);
    }
    if (st != AT_OK) at_report_fini(r);
    return st;
}

void at_report_fini(at_report *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n_tasks; i++) at_free(r->tasks[i].recs);
    at_free(r->tasks);
    at_free(r->runs);
    at_free(r->layers);
    at_net_free(r->net);
    *r = (at_report){0};
}
