"""A real Mosquitto broker on a free loopback port, configured in a temporary folder
(installed by scripts/test from the distribution's packages)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def mosquitto_or_skip() -> str:
    path = shutil.which("mosquitto") or ("/usr/sbin/mosquitto"
                                         if os.access("/usr/sbin/mosquitto", os.X_OK) else None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("mosquitto is not installed (scripts/test installs it as root)")
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """``start()``/``stop()`` the broker on one port (a restart keeps the port: the
    boards' reconnection is what is tested).  ``extra`` lines go into its configuration."""

    def __init__(self, folder: Path, extra: str = "", persistence: bool = True) -> None:
        self.binary = mosquitto_or_skip()
        self.folder = folder
        self.port = free_port()
        self.config = folder / "mosquitto.conf"
        self.log = folder / "mosquitto.log"
        lines = [f"listener {self.port} 127.0.0.1", "allow_anonymous true",
                 f"persistence {'true' if persistence else 'false'}",
                 f"persistence_location {folder}/", "log_dest stderr", extra]
        if os.geteuid() == 0:  # else it drops to the mosquitto user: no writing here
            lines.append("user root")
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen | None = None

    def start(self) -> Broker:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([self.binary, "-c", str(self.config)],
                                            stdout=log, stderr=log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError("mosquitto exited: "
                                       + self.log.read_text()[-500:]) from None
                time.sleep(0.02)
        raise RuntimeError("mosquitto did not open its port")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
