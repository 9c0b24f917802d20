/* OpenCL device runtime: platforms and devices with their limits, one context + profiling
 * queue per device, buffers, programs built from at_ocl_code and launched as a whole (every
 * kernel in order, `number` times) with the device time read from profiling events. Built
 * without OpenCL (AT_WITH_OPENCL=OFF) every call answers AT_EUNSUPPORTED "built without OpenCL".
 *
 * PoCL needs a writable kernel cache (POCL_CACHE_DIR) before the first OpenCL call of the
 * process; at_ocl_runtime_init sets one, and every other call initializes with the default first.
 * A process that used OpenCL must not fork workers that use it again (PoCL's threads do not
 * survive fork): at_ocl_touched() says whether this process has. */
#ifndef AT_BACKENDS_OPENCL_RUNTIME_H
#define AT_BACKENDS_OPENCL_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/opencl/opencl.h"
#include "core/status.h"

typedef struct at_ocl_device_info {
    size_t   index;            /* position in at_ocl_devices' list (platform order, then device) */
    char     platform[128];    /* CL_PLATFORM_NAME, "Portable Computing Language" for PoCL */
    char     name[128];        /* CL_DEVICE_NAME */
    char     version[64];      /* CL_DEVICE_OPENCL_C_VERSION */
    char     driver[64];       /* CL_DRIVER_VERSION */
    bool     is_cpu, is_gpu;
    unsigned compute_units;
    size_t   max_work_group_size;
    unsigned max_work_item_dims;
    size_t   max_work_item_sizes[3];
    uint64_t local_mem_bytes;
    uint64_t global_mem_bytes;
    uint64_t max_alloc_bytes;
    bool     fp64, fp16;
    bool     is_pocl;          /* code generation happens at the first launch per local size */
} at_ocl_device_info;

/* Sets POCL_CACHE_DIR to cache_dir (created with its parents), or when cache_dir is NULL keeps
 * a POCL_CACHE_DIR the environment already has and otherwise uses $XDG_CACHE_HOME/autotvm/pocl,
 * ~/.cache/autotvm/pocl or /tmp/autotvm-<uid>/pocl. Call before any other at_ocl_ function;
 * later calls do nothing once OpenCL was used. AT_EIO (directory not creatable), AT_EINVAL
 * (OpenCL already in use with another directory). */
at_status at_ocl_runtime_init(const char *cache_dir);

/* The cache directory in effect (NULL before at_ocl_runtime_init ran); static storage. */
const char *at_ocl_cache_dir(void);

/* Whether this process has called into OpenCL. */
bool at_ocl_touched(void);

/* Every device of every platform. *out (n entries) owned by the caller (at_free); a platform
 * whose devices cannot be listed is skipped with a warning log. AT_OK with *n = 0 when there is
 * no platform, AT_EDEVICE for other OpenCL failures, AT_ENOMEM, AT_EUNSUPPORTED. */
at_status at_ocl_devices(at_ocl_device_info **out, size_t *n);

/* The ICD loader's name and version ("OpenCL ICD Loader 2.3.1"; ocl-icd's loader-info
 * extension) in buf, or "" when the loader does not say (or no OpenCL runtime is built in). */
void at_ocl_icd_loader_version(char *buf, size_t cap);

/* Picks a device from a list: spec NULL or "" = the first PoCL device, else device 0; spec all
 * digits = that index; otherwise the first device whose "platform / name" contains spec,
 * case-insensitively ("nvidia cuda", "pthread"). AT_ENOTFOUND (with the choices listed). */
at_status at_ocl_device_select(const at_ocl_device_info *devs, size_t n, const char *spec, size_t *index);

/* A context and an in-order profiling queue on device `index` of at_ocl_devices' list. *out
 * owned by the caller (at_ocl_ctx_free, which waits for queued work). AT_ENOTFOUND (no such
 * device), AT_EDEVICE, AT_ENOMEM, AT_EUNSUPPORTED. */
typedef struct at_ocl_ctx at_ocl_ctx;
at_status at_ocl_ctx_new(size_t index, at_ocl_ctx **out);
void      at_ocl_ctx_free(at_ocl_ctx *ctx);
/* The device's description, borrowed until at_ocl_ctx_free. */
const at_ocl_device_info *at_ocl_ctx_device(const at_ocl_ctx *ctx);

