/* One tuning record, AutoTVM log format v0.2: a JSON line
 * {"input": [target, task, args, kwargs], "config": {...}, "result": [costs, error_no, all_cost,
 * timestamp], "version": 0.2, "tvm_version": "..."} read leniently and written byte-identically
 * to TVM's record.encode (spec/autotvm_core.md §2.1-§2.3). */
#ifndef AT_RECORDS_RECORD_H
#define AT_RECORDS_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "core/target.h"
#include "knobs/config.h"

/* What this program writes into "version" and "tvm_version" (TVM v0.18.0's values). */
#define AT_REC_LOG_VERSION 0.2
#define AT_REC_TVM_VERSION "0.18.0"

/* A record. Plain data; every pointer is owned by the record (at_rec_fini frees them). */
typedef struct at_rec {
    char      *target_str;       /* input[0] exactly as the log has it (written back as is) */
    at_target  target;           /* input[0] parsed: kind, keys, model (TVM's "-target" ->
                                    "-mtriple" rewrite applied first) */
    char      *task_name;        /* input[1], e.g. "conv2d_packed.vta" */
    char      *args_json;        /* input[2] as json.dumps writes it (at_json_write_value): with
                                    task_name, the workload key */
    char      *kwargs_json;      /* input[3] as json.dumps writes it ("{}" in practice) */
    at_config *config;
    at_result  result;           /* err, costs (none when err != 0), all_cost, timestamp */
    bool       timestamp_is_int; /* the log wrote the timestamp without '.'/exponent */
    double     version;          /* "version" (0.2); written back as an int if version_is_int */
    bool       version_is_int;
    char      *tvm_version;      /* "tvm_version", e.g. "0.7.dev0" */
    size_t     line;             /* 1-based line in the log it was read from; 0 if not read */
    char      *text;             /* that line, without "\n" (and a "\r" before it); NULL if not
                                    read from a log. pick-best writes winners with this text. */
} at_rec;

/* Zeroes a record (no allocation). */
void at_rec_init(at_rec *r);

/* Frees everything r owns and zeroes it. A zeroed record is fine. */
void at_rec_fini(at_rec *r);

/* Parses one log line line[0..len) (a trailing "\n" or "\r\n" is allowed) into *out, which need
 * not be initialized; out->line and out->text are left 0/NULL (the loader sets them). Unknown
 * top-level keys are ignored; "version" and "tvm_version" may be absent (then 0.2 and
 * AT_REC_TVM_VERSION). On failure *out is zeroed. Returns
 *   AT_OK;
 *   AT_EUNSUPPORTED for a log-format v0.1 row ({"v": 0.1, ...}), which TVM v0.18 skips;
 *   AT_EPARSE with a detail naming the field and the reason: invalid JSON (truncated line,
 *     non-UTF-8 byte, NUL byte, integers beyond 2^53), NaN/Infinity (Python's json writes them;
 *     the detail says so and gives the column), wrong types, missing keys, a bad target string,
 *     an unknown knob tag, an error_no outside 0..8, a non-finite number, no costs or a cost
 *     that is not > 0 for a successful result;
 *   AT_ENOMEM. */
at_status at_rec_parse_line(const char *line, size_t len, at_rec *out);

/* Builds a record for a new measurement (what the tuning loop logs): copies everything, parses
 * target_str, rewrites args_json canonically, kwargs "{}", version 0.2, tvm_version
 * AT_REC_TVM_VERSION. *out need not be initialized; zeroed on failure. Returns AT_OK, AT_EPARSE
 * (bad target string, args_json not a JSON array) or AT_ENOMEM. */
at_status at_rec_make(const char *target_str, const char *task_name, const char *args_json,
                      const at_config *config, const at_result *result, at_rec *out);

/* Deep copy into *dst (need not be initialized; zeroed on failure). AT_ENOMEM on failure. */
at_status at_rec_copy(at_rec *dst, const at_rec *src);

/* Appends the record as TVM's json.dumps(encode(...)) writes it, without a newline: key order
 * input/config/result/version/tvm_version, ", " and ": " separators, floats as repr, costs
 * [1000000000.0] when err != 0, all_cost/timestamp/version as ints when read as ints. r must
 * hold a config (AT_ASSERT). Failure (AT_ENOMEM) shows in sb->failed. */
void at_rec_write(const at_rec *r, at_strbuf *sb);

/* The record's line as a new string with a trailing "\n" (at_free it); NULL when out of memory. */
char *at_rec_to_line(const at_rec *r);

/* TVM's config.cost: np.mean(costs) (numpy's pairwise summation, so ties break as in TVM), or
 * AT_FAILED_COST_S (1e9) for a failed measurement. */
double at_rec_cost(const at_rec *r);

/* Same workload: same task name and canonical args text (TVM's (task_name,) + args tuple). */
bool at_rec_same_workload(const at_rec *a, const at_rec *b);

#endif
