/* The convolution op kinds: conv2d_nchw (topi conv2d NCHW/OIHW as the spatial-pack compute
 * states it), conv2d_nchw_winograd (the same convolution through Mali's Winograd compute) and
 * depthwise_conv2d_nchw. They share one argument struct, TVM's workload tuple (data, kernel,
 * strides, padding, dilation, out_dtype), and one direct-convolution reference; they differ in
 * FLOPs exactly where TVM does: compute_flop counts topi's zero-pad stage (4a - 1 ops per padded
 * element for a padded spatial axes), Winograd's add_flop counts only 2 N CO H W KH KW CI.
 * conv2d_nchw also takes TVM's quantized form: int8 or uint8 data and kernel with an int32
 * out_dtype, compared exactly against the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"

static bool is_float(at_ir_type t)
{
    return t.code == AT_IR_TFLOAT && t.lanes == 1 && (t.bits == 16 || t.bits == 32 || t.bits == 64);
}

/* TVM's quantized workloads (TopHub's arm_cpu "vtacpu" records): int8 or uint8 data and kernel,
 * cast to the int32 out_dtype before the multiply. */
static bool is_int8(at_ir_type t)
{
    return (t.code == AT_IR_TINT || t.code == AT_IR_TUINT) && t.bits == 8 && t.lanes == 1;
}

bool at_op_conv2d_is_depthwise(at_op_kind op)
{
    return op == AT_OP_DEPTHWISE_CONV2D_NCHW || op == AT_OP_DEPTHWISE_CONV2D_NCHWC;
}

void at_op_conv2d_geom(at_op_kind op, const at_conv2d_args *a, at_conv2d_geom *g)
{
    memset(g, 0, sizeof *g);
    g->n = a->data[0];
    g->ci = a->data[1];
    g->ih = a->data[2];
    g->iw = a->data[3];
    if (at_op_conv2d_is_depthwise(op)) {
        g->mult = a->kernel[1];
        g->co = a->kernel[0] * a->kernel[1];
    } else {
        g->mult = 1;
        g->co = a->kernel[0];
    }
    g->kh = a->kernel[2];
    g->kw = a->kernel[3];
    at_tmpl_geom_window(g, a->stride, a->dilation, a->pad);
    at_tmpl_geom_derive(g);
}

int at_op_winograd_tile(const at_conv2d_args *a)
{
    return a->data[2] % 4 == 0 ? 4 : 2;
}

/* TVM's winograd_transform_matrices(m, 3): Cook-Toom with points [0, -1, 1] (m = 2) and
 * [0, -1, 1, 1/2, -2] (m = 4), exact values (spec/templates_vta.md 1.3). */
static const double A2[4 * 2] = {1, 0, 1, -1, 1, 1, 0, 1};
static const double B2[4 * 4] = {1, 0, 0, 0, 0, -1, 1, -1, -1, 1, 1, 0, 0, 0, 0, 1};
static const double G2[4 * 3] = {1, 0, 0, 0.5, -0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 1};
static const double A4[6 * 4] = {1, 0, 0, 0, 1, -1, 1, -1, 1, 1, 1, 1, 1, 0.5, 0.25, 0.125, 1, -2, 4, -8, 0, 0, 0, 1};
static const double B4[6 * 6] = {1,    0,    0,   0,  0,    0,    -1.5, 1,  -1, -2, 0.5,  1,
                                 -2,   -2.5, 0.5, -1, -1,   -1.5, 1.5,  0.5, 2.5, 2, -0.5, -2,
                                 1,    1,    1,   1,  1,    1.5,  0,    0,  0,  0,  0,    1};
static const double G4[6 * 3] = {1,           0,          0,          -1.0 / 3, 1.0 / 3,  -1.0 / 3,
                                 1.0 / 3,     1.0 / 3,    1.0 / 3,    -16.0 / 15, -8.0 / 15, -4.0 / 15,
                                 1.0 / 15,    -2.0 / 15,  4.0 / 15,   0,        0,        1};

void at_op_winograd_matrices(int m, const double **A, const double **B, const double **G)
{
    AT_ASSERT(m == 2 || m == 4);
    *A = m == 2 ? A2 : A4;
    *B = m == 2 ? B2 : B4;
    *G = m == 2 ? G2 : G4;
}

