"""A game killed (SIGKILL) at a chosen fsync and resumed: the kill-point test and sweep."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from controller.config import Config
from controller.journal import KILL_AT_FSYNC_ENV, Journal
from controller.service import BoardService

ROOT = Path(__file__).resolve().parents[2]  # the repository


#: page state after each step: (games started, moves of the newest game, its result)
SCRIPT_STATES = [
    (1, (), None),                                          # started, set up
    (1, ("Mb1-c3",), None),
    (1, ("Mb1-c3", "Eb7-a6"), None),
    (1, ("Mb1-c3", "Eb7-a6+cube"), None),                   # the Cube handed over: amend
    (1, ("Mb1-c3", "Eb7-a6+cube", "Mg8-f6"), None),
    (1, ("Mb1-c3", "Eb7-a6+cube"), None),                   # taken back
    (1, ("Mb1-c3", "Eb7-a6+cube"), "1-0"),                  # Black resigns from the page
    (2, (), None),                                          # a new game from the page
    (2, ("Mb1-c3",), None),
]


#: journal fsyncs of the whole script: 2 per game file (folder, start record) + 1 per record
FSYNCS = 2 + 5 + 1 + 2 + 1


class Run:
    """One ``fairyboard run`` that dies at its ``kill_at``-th fsync (0: never)."""

    def __init__(self, folder: Path, kill_at: int):
        self.folder = folder
        folder.mkdir()
        config = folder / "config.toml"
        config.write_text(
            f"[journal]\npath = '{folder / 'journal'}'\n[web]\nport = 0\n"
            "[sensing]\nsettle_ms = 50\ndebounce_ms = 5\n[board]\ntakeback_delay_s = 0.3\n")
        self.log = folder / "service.log"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if kill_at:
            env[KILL_AT_FSYNC_ENV] = str(kill_at)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self.log.open("w"), env=env)
        self.http: httpx.Client | None = None
        self.shown: list[tuple] = []  # every state the page showed, in order
        self.ids: list[str] = []

    def dead(self) -> bool:
        return self.proc.poll() is not None

    def start(self) -> bool:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for line in self.log.read_text().splitlines():
                with contextlib.suppress(ValueError):
                    if json.loads(line).get("msg") == "web page":
                        self.http = httpx.Client(base_url=json.loads(line)["url"], timeout=5)
                        return True
            if self.dead():
                return False
            time.sleep(0.02)
        raise AssertionError(f"service did not start: {self.log.read_text()}")

    def state(self) -> dict:
        assert self.http is not None
        state = self.http.get("/api/state").json()
        if state["game"]["id"] not in self.ids:
            self.ids.append(state["game"]["id"])
        self.shown.append((len(self.ids), tuple(m["text"] for m in state["moves"]),
                           state["result"] and state["result"]["text"]))
        return state

    def post(self, url: str, body: dict) -> None:
        assert self.http is not None
        self.http.post(url, json=body)

    def wait(self, want: tuple, timeout: float = 8.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.state()
            if self.shown[-1] == want:
                return
            time.sleep(0.02)
        raise AssertionError(f"timed out waiting for {want}: {self.shown[-1]}")

    def play(self) -> None:
        """The script, until the end or the kill."""
        steps = [
            [("/api/sim", {"action": "arrange"})],
            [("/api/sim", {"action": "lift", "spot": "b1"}),
             ("/api/sim", {"action": "place", "spot": "c3"})],
            [("/api/sim", {"action": "lift", "spot": "b7"}),
             ("/api/sim", {"action": "place", "spot": "a6"})],
            [("/api/sim", {"action": "lift", "spot": "black-cube"}),
             ("/api/sim", {"action": "place", "spot": "white-cube"})],
            [("/api/sim", {"action": "lift", "spot": "g8"}),
             ("/api/sim", {"action": "place", "spot": "f6"})],
            [("/api/sim", {"action": "lift", "spot": "f6"}),
             ("/api/sim", {"action": "place", "spot": "g8"})],
            [("/api/command", {"command": "resign"})],
            [("/api/new-game", {"game": "luotuoqi"})],
            [("/api/sim", {"action": "arrange"}),
             ("/api/sim", {"action": "lift", "spot": "b1"}),
             ("/api/sim", {"action": "place", "spot": "c3"})],
        ]
        self.state()
        for k, (step, want) in enumerate(zip(steps, SCRIPT_STATES, strict=True)):
            for url, body in step:
                self.post(url, body)
                time.sleep(0.03)
            if k == 0:
                deadline = time.monotonic() + 5
                while self.http.get("/api/state").json()["phase"] != "turn":
                    assert time.monotonic() < deadline
                    time.sleep(0.02)
            self.wait(want)

    def close(self) -> None:
        if not self.dead():
            self.proc.kill()
        self.proc.wait()
        if self.http is not None:
            self.http.close()


def _kill_and_resume(folder: Path, kill_at: int) -> tuple[list[tuple], tuple, list[str]]:
    run = Run(folder, kill_at)
    try:
        if run.start():
            with contextlib.suppress(httpx.TransportError):
                run.play()
        if kill_at:
            assert run.proc.wait(10) == 137, run.log.read_text()[-2000:]
    finally:
        run.close()
    records = Journal(folder / "journal").games()
    newest = records[-1] if records else None
    resumed = (len(records), tuple(newest.moves), newest.result) if newest else (0, (), None)
    # the restart: a new service resumes what the journal holds
    config = Config()
    config.journal.path = str(folder / "journal")
    service = BoardService(config)
    try:
        if newest is not None and newest.result is None:  # resumed, with every move
            assert service.game_id == newest.id, (kill_at, service.game_id)
            assert tuple(t for _, t in service.plies) == resumed[1], kill_at
        problems = list(service.journal_problems)
    finally:
        service.close()
    return run.shown, resumed, problems
