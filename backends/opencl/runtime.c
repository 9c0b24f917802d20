/* OpenCL runtime: the only file that calls the OpenCL API (errors through cl_check.c). Devices
 * are addressed by their position in one flat list (platforms in ICD order, then devices), so a
 * worker process can re-open "device 2" by number. A build without OpenCL keeps the same
 * functions and answers AT_EUNSUPPORTED. */
#include "backends/opencl/runtime.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"

static bool touched;
static char cache_dir[1024];

bool at_ocl_touched(void)
{
    return touched;
}

const char *at_ocl_cache_dir(void)
{
    return cache_dir[0] ? cache_dir : NULL;
}

static at_status mkdir_p(const char *path)
{
    char tmp[1024];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof tmp) return AT_FAIL(AT_EIO, "bad cache directory '%s'", path);
    memcpy(tmp, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (tmp[i] != '/' && tmp[i] != '\0') continue;
        char saved = tmp[i];
        tmp[i] = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return AT_FAIL(AT_EIO, "cannot create directory %s: %s", tmp, strerror(errno));
        tmp[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || access(path, W_OK) != 0)
        return AT_FAIL(AT_EIO, "cache directory %s is not a writable directory", path);
    return AT_OK;
}

at_status at_ocl_runtime_init(const char *dir)
{
    char def[1024];
    if (!dir) {
        const char *env = getenv("POCL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (env && *env)
            snprintf(def, sizeof def, "%s", env);
        else if (xdg && *xdg)
            snprintf(def, sizeof def, "%s/autotvm/pocl", xdg);
        else if (home && *home && access(home, W_OK) == 0)
            snprintf(def, sizeof def, "%s/.cache/autotvm/pocl", home);
        else
            snprintf(def, sizeof def, "/tmp/autotvm-%ld/pocl", (long)getuid());
        dir = def;
    }
    if (touched) {
        if (strcmp(dir, cache_dir) != 0 && dir != def)
            return AT_FAIL(AT_EINVAL, "OpenCL is already in use with cache directory %s, cannot switch to %s",
                           cache_dir, dir);
        return AT_OK;
    }
    AT_TRY(mkdir_p(dir));
    if (setenv("POCL_CACHE_DIR", dir, 1) != 0) return AT_FAIL(AT_EIO, "setenv POCL_CACHE_DIR: %s", strerror(errno));
    snprintf(cache_dir, sizeof cache_dir, "%s", dir);
    return AT_OK;
}

at_status at_ocl_device_select(const at_ocl_device_info *devs, size_t n, const char *spec, size_t *index)
{
    if (n == 0) return AT_FAIL(AT_ENOTFOUND, "no OpenCL device found");
    if (!spec || !*spec) {
        for (size_t i = 0; i < n; i++)
            if (devs[i].is_pocl) {
                *index = i;
                return AT_OK;
            }
        *index = 0;
        return AT_OK;
    }
    if (strspn(spec, "0123456789") == strlen(spec)) {
        unsigned long i = strtoul(spec, NULL, 10);
        if (i >= n) return AT_FAIL(AT_ENOTFOUND, "no OpenCL device %lu (there are %zu)", i, n);
        *index = i;
        return AT_OK;
    }
    char want[128];
    size_t wl = 0;
    for (; spec[wl] && wl < sizeof want - 1; wl++) want[wl] = (char)tolower((unsigned char)spec[wl]);
    want[wl] = '\0';
    for (size_t i = 0; i < n; i++) {
        char full[300];
        snprintf(full, sizeof full, "%s / %s", devs[i].platform, devs[i].name);
        for (char *q = full; *q; q++) *q = (char)tolower((unsigned char)*q);
        if (strstr(full, want)) {
            *index = i;
            return AT_OK;
        }
    }
    char list[512] = "";
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%zu: %s / %s", i ? "; " : "", i, devs[i].platform, devs[i].name);
    }
    return AT_FAIL(AT_ENOTFOUND, "no OpenCL device matches '%s' (devices: %s)", spec, list);
}

