#!/usr/bin/env bash
# graph-kernel-cycles.sh - the f32 GEMM tile and the 3x3 depthwise convolution
# of the graph kernels, hand-written (kernels/tensor) against Halide's
# schedule (kiln-halide-gen), per multiply-add of the inner loop:
#   NEON: llvm-mca-16 cycles on Cortex-A55, Cortex-A78 and Neoverse-V1;
#   HVX:  packets (Hexagon has no llvm-mca model), one packet a cycle.
# Each kernel is compiled with the flags kilnc uses for the target.
#
#   scripts/graph-kernel-cycles.sh [BUILD_DIR]      (docs/kernels.md)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
GEN="$BUILD/bin/kiln-halide-gen"
MCA_LOOP="$ROOT/scripts/mca-loop.py"
T="$ROOT/kernels/tensor"
R="$ROOT/runtime"
W="$(mktemp -d /tmp/kiln-cycles-XXXXXX)"
trap 'rm -rf "$W"' EXIT

# The hand-written loops, specialized as kilnc's callers use them: the full
# register tile of kiln_sgemm; dw_row_3x3 at stride 1.
cat > "$W/probe.c" <<'C'
#define noinline always_inline /* dw_row_3x3 into the probe, stride constant */
#include "gemm.c"
#include "nn.c"
void probe_sgemm_tile(int64_t kc, const float *A, int64_t sam,
                      const float *B, int64_t ldb, float *C, int64_t ldc) {
#ifdef KILN_SGEMM_VL
  sgemm_tile_v((kiln_sgemm_v){0}, MR, NV, kc, 1.0f, A, sam, 1, B, ldb, C, ldc, 0, 0);
#else
  sgemm_tile(MR, NR, kc, 1.0f, A, sam, 1, B, ldb, C, ldc, 0, 0);
#endif
}
void probe_depthwise(float *y, const float *x, const float *w, int64_t OW,
                     int64_t rs) {
  dw_row_3x3(y, x, w, OW, rs, 1, 1);
}
C

NEON_FLAGS=(--target=aarch64-linux-gnu -std=c11 -O2 -fno-math-errno -march=armv8.2-a+dotprod)
HVX_FLAGS=(--target=hexagon -mv67 -mhvx -mhvx-length=128b -std=c11 -O2 -ffreestanding
           -fno-math-errno -isystem "$R/src/freestanding")
clang-16 "${NEON_FLAGS[@]}" -I"$T" -I"$R/include" -S "$W/probe.c" -o "$W/kiln_neon.s"
clang-16 "${HVX_FLAGS[@]}" -I"$T" -I"$R/include" -S "$W/probe.c" -o "$W/kiln_hvx.s"
for isa in neon hvx; do
  "$GEN" --kernel=sgemm --shape=24,6400,864 --target=$isa --emit=assembly -o "$W/halide_sgemm_$isa.s"
  "$GEN" --kernel=depthwise --shape=24,80,80,3,1 --target=$isa --emit=assembly -o "$W/halide_dw_$isa.s"
done

# neon_row NAME FILE.s [FUNCTION]: cycles per multiply-add (4 per fmla).
neon_row() {
  local name=$1 file=$2 fn=${3:-} args=()
  [ -n "$fn" ] && args=(--function="$fn")
  python3 "$MCA_LOOP" "$file" fmla "${args[@]}" --most > "$W/loop.s"
  local macs=$(( $(grep -c fmla "$W/loop.s") * 4 ))
  printf '| %s | NEON | %d |' "$name" "$macs"
  for cpu in cortex-a55 cortex-a78 neoverse-v1; do
    local cycles
    cycles=$(llvm-mca-16 -mtriple=aarch64 -mcpu=$cpu -iterations=200 "$W/loop.s" |
             awk '/Total Cycles/ {print $3}')
    awk -v c="$cycles" -v m="$macs" 'BEGIN {printf " %.3f |", c / 200 / m}'
  done
  echo
}
# hvx_row NAME FILE.s [FUNCTION]: packets per multiply-add (sfmpy).
hvx_row() {
  local name=$1 file=$2 fn=${3:-} args=()
  [ -n "$fn" ] && args=(--function="$fn")
  read -r _ _ _ packets _ macs < <(python3 "$MCA_LOOP" "$file" "+= sfmpy" "${args[@]}" --most --stats)
  awk -v p="$packets" -v m="$macs" -v n="$name" \
    'BEGIN {printf "| %s | HVX (scalar f32) | %d | %.3f packets |\n", n, m, p / m}'
}

echo "| loop | ISA | multiply-adds per iteration | A55 | A78 | V1 (cycles per multiply-add) |"
echo "| --- | --- | --- | --- | --- | --- |"
neon_row "GEMM tile, hand-written (kiln_sgemm)" "$W/kiln_neon.s" probe_sgemm_tile
neon_row "GEMM tile, Halide" "$W/halide_sgemm_neon.s"
neon_row "depthwise 3x3, hand-written (dw_row_3x3)" "$W/kiln_neon.s" probe_depthwise
neon_row "depthwise 3x3, Halide" "$W/halide_dw_neon.s"
echo
echo "| loop | ISA | multiply-adds per iteration | packets per multiply-add |"
echo "| --- | --- | --- | --- |"
hvx_row "GEMM tile, hand-written (kiln_sgemm)" "$W/kiln_hvx.s" probe_sgemm_tile
hvx_row "GEMM tile, Halide" "$W/halide_sgemm_hvx.s"
hvx_row "depthwise 3x3, hand-written (dw_row_3x3)" "$W/kiln_hvx.s" probe_depthwise
hvx_row "depthwise 3x3, Halide" "$W/halide_dw_hvx.s"
