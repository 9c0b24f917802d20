/* autotvm tasks: TVM's extract_from_program on a relay.testing network, listed as a table (or
 * JSON lines); the work is networks/ (at_net_load + at_net_extract), this file parses argv and
 * formats rows. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/strbuf.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "networks/vta.h"

static const char usage[] =
    "usage: autotvm tasks NETWORK [--target mali] [--ops conv2d,dense] [--batch N]\n"
    "                     [--image-shape C,H,W] [--num-classes K] [--json]\n"
    "\n"
    "Lists the tuning tasks TVM's extract_from_program gives for a relay.testing network: every\n"
    "template implementation of each selected op (e.g. both spatial pack and winograd for 3x3\n"
    "stride-1 convolutions on mali), in lowering order, exact duplicates removed. Columns: index,\n"
    "template, workload (data, kernel, strides, padding), FLOPs and config-space size.\n"
    "\n"
    "networks: resnet-18/34/50/101/152 (pre-activation, batch norm), mobilenet, vgg-11/13/16/19,\n"
    "          squeezenet_v1.0, squeezenet_v1.1\n"
    "\n"
    "options:\n"
    "  --target T        mali (default), or a TVM target string with the key mali; arm_cpu (TVM's\n"
    "                    \"llvm -device=arm_cpu\": spatial pack, depthwise, x86 dense nopack/pack);\n"
    "                    vta (\"ext_dev -device=vta ...\"): Gluon's resnet18_v1 quantized and\n"
    "                    packed for VTA, its conv2d_packed.vta tasks (--ops all: and add.vta);\n"
    "                    a MODEL.onnx whose graph quantizes as resnet18_v1 does\n"
    "  --ops LIST        ops to extract: conv2d, dense, all (default conv2d, as TVM's tutorials)\n"
    "  --batch N         batch size (default 1)\n"
    "  --image-shape S   input C,H,W (default 3,224,224)\n"
    "  --input-shape NAME=DIMS  MODEL.onnx: the input's shape (1,3,224,224), filling symbolic dims\n"
    "  --num-classes K   classifier outputs (default 1000)\n"
    "  --json            one JSON object per task: index, template, args, flop, space\n"
    "  -h, --help        show this help\n";

/* "3,224,224" -> three positive ints. */
static int parse_shape(const char *text, int64_t out[3])
{
    const char *p = text;
    for (int i = 0; i < 3; i++) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 1 || v > (1LL << 24) || (i < 2 ? *end != ',' : *end != '\0'))
            return at_cli_usage_error("tasks", "--image-shape: expected C,H,W (positive integers), got '%s'", text);
        out[i] = v;
        p = end + 1;
    }
    return 0;
}

static void shape_text(at_strbuf *sb, const int64_t *v, size_t n)
{
    at_strbuf_putc(sb, '[');
    for (size_t i = 0; i < n; i++) at_strbuf_printf(sb, "%s%" PRId64, i ? ", " : "", v[i]);
    at_strbuf_putc(sb, ']');
}

/* Columns 2..5 of a task's row: template, data, kernel, strides, padding. */
static void row_cells(const at_task *t, at_strbuf cells[5])
{
    const at_args *a = at_task_args(t);
    at_strbuf_puts(&cells[0], at_task_template(t)->name);
    if (a->op == AT_OP_DENSE) {
        const at_dense_args *d = &a->u.dense;
        shape_text(&cells[1], (int64_t[]){d->m, d->k}, 2);
        shape_text(&cells[2], (int64_t[]){d->n, d->k}, 2);
        at_strbuf_puts(&cells[3], "-");
        at_strbuf_puts(&cells[4], "-");
    } else {
        const at_conv2d_args *c = &a->u.conv2d;
        shape_text(&cells[1], c->data, 4);
        shape_text(&cells[2], c->kernel, 4);
        shape_text(&cells[3], c->stride, 2);
        shape_text(&cells[4], c->pad, 4);
    }
}

