/* Best-record tables: TVM's ApplyHistoryBest (spec/autotvm_core.md §2.7). Failed records are
 * ignored; per key the record with the strictly lowest mean cost wins (ties keep the first
 * added). Two tables: (model, workload) for models other than "unknown", and (target key,
 * workload) for each of the record's target keys. A query asks the model table first, then the
 * keys of the query target in order. Tables stack for dispatch: user logs above a TopHub pack,
 * as TVM's dispatch contexts do (at_rec_best_query_stack). */
#ifndef AT_RECORDS_BEST_H
#define AT_RECORDS_BEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "core/target.h"
#include "records/log.h"
#include "records/record.h"

typedef struct at_rec_best at_rec_best;

/* An empty table. *out owned by the caller (at_rec_best_free). AT_OK or AT_ENOMEM. */
at_status at_rec_best_new(at_rec_best **out);

/* Frees the table and every log it took; NULL does nothing. */
void at_rec_best_free(at_rec_best *b);

/* Offers one record (borrowed: r must outlive the table and stay unmodified). Records with
 * err != 0 are ignored (AT_OK). Returns AT_OK or AT_ENOMEM (the table is unchanged then, apart
 * from keys already updated for this record). */
at_status at_rec_best_add(at_rec_best *b, const at_rec *r);

/* Offers every record of log in order (borrowed: log must outlive the table). AT_OK/AT_ENOMEM. */
at_status at_rec_best_add_log(at_rec_best *b, const at_rec_log *log);

/* Like at_rec_best_add_log, but the table takes log and frees it with itself -- also when this
 * call fails. AT_OK or AT_ENOMEM. */
at_status at_rec_best_take_log(at_rec_best *b, at_rec_log *log);

/* The best record for (target, workload), or NULL: first (target->model, workload) in the model
 * table, then (key, workload) for each target key in order. args_json is the canonical text of
 * the task args (at_json_write_value's output, as at_rec.args_json holds it). The result is
 * borrowed from whoever owns the record; its config is the one to use and at_rec_cost(result)
 * TVM's cfg.cost. */
const at_rec *at_rec_best_query(const at_rec_best *b, const at_target *target, const char *task_name,
                                const char *args_json);

/* Queries tables[0], then tables[1], ... (highest priority first, e.g. {user_logs, tophub}) and
 * returns the first answer, or NULL when none has one; *which (optional) gets the index of the
 * table that answered (n when none). NULL entries in tables are skipped. */
const at_rec *at_rec_best_query_stack(const at_rec_best *const *tables, size_t n, const at_target *target,
                                      const char *task_name, const char *args_json, size_t *which);

/* True when r (by identity, not content) is the record held under one of its own keys: its
 * (model, workload) or any (target key, workload). pick-best keeps exactly these records. */
bool at_rec_best_is_winner(const at_rec_best *b, const at_rec *r);

/* Number of distinct (model, workload) and (target key, workload) keys held (TVM's
 * len(best_by_model) and len(best_by_targetkey)). */
size_t at_rec_best_n_model_keys(const at_rec_best *b);
size_t at_rec_best_n_target_keys(const at_rec_best *b);

#endif
