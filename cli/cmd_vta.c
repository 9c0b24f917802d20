/* autotvm vta config [FILE]: a VTA hardware configuration with every derived constant, the
 * instruction field layout it implies and the simulator's cycle-model constants.
 * autotvm vta predict LOG: measured conv2d_packed.vta records against the simulator (per record,
 * then median relative error and Spearman correlation); --fit runs the calibration search. The
 * computation is tune/vta_predict's; this file only parses and prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "records/log.h"
#include "tune/vta_predict.h"
#include "vta/hw.h"
#include "vta/timing.h"

static const char usage[] =
    "usage: autotvm vta config [FILE]\n"
    "       autotvm vta predict LOG [--config JSON | --model NAME] [--timing NAME=VALUE ...]\n"
    "\n"
    "Prints a VTA hardware configuration with every derived constant, the bit layout of its\n"
    "instructions and micro-ops, and the simulator's cycle-model constants. FILE is a config in\n"
    "tvm-vta's JSON format (config/vta_config.json); without it, the built-in default\n"
    "pynq_1x16_i8w8a32_15_15_18_17. Optional keys: HW_FREQ or FPGA_FREQ (MHz), LOG_BUS_WIDTH.\n"
    "\n"
    "predict runs every conv2d_packed.vta record of LOG (e.g. TopHub's vta_v0.10.log, measured on\n"
    "Pynq boards) on the simulator with its config as given and prints, per record, the measured\n"
    "cost (mean of its costs) and the simulated one (cycles at the configuration's clock), then the\n"
    "median relative error |sim - meas| / meas and Spearman's rank correlation, over all records\n"
    "and per hardware model. Each record runs on the configuration its -model names\n"
    "(pynq_4x8_i8w8a32_15_16_16_18: BATCH 4, BLOCK 8; a bare 'pynq': the default 1x16) unless\n"
    "--config (a tvm-vta JSON file) or --model gives one for all. --timing NAME=VALUE (repeatable)\n"
    "changes a cycle-model constant (names: autotvm vta config).\n";

static void field(const char *name, const at_vta_field *f)
{
    printf("  %-20s bits %3d..%-3d (%d)\n", name, f->shift, f->shift + f->width - 1, f->width);
}

static void print_hw(const at_vta_hw *hw)
{
    printf("model                %s\n", hw->model);
    printf("target               %s (HW_VER %s), %d MHz, %d-bit memory bus\n", hw->target, hw->hw_ver,
           hw->fpga_freq_mhz, hw->bus_width);
    printf("json                 LOG_INP_WIDTH %d, LOG_WGT_WIDTH %d, LOG_ACC_WIDTH %d, LOG_BATCH %d, LOG_BLOCK %d,\n"
           "                     LOG_UOP_BUFF_SIZE %d, LOG_INP_BUFF_SIZE %d, LOG_WGT_BUFF_SIZE %d, "
           "LOG_ACC_BUFF_SIZE %d\n",
           hw->log_inp_width, hw->log_wgt_width, hw->log_acc_width, hw->log_batch, hw->log_block, hw->log_uop_buff_size,
           hw->log_inp_buff_size, hw->log_wgt_buff_size, hw->log_acc_buff_size);
    printf("widths (bits)        inp %d, wgt %d, acc %d, out %d (signed)\n", hw->inp_width, hw->wgt_width,
           hw->acc_width, hw->out_width);
    printf("gemm shape           BATCH %d x BLOCK_IN %d x BLOCK_OUT %d = %d MACs per uop, peak %.1f GOPS\n", hw->batch,
           hw->block_in, hw->block_out, hw->gemm_macs_per_uop, hw->gemm_peak_gops);
    printf("\n%-8s %10s %10s %8s %9s %10s\n", "buffer", "elem bits", "elem bytes", "depth", "log depth", "size bytes");
    printf("%-8s %10d %10d %8d %9d %10ld\n", "uop", hw->uop_elem_bytes * 8, hw->uop_elem_bytes, hw->uop_buff_depth,
           hw->log_uop_buff_depth, hw->uop_buff_bytes);
    printf("%-8s %10d %10d %8d %9d %10ld\n", "inp", hw->inp_elem_bits, hw->inp_elem_bytes, hw->inp_buff_depth,
           hw->log_inp_buff_depth, hw->inp_buff_bytes);
    printf("%-8s %10d %10d %8d %9d %10ld\n", "wgt", hw->wgt_elem_bits, hw->wgt_elem_bytes, hw->wgt_buff_depth,
           hw->log_wgt_buff_depth, hw->wgt_buff_bytes);
    printf("%-8s %10d %10d %8d %9d %10ld\n", "acc", hw->acc_elem_bits, hw->acc_elem_bytes, hw->acc_buff_depth,
           hw->log_acc_buff_depth, hw->acc_buff_bytes);
    printf("%-8s %10d %10d %8d %9s %10ld\n", "out", hw->out_elem_bits, hw->out_elem_bytes, hw->out_buff_depth, "-",
           hw->out_buff_bytes);
    printf("\naxi ratios (elem / bus)   inp %d, wgt %d, acc %d, out %d\n", hw->inp_axi_ratio, hw->wgt_axi_ratio,
           hw->acc_axi_ratio, hw->out_axi_ratio);
    printf("alu operand widths        shr %d, mul %d; insn %d bytes, uop %d bytes\n", hw->shr_arg_width,
           hw->mul_arg_width, hw->insn_bytes, hw->uop_elem_bytes);

    const at_vta_layout *l = &hw->layout;
    printf("\nLOAD/STORE layout (header: opcode 0..2, pop_prev 3, pop_next 4, push_prev 5, push_next 6)\n");
    field("memory_type", &l->mem_type);
    field("sram_base", &l->sram_base);
    field("dram_base", &l->dram_base);
    field("y_size", &l->y_size);
    field("x_size", &l->x_size);
    field("x_stride", &l->x_stride);
    field("y_pad_0", &l->y_pad0);
    field("y_pad_1", &l->y_pad1);
    field("x_pad_0", &l->x_pad0);
    field("x_pad_1", &l->x_pad1);
    printf("GEMM/ALU layout\n");
    field("reset_reg", &l->reset);
    field("uop_bgn", &l->uop_bgn);
    field("uop_end", &l->uop_end);
    field("iter_out", &l->iter_out);
    field("iter_in", &l->iter_in);
    field("dst_factor_out", &l->dst_factor_out);
    field("dst_factor_in", &l->dst_factor_in);
    field("gemm src_factor_out", &l->gemm_src_factor_out);
    field("gemm src_factor_in", &l->gemm_src_factor_in);
    field("gemm wgt_factor_out", &l->wgt_factor_out);
    field("gemm wgt_factor_in", &l->wgt_factor_in);
    field("alu src_factor_out", &l->alu_src_factor_out);
    field("alu src_factor_in", &l->alu_src_factor_in);
    field("alu alu_opcode", &l->alu_opcode);
    field("alu use_imm", &l->use_imm);
    field("alu imm", &l->imm);
    printf("micro-op layout (%d of 32 bits)\n", l->uop_bits);
    field("dst_idx", &l->uop_dst);
    field("src_idx", &l->uop_src);
    field("wgt_idx", &l->uop_wgt);

    at_vta_timing t;
    at_vta_timing_default(&t);
    printf("\nsimulator cycle-model constants (vta/CYCLE_MODEL.md)\n");
    for (size_t i = 0; i < at_vta_timing_count(); i++)
        printf("  %-20s %7u  %s\n", at_vta_timing_name(i), at_vta_timing_get(&t, i), at_vta_timing_doc(i));
}

static void print_row(const at_vta_pred_row *r)
{
    if (r->ok)
        printf("%5zu  %-34s %6lld %11.4f %11.4f %7.3f\n", r->line, r->workload, (long long)r->config_index,
               r->measured_s * 1e3, r->simulated_s * 1e3, r->ratio);
    else
        printf("%5zu  %-34s %6lld %11.4f %11s %7s  %s\n", r->line, r->workload, (long long)r->config_index,
               r->measured_s * 1e3, "-", "-", r->error);
}

static void print_summary(const char *label, const at_vta_pred_summary *s)
{
    printf("%-36s records %3zu  median relative error %.3f  Spearman %.3f\n", label, s->n, s->median_rel_err,
           s->spearman);
}

static void print_prediction(const at_vta_pred *p)
{
    printf("%5s  %-34s %6s %11s %11s %7s\n", "line", "workload", "config", "measured_ms", "simulated_ms", "ratio");
    for (size_t i = 0; i < p->n_rows; i++) print_row(&p->rows[i]);
    printf("\n%zu conv2d_packed.vta records, %zu simulated, %zu excluded (cannot run); %zu other records skipped\n",
           p->n_rows, p->n_rows - p->n_failed, p->n_failed, p->n_skipped);
    print_summary("all", &p->all);
    for (size_t m = 0; m < p->n_models; m++) {
        char label[AT_VTA_MODEL_MAX + 8];
        snprintf(label, sizeof label, "model %s", p->models[m].model);
        print_summary(label, &p->models[m]);
    }
}

enum { MAX_TIMING = 32, MAX_FIT = 32 };

static int cmd_predict(int argc, char **argv)
{
    /* --timing may repeat: collect it here, hand the rest to the common parser */
    const char *timing_args[MAX_TIMING];
    size_t n_timing = 0;
    char **rest = at_malloc(((size_t)argc + 1) * sizeof *rest);
    if (!rest) return at_cli_fail(AT_ENOMEM);
    int n_rest = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i > 0 && (!strcmp(a, "--timing") || !strncmp(a, "--timing=", 9))) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || n_timing == MAX_TIMING) {
                at_free(rest);
                return at_cli_usage_error("vta predict", v ? "at most %d --timing options" : "option '--timing' needs a value",
                                          MAX_TIMING);
            }
            timing_args[n_timing++] = v;
            continue;
        }
        rest[n_rest++] = argv[i];
    }
    rest[n_rest] = NULL;
    const char *config = NULL, *model = NULL, *fit = NULL, *rounds_text = NULL, *pos[2];
    size_t n_pos = 0;
    const at_cli_opt opts[] = {
        {"config", &config, NULL},
        {"model", &model, NULL},
        {"fit", &fit, NULL}, /* calibration (vta/CYCLE_MODEL.md): comma-separated constant names */
        {"rounds", &rounds_text, NULL},
    };
    int rc = at_cli_parse(n_rest, rest, opts, sizeof opts / sizeof opts[0], pos, 2, &n_pos, "vta predict");
    at_free(rest);
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos != 1) return at_cli_usage_error("vta predict", "expected one LOG");
    if (config && model) return at_cli_usage_error("vta predict", "--config and --model exclude each other");
    long rounds = 20;
    if (rounds_text && (rc = at_cli_parse_long("vta predict", "rounds", rounds_text, &rounds)) != 0) return rc;
    at_vta_timing timing;
    at_vta_timing_default(&timing);
    for (size_t i = 0; i < n_timing; i++) {
        const char *eq = strchr(timing_args[i], '=');
        char name[64];
        char *end = NULL;
        long v = eq ? strtol(eq + 1, &end, 10) : 0;
        if (!eq || (size_t)(eq - timing_args[i]) >= sizeof name || end == eq + 1 || *end)
            return at_cli_usage_error("vta predict", "--timing expects NAME=VALUE, got '%s'", timing_args[i]);
        memcpy(name, timing_args[i], (size_t)(eq - timing_args[i]));
        name[eq - timing_args[i]] = '\0';
        at_status st = at_vta_timing_set(&timing, name, v);
        if (st != AT_OK) return at_cli_usage_error("vta predict", "%s", at_last_error());
    }
    at_vta_hw hw;
    at_vta_pred_opts po = {.timing = &timing};
    if (config || model) {
        at_status st = config ? at_vta_hw_load(config, &hw) : at_vta_pred_hw_for_model(model, &hw);
        if (st != AT_OK) return at_cli_fail(st);
        po.hw = &hw;
    }
    at_rec_log *log = NULL;
    at_status st = at_rec_log_load_file(pos[0], &log);
    if (st != AT_OK) return at_cli_fail(st);
    if (fit) {
        /* NAME or NAME:LO:HI, comma-separated */
        at_vta_fit_param params[MAX_FIT];
        char buf[1024];
        size_t n_params = 0;
        snprintf(buf, sizeof buf, "%s", fit);
        for (char *tok = strtok(buf, ","); tok && n_params < MAX_FIT; tok = strtok(NULL, ",")) {
            at_vta_fit_param *fp = &params[n_params++];
            char *c1 = strchr(tok, ':');
            fp->name = tok;
            fp->lo = 0, fp->hi = 0;
            if (c1) {
                unsigned lo = 0, hi = 0;
                *c1 = '\0';
                if (sscanf(c1 + 1, "%u:%u", &lo, &hi) != 2 || lo > hi) {
                    at_rec_log_free(log);
                    return at_cli_usage_error("vta predict", "--fit expects NAME or NAME:LO:HI, got '%s:%s'", tok, c1 + 1);
                }
                fp->lo = lo, fp->hi = hi;
            }
        }
        at_vta_pred *before = NULL;
        double obj = 0;
        if ((st = at_vta_predict_log(log, &po, &before)) == AT_OK)
            st = at_vta_pred_fit(log, &po, params, n_params, (int)rounds, &timing, &obj);
        if (st != AT_OK) {
            at_vta_pred_free(before);
            at_rec_log_free(log);
            return at_cli_fail(st);
        }
        printf("before the fit:\n");
        print_summary("all", &before->all);
        for (size_t m = 0; m < before->n_models; m++) print_summary(before->models[m].model, &before->models[m]);
        at_vta_pred_free(before);
        printf("fitted (mean over models of the median |log(sim/meas)|: %.4f):", obj);
        for (size_t i = 0; i < at_vta_timing_count(); i++)
            printf(" %s=%u", at_vta_timing_name(i), at_vta_timing_get(&timing, i));
        printf("\n\n");
    }
    at_vta_pred *p = NULL;
    st = at_vta_predict_log(log, &po, &p);
    at_rec_log_free(log);
    if (st != AT_OK) return at_cli_fail(st);
    print_prediction(p);
    at_vta_pred_free(p);
    return 0;
}

int at_cmd_vta(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "predict")) return cmd_predict(argc - 1, argv + 1);
    const char *pos[3];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, NULL, 0, pos, 3, &n_pos, "vta");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos == 0) return at_cli_usage_error("vta", "missing command (config, predict)");
    if (strcmp(pos[0], "config")) return at_cli_usage_error("vta", "unknown command '%s' (config, predict)", pos[0]);
    if (n_pos > 2) return at_cli_usage_error("vta", "config takes at most one FILE");
    at_vta_hw hw;
    if (n_pos == 2) {
        at_status st = at_vta_hw_load(pos[1], &hw);
        if (st != AT_OK) return at_cli_fail(st);
    } else {
        at_vta_hw_default(&hw);
    }
    print_hw(&hw);
    return 0;
}
