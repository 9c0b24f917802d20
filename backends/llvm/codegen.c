/* IR program -> LLVM module through the LLVM-C API. Each kernel is a thin exported wrapper over
 * an internal body function whose buffer parameters are noalias (program buffers never overlap),
 * so O3 sees what OpenCL's restrict would tell it. Parallel loops and the outermost blockIdx /
 * threadIdx binding of more than one iteration are outlined into a (closure, begin, end) function
 * shared out by at_llvm_parallel_for (other bindings become serial loops); scratch buffers are
 * allocas in the entry block of the function that uses them. Values follow ir/interp.c where C
 * leaves a case undefined (INT_MIN / -1, shifts past the width, float -> int overflow): guarded
 * divisions, masked shift counts, saturating conversions; index arithmetic is nsw as OpenCL C's. A vectorized loop runs as LLVM vector code when its body is stores and lets of
 * scalar-typed expressions (unit-stride indices as vector loads/stores, others lane by lane),
 * else it is unrolled, as the OpenCL backend does. */
#include <stdio.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "backends/llvm/internal.h"
#include "core/alloc.h"
#include "ir/vec.h"

typedef struct fn_ctx {
    LLVMValueRef      fn;
    LLVMBuilderRef    alloca_b; /* positioned before the entry block's branch */
    LLVMValueRef     *bufs;     /* by buffer id: global buffer parameters, scratch allocas (lazy) */
    LLVMValueRef      pool;     /* NULL inside an outlined parallel body */
    bool              in_parallel;
} fn_ctx;

typedef struct cg {
    LLVMContextRef       ctx;
    LLVMModuleRef        mod;
    LLVMBuilderRef       b;
    const at_ir_program *p;
    const at_ir_kernel  *k;
    size_t               n_ids;    /* buffer ids: program buffers then every kernel's scratch */
    fn_ctx              *f;
    LLVMValueRef        *env;      /* by var id */
    bool                *vary;     /* by var id: the value is a vectorized loop's lane vector */
    const at_ir_var    **by_var;   /* by var id: the variable (for value names) */
    uint32_t            *scope;    /* ids of the variables bound here, innermost last */
    size_t               n_scope;
    const at_ir_var     *vvar;     /* the vectorized loop's variable, NULL outside one */
    int                  vl;       /* its lanes */
    int                  lane;     /* >= 0 while emitting lane `lane` of a vectorized expression */
    bool                 in_binding;
    bool                 in_index;  /* emitting a load/store index: signed arithmetic is nsw */
    int                  n_outlined;
    char                 sym[256]; /* the kernel's symbol */
    LLVMTypeRef          ptr, i1, i8, i32, i64, vd;
    at_status            st;
} cg;

static void fail(cg *c, at_status code, const char *what)
{
    if (c->st != AT_OK) return;
    c->st = AT_FAIL(code, "kernel %s: %s", c->k ? c->k->name : "?", what);
}

/* ---- types ---------------------------------------------------------------------------------- */

static LLVMTypeRef scalar_ty(cg *c, at_ir_type t)
{
    switch (t.code) {
    case AT_IR_TBOOL: return c->i1;
    case AT_IR_TFLOAT:
        return t.bits == 16 ? LLVMHalfTypeInContext(c->ctx) : t.bits == 32 ? LLVMFloatTypeInContext(c->ctx)
                                                                            : LLVMDoubleTypeInContext(c->ctx);
    case AT_IR_TINT:
    case AT_IR_TUINT: return LLVMIntTypeInContext(c->ctx, t.bits);
    default: AT_ASSERT(!"bad type code");
    }
    return NULL;
}

/* The in-memory element type (bool is a byte). */
static LLVMTypeRef mem_ty(cg *c, at_ir_type t)
{
    return t.code == AT_IR_TBOOL ? c->i8 : scalar_ty(c, t);
}

static LLVMTypeRef ty_lanes(cg *c, at_ir_type t, int lanes)
{
    LLVMTypeRef s = scalar_ty(c, t);
    return lanes > 1 ? LLVMVectorType(s, (unsigned)lanes) : s;
}

static LLVMTypeRef ty(cg *c, at_ir_type t)
{
    return ty_lanes(c, t, t.lanes);
}

static bool is_vec(LLVMValueRef v)
{
    return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind;
}

static int lanes_of(LLVMValueRef v)
{
    return is_vec(v) ? (int)LLVMGetVectorSize(LLVMTypeOf(v)) : 1;
}

static LLVMValueRef splat(cg *c, LLVMValueRef s, int lanes)
{
    if (lanes <= 1 || is_vec(s)) return s;
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(s), (unsigned)lanes);
    LLVMValueRef v = LLVMBuildInsertElement(c->b, LLVMGetUndef(vt), s, LLVMConstInt(c->i32, 0, 0), "");
    LLVMValueRef zeros = LLVMConstNull(LLVMVectorType(c->i32, (unsigned)lanes));
    return LLVMBuildShuffleVector(c->b, v, LLVMGetUndef(vt), zeros, "");
}

/* A constant of (scalar) IR type t with `lanes` lanes. */
static LLVMValueRef const_int(cg *c, at_ir_type t, int64_t v, int lanes)
{
    LLVMValueRef s = LLVMConstInt(scalar_ty(c, t), (unsigned long long)v, t.code == AT_IR_TINT);
    return splat(c, s, lanes);
}

static LLVMValueRef call_intrinsic(cg *c, const char *name, LLVMTypeRef *over, size_t n_over, LLVMValueRef *args,
                                   unsigned n_args)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    AT_ASSERT(id != 0);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(c->mod, id, over, n_over);
    LLVMTypeRef fty = LLVMIntrinsicGetType(c->ctx, id, over, n_over);
    return LLVMBuildCall2(c->b, fty, fn, args, n_args, "");
}

/* Converts an integer or bool value to i1 (non-zero). */
static LLVMValueRef truth(cg *c, LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v), s = is_vec(v) ? LLVMGetElementType(t) : t;
    if (LLVMGetTypeKind(s) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(s) == 1) return v;
    if (LLVMGetTypeKind(s) == LLVMIntegerTypeKind) return LLVMBuildICmp(c->b, LLVMIntNE, v, LLVMConstNull(t), "");
    return LLVMBuildFCmp(c->b, LLVMRealUNE, v, LLVMConstNull(t), "");
}

/* ---- operators ------------------------------------------------------------------------------ */

static bool cint(const at_ir_expr *e, int64_t *v)
{
    if (e->kind != AT_IR_INT_IMM) return false;
    *v = e->u.int_val;
    return true;
}

/* a op b for operands of IR scalar type t (values may be vectors of the same shape); be is b's
 * expression, for constant divisors. */
