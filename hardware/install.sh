#!/usr/bin/env bash
# Install the card table referee on Raspberry Pi OS Bookworm or Trixie, 64-bit (Pi 4 / Pi 5).
#
#   git clone <this repository> referee && cd referee && sudo hardware/install.sh
#
# What it does (each step is safe to run again):
#   1. apt packages: picamera2 + libcamera (camera), lgpio (gpiozero's pin factory on Pi 5 and
#      Bookworm), I2C tools, the DejaVu font the display uses; enables I2C (raspi-config).
#   2. a system user `referee` in the gpio, video and i2c groups (the service runs as it).
#   3. the code in /opt/referee/app (root's, not writable by others) and a venv /opt/referee/.venv
#      WITH system site packages (picamera2 and lgpio come from apt), with
#      hardware/constraints-<release>.txt applied (Bookworm: numpy < 2 to match Debian's picamera2).
#   4. /etc/referee/config.toml (kept if it exists) and the systemd unit, enabled and started.
# Options: --no-apt (skip step 1), --no-start (enable but do not start: chroots, images).
set -euo pipefail

PREFIX="${REFEREE_PREFIX:-/opt/referee}"
CONF_DIR=/etc/referee
UNIT=/etc/systemd/system/referee.service
SRC="$(cd "$(dirname "$0")/.." && pwd)"
do_apt=1
do_start=1
for arg in "$@"; do
  case "$arg" in
    --no-apt) do_apt=0 ;;
    --no-start) do_start=0 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { printf '\n== %s\n' "$*"; }
die() { echo "install.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root: sudo $0"
arch="$(dpkg --print-architecture)"
[ "$arch" = arm64 ] || die "needs 64-bit Raspberry Pi OS (arm64), this is $arch"
. /etc/os-release
release="${VERSION_CODENAME:-unknown}"
case "$release" in
  bookworm|trixie) ;;
  *) echo "install.sh: warning: tested on bookworm and trixie, this is $release" >&2 ;;
esac
constraints="$SRC/hardware/constraints-$release.txt"
[ -f "$constraints" ] || constraints="$SRC/hardware/constraints-bookworm.txt"

if [ "$do_apt" -eq 1 ]; then
  say "apt packages"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    python3 python3-venv python3-pip python3-picamera2 python3-libcamera python3-lgpio \
    i2c-tools fonts-dejavu-core sqlite3 rsync
  if command -v raspi-config >/dev/null 2>&1; then
    raspi-config nonint do_i2c 0 || echo "install.sh: could not enable I2C; do it in raspi-config" >&2
  fi
fi

say "user referee (groups gpio, video, i2c)"
for group in gpio video i2c; do
  getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id referee >/dev/null 2>&1; then
  useradd --system --user-group --home-dir /var/lib/referee --no-create-home \
    --shell /usr/sbin/nologin referee
fi
usermod -aG gpio,video,i2c referee

say "code in $PREFIX/app, venv in $PREFIX/.venv"
install -d -o root -g root -m 0755 "$PREFIX" "$PREFIX/app"
# Root-owned and writable by root only: the service runs this code (and root runs pip on it),
# so the user who cloned the checkout must not be able to change it afterwards.
rsync -a --chown=root:root --chmod=go-w --delete --exclude .git --exclude .venv --exclude '*.egg-info' \
  --exclude out "$SRC/" "$PREFIX/app/"
[ -x "$PREFIX/.venv/bin/python" ] || python3 -m venv --system-site-packages "$PREFIX/.venv"
"$PREFIX/.venv/bin/pip" install -q --upgrade pip
# Editable, so the models/ folder next to the code is found (referee.paths.models_dir()).
"$PREFIX/.venv/bin/pip" install -q -c "$constraints" -e "$PREFIX/app"
"$PREFIX/.venv/bin/python" -c "import referee.box.run, gpiozero, luma.oled, cv2, onnxruntime, numpy; print('imports ok, numpy', numpy.__version__)"
ln -sf "$PREFIX/.venv/bin/referee" /usr/local/bin/referee
"$PREFIX/.venv/bin/python" -c "import picamera2" 2>/dev/null && echo "picamera2 ok" \
  || echo "install.sh: warning: picamera2 not importable (USB cameras still work)" >&2

say "config $CONF_DIR/config.toml and the service"
install -d -m 0755 "$CONF_DIR"
if [ ! -f "$CONF_DIR/config.toml" ]; then
  install -m 0644 "$SRC/hardware/config.toml" "$CONF_DIR/config.toml"
else
  echo "keeping the existing $CONF_DIR/config.toml"
fi
"$PREFIX/.venv/bin/python" -c "
from pathlib import Path; from referee.box.config import load_config
load_config(Path('$CONF_DIR/config.toml')); print('config ok')"
install -m 0644 "$SRC/systemd/referee.service" "$UNIT"
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload
fi
systemctl enable referee.service
if [ "$do_start" -eq 1 ] && [ -d /run/systemd/system ]; then
  # --no-block: with Type=notify the service is "started" only once a camera frame arrives
  systemctl restart --no-block referee.service
  echo "starting: journalctl -u referee -f   to watch it; sudo referee history to list matches"
else
  echo "enabled; it starts at the next boot"
fi
