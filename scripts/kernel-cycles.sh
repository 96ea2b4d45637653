#!/usr/bin/env bash
# kernel-cycles.sh - the NEON decode loops (one activation row) of Kiln's
# matmul kernels beside ggml's kernels for the same weight types, in
# llvm-mca-16 cycles per 32-weight block of one weight row, on Cortex-A55,
# Cortex-A78 and Neoverse-V1 (docs/kernels.md, "Inner loops against the
# hardware").
#
#   scripts/kernel-cycles.sh            # prints the Markdown table
#   LLVM_MCA=llvm-mca-19 scripts/kernel-cycles.sh
#                                       # LLVM 19's own Neoverse-V1 model
#
# llvm-mca-16 has no Neoverse-V1 model (it schedules -mcpu=neoverse-v1 with
# its Neoverse-N2 one); Debian 12's llvm-19 package has one (four vector
# pipes). Only the analyser changes: both sides are still compiled by
# clang-16.
#
# ggml's source is llama.cpp's, from the git bundle node-llama-cpp ships
# (scripts/bench-llama-cpp.sh clones it into $KILN_PEER_DIR/src); its
# repack.cpp needs the arm64 libstdc++ headers (libstdc++-12-dev-arm64-cross).
# Both sides are compiled with the same clang-16 and the flags kilnc uses for
# --target=neon (-O2 -march=armv8.2-a+dotprod). Each loop is the innermost
# loop with the most sdot (scripts/mca-loop.py --most); every sdot multiplies
# 16 weight bytes, so a loop of S sdot covers S / 2 row-blocks.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEER="${KILN_PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kiln/llama-cpp}"
G="$PEER/src/ggml"
if [ ! -f "$G/src/ggml-cpu/arch/arm/repack.cpp" ]; then
  echo "kernel-cycles: no llama.cpp source at $PEER/src; run scripts/bench-llama-cpp.sh first" >&2
  exit 1
fi
if [ ! -f /usr/aarch64-linux-gnu/include/c++/12/aarch64-linux-gnu/bits/c++config.h ]; then
  echo "kernel-cycles: ggml's repack.cpp needs the arm64 libstdc++ headers: apt-get install libstdc++-12-dev-arm64-cross" >&2
  exit 1
fi
MCA="${LLVM_MCA:-llvm-mca-16}"
command -v "$MCA" > /dev/null || { echo "kernel-cycles: $MCA not found" >&2; exit 1; }
W="$(mktemp -d /tmp/kiln-kcycles-XXXXXX)"
trap 'rm -rf "$W"' EXIT
FLAGS=(--target=aarch64-linux-gnu -O2 -fno-math-errno -march=armv8.2-a+dotprod)
K="$ROOT/kernels"

