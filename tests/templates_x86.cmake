# x86 NCHWc templates (templates/conv2d_NCHWc_x86.c, depthwise_conv2d_NCHWc_x86.c): workloads,
# FLOPs, spaces, TopHub llvm_v0.04 records, fallbacks, both programs on the interpreter; and, once
# the LLVM backend builds, through its JIT.
at_add_test(test_x86 LABELS unit DEPS templates records
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_x86.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_x86_cases.c
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_cases.c)
if(TARGET at_backends_llvm)
  at_add_test(test_x86_llvm LABELS e2e DEPS templates backends_llvm TIMEOUT 180
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_x86_llvm.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_x86_cases.c
            ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_cases.c)
endif()
if(TARGET at_networks)
  at_add_test(test_x86_net LABELS e2e DEPS networks TIMEOUT 300)
endif()
if(TARGET at_networks)
  set(_x86_helpers ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_x86_cases.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_cases.c)
  at_add_test(test_graph_tune LABELS e2e DEPS tune networks records TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_graph_tune.c ${_x86_helpers})
  at_add_test(test_graph_refine LABELS e2e DEPS tune networks records TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_graph_refine.c ${_x86_helpers})
endif()
