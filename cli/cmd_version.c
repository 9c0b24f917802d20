/* `autotvm version` / `autotvm --version`: this build's version, the TVM version its logs claim,
 * and the versions of the libraries it runs on, asked of the libraries themselves where they can
 * say (a bug report then names what was loaded, not what the build saw). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "backends/opencl/runtime.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "records/record.h"
#include "tophub/tophub.h"
#include "tuners/tuner.h"

#ifndef AT_VERSION
#error "AT_VERSION (the project version) must be defined"
#endif

/* The PoCL platform's driver version ("3.1+debian"), "" when no PoCL device is installed. */
static void pocl_version(char *buf, size_t cap)
{
    buf[0] = '\0';
    at_ocl_device_info *devs = NULL;
    size_t n = 0;
    if (at_ocl_devices(&devs, &n) != AT_OK) return;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(devs[i].platform, "Portable Computing Language")) {
            snprintf(buf, cap, "%s", devs[i].driver);
            break;
        }
    at_free(devs);
}

int at_cmd_version(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "autotvm %s: error: takes no arguments\n", argv[0]);
        return 2;
    }
    char icd[256], pocl[64];
    at_ocl_icd_loader_version(icd, sizeof icd);
    pocl_version(pocl, sizeof pocl);
    int major = 0, minor = 0, patch = 0;
    at_tuner_xgboost_version(&major, &minor, &patch);
    printf("autotvm %s\n", AT_VERSION);
    printf("TVM log version: %s\n", AT_REC_TVM_VERSION);
    printf("OpenCL ICD loader: %s\n", icd[0] ? icd : "(unknown: the loader does not say)");
    printf("PoCL: %s\n", pocl[0] ? pocl : "(not installed)");
#ifdef AT_LLVM_VERSION
    printf("LLVM: %s\n", AT_LLVM_VERSION);
#else
    printf("LLVM: (built without the LLVM backend)\n");
#endif
    printf("XGBoost: %d.%d.%d\n", major, minor, patch);
    printf("libcurl: %s\n", at_tophub_curl_version());
    return 0;
}