# Kiln's decode tiles, called as the kernels call them for one activation
# row, and the i8mm (--cpu=i8mm) SMMLA tiles of 8 activation rows (prefill).
# Each probe is compiled in a file of its own: clang simplifies an inline
# tile before inlining it, differently when it has one caller or several,
# so probes sharing a file would change each other's code. One row (decode)
# under i8mm runs the dotprod tiles, compiled with +i8mm as kilnc compiles
# them. Lines: NAME|PARAMETERS|CALL.
Q8='const uint8_t *t, int nb, const kiln_q8_block *a, const float *da, float *y'
Q8K='const uint8_t *t, int nsb, const kiln_q8k_block *a, float *y'
MM='const uint8_t *t, int nb, const uint8_t *p0, float *y'
PROBES=(
  "probe_q4_0|$Q8|kiln_neon_q4_0_tile1(t, nb, a, da, 0, y, 4)"
  "probe_q8_0|$Q8|kiln_neon_q8_0_tile1(t, nb, a, da, 0, y, 4)"
  "probe_q4_k|$Q8K|kiln_neon_q4_k_tile(t, nsb, a, 1, 0, y, 4, 4)"
  "probe_q5_k|$Q8K|kiln_neon_q5_k_tile(t, nsb, a, 1, 0, y, 4, 4)"
  "probe_q6_k|$Q8K|kiln_neon_q6_k_tile(t, nsb, a, 1, 0, y, 4, 4)"
  "probe_q6_k_4|$Q8K|kiln_neon_q6_k_tile(t, nsb, a, 4, 0, y, 4, 4)"
  "probe_q3_k|$Q8K|kiln_neon_q3_k_tile(t, nsb, a, 1, 0, y, 4, 4)"
  "probe_q2_k|$Q8K|kiln_neon_q2_k_tile(t, nsb, a, 1, 0, y, 4, 4)"
  "probe_q4_0_mm8|$MM|kiln_neon_q4_0_mm_tile(t, nb, p0, 0, 8, 0, y, 4, 4)"
  "probe_q8_0_mm8|$MM|kiln_neon_q8_0_mm_tile(t, nb, p0, 0, 8, 0, y, 4, 4)"
  "probe_q4_k_mm8|$MM|kiln_neon_q4_k_mm_tile(t, nb, p0, 0, 8, 0, y, 4, 4)"
  "probe_q6_k_mm8|$MM|kiln_neon_q6_k_mm_tile(t, nb, p0, 0, 8, 0, y, 4, 4)"
)
KI=(-std=c11 -I"$K/common" -I"$K/generic" -I"$K/neon" -I"$ROOT/runtime/include")
for p in "${PROBES[@]}"; do
  IFS='|' read -r name params call <<< "$p"
  {
    printf '#include "kiln_kernels.h"\n#include "kernels_generic.c"\n'
    printf '#include "kernels_q8.c"\n#include "kernels_neon.c"\n'
    case $name in *_mm8) printf '#if defined(__ARM_FEATURE_MATMUL_INT8)\n' ;; esac
    printf 'void %s(%s) {\n  %s;\n}\n' "$name" "$params" "$call"
    case $name in *_mm8) printf '#endif\n' ;; esac
  } > "$W/$name.c"
  case $name in *_mm8) ;; *) clang-16 "${FLAGS[@]}" "${KI[@]}" -S "$W/$name.c" -o "$W/$name.s" ;; esac
  clang-16 "${FLAGS[@]}"+i8mm "${KI[@]}" -S "$W/$name.c" -o "$W/${name}_i8mm.s"
done
GI=(-I"$G/include" -I"$G/src" -I"$G/src/ggml-cpu")
clang-16 "${FLAGS[@]}" -std=c11 "${GI[@]}" -S "$G/src/ggml-cpu/arch/arm/quants.c" -o "$W/quants.s"
clang++-16 "${FLAGS[@]}" -std=c++17 "${GI[@]}" -S "$G/src/ggml-cpu/arch/arm/repack.cpp" -o "$W/repack.s"
clang++-16 "${FLAGS[@]}"+i8mm -std=c++17 "${GI[@]}" -S "$G/src/ggml-cpu/arch/arm/repack.cpp" -o "$W/repack_i8mm.s"

# row NAME FILE.s FUNCTION [INSTR PER]: cycles per row-block (and activation
# row) on the three cores; a loop of N INSTR covers N / PER of them (sdot: 2,
# SMMLA, 32 multiply-adds: 1).
row() {
  local name=$1 file=$2 fn=$3 instr=${4:-sdot} per=${5:-2}
  python3 "$ROOT/scripts/mca-loop.py" "$file" "$instr" --function="$fn" --most > "$W/loop.s"
  local blocks=$(( $(grep -c "$instr" "$W/loop.s") / per ))
  printf '| %s | %d |' "$name" "$blocks"
  for cpu in cortex-a55 cortex-a78 neoverse-v1; do
    local cycles
    cycles=$("$MCA" -mtriple=aarch64 -mcpu=$cpu -mattr=+dotprod,+i8mm -iterations=200 \
             "$W/loop.s" | awk '/Total Cycles/ {print $3}')
    awk -v c="$cycles" -v b="$blocks" 'BEGIN {printf " %.2f |", c / 200 / b}'
  done
  echo
}

