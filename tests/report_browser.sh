#!/bin/sh
# Renders `autotvm report` pages in headless Chromium (issue 18): a two-task log without and with
# a network table must load and paint (a PNG screenshot of the window size, not blank). Chromium
# is not a build dependency: ctest registers this (label browser, outside unit|e2e|device) only
# where one is installed. Usage: report_browser.sh AUTOTVM CHROMIUM WORKDIR
set -e
autotvm=$1 chromium=$2 work=$3
mkdir -p "$work"
rec() { # task args, index, cost, error, timestamp
  printf '{"input": ["opencl -device=mali", "dense.mali", %s, {}], "config": {"index": %s, "code_hash": null, "entity": [["tile_y", "sp", [-1, 1, 1]], ["tile_x", "sp", [-1, 1, 1]], ["c_unroll", "sp", [-1, 4]]]}, "result": [[%s], %s, 0.5, %s], "version": 0.2, "tvm_version": "0.18.0"}\n' "$@"
}
fc8='[["TENSOR", [1, 4096], "float32"], ["TENSOR", [10, 4096], "float32"], null, "float32"]'
fc6='[["TENSOR", [1, 512], "float32"], ["TENSOR", [4096, 512], "float32"], null, "float32"]'
{
  rec "$fc8" 1 8.192e-05 0 1000.0
  rec "$fc8" 2 1000000000.0 4 1002.0
  rec "$fc6" 3 0.004194304 0 1004.0
  rec "$fc6" 4 0.002097152 0 1006.0
  rec "$fc8" 5 4.096e-05 0 1010.0
} > "$work/sched.log.tmp"
for mode in plain network; do
  set -- --html "$work/$mode.html"
  [ $mode = network ] && set -- "$@" --network vgg-16 --target mali --image-shape 3,32,32 --num-classes 10 --ops dense
  "$autotvm" report "$work/sched.log.tmp" "$@"
  rm -f "$work/$mode.png"
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1600 \
    --screenshot="$work/$mode.png" "file://$work/$mode.html" >"$work/chromium.log" 2>&1 ||
    { cat "$work/chromium.log"; echo "report_browser: chromium failed on $mode.html"; exit 1; }
  # PNG signature, then IHDR width and height (big-endian) at bytes 16..23
  sig=$(od -An -tx1 -N8 "$work/$mode.png" | tr -d ' \n')
  [ "$sig" = 89504e470d0a1a0a ] || { echo "report_browser: $mode.png is not a PNG"; exit 1; }
  wh=$(od -An -tu1 -j16 -N8 "$work/$mode.png" | awk '{print $3*256+$4, $7*256+$8}')
  [ "$wh" = "1100 1600" ] || { echo "report_browser: $mode.png is $wh, expected 1100 1600"; exit 1; }
  # a blank page compresses to a few kB; tables, text and two charts per task do not
  size=$(wc -c < "$work/$mode.png")
  [ "$size" -gt 30000 ] || { echo "report_browser: $mode.png has $size bytes: nothing painted?"; exit 1; }
  echo "report_browser: $mode.html -> $mode.png ($wh, $size bytes)"
done
