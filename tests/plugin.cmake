# Template plugins (templates/plugin.h): the registry extension in process (unit), the build
# tree's autotvm loading the example plugin and refusing bad ones (e2e, tests/plugin_cli.sh), and
# the installed tree: install, build examples/plugin with only its headers and autotvm.pc, tune it
# on PoCL (e2e + device, tests/install_e2e.sh).
at_add_test(test_plugin_registry LABELS unit DEPS templates
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_plugin_registry.c ${PROJECT_SOURCE_DIR}/examples/plugin/vecadd.c)

if(TARGET autotvm)
  # plugins for the build tree's autotvm: their at_ references resolve against the executable
  add_library(test_plugin_vecadd MODULE ${PROJECT_SOURCE_DIR}/examples/plugin/vecadd.c)
  add_library(test_plugin_bad_version MODULE plugins/refused.c)
  target_compile_definitions(test_plugin_bad_version PRIVATE REFUSED_VERSION=1)
  add_library(test_plugin_no_abi MODULE plugins/refused.c)
  foreach(p test_plugin_vecadd test_plugin_bad_version test_plugin_no_abi)
    target_link_libraries(${p} PRIVATE at_warnings)
    set_target_properties(${p} PROPERTIES PREFIX "")
  endforeach()
  add_test(NAME cli_plugin COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/plugin_cli.sh $<TARGET_FILE:autotvm>
    $<TARGET_FILE:test_plugin_vecadd> $<TARGET_FILE:test_plugin_bad_version> $<TARGET_FILE:test_plugin_no_abi>
    ${CMAKE_CURRENT_BINARY_DIR}/cli_plugin)
  set_tests_properties(cli_plugin PROPERTIES LABELS e2e TIMEOUT 120)

  add_test(NAME install_e2e COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install_e2e.sh ${PROJECT_BINARY_DIR}
    ${PROJECT_SOURCE_DIR}/examples/plugin ${CMAKE_CURRENT_BINARY_DIR}/install_e2e)
  set_tests_properties(install_e2e PROPERTIES LABELS "e2e;device" TIMEOUT 300)
  at_test_in_process_opencl(cli_plugin install_e2e)
endif()
