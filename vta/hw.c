/* VTA hardware configuration: JSON in tvm-vta's format -> at_vta_hw with every derived constant.
 * Range checks live in at_vta_hw_derive only, so a struct built in code and one read from JSON
 * pass the same gate; the JSON reader only checks presence and types. */
#include "vta/hw.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"

enum { LOOP_ITER_WIDTH = 14, ALU_IMM_WIDTH = 16, ALU_OPCODE_WIDTH = 3, MEMOP_ID_WIDTH = 3 };

void at_vta_hw_fpga_defaults(at_vta_hw *hw)
{
    /* pkg_config.py: ultra96 and zcu104 have their own parameters, every other target
     * (de10nano's are the same numbers) gets the pynq ones. */
    if (!strcmp(hw->target, "ultra96") || !strcmp(hw->target, "zcu104")) {
        hw->fpga_freq_mhz = 333;
        hw->log_bus_width = 7;
    } else {
        hw->fpga_freq_mhz = 100;
        hw->log_bus_width = 6;
    }
}

void at_vta_hw_default(at_vta_hw *out)
{
    at_vta_hw hw;
    memset(&hw, 0, sizeof hw);
    strcpy(hw.target, "pynq");
    strcpy(hw.hw_ver, "0.0.2");
    hw.log_inp_width = 3;
    hw.log_wgt_width = 3;
    hw.log_acc_width = 5;
    hw.log_batch = 0;
    hw.log_block = 4;
    hw.log_uop_buff_size = 15;
    hw.log_inp_buff_size = 15;
    hw.log_wgt_buff_size = 18;
    hw.log_acc_buff_size = 17;
    at_vta_hw_fpga_defaults(&hw);
    at_status s = at_vta_hw_derive(&hw);
    AT_ASSERT(s == AT_OK);
    *out = hw;
}

static at_status check_range(const char *name, int v, int lo, int hi)
{
    if (v < lo || v > hi) return AT_FAIL(AT_EINVAL, "%s = %d is out of range [%d, %d]", name, v, lo, hi);
    return AT_OK;
}

static int ident_ok(const char *s, size_t max, const char *extra)
{
    size_t n = strnlen(s, max);
    if (n == 0 || n == max) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(extra, c))) return 0;
    }
    return 1;
}

/* Places a bit-field of `width` bits after *pos in units of `unit` bits (GCC: no straddling). */
static void place(int *pos, int unit, int width, at_vta_field *f)
{
    if (*pos % unit + width > unit) *pos = (*pos / unit + 1) * unit;
    f->shift = (uint8_t)*pos;
    f->width = (uint8_t)width;
    *pos += width;
}

