/* vta/hw: the default pynq 1x16 constants (spec table), tvm-vta's sample configs, a 1x32 config,
 * and every way a config file can be wrong. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "vta/hw.h"
#include "vta/timing.h"

static const char *const pynq_sample = "{\n  \"TARGET\" : \"pynq\",\n  \"HW_VER\" : \"0.0.2\",\n"
                                       "  \"LOG_INP_WIDTH\" : 3,\n  \"LOG_WGT_WIDTH\" : 3,\n  \"LOG_ACC_WIDTH\" : 5,\n"
                                       "  \"LOG_BATCH\" : 0,\n  \"LOG_BLOCK\" : 4,\n  \"LOG_UOP_BUFF_SIZE\" : 15,\n"
                                       "  \"LOG_INP_BUFF_SIZE\" : 15,\n  \"LOG_WGT_BUFF_SIZE\" : 18,\n"
                                       "  \"LOG_ACC_BUFF_SIZE\" : 17\n}\n";

/* pynq_sample with one "KEY" : value pair replaced (value text NULL removes the pair). */
static const char *edited(const char *key, const char *value)
{
    static char buf[1024];
    const char *p = strstr(pynq_sample, key);
    assert_non_null(p);
    p -= 1; /* the opening quote */
    const char *colon = strchr(p, ':'), *end = colon + 1;
    while (*end != ',' && *end != '\n') end++;
    if (value) {
        snprintf(buf, sizeof buf, "%.*s: %s%s", (int)(colon - pynq_sample), pynq_sample, value, end);
    } else {
        /* drop the line, and the comma before it when it was the last pair */
        const char *line = p;
        while (line > pynq_sample && line[-1] != '\n') line--;
        const char *next = strchr(end, '\n') + 1;
        size_t head = (size_t)(line - pynq_sample);
        if (*end != ',') head -= 2; /* ",\n" of the previous line */
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)head, pynq_sample, *end != ',' ? "\n" : "", next);
    }
    return buf;
}

static void default_config_should_have_the_spec_constants(void **state)
{
    (void)state;
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    assert_string_equal(hw.target, "pynq");
    assert_string_equal(hw.hw_ver, "0.0.2");
    assert_string_equal(hw.bitstream, "1x16_i8w8a32_15_15_18_17");
    assert_string_equal(hw.model, "pynq_1x16_i8w8a32_15_15_18_17");
    assert_int_equal(hw.inp_width, 8);
    assert_int_equal(hw.wgt_width, 8);
    assert_int_equal(hw.out_width, 8);
    assert_int_equal(hw.acc_width, 32);
    assert_int_equal(hw.batch, 1);
    assert_int_equal(hw.block_in, 16);
    assert_int_equal(hw.block_out, 16);
    assert_int_equal(hw.log_out_width, 3);
    assert_int_equal(hw.log_out_buff_size, 15);
    assert_int_equal(hw.inp_elem_bits, 128);
    assert_int_equal(hw.wgt_elem_bits, 2048);
    assert_int_equal(hw.acc_elem_bits, 512);
    assert_int_equal(hw.out_elem_bits, 128);
    assert_int_equal(hw.inp_elem_bytes, 16);
    assert_int_equal(hw.wgt_elem_bytes, 256);
    assert_int_equal(hw.acc_elem_bytes, 64);
    assert_int_equal(hw.out_elem_bytes, 16);
    assert_int_equal(hw.uop_elem_bytes, 4);
    assert_int_equal(hw.insn_bytes, 16);
    assert_int_equal(hw.uop_buff_bytes, 32768);
    assert_int_equal(hw.inp_buff_bytes, 32768);
    assert_int_equal(hw.wgt_buff_bytes, 262144);
    assert_int_equal(hw.acc_buff_bytes, 131072);
    assert_int_equal(hw.out_buff_bytes, 32768);
    assert_int_equal(hw.uop_buff_depth, 8192);
    assert_int_equal(hw.inp_buff_depth, 2048);
    assert_int_equal(hw.wgt_buff_depth, 1024);
    assert_int_equal(hw.acc_buff_depth, 2048);
    assert_int_equal(hw.out_buff_depth, 2048);
    assert_int_equal(hw.log_uop_buff_depth, 13);
    assert_int_equal(hw.log_inp_buff_depth, 11);
    assert_int_equal(hw.log_wgt_buff_depth, 10);
    assert_int_equal(hw.log_acc_buff_depth, 11);
    assert_int_equal(hw.fpga_freq_mhz, 100);
    assert_int_equal(hw.bus_width, 64);
    assert_int_equal(hw.bus_bytes, 8);
    assert_int_equal(hw.inp_axi_ratio, 2);
    assert_int_equal(hw.wgt_axi_ratio, 32);
    assert_int_equal(hw.acc_axi_ratio, 8);
    assert_int_equal(hw.out_axi_ratio, 2);
    assert_int_equal(hw.gemm_macs_per_uop, 256);
    assert_true(hw.gemm_peak_gops > 51.19 && hw.gemm_peak_gops < 51.21);
    assert_int_equal(hw.shr_arg_width, 5);
    assert_int_equal(hw.mul_arg_width, 8);
    assert_int_equal(at_vta_hw_dram_elem_bytes(&hw, AT_VTA_MEM_UOP), 4);
    assert_int_equal(at_vta_hw_dram_elem_bytes(&hw, AT_VTA_MEM_WGT), 256);
    assert_int_equal(at_vta_hw_dram_elem_bytes(&hw, AT_VTA_MEM_INP), 16);
    assert_int_equal(at_vta_hw_dram_elem_bytes(&hw, AT_VTA_MEM_ACC), 64);
    assert_int_equal(at_vta_hw_dram_elem_bytes(&hw, AT_VTA_MEM_OUT), 16);
    assert_int_equal(at_vta_hw_dram_elem_bytes(&hw, AT_VTA_MEM_ACC_8BIT), 16);
    assert_int_equal(at_vta_hw_sram_depth(&hw, AT_VTA_MEM_OUT), 2048);
    assert_int_equal(at_vta_hw_sram_depth(&hw, AT_VTA_MEM_UOP), 8192);
}

