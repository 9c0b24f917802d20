# `autotvm tune-task --rpc-key`: a tracker and an rpc-server as child processes of the test,
# tuning a task on them into a log (e2e + device); tune-task's and tune's rpc option checks.
if(TARGET at_records AND TARGET at_rpc AND TARGET autotvm AND AT_WITH_OPENCL)
  at_add_test(test_tune_rpc LABELS e2e device DEPS records rpc test_rpc_support TIMEOUT 120)
  set_property(TEST test_tune_rpc APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  at_test_in_process_opencl(test_tune_rpc)
  add_dependencies(test_tune_rpc autotvm)
endif()