static at_status make_layout(const at_vta_hw *hw, at_vta_layout *l)
{
    memset(l, 0, sizeof *l);
    int pos = 7;
    place(&pos, 64, MEMOP_ID_WIDTH, &l->mem_type);
    place(&pos, 64, 16, &l->sram_base);
    place(&pos, 64, 32, &l->dram_base);
    place(&pos, 64, 16, &l->y_size);
    place(&pos, 64, 16, &l->x_size);
    place(&pos, 64, 16, &l->x_stride);
    place(&pos, 64, 4, &l->y_pad0);
    place(&pos, 64, 4, &l->y_pad1);
    place(&pos, 64, 4, &l->x_pad0);
    place(&pos, 64, 4, &l->x_pad1);
    l->mem_bits = pos;

    int lud = hw->log_uop_buff_depth, lad = hw->log_acc_buff_depth, lid = hw->log_inp_buff_depth,
        lwd = hw->log_wgt_buff_depth;
    pos = 7;
    place(&pos, 64, 1, &l->reset);
    place(&pos, 64, lud, &l->uop_bgn);
    place(&pos, 64, lud + 1, &l->uop_end);
    place(&pos, 64, LOOP_ITER_WIDTH, &l->iter_out);
    place(&pos, 64, LOOP_ITER_WIDTH, &l->iter_in);
    place(&pos, 64, lad, &l->dst_factor_out);
    place(&pos, 64, lad, &l->dst_factor_in);
    int common = pos;
    place(&pos, 64, lid, &l->gemm_src_factor_out);
    place(&pos, 64, lid, &l->gemm_src_factor_in);
    place(&pos, 64, lwd, &l->wgt_factor_out);
    place(&pos, 64, lwd, &l->wgt_factor_in);
    l->gemm_bits = pos;
    pos = common;
    place(&pos, 64, lad, &l->alu_src_factor_out);
    place(&pos, 64, lad, &l->alu_src_factor_in);
    place(&pos, 64, ALU_OPCODE_WIDTH, &l->alu_opcode);
    place(&pos, 64, 1, &l->use_imm);
    place(&pos, 64, ALU_IMM_WIDTH, &l->imm);
    l->alu_bits = pos;
    if (l->gemm_bits > 128)
        return AT_FAIL(AT_EINVAL,
                       "LOG_UOP_BUFF_SIZE/LOG_INP_BUFF_SIZE/LOG_WGT_BUFF_SIZE/LOG_ACC_BUFF_SIZE: a GEMM instruction "
                       "would need %d bits (> 128)",
                       l->gemm_bits);
    if (l->alu_bits > 128)
        return AT_FAIL(AT_EINVAL, "LOG_UOP_BUFF_SIZE/LOG_ACC_BUFF_SIZE: an ALU instruction would need %d bits (> 128)",
                       l->alu_bits);

    int src = lad > lid ? lad : lid;
    if (lad + src + lwd > 32)
        return AT_FAIL(AT_EINVAL,
                       "LOG_INP_BUFF_SIZE/LOG_WGT_BUFF_SIZE/LOG_ACC_BUFF_SIZE: a micro-op would need %d bits (> 32)",
                       lad + src + lwd);
    pos = 0;
    place(&pos, 32, lad, &l->uop_dst);
    place(&pos, 32, src, &l->uop_src);
    place(&pos, 32, lwd, &l->uop_wgt);
    l->uop_bits = pos;
    return AT_OK;
}

static at_status check_depth(const char *field, const char *what, int log_depth)
{
    /* sram_base is 16 bits wide; a zero-width index field is not a legal bit-field */
    if (log_depth < 1 || log_depth > 16)
        return AT_FAIL(AT_EINVAL, "%s: the %s buffer depth would be 2^%d elements (must be 2^1 .. 2^16)", field, what,
                       log_depth);
    return AT_OK;
}

static at_status check_elem(const char *fields, const char *what, int bits)
{
    if (bits % 8)
        return AT_FAIL(AT_EINVAL, "%s: a %s element of %d bits is not a whole number of bytes", fields, what, bits);
    return AT_OK;
}