static void sample_configs_should_load_with_their_targets_fpga_parameters(void **state)
{
    (void)state;
    at_vta_hw def, hw;
    at_vta_hw_default(&def);
    assert_ok(at_vta_hw_from_json(pynq_sample, strlen(pynq_sample), &hw));
    /* the built-in default is exactly pynq_sample.json */
    assert_string_equal(hw.model, def.model);
    assert_string_equal(hw.hw_ver, def.hw_ver);
    assert_int_equal(hw.fpga_freq_mhz, def.fpga_freq_mhz);
    assert_int_equal(hw.log_bus_width, def.log_bus_width);
    assert_int_equal(hw.acc_buff_depth, def.acc_buff_depth);
    assert_int_equal(hw.layout.imm.shift, def.layout.imm.shift);

    assert_ok(at_vta_hw_from_json(edited("TARGET", "\"sim\""), strlen(edited("TARGET", "\"sim\"")), &hw));
    assert_string_equal(hw.model, "sim_1x16_i8w8a32_15_15_18_17");
    assert_int_equal(hw.fpga_freq_mhz, 100);

    const char *u = edited("TARGET", "\"ultra96\"");
    assert_ok(at_vta_hw_from_json(u, strlen(u), &hw));
    assert_string_equal(hw.model, "ultra96_1x16_i8w8a32_15_15_18_17");
    assert_int_equal(hw.fpga_freq_mhz, 333);
    assert_int_equal(hw.bus_width, 128);
    assert_int_equal(hw.inp_axi_ratio, 1);
    assert_int_equal(hw.wgt_axi_ratio, 16);
    assert_int_equal(hw.acc_axi_ratio, 4);
    assert_int_equal(hw.out_axi_ratio, 1);
    assert_true(hw.gemm_peak_gops > 170.4 && hw.gemm_peak_gops < 170.6);

    char zcu[1024];
    snprintf(zcu, sizeof zcu, "%s", edited("TARGET", "\"zcu104\""));
    char *ver = strstr(zcu, "0.0.2");
    assert_non_null(ver);
    ver[4] = '1';
    assert_ok(at_vta_hw_from_json(zcu, strlen(zcu), &hw));
    assert_string_equal(hw.hw_ver, "0.0.1");
    assert_string_equal(hw.model, "zcu104_1x16_i8w8a32_15_15_18_17");
    assert_int_equal(hw.fpga_freq_mhz, 333);
}

