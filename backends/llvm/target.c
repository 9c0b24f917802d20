/* LLVM targets: one-time initialization, target machines for the host or a given triple, the
 * verify + O3 pipeline (new pass manager, LLVMRunPasses), IR text and object files. Every call
 * builds in an LLVMContext of its own, so calls from several threads never share LLVM state. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "backends/llvm/internal.h"
#include "core/alloc.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool           init_ok;

static void init_targets(void)
{
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
    init_ok = LLVMInitializeNativeTarget() == 0 && LLVMInitializeNativeAsmPrinter() == 0;
}

at_status at_llvm_init(void)
{
    pthread_once(&init_once, init_targets);
    if (!init_ok) return AT_FAIL(AT_EUNSUPPORTED, "LLVM 15 has no target for this host");
    return AT_OK;
}

at_status at_llvm_error(LLVMErrorRef err, at_status code, const char *what)
{
    char *msg = LLVMGetErrorMessage(err);
    at_status st = AT_FAIL(code, "%s: %s", what, msg ? msg : "(no message)");
    LLVMDisposeErrorMessage(msg);
    return st;
}

at_status at_llvm_target_machine(const at_llvm_target *t, LLVMTargetMachineRef *out)
{
    *out = NULL;
    AT_TRY(at_llvm_init());
    bool host = !t || !t->triple;
    char *triple = host ? LLVMGetDefaultTargetTriple() : LLVMNormalizeTargetTriple(t->triple);
    char *cpu = NULL, *features = NULL;
    if (!triple) return AT_OOM();
    LLVMTargetRef target;
    char *err = NULL;
    at_status st = AT_OK;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        st = AT_FAIL(AT_ENOTFOUND, "LLVM target %s: %s", triple, err ? err : "unknown");
        LLVMDisposeMessage(err);
        goto done;
    }
    if (host && !(t && t->cpu)) cpu = LLVMGetHostCPUName();
    if (host && !(t && t->features)) features = LLVMGetHostCPUFeatures();
    const char *cpu_s = t && t->cpu ? t->cpu : cpu ? cpu : "generic";
    const char *feat_s = t && t->features ? t->features : features ? features : "";
    int level = t ? t->opt_level : 0;
    LLVMCodeGenOptLevel cg = level < 0 ? LLVMCodeGenLevelNone
                             : level == 1 ? LLVMCodeGenLevelLess
                             : level == 2 ? LLVMCodeGenLevelDefault
                                          : LLVMCodeGenLevelAggressive;
    *out = LLVMCreateTargetMachine(target, triple, cpu_s, feat_s, cg, LLVMRelocPIC, LLVMCodeModelDefault);
    if (!*out) st = AT_FAIL(AT_ENOTFOUND, "LLVM target %s cpu %s: no target machine", triple, cpu_s);
done:
    LLVMDisposeMessage(triple);
    if (cpu) LLVMDisposeMessage(cpu);
    if (features) LLVMDisposeMessage(features);
    return st;
}

/* Adds target-cpu / target-features to every defined function (what clang does), so the code
 * generator and the passes' cost models agree on the subtarget. */
static void tag_functions(LLVMModuleRef m, LLVMTargetMachineRef tm)
{
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    char *cpu = LLVMGetTargetMachineCPU(tm), *feat = LLVMGetTargetMachineFeatureString(tm);
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f)) continue;
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                   LLVMCreateStringAttribute(ctx, "target-cpu", 10, cpu, (unsigned)strlen(cpu)));
        if (feat[0])
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                       LLVMCreateStringAttribute(ctx, "target-features", 15, feat, (unsigned)strlen(feat)));
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                   LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
    }
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(feat);
}

at_status at_llvm_prepare_module(LLVMModuleRef m, LLVMTargetMachineRef tm, const at_llvm_target *t)
{
    char *triple = LLVMGetTargetMachineTriple(tm);
    LLVMSetTarget(m, triple);
    LLVMDisposeMessage(triple);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, dl);
    LLVMDisposeTargetData(dl);
    tag_functions(m, tm);
    char *msg = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        at_status st = AT_FAIL(AT_EINVAL, "LLVM verifier (a backend bug): %s", msg ? msg : "");
        LLVMDisposeMessage(msg);
        return st;
    }
    LLVMDisposeMessage(msg);
    int level = t ? t->opt_level : 0;
    if (level < 0) return AT_OK;
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", level == 0 || level > 3 ? 3 : level);
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(opts, 1);
    LLVMPassBuilderOptionsSetSLPVectorization(opts, 1);
    LLVMPassBuilderOptionsSetLoopUnrolling(opts, 1);
    LLVMErrorRef err = LLVMRunPasses(m, pipeline, tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (err) return at_llvm_error(err, AT_EDEVICE, "LLVM passes");
    return AT_OK;
}

/* The prepared module of p for t in ctx, with its target machine. */
static at_status build(const at_ir_program *p, const at_llvm_target *t, LLVMContextRef ctx, LLVMModuleRef *m,
                       LLVMTargetMachineRef *tm)
{
    *m = NULL;
    AT_TRY(at_llvm_target_machine(t, tm));
    at_status st = at_llvm_codegen(p, ctx, m);
    if (st == AT_OK) st = at_llvm_prepare_module(*m, *tm, t);
    if (st != AT_OK) {
        if (*m) LLVMDisposeModule(*m);
        LLVMDisposeTargetMachine(*tm);
        *m = NULL;
        *tm = NULL;
    }
    return st;
}

at_status at_llvm_program_ir(const at_ir_program *p, const at_llvm_target *t, at_strbuf *out)
{
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    LLVMTargetMachineRef tm;
    at_status st = build(p, t, ctx, &m, &tm);
    if (st == AT_OK) {
        char *text = LLVMPrintModuleToString(m);
        at_strbuf_puts(out, text);
        LLVMDisposeMessage(text);
        st = at_strbuf_status(out);
        LLVMDisposeModule(m);
        LLVMDisposeTargetMachine(tm);
    }
    LLVMContextDispose(ctx);
    return st;
}

at_status at_llvm_program_object(const at_ir_program *p, const at_llvm_target *t, const char *path)
{
    size_t len = strlen(path);
    char *file = at_malloc(len + 1);
    if (!file) return AT_OOM();
    memcpy(file, path, len + 1);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    LLVMTargetMachineRef tm;
    at_status st = build(p, t, ctx, &m, &tm);
    if (st == AT_OK) {
        char *err = NULL;
        if (LLVMTargetMachineEmitToFile(tm, m, file, LLVMObjectFile, &err))
            st = AT_FAIL(AT_EIO, "%s: LLVM object emission: %s", path, err ? err : "failed");
        LLVMDisposeMessage(err);
        LLVMDisposeModule(m);
        LLVMDisposeTargetMachine(tm);
    }
    LLVMContextDispose(ctx);
    at_free(file);
    return st;
}
