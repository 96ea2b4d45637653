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

# Everything Kiln builds with, tests with and compiles for, from Debian 12,
# named here rather than left to Recommends (installed with
# --no-install-recommends, so a package that only comes recommended never
# arrives; the cross C libraries once went missing that way).
PACKAGES=(
  # build
  cmake ninja-build make python3
  clang-16 lld-16 llvm-16-dev llvm-16-tools libmlir-16-dev mlir-16-tools
  libclang-rt-16-dev libgtest-dev zlib1g-dev libzstd-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  # Halide 14 (kiln-halide-gen: the graph kernels as Halide pipelines)
  libhalide14-0-dev
  # tests: ONNX test data, the scripts that write test models, strings(1)
  libonnx-testdata python3-onnx python3-numpy binutils
  # --target=neon and sve: link with the cross gcc against the arm64 C
  # library, run under qemu-aarch64
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  # --target=rvv: the same for riscv64
  gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
  # every foreign target (and hvx, freestanding) runs under qemu-user
  qemu-user
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

# Every target's toolchain, with the commands kilnc and kiln-run use: a small
# C program compiled, linked and run (under qemu for foreign ISAs). A failure
# names the target, what is missing and the Debian package that provides it.
"$BUILD/bin/kilnc" --check-toolchain

if [ "${KILN_SKIP_DEMO:-0}" != 1 ]; then
  "$ROOT/scripts/demo.sh"
fi
