/* pool2d_max_nchw: topi's nn.pool2d(data, kernel, stride, dilation, padding, "max", ceil_mode,
 * "NCHW", count_include_pad), out[n][c][h][w] = max over the window of the padded input. topi
 * pads with the dtype's lowest value in a stage of its own (nn.pad), and ceil_mode pads
 * stride - 1 more at the bottom and right. FLOPs as compute_flop counts that compute: the max
 * reduction 1 per window element, the pad stage 2k - 1 per padded element for k non-zero pads
 * (one comparison each, joined by ANDs). */
#include <float.h>
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"

void at_op_pool2d_geom(const at_pool2d_args *a, at_conv2d_geom *g)
{
    memset(g, 0, sizeof *g);
    g->n = a->data[0];
    g->ci = g->co = a->data[1];
    g->ih = a->data[2];
    g->iw = a->data[3];
    g->mult = 1;
    g->kh = a->kernel[0];
    g->kw = a->kernel[1];
    at_tmpl_geom_window(g, a->stride, a->dilation, a->pad);
    if (a->ceil_mode) {
        g->pb += g->sh - 1;
        g->pr += g->sw - 1;
    }
    at_tmpl_geom_derive(g);
}

double at_op_pool2d_lowest(at_ir_type t)
{
    AT_ASSERT(t.code == AT_IR_TFLOAT);
    return t.bits == 64 ? -DBL_MAX : t.bits == 16 ? -65504.0 : -(double)FLT_MAX;
}

static at_status check_args(const at_args *args)
{
    const at_pool2d_args *a = &args->u.pool2d;
    for (int i = 0; i < 4; i++)
        if (a->data[i] < 1 || a->data[i] > (1LL << 24))
            return AT_FAIL(AT_EINVAL, "pool2d_max_nchw: data extents must be in 1 .. 2^24, got [%lld, %lld, %lld, %lld]",
                           (long long)a->data[0], (long long)a->data[1], (long long)a->data[2], (long long)a->data[3]);
    for (int i = 0; i < 2; i++)
        if (a->kernel[i] < 1 || a->stride[i] < 1 || a->dilation[i] < 1 || a->kernel[i] > 1024 || a->stride[i] > 1024 ||
            a->dilation[i] > 1024)
            return AT_FAIL(AT_EINVAL, "pool2d_max_nchw: kernel, strides and dilation must be in 1 .. 1024");
    for (int i = 0; i < 4; i++)
        if (a->pad[i] < 0 || a->pad[i] > (1LL << 20))
            return AT_FAIL(AT_EINVAL, "pool2d_max_nchw: padding must be in 0 .. 2^20");
    if (!at_ir_type_eq(a->dtype, AT_IR_F32)) {
        char tb[16];
        return AT_FAIL(AT_EINVAL, "pool2d_max_nchw: dtype %s is not supported (float32)", at_ir_type_str(a->dtype, tb));
    }
    at_conv2d_geom g;
    at_op_pool2d_geom(a, &g);
    if (g.oh < 1 || g.ow < 1)
        return AT_FAIL(AT_EINVAL, "pool2d_max_nchw: the dilated window (%lld x %lld) is larger than the padded input "
                       "(%lld x %lld)", (long long)g.khd, (long long)g.kwd, (long long)g.ihp, (long long)g.iwp);
    double sizes[3] = {(double)g.n * g.ci * g.ih * g.iw, (double)g.n * g.ci * g.oh * g.ow,
                       (double)g.n * g.ci * g.ihp * g.iwp};
    for (int i = 0; i < 3; i++)
        if (sizes[i] > (double)(1LL << 31) - 1)
            return AT_FAIL(AT_EINVAL, "pool2d_max_nchw: a tensor of more than 2^31 elements");
    return AT_OK;
}

static size_t tensors(const at_args *args, at_tensor_desc *out)
{
    const at_pool2d_args *a = &args->u.pool2d;
    at_conv2d_geom g;
    at_op_pool2d_geom(a, &g);
    out[0] = (at_tensor_desc){.name = "data", .dtype = a->dtype, .ndim = 4,
                              .shape = {a->data[0], a->data[1], a->data[2], a->data[3]},
                              .n_elems = a->data[0] * a->data[1] * a->data[2] * a->data[3]};
    out[1] = (at_tensor_desc){.name = "output", .dtype = a->dtype, .ndim = 4, .shape = {g.n, g.ci, g.oh, g.ow},
                              .n_elems = g.n * g.ci * g.oh * g.ow, .is_output = true};
    return 2;
}

