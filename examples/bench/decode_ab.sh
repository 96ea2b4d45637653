#!/bin/sh
# decode_ab.sh OUT ROUNDS TOKENS NAME:SRC:DEFINES [NAME:SRC:DEFINES ...]
#
# A/B of x86 matmul kernel variants over one decode step's matmuls
# (examples/bench/decode_ab.c; docs/notes/benchmarks-history.md, "Decode bandwidth: prefetch
# across groups"). OUT is `kilnc MODEL --target=x86 [--cpu=avx2] --emit=c -o
# OUT`: its bench.c names the kernel and lists the calls, its
# bench_weights.bin holds the packed weights. Each variant NAME compiles the
# kernel sources of the Kiln tree SRC (the repository root, e.g. this one or an
# older checkout: git worktree add ../old COMMIT) with DEFINES (extra compiler
# flags); the first is the base of the ratios. Example:
#   kilnc m200-q4_0.gguf --target=x86 --emit=c -o q4c --name=bench --context=512
#   examples/bench/decode_ab.sh q4c 31 2 new:.: old:../old:
set -e
if [ $# -lt 4 ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
OUT=$1 ROUNDS=$2 TOKENS=$3
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-clang-16}
[ -f "$OUT/bench.c" ] && [ -f "$OUT/bench_weights.bin" ] ||
  { echo "decode_ab.sh: $OUT: expected bench.c and bench_weights.bin (kilnc --emit=c)" >&2; exit 2; }
# The decode matmuls: kiln_matmul_*(0, n, K, wts + OFFSET, N, ...) and the
# output matrix's call with n_out.
KERNEL=$(grep -o 'kiln_matmul_[a-z0-9_]*(0, n' "$OUT/bench.c" | head -1 | sed 's/(0, n$//')
[ -n "$KERNEL" ] || { echo "decode_ab.sh: no x86 matmul calls in $OUT/bench.c" >&2; exit 2; }
case $KERNEL in
  *avx512vnni) ARCH="-march=x86-64-v4 -mavx512vnni" ;;
  *avx2) ARCH="-march=x86-64-v3" ;;
  *) echo "decode_ab.sh: $KERNEL: not an x86 kernel" >&2; exit 2 ;;
esac
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
grep -o "$KERNEL(0, n[_out]*, [0-9]*, wts + [0-9]*, [0-9]*" "$OUT/bench.c" |
  awk -F'[ ,]+' '{print "{" $3 ", " $7 ", " $6 "},"}' > "$B/decode_ab_calls.h"
LIST="" OBJS=""
for spec in "$@"; do
  name=${spec%%:*} rest=${spec#*:}
  src=${rest%%:*} defs=${rest#*:}
  [ "$defs" = "$rest" ] && defs=""
  # The kernels live in kernels/ (in trees before the renovation, in
  # compiler/targets/), one folder per ISA.
  kernels="$src/kernels"
  [ -d "$kernels/x86" ] || kernels="$src/compiler/targets"
  [ "$rest" != "$spec" ] && [ -d "$kernels/x86" ] ||
    { echo "decode_ab.sh: $spec: expected NAME:KILN_TREE:DEFINES" >&2; exit 2; }
  # shellcheck disable=SC2086 # DEFINES are several words
  $CC -std=c11 -O2 $ARCH -w -I"$src/runtime/include" -I"$kernels" -I"$kernels/common" \
    -DKILN_AB_VARIANT="ab_$name" -DKILN_AB_KERNEL="$KERNEL" $defs \
    -c "$HERE/decode_ab.c" -o "$B/v_$name.o"
  echo "void ab_$name(const float *, int, int, const uint8_t *, int, const float *, float *, void *);" \
    >> "$B/decode_ab_variants.h"
  LIST="$LIST {\"$name\", ab_$name},"
  OBJS="$OBJS $B/v_$name.o"
done
echo "#define AB_VARIANTS $LIST" >> "$B/decode_ab_variants.h"
echo "#define AB_KERNEL \"$KERNEL\"" >> "$B/decode_ab_variants.h"
# The kernel's packed layout, from its definition in this tree's
# kernels_x86.c: KILN_X86_MATMUL(NAME, NR, ACC_T, BS, META, QUANT, ...) or
# KILN_X86_Q8K_MATMUL(NAME, NR, ACC_T, META, QUANT, ...) (blocks of 256).
DEF=$(grep -E "^KILN_X86_(Q8K_)?MATMUL\(${KERNEL#kiln_}," "$HERE/../../kernels/x86/kernels_x86.c" |
  tr -d ' ' | head -1)
[ -n "$DEF" ] || { echo "decode_ab.sh: no definition of $KERNEL in kernels_x86.c" >&2; exit 2; }
case $DEF in
  KILN_X86_Q8K_MATMUL*) LAYOUT=$(echo "$DEF" | awk -F'[(,]' '{print $3 ", 256, " $5 ", " $6}') ;;
  *) LAYOUT=$(echo "$DEF" | awk -F'[(,]' '{print $3 ", " $5 ", " $6 ", " $7}') ;;
esac
echo "#define AB_LAYOUT $LAYOUT /* NR, BS, META, QUANT */" >> "$B/decode_ab_variants.h"
# shellcheck disable=SC2086
$CC -std=c11 -O2 -march=x86-64-v3 -I"$B" "$HERE/decode_ab.c" $OBJS -o "$B/decode_ab"
"$B/decode_ab" "$OUT/bench_weights.bin" "$ROUNDS" "$TOKENS"
