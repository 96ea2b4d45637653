#!/usr/bin/env bash
# fuzz.sh SECONDS [FUZZER...] - the long run of Kiln's libFuzzer targets.
#
#   scripts/fuzz.sh 600                 every target, 10 minutes each
#   scripts/fuzz.sh 3600 onnx-import    one target for an hour
#
# Targets (built by the normal build into build/bin, ASan + UBSan):
# gguf-reader, gguf-import, onnx-import, tokenizer. Each runs from its seed corpus in
# test/fuzz/ with a working corpus in build/fuzz/TARGET; a finding (crash,
# sanitizer report, timeout over 10 s, allocation over 1.5 GiB) is written
# to build/fuzz/TARGET/findings/ and makes the script exit 1. Prints one line
# per target: executions, seconds, corpus size, findings. Record long runs in
# docs/reliability.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build}"
SECONDS_EACH=${1:?usage: fuzz.sh SECONDS [FUZZER...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(gguf-reader gguf-import onnx-import tokenizer)
status=0
for t in "${targets[@]}"; do
  bin="$BUILD/bin/$t-fuzzer"
  case "$t" in
    gguf-reader) seeds="$ROOT/test/fuzz/corpus" ;;
    *) seeds="$ROOT/test/fuzz/$t-corpus" ;;
  esac
  [ -x "$bin" ] || { echo "fuzz.sh: $bin not built (ninja -C $BUILD $t-fuzzer)" >&2; exit 2; }
  work="$BUILD/fuzz/$t"
  mkdir -p "$work/corpus" "$work/findings"
  log="$work/last.log"
  rc=0
  ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$SECONDS_EACH" \
    -rss_limit_mb=2048 -malloc_limit_mb=1536 -timeout=10 \
    -artifact_prefix="$work/findings/" "$work/corpus" "$seeds" > "$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 executions in \2 s/p' "$log")
  findings=$(find "$work/findings" -type f | wc -l)
  echo "fuzz.sh: $t: ${runs:-no summary (see $log)}, corpus $(ls "$work/corpus" | wc -l), findings $findings"
  [ "$rc" = 0 ] && [ "$findings" = 0 ] || status=1
done
exit $status