at_status at_vta_hw_derive(at_vta_hw *hw)
{
    if (!ident_ok(hw->target, sizeof hw->target, "_-"))
        return AT_FAIL(AT_EINVAL, "TARGET must be 1..%d characters of [A-Za-z0-9_-]", AT_VTA_TARGET_MAX - 1);
    if (!ident_ok(hw->hw_ver, sizeof hw->hw_ver, "._-"))
        return AT_FAIL(AT_EINVAL, "HW_VER must be 1..%d characters of [A-Za-z0-9._-]", AT_VTA_HW_VER_MAX - 1);
    AT_TRY(check_range("LOG_INP_WIDTH", hw->log_inp_width, 0, 4));
    AT_TRY(check_range("LOG_WGT_WIDTH", hw->log_wgt_width, 0, 4));
    AT_TRY(check_range("LOG_ACC_WIDTH", hw->log_acc_width, 3, 5));
    if (hw->log_acc_width < hw->log_inp_width)
        return AT_FAIL(AT_EINVAL, "LOG_ACC_WIDTH = %d is below LOG_INP_WIDTH = %d (stores narrow ACC to INP width)",
                       hw->log_acc_width, hw->log_inp_width);
    AT_TRY(check_range("LOG_BATCH", hw->log_batch, 0, 4));
    AT_TRY(check_range("LOG_BLOCK", hw->log_block, 0, 6));
    AT_TRY(check_range("LOG_UOP_BUFF_SIZE", hw->log_uop_buff_size, 0, 30));
    AT_TRY(check_range("LOG_INP_BUFF_SIZE", hw->log_inp_buff_size, 0, 30));
    AT_TRY(check_range("LOG_WGT_BUFF_SIZE", hw->log_wgt_buff_size, 0, 30));
    AT_TRY(check_range("LOG_ACC_BUFF_SIZE", hw->log_acc_buff_size, 0, 30));
    AT_TRY(check_range("FPGA_FREQ", hw->fpga_freq_mhz, 1, 10000));
    AT_TRY(check_range("LOG_BUS_WIDTH", hw->log_bus_width, 3, 10));

    at_vta_hw d = *hw;
    d.log_block_in = d.log_block_out = d.log_block;
    d.log_out_width = d.log_inp_width;
    d.log_out_buff_size = d.log_acc_buff_size + d.log_out_width - d.log_acc_width;
    d.inp_width = 1 << d.log_inp_width;
    d.wgt_width = 1 << d.log_wgt_width;
    d.acc_width = 1 << d.log_acc_width;
    d.out_width = 1 << d.log_out_width;
    d.batch = 1 << d.log_batch;
    d.block_in = 1 << d.log_block_in;
    d.block_out = 1 << d.log_block_out;
    d.inp_elem_bits = d.inp_width * d.batch * d.block_in;
    d.wgt_elem_bits = d.wgt_width * d.block_out * d.block_in;
    d.acc_elem_bits = d.acc_width * d.batch * d.block_out;
    d.out_elem_bits = d.out_width * d.batch * d.block_out;
    AT_TRY(check_elem("LOG_INP_WIDTH/LOG_BATCH/LOG_BLOCK", "input", d.inp_elem_bits));
    AT_TRY(check_elem("LOG_WGT_WIDTH/LOG_BLOCK", "weight", d.wgt_elem_bits));
    AT_TRY(check_elem("LOG_ACC_WIDTH/LOG_BATCH/LOG_BLOCK", "accumulator", d.acc_elem_bits));
    /* out_elem_bits = inp_elem_bits with BLOCK_OUT = BLOCK_IN: already whole bytes */
    d.inp_elem_bytes = d.inp_elem_bits / 8;
    d.wgt_elem_bytes = d.wgt_elem_bits / 8;
    d.acc_elem_bytes = d.acc_elem_bits / 8;
    d.out_elem_bytes = d.out_elem_bits / 8;
    d.uop_elem_bytes = AT_VTA_UOP_BYTES;
    d.insn_bytes = AT_VTA_INSN_BYTES;

    d.log_uop_buff_depth = d.log_uop_buff_size - 5 + 3;
    d.log_inp_buff_depth = d.log_inp_buff_size - d.log_batch - d.log_block_in - d.log_inp_width + 3;
    d.log_wgt_buff_depth = d.log_wgt_buff_size - d.log_block_out - d.log_block_in - d.log_wgt_width + 3;
    d.log_acc_buff_depth = d.log_acc_buff_size - d.log_batch - d.log_block_out - d.log_acc_width + 3;
    AT_TRY(check_depth("LOG_UOP_BUFF_SIZE", "micro-op", d.log_uop_buff_depth));
    AT_TRY(check_depth("LOG_INP_BUFF_SIZE", "input", d.log_inp_buff_depth));
    AT_TRY(check_depth("LOG_WGT_BUFF_SIZE", "weight", d.log_wgt_buff_depth));
    AT_TRY(check_depth("LOG_ACC_BUFF_SIZE", "accumulator", d.log_acc_buff_depth));
    d.uop_buff_bytes = 1L << d.log_uop_buff_size;
    d.inp_buff_bytes = 1L << d.log_inp_buff_size;
    d.wgt_buff_bytes = 1L << d.log_wgt_buff_size;
    d.acc_buff_bytes = 1L << d.log_acc_buff_size;
    d.out_buff_bytes = 1L << d.log_out_buff_size; /* log_out >= log_acc depth + log2(out bytes) >= 1 */
    d.uop_buff_depth = 1 << d.log_uop_buff_depth;
    d.inp_buff_depth = 1 << d.log_inp_buff_depth;
    d.wgt_buff_depth = 1 << d.log_wgt_buff_depth;
    d.acc_buff_depth = 1 << d.log_acc_buff_depth;
    d.out_buff_depth = (int)(d.out_buff_bytes / d.out_elem_bytes);

    d.bus_width = 1 << d.log_bus_width;
    d.bus_bytes = d.bus_width / 8;
    d.inp_axi_ratio = d.inp_elem_bits / d.bus_width;
    d.wgt_axi_ratio = d.wgt_elem_bits / d.bus_width;
    d.acc_axi_ratio = d.acc_elem_bits / d.bus_width;
    d.out_axi_ratio = d.out_elem_bits / d.bus_width;
    d.gemm_macs_per_uop = d.batch * d.block_in * d.block_out;
    d.gemm_peak_gops = 2.0 * d.gemm_macs_per_uop * d.fpga_freq_mhz / 1000.0;
    d.shr_arg_width = d.log_acc_width;
    d.mul_arg_width = 8;

    snprintf(d.bitstream, sizeof d.bitstream, "%dx%d_i%dw%da%d_%d_%d_%d_%d", d.batch, d.block_in, d.inp_width,
             d.wgt_width, d.acc_width, d.log_uop_buff_size, d.log_inp_buff_size, d.log_wgt_buff_size,
             d.log_acc_buff_size);
    snprintf(d.model, sizeof d.model, "%s_%s", d.target, d.bitstream);
    AT_TRY(make_layout(&d, &d.layout));
    *hw = d;
    return AT_OK;
}

