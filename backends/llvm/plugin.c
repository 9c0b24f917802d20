/* The LLVM plugin's entry (autotvm-llvm.so): the exported table over codegen.c, target.c and
 * jit.c, and the host glue those run on. Key choice: the plugin carries its own copies of the
 * small core/ and ir/ files it needs (hidden, so nothing clashes with the host's), except the
 * at_malloc family, defined here to forward to the host's, so allocations are counted and
 * fault-injected once for the whole process and blocks cross the boundary in both directions. */
#include <string.h>

#include "backends/llvm/internal.h"
#include "backends/llvm/plugin.h"
#include "core/alloc.h"
#include "core/log.h"

static at_llvm_plugin_host host;

void *at_malloc(size_t n)
{
    return host.malloc_fn(n);
}

void *at_calloc(size_t count, size_t size)
{
    return host.calloc_fn(count, size);
}

void *at_realloc(void *p, size_t n)
{
    return host.realloc_fn(p, n);
}

void at_free(void *p)
{
    host.free_fn(p);
}

char *at_strdup(const char *s)
{
    return at_strndup(s, strlen(s));
}

char *at_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = at_malloc(len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

at_llvm_parallel_for_fn at_llvm_runtime_parallel_for(void)
{
    return host.parallel_for;
}

static void forward_log(at_log_level level, const char *msg, void *user)
{
    (void)user;
    host.log_fn(level, "%s", msg);
}

static void plugin_init(const at_llvm_plugin_host *h)
{
    host = *h;
    at_log_set_sink(forward_log, NULL);
    at_log_set_level(AT_LOG_DEBUG); /* the host's at_log filters */
}

__attribute__((visibility("default"))) extern const at_llvm_plugin_table at_llvm_plugin_table_v1;

const at_llvm_plugin_table at_llvm_plugin_table_v1 = {
    .abi = AT_LLVM_PLUGIN_ABI,
    .table_size = sizeof(at_llvm_plugin_table),
    .strbuf_size = sizeof(at_strbuf),
    .program_size = sizeof(at_ir_program),
    .init = plugin_init,
    .last_error = at_last_error,
    .llvm_init = at_llvm_init,
    .program_ir = at_llvm_program_ir,
    .program_object = at_llvm_program_object,
    .jit_new = at_llvm_jit_new,
    .jit_free = at_llvm_jit_free,
    .jit_n_kernels = at_llvm_jit_n_kernels,
    .jit_kernel_is_prepare = at_llvm_jit_kernel_is_prepare,
    .jit_run_kernel = at_llvm_jit_run_kernel,
    .jit_run = at_llvm_jit_run,
};
