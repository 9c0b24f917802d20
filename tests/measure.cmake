# measure/: time evaluator, verification, limits, wire (unit); the OpenCL worker pool on a real
# device with the fault cases (e2e + device: PoCL counts as a device and CI has it); the
# autotvm devices / measure commands (e2e + device).
at_add_test(test_measure LABELS unit DEPS measure)
if(AT_WITH_OPENCL)
  # the fault-injecting template shared with tests/rpc_measure.cmake
  add_library(at_fakes_fault STATIC fakes/fault_template.c)
  target_link_libraries(at_fakes_fault PUBLIC at_templates at_warnings)
  at_add_test(test_measure_ocl LABELS e2e device DEPS measure fakes_fault TIMEOUT 180)
  at_test_in_process_opencl(test_measure_ocl)
endif()
if(AT_WITH_OPENCL AND TARGET autotvm AND TARGET at_records)
  at_add_test(test_measure_cli LABELS e2e device DEPS measure records TIMEOUT 120)
  set_property(TEST test_measure_cli APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  at_test_in_process_opencl(test_measure_cli)
  add_dependencies(test_measure_cli autotvm)
endif()
