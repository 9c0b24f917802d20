# add.vta / multiply.vta: template, op, backends/vta/alu.c lowering and the simulator runner.
at_add_test(test_vta_alu LABELS unit DEPS measure backends_vta templates vta)
# all 192 configs of add.vta and multiply.vta on (1,4,56,56,1,16) and an xgb_rank tuning run of
# add.vta on the simulator: seconds, so e2e.
if(TARGET at_tune)
  at_add_test(test_vta_alu_sweep LABELS e2e DEPS tune tuners measure backends_vta templates vta)
endif()
# tune-task on the simulator for an int8 multiply.vta (every record checked against the reference).
if(TARGET autotvm)
  add_test(NAME cli_tune_task_multiply_vta COMMAND autotvm tune-task multiply.vta --args 1,32,14,14,int8 --target vta
    --tuner gridsearch --n-trial 12 --check-correctness --log ${CMAKE_CURRENT_BINARY_DIR}/cli_tune_task_multiply_vta.log)
  set_tests_properties(cli_tune_task_multiply_vta PROPERTIES LABELS e2e
    PASS_REGULAR_EXPRESSION "best of 12 trials: config [0-9]+, [0-9.]+ GFLOPS")
endif()