at_status at_op_conv2d_check_args(at_op_kind op, const at_conv2d_args *a)
{
    const char *name = at_op_name(op);
    for (int i = 0; i < 4; i++)
        if (a->data[i] < 1 || a->kernel[i] < 1 || a->data[i] > (1LL << 24) || a->kernel[i] > (1LL << 24))
            return AT_FAIL(AT_EINVAL, "%s: tensor extents must be in 1 .. 2^24, got data [%lld, %lld, %lld, %lld] "
                           "kernel [%lld, %lld, %lld, %lld]", name, (long long)a->data[0], (long long)a->data[1],
                           (long long)a->data[2], (long long)a->data[3], (long long)a->kernel[0], (long long)a->kernel[1],
                           (long long)a->kernel[2], (long long)a->kernel[3]);
    if (at_op_conv2d_is_depthwise(op)) {
        if (a->kernel[0] != a->data[1])
            return AT_FAIL(AT_EINVAL, "%s: kernel has %lld channels, data %lld", name, (long long)a->kernel[0],
                           (long long)a->data[1]);
    } else if (a->kernel[1] != a->data[1]) {
        return AT_FAIL(AT_EINVAL, "%s: kernel takes %lld input channels, data has %lld", name, (long long)a->kernel[1],
                       (long long)a->data[1]);
    }
    for (int i = 0; i < 2; i++)
        if (a->stride[i] < 1 || a->dilation[i] < 1 || a->stride[i] > 1024 || a->dilation[i] > 1024)
            return AT_FAIL(AT_EINVAL, "%s: strides and dilation must be in 1 .. 1024", name);
    for (int i = 0; i < 4; i++)
        if (a->pad[i] < 0 || a->pad[i] > (1LL << 20)) return AT_FAIL(AT_EINVAL, "%s: padding must be in 0 .. 2^20", name);
    if (!is_float(a->dtype) || !is_float(a->kernel_dtype) || !is_float(a->out_dtype)) {
        if (op != AT_OP_CONV2D_NCHW)
            return AT_FAIL(AT_EINVAL, "%s: dtypes must be float16, float32 or float64", name);
        if (!is_int8(a->dtype) || !is_int8(a->kernel_dtype) || !at_ir_type_eq(a->out_dtype, AT_IR_I32))
            return AT_FAIL(AT_EINVAL, "%s: dtypes must be float16, float32 or float64, or int8/uint8 data and kernel "
                           "with an int32 out_dtype", name);
    }
    at_conv2d_geom g;
    at_op_conv2d_geom(op, a, &g);
    if (g.oh < 1 || g.ow < 1)
        return AT_FAIL(AT_EINVAL, "%s: the dilated kernel (%lld x %lld) is larger than the padded input (%lld x %lld)",
                       name, (long long)g.khd, (long long)g.kwd, (long long)g.ihp, (long long)g.iwp);
    double sizes[4] = {(double)g.n * g.ci * g.ih * g.iw, (double)a->kernel[0] * a->kernel[1] * g.kh * g.kw,
                       (double)g.n * g.co * g.oh * g.ow, (double)g.n * g.ci * g.ihp * g.iwp};
    for (int i = 0; i < 4; i++)
        if (sizes[i] > (double)(1LL << 31) - 1)
            return AT_FAIL(AT_EINVAL, "%s: a tensor of more than 2^31 elements", name);
    if (op == AT_OP_CONV2D_NCHW_WINOGRAD &&
        (g.kh != 3 || g.kw != 3 || g.sh != 1 || g.sw != 1 || g.dh != 1 || g.dw != 1))
        return AT_FAIL(AT_EINVAL, "%s: winograd takes a 3x3 kernel with stride 1 and dilation 1, got %lldx%lld "
                       "stride [%lld, %lld] dilation [%lld, %lld]", name, (long long)g.kh, (long long)g.kw,
                       (long long)g.sh, (long long)g.sw, (long long)g.dh, (long long)g.dw);
    return AT_OK;
}

size_t at_op_conv2d_tensors(at_op_kind op, const at_conv2d_args *a, at_tensor_desc *out)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(op, a, &g);
    out[0] = (at_tensor_desc){.name = "data", .dtype = a->dtype, .ndim = 4,
                              .shape = {a->data[0], a->data[1], a->data[2], a->data[3]},
                              .n_elems = a->data[0] * a->data[1] * a->data[2] * a->data[3]};
    out[1] = (at_tensor_desc){.name = "kernel", .dtype = a->kernel_dtype, .ndim = 4,
                              .shape = {a->kernel[0], a->kernel[1], a->kernel[2], a->kernel[3]},
                              .n_elems = a->kernel[0] * a->kernel[1] * a->kernel[2] * a->kernel[3]};
    out[2] = (at_tensor_desc){.name = "output", .dtype = a->out_dtype, .ndim = 4, .shape = {g.n, g.co, g.oh, g.ow},
                              .n_elems = g.n * g.co * g.oh * g.ow, .is_output = true};
    return 3;
}

/* ---- workload JSON --------------------------------------------------------------------------- */

