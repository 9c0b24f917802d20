# The CPU target (issue 10): measure/'s CPU worker pool on the host through LLVM with the fault
# cases (e2e: forks workers, JIT-compiles); the network executor on tune/'s LLVM backend against
# the reference executor and `autotvm tune-task --target arm_cpu` (e2e). Both need backends/llvm.
if(TARGET at_backends_llvm AND TARGET at_measure)
  if(NOT TARGET at_fakes_fault)
    add_library(at_fakes_fault STATIC fakes/fault_template.c)
    target_link_libraries(at_fakes_fault PUBLIC at_templates at_warnings)
  endif()
  at_add_test(test_measure_cpu LABELS e2e DEPS measure fakes_fault TIMEOUT 120)
endif()
if(TARGET at_backends_llvm AND TARGET at_tune AND TARGET autotvm)
  at_add_test(test_tune_cpu LABELS e2e DEPS tune records TIMEOUT 180)
  set_property(TEST test_tune_cpu APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  add_dependencies(test_tune_cpu autotvm)
endif()
# issue 19 (F): the worker pool caps n_parallel at 4 processes per core (CPU pool: no device needed)
if(TARGET at_backends_llvm AND TARGET at_measure)
  at_add_test(test_measure_pool_cap LABELS e2e DEPS measure TIMEOUT 120)
endif()
