# tune/network_vta's LLVM host layers (stem conv, quantize, pooling, dense through LLVM) against the
# naive C reference, the host layers' TopHub dispatch, and `evaluate --target vta --host naive|llvm`.
if(TARGET at_tune AND TARGET at_backends_llvm AND TARGET autotvm)
  at_add_test(test_net_vta_llvm LABELS e2e DEPS tune TIMEOUT 120)
  set_property(TEST test_net_vta_llvm APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  add_dependencies(test_net_vta_llvm autotvm)
endif()
