#!/usr/bin/env bash
# bench-decode.sh - build the decode benchmark of one model for one host target.
#   scripts/bench-decode.sh MODEL.gguf TARGET OUTDIR [kilnc options...]
# then run OUTDIR/bench PROMPT DECODE several times and take the median.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${KILN_BUILD_DIR:-$ROOT/build}/bin"
MODEL="$1"; TARGET="$2"; OUT="$3"; shift 3
"$BIN/kilnc" "$MODEL" --target="$TARGET" -o "$OUT" --name=bench "$@"
clang-16 -std=c11 -O2 "$ROOT/examples/bench/bench.c" -I"$OUT" "$OUT/libbench.a" -lm -lpthread -o "$OUT/bench"
