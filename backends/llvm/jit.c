/* In-process JIT through ORC LLJIT: one LLJIT (and ThreadSafeContext) per compiled program, so
 * programs never share LLVM state and each is released whole. at_llvm_parallel_for is defined
 * in the JIT's dylib as an absolute symbol (the test and tool executables do not export their
 * symbols dynamically): at_llvm_runtime_parallel_for, pool.c's function, or in the plugin the
 * host's. libm and libc resolve through a search generator over the process. Every kernel's
 * address is looked up at creation, which is when LLJIT compiles: running is a plain call. */
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>

#include "backends/llvm/internal.h"
#include "core/alloc.h"

typedef void (*kernel_fn)(void *const *bufs, at_llvm_pool *pool);

struct at_llvm_jit {
    LLVMOrcLLJITRef jit;
    size_t          n_kernels, n_bufs;
    kernel_fn      *fns;
    bool           *prepare;
    bool           *untimed; /* preparing or finishing: left out of a timed run */
};

static at_status define_runtime(LLVMOrcLLJITRef jit, LLVMOrcJITDylibRef jd)
{
    LLVMOrcDefinitionGeneratorRef gen;
    LLVMErrorRef err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
    if (err) return at_llvm_error(err, AT_EDEVICE, "LLJIT process symbols");
    LLVMOrcJITDylibAddGenerator(jd, gen);
    LLVMOrcCSymbolMapPair pair = {
        .Name = LLVMOrcLLJITMangleAndIntern(jit, AT_LLVM_PARALLEL_FOR),
        .Sym = {.Address = (LLVMOrcExecutorAddress)(uintptr_t)at_llvm_runtime_parallel_for(),
                .Flags = {.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable}},
    };
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(&pair, 1);
    err = LLVMOrcJITDylibDefine(jd, mu);
    if (err) return at_llvm_error(err, AT_EDEVICE, "LLJIT runtime symbols");
    return AT_OK;
}

at_status at_llvm_jit_new(const at_ir_program *p, const at_llvm_target *t, at_llvm_jit **out)
{
    *out = NULL;
    at_llvm_target host = {.opt_level = t ? t->opt_level : 0, .cpu = t ? t->cpu : NULL, .features = t ? t->features : NULL};
    AT_TRY(at_llvm_init());
    at_llvm_jit *j = at_calloc(1, sizeof *j);
    if (!j) return AT_OOM();
    j->n_kernels = p->n_kernels;
    j->n_bufs = p->n_bufs;
    j->fns = at_calloc(p->n_kernels + 1, sizeof *j->fns);
    j->prepare = at_calloc(p->n_kernels + 1, sizeof *j->prepare);
    j->untimed = at_calloc(p->n_kernels + 1, sizeof *j->untimed);
    if (!j->fns || !j->prepare || !j->untimed) {
        at_llvm_jit_free(j);
        return AT_OOM();
    }
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMModuleRef m = NULL;
    LLVMTargetMachineRef tm = NULL;
    at_status st = at_llvm_target_machine(&host, &tm);
    if (st == AT_OK) st = at_llvm_codegen(p, LLVMOrcThreadSafeContextGetContext(tsc), &m);
    if (st == AT_OK) st = at_llvm_prepare_module(m, tm, &host);
    if (st != AT_OK) goto fail;

    /* the JIT compiles for the same machine the passes optimized for (it takes tm over) */
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    tm = NULL;
    LLVMErrorRef err = LLVMOrcCreateLLJIT(&j->jit, builder);
    if (err) {
        j->jit = NULL;
        st = at_llvm_error(err, AT_EDEVICE, "LLJIT");
        goto fail;
    }
    LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(j->jit);
    st = define_runtime(j->jit, jd);
    if (st != AT_OK) goto fail;
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
    m = NULL;
    err = LLVMOrcLLJITAddLLVMIRModule(j->jit, jd, tsm);
    if (err) {
        LLVMOrcDisposeThreadSafeModule(tsm);
        st = at_llvm_error(err, AT_EDEVICE, "LLJIT add module");
        goto fail;
    }
    for (size_t k = 0; k < p->n_kernels; k++) {
        char sym[256];
        at_llvm_kernel_symbol(p, k, sym, sizeof sym);
        LLVMOrcExecutorAddress addr = 0;
        err = LLVMOrcLLJITLookup(j->jit, &addr, sym);
        if (err) {
            st = at_llvm_error(err, AT_EDEVICE, sym);
            goto fail;
        }
        j->fns[k] = (kernel_fn)(uintptr_t)addr;
        j->prepare[k] = p->kernels[k].prepare;
        j->untimed[k] = !at_ir_kernel_timed(&p->kernels[k]);
    }
    LLVMOrcDisposeThreadSafeContext(tsc);
    *out = j;
    return AT_OK;
fail:
    if (m) LLVMDisposeModule(m);
    if (tm) LLVMDisposeTargetMachine(tm);
    LLVMOrcDisposeThreadSafeContext(tsc);
    at_llvm_jit_free(j);
    return st;
}

void at_llvm_jit_free(at_llvm_jit *j)
{
    if (!j) return;
    if (j->jit) {
        LLVMErrorRef err = LLVMOrcDisposeLLJIT(j->jit);
        if (err) LLVMConsumeError(err);
    }
    at_free(j->fns);
    at_free(j->prepare);
    at_free(j->untimed);
    at_free(j);
}

size_t at_llvm_jit_n_kernels(const at_llvm_jit *j)
{
    return j->n_kernels;
}

bool at_llvm_jit_kernel_is_prepare(const at_llvm_jit *j, size_t k)
{
    AT_ASSERT(k < j->n_kernels);
    return j->prepare[k];
}

at_status at_llvm_jit_run_kernel(const at_llvm_jit *j, size_t k, void *const *bufs, size_t n, at_llvm_pool *pool)
{
    if (k >= j->n_kernels) return AT_FAIL(AT_EINVAL, "kernel %zu of a program with %zu", k, j->n_kernels);
    if (n != j->n_bufs) return AT_FAIL(AT_EINVAL, "%zu buffers given, the program has %zu", n, j->n_bufs);
    j->fns[k](bufs, pool);
    return AT_OK;
}

at_status at_llvm_jit_run(const at_llvm_jit *j, void *const *bufs, size_t n, bool skip_prepare, at_llvm_pool *pool)
{
    for (size_t k = 0; k < j->n_kernels; k++) {
        if (skip_prepare && j->untimed[k]) continue;
        AT_TRY(at_llvm_jit_run_kernel(j, k, bufs, n, pool));
    }
    return AT_OK;
}
