"""The systemd unit and the install scripts: what the issue requires of them, checked statically,
and `systemd-analyze verify` through hardware/check-unit.sh where systemd-analyze exists."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.paths import REPO_ROOT

UNIT = REPO_ROOT / "systemd" / "referee.service"
HARDWARE = REPO_ROOT / "hardware"


def unit_values() -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    section = ""
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values.setdefault(f"{section}.{key}", []).append(value)
    return values


def test_unit_is_notify_with_watchdog_restart_and_a_non_root_user() -> None:
    v = unit_values()
    assert v["Service.Type"] == ["notify"]
    assert int(v["Service.WatchdogSec"][0]) > 0
    assert v["Service.Restart"] == ["on-failure"]
    assert v["Service.User"] == ["referee"]
    assert set(v["Service.SupplementaryGroups"][0].split()) == {"gpio", "video", "i2c"}
    assert v["Service.StateDirectory"] == ["referee"]
    assert v["Service.ConfigurationDirectory"] == ["referee"]
    assert "/etc/referee/config.toml" in v["Service.ExecStart"][0]


def test_hardening_keeps_camera_gpio_and_i2c_devices() -> None:
    v = unit_values()
    assert v["Service.DevicePolicy"] == ["closed"]
    allowed = {entry.split()[0] for entry in v["Service.DeviceAllow"]}
    assert {"char-gpiochip", "char-i2c", "char-video4linux", "char-media", "char-dma_heap"} <= allowed
    assert "Service.PrivateDevices" not in v  # would hide /dev/gpiochip*, /dev/i2c-*, /dev/video*
    assert v["Service.ProtectSystem"] == ["strict"] and v["Service.NoNewPrivileges"] == ["yes"]
    assert "AF_UNIX" in v["Service.RestrictAddressFamilies"][0]  # sd_notify socket


def test_unit_documentation_points_at_docs_install_sh_copies() -> None:
    """`systemctl help referee` opens these: files install.sh copies to /opt/referee/app, not a
    web address a box without internet (IPAddressDeny=any) could not reach anyway."""
    installed_app = "file:/opt/referee/app/"
    docs = unit_values()["Unit.Documentation"][0].split()
    assert docs
    for uri in docs:
        assert uri.startswith(installed_app), uri
        assert (REPO_ROOT / uri.removeprefix(installed_app)).is_file(), uri


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_analyze_verify_prints_nothing() -> None:
    result = subprocess.run(["bash", str(HARDWARE / "check-unit.sh")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_check_unit_fails_on_a_warning(tmp_path: Path) -> None:
    bad = tmp_path / "referee.service"
    bad.write_text(UNIT.read_text().replace("Restart=on-failure", "Restrat=on-failure"))
    result = subprocess.run(["bash", str(HARDWARE / "check-unit.sh"), str(bad)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "Unknown key 'Restrat'" in result.stderr


def test_install_script_pins_bookworm_and_uses_system_site_packages() -> None:
    script = (HARDWARE / "install.sh").read_text()
    assert "--system-site-packages" in script
    assert "python3-picamera2" in script and "python3-lgpio" in script
    assert 'PREFIX="${REFEREE_PREFIX:-/opt/referee}"' in script and 'venv --system-site-packages "$PREFIX/.venv"' in script
    constraints = (HARDWARE / "constraints-bookworm.txt").read_text()
    assert "numpy<2" in constraints
    for script_name in ("install.sh", "check-unit.sh", "check-aarch64-deps.sh", "check-arm64-chroot.sh"):
        result = subprocess.run(["bash", "-n", str(HARDWARE / script_name)], capture_output=True, text=True)
        assert result.returncode == 0, f"{script_name}: {result.stderr}"


def test_default_config_in_install_matches_unit() -> None:
    parser = configparser.ConfigParser(strict=False)
    parser.read_string(UNIT.read_text().replace("DeviceAllow", "#DeviceAllow"))
    assert parser["Service"]["ExecStart"].split()[0] == "/opt/referee/.venv/bin/referee"


def _copy_step() -> str:
    """install.sh's step that copies the code, as written (from its heading to the venv)."""
    script = (HARDWARE / "install.sh").read_text()
    start = script.index('say "code in $PREFIX/app')
    return script[start:script.index('[ -x "$PREFIX/.venv/bin/python" ]', start)]


def test_install_copies_the_code_root_owned_and_not_writable_by_others() -> None:
    step = _copy_step()
    rsync = " ".join(line.strip().rstrip("\\") for line in step.splitlines() if "rsync" in line or "--exclude out" in line)
    assert "--chown=root:root" in rsync and "--chmod=go-w" in rsync
    assert 'install -d -o root -g root -m 0755 "$PREFIX" "$PREFIX/app"' in step


@pytest.mark.skipif(shutil.which("rsync") is None or os.geteuid() != 0, reason="needs rsync and root")
def test_install_copy_step_gives_root_the_code_of_a_users_checkout(tmp_path: Path) -> None:
    src, prefix = tmp_path / "checkout", tmp_path / "opt"
    (src / "referee").mkdir(parents=True)
    (src / "referee" / "run.py").write_text("print('the service runs this')\n")
    (src / "referee" / "run.py").chmod(0o666)
    for path in (src, src / "referee", src / "referee" / "run.py"):
        os.chown(path, 4321, 4321)  # the user who cloned it
    prefix.mkdir()
    os.chown(prefix, 4321, 4321)
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", f'say() {{ :; }}\n{_copy_step()}'],
                            env={**os.environ, "SRC": str(src), "PREFIX": str(prefix)}, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for path in (prefix, prefix / "app", prefix / "app" / "referee", prefix / "app" / "referee" / "run.py"):
        st = path.stat()
        assert (st.st_uid, st.st_gid) == (0, 0), path
        assert not st.st_mode & 0o022, f"{path} is writable by group or others"