/* ---- workload JSON and the comma form -------------------------------------------------------- */

static void write_json(const at_args *args, at_strbuf *sb)
{
    const at_pool2d_args *a = &args->u.pool2d;
    at_tmpl_write_tensor(sb, a->data, 4, a->dtype);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_ints(sb, a->kernel, 2);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_ints(sb, a->stride, 2);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_ints(sb, a->dilation, 2);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_ints(sb, a->pad, 4);
    at_strbuf_printf(sb, ", \"max\", %s, \"NCHW\", %s", a->ceil_mode ? "true" : "false",
                     a->count_include_pad ? "true" : "false");
}

static at_status read_json(const cJSON *array, at_args *args)
{
    if (cJSON_GetArraySize(array) != 9)
        return AT_FAIL(AT_EPARSE, "pool2d_max_nchw arguments: expected [data, kernel, stride, dilation, padding, "
                                  "\"max\", ceil_mode, \"NCHW\", count_include_pad]");
    at_pool2d_args a;
    memset(&a, 0, sizeof a);
    size_t got;
    AT_TRY(at_tmpl_json_tensor(cJSON_GetArrayItem(array, 0), "argument 0 (data)", 4, a.data, &a.dtype));
    AT_TRY(at_tmpl_json_ints(cJSON_GetArrayItem(array, 1), "argument 1 (kernel)", 2, 0, a.kernel, &got));
    AT_TRY(at_tmpl_json_ints(cJSON_GetArrayItem(array, 2), "argument 2 (stride)", 2, 0, a.stride, &got));
    AT_TRY(at_tmpl_json_ints(cJSON_GetArrayItem(array, 3), "argument 3 (dilation)", 2, 0, a.dilation, &got));
    AT_TRY(at_tmpl_json_ints(cJSON_GetArrayItem(array, 4), "argument 4 (padding)", 4, 0, a.pad, &got));
    AT_TRY(at_tmpl_json_string(cJSON_GetArrayItem(array, 5), "argument 5 (pool_type)", "max"));
    AT_TRY(at_tmpl_json_bool(cJSON_GetArrayItem(array, 6), "argument 6 (ceil_mode)", &a.ceil_mode));
    AT_TRY(at_tmpl_json_string(cJSON_GetArrayItem(array, 7), "argument 7 (layout)", "NCHW"));
    AT_TRY(at_tmpl_json_bool(cJSON_GetArrayItem(array, 8), "argument 8 (count_include_pad)", &a.count_include_pad));
    args->u.pool2d = a;
    return AT_OK;
}

/* N,C,H,W,KH,KW,S,P[,D][,dtype]: square stride S, padding P on all four sides, dilation D
 * (default 1), ceil_mode false, count_include_pad true (topi's defaults). */
static at_status parse_list(const char *text, at_args *args)
{
    int64_t v[10];
    size_t n;
    const char *dtype;
    AT_TRY(at_tmpl_parse_list(text, 10, v, &n, &dtype));
    if (n != 8 && n != 9)
        return AT_FAIL(AT_EPARSE, "pool2d_max_nchw arguments: expected %s, got '%s'", at_op_def_of(args->op)->comma_form,
                       text);
    at_pool2d_args a = {
        .data = {v[0], v[1], v[2], v[3]},
        .kernel = {v[4], v[5]},
        .stride = {v[6], v[6]},
        .dilation = {n == 9 ? v[8] : 1, n == 9 ? v[8] : 1},
        .pad = {v[7], v[7], v[7], v[7]},
        .count_include_pad = true,
        .dtype = AT_IR_F32,
    };
    if (dtype) AT_TRY(at_ir_type_parse(dtype, &a.dtype));
    args->u.pool2d = a;
    return AT_OK;
}

static double flop(const at_args *args)
{
    at_conv2d_geom g;
    at_op_pool2d_geom(&args->u.pool2d, &g);
    double window = (double)g.n * (double)g.ci * (double)g.oh * (double)g.ow * (double)g.kh * (double)g.kw;
    int pads = (g.pt != 0) + (g.pb != 0) + (g.pl != 0) + (g.pr != 0);
    if (pads == 0) return window;
    return window + (double)(2 * pads - 1) * (double)g.n * (double)g.ci * (double)g.ihp * (double)g.iwp;
}

/* ---- compute and reference ------------------------------------------------------------------- */

