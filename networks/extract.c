/* Task extraction: per target a strategy table (TVM's relay/op/strategy/<target>.py: which
 * templates implement an anchor and at which plevel); the fused graph is already in lowering
 * order, so extraction is one walk over its anchors with exact de-duplication by (template,
 * args text) keeping the first occurrence. */
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/target.h"
#include "networks/extract.h"
#include "networks/internal.h"

/* ---- targets ---------------------------------------------------------------------------------- */

static const struct {
    const char      *name, *target_string, *key;
    at_target_family family;
} targets[AT_NET_TARGET_COUNT] = {
    [AT_NET_TARGET_MALI] = {"mali", "opencl -device=mali", "mali", AT_TARGET_OPENCL},
    [AT_NET_TARGET_ARM_CPU] = {"arm_cpu", "llvm -device=arm_cpu", "arm_cpu", AT_TARGET_LLVM},
    /* TVM registers the cuda strategy under the keys cuda and gpu: opencl reaches it by gpu */
    [AT_NET_TARGET_GPU] = {"opencl", "opencl", "gpu", AT_TARGET_OPENCL},
    /* the key every llvm target has; arm_cpu targets list arm_cpu first and so stay arm_cpu */
    [AT_NET_TARGET_X86] = {"llvm", "llvm", "cpu", AT_TARGET_LLVM},
};

const char *at_net_target_name(at_net_target t)
{
    AT_ASSERT((unsigned)t < AT_NET_TARGET_COUNT);
    return targets[t].name;
}

const char *at_net_target_string(at_net_target t)
{
    AT_ASSERT((unsigned)t < AT_NET_TARGET_COUNT);
    return targets[t].target_string;
}

at_target_family at_net_target_family(at_net_target t)
{
    AT_ASSERT((unsigned)t < AT_NET_TARGET_COUNT);
    return targets[t].family;
}

at_status at_net_target_parse(const char *text, at_net_target *out)
{
    for (int t = 0; t < AT_NET_TARGET_COUNT; t++)
        if (!strcmp(text, targets[t].name)) {
            *out = (at_net_target)t;
            return AT_OK;
        }
    at_target tg;
    at_status st = at_target_parse(text, &tg);
    if (st != AT_OK) return st == AT_ENOMEM ? st : AT_FAIL_WRAP(AT_EPARSE, "target '%s'", text);
    /* TVM dispatches a strategy on the first key it has one for */
    for (size_t k = 0; k < tg.n_keys; k++)
        for (int t = 0; t < AT_NET_TARGET_COUNT; t++)
            if (!strcmp(tg.keys[k], targets[t].key)) {
                at_target_fini(&tg);
                *out = (at_net_target)t;
                return AT_OK;
            }
    at_target_fini(&tg);
    return AT_FAIL(AT_EUNSUPPORTED, "no network strategy for target '%s' (supported: mali, arm_cpu, opencl, llvm, or a target with the "
                   "key mali, arm_cpu, gpu or cpu)",
                   text);
}

at_status at_net_ops_parse(const char *text, unsigned *out)
{
    unsigned ops = 0;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
#define IS(s) (n == strlen(s) && !strncmp(p, s, n))
        if (IS("conv2d") || IS("nn.conv2d"))
            ops |= AT_NET_OPS_CONV2D;
        else if (IS("dense") || IS("nn.dense"))
            ops |= AT_NET_OPS_DENSE;
        else if (IS("all"))
            ops |= AT_NET_OPS_ALL;
        else
            return AT_FAIL(AT_EPARSE, "--ops: unknown op '%.*s' (conv2d, dense, all)", (int)n, p);
#undef IS
        p += n + (e != NULL);
    }
    if (!ops) return AT_FAIL(AT_EPARSE, "--ops: empty list (conv2d, dense, all)");
    *out = ops;
    return AT_OK;
}

/* ---- strategies ------------------------------------------------------------------------------- */

