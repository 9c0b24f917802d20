#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for N executions each (default 10,000,000, issue 19's
# bar), starting from a scratch copy of its seed corpus, and prints one line per target:
# executions, seconds, executions per second, corpus size, and whether it found anything.
# Not part of the tests (ctest -L fuzz only replays the seeds). Needs clang with libFuzzer.
#
#   bench/fuzz.sh [N] [BUILD_DIR]          e.g. bench/fuzz.sh 1000000
#
# BUILD_DIR (default build-fuzz) is configured with CC=clang -DAT_FUZZ=ON when it does not exist.
# A crash leaves its input as BUILD_DIR/fuzz-out/<target>/crash-*; turn it into a regression test
# (a file in the target's seed corpus, replayed by ctest -L fuzz) once fixed.
set -euo pipefail
N=${1:-10000000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${2:-$ROOT/build-fuzz}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
TARGETS="fuzz_rec_line:corpus fuzz_json:corpus_json fuzz_rpc_frames:corpus_rpc fuzz_tophub_pack:corpus_tophub fuzz_vta_config:corpus_vta"

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    CC=clang cmake -S "$ROOT" -B "$BUILD" -DAT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
names=""
for t in $TARGETS; do names="$names ${t%%:*}"; done
# shellcheck disable=SC2086
cmake --build "$BUILD" -j"${JOBS:-2}" --target $names >/dev/null

status=0
printf '%-18s %12s %9s %12s %7s  %s\n' target executions seconds exec/s corpus result
for t in $TARGETS; do
    name=${t%%:*}
    seeds=$ROOT/tests/fuzz/${t#*:}
    out=$BUILD/fuzz-out/$name
    rm -rf "$out"
    mkdir -p "$out/corpus"
    cp "$seeds"/* "$out/corpus/"
    dict=()
    [ "$name" = fuzz_rec_line ] && dict=(-dict="$ROOT/tests/fuzz/records.dict")
    start=$(date +%s.%N)
    set +e
    (cd "$out" && "$BUILD/tests/fuzz/$name" "${dict[@]}" -runs="$N" -max_len=65536 -rss_limit_mb=2048 \
        -print_final_stats=1 corpus >log.txt 2>&1)
    rc=$?
    set -e
    end=$(date +%s.%N)
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/log.txt" | grep -o '[0-9]*$' || echo 0)
    secs=$(echo "$end - $start" | bc)
    rate=$(echo "$execs / $secs" | bc)
    size=$(ls "$out/corpus" | wc -l)
    if [ $rc -eq 0 ]; then result=ok; else result="FOUND (rc $rc): see $out/log.txt"; status=1; fi
    printf '%-18s %12s %9.1f %12s %7s  %s\n' "$name" "$execs" "$secs" "$rate" "$size" "$result"
done
exit $status
