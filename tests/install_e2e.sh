#!/bin/sh
# The installed tree end to end: `cmake --install` to a temporary prefix, the files it holds,
# libautotvm.so's soname and exported symbols (at_ only), examples/plugin built with only the
# installed headers and autotvm.pc (pkg-config), then the installed autotvm (found by its
# RUNPATH, nothing from the build tree) tuning the plugin's template on PoCL with
# --check-correctness, and `records check` of the log it wrote.
# Usage: install_e2e.sh BUILD_DIR EXAMPLE_DIR WORKDIR
set -eu
build=$1 example=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
die() { echo "install_e2e: $*"; exit 1; }
for f in bin/autotvm lib/pkgconfig/autotvm.pc include/autotvm/templates/plugin.h include/autotvm/templates/template.h \
         include/autotvm/core/status.h share/autotvm/doc/writing-templates.md share/autotvm/examples/plugin/vecadd.c; do
  [ -f "$prefix/$f" ] || die "$f is not installed"
done
[ ! -e "$prefix/include/autotvm/templates/internal.h" ] || die "a private internal.h is installed"
soname=$(readelf -d "$prefix/lib/libautotvm.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libautotvm.so.0" ] || die "soname '$soname', want libautotvm.so.0"
others=$(nm -D --defined-only "$prefix/lib/libautotvm.so" | awk '$3 !~ /^at_/' | head -3)
[ -z "$others" ] || die "libautotvm.so exports symbols without the at_ prefix: $others"
[ "$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --modversion autotvm)" = \
  "$(sed -n 's/^Version: //p' "$prefix/lib/pkgconfig/autotvm.pc")" ] || die "pkg-config cannot read autotvm.pc"

# the example as a user builds it: no project flags, only what autotvm.pc gives
PKG_CONFIG_PATH=$prefix/lib/pkgconfig cmake -S "$example" -B "$work/example" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" \
  -DCMAKE_C_FLAGS_INIT= >"$work/example.log" 2>&1 || { cat "$work/example.log"; die "example configure failed"; }
cmake --build "$work/example" >>"$work/example.log" 2>&1 || { cat "$work/example.log"; die "example build failed"; }
grep -q -- "$prefix/lib/pkgconfig/../../include/autotvm" "$work/example/CMakeFiles/vecadd.dir/flags.make" ||
  die "the example did not take its include directory from autotvm.pc"

cd "$work"
"$prefix/bin/autotvm" --version | grep -x "TVM log version: 0.18.0" >/dev/null || die "--version"
"$prefix/bin/autotvm" --plugin "$work/example/vecadd.so" tune-task vecadd.example --args 4096 --tuner gridsearch \
  --n-trial 13 --check-correctness --log vecadd.log >tune.out 2>&1 || { cat tune.out; die "tune-task failed"; }
cat tune.out
grep -q "best of 13 trials: config [0-9]*, [0-9.]* GFLOPS" tune.out || die "tune-task did not report its best"
[ "$(grep -c '"vecadd.example", \[4096, "float32"\], {}\], "config": {"index": [0-9]*, "code_hash": null, "entity": \[\["tile_x", "sp", \[-1, [0-9]*\]\]\]}, "result": \[\[[0-9.e-]*\], 0,' vecadd.log)" = 13 ] ||
  { cat vecadd.log; die "want 13 valid records (error code 0: every run matched the reference)"; }
AUTOTVM_PLUGIN_PATH=$work/example "$prefix/bin/autotvm" records check vecadd.log >check.out 2>&1
grep -x "13/13 records valid" check.out >/dev/null || { cat check.out; die "records check"; }
echo "install_e2e: ok"
