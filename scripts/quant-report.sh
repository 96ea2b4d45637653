#!/usr/bin/env bash
# quant-report.sh - the measurements of docs/quantization.md for one model.
#
#   scripts/quant-report.sh MODEL_F16.gguf MODEL_F32.gguf HELDOUT.txt OUTDIR
#
# For each weight configuration: the compiled weight bytes (the library's
# weights blob), the arena size (NAME_ARENA_BYTES), host (x86 target) TTFT for
# a 64-token prompt and decode tokens/s over 128 tokens (median of RUNS
# processes of examples/bench/bench.c, one thread), and the held-out perplexity
# (kiln-perplexity --target=x86, --ctx=256, the first PPL_TOKENS tokens).
# Then the sensitivity table: one tensor kind at a time at q4_0, the rest F16.
# Prints markdown rows; the raw numbers stay in OUTDIR. PART=table or
# PART=sensitivity runs one half (run both at once on a machine with spare
# cores). PART=heldout scores the whole held-out text instead, for the
# quantized configurations only (F16/F32 decode too slowly on x86 for that),
# each against Q8_0 with the paired standard error of the per-token
# difference.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${KILN_BUILD_DIR:-$ROOT/build}/bin"
F16="$1"; F32="$2"; TEXT="$3"; OUT="$4"
RUNS="${RUNS:-5}"
PPL_TOKENS="${PPL_TOKENS:-16384}"
mkdir -p "$OUT"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

ppl() { # MODEL FLAGS...
  local model="$1"; shift
  "$BIN/kiln-perplexity" "$model" --target=x86 --text="$TEXT" --ctx=256 \
    --max-tokens="$PPL_TOKENS" "$@" | awk '/^perplexity/ {print $2}'
}

row() { # LABEL MODEL FLAGS...
  local label="$1" model="$2"; shift 2
  local dir="$OUT/$(echo "$label" | tr -c 'A-Za-z0-9_\n' '_')"
  "$ROOT/scripts/bench-decode.sh" "$model" x86 "$dir" --context=256 "$@" > "$dir.kilnc.txt" 2>&1
  local weights arena ttft tps p
  weights=$((16#$(llvm-nm-16 -S "$dir/libbench.a" 2>/dev/null | awk 'NF == 4 && $4 == "bench_weights_blob" {print $2}')))
  arena=$(awk '/define BENCH_ARENA_BYTES/ {gsub(/[^0-9]/, "", $3); print $3}' "$dir/bench.h")
  : > "$dir.bench.txt"
  for _ in $(seq "$RUNS"); do "$dir/bench" 64 128 1 >> "$dir.bench.txt"; done
  ttft=$(awk '/^prefill_tokens/ {print $4 * 1000}' "$dir.bench.txt" | median)
  tps=$(awk '/^decode_tokens/ {print $6}' "$dir.bench.txt" | median)
  p=$(ppl "$model" "$@")
  echo "| $label | $weights | $arena | $ttft | $tps | $p |"
}

PART="${PART:-all}"
if [ "$PART" = heldout ]; then
  full() { # NAME FLAGS...: per-token NLLs of the whole text
    local name="$1"; shift
    "$BIN/kiln-perplexity" "$F16" --target=x86 --text="$TEXT" --ctx=256 \
      --per-token "$@" > "$OUT/full-$name.txt"
  }
  paired() { # NAME: perplexity, and exp(mean difference) - 1 against Q8_0 +- 2 SE
    paste <(awk '/^nll / {print $4}' "$OUT/full-$1.txt") \
          <(awk '/^nll / {print $4}' "$OUT/full-q8_0.txt") |
      awk -v name="$1" '{x += $1; d = $1 - $2; s += d; ss += d * d; n++}
        END {m = s / n; se = sqrt((ss - n * m * m) / (n - 1) / n);
             printf "| %s | %.4f | %+.3f%% +- %.3f%% |\n", name, exp(x / n),
                    (exp(m) - 1) * 100, 2 * se * 100}'
  }
  mkdir -p "$OUT"
  full q8_0 --kiln-quantize=q8_0
  full q4_0 --kiln-quantize=q4_0
  full q4_k --kiln-quantize=q4_k
  full q4_0+q8oe --kiln-quantize=q4_0 '--kiln-quantize-override=^(output|token_embd)\.weight$=q8_0'
  full q4_k+q8oe --kiln-quantize=q4_k '--kiln-quantize-override=^(output|token_embd)\.weight$=q8_0'
  kinds="token_embd attn_q attn_k attn_v attn_output ffn_gate ffn_up ffn_down output"
  for kind in $kinds; do
    full "$kind" --kiln-quantize=q8_0 "--kiln-quantize-override=(^|\.)$kind\.weight\$=q4_0"
  done
  echo "| weights (whole held-out text) | perplexity | vs Q8_0 (2 SE) |"
  echo "| --- | ---: | ---: |"
  for name in q8_0 q4_0 q4_k q4_0+q8oe q4_k+q8oe $kinds; do paired "$name"; done
  exit 0
fi
if [ "$PART" != sensitivity ]; then
echo "| weights | weight bytes | arena bytes | TTFT ms (64 tok) | decode tok/s | perplexity |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
row "F32" "$F32"
row "F16" "$F16"
row "Q8_0" "$F16" --kiln-quantize=q8_0
row "Q4_0" "$F16" --kiln-quantize=q4_0
row "Q4_K" "$F16" --kiln-quantize=q4_k
row "Q4_0, output+embd Q8_0" "$F16" --kiln-quantize=q4_0 \
  '--kiln-quantize-override=^(output|token_embd)\.weight$=q8_0'
row "Q4_K, output+embd Q8_0" "$F16" --kiln-quantize=q4_k \
  '--kiln-quantize-override=^(output|token_embd)\.weight$=q8_0'
echo
fi

[ "$PART" = table ] && exit 0
echo "| kind at q4_0 (rest F16) | perplexity |"
echo "| --- | ---: |"
for kind in token_embd attn_q attn_k attn_v attn_output ffn_gate ffn_up ffn_down output; do
  echo "| $kind | $(ppl "$F16" "--kiln-quantize-override=(^|\.)$kind\.weight\$=q4_0") |"
done
