/* conv2d_packed (VTA): workload JSON, signature, FLOPs, unscheduled compute and the int8 reference.
 * The op is the seeds' tuning template (conv2d_packed >> 8, clip [0, 127], cast int8), so the
 * reference is exact integer arithmetic: int32 wrap-around sums, arithmetic shift, clip, cast. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"

void at_op_conv2d_packed_geom(const at_conv2d_packed_args *a, at_conv2d_packed_geom *g)
{
    g->n_b = a->data[0];
    g->ci_b = a->data[1];
    g->h = a->data[2];
    g->w = a->data[3];
    g->batch = a->data[4];
    g->block_in = a->data[5];
    g->co_b = a->kernel[0];
    g->kh = a->kernel[2];
    g->kw = a->kernel[3];
    g->block_out = a->kernel[4];
    g->sh = a->stride[0];
    g->sw = a->stride[1];
    g->ph = a->pad[0]; /* vta_conv2d.py pads with padding[0], padding[1] on both sides */
    g->pw = a->pad[1];
    g->oh = g->sh > 0 ? (g->h + 2 * g->ph - g->kh) / g->sh + 1 : 0;
    g->ow = g->sw > 0 ? (g->w + 2 * g->pw - g->kw) / g->sw + 1 : 0;
}

at_status at_op_conv2d_packed_check_args(const at_conv2d_packed_args *a)
{
    for (int i = 0; i < 6; i++)
        if (a->data[i] < 1 || a->kernel[i] < 1 || a->data[i] > (1 << 16) || a->kernel[i] > (1 << 16))
            return AT_FAIL(AT_EINVAL, "conv2d_packed: data and kernel extents must be in 1..65536");
    if (a->kernel[1] != a->data[1] || a->kernel[5] != a->data[5])
        return AT_FAIL(AT_EINVAL, "conv2d_packed: kernel input channels %lldx%lld do not match data %lldx%lld",
                       (long long)a->kernel[1], (long long)a->kernel[5], (long long)a->data[1], (long long)a->data[5]);
    if (a->stride[0] < 1 || a->stride[1] < 1 || a->pad[0] < 0 || a->pad[1] < 0 || a->pad[0] > 15 || a->pad[1] > 15)
        return AT_FAIL(AT_EINVAL, "conv2d_packed: strides must be >= 1 and padding in 0..15");
    if (a->dilation[0] != 1 || a->dilation[1] != 1)
        return AT_FAIL(AT_EINVAL, "conv2d_packed: dilation must be [1, 1] (vta_conv2d.py asserts it)");
    if (!at_ir_type_eq(a->dtype, AT_IR_I8) || !at_ir_type_eq(a->kernel_dtype, AT_IR_I8) ||
        !at_ir_type_eq(a->out_dtype, AT_IR_I32))
        return AT_FAIL(AT_EINVAL, "conv2d_packed: expected int8 data and kernel and an int32 out_dtype");
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(a, &g);
    if (g.oh < 1 || g.ow < 1) return AT_FAIL(AT_EINVAL, "conv2d_packed: the output would be empty");
    if (g.n_b * g.ci_b * g.h * g.w * g.batch * g.block_in > (1LL << 31) ||
        g.n_b * g.co_b * g.oh * g.ow * g.batch * g.block_out > (1LL << 31) ||
        g.co_b * g.ci_b * g.kh * g.kw * g.block_out * g.block_in > (1LL << 31))
        return AT_FAIL(AT_EINVAL, "conv2d_packed: a tensor is too large (at most 2^31 elements)");
    return AT_OK;
}