/* The last member named key (Python's json keeps the last duplicate), NULL when absent. */
static const cJSON *member(const cJSON *obj, const char *key)
{
    const cJSON *found = NULL;
    for (const cJSON *it = obj->child; it; it = it->next)
        if (it->string && !strcmp(it->string, key)) found = it;
    return found;
}

static at_status get_int(const cJSON *obj, const char *key, int required, int *out)
{
    const cJSON *it = member(obj, key);
    if (!it) {
        if (required) return AT_FAIL(AT_EPARSE, "vta config: missing field \"%s\"", key);
        return AT_OK;
    }
    int64_t v;
    if (at_json_get_int64(it, &v) != AT_OK)
        return AT_FAIL(AT_EPARSE, "vta config: field \"%s\" must be an integer", key);
    if (v < -1000000 || v > 1000000)
        return AT_FAIL(AT_EPARSE, "vta config: field \"%s\" = %lld is out of range", key, (long long)v);
    *out = (int)v;
    return AT_OK;
}

static at_status get_str(const cJSON *obj, const char *key, char *dst, size_t cap)
{
    const cJSON *it = member(obj, key);
    if (!it) return AT_FAIL(AT_EPARSE, "vta config: missing field \"%s\"", key);
    if (!cJSON_IsString(it)) return AT_FAIL(AT_EPARSE, "vta config: field \"%s\" must be a string", key);
    if (strlen(it->valuestring) >= cap)
        return AT_FAIL(AT_EPARSE, "vta config: field \"%s\" is longer than %zu characters", key, cap - 1);
    strcpy(dst, it->valuestring);
    return AT_OK;
}

static at_status read_fields(const cJSON *root, at_vta_hw *hw)
{
    static const struct {
        const char *key;
        size_t off;
    } ints[] = {
        {"LOG_INP_WIDTH", offsetof(at_vta_hw, log_inp_width)},
        {"LOG_WGT_WIDTH", offsetof(at_vta_hw, log_wgt_width)},
        {"LOG_ACC_WIDTH", offsetof(at_vta_hw, log_acc_width)},
        {"LOG_BATCH", offsetof(at_vta_hw, log_batch)},
        {"LOG_BLOCK", offsetof(at_vta_hw, log_block)},
        {"LOG_UOP_BUFF_SIZE", offsetof(at_vta_hw, log_uop_buff_size)},
        {"LOG_INP_BUFF_SIZE", offsetof(at_vta_hw, log_inp_buff_size)},
        {"LOG_WGT_BUFF_SIZE", offsetof(at_vta_hw, log_wgt_buff_size)},
        {"LOG_ACC_BUFF_SIZE", offsetof(at_vta_hw, log_acc_buff_size)},
    };
    if (!cJSON_IsObject(root)) return AT_FAIL(AT_EPARSE, "vta config: expected a JSON object");
    AT_TRY(get_str(root, "TARGET", hw->target, sizeof hw->target));
    AT_TRY(get_str(root, "HW_VER", hw->hw_ver, sizeof hw->hw_ver));
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        AT_TRY(get_int(root, ints[i].key, 1, (int *)(void *)((char *)hw + ints[i].off)));
    at_vta_hw_fpga_defaults(hw);
    AT_TRY(get_int(root, "HW_FREQ", 0, &hw->fpga_freq_mhz)); /* older tvm-vta configs (MHz) */
    AT_TRY(get_int(root, "FPGA_FREQ", 0, &hw->fpga_freq_mhz));
    AT_TRY(get_int(root, "LOG_BUS_WIDTH", 0, &hw->log_bus_width));
    return AT_OK;
}

