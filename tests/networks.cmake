# networks/: relay.testing graphs, fusion, task extraction (exact TVM task lists, TopHub coverage),
# the reference executor and the tuned executor on the IR interpreter; `autotvm tasks`.
if(TARGET at_networks)
  at_add_test(test_net LABELS unit DEPS networks records)
  at_add_test(test_net_exec LABELS unit DEPS networks)
  at_add_test(test_storage_plan LABELS unit DEPS networks)
  at_add_test(test_epilogue LABELS unit DEPS networks)
  at_add_test(test_pool_program LABELS unit DEPS networks)
  at_add_test(test_net_cli LABELS unit DEPS networks
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_net_cli.c ${PROJECT_SOURCE_DIR}/cli/cmd_tasks.c
            ${PROJECT_SOURCE_DIR}/cli/args.c)
endif()
if(TARGET at_networks AND AT_WITH_OPENCL)
  at_add_test(test_net_ocl LABELS e2e device DEPS tune TIMEOUT 300)
  at_test_in_process_opencl(test_net_ocl)
endif()
