/* add / multiply packed (VTA): workload JSON, signature, FLOPs, unscheduled compute and reference.
 * The op is the seeds' tuning template (tune_alu_vta: add_packed / multiply_packed, clip [0, 127]
 * in two stages, cast int8) with VTA's arithmetic: operands widened to int32 accumulator lanes,
 * wrap-around add / multiply, so the reference is exact and the simulator is checked bit for bit. */
#include <stdio.h>
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"

static bool is_alu_op(at_op_kind op)
{
    return op == AT_OP_ADD_PACKED || op == AT_OP_MULTIPLY_PACKED;
}

static int64_t n_elems(const at_alu_packed_args *a)
{
    int64_t n = 1;
    for (size_t i = 0; i < a->ndim; i++) n *= a->lhs[i];
    return n;
}

void at_op_alu_packed_rhs_shape(const at_alu_packed_args *a, int64_t out[AT_ALU_PACKED_MAX_DIMS])
{
    for (size_t i = 0; i < a->ndim; i++) out[i] = a->lhs[i];
    if (a->rhs_alias || a->rhs_ndim == 0 || a->rhs_ndim > a->ndim) return;
    size_t lead = a->ndim - a->rhs_ndim;
    for (size_t i = 0; i < a->ndim; i++) out[i] = i < lead ? 1 : a->rhs[i - lead];
}

static int64_t rhs_elems(const at_alu_packed_args *a)
{
    int64_t r[AT_ALU_PACKED_MAX_DIMS], n = 1;
    at_op_alu_packed_rhs_shape(a, r);
    for (size_t i = 0; i < a->ndim; i++) n *= r[i];
    return n;
}

at_status at_op_alu_packed_check_args(const at_alu_packed_args *a)
{
    char tb[16];
    if (a->ndim < 1 || a->ndim > AT_ALU_PACKED_MAX_DIMS)
        return AT_FAIL(AT_EINVAL, "add/multiply packed: lhs must have 1 to %d dimensions, got %zu",
                       AT_ALU_PACKED_MAX_DIMS, a->ndim);
    int64_t n = 1;
    for (size_t i = 0; i < a->ndim; i++) {
        if (a->lhs[i] < 1 || a->lhs[i] > (1 << 16))
            return AT_FAIL(AT_EINVAL, "add/multiply packed: extents must be in 1..65536, lhs[%zu] = %lld", i,
                           (long long)a->lhs[i]);
        n *= a->lhs[i];
        if (n > (1LL << 31))
            return AT_FAIL(AT_EINVAL, "add/multiply packed: a tensor is too large (at most 2^31 elements)");
    }
    bool ok = at_ir_type_eq(a->dtype, AT_IR_I8) || at_ir_type_eq(a->dtype, AT_IR_I32) || at_ir_type_eq(a->dtype, AT_IR_F32);
    if (!ok)
        return AT_FAIL(AT_EINVAL, "add/multiply packed: dtype %s is not supported (int8, int32, float32)",
                       at_ir_type_str(a->dtype, tb));
    if (!a->rhs_alias && a->rhs_ndim > 0) {
        if (a->rhs_ndim > a->ndim)
            return AT_FAIL(AT_EINVAL, "add/multiply packed: rhs has %zu dimensions, lhs %zu", a->rhs_ndim, a->ndim);
        for (size_t i = 0; i < a->rhs_ndim; i++) {
            int64_t l = a->lhs[a->ndim - a->rhs_ndim + i];
            if (a->rhs[i] != 1 && a->rhs[i] != l)
                return AT_FAIL(AT_EINVAL, "add/multiply packed: rhs[%zu] = %lld broadcasts neither as 1 nor as %lld", i,
                               (long long)a->rhs[i], (long long)l);
        }
    }
    if (!at_ir_type_eq(a->dtype, a->rhs_dtype))
        return AT_FAIL(AT_EINVAL, "add/multiply packed: lhs and rhs dtypes differ (%s and %s)",
                       at_ir_type_str(a->dtype, tb), at_ir_type_str(a->rhs_dtype, (char[16]){0}));
    return AT_OK;
}

