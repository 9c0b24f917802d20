/* The VTA network flows (spec/templates_vta.md §5.6, §6; seeds/004, tune_relay_vta): tuning the
 * quantized resnet18_v1's conv2d_packed.vta tasks on the VTA simulator (TVM's tune_tasks: reverse
 * order, FILE.tmp with transfer learning, pick-best into FILE) and evaluating the network with the
 * packed convs on the simulator -- each layer lowered by backends/vta with its dispatched config
 * (FILE > TopHub vta_v0.10 > the template's entity 0) and the layer's own ALU epilogue (bias,
 * relu, rounding, shift, clip), the residual adds as add.vta ALU programs (int8 operands loaded
 * with ACC_8BIT, ADD, relu, clip) when that template is registered -- and the rest (stem,
 * max_pool, head; the adds otherwise) on the host CPU in naive C, all sharing one simulated DRAM
 * as VTA and its ARM host do. Latency = simulated
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
 * tuner, tuner_opts, n_trial, early_stopping, no_transfer, log_path, keep_tmp, measure
 * (check_correctness, seed) and the event callback. Records name the target AT_MEAS_VTA_TARGET.
 * Returns AT_OK, AT_EINVAL (missing option; resume or rpc given: not supported here),
 * AT_ENOTFOUND (unknown network or tuner), the tuner's and the log's statuses, AT_ENOMEM. */
at_status at_tune_vta_network(const at_tune_network_opts *o, at_tune_network_result *out);

typedef struct at_tune_vta_eval_opts {
    const char     *network;     /* at_net_vta_build name */
    at_net_vta_opts net;         /* image size, classes, weight seed */
    uint64_t        input_seed;  /* the image (at_net_vta_fill_image) */
    const char     *log_path;    /* (optional) tuned records, above TopHub */
    bool            no_tophub;
    at_tophub_opts  tophub;
    size_t          repeat;      /* timed runs after one warm-up; 0 -> 10 */
    bool            check;       /* compare every value and the logits with the reference executor */
    bool            adds_on_cpu; /* residual adds on the host even when add.vta is registered */
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
    size_t n_bad_logits;      /* logits not bit-identical */
} at_tune_vta_eval_result;

/* Builds the network, dispatches every conv layer's task, lowers each to a VTA program and runs
 * the network 1 + repeat times on the simulator and the CPU (the first run is a warm-up); with
 * check, compares every value and the logits of the last run with the reference executor. A
 * mismatch is AT_OK (out->n_bad says). Returns AT_OK, AT_ENOTFOUND (network, log), AT_EINVAL
 * (a dispatched config the hardware cannot take with the layer's epilogue: the detail names the
 * layer), AT_EDEVICE (the simulator rejects a program), AT_EIO, AT_ENOMEM. */
at_status at_tune_vta_evaluate(const at_tune_vta_eval_opts *o, at_tune_vta_eval_result *out);
void      at_tune_vta_eval_result_fini(at_tune_vta_eval_result *r);

#endif
