/* The op kind group_conv2d_nchw: TVM's group_conv2d_nchw tasks. The workload is the compute's
 * argument list (data, kernel, strides, padding, dilation, groups, out_dtype); the convolution
 * parts are read and written by the conv2d kinds' helpers, so the forms they accept (padding as
 * an int, a pair or four values) carry over. FLOPs are compute_flop over the x86 / arm_cpu
 * compute (topi/x86/group_conv2d.py): topi's pad stage when padded (4a - 1 ops per padded
 * element, a the padded spatial axes), the packing copies (0) and the reduction, 2 per
 * multiply-add: 2 N CO OH OW (C / groups) KH KW. */
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"
#include "templates/ops_group_conv2d.h"

/* The same args as a groups-1 conv2d over all C channels, for the shared conv2d helpers. */
static at_conv2d_args as_dense_conv(const at_group_conv2d_args *a)
{
    at_conv2d_args c = a->conv;
    c.kernel[1] = c.data[1];
    return c;
}

void at_op_group_conv2d_geom(const at_group_conv2d_args *a, at_conv2d_geom *out)
{
    at_conv2d_args c = as_dense_conv(a);
    at_op_conv2d_geom(AT_OP_CONV2D_NCHW, &c, out);
}

static at_status check_args(const at_args *args)
{
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    const at_conv2d_args *c = &a->conv;
    int64_t g = a->groups;
    if (g < 1 || g > (1LL << 24)) return AT_FAIL(AT_EINVAL, "group_conv2d_nchw: groups must be in 1 .. 2^24, got %lld", (long long)g);
    if (c->data[1] % g || c->kernel[0] % g)
        return AT_FAIL(AT_EINVAL, "group_conv2d_nchw: groups %lld must divide the input channels (%lld) and the output channels (%lld)",
                       (long long)g, (long long)c->data[1], (long long)c->kernel[0]);
    if (c->kernel[1] * g != c->data[1])
        return AT_FAIL(AT_EINVAL, "group_conv2d_nchw: kernel takes %lld input channels per group, data has %lld in %lld groups",
                       (long long)c->kernel[1], (long long)c->data[1], (long long)g);
    at_conv2d_args d = as_dense_conv(a);
    at_status st = at_op_conv2d_check_args(AT_OP_CONV2D_NCHW, &d);
    if (st != AT_OK) return AT_FAIL_WRAP(st, "group_conv2d_nchw");
    return AT_OK;
}

static size_t tensors(const at_args *a, at_tensor_desc *out)
{
    /* the kernel descriptor comes from kernel[], so it keeps C / groups */
    return at_op_conv2d_tensors(AT_OP_CONV2D_NCHW, &a->u.group_conv2d.conv, out);
}

static void write_json(const at_args *args, at_strbuf *sb)
{
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    at_strbuf tail;
    at_strbuf_init(&tail);
    at_op_conv2d_args_write_json(&a->conv, &tail);
    /* the conv2d form ends ", out_dtype": groups goes before it */
    const char *text = at_strbuf_cstr(&tail);
    const char *last = at_strbuf_status(&tail) == AT_OK ? strrchr(text, ',') : NULL;
    if (!last) {
        at_strbuf_fini(&tail);
        sb->failed = true;
        return;
    }
    at_strbuf_append(sb, text, (size_t)(last - text));
    at_strbuf_puts(sb, ", ");
    at_json_write_int(sb, a->groups);
    at_strbuf_puts(sb, last);
    at_strbuf_fini(&tail);
}

static at_status read_json(const cJSON *array, at_args *args)
{
    at_group_conv2d_args *a = &args->u.group_conv2d;
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != 7)
        return AT_FAIL(AT_EPARSE, "group_conv2d_nchw arguments: expected [data, kernel, strides, padding, dilation, groups, out_dtype]");
    AT_TRY(at_op_conv2d_args_read(array, 6, &a->conv));
    return at_tmpl_json_int(cJSON_GetArrayItem(array, 5), "argument 5 (groups)", &a->groups);
}

