/* Whole-log operations of TVM's `python -m tvm.autotvm.record`: pick (keep the best records) and
 * split (one file per workload). Outputs are written atomically. */
#ifndef AT_RECORDS_PICK_H
#define AT_RECORDS_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "records/log.h"

typedef struct at_rec_pick_stats {
    at_rec_log_stats in;      /* what reading in_path saw */
    at_rec_log_stats old_out; /* what reading the existing out_path saw (zeros when absent) */
    size_t           written; /* records written to out_path */
    size_t           n_model_keys, n_target_keys; /* best-table sizes (TVM's best_set sources) */
} at_rec_pick_stats;

/* Options of at_rec_pick_best_opts; zero means the default. */
typedef struct at_rec_pick_opts {
    bool force; /* replace out_path even when it holds records that are not best ones */
} at_rec_pick_opts;

/* TVM's pick_best with the measurement that won: loads in_path, then out_path if it exists (its
 * records follow in's), builds the best tables over all of them (at_rec_best_add in that order)
 * and writes to out_path every record that wins a (model, workload) or (target key, workload)
 * key, once, as its own original line, in input order. TVM writes the first occurrence of the
 * winning config instead, which can be another (worse) measurement of it. Bad lines are skipped
 * with warnings (at_rec_log_load_file). out_path is replaced atomically.
 * Nothing is lost by mistake: out_path naming the same file as in_path (by device and inode), an
 * out_path that exists and is not a regular file, and -- unless opts->force -- an existing
 * out_path that holds records other than best ones (its own pick-best would keep fewer: a tuning
 * log, e.g. arguments swapped) are refused with AT_EINVAL before anything is written. stats and
 * opts (NULL: defaults) are optional; stats is filled on success. Returns AT_OK, AT_EINVAL,
 * AT_ENOTFOUND (in_path missing), AT_EIO (naming the file) or AT_ENOMEM. */
at_status at_rec_pick_best_opts(const char *in_path, const char *out_path, const at_rec_pick_opts *opts,
                                at_rec_pick_stats *stats);

/* at_rec_pick_best_opts with the default options. */
at_status at_rec_pick_best(const char *in_path, const char *out_path, at_rec_pick_stats *stats);

/* The same over logs already loaded (srcs[0] first; a log listed twice counts once), returning
 * the output text instead of writing it: *out_text (at_free) holds the winners' lines,
 * *n_written their count; the key counts are optional. AT_OK or AT_ENOMEM. */
at_status at_rec_pick_best_logs(const at_rec_log *const *srcs, size_t n_srcs, char **out_text, size_t *n_written,
                                size_t *n_model_keys, size_t *n_target_keys);

typedef struct at_rec_split_stats {
    at_rec_log_stats in;
    size_t           files;      /* workload files written: <in_path>.000.wkl ... */
    size_t           written;    /* records written over all files */
    size_t           duplicates; /* records dropped as duplicates */
} at_rec_split_stats;

/* TVM's `--mode split`: groups records by workload (target, task name, args, kwargs; targets
 * compared order-independently, as TVM compares str(Target)) in order of first appearance and
 * writes group i to "<in_path>.%03d.wkl" (atomically), dropping later records with the same
 * config (index, code hash, knob values) as an earlier one of the group. Lines are written as
 * read. stats (optional) filled on success. Returns AT_OK, AT_ENOTFOUND, AT_EIO or AT_ENOMEM. */
at_status at_rec_split(const char *in_path, at_rec_split_stats *stats);

#endif
