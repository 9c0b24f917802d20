/* The rpc-server's side of remote measurement: an at_rpc_session_handler (rpc/server.h) that
 * decodes a measure request (measure/rpc_proto.h), rebuilds the task and config, checks them
 * against its own template registry, measures on the server's local OpenCL device with the
 * worker pool of measure/ocl.h (LLVM templates: on the server's CPU with the CPU pool of
 * measure/cpu.h, JIT-compiled there, so a board's rpc-server measures its own CPU; VTA
 * templates: on the default VTA simulator, in the session's process, with measure/vta_runner.h;
 * no OpenCL device needed) and encodes the result.
 *
 * Processes: the server's main process never uses OpenCL (PoCL does not survive fork); each
 * session runs in a forked child (rpc/server.c), which starts its own one-worker pool at its
 * first MEASURE and stops it when the session ends. A kernel that crashes or hangs costs its
 * worker, reported as RUNTIME_DEVICE / RUN_TIMEOUT exactly as a local measurement would; a
 * session that dies is the server's concern (its client sees the ERROR frame). */
#ifndef AT_MEASURE_RPC_HANDLER_H
#define AT_MEASURE_RPC_HANDLER_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/opencl/runtime.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "rpc/server.h"
#include "templates/template.h"

/* Zero means default. */
typedef struct at_meas_rpc_handler_opts {
    const char *device;    /* OpenCL device spec (at_ocl_device_select); NULL: the default (PoCL) */
    const char *cache_dir; /* POCL_CACHE_DIR for the workers; NULL: at_ocl_runtime_init's default */
    /* templates a request may name besides the registry's (tests' fault templates); borrowed,
     * must outlive the handler */
    const at_template *const *extra_templates;
    size_t                    n_extra_templates;
    bool                      no_probe; /* skip the device probe of at_meas_rpc_handler_new */
} at_meas_rpc_handler_opts;

typedef struct at_meas_rpc_handler at_meas_rpc_handler;

/* Copies the options and, unless no_probe, opens the device once in a worker process (this
 * process does not touch OpenCL) to check that it exists and learn its name. *out owned by the
 * caller (at_meas_rpc_handler_free). AT_ENOTFOUND (no device matches), AT_EDEVICE (OpenCL
 * failed: its message), AT_EUNSUPPORTED (built without OpenCL), AT_EINVAL (this process
 * already used OpenCL), AT_EIO (fork failed), AT_ENOMEM. */
at_status at_meas_rpc_handler_new(const at_meas_rpc_handler_opts *opts, at_meas_rpc_handler **out);

/* Stops a pool the handler still runs and frees it; NULL does nothing. */
void at_meas_rpc_handler_free(at_meas_rpc_handler *h);

/* The device the probe opened; NULL when it was skipped. Borrowed until _free. */
const at_ocl_device_info *at_meas_rpc_handler_device(const at_meas_rpc_handler *h);

/* The hooks for at_rpc_server_opts.handler: measure = at_meas_rpc_handler_measure,
 * session_end = at_meas_rpc_handler_reset, ctx = h (borrowed: h must outlive the server). */
at_rpc_session_handler at_meas_rpc_handler_hooks(at_meas_rpc_handler *h);

/* Handles one MEASURE payload: decodes and checks it, measures, and appends the encoded reply to
 * *reply. A config that fails to build or run is a reply (its error number), not a failure.
 * OpenCL and LLVM requests start a worker pool of their kind on first use (an OpenCL one only
 * while this process has not used OpenCL), and again when a request's settings or kind differ
 * from the running pool's; VTA requests never do. Returns AT_OK; AT_EPARSE (malformed
 * payload, args or config JSON), AT_EUNSUPPORTED (another protocol version, a target other than
 * OpenCL, LLVM or VTA; LLVM requests on a server built without LLVM), AT_ENOTFOUND (no such template here), AT_EINVAL (the args or the config do not fit
 * this server's template: a different space, the config not the point its index names), or as
 * at_meas_ocl_new / at_meas_ocl_measure when the device cannot be used (AT_EDEVICE, AT_EIO,
 * AT_ENOMEM). */
at_status at_meas_rpc_handler_measure(void *h, const unsigned char *req, size_t len, at_strbuf *reply);

/* Stops the session's worker pool, if any (the session_end hook). */
void at_meas_rpc_handler_reset(void *h);

#endif