static void a_1x32_config_should_derive_its_own_constants(void **state)
{
    (void)state;
    const char *text = edited("LOG_BLOCK", "5");
    at_vta_hw hw;
    assert_ok(at_vta_hw_from_json(text, strlen(text), &hw));
    assert_string_equal(hw.model, "pynq_1x32_i8w8a32_15_15_18_17");
    assert_int_equal(hw.block_in, 32);
    assert_int_equal(hw.block_out, 32);
    assert_int_equal(hw.inp_elem_bytes, 32);
    assert_int_equal(hw.wgt_elem_bytes, 1024);
    assert_int_equal(hw.acc_elem_bytes, 128);
    assert_int_equal(hw.out_elem_bytes, 32);
    assert_int_equal(hw.inp_buff_depth, 1024);
    assert_int_equal(hw.wgt_buff_depth, 256);
    assert_int_equal(hw.acc_buff_depth, 1024);
    assert_int_equal(hw.log_inp_buff_depth, 10);
    assert_int_equal(hw.log_wgt_buff_depth, 8);
    assert_int_equal(hw.log_acc_buff_depth, 10);
    assert_int_equal(hw.gemm_macs_per_uop, 1024);
    assert_int_equal(hw.wgt_axi_ratio, 128);
    assert_int_equal(hw.layout.dst_factor_out.width, 10);
    assert_int_equal(hw.layout.wgt_factor_out.width, 8);
}

static void optional_keys_should_override_and_unknown_keys_be_ignored(void **state)
{
    (void)state;
    const char *text = "{\"TARGET\": \"pynq\", \"HW_VER\": \"0.0.2\", \"LOG_INP_WIDTH\": 3, \"LOG_WGT_WIDTH\": 3,"
                       " \"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0, \"LOG_BLOCK\": 4, \"LOG_UOP_BUFF_SIZE\": 15,"
                       " \"LOG_INP_BUFF_SIZE\": 15, \"LOG_WGT_BUFF_SIZE\": 18, \"LOG_ACC_BUFF_SIZE\": 17,"
                       " \"FPGA_FREQ\": 142, \"LOG_BUS_WIDTH\": 7, \"SOMETHING_ELSE\": [1, 2],"
                       " \"LOG_BATCH\": 1}";
    at_vta_hw hw;
    assert_ok(at_vta_hw_from_json(text, strlen(text), &hw));
    assert_int_equal(hw.fpga_freq_mhz, 142);
    assert_int_equal(hw.bus_width, 128);
    assert_int_equal(hw.batch, 2); /* a duplicate key: the last one wins, as in Python */
    assert_string_equal(hw.bitstream, "2x16_i8w8a32_15_15_18_17");
    assert_int_equal(hw.log_inp_buff_depth, 10);

    /* an older tvm-vta config: HW_FREQ gives the clock, HW_CLK_TARGET is ignored */
    const char *old_cfg = "{\"TARGET\": \"pynq\", \"HW_FREQ\": 142, \"HW_CLK_TARGET\": 6, \"HW_VER\": \"0.0.1\","
                          " \"LOG_INP_WIDTH\": 3, \"LOG_WGT_WIDTH\": 3, \"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0,"
                          " \"LOG_BLOCK\": 4, \"LOG_UOP_BUFF_SIZE\": 15, \"LOG_INP_BUFF_SIZE\": 15,"
                          " \"LOG_WGT_BUFF_SIZE\": 18, \"LOG_ACC_BUFF_SIZE\": 17}";
    assert_ok(at_vta_hw_from_json(old_cfg, strlen(old_cfg), &hw));
    assert_int_equal(hw.fpga_freq_mhz, 142);
    assert_int_equal(hw.bus_width, 64);
    assert_string_equal(hw.model, "pynq_1x16_i8w8a32_15_15_18_17");
}

