# issue 19: fault injection and load on the built autotvm binary. test_fault_e2e: a tuning run
# with a measurement worker killed, FILE.tmp on a tmpfs that fills, the tuner killed -9 and
# resumed (e2e + device: PoCL). test_load_rpc: a tracker, 8 rpc-servers and 4 concurrent tuners on
# loopback, no record lost or doubled, no process or descriptor left (e2e + device).
if(TARGET at_records AND TARGET autotvm AND AT_WITH_OPENCL)
  at_add_test(test_fault_e2e LABELS e2e device DEPS records TIMEOUT 180)
  set_property(TEST test_fault_e2e APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  at_test_in_process_opencl(test_fault_e2e)
  add_dependencies(test_fault_e2e autotvm)
endif()
if(TARGET at_records AND TARGET at_rpc AND TARGET autotvm AND AT_WITH_OPENCL)
  at_add_test(test_load_rpc LABELS e2e device DEPS records rpc test_rpc_support TIMEOUT 180)
  set_property(TEST test_load_rpc APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  at_test_in_process_opencl(test_load_rpc)
  add_dependencies(test_load_rpc autotvm)
endif()