size_t at_op_conv2d_packed_tensors(const at_conv2d_packed_args *a, at_tensor_desc *out)
{
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(a, &g);
    int64_t n_data = 1, n_kernel = 1;
    for (int i = 0; i < 6; i++) {
        n_data *= a->data[i];
        n_kernel *= a->kernel[i];
    }
    out[0] = (at_tensor_desc){.name = "data", .dtype = AT_IR_I8, .ndim = 6, .n_elems = n_data};
    memcpy(out[0].shape, a->data, sizeof a->data);
    out[1] = (at_tensor_desc){.name = "kernel", .dtype = AT_IR_I8, .ndim = 6, .n_elems = n_kernel};
    memcpy(out[1].shape, a->kernel, sizeof a->kernel);
    out[2] = (at_tensor_desc){.name = "res", .dtype = AT_IR_I8, .ndim = 6,
                              .shape = {g.n_b, g.co_b, g.oh, g.ow, g.batch, g.block_out},
                              .n_elems = g.n_b * g.co_b * g.oh * g.ow * g.batch * g.block_out, .is_output = true};
    return 3;
}

/* ---- workload JSON --------------------------------------------------------------------------- */

void at_op_conv2d_packed_args_write_json(const at_conv2d_packed_args *a, at_strbuf *sb)
{
    char tb[16];
    at_tmpl_write_tensor(sb, a->data, 6, a->dtype);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_tensor(sb, a->kernel, 6, a->kernel_dtype);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_ints(sb, a->stride, 2);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_ints(sb, a->pad, 4);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_ints(sb, a->dilation, 2);
    at_strbuf_puts(sb, ", ");
    at_json_write_string(sb, a->layout);
    at_strbuf_puts(sb, ", ");
    if (a->kernel_layout[0]) {
        at_json_write_string(sb, a->kernel_layout);
        at_strbuf_puts(sb, ", ");
    }
    at_json_write_string(sb, at_ir_type_str(a->out_dtype, tb));
}

static at_status json_ints(const cJSON *item, const char *what, size_t n, int64_t *out)
{
    if (!cJSON_IsArray(item) || (size_t)cJSON_GetArraySize(item) != n)
        return AT_FAIL(AT_EPARSE, "%s: expected a list of %zu integers", what, n);
    for (size_t i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetArrayItem(item, (int)i);
        if (!cJSON_IsNumber(v) || !at_json_number_is_int(v))
            return AT_FAIL(AT_EPARSE, "%s: expected a list of %zu integers", what, n);
        AT_TRY(at_json_get_int64(v, &out[i]));
    }
    return AT_OK;
}

static at_status json_tensor(const cJSON *item, const char *what, int64_t *shape, at_ir_type *dtype)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3 || !cJSON_IsString(cJSON_GetArrayItem(item, 0)) ||
        strcmp(cJSON_GetArrayItem(item, 0)->valuestring, "TENSOR") != 0 ||
        !cJSON_IsString(cJSON_GetArrayItem(item, 2)))
        return AT_FAIL(AT_EPARSE, "%s: expected [\"TENSOR\", shape of 6, dtype]", what);
    AT_TRY(json_ints(cJSON_GetArrayItem(item, 1), what, 6, shape));
    return at_ir_type_parse(cJSON_GetArrayItem(item, 2)->valuestring, dtype);
}

static at_status json_layout(const cJSON *item, const char *what, char *out, size_t cap)
{
    if (!cJSON_IsString(item) || strlen(item->valuestring) >= cap)
        return AT_FAIL(AT_EPARSE, "%s: expected a layout string of at most %zu characters", what, cap - 1);
    memcpy(out, item->valuestring, strlen(item->valuestring) + 1);
    return AT_OK;
}

