# tune-task --target vta: deterministic tuning on the VTA simulator (library and CLI).
if(TARGET at_tune AND TARGET at_measure AND TARGET autotvm)
  at_add_test(test_vta_tune_determinism LABELS e2e DEPS tune measure records tuners TIMEOUT 60)
  set_property(TEST test_vta_tune_determinism APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  add_dependencies(test_vta_tune_determinism autotvm)
endif()
