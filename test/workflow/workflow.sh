#!/usr/bin/env bash
# workflow.sh - the build engineer's path, tested end to end against an
# installed Kiln (ctest label `workflow`, registered in test/CMakeLists.txt).
#
#   workflow.sh install  BUILD_DIR WORK          cmake --install into WORK/stage,
#                                                then move it to WORK/prefix
#   workflow.sh consumer SRC WORK NAME [TOOLCHAIN [CMAKE ARGS...]]
#                                                configure, build and ctest
#                                                examples/consumer in WORK/NAME
#   workflow.sh rebuild  SRC WORK                what a model edit, an option
#                                                change and a no-op rebuild run
#   workflow.sh errors   SRC WORK                kiln_add_model's errors
#                                                (SRC: test/workflow/errors)
set -euo pipefail

step() { echo "workflow: $*"; }
die() { echo "workflow: FAILED: $*" >&2; exit 1; }

mode=$1
case "$mode" in
install)
  build=$2 work=$3
  rm -rf "$work/stage" "$work/prefix"
  mkdir -p "$work"
  step "cmake --install $build --prefix $work/stage"
  cmake --install "$build" --prefix "$work/stage" > "$work/install.log"
  # The package locates itself: a prefix that moved still works.
  mv "$work/stage" "$work/prefix"
  for f in bin/kilnc bin/kiln-run bin/kiln-opt bin/kiln-fixture include/kiln/kiln.h \
           share/kiln/runtime/kiln_runtime.c lib/cmake/Kiln/KilnConfig.cmake \
           lib/cmake/Kiln/KilnConfigVersion.cmake lib/cmake/Kiln/KilnModel.cmake \
           lib/cmake/Kiln/toolchains/aarch64.cmake lib/cmake/Kiln/toolchains/riscv64.cmake \
           lib/cmake/Kiln/toolchains/hexagon.cmake; do
    [ -e "$work/prefix/$f" ] || die "install did not create $f"
  done
  # The moved kilnc compiles a model: it needs nothing from the build or
  # source tree (the runtime and kernel sources are compiled into it), and
  # names neither.
  srcdir=$(cd "$(dirname "$0")/../.." && pwd)
  # An absolute path under either tree, as a string of its own or after a
  # space, quote, '=' or -I/-L (strings(1) splits the binary into printable
  # runs). A path inside another string does not count, so a checkout at a
  # short path such as /kiln is not matched by the tools' own
  # "share/kiln/devices".
  for tool in kilnc kiln-run; do
    for tree in "$build" "$srcdir"; do
      re=$(printf '%s' "$tree" | sed 's/[][\.*^$/]/\\&/g')
      if strings -a "$work/prefix/bin/$tool" |
         grep -q -E "(^|[ \"'=])(-[IL])?$re(/|$)"; then
        die "installed $tool refers to $tree"
      fi
    done
  done
  "$work/prefix/bin/kiln-fixture" -o "$work/check.gguf" --type=q8_0 --layers=1
  (cd "$work" && "$work/prefix/bin/kilnc" check.gguf -o "$work/check-out" --name=m -q > /dev/null)
  [ -f "$work/check-out/libm.a" ] || die "installed kilnc wrote no library"
  step "installed and relocated to $work/prefix"
  ;;
consumer)
  src=$2 work=$3 name=$4 toolchain=${5:-}
  dir="$work/$name"
  rm -rf "$dir"
  args=(-G Ninja -S "$src" -B "$dir" -DCMAKE_PREFIX_PATH="$work/prefix" "${@:6}")
  if [ -n "$toolchain" ]; then
    args+=(-DCMAKE_TOOLCHAIN_FILE="$work/prefix/lib/cmake/Kiln/toolchains/$toolchain")
  else
    args+=(-DCMAKE_C_COMPILER=clang-16)
  fi
  step "configure $name"
  cmake "${args[@]}" > "$dir.configure.log" || { cat "$dir.configure.log"; die "configure $name"; }
  step "build $name"
  cmake --build "$dir" > "$dir.build.log" || { cat "$dir.build.log"; die "build $name"; }
  grep -q "$work/prefix/bin/kilnc" "$dir/build.ninja" || die "$name did not use the installed kilnc"
  if [ -n "$toolchain" ]; then
    machine=$(llvm-readelf-16 -h "$dir/consumer" | sed -n 's/^ *Machine: *//p')
    step "$name: consumer is built for '$machine'"
    case "$toolchain" in
      aarch64*) [[ "$machine" == *AArch64* ]] || die "not an AArch64 binary" ;;
      riscv64*) [[ "$machine" == *RISC-V* ]] || die "not a RISC-V binary" ;;
      hexagon*) [[ "$machine" == *Hexagon* ]] || die "not a Hexagon binary" ;;
    esac
  fi
  step "ctest $name"
  ctest --test-dir "$dir" --output-on-failure -V | tee "$dir.ctest.log" | grep -E "qemu|greedy tokens|tests passed|Failed" || true
  grep -q "100% tests passed" "$dir.ctest.log" || { cat "$dir.ctest.log"; die "ctest $name"; }
  if [ -n "$toolchain" ]; then
    grep -q "qemu-" "$dir.ctest.log" || die "$name's tests did not run under qemu"
  fi
  ;;
