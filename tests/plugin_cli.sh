#!/bin/sh
# autotvm with template plugins (the build tree's binary): --plugin and AUTOTVM_PLUGIN_PATH load
# the example plugin, whose template `space`, `show` and `records check` then know; bad plugins
# are refused with one line. Usage: plugin_cli.sh AUTOTVM VECADD.so BAD_VERSION.so NO_ABI.so WORKDIR
set -u
autotvm=$1 vecadd=$2 badver=$3 noabi=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
# expect NAME WANT_RC WANT_FILE CMD...: runs CMD, compares its exit code and stdout+stderr
expect() {
  name=$1 want_rc=$2 want=$3
  shift 3
  "$@" >"$name.out" 2>&1
  rc=$?
  if [ "$rc" -ne "$want_rc" ] || ! printf '%s\n' "$want" | cmp -s - "$name.out"; then
    echo "FAIL $name: exit $rc (want $want_rc), output:"; cat "$name.out"; echo "want:"; printf '%s\n' "$want"
    fail=1
  else
    echo "ok   $name"
  fi
}

expect space 0 'vecadd.example ["vecadd.example", 64, "float32"]
1 knobs; index = mixed-radix number over them, the first knob the fastest digit
  tile_x         sp     7: [-1, 1] [-1, 2] [-1, 4] [-1, 8] [-1, 16] [-1, 32] [-1, 64]
space: 7 configs (index range 7)
index 3: tile_x #3
{"index": 3, "code_hash": null, "entity": [["tile_x", "sp", [-1, 8]]]}' \
  "$autotvm" space vecadd.example --plugin "$vecadd" --args 64 --index 3

expect show_env 0 '// kernel default_function_kernel: global (16, 1, 1) local (8, 1, 1)
__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void default_function_kernel(__global float* restrict A, __global float* restrict B, __global float* restrict C) {
  int bx = convert_int(get_group_id(0));
  int tx = convert_int(get_local_id(0));
  C[((bx * 8) + tx)] = (A[((bx * 8) + tx)] + B[((bx * 8) + tx)]);
}' env AUTOTVM_PLUGIN_PATH=":$vecadd" "$autotvm" show vecadd.example --args 16 --config 3 --opencl

printf '%s\n' '{"input": ["opencl", "vecadd.example", [64, "float32"], {}], "config": {"index": 3, "code_hash": null, "entity": [["tile_x", "sp", [-1, 8]]]}, "result": [[1e-06], 0, 0.5, 1700000000.0], "version": 0.2, "tvm_version": "0.18.0"}' >v.log
expect records_check 0 'v.log: 1 lines: 1 records, 0 comments, 0 blank, 0 malformed, 0 v0.1 rows
1/1 records valid' "$autotvm" --plugin="$vecadd" records check v.log

expect no_plugin 1 "autotvm: error: no template 'vecadd.example' for target opencl" \
  "$autotvm" space vecadd.example --args 64
expect twice 1 "autotvm: error: plugin $vecadd: op kind vecadd is already defined" \
  "$autotvm" --plugin "$vecadd" --plugin "$vecadd" space vecadd.example --args 64
expect bad_version 1 "autotvm: error: plugin $badver: built against plugin API version 2, this autotvm has version 1" \
  "$autotvm" --plugin "$badver" version
expect no_abi 1 "autotvm: error: plugin $noabi: not an autotvm template plugin (no at_plugin_abi_info (AT_PLUGIN_DECLARE))" \
  "$autotvm" --plugin "$noabi" version
expect missing 1 "autotvm: error: AUTOTVM_PLUGIN_PATH: plugin $work/none.so: $work/none.so: cannot open shared object file: No such file or directory" \
  env AUTOTVM_PLUGIN_PATH="$work/none.so" "$autotvm" version
expect no_value 2 "autotvm: error: --plugin needs a shared object's path" "$autotvm" space --plugin
exit $fail
