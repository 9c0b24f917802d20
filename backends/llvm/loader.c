/* llvm.h through the LLVM plugin (AT_LLVM_PLUGIN): on first use, dlopen(RTLD_NOW | RTLD_LOCAL)
 * autotvm-llvm.so (under pthread_once), so its libLLVM stays out of the global symbol scope and
 * cannot capture the C++ symbols of another LLVM in the process (PoCL's, spec toolchain.md §0.1);
 * every LLVM-using function forwards through the plugin's table, the pool (pool.c) stays here.
 * The plugin: $AT_LLVM_PLUGIN_PATH if set (no fallback), else autotvm-llvm.so beside the running
 * executable, else the installed one (<libdir>/autotvm/, core/prefix.h), else the build tree's
 * (AT_LLVM_PLUGIN_DEFAULT_PATH). A load failure is remembered:
 * every call then fails with AT_EUNSUPPORTED and the same one-line detail. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/llvm/plugin.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/prefix.h"

#ifndef AT_LLVM_PLUGIN_DEFAULT_PATH
#error "AT_LLVM_PLUGIN_DEFAULT_PATH (the build tree's autotvm-llvm.so) must be defined"
#endif
#define PLUGIN_FILE "autotvm-llvm.so"

static pthread_once_t              load_once = PTHREAD_ONCE_INIT;
static const at_llvm_plugin_table *table;
static char                        load_error[PATH_MAX + 512];

/* autotvm-llvm.so in the directory of /proc/self/exe, if that file exists. */
static bool beside_executable(char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return false;
    *slash = '\0';
    if ((size_t)snprintf(buf, size, "%s/%s", exe, PLUGIN_FILE) >= size) return false;
    return access(buf, R_OK) == 0;
}

static void load(void)
{
    char path[PATH_MAX + 32];
    const char *env = getenv("AT_LLVM_PLUGIN_PATH");
    if (env && *env) snprintf(path, sizeof path, "%s", env);
    else if (!beside_executable(path, sizeof path) && !at_install_path(AT_INSTALL_LIBDIR, PLUGIN_FILE, path, sizeof path))
        snprintf(path, sizeof path, "%s", AT_LLVM_PLUGIN_DEFAULT_PATH);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error, "LLVM plugin %s: %s", path, e ? e : "cannot load");
        return;
    }
    const at_llvm_plugin_table *t = dlsym(h, AT_LLVM_PLUGIN_SYMBOL);
    if (!t) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error, "LLVM plugin %s: %s", path, e ? e : "no " AT_LLVM_PLUGIN_SYMBOL);
        dlclose(h);
        return;
    }
    if (t->abi != AT_LLVM_PLUGIN_ABI || t->table_size != sizeof *t || t->strbuf_size != sizeof(at_strbuf) ||
        t->program_size != sizeof(at_ir_program)) {
        snprintf(load_error, sizeof load_error, "LLVM plugin %s: incompatible (ABI %u, this program needs %u)", path,
                 t->abi, AT_LLVM_PLUGIN_ABI);
        dlclose(h);
        return;
    }
    const at_llvm_plugin_host host = {
        .malloc_fn = at_malloc,
        .calloc_fn = at_calloc,
        .realloc_fn = at_realloc,
        .free_fn = at_free,
        .log_fn = at_log,
        .parallel_for = at_llvm_parallel_for,
    };
    t->init(&host);
    table = t; /* the plugin stays loaded for the life of the process */
}

static at_status plugin(const at_llvm_plugin_table **out)
{
    pthread_once(&load_once, load);
    *out = table;
    if (!table) return AT_FAIL(AT_EUNSUPPORTED, "%s", load_error);
    return AT_OK;
}

/* A plugin call's status, its detail moved from the plugin's at_last_error to this thread's. */
static at_status carried(const at_llvm_plugin_table *t, at_status st)
{
    if (st == AT_OK) return AT_OK;
    return AT_FAIL(st, "%s", t->last_error());
}

at_status at_llvm_init(void)
{
    const at_llvm_plugin_table *t;
    AT_TRY(plugin(&t));
    return carried(t, t->llvm_init());
}

at_status at_llvm_program_ir(const at_ir_program *p, const at_llvm_target *t, at_strbuf *out)
{
    const at_llvm_plugin_table *pt;
    AT_TRY(plugin(&pt));
    return carried(pt, pt->program_ir(p, t, out));
}

at_status at_llvm_program_object(const at_ir_program *p, const at_llvm_target *t, const char *path)
{
    const at_llvm_plugin_table *pt;
    AT_TRY(plugin(&pt));
    return carried(pt, pt->program_object(p, t, path));
}

at_status at_llvm_jit_new(const at_ir_program *p, const at_llvm_target *t, at_llvm_jit **out)
{
    *out = NULL;
    const at_llvm_plugin_table *pt;
    AT_TRY(plugin(&pt));
    return carried(pt, pt->jit_new(p, t, out));
}

/* A JIT exists only once the plugin is loaded, so the functions on one use table directly. */
void at_llvm_jit_free(at_llvm_jit *j)
{
    if (j) table->jit_free(j);
}

size_t at_llvm_jit_n_kernels(const at_llvm_jit *j)
{
    return table->jit_n_kernels(j);
}

bool at_llvm_jit_kernel_is_prepare(const at_llvm_jit *j, size_t k)
{
    return table->jit_kernel_is_prepare(j, k);
}

at_status at_llvm_jit_run_kernel(const at_llvm_jit *j, size_t k, void *const *bufs, size_t n, at_llvm_pool *pool)
{
    return carried(table, table->jit_run_kernel(j, k, bufs, n, pool));
}

at_status at_llvm_jit_run(const at_llvm_jit *j, void *const *bufs, size_t n, bool skip_prepare, at_llvm_pool *pool)
{
    return carried(table, table->jit_run(j, bufs, n, skip_prepare, pool));
}