static LLVMValueRef binop(cg *c, at_ir_binop op, at_ir_type t, LLVMValueRef a, LLVMValueRef b, const at_ir_expr *be)
{
    LLVMBuilderRef B = c->b;
    LLVMTypeRef vt = LLVMTypeOf(a);
    if (t.code == AT_IR_TFLOAT) {
        LLVMValueRef args[2] = {a, b};
        switch (op) {
        case AT_IR_ADD: return LLVMBuildFAdd(B, a, b, "");
        case AT_IR_SUB: return LLVMBuildFSub(B, a, b, "");
        case AT_IR_MUL: return LLVMBuildFMul(B, a, b, "");
        case AT_IR_DIV: return LLVMBuildFDiv(B, a, b, "");
        case AT_IR_MOD: return LLVMBuildFRem(B, a, b, "");
        case AT_IR_MIN: return call_intrinsic(c, "llvm.minnum", &vt, 1, args, 2);
        case AT_IR_MAX: return call_intrinsic(c, "llvm.maxnum", &vt, 1, args, 2);
        case AT_IR_EQ: return LLVMBuildFCmp(B, LLVMRealOEQ, a, b, "");
        case AT_IR_NE: return LLVMBuildFCmp(B, LLVMRealUNE, a, b, "");
        case AT_IR_LT: return LLVMBuildFCmp(B, LLVMRealOLT, a, b, "");
        case AT_IR_LE: return LLVMBuildFCmp(B, LLVMRealOLE, a, b, "");
        case AT_IR_GT: return LLVMBuildFCmp(B, LLVMRealOGT, a, b, "");
        case AT_IR_GE: return LLVMBuildFCmp(B, LLVMRealOGE, a, b, "");
        case AT_IR_AND: return LLVMBuildAnd(B, truth(c, a), truth(c, b), "");
        case AT_IR_OR: return LLVMBuildOr(B, truth(c, a), truth(c, b), "");
        case AT_IR_BIT_AND: case AT_IR_BIT_OR: case AT_IR_BIT_XOR: case AT_IR_SHL: case AT_IR_SHR:
        case AT_IR_BINOP_COUNT:
        default: AT_ASSERT(!"bitwise operator on floats (the IR builder rejects it)");
        }
    }
    bool uns = t.code != AT_IR_TINT; /* uint and bool compare unsigned (bool: 0 < 1) */
    int lanes = lanes_of(a);
    switch (op) {
    case AT_IR_ADD: return c->in_index && !uns ? LLVMBuildNSWAdd(B, a, b, "") : LLVMBuildAdd(B, a, b, "");
    case AT_IR_SUB: return c->in_index && !uns ? LLVMBuildNSWSub(B, a, b, "") : LLVMBuildSub(B, a, b, "");
    case AT_IR_MUL: return c->in_index && !uns ? LLVMBuildNSWMul(B, a, b, "") : LLVMBuildMul(B, a, b, "");
    case AT_IR_DIV:
    case AT_IR_MOD: {
        int64_t k;
        bool safe = cint(be, &k) && k != 0 && (uns || k != -1);
        if (safe)
            return op == AT_IR_DIV ? (uns ? LLVMBuildUDiv(B, a, b, "") : LLVMBuildSDiv(B, a, b, ""))
                                   : (uns ? LLVMBuildURem(B, a, b, "") : LLVMBuildSRem(B, a, b, ""));
        /* the interpreter rejects a zero divisor and wraps INT_MIN / -1; here a zero divisor
         * gives 0 instead of a trap, and -1 is handled as negation */
        LLVMValueRef zero = const_int(c, t, 0, lanes), one = const_int(c, t, 1, lanes);
        LLVMValueRef is0 = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
        LLVMValueRef bad = is0;
        LLVMValueRef ism1 = NULL;
        if (!uns) {
            ism1 = LLVMBuildICmp(B, LLVMIntEQ, b, const_int(c, t, -1, lanes), "");
            bad = LLVMBuildOr(B, is0, ism1, "");
        }
        LLVMValueRef d = LLVMBuildSelect(B, bad, one, b, "");
        LLVMValueRef r = op == AT_IR_DIV ? (uns ? LLVMBuildUDiv(B, a, d, "") : LLVMBuildSDiv(B, a, d, ""))
                                         : (uns ? LLVMBuildURem(B, a, d, "") : LLVMBuildSRem(B, a, d, ""));
        if (ism1) r = LLVMBuildSelect(B, ism1, op == AT_IR_DIV ? LLVMBuildSub(B, zero, a, "") : zero, r, "");
        return LLVMBuildSelect(B, is0, zero, r, "");
    }
    case AT_IR_MIN:
    case AT_IR_MAX: {
        LLVMIntPredicate pr = op == AT_IR_MIN ? (uns ? LLVMIntULT : LLVMIntSLT) : (uns ? LLVMIntUGT : LLVMIntSGT);
        return LLVMBuildSelect(B, LLVMBuildICmp(B, pr, a, b, ""), a, b, "");
    }
    case AT_IR_EQ: return LLVMBuildICmp(B, LLVMIntEQ, a, b, "");
    case AT_IR_NE: return LLVMBuildICmp(B, LLVMIntNE, a, b, "");
    case AT_IR_LT: return LLVMBuildICmp(B, uns ? LLVMIntULT : LLVMIntSLT, a, b, "");
    case AT_IR_LE: return LLVMBuildICmp(B, uns ? LLVMIntULE : LLVMIntSLE, a, b, "");
    case AT_IR_GT: return LLVMBuildICmp(B, uns ? LLVMIntUGT : LLVMIntSGT, a, b, "");
    case AT_IR_GE: return LLVMBuildICmp(B, uns ? LLVMIntUGE : LLVMIntSGE, a, b, "");
    case AT_IR_AND: return LLVMBuildAnd(B, truth(c, a), truth(c, b), "");
    case AT_IR_OR: return LLVMBuildOr(B, truth(c, a), truth(c, b), "");
    case AT_IR_BIT_AND: return LLVMBuildAnd(B, a, b, "");
    case AT_IR_BIT_OR: return LLVMBuildOr(B, a, b, "");
    case AT_IR_BIT_XOR: return LLVMBuildXor(B, a, b, "");
    case AT_IR_SHL:
    case AT_IR_SHR: {
        LLVMValueRef n = LLVMBuildAnd(B, b, const_int(c, t, t.bits - 1, lanes), ""); /* OpenCL masks the count */
        if (op == AT_IR_SHL) return LLVMBuildShl(B, a, n, "");
        return uns ? LLVMBuildLShr(B, a, n, "") : LLVMBuildAShr(B, a, n, "");
    }
    case AT_IR_BINOP_COUNT:
    default: AT_ASSERT(!"bad binop");
    }
    return NULL;
}

/* Converts v (IR scalar type `from`, any lanes) to `to` (scalar type), as the interpreter does. */
static LLVMValueRef convert(cg *c, LLVMValueRef v, at_ir_type from, at_ir_type to)
{
    LLVMBuilderRef B = c->b;
    int lanes = lanes_of(v);
    LLVMTypeRef tt = ty_lanes(c, to, lanes);
    if (to.code == AT_IR_TBOOL) return truth(c, v);
    if (from.code == AT_IR_TBOOL)
        return to.code == AT_IR_TFLOAT ? LLVMBuildUIToFP(B, v, tt, "") : LLVMBuildZExt(B, v, tt, "");
    if (from.code == AT_IR_TFLOAT && to.code == AT_IR_TFLOAT) {
        if (from.bits == to.bits) return v;
        return from.bits < to.bits ? LLVMBuildFPExt(B, v, tt, "") : LLVMBuildFPTrunc(B, v, tt, "");
    }
    if (to.code == AT_IR_TFLOAT)
        return from.code == AT_IR_TUINT ? LLVMBuildUIToFP(B, v, tt, "") : LLVMBuildSIToFP(B, v, tt, "");
    if (from.code == AT_IR_TFLOAT) {
        /* trunc toward zero, saturated to int64 (NaN -> 0), then wrapped to the width */
        LLVMTypeRef over[2] = {ty_lanes(c, AT_IR_I64, lanes), LLVMTypeOf(v)};
        LLVMValueRef r = call_intrinsic(c, "llvm.fptosi.sat", over, 2, &v, 1);
        return to.bits == 64 ? r : LLVMBuildTrunc(B, r, tt, "");
    }
    if (from.bits == to.bits) return v;
    if (from.bits > to.bits) return LLVMBuildTrunc(B, v, tt, "");
    return from.code == AT_IR_TUINT ? LLVMBuildZExt(B, v, tt, "") : LLVMBuildSExt(B, v, tt, "");
}

/* ---- intrinsics ----------------------------------------------------------------------------- */

typedef enum ik { IK_LLVM, IK_LIBM, IK_RSQRT, IK_EXP10, IK_SIGMOID, IK_CLAMP, IK_ABS, IK_FMOD } ik;

typedef struct intrinsic {
    const char *name;
    int         n_args;
    ik          kind;
    const char *target; /* llvm intrinsic or libm double-precision name */
} intrinsic;