echo "| loop | row-blocks per iteration | A55 | A78 | V1 (cycles per row-block) |"
echo "| --- | --- | --- | --- | --- |"
row "Kiln q4_0 (\`kiln_neon_q4_0_tile1\`)" "$W/probe_q4_0.s" probe_q4_0
row "ggml \`vec_dot_q4_0_q8_0\`" "$W/quants.s" ggml_vec_dot_q4_0_q8_0
row "ggml \`gemv_q4_0_4x4_q8_0\`" "$W/repack.s" ggml_gemv_q4_0_4x4_q8_0
row "Kiln q8_0 (\`kiln_neon_q8_0_tile1\`)" "$W/probe_q8_0.s" probe_q8_0
row "ggml \`vec_dot_q8_0_q8_0\`" "$W/quants.s" ggml_vec_dot_q8_0_q8_0
row "ggml \`gemv_q8_0_4x4_q8_0\`" "$W/repack.s" ggml_gemv_q8_0_4x4_q8_0
row "Kiln q4_k (\`kiln_neon_q4_k_tile\`, Q8_K activations)" "$W/probe_q4_k.s" probe_q4_k
row "ggml \`vec_dot_q4_K_q8_K\`" "$W/quants.s" ggml_vec_dot_q4_K_q8_K
row "ggml \`gemv_q4_K_8x4_q8_K\`" "$W/repack.s" ggml_gemv_q4_K_8x4_q8_K
row "Kiln q5_k (\`kiln_neon_q5_k_tile\`, Q8_K activations)" "$W/probe_q5_k.s" probe_q5_k
row "ggml \`vec_dot_q5_K_q8_K\`" "$W/quants.s" ggml_vec_dot_q5_K_q8_K
row "ggml \`gemv_q5_K_8x4_q8_K\`" "$W/repack.s" ggml_gemv_q5_K_8x4_q8_K
row "Kiln q6_k (\`kiln_neon_q6_k_tile\`, Q8_K activations)" "$W/probe_q6_k.s" probe_q6_k
row "ggml \`vec_dot_q6_K_q8_K\`" "$W/quants.s" ggml_vec_dot_q6_K_q8_K
row "ggml \`gemv_q6_K_8x4_q8_K\`" "$W/repack.s" ggml_gemv_q6_K_8x4_q8_K
row "Kiln q3_k (\`kiln_neon_q3_k_tile\`, Q8_K activations)" "$W/probe_q3_k.s" probe_q3_k
row "ggml \`vec_dot_q3_K_q8_K\`" "$W/quants.s" ggml_vec_dot_q3_K_q8_K
row "Kiln q2_k (\`kiln_neon_q2_k_tile\`, Q8_K activations)" "$W/probe_q2_k.s" probe_q2_k
row "ggml \`vec_dot_q2_K_q8_K\`" "$W/quants.s" ggml_vec_dot_q2_K_q8_K

echo
echo "i8mm (\`--cpu=i8mm\`; the models of cores without i8mm are given the feature):"
echo
echo "| loop | row-blocks x activation rows per iteration | A55 | A78 | V1 (cycles per row-block and activation row) |"
echo "| --- | --- | --- | --- | --- |"
row "Kiln q4_0 decode (\`kiln_neon_q4_0_tile1\`, as without i8mm)" "$W/probe_q4_0_i8mm.s" probe_q4_0
row "ggml \`gemv_q4_0_4x8_q8_0\`" "$W/repack_i8mm.s" ggml_gemv_q4_0_4x8_q8_0
row "Kiln q8_0 decode (\`kiln_neon_q8_0_tile1\`, as without i8mm)" "$W/probe_q8_0_i8mm.s" probe_q8_0
row "ggml \`gemv_q8_0_4x8_q8_0\`" "$W/repack_i8mm.s" ggml_gemv_q8_0_4x8_q8_0
row "Kiln q4_0 prefill (\`kiln_neon_q4_0_mm_tile\`, 8 rows)" "$W/probe_q4_0_mm8_i8mm.s" probe_q4_0_mm8 smmla 1
row "ggml \`gemm_q4_0_4x8_q8_0\`" "$W/repack_i8mm.s" ggml_gemm_q4_0_4x8_q8_0 smmla 1
row "Kiln q8_0 prefill (\`kiln_neon_q8_0_mm_tile\`, 8 rows)" "$W/probe_q8_0_mm8_i8mm.s" probe_q8_0_mm8 smmla 1
row "ggml \`gemm_q8_0_4x8_q8_0\`" "$W/repack_i8mm.s" ggml_gemm_q8_0_4x8_q8_0 smmla 1
row "Kiln q4_k prefill (\`kiln_neon_q4_k_mm_tile\`, 8 rows)" "$W/probe_q4_k_mm8_i8mm.s" probe_q4_k_mm8 smmla 1
row "ggml \`gemm_q4_K_8x8_q8_K\`" "$W/repack_i8mm.s" ggml_gemm_q4_K_8x8_q8_K smmla 1
row "Kiln q6_k prefill (\`kiln_neon_q6_k_mm_tile\`, 8 rows, Q8_K)" "$W/probe_q6_k_mm8_i8mm.s" probe_q6_k_mm8 smmla 1
row "Kiln q6_k prefill without i8mm (\`kiln_neon_q6_k_tile\`, 4 rows)" "$W/probe_q6_k_4_i8mm.s" probe_q6_k_4
row "ggml \`gemm_q6_K_8x8_q8_K\`" "$W/repack_i8mm.s" ggml_gemm_q6_K_8x8_q8_K smmla 1