void at_op_conv2d_args_write_json(const at_conv2d_args *a, at_strbuf *sb)
{
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
    if (a->dilation_form == AT_FORM_INT)
        at_json_write_int(sb, a->dilation[0]);
    else
        at_tmpl_write_ints(sb, a->dilation, 2);
    at_strbuf_puts(sb, ", ");
    at_tmpl_write_dtype_or_null(sb, a->out_dtype, a->out_dtype_null);
}

/* An int or a list of 2 (padding: also of 4). */
static at_status json_pair(const cJSON *item, const char *what, bool padding, int64_t *out, at_args_form *form)
{
    if (cJSON_IsNumber(item)) {
        int64_t v;
        AT_TRY(at_tmpl_json_int(item, what, &v));
        for (int i = 0; i < (padding ? 4 : 2); i++) out[i] = v;
        *form = AT_FORM_INT;
        return AT_OK;
    }
    int64_t v[4];
    size_t got;
    AT_TRY(at_tmpl_json_ints(item, what, padding ? 4 : 2, padding ? 2 : 0, v, &got));
    if (padding && got == 2) { /* get_pad_tuple: [pad_h, pad_w] pads both sides */
        out[0] = out[2] = v[0];
        out[1] = out[3] = v[1];
        *form = AT_FORM_PAIR;
    } else {
        memcpy(out, v, got * sizeof *v);
        *form = AT_FORM_LIST;
    }
    return AT_OK;
}

at_status at_op_conv2d_args_from_json(at_op_kind op, const cJSON *array, at_conv2d_args *out)
{
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != 6)
        return AT_FAIL(AT_EPARSE, "%s arguments: expected [data, kernel, strides, padding, dilation, out_dtype]",
                       at_op_name(op));
    return at_op_conv2d_args_read(array, 5, out);
}

at_status at_op_conv2d_args_read(const cJSON *array, int dtype_at, at_conv2d_args *out)
{
    char what[40];
    snprintf(what, sizeof what, "argument %d (out_dtype)", dtype_at);
    at_conv2d_args a;
    memset(&a, 0, sizeof a);
    AT_TRY(at_tmpl_json_tensor(cJSON_GetArrayItem(array, 0), "argument 0 (data)", 4, a.data, &a.dtype));
    AT_TRY(at_tmpl_json_tensor(cJSON_GetArrayItem(array, 1), "argument 1 (kernel)", 4, a.kernel, &a.kernel_dtype));
    AT_TRY(json_pair(cJSON_GetArrayItem(array, 2), "argument 2 (strides)", false, a.stride, &a.stride_form));
    AT_TRY(json_pair(cJSON_GetArrayItem(array, 3), "argument 3 (padding)", true, a.pad, &a.pad_form));
    AT_TRY(json_pair(cJSON_GetArrayItem(array, 4), "argument 4 (dilation)", false, a.dilation, &a.dilation_form));
    AT_TRY(at_tmpl_json_dtype_or_null(cJSON_GetArrayItem(array, dtype_at), what, &a.out_dtype, &a.out_dtype_null));
    if (a.out_dtype_null) a.out_dtype = a.dtype;
    *out = a;
    return AT_OK;
}

/* N,C,H,W,K,KH,KW,S,P[,D][,dtype]: K = output channels (conv2d) or the multiplier (depthwise);
 * square stride S, padding P on all four sides, dilation D (default 1). */
at_status at_op_conv2d_parse_list(const char *text, at_args *out)
{
    at_op_kind op = out->op;
    int64_t v[10];
    size_t n;
    const char *dtype;
    AT_TRY(at_tmpl_parse_list(text, 10, v, &n, &dtype));
    if (n != 9 && n != 10)
        return AT_FAIL(AT_EPARSE, "%s arguments: expected %s, got '%s'", at_op_name(op), at_op_def_of(op)->comma_form,
                       text);
    at_conv2d_args *a = &out->u.conv2d;
    memset(a, 0, sizeof *a);
    a->data[0] = v[0];
    a->data[1] = v[1];
    a->data[2] = v[2];
    a->data[3] = v[3];
    if (at_op_conv2d_is_depthwise(op)) {
        a->kernel[0] = v[1];
        a->kernel[1] = v[4];
    } else {
        a->kernel[0] = v[4];
        a->kernel[1] = v[1];
    }
    a->kernel[2] = v[5];
    a->kernel[3] = v[6];
    a->stride[0] = a->stride[1] = v[7];
    for (int i = 0; i < 4; i++) a->pad[i] = v[8];
    a->dilation[0] = a->dilation[1] = n == 10 ? v[9] : 1;
    a->dtype = AT_IR_F32;
    if (dtype) AT_TRY(at_ir_type_parse(dtype, &a->dtype));
    a->kernel_dtype = a->out_dtype = a->dtype;
    if (is_int8(a->dtype)) a->out_dtype = AT_IR_I32; /* int8 data and kernel accumulate in int32 */
    return AT_OK;
}