/* Sorted by name (bsearch). The OpenCL builtins templates use, as ir/interp.c knows them. */
static const intrinsic intrinsics[] = {
    {"abs", 1, IK_ABS, "llvm.abs"},          {"acos", 1, IK_LIBM, "acos"},          {"asin", 1, IK_LIBM, "asin"},
    {"atan", 1, IK_LIBM, "atan"},            {"atan2", 2, IK_LIBM, "atan2"},        {"ceil", 1, IK_LLVM, "llvm.ceil"},
    {"clamp", 3, IK_CLAMP, NULL},            {"copysign", 2, IK_LLVM, "llvm.copysign"}, {"cos", 1, IK_LLVM, "llvm.cos"},
    {"cosh", 1, IK_LIBM, "cosh"},            {"erf", 1, IK_LIBM, "erf"},            {"exp", 1, IK_LLVM, "llvm.exp"},
    {"exp10", 1, IK_EXP10, NULL},            {"exp2", 1, IK_LLVM, "llvm.exp2"},     {"fabs", 1, IK_LLVM, "llvm.fabs"},
    {"floor", 1, IK_LLVM, "llvm.floor"},     {"fma", 3, IK_LLVM, "llvm.fma"},       {"fmax", 2, IK_LLVM, "llvm.maxnum"},
    {"fmin", 2, IK_LLVM, "llvm.minnum"},     {"fmod", 2, IK_FMOD, NULL},            {"log", 1, IK_LLVM, "llvm.log"},
    {"log10", 1, IK_LLVM, "llvm.log10"},     {"log2", 1, IK_LLVM, "llvm.log2"},     {"mad", 3, IK_LLVM, "llvm.fma"},
    {"pow", 2, IK_LLVM, "llvm.pow"},         {"round", 1, IK_LLVM, "llvm.round"},   {"rsqrt", 1, IK_RSQRT, NULL},
    {"sigmoid", 1, IK_SIGMOID, NULL},        {"sin", 1, IK_LLVM, "llvm.sin"},       {"sinh", 1, IK_LIBM, "sinh"},
    {"sqrt", 1, IK_LLVM, "llvm.sqrt"},       {"tan", 1, IK_LIBM, "tan"},            {"tanh", 1, IK_LIBM, "tanh"},
    {"trunc", 1, IK_LLVM, "llvm.trunc"},
};