at_status at_op_conv2d_packed_args_from_json(const cJSON *array, at_conv2d_packed_args *out)
{
    int n = cJSON_IsArray(array) ? cJSON_GetArraySize(array) : -1;
    if (n != 7 && n != 8)
        return AT_FAIL(AT_EPARSE, "conv2d_packed arguments: expected [data, kernel, strides, padding, dilation, "
                                  "layout, (kernel_layout,) out_dtype]");
    at_conv2d_packed_args a;
    memset(&a, 0, sizeof a);
    AT_TRY(json_tensor(cJSON_GetArrayItem(array, 0), "argument 0 (data)", a.data, &a.dtype));
    AT_TRY(json_tensor(cJSON_GetArrayItem(array, 1), "argument 1 (kernel)", a.kernel, &a.kernel_dtype));
    AT_TRY(json_ints(cJSON_GetArrayItem(array, 2), "argument 2 (strides)", 2, a.stride));
    AT_TRY(json_ints(cJSON_GetArrayItem(array, 3), "argument 3 (padding)", 4, a.pad));
    AT_TRY(json_ints(cJSON_GetArrayItem(array, 4), "argument 4 (dilation)", 2, a.dilation));
    AT_TRY(json_layout(cJSON_GetArrayItem(array, 5), "argument 5 (layout)", a.layout, sizeof a.layout));
    if (n == 8)
        AT_TRY(json_layout(cJSON_GetArrayItem(array, 6), "argument 6 (kernel layout)", a.kernel_layout,
                           sizeof a.kernel_layout));
    const cJSON *od = cJSON_GetArrayItem(array, n - 1);
    if (!cJSON_IsString(od)) return AT_FAIL(AT_EPARSE, "argument %d (out_dtype): expected a dtype string", n - 1);
    AT_TRY(at_ir_type_parse(od->valuestring, &a.out_dtype));
    *out = a;
    return AT_OK;
}

/* N,CI,H,W,CO,KH,KW,S,P: channels unpacked, multiples of 16, packed with BATCH 1 and BLOCK 16. */
static at_status parse_list(const char *text, at_args *out)
{
    int64_t v[16];
    size_t n;
    const char *dtype;
    AT_TRY(at_tmpl_parse_list(text, 16, v, &n, &dtype));
    if (n != 9 || dtype)
        return AT_FAIL(AT_EPARSE, "conv2d_packed arguments: expected N,CI,H,W,CO,KH,KW,S,P or a JSON array, got '%s'",
                       text);
    if (v[1] % 16 || v[4] % 16)
        return AT_FAIL(AT_EINVAL, "conv2d_packed: CI and CO must be multiples of 16, got %lld and %lld",
                       (long long)v[1], (long long)v[4]);
    out->u.conv2d_packed = (at_conv2d_packed_args){
        .data = {v[0], v[1] / 16, v[2], v[3], 1, 16},
        .kernel = {v[4] / 16, v[1] / 16, v[5], v[6], 16, 16},
        .stride = {v[7], v[7]},
        .pad = {v[8], v[8], v[8], v[8]},
        .dilation = {1, 1},
        .layout = "NCHW1n16c",
        .dtype = AT_IR_I8,
        .kernel_dtype = AT_IR_I8,
        .out_dtype = AT_IR_I32,
    };
    return AT_OK;
}

double at_op_conv2d_packed_flop(const at_conv2d_packed_args *a)
{
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(a, &g);
    return 2.0 * (double)(g.n_b * g.batch) * (double)(g.co_b * g.block_out) * (double)g.oh * (double)g.ow *
           (double)g.kh * (double)g.kw * (double)(g.ci_b * g.block_in);
}

/* ---- compute and reference ------------------------------------------------------------------- */

