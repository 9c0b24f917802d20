/* conv2d_transpose_nchw: topi's transposed convolution as TVM's arm_cpu compute states it
 * (topi/arm_cpu/conv2d_transpose.py): the input dilated by the strides (nn.dilate), padded by
 * KH - 1 - pad (nn.pad, output_padding added at the bottom and right), then a direct convolution
 * with the kernel transposed (CI, CO) and flipped: out[n][co][h][w] = sum_{ci, kh, kw}
 * pad(dilate(data))[n][ci][h + kh][w + kw] kernel[ci][co][KH - 1 - kh][KW - 1 - kw]. FLOPs as
 * compute_flop counts that DAG: 2 per multiply-add, nn.pad's 4a - 1 per padded element (a padded
 * axes), nn.dilate's 3d - 1 per dilated element (d axes with a stride: a floormod and an equality
 * each, joined by ANDs). Like conv2d_nchw it takes float dtypes, or TVM's quantized int8/uint8 data
 * and kernel with an int32 out_dtype (TopHub's arm_cpu records of it), compared exactly. */
#include <stdio.h>
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"

void at_op_conv2d_transpose_geom(const at_conv2d_transpose_args *a, at_conv2d_transpose_geom *t)
{
    memset(t, 0, sizeof *t);
    at_conv2d_geom *g = &t->g;
    t->ih = a->data[2];
    t->iw = a->data[3];
    t->sh = a->stride[0];
    t->sw = a->stride[1];
    t->dh = (t->ih - 1) * t->sh + 1;
    t->dw = (t->iw - 1) * t->sw + 1;
    g->kh = a->kernel[2];
    g->kw = a->kernel[3];
    t->bpt = g->kh - 1 - a->pad[0];
    t->bpl = g->kw - 1 - a->pad[1];
    t->bpb = g->kh - 1 - a->pad[2] + a->out_pad[0];
    t->bpr = g->kw - 1 - a->pad[3] + a->out_pad[1];
    g->n = a->data[0];
    g->ci = a->data[1];
    g->co = a->kernel[1];
    g->mult = 1;
    g->ih = g->ihp = t->dh + t->bpt + t->bpb;
    g->iw = g->iwp = t->dw + t->bpl + t->bpr;
    g->sh = g->sw = g->dh = g->dw = 1;
    g->khd = g->kh;
    g->kwd = g->kw;
    g->oh = (t->ih - 1) * t->sh - a->pad[0] - a->pad[2] + g->kh + a->out_pad[0];
    g->ow = (t->iw - 1) * t->sw - a->pad[1] - a->pad[3] + g->kw + a->out_pad[1];
}

static bool is_float(at_ir_type t)
{
    return t.code == AT_IR_TFLOAT && t.lanes == 1 && (t.bits == 16 || t.bits == 32 || t.bits == 64);
}

static bool is_int8(at_ir_type t)
{
    return (t.code == AT_IR_TINT || t.code == AT_IR_TUINT) && t.bits == 8 && t.lanes == 1;
}

