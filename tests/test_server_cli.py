"""``fairyboard server``: one command starts the server on its embedded default (a SQLite
file in its folder); a bad database is one line, and so is a cluster it cannot serve."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from tests.support.broker import free_port


def test_one_command_starts_the_server(tmp_path):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    env.pop("FAIRYBOARD_SERVER_DATABASE", None)
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "server", "--port",
                             str(port), "--data", str(tmp_path / "club")], env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        health = None
        while time.monotonic() < deadline:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).json()
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert health == {"ok": True, "store": "sqlite", "games": 0}
        page = httpx.get(f"http://127.0.0.1:{port}/")
        assert page.status_code == 200 and "Sign up" in page.text
        assert (tmp_path / "club" / "fairyboard-server.sqlite3").is_file()
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
    assert "Traceback" not in err


def test_an_unreachable_database_is_one_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.getcwd(),
           "FAIRYBOARD_SERVER_DATABASE": "postgresql://u:hunter2pw@127.0.0.1:1/x"}
    done = subprocess.run([sys.executable, "-m", "controller.cli", "server", "--port",
                           str(free_port()), "--data", str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "PostgreSQL cannot be reached" in done.stderr
    assert "Traceback" not in done.stderr and "hunter2pw" not in done.stderr


@pytest.mark.parametrize("args, env_database, problem", [
    (["--cluster", "127.0.0.1:1883"], None, "--cluster needs PostgreSQL"),
    (["--cluster", "127.0.0.1:1883", "--broker-port", "1884"], "postgresql://u@127.0.0.1:1/x",
     "--cluster and --broker-port"),
    (["--cluster", "no-port"], None, "the broker as HOST:PORT"),
    (["--cluster", "127.0.0.1:1883", "--worker", "a b"], None, "--worker 'a b'"),
    (["--worker", "w1"], None, "are for a process of --cluster"),
    (["--referee"], None, "are for a process of --cluster"),
    (["--use-referees"], None, "are for a process of --cluster"),
    (["--referee-seed", "x"], None, "are for a process of --cluster"),
    (["--cluster", "127.0.0.1:1883", "--referee-seed", "x"], None,
     "--referee-seed is for a --referee process"),
    (["--cluster", "127.0.0.1:1883", "--referee"], None, "--referee needs PostgreSQL"),
    (["--cluster", "127.0.0.1:1883", "--referee"], "postgresql://u@127.0.0.1:1/x",
     "PostgreSQL cannot be reached"),
])
def test_a_cluster_it_cannot_serve_is_one_line(tmp_path, args, env_database, problem):
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    env.pop("FAIRYBOARD_SERVER_DATABASE", None)
    if env_database:
        env["FAIRYBOARD_SERVER_DATABASE"] = env_database
    done = subprocess.run([sys.executable, "-m", "controller.cli", "server", "--port",
                           str(free_port()), "--data", str(tmp_path), *args], env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert problem in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