#if AT_WITH_OPENCL

#include <CL/cl.h>

#include "backends/opencl/cl_check.h"

struct at_ocl_ctx {
    cl_context         context;
    cl_command_queue   queue;
    cl_device_id       device;
    at_ocl_device_info info;
};

struct at_ocl_buf {
    cl_mem mem;
    size_t bytes;
};

struct at_ocl_prog {
    at_ocl_ctx         *ctx;
    cl_program          program;
    size_t              n_kernels;
    cl_kernel          *kernels;
    at_ocl_kernel_info *info; /* copies: names and arg lists owned here */
    cl_event           *events;
    size_t              cap_events;
};

static at_status ensure_init(void)
{
    if (!cache_dir[0]) AT_TRY(at_ocl_runtime_init(NULL));
    touched = true;
    return AT_OK;
}

static void dev_str(cl_device_id d, cl_device_info what, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, cap, buf, NULL) != CL_SUCCESS) buf[0] = '\0';
    buf[cap - 1] = '\0';
}

static void fill_info(cl_platform_id p, cl_device_id d, size_t index, at_ocl_device_info *o)
{
    memset(o, 0, sizeof *o);
    o->index = index;
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof o->platform, o->platform, NULL) != CL_SUCCESS) o->platform[0] = '\0';
    o->platform[sizeof o->platform - 1] = '\0';
    dev_str(d, CL_DEVICE_NAME, o->name, sizeof o->name);
    dev_str(d, CL_DEVICE_OPENCL_C_VERSION, o->version, sizeof o->version);
    dev_str(d, CL_DRIVER_VERSION, o->driver, sizeof o->driver);
    cl_device_type type = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    o->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    o->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    cl_uint u = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof u, &u, NULL) == CL_SUCCESS) o->compute_units = u;
    size_t s = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof s, &s, NULL) == CL_SUCCESS) o->max_work_group_size = s;
    u = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof u, &u, NULL) == CL_SUCCESS) o->max_work_item_dims = u;
    size_t sizes[16] = {0};
    if (o->max_work_item_dims >= 1 && o->max_work_item_dims <= 16 &&
        clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, o->max_work_item_dims * sizeof(size_t), sizes, NULL) == CL_SUCCESS)
        for (unsigned i = 0; i < 3 && i < o->max_work_item_dims; i++) o->max_work_item_sizes[i] = sizes[i];
    cl_ulong ul = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS) o->local_mem_bytes = ul;
    ul = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS) o->global_mem_bytes = ul;
    ul = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS) o->max_alloc_bytes = ul;
    char ext[4096];
    dev_str(d, CL_DEVICE_EXTENSIONS, ext, sizeof ext);
    o->fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    o->fp16 = strstr(ext, "cl_khr_fp16") != NULL;
    o->is_pocl = strstr(o->platform, "Portable Computing Language") != NULL;
}

/* Platforms and their devices in list order; on success the arrays are owned by the caller. */
static at_status enumerate(cl_platform_id **plats_out, cl_device_id **devs_out, size_t *n_out)
{
    *plats_out = NULL;
    *devs_out = NULL;
    *n_out = 0;
    AT_TRY(ensure_init());
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform */ || (err == CL_SUCCESS && np == 0))
        return AT_OK;
    AT_TRY(at_ocl_check(err, "clGetPlatformIDs"));
    cl_platform_id *plats = at_calloc(np, sizeof *plats);
    if (!plats) return AT_OOM();
    at_status st = at_ocl_check(clGetPlatformIDs(np, plats, NULL), "clGetPlatformIDs");
    cl_platform_id *dplat = NULL;
    cl_device_id *devs = NULL;
    size_t n = 0;
    for (cl_uint i = 0; i < np && st == AT_OK; i++) {
        cl_uint nd = 0;
        err = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (err != CL_SUCCESS || nd == 0) {
            char name[128] = "";
            clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
            name[sizeof name - 1] = '\0';
            at_log(AT_LOG_WARN, "OpenCL platform '%s' lists no device: %s (%d)%s", name, at_ocl_err_name(err), (int)err,
                   err == CL_DEVICE_NOT_FOUND ? " (for PoCL: is POCL_CACHE_DIR writable?)" : "");
            continue;
        }
        cl_platform_id *np2 = at_realloc(dplat, (n + nd) * sizeof *np2);
        if (!np2) {
            st = AT_OOM();
            break;
        }
        dplat = np2;
        cl_device_id *nd2 = at_realloc(devs, (n + nd) * sizeof *nd2);
        if (!nd2) {
            st = AT_OOM();
            break;
        }
        devs = nd2;
        st = at_ocl_check(clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, nd, devs + n, NULL), "clGetDeviceIDs");
        for (cl_uint j = 0; j < nd; j++) dplat[n + j] = plats[i];
        n += nd;
    }
    at_free(plats);
    if (st != AT_OK) {
        at_free(dplat);
        at_free(devs);
        return st;
    }
    *plats_out = dplat;
    *devs_out = devs;
    *n_out = n;
    return AT_OK;
}

