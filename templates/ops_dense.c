/* The dense op kind: topi's nn.dense, out[m, n] = sum_k data[m, k] weight[n, k] (+ bias[n]), with
 * TVM's workload tuple (data, weight, bias, out_dtype). TVM v0.18 passes bias null; TopHub's Mali
 * pack was tuned with a bias tensor and a null out_dtype, and both forms are read and written back
 * as they came. FLOPs as compute_flop: 2 per multiply-add, 1 per bias add. */
#include <stdlib.h>
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"

static bool is_float(at_ir_type t)
{
    return t.code == AT_IR_TFLOAT && t.lanes == 1 && (t.bits == 16 || t.bits == 32 || t.bits == 64);
}

at_status at_op_dense_check_args(const at_dense_args *a)
{
    if (a->m < 1 || a->n < 1 || a->k < 1 || a->m > (1LL << 24) || a->n > (1LL << 24) || a->k > (1LL << 24))
        return AT_FAIL(AT_EINVAL, "dense: extents must be in 1 .. 2^24, got M=%lld N=%lld K=%lld", (long long)a->m,
                       (long long)a->n, (long long)a->k);
    if ((double)a->m * a->k > (double)(1LL << 31) - 1 || (double)a->n * a->k > (double)(1LL << 31) - 1 ||
        (double)a->m * a->n > (double)(1LL << 31) - 1)
        return AT_FAIL(AT_EINVAL, "dense: a tensor of more than 2^31 elements");
    if (!is_float(a->dtype) || !is_float(a->weight_dtype) || !is_float(a->out_dtype) ||
        (a->has_bias && !is_float(a->bias_dtype)))
        return AT_FAIL(AT_EINVAL, "dense: dtypes must be float16, float32 or float64");
    return AT_OK;
}

size_t at_op_dense_tensors(const at_dense_args *a, at_tensor_desc *out)
{
    size_t n = 0;
    out[n++] = (at_tensor_desc){.name = "data", .dtype = a->dtype, .ndim = 2, .shape = {a->m, a->k}, .n_elems = a->m * a->k};
    out[n++] = (at_tensor_desc){.name = "weight", .dtype = a->weight_dtype, .ndim = 2, .shape = {a->n, a->k},
                                .n_elems = a->n * a->k};
    if (a->has_bias)
        out[n++] = (at_tensor_desc){.name = "bias", .dtype = a->bias_dtype, .ndim = 1, .shape = {a->n}, .n_elems = a->n};
    out[n++] = (at_tensor_desc){.name = "output", .dtype = a->out_dtype, .ndim = 2, .shape = {a->m, a->n},
                                .n_elems = a->m * a->n, .is_output = true};
    return n;
}

void at_op_dense_args_write_json(const at_dense_args *a, at_strbuf *sb)
{
    char tb[16];
    const int64_t ds[2] = {a->m, a->k}, ws[2] = {a->n, a->k};
    at_tmpl_write_tensor(sb, ds, 2, a->dtype);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_tensor(sb, ws, 2, a->weight_dtype);
    at_strbuf_puts(sb, ", ");
    if (a->has_bias)
        at_tmpl_write_tensor(sb, &a->n, 1, a->bias_dtype);
    else
        at_strbuf_puts(sb, "null");
    at_strbuf_puts(sb, ", ");
    if (a->out_dtype_null)
        at_strbuf_puts(sb, "null");
    else
        at_json_write_string(sb, at_ir_type_str(a->out_dtype, tb));
}