typedef enum anchor_kind { CONV, DEPTHWISE, GROUP, DENSE } anchor_kind; /* GROUP: 1 < groups, not depthwise */

/* Which convolutions a Winograd implementation takes (stride 1, dilation 1 in both). */
typedef enum winograd_rule {
    ANY = 0,
    WINO_3X3,   /* the Mali and arm_cpu strategies: 3x3 kernels */
    WINO_SQUARE, /* the cuda strategy: square kernels with 2 < k < 8 */
    DW_PLAIN     /* the x86 depthwise template: multiplier 1, dilation 1 (else topi's generic compute) */
} winograd_rule;

typedef struct rule {
    anchor_kind   kind;
    const char   *name;
    at_op_kind    op;
    int           plevel;
    winograd_rule winograd;
    int64_t       min_batch; /* TVM's SpecializedCondition on the batch (dense_large_batch: 32) */
} rule;

/* conv2d_strategy_mali / dense_strategy_mali (spec/templates_vta.md §1.1), strategy order. TVM's
 * Mali strategy raises "group_conv2d is not supported for mali": a grouped convolution has no
 * task, and the executors run it as an untuned direct program. */
static const rule mali_rules[] = {
    {CONV, "conv2d_nchw_spatial_pack.mali", AT_OP_CONV2D_NCHW, 10, ANY, 0},
    {CONV, "conv2d_nchw_winograd.mali", AT_OP_CONV2D_NCHW_WINOGRAD, 5, WINO_3X3, 0},
    {DEPTHWISE, "depthwise_conv2d_nchw.mali", AT_OP_DEPTHWISE_CONV2D_NCHW, 10, ANY, 0},
    {DENSE, "dense.mali", AT_OP_DENSE, 10, ANY, 0},
};

/* conv2d_strategy_arm_cpu / dense_strategy_arm_cpu (relay/op/strategy/arm_cpu.py, float32 NCHW,
 * no dsp, sme, nnpack or aarch64 features), strategy order, the implementations we have templates
 * for: conv2d_nchw_winograd.arm_cpu where is_winograd_applicable holds (float data and kernel,
 * 3x3, stride 1, dilation 1: our networks are float32), plevel 5, after the spatial pack. TVM also
 * traces, and so extracts, conv2d_NCHWc.x86 (through conv2d_nchw.x86, plevel 10, between the
 * spatial pack and winograd) and depthwise_conv2d_NCHWc.x86 (through depthwise_conv2d_nchw.x86,
 * multiplier 1, dilation 1, plevel 10), and dense_gemm.arm_cpu (plevel 11) for an aarch64
 * -mtriple; those are left out of this target's extraction. */
static const rule arm_cpu_rules[] = {
    {CONV, "conv2d_nchw_spatial_pack.arm_cpu", AT_OP_CONV2D_NCHW, 10, ANY, 0},
    {CONV, "conv2d_nchw_winograd.arm_cpu", AT_OP_CONV2D_NCHW_WINOGRAD, 5, WINO_3X3, 0},
    {DEPTHWISE, "depthwise_conv2d_nchw.arm_cpu", AT_OP_DEPTHWISE_CONV2D_NCHW, 10, ANY, 0},
    {GROUP, "group_conv2d_nchw.arm_cpu", AT_OP_GROUP_CONV2D_NCHW, 10, ANY, 0},
    {DENSE, "dense_nopack.x86", AT_OP_DENSE, 5, ANY, 0},
    {DENSE, "dense_pack.x86", AT_OP_DENSE, 10, ANY, 0},
};

/* conv2d_strategy_cuda / dense_strategy_cuda (relay/op/strategy/cuda.py, float32 NCHW, no
 * cuDNN/cuBLAS libs), which opencl and cuda share through the key gpu. dense_small_batch.gpu is
 * left out only for rocm; dense_large_batch.gpu applies from batch 32. Its grouped convolution,
 * group_conv2d_nchw.cuda, is not templated here: such a convolution has no task and runs as an
 * untuned direct program. */
