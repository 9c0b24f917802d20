# Mali templates (templates/*_mali.c, ops_conv2d.c, ops_dense.c): ops, spaces and fallbacks,
# the registry conformance walk on the IR interpreter (unit), the same on PoCL (e2e), real
# TopHub shapes on PoCL (device), and `records check` on TopHub's mali pack.
at_add_test(test_mali LABELS unit DEPS templates records)
at_add_test(test_mali_records_check LABELS unit DEPS templates records
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_mali_records_check.c
          ${PROJECT_SOURCE_DIR}/cli/cmd_records_check.c ${PROJECT_SOURCE_DIR}/cli/args.c)
# Launch geometry of TVM's measured configs and TopHub configs, pinned to TVM's (codegen only).
at_add_test(test_mali_geometry LABELS unit DEPS templates backends_opencl)
at_add_test(test_conformance_mali LABELS unit DEPS templates records backends_opencl
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_conformance_mali.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/mali_cases.c)
if(TARGET at_measure)
  at_add_test(test_conformance_mali_pocl LABELS e2e device DEPS measure records TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_conformance_mali_ocl.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/mali_cases.c)
  at_add_test(test_conformance_mali_real LABELS device DEPS measure records TIMEOUT 3600
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_conformance_mali_ocl.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/mali_cases.c)
  target_compile_definitions(test_conformance_mali_real PRIVATE MALI_REAL_SHAPES=1)
  at_test_in_process_opencl(test_conformance_mali_pocl test_conformance_mali_real)
endif()
