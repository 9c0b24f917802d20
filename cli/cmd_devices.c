/* autotvm devices: every OpenCL platform/device with the limits measure/ checks configs against,
 * the device --device would pick marked "(default)". Uses OpenCL in this process (no workers). */
#include <stdio.h>

#include "backends/opencl/runtime.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "core/alloc.h"

static const char usage[] =
    "usage: autotvm devices [--device SPEC] [--cache-dir DIR]\n"
    "\n"
    "Lists every OpenCL device of every platform, numbered as --device counts them, with the\n"
    "limits configs are checked against before compiling (work-group size, work-item sizes,\n"
    "local memory). The device measurements use by default (the first PoCL device, else 0) is\n"
    "marked (default); with --device, the device SPEC selects is marked (selected) instead.\n"
    "\n"
    "options:\n"
    "  --device SPEC    an index or a case-insensitive substring of \"platform / device\"\n"
    "  --cache-dir DIR  PoCL's kernel cache (POCL_CACHE_DIR); default ~/.cache/autotvm/pocl\n"
    "  -h, --help       show this help\n";

int at_cmd_devices(int argc, char **argv)
{
    const char *device = NULL, *cache_dir = NULL;
    const at_cli_opt opts[] = {{"device", &device, NULL}, {"cache-dir", &cache_dir, NULL}};
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], NULL, 0, &n_pos, "devices");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    at_status st = at_ocl_runtime_init(cache_dir);
    at_ocl_device_info *devs = NULL;
    size_t n = 0, chosen = 0;
    if (st == AT_OK) st = at_ocl_devices(&devs, &n);
    if (st != AT_OK) return at_cli_fail(st);
    if (n == 0) {
        at_free(devs);
        printf("no OpenCL device found\n");
        return device ? at_cli_fail(AT_FAIL(AT_ENOTFOUND, "no OpenCL device matches '%s'", device)) : 0;
    }
    st = at_ocl_device_select(devs, n, device, &chosen);
    if (st != AT_OK) {
        at_free(devs);
        return at_cli_fail(st);
    }
    for (size_t i = 0; i < n; i++) {
        const at_ocl_device_info *d = &devs[i];
        printf("%zu: %s / %s%s\n", i, d->platform, d->name, i != chosen ? "" : device ? "  (selected)" : "  (default)");
        printf("   %s, %s, driver %s, %u compute units\n", d->is_gpu ? "GPU" : d->is_cpu ? "CPU" : "accelerator",
               d->version, d->driver, d->compute_units);
        printf("   max work-group %zu, work-items %zu x %zu x %zu, local memory %llu KiB, max allocation %llu MiB%s%s\n",
               d->max_work_group_size, d->max_work_item_sizes[0], d->max_work_item_sizes[1], d->max_work_item_sizes[2],
               (unsigned long long)(d->local_mem_bytes / 1024), (unsigned long long)(d->max_alloc_bytes >> 20),
               d->fp64 ? ", fp64" : "", d->fp16 ? ", fp16" : "");
    }
    at_free(devs);
    return 0;
}