static const intrinsic *find_intrinsic(const char *name, size_t n_args)
{
    size_t lo = 0, hi = sizeof intrinsics / sizeof intrinsics[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = strcmp(intrinsics[mid].name, name);
        if (r == 0) return (size_t)intrinsics[mid].n_args == n_args ? &intrinsics[mid] : NULL;
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* A libm call on each lane: f32 calls the "f" variant, f16 goes through f32. */
static LLVMValueRef libm_call(cg *c, const char *base, at_ir_type t, LLVMValueRef *args, unsigned n)
{
    int lanes = lanes_of(args[0]);
    at_ir_type ct = t.bits == 64 ? AT_IR_F64 : AT_IR_F32;
    LLVMTypeRef ft = scalar_ty(c, ct), params[3] = {ft, ft, ft};
    char name[32];
    snprintf(name, sizeof name, "%s%s", base, ct.bits == 32 ? "f" : "");
    LLVMTypeRef fty = LLVMFunctionType(ft, params, n, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(c->mod, name);
    if (!fn) {
        fn = LLVMAddFunction(c->mod, name, fty);
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                   LLVMCreateEnumAttribute(c->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
    }
    LLVMValueRef out = lanes > 1 ? LLVMGetUndef(ty_lanes(c, t, lanes)) : NULL;
    for (int l = 0; l < lanes; l++) {
        LLVMValueRef a[3];
        for (unsigned i = 0; i < n; i++) {
            a[i] = lanes > 1 ? LLVMBuildExtractElement(c->b, args[i], LLVMConstInt(c->i32, (unsigned)l, 0), "") : args[i];
            a[i] = convert(c, a[i], t, ct);
        }
        LLVMValueRef r = convert(c, LLVMBuildCall2(c->b, fty, fn, a, n, ""), ct, t);
        if (lanes == 1) return r;
        out = LLVMBuildInsertElement(c->b, out, r, LLVMConstInt(c->i32, (unsigned)l, 0), "");
    }
    return out;
}

/* name(args) of IR type t (scalar lane type st; values may be vectors). */
static LLVMValueRef intrinsic_call(cg *c, const char *name, at_ir_type t, LLVMValueRef *args, size_t n)
{
    const intrinsic *in = find_intrinsic(name, n);
    bool flt = t.code == AT_IR_TFLOAT;
    if (!in || (!flt && in->kind != IK_CLAMP && in->kind != IK_ABS) || (flt && in->kind == IK_ABS)) {
        char what[128];
        snprintf(what, sizeof what, "intrinsic %.60s/%zu has no LLVM mapping", name, n);
        fail(c, AT_EUNSUPPORTED, what);
        return LLVMGetUndef(LLVMTypeOf(args[0]));
    }
    LLVMTypeRef vt = LLVMTypeOf(args[0]);
    int lanes = lanes_of(args[0]);
    at_ir_type st = at_ir_type_with_lanes(t, 1);
    switch (in->kind) {
    case IK_LLVM: return call_intrinsic(c, in->target, &vt, 1, args, (unsigned)n);
    case IK_LIBM: return libm_call(c, in->target, st, args, (unsigned)n);
    case IK_FMOD: return LLVMBuildFRem(c->b, args[0], args[1], "");
    case IK_RSQRT: {
        LLVMValueRef s = call_intrinsic(c, "llvm.sqrt", &vt, 1, args, 1);
        return LLVMBuildFDiv(c->b, splat(c, LLVMConstReal(scalar_ty(c, st), 1.0), lanes), s, "");
    }
    case IK_EXP10: {
        LLVMValueRef a[2] = {splat(c, LLVMConstReal(scalar_ty(c, st), 10.0), lanes), args[0]};
        return call_intrinsic(c, "llvm.pow", &vt, 1, a, 2);
    }
    case IK_SIGMOID: {
        LLVMValueRef one = splat(c, LLVMConstReal(scalar_ty(c, st), 1.0), lanes);
        LLVMValueRef neg = LLVMBuildFNeg(c->b, args[0], "");
        LLVMValueRef e = call_intrinsic(c, "llvm.exp", &vt, 1, &neg, 1);
        return LLVMBuildFDiv(c->b, one, LLVMBuildFAdd(c->b, one, e, ""), "");
    }
    case IK_CLAMP: {
        LLVMValueRef lo = binop(c, AT_IR_MAX, st, args[0], args[1], NULL);
        return binop(c, AT_IR_MIN, st, lo, args[2], NULL);
    }
    case IK_ABS: {
        LLVMValueRef a[2] = {args[0], LLVMConstInt(c->i1, 0, 0)};
        if (st.code == AT_IR_TUINT) return args[0];
        return call_intrinsic(c, in->target, &vt, 1, a, 2);
    }
    default: AT_ASSERT(!"bad intrinsic kind");
    }
    return NULL;
}

/* ---- buffers -------------------------------------------------------------------------------- */

static LLVMValueRef buffer_base(cg *c, const at_ir_buffer *b)
{
    AT_ASSERT(b->id < c->n_ids);
    LLVMValueRef *slot = &c->f->bufs[b->id];
    if (!*slot) {
        AT_ASSERT(b->scope != AT_IR_GLOBAL);
        LLVMTypeRef at = LLVMArrayType(mem_ty(c, b->elem), (unsigned)b->size);
        *slot = LLVMBuildAlloca(c->f->alloca_b, at, b->name);
        LLVMSetAlignment(*slot, 64);
    }
    return *slot;
}

/* Pointer to element `index` (an integer value) of buffer b. */
static LLVMValueRef elem_ptr(cg *c, const at_ir_buffer *b, LLVMValueRef index, at_ir_type index_t)
{
    LLVMValueRef i = index;
    if (index_t.bits < 64)
        i = index_t.code == AT_IR_TINT ? LLVMBuildSExt(c->b, index, c->i64, "") : LLVMBuildZExt(c->b, index, c->i64, "");
    return LLVMBuildInBoundsGEP2(c->b, mem_ty(c, b->elem), buffer_base(c, b), &i, 1, "");
}

static LLVMValueRef load_at(cg *c, const at_ir_buffer *b, LLVMValueRef ptr, int lanes)
{
    LLVMTypeRef mt = mem_ty(c, b->elem);
    LLVMTypeRef lt = lanes > 1 ? LLVMVectorType(mt, (unsigned)lanes) : mt;
    LLVMValueRef v = LLVMBuildLoad2(c->b, lt, ptr, "");
    LLVMSetAlignment(v, (unsigned)at_ir_type_bytes(b->elem));
    if (b->elem.code == AT_IR_TBOOL) v = LLVMBuildICmp(c->b, LLVMIntNE, v, LLVMConstNull(lt), "");
    return v;
}

static void store_at(cg *c, const at_ir_buffer *b, LLVMValueRef ptr, LLVMValueRef v)
{
    if (b->elem.code == AT_IR_TBOOL) {
        int lanes = lanes_of(v);
        v = LLVMBuildZExt(c->b, v, lanes > 1 ? LLVMVectorType(c->i8, (unsigned)lanes) : c->i8, "");
    }
    LLVMValueRef s = LLVMBuildStore(c->b, v, ptr);
    LLVMSetAlignment(s, (unsigned)at_ir_type_bytes(b->elem));
}

/* ---- expressions ---------------------------------------------------------------------------- */

static LLVMValueRef ex(cg *c, const at_ir_expr *e);
static LLVMValueRef vx(cg *c, const at_ir_expr *e);
typedef LLVMValueRef (*emit_fn)(cg *c, const at_ir_expr *e);

/* Does e depend on the vectorized loop's variable (directly or through a vector let)? */
static bool varies(const cg *c, const at_ir_expr *e)
{
    return c->vvar && c->lane < 0 && at_ir_vec_varies(e, c->vvar, c->vary);
}

static bool cint_imm(const void *ctx, const at_ir_expr *e, int64_t *v)
{
    (void)ctx;
    return cint(e, v);
}

/* Stride of an integer index in the vectorized variable, when it is base + stride * v. */
static bool affine_stride(const cg *c, const at_ir_expr *e, int64_t *stride)
{
    if (!varies(c, e)) {
        *stride = 0;
        return true;
    }
    return at_ir_vec_affine_stride(e, c->vvar, c->vary, cint_imm, NULL, stride);
}

/* Whether evaluating e may read memory (an arm that must not run when not selected). */
static bool reads_memory(const at_ir_expr *e)
{
    switch (e->kind) {
    case AT_IR_LOAD: return true;
    case AT_IR_BINARY: return reads_memory(e->u.bin.a) || reads_memory(e->u.bin.b);
    case AT_IR_UNARY: return reads_memory(e->u.un.a);
    case AT_IR_SELECT: return reads_memory(e->u.select.cond) || reads_memory(e->u.select.t) || reads_memory(e->u.select.f);
    case AT_IR_CAST: return reads_memory(e->u.cast.a);
    case AT_IR_BROADCAST: return reads_memory(e->u.broadcast.a);
    case AT_IR_LANE: return reads_memory(e->u.lane.a);
    case AT_IR_VECTOR:
        for (size_t i = 0; i < e->u.vector.n; i++)
            if (reads_memory(e->u.vector.elems[i])) return true;
        return false;
    case AT_IR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++)
            if (reads_memory(e->u.call.args[i])) return true;
        return false;
    case AT_IR_INT_IMM: case AT_IR_FLOAT_IMM: case AT_IR_VAR: case AT_IR_EXPR_KIND_COUNT:
    default: return false;
    }
}

static LLVMValueRef var_value(cg *c, const at_ir_var *v)
{
    LLVMValueRef x = c->env[v->id];
    AT_ASSERT(x != NULL);
    if (c->vary[v->id] && c->lane >= 0) return LLVMBuildExtractElement(c->b, x, LLVMConstInt(c->i32, (unsigned)c->lane, 0), "");
    return x;
}

/* Float a + b (or a - b) with a multiply operand as llvm.fmuladd (OpenCL's default FP_CONTRACT
 * on), else NULL. */
static LLVMValueRef contract(cg *c, const at_ir_expr *e, emit_fn f)
{
    if (e->type.code != AT_IR_TFLOAT || (e->u.bin.op != AT_IR_ADD && e->u.bin.op != AT_IR_SUB)) return NULL;
    const at_ir_expr *a = e->u.bin.a, *b = e->u.bin.b, *m, *o;
    bool is_mul_a = a->kind == AT_IR_BINARY && a->u.bin.op == AT_IR_MUL;
    bool is_mul_b = b->kind == AT_IR_BINARY && b->u.bin.op == AT_IR_MUL;
    if (is_mul_a) {
        m = a;
        o = b;
    } else if (is_mul_b && e->u.bin.op == AT_IR_ADD) {
        m = b;
        o = a;
    } else {
        return NULL;
    }
    LLVMValueRef args[3] = {f(c, m->u.bin.a), f(c, m->u.bin.b), f(c, o)};
    if (e->u.bin.op == AT_IR_SUB) args[2] = LLVMBuildFNeg(c->b, args[2], "");
    LLVMTypeRef vt = LLVMTypeOf(args[0]);
    return call_intrinsic(c, "llvm.fmuladd", &vt, 1, args, 3);
}

static LLVMValueRef emit_select(cg *c, const at_ir_expr *e, emit_fn f)
{
    LLVMValueRef cond = truth(c, f == vx && !varies(c, e->u.select.cond) ? ex(c, e->u.select.cond) : f(c, e->u.select.cond));
    if (LLVMIsAConstantInt(cond)) return f(c, LLVMConstIntGetZExtValue(cond) ? e->u.select.t : e->u.select.f);
    bool unsafe = reads_memory(e->u.select.t) || reads_memory(e->u.select.f);
    if (is_vec(cond) || !unsafe) {
        LLVMValueRef t = f(c, e->u.select.t), fl = f(c, e->u.select.f);
        return LLVMBuildSelect(c->b, cond, t, fl, "");
    }
    /* a scalar condition runs only the chosen arm (a guarded load must not fault) */
    LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(c->ctx, c->f->fn, "sel.t");
    LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(c->ctx, c->f->fn, "sel.f");
    LLVMBasicBlockRef bm = LLVMAppendBasicBlockInContext(c->ctx, c->f->fn, "sel.m");
    LLVMBuildCondBr(c->b, cond, bt, bf);
    LLVMPositionBuilderAtEnd(c->b, bt);
    LLVMValueRef vt = f(c, e->u.select.t);
    LLVMBasicBlockRef et = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, bm);
    LLVMPositionBuilderAtEnd(c->b, bf);
    LLVMValueRef vf = f(c, e->u.select.f);
    LLVMBasicBlockRef ef = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, bm);
    LLVMPositionBuilderAtEnd(c->b, bm);
    LLVMValueRef phi = LLVMBuildPhi(c->b, LLVMTypeOf(vt), "");
    LLVMValueRef vals[2] = {vt, vf};
    LLVMBasicBlockRef bbs[2] = {et, ef};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

/* e with the vectorized variable fixed to `lane`. */
static LLVMValueRef at_lane(cg *c, const at_ir_expr *e, int lane)
{
    int saved = c->lane;
    c->lane = lane;
    LLVMValueRef v = ex(c, e);
    c->lane = saved;
    return v;
}

/* A load/store index (lane `lane` of it in a vectorized loop, -1 outside one). Its signed
 * arithmetic is nsw, as OpenCL C's int arithmetic is: an index that overflows is out of bounds
 * anyway, and the no-wrap facts let LLVM's loop analyses widen and hoist the index math. */
static LLVMValueRef index_value(cg *c, const at_ir_expr *e, int lane)
{
    bool saved = c->in_index;
    c->in_index = true;
    LLVMValueRef v = lane >= 0 ? at_lane(c, e, lane) : ex(c, e);
    c->in_index = saved;
    return v;
}

/* A vector of c->vl lanes built lane by lane. */
static LLVMValueRef by_lanes(cg *c, const at_ir_expr *e)
{
    LLVMValueRef v = LLVMGetUndef(ty_lanes(c, e->type, c->vl));
    for (int l = 0; l < c->vl; l++) v = LLVMBuildInsertElement(c->b, v, at_lane(c, e, l), LLVMConstInt(c->i32, (unsigned)l, 0), "");
    return v;
}

/* Scalar-typed e in a vectorized loop as a vector of c->vl lanes (a splat when it does not vary). */
static LLVMValueRef vx(cg *c, const at_ir_expr *e)
{
    if (!varies(c, e)) return splat(c, ex(c, e), c->vl);
    AT_ASSERT(e->type.lanes == 1);
    switch (e->kind) {
    case AT_IR_VAR: return c->env[e->u.var->id];
    case AT_IR_BINARY: {
        LLVMValueRef r = contract(c, e, vx);
        if (r) return r;
        LLVMValueRef a = vx(c, e->u.bin.a), b = vx(c, e->u.bin.b);
        return binop(c, e->u.bin.op, e->u.bin.a->type, a, b, e->u.bin.b);
    }
    case AT_IR_UNARY: {
        LLVMValueRef a = vx(c, e->u.un.a);
        switch (e->u.un.op) {
        case AT_IR_NOT: return LLVMBuildNot(c->b, truth(c, a), "");
        case AT_IR_BIT_NOT: return LLVMBuildNot(c->b, a, "");
        case AT_IR_NEG:
        case AT_IR_UNOP_COUNT:
        default: return e->type.code == AT_IR_TFLOAT ? LLVMBuildFNeg(c->b, a, "") : LLVMBuildNeg(c->b, a, "");
        }
    }
    case AT_IR_SELECT:
        if (varies(c, e->u.select.cond) && (reads_memory(e->u.select.t) || reads_memory(e->u.select.f)))
            return by_lanes(c, e); /* each lane's arm runs alone */
        return emit_select(c, e, vx);
    case AT_IR_CAST: return convert(c, vx(c, e->u.cast.a), e->u.cast.a->type, e->type);
    case AT_IR_LOAD: {
        int64_t stride;
        if (affine_stride(c, e->u.load.index, &stride) && stride == 1) {
            LLVMValueRef i0 = index_value(c, e->u.load.index, 0);
            return load_at(c, e->u.load.buf, elem_ptr(c, e->u.load.buf, i0, e->u.load.index->type), c->vl);
        }
        return by_lanes(c, e); /* gather */
    }
    case AT_IR_CALL: {
        LLVMValueRef args[3];
        if (e->u.call.n_args > 3 || e->u.call.n_args == 0) return by_lanes(c, e);
        for (size_t i = 0; i < e->u.call.n_args; i++) {
            if (e->u.call.args[i]->type.code != e->type.code) return by_lanes(c, e);
            args[i] = vx(c, e->u.call.args[i]);
        }
        return intrinsic_call(c, e->u.call.name, e->type, args, e->u.call.n_args);
    }
    case AT_IR_INT_IMM: case AT_IR_FLOAT_IMM: case AT_IR_BROADCAST: case AT_IR_LANE: case AT_IR_VECTOR:
    case AT_IR_EXPR_KIND_COUNT:
    default: return by_lanes(c, e);
    }
}

/* e as its own IR type (scalar, or the IR's vector type); in a vectorized loop only for
 * expressions that do not vary, or while emitting one lane. */
static LLVMValueRef ex(cg *c, const at_ir_expr *e)
{
    if (c->st != AT_OK) return LLVMGetUndef(ty(c, e->type));
    AT_ASSERT(!varies(c, e));
    at_ir_type t = e->type;
    switch (e->kind) {
    case AT_IR_INT_IMM: return const_int(c, t, e->u.int_val, 1);
    case AT_IR_FLOAT_IMM: return LLVMConstReal(scalar_ty(c, t), e->u.float_val);
    case AT_IR_VAR: return var_value(c, e->u.var);
    case AT_IR_BINARY: {
        LLVMValueRef r = contract(c, e, ex);
        if (r) return r;
        LLVMValueRef a = ex(c, e->u.bin.a), b = ex(c, e->u.bin.b);
        return binop(c, e->u.bin.op, at_ir_type_with_lanes(e->u.bin.a->type, 1), a, b, e->u.bin.b);
    }
    case AT_IR_UNARY: {
        LLVMValueRef a = ex(c, e->u.un.a);
        switch (e->u.un.op) {
        case AT_IR_NOT: return LLVMBuildNot(c->b, truth(c, a), "");
        case AT_IR_BIT_NOT: return LLVMBuildNot(c->b, a, "");
        case AT_IR_NEG:
        case AT_IR_UNOP_COUNT:
        default: return t.code == AT_IR_TFLOAT ? LLVMBuildFNeg(c->b, a, "") : LLVMBuildNeg(c->b, a, "");
        }
    }
    case AT_IR_SELECT: return emit_select(c, e, ex);
    case AT_IR_CAST:
        return convert(c, ex(c, e->u.cast.a), at_ir_type_with_lanes(e->u.cast.a->type, 1), at_ir_type_with_lanes(t, 1));
    case AT_IR_LOAD:
        return load_at(c, e->u.load.buf, elem_ptr(c, e->u.load.buf, index_value(c, e->u.load.index, -1), e->u.load.index->type), t.lanes);
    case AT_IR_BROADCAST: return splat(c, ex(c, e->u.broadcast.a), t.lanes);
    case AT_IR_LANE:
        return LLVMBuildExtractElement(c->b, ex(c, e->u.lane.a), LLVMConstInt(c->i32, (unsigned)e->u.lane.lane, 0), "");
    case AT_IR_VECTOR: {
        LLVMValueRef v = LLVMGetUndef(ty(c, t));
        for (size_t i = 0; i < e->u.vector.n; i++)
            v = LLVMBuildInsertElement(c->b, v, ex(c, e->u.vector.elems[i]), LLVMConstInt(c->i32, (unsigned)i, 0), "");
        return v;
    }
    case AT_IR_CALL: {
        LLVMValueRef args[3];
        size_t n = e->u.call.n_args;
        if (n == 0 || n > 3) {
            char what[128];
            snprintf(what, sizeof what, "intrinsic %.60s/%zu has no LLVM mapping", e->u.call.name, n);
            fail(c, AT_EUNSUPPORTED, what);
            return LLVMGetUndef(ty(c, t));
        }
        for (size_t i = 0; i < n; i++) args[i] = ex(c, e->u.call.args[i]);
        return intrinsic_call(c, e->u.call.name, t, args, n);
    }
    case AT_IR_EXPR_KIND_COUNT:
    default: AT_ASSERT(!"bad expression kind");
    }
    return NULL;
}

/* ---- statements ----------------------------------------------------------------------------- */

static void stmt(cg *c, const at_ir_stmt *s);

static void bind(cg *c, const at_ir_var *v, LLVMValueRef val)
{
    c->env[v->id] = val;
    c->by_var[v->id] = v;
    c->scope[c->n_scope++] = v->id;
}

static void unbind(cg *c, const at_ir_var *v, LLVMValueRef saved)
{
    AT_ASSERT(c->n_scope > 0 && c->scope[c->n_scope - 1] == v->id);
    c->n_scope--;
    c->env[v->id] = saved;
}

/* Can the body of a vectorized loop run as vector code? Marks vector lets in c->vary as it goes
 * (the caller clears them). */
static bool vectorizable(cg *c, const at_ir_stmt *s, uint32_t *marked, size_t *n_marked)
{
    switch (s->kind) {
    case AT_IR_STORE:
        if (!at_ir_vec_scalar_typed(s->u.store.value) || !at_ir_vec_scalar_typed(s->u.store.index)) return false;
        return varies(c, s->u.store.index); /* every lane writing one place: unroll */
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++)
            if (!vectorizable(c, s->u.seq.items[i], marked, n_marked)) return false;
        return true;
    case AT_IR_LET:
        if (!at_ir_vec_scalar_typed(s->u.let.value)) return false;
        if (varies(c, s->u.let.value)) {
            c->vary[s->u.let.var->id] = true;
            marked[(*n_marked)++] = s->u.let.var->id;
        }
        return vectorizable(c, s->u.let.body, marked, n_marked);
    case AT_IR_FOR: case AT_IR_IF: case AT_IR_BARRIER: case AT_IR_PREFETCH: case AT_IR_STMT_KIND_COUNT:
    default: return false;
    }
}

static void unrolled(cg *c, const at_ir_stmt *s)
{
    const at_ir_var *v = s->u.loop.var;
    LLVMValueRef saved = c->env[v->id];
    for (int64_t i = 0; i < s->u.loop.extent && c->st == AT_OK; i++) {
        bind(c, v, const_int(c, v->type, i, 1));
        stmt(c, s->u.loop.body);
        unbind(c, v, saved);
    }
}

static void vectorized(cg *c, const at_ir_stmt *s)
{
    const at_ir_var *v = s->u.loop.var;
    size_t n_marked = 0;
    uint32_t *marked = at_malloc((at_ir_count_lets(s->u.loop.body) + 1) * sizeof *marked);
    if (!marked) {
        if (c->st == AT_OK) c->st = AT_OOM();
        return;
    }
    c->vvar = v;
    c->vl = (int)s->u.loop.extent;
    c->lane = -1;
    c->vary[v->id] = true;
    bool ok = vectorizable(c, s->u.loop.body, marked, &n_marked);
    for (size_t i = 0; i < n_marked; i++) c->vary[marked[i]] = false;
    at_free(marked);
    if (!ok) {
        c->vary[v->id] = false;
        c->vvar = NULL;
        unrolled(c, s);
        return;
    }
    LLVMValueRef saved = c->env[v->id];
    LLVMValueRef iota = LLVMGetUndef(ty_lanes(c, v->type, c->vl));
    for (int l = 0; l < c->vl; l++)
        iota = LLVMConstInsertElement(iota, const_int(c, v->type, l, 1), LLVMConstInt(c->i32, (unsigned)l, 0));
    bind(c, v, iota);
    stmt(c, s->u.loop.body);
    unbind(c, v, saved);
    c->vary[v->id] = false;
    c->vvar = NULL;
}

/* A loop over var v from `from` to `to` (i64 values; the induction variable is v's own type,
 * stepping with nsw as a C int loop counter does), do-while when `at_least_once`, body emitted by
 * stmt; with llvm.loop.unroll.full metadata when `unroll`. */
static void counted_loop(cg *c, const at_ir_var *v, LLVMValueRef from, LLVMValueRef to, bool at_least_once,
                         bool unroll, const at_ir_stmt *body)
{
    LLVMBuilderRef B = c->b;
    LLVMTypeRef vt = ty(c, v->type);
    if (v->type.bits < 64) {
        from = LLVMBuildTrunc(B, from, vt, "");
        to = LLVMBuildTrunc(B, to, vt, "");
    }
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c->ctx, c->f->fn, v->name);
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c->ctx, c->f->fn, "");
    if (at_least_once) {
        LLVMBuildBr(B, head);
    } else {
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, from, to, ""), head, exit);
    }
    LLVMPositionBuilderAtEnd(B, head);
    LLVMValueRef phi = LLVMBuildPhi(B, vt, "");
    LLVMValueRef saved = c->env[v->id];
    bind(c, v, phi);
    stmt(c, body);
    unbind(c, v, saved);
    LLVMValueRef next = LLVMBuildNSWAdd(B, phi, LLVMConstInt(vt, 1, 0), "");
    LLVMValueRef br = LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, next, to, ""), head, exit);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(B);
    LLVMValueRef vals[2] = {from, next};
    LLVMBasicBlockRef bbs[2] = {pre, latch};
    LLVMAddIncoming(phi, vals, bbs, 2);
    if (unroll) {
        LLVMMetadataRef full = LLVMMDStringInContext2(c->ctx, "llvm.loop.unroll.full", 21);
        LLVMMetadataRef prop = LLVMMDNodeInContext2(c->ctx, &full, 1);
        /* a self-referential loop id: uniquing a node that contains itself makes it distinct */
        LLVMMetadataRef tmp = LLVMTemporaryMDNode(c->ctx, NULL, 0);
        LLVMMetadataRef ops[2] = {tmp, prop};
        LLVMMetadataRef id = LLVMMDNodeInContext2(c->ctx, ops, 2);
        LLVMMetadataReplaceAllUsesWith(tmp, id);
        LLVMValueRef node = LLVMMetadataAsValue(c->ctx, id);
        LLVMSetMetadata(br, LLVMGetMDKindIDInContext(c->ctx, "llvm.loop", 9), node);
    }
    LLVMPositionBuilderAtEnd(B, exit);
}

