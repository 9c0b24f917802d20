/* bench_network: end-to-end latency (batch 1) of resnet-18 and mobilenet on one OpenCL device
 * with fallback configs, TopHub configs and, given --log, tuned configs (log > TopHub > fallback):
 * the median wall time of --repeat runs after a warm-up, plus the median device time.
 *
 *   bench_network [--device SPEC] [--log FILE] [--repeat N] [--tophub-dir DIR] [--image-shape C,H,W]
 *                 [--networks resnet-18,mobilenet] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "tune/network.h"

static void usage(void)
{
    fprintf(stderr, "usage: bench_network [--device SPEC] [--log FILE] [--repeat N] [--tophub-dir DIR]\n"
                    "                     [--image-shape C,H,W] [--networks resnet-18,mobilenet]\n");
    exit(2);
}

static int bench(const char *net, const char *mode, at_tune_eval_opts *o)
{
    at_tune_eval_result r;
    at_status st = at_tune_evaluate(o, &r);
    if (st != AT_OK) {
        fprintf(stderr, "bench_network: %s %s: %s: %s\n", net, mode, at_status_str(st), at_last_error());
        return 1;
    }
    printf("%-10s %-9s median %9.2f ms  mean %9.2f ms (std %6.2f)  device %9.2f ms  tuned %2zu/%2zu tasks  "
           "check %s\n",
           net, mode, r.median_ms, r.mean_ms, r.std_ms, r.device_ms, r.dispatch.n_user + r.dispatch.n_tophub,
           r.dispatch.n_user + r.dispatch.n_tophub + r.dispatch.n_fallback, r.check.n_bad ? "MISMATCH" : "ok");
    fflush(stdout);
    return r.check.n_bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *log = NULL, *tophub_dir = NULL, *nets = "resnet-18,mobilenet";
    size_t repeat = 10;
    long long shape[3] = {3, 224, 224};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        if (!strcmp(argv[i], "--device"))
            device = argv[++i];
        else if (!strcmp(argv[i], "--log"))
            log = argv[++i];
        else if (!strcmp(argv[i], "--tophub-dir"))
            tophub_dir = argv[++i];
        else if (!strcmp(argv[i], "--networks"))
            nets = argv[++i];
        else if (!strcmp(argv[i], "--repeat"))
            repeat = (size_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--image-shape")) {
            if (sscanf(argv[++i], "%lld,%lld,%lld", &shape[0], &shape[1], &shape[2]) != 3) usage();
        } else
            usage();
    }
    if (repeat == 0) usage();
    at_log_set_level(AT_LOG_ERROR);
    printf("device: %s   runs: %zu (median of wall times after a warm-up)\n", device ? device : "(PoCL)", repeat);
    int rc = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", nets);
    for (char *save = NULL, *net = strtok_r(list, ",", &save); net; net = strtok_r(NULL, ",", &save)) {
        at_tune_eval_opts o = {.network = net, .target = AT_NET_TARGET_MALI, .device = device, .repeat = repeat,
                               .check = true};
        o.net.image_shape[0] = shape[0];
        o.net.image_shape[1] = shape[1];
        o.net.image_shape[2] = shape[2];
        o.tophub.cache_dir = tophub_dir;
        o.no_tophub = true;
        rc |= bench(net, "fallback", &o);
        o.no_tophub = false;
        rc |= bench(net, "tophub", &o);
        if (log) {
            o.log_path = log;
            rc |= bench(net, "tuned", &o);
        }
    }
    return rc;
}
