#!/usr/bin/env bash
# bench-compare.sh - run two decode benchmarks alternately, A B A B ..., and
# print each run's decode tokens/s, the medians and the median of the per-pair
# ratios A/B (pairs cancel the drift of a shared, noisy machine).
#   scripts/bench-compare.sh RUNS PROMPT DECODE BENCH_A BENCH_B
set -euo pipefail
RUNS="$1"; PROMPT="$2"; DECODE="$3"; A="$4"; B="$5"
"$A" "$PROMPT" "$DECODE" > /dev/null; "$B" "$PROMPT" "$DECODE" > /dev/null   # warm-up
for i in $(seq "$RUNS"); do
  a=$("$A" "$PROMPT" "$DECODE" | awk '/^decode_tokens/ {print $6}')
  b=$("$B" "$PROMPT" "$DECODE" | awk '/^decode_tokens/ {print $6}')
  echo "$a $b"
done | python3 -c '
import sys, statistics as st
rows = [tuple(map(float, l.split())) for l in sys.stdin]
for a, b in rows: print(f"run  A {a:10.2f} tok/s   B {b:10.2f} tok/s   A/B {a/b:6.3f}")
print(f"median A {st.median(r[0] for r in rows):.2f} tok/s, B {st.median(r[1] for r in rows):.2f} tok/s, "
      f"ratio A/B {st.median(r[0]/r[1] for r in rows):.3f} (min {min(r[0]/r[1] for r in rows):.3f}, max {max(r[0]/r[1] for r in rows):.3f})")'