at_status at_ocl_devices(at_ocl_device_info **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    cl_platform_id *plats;
    cl_device_id *devs;
    size_t n;
    AT_TRY(enumerate(&plats, &devs, &n));
    at_ocl_device_info *info = at_calloc(n + 1, sizeof *info);
    if (!info) {
        at_free(plats);
        at_free(devs);
        return AT_OOM();
    }
    for (size_t i = 0; i < n; i++) fill_info(plats[i], devs[i], i, &info[i]);
    at_free(plats);
    at_free(devs);
    *out = info;
    *n_out = n;
    return AT_OK;
}

at_status at_ocl_ctx_new(size_t index, at_ocl_ctx **out)
{
    *out = NULL;
    cl_platform_id *plats;
    cl_device_id *devs;
    size_t n;
    AT_TRY(enumerate(&plats, &devs, &n));
    if (index >= n) {
        at_free(plats);
        at_free(devs);
        return AT_FAIL(AT_ENOTFOUND, "no OpenCL device %zu (there are %zu)", index, n);
    }
    at_ocl_ctx *c = at_calloc(1, sizeof *c);
    if (!c) {
        at_free(plats);
        at_free(devs);
        return AT_OOM();
    }
    c->device = devs[index];
    fill_info(plats[index], devs[index], index, &c->info);
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plats[index], 0};
    at_free(plats);
    at_free(devs);
    cl_int err;
    c->context = clCreateContext(props, 1, &c->device, NULL, NULL, &err);
    at_status st = at_ocl_check(err, "clCreateContext");
    if (st == AT_OK) {
        c->queue = clCreateCommandQueue(c->context, c->device, CL_QUEUE_PROFILING_ENABLE, &err);
        st = at_ocl_check(err, "clCreateCommandQueue");
    }
    if (st != AT_OK) {
        at_ocl_ctx_free(c);
        return st;
    }
    *out = c;
    return AT_OK;
}

void at_ocl_ctx_free(at_ocl_ctx *c)
{
    if (!c) return;
    if (c->queue) {
        clFinish(c->queue);
        clReleaseCommandQueue(c->queue);
    }
    if (c->context) clReleaseContext(c->context);
    at_free(c);
}

const at_ocl_device_info *at_ocl_ctx_device(const at_ocl_ctx *c)
{
    return &c->info;
}

at_status at_ocl_buf_new(at_ocl_ctx *ctx, size_t bytes, at_ocl_buf **out)
{
    *out = NULL;
    at_ocl_buf *b = at_calloc(1, sizeof *b);
    if (!b) return AT_OOM();
    cl_int err;
    b->bytes = bytes ? bytes : 1;
    b->mem = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, b->bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        at_free(b);
        return at_ocl_check(err, "clCreateBuffer");
    }
    *out = b;
    return AT_OK;
}

void at_ocl_buf_free(at_ocl_buf *b)
{
    if (!b) return;
    clReleaseMemObject(b->mem);
    at_free(b);
}