/* ---- bands of a parallel loop ---------------------------------------------------------------- */

/* The least constant k (1 < k < n, k | n) that v is divided by or taken modulo: v fuses axes,
 * and its innermost one has k iterations (v % k; v / k for the next one out). */
typedef struct band_search {
    const at_ir_var *v;
    int64_t          n, best;
} band_search;

static bool band_step(const at_ir_expr *e, void *ctx)
{
    band_search *b = ctx;
    if (e->kind == AT_IR_BINARY && (e->u.bin.op == AT_IR_DIV || e->u.bin.op == AT_IR_MOD) &&
        e->u.bin.a->kind == AT_IR_VAR && e->u.bin.a->u.var == b->v && e->u.bin.b->kind == AT_IR_INT_IMM) {
        int64_t k = e->u.bin.b->u.int_val;
        if (k > 1 && k < b->n && b->n % k == 0 && (b->best == 0 || k < b->best)) b->best = k;
    }
    return false; /* every expression */
}

static int64_t band_of(const at_ir_stmt *loop)
{
    band_search b = {.v = loop->u.loop.var, .n = loop->u.loop.extent};
    at_ir_stmt_any_expr(loop->u.loop.body, band_step, &b);
    return b.best;
}

/* The loop s shared out over the pool: an outlined function over [begin, end) of the loop's
 * iterations, called through at_llvm_parallel_for with a closure of the buffers and the
 * variables in scope, and the loop's band: the extent of its innermost fused axis, so the pool
 * can share it out by rows (pool.c says why). */
