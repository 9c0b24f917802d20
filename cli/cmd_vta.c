/* autotvm vta config [FILE]: a VTA hardware configuration with every derived constant, the
 * instruction field layout it implies and the simulator's cycle-model constants. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "vta/hw.h"
#include "vta/timing.h"

static const char usage[] =
    "usage: autotvm vta config [FILE]\n"
    "\n"
    "Prints a VTA hardware configuration with every derived constant, the bit layout of its\n"
    "instructions and micro-ops, and the simulator's cycle-model constants. FILE is a config in\n"
    "tvm-vta's JSON format (config/vta_config.json); without it, the built-in default\n"
    "pynq_1x16_i8w8a32_15_15_18_17. Optional keys: HW_FREQ or FPGA_FREQ (MHz), LOG_BUS_WIDTH.\n";

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

int at_cmd_vta(int argc, char **argv)
{
    const char *pos[3];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, NULL, 0, pos, 3, &n_pos, "vta");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos == 0) return at_cli_usage_error("vta", "missing command (config)");
    if (strcmp(pos[0], "config")) return at_cli_usage_error("vta", "unknown command '%s' (config)", pos[0]);
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
