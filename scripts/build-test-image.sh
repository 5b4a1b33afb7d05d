#!/usr/bin/env bash
# Builds the local Docker test image (no registry here): Debian's busybox-static, the host's bash and its
# libraries, /tmp and /workspace, imported with `docker import`. Does nothing when the image already holds
# the same content (a hash label). Usage: scripts/build-test-image.sh [TAG]   (default tether-test:latest)
set -euo pipefail
TAG="${1:-tether-test:latest}"
BUSYBOX="${BUSYBOX:-/bin/busybox}"
BASH_BIN="$(command -v bash)"

if [ ! -x "$BUSYBOX" ] || ! "$BUSYBOX" --list-full >/dev/null 2>&1; then
  echo "build-test-image: $BUSYBOX is missing or not a full busybox (apt-get install busybox-static)" >&2
  exit 1
fi

# Shared libraries bash needs, as absolute paths (the vdso has none).
LIBS="$(ldd "$BASH_BIN" | awk '/=> \//{print $3} /^[ \t]*\//{print $1}' | sort -u)"

# The hash covers every input, this script included, so a change to any of them rebuilds.
HASH="$(cat "$0" "$BUSYBOX" "$BASH_BIN" $LIBS | sha256sum | cut -c1-16)"
CURRENT="$(docker image inspect -f '{{index .Config.Labels "tether.test-image.hash"}}' "$TAG" 2>/dev/null || true)"
if [ "$CURRENT" = "$HASH" ]; then
  echo "build-test-image: $TAG is up to date ($HASH)"
  exit 0
fi

OLD_ID="$(docker image inspect -f '{{.Id}}' "$TAG" 2>/dev/null || true)"
ROOT="$(mktemp -d)"
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT/bin" "$ROOT/sbin" "$ROOT/usr/bin" "$ROOT/usr/sbin" "$ROOT/etc" "$ROOT/root" \
  "$ROOT/workspace" "$ROOT/tmp" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev"
chmod 1777 "$ROOT/tmp"
cp "$BUSYBOX" "$ROOT/bin/busybox"
# One symlink per applet, at the path busybox names for it (bin/sh, usr/bin/env, ...).
for applet in $("$BUSYBOX" --list-full); do
  [ -e "$ROOT/$applet" ] || ln -s /bin/busybox "$ROOT/$applet"
done
rm -f "$ROOT/bin/bash"
cp "$BASH_BIN" "$ROOT/bin/bash"
for lib in $LIBS; do
  mkdir -p "$ROOT$(dirname "$lib")"
  cp -L "$lib" "$ROOT$lib"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$ROOT/etc/group"

tar -C "$ROOT" -c . | docker import \
  --change "LABEL tether.test-image.hash=$HASH" \
  --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'WORKDIR /workspace' \
  --change 'CMD ["/bin/sh"]' \
  - "$TAG" >/dev/null
# The image it replaced is left untagged: remove it unless a container still uses it.
[ -z "$OLD_ID" ] || docker rmi "$OLD_ID" >/dev/null 2>&1 || true
echo "build-test-image: built $TAG ($HASH)"
