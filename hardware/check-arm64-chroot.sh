#!/usr/bin/env bash
# A real install in an arm64 Raspberry Pi OS-like chroot under qemu-user: Debian (bookworm or
# trixie) arm64 + archive.raspberrypi.com (python3-picamera2, python3-lgpio), then
# hardware/install.sh --no-start inside it, then a smoke test of the installed `referee`.
#
#   sudo hardware/check-arm64-chroot.sh [bookworm|trixie] [--require]
#
# Needs root, mmdebstrap, curl, gpg and a registered qemu-aarch64 binfmt handler (Debian:
# apt-get install mmdebstrap qemu-user-static binfmt-support). When any is missing it says
# so and exits 0 (skipped), or 1 with --require. Takes ~10-30 minutes (everything emulated).
set -euo pipefail
cd "$(dirname "$0")/.."
release=bookworm
require=0
for arg in "$@"; do
  case "$arg" in
    bookworm|trixie) release="$arg" ;;
    --require) require=1 ;;
    *) echo "check-arm64-chroot: unknown argument $arg" >&2; exit 2 ;;
  esac
done

skip() {
  echo "check-arm64-chroot: skipped: $*" >&2
  exit "$require"
}
[ "$(id -u)" -eq 0 ] || skip "needs root"
for tool in mmdebstrap curl gpg; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed"
done
binfmt=/proc/sys/fs/binfmt_misc/qemu-aarch64
[ -f "$binfmt" ] && grep -q '^enabled' "$binfmt" || skip "no qemu-aarch64 binfmt handler (qemu-user-static + binfmt-support)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL https://archive.raspberrypi.com/debian/raspberrypi.gpg.key | gpg --dearmor >"$work/raspberrypi.gpg"
rsync -a --exclude .git --exclude .venv --exclude '*.egg-info' --exclude out ./ "$work/src/"
python3 - "$work/events.jsonl" <<'PY'
import json, sys
events = [
    {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E", "trump_card": "bastoni_1"},
    {"event": "play", "seat": "N", "card": "coppe_3"}, {"event": "play", "seat": "W", "card": "coppe_1"},
    {"event": "play", "seat": "S", "card": "coppe_2"}, {"event": "play", "seat": "E", "card": "coppe_4"},
]
open(sys.argv[1], "w").write("".join(json.dumps(e) + "\n" for e in events))
PY

cat >"$work/smoke.sh" <<'SMOKE'
set -euo pipefail
/src/hardware/install.sh --no-start
systemctl is-enabled referee.service
id referee
referee replay /events.jsonl | tee /replay.jsonl
referee run --config /etc/referee/config.toml --events /events.jsonl --pace 0 --no-hardware --state-dir /tmp/state
referee history --state-dir /tmp/state --export 1 --calls | tee /run.jsonl
python3 -c 'import json, sys; load = lambda p: [json.loads(l) for l in open(p)]; sys.exit(load("/replay.jsonl") != load("/run.jsonl"))'
/opt/referee/.venv/bin/python -c 'import numpy, cv2, onnxruntime, picamera2, lgpio; print("arm64 imports ok, numpy", numpy.__version__)'
SMOKE

mmdebstrap --arch=arm64 --variant=apt \
  --include=ca-certificates,systemd,dpkg-dev,python3 \
  --setup-hook="mkdir -p \"\$1/usr/share/keyrings\"" \
  --setup-hook="copy-in $work/raspberrypi.gpg /usr/share/keyrings/" \
  --customize-hook="sync-in $work/src /src" \
  --customize-hook="copy-in $work/events.jsonl $work/smoke.sh /" \
  --customize-hook='chroot "$1" /bin/bash /smoke.sh' \
  "$release" "$work/rootfs.tar" \
  "deb http://deb.debian.org/debian $release main" \
  "deb [signed-by=/usr/share/keyrings/raspberrypi.gpg] http://archive.raspberrypi.com/debian $release main"
echo "check-arm64-chroot: $release arm64 install and smoke test passed"
