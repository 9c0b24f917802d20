/* Shared by networks/vta_*.c only: the VTA network's struct, which the zoo builder (vta_resnet.c)
 * and the ONNX lowering (vta_onnx.c) both fill, and the steps they share. */
#ifndef AT_NETWORKS_VTA_INTERNAL_H
#define AT_NETWORKS_VTA_INTERNAL_H

#include "networks/vta.h"

enum { AT_NET_VTA_MAX_LAYERS = 64, AT_NET_VTA_MAX_TASKS = 64 };

typedef struct at_net_vta_task_slot {
    at_task *task;
    char    *args_json;
    bool     alu;
} at_net_vta_task_slot;

struct at_net_vta {
    int64_t              hw, classes, feat;
    bool                 weights;
    at_net_vta_layer     layers[AT_NET_VTA_MAX_LAYERS];
    size_t               n_layers;
    size_t               layer_task[AT_NET_VTA_MAX_LAYERS];
    at_net_vta_task_slot tasks[AT_NET_VTA_MAX_TASKS];
    size_t               n_tasks;
    /* CPU parts, float, owned: stem conv 7x7/2 (BN folded) [64][3][7][7] + [64];
     * dense [classes][feat] + [classes] */
    float *stem_w, *stem_b, *dense_w, *dense_b;
};

/* Quantizes a folded conv's float weights w [co][ci][k][k] and bias b [co] into layer l (its
 * shape fields set): the power-of-two weight scale, packed OIHW16o16i int8 weights, the int32 bias
 * at the accumulator scale and the requant shift. AT_EINVAL (a shift outside 1..15), AT_ENOMEM. */
at_status at_net_vta_quantize_conv(at_net_vta_layer *l, const float *w, const float *b);

/* The task list (the lowering-order walk from the last value; layer_task filled). Statuses as
 * at_task_create's (a task that cannot be created is dropped with a warning, as TVM does). */
at_status at_net_vta_extract_tasks(at_net_vta *net);

#endif