static at_status check_args(const at_args *args)
{
    const at_conv2d_transpose_args *a = &args->u.conv2d_transpose;
    for (int i = 0; i < 4; i++)
        if (a->data[i] < 1 || a->kernel[i] < 1 || a->data[i] > (1LL << 24) || a->kernel[i] > (1LL << 24))
            return AT_FAIL(AT_EINVAL, "conv2d_transpose_nchw: tensor extents must be in 1 .. 2^24");
    if (a->kernel[0] != a->data[1])
        return AT_FAIL(AT_EINVAL, "conv2d_transpose_nchw: kernel takes %lld input channels, data has %lld",
                       (long long)a->kernel[0], (long long)a->data[1]);
    for (int i = 0; i < 2; i++) {
        if (a->stride[i] < 1 || a->stride[i] > 1024) return AT_FAIL(AT_EINVAL, "conv2d_transpose_nchw: strides must be in 1 .. 1024");
        if (a->out_pad[i] < 0 || a->out_pad[i] >= a->stride[i])
            return AT_FAIL(AT_EINVAL, "conv2d_transpose_nchw: output_padding must be below the stride, got [%lld, %lld] "
                           "for strides [%lld, %lld]", (long long)a->out_pad[0], (long long)a->out_pad[1],
                           (long long)a->stride[0], (long long)a->stride[1]);
    }
    for (int i = 0; i < 4; i++)
        if (a->pad[i] < 0 || a->pad[i] >= a->kernel[2 + i % 2])
            return AT_FAIL(AT_EINVAL, "conv2d_transpose_nchw: padding must be in 0 .. kernel size - 1");
    if (!(is_float(a->dtype) && is_float(a->kernel_dtype) && is_float(a->out_dtype)) &&
        !(is_int8(a->dtype) && is_int8(a->kernel_dtype) && at_ir_type_eq(a->out_dtype, AT_IR_I32)))
        return AT_FAIL(AT_EINVAL, "conv2d_transpose_nchw: dtypes must be float16, float32 or float64, or int8/uint8 data "
                       "and kernel with an int32 out_dtype");
    at_conv2d_transpose_geom t;
    at_op_conv2d_transpose_geom(a, &t);
    if (t.g.oh < 1 || t.g.ow < 1) return AT_FAIL(AT_EINVAL, "conv2d_transpose_nchw: the output is empty");
    double sizes[4] = {(double)t.g.n * t.g.ci * t.ih * t.iw, (double)t.g.ci * t.g.co * t.g.kh * t.g.kw,
                       (double)t.g.n * t.g.co * t.g.oh * t.g.ow, (double)t.g.n * t.g.ci * t.g.ih * t.g.iw};
    for (int i = 0; i < 4; i++)
        if (sizes[i] > (double)(1LL << 31) - 1)
            return AT_FAIL(AT_EINVAL, "conv2d_transpose_nchw: a tensor of more than 2^31 elements");
    return AT_OK;
}

static size_t tensors(const at_args *args, at_tensor_desc *out)
{
    const at_conv2d_transpose_args *a = &args->u.conv2d_transpose;
    at_conv2d_transpose_geom t;
    at_op_conv2d_transpose_geom(a, &t);
    out[0] = (at_tensor_desc){.name = "data", .dtype = a->dtype, .ndim = 4,
                              .shape = {a->data[0], a->data[1], a->data[2], a->data[3]},
                              .n_elems = a->data[0] * a->data[1] * a->data[2] * a->data[3]};
    out[1] = (at_tensor_desc){.name = "kernel", .dtype = a->kernel_dtype, .ndim = 4,
                              .shape = {a->kernel[0], a->kernel[1], a->kernel[2], a->kernel[3]},
                              .n_elems = a->kernel[0] * a->kernel[1] * a->kernel[2] * a->kernel[3]};
    out[2] = (at_tensor_desc){.name = "output", .dtype = a->out_dtype, .ndim = 4, .shape = {t.g.n, t.g.co, t.g.oh, t.g.ow},
                              .n_elems = t.g.n * t.g.co * t.g.oh * t.g.ow, .is_output = true};
    return 3;
}

/* ---- workload JSON and the comma form -------------------------------------------------------- */

static void write_json(const at_args *args, at_strbuf *sb)
{
    const at_conv2d_transpose_args *a = &args->u.conv2d_transpose;
    at_tmpl_write_tensor(sb, a->data, 4, a->dtype);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_tensor(sb, a->kernel, 4, a->kernel_dtype);
    at_strbuf_puts(sb, ", ");
    if (a->stride_form == AT_FORM_INT)
        at_json_write_int(sb, a->stride[0]);
    else
        at_tmpl_write_ints(sb, a->stride, 2);
    at_strbuf_puts(sb, ", ");
    if (a->pad_form == AT_FORM_INT)
        at_json_write_int(sb, a->pad[0]);
    else
        at_tmpl_write_ints(sb, a->pad, a->pad_form == AT_FORM_PAIR ? 2 : 4);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_dtype_or_null(sb, a->out_dtype, a->out_dtype_null);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_ints(sb, a->out_pad, 2);
}

