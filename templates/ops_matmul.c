/* matmul: the tutorial's testing/matmul op, C[n, m] = sum_k A[n, k] * B[k, m], workload
 * (N, L, M, dtype). The reference is the plainest loop nest; float sums accumulate in double,
 * int32 wraps as the device's arithmetic does. */
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"

static bool dtype_supported(at_ir_type t)
{
    return at_ir_type_eq(t, AT_IR_F32) || at_ir_type_eq(t, AT_IR_F64) || at_ir_type_eq(t, AT_IR_I32);
}

static at_status check_args(const at_args *a)
{
    char tb[16];
    const at_matmul_args *m = &a->u.matmul;
    if (m->n < 1 || m->l < 1 || m->m < 1)
        return AT_FAIL(AT_EINVAL, "matmul extents must be >= 1, got N=%lld L=%lld M=%lld", (long long)m->n,
                       (long long)m->l, (long long)m->m);
    if (m->n > (1LL << 20) || m->l > (1LL << 20) || m->m > (1LL << 20) || m->n * m->l > (1LL << 31) ||
        m->l * m->m > (1LL << 31) || m->n * m->m > (1LL << 31))
        return AT_FAIL(AT_EINVAL, "matmul N=%lld L=%lld M=%lld is too large (at most 2^31 elements per tensor)",
                       (long long)m->n, (long long)m->l, (long long)m->m);
    if (!dtype_supported(m->dtype))
        return AT_FAIL(AT_EINVAL, "matmul dtype %s is not supported (float32, float64, int32)",
                       at_ir_type_str(m->dtype, tb));
    return AT_OK;
}

static size_t tensors(const at_args *a, at_tensor_desc *out)
{
    const at_matmul_args *m = &a->u.matmul;
    out[0] = (at_tensor_desc){.name = "A", .dtype = m->dtype, .ndim = 2, .shape = {m->n, m->l}, .n_elems = m->n * m->l};
    out[1] = (at_tensor_desc){.name = "B", .dtype = m->dtype, .ndim = 2, .shape = {m->l, m->m}, .n_elems = m->l * m->m};
    out[2] = (at_tensor_desc){.name = "C", .dtype = m->dtype, .ndim = 2, .shape = {m->n, m->m}, .n_elems = m->n * m->m,
                              .is_output = true};
    return 3;
}

static void write_json(const at_args *a, at_strbuf *sb)
{
    char tb[16];
    at_strbuf_printf(sb, "%lld, %lld, %lld, ", (long long)a->u.matmul.n, (long long)a->u.matmul.l,
                     (long long)a->u.matmul.m);
    at_json_write_string(sb, at_ir_type_str(a->u.matmul.dtype, tb));
}

static at_status read_json(const cJSON *array, at_args *a)
{
    int n = cJSON_GetArraySize(array);
    if (n != 4) return AT_FAIL(AT_EPARSE, "matmul arguments: expected [N, L, M, dtype], got %d values", n);
    AT_TRY(at_tmpl_json_int(cJSON_GetArrayItem(array, 0), "argument 0", &a->u.matmul.n));
    AT_TRY(at_tmpl_json_int(cJSON_GetArrayItem(array, 1), "argument 1", &a->u.matmul.l));
    AT_TRY(at_tmpl_json_int(cJSON_GetArrayItem(array, 2), "argument 2", &a->u.matmul.m));
    const cJSON *dt = cJSON_GetArrayItem(array, 3);
    if (!cJSON_IsString(dt)) return AT_FAIL(AT_EPARSE, "argument 3: expected a dtype string");
    return at_ir_type_parse(dt->valuestring, &a->u.matmul.dtype);
}

static at_status parse_list(const char *text, at_args *a)
{
    int64_t v[8];
    size_t n;
    const char *dtype;
    AT_TRY(at_tmpl_parse_list(text, 8, v, &n, &dtype));
    if (n != 3) return AT_FAIL(AT_EPARSE, "matmul arguments: expected N,L,M[,dtype], got '%s'", text);
    a->u.matmul.n = v[0];
    a->u.matmul.l = v[1];
    a->u.matmul.m = v[2];
    a->u.matmul.dtype = AT_IR_F32;
    if (dtype) AT_TRY(at_ir_type_parse(dtype, &a->u.matmul.dtype));
    return AT_OK;
}

static double flop(const at_args *a)
{
    return 2.0 * (double)a->u.matmul.n * (double)a->u.matmul.l * (double)a->u.matmul.m;
}

