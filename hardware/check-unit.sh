#!/usr/bin/env bash
# CI check of systemd/referee.service: `systemd-analyze verify` must pass and print NOTHING
# (any warning fails). The unit's ExecStart binary only exists on an installed box
# (/opt/referee/.venv/bin/referee, see install.sh), and verify refuses a missing binary, so the
# copy we verify points ExecStart at an executable stub; every other line is verified as is.
# Usage: hardware/check-unit.sh [UNIT]   (default systemd/referee.service)
set -euo pipefail
cd "$(dirname "$0")/.."
unit="${1:-systemd/referee.service}"
installed_bin=/opt/referee/.venv/bin/referee

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "check-unit: systemd-analyze not found (apt-get install systemd); skipped" >&2
  exit 0
fi
grep -q "^ExecStart=${installed_bin} run " "$unit" || {
  echo "check-unit: $unit: ExecStart must run ${installed_bin} (what install.sh installs)" >&2
  exit 1
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$tmp/referee"
chmod +x "$tmp/referee"
sed "s#^ExecStart=${installed_bin} #ExecStart=$tmp/referee #" "$unit" >"$tmp/referee.service"

status=0
output="$(systemd-analyze verify --man=no "$tmp/referee.service" 2>&1)" || status=$?
if [ "$status" -ne 0 ] || [ -n "$output" ]; then
  echo "check-unit: systemd-analyze verify $unit failed (exit $status):" >&2
  printf '%s\n' "${output//$tmp\//}" >&2
  exit 1
fi
echo "check-unit: $unit verified by $(systemd-analyze --version | head -1), no warnings"
