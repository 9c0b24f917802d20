/* The dense op kind: topi's nn.dense, out[m, n] = sum_k data[m, k] weight[n, k] (+ bias[n]), with
 * TVM's workload tuple (data, weight, bias, out_dtype). TVM v0.18 passes bias null; TopHub's Mali
 * pack was tuned with a bias tensor and a null out_dtype, and both forms are read and written back
 * as they came. FLOPs as compute_flop: 2 per multiply-add, 1 per bias add. */
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
    at_tmpl_write_dtype_or_null(sb, a->out_dtype, a->out_dtype_null);
}

at_status at_op_dense_args_from_json(const cJSON *array, at_dense_args *out)
{
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != 4)
        return AT_FAIL(AT_EPARSE, "dense arguments: expected [data, weight, bias, out_dtype]");
    at_dense_args a;
    memset(&a, 0, sizeof a);
    int64_t ds[2], ws[2], bs[1];
    AT_TRY(at_tmpl_json_tensor(cJSON_GetArrayItem(array, 0), "argument 0 (data)", 2, ds, &a.dtype));
    AT_TRY(at_tmpl_json_tensor(cJSON_GetArrayItem(array, 1), "argument 1 (weight)", 2, ws, &a.weight_dtype));
    if (ds[1] != ws[1])
        return AT_FAIL(AT_EINVAL, "dense: data has %lld columns, weight %lld", (long long)ds[1], (long long)ws[1]);
    a.m = ds[0];
    a.k = ds[1];
    a.n = ws[0];
    const cJSON *b = cJSON_GetArrayItem(array, 2);
    if (!cJSON_IsNull(b)) {
        AT_TRY(at_tmpl_json_tensor(b, "argument 2 (bias)", 1, bs, &a.bias_dtype));
        if (bs[0] != a.n) return AT_FAIL(AT_EINVAL, "dense: bias has %lld values, weight %lld rows", (long long)bs[0], (long long)a.n);
        a.has_bias = true;
    }
    AT_TRY(at_tmpl_json_dtype_or_null(cJSON_GetArrayItem(array, 3), "argument 3 (out_dtype)", &a.out_dtype,
                                      &a.out_dtype_null));
    if (a.out_dtype_null) a.out_dtype = a.dtype;
    *out = a;
    return AT_OK;
}

/* M,N,K[,dtype] */
static at_status parse_list(const char *text, at_args *out)
{
    int64_t v[8];
    size_t n;
    const char *dtype;
    AT_TRY(at_tmpl_parse_list(text, 8, v, &n, &dtype));
    if (n != 3) return AT_FAIL(AT_EPARSE, "dense arguments: expected M,N,K[,dtype], got '%s'", text);
    at_dense_args *a = &out->u.dense;
    memset(a, 0, sizeof *a);
    a->m = v[0];
    a->n = v[1];
    a->k = v[2];
    a->dtype = AT_IR_F32;
    if (dtype) AT_TRY(at_ir_type_parse(dtype, &a->dtype));
    a->weight_dtype = a->out_dtype = a->dtype;
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

/* ---- the op-kind row ------------------------------------------------------------------------- */

AT_OP_FORWARD_(dense)

static void compute(const at_args *a, at_ir_sched *s)
{
    at_op_dense_compute(&a->u.dense, s);
}

static void reference(const at_args *a, const void *const *inputs, void *const *outputs)
{
    at_op_dense_ref(&a->u.dense, inputs[0], inputs[1], a->u.dense.has_bias ? inputs[2] : NULL, outputs[0]);
}

static at_op_tolerance tolerance(const at_args *a)
{
    return at_op_dense_tolerance(&a->u.dense);
}

static const char *const tiny[] = {
    "4,8,12",
    "[[\"TENSOR\", [2, 16], \"float32\"], [\"TENSOR\", [12, 16], \"float32\"], [\"TENSOR\", [12], \"float32\"], null]", /* bias */
    "3,40,6",
    NULL,
};
static const char *const typical[] = {"1,1000,512", "4,256,128", NULL};

const at_op_def at_op_dense = {
    AT_OP_ROW_("dense", "M,N,K[,dtype]"),
    .tiny = tiny,
    .typical = typical,
};
