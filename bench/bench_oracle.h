/* A cost oracle for convergence studies: TVM-format logs that measured every config (or a large
 * sample) of their tasks, and a runner that answers each proposed config with its recorded result
 * (errors replayed as errors) instead of building and running it. Tuners, the tuning loop and its
 * trial counting are the real ones; only the measurement is looked up. */
#ifndef AT_BENCH_ORACLE_H
#define AT_BENCH_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/measure.h"
#include "records/log.h"
#include "templates/template.h"

/* One workload of the oracle. Plain data owned by the oracle. */
typedef struct at_bench_oracle_task {
    at_task         *task;
    const char      *task_name, *args_json, *target_str; /* of its first record (borrowed) */
    const at_result **by_index;  /* range_len slots: the first recorded result of each index, or NULL */
    size_t           n_configs;  /* distinct indexes recorded */
    size_t           n_records;  /* records of the workload (repeats of an index included) */
    size_t           n_ok;       /* distinct indexes whose first result succeeded */
    double           best_flops; /* the best recorded throughput (FLOP/s), 0 when none succeeded */
    int64_t          best_index; /* its index, -1 when none */
    size_t           n_missed;   /* proposals the runner found no record for (error trials) */
} at_bench_oracle_task;

typedef struct at_bench_oracle at_bench_oracle;

/* Loads path: one log, or every "*.log" of a directory (in name order). Records are grouped by
 * (template, target kind, args) into tasks in order of first appearance; records of a template
 * or workload this build cannot make a task of, and configs that do not fit the task's space,
 * are counted and skipped with one warning per workload. *out owned by the caller. Returns
 * AT_OK, AT_ENOTFOUND (no such file, or no usable record in it), AT_EIO, AT_ENOMEM. */
at_status at_bench_oracle_load(const char *path, at_bench_oracle **out);
void      at_bench_oracle_free(at_bench_oracle *o);

size_t                at_bench_oracle_count(const at_bench_oracle *o);
at_bench_oracle_task *at_bench_oracle_at(at_bench_oracle *o, size_t i);
/* Records of the loaded logs that no task took (see at_bench_oracle_load). */
size_t                at_bench_oracle_skipped(const at_bench_oracle *o);

/* A runner answering from o (borrowed: it must outlive the runner) with batch_size inputs per
 * call. A config of a task the oracle holds gets a copy of its recorded result (timestamp
 * included); a config it has no record of gets UNKNOWN_ERROR "not in the oracle" and counts in
 * its task's n_missed; an input of a task the oracle does not hold is a bug (AT_ASSERT).
 * AT_ENOMEM. */
at_status at_bench_oracle_runner_new(at_bench_oracle *o, size_t batch_size, at_meas_runner **out);

#endif
