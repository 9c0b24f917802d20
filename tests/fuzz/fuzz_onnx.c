/* libFuzzer target for ONNX models (networks/onnx.c through protobuf-c's generated decoder): any
 * input either imports to a network that fuses and runs on the reference executor, or fails
 * with a status and a one-line detail; a fused network also lowers to VTA's form or is refused
 * with one line (networks/vta_onnx.c). Any crash, sanitizer report, abort() or leaked block
 * (at_alloc_live) is a bug. Networks above 2^20 elements per tensor are imported but not run
 * (libFuzzer's memory limit). */
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "networks/net.h"
#include "networks/exec.h"
#include "networks/vta.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool small(const at_net *net)
{
    for (size_t i = 0; i < at_net_n_nodes(net); i++)
        if (at_net_node_numel(at_net_node_at(net, i)) > (1 << 20)) return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    at_log_set_sink(at_fuzz_quiet, NULL);
    long live = at_alloc_live();
    at_net *raw = NULL, *net = NULL;
    at_status st = at_net_onnx_parse(data, size, "fuzz.onnx", NULL, NULL, NULL, &raw);
    if (st != AT_OK) {
        CHECK(raw == NULL);
        CHECK(strchr(at_last_error(), '\n') == NULL);
    } else if (at_net_fuse(raw, &net) == AT_OK && small(net)) {
        at_net_vta *vta = NULL;
        /* with the weights: quantization reads them, and its refusals are lines too */
        if (at_net_vta_from_net(net, NULL, &vta) != AT_OK) CHECK(vta == NULL && strchr(at_last_error(), '\n') == NULL);
        at_net_vta_free(vta);
        int64_t n = at_net_node_numel(at_net_node_at(net, 0));
        float *x = at_malloc((size_t)n * sizeof *x);
        CHECK(x != NULL);
        for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 7) - 3;
        at_net_values *v = NULL;
        if (at_net_run_reference(net, x, false, &v) == AT_OK) at_net_values_free(v);
        at_free(x);
    }
    at_net_free(net);
    at_net_free(raw);
    CHECK(at_alloc_live() == live);
    return 0;
}
