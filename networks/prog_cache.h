/* A backend that shares compiled programs among executors: building an executor for a plan that
 * differs from an earlier one in a few anchors compiles only those (the graph tuner's refinement
 * builds the network once per move it measures). Programs are told apart by their whole printed
 * text (at_ir_print), so two that print alike are the same program. Programs are built one at a
 * time (the backend's prog_new_all is not used). */
#ifndef AT_NETWORKS_PROG_CACHE_H
#define AT_NETWORKS_PROG_CACHE_H

#include <stddef.h>

#include "core/status.h"
#include "networks/exec.h"

typedef struct at_net_prog_cache at_net_prog_cache;

/* A cache over be (borrowed with be_ctx: both must outlive the cache). Over a backend whose
 * programs may not outlive their source (prog_outlives_source false: the IR interpreter) nothing
 * is shared and every call passes through. *out owned by the caller. AT_ENOMEM. */
at_status at_net_prog_cache_new(const at_net_backend_i *be, void *be_ctx, at_net_prog_cache **out);
/* Frees every program kept; executors built on the cache must be freed first. NULL is fine. */
void at_net_prog_cache_free(at_net_prog_cache *c);

/* The cache as a backend: pass it with the cache as ctx. Borrowed until at_net_prog_cache_free. */
const at_net_backend_i *at_net_prog_cache_backend(const at_net_prog_cache *c);

/* Programs the underlying backend compiled so far (prog_new calls it answered). */
size_t at_net_prog_cache_n_built(const at_net_prog_cache *c);

#endif