static void parallel(cg *c, const at_ir_stmt *s)
{
    const at_ir_var *v = s->u.loop.var;
    size_t nb = c->p->n_bufs, nv = c->n_scope, n = nb + nv;
    LLVMTypeRef *types = at_calloc(n + 3, sizeof *types);
    LLVMValueRef *vals = at_calloc(n + 3, sizeof *vals);
    LLVMValueRef *bufs = at_calloc(c->n_ids, sizeof *bufs);
    LLVMValueRef *env_saved = at_calloc(nv + 1, sizeof *env_saved);
    if (!types || !vals || !bufs || !env_saved) {
        if (c->st == AT_OK) c->st = AT_OOM();
        goto done;
    }
    for (size_t i = 0; i < nb; i++) {
        types[i] = c->ptr;
        vals[i] = c->f->bufs[i];
    }
    /* constants in scope (an unrolled loop's index) stay constants in the body; the rest is
     * captured, n counting the closure's fields */
    n = nb;
    for (size_t i = 0; i < nv; i++) {
        LLVMValueRef x = c->env[c->scope[i]];
        if (LLVMIsConstant(x)) continue;
        vals[n] = x;
        types[n++] = LLVMTypeOf(x);
    }
    /* the closure, on the caller's stack */
    LLVMTypeRef st = LLVMStructTypeInContext(c->ctx, types, (unsigned)n, 0);
    LLVMValueRef clo = LLVMBuildAlloca(c->f->alloca_b, st, "closure");
    for (size_t i = 0; i < n; i++) LLVMBuildStore(c->b, vals[i], LLVMBuildStructGEP2(c->b, st, clo, (unsigned)i, ""));

    char name[300];
    snprintf(name, sizeof name, "%s.par%d", c->sym, c->n_outlined++);
    /* body(bufs..., vars..., begin, end): noalias buffers, inlined into the entry below */
    types[n] = c->i64;
    types[n + 1] = c->i64;
    LLVMTypeRef body_ty = LLVMFunctionType(c->vd, types, (unsigned)(n + 2), 0);
    char body_name[310];
    snprintf(body_name, sizeof body_name, "%s.body", name);
    LLVMValueRef body = LLVMAddFunction(c->mod, body_name, body_ty);
    LLVMSetLinkage(body, LLVMInternalLinkage);
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
    unsigned inl = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMAddAttributeAtIndex(body, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->ctx, inl, 0));
    for (size_t i = 0; i < nb; i++) LLVMAddAttributeAtIndex(body, (unsigned)(i + 1), LLVMCreateEnumAttribute(c->ctx, noalias, 0));
    LLVMTypeRef entry_params[3] = {c->ptr, c->i64, c->i64};
    LLVMTypeRef entry_ty = LLVMFunctionType(c->vd, entry_params, 3, 0);
    LLVMValueRef entry = LLVMAddFunction(c->mod, name, entry_ty);
    LLVMSetLinkage(entry, LLVMInternalLinkage);

    /* the call from here */
    LLVMTypeRef pf_params[5] = {c->ptr, c->ptr, c->ptr, c->i64, c->i64};
    LLVMTypeRef pf_ty = LLVMFunctionType(c->vd, pf_params, 5, 0);
    LLVMValueRef pf = LLVMGetNamedFunction(c->mod, AT_LLVM_PARALLEL_FOR);
    if (!pf) pf = LLVMAddFunction(c->mod, AT_LLVM_PARALLEL_FOR, pf_ty);
    int64_t extent = s->u.loop.extent, band = band_of(s);
    LLVMValueRef args[5] = {c->f->pool, entry, clo, LLVMConstInt(c->i64, (unsigned long long)extent, 0),
                            LLVMConstInt(c->i64, (unsigned long long)band, 0)};
    LLVMBuildCall2(c->b, pf_ty, pf, args, 5, "");
    LLVMBasicBlockRef resume = LLVMGetInsertBlock(c->b);

    /* entry(closure, begin, end): unpack and call the body */
    LLVMBasicBlockRef eb = LLVMAppendBasicBlockInContext(c->ctx, entry, "");
    LLVMPositionBuilderAtEnd(c->b, eb);
    LLVMValueRef p0 = LLVMGetParam(entry, 0);
    for (size_t i = 0; i < n; i++) vals[i] = LLVMBuildLoad2(c->b, types[i], LLVMBuildStructGEP2(c->b, st, p0, (unsigned)i, ""), "");
    vals[n] = LLVMGetParam(entry, 1);
    vals[n + 1] = LLVMGetParam(entry, 2);
    LLVMBuildCall2(c->b, body_ty, body, vals, (unsigned)(n + 2), "");
    LLVMBuildRetVoid(c->b);

    /* the body */
    fn_ctx *outer = c->f;
    fn_ctx f = {.fn = body, .alloca_b = LLVMCreateBuilderInContext(c->ctx), .bufs = bufs, .pool = NULL, .in_parallel = true};
    for (size_t i = 0; i < nb; i++) {
        bufs[i] = LLVMGetParam(body, (unsigned)i);
        LLVMSetValueName2(bufs[i], c->p->bufs[i]->name, strlen(c->p->bufs[i]->name));
    }
    LLVMSetValueName2(LLVMGetParam(body, (unsigned)n), "begin", 5);
    LLVMSetValueName2(LLVMGetParam(body, (unsigned)(n + 1)), "end", 3);
    LLVMBasicBlockRef allocas = LLVMAppendBasicBlockInContext(c->ctx, body, "");
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(c->ctx, body, "");
    LLVMPositionBuilderAtEnd(c->b, allocas);
    LLVMValueRef jump = LLVMBuildBr(c->b, start);
    LLVMPositionBuilderBefore(f.alloca_b, jump);
    LLVMPositionBuilderAtEnd(c->b, start);
    c->f = &f;
    for (size_t i = 0, field = nb; i < nv; i++) {
        env_saved[i] = c->env[c->scope[i]];
        if (LLVMIsConstant(env_saved[i])) continue;
        c->env[c->scope[i]] = LLVMGetParam(body, (unsigned)field++);
        const char *vn = c->by_var[c->scope[i]] ? c->by_var[c->scope[i]]->name : "";
        LLVMSetValueName2(c->env[c->scope[i]], vn, strlen(vn));
    }
    bool in_binding = c->in_binding;
    c->in_binding = at_ir_for_kind_is_binding(s->u.loop.kind);
    counted_loop(c, v, LLVMGetParam(body, (unsigned)n), LLVMGetParam(body, (unsigned)(n + 1)), false, false, s->u.loop.body);
    LLVMBuildRetVoid(c->b);
    c->in_binding = in_binding;
    for (size_t i = 0; i < nv; i++) c->env[c->scope[i]] = env_saved[i];
    c->f = outer;
    LLVMDisposeBuilder(f.alloca_b);
    LLVMPositionBuilderAtEnd(c->b, resume);