static const rule gpu_rules[] = {
    {CONV, "conv2d_nchw.cuda", AT_OP_CONV2D_NCHW, 10, ANY, 0},
    {CONV, "conv2d_nchw_winograd.cuda", AT_OP_CONV2D_NCHW_WINOGRAD, 5, WINO_SQUARE, 0},
    {DEPTHWISE, "depthwise_conv2d_nchw.cuda", AT_OP_DEPTHWISE_CONV2D_NCHW, 10, ANY, 0},
    {DENSE, "dense_small_batch.gpu", AT_OP_DENSE, 10, ANY, 0},
    {DENSE, "dense_large_batch.gpu", AT_OP_DENSE, 5, ANY, 32},
};

/* conv2d_strategy_cpu / dense_strategy_cpu (relay/op/strategy/x86.py, float32 NCHW, no dnnl, no
 * int8 hardware), strategy order: conv2d_nchw.x86 and depthwise_conv2d_nchw.x86 trace the NCHWc
 * templates; a depthwise convolution with a multiplier or dilation takes topi's untemplated
 * generic compute, so no task. */
static const rule x86_rules[] = {
    {CONV, "conv2d_NCHWc.x86", AT_OP_CONV2D_NCHWC, 10, ANY, 0},
    {DEPTHWISE, "depthwise_conv2d_NCHWc.x86", AT_OP_DEPTHWISE_CONV2D_NCHWC, 10, DW_PLAIN, 0},
    {GROUP, "group_conv2d_nchw.x86", AT_OP_GROUP_CONV2D_NCHW, 10, ANY, 0},
    {DENSE, "dense_nopack.x86", AT_OP_DENSE, 5, ANY, 0},
    {DENSE, "dense_pack.x86", AT_OP_DENSE, 10, ANY, 0},
};

#define MAX_IMPLS 4

static void conv_args(const at_net_node *n, const at_net_node *in, at_op_kind op, at_args *out)
{
    memset(out, 0, sizeof *out);
    out->op = op;
    at_conv2d_args *a = &out->u.conv2d;
    memcpy(a->data, in->shape, sizeof a->data);
    a->kernel[0] = n->attrs.channels;
    a->kernel[1] = at_op_conv2d_is_depthwise(op) ? 1 : in->shape[1] / n->attrs.groups;
    a->kernel[2] = n->attrs.kernel[0];
    a->kernel[3] = n->attrs.kernel[1];
    memcpy(a->stride, n->attrs.stride, sizeof a->stride);
    memcpy(a->pad, n->attrs.pad, sizeof a->pad);
    memcpy(a->dilation, n->attrs.dilation, sizeof a->dilation);
    a->stride_form = a->pad_form = a->dilation_form = AT_FORM_LIST;
    a->dtype = a->kernel_dtype = a->out_dtype = AT_IR_F32;
}

static void group_conv_args(const at_net_node *n, const at_net_node *in, at_args *out)
{
    at_args c;
    conv_args(n, in, AT_OP_CONV2D_NCHW, &c);
    memset(out, 0, sizeof *out);
    out->op = AT_OP_GROUP_CONV2D_NCHW;
    out->u.group_conv2d.conv = c.u.conv2d;
    out->u.group_conv2d.groups = n->attrs.groups;
}

static void dense_args(const at_net_node *n, const at_net_node *in, at_args *out)
{
    memset(out, 0, sizeof *out);
    out->op = AT_OP_DENSE;
    at_dense_args *a = &out->u.dense;
    a->m = in->shape[0];
    a->k = in->shape[1];
    a->n = n->attrs.channels;
    a->dtype = a->weight_dtype = a->bias_dtype = a->out_dtype = AT_IR_F32;
}

/* ---- the task list ---------------------------------------------------------------------------- */

struct at_net_tasks {
    at_net_target target;
    at_task     **tasks;
    char        **args_json;
    size_t       *first_node;
    size_t        n, cap;
    size_t        n_nodes;
    at_net_impl  *impls;   /* MAX_IMPLS per node */
    size_t       *n_impls; /* per node */
};

