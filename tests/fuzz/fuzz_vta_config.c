/* libFuzzer target for VTA hardware configs in tvm-vta's JSON format (vta/hw.h): a config that
 * parses must be derived consistently (shapes are the powers of two its logs say, buffers hold
 * whole elements, names are terminated) and derive again to the same struct; the per-memory
 * queries must answer for every memory type. Any crash, sanitizer report, abort() or leaked
 * block (at_alloc_live) is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "vta/hw.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    at_log_set_sink(at_fuzz_quiet, NULL);
    long live = at_alloc_live();
    at_vta_hw hw;
    memset(&hw, 0xA5, sizeof hw);
    at_vta_hw before = hw;
    at_status st = at_vta_hw_from_json((const char *)data, size, &hw);
    CHECK(st == AT_OK || st == AT_EPARSE);
    if (st != AT_OK) {
        CHECK(!memcmp(&hw, &before, sizeof hw)); /* written only on success */
    } else {
        CHECK(hw.batch == 1 << hw.log_batch && hw.block_in == 1 << hw.log_block_in);
        CHECK(hw.inp_width == 1 << hw.log_inp_width && hw.acc_width == 1 << hw.log_acc_width);
        CHECK(hw.gemm_macs_per_uop == hw.batch * hw.block_in * hw.block_out);
        CHECK(hw.uop_buff_depth > 0 && hw.inp_buff_depth > 0 && hw.wgt_buff_depth > 0 && hw.acc_buff_depth > 0);
        CHECK(memchr(hw.bitstream, '\0', sizeof hw.bitstream) && memchr(hw.model, '\0', sizeof hw.model));
        for (int m = 0; m < AT_VTA_MEM_COUNT; m++) {
            CHECK(at_vta_hw_dram_elem_bytes(&hw, (at_vta_mem)m) > 0);
            CHECK(at_vta_hw_sram_depth(&hw, (at_vta_mem)m) > 0);
            CHECK(strcmp(at_vta_mem_name((at_vta_mem)m), "?") != 0);
        }
        at_vta_hw again = hw;
        CHECK(at_vta_hw_derive(&again) == AT_OK);
        CHECK(!memcmp(&again, &hw, sizeof hw));
    }
    CHECK(at_alloc_live() == live);
    return 0;
}