void at_op_conv2d_packed_compute(const at_conv2d_packed_args *a, at_ir_sched *s)
{
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(a, &g);
    at_tensor_desc t[3];
    at_op_conv2d_packed_tensors(a, t);
    const at_ir_buffer *D = at_ir_param(s, "data", AT_IR_I8, t[0].n_elems, AT_IR_INPUT);
    const at_ir_buffer *K = at_ir_param(s, "kernel", AT_IR_I8, t[1].n_elems, AT_IR_INPUT);
    const at_ir_buffer *R = at_ir_param(s, "res", AT_IR_I8, t[2].n_elems, AT_IR_OUTPUT);
    const at_ir_buffer *acc = at_ir_alloc(s, "res_acc", AT_IR_I32, 1, AT_IR_PRIVATE);
    at_tmpl_loop out[6] = {
        at_tmpl_loop_new(s, "bo", g.n_b, AT_IR_SERIAL), at_tmpl_loop_new(s, "co", g.co_b, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "i", g.oh, AT_IR_SERIAL),   at_tmpl_loop_new(s, "j", g.ow, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "bi", g.batch, AT_IR_SERIAL), at_tmpl_loop_new(s, "ci", g.block_out, AT_IR_SERIAL),
    };
    at_tmpl_loop red[4] = {
        at_tmpl_loop_new(s, "k_o", g.ci_b, AT_IR_SERIAL), at_tmpl_loop_new(s, "d_i", g.kh, AT_IR_SERIAL),
        at_tmpl_loop_new(s, "d_j", g.kw, AT_IR_SERIAL), at_tmpl_loop_new(s, "k_i", g.block_in, AT_IR_SERIAL),
    };
    const at_ir_expr *y = at_ir_sub(s, at_ir_add(s, at_ir_mul(s, at_ir_v(s, out[2].var), at_tmpl_i(s, g.sh)),
                                                 at_ir_v(s, red[1].var)), at_tmpl_i(s, g.ph));
    const at_ir_expr *x = at_ir_sub(s, at_ir_add(s, at_ir_mul(s, at_ir_v(s, out[3].var), at_tmpl_i(s, g.sw)),
                                                 at_ir_v(s, red[2].var)), at_tmpl_i(s, g.pw));
    const at_ir_expr *cond = NULL;
    if (g.ph) {
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_GE, y, at_tmpl_i(s, 0)));
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, y, at_tmpl_i(s, g.h)));
    }
    if (g.pw) {
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_GE, x, at_tmpl_i(s, 0)));
        cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, x, at_tmpl_i(s, g.w)));
    }
    const at_ir_expr *di[6] = {at_ir_v(s, out[0].var), at_ir_v(s, red[0].var), y, x, at_ir_v(s, out[4].var),
                               at_ir_v(s, red[3].var)};
    const at_ir_expr *ki[6] = {at_ir_v(s, out[1].var), at_ir_v(s, red[0].var), at_ir_v(s, red[1].var),
                               at_ir_v(s, red[2].var), at_ir_v(s, out[5].var), at_ir_v(s, red[3].var)};
    const at_ir_expr *ri[6] = {at_ir_v(s, out[0].var), at_ir_v(s, out[1].var), at_ir_v(s, out[2].var),
                               at_ir_v(s, out[3].var), at_ir_v(s, out[4].var), at_ir_v(s, out[5].var)};
    const at_ir_expr *dv = at_ir_cast(s, AT_IR_I32, at_ir_load(s, D, at_tmpl_index(s, di, a->data, 6), 1));
    if (cond) dv = at_ir_select(s, cond, dv, at_tmpl_i(s, 0));
    const at_ir_expr *kv = at_ir_cast(s, AT_IR_I32, at_ir_load(s, K, at_tmpl_index(s, ki, a->kernel, 6), 1));
    const at_ir_expr *zero = at_tmpl_i(s, 0);
    const at_ir_stmt *update =
        at_ir_store(s, acc, zero, at_ir_add(s, at_ir_load(s, acc, zero, 1), at_ir_mul(s, dv, kv)));
    const at_ir_expr *v = at_ir_bin(s, AT_IR_SHR, at_ir_load(s, acc, zero, 1), at_tmpl_i(s, AT_CONV2D_PACKED_SHIFT));
    v = at_ir_max(s, at_ir_min(s, v, at_tmpl_i(s, AT_CONV2D_PACKED_CLIP_HI)), at_tmpl_i(s, AT_CONV2D_PACKED_CLIP_LO));
    int64_t rdims[6] = {g.n_b, g.co_b, g.oh, g.ow, g.batch, g.block_out};
    const at_ir_stmt *items[3] = {
        at_ir_store(s, acc, zero, zero),
        at_tmpl_nest(s, red, 4, update),
        at_ir_store(s, R, at_tmpl_index(s, ri, rdims, 6), at_ir_cast(s, AT_IR_I8, v)),
    };
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, out, 6, at_ir_seq(s, items, 3)));
}

