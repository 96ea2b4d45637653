#!/usr/bin/env bash
# bench-llama-cpp.sh - the llama.cpp peer for kiln-bench --vs-llama-cpp.
#
#   scripts/bench-llama-cpp.sh                  # set up; prints the driver's path
#   scripts/bench-llama-cpp.sh run ARGS...      # llama-cpp-driver MODEL THREADS DECODE P...
#   scripts/bench-llama-cpp.sh greedy ARGS...   # llama-cpp-greedy MODEL N T1,T2,... [STEP...]
#   scripts/bench-llama-cpp.sh bench ARGS...    # llama.cpp's own llama-bench, e.g.
#                                               #   bench -m m.gguf -t 1 -p 512 -n 128 -r 5
#
# Installs node-llama-cpp@3.21.1 from npm (prebuilt llama.cpp CPU libraries for
# linux-x64, one per x86 level, loaded by ggml's CPU-feature scoring) into a
# cache outside the repository, $KILN_PEER_DIR (default
# ~/.cache/kiln/llama-cpp), takes llama.h and the llama-bench source from the
# llama.cpp git bundle the package ships (the same release as the libraries),
# and builds two programs against the prebuilt libraries:
#   llama-cpp-driver (scripts/llama-cpp-driver.c: kiln-bench's protocol),
#   llama-cpp-greedy (scripts/llama-cpp-greedy.c: tokens and logits as kiln-run
#   prints them) and
#   llama-bench (llama.cpp's benchmark tool, linked to the same libraries).
# Needs node/npm, git and clang-16; the test suite never runs this.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEER="${KILN_PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kiln/llama-cpp}"
VERSION=3.21.1
LIBS="$PEER/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64"
SRC="$PEER/src"

setup() {
  mkdir -p "$PEER"
  if [ ! -f "$LIBS/libllama.v0.4.0.so" ]; then
    (cd "$PEER" && npm i -E --no-audit --no-fund "node-llama-cpp@$VERSION" >&2)
  fi
  if [ ! -f "$SRC/include/llama.h" ]; then
    git clone -q "$PEER/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$SRC" >&2
  fi
  local link=(-L"$LIBS" -l:libllama.v0.4.0.so -l:libggml.v0.4.0.so -l:libggml-base.so
              -Wl,-rpath,"$LIBS")
  local inc=(-I"$SRC/include" -I"$SRC/ggml/include")
  if [ ! -x "$PEER/llama-cpp-driver" ] || [ "$ROOT/scripts/llama-cpp-driver.c" -nt "$PEER/llama-cpp-driver" ]; then
    clang-16 -std=c11 -O2 "${inc[@]}" -DLLAMA_LIBS="\"$LIBS\"" \
      "$ROOT/scripts/llama-cpp-driver.c" "${link[@]}" -o "$PEER/llama-cpp-driver"
  fi
  if [ ! -x "$PEER/llama-cpp-greedy" ] || [ "$ROOT/scripts/llama-cpp-greedy.c" -nt "$PEER/llama-cpp-greedy" ]; then
    clang-16 -std=c11 -O2 "${inc[@]}" -DLLAMA_LIBS="\"$LIBS\"" \
      "$ROOT/scripts/llama-cpp-greedy.c" "${link[@]}" -o "$PEER/llama-cpp-greedy"
  fi
  if [ ! -x "$PEER/llama-bench" ]; then
    # llama-bench.cpp uses common/ only for helpers in libllama-common.so,
    # which the package ships too. If this fails, the driver above suffices.
    clang++-16 -std=c++17 -O2 -DNDEBUG "${inc[@]}" -I"$SRC/common" -I"$SRC/vendor" \
      "$SRC/tools/llama-bench/llama-bench.cpp" "$SRC/tools/llama-bench/main.cpp" "${link[@]}" -l:libllama-common.so \
      -lpthread -o "$PEER/llama-bench" >&2 || echo "bench-llama-cpp.sh: llama-bench did not build" >&2
  fi
  # ggml_backend_load_all (llama-bench) looks for the CPU backends beside
  # the executable.
  for f in "$LIBS"/libggml-cpu-*.so; do ln -sf "$f" "$PEER/"; done
}

case "${1:-}" in
  "") setup; echo "$PEER/llama-cpp-driver" ;;
  run) shift; setup; exec "$PEER/llama-cpp-driver" "$@" ;;
  bench) shift; setup; exec "$PEER/llama-bench" "$@" ;;
  greedy) shift; setup; exec "$PEER/llama-cpp-greedy" "$@" ;;
  *) echo "usage: $0 [run ARGS... | bench ARGS... | greedy ARGS...]" >&2; exit 2 ;;
esac
