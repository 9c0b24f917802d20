# Mali templates (templates/*_mali.c, ops_conv2d.c, ops_dense.c): ops, spaces and fallbacks,
# the registry conformance walk on the IR interpreter (unit), the same on PoCL (e2e), real
# TopHub shapes on PoCL (device), and `records check` on TopHub's mali pack.
at_add_test(test_mali LABELS unit DEPS templates records)
at_add_test(test_mali_records_check LABELS unit DEPS templates records
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_mali_records_check.c
          ${PROJECT_SOURCE_DIR}/cli/cmd_records_check.c ${PROJECT_SOURCE_DIR}/cli/args.c)
# Launch geometry of TVM's measured configs and TopHub configs, pinned to TVM's (codegen only).
at_add_test(test_mali_geometry LABELS unit DEPS templates backends_opencl)
at_add_test(test_conformance_mali LABELS unit DEPS templates records backends_opencl test_op_data
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_conformance_mali.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/mali_cases.c)
if(TARGET at_measure)
  at_add_test(test_conformance_mali_pocl LABELS e2e device DEPS measure records TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_conformance_mali_ocl.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/mali_cases.c)
  at_add_test(test_conformance_mali_real LABELS device DEPS measure records TIMEOUT 3600
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_conformance_mali_ocl.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/mali_cases.c)
  target_compile_definitions(test_conformance_mali_real PRIVATE MALI_REAL_SHAPES=1)
  at_test_in_process_opencl(test_conformance_mali_pocl test_conformance_mali_real)
endif()
# `autotvm space` and `autotvm show` (template authors): TVM's decoding of a measured config, the
# launch sizes and the affine index text of its conv kernel, the IR, and a bad index.
if(TARGET autotvm)
  set(_r18c2 conv2d_nchw_spatial_pack.mali --args 1,64,56,56,64,3,3,1,1)
  add_test(NAME cli_space_decode COMMAND autotvm space ${_r18c2} --index 2479477)
  set_tests_properties(cli_space_decode PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION
    "reorder_0 +re +2: \\[0, 1, 2, 3, 4, 5, 6, 7, 8, 9\\] \\[0, 1, 2, 3, 4, 5, 6, 9, 7, 8\\].*space: 4032000 configs.*{\"index\": 2479477, \"code_hash\": null, \"entity\": \\[\\[\"tile_co\", \"sp\", \\[-1, 8, 8\\]\\], \\[\"tile_oh\", \"sp\", \\[-1, 1, 8\\]\\], \\[\"tile_ow\", \"sp\", \\[-1, 7, 2\\]\\], \\[\"reorder_0\", \"re\", \\[0, 1, 2, 3, 4, 5, 6, 7, 8, 9\\]\\], \\[\"ann_reduce\", \"an\", \\[\"none\", \"unroll\"\\]\\], \\[\"ann_spatial\", \"an\", \\[\"unroll\", \"unroll\", \"unroll\"\\]\\]\\]}")
  add_test(NAME cli_space_bad_index COMMAND autotvm space ${_r18c2} --index 99999999)
  set_tests_properties(cli_space_bad_index PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION
    "autotvm: error: index 99999999 of conv2d_nchw_spatial_pack.mali \\(the space has 4032000\\)")
  add_test(NAME cli_show_opencl COMMAND autotvm show ${_r18c2} --config 2479477)
  set_tests_properties(cli_show_opencl PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION
    "kernel conv_kernel: global \\(28, 7, 8\\) local \\(7, 1, 8\\).*conv\\[\\(\\(h_o \\* 3584\\) \\+ \\(w_o \\* 896\\) \\+ \\(c_i \\* 25088\\) \\+ \\(w_i_1 \\* 128\\) \\+ 1\\)\\] = 0.0f;")
  add_test(NAME cli_show_ir COMMAND autotvm show ${_r18c2} --config 2479477 --ir)
  set_tests_properties(cli_show_ir PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION
    "program conv2d_nchw_spatial_pack.mali.*kernel conv_kernel")
endif()
