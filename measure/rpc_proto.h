/* The payloads a remote runner and an rpc-server exchange inside our session protocol's MEASURE
 * and RESULT frames (rpc/PROTOCOL.md section 4), as a sans-IO codec: a request names a task and
 * a config (the server rebuilds the program; TVM's OpenCL modules carry source the device
 * compiles anyway) plus the runner's measurement settings; a reply carries one at_result.
 * Fixed-width little-endian fields; a decoder checks every field and every length and rejects
 * trailing bytes, so a malformed payload is an AT_EPARSE, never a crash or a guess. */
#ifndef AT_MEASURE_RPC_PROTO_H
#define AT_MEASURE_RPC_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/result.h"
#include "core/status.h"
#include "core/strbuf.h"

#define AT_MEAS_RPC_VERSION 1
#define AT_MEAS_RPC_REQ_MAGIC 0x514D5441u /* bytes "ATMQ" */
#define AT_MEAS_RPC_REP_MAGIC 0x524D5441u /* bytes "ATMR" */

/* Limits (bytes) a decoder enforces; an encoder refuses to write more (AT_EINVAL). */
#define AT_MEAS_RPC_MAX_NAME 256u
#define AT_MEAS_RPC_MAX_ARGS (64u << 10)
#define AT_MEAS_RPC_MAX_CONFIG (256u << 10)
#define AT_MEAS_RPC_MAX_BUILD_OPTIONS 4096u
#define AT_MEAS_RPC_MAX_MSG (1u << 20)
#define AT_MEAS_RPC_MAX_DEVICE 256u
#define AT_MEAS_RPC_MAX_COSTS 64u
/* Bounds of the numeric settings (inclusive). */
#define AT_MEAS_RPC_MAX_NUMBER 1000000000
#define AT_MEAS_RPC_MAX_REPEAT 64
#define AT_MEAS_RPC_MAX_MS 86400000 /* one day: min_repeat_ms, timeouts, cooldown */

/* What to measure and how. Strings are NUL-terminated: borrowed when encoding; owned by the
 * request after at_meas_rpc_request_decode (at_meas_rpc_request_fini frees them). */
typedef struct at_meas_rpc_request {
    uint64_t    id;                /* non-zero; the reply repeats it */
    uint32_t    target;            /* at_target_family of the template */
    int32_t     number;            /* 1..AT_MEAS_RPC_MAX_NUMBER */
    int32_t     repeat;            /* 1..AT_MEAS_RPC_MAX_REPEAT */
    int32_t     min_repeat_ms;     /* 0..AT_MEAS_RPC_MAX_MS */
    int32_t     timeout_ms;        /* 1..AT_MEAS_RPC_MAX_MS: first launch, and the timed run */
    int32_t     build_timeout_ms;  /* 1..AT_MEAS_RPC_MAX_MS */
    int32_t     cooldown_ms;       /* 0..AT_MEAS_RPC_MAX_MS, 0: none; the device is held meanwhile */
    bool        check_correctness;
    uint64_t    seed;              /* non-zero: the random inputs */
    int64_t     space_len;         /* >= 1: the runner's at_space_range_len of the task */
    int64_t     config_index;      /* >= 0: a point of the space; the reply repeats it */
    const char *template_name;     /* 1..MAX_NAME bytes of [A-Za-z0-9_.\/-] */
    const char *args_json;         /* 1..MAX_ARGS bytes: the workload's argument list, "[64, 64, 64, \"float32\"]" */
    const char *config_json;       /* 1..MAX_CONFIG bytes: the config as a log stores it */
    const char *build_options;     /* 0..MAX_BUILD_OPTIONS printable ASCII bytes (NULL encodes as "") */
} at_meas_rpc_request;

/* One measurement's outcome. msg and device as in at_meas_rpc_request (owned after decode). */
typedef struct at_meas_rpc_reply {
    uint64_t    id;           /* the request's */
    int64_t     config_index; /* the request's */
    at_meas_err err;
    size_t      n_costs;      /* 1..MAX_COSTS when err is AT_MEAS_OK, else 0 */
    const double *costs_s;    /* finite, >= 0 */
    double      all_cost_s;   /* finite, >= 0: the server's build + run time, or the timeout */
    bool        all_cost_is_int;
    const char *msg;          /* non-empty when err != AT_MEAS_OK, empty (or NULL to encode) when OK */
    const char *device;       /* 0..MAX_DEVICE bytes: the device that measured, e.g. "cpu-haswell-..." */
} at_meas_rpc_reply;

/* Appends the encoded request to out. AT_EINVAL naming the field that is out of range or too
 * long (nothing is appended then), AT_ENOMEM (out->failed). */
at_status at_meas_rpc_request_encode(const at_meas_rpc_request *r, at_strbuf *out);

/* Decodes p[0..n) into *out (strings copied). AT_EPARSE naming the first field that is missing,
 * out of range, too long or of the wrong alphabet, a bad magic, or trailing bytes;
 * AT_EUNSUPPORTED for a version other than AT_MEAS_RPC_VERSION; AT_ENOMEM. *out is zeroed on
 * failure. */
at_status at_meas_rpc_request_decode(const void *p, size_t n, at_meas_rpc_request *out);

/* Frees a decoded request's strings and zeroes it. */
void at_meas_rpc_request_fini(at_meas_rpc_request *r);

/* Appends the encoded reply to out; statuses as at_meas_rpc_request_encode. */
at_status at_meas_rpc_reply_encode(const at_meas_rpc_reply *r, at_strbuf *out);

/* Decodes a reply (costs, msg and device copied). Statuses as at_meas_rpc_request_decode. */
at_status at_meas_rpc_reply_decode(const void *p, size_t n, at_meas_rpc_reply *out);

/* Frees a decoded reply's costs and strings and zeroes it. */
void at_meas_rpc_reply_fini(at_meas_rpc_reply *r);

#endif
