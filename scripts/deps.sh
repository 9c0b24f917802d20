#!/bin/sh
# Installs the Debian 12 packages autotvm-c builds and tests with, when any is missing.
set -e
PKGS="build-essential cmake pkg-config python3 clang locales
ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
libxgboost-dev llvm-15-dev libcurl4-openssl-dev libcjson-dev libcmocka-dev
protobuf-c-compiler libprotobuf-c-dev libonnx-dev libonnx-testdata"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
