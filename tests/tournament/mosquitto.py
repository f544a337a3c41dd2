"""A real Mosquitto for the tests: the shipped configuration (``hardware/mosquitto``: password
file, ACL, persistence) on a free localhost port, started and restarted at will."""

from __future__ import annotations

import getpass
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SHIPPED = Path(__file__).resolve().parents[2] / "hardware" / "mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    def __init__(self, folder: Path, tables: int) -> None:
        self.folder, self.port = folder, free_port()
        self.passwords = folder / "passwords"
        subprocess.run([str(SHIPPED / "make-passwords.sh"), str(folder / "passwd"),
                        str(self.passwords), str(tables)], check=True, capture_output=True)
        shutil.copy(SHIPPED / "acl", folder / "acl")
        (folder / "data").mkdir()
        conf = (SHIPPED / "mosquitto.conf").read_text()
        conf = conf.replace("/etc/mosquitto/referee/", f"{folder}/")
        conf = conf.replace("/var/lib/mosquitto/", f"{folder}/data/")
        conf = re.sub(r"^listener 1883$", f"listener {self.port} 127.0.0.1", conf, flags=re.M)
        conf += f"\nuser {getpass.getuser()}\nlog_dest file {folder}/mosquitto.log\n"
        (folder / "mosquitto.conf").write_text(conf)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def password_file(self, account: str) -> Path:
        return self.passwords / f"{account}.password"

    def start(self) -> None:
        self.process = subprocess.Popen(["mosquitto", "-c", str(self.folder / "mosquitto.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not start: {self.log()}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()  # SIGTERM: mosquitto saves its persistence file
            self.process.wait(10)
            self.process = None

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text() if path.exists() else ""


def mosquitto_or_skip() -> None:
    if shutil.which("mosquitto") is None:
        if os.environ.get("CI"):
            pytest.fail("mosquitto is not installed (.ci/run installs it)")
        pytest.skip("mosquitto is not installed (apt-get install mosquitto); CI installs it")


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    mosquitto_or_skip()
    broker = Mosquitto(tmp_path / "broker", tables=4)
    broker.start()
    yield broker
    broker.stop()
