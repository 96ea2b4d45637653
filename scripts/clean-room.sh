#!/usr/bin/env bash
# clean-room.sh - the README's two commands on a brand-new Debian 12 system.
#
#   scripts/clean-room.sh [WORKDIR]      (root; WORKDIR default build/clean-room)
#
# Builds a minimal Debian 12 root with `debootstrap --variant=minbase bookworm`
# (cached as WORKDIR/bookworm-minbase.tar.gz, so a rerun starts from the
# tarball), copies a clean `git clone` of the current commit into it (work
# tree changes are not part of the run), and inside a chroot runs
# scripts/setup.sh and then the README's test command. Prints the ctest
# summary and the wall time of each phase; exits non-zero if a phase fails.
#
#   KILN_DEBIAN_MIRROR   mirror for debootstrap (default http://deb.debian.org/debian)
#   KILN_CLEAN_ROOM_KEEP=1   keep WORKDIR/root afterwards (default: removed)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mkdir -p "${1:-$ROOT/build/clean-room}" && cd "${1:-$ROOT/build/clean-room}" && pwd)"
MIRROR="${KILN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CHROOT="$WORK/root"
BASE="$WORK/bookworm-minbase.tar.gz"
TEST_COMMAND="ctest --test-dir build --output-on-failure -j2 -LE heavy"

say() { echo "clean-room: $*"; }
die() { echo "clean-room: error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mount)"
command -v git > /dev/null || die "git is needed to clone the current commit"
if ! command -v debootstrap > /dev/null; then
  say "installing debootstrap"
  apt-get update -q > /dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap > /dev/null
fi
commit=$(git -C "$ROOT" rev-parse HEAD)
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ]; then
  say "note: the work tree has uncommitted changes; the clean room runs commit ${commit:0:12} without them"
fi

declare -a phases=()
phase_start=0
begin() { phase_start=$(date +%s); say "$1"; }
end() { phases+=("$(printf '%-10s %5d s' "$1" $(( $(date +%s) - phase_start )))"); }

unmount_all() {
  for m in dev/pts dev proc sys; do
    if mountpoint -q "$CHROOT/$m" 2> /dev/null; then umount -R "$CHROOT/$m" || true; fi
  done
}
# Never remove a root that still has the host's /dev, /proc or /sys mounted in it.
remove_root() {
  unmount_all
  if grep -q " $CHROOT/" /proc/mounts; then
    die "$CHROOT still has mounts; not removing it"
  fi
  rm -rf --one-file-system "$CHROOT"
}
cleanup() {
  if [ "${KILN_CLEAN_ROOM_KEEP:-0}" = 1 ]; then unmount_all; else remove_root; fi
}
trap cleanup EXIT

# Phase 1: the base system, from the cache when there is one.
remove_root
mkdir -p "$CHROOT"
if [ -f "$BASE" ]; then
  begin "unpacking the cached Debian 12 base ($BASE)"
  tar -xzf "$BASE" -C "$CHROOT"
  end base
else
  begin "debootstrap --variant=minbase bookworm from $MIRROR"
  debootstrap --variant=minbase bookworm "$CHROOT" "$MIRROR" > "$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log"; die "debootstrap failed (log: $WORK/debootstrap.log)"; }
  tar -czf "$BASE.tmp" -C "$CHROOT" . && mv "$BASE.tmp" "$BASE"
  end debootstrap
fi

# Phase 2: a clean clone of the current commit, and what a chroot needs.
begin "cloning ${commit:0:12} into the root"
git clone -q --no-local --no-hardlinks "$ROOT" "$CHROOT/kiln"
git -C "$CHROOT/kiln" checkout -q "$commit"
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
mount -t proc proc "$CHROOT/proc"
mount -t sysfs sys "$CHROOT/sys"
mount --rbind /dev "$CHROOT/dev"
mount --make-rslave "$CHROOT/dev"
end clone

in_root() {
  chroot "$CHROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /kiln && $1"
}

# Phase 3: the README's first command.
begin "scripts/setup.sh (log: $WORK/setup.log)"
if ! in_root "scripts/setup.sh" > "$WORK/setup.log" 2>&1; then
  tail -30 "$WORK/setup.log"
  die "scripts/setup.sh failed in the clean room (log: $WORK/setup.log)"
fi
end setup
grep "^kilnc: toolchain" "$WORK/setup.log" || true

# Phase 4: the README's second command.
begin "$TEST_COMMAND (log: $WORK/test.log)"
status=0
in_root "$TEST_COMMAND" > "$WORK/test.log" 2>&1 || status=$?
end tests

echo
say "commit ${commit:0:12}"
grep -E "tests passed|tests failed|Total Test time" "$WORK/test.log" | sed 's/^/clean-room: /' || true
if [ "$status" != 0 ]; then
  sed -n '/The following tests FAILED/,$p' "$WORK/test.log" | head -40
fi
for p in "${phases[@]}"; do say "phase $p"; done
[ "$status" = 0 ] || die "the tests failed in the clean room (log: $WORK/test.log)"
say "passed"
