#!/bin/sh
# Every test: installs what is missing, builds with -Werror and ASan+UBSan, runs ctest.
# The build's output goes to build-test/build.log (its errors are printed when it fails); ctest's
# progress streams; at the end every failed test is printed again with the tail of its output, and
# ctest's summary line is the last line.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
build="$root/build-test"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DAT_WERROR=ON \
      -DAT_SANITIZE='address;undefined' -DAT_SHARED_DIR="${AT_SHARED_DIR:-$root/../shared}" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; echo "test.sh: cmake configure failed (log: $build/configure.log)"; exit 1; }
echo "building (log: $build/build.log)..."
if ! cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1; then
  grep -E -A3 "error:|Error [0-9]|undefined reference" "$build/build.log" | head -60
  echo "test.sh: build failed (full log: $build/build.log)"
  exit 1
fi
cd "$build"
status=0
: >ctest.log
ctest --output-on-failure -j"$(nproc)" -L "${AT_TEST_LABELS:-unit|e2e|device}" >>ctest.log 2>&1 &
ctest_pid=$!
tail -n +1 --pid=$ctest_pid -f ctest.log | grep -E --line-buffered "Test +#|tests passed|Total Test time" || true
wait $ctest_pid || status=$?
if [ "$status" -ne 0 ]; then
  echo
  echo "==================== failed tests: the last 30 lines of each one's output ===================="
  # LastTest.log holds every test's output between "Output:" and "<end of output>"
  awk '/^[0-9]+\/[0-9]+ Testing: /{name = $3; n = 0; inout = 0; failed = 0; next}
       /^Output:$/{inout = 1; getline; next}
       /^<end of output>$/{inout = 0; next}
       inout{buf[n++] = $0; next}
       /^Test / && !/^Test time/ && !/^Test Passed/{failed = 1}
       /^"[^"]+" end time:/ && failed {
         print "---- " name " ----"; for (i = (n > 30 ? n - 30 : 0); i < n; i++) print buf[i]; failed = 0 }' \
    Testing/Temporary/LastTest.log
  echo "(each test's full output: $build/ctest.log)"
  grep -E "^[[:space:]]+[0-9]+ - " ctest.log | sed 's/^/FAILED:/' || true
fi
grep -E "tests passed, [0-9]+ tests? failed" ctest.log | tail -1
exit "$status"
