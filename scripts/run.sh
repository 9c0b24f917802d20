#!/bin/sh
# The main job on the embedded default: installs what is missing, builds (release), then tunes
# resnet-18 for Mali on the local OpenCL device (PoCL) with the xgb_rank tuner -- a short run,
# 4 trials per task -- and evaluates it end to end (TopHub's pack fills in).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DAT_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build" -j"$(nproc)" >/dev/null
shared=${AT_SHARED_DIR:-$root/../shared}
out=${AT_OUT_DIR:-$root/out}
mkdir -p "$out"
"$root/build/cli/autotvm" tune resnet-18 --target mali --tuner xgb_rank --n-trial "${AT_N_TRIAL:-4}" \
  --log "$out/resnet-18.mali.log" --tophub-dir "$shared/data/tophub" --number 1 --repeat 3 --cooldown-ms 0
# Then TVM's pick-best over the TopHub packs, as before.
for pack in mali_v0.06 vta_v0.10; do
  install -m 0644 "$shared/data/tophub/$pack.log" "$out/$pack.log"
  "$root/build/cli/autotvm" pick-best "$out/$pack.log" "$out/$pack.best.log"
done