static void every_missing_field_should_be_named(void **state)
{
    (void)state;
    static const char *const keys[] = {
        "TARGET",           "HW_VER",    "LOG_INP_WIDTH",     "LOG_WGT_WIDTH",     "LOG_ACC_WIDTH",
        "LOG_BATCH",        "LOG_BLOCK", "LOG_UOP_BUFF_SIZE", "LOG_INP_BUFF_SIZE", "LOG_WGT_BUFF_SIZE",
        "LOG_ACC_BUFF_SIZE"};
    size_t checked = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char key[40];
        snprintf(key, sizeof key, "%s\"", keys[i]);
        const char *text = edited(key, NULL);
        at_vta_hw hw = {.log_block = 77};
        assert_int_equal(at_vta_hw_from_json(text, strlen(text), &hw), AT_EPARSE);
        char want[64];
        snprintf(want, sizeof want, "missing field \"%s\"", keys[i]);
        if (!strstr(at_last_error(), want)) fail_msg("%s: got '%s'", keys[i], at_last_error());
        assert_int_equal(hw.log_block, 77); /* untouched on failure */
        checked++;
    }
    assert_int_equal(checked, 11);
}

static void bad_values_should_be_parse_errors_naming_the_field(void **state)
{
    (void)state;
    static const struct {
        const char *key, *value, *expect;
    } cases[] = {
        {"LOG_BLOCK", "\"4\"", "\"LOG_BLOCK\" must be an integer"},
        {"LOG_BLOCK", "4.0", "\"LOG_BLOCK\" must be an integer"},
        {"LOG_BLOCK", "9", "LOG_BLOCK = 9 is out of range"},
        {"LOG_BATCH", "-1", "LOG_BATCH = -1 is out of range"},
        {"LOG_ACC_WIDTH", "6", "LOG_ACC_WIDTH = 6 is out of range"},
        {"LOG_ACC_WIDTH", "2", "LOG_ACC_WIDTH = 2 is out of range"},
        {"LOG_INP_WIDTH", "5", "LOG_INP_WIDTH = 5 is out of range"},
        {"LOG_WGT_WIDTH", "null", "\"LOG_WGT_WIDTH\" must be an integer"},
        {"LOG_UOP_BUFF_SIZE", "16", "GEMM instruction would need"},
        {"LOG_UOP_BUFF_SIZE", "2", "the micro-op buffer depth would be 2^0"},
        {"LOG_ACC_BUFF_SIZE", "31", "LOG_ACC_BUFF_SIZE = 31 is out of range"},
        {"LOG_ACC_BUFF_SIZE", "6", "LOG_ACC_BUFF_SIZE: the accumulator buffer depth"},
        {"LOG_WGT_BUFF_SIZE", "25", "LOG_WGT_BUFF_SIZE: the weight buffer depth would be 2^17"},
        {"LOG_WGT_BUFF_SIZE", "24", "a GEMM instruction would need 144 bits"},
        {"LOG_INP_BUFF_SIZE", "99999999", "\"LOG_INP_BUFF_SIZE\" = 99999999 is out of range"},
        {"TARGET", "3", "\"TARGET\" must be a string"},
        {"TARGET", "\"\"", "TARGET must be"},
        {"TARGET", "\"py nq\"", "TARGET must be"},
        {"TARGET", "\"a_target_name_much_longer_than_31\"", "\"TARGET\" is longer than 31"},
        {"HW_VER", "\"0.0/2\"", "HW_VER must be"},
    };
    size_t checked = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *text = edited(cases[i].key, cases[i].value);
        at_vta_hw hw;
        at_status s = at_vta_hw_from_json(text, strlen(text), &hw);
        if (s != AT_EPARSE) fail_msg("%s=%s: status %d", cases[i].key, cases[i].value, s);
        if (!strstr(at_last_error(), cases[i].expect))
            fail_msg("%s=%s: '%s' lacks '%s'", cases[i].key, cases[i].value, at_last_error(), cases[i].expect);
        checked++;
    }
    assert_int_equal(checked, 20);

    /* sub-byte elements: 1-bit inputs on a BLOCK 4 give a 4-bit element */
    at_vta_hw hw;
    at_vta_hw_default(&hw);
    hw.log_inp_width = 0;
    hw.log_block = 2;
    hw.log_acc_width = 3;
    assert_int_equal(at_vta_hw_derive(&hw), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "not a whole number of bytes"));
    at_vta_hw_default(&hw);
    hw.log_acc_width = 3;
    hw.log_inp_width = 4;
    assert_int_equal(at_vta_hw_derive(&hw), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "below LOG_INP_WIDTH"));
    at_vta_hw_default(&hw);
    hw.log_acc_buff_size = 18; /* ACC index 12 bits: GEMM fits in 128 bits, the ALU's imm does not */
    hw.log_inp_buff_size = 14;
    assert_int_equal(at_vta_hw_derive(&hw), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "an ALU instruction would need 144 bits"));
    at_vta_hw_default(&hw);
    hw.log_wgt_buff_size = 19; /* WGT index 11 bits, INP 10: GEMM and ALU fit, 11+11+11 uop bits do not */
    hw.log_inp_buff_size = 14;
    assert_int_equal(at_vta_hw_derive(&hw), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "a micro-op would need 33 bits"));
    at_vta_hw_default(&hw);
    hw.log_wgt_buff_size = 14; /* 2^14 B of 256-B elements: depth 64, fine; the uop fields shrink */
    assert_ok(at_vta_hw_derive(&hw));
    assert_int_equal(hw.wgt_buff_depth, 64);

    const char *broken[] = {"", "[]", "{\"TARGET\": \"pynq\",}", "{} x", "{\"TARGET\": \"pynq\""};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        assert_int_equal(at_vta_hw_from_json(broken[i], strlen(broken[i]), &hw), AT_EPARSE);
        assert_non_null(strstr(at_last_error(), "vta config"));
    }
}

