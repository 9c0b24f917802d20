/* The cost oracle and its replay runner (bench_oracle.h). The logs stay loaded for the oracle's
 * life: each task's by_index table points at their results, so a replayed result is the record's
 * own, byte for byte (the runner copies it). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench_oracle.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "tuners/tuner.h"

enum { MAX_ORACLE_TASKS = 64 };

struct at_bench_oracle {
    at_rec_log         **logs;
    size_t               n_logs;
    at_bench_oracle_task tasks[MAX_ORACLE_TASKS];
    size_t               n_tasks;
    size_t               n_skipped;
};

size_t at_bench_oracle_count(const at_bench_oracle *o)
{
    return o->n_tasks;
}

at_bench_oracle_task *at_bench_oracle_at(at_bench_oracle *o, size_t i)
{
    AT_ASSERT(i < o->n_tasks);
    return &o->tasks[i];
}

size_t at_bench_oracle_skipped(const at_bench_oracle *o)
{
    return o->n_skipped;
}

void at_bench_oracle_free(at_bench_oracle *o)
{
    if (!o) return;
    for (size_t i = 0; i < o->n_tasks; i++) {
        at_task_free(o->tasks[i].task);
        at_free((void *)o->tasks[i].by_index);
    }
    for (size_t i = 0; i < o->n_logs; i++) at_rec_log_free(o->logs[i]);
    at_free(o->logs);
    at_free(o);
}

static bool family_of(const char *kind, at_target_family *out)
{
    static const struct {
        const char      *kind;
        at_target_family family;
    } kinds[] = {{"opencl", AT_TARGET_OPENCL}, {"cuda", AT_TARGET_OPENCL}, {"llvm", AT_TARGET_LLVM}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kind, kinds[i].kind)) {
            *out = kinds[i].family;
            return true;
        }
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The "*.log" paths of dir, sorted, into *out (each and the array owned by the caller). */
static at_status list_logs(const char *dir, char ***out, size_t *n_out)
{
    DIR *d = opendir(dir);
    if (!d) return AT_FAIL(AT_EIO, "%s: cannot open the directory", dir);
    char **paths = NULL;
    size_t n = 0, cap = 0;
    at_status st = AT_OK;
    for (struct dirent *e; st == AT_OK && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".log") != 0) continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 16;
            char **p = at_realloc(paths, c * sizeof *p);
            if (!p) {
                st = AT_OOM();
                break;
            }
            paths = p;
            cap = c;
        }
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_strbuf_printf(&sb, "%s/%s", dir, e->d_name);
        st = at_strbuf_status(&sb);
        if (st == AT_OK) paths[n++] = at_strbuf_take(&sb);
        at_strbuf_fini(&sb);
    }
    closedir(d);
    if (st == AT_OK) qsort(paths, n, sizeof *paths, cmp_str);
    if (st != AT_OK) {
        for (size_t i = 0; i < n; i++) at_free(paths[i]);
        at_free(paths);
        return st;
    }
    *out = paths;
    *n_out = n;
    return AT_OK;
}

/* The oracle task of record r, made on its first record; NULL (counted as skipped) when this
 * build cannot make it. */
static at_status task_of(at_bench_oracle *o, const at_rec *r, at_bench_oracle_task **out)
{
    *out = NULL;
    for (size_t i = 0; i < o->n_tasks; i++) {
        at_bench_oracle_task *t = &o->tasks[i];
        if (!strcmp(t->task_name, r->task_name) && !strcmp(t->args_json, r->args_json) &&
            !strcmp(t->target_str, r->target_str)) {
            *out = t->task ? t : NULL;
            return AT_OK;
        }
    }
    if (o->n_tasks == MAX_ORACLE_TASKS)
        return AT_FAIL(AT_EINVAL, "the oracle holds more than %d workloads", MAX_ORACLE_TASKS);
    at_bench_oracle_task *t = &o->tasks[o->n_tasks++];
    *t = (at_bench_oracle_task){.task_name = r->task_name, .args_json = r->args_json,
                                .target_str = r->target_str, .best_index = -1};
    at_target_family fam;
    at_status st = family_of(r->target.kind, &fam) ? at_task_create(r->task_name, fam, r->args_json, &t->task)
                                                   : AT_FAIL(AT_EUNSUPPORTED, "target kind %s", r->target.kind);
    if (st == AT_ENOMEM) return st;
    if (st != AT_OK) {
        at_log(AT_LOG_WARN, "oracle: workload %s %s skipped: %s", r->task_name, r->args_json, at_last_error());
        return AT_OK;
    }
    int64_t len = at_space_range_len(at_task_space(t->task));
    if (len > ((int64_t)1 << 26)) {
        at_log(AT_LOG_WARN, "oracle: workload %s %s skipped: its space (%lld) is too large to tabulate",
               r->task_name, r->args_json, (long long)len);
        at_task_free(t->task);
        t->task = NULL;
        return AT_OK;
    }
    t->by_index = at_calloc((size_t)len, sizeof *t->by_index);
    if (!t->by_index) return AT_OOM();
    *out = t;
    return AT_OK;
}

