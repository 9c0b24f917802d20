# backends/opencl: codegen golden text (unit, no device) and the same fixture programs on a real
# OpenCL device against the IR interpreter (device; PoCL counts as one).
at_add_test(test_ocl_codegen LABELS unit DEPS backends_opencl templates
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_ocl_codegen.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_ocl_programs.c)
if(AT_WITH_OPENCL)
  at_add_test(test_ocl_device LABELS e2e device DEPS backends_opencl templates TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_ocl_device.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_ocl_programs.c)
  at_test_in_process_opencl(test_ocl_device)
endif()