size_t at_ocl_buf_bytes(const at_ocl_buf *b)
{
    return b->bytes;
}

at_status at_ocl_buf_write(at_ocl_ctx *ctx, at_ocl_buf *b, const void *src)
{
    return at_ocl_check(clEnqueueWriteBuffer(ctx->queue, b->mem, CL_TRUE, 0, b->bytes, src, 0, NULL, NULL),
                        "clEnqueueWriteBuffer");
}

at_status at_ocl_buf_read(at_ocl_ctx *ctx, const at_ocl_buf *b, void *dst)
{
    return at_ocl_check(clEnqueueReadBuffer(ctx->queue, b->mem, CL_TRUE, 0, b->bytes, dst, 0, NULL, NULL),
                        "clEnqueueReadBuffer");
}

at_status at_ocl_buf_fill(at_ocl_ctx *ctx, at_ocl_buf *b, const void *pattern, size_t pattern_bytes)
{
    AT_ASSERT(pattern_bytes >= 1 && b->bytes % pattern_bytes == 0);
    AT_TRY(at_ocl_check(clEnqueueFillBuffer(ctx->queue, b->mem, pattern, pattern_bytes, 0, b->bytes, 0, NULL, NULL),
                        "clEnqueueFillBuffer"));
    return at_ocl_check(clFinish(ctx->queue), "clFinish");
}