/* Device buffers (read-write, of `bytes` bytes; *out owned by the caller, at_ocl_buf_free).
 * AT_EDEVICE (with the OpenCL error), AT_ENOMEM. */
typedef struct at_ocl_buf at_ocl_buf;
at_status at_ocl_buf_new(at_ocl_ctx *ctx, size_t bytes, at_ocl_buf **out);
void      at_ocl_buf_free(at_ocl_buf *b);
size_t    at_ocl_buf_bytes(const at_ocl_buf *b);
/* Blocking copies of the whole buffer from/to host memory of at_ocl_buf_bytes bytes. */
at_status at_ocl_buf_write(at_ocl_ctx *ctx, at_ocl_buf *b, const void *src);
at_status at_ocl_buf_read(at_ocl_ctx *ctx, const at_ocl_buf *b, void *dst);
/* Fills the whole buffer with a repeated pattern of 1, 2, 4, 8 ... 128 bytes (blocking). */
at_status at_ocl_buf_fill(at_ocl_ctx *ctx, at_ocl_buf *b, const void *pattern, size_t pattern_bytes);

/* A built program with one cl_kernel per at_ocl_code kernel; it keeps a pointer to its context,
 * which must outlive it. */
typedef struct at_ocl_prog at_ocl_prog;

/* Builds code's source on ctx's device with build options (may be NULL) and creates its kernels.
 * The code is copied as needed. On a compiler error: AT_EDEVICE, and when log is not NULL,
 * *log = the build log (owned by the caller, at_free); otherwise *log = NULL. AT_ENOMEM. */
at_status at_ocl_prog_build(at_ocl_ctx *ctx, const at_ocl_code *code, const char *options, at_ocl_prog **out,
                            char **log);
void at_ocl_prog_free(at_ocl_prog *p);

/* Sets every kernel's arguments: bufs[i] is the device buffer of the program's i-th buffer
 * (at_ocl_kernel_info.args index into it). AT_EDEVICE. */
at_status at_ocl_prog_bind(at_ocl_prog *p, at_ocl_buf *const *bufs, size_t n_bufs);

/* The untimed first launch that makes the driver finish code generation (PoCL generates machine
 * code per local size at the first enqueue): each kernel in order on one work-group (global =
 * local size), which PoCL compiles to the same variant as the full grid as long as every global
 * size stays under its 65535 "small grid" limit; beyond it, the full grid. AT_EDEVICE. */
at_status at_ocl_prog_first_launch(at_ocl_prog *p);

/* Enqueues the whole program (each kernel in order) `number` times back to back, waits, and
 * when device_ms is not NULL sets it to the sum of the kernels' profiled START..END times in
 * milliseconds. AT_EDEVICE (a launch or the wait failed: the message names the kernel and the
 * OpenCL error), AT_ENOMEM. */
at_status at_ocl_prog_run(at_ocl_prog *p, int64_t number, double *device_ms);

/* A recorded sequence of launches for a whole network: each added program's kernels get their
 * own cl_kernel objects with the arguments set once, so a run is the enqueues alone, back to back,
 * and one wait at the end (no per-run argument setting, allocation or host wait between
 * kernels). The programs and buffers added must outlive the sequence. */
typedef struct at_ocl_seq at_ocl_seq;

/* An empty sequence on ctx (which must outlive it). *out owned by the caller. AT_ENOMEM. */
at_status at_ocl_seq_new(at_ocl_ctx *ctx, at_ocl_seq **out);
void      at_ocl_seq_free(at_ocl_seq *s);

/* Appends p's kernels in order, bound to bufs as at_ocl_prog_bind binds them. AT_EDEVICE,
 * AT_ENOMEM. */
at_status at_ocl_seq_add(at_ocl_seq *s, const at_ocl_prog *p, at_ocl_buf *const *bufs, size_t n_bufs);

/* Enqueues every launch in order (preparation and finishing kernels only when with_prepare) and
 * waits once. When device_ms is not NULL, each launch is profiled and *device_ms is the sum of their
 * START..END times (events cost host time: leave it NULL to time the host); per_add_ms (optional,
 * with device_ms) then gets the time of each at_ocl_seq_add's kernels, in add order. AT_EDEVICE
 * (the message names the kernel), AT_ENOMEM. */
at_status at_ocl_seq_run(at_ocl_seq *s, bool with_prepare, double *device_ms, double *per_add_ms);

#endif
