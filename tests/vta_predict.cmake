# tune/vta_predict (`autotvm vta predict`: measured TopHub VTA records against the simulator, and
# the cycle-model calibration) and the pynq 4x8 records on the simulator.
at_add_test(test_vta_predict LABELS e2e DEPS tune measure records templates vta)
# test_vta_predict is e2e: ~0.3 s in a release build, ~4 s under ASan (it runs three full-shape
# records functionally to compare cycles).
# test_vta_4x8: the 32 conv2d_packed records of the 4x8 bitstream, spatially shrunk, bit-exact;
# test_vta_4x8_full: the same on full shapes (~25-50 s in a release build, minutes under ASan).
at_add_test(test_vta_4x8 LABELS e2e DEPS tune measure records templates vta)
at_add_test(test_vta_4x8_full LABELS slow TIMEOUT 1800 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_vta_4x8.c DEPS tune measure records templates vta)
if(TARGET test_vta_4x8_full)
  target_compile_definitions(test_vta_4x8_full PRIVATE FULL_SHAPES=1)
endif()


if(TARGET autotvm)
  set(_vta_log ${AT_SHARED_DIR}/data/tophub/vta_v0.10.log)
  # per record: line, workload, config, measured ms, simulated ms, ratio; impossible measurements
  # listed as excluded; then the counts and the summaries (all, then per model)
  add_test(NAME cli_vta_predict COMMAND autotvm vta predict ${_vta_log})
  set_tests_properties(cli_vta_predict PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION
    " line  workload +config measured_ms simulated_ms +ratio\n.*\n +6  N=1 512x13x13 -> 1024 k3x3 s1 p1 +681 +2\\.9655 +- +-  measured faster than the GEMM peak: 537\\.8 GOPS.*\n +22  N=1 64x56x56 -> 64 k3x3 s1 p1 +828 +5\\.6993 +[0-9]+\\.[0-9]+ +[0-9]+\\.[0-9]+\n.*\n +111  N=4 512x7x7 -> 2048 k1x1 s1 p0 +379 +9\\.5570 +[0-9]+\\.[0-9]+ +[0-9]+\\.[0-9]+\n\n86 conv2d_packed\\.vta records, 77 simulated, 9 excluded \\(cannot run\\); 20 other records skipped\nall +records  77  median relative error [0-9.]+  Spearman [0-9.]+\nmodel pynq_1x16_i8w8a32_15_15_18_17 +records  45 .*\nmodel pynq_4x8_i8w8a32_15_16_16_18 +records  32 ")
  # --model for every record: the 1x16 workloads do not fit the 4x8 bitstream
  add_test(NAME cli_vta_predict_model COMMAND autotvm vta predict ${_vta_log} --model pynq_4x8_i8w8a32_15_16_16_18)
  set_tests_properties(cli_vta_predict_model PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION
    " +22  N=1 64x56x56 -> 64 k3x3 s1 p1 +828 +5\\.6993 +- +-  instantiation error: workload packed as 1x16.*86 conv2d_packed\\.vta records, 32 simulated, 54 excluded")
  add_test(NAME cli_vta_predict_bad_timing COMMAND autotvm vta predict ${_vta_log} --timing no_such=3)
  set_tests_properties(cli_vta_predict_bad_timing PROPERTIES LABELS e2e
    PASS_REGULAR_EXPRESSION "autotvm vta predict: error: vta timing: no constant named 'no_such'")
  add_test(NAME cli_vta_predict_fit COMMAND autotvm vta predict ${_vta_log} --fit host_call_cycles:0:100000 --rounds 2)
  set_tests_properties(cli_vta_predict_fit PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION
    "before the fit:\nall +records  77 .*fitted \\(mean over models of the median \\|log\\(sim/meas\\)\\|: [0-9.]+\\): insn_overhead=1 .* host_call_cycles=[0-9]+\n")
endif()
