/* autotvm show: what one config of a task generates — the scheduled IR, the OpenCL C with each
 * kernel's launch geometry, or the LLVM IR — exactly the text the builders compile, so a template
 * author (or a comparison with TVM's generated code) needs no C program. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/arena.h"
#include "core/strbuf.h"
#include "templates/template.h"
#ifdef AT_CLI_HAVE_OPENCL
#include "backends/opencl/opencl.h"
#endif
#ifdef AT_CLI_HAVE_LLVM
#include "backends/llvm/llvm.h"
#endif

static const char usage[] =
    "usage: autotvm show TEMPLATE --args ARGS --config INDEX [--ir | --opencl | --llvm-ir] [--target T]\n"
    "\n"
    "Prints what config INDEX of the task generates: the scheduled loop-nest IR (--ir), the OpenCL C\n"
    "source with each kernel's global/local work sizes (--opencl, the default for OpenCL targets), or\n"
    "the optimized LLVM IR (--llvm-ir, the default for --target arm_cpu / llvm).\n"
    "\n"
    "  TEMPLATE        a registered template, e.g. conv2d_nchw_spatial_pack.mali\n"
    "  --args ARGS     the task's arguments (as for autotvm measure)\n"
    "  --config N      a config index in the task's space\n"
    "  --target T      opencl (default), mali, arm_cpu, llvm, or a TVM target string\n"
    "  -h, --help      show this help\n";

/* One line per kernel: its name, launch sizes and whether TVM feeds it as an input while tuning. */
#ifdef AT_CLI_HAVE_OPENCL
static void print_opencl(const at_ocl_code *code)
{
    for (size_t k = 0; k < code->n_kernels; k++) {
        const at_ocl_kernel_info *ki = &code->kernels[k];
        printf("// kernel %s: global (%zu, %zu, %zu) local (%zu, %zu, %zu)%s\n", ki->name, ki->gws[0],
               ki->work_dim > 1 ? ki->gws[1] : (size_t)1, ki->work_dim > 2 ? ki->gws[2] : (size_t)1, ki->lws[0],
               ki->work_dim > 1 ? ki->lws[1] : (size_t)1, ki->work_dim > 2 ? ki->lws[2] : (size_t)1,
               ki->prepare  ? ", weight packing (an input while tuning, not timed)"
               : ki->finish ? ", unpacking to the op's layout (after what TVM times, not timed)"
                            : "");
    }
    fputs(code->source, stdout);
}
#endif

static at_status show(const at_task *task, int64_t index, const char *what, at_strbuf *out_ir)
{
    at_config *cfg = NULL;
    at_status st = at_task_config(task, index, &cfg);
    if (st != AT_OK)
        return AT_FAIL_WRAP(st, "config %lld of %s (the space has %lld)", (long long)index,
                            at_task_template(task)->name, (long long)at_space_range_len(at_task_space(task)));
    at_arena *arena = NULL;
    const at_ir_program *prog = NULL;
    st = at_arena_new(0, &arena);
    if (st == AT_OK) st = at_task_instantiate(task, cfg, arena, &prog);
    if (st == AT_OK && !strcmp(what, "ir")) {
        at_ir_print(prog, out_ir);
        st = at_strbuf_status(out_ir);
        if (st == AT_OK) fputs(at_strbuf_cstr(out_ir), stdout);
    } else if (st == AT_OK && !strcmp(what, "opencl")) {
#ifdef AT_CLI_HAVE_OPENCL
        at_ocl_code code;
        st = at_ocl_emit(prog, &code);
        if (st == AT_OK) print_opencl(&code);
        at_ocl_code_fini(&code);
#else
        st = AT_FAIL(AT_EUNSUPPORTED, "this build has no OpenCL backend");
#endif
    } else if (st == AT_OK) {
#ifdef AT_CLI_HAVE_LLVM
        const at_llvm_target host = {0};
        st = at_llvm_program_ir(prog, &host, out_ir);
        if (st == AT_OK) fputs(at_strbuf_cstr(out_ir), stdout);
#else
        st = AT_FAIL(AT_EUNSUPPORTED, "this build has no LLVM backend");
#endif
    }
    at_arena_free(arena);
    at_config_free(cfg);
    return st;
}

int at_cmd_show(int argc, char **argv)
{
    const char *args = NULL, *config = NULL, *target = "opencl";
    int ir = 0, opencl = 0, llvm_ir = 0;
    const at_cli_opt opts[] = {
        {"args", &args, NULL}, {"config", &config, NULL}, {"target", &target, NULL},
        {"ir", NULL, &ir},     {"opencl", NULL, &opencl}, {"llvm-ir", NULL, &llvm_ir},
    };
    const char *pos[1];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 1, &n_pos, "show");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("show", "missing the TEMPLATE");
    if (!args) return at_cli_usage_error("show", "missing --args");
    if (!config) return at_cli_usage_error("show", "missing --config");
    if (ir + opencl + llvm_ir > 1) return at_cli_usage_error("show", "--ir, --opencl and --llvm-ir exclude each other");
    long index;
    if ((rc = at_cli_parse_long("show", "config", config, &index))) return rc;
    int on_cpu = 0;
    const char *tstr = NULL, *cpu = NULL;
    char cpu_buf[128];
    if ((rc = at_cli_task_target("show", target, &on_cpu, &tstr, cpu_buf, sizeof cpu_buf, &cpu))) return rc;
    const char *what = ir ? "ir" : opencl ? "opencl" : llvm_ir ? "llvm-ir" : on_cpu ? "llvm-ir" : "opencl";

    at_task *task = NULL;
    at_status st = at_task_create(pos[0], on_cpu ? AT_TARGET_LLVM : AT_TARGET_OPENCL, args, &task);
    at_strbuf text;
    at_strbuf_init(&text);
    if (st == AT_OK) st = show(task, index, what, &text);
    at_strbuf_fini(&text);
    at_task_free(task);
    return st == AT_OK ? 0 : at_cli_fail(st);
}
