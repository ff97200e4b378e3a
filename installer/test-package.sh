#!/usr/bin/env bash
# The ctest package.install: builds the .deb, lints it, installs it with apt into a clean Debian 12 root
# (debootstrap minbase, cached) and uses it there as a user would. docs/PACKAGING.md describes it.
#   test-package.sh BUILD_DIR
# Environment: TPUC_DEBOOTSTRAP_CACHE (default /var/cache/tpu-studio-ci: the test runs as root, and the cache
# lives outside any build tree), TPUC_DEBIAN_MIRROR (default deb.debian.org), TPUC_KEEP_ROOT=1 keeps this
# run's root for a look inside.
set -euo pipefail
build=$(cd "${1:?usage: test-package.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
step() { printf '== %s (%ds)\n' "$*" "$SECONDS"; }
fail() { echo "test-package.sh: FAIL: $*" >&2; exit 1; }

# chroot, mounts and dpkg need root: sudo when it asks no password, else the test says so rather than pass.
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null && sudo -n true 2>/dev/null && exec sudo -n -E "$0" "$@"
  fail "needs root (chroot into a debootstrap root): run ctest as root, or with password-less sudo"
fi
for tool in debootstrap lintian cpack unshare chroot; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/setup.sh installs it)"
done

step "building the package"
cmake --build "$build" --target tpuc tpuc-opt tpu-studio tpuc-view tpuc-package-files tpuc-package-example
rm -rf "$build/package"
(cd "$build" && cpack --config CPackConfig.cmake) >"$build/cpack.log" 2>&1 || { cat "$build/cpack.log"; fail "cpack"; }
debs=("$build"/package/tpu-studio_*_amd64.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "cpack wrote no single tpu-studio_*_amd64.deb"
deb=${debs[0]}
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"
dpkg-deb -f "$deb" Version Depends

step "lintian"
# Errors fail the test; warnings are printed. (lintian warns when run as root; that line is dropped.)
lintian --tag-display-limit 0 --fail-on error "$deb" 2>&1 | grep -v "running with root privileges" ||
  { [ "${PIPESTATUS[0]}" -eq 0 ] || fail "lintian reports errors"; }

step "no build or source paths in the package"
# Installed programs find everything relative to themselves; a path into this tree would work here and
# nowhere else. (The clean root below has no such tree either, so the checks there would fail too.)
source=$(cd "$here/.." && pwd)
extracted=$(mktemp -d)
dpkg-deb -x "$deb" "$extracted"
leaks=$(grep -rlaF -e "$build" -e "$source" "$extracted" || true)
rm -rf "$extracted"
[ -z "$leaks" ] || fail "the package names $build or $source in: ${leaks//$extracted/}"

# --- the clean root: debootstrap minbase, cached per ISO week; each run works on a fresh copy ---------------
cache=${TPUC_DEBOOTSTRAP_CACHE:-/var/cache/tpu-studio-ci}
mirror=${TPUC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
key=bookworm-minbase-$(date -u +%G-W%V)
base=$cache/$key
mkdir -p "$cache/apt-archives"
# One debootstrap at a time: runs of other build trees wait for the root this one makes (and share it).
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$base/.complete" ]; then
  step "debootstrap $key (cold cache)"
  # The mirror is the network: a run cut short there (seen once, the log ending at "Validating Packages")
  # is tried again, three times in all, before the test fails.
  for attempt in 1 2 3; do
    rm -rf "$base.partial"
    debootstrap --variant=minbase bookworm "$base.partial" "$mirror" >"$cache/$key.log" 2>&1 && break
    echo "debootstrap attempt $attempt failed (exit $?):"
    tail -5 "$cache/$key.log"
    [ "$attempt" -lt 3 ] || fail "debootstrap (log: $cache/$key.log)"
    sleep 20
  done
  # bookworm-security carries llvm-22 / libmlir-22.
  cat >"$base.partial/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
  rm -rf "$base.partial/var/cache/apt/archives/"*.deb
  touch "$base.partial/.complete"
  mv "$base.partial" "$base"
  # Older weeks' roots go; the downloaded packages stay (apt-archives).
  find "$cache" -maxdepth 1 -name 'bookworm-minbase-*' ! -name "$key" ! -name '*.log' -exec rm -rf {} +
else
  step "debootstrap root $key from the cache"
fi
root=$(mktemp -d "$cache/run.XXXXXX")
cleanup() {
  if [ "${TPUC_KEEP_ROOT:-0}" = 1 ]; then echo "root kept: $root"; else rm -rf "$root"; fi
}
trap cleanup EXIT
cp -a "$base/." "$root/"
flock -u 9
rm -f "$root/.complete"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
# Packages downloaded by earlier runs: apt takes them instead of downloading (it checks their hashes).
cp "$cache/apt-archives/"*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true

# Inside a private mount namespace: /proc, /dev and /sys exist only for this process tree and vanish with it,
# so an interrupted run leaves no mounts behind.
in_root() {
  unshare --mount --fork bash -c '
    root=$1; shift
    mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" && mount --rbind /sys "$root/sys" &&
      exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"' \
    in_root "$root" "$@"
}

step "apt install ./$(basename "$deb") (only its declared dependencies)"
in_root bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends /tmp/$(basename "$deb")" >"$build/package-apt.log" 2>&1 ||
  { tail -30 "$build/package-apt.log"; fail "apt-get install of the package"; }
cp -n "$root/var/cache/apt/archives/"*.deb "$cache/apt-archives/" 2>/dev/null || true
echo "installed $(in_root dpkg-query -W -f '${binary:Package}\n' | wc -l) packages in the root"

step "checks inside the root"
cp "$here/test-package-inside.sh" "$root/tmp/"
in_root bash /tmp/test-package-inside.sh || fail "a check inside the root (above)"

step "the studio's screenshot"
png=$root/tmp/work/studio.png
[ -f "$png" ] || fail "no screenshot"
cp "$png" "$build/package-studio.png"
# Non-trivial: a real window has many colours and some text-sized detail, not one flat fill.
/usr/bin/python3 - "$png" <<'EOF' || fail "the screenshot is trivial"
import sys, cv2, numpy as np
img = cv2.imread(sys.argv[1])
assert img is not None, "unreadable PNG"
h, w = img.shape[:2]
colours = len(np.unique(img.reshape(-1, 3), axis=0))
edges = float((cv2.Canny(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), 50, 150) > 0).mean())
print(f"screenshot {w}x{h}, {colours} colours, {edges:.3%} edge pixels")
assert w >= 640 and h >= 400 and colours >= 64 and edges > 0.01, "too plain for a studio window"
EOF
step "PASS: $(basename "$deb") installs into a clean Debian 12 and works there"
