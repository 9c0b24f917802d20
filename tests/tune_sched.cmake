# tune/scheduler: the whole-network trial scheduler's arithmetic on fake latencies (unit).
if(TARGET at_tune)
  at_add_test(test_tune_sched LABELS unit DEPS tune)
endif()
# `autotvm tune --total-trials` on the OpenCL device: tables, round order, Ctrl-C and --resume (e2e).
if(TARGET at_tune AND TARGET autotvm AND AT_WITH_OPENCL)
  at_add_test(test_tune_sched_cli LABELS e2e device DEPS records TIMEOUT 180)
  set_property(TEST test_tune_sched_cli APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  at_test_in_process_opencl(test_tune_sched_cli)
  add_dependencies(test_tune_sched_cli autotvm)
endif()
