# Remote measurement (measure/rpc_*): the payload codec, the handler's refusals and the runner's
# option checks (unit); a tracker and rpc-servers as forked processes measuring on the OpenCL
# device (PoCL here) through the runner, with crashes, timeouts, bad replies and a killed server
# (e2e + device); the autotvm binary's rpc-server --device and measure --rpc-key (e2e + device).
if(TARGET at_measure)
  at_add_test(test_rpc_measure LABELS unit DEPS measure)
endif()
if(TARGET at_measure AND AT_WITH_OPENCL)
  # one source, two executables: local-vs-remote and refusals; crashes, timeouts, a killed server
  at_add_test(test_rpc_measure_e2e LABELS e2e device DEPS measure fakes_fault TIMEOUT 120)
  at_add_test(test_rpc_measure_faults LABELS e2e device DEPS measure fakes_fault TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_rpc_measure_e2e.c)
  target_compile_definitions(test_rpc_measure_faults PRIVATE AT_RPC_FAULTS=1)
  foreach(t test_rpc_measure_e2e test_rpc_measure_faults)
    at_test_in_process_opencl(${t})
  endforeach()
endif()
if(TARGET at_measure AND AT_WITH_OPENCL AND TARGET autotvm AND TARGET at_records)
  at_add_test(test_rpc_measure_cli LABELS e2e device DEPS measure records test_rpc_support TIMEOUT 120)
  set_property(TEST test_rpc_measure_cli APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  at_test_in_process_opencl(test_rpc_measure_cli)
  add_dependencies(test_rpc_measure_cli autotvm)
endif()
