# CPU templates of the arm_cpu strategy (templates/*arm_cpu*.c, templates/dense_x86.c): spaces,
# FLOPs, fallbacks, real records (TopHub's vta pack, lines of arm_cpu_v0.08) and `records check`
# on them, arm_cpu task extraction; the IR interpreter against the references; and, once the
# LLVM backend builds, its JIT against the references.
at_add_test(test_arm_cpu LABELS unit DEPS templates records networks
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu.c
          ${PROJECT_SOURCE_DIR}/cli/cmd_records_check.c ${PROJECT_SOURCE_DIR}/cli/args.c)
at_add_test(test_arm_cpu_interp LABELS unit DEPS templates
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_interp.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_cases.c)
if(TARGET at_backends_llvm)
  at_add_test(test_arm_cpu_llvm LABELS e2e DEPS templates backends_llvm TIMEOUT 240
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_llvm.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_cases.c)
endif()
if(TARGET at_networks AND TARGET at_tune)
  at_add_test(test_arm_cpu_cli LABELS unit DEPS networks tune
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_cli.c ${PROJECT_SOURCE_DIR}/cli/cmd_tasks.c
            ${PROJECT_SOURCE_DIR}/cli/args.c)
endif()
if(TARGET at_networks)
  at_add_test(test_arm_cpu_net LABELS e2e DEPS networks TIMEOUT 240)
endif()
# conv2d_nchw_winograd.arm_cpu and int8 spatial pack: spaces, dtypes, TopHub records
# (tests/data/arm_cpu_v0.08_excerpt.log), records check, one record's config on the interpreter.
at_add_test(test_arm_cpu_wino LABELS unit DEPS templates records
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_wino.c ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arm_cpu_cases.c
          ${PROJECT_SOURCE_DIR}/cli/cmd_records_check.c ${PROJECT_SOURCE_DIR}/cli/args.c)