void at_op_conv2d_packed_ref(const at_conv2d_packed_args *a, const void *data, const void *kernel, void *out)
{
    at_conv2d_packed_geom g;
    at_op_conv2d_packed_geom(a, &g);
    const int8_t *d = data, *k = kernel;
    int8_t *r = out;
    for (int64_t bo = 0; bo < g.n_b; bo++)
        for (int64_t co = 0; co < g.co_b; co++)
            for (int64_t i = 0; i < g.oh; i++)
                for (int64_t j = 0; j < g.ow; j++)
                    for (int64_t bi = 0; bi < g.batch; bi++)
                        for (int64_t c = 0; c < g.block_out; c++) {
                            uint32_t acc = 0; /* int32 wrap-around, as the accumulator */
                            for (int64_t ko = 0; ko < g.ci_b; ko++)
                                for (int64_t di = 0; di < g.kh; di++)
                                    for (int64_t dj = 0; dj < g.kw; dj++) {
                                        int64_t y = i * g.sh + di - g.ph, x = j * g.sw + dj - g.pw;
                                        if (y < 0 || y >= g.h || x < 0 || x >= g.w) continue;
                                        for (int64_t kk = 0; kk < g.block_in; kk++) {
                                            int32_t dv = d[((((bo * g.ci_b + ko) * g.h + y) * g.w + x) * g.batch + bi) *
                                                               g.block_in + kk];
                                            int32_t kv = k[((((co * g.ci_b + ko) * g.kh + di) * g.kw + dj) * g.block_out +
                                                            c) * g.block_in + kk];
                                            acc += (uint32_t)(dv * kv);
                                        }
                                    }
                            int32_t v = (int32_t)acc;
                            v = v < 0 ? ~(~v >> AT_CONV2D_PACKED_SHIFT) : v >> AT_CONV2D_PACKED_SHIFT; /* arithmetic */
                            if (v > AT_CONV2D_PACKED_CLIP_HI) v = AT_CONV2D_PACKED_CLIP_HI;
                            if (v < AT_CONV2D_PACKED_CLIP_LO) v = AT_CONV2D_PACKED_CLIP_LO;
                            r[((((bo * g.co_b + co) * g.oh + i) * g.ow + j) * g.batch + bi) * g.block_out + c] = (int8_t)v;
                        }
}

/* ---- the op-kind row ------------------------------------------------------------------------- */

AT_OP_FORWARD_(conv2d_packed)

static void compute(const at_args *a, at_ir_sched *s)
{
    at_op_conv2d_packed_compute(&a->u.conv2d_packed, s);
}

static void reference(const at_args *a, const void *const *inputs, void *const *outputs)
{
    at_op_conv2d_packed_ref(&a->u.conv2d_packed, inputs[0], inputs[1], outputs[0]);
}

static at_op_tolerance tolerance(const at_args *a)
{
    (void)a;
    return (at_op_tolerance){0, 0}; /* int8: exact */
}

static const char *const tiny[] = {"1,32,6,5,32,3,3,1,1", NULL};
static const char *const typical[] = {"1,64,14,14,64,3,3,1,1", "1,128,28,28,256,1,1,2,0", NULL};

const at_op_def at_op_conv2d_packed = {
    AT_OP_ROW_("conv2d_packed", "N,CI,H,W,CO,KH,KW,S,P"),
    .tiny = tiny,
    .typical = typical,
};
