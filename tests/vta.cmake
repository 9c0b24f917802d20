# vta/: hardware config, instruction set (golden words), simulator; `autotvm vta config`.
at_add_test(test_vta_hw LABELS unit DEPS vta)
at_add_test(test_vta_isa LABELS unit DEPS vta)
at_add_test(test_vta_sim LABELS unit DEPS vta)

if(TARGET autotvm)
  add_test(NAME cli_vta_config COMMAND autotvm vta config)
  set_tests_properties(cli_vta_config PROPERTIES LABELS e2e
    PASS_REGULAR_EXPRESSION "model +pynq_1x16_i8w8a32_15_15_18_17.*wgt +2048 +256 +1024 +10 +262144.*dma_read_latency")
  add_test(NAME cli_vta_config_bad_file COMMAND autotvm vta config ${CMAKE_CURRENT_SOURCE_DIR}/golden/vta/insn_1x16_i8w8a32_15_15_18_17.hex)
  set_tests_properties(cli_vta_config_bad_file PROPERTIES LABELS e2e
    PASS_REGULAR_EXPRESSION "autotvm: error: .*insn_1x16_i8w8a32_15_15_18_17.hex: vta config: invalid JSON")
endif()
