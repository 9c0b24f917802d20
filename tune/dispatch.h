/* Records dispatch for the network executor (TVM's dispatch contexts, spec/autotvm_core.md §2.7):
 * per task the best record of the user's logs, else of the TopHub pack, else the template's
 * fallback config (which Mali templates derive from TopHub's reference records, TVM's
 * load_reference_log). */
#ifndef AT_TUNE_DISPATCH_H
#define AT_TUNE_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "networks/exec.h"
#include "records/log.h"
#include "tophub/tophub.h"

typedef struct at_tune_dispatch at_tune_dispatch;

/* Where the answers came from (counted per at_tune_dispatch_fn call). */
typedef struct at_tune_dispatch_stats {
    size_t n_user, n_tophub, n_fallback;
} at_tune_dispatch_stats;

/* A dispatch for target (a TVM target string, e.g. "opencl -device=mali"; copied) with no records
 * yet. *out owned by the caller (at_tune_dispatch_free). AT_EPARSE (bad target string),
 * AT_ENOMEM. */
at_status at_tune_dispatch_new(const char *target, at_tune_dispatch **out);
void      at_tune_dispatch_free(at_tune_dispatch *d);

/* Adds the records of a user log (all user logs form one table above TopHub). *n_records
 * (optional) gets the number of records read. AT_ENOTFOUND, AT_EIO, AT_ENOMEM as
 * at_rec_log_load_file. */
at_status at_tune_dispatch_add_log(at_tune_dispatch *d, const char *path, size_t *n_records);

/* The same for a log already loaded (borrowed: it must outlive d). AT_ENOMEM. */
at_status at_tune_dispatch_add_loaded(at_tune_dispatch *d, const at_rec_log *log);

/* Loads the target's TopHub pack below the user logs (at_tophub_context with opts, which may be
 * NULL) and lets fallback configs read its reference records. *used (optional) gets the pack or
 * NULL when none could be had (dispatch then goes on without it), *n_records (optional) its
 * records. AT_EPARSE, AT_ENOMEM as at_tophub_context. opts is copied shallowly: its strings must
 * outlive d. */
at_status at_tune_dispatch_use_tophub(at_tune_dispatch *d, const at_tophub_opts *opts,
                                      const at_tophub_package **used, size_t *n_records);

/* The same with the pack chosen for pack_target instead of d's target (VTA: the host layers'
 * dispatch queries as "llvm -device=arm_cpu -model=pynq ..." but reads the vta pack, which holds
 * TVM's records of those layers). Statuses as at_tune_dispatch_use_tophub. */
at_status at_tune_dispatch_use_tophub_of(at_tune_dispatch *d, const char *pack_target, const at_tophub_opts *opts,
                                         const at_tophub_package **used, size_t *n_records);

/* An at_net_dispatch_fn; ctx is the at_tune_dispatch. Returns AT_OK, AT_EINVAL (a reference
 * record that does not fit the template's fallback), AT_EIO (an unreadable TopHub cache file) or
 * AT_ENOMEM. */
at_status at_tune_dispatch_fn(void *ctx, const at_task *task, const char *args_json, at_net_choice *out);

/* Counts of the answers given so far. */
at_tune_dispatch_stats at_tune_dispatch_get_stats(const at_tune_dispatch *d);

#endif