static at_status read_json(const cJSON *array, at_args *args)
{
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != 6)
        return AT_FAIL(AT_EPARSE, "conv2d_transpose_nchw arguments: expected [data, kernel, strides, padding, out_dtype, "
                                  "output_padding]");
    at_conv2d_transpose_args a;
    memset(&a, 0, sizeof a);
    size_t got;
    int64_t v[4];
    AT_TRY(at_tmpl_json_tensor(cJSON_GetArrayItem(array, 0), "argument 0 (data)", 4, a.data, &a.dtype));
    AT_TRY(at_tmpl_json_tensor(cJSON_GetArrayItem(array, 1), "argument 1 (kernel)", 4, a.kernel, &a.kernel_dtype));
    const cJSON *st = cJSON_GetArrayItem(array, 2), *pd = cJSON_GetArrayItem(array, 3);
    if (cJSON_IsNumber(st)) {
        AT_TRY(at_tmpl_json_int(st, "argument 2 (strides)", &a.stride[0]));
        a.stride[1] = a.stride[0];
        a.stride_form = AT_FORM_INT;
    } else {
        AT_TRY(at_tmpl_json_ints(st, "argument 2 (strides)", 2, 0, a.stride, &got));
    }
    if (cJSON_IsNumber(pd)) {
        AT_TRY(at_tmpl_json_int(pd, "argument 3 (padding)", &v[0]));
        for (int i = 0; i < 4; i++) a.pad[i] = v[0];
        a.pad_form = AT_FORM_INT;
    } else {
        AT_TRY(at_tmpl_json_ints(pd, "argument 3 (padding)", 4, 2, v, &got));
        if (got == 2) { /* get_pad_tuple: [pad_h, pad_w] pads both sides */
            a.pad[0] = a.pad[2] = v[0];
            a.pad[1] = a.pad[3] = v[1];
            a.pad_form = AT_FORM_PAIR;
        } else {
            memcpy(a.pad, v, sizeof a.pad);
        }
    }
    AT_TRY(at_tmpl_json_dtype_or_null(cJSON_GetArrayItem(array, 4), "argument 4 (out_dtype)", &a.out_dtype, &a.out_dtype_null));
    if (a.out_dtype_null) a.out_dtype = a.dtype;
    AT_TRY(at_tmpl_json_ints(cJSON_GetArrayItem(array, 5), "argument 5 (output_padding)", 2, 0, a.out_pad, &got));
    args->u.conv2d_transpose = a;
    return AT_OK;
}

/* N,CI,H,W,CO,KH,KW,S,P[,OP][,dtype]: square stride S, padding P on all four sides, output_padding
 * OP (default 0); an int8 or uint8 dtype accumulates in int32. */
static at_status parse_list(const char *text, at_args *args)
{
    int64_t v[10];
    size_t n;
    const char *dtype;
    AT_TRY(at_tmpl_parse_list(text, 10, v, &n, &dtype));
    if (n != 9 && n != 10)
        return AT_FAIL(AT_EPARSE, "conv2d_transpose_nchw arguments: expected %s, got '%s'", at_op_def_of(args->op)->comma_form,
                       text);
    at_conv2d_transpose_args a = {
        .data = {v[0], v[1], v[2], v[3]},
        .kernel = {v[1], v[4], v[5], v[6]},
        .stride = {v[7], v[7]},
        .pad = {v[8], v[8], v[8], v[8]},
        .out_pad = {n == 10 ? v[9] : 0, n == 10 ? v[9] : 0},
        .dtype = AT_IR_F32,
    };
    if (dtype) AT_TRY(at_ir_type_parse(dtype, &a.dtype));
    a.kernel_dtype = a.out_dtype = a.dtype;
    if (is_int8(a.dtype)) a.out_dtype = AT_IR_I32;
    args->u.conv2d_transpose = a;
    return AT_OK;
}

