/* The VTA network flows (spec/templates_vta.md §5.6, §6; seeds/004, tune_relay_vta): tuning the
 * quantized resnet18_v1's conv2d_packed.vta tasks on the VTA simulator (TVM's tune_tasks: reverse
 * order, FILE.tmp with transfer learning, pick-best into FILE) and evaluating the network with the
 * packed convs on the simulator -- each layer lowered by backends/vta with its dispatched config
 * (FILE > TopHub vta_v0.10 > the template's entity 0) and the layer's own ALU epilogue (bias,
 * relu, rounding, shift, clip), the residual adds as add.vta ALU programs (int8 operands loaded
 * with ACC_8BIT, ADD, relu, clip) when that template is registered -- and the rest (stem,
 * max_pool, head; the adds otherwise) on the host CPU, all sharing one simulated DRAM as VTA and
 * its ARM host do. The host layers run as TVM compiles them for the board's CPU: LLVM-compiled
 * (the stem conv through conv2d_nchw_spatial_pack.arm_cpu, the dense through dense_nopack.x86,
 * their configs dispatched for AT_TUNE_VTA_CPU_TARGET from the log and TopHub's vta pack; the
 * rest as generated IR kernels), or as naive C loops, which stay the reference. Latency = simulated
 * VTA time (cycles / clock) + measured host CPU time. */
#ifndef AT_TUNE_NETWORK_VTA_H
#define AT_TUNE_NETWORK_VTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "networks/vta.h"
#include "tune/network.h"
#include "vta/hw.h"

/* Tunes the network's conv2d_packed.vta tasks (ops 0 or with AT_NET_OPS_CONV2D; ops ==
 * AT_NET_OPS_ALL adds the add.vta tasks) on the VTA simulator runner (hw: the default pynq 1x16
 * bitstream) with the options of at_tune_network: network, net.image_shape[1] (height = width),
 * tuner, tuner_opts, n_trial, early_stopping, no_transfer, log_path, resume, overwrite, keep_tmp,
 * measure (check_correctness, seed) and the event callback, FILE.tmp kept or refused as there.
 * Records name the target AT_MEAS_VTA_TARGET.
 * Returns AT_OK, AT_EINVAL (missing option; FILE.tmp exists without resume/overwrite; rpc given:
 * not supported here),
 * AT_ENOTFOUND (unknown network or tuner), the tuner's and the log's statuses, AT_ENOMEM. */
at_status at_tune_vta_network(const at_tune_network_opts *o, at_tune_network_result *out);

/* ---- the host layers (TVM compiles them for the board's ARM CPU) ------------------------------ */

/* Where the host layers run: through LLVM (the default) or the naive C reference loops. */
typedef enum at_tune_vta_host_kind { AT_TUNE_VTA_HOST_LLVM = 0, AT_TUNE_VTA_HOST_NAIVE } at_tune_vta_host_kind;

/* The target TVM compiles the VTA network's CPU layers for (vta.Environment.target_vta_cpu, i.e.
 * tvm.target.arm_cpu("pynq")): the host layers' dispatch queries with it; TopHub's records for
 * those layers are in the vta pack (its conv2d_nchw_spatial_pack.arm_cpu and dense_nopack.x86
 * records of model pynq). */
#define AT_TUNE_VTA_CPU_TARGET "llvm -device=arm_cpu -model=pynq -mtriple=armv7a-linux-eabi -mattr=+neon"

/* The host layers in execution order. */
enum {
    AT_TUNE_VTA_HOST_CONV = 0, /* conv0: 7x7/2 float conv (LLVM: conv2d_nchw_spatial_pack.arm_cpu;
                                  naive: + bias) */
    AT_TUNE_VTA_HOST_QUANT,    /* (LLVM: + bias), relu, quantize to int8 */
    AT_TUNE_VTA_HOST_POOL,     /* max_pool2d 3x3/2 on int8, pack to NCHW1n16c */
    AT_TUNE_VTA_HOST_GAP,      /* unpack, dequantize, global_avg_pool2d */
    AT_TUNE_VTA_HOST_DENSE,    /* dense 512 -> classes (LLVM: dense_nopack.x86, then + bias) */
    AT_TUNE_VTA_N_HOST
};

