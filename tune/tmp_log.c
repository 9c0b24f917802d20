/* The tmp log of a network tuning run (FILE.tmp): never deleted with measurements in it unless
 * asked, and split per task into the task's own earlier measurements (resume) and the history of
 * the other tasks (transfer learning), as TVM reloads the tmp log before every task. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"
#include "tune/internal.h"

char *at_tune_tmp_path(const char *log_path)
{
    size_t len = strlen(log_path);
    char *p = at_malloc(len + 5);
    if (!p) return NULL;
    memcpy(p, log_path, len);
    memcpy(p + len, ".tmp", 5);
    return p;
}

at_status at_tune_tmp_prepare(const char *tmp_path, bool resume, bool overwrite)
{
    if (resume) return AT_OK;
    struct stat st;
    if (stat(tmp_path, &st) != 0) return AT_OK;
    if (st.st_size > 0 && !overwrite)
        return AT_FAIL(AT_EINVAL,
                       "%s exists (%lld bytes): it holds the measurements of an earlier run; --resume to continue "
                       "it, --overwrite to discard it",
                       tmp_path, (long long)st.st_size);
    if (unlink(tmp_path) != 0 && errno != ENOENT) return AT_FAIL(AT_EIO, "cannot remove %s: %s", tmp_path, strerror(errno));
    return AT_OK;
}

void at_tune_own_free(int64_t *idx, at_result *res, size_t n_own)
{
    for (size_t j = 0; res && j < n_own; j++) at_result_fini(&res[j]);
    at_free(res);
    at_free(idx);
}

at_status at_tune_split_tmp(const at_rec_log *tmp, const at_task *task, const char *args_json, int64_t **idx,
                            at_result **res, size_t *n_own, at_rec_log *others)
{
    const char *name = at_task_template(task)->name;
    *idx = NULL;
    *res = NULL;
    *n_own = 0;
    *others = (at_rec_log){.name = tmp ? tmp->name : NULL};
    if (!tmp || tmp->n == 0) return AT_OK;
    int64_t *ix = at_malloc(tmp->n * sizeof *ix);
    at_result *rs = at_calloc(tmp->n, sizeof *rs);
    at_rec *rest = at_malloc(tmp->n * sizeof *rest);
    if (!ix || !rs || !rest) {
        at_free(ix);
        at_free(rs);
        at_free(rest);
        return AT_OOM();
    }
    size_t n = 0, m = 0;
    at_status st = AT_OK;
    for (size_t i = 0; i < tmp->n && st == AT_OK; i++) {
        const at_rec *r = &tmp->recs[i];
        if (strcmp(r->task_name, name) || strcmp(r->args_json, args_json)) {
            rest[m++] = *r;
            continue;
        }
        int64_t k;
        if (at_space_index_of(at_task_space(task), r->config, &k) != AT_OK) {
            at_log(AT_LOG_WARN, "%s:%zu: a record of %s does not fit its space; measured again if proposed",
                   tmp->name, r->line, name);
            continue;
        }
        bool dup = false;
        for (size_t j = 0; j < n && !dup; j++) dup = ix[j] == k;
        if (dup) continue;
        ix[n] = k;
        at_result_init(&rs[n]);
        st = at_result_copy(&rs[n], &r->result);
        n++;
    }
    if (st != AT_OK) {
        at_tune_own_free(ix, rs, n);
        at_free(rest);
        return st;
    }
    *idx = ix;
    *res = rs;
    *n_own = n;
    others->recs = rest;
    others->n = m;
    return AT_OK;
}