bool at_op_alu_packed_on_vta(const at_alu_packed_args *a)
{
    return a->ndim == 6 && !at_ir_type_eq(a->dtype, AT_IR_F32) && !at_ir_type_eq(a->rhs_dtype, AT_IR_F32);
}

size_t at_op_alu_packed_tensors(const at_alu_packed_args *a, at_tensor_desc *out)
{
    int64_t n = n_elems(a);
    out[0] = (at_tensor_desc){.name = "lhs", .dtype = a->dtype, .ndim = a->ndim, .n_elems = n};
    out[1] = (at_tensor_desc){.name = "rhs", .dtype = a->rhs_dtype, .ndim = a->ndim, .n_elems = n};
    out[2] = (at_tensor_desc){.name = "res", .dtype = AT_IR_I8, .ndim = a->ndim, .n_elems = n, .is_output = true};
    for (int i = 0; i < 3; i++) memcpy(out[i].shape, a->lhs, a->ndim * sizeof a->lhs[0]);
    if (!a->rhs_alias && a->rhs_ndim > 0) {
        out[1].ndim = a->rhs_ndim;
        memcpy(out[1].shape, a->rhs, a->rhs_ndim * sizeof a->rhs[0]);
        out[1].n_elems = rhs_elems(a);
    }
    return 3;
}

/* ---- workload JSON --------------------------------------------------------------------------- */

void at_op_alu_packed_args_write_json(const at_alu_packed_args *a, at_strbuf *sb)
{
    at_tmpl_write_tensor(sb, a->lhs, a->ndim, a->dtype);
    at_strbuf_puts(sb, ", ");
    if (a->rhs_alias)
        at_tmpl_write_tensor(sb, a->lhs, 0, a->rhs_dtype);
    else if (a->rhs_ndim > 0)
        at_tmpl_write_tensor(sb, a->rhs, a->rhs_ndim, a->rhs_dtype);
    else
        at_tmpl_write_tensor(sb, a->lhs, a->ndim, a->rhs_dtype);
}

static at_status json_tensor(const cJSON *item, const char *what, int64_t *shape, size_t *ndim, at_ir_type *dtype)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3 || !cJSON_IsString(cJSON_GetArrayItem(item, 0)) ||
        strcmp(cJSON_GetArrayItem(item, 0)->valuestring, "TENSOR") != 0 ||
        !cJSON_IsArray(cJSON_GetArrayItem(item, 1)) || !cJSON_IsString(cJSON_GetArrayItem(item, 2)))
        return AT_FAIL(AT_EPARSE, "%s: expected [\"TENSOR\", shape, dtype]", what);
    const cJSON *sh = cJSON_GetArrayItem(item, 1);
    int n = cJSON_GetArraySize(sh);
    if (n > AT_ALU_PACKED_MAX_DIMS)
        return AT_FAIL(AT_EPARSE, "%s: at most %d dimensions, got %d", what, AT_ALU_PACKED_MAX_DIMS, n);
    for (int i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetArrayItem(sh, i);
        if (!cJSON_IsNumber(v) || !at_json_number_is_int(v))
            return AT_FAIL(AT_EPARSE, "%s: the shape must be a list of integers", what);
        AT_TRY(at_json_get_int64(v, &shape[i]));
    }
    *ndim = (size_t)n;
    return at_ir_type_parse(cJSON_GetArrayItem(item, 2)->valuestring, dtype);
}

at_status at_op_alu_packed_args_from_json(const cJSON *array, at_alu_packed_args *out)
{
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != 2)
        return AT_FAIL(AT_EPARSE, "add/multiply packed arguments: expected [lhs, rhs]");
    at_alu_packed_args a;
    memset(&a, 0, sizeof a);
    int64_t rshape[AT_ALU_PACKED_MAX_DIMS];
    size_t rn = 0;
    AT_TRY(json_tensor(cJSON_GetArrayItem(array, 0), "argument 0 (lhs)", a.lhs, &a.ndim, &a.dtype));
    AT_TRY(json_tensor(cJSON_GetArrayItem(array, 1), "argument 1 (rhs)", rshape, &rn, &a.rhs_dtype));
    if (rn == 0 && a.ndim > 0) {
        a.rhs_alias = true;
    } else if (rn != a.ndim || memcmp(rshape, a.lhs, rn * sizeof rshape[0]) != 0) {
        memcpy(a.rhs, rshape, rn * sizeof rshape[0]); /* broadcasting: at_op_alu_packed_check_args decides */
        a.rhs_ndim = rn;
    }
    *out = a;
    return AT_OK;
}