static void print_table(const at_net_tasks *ts)
{
    size_t n = at_net_tasks_count(ts);
    static const char *const head[7] = {"template", "data", "kernel", "strides", "padding", "FLOPs", "space"};
    size_t width[7];
    for (int k = 0; k < 7; k++) width[k] = strlen(head[k]);
    at_strbuf cells[7];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            printf("%4s  %-*s  %-*s  %-*s  %-*s  %-*s  %*s  %*s\n", "#", (int)width[0], head[0], (int)width[1], head[1],
                   (int)width[2], head[2], (int)width[3], head[3], (int)width[4], head[4], (int)width[5], head[5],
                   (int)width[6], head[6]);
        for (size_t i = 0; i < n; i++) {
            const at_task *t = at_net_tasks_at(ts, i);
            for (int k = 0; k < 7; k++) at_strbuf_init(&cells[k]);
            row_cells(t, cells);
            at_strbuf_printf(&cells[5], "%.0f", at_task_flop(t));
            at_strbuf_printf(&cells[6], "%" PRId64, at_space_len(at_task_space(t)));
            for (int k = 0; k < 7; k++) {
                size_t len = strlen(at_strbuf_cstr(&cells[k]));
                if (pass == 0 && len > width[k]) width[k] = len;
            }
            if (pass == 1)
                printf("%4zu  %-*s  %-*s  %-*s  %-*s  %-*s  %*s  %*s\n", i + 1, (int)width[0], at_strbuf_cstr(&cells[0]),
                       (int)width[1], at_strbuf_cstr(&cells[1]), (int)width[2], at_strbuf_cstr(&cells[2]), (int)width[3],
                       at_strbuf_cstr(&cells[3]), (int)width[4], at_strbuf_cstr(&cells[4]), (int)width[5],
                       at_strbuf_cstr(&cells[5]), (int)width[6], at_strbuf_cstr(&cells[6]));
            for (int k = 0; k < 7; k++) at_strbuf_fini(&cells[k]);
        }
    }
}

static void print_json(const at_net_tasks *ts)
{
    for (size_t i = 0; i < at_net_tasks_count(ts); i++) {
        const at_task *t = at_net_tasks_at(ts, i);
        at_strbuf sb;
        at_strbuf_init(&sb);
        at_strbuf_printf(&sb, "{\"index\": %zu, \"template\": ", i + 1);
        at_json_write_string(&sb, at_task_template(t)->name);
        at_strbuf_printf(&sb, ", \"args\": %s, \"flop\": %.0f, \"space\": %" PRId64 "}", at_net_tasks_args_json(ts, i),
                         at_task_flop(t), at_space_len(at_task_space(t)));
        puts(at_strbuf_cstr(&sb));
        at_strbuf_fini(&sb);
    }
}

/* --target vta: the quantized, packed resnet18_v1 (networks/vta.h), listed as the VTA tutorial
 * prints its tasks (the tuple per conv task) and as a table of the workload args. */
static int tasks_vta(const char *name, const at_net_opts *no, const char *ops_s, int json)
{
    bool alu = !strcmp(ops_s, "all"), conv = alu;
    unsigned ops = 0;
    if (!alu) {
        if (at_net_ops_parse(ops_s, &ops) != AT_OK) return at_cli_usage_error("tasks", "%s", at_last_error());
        conv = (ops & AT_NET_OPS_CONV2D) != 0;
    }
    if (!at_net_vta_knows(name))
        return at_cli_usage_error("tasks", "--target vta: no network '%s' (known: resnet-18, Gluon's resnet18_v1; a MODEL.onnx)", name);
    if (no->image_shape[0] && no->image_shape[0] != 3)
        return at_cli_usage_error("tasks", "--target vta: the image has 3 channels");
    if (no->image_shape[1] != no->image_shape[2])
        return at_cli_usage_error("tasks", "--target vta: the image must be square");
    if (no->batch > 1) return at_cli_usage_error("tasks", "--target vta: batch 1 only (the 1x16 bitstream)");
    at_net_vta_opts vo = {.image_hw = no->image_shape[1], .num_classes = no->num_classes, .no_weights = true,
                          .input_name = no->input_name, .input_rank = no->input_rank};
    memcpy(vo.input_shape, no->input_shape, sizeof vo.input_shape);
    at_net_vta *net = NULL;
    at_status st = at_net_vta_build(name, &vo, &net);
    /* a zoo option the network cannot take is a usage error; a model file's faults are not */
    if (st == AT_EINVAL && !at_net_vta_is_onnx(name)) return at_cli_usage_error("tasks", "%s", at_last_error());
    if (st != AT_OK) return at_cli_fail(st);
    size_t n = at_net_vta_n_tasks(net), n_conv = 0, n_alu = 0, shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (at_net_vta_task_is_alu(net, i))
            n_alu++;
        else
            n_conv++;
    }
    if (alu && !at_tmpl_find("add.vta", AT_TARGET_VTA))
        fprintf(stderr, "autotvm: add.vta is not registered: the residual adds give no ALU tasks\n");
    if (!json) {
        printf("Extract tasks...\n");
        if (conv) {
            printf("Extracted %zu conv2d tasks:\n", n_conv);
            for (size_t i = 0; i < n; i++) {
                if (at_net_vta_task_is_alu(net, i)) continue;
                const at_conv2d_packed_args *a = &at_task_args(at_net_vta_task(net, i))->u.conv2d_packed;
                printf("(%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                       ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ")\n",
                       a->data[0] * a->data[4], a->data[2], a->data[3], a->data[1] * a->data[5], a->kernel[0] * a->kernel[4],
                       a->kernel[2], a->kernel[3], a->pad[0], a->pad[1], a->stride[0], a->stride[1]);
            }
        }
        printf("%s: %zu tasks on %s (ops %s)\n", name, (conv ? n_conv : 0) + (alu ? n_alu : 0),
               "ext_dev -device=vta -keys=cpu -model=sim_1x16_i8w8a32_15_15_18_17", ops_s);
        printf("%4s  %-17s  %12s  %6s  %s\n", "#", "template", "FLOPs", "space", "args");
    }
    for (size_t i = 0; i < n; i++) {
        bool is_alu = at_net_vta_task_is_alu(net, i);
        if (is_alu ? !alu : !conv) continue;
        const at_task *t = at_net_vta_task(net, i);
        shown++;
        if (json) {
            at_strbuf sb;
            at_strbuf_init(&sb);
            at_strbuf_printf(&sb, "{\"index\": %zu, \"template\": ", shown);
            at_json_write_string(&sb, at_task_template(t)->name);
            at_strbuf_printf(&sb, ", \"args\": %s, \"flop\": %.0f, \"space\": %" PRId64 "}",
                             at_net_vta_task_args_json(net, i), at_task_flop(t), at_space_len(at_task_space(t)));
            puts(at_strbuf_cstr(&sb));
            at_strbuf_fini(&sb);
        } else {
            printf("%4zu  %-17s  %12.0f  %6" PRId64 "  %s\n", shown, at_task_template(t)->name, at_task_flop(t),
                   at_space_len(at_task_space(t)), at_net_vta_task_args_json(net, i));
        }
    }
    at_net_vta_free(net);
    return 0;
}

