at_add_test(test_core LABELS unit DEPS core)
at_add_test(test_config LABELS unit DEPS knobs)

# A comma-decimal locale for test_core's locale-independence case, compiled once at build time
# (CI images carry no locales beyond C/POSIX; scripts/deps.sh installs the 'locales' sources).
find_program(AT_LOCALEDEF localedef)
if(AT_LOCALEDEF AND EXISTS /usr/share/i18n/locales/de_DE)
  set(_loc ${CMAKE_CURRENT_BINARY_DIR}/locale)
  add_custom_command(OUTPUT ${_loc}/de_DE.UTF-8/LC_NUMERIC
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_loc}
    COMMAND ${AT_LOCALEDEF} -i de_DE -f UTF-8 ${_loc}/de_DE.UTF-8 || true
    COMMENT "Compiling the de_DE.UTF-8 locale for test_core")
  add_custom_target(at_test_locale ALL DEPENDS ${_loc}/de_DE.UTF-8/LC_NUMERIC)
  set_property(TEST test_core APPEND PROPERTY ENVIRONMENT "LOCPATH=${_loc}")
endif()
