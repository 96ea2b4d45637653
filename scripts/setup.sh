#!/usr/bin/env bash
# setup.sh - set up a fresh Debian 12 machine for Kiln, build it, run the demo.
#
#   scripts/setup.sh            install packages (apt-get), build, run the demo
#   KILN_SKIP_DEMO=1 scripts/setup.sh   ... without the demo
#   KILN_BUILD_DIR=DIR          build somewhere other than ./build
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# Everything Kiln builds with, from Debian 12 (see docs/user-guide.md).
PACKAGES=(
  cmake ninja-build make python3
  clang-16 lld-16 llvm-16-dev llvm-16-tools libmlir-16-dev mlir-16-tools
  libclang-rt-16-dev libgtest-dev zlib1g-dev libzstd-dev
  qemu-user gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx python3-numpy
  libonnx-testdata
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cmake -G Ninja -S "$ROOT" -B "$BUILD" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 \
  -DMLIR_DIR=/usr/lib/llvm-16/lib/cmake/mlir
cmake --build "$BUILD"

if [ "${KILN_SKIP_DEMO:-0}" != 1 ]; then
  "$ROOT/scripts/demo.sh"
fi
