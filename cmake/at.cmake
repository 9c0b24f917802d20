# Module and test helpers shared by every CMakeLists.txt (STYLE.md 2.10).

add_library(at_warnings INTERFACE)
target_compile_options(at_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wundef -Wwrite-strings -Wstrict-prototypes
  -Wmissing-prototypes -Wformat=2 -Wswitch-enum -Wcast-qual)
if(AT_WERROR)
  target_compile_options(at_warnings INTERFACE -Werror)
endif()
# POSIX.1-2008 (uselocale, fdopen, mkstemp) without GNU extensions.
target_compile_definitions(at_warnings INTERFACE _POSIX_C_SOURCE=200809L)
target_include_directories(at_warnings INTERFACE ${PROJECT_SOURCE_DIR})

if(AT_SANITIZE)
  string(REPLACE ";" "," _at_san "${AT_SANITIZE}")
  target_compile_options(at_warnings INTERFACE -fsanitize=${_at_san} -fno-omit-frame-pointer
                         -fno-sanitize-recover=all)
  target_link_options(at_warnings INTERFACE -fsanitize=${_at_san})
endif()

# at_add_module(NAME SOURCES a.c b.c DEPS knobs core LIBS PkgConfig::CJSON)
# creates static library at_NAME linked PUBLIC to at_<dep> for each dep: the layer table in code.
function(at_add_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;LIBS" ${ARGN})
  add_library(at_${name} STATIC ${M_SOURCES})
  target_link_libraries(at_${name} PUBLIC at_warnings)
  foreach(dep ${M_DEPS})
    target_link_libraries(at_${name} PUBLIC at_${dep})
  endforeach()
  if(M_LIBS)
    target_link_libraries(at_${name} PUBLIC ${M_LIBS})
  endif()
endfunction()

# at_add_test(NAME [LABELS unit] [SOURCES x.c] [DEPS records] [TIMEOUT s])
# one cmocka executable tests/unit/NAME.c registered with ctest, run from tests/.
function(at_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "LABELS;SOURCES;DEPS" ${ARGN})
  if(NOT T_SOURCES)
    set(T_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/${name}.c)
  endif()
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE at_test_support PkgConfig::CMOCKA)
  foreach(dep ${T_DEPS})
    target_link_libraries(${name} PRIVATE at_${dep})
  endforeach()
  add_test(NAME ${name} COMMAND ${name})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "AT_SHARED_DIR=${AT_SHARED_DIR};AT_SOURCE_DIR=${PROJECT_SOURCE_DIR};AT_BINARY_DIR=${PROJECT_BINARY_DIR}")
endfunction()

# at_test_in_process_opencl(NAME...): for tests whose own process (or the autotvm it starts) runs
# PoCL, i.e. builds OpenCL programs with PoCL's LLVM 15 + libclang-cpp in process.
# - LSAN_OPTIONS: PoCL and its LLVM keep allocations alive until exit (tests/ocl.lsan.supp).
# - ASAN_OPTIONS=intercept_tls_get_addr=0: GCC 12's sanitizer runtime (Debian 12's libasan 8)
#   sizes each dynamic-TLS block it sees through __tls_get_addr by guessing: a block that starts
#   16 bytes into a page is taken for glibc 2.19's memalign'd block and its size and start are
#   read from the 16 bytes before it. glibc 2.36 mallocs dynamic TLS (through ASan's allocator),
#   so when libclang-cpp's 16-byte TLS block lands at page offset 0x10 (its ASan chunk header then
#   precedes it), LSan records DTLS {0x4ac, 32 GiB} and its tracer segfaults scanning that range
#   at exit ("Tracer caught signal 11: addr=0x4b0", issue 14). Where the block lands depends on
#   the allocation history, so on the machine (cores, environment, paths). Without the
#   interceptor LSan loses nothing: dynamic TLS blocks are ordinary heap chunks reachable from the
#   thread's dtv, which the static TLS/TCB scan reaches, so leak detection stays as strict.
#   (The guess was replaced by an allocator lookup in LLVM 17's compiler-rt.)
function(at_test_in_process_opencl)
  foreach(t ${ARGN})
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
      "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/ocl.lsan.supp:print_suppressions=0"
      "ASAN_OPTIONS=intercept_tls_get_addr=0")
  endforeach()
endfunction()
