/* Shared by measure/'s files: the parent <-> worker wire protocol and the worker's entry point. */
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
    AT_MSG_BUILT,     /* w->p: u64 job, u32 err, str msg, f64 x5 times, u32 compiled */
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

#endif