static double flop(const at_args *args)
{
    at_conv2d_transpose_geom t;
    at_op_conv2d_transpose_geom(&args->u.conv2d_transpose, &t);
    const at_conv2d_geom *g = &t.g;
    double f = 2.0 * (double)g->n * (double)g->co * (double)g->oh * (double)g->ow * (double)g->ci * (double)g->kh *
               (double)g->kw;
    int a = (t.bpt || t.bpb) + (t.bpl || t.bpr), d = (t.sh != 1) + (t.sw != 1);
    if (a) f += (double)(4 * a - 1) * (double)g->n * (double)g->ci * (double)g->ih * (double)g->iw;
    if (d) f += (double)(3 * d - 1) * (double)g->n * (double)g->ci * (double)t.dh * (double)t.dw;
    return f;
}

/* ---- compute and reference ------------------------------------------------------------------- */

const at_ir_expr *at_op_conv2d_transpose_load(at_ir_sched *s, const at_ir_buffer *data, const at_conv2d_transpose_geom *t,
                                              const at_ir_expr *n, const at_ir_expr *ci, const at_ir_expr *y,
                                              const at_ir_expr *x)
{
    /* y, x index the dilated, padded input; the real element sits at (y - bpt) / sh when that is a
     * multiple of the stride inside the dilated extent. The read is clamped so that a vector
     * select, which loads both arms, stays inside the buffer. */
    const at_ir_expr *yy = at_ir_sub(s, y, at_tmpl_i(s, t->bpt)), *xx = at_ir_sub(s, x, at_tmpl_i(s, t->bpl));
    const at_ir_expr *cond = at_tmpl_and(s, at_ir_bin(s, AT_IR_GE, yy, at_tmpl_i(s, 0)), at_ir_bin(s, AT_IR_LT, yy, at_tmpl_i(s, t->dh)));
    cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_GE, xx, at_tmpl_i(s, 0)));
    cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_LT, xx, at_tmpl_i(s, t->dw)));
    if (t->sh != 1) cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_EQ, at_ir_mod(s, yy, at_tmpl_i(s, t->sh)), at_tmpl_i(s, 0)));
    if (t->sw != 1) cond = at_tmpl_and(s, cond, at_ir_bin(s, AT_IR_EQ, at_ir_mod(s, xx, at_tmpl_i(s, t->sw)), at_tmpl_i(s, 0)));
    const at_ir_expr *ih = at_ir_min(s, at_ir_max(s, yy, at_tmpl_i(s, 0)), at_tmpl_i(s, t->dh - 1));
    const at_ir_expr *iw = at_ir_min(s, at_ir_max(s, xx, at_tmpl_i(s, 0)), at_tmpl_i(s, t->dw - 1));
    if (t->sh != 1) ih = at_ir_div(s, ih, at_tmpl_i(s, t->sh));
    if (t->sw != 1) iw = at_ir_div(s, iw, at_tmpl_i(s, t->sw));
    const at_ir_expr *di[4] = {n, ci, ih, iw};
    const int64_t dd[4] = {t->g.n, t->g.ci, t->ih, t->iw};
    return at_ir_select(s, cond, at_ir_load(s, data, at_tmpl_index(s, di, dd, 4), 1), at_tmpl_f(s, data->elem, 0));
}

static void compute(const at_args *args, at_ir_sched *s)
{
    const at_conv2d_transpose_args *a = &args->u.conv2d_transpose;
    at_conv2d_transpose_geom t;
    at_op_conv2d_transpose_geom(a, &t);
    const at_conv2d_geom *g = &t.g;
    at_tensor_desc d[3];
    tensors(args, d);
    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, d[0].n_elems, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, d[1].n_elems, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", a->out_dtype, d[2].n_elems, AT_IR_OUTPUT);
    at_tmpl_loop l[7] = {at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL), at_tmpl_loop_new(s, "co", g->co, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "h", g->oh, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", g->ow, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL), at_tmpl_loop_new(s, "kh", g->kh, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "kw", g->kw, AT_IR_SERIAL)};
    const at_ir_expr *v[7];
    for (int i = 0; i < 7; i++) v[i] = at_ir_v(s, l[i].var);
    const int64_t od[4] = {g->n, g->co, g->oh, g->ow};
    const at_ir_expr *oidx = at_tmpl_index(s, v, od, 4);
    const at_ir_expr *x = at_op_conv2d_transpose_load(s, data, &t, v[0], v[4], at_ir_add(s, v[2], v[5]), at_ir_add(s, v[3], v[6]));
    const at_ir_expr *ki[4] = {v[4], v[1], at_ir_sub(s, at_tmpl_i(s, g->kh - 1), v[5]), at_ir_sub(s, at_tmpl_i(s, g->kw - 1), v[6])};
    const int64_t kd[4] = {g->ci, g->co, g->kh, g->kw};
    const at_ir_expr *k = at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1);
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, a->out_dtype, x), at_tmpl_cast(s, a->out_dtype, k));
    const at_ir_stmt *upd = at_tmpl_nest(s, &l[4], 3, at_ir_store(s, out, oidx, at_ir_add(s, at_ir_load(s, out, oidx, 1), prod)));
    const at_ir_stmt *body = at_ir_seq2(s, at_ir_store(s, out, oidx, at_tmpl_f(s, a->out_dtype, 0)), upd);
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, l, 4, body));
}