void at_op_matmul_compute(const at_matmul_args *a, at_ir_sched *s)
{
    const at_ir_buffer *A = at_ir_param(s, "A", a->dtype, a->n * a->l, AT_IR_INPUT);
    const at_ir_buffer *B = at_ir_param(s, "B", a->dtype, a->l * a->m, AT_IR_INPUT);
    const at_ir_buffer *C = at_ir_param(s, "C", a->dtype, a->n * a->m, AT_IR_OUTPUT);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32), *j = at_ir_var_new(s, "j", AT_IR_I32),
                    *k = at_ir_var_new(s, "k", AT_IR_I32);
    const at_ir_expr *c_idx = at_ir_add(s, at_ir_mul(s, at_ir_v(s, i), at_ir_i32(s, a->m)), at_ir_v(s, j));
    const at_ir_expr *zero = at_ir_type_is_float(a->dtype) ? at_ir_float(s, a->dtype, 0) : at_ir_int(s, a->dtype, 0);
    const at_ir_expr *prod = at_ir_mul(s, at_ir_load(s, A, at_ir_add(s, at_ir_mul(s, at_ir_v(s, i), at_ir_i32(s, a->l)), at_ir_v(s, k)), 1),
                                       at_ir_load(s, B, at_ir_add(s, at_ir_mul(s, at_ir_v(s, k), at_ir_i32(s, a->m)), at_ir_v(s, j)), 1));
    const at_ir_stmt *update = at_ir_store(s, C, c_idx, at_ir_add(s, at_ir_load(s, C, c_idx, 1), prod));
    const at_ir_stmt *body = at_ir_seq2(s, at_ir_store(s, C, c_idx, zero), at_ir_for(s, k, a->l, AT_IR_SERIAL, update));
    body = at_ir_for(s, i, a->n, AT_IR_SERIAL, at_ir_for(s, j, a->m, AT_IR_SERIAL, body));
    at_ir_add_kernel(s, "default_function_kernel", body);
}

static void compute(const at_args *a, at_ir_sched *s)
{
    at_op_matmul_compute(&a->u.matmul, s);
}

void at_op_matmul_ref(const at_matmul_args *a, const void *A, const void *B, void *C)
{
    int64_t n = a->n, l = a->l, m = a->m;
    if (at_ir_type_eq(a->dtype, AT_IR_F32)) {
        const float *x = A, *y = B;
        float *z = C;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < m; j++) {
                double acc = 0;
                for (int64_t k = 0; k < l; k++) acc += (double)x[i * l + k] * (double)y[k * m + j];
                z[i * m + j] = (float)acc;
            }
    } else if (at_ir_type_eq(a->dtype, AT_IR_F64)) {
        const double *x = A, *y = B;
        double *z = C;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < m; j++) {
                double acc = 0;
                for (int64_t k = 0; k < l; k++) acc += x[i * l + k] * y[k * m + j];
                z[i * m + j] = acc;
            }
    } else {
        AT_ASSERT(at_ir_type_eq(a->dtype, AT_IR_I32));
        const int32_t *x = A, *y = B;
        int32_t *z = C;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < m; j++) {
                uint32_t acc = 0; /* wraps as the device's int32 arithmetic does */
                for (int64_t k = 0; k < l; k++) acc += (uint32_t)x[i * l + k] * (uint32_t)y[k * m + j];
                z[i * m + j] = (int32_t)acc;
            }
    }
}

static void reference(const at_args *a, const void *const *inputs, void *const *outputs)
{
    at_op_matmul_ref(&a->u.matmul, inputs[0], inputs[1], outputs[0]);
}

static at_op_tolerance tolerance(const at_args *a)
{
    at_ir_type t = a->u.matmul.dtype;
    if (!at_ir_type_is_float(t)) return (at_op_tolerance){0, 0};
    /* a device sums in its own order and precision; the tutorial checks with rtol=1e-4 */
    double eps = t.bits == 64 ? 1e-12 : 1e-4;
    return (at_op_tolerance){.atol = eps, .rtol = eps};
}

static const char *const tiny[] = {"16,8,12", "16,8,12,int32", "16,24,20", "8,8,8", NULL};
static const char *const typical[] = {"64,64,64", "48,32,80", NULL};

const at_op_def at_op_matmul = {
    AT_OP_ROW_("matmul", "N,L,M[,dtype]"),
    .tiny = tiny,
    .typical = typical,
};