void at_net_tasks_free(at_net_tasks *ts)
{
    if (!ts) return;
    for (size_t i = 0; i < ts->n; i++) {
        at_task_free(ts->tasks[i]);
        at_free(ts->args_json[i]);
    }
    at_free(ts->tasks);
    at_free(ts->args_json);
    at_free(ts->first_node);
    at_free(ts->impls);
    at_free(ts->n_impls);
    at_free(ts);
}

size_t at_net_tasks_count(const at_net_tasks *ts)
{
    return ts->n;
}

const at_task *at_net_tasks_at(const at_net_tasks *ts, size_t i)
{
    AT_ASSERT(i < ts->n);
    return ts->tasks[i];
}

const char *at_net_tasks_args_json(const at_net_tasks *ts, size_t i)
{
    AT_ASSERT(i < ts->n);
    return ts->args_json[i];
}

size_t at_net_tasks_first_node(const at_net_tasks *ts, size_t i)
{
    AT_ASSERT(i < ts->n);
    return ts->first_node[i];
}

size_t at_net_tasks_node_impls(const at_net_tasks *ts, size_t node, const at_net_impl **impls)
{
    AT_ASSERT(node < ts->n_nodes);
    *impls = &ts->impls[node * MAX_IMPLS];
    return ts->n_impls[node];
}

at_net_target at_net_tasks_target(const at_net_tasks *ts)
{
    return ts->target;
}

/* The task of (t, args) in the list, adding it when new; *index = SIZE_MAX when the template
 * rejects the args (dropped with a warning, as TVM drops InvalidShapeError tasks). */
static at_status intern(at_net_tasks *ts, const at_template *t, const at_args *args, size_t node, size_t *index)
{
    *index = SIZE_MAX;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_putc(&sb, '[');
    at_op_args_write_json(args, &sb);
    at_strbuf_putc(&sb, ']');
    if (at_strbuf_status(&sb) != AT_OK) {
        at_strbuf_fini(&sb);
        return AT_OOM();
    }
    const char *text = at_strbuf_cstr(&sb);
    for (size_t i = 0; i < ts->n; i++)
        if (at_task_template(ts->tasks[i]) == t && !strcmp(ts->args_json[i], text)) {
            at_strbuf_fini(&sb);
            *index = i;
            return AT_OK;
        }
    at_task *task;
    at_status st = at_task_new(t, args, &task);
    if (st == AT_EINVAL) {
        at_log(AT_LOG_WARN, "dropping task %s %s: %s", t->name, text, at_last_error());
        at_strbuf_fini(&sb);
        return AT_OK;
    }
    if (st != AT_OK) {
        at_strbuf_fini(&sb);
        return st;
    }
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 16;
        at_task **tasks = at_realloc(ts->tasks, cap * sizeof *tasks);
        if (tasks) ts->tasks = tasks;
        char **json = tasks ? at_realloc(ts->args_json, cap * sizeof *json) : NULL;
        if (json) ts->args_json = json;
        size_t *first = json ? at_realloc(ts->first_node, cap * sizeof *first) : NULL;
        if (first) ts->first_node = first;
        if (!first) {
            at_task_free(task);
            at_strbuf_fini(&sb);
            return AT_OOM();
        }
        ts->cap = cap;
    }
    ts->tasks[ts->n] = task;
    ts->args_json[ts->n] = at_strbuf_take(&sb);
    ts->first_node[ts->n] = node;
    *index = ts->n++;
    return AT_OK;
}