/* Each output gathers the inputs whose stride-spaced positions land under the kernel:
 * oh = ih sh - pad_top + kh. */
static void reference(const at_args *args, const void *const *inputs, void *const *outputs)
{
    const at_conv2d_transpose_args *a = &args->u.conv2d_transpose;
    at_conv2d_transpose_geom t;
    at_op_conv2d_transpose_geom(a, &t);
    const at_conv2d_geom *g = &t.g;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t co = 0; co < g->co; co++)
            for (int64_t oh = 0; oh < g->oh; oh++)
                for (int64_t ow = 0; ow < g->ow; ow++) {
                    double acc = 0;
                    for (int64_t ci = 0; ci < g->ci; ci++)
                        for (int64_t kh = 0; kh < g->kh; kh++)
                            for (int64_t kw = 0; kw < g->kw; kw++) {
                                int64_t y = oh + a->pad[0] - kh, x = ow + a->pad[1] - kw;
                                if (y < 0 || x < 0 || y % t.sh || x % t.sw || y / t.sh >= t.ih || x / t.sw >= t.iw) continue;
                                acc += at_tmpl_load_f(a->dtype, inputs[0], ((n * g->ci + ci) * t.ih + y / t.sh) * t.iw + x / t.sw) *
                                       at_tmpl_load_f(a->kernel_dtype, inputs[1], ((ci * g->co + co) * g->kh + kh) * g->kw + kw);
                            }
                    at_tmpl_store_f(a->out_dtype, outputs[0], ((n * g->co + co) * g->oh + oh) * g->ow + ow, acc);
                }
}

static at_op_tolerance tolerance(const at_args *args)
{
    const at_conv2d_transpose_args *a = &args->u.conv2d_transpose;
    if (at_ir_type_is_int(a->out_dtype)) return (at_op_tolerance){0, 0}; /* integer sums: exact */
    double eps = a->out_dtype.bits == 64 ? 1e-12 : a->out_dtype.bits == 16 ? 1e-2 : 1e-4;
    return (at_op_tolerance){.atol = eps, .rtol = eps};
}

static const char *const tiny[] = {
    "1,4,5,5,3,4,4,2,1",   /* the TopHub records' form: 4x4 kernel, stride 2, padding 1 */
    "2,3,4,6,4,3,3,1,0",   /* batch 2, stride 1, no padding */
    "1,2,4,4,2,3,3,2,1,1", /* output_padding 1 */
    "[[\"TENSOR\", [1, 3, 5, 4], \"float32\"], [\"TENSOR\", [3, 2, 3, 3], \"float32\"], [2, 1], [0, 1, 2, 0], "
    "\"float32\", [1, 0]]", /* asymmetric strides and padding */
    NULL,
};
static const char *const typical[] = {"1,128,32,32,3,4,4,2,1", "1,1024,4,4,512,4,4,2,1", NULL};

const at_op_def at_op_conv2d_transpose_nchw = {
    AT_OP_ROW_("conv2d_transpose_nchw", "N,CI,H,W,CO,KH,KW,stride,pad[,output_padding][,dtype]"),
    .tiny = tiny,
    .typical = typical,
};