static at_status json_tensor(const cJSON *item, const char *what, size_t rank, int64_t *shape, at_ir_type *dtype)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3 || !cJSON_IsString(cJSON_GetArrayItem(item, 0)) ||
        strcmp(cJSON_GetArrayItem(item, 0)->valuestring, "TENSOR") != 0)
        return AT_FAIL(AT_EPARSE, "%s: expected [\"TENSOR\", shape, dtype]", what);
    const cJSON *sh = cJSON_GetArrayItem(item, 1);
    if (!cJSON_IsArray(sh) || (size_t)cJSON_GetArraySize(sh) != rank)
        return AT_FAIL(AT_EPARSE, "%s: expected a shape of %zu values", what, rank);
    for (size_t i = 0; i < rank; i++) {
        const cJSON *d = cJSON_GetArrayItem(sh, (int)i);
        if (!cJSON_IsNumber(d) || !at_json_number_is_int(d)) return AT_FAIL(AT_EPARSE, "%s: expected an integer", what);
        AT_TRY(at_json_get_int64(d, &shape[i]));
    }
    const cJSON *dt = cJSON_GetArrayItem(item, 2);
    if (!cJSON_IsString(dt)) return AT_FAIL(AT_EPARSE, "%s: expected a dtype string", what);
    return at_ir_type_parse(dt->valuestring, dtype);
}

at_status at_op_dense_args_from_json(const cJSON *array, at_dense_args *out)
{
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != 4)
        return AT_FAIL(AT_EPARSE, "dense arguments: expected [data, weight, bias, out_dtype]");
    at_dense_args a;
    memset(&a, 0, sizeof a);
    int64_t ds[2], ws[2], bs[1];
    AT_TRY(json_tensor(cJSON_GetArrayItem(array, 0), "argument 0 (data)", 2, ds, &a.dtype));
    AT_TRY(json_tensor(cJSON_GetArrayItem(array, 1), "argument 1 (weight)", 2, ws, &a.weight_dtype));
    if (ds[1] != ws[1])
        return AT_FAIL(AT_EINVAL, "dense: data has %lld columns, weight %lld", (long long)ds[1], (long long)ws[1]);
    a.m = ds[0];
    a.k = ds[1];
    a.n = ws[0];
    const cJSON *b = cJSON_GetArrayItem(array, 2);
    if (!cJSON_IsNull(b)) {
        AT_TRY(json_tensor(b, "argument 2 (bias)", 1, bs, &a.bias_dtype));
        if (bs[0] != a.n) return AT_FAIL(AT_EINVAL, "dense: bias has %lld values, weight %lld rows", (long long)bs[0], (long long)a.n);
        a.has_bias = true;
    }
    const cJSON *od = cJSON_GetArrayItem(array, 3);
    if (cJSON_IsNull(od)) {
        a.out_dtype_null = true;
        a.out_dtype = a.dtype;
    } else if (cJSON_IsString(od)) {
        AT_TRY(at_ir_type_parse(od->valuestring, &a.out_dtype));
    } else {
        return AT_FAIL(AT_EPARSE, "argument 3 (out_dtype): expected a dtype string or null");
    }
    *out = a;
    return AT_OK;
}

at_status at_op_dense_args_parse(const char *text, at_dense_args *out)
{
    const char *p = text;
    while (*p == ' ') p++;
    at_dense_args a;
    memset(&a, 0, sizeof a);
    if (*p == '[') {
        cJSON *j = NULL;
        AT_TRY(at_json_parse(text, strlen(text), &j));
        at_status st = at_op_dense_args_from_json(j, &a);
        at_json_free(j);
        AT_TRY(st);
    } else {
        int64_t v[3];
        size_t n = 0;
        const char *dtype = NULL;
        while (*p) {
            char tok[32];
            size_t len = strcspn(p, ",");
            if (len == 0 || len >= sizeof tok) return AT_FAIL(AT_EPARSE, "bad argument list '%s'", text);
            memcpy(tok, p, len);
            tok[len] = '\0';
            char *end;
            long long x = strtoll(tok, &end, 10);
            if (*end == '\0' && !dtype && n < 3)
                v[n++] = x;
            else if (*end != '\0' && !dtype && p[len] == '\0')
                dtype = p;
            else
                return AT_FAIL(AT_EPARSE, "bad argument list '%s'", text);
            p += len;
            if (*p == ',') p++;
        }
        if (n != 3) return AT_FAIL(AT_EPARSE, "dense arguments: expected M,N,K[,dtype], got '%s'", text);
        a.m = v[0];
        a.n = v[1];
        a.k = v[2];
        a.dtype = AT_IR_F32;
        if (dtype) AT_TRY(at_ir_type_parse(dtype, &a.dtype));
        a.weight_dtype = a.out_dtype = a.dtype;
    }
    AT_TRY(at_op_dense_check_args(&a));
    *out = a;
    return AT_OK;
}