# SVE at 256 bits (Neoverse-V1's length; kilnc --target=sve --sve-bits=256):
# Kiln's kernels as kilnc compiles them with -msve-vector-bits=256, and
# ggml's quants.c with its vector-length switch fixed at 256 bits (each
# ggml_cpu_get_sve_cnt() read as 32, what it returns on such a core). The
# loop is the smallest holding an sdot: Kiln's one-row loop over a block of
# 8 weight rows, ggml's over 2 blocks (q4_0, q8_0, iq4_nl) or a super-block
# (8; its q5_K, iq4_nl and iq4_xs have no SVE code, so those rows are its
# NEON loops).
sed 's/ggml_cpu_get_sve_cnt()/32/g' "$G/src/ggml-cpu/arch/arm/quants.c" > "$W/quants_sve.c"
SVE=(--target=aarch64-linux-gnu -O2 -fno-math-errno -march=armv8.2-a+sve+dotprod -msve-vector-bits=256)
clang-16 "${SVE[@]}" -std=c11 -DKILN_KERNEL= -I"$K/common" -I"$ROOT/runtime/include" \
  -S "$K/sve/kernels_sve.c" -o "$W/sve.s"
clang-16 "${SVE[@]}" -std=c11 "${GI[@]}" -I"$G/src/ggml-cpu/arch/arm" -S "$W/quants_sve.c" -o "$W/quants_sve.s"

# sve_row NAME FILE.s FUNCTION ROW_BLOCKS
sve_row() {
  python3 "$ROOT/scripts/mca-loop.py" "$2" sdot --function="$3" > "$W/loop.s"
  local cycles
  cycles=$("$MCA" -mtriple=aarch64 -mcpu=neoverse-v1 -mattr=+sve,+dotprod -iterations=200 \
           "$W/loop.s" | awk '/Total Cycles/ {print $3}')
  awk -v n="$1" -v c="$cycles" -v b="$4" 'BEGIN {printf "| %s | %d | %.2f |\n", n, b, c / 200 / b}'
}

echo
echo "SVE, 256-bit vectors:"
echo
echo "| loop | row-blocks per iteration | V1 (cycles per row-block) |"
echo "| --- | --- | --- |"
for T in q4_0 q8_0 iq4_nl; do
  sve_row "Kiln $T (\`matmul_${T}_q8_0_16x4_sve\`)" "$W/sve.s" kiln_matmul_${T}_q8_0_16x4_sve 8
  sve_row "ggml \`vec_dot_${T}_q8_0\`" "$W/quants_sve.s" ggml_vec_dot_${T}_q8_0 2
done
for T in q4_k q5_k q6_k q3_k q2_k; do
  sve_row "Kiln $T (\`matmul_${T}_q8_k_16x4_sve\`)" "$W/sve.s" kiln_matmul_${T}_q8_k_16x4_sve 8
  sve_row "ggml \`vec_dot_${T%k}K_q8_K\`" "$W/quants_sve.s" ggml_vec_dot_${T%k}K_q8_K 8
done
sve_row "Kiln iq4_xs (\`matmul_iq4_xs_q8_k_16x4_sve\`)" "$W/sve.s" kiln_matmul_iq4_xs_q8_k_16x4_sve 8
sve_row "ggml \`vec_dot_iq4_xs_q8_K\` (NEON code: ggml has no SVE iq4_xs)" "$W/quants_sve.s" \
  ggml_vec_dot_iq4_xs_q8_K 8
