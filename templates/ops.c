/* Operator kinds: argument (de)serialization, signatures, FLOPs, unscheduled compute and naive
 * references. References are deliberately the plainest loop nests (the oracle must be obviously
 * right); floating-point sums accumulate in double. */
#include "templates/ops.h"

#include <stdlib.h>
#include <string.h>

#include "templates/internal.h"

const char *at_op_name(at_op_kind op)
{
    static const char *const names[AT_OP_COUNT] = {
        [AT_OP_MATMUL] = "matmul", [AT_OP_CONV2D_NCHW] = "conv2d_nchw",
        [AT_OP_CONV2D_NCHW_WINOGRAD] = "conv2d_nchw_winograd",
        [AT_OP_DEPTHWISE_CONV2D_NCHW] = "depthwise_conv2d_nchw", [AT_OP_DENSE] = "dense",
        [AT_OP_CONV2D_PACKED] = "conv2d_packed", [AT_OP_ADD_PACKED] = "add_packed",
        [AT_OP_MULTIPLY_PACKED] = "multiply_packed"};
    AT_ASSERT((unsigned)op < AT_OP_COUNT);
    return names[op];
}

static bool dtype_supported(at_ir_type t)
{
    return at_ir_type_eq(t, AT_IR_F32) || at_ir_type_eq(t, AT_IR_F64) || at_ir_type_eq(t, AT_IR_I32);
}