at_status at_vta_hw_from_json(const char *text, size_t len, at_vta_hw *out)
{
    cJSON *root;
    at_status st = at_json_parse(text, len, &root);
    if (st == AT_EPARSE) return AT_FAIL_WRAP(AT_EPARSE, "vta config");
    if (st != AT_OK) return st;
    at_vta_hw hw;
    memset(&hw, 0, sizeof hw);
    st = read_fields(root, &hw);
    at_json_free(root);
    if (st != AT_OK) return st;
    if (at_vta_hw_derive(&hw) != AT_OK) return AT_FAIL_WRAP(AT_EPARSE, "vta config");
    *out = hw;
    return AT_OK;
}

at_status at_vta_hw_load(const char *path, at_vta_hw *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return AT_FAIL(AT_EIO, "cannot open %s", path);
    char buf[1 << 14];
    size_t n = fread(buf, 1, sizeof buf, f);
    int err = ferror(f), more = !feof(f);
    fclose(f);
    if (err) return AT_FAIL(AT_EIO, "cannot read %s", path);
    if (more) return AT_FAIL(AT_EPARSE, "%s: a vta config is at most %zu bytes", path, sizeof buf - 1);
    at_status st = at_vta_hw_from_json(buf, n, out);
    if (st == AT_EPARSE) return AT_FAIL_WRAP(AT_EPARSE, "%s", path);
    return st;
}

int at_vta_hw_dram_elem_bytes(const at_vta_hw *hw, at_vta_mem mem)
{
    switch (mem) {
    case AT_VTA_MEM_UOP: return hw->uop_elem_bytes;
    case AT_VTA_MEM_WGT: return hw->wgt_elem_bytes;
    case AT_VTA_MEM_INP: return hw->inp_elem_bytes;
    case AT_VTA_MEM_ACC: return hw->acc_elem_bytes;
    case AT_VTA_MEM_OUT: return hw->out_elem_bytes;
    case AT_VTA_MEM_ACC_8BIT: return hw->acc_elem_bytes * hw->inp_width / hw->acc_width;
    case AT_VTA_MEM_COUNT: break;
    }
    AT_ASSERT(0);
    return 0;
}

int at_vta_hw_sram_depth(const at_vta_hw *hw, at_vta_mem mem)
{
    switch (mem) {
    case AT_VTA_MEM_UOP: return hw->uop_buff_depth;
    case AT_VTA_MEM_WGT: return hw->wgt_buff_depth;
    case AT_VTA_MEM_INP: return hw->inp_buff_depth;
    case AT_VTA_MEM_ACC:
    case AT_VTA_MEM_OUT:
    case AT_VTA_MEM_ACC_8BIT: return hw->acc_buff_depth;
    case AT_VTA_MEM_COUNT: break;
    }
    AT_ASSERT(0);
    return 0;
}

const char *at_vta_mem_name(at_vta_mem mem)
{
    static const char *const names[AT_VTA_MEM_COUNT] = {
        [AT_VTA_MEM_UOP] = "UOP", [AT_VTA_MEM_WGT] = "WGT", [AT_VTA_MEM_INP] = "INP",
        [AT_VTA_MEM_ACC] = "ACC", [AT_VTA_MEM_OUT] = "OUT", [AT_VTA_MEM_ACC_8BIT] = "ACC_8BIT",
    };
    return (unsigned)mem < AT_VTA_MEM_COUNT ? names[mem] : "?";
}