/* ---- FLOPs ---------------------------------------------------------------------------------- */

/* compute_flop of topi's nn.pad on NCHW data: per element, two comparisons for each padded axis
 * joined by ANDs (tvm.tir.all), in an if_then_else whose loads count 0. */
static double pad_flop(const at_conv2d_geom *g)
{
    int axes = (g->pt || g->pb) + (g->pl || g->pr);
    if (axes == 0) return 0;
    return (double)(4 * axes - 1) * (double)g->n * (double)g->ci * (double)g->ihp * (double)g->iwp;
}

double at_op_conv2d_flop(at_op_kind op, const at_conv2d_args *a)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(op, a, &g);
    double mac = 2.0 * (double)g.n * (double)g.co * (double)g.oh * (double)g.ow * (double)g.kh * (double)g.kw;
    if (op == AT_OP_CONV2D_NCHW_WINOGRAD) return mac * (double)g.ci; /* cfg.add_flop */
    if (at_op_conv2d_is_depthwise(op)) return mac + pad_flop(&g);
    AT_ASSERT(op == AT_OP_CONV2D_NCHW || op == AT_OP_CONV2D_NCHWC);
    return mac * (double)g.ci + pad_flop(&g);
}

/* ---- unscheduled compute -------------------------------------------------------------------- */

/* sum_i terms[i] accumulated left to right (TVM's reduction order); NULL when there is none. */
static const at_ir_expr *sum_terms(at_ir_sched *s, const at_ir_expr *const *terms, size_t n)
{
    const at_ir_expr *acc = NULL;
    for (size_t i = 0; i < n; i++) acc = acc ? at_ir_add(s, acc, terms[i]) : terms[i];
    return acc;
}

/* e * c, with TVM's constant folding of a factor 1 (terms with a factor 0 are dropped by callers). */
static const at_ir_expr *mul_const(at_ir_sched *s, at_ir_type t, const at_ir_expr *e, double c)
{
    if (c == 1) return e;
    return at_ir_mul(s, e, at_tmpl_f(s, t, c));
}

static const at_ir_expr *v_(at_ir_sched *s, at_tmpl_loop l)
{
    return at_ir_v(s, l.var);
}

/* Winograd as TVM's _decl_winograd states it with bna = bnb = 1, one serial stage after another.
 * The transform matrices are constants, so the loops they index are unrolled here, when the IR is
 * built (every Mali schedule unrolls them too), and zero terms are left out. */
