#!/bin/sh
# The main job on the embedded default: installs what is missing, builds (release), runs.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DAT_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build" -j"$(nproc)" >/dev/null
shared=${AT_SHARED_DIR:-$root/../shared}
out=${AT_OUT_DIR:-$root/out}
mkdir -p "$out"
# Until `autotvm tune` lands (issue 6) the main job keeps the best TopHub record per workload.
for pack in mali_v0.06 vta_v0.10; do
  install -m 0644 "$shared/data/tophub/$pack.log" "$out/$pack.log"
  "$root/build/cli/autotvm" pick-best "$out/$pack.log" "$out/$pack.best.log"
done