/* N,C,H,W,CO,KH,KW,stride,pad,groups[,dilation][,dtype] */
static at_status parse_list(const char *text, at_args *out)
{
    int64_t v[11];
    size_t n;
    const char *dtype;
    AT_TRY(at_tmpl_parse_list(text, 11, v, &n, &dtype));
    if (n != 10 && n != 11)
        return AT_FAIL(AT_EPARSE, "group_conv2d_nchw arguments: expected %s, got '%s'", at_op_def_of(out->op)->comma_form, text);
    at_group_conv2d_args *a = &out->u.group_conv2d;
    memset(a, 0, sizeof *a);
    at_conv2d_args *c = &a->conv;
    memcpy(c->data, v, 4 * sizeof *v);
    a->groups = v[9];
    c->kernel[0] = v[4];
    c->kernel[1] = v[9] > 0 ? v[1] / v[9] : 0;
    c->kernel[2] = v[5];
    c->kernel[3] = v[6];
    c->stride[0] = c->stride[1] = v[7];
    for (int i = 0; i < 4; i++) c->pad[i] = v[8];
    c->dilation[0] = c->dilation[1] = n == 11 ? v[10] : 1;
    c->stride_form = c->pad_form = c->dilation_form = AT_FORM_LIST;
    c->dtype = AT_IR_F32;
    if (dtype) AT_TRY(at_ir_type_parse(dtype, &c->dtype));
    c->kernel_dtype = c->out_dtype = c->dtype;
    return AT_OK;
}

static double flop(const at_args *args)
{
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    at_conv2d_geom g;
    at_op_group_conv2d_geom(a, &g);
    double mac = 2.0 * (double)g.n * (double)g.co * (double)g.oh * (double)g.ow * (double)a->conv.kernel[1] * (double)g.kh *
                 (double)g.kw;
    int axes = (g.pt || g.pb) + (g.pl || g.pr);
    double pad = axes ? (double)(4 * axes - 1) * (double)g.n * (double)g.ci * (double)g.ihp * (double)g.iwp : 0;
    return mac + pad;
}

/* output[n][c][h][w] = sum_{rc, ry, rx} pad(data)[n][(c / kpg) kd + rc][h sh + ry dh][w sw + rx dw]
 * kernel[c][rc][ry][rx], kpg = CO / groups output and kd = C / groups input channels a group */
static void compute(const at_args *args, at_ir_sched *s)
{
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    at_conv2d_geom g;
    at_op_group_conv2d_geom(a, &g);
    int64_t kd = a->conv.kernel[1], kpg = g.co / a->groups;
    at_tensor_desc d[3];
    tensors(args, d);
    const at_ir_buffer *data = at_ir_param(s, "data", a->conv.dtype, d[0].n_elems, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->conv.kernel_dtype, d[1].n_elems, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", a->conv.out_dtype, d[2].n_elems, AT_IR_OUTPUT);
    at_ir_type ot = a->conv.out_dtype;
    at_tmpl_loop l[7] = {at_tmpl_loop_new(s, "n", g.n, AT_IR_SERIAL), at_tmpl_loop_new(s, "c", g.co, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "h", g.oh, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", g.ow, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "rc", kd, AT_IR_SERIAL), at_tmpl_loop_new(s, "ry", g.kh, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "rx", g.kw, AT_IR_SERIAL)};
    const at_ir_expr *v[7];
    for (int i = 0; i < 7; i++) v[i] = at_ir_v(s, l[i].var);
    const at_ir_expr *oi[4] = {v[0], v[1], v[2], v[3]};
    const int64_t od[4] = {g.n, g.co, g.oh, g.ow};
    const at_ir_expr *oidx = at_tmpl_index(s, oi, od, 4);
    const at_ir_expr *ic = at_ir_add(s, at_ir_mul(s, at_ir_div(s, v[1], at_tmpl_i(s, kpg)), at_tmpl_i(s, kd)), v[4]);
    const at_ir_expr *h = at_ir_add(s, at_ir_mul(s, v[2], at_tmpl_i(s, g.sh)), at_ir_mul(s, v[5], at_tmpl_i(s, g.dh)));
    const at_ir_expr *w = at_ir_add(s, at_ir_mul(s, v[3], at_tmpl_i(s, g.sw)), at_ir_mul(s, v[6], at_tmpl_i(s, g.dw)));
    const at_ir_expr *x = at_tmpl_pad_load(s, data, &g, v[0], ic, h, w, g.ihp - 1, g.iwp - 1);
    const at_ir_expr *ki[4] = {v[1], v[4], v[5], v[6]};
    const int64_t kdim[4] = {g.co, kd, g.kh, g.kw};
    const at_ir_expr *k = at_ir_load(s, kernel, at_tmpl_index(s, ki, kdim, 4), 1);
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, ot, x), at_tmpl_cast(s, ot, k));
    const at_ir_stmt *upd = at_tmpl_nest(s, &l[4], 3, at_ir_store(s, out, oidx, at_ir_add(s, at_ir_load(s, out, oidx, 1), prod)));
    const at_ir_stmt *body = at_ir_seq2(s, at_ir_store(s, out, oidx, at_tmpl_f(s, ot, 0)), upd);
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, l, 4, body));
}

