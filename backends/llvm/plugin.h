/* The boundary between at_backends_llvm's plugin loader and the LLVM plugin (autotvm-llvm.so,
 * built from codegen.c, target.c, jit.c and plugin.c): one exported, versioned table of function
 * pointers implementing the LLVM-using half of llvm.h, and the host callbacks the plugin runs on.
 * Internal to backends/llvm (README.md there describes the design). */
#ifndef AT_BACKENDS_LLVM_PLUGIN_H
#define AT_BACKENDS_LLVM_PLUGIN_H

#include <stdint.h>

#include "backends/llvm/internal.h"
#include "core/log.h"

/* Bumped whenever the table, the host struct or any struct crossing the boundary changes. */
#define AT_LLVM_PLUGIN_ABI 2u
/* The one symbol the plugin exports (an at_llvm_plugin_table). */
#define AT_LLVM_PLUGIN_SYMBOL "at_llvm_plugin_table_v1"

/* What the host lends the plugin, set once by init before any other call: the plugin's
 * at_malloc family forwards to the host's (one live-block count, one fault injector, blocks
 * freely handed across: the caller's at_strbuf grows inside the plugin), its at_log sink
 * forwards every message to the host's at_log (the host's level filters), and the JIT binds
 * generated code's at_llvm_parallel_for to the host's pool (pool.c lives in the host). */
typedef struct at_llvm_plugin_host {
    void *(*malloc_fn)(size_t n);
    void *(*calloc_fn)(size_t count, size_t size);
    void *(*realloc_fn)(void *p, size_t n);
    void (*free_fn)(void *p);
    void (*log_fn)(at_log_level level, const char *fmt, ...);
    at_llvm_parallel_for_fn parallel_for;
} at_llvm_plugin_host;

/* Statuses cross as values; a failing call's detail stays in the plugin's thread-local at_last_error
 * (its own copy of core/status.c) until the loader reads it with last_error on the same thread and
 * records it in the host's. */
typedef struct at_llvm_plugin_table {
    uint32_t abi;          /* AT_LLVM_PLUGIN_ABI */
    uint32_t table_size;   /* sizeof(at_llvm_plugin_table) */
    uint32_t strbuf_size;  /* sizeof(at_strbuf): the caller's strbuf is appended to in the plugin */
    uint32_t program_size; /* sizeof(at_ir_program): programs are read in the plugin */
    void (*init)(const at_llvm_plugin_host *host);
    const char *(*last_error)(void);
    at_status (*llvm_init)(void);
    at_status (*program_ir)(const at_ir_program *p, const at_llvm_target *t, at_strbuf *out);
    at_status (*program_object)(const at_ir_program *p, const at_llvm_target *t, const char *path);
    at_status (*jit_new)(const at_ir_program *p, const at_llvm_target *t, at_llvm_jit **out);
    void (*jit_free)(at_llvm_jit *j);
    size_t (*jit_n_kernels)(const at_llvm_jit *j);
    bool (*jit_kernel_is_prepare)(const at_llvm_jit *j, size_t k);
    at_status (*jit_run_kernel)(const at_llvm_jit *j, size_t k, void *const *bufs, size_t n, at_llvm_pool *pool);
    at_status (*jit_run)(const at_llvm_jit *j, void *const *bufs, size_t n, bool skip_prepare, at_llvm_pool *pool);
} at_llvm_plugin_table;

#endif
