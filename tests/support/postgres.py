"""A real PostgreSQL on a free loopback port, in a temporary folder (the distribution's
server binaries, installed by scripts/test).  PostgreSQL refuses to run as root, so as root
the cluster belongs to the ``postgres`` user the package creates (or ``nobody``)."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.broker import free_port

BIN = Path(os.environ.get("FAIRYBOARD_PG_BIN", "/usr/lib/postgresql/15/bin"))


def _runner() -> list[str]:
    if os.getuid() != 0:
        return []
    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        return ["runuser", "-u", user, "--"]
    pytest.skip("running as root with no postgres or nobody user for PostgreSQL")


class Postgres:
    """``start()`` initdb's a cluster and starts it; ``url`` has database ``fairyboard``."""

    def __init__(self) -> None:
        if not (BIN / "initdb").exists():
            if os.environ.get("CI"):
                pytest.fail(f"PostgreSQL is not installed in {BIN} (scripts/test installs it)")
            pytest.skip(f"PostgreSQL server binaries are not in {BIN} "
                        "(apt-get install postgresql)")
        self.run_as = _runner()
        self.folder = Path(tempfile.mkdtemp(prefix="fairyboard-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        if self.run_as:
            user = self.run_as[2]
            shutil.chown(self.folder, user=user)
        self.folder.chmod(0o700)

    def _run(self, *args: str, timeout: float = 60) -> None:
        done = subprocess.run([*self.run_as, *args], capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stderr.strip()[-400:]}")

    def start(self) -> Postgres:
        self._run(str(BIN / "initdb"), "-D", str(self.data), "-U", "fairyboard",
                  "--auth=trust", "-E", "UTF8", "--no-sync")
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"),
                  "-w", "-o", f"-p {self.port} -k {self.folder} -h 127.0.0.1 -F", "start")
        self._run(str(BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                  "-U", "fairyboard", "fairyboard")
        return self

    @property
    def url(self) -> str:
        return f"postgresql://fairyboard@127.0.0.1:{self.port}/fairyboard"

    def fresh_database(self, name: str) -> str:
        """A new empty database on the cluster; its url."""
        self._run(str(BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                  "-U", "fairyboard", name)
        return f"postgresql://fairyboard@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                      "stop", timeout=30)
        shutil.rmtree(self.folder, ignore_errors=True)


def wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False
