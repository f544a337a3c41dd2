#!/usr/bin/env bash
# CI check: every runtime dependency of the project (pyproject [project].dependencies) resolves
# to binary wheels for 64-bit Raspberry Pi OS, with the constraints install.sh applies:
#   Bookworm: CPython 3.11, glibc 2.36, hardware/constraints-bookworm.txt (numpy < 2)
#   Trixie:   CPython 3.13, glibc 2.41, hardware/constraints-trixie.txt
# An sdist-only dependency (it would need a compiler on the Pi) fails the check.
# Needs the package index (as `pip install` in CI does). Usage: hardware/check-aarch64-deps.sh [PIP]
set -euo pipefail
cd "$(dirname "$0")/.."
pip="${1:-.venv/bin/pip}"
py="$(dirname "$pip")/python"
[ -x "$py" ] || py=python3

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$py" - "$tmp/requirements.txt" <<'PY'
import sys, tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
open(sys.argv[1], "w").write("\n".join(deps) + "\n")
PY

platforms() {  # manylinux tags a glibc of version 2.$1 accepts, newest first
  local minor
  for ((minor = $1; minor >= 17; minor--)); do printf -- '--platform manylinux_2_%s_aarch64 ' "$minor"; done
  printf -- '--platform manylinux2014_aarch64 --platform linux_aarch64'
}

check() {  # release python-version glibc-minor
  local release="$1" version="$2" glibc="$3" abi="cp${2/./}"
  echo "== $release: CPython $version aarch64, glibc 2.$glibc"
  # shellcheck disable=SC2046
  "$pip" download --quiet --dest "$tmp/$release" --only-binary=:all: \
    $(platforms "$glibc") --python-version "$version" --implementation cp --abi "$abi" --abi abi3 --abi none \
    -r "$tmp/requirements.txt" -c "hardware/constraints-$release.txt"
  ls "$tmp/$release" | sed 's/^/   /'
}

check bookworm 3.11 36
check trixie 3.13 41
echo "check-aarch64-deps: every dependency has an aarch64 wheel for bookworm and trixie"