static void winograd_compute(const at_conv2d_args *a, const at_conv2d_geom *g, at_ir_sched *s,
                             const at_ir_buffer *data, const at_ir_buffer *kernel, const at_ir_buffer *out)
{
    at_ir_type ot = a->out_dtype;
    int m = at_op_winograd_tile(a), al = m + 2;
    const double *A, *B, *G;
    at_op_winograd_matrices(m, &A, &B, &G);
    int64_t H = g->oh, W = g->ow, nH = (H + m - 1) / m, nW = (W + m - 1) / m, P = g->n * nH * nW;
    const at_ir_buffer *U = at_ir_temp(s, "U", ot, al * al * g->co * g->ci);
    const at_ir_buffer *V = at_ir_temp(s, "V", ot, al * al * P * g->ci);
    const at_ir_buffer *M = at_ir_temp(s, "M", ot, al * al * g->co * P);
    const at_ir_buffer *Y = at_ir_temp(s, "Y", ot, g->co * P * m * m);
    const at_ir_stmt *stages[5];
    const at_ir_expr *terms[36];
    const at_ir_stmt *items[36];

    /* U[eps][nu][co][ci] = sum_{r_kh, r_kw} kernel[co][ci][r_kh][r_kw] G[eps][r_kh] G[nu][r_kw] */
    at_tmpl_loop co = at_tmpl_loop_new(s, "co", g->co, AT_IR_SERIAL), ci = at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL);
    for (int eps = 0; eps < al; eps++)
        for (int nu = 0; nu < al; nu++) {
            size_t nt = 0;
            for (int kh = 0; kh < 3; kh++)
                for (int kw = 0; kw < 3; kw++) {
                    double g1 = G[eps * 3 + kh], g2 = G[nu * 3 + kw];
                    if (g1 == 0 || g2 == 0) continue;
                    const at_ir_expr *ki[4] = {v_(s, co), v_(s, ci), at_tmpl_i(s, kh), at_tmpl_i(s, kw)};
                    const int64_t kd[4] = {g->co, g->ci, 3, 3};
                    const at_ir_expr *k = at_tmpl_cast(s, ot, at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1));
                    terms[nt++] = mul_const(s, ot, mul_const(s, ot, k, g1), g2);
                }
            const at_ir_expr *ui[4] = {at_tmpl_i(s, eps), at_tmpl_i(s, nu), v_(s, co), v_(s, ci)};
            const int64_t ud[4] = {al, al, g->co, g->ci};
            items[eps * al + nu] = at_ir_store(s, U, at_tmpl_index(s, ui, ud, 4), sum_terms(s, terms, nt));
        }
    at_tmpl_loop ul[2] = {co, ci};
    stages[0] = at_tmpl_nest(s, ul, 2, at_ir_seq(s, items, (size_t)(al * al)));

    /* V[eps][nu][p][ci] = sum_{r_a, r_b} d[ci][p][r_a][r_b] B[r_a][eps] B[r_b][nu], d the zero-padded
     * input tile p (TVM's input_tile, here with bnb = 1 so every tile exists) */
    at_tmpl_loop p = at_tmpl_loop_new(s, "p", P, AT_IR_SERIAL), c2 = at_tmpl_loop_new(s, "ci", g->ci, AT_IR_SERIAL);
    const at_ir_expr *pn = at_ir_div(s, v_(s, p), at_tmpl_i(s, nH * nW));
    const at_ir_expr *ph = at_ir_mul(s, at_ir_mod(s, at_ir_div(s, v_(s, p), at_tmpl_i(s, nW)), at_tmpl_i(s, nH)), at_tmpl_i(s, m));
    const at_ir_expr *pw = at_ir_mul(s, at_ir_mod(s, v_(s, p), at_tmpl_i(s, nW)), at_tmpl_i(s, m));
    for (int eps = 0; eps < al; eps++)
        for (int nu = 0; nu < al; nu++) {
            size_t nt = 0;
            for (int ra = 0; ra < al; ra++)
                for (int rb = 0; rb < al; rb++) {
                    double b1 = B[ra * al + eps], b2 = B[rb * al + nu];
                    if (b1 == 0 || b2 == 0) continue;
                    const at_ir_expr *d = at_tmpl_pad_load(s, data, g, pn, v_(s, c2), at_ir_add(s, ph, at_tmpl_i(s, ra)),
                                                           at_ir_add(s, pw, at_tmpl_i(s, rb)), (nH - 1) * m + al - 1,
                                                           (nW - 1) * m + al - 1);
                    terms[nt++] = mul_const(s, ot, mul_const(s, ot, at_tmpl_cast(s, ot, d), b1), b2);
                }
            const at_ir_expr *vi[4] = {at_tmpl_i(s, eps), at_tmpl_i(s, nu), v_(s, p), v_(s, c2)};
            const int64_t vd[4] = {al, al, P, g->ci};
            items[eps * al + nu] = at_ir_store(s, V, at_tmpl_index(s, vi, vd, 4), sum_terms(s, terms, nt));
        }
    at_tmpl_loop vl[2] = {p, c2};
    stages[1] = at_tmpl_nest(s, vl, 2, at_ir_seq(s, items, (size_t)(al * al)));

    /* M[eps][nu][co][p] = sum_ci U[eps][nu][co][ci] V[eps][nu][p][ci] */
    at_tmpl_loop ml[5] = {at_tmpl_loop_new(s, "eps", al, AT_IR_SERIAL), at_tmpl_loop_new(s, "nu", al, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "co", g->co, AT_IR_SERIAL), at_tmpl_loop_new(s, "p", P, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "c", g->ci, AT_IR_SERIAL)};
    {
        const at_ir_expr *mi[4] = {v_(s, ml[0]), v_(s, ml[1]), v_(s, ml[2]), v_(s, ml[3])};
        const int64_t md[4] = {al, al, g->co, P};
        const at_ir_expr *midx = at_tmpl_index(s, mi, md, 4);
        const at_ir_expr *ui[4] = {v_(s, ml[0]), v_(s, ml[1]), v_(s, ml[2]), v_(s, ml[4])};
        const int64_t ud[4] = {al, al, g->co, g->ci};
        const at_ir_expr *vi[4] = {v_(s, ml[0]), v_(s, ml[1]), v_(s, ml[3]), v_(s, ml[4])};
        const int64_t vd[4] = {al, al, P, g->ci};
        const at_ir_expr *prod = at_ir_mul(s, at_ir_load(s, U, at_tmpl_index(s, ui, ud, 4), 1),
                                           at_ir_load(s, V, at_tmpl_index(s, vi, vd, 4), 1));
        const at_ir_stmt *upd = at_tmpl_nest(s, &ml[4], 1, at_ir_store(s, M, midx, at_ir_add(s, at_ir_load(s, M, midx, 1), prod)));
        stages[2] = at_tmpl_nest(s, ml, 4, at_ir_seq2(s, at_ir_store(s, M, midx, at_tmpl_f(s, ot, 0)), upd));
    }

    /* Y[co][p][vh][vw] = sum_{r_a, r_b} M[r_a][r_b][co][p] A[r_a][vh] A[r_b][vw] */
    at_tmpl_loop yl[2] = {at_tmpl_loop_new(s, "co", g->co, AT_IR_SERIAL), at_tmpl_loop_new(s, "p", P, AT_IR_SERIAL)};
    for (int vh = 0; vh < m; vh++)
        for (int vw = 0; vw < m; vw++) {
            size_t nt = 0;
            for (int ra = 0; ra < al; ra++)
                for (int rb = 0; rb < al; rb++) {
                    double a1 = A[ra * m + vh], a2 = A[rb * m + vw];
                    if (a1 == 0 || a2 == 0) continue;
                    const at_ir_expr *mi[4] = {at_tmpl_i(s, ra), at_tmpl_i(s, rb), v_(s, yl[0]), v_(s, yl[1])};
                    const int64_t md[4] = {al, al, g->co, P};
                    terms[nt++] = mul_const(s, ot, mul_const(s, ot, at_ir_load(s, M, at_tmpl_index(s, mi, md, 4), 1), a1), a2);
                }
            const at_ir_expr *yi[4] = {v_(s, yl[0]), v_(s, yl[1]), at_tmpl_i(s, vh), at_tmpl_i(s, vw)};
            const int64_t yd[4] = {g->co, P, m, m};
            items[vh * m + vw] = at_ir_store(s, Y, at_tmpl_index(s, yi, yd, 4), sum_terms(s, terms, nt));
        }
    stages[3] = at_tmpl_nest(s, yl, 2, at_ir_seq(s, items, (size_t)(m * m)));

    /* output[n][co][h][w] = Y[co][n nH nW + h/m nW + w/m][h % m][w % m] */
    at_tmpl_loop ol[4] = {at_tmpl_loop_new(s, "n", g->n, AT_IR_SERIAL), at_tmpl_loop_new(s, "co", g->co, AT_IR_SERIAL),
                          at_tmpl_loop_new(s, "h", H, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", W, AT_IR_SERIAL)};
    {
        const at_ir_expr *h = v_(s, ol[2]), *w = v_(s, ol[3]), *im = at_tmpl_i(s, m);
        const at_ir_expr *pp = at_ir_add(s, at_ir_add(s, at_ir_mul(s, v_(s, ol[0]), at_tmpl_i(s, nH * nW)),
                                                      at_ir_mul(s, at_ir_div(s, h, im), at_tmpl_i(s, nW))),
                                         at_ir_div(s, w, im));
        const at_ir_expr *yi[4] = {v_(s, ol[1]), pp, at_ir_mod(s, h, im), at_ir_mod(s, w, im)};
        const int64_t yd[4] = {g->co, P, m, m};
        const at_ir_expr *oi[4] = {v_(s, ol[0]), v_(s, ol[1]), h, w};
        const int64_t od[4] = {g->n, g->co, H, W};
        stages[4] = at_tmpl_nest(s, ol, 4, at_ir_store(s, out, at_tmpl_index(s, oi, od, 4),
                                                       at_ir_load(s, Y, at_tmpl_index(s, yi, yd, 4), 1)));
    }
    at_ir_add_kernel(s, "default_function_kernel", at_ir_seq(s, stages, 5));
}

void at_op_conv2d_compute(at_op_kind op, const at_conv2d_args *a, at_ir_sched *s)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(op, a, &g);
    at_tensor_desc d[3];
    at_op_conv2d_tensors(op, a, d);
    const at_ir_buffer *data = at_ir_param(s, "data", a->dtype, d[0].n_elems, AT_IR_INPUT);
    const at_ir_buffer *kernel = at_ir_param(s, "kernel", a->kernel_dtype, d[1].n_elems, AT_IR_INPUT);
    const at_ir_buffer *out = at_ir_param(s, "output", a->out_dtype, d[2].n_elems, AT_IR_OUTPUT);
    if (op == AT_OP_CONV2D_NCHW_WINOGRAD) {
        winograd_compute(a, &g, s, data, kernel, out);
        return;
    }
    /* output[n][c][h][w] = sum_{ci, kh, kw} pad(data)[n][ci][h sh + kh dh][w sw + kw dw] kernel[c][ci][kh][kw]
     * (depthwise: the one input channel c / mult and kernel[c / mult][c % mult][kh][kw]) */
    bool dw = at_op_conv2d_is_depthwise(op);
    at_ir_type ot = a->out_dtype;
    at_tmpl_loop l[7] = {at_tmpl_loop_new(s, "n", g.n, AT_IR_SERIAL), at_tmpl_loop_new(s, "c", g.co, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "h", g.oh, AT_IR_SERIAL), at_tmpl_loop_new(s, "w", g.ow, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "rc", dw ? 1 : g.ci, AT_IR_SERIAL),
                         at_tmpl_loop_new(s, "ry", g.kh, AT_IR_SERIAL), at_tmpl_loop_new(s, "rx", g.kw, AT_IR_SERIAL)};
    const at_ir_expr *c = v_(s, l[1]), *rc = v_(s, l[4]), *ry = v_(s, l[5]), *rx = v_(s, l[6]);
    const at_ir_expr *oi[4] = {v_(s, l[0]), c, v_(s, l[2]), v_(s, l[3])};
    const int64_t od[4] = {g.n, g.co, g.oh, g.ow};
    const at_ir_expr *oidx = at_tmpl_index(s, oi, od, 4);
    const at_ir_expr *ic = dw ? at_ir_div(s, c, at_tmpl_i(s, g.mult)) : rc;
    const at_ir_expr *h = at_ir_add(s, at_ir_mul(s, v_(s, l[2]), at_tmpl_i(s, g.sh)), at_ir_mul(s, ry, at_tmpl_i(s, g.dh)));
    const at_ir_expr *w = at_ir_add(s, at_ir_mul(s, v_(s, l[3]), at_tmpl_i(s, g.sw)), at_ir_mul(s, rx, at_tmpl_i(s, g.dw)));
    const at_ir_expr *x = at_tmpl_pad_load(s, data, &g, v_(s, l[0]), ic, h, w, g.ihp - 1, g.iwp - 1);
    const at_ir_expr *ki[4] = {dw ? ic : c, dw ? at_ir_mod(s, c, at_tmpl_i(s, g.mult)) : rc, ry, rx};
    const int64_t kd[4] = {a->kernel[0], a->kernel[1], g.kh, g.kw};
    const at_ir_expr *k = at_ir_load(s, kernel, at_tmpl_index(s, ki, kd, 4), 1);
    const at_ir_expr *prod = at_ir_mul(s, at_tmpl_cast(s, ot, x), at_tmpl_cast(s, ot, k));
    const at_ir_stmt *upd = at_tmpl_nest(s, &l[4], 3, at_ir_store(s, out, oidx, at_ir_add(s, at_ir_load(s, out, oidx, 1), prod)));
    const at_ir_stmt *body = at_ir_seq2(s, at_ir_store(s, out, oidx, at_tmpl_f(s, ot, 0)), upd);
    at_ir_add_kernel(s, "default_function_kernel", at_tmpl_nest(s, l, 4, body));
}

