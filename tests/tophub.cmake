# tophub/: table, selection, cache and dispatch (unit, no network); allocation failures (unit);
# downloads against a local HTTP server the test starts on 127.0.0.1 (e2e: two cases wait out a
# 1 s connect timeout); the autotvm tophub CLI against the same server (e2e).
at_add_test(test_tophub LABELS unit DEPS tophub)
at_add_test(test_tophub_alloc LABELS unit DEPS tophub)
at_add_test(test_tophub_net LABELS e2e DEPS tophub TIMEOUT 60
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_tophub_net.c ${CMAKE_CURRENT_SOURCE_DIR}/tophub_server/http_server.c)
target_link_libraries(test_tophub_net PRIVATE Threads::Threads)
if(TARGET autotvm)
  at_add_test(test_tophub_cli LABELS e2e DEPS tophub TIMEOUT 60
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_tophub_cli.c ${CMAKE_CURRENT_SOURCE_DIR}/tophub_server/http_server.c)
  target_link_libraries(test_tophub_cli PRIVATE Threads::Threads)
  add_dependencies(test_tophub_cli autotvm)
  set_property(TEST test_tophub_cli APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
endif()
# issue 19: a pack for another backend is refused, interrupted fetches leave no temp files behind
at_add_test(test_tophub_reliability LABELS unit DEPS tophub)
