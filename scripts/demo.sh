#!/usr/bin/env bash
# demo.sh - compile the shipped demo model (models/kjv-llama.gguf, a small
# llama trained on the King James Bible; see models/README.md) with kilnc for
# the host, link it into examples/demo/demo.c and generate text with it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build}"
BIN="$BUILD/bin"
OUT="$BUILD/demo"
MODEL="$ROOT/models/kjv-llama.gguf"
PROMPT="${1:-And God said}"
mkdir -p "$OUT"

"$BIN/kilnc" "$MODEL" --target=generic -o "$OUT" --name=demo --context=128
clang-16 -std=c11 -O2 -Wall "$ROOT/examples/demo/demo.c" -I"$OUT" "$OUT/libdemo.a" -lm -o "$OUT/demo"
# The library takes and returns token ids; kiln-tokenize reads the GGUF's
# SentencePiece vocabulary to encode the prompt and decode the result.
IDS=$("$BIN/kiln-tokenize" "$MODEL" --encode="$PROMPT")
GEN=$("$OUT/demo" $IDS)
echo "demo: \"$PROMPT\" ($IDS) -> 32 greedy tokens ($GEN):"
echo
printf '%s%s\n' "$PROMPT" "$("$BIN/kiln-tokenize" "$MODEL" --decode="$GEN" --continuation)"