done:
    at_free(types);
    at_free(vals);
    at_free(bufs);
    at_free(env_saved);
}

static void store(cg *c, const at_ir_stmt *s)
{
    const at_ir_buffer *b = s->u.store.buf;
    const at_ir_expr *idx = s->u.store.index, *val = s->u.store.value;
    if (c->vvar && varies(c, idx)) {
        int64_t stride;
        LLVMValueRef v = vx(c, val);
        if (affine_stride(c, idx, &stride) && stride == 1) {
            store_at(c, b, elem_ptr(c, b, index_value(c, idx, 0), idx->type), v);
            return;
        }
        for (int l = 0; l < c->vl; l++) /* scatter */
            store_at(c, b, elem_ptr(c, b, index_value(c, idx, l), idx->type),
                     LLVMBuildExtractElement(c->b, v, LLVMConstInt(c->i32, (unsigned)l, 0), ""));
        return;
    }
    LLVMValueRef v = ex(c, val);
    store_at(c, b, elem_ptr(c, b, index_value(c, idx, -1), idx->type), v);
}

static void stmt(cg *c, const at_ir_stmt *s)
{
    if (c->st != AT_OK) return;
    switch (s->kind) {
    case AT_IR_FOR: {
        at_ir_for_kind kind = s->u.loop.kind;
        const at_ir_var *v = s->u.loop.var;
        if (at_ir_for_kind_is_binding(kind)) {
            if (!c->in_binding && !c->f->in_parallel) {
                if (s->u.loop.extent == 1) { /* a unit dimension: look further in for the grid */
                    LLVMValueRef saved = c->env[v->id];
                    bind(c, v, const_int(c, v->type, 0, 1));
                    stmt(c, s->u.loop.body);
                    unbind(c, v, saved);
                } else {
                    parallel(c, s);
                }
                return;
            }
            bool saved = c->in_binding;
            c->in_binding = true;
            counted_loop(c, v, LLVMConstInt(c->i64, 0, 0), LLVMConstInt(c->i64, (unsigned long long)s->u.loop.extent, 0),
                         true, false, s->u.loop.body);
            c->in_binding = saved;
            return;
        }
        switch (kind) {
        case AT_IR_VECTORIZED: vectorized(c, s); return;
        case AT_IR_VTHREAD: unrolled(c, s); return;
        case AT_IR_UNROLLED:
            if (!(s->u.loop.flags & AT_IR_LOOP_PRAGMA_UNROLL)) {
                unrolled(c, s);
                return;
            }
            counted_loop(c, v, LLVMConstInt(c->i64, 0, 0), LLVMConstInt(c->i64, (unsigned long long)s->u.loop.extent, 0),
                         true, true, s->u.loop.body);
            return;
        case AT_IR_PARALLEL:
            if (!c->f->in_parallel && s->u.loop.extent > 1) {
                parallel(c, s);
                return;
            }
            break;
        case AT_IR_SERIAL: case AT_IR_BLOCK_X: case AT_IR_BLOCK_Y: case AT_IR_BLOCK_Z: case AT_IR_THREAD_X:
        case AT_IR_THREAD_Y: case AT_IR_THREAD_Z: case AT_IR_FOR_KIND_COUNT:
        default: break;
        }
        counted_loop(c, v, LLVMConstInt(c->i64, 0, 0), LLVMConstInt(c->i64, (unsigned long long)s->u.loop.extent, 0), true,
                     false, s->u.loop.body);
        return;
    }
    case AT_IR_STORE: store(c, s); return;
    case AT_IR_SEQ:
        for (size_t i = 0; i < s->u.seq.n; i++) stmt(c, s->u.seq.items[i]);
        return;
    case AT_IR_IF: {
        AT_ASSERT(!c->vvar);
        LLVMValueRef cond = truth(c, ex(c, s->u.if_.cond));
        if (LLVMIsAConstantInt(cond)) {
            const at_ir_stmt *br = LLVMConstIntGetZExtValue(cond) ? s->u.if_.then_s : s->u.if_.else_s;
            if (br) stmt(c, br);
            return;
        }
        LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(c->ctx, c->f->fn, "then");
        LLVMBasicBlockRef be = s->u.if_.else_s ? LLVMAppendBasicBlockInContext(c->ctx, c->f->fn, "else") : NULL;
        LLVMBasicBlockRef bm = LLVMAppendBasicBlockInContext(c->ctx, c->f->fn, "endif");
        LLVMBuildCondBr(c->b, cond, bt, be ? be : bm);
        LLVMPositionBuilderAtEnd(c->b, bt);
        stmt(c, s->u.if_.then_s);
        LLVMBuildBr(c->b, bm);
        if (be) {
            LLVMPositionBuilderAtEnd(c->b, be);
            stmt(c, s->u.if_.else_s);
            LLVMBuildBr(c->b, bm);
        }
        LLVMPositionBuilderAtEnd(c->b, bm);
        return;
    }
    case AT_IR_LET: {
        const at_ir_var *v = s->u.let.var;
        bool vec = c->vvar && varies(c, s->u.let.value);
        LLVMValueRef val = vec ? vx(c, s->u.let.value) : ex(c, s->u.let.value);
        LLVMValueRef saved = c->env[v->id];
        bool saved_vary = c->vary[v->id];
        c->vary[v->id] = vec;
        bind(c, v, val);
        stmt(c, s->u.let.body);
        unbind(c, v, saved);
        c->vary[v->id] = saved_vary;
        return;
    }
    case AT_IR_BARRIER: fail(c, AT_EUNSUPPORTED, "a work-group barrier cannot run on a CPU here"); return;
    case AT_IR_PREFETCH: {
        const at_ir_expr *i = s->u.prefetch.index;
        /* llvm.prefetch(ptr, read, locality 3 (keep in every level), data cache) */
        LLVMValueRef args[4] = {elem_ptr(c, s->u.prefetch.buf, index_value(c, i, -1), i->type), LLVMConstInt(c->i32, 0, 0),
                                LLVMConstInt(c->i32, 3, 0), LLVMConstInt(c->i32, 1, 0)};
        LLVMTypeRef over[1] = {c->ptr};
        call_intrinsic(c, "llvm.prefetch", over, 1, args, 4);
        return;
    }
    case AT_IR_STMT_KIND_COUNT:
    default: AT_ASSERT(!"bad statement kind");
    }
}