static at_status extract_node(at_net_tasks *ts, const at_net *net, size_t i, unsigned ops)
{
    const at_net_node *n = at_net_node_at(net, i), *in;
    anchor_kind kind;
    if (n->op == AT_NET_CONV2D && (ops & AT_NET_OPS_CONV2D))
        kind = n->attrs.groups == 1 ? CONV : at_net_conv_is_grouped(net, n) ? GROUP : DEPTHWISE;
    else if (n->op == AT_NET_DENSE && (ops & AT_NET_OPS_DENSE))
        kind = DENSE;
    else
        return AT_OK;
    in = at_net_node_at(net, n->inputs[0]);
    bool unit = n->op == AT_NET_CONV2D && n->attrs.stride[0] == 1 && n->attrs.stride[1] == 1 && n->attrs.dilation[0] == 1 &&
                n->attrs.dilation[1] == 1;
    int64_t kh = n->attrs.kernel[0], kw = n->attrs.kernel[1];
    bool dw_plain = n->op == AT_NET_CONV2D && n->attrs.channels == in->shape[1] && n->attrs.dilation[0] == 1 &&
                    n->attrs.dilation[1] == 1;
    bool win_ok[] = {[ANY] = true, [WINO_3X3] = unit && kh == 3 && kw == 3, [WINO_SQUARE] = unit && kh == kw && kh > 2 && kh < 8,
                     [DW_PLAIN] = dw_plain};
    at_net_impl *impls = &ts->impls[i * MAX_IMPLS];
    const rule *rules = mali_rules;
    size_t n_rules = sizeof mali_rules / sizeof mali_rules[0];
    if (ts->target == AT_NET_TARGET_ARM_CPU) rules = arm_cpu_rules, n_rules = sizeof arm_cpu_rules / sizeof arm_cpu_rules[0];
    if (ts->target == AT_NET_TARGET_GPU) rules = gpu_rules, n_rules = sizeof gpu_rules / sizeof gpu_rules[0];
    if (ts->target == AT_NET_TARGET_X86) rules = x86_rules, n_rules = sizeof x86_rules / sizeof x86_rules[0];
    for (size_t r = 0; r < n_rules; r++) {
        const rule *ru = &rules[r];
        if (ru->kind != kind || !win_ok[ru->winograd] || in->shape[0] < ru->min_batch) continue;
        const at_template *t = at_tmpl_find(ru->name, targets[ts->target].family);
        if (!t) return AT_FAIL(AT_ENOTFOUND, "template %s is not registered", ru->name);
        at_args args;
        if (kind == DENSE)
            dense_args(n, in, &args);
        else if (kind == GROUP)
            group_conv_args(n, in, &args);
        else
            conv_args(n, in, ru->op, &args);
        AT_ASSERT(ts->n_impls[i] < MAX_IMPLS);
        at_net_impl *im = &impls[ts->n_impls[i]++];
        im->tmpl = t;
        im->plevel = ru->plevel;
        AT_TRY(intern(ts, t, &args, i, &im->task));
    }
    return AT_OK;
}

at_status at_net_extract(const at_net *net, at_net_target target, unsigned ops, at_net_tasks **out)
{
    *out = NULL;
    AT_ASSERT((unsigned)target < AT_NET_TARGET_COUNT);
    if (!at_net_is_fused(net))
        return AT_FAIL(AT_EINVAL, "network %s: extract tasks from the fused form (at_net_fuse)", at_net_name(net));
    if (!(ops & AT_NET_OPS_ALL)) return AT_FAIL(AT_EINVAL, "no ops selected");
    at_net_tasks *ts = at_calloc(1, sizeof *ts);
    if (!ts) return AT_OOM();
    ts->target = target;
    ts->n_nodes = at_net_n_nodes(net);
    ts->impls = at_calloc(ts->n_nodes * MAX_IMPLS, sizeof *ts->impls);
    ts->n_impls = at_calloc(ts->n_nodes, sizeof *ts->n_impls);
    at_status st = ts->impls && ts->n_impls ? AT_OK : AT_OOM();
    for (size_t i = 0; st == AT_OK && i < ts->n_nodes; i++) st = extract_node(ts, net, i, ops);
    if (st != AT_OK) {
        at_net_tasks_free(ts);
        return st;
    }
    *out = ts;
    return AT_OK;
}