/* N,C,H,W[,dtype]: C a multiple of 16, packed as (N, C/16, H, W, 1, 16); int32 when no dtype;
 * rhs = lhs. */
static at_status parse_list(const char *text, at_args *out)
{
    int64_t v[16];
    size_t n;
    const char *dtype;
    AT_TRY(at_tmpl_parse_list(text, 16, v, &n, &dtype));
    if (n != 4)
        return AT_FAIL(AT_EPARSE, "add/multiply packed arguments: expected N,C,H,W[,dtype] or a JSON array, got '%s'",
                       text);
    if (v[1] % 16 || v[1] < 16)
        return AT_FAIL(AT_EINVAL, "add/multiply packed: C must be a multiple of 16, got %lld", (long long)v[1]);
    at_alu_packed_args a = {.lhs = {v[0], v[1] / 16, v[2], v[3], 1, 16}, .ndim = 6, .dtype = AT_IR_I32};
    if (dtype) AT_TRY(at_ir_type_parse(dtype, &a.dtype));
    a.rhs_dtype = a.dtype;
    out->u.alu_packed = a;
    return AT_OK;
}

double at_op_alu_packed_flop(const at_alu_packed_args *a)
{
    return 3.0 * (double)n_elems(a);
}

/* ---- compute and reference ------------------------------------------------------------------- */

void at_op_alu_packed_compute(at_op_kind op, const at_alu_packed_args *a, at_ir_sched *s)
{
    AT_ASSERT(is_alu_op(op));
    int64_t n = n_elems(a), rs[AT_ALU_PACKED_MAX_DIMS];
    at_op_alu_packed_rhs_shape(a, rs);
    bool fl = at_ir_type_eq(a->dtype, AT_IR_F32);
    at_ir_type wide = fl ? AT_IR_F32 : AT_IR_I32;
    const at_ir_buffer *L = at_ir_param(s, "lhs", a->dtype, n, AT_IR_INPUT);
    const at_ir_buffer *R = at_ir_param(s, "rhs", a->rhs_dtype, rhs_elems(a), AT_IR_INPUT);
    const at_ir_buffer *O = at_ir_param(s, "res", AT_IR_I8, n, AT_IR_OUTPUT);
    static const char *const names[AT_ALU_PACKED_MAX_DIMS] = {"ax0", "ax1", "ax2", "ax3", "ax4", "ax5"};
    at_tmpl_loop l[AT_ALU_PACKED_MAX_DIMS];
    const at_ir_expr *li[AT_ALU_PACKED_MAX_DIMS], *ri[AT_ALU_PACKED_MAX_DIMS];
    for (size_t d = 0; d < a->ndim; d++) {
        l[d] = at_tmpl_loop_new(s, names[d], a->lhs[d], AT_IR_SERIAL);
        li[d] = at_ir_v(s, l[d].var);
        ri[d] = rs[d] == 1 ? at_tmpl_i(s, 0) : li[d]; /* topi's broadcast: index 0 on a unit dimension */
    }
    const at_ir_expr *i = at_tmpl_index(s, li, a->lhs, a->ndim);
    const at_ir_expr *x = at_tmpl_cast(s, wide, at_ir_load(s, L, i, 1));
    const at_ir_expr *y = at_tmpl_cast(s, wide, at_ir_load(s, R, at_tmpl_index(s, ri, rs, a->ndim), 1));
    const at_ir_expr *v = op == AT_OP_ADD_PACKED ? at_ir_add(s, x, y) : at_ir_mul(s, x, y);
    const at_ir_expr *hi = fl ? at_tmpl_f(s, AT_IR_F32, AT_ALU_PACKED_CLIP_HI) : at_tmpl_i(s, AT_ALU_PACKED_CLIP_HI);
    const at_ir_expr *lo = fl ? at_tmpl_f(s, AT_IR_F32, AT_ALU_PACKED_CLIP_LO) : at_tmpl_i(s, AT_ALU_PACKED_CLIP_LO);
    v = at_ir_max(s, at_ir_min(s, v, hi), lo);
    const at_ir_stmt *body = at_ir_store(s, O, i, at_ir_cast(s, AT_IR_I8, v));
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, l, a->ndim, body));
}

