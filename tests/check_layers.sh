#!/bin/sh
# Checks every '#include "module/..."' against the layer table of DESIGN.md / STYLE.md 2.2:
# a module may include only itself, core, and the modules its line names.
root=${1:-.}
allowed() {
  case $1 in
    core) echo "core" ;;
    ir|knobs|vta|rpc) echo "core $1" ;;
    templates) echo "core templates ir knobs" ;;
    backends/opencl|backends/llvm) echo "core $1 ir" ;;
    backends/vta) echo "core backends/vta ir vta" ;;
    measure) echo "core measure templates backends/opencl backends/llvm backends/vta vta rpc ir knobs" ;;
    records) echo "core records knobs" ;;
    tuners) echo "core tuners knobs templates ir" ;;
    tophub) echo "core tophub records knobs" ;;
    networks) echo "core networks templates ir knobs" ;;
    tune) echo "core tune templates tuners measure records networks tophub knobs ir backends/opencl backends/llvm backends/vta vta rpc" ;;
    report) echo "core report records networks templates knobs ir" ;;
    *) echo "ANY" ;;
  esac
}
status=0
for mod in core ir knobs vta rpc templates backends/opencl backends/llvm backends/vta measure records tuners tophub networks tune report; do
  [ -d "$root/$mod" ] || continue
  ok=$(allowed "$mod")
  for f in $(find "$root/$mod" -maxdepth 1 -name '*.[ch]'); do
    grep -o '#include "[a-z_/]*/' "$f" | sed 's/#include "//; s/\/$//' | sort -u | while read -r inc; do
      case " $ok " in *" $inc "*) ;; *) echo "layer violation: $f includes $inc/ (allowed: $ok)"; exit 1 ;; esac
    done || status=1
  done
done
[ $status -eq 0 ] && echo "layers ok"
exit $status
