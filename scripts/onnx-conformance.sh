#!/usr/bin/env bash
# Runs the ONNX backend node tests for every target and rewrites
#   test/onnx/conformance/TARGET.txt   (kiln-conformance's output: the CI
#                                        baseline of tests that must keep passing)
#   docs/onnx-conformance.md            (the per-target table and the list of
#                                        unsupported tests with their reasons)
# Usage: scripts/onnx-conformance.sh [BUILD_DIR] [TARGET...]
# (default: build, and every target; takes about 5 minutes per target here).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
shift || true
TARGETS=("$@")
[ "${#TARGETS[@]}" -gt 0 ] || TARGETS=(x86 generic neon sve rvv hvx)
SUITE=/usr/share/libonnx-testdata/data/node
mkdir -p "$ROOT/test/onnx/conformance"
for t in "${TARGETS[@]}"; do
  echo "== $t"
  # Exit status 1 only means some test failed; the file records which.
  "$BUILD/bin/kiln-conformance" --suite="$SUITE" --target="$t" \
    > "$ROOT/test/onnx/conformance/$t.txt" || true
  tail -2 "$ROOT/test/onnx/conformance/$t.txt"
done
/usr/bin/python3 "$ROOT/scripts/onnx-conformance-table.py" \
  "$ROOT/test/onnx/conformance" > "$ROOT/docs/onnx-conformance.md"
echo "wrote docs/onnx-conformance.md"
