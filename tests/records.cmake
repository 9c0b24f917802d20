# records/ and core/target tests (unit), the autotvm pick-best/records CLI (e2e), and the
# libFuzzer target for the log-line parser when AT_FUZZ is on.
at_add_test(test_target LABELS unit DEPS core)
at_add_test(test_records LABELS unit DEPS records)
at_add_test(test_records_alloc LABELS unit DEPS records)
at_add_test(test_records_best LABELS unit DEPS records)
if(TARGET autotvm)
  at_add_test(test_records_cli LABELS e2e DEPS records TIMEOUT 60)
  set_property(TEST test_records_cli APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  add_dependencies(test_records_cli autotvm)
endif()
if(AT_FUZZ)
  add_subdirectory(fuzz)
endif()