static void compute(const at_args *args, at_ir_sched *s)
{
    const at_pool2d_args *a = &args->u.pool2d;
    at_conv2d_geom g;
    at_op_pool2d_geom(a, &g);
    at_tensor_desc d[2];
    tensors(args, d);
    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, d[0].n_elems, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", a->dtype, d[1].n_elems, AT_IR_OUTPUT);
    at_tmpl_loop l[6] = {at_tmpl_loop_new(s, "n", g.n, AT_IR_SERIAL), at_tmpl_loop_new(s, "c", g.ci, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "h", g.oh, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", g.ow, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "rv0", g.kh, AT_IR_SERIAL), at_tmpl_loop_new(s, "rv1", g.kw, AT_IR_SERIAL)};
    const at_ir_expr *v[6];
    for (int i = 0; i < 6; i++) v[i] = at_ir_v(s, l[i].var);
    const int64_t od[4] = {g.n, g.ci, g.oh, g.ow};
    const at_ir_expr *oidx = at_tmpl_index(s, v, od, 4);
    at_tmpl_pad pad = at_tmpl_pad_of(&g);
    const at_ir_expr *lowest = at_tmpl_f(s, a->dtype, at_op_pool2d_lowest(a->dtype));
    pad.value = lowest;
    const at_ir_expr *h = at_ir_add(s, at_ir_mul(s, v[2], at_tmpl_i(s, g.sh)), at_ir_mul(s, v[4], at_tmpl_i(s, g.dh)));
    const at_ir_expr *w = at_ir_add(s, at_ir_mul(s, v[3], at_tmpl_i(s, g.sw)), at_ir_mul(s, v[5], at_tmpl_i(s, g.dw)));
    const at_ir_expr *x = at_tmpl_pad_load_ex(s, data, &pad, v[0], v[1], h, w, g.ihp - 1, g.iwp - 1);
    const at_ir_stmt *upd = at_tmpl_nest(s, &l[4], 2, at_ir_store(s, out, oidx, at_ir_max(s, at_ir_load(s, out, oidx, 1), x)));
    const at_ir_stmt *body = at_ir_seq2(s, at_ir_store(s, out, oidx, lowest), upd);
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, l, 4, body));
}

static void reference(const at_args *args, const void *const *inputs, void *const *outputs)
{
    const at_pool2d_args *a = &args->u.pool2d;
    at_conv2d_geom g;
    at_op_pool2d_geom(a, &g);
    double lowest = at_op_pool2d_lowest(a->dtype);
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t c = 0; c < g.ci; c++)
            for (int64_t oh = 0; oh < g.oh; oh++)
                for (int64_t ow = 0; ow < g.ow; ow++) {
                    double m = lowest;
                    for (int64_t kh = 0; kh < g.kh; kh++)
                        for (int64_t kw = 0; kw < g.kw; kw++) {
                            int64_t ih = oh * g.sh + kh * g.dh - g.pt, iw = ow * g.sw + kw * g.dw - g.pl;
                            if (ih < 0 || ih >= g.ih || iw < 0 || iw >= g.iw) continue; /* the pad: lowest */
                            double x = at_tmpl_load_f(a->dtype, inputs[0], ((n * g.ci + c) * g.ih + ih) * g.iw + iw);
                            if (x > m) m = x;
                        }
                    at_tmpl_store_f(a->dtype, outputs[0], ((n * g.ci + c) * g.oh + oh) * g.ow + ow, m);
                }
}

static at_op_tolerance tolerance(const at_args *a)
{
    (void)a;
    return (at_op_tolerance){0, 0}; /* a maximum is exact */
}

static const char *const tiny[] = {
    "1,4,9,9,3,3,2,1",   /* 3x3 stride 2 pad 1 (resnet's) */
    "2,3,8,7,2,2,2,0",   /* batch 2, no padding, odd width */
    "1,2,9,9,3,3,1,1,2", /* dilation 2 */
    "[[\"TENSOR\", [1, 3, 7, 8], \"float32\"], [3, 3], [2, 2], [1, 1], [0, 1, 1, 0], \"max\", true, \"NCHW\", true]",
    NULL,
};
static const char *const typical[] = {"1,64,112,112,3,3,2,1", "1,96,109,109,3,3,2,0", NULL};

const at_op_def at_op_pool2d_max_nchw = {
    AT_OP_ROW_("pool2d_max_nchw", "N,C,H,W,KH,KW,stride,pad[,dilation][,dtype]"),
    .tiny = tiny,
    .typical = typical,
};
