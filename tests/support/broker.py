"""A real Mosquitto broker on a free loopback port, configured in a temporary folder
(installed by scripts/test from the distribution's packages); run by the server's own
:class:`~controller.server.broker.MosquittoProcess`."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from controller.server.broker import MosquittoProcess, mosquitto_binary


def mosquitto_or_skip() -> str:
    path = mosquitto_binary()
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
        lines = [*MosquittoProcess.common_lines("127.0.0.1", self.port, folder, persistence),
                 "allow_anonymous true", extra]
        self.config.write_text("\n".join(lines) + "\n")
        self.mosquitto = MosquittoProcess(self.config, self.log, "127.0.0.1", self.port)

    def start(self) -> Broker:
        self.mosquitto.start()
        return self

    def stop(self) -> None:
        self.mosquitto.stop()