/* The rhs element that lhs element i reads. */
static int64_t rhs_index(const at_alu_packed_args *a, const int64_t *rstride, int64_t i)
{
    int64_t k = 0;
    for (size_t d = a->ndim; d-- > 0;) {
        k += i % a->lhs[d] * rstride[d];
        i /= a->lhs[d];
    }
    return k;
}

static int32_t clip_i32(int32_t v)
{
    if (v > AT_ALU_PACKED_CLIP_HI) v = AT_ALU_PACKED_CLIP_HI;
    if (v < AT_ALU_PACKED_CLIP_LO) v = AT_ALU_PACKED_CLIP_LO;
    return v;
}

void at_op_alu_packed_ref(at_op_kind op, const at_alu_packed_args *a, const void *lhs, const void *rhs, void *out)
{
    AT_ASSERT(is_alu_op(op));
    int64_t n = n_elems(a);
    int8_t *r = out;
    bool add = op == AT_OP_ADD_PACKED;
    /* rhs element of each lhs element: row-major strides of rhs, 0 on a broadcast dimension */
    int64_t rs[AT_ALU_PACKED_MAX_DIMS], rstride[AT_ALU_PACKED_MAX_DIMS], step = 1;
    at_op_alu_packed_rhs_shape(a, rs);
    for (size_t d = a->ndim; d-- > 0;) {
        rstride[d] = rs[d] == 1 ? 0 : step;
        step *= rs[d];
    }
    if (at_ir_type_eq(a->dtype, AT_IR_F32)) {
        const float *x = lhs, *y = rhs;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = rhs_index(a, rstride, i);
            float v = add ? x[i] + y[k] : x[i] * y[k];
            v = v < (float)AT_ALU_PACKED_CLIP_HI ? v : (float)AT_ALU_PACKED_CLIP_HI;
            v = v > (float)AT_ALU_PACKED_CLIP_LO ? v : (float)AT_ALU_PACKED_CLIP_LO;
            r[i] = (int8_t)v;
        }
        return;
    }
    bool i8 = at_ir_type_eq(a->dtype, AT_IR_I8);
    for (int64_t i = 0; i < n; i++) {
        /* accumulator lanes: int8 sign-extended (ACC_8BIT), int32 as is; wrap-around op */
        uint32_t x = i8 ? (uint32_t)(int32_t)((const int8_t *)lhs)[i] : (uint32_t)((const int32_t *)lhs)[i];
        int64_t k = rhs_index(a, rstride, i);
        uint32_t y = i8 ? (uint32_t)(int32_t)((const int8_t *)rhs)[k] : (uint32_t)((const int32_t *)rhs)[k];
        r[i] = (int8_t)clip_i32((int32_t)(add ? x + y : x * y));
    }
}

/* ---- the op-kind rows ------------------------------------------------------------------------ */

AT_OP_FORWARD_(alu_packed)

static void compute(const at_args *a, at_ir_sched *s)
{
    at_op_alu_packed_compute(a->op, &a->u.alu_packed, s);
}

static void reference(const at_args *a, const void *const *inputs, void *const *outputs)
{
    at_op_alu_packed_ref(a->op, &a->u.alu_packed, inputs[0], inputs[1], outputs[0]);
}

static at_op_tolerance tolerance(const at_args *a)
{
    (void)a;
    return (at_op_tolerance){0, 0}; /* int8: exact */
}

static const char *const tiny[] = {"1,32,4,6", "1,32,4,6,int8", NULL};
static const char *const typical[] = {"1,64,56,56", "1,128,28,28,int8", NULL};

#define ALU_ROW_(kind_name) AT_OP_ROW_(kind_name, "N,C,H,W[,dtype]"), .tiny = tiny, .typical = typical

const at_op_def at_op_add_packed = {ALU_ROW_("add_packed")};
const at_op_def at_op_multiply_packed = {ALU_ROW_("multiply_packed")};