static at_status add_log(at_bench_oracle *o, const at_rec_log *log)
{
    size_t misfit = 0;
    for (size_t i = 0; i < log->n; i++) {
        const at_rec *r = &log->recs[i];
        at_bench_oracle_task *t;
        AT_TRY(task_of(o, r, &t));
        int64_t idx;
        if (!t) {
            o->n_skipped++;
            continue;
        }
        if (at_space_index_of(at_task_space(t->task), r->config, &idx) != AT_OK) {
            if (misfit++ == 0)
                at_log(AT_LOG_WARN, "oracle: %s:%zu: config does not fit the space: %s", log->name, r->line,
                       at_last_error());
            o->n_skipped++;
            continue;
        }
        t->n_records++;
        if (t->by_index[idx]) continue; /* the first measurement of a config is its answer */
        t->by_index[idx] = &r->result;
        t->n_configs++;
        double flops = at_tuner_result_flops(t->task, &r->result);
        t->n_ok += r->result.err == AT_MEAS_OK;
        if (flops > t->best_flops) {
            t->best_flops = flops;
            t->best_index = idx;
        }
    }
    return AT_OK;
}

at_status at_bench_oracle_load(const char *path, at_bench_oracle **out)
{
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) return AT_FAIL(AT_ENOTFOUND, "oracle %s: no such file or directory", path);
    char **paths = NULL;
    size_t n_paths = 0;
    at_status st = AT_OK;
    if (S_ISDIR(sb.st_mode)) {
        AT_TRY(list_logs(path, &paths, &n_paths));
        if (n_paths == 0) st = AT_FAIL(AT_ENOTFOUND, "oracle %s: no *.log file in the directory", path);
    }
    at_bench_oracle *o = st == AT_OK ? at_calloc(1, sizeof *o) : NULL;
    if (st == AT_OK && !o) st = AT_OOM();
    size_t n_files = paths ? n_paths : 1;
    if (st == AT_OK) {
        o->logs = at_calloc(n_files, sizeof *o->logs);
        if (!o->logs) st = AT_OOM();
    }
    for (size_t i = 0; st == AT_OK && i < n_files; i++) {
        st = at_rec_log_load_file(paths ? paths[i] : path, &o->logs[o->n_logs]);
        if (st == AT_OK) st = add_log(o, o->logs[o->n_logs++]);
    }
    size_t usable = 0;
    for (size_t i = 0; o && i < o->n_tasks; i++) usable += o->tasks[i].n_configs;
    if (st == AT_OK && usable == 0) st = AT_FAIL(AT_ENOTFOUND, "oracle %s: no usable record", path);
    for (size_t i = 0; i < n_paths; i++) at_free(paths[i]);
    at_free(paths);
    if (st != AT_OK) {
        at_bench_oracle_free(o);
        return st;
    }
    /* workloads that could not be made leave no trace in the list */
    size_t k = 0;
    for (size_t i = 0; i < o->n_tasks; i++)
        if (o->tasks[i].task) o->tasks[k++] = o->tasks[i];
    o->n_tasks = k;
    *out = o;
    return AT_OK;
}

/* ---- replay runner ---------------------------------------------------------------------------- */

typedef struct replay {
    at_bench_oracle *o;
    size_t           batch;
} replay;

static at_status replay_measure(void *ctx, const at_meas_input *inputs, size_t n, at_result *results)
{
    replay *rp = ctx;
    for (size_t i = 0; i < n; i++) {
        at_bench_oracle_task *t = NULL;
        for (size_t k = 0; k < rp->o->n_tasks && !t; k++)
            if (rp->o->tasks[k].task == inputs[i].task) t = &rp->o->tasks[k];
        AT_ASSERT(t); /* the bench tunes only the oracle's own tasks */
        int64_t idx;
        const at_result *rec = NULL;
        if (at_space_index_of(at_task_space(t->task), inputs[i].config, &idx) == AT_OK) rec = t->by_index[idx];
        if (rec) {
            AT_TRY(at_result_copy(&results[i], rec));
            continue;
        }
        t->n_missed++;
        at_result_fini(&results[i]);
        results[i].err = AT_MEAS_UNKNOWN_ERROR;
        results[i].msg = at_strdup("not in the oracle");
        if (!results[i].msg) return AT_OOM();
    }
    return AT_OK;
}

static size_t replay_batch(void *ctx)
{
    return ((replay *)ctx)->batch;
}

static void replay_free(void *ctx)
{
    at_free(ctx);
}

static const at_meas_runner_i replay_i = {
    .name = "oracle", .measure = replay_measure, .batch_size = replay_batch, .free = replay_free};

at_status at_bench_oracle_runner_new(at_bench_oracle *o, size_t batch_size, at_meas_runner **out)
{
    replay *rp = at_calloc(1, sizeof *rp);
    if (!rp) return AT_OOM();
    rp->o = o;
    rp->batch = batch_size ? batch_size : 1;
    return at_meas_runner_new(&replay_i, rp, out);
}
