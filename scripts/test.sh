#!/bin/sh
# Every test: installs what is missing, builds with -Werror and ASan+UBSan, runs ctest.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
cmake -S "$root" -B "$root/build-test" -DCMAKE_BUILD_TYPE=Debug -DAT_WERROR=ON \
      -DAT_SANITIZE='address;undefined' -DAT_SHARED_DIR="${AT_SHARED_DIR:-$root/../shared}" >/dev/null
cmake --build "$root/build-test" -j"$(nproc)"
cd "$root/build-test"
ctest --output-on-failure -j"$(nproc)" -L "${AT_TEST_LABELS:-unit|e2e|device}"