static char *build_log(at_ocl_prog *p)
{
    size_t len = 0;
    if (clGetProgramBuildInfo(p->program, p->ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS) len = 0;
    char *log = at_malloc(len + 1);
    if (!log) return NULL;
    if (len == 0 || clGetProgramBuildInfo(p->program, p->ctx->device, CL_PROGRAM_BUILD_LOG, len, log, NULL) != CL_SUCCESS)
        len = 0;
    log[len] = '\0';
    /* drivers end the log with NULs and newlines */
    while (len && (log[len - 1] == '\0' || log[len - 1] == '\n' || log[len - 1] == ' ')) log[--len] = '\0';
    return log;
}

at_status at_ocl_prog_build(at_ocl_ctx *ctx, const at_ocl_code *code, const char *options, at_ocl_prog **out,
                            char **log)
{
    *out = NULL;
    if (log) *log = NULL;
    at_ocl_prog *p = at_calloc(1, sizeof *p);
    if (!p) return AT_OOM();
    p->ctx = ctx;
    p->n_kernels = code->n_kernels;
    p->kernels = at_calloc(code->n_kernels + 1, sizeof *p->kernels);
    p->info = at_calloc(code->n_kernels + 1, sizeof *p->info);
    at_status st = AT_OK;
    if (!p->kernels || !p->info) st = AT_OOM();
    for (size_t k = 0; k < code->n_kernels && st == AT_OK; k++) {
        p->info[k] = code->kernels[k];
        p->info[k].name = at_strdup(code->kernels[k].name);
        p->info[k].args = at_malloc((code->kernels[k].n_args + 1) * sizeof *p->info[k].args);
        if (!p->info[k].name || !p->info[k].args) {
            st = AT_OOM();
            break;
        }
        if (code->kernels[k].n_args)
            memcpy(p->info[k].args, code->kernels[k].args, code->kernels[k].n_args * sizeof *p->info[k].args);
    }
    cl_int err = CL_SUCCESS;
    if (st == AT_OK) {
        const char *src = code->source;
        p->program = clCreateProgramWithSource(ctx->context, 1, &src, NULL, &err);
        st = at_ocl_check(err, "clCreateProgramWithSource");
    }
    if (st == AT_OK) {
        err = clBuildProgram(p->program, 1, &ctx->device, options ? options : "", NULL, NULL);
        if (err != CL_SUCCESS) {
            st = at_ocl_check(err, "clBuildProgram");
            if (log) *log = build_log(p);
        }
    }
    for (size_t k = 0; k < p->n_kernels && st == AT_OK; k++) {
        p->kernels[k] = clCreateKernel(p->program, p->info[k].name, &err);
        if (err != CL_SUCCESS) st = AT_FAIL(AT_EDEVICE, "clCreateKernel %s: %s (%d)", p->info[k].name, at_ocl_err_name(err), (int)err);
    }
    if (st != AT_OK) {
        at_ocl_prog_free(p);
        return st;
    }
    *out = p;
    return AT_OK;
}

void at_ocl_prog_free(at_ocl_prog *p)
{
    if (!p) return;
    for (size_t k = 0; k < p->n_kernels; k++) {
        if (p->kernels && p->kernels[k]) clReleaseKernel(p->kernels[k]);
        if (p->info) {
            at_free(p->info[k].name);
            at_free(p->info[k].args);
        }
    }
    if (p->program) clReleaseProgram(p->program);
    at_free(p->kernels);
    at_free(p->info);
    at_free(p->events);
    at_free(p);
}

at_status at_ocl_prog_bind(at_ocl_prog *p, at_ocl_buf *const *bufs, size_t n_bufs)
{
    for (size_t k = 0; k < p->n_kernels; k++) {
        for (size_t a = 0; a < p->info[k].n_args; a++) {
            size_t i = p->info[k].args[a];
            AT_ASSERT(i < n_bufs && bufs[i]);
            cl_int err = clSetKernelArg(p->kernels[k], (cl_uint)a, sizeof(cl_mem), &bufs[i]->mem);
            if (err != CL_SUCCESS)
                return AT_FAIL(AT_EDEVICE, "clSetKernelArg %s #%zu: %s (%d)", p->info[k].name, a, at_ocl_err_name(err), (int)err);
        }
    }
    return AT_OK;
}

at_status at_ocl_prog_first_launch(at_ocl_prog *p)
{
    for (size_t k = 0; k < p->n_kernels; k++) {
        const at_ocl_kernel_info *ki = &p->info[k];
        size_t gws[3] = {ki->lws[0], ki->lws[1], ki->lws[2]};
        size_t widest = ki->gws[0] > ki->gws[1] ? ki->gws[0] : ki->gws[1];
        widest = widest > ki->gws[2] ? widest : ki->gws[2];
        if (p->ctx->info.is_pocl && widest >= 65535) memcpy(gws, ki->gws, sizeof gws); /* PoCL's other variant */
        cl_int err = clEnqueueNDRangeKernel(p->ctx->queue, p->kernels[k], ki->work_dim, NULL, gws, ki->lws, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return AT_FAIL(AT_EDEVICE, "clEnqueueNDRangeKernel %s: %s (%d)", ki->name, at_ocl_err_name(err), (int)err);
    }
    return at_ocl_check(clFinish(p->ctx->queue), "clFinish (first launch)");
}

/* A preparation or finishing kernel: only the untimed first launch runs it (TVM measures with
 * packed weights as an input, and up to the tensor a finishing kernel unpacks). */
static bool untimed(const at_ocl_kernel_info *ki)
{
    return ki->prepare || ki->finish;
}

/* The k-th kernel a run launches: timed runs leave out the untimed kernels. */
static size_t launched_kernel(const at_ocl_prog *p, bool timed, size_t j)
{
    for (size_t k = 0; k < p->n_kernels; k++) {
        if (timed && untimed(&p->info[k])) continue;
        if (j-- == 0) return k;
    }
    AT_ASSERT(!"launched kernel out of range");
    return 0;
}

static size_t n_launched(const at_ocl_prog *p, bool timed)
{
    size_t n = 0;
    for (size_t k = 0; k < p->n_kernels; k++) n += !(timed && untimed(&p->info[k]));
    return n;
}

at_status at_ocl_prog_run(at_ocl_prog *p, int64_t number, double *device_ms)
{
    AT_ASSERT(number >= 1);
    const bool timed = device_ms != NULL;
    const size_t per_run = n_launched(p, timed);
    size_t n_events = (size_t)number * per_run;
    if (device_ms && n_events > p->cap_events) {
        cl_event *ev = at_realloc(p->events, n_events * sizeof *ev);
        if (!ev) return AT_OOM();
        p->events = ev;
        p->cap_events = n_events;
    }
    at_status st = AT_OK;
    size_t queued = 0;
    for (int64_t r = 0; r < number && st == AT_OK; r++) {
        for (size_t j = 0; j < per_run; j++) {
            size_t k = launched_kernel(p, timed, j);
            const at_ocl_kernel_info *ki = &p->info[k];
            cl_event *ev = device_ms ? &p->events[queued] : NULL;
            cl_int err = clEnqueueNDRangeKernel(p->ctx->queue, p->kernels[k], ki->work_dim, NULL, ki->gws, ki->lws, 0,
                                                NULL, ev);
            if (err != CL_SUCCESS) {
                st = AT_FAIL(AT_EDEVICE, "clEnqueueNDRangeKernel %s: %s (%d)", ki->name, at_ocl_err_name(err), (int)err);
                break;
            }
            if (device_ms) queued++;
        }
    }
    cl_int err = clFinish(p->ctx->queue);
    if (st == AT_OK) st = at_ocl_check(err, "clFinish (kernel execution)");
    double total_ns = 0;
    for (size_t i = 0; i < queued; i++) {
        cl_ulong t0 = 0, t1 = 0;
        cl_int status = CL_COMPLETE;
        clGetEventInfo(p->events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
        if (st == AT_OK && status < 0)
            st = AT_FAIL(AT_EDEVICE, "kernel %s failed: %s (%d)", p->info[launched_kernel(p, timed, i % per_run)].name, at_ocl_err_name(status), (int)status);
        if (st == AT_OK) {
            cl_int e1 = clGetEventProfilingInfo(p->events[i], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
            cl_int e2 = clGetEventProfilingInfo(p->events[i], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
            if (e1 != CL_SUCCESS || e2 != CL_SUCCESS)
                st = at_ocl_check(e1 != CL_SUCCESS ? e1 : e2, "clGetEventProfilingInfo");
            else if (t1 > t0)
                total_ns += (double)(t1 - t0);
        }
        clReleaseEvent(p->events[i]);
    }
    if (st == AT_OK && device_ms) *device_ms = total_ns / 1e6;
    return st;
}

/* ---- recorded sequences ------------------------------------------------------------------------ */

typedef struct seq_launch {
    cl_kernel                 kernel;
    size_t                    add; /* which at_ocl_seq_add made it */
    const at_ocl_kernel_info *info; /* the program's, which outlives the sequence */
} seq_launch;

struct at_ocl_seq {
    at_ocl_ctx *ctx;
    seq_launch *launches;
    size_t      n, cap, n_adds;
    cl_event   *events;  /* n of them, for profiled runs */
    size_t     *evented; /* the launch of each event */
};

at_status at_ocl_seq_new(at_ocl_ctx *ctx, at_ocl_seq **out)
{
    *out = at_calloc(1, sizeof **out);
    if (!*out) return AT_OOM();
    (*out)->ctx = ctx;
    return AT_OK;
}

void at_ocl_seq_free(at_ocl_seq *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) clReleaseKernel(s->launches[i].kernel);
    at_free(s->launches);
    at_free(s->events);
    at_free(s->evented);
    at_free(s);
}

at_status at_ocl_seq_add(at_ocl_seq *s, const at_ocl_prog *p, at_ocl_buf *const *bufs, size_t n_bufs)
{
    if (s->n + p->n_kernels > s->cap) {
        size_t cap = s->cap ? s->cap : 64;
        while (cap < s->n + p->n_kernels) cap *= 2;
        seq_launch *l = at_realloc(s->launches, cap * sizeof *l);
        if (!l) return AT_OOM();
        s->launches = l;
        cl_event *ev = at_realloc(s->events, cap * sizeof *ev);
        if (!ev) return AT_OOM();
        s->events = ev;
        size_t *which = at_realloc(s->evented, cap * sizeof *which);
        if (!which) return AT_OOM();
        s->evented = which;
        s->cap = cap;
    }
    for (size_t k = 0; k < p->n_kernels; k++) {
        const at_ocl_kernel_info *ki = &p->info[k];
        cl_int err;
        cl_kernel kern = clCreateKernel(p->program, ki->name, &err);
        if (err != CL_SUCCESS) return AT_FAIL(AT_EDEVICE, "clCreateKernel %s: %s (%d)", ki->name, at_ocl_err_name(err), (int)err);
        for (size_t a = 0; err == CL_SUCCESS && a < ki->n_args; a++) {
            AT_ASSERT(ki->args[a] < n_bufs && bufs[ki->args[a]]);
            err = clSetKernelArg(kern, (cl_uint)a, sizeof(cl_mem), &bufs[ki->args[a]]->mem);
        }
        if (err != CL_SUCCESS) {
            clReleaseKernel(kern);
            return AT_FAIL(AT_EDEVICE, "clSetKernelArg %s: %s (%d)", ki->name, at_ocl_err_name(err), (int)err);
        }
        s->launches[s->n++] = (seq_launch){.kernel = kern, .add = s->n_adds, .info = ki};
    }
    s->n_adds++;
    return AT_OK;
}

at_status at_ocl_seq_run(at_ocl_seq *s, bool with_prepare, double *device_ms, double *per_add_ms)
{
    at_status st = AT_OK;
    if (per_add_ms)
        for (size_t i = 0; i < s->n_adds; i++) per_add_ms[i] = 0;
    size_t queued = 0;
    for (size_t i = 0; i < s->n && st == AT_OK; i++) {
        const seq_launch *l = &s->launches[i];
        if (untimed(l->info) && !with_prepare) continue;
        cl_event *ev = device_ms ? &s->events[queued] : NULL;
        cl_int err = clEnqueueNDRangeKernel(s->ctx->queue, l->kernel, l->info->work_dim, NULL, l->info->gws, l->info->lws, 0,
                                            NULL, ev);
        if (err != CL_SUCCESS)
            st = AT_FAIL(AT_EDEVICE, "clEnqueueNDRangeKernel %s: %s (%d)", l->info->name, at_ocl_err_name(err), (int)err);
        else if (device_ms)
            s->evented[queued++] = i;
    }
    cl_int err = clFinish(s->ctx->queue);
    if (st == AT_OK) st = at_ocl_check(err, "clFinish (network)");
    double total_ns = 0;
    for (size_t i = 0; i < queued; i++) {
        cl_ulong t0 = 0, t1 = 0;
        cl_int e1 = clGetEventProfilingInfo(s->events[i], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        cl_int e2 = clGetEventProfilingInfo(s->events[i], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        if (st == AT_OK && (e1 != CL_SUCCESS || e2 != CL_SUCCESS))
            st = at_ocl_check(e1 != CL_SUCCESS ? e1 : e2, "clGetEventProfilingInfo");
        else if (t1 > t0) {
            total_ns += (double)(t1 - t0);
            if (per_add_ms) per_add_ms[s->launches[s->evented[i]].add] += (double)(t1 - t0) / 1e6;
        }
        clReleaseEvent(s->events[i]);
    }
    if (st == AT_OK && device_ms) *device_ms = total_ns / 1e6;
    return st;
}

/* ocl-icd's loader-info extension; its constants are in no header Debian ships. */
typedef cl_int (*icd_loader_info_fn)(cl_uint param, size_t size, void *value, size_t *size_ret);
enum { ICDL_VERSION = 2, ICDL_NAME = 3 };

void at_ocl_icd_loader_version(char *buf, size_t cap)
{
    icd_loader_info_fn info;
    /* The loader answers its own extensions only through the OpenCL 1.1 call (the 1.2 one takes a
     * platform and forwards to its driver). ISO C has no function-pointer conversion from void *. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    *(void **)&info = clGetExtensionFunctionAddress("clGetICDLoaderInfoOCLICD");
#pragma GCC diagnostic pop
    char name[128] = "", version[64] = "";
    buf[0] = '\0';
    if (info && info(ICDL_NAME, sizeof name, name, NULL) == CL_SUCCESS &&
        info(ICDL_VERSION, sizeof version, version, NULL) == CL_SUCCESS)
        snprintf(buf, cap, "%s %s", name, version);
}

#else /* built without OpenCL */

#define NO_OPENCL() AT_FAIL(AT_EUNSUPPORTED, "built without OpenCL (AT_WITH_OPENCL=OFF)")

struct at_ocl_ctx {
    at_ocl_device_info info;
};

at_status at_ocl_devices(at_ocl_device_info **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    return NO_OPENCL();
}

at_status at_ocl_ctx_new(size_t index, at_ocl_ctx **out)
{
    (void)index;
    *out = NULL;
    return NO_OPENCL();
}

void at_ocl_ctx_free(at_ocl_ctx *ctx)
{
    at_free(ctx);
}

const at_ocl_device_info *at_ocl_ctx_device(const at_ocl_ctx *ctx)
{
    return &ctx->info;
}

at_status at_ocl_buf_new(at_ocl_ctx *ctx, size_t bytes, at_ocl_buf **out)
{
    (void)ctx;
    (void)bytes;
    *out = NULL;
    return NO_OPENCL();
}

void at_ocl_buf_free(at_ocl_buf *b)
{
    AT_ASSERT(b == NULL);
}

size_t at_ocl_buf_bytes(const at_ocl_buf *b)
{
    (void)b;
    return 0;
}

at_status at_ocl_buf_write(at_ocl_ctx *ctx, at_ocl_buf *b, const void *src)
{
    (void)ctx, (void)b, (void)src;
    return NO_OPENCL();
}

at_status at_ocl_buf_read(at_ocl_ctx *ctx, const at_ocl_buf *b, void *dst)
{
    (void)ctx, (void)b, (void)dst;
    return NO_OPENCL();
}

at_status at_ocl_buf_fill(at_ocl_ctx *ctx, at_ocl_buf *b, const void *pattern, size_t pattern_bytes)
{
    (void)ctx, (void)b, (void)pattern, (void)pattern_bytes;
    return NO_OPENCL();
}

at_status at_ocl_prog_build(at_ocl_ctx *ctx, const at_ocl_code *code, const char *options, at_ocl_prog **out,
                            char **log)
{
    (void)ctx, (void)code, (void)options;
    *out = NULL;
    if (log) *log = NULL;
    return NO_OPENCL();
}

void at_ocl_prog_free(at_ocl_prog *p)
{
    AT_ASSERT(p == NULL);
}

at_status at_ocl_prog_bind(at_ocl_prog *p, at_ocl_buf *const *bufs, size_t n_bufs)
{
    (void)p, (void)bufs, (void)n_bufs;
    return NO_OPENCL();
}

at_status at_ocl_prog_first_launch(at_ocl_prog *p)
{
    (void)p;
    return NO_OPENCL();
}

at_status at_ocl_prog_run(at_ocl_prog *p, int64_t number, double *device_ms)
{
    (void)p, (void)number, (void)device_ms;
    return NO_OPENCL();
}

at_status at_ocl_seq_new(at_ocl_ctx *ctx, at_ocl_seq **out)
{
    (void)ctx;
    *out = NULL;
    return NO_OPENCL();
}

void at_ocl_seq_free(at_ocl_seq *s)
{
    AT_ASSERT(s == NULL);
}

at_status at_ocl_seq_add(at_ocl_seq *s, const at_ocl_prog *p, at_ocl_buf *const *bufs, size_t n_bufs)
{
    (void)s, (void)p, (void)bufs, (void)n_bufs;
    return NO_OPENCL();
}

at_status at_ocl_seq_run(at_ocl_seq *s, bool with_prepare, double *device_ms, double *per_add_ms)
{
    (void)s, (void)with_prepare, (void)device_ms, (void)per_add_ms;
    return NO_OPENCL();
}

void at_ocl_icd_loader_version(char *buf, size_t cap)
{
    if (cap) buf[0] = '\0';
}

#endif
