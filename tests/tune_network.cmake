# tune/ network flow: records dispatch (unit), `autotvm tune` / `evaluate` with an interrupted,
# resumed run (e2e on the OpenCL device).
if(TARGET at_tune AND TARGET at_networks)
  at_add_test(test_tune_dispatch LABELS unit DEPS tune)
endif()
if(TARGET at_tune AND TARGET autotvm AND AT_WITH_OPENCL)
  at_add_test(test_tune_network LABELS e2e device DEPS records networks TIMEOUT 180)
  set_property(TEST test_tune_network APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  at_test_in_process_opencl(test_tune_network)
  add_dependencies(test_tune_network autotvm)
endif()
