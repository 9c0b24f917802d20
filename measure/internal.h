/* Shared by measure/'s files: the parent <-> worker wire protocol, the workers' entry points and
 * the worker half both workers share (worker_common.c, with device hooks). */
#ifndef AT_MEASURE_INTERNAL_H
#define AT_MEASURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "measure/ocl.h"

/* Message types. Frames are u32 length (of what follows) + u32 type + payload, host byte order:
 * both ends are the same binary on the same machine. */
typedef enum at_meas_msg_type {
    AT_MSG_HELLO = 1, /* w->p: u32 ok, u32 status; ok ? at_ocl_device_info bytes : str error */
    AT_MSG_BUILD,     /* p->w: u64 job, str template, u32 target, str args JSON, str config JSON */
    AT_MSG_STAGE,     /* w->p: u64 job, u32 stage (AT_STAGE_*) */
    AT_MSG_BUILT,     /* w->p: u64 job, u32 err, str msg, f64 x5 times, u32 compiled, u32 kernels built */
    AT_MSG_RUN,       /* p->w: u64 job */
    AT_MSG_RAN,       /* w->p: u64 job, u32 err, str msg, u32 n, f64 costs[n], f64 run_s, f64 check_s */
    AT_MSG_QUIT,      /* p->w */
} at_meas_msg_type;

enum { AT_STAGE_PREPARED = 1, AT_STAGE_COMPILED = 2 };

#define AT_MEAS_MAX_FRAME (64u << 20)

/* Writer: appends to a strbuf used as a byte buffer (at_meas_frame_begin reserves the header,
 * at_meas_frame_end fills the length). */
void at_meas_frame_begin(at_strbuf *sb, uint32_t type);
void at_meas_put_u32(at_strbuf *sb, uint32_t v);
void at_meas_put_u64(at_strbuf *sb, uint64_t v);
void at_meas_put_f64(at_strbuf *sb, double v);
void at_meas_put_str(at_strbuf *sb, const char *s);
void at_meas_put_bytes(at_strbuf *sb, const void *p, size_t n);
void at_meas_frame_end(at_strbuf *sb);

/* Reader over one frame's payload; a short read sets bad and yields zeros. */
typedef struct at_meas_reader {
    const unsigned char *p;
    size_t               len, pos;
    bool                 bad;
} at_meas_reader;
uint32_t at_meas_get_u32(at_meas_reader *r);
uint64_t at_meas_get_u64(at_meas_reader *r);
double   at_meas_get_f64(at_meas_reader *r);
/* A copy of a string (at_malloc'ed; NULL when bad or out of memory: then bad is set). */
char *at_meas_get_str(at_meas_reader *r);
void  at_meas_get_bytes(at_meas_reader *r, void *dst, size_t n);

/* Blocking send of a whole buffer (MSG_NOSIGNAL). AT_EIO when the peer is gone. */
at_status at_meas_send_all(int fd, const void *p, size_t n);

/* Blocking receive of one frame into *buf (at_malloc'ed, replacing it): *type and payload
 * bytes. AT_EIO at end of stream or on error, AT_EPARSE for an oversized frame. */
at_status at_meas_recv_frame(int fd, unsigned char **buf, size_t *cap, uint32_t *type, size_t *len);

/* Which worker a pool forks: OpenCL (worker.c) or the host CPU through LLVM (cpu_worker.c). Both
 * speak the protocol above; a CPU worker's HELLO describes the CPU in an at_ocl_device_info. */
typedef enum at_meas_backend { AT_MEAS_BACKEND_OPENCL = 0, AT_MEAS_BACKEND_CPU } at_meas_backend;

/* What a worker needs besides its socket: the pool's options (deep-copied strings). */
typedef struct at_meas_worker_cfg {
    at_measure_opts opts; /* defaults applied */
    at_meas_backend backend;
} at_meas_worker_cfg;

/* The worker process's main loop on socket fd; returns when told to quit or the parent is gone.
 * Never returns an error: everything goes to the parent as messages. */
void at_meas_worker_main(int fd, const at_meas_worker_cfg *cfg);