/* ---- kernels -------------------------------------------------------------------------------- */

void at_llvm_kernel_symbol(const at_ir_program *p, size_t k, char *buf, size_t size)
{
    snprintf(buf, size, "%s_%s", p->name, p->kernels[k].name);
    for (char *q = buf; *q; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_')) *q = '_';
}

static void kernel(cg *c, size_t k)
{
    const at_ir_kernel *kn = &c->p->kernels[k];
    size_t nb = c->p->n_bufs;
    c->k = kn;
    c->n_outlined = 0;
    c->in_binding = false;
    c->n_scope = 0;
    at_llvm_kernel_symbol(c->p, k, c->sym, sizeof c->sym);

    /* body(bufs..., pool) */
    LLVMTypeRef *params = at_calloc(nb + 1, sizeof *params);
    LLVMValueRef *bufs = at_calloc(c->n_ids, sizeof *bufs);
    LLVMValueRef *args = at_calloc(nb + 1, sizeof *args);
    if (!params || !bufs || !args) {
        c->st = AT_OOM();
        goto done;
    }
    for (size_t i = 0; i <= nb; i++) params[i] = c->ptr;
    LLVMTypeRef body_ty = LLVMFunctionType(c->vd, params, (unsigned)(nb + 1), 0);
    char name[300];
    snprintf(name, sizeof name, "%s.body", c->sym);
    LLVMValueRef body = LLVMAddFunction(c->mod, name, body_ty);
    LLVMSetLinkage(body, LLVMInternalLinkage);
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
    unsigned inl = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMAddAttributeAtIndex(body, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->ctx, inl, 0));
    for (size_t i = 0; i < nb; i++) LLVMAddAttributeAtIndex(body, (unsigned)(i + 1), LLVMCreateEnumAttribute(c->ctx, noalias, 0));

    /* the exported entry: void sym(void *const *bufs, at_llvm_pool *pool) */
    LLVMTypeRef entry_params[2] = {c->ptr, c->ptr};
    LLVMTypeRef entry_ty = LLVMFunctionType(c->vd, entry_params, 2, 0);
    LLVMValueRef entry = LLVMAddFunction(c->mod, c->sym, entry_ty);
    LLVMBasicBlockRef eb = LLVMAppendBasicBlockInContext(c->ctx, entry, "");
    LLVMPositionBuilderAtEnd(c->b, eb);
    for (size_t i = 0; i < nb; i++) {
        LLVMValueRef idx = LLVMConstInt(c->i64, i, 0);
        args[i] = LLVMBuildLoad2(c->b, c->ptr, LLVMBuildInBoundsGEP2(c->b, c->ptr, LLVMGetParam(entry, 0), &idx, 1, ""),
                                 c->p->bufs[i]->name);
    }
    args[nb] = LLVMGetParam(entry, 1);
    LLVMBuildCall2(c->b, body_ty, body, args, (unsigned)(nb + 1), "");
    LLVMBuildRetVoid(c->b);

    fn_ctx f = {.fn = body, .alloca_b = LLVMCreateBuilderInContext(c->ctx), .bufs = bufs, .pool = LLVMGetParam(body, (unsigned)nb)};
    for (size_t i = 0; i < nb; i++) {
        bufs[i] = LLVMGetParam(body, (unsigned)i);
        LLVMSetValueName2(bufs[i], c->p->bufs[i]->name, strlen(c->p->bufs[i]->name));
    }
    LLVMSetValueName2(f.pool, "pool", 4);
    LLVMBasicBlockRef allocas = LLVMAppendBasicBlockInContext(c->ctx, body, "");
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(c->ctx, body, "");
    LLVMPositionBuilderAtEnd(c->b, allocas);
    LLVMValueRef jump = LLVMBuildBr(c->b, start);
    LLVMPositionBuilderBefore(f.alloca_b, jump);
    LLVMPositionBuilderAtEnd(c->b, start);
    c->f = &f;
    stmt(c, kn->body);
    LLVMBuildRetVoid(c->b);
    c->f = NULL;
    LLVMDisposeBuilder(f.alloca_b);
done:
    at_free(params);
    at_free(bufs);
    at_free(args);
}

at_status at_llvm_codegen(const at_ir_program *p, LLVMContextRef ctx, LLVMModuleRef *out)
{
    *out = NULL;
    cg c = {.ctx = ctx, .p = p, .lane = -1};
    c.n_ids = p->n_bufs;
    for (size_t k = 0; k < p->n_kernels; k++) c.n_ids += p->kernels[k].n_allocs;
    size_t n_vars = p->n_vars ? p->n_vars : 1;
    c.env = at_calloc(n_vars, sizeof *c.env);
    c.vary = at_calloc(n_vars, sizeof *c.vary);
    c.scope = at_calloc(n_vars, sizeof *c.scope);
    c.by_var = at_calloc(n_vars, sizeof *c.by_var);
    if (!c.env || !c.vary || !c.scope || !c.by_var) {
        at_free(c.by_var);
        at_free(c.env);
        at_free(c.vary);
        at_free(c.scope);
        return AT_OOM();
    }
    c.mod = LLVMModuleCreateWithNameInContext(p->name, ctx);
    c.b = LLVMCreateBuilderInContext(ctx);
    c.ptr = LLVMPointerTypeInContext(ctx, 0);
    c.i1 = LLVMInt1TypeInContext(ctx);
    c.i8 = LLVMInt8TypeInContext(ctx);
    c.i32 = LLVMInt32TypeInContext(ctx);
    c.i64 = LLVMInt64TypeInContext(ctx);
    c.vd = LLVMVoidTypeInContext(ctx);
    for (size_t k = 0; k < p->n_kernels && c.st == AT_OK; k++) kernel(&c, k);
    LLVMDisposeBuilder(c.b);
    at_free(c.env);
    at_free(c.vary);
    at_free(c.scope);
    at_free(c.by_var);
    if (c.st != AT_OK) {
        LLVMDisposeModule(c.mod);
        return c.st;
    }
    *out = c.mod;
    return AT_OK;
}