typedef struct at_tune_vta_host_report {
    char    name[40];     /* "conv0", "relu+quantize", ... */
    char    impl[40];     /* template name; "ir" (a generated IR kernel); "naive" (C loops) */
    char    source[12];   /* template layers: "log", "tophub", "fallback"; else "-" */
    int64_t config_index; /* template layers: the config's index in the task's space; else -1 */
    double  ms;           /* median measured time of one run (evaluation only) */
} at_tune_vta_host_report;

typedef struct at_tune_vta_host_opts {
    const char    *log_path;  /* (optional) tuned records, above TopHub */
    bool           no_tophub;
    at_tophub_opts tophub;    /* the vta pack is read for the host layers' records */
    int            n_threads; /* LLVM thread pool; 0: online cores */
} at_tune_vta_host_opts;

/* The host layers of one network compiled by LLVM: the stem conv and the dense layer through
 * their templates with the config the dispatch gives (AT_TUNE_VTA_CPU_TARGET: log > TopHub's vta
 * pack > the template's fallback), bias + relu + quantize, max_pool + pack, unpack + dequantize +
 * global_avg_pool and the dense bias as generated IR kernels (parallel outer loops where the work
 * outweighs sharing it out: quantize and max_pool). */
typedef struct at_tune_vta_host at_tune_vta_host;

/* Dispatches, instantiates and compiles every host program for net (which must have its weights
 * and outlive *out) and uploads the weights. *out owned by the caller (at_tune_vta_host_free).
 * AT_EINVAL (no weights; a dispatched config that cannot be instantiated even as the fallback),
 * AT_ENOTFOUND (log), AT_EUNSUPPORTED (built without LLVM), AT_EDEVICE (LLJIT failed), AT_EIO,
 * AT_ENOMEM. */
at_status at_tune_vta_host_new(const at_net_vta *net, const at_tune_vta_host_opts *o, at_tune_vta_host **out);
void      at_tune_vta_host_free(at_tune_vta_host *h);

/* The AT_TUNE_VTA_N_HOST layer reports (ms 0); borrowed until at_tune_vta_host_free. */
const at_tune_vta_host_report *at_tune_vta_host_layers(const at_tune_vta_host *h);
/* Where the two template layers' configs came from (one answer each). */
at_tune_dispatch_stats at_tune_vta_host_dispatch_stats(const at_tune_vta_host *h);

/* Runs the stem (image -> value 0, packed int8) and the head (the last value -> logits); ms
 * (optional) gets each layer's wall time, copies to and from the programs' buffers included:
 * stem ms[0..3), head ms[0..2) (GAP, DENSE). The first stem run also runs the conv's weight
 * packing. AT_OK, AT_ENOMEM, AT_EINVAL (a backend error). */
at_status at_tune_vta_host_stem(at_tune_vta_host *h, const float *image, int8_t *value0, double *ms);
at_status at_tune_vta_host_head(at_tune_vta_host *h, const int8_t *last, float *logits, double *ms);

/* The last stem run's intermediates: the float stem conv + bias as the quantize kernel saw it
 * (conv, 64 * oh * oh) and the int8 quantized output before pooling (q). Either may be NULL. */
at_status at_tune_vta_host_stem_outputs(at_tune_vta_host *h, float *conv, int8_t *q);

/* What --check verified of the host layers (spec: the LLVM stem is not bit-identical to the
 * naive float loop, so quantize boundaries may flip by one). */
typedef struct at_tune_vta_host_check {
    double stem_max_err;      /* max |conv + bias - reference| */
    size_t stem_n_bad;        /* elements beyond AT_TUNE_VTA_STEM_ATOL + RTOL * |reference| */
    size_t quant_n_diff;      /* int8 stem outputs differing from quantizing the reference float */
    size_t quant_n_unexplained; /* of those, ones whose reference float is not within the stem
                                   tolerance of the rounding boundary between the two values */
    size_t pool_n_bad;        /* value 0 differing from the naive max_pool + pack of the executor's q */
    size_t region_n_bad;      /* packed int8 values 1.. differing from the reference executor run
                                 from the executor's value 0 */
    double logits_max_err;    /* vs the naive head on the reference's (= the executor's) last value */
    size_t logits_n_bad;      /* beyond AT_TUNE_VTA_LOGIT_ATOL + RTOL * |reference| */
    size_t value0_n_diff;     /* information: value 0 vs the full reference run from the image */
    double logits_ref_max_err;/* information: logits vs the full reference run */
} at_tune_vta_host_check;