/* ---- reference ------------------------------------------------------------------------------ */

void at_op_conv2d_ref(at_op_kind op, const at_conv2d_args *a, const void *data, const void *kernel, void *out)
{
    at_conv2d_geom g;
    at_op_conv2d_geom(op, a, &g);
    bool dw = at_op_conv2d_is_depthwise(op);
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t c = 0; c < g.co; c++)
            for (int64_t oh = 0; oh < g.oh; oh++)
                for (int64_t ow = 0; ow < g.ow; ow++) {
                    double acc = 0;
                    for (int64_t rc = 0; rc < (dw ? 1 : g.ci); rc++)
                        for (int64_t kh = 0; kh < g.kh; kh++)
                            for (int64_t kw = 0; kw < g.kw; kw++) {
                                int64_t ih = oh * g.sh + kh * g.dh - g.pt, iw = ow * g.sw + kw * g.dw - g.pl;
                                if (ih < 0 || ih >= g.ih || iw < 0 || iw >= g.iw) continue;
                                int64_t ic = dw ? c / g.mult : rc;
                                int64_t ko = dw ? ((ic * g.mult + c % g.mult) * g.kh + kh) * g.kw + kw
                                                : ((c * g.ci + rc) * g.kh + kh) * g.kw + kw;
                                acc += at_tmpl_load_f(a->dtype, data, ((n * g.ci + ic) * g.ih + ih) * g.iw + iw) *
                                       at_tmpl_load_f(a->kernel_dtype, kernel, ko);
                            }
                    at_tmpl_store_f(a->out_dtype, out, ((n * g.co + c) * g.oh + oh) * g.ow + ow, acc);
                }
}

