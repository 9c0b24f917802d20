# What `cmake --install` and `cpack -G DEB` ship (README.md "Install"):
#   bin/autotvm                    linked with libautotvm.so, RUNPATH $ORIGIN/../<libdir>
#   <libdir>/libautotvm.so.MAJOR.MINOR.PATCH (+ .so.MAJOR soname link, .so dev link)
#   <libdir>/autotvm/autotvm-llvm.so   (AT_LLVM_PLUGIN builds only)
#   <libdir>/pkgconfig/autotvm.pc
#   include/autotvm/<module>/*.h   the public headers (internal.h files stay private)
#   share/autotvm/tophub/*.log     the TopHub packs of AT_SHARED_DIR (when present), share/autotvm/doc/
# The build tree keeps its static modules: the tests link those; libautotvm.so is built from the
# same object files (CMAKE_POSITION_INDEPENDENT_CODE), so nothing is compiled twice.

# The modules below cli/, as at_backends_llvm resolves in this build (the plugin's loader when
# AT_LLVM_PLUGIN is on: at_backends_llvm is then an INTERFACE library with no objects).
set(_at_lib_modules)
foreach(m ${AT_LIB_MODULES})
  get_target_property(_type ${m} TYPE)
  if(_type STREQUAL "STATIC_LIBRARY")
    list(APPEND _at_lib_modules ${m})
  elseif(m STREQUAL "at_backends_llvm")
    list(APPEND _at_lib_modules at_backends_llvm_plugin_loader)
  endif()
endforeach()

set(_at_objects)
foreach(m ${_at_lib_modules})
  list(APPEND _at_objects $<TARGET_OBJECTS:${m}>)
endforeach()
add_library(autotvm_shared SHARED ${_at_objects})
# the static modules bring their link requirements (cJSON, OpenCL, XGBoost, libcurl, LLVM);
# their objects are already in, so the archives contribute no code
target_link_libraries(autotvm_shared PRIVATE at_warnings ${_at_lib_modules})
set_target_properties(autotvm_shared PROPERTIES
  OUTPUT_NAME autotvm VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/libautotvm.map)
# only the at_ API is exported (STYLE: every public name is at_-prefixed)
target_link_options(autotvm_shared PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/libautotvm.map)
if(NOT AT_SANITIZE)
  target_link_options(autotvm_shared PRIVATE -Wl,-z,defs)
endif()

# bin/autotvm of the installed tree: the cli objects on libautotvm.so
add_executable(autotvm_installed $<TARGET_OBJECTS:autotvm_cli>)
target_link_libraries(autotvm_installed PRIVATE at_warnings autotvm_shared)
# cli/ calls cJSON itself
target_link_libraries(autotvm_installed PRIVATE PkgConfig::CJSON Threads::Threads m)
file(RELATIVE_PATH _at_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_target_properties(autotvm_installed PROPERTIES
  OUTPUT_NAME autotvm RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/installed-bin
  INSTALL_RPATH "$ORIGIN/${_at_bin_to_lib}")

install(TARGETS autotvm_installed RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS autotvm_shared
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_SKIP)
install(TARGETS autotvm_shared
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_ONLY)
if(AT_LLVM_PLUGIN)
  install(TARGETS autotvm_llvm LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/autotvm COMPONENT runtime)
endif()

# Public headers: every header of the library's modules but the private ones.
foreach(dir core ir knobs vta rpc templates backends/opencl backends/llvm backends/vta
            measure records tuners tophub networks tune report)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/autotvm/${dir}
      COMPONENT runtime FILES_MATCHING PATTERN "*.h"
      PATTERN "internal.h" EXCLUDE PATTERN "*_internal.h" EXCLUDE
      PATTERN "plugin.h" EXCLUDE) # backends/llvm's loader ABI (templates/plugin.h is public, below)
  endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/templates/plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/autotvm/templates
  COMPONENT runtime)

# relocatable: the prefix is found from the .pc file's own directory (`--prefix P` at install time)
file(RELATIVE_PATH AT_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" AT_PC_TO_PREFIX "${AT_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/autotvm.pc.in ${PROJECT_BINARY_DIR}/autotvm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/autotvm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT runtime)

file(GLOB _at_packs ${AT_SHARED_DIR}/data/tophub/*.log)
if(_at_packs)
  install(FILES ${_at_packs} DESTINATION ${CMAKE_INSTALL_DATADIR}/autotvm/tophub COMPONENT runtime)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/README.md
  DESTINATION ${CMAKE_INSTALL_DATADIR}/autotvm/doc COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/templates/README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/autotvm/doc
  RENAME writing-templates.md COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/rpc/PROTOCOL.md DESTINATION ${CMAKE_INSTALL_DATADIR}/autotvm/doc
  RENAME rpc-protocol.md COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/plugin/ DESTINATION ${CMAKE_INSTALL_DATADIR}/autotvm/examples/plugin
  COMPONENT runtime)

# cpack -G DEB: one package, its Depends the Debian packages of the libraries we link
# (dpkg-shlibdeps reads them off the ELF files).
set(CPACK_PACKAGE_NAME autotvm)
set(CPACK_PACKAGE_VENDOR "autotvm-c")
set(CPACK_PACKAGE_CONTACT "autotvm-c maintainers <autotvm@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "template-based kernel auto-tuner (AutoTVM in C)")
# lintian: extended description lines of at most 80 characters
set(CPACK_PACKAGE_DESCRIPTION "A C11 rebuild of Apache TVM's AutoTVM: tunes OpenCL, LLVM and
VTA kernels from schedule templates, byte-compatible with TVM's tuning
logs and TopHub packs. Ships the autotvm command, libautotvm with its
headers and pkg-config file, and template plugin support.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# the PoCL runtime is what measures on the CPU; any OpenCL ICD will do
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