rebuild)
  src=$2 work=$3
  dir="$work/rebuild"
  rm -rf "$dir" "$dir.model"
  mkdir -p "$dir.model"
  model="$dir.model/model.gguf"
  "$work/prefix/bin/kiln-fixture" -o "$model" --type=f16 --layers=2 --seed=1
  cmake -G Ninja -S "$src" -B "$dir" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_C_COMPILER=clang-16 -DKILN_EXAMPLE_MODEL="$model" > "$dir.configure.log"
  cmake --build "$dir" > /dev/null
  lib="$dir/kiln/tiny/libtiny.a"
  build() { ninja -C "$dir" "$@" 2>&1; }
  expect_kilnc() { # $1: what happened; rebuild must run kilnc and relink
    out=$(build)
    grep -q "Compiling model tiny" <<< "$out" || { echo "$out"; die "$1 did not re-run kilnc"; }
    grep -q "Linking C executable consumer" <<< "$out" || { echo "$out"; die "$1 did not relink"; }
    step "$1: kilnc re-ran, consumer relinked"
  }
  expect_nothing() {
    out=$(build -d explain)
    grep -q "no work to do" <<< "$out" || { echo "$out"; die "$1: the rebuild was not a no-op"; }
    step "$1: no-op rebuild"
  }
  expect_nothing "after the first build"

  sum1=$(sha256sum < "$lib")
  sleep 1.1
  "$work/prefix/bin/kiln-fixture" -o "$model" --type=f16 --layers=2 --seed=2
  expect_kilnc "model file edited"
  sum2=$(sha256sum < "$lib")
  [ "$sum1" != "$sum2" ] || die "the edited model gave the same library"
  expect_nothing "after the model edit"

  sleep 1.1
  touch "$model"
  expect_kilnc "model file touched"
  expect_nothing "after the touch"

  # Options: a new value re-runs kilnc; configuring again with the same
  # options leaves the stamp alone.
  cmake -DKILN_EXAMPLE_QUANTIZE=q8_0 "$dir" > /dev/null
  expect_kilnc "QUANTIZE changed"
  cmake -DKILN_EXAMPLE_QUANTIZE=q8_0 "$dir" > /dev/null
  out=$(build)
  if grep -q "Compiling model tiny" <<< "$out"; then echo "$out"; die "same options re-ran kilnc"; fi
  expect_nothing "after configuring with the same options"

  # A new kilnc re-runs kilnc.
  sleep 1.1
  touch "$work/prefix/bin/kilnc"
  expect_kilnc "kilnc changed"
  expect_nothing "after the new kilnc"
  ;;
errors)
  src=$2 work=$3
  dir="$work/errors"
  expect_error() { # case, stage (configure|build), message
    rm -rf "$dir"
    mkdir -p "$dir"
    "$work/prefix/bin/kiln-fixture" -o "$dir/model.gguf" --layers=1
    if [ "$2" = configure ]; then
      if cmake -G Ninja -S "$src" -B "$dir" -DCMAKE_PREFIX_PATH="$work/prefix" \
           -DCMAKE_C_COMPILER=clang-16 -DCASE="$1" > "$dir.log" 2>&1; then
        die "$1: configured"
      fi
    else
      cmake -G Ninja -S "$src" -B "$dir" -DCMAKE_PREFIX_PATH="$work/prefix" \
        -DCMAKE_C_COMPILER=clang-16 -DCASE="$1" > "$dir.log" 2>&1 || { cat "$dir.log"; die "$1: configure"; }
      if cmake --build "$dir" > "$dir.log" 2>&1; then
        die "$1: built"
      fi
      [ ! -e "$dir/kiln/m/libm.a" ] || die "$1: left a library behind"
    fi
    # CMake wraps long messages: compare with line breaks and indents folded.
    tr -s ' \n' ' ' < "$dir.log" | grep -q -F -- "$3" || { cat "$dir.log"; die "$1: no message '$3'"; }
    step "$1: $2 fails with '$3'"
  }
  expect_error no-model configure "kiln_add_model(m): MODEL <file.gguf> is required"
  expect_error bad-target configure "kiln_add_model(m): TARGET 'vax' is not one of generic, x86, neon, sve, rvv, hvx"
  expect_error bad-name configure "kiln_add_model(m): '9lives' is not a C identifier"
  expect_error unknown-argument configure "kiln_add_model(m): unknown arguments: QUANTISE;q4_0"
  expect_error twice configure "kiln_add_model(m): a model named 'm' already exists"
  expect_error bad-option build "kilnc: error: --max-batch=0: expected 1 to 4096"
  expect_error bad-model build "kilnc: error: $dir/model.gguf"
  ;;
*)
  die "unknown mode $mode"
  ;;
esac
