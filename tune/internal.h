/* Helpers shared by the tune/ files (the OpenCL/CPU and the VTA network flows); no other module
 * includes this. */
#ifndef AT_TUNE_INTERNAL_H
#define AT_TUNE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/result.h"
#include "core/status.h"
#include "records/log.h"
#include "templates/template.h"
#include "tune/network.h"

/* "<log_path>.tmp", at_malloc'ed; NULL when out of memory. */
char *at_tune_tmp_path(const char *log_path);

/* Gets the tmp log ready for a run. resume: an existing one is kept (and continued). Otherwise an
 * existing non-empty one holds the measurements of an earlier run and is refused with AT_EINVAL
 * ("--resume to continue it, --overwrite to discard it") unless overwrite, which removes it; an
 * empty one is removed. Returns AT_OK, AT_EINVAL or AT_EIO (cannot remove it). */
at_status at_tune_tmp_prepare(const char *tmp_path, bool resume, bool overwrite);

/* Splits the tmp log (NULL: none) into the task's own measurements -- records of its template
 * name and args_json whose config maps onto its space, distinct indexes, the first of each kept:
 * *idx and *res (n_own of each, owned by the caller: at_tune_own_free) -- and the rest, the
 * transfer-learning view *others (shallow copies of tmp's records, not owned: free others->recs
 * only). A record of the task that does not fit its space is skipped with a warning. AT_OK or
 * AT_ENOMEM. */
at_status at_tune_split_tmp(const at_rec_log *tmp, const at_task *task, const char *args_json, int64_t **idx,
                            at_result **res, size_t *n_own, at_rec_log *others);

/* Frees what at_tune_split_tmp returned for the task's own measurements. */
void at_tune_own_free(int64_t *idx, at_result *res, size_t n_own);

/* The tuning of at_tune_network with o->total_trials: the tasks ts of net share the trials as the
 * scheduler (tune/scheduler.h) allots them, each record appended to tmp_path (prepared: with
 * o->resume its records restore the scheduler) and measured by runner; adds to sum's n_measured
 * and n_resumed. Returns AT_OK, AT_EINVAL (too few trials for the tasks), or the tuners', the
 * runner's and the log's statuses. */
at_status at_tune_network_scheduled(const at_tune_network_opts *o, const at_net *net, const at_net_tasks *ts,
                                    const char *tmp_path, at_meas_runner *runner, at_tune_network_result *sum);

#endif
