# report/: the tuning report page of a hand-written log (unit).
if(TARGET at_report)
  at_add_test(test_report LABELS unit DEPS report)
endif()
# `autotvm report` through the binary: the page, the errors (e2e).
if(TARGET at_report AND TARGET autotvm)
  at_add_test(test_report_cli LABELS e2e DEPS report TIMEOUT 60)
  set_property(TEST test_report_cli APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  add_dependencies(test_report_cli autotvm)
endif()
# The page in a real browser (headless Chromium), only where one is installed: label browser,
# outside the default unit|e2e|device run (`ctest -L browser`).
find_program(AT_CHROMIUM NAMES chromium chromium-browser google-chrome)
if(TARGET autotvm AND AT_CHROMIUM)
  add_test(NAME report_browser COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/report_browser.sh $<TARGET_FILE:autotvm>
           ${AT_CHROMIUM} ${CMAKE_CURRENT_BINARY_DIR}/report_browser)
  set_tests_properties(report_browser PROPERTIES LABELS browser TIMEOUT 300)
endif()