int at_cmd_tasks(int argc, char **argv)
{
    const char *target_s = "mali", *ops_s = "conv2d", *batch_s = NULL, *shape_s = NULL, *classes_s = NULL, *input_shape = NULL;
    char input_name[256];
    int json = 0;
    const at_cli_opt opts[] = {
        {"target", &target_s, NULL}, {"ops", &ops_s, NULL},         {"batch", &batch_s, NULL},
        {"image-shape", &shape_s, NULL}, {"num-classes", &classes_s, NULL}, {"json", NULL, &json},
        {"input-shape", &input_shape, NULL},
    };
    const char *pos[1];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 1, &n_pos, "tasks");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos < 1) return at_cli_usage_error("tasks", "missing the NETWORK (e.g. resnet-18)");

    at_net_opts o = {0};
    long v;
    if (batch_s && (rc = at_cli_parse_long("tasks", "batch", batch_s, &v)) != 0) return rc;
    if (batch_s) {
        if (v < 1) return at_cli_usage_error("tasks", "--batch must be at least 1");
        o.batch = v;
    }
    if (classes_s && (rc = at_cli_parse_long("tasks", "num-classes", classes_s, &v)) != 0) return rc;
    if (classes_s) {
        if (v < 1) return at_cli_usage_error("tasks", "--num-classes must be at least 1");
        o.num_classes = v;
    }
    if (shape_s && (rc = parse_shape(shape_s, o.image_shape)) != 0) return rc;
    if (input_shape && (rc = at_cli_parse_input_shape("tasks", input_shape, input_name, sizeof input_name, o.input_shape, &o.input_rank)))
        return rc;
    if (input_shape) o.input_name = input_name[0] ? input_name : NULL;
    if (at_net_vta_target_is(target_s)) return tasks_vta(pos[0], &o, ops_s, json);
    at_net_target target;
    unsigned ops;
    at_status st = at_net_target_parse(target_s, &target);
    if (st == AT_EPARSE || st == AT_EUNSUPPORTED) return at_cli_usage_error("tasks", "%s", at_last_error());
    if (st != AT_OK) return at_cli_fail(st);
    if (at_net_ops_parse(ops_s, &ops) != AT_OK) return at_cli_usage_error("tasks", "%s", at_last_error());

    at_net *net = NULL;
    at_net_tasks *ts = NULL;
    st = at_net_load(pos[0], &o, &net);
    if (st == AT_ENOTFOUND) return at_cli_usage_error("tasks", "%s", at_last_error());
    if (st == AT_OK) st = at_net_extract(net, target, ops, &ts);
    if (st != AT_OK) {
        at_net_free(net);
        return at_cli_fail(st);
    }
    if (json) {
        print_json(ts);
    } else {
        const at_net_node *in = at_net_node_at(net, 0);
        printf("Extract tasks...\n%s: %zu tasks on %s (ops %s), input [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
               "]\n",
               pos[0], at_net_tasks_count(ts), at_net_target_string(target), ops_s, in->shape[0], in->shape[1],
               in->shape[2], in->shape[3]);
        print_table(ts);
    }
    at_net_tasks_free(ts);
    at_net_free(net);
    return 0;
}