at_op_tolerance at_op_conv2d_tolerance(at_op_kind op, const at_conv2d_args *a)
{
    if (at_ir_type_is_int(a->out_dtype)) return (at_op_tolerance){0, 0}; /* integer sums: exact */
    /* a device sums in its own order; Winograd's transforms lose about one more digit */
    double eps = a->out_dtype.bits == 64 ? 1e-12 : a->out_dtype.bits == 16 ? 1e-2 : 1e-4;
    if (op == AT_OP_CONV2D_NCHW_WINOGRAD) eps *= 10;
    return (at_op_tolerance){.atol = eps, .rtol = eps};
}

/* ---- the op-kind rows ------------------------------------------------------------------------ */

static at_status check_args(const at_args *a)
{
    return at_op_conv2d_check_args(a->op, &a->u.conv2d);
}

static size_t tensors(const at_args *a, at_tensor_desc *out)
{
    return at_op_conv2d_tensors(a->op, &a->u.conv2d, out);
}

static void write_json(const at_args *a, at_strbuf *sb)
{
    at_op_conv2d_args_write_json(&a->u.conv2d, sb);
}

static at_status read_json(const cJSON *array, at_args *a)
{
    return at_op_conv2d_args_from_json(a->op, array, &a->u.conv2d);
}

static double flop(const at_args *a)
{
    return at_op_conv2d_flop(a->op, &a->u.conv2d);
}