double at_op_dense_flop(const at_dense_args *a)
{
    double mn = (double)a->m * (double)a->n;
    return 2.0 * mn * (double)a->k + (a->has_bias ? mn : 0);
}

void at_op_dense_compute(const at_dense_args *a, at_ir_sched *s)
{
    at_ir_type ot = a->out_dtype;
    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, a->m * a->k, AT_IR_INPUT);
    const at_ir_buffer *weight = at_ir_param(s, "weight", a->weight_dtype, a->n * a->k, AT_IR_INPUT);
    const at_ir_buffer *bias = a->has_bias ? at_ir_param(s, "bias", a->bias_dtype, a->n, AT_IR_INPUT) : NULL;
    const at_ir_buffer *out = at_ir_param(s, "output", ot, a->m * a->n, AT_IR_OUTPUT);
    at_tmpl_loop l[3] = {at_tmpl_loop_new(s, "i", a->m, AT_IR_SERIAL), at_tmpl_loop_new(s, "j", a->n, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "k", a->k, AT_IR_SERIAL)};
    const at_ir_expr *i = at_ir_v(s, l[0].var), *j = at_ir_v(s, l[1].var), *k = at_ir_v(s, l[2].var);
    const at_ir_expr *oidx = at_ir_add(s, at_ir_mul(s, i, at_tmpl_i(s, a->n)), j);
    const at_ir_expr *x = at_ir_load(s, data, at_ir_add(s, at_ir_mul(s, i, at_tmpl_i(s, a->k)), k), 1);
    const at_ir_expr *w = at_ir_load(s, weight, at_ir_add(s, at_ir_mul(s, j, at_tmpl_i(s, a->k)), k), 1);
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, ot, x), at_tmpl_cast(s, ot, w));
    const at_ir_stmt *items[3] = {
        at_ir_store(s, out, oidx, at_tmpl_f(s, ot, 0)),
        at_tmpl_nest(s, &l[2], 1, at_ir_store(s, out, oidx, at_ir_add(s, at_ir_load(s, out, oidx, 1), prod))),
        NULL,
    };
    size_t n = 2;
    if (bias)
        items[n++] = at_ir_store(s, out, oidx, at_ir_add(s, at_ir_load(s, out, oidx, 1),
                                                         at_tmpl_cast(s, ot, at_ir_load(s, bias, j, 1))));
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, l, 2, at_ir_seq(s, items, n)));
}

void at_op_dense_ref(const at_dense_args *a, const void *data, const void *weight, const void *bias, void *out)
{
    for (int64_t i = 0; i < a->m; i++)
        for (int64_t j = 0; j < a->n; j++) {
            double acc = 0;
            for (int64_t k = 0; k < a->k; k++)
                acc += at_tmpl_load_f(a->dtype, data, i * a->k + k) * at_tmpl_load_f(a->weight_dtype, weight, j * a->k + k);
            if (bias) acc += at_tmpl_load_f(a->bias_dtype, bias, j);
            at_tmpl_store_f(a->out_dtype, out, i * a->n + j, acc);
        }
}

at_op_tolerance at_op_dense_tolerance(const at_dense_args *a)
{
    double eps = a->out_dtype.bits == 64 ? 1e-12 : a->out_dtype.bits == 16 ? 1e-2 : 1e-4;
    return (at_op_tolerance){.atol = eps, .rtol = eps};
}
