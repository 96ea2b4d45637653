#!/usr/bin/env bash
# demo.sh - generate the demo model, compile it with kilnc for the host, link
# it into examples/demo/demo.c and generate tokens with it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build}"
BIN="$BUILD/bin"
OUT="$BUILD/demo"
mkdir -p "$OUT"

# A random-weight llama (4 layers, width 256, GQA 8/2, Q4_0 weights) until a
# trained demo model ships.
"$BIN/kiln-fixture" -o "$OUT/demo.gguf" --layers=4 --width=256 --heads=8 \
  --kv-heads=2 --ffn=768 --vocab=512 --context=512 --type=q4_0 --embd-type=q8_0 --seed=7
"$BIN/kilnc" "$OUT/demo.gguf" --target=generic -o "$OUT" --name=demo --context=128
clang-16 -std=c11 -O2 -Wall "$ROOT/examples/demo/demo.c" -I"$OUT" "$OUT/libdemo.a" -lm -o "$OUT/demo"
echo "demo: prompt 1 15 300 42 -> 16 greedy tokens:"
"$OUT/demo" 1 15 300 42