/* The CPU worker's main loop (cpu_worker.c), same contract. */
void at_meas_cpu_worker_main(int fd, const at_meas_worker_cfg *cfg);

/* ---- the worker side both workers share (worker_common.c) -------------------------------------- */

/* A failed stage: its error class and message (the reply's text). */
typedef struct at_meas_wk_outcome {
    at_meas_err err;
    char        msg[8192];
} at_meas_wk_outcome;

/* Sets o to err with a printf-formatted message. */
void at_meas_wk_fail(at_meas_wk_outcome *o, at_meas_err err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A failed step's class: RUNTIME_DEVICE for AT_EDEVICE, else UNKNOWN_ERROR. */
at_meas_err at_meas_wk_err_of(at_status st);

/* The current task's host data, kept while consecutive jobs share the task. */
typedef struct at_meas_wk_task {
    char          *key; /* template name, target and args JSON */
    at_task       *task;
    size_t         n_tensors;
    at_tensor_desc desc[AT_OP_MAX_TENSORS];
    void          *host[AT_OP_MAX_TENSORS]; /* inputs (random); outputs' space */
    size_t         bytes[AT_OP_MAX_TENSORS];
    void          *ref[AT_OP_MAX_TENSORS];  /* reference outputs, computed when checking */
} at_meas_wk_task;

/* The built program waiting for its run (the backend keeps its compiled form itself). */
typedef struct at_meas_wk_art {
    bool                 valid;
    uint64_t             job;
    at_arena            *arena;
    const at_ir_program *prog;
} at_meas_wk_art;

typedef struct at_meas_wk at_meas_wk;

/* A worker's device-specific steps. Hooks that take an outcome are called only while it is OK
 * and set it on failure; NULL optional hooks do nothing. */
typedef struct at_meas_wk_ops {
    /* Opens the device and describes it in *info (zeroed). Its status goes into HELLO. */
    at_status (*open)(at_meas_wk *w, at_ocl_device_info *info);
    /* Releases what open made; also called after a failed open. */
    void (*close)(at_meas_wk *w);
    /* Optional: tensor i of w->ts is in host memory (inputs filled): copy it to the device. */
    at_status (*upload)(at_meas_wk *w, size_t i);
    /* Optional: frees the device's copies of the task (before its host data goes). */
    void (*drop_task)(at_meas_wk *w);
    /* Optional: code generation from w->art.prog, timed as codegen (reported 0 when NULL). */
    void (*codegen)(at_meas_wk *w, at_meas_wk_outcome *oc);
    /* Compiles the program, timed as compile. */
    void (*compile)(at_meas_wk *w, at_meas_wk_outcome *oc);
    /* After the COMPILED stage: binds buffers (and launches once), timed as first launch. */
    void (*launch)(at_meas_wk *w, at_meas_wk_outcome *oc);
    /* Optional: frees the backend's part of the artifact (before its arena goes). */
    void (*drop_art)(at_meas_wk *w);
    /* Poisons the outputs when checking and runs the time evaluator into costs[repeat]; the
     * class of a failure (at_last_error its message) or AT_MEAS_OK. */
    at_meas_err (*time)(at_meas_wk *w, double *costs);
    /* Optional: reads output i back into w->ts.host[i]. */
    at_status (*read_output)(at_meas_wk *w, size_t i);
} at_meas_wk_ops;

/* The shared worker state; a backend's worker struct begins with one. */
struct at_meas_wk {
    int                    fd;
    const at_measure_opts *o;
    const at_meas_wk_ops  *ops;
    at_meas_wk_task        ts;
    at_meas_wk_art         art;
    uint32_t               kernels_built; /* set by the compile hook: device kernels it built */
    at_strbuf              tx;
    unsigned char         *rx;
    size_t                 rx_cap;
};

/* Runs a worker whose fd, o and ops are set (the rest zero): HELLO, then BUILD/RUN requests
 * until QUIT or the parent is gone, then frees everything (close included). */
void at_meas_wk_main(at_meas_wk *w);

#endif