static void load_should_read_a_file_and_name_it_in_errors(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/vta_config.json", at_test_tmpdir("vta_hw"));
    at_test_write_file(path, edited("TARGET", "\"sim\""));
    at_vta_hw hw;
    assert_ok(at_vta_hw_load(path, &hw));
    assert_string_equal(hw.model, "sim_1x16_i8w8a32_15_15_18_17");
    at_test_write_file(path, edited("LOG_BLOCK", "8"));
    assert_int_equal(at_vta_hw_load(path, &hw), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), path));
    assert_non_null(strstr(at_last_error(), "LOG_BLOCK"));
    char big[20000];
    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "{}", 2);
    at_test_write_file(path, big);
    assert_int_equal(at_vta_hw_load(path, &hw), AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "a vta config is at most 16383 bytes"));
    strcat(path, ".missing");
    assert_int_equal(at_vta_hw_load(path, &hw), AT_EIO);
    assert_non_null(strstr(at_last_error(), path));
}

static void timing_table_should_cover_every_constant_and_set_by_name(void **state)
{
    (void)state;
    at_vta_timing t;
    at_vta_timing_default(&t);
    assert_int_equal(at_vta_timing_count() * sizeof(uint32_t), sizeof t);
    assert_int_equal(t.gemm_ii, 1);
    assert_int_equal(t.alu_ii, 2);
    assert_int_equal(t.cmd_queue_depth, 512);
    for (size_t i = 0; i < at_vta_timing_count(); i++) {
        assert_true(strlen(at_vta_timing_doc(i)) > 10);
        assert_ok(at_vta_timing_set(&t, at_vta_timing_name(i), (long)(100 + i)));
        assert_int_equal(at_vta_timing_get(&t, i), 100 + i);
    }
    assert_int_equal(t.insn_overhead, 100);
    assert_int_equal(at_vta_timing_set(&t, "no_such", 1), AT_ENOTFOUND);
    assert_int_equal(at_vta_timing_set(&t, "gemm_ii", 0), AT_EINVAL);
    assert_int_equal(at_vta_timing_set(&t, "dma_read_latency", -1), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "dma_read_latency"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_config_should_have_the_spec_constants),
        cmocka_unit_test(sample_configs_should_load_with_their_targets_fpga_parameters),
        cmocka_unit_test(a_1x32_config_should_derive_its_own_constants),
        cmocka_unit_test(optional_keys_should_override_and_unknown_keys_be_ignored),
        cmocka_unit_test(every_missing_field_should_be_named),
        cmocka_unit_test(bad_values_should_be_parse_errors_naming_the_field),
        cmocka_unit_test(load_should_read_a_file_and_name_it_in_errors),
        cmocka_unit_test(timing_table_should_cover_every_constant_and_set_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
