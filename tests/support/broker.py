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

    def __init__(self, folder: Path, extra: str = "", persistence: bool = True,
                 anonymous: bool = True) -> None:
        self.binary = mosquitto_or_skip()
        self.folder = folder
        self.port = free_port()
        self.config = folder / "mosquitto.conf"
        self.log = folder / "mosquitto.log"
        lines = [*MosquittoProcess.common_lines("127.0.0.1", self.port, folder, persistence),
                 f"allow_anonymous {str(anonymous).lower()}", extra]
        self.config.write_text("\n".join(lines) + "\n")
        self.mosquitto = MosquittoProcess(self.config, self.log, "127.0.0.1", self.port)

    def start(self) -> Broker:
        self.mosquitto.start()
        return self

    def stop(self) -> None:
        self.mosquitto.stop()


#: where the distributions put Mosquitto's dynamic-security plugin
DYNSEC_PLUGINS = ("/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so",
                  "/usr/lib/aarch64-linux-gnu/mosquitto_dynamic_security.so",
                  "/usr/lib/mosquitto_dynamic_security.so")


class DynsecBroker(Broker):
    """A broker whose logins and access rules are its dynamic-security plugin's (no
    anonymous login), its admin made as the plugin's documentation says
    (``mosquitto_ctrl dynsec init``)."""

    def __init__(self, folder: Path, admin: str, password: str) -> None:
        import shutil
        import subprocess

        plugin = next((p for p in DYNSEC_PLUGINS if os.path.exists(p)), None)
        ctrl = shutil.which("mosquitto_ctrl")
        if plugin is None or ctrl is None:
            mosquitto_or_skip()
            if os.environ.get("CI"):
                pytest.fail("mosquitto's dynamic-security plugin or mosquitto_ctrl missing")
            pytest.skip("mosquitto's dynamic-security plugin or mosquitto_ctrl missing")
        state = folder / "dynamic-security.json"
        subprocess.run([ctrl, "dynsec", "init", str(state), admin, password], check=True,
                       capture_output=True, timeout=30)
        super().__init__(folder, f"plugin {plugin}\nplugin_opt_config_file {state}",
                         anonymous=False)
