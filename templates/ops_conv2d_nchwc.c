/* conv2d_NCHWc and depthwise_conv2d_NCHWc: the computes TVM's x86 templates register
 * (topi/x86/conv2d.py, topi/x86/depthwise_conv2d.py). Relay extracts their tasks from an NCHW
 * network before the layout changes, so a workload is the NCHW convolution plus the two layout
 * strings: (data, kernel, strides, padding, dilation, "NCHW", "NCHW", out_dtype). The convolution
 * itself is conv2d_nchw's (templates/ops_conv2d.c): the same argument struct, reference and
 * FLOPs, since compute_flop over the blocked compute counts the same multiply-adds and the same
 * zero-pad stage (the 5-D pad pads the same two axes). The depthwise kind takes only multiplier
 * 1, as TVM's compute asserts. */
#include <string.h>

#include "templates/internal.h"
#include "templates/ops.h"

static at_status check_args(const at_args *a)
{
    AT_TRY(at_op_conv2d_check_args(a->op, &a->u.conv2d));
    if (a->op == AT_OP_DEPTHWISE_CONV2D_NCHWC && a->u.conv2d.kernel[1] != 1)
        return AT_FAIL(AT_EINVAL, "depthwise_conv2d_NCHWc: channel multiplier must be 1, got %lld",
                       (long long)a->u.conv2d.kernel[1]);
    return AT_OK;
}

static size_t tensors(const at_args *a, at_tensor_desc *out)
{
    return at_op_conv2d_tensors(a->op, &a->u.conv2d, out);
}

static void write_json(const at_args *a, at_strbuf *sb)
{
    /* conv2d's six arguments with the layouts before out_dtype */
    at_strbuf sub;
    at_strbuf_init(&sub);
    at_op_conv2d_args_write_json(&a->u.conv2d, &sub);
    const char *text = at_strbuf_cstr(&sub);
    const char *last = sub.failed ? NULL : strrchr(text, ',');
    if (!last) {
        sb->failed = 1;
        at_strbuf_fini(&sub);
        return;
    }
    at_strbuf_printf(sb, "%.*s, \"NCHW\", \"NCHW\"%s", (int)(last - text), text, last);
    at_strbuf_fini(&sub);
}

static at_status read_json(const cJSON *array, at_args *a)
{
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) != 8)
        return AT_FAIL(AT_EPARSE, "%s arguments: expected [data, kernel, strides, padding, dilation, layout, "
                       "out_layout, out_dtype]", at_op_name(a->op));
    AT_TRY(at_tmpl_json_string(cJSON_GetArrayItem(array, 5), "argument 5 (layout)", "NCHW"));
    AT_TRY(at_tmpl_json_string(cJSON_GetArrayItem(array, 6), "argument 6 (out_layout)", "NCHW"));
    return at_op_conv2d_args_read(array, 7, &a->u.conv2d);
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

#define NCHWC_ROW_(kind_name, form)                                                                  \
    .name = kind_name, .check_args = check_args, .tensors = tensors, .write_json = write_json,      \
    .read_json = read_json, .parse_list = at_op_conv2d_parse_list, .comma_form = form,              \
    .flop = flop, .compute = compute, .reference = reference, .tolerance = tolerance

static const char *const conv_tiny[] = {
    "1,4,9,9,8,3,3,1,1",   /* padded 3x3 */
    "2,3,11,11,6,3,3,2,1", /* batch 2, stride 2 */
    "1,4,6,6,8,1,1,1,0",   /* 1x1, no padding */
    "1,8,7,5,4,1,1,2,0",   /* 1x1, stride 2, odd rows */
    "1,2,9,9,4,3,3,1,2,2", /* dilation 2 */
    NULL,
};
static const char *const conv_typical[] = {"1,64,56,56,64,3,3,1,1", "1,256,56,56,128,1,1,2,0", NULL};

const at_op_def at_op_conv2d_nchwc = {
    NCHWC_ROW_("conv2d_NCHWc", "N,C,H,W,CO,KH,KW,stride,pad[,dilation][,dtype]"),
    .tiny = conv_tiny,
    .typical = conv_typical,
};

static const char *const dw_tiny[] = {
    "1,8,9,9,1,3,3,1,1",
    "1,4,10,10,1,3,3,2,1", /* stride 2 */
    "2,6,8,8,1,3,3,1,0",   /* batch 2, no padding */
    NULL,
};
static const char *const dw_typical[] = {"1,32,112,112,1,3,3,1,1", "1,256,28,28,1,3,3,2,1", NULL};

const at_op_def at_op_depthwise_conv2d_nchwc = {
    NCHWC_ROW_("depthwise_conv2d_NCHWc", "N,C,H,W,multiplier,KH,KW,stride,pad[,dilation][,dtype]"),
    .tiny = dw_tiny,
    .typical = dw_typical,
};
