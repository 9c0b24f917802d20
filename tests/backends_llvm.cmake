# backends/llvm: golden LLVM IR, JIT vs the IR interpreter (templates, OpenCL fixtures, hand-built
# programs), the thread pool and aarch64 objects (unit); LLVM JIT and uncached PoCL builds in one
# process (e2e).
at_add_test(test_llvm LABELS unit DEPS backends_llvm templates records
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_llvm.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_ocl_programs.c
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/mali_cases.c)
at_add_test(test_llvm_sweep LABELS e2e DEPS backends_llvm templates records TIMEOUT 120
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_llvm.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_ocl_programs.c
          ${CMAKE_CURRENT_SOURCE_DIR}/unit/mali_cases.c)
target_compile_definitions(test_llvm_sweep PRIVATE AT_LLVM_SWEEP=1)
if(AT_WITH_OPENCL)
  foreach(order jit cl)
    set(_t test_llvm_ocl_${order}_first)
    at_add_test(${_t} LABELS e2e device DEPS backends_llvm backends_opencl TIMEOUT 120
      SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_llvm_ocl.c)
    set_property(TEST ${_t} APPEND PROPERTY ENVIRONMENT "AT_LLVM_OCL_ORDER=${order}")
    at_test_in_process_opencl(${_t})
  endforeach()
endif()
# The plugin build (autotvm-llvm.so through at_backends_llvm_plugin_loader, no LLVM linked): JIT vs
# the interpreter, shared core, missing plugin, and uncached PoCL builds in the same process.
if(AT_WITH_OPENCL AND TARGET at_backends_llvm_plugin_loader)
  at_add_test(test_llvm_plugin LABELS e2e device DEPS backends_llvm_plugin_loader backends_opencl TIMEOUT 120)
  at_test_in_process_opencl(test_llvm_plugin)
endif()