at_status at_op_check_args(const at_args *a)
{
    char tb[16];
    switch (a->op) {
    case AT_OP_MATMUL: {
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
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW: return at_op_conv2d_check_args(a->op, &a->u.conv2d);
    case AT_OP_DENSE: return at_op_dense_check_args(&a->u.dense);
    case AT_OP_CONV2D_PACKED: return at_op_conv2d_packed_check_args(&a->u.conv2d_packed);
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED: return at_op_alu_packed_check_args(&a->u.alu_packed);
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
    return AT_OK;
}

size_t at_op_tensors(const at_args *a, at_tensor_desc *out)
{
    switch (a->op) {
    case AT_OP_MATMUL: {
        const at_matmul_args *m = &a->u.matmul;
        out[0] = (at_tensor_desc){.name = "A", .dtype = m->dtype, .ndim = 2, .shape = {m->n, m->l}, .n_elems = m->n * m->l};
        out[1] = (at_tensor_desc){.name = "B", .dtype = m->dtype, .ndim = 2, .shape = {m->l, m->m}, .n_elems = m->l * m->m};
        out[2] = (at_tensor_desc){.name = "C", .dtype = m->dtype, .ndim = 2, .shape = {m->n, m->m}, .n_elems = m->n * m->m,
                                  .is_output = true};
        return 3;
    }
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW: return at_op_conv2d_tensors(a->op, &a->u.conv2d, out);
    case AT_OP_DENSE: return at_op_dense_tensors(&a->u.dense, out);
    case AT_OP_CONV2D_PACKED: return at_op_conv2d_packed_tensors(&a->u.conv2d_packed, out);
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED: return at_op_alu_packed_tensors(&a->u.alu_packed, out);
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
    return 0;
}

void at_tmpl_write_ints(at_strbuf *sb, const int64_t *v, size_t n)
{
    at_strbuf_putc(sb, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) at_strbuf_puts(sb, ", ");
        at_json_write_int(sb, v[i]);
    }
    at_strbuf_putc(sb, ']');
}

void at_tmpl_write_tensor(at_strbuf *sb, const int64_t *shape, size_t n, at_ir_type t)
{
    char tb[16];
    at_strbuf_puts(sb, "[\"TENSOR\", ");
    at_tmpl_write_ints(sb, shape, n);
    at_strbuf_puts(sb, ", ");
    at_json_write_string(sb, at_ir_type_str(t, tb));
    at_strbuf_putc(sb, ']');
}

void at_op_args_write_json(const at_args *a, at_strbuf *sb)
{
    char tb[16];
    switch (a->op) {
    case AT_OP_MATMUL:
        at_strbuf_printf(sb, "%lld, %lld, %lld, ", (long long)a->u.matmul.n, (long long)a->u.matmul.l,
                         (long long)a->u.matmul.m);
        at_json_write_string(sb, at_ir_type_str(a->u.matmul.dtype, tb));
        return;
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW: at_op_conv2d_args_write_json(&a->u.conv2d, sb); return;
    case AT_OP_DENSE: at_op_dense_args_write_json(&a->u.dense, sb); return;
    case AT_OP_CONV2D_PACKED: at_op_conv2d_packed_args_write_json(&a->u.conv2d_packed, sb); return;
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED: at_op_alu_packed_args_write_json(&a->u.alu_packed, sb); return;
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
}

static at_status json_extent(const cJSON *item, size_t i, int64_t *out)
{
    if (!item || !cJSON_IsNumber(item) || !at_json_number_is_int(item))
        return AT_FAIL(AT_EPARSE, "argument %zu: expected an integer", i);
    return at_json_get_int64(item, out);
}

at_status at_op_args_from_json(at_op_kind op, const cJSON *array, at_args *out)
{
    AT_ASSERT((unsigned)op < AT_OP_COUNT);
    if (!cJSON_IsArray(array)) return AT_FAIL(AT_EPARSE, "%s arguments: expected a JSON array", at_op_name(op));
    at_args a = {.op = op};
    int n = cJSON_GetArraySize(array);
    switch (op) {
    case AT_OP_MATMUL: {
        if (n != 4) return AT_FAIL(AT_EPARSE, "matmul arguments: expected [N, L, M, dtype], got %d values", n);
        AT_TRY(json_extent(cJSON_GetArrayItem(array, 0), 0, &a.u.matmul.n));
        AT_TRY(json_extent(cJSON_GetArrayItem(array, 1), 1, &a.u.matmul.l));
        AT_TRY(json_extent(cJSON_GetArrayItem(array, 2), 2, &a.u.matmul.m));
        const cJSON *dt = cJSON_GetArrayItem(array, 3);
        if (!cJSON_IsString(dt)) return AT_FAIL(AT_EPARSE, "argument 3: expected a dtype string");
        AT_TRY(at_ir_type_parse(dt->valuestring, &a.u.matmul.dtype));
        break;
    }
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW: AT_TRY(at_op_conv2d_args_from_json(op, array, &a.u.conv2d)); break;
    case AT_OP_DENSE: AT_TRY(at_op_dense_args_from_json(array, &a.u.dense)); break;
    case AT_OP_CONV2D_PACKED: AT_TRY(at_op_conv2d_packed_args_from_json(array, &a.u.conv2d_packed)); break;
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED: AT_TRY(at_op_alu_packed_args_from_json(array, &a.u.alu_packed)); break;
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
    AT_TRY(at_op_check_args(&a));
    *out = a;
    return AT_OK;
}

at_status at_op_args_parse(at_op_kind op, const char *text, at_args *out)
{
    AT_ASSERT((unsigned)op < AT_OP_COUNT);
    if (op != AT_OP_MATMUL) { /* the other kinds have their own comma forms */
        at_args a = {.op = op};
        if (op == AT_OP_DENSE)
            AT_TRY(at_op_dense_args_parse(text, &a.u.dense));
        else if (op == AT_OP_CONV2D_PACKED)
            AT_TRY(at_op_conv2d_packed_args_parse(text, &a.u.conv2d_packed));
        else if (op == AT_OP_ADD_PACKED || op == AT_OP_MULTIPLY_PACKED)
            AT_TRY(at_op_alu_packed_args_parse(text, &a.u.alu_packed));
        else
            AT_TRY(at_op_conv2d_args_parse(op, text, &a.u.conv2d));
        *out = a;
        return AT_OK;
    }
    const char *p = text;
    while (*p == ' ') p++;
    if (*p == '[') {
        cJSON *j = NULL;
        AT_TRY(at_json_parse(text, strlen(text), &j));
        at_status st = at_op_args_from_json(op, j, out);
        at_json_free(j);
        return st;
    }
    /* comma list: integers, then an optional dtype */
    at_args a = {.op = op};
    int64_t ints[8];
    size_t n_ints = 0;
    const char *dtype = NULL;
    char tok[32];
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof tok) return AT_FAIL(AT_EPARSE, "bad argument list '%s'", text);
        memcpy(tok, p, len);
        tok[len] = '\0';
        char *end = NULL;
        long long v = strtoll(tok, &end, 10);
        if (*end == '\0' && !dtype) {
            if (n_ints == 8) return AT_FAIL(AT_EPARSE, "bad argument list '%s': too many values", text);
            ints[n_ints++] = v;
        } else if (!dtype) {
            dtype = p;
            if (p[len] != '\0') return AT_FAIL(AT_EPARSE, "bad argument list '%s': the dtype must come last", text);
        }
        p += len;
        if (*p == ',') p++;
    }
    switch (op) {
    case AT_OP_MATMUL:
        if (n_ints != 3) return AT_FAIL(AT_EPARSE, "matmul arguments: expected N,L,M[,dtype], got '%s'", text);
        a.u.matmul.n = ints[0];
        a.u.matmul.l = ints[1];
        a.u.matmul.m = ints[2];
        a.u.matmul.dtype = AT_IR_F32;
        if (dtype) AT_TRY(at_ir_type_parse(dtype, &a.u.matmul.dtype));
        break;
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW:
    case AT_OP_DENSE:
    case AT_OP_CONV2D_PACKED:
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED:
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
    AT_TRY(at_op_check_args(&a));
    *out = a;
    return AT_OK;
}

double at_op_flop(const at_args *a)
{
    switch (a->op) {
    case AT_OP_MATMUL: return 2.0 * (double)a->u.matmul.n * (double)a->u.matmul.l * (double)a->u.matmul.m;
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW: return at_op_conv2d_flop(a->op, &a->u.conv2d);
    case AT_OP_DENSE: return at_op_dense_flop(&a->u.dense);
    case AT_OP_CONV2D_PACKED: return at_op_conv2d_packed_flop(&a->u.conv2d_packed);
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED: return at_op_alu_packed_flop(&a->u.alu_packed);
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
    return 0;
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

void at_op_compute(const at_args *a, at_ir_sched *s)
{
    switch (a->op) {
    case AT_OP_MATMUL: at_op_matmul_compute(&a->u.matmul, s); return;
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW: at_op_conv2d_compute(a->op, &a->u.conv2d, s); return;
    case AT_OP_DENSE: at_op_dense_compute(&a->u.dense, s); return;
    case AT_OP_CONV2D_PACKED: at_op_conv2d_packed_compute(&a->u.conv2d_packed, s); return;
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED: at_op_alu_packed_compute(a->op, &a->u.alu_packed, s); return;
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
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

void at_op_reference(const at_args *a, const void *const *inputs, void *const *outputs)
{
    switch (a->op) {
    case AT_OP_MATMUL: at_op_matmul_ref(&a->u.matmul, inputs[0], inputs[1], outputs[0]); return;
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW: at_op_conv2d_ref(a->op, &a->u.conv2d, inputs[0], inputs[1], outputs[0]); return;
    case AT_OP_DENSE:
        at_op_dense_ref(&a->u.dense, inputs[0], inputs[1], a->u.dense.has_bias ? inputs[2] : NULL, outputs[0]);
        return;
    case AT_OP_CONV2D_PACKED:
        at_op_conv2d_packed_ref(&a->u.conv2d_packed, inputs[0], inputs[1], outputs[0]);
        return;
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED: at_op_alu_packed_ref(a->op, &a->u.alu_packed, inputs[0], inputs[1], outputs[0]); return;
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
}

at_op_tolerance at_op_tolerance_of(const at_args *a)
{
    switch (a->op) {
    case AT_OP_MATMUL: {
        at_ir_type t = a->u.matmul.dtype;
        if (!at_ir_type_is_float(t)) return (at_op_tolerance){0, 0};
        /* a device sums in its own order and precision; the tutorial checks with rtol=1e-4 */
        double eps = t.bits == 64 ? 1e-12 : 1e-4;
        return (at_op_tolerance){.atol = eps, .rtol = eps};
    }
    case AT_OP_CONV2D_NCHW:
    case AT_OP_CONV2D_NCHW_WINOGRAD:
    case AT_OP_DEPTHWISE_CONV2D_NCHW: return at_op_conv2d_tolerance(a->op, &a->u.conv2d);
    case AT_OP_DENSE: return at_op_dense_tolerance(&a->u.dense);
    case AT_OP_CONV2D_PACKED:
    case AT_OP_ADD_PACKED:
    case AT_OP_MULTIPLY_PACKED: return (at_op_tolerance){0, 0}; /* int8: exact */
    case AT_OP_COUNT:
    default: AT_ASSERT(!"bad op kind");
    }
    return (at_op_tolerance){0, 0};
}