#define AT_TUNE_VTA_STEM_ATOL 1e-4
#define AT_TUNE_VTA_STEM_RTOL 1e-5
#define AT_TUNE_VTA_LOGIT_ATOL 1e-4
#define AT_TUNE_VTA_LOGIT_RTOL 1e-4

typedef struct at_tune_vta_eval_opts {
    const char     *network;     /* at_net_vta_build name */
    at_net_vta_opts net;         /* image size, classes, weight seed */
    uint64_t        input_seed;  /* the image (at_net_vta_fill_image) when input_path is NULL */
    const char     *input_path;  /* (optional) the image as .npy (3 * H * W float32 in all) */
    const char     *save_output; /* (optional) the logits written there as .npy [1, classes] */
    const char     *log_path;    /* (optional) tuned records, above TopHub */
    bool            no_tophub;
    at_tophub_opts  tophub;
    size_t          repeat;      /* timed runs after one warm-up; 0 -> 10 */
    bool            check;       /* compare every value and the logits with the reference executor */
    bool            adds_on_cpu; /* residual adds on the host even when add.vta is registered */
    at_tune_vta_host_kind host;  /* host layers through LLVM (default) or naive C */
    int             host_threads;/* LLVM host layers: thread pool size; 0: online cores */
    at_tune_net_event_fn on_event; /* TOPHUB, COMPILE, EVALUATE */
    void           *user;
} at_tune_vta_eval_opts;

/* One layer of the evaluation, in execution order (stem first, head last). */
typedef struct at_tune_vta_layer_report {
    char     name[40];
    bool     on_vta;
    size_t   task;         /* VTA layers: index in the network's task list */
    int64_t  config_index; /* its config's index in the task's space */
    char     source[12];   /* "log", "tophub", "fallback" (VTA layers); "cpu" */
    uint64_t cycles;       /* VTA layers: simulated cycles of one run */
    double   ms;           /* VTA: cycles / clock; CPU: mean measured time */
    double   gops;         /* VTA convs: the task's FLOPs / ms (0 for adds) */
} at_tune_vta_layer_report;

typedef struct at_tune_vta_eval_result {
    double mean_ms, std_ms;   /* per run: VTA time + CPU time (numpy std, ddof 0) */
    double vta_ms, cpu_ms;    /* VTA time (the same every run), mean CPU time */
    uint64_t cycles;
    size_t n_layers;          /* reports */
    at_tune_vta_layer_report *layers; /* owned (at_tune_vta_eval_result_fini) */
    at_tune_dispatch_stats dispatch;
    bool   checked;
    size_t n_bad;             /* int8 elements of the packed values differing from the reference */
    size_t first_bad_layer;   /* SIZE_MAX when none */
    size_t n_bad_logits;      /* logits outside the tolerance (naive host: not bit-identical) */
    double median_ms;         /* median of the per-run latencies */
    at_tune_vta_host_kind host;
    at_tune_vta_host_report host_layers[AT_TUNE_VTA_N_HOST]; /* ms: medians over the runs */
    at_tune_dispatch_stats  host_dispatch;  /* LLVM host: the two template layers' sources */
    at_tune_vta_host_check  host_check;     /* with check */
} at_tune_vta_eval_result;

/* Builds the network, dispatches every conv layer's task, lowers each to a VTA program, prepares
 * the host layers (at_tune_vta_host_new unless o->host is naive) and runs the network 1 + repeat
 * times on the simulator and the CPU (the first run is a warm-up); with check, compares the last
 * run with the reference executor: naive host, every value bit-exact and the logits
 * bit-identical; LLVM host, the rules of at_tune_vta_host_check (packed region and value 0
 * bit-exact from the executor's own quantized stem output, stem and logits within tolerance),
 * whose counts n_bad (pool + region) and n_bad_logits sum up. A mismatch is AT_OK (out->n_bad
 * says). Returns AT_OK, AT_EUNSUPPORTED (LLVM host layers in a build without LLVM: use the naive
 * host), AT_ENOTFOUND (network, log), AT_EINVAL
 * (a dispatched config the hardware cannot take with the layer's epilogue: the detail names the
 * layer), AT_EDEVICE (the simulator rejects a program), AT_EIO, AT_ENOMEM. */
at_status at_tune_vta_evaluate(const at_tune_vta_eval_opts *o, at_tune_vta_eval_result *out);
void      at_tune_vta_eval_result_fini(at_tune_vta_eval_result *r);

#endif