static void reference(const at_args *args, const void *const *inputs, void *const *outputs)
{
    const at_group_conv2d_args *a = &args->u.group_conv2d;
    at_conv2d_geom g;
    at_op_group_conv2d_geom(a, &g);
    int64_t kd = a->conv.kernel[1], kpg = g.co / a->groups;
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t c = 0; c < g.co; c++)
            for (int64_t oh = 0; oh < g.oh; oh++)
                for (int64_t ow = 0; ow < g.ow; ow++) {
                    double acc = 0;
                    for (int64_t rc = 0; rc < kd; rc++)
                        for (int64_t kh = 0; kh < g.kh; kh++)
                            for (int64_t kw = 0; kw < g.kw; kw++) {
                                int64_t ih = oh * g.sh + kh * g.dh - g.pt, iw = ow * g.sw + kw * g.dw - g.pl;
                                if (ih < 0 || ih >= g.ih || iw < 0 || iw >= g.iw) continue;
                                int64_t ic = c / kpg * kd + rc;
                                acc += at_tmpl_load_f(a->conv.dtype, inputs[0], ((n * g.ci + ic) * g.ih + ih) * g.iw + iw) *
                                       at_tmpl_load_f(a->conv.kernel_dtype, inputs[1], ((c * kd + rc) * g.kh + kh) * g.kw + kw);
                            }
                    at_tmpl_store_f(a->conv.out_dtype, outputs[0], ((n * g.co + c) * g.oh + oh) * g.ow + ow, acc);
                }
}

static at_op_tolerance tolerance(const at_args *a)
{
    return at_op_conv2d_tolerance(AT_OP_CONV2D_NCHW, &a->u.group_conv2d.conv);
}

static const char *const tiny[] = {
    "1,4,9,9,8,3,3,1,1,2",    /* padded 3x3, 2 groups of 2 -> 4 */
    "2,6,10,10,6,3,3,2,1,3",  /* batch 2, stride 2 */
    "1,8,6,6,4,1,1,1,0,4",    /* 1x1, no padding, one output channel a group */
    "1,4,9,9,4,3,3,1,2,2,2",  /* dilation 2 */
    "[[\"TENSOR\", [1, 6, 8, 7], \"float32\"], [\"TENSOR\", [6, 2, 3, 3], \"float32\"], [1, 1], [0, 1, 0, 1], [1, 1], 3, "
    "\"float32\"]", /* asymmetric padding */
    NULL,
};
/* regnet_y_400mf's first two grouped 3x3 convolutions (group width 8) */
static const char *const typical[] = {"1,48,112,112,48,3,3,2,1,6", "1,104,56,56,104,3,3,2,1,13", NULL};

const at_op_def at_op_group_conv2d_nchw = {
    AT_OP_ROW_("group_conv2d_nchw", "N,C,H,W,CO,KH,KW,stride,pad,groups[,dilation][,dtype]"),
    .tiny = tiny,
    .typical = typical,
};
