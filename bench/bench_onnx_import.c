/* bench_onnx_import MODEL.onnx [REPS]: wall time of importing an ONNX model (read, protobuf
 * decode, operator conversion, constant folding) and of import + fusion, medians of REPS runs
 * (default 20). The goal for a resnet-50-sized model is < 0.5 s. */
#include <stdio.h>
#include <stdlib.h>

#include "core/clock.h"
#include "networks/net.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_onnx_import MODEL.onnx [REPS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    if (reps < 1 || reps > 1000) reps = 20;
    double imp[1000], all[1000];
    size_t nodes = 0;
    for (int r = 0; r < reps; r++) {
        at_net *raw, *net;
        double t0 = at_clock_mono_s();
        if (at_net_onnx_import(argv[1], NULL, &raw) != AT_OK) {
            fprintf(stderr, "bench_onnx_import: %s\n", at_last_error());
            return 1;
        }
        double t1 = at_clock_mono_s();
        if (at_net_fuse(raw, &net) != AT_OK) {
            fprintf(stderr, "bench_onnx_import: %s\n", at_last_error());
            return 1;
        }
        double t2 = at_clock_mono_s();
        imp[r] = (t1 - t0) * 1e3;
        all[r] = (t2 - t0) * 1e3;
        nodes = at_net_n_nodes(raw);
        at_net_free(net);
        at_net_free(raw);
    }
    qsort(imp, (size_t)reps, sizeof *imp, cmp);
    qsort(all, (size_t)reps, sizeof *all, cmp);
    printf("%s: %zu graph nodes; import median %.1f ms, import + fuse median %.1f ms (%d runs)\n", argv[1], nodes,
           imp[reps / 2], all[reps / 2], reps);
    return 0;
}