static void compute(const at_args *a, at_ir_sched *s)
{
    at_op_conv2d_compute(a->op, &a->u.conv2d, s);
}

static void reference(const at_args *a, const void *const *inputs, void *const *outputs)
{
    at_op_conv2d_ref(a->op, &a->u.conv2d, inputs[0], inputs[1], outputs[0]);
}

static at_op_tolerance tolerance(const at_args *a)
{
    return at_op_conv2d_tolerance(a->op, &a->u.conv2d);
}

/* the rows' parse_list (AT_OP_ROW_): the comma form, shared with the x86 NCHWc kinds */
static at_status parse_list(const char *text, at_args *out)
{
    return at_op_conv2d_parse_list(text, out);
}

static const char *const conv_tiny[] = {
    "1,4,9,9,8,3,3,1,1",   /* padded 3x3 */
    "2,3,11,11,6,3,3,2,1", /* batch 2, stride 2 */
    "1,4,6,6,8,1,1,1,0",   /* 1x1, no padding */
    "1,2,9,9,4,3,3,1,2,2", /* dilation 2 */
    "[[\"TENSOR\", [1, 3, 8, 7], \"float32\"], [\"TENSOR\", [4, 3, 3, 3], \"float32\"], [1, 1], [0, 1, 0, 1], [1, 1], "
    "\"float32\"]", /* asymmetric padding */
    NULL,
};
static const char *const conv_typical[] = {"1,64,56,56,64,3,3,1,1", "1,128,28,28,256,3,3,2,1", NULL};

const at_op_def at_op_conv2d_nchw = {
    AT_OP_ROW_("conv2d_nchw", "N,C,H,W,CO,KH,KW,stride,pad[,dilation][,dtype]"),
    .tiny = conv_tiny,
    .typical = conv_typical,
};

static const char *const wino_tiny[] = {
    "1,4,8,8,8,3,3,1,1", /* m = 4 */
    "1,4,6,6,4,3,3,1,1", /* m = 2 */
    "2,3,7,7,4,3,3,1,1", /* m = 2, ragged 7 / 2, batch 2 */
    "1,2,4,6,2,3,3,1,0", /* m = 4, no padding, 2 x 4 output */
    NULL,
};
static const char *const wino_typical[] = {"1,64,56,56,64,3,3,1,1", "1,256,14,14,256,3,3,1,1", NULL};

const at_op_def at_op_conv2d_nchw_winograd = {
    AT_OP_ROW_("conv2d_nchw_winograd", "N,C,H,W,CO,KH,KW,stride,pad[,dilation][,dtype]"),
    .tiny = wino_tiny,
    .typical = wino_typical,
};

static const char *const dw_tiny[] = {
    "1,6,9,9,1,3,3,1,1",
    "1,4,10,10,2,3,3,2,1", /* multiplier 2, stride 2 */
    "2,3,8,8,1,3,3,1,0",
    NULL,
};
static const char *const dw_typical[] = {"1,32,112,112,1,3,3,1,1", "1,256,28,28,1,3,3,2,1", NULL};

const at_op_def at_op_depthwise_conv2d_nchw = {
    AT_OP_ROW_("depthwise_conv2d_nchw", "N,C,H,W,multiplier,KH,KW,stride,pad[,dilation][,dtype]"),
    .tiny = dw_tiny,
    .typical = dw_typical,
};
