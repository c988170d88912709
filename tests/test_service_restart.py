"""``fairyboard run`` as a real process: SIGKILL at random points loses no committed move,
the restarted service resumes the game; SIGTERM shuts down cleanly.

The game is played through the page's API (``POST /api/sim``) on the simulated board,
exactly as a person clicking the simulator would, in real time."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from controller.journal import Journal
from controller.layout import load_layout
from controller.rules import get_game
from controller.web.simulator import move_actions

ROOT = Path(__file__).resolve().parent.parent
#: quiet Mule moves, a Tower split (a choice), a split capture, checkmate
GAME = ["Mb1-c3", "Mb8-c6", "Mc3-b1", "Mc6-b8", "Ee2-d3", "Ef7-e6", "T5d1-h5", "Eh7-g6",
        "T2h5xg6"]


class Service:
    """One ``fairyboard run`` process with its stderr in a file."""

    def __init__(self, tmp_path: Path, n: int):
        self.config = tmp_path / "config.toml"
        self.config.write_text(
            f"[journal]\npath = '{tmp_path / 'journal'}'\n"
            "[web]\nport = 0\n"
            "[sensing]\nsettle_ms = 50\ndebounce_ms = 5\n")
        self.log = tmp_path / f"service-{n}.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", "--config", str(self.config)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self.log.open("w"),
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.url = self._wait_for_url()
        self.http = httpx.Client(base_url=self.url, timeout=5.0)

    def records(self) -> list[dict]:
        out = []
        for line in self.log.read_text().splitlines():
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
        return out

    def _wait_for_url(self) -> str:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for r in self.records():
                if r.get("msg") == "web page":
                    return r["url"]
            if self.proc.poll() is not None:
                raise AssertionError(f"service exited: {self.log.read_text()}")
            time.sleep(0.05)
        raise AssertionError(f"service did not start: {self.log.read_text()}")

    def state(self) -> dict:
        return self.http.get("/api/state").json()

    def sim(self, action: dict) -> None:
        r = self.http.post("/api/sim", json=action)
        assert r.status_code == 200, r.text

    def wait(self, ok, what: str, timeout: float = 5.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            if ok(state):
                return state
            time.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}: {self.state()}")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.http.close()

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(10)
        self.http.close()
        return code


def _journal(tmp_path: Path):
    return Journal(tmp_path / "journal").games()


def _position(game, moves):
    pos = game.start()
    for text in moves:
        pos.push(game.parse_move(pos, text))
    return pos


def _play(svc: Service, game, layout, acknowledged: list[str], kills: set, rng) -> bool:
    """Play on from ``acknowledged`` (updated in place); True if the process was killed."""
    for ply in range(len(acknowledged), len(GAME)):
        pos = _position(game, acknowledged)
        move = game.parse_move(pos, GAME[ply])
        for k, action in enumerate(move_actions(game, pos, move, layout)):
            svc.sim(action)
            time.sleep(0.03)
            if (ply, k) in kills:  # in the middle of the move
                kills.discard((ply, k))
                time.sleep(rng.random() * 0.1)
                svc.kill()
                return True
        state = svc.wait(lambda s: len(s["moves"]) > len(acknowledged)
                         or s["phase"] == "choice", f"{GAME[ply]} to commit")
        if state["phase"] == "choice":
            labels = [c["label"] for c in state["choice"]]
            assert GAME[ply] in labels, labels
            r = svc.http.post("/api/choice", json={"index": labels.index(GAME[ply])})
            assert r.status_code == 200, r.text
            state = svc.wait(lambda s: len(s["moves"]) > len(acknowledged),
                             f"{GAME[ply]} to commit")
        acknowledged[:] = [m["text"] for m in state["moves"]]
        assert acknowledged == GAME[:ply + 1]
        if (ply, None) in kills:  # right after the page showed the move
            kills.discard((ply, None))
            time.sleep(rng.random() * 0.05)
            svc.kill()
            return True
    return False


@pytest.mark.parametrize("seed", [7, 11])
def test_sigkill_at_random_points_loses_no_committed_move(tmp_path, seed):
    rng = random.Random(seed)
    layout = load_layout("square8")
    game = get_game("luotuoqi")
    # kill points: (ply, action index) in the middle of a move, (ply, None) after it
    kills = set()
    while len(kills) < 3:
        ply = rng.randrange(len(GAME))
        pos = _position(game, GAME[:ply])
        count = len(move_actions(game, pos, game.parse_move(pos, GAME[ply]), layout))
        kills.add((ply, rng.choice([None, *range(count)])))
    planned = sorted(kills, key=lambda k: (k[0], -1 if k[1] is None else k[1]))
    acknowledged: list[str] = []  # moves the page showed as committed
    restarts = 0
    svc = Service(tmp_path, restarts)
    try:
        svc.sim({"action": "arrange"})
        svc.wait(lambda s: s["phase"] == "turn", "set-up")
        while _play(svc, game, layout, acknowledged, kills, rng):
            games = _journal(tmp_path)
            assert len(games) == 1
            on_disk = games[0].moves
            # nothing the page showed is lost; at most the move in flight was added
            assert on_disk[:len(acknowledged)] == acknowledged, (planned, on_disk)
            assert len(on_disk) <= len(acknowledged) + 1, (planned, on_disk)
            acknowledged = list(on_disk)
            restarts += 1
            svc = Service(tmp_path, restarts)
            state = svc.state()
            if acknowledged == GAME:  # killed after the mate: the game is finished
                assert games[0].result == "1-0" and state["resume"] is None
                break
            assert [m["text"] for m in state["moves"]] == acknowledged
            assert state["resume"]["plies"] == len(acknowledged)
            assert state["phase"] == "setup"  # the simulated board restarts empty
            svc.sim({"action": "arrange"})  # the player sets the saved position up
            svc.wait(lambda s: s["phase"] == "turn", "the board to match the saved game")
        assert restarts == 3, planned
        assert acknowledged == GAME
        games = _journal(tmp_path)
        assert games[0].moves == GAME and games[0].result == "1-0"
        assert svc.stop() == 0
    finally:
        if svc.proc.poll() is None:
            svc.proc.kill()
            svc.proc.wait()


def test_sigterm_shuts_down_cleanly_and_binds_localhost(tmp_path):
    svc = Service(tmp_path, 0)
    try:
        assert svc.url.startswith("http://127.0.0.1:")
        health = svc.http.get("/health").json()
        assert health["status"] == "ok" and health["sensing"]["state"] in ("ok", "starting")
        svc.sim({"action": "arrange"})
        svc.wait(lambda s: s["phase"] == "turn", "set-up")
        assert svc.stop() == 0
        records = svc.records()
        messages = [r["msg"] for r in records]
        assert "started" in messages and "stopping" in messages and "stopped" in messages
        assert all({"ts", "level", "logger", "msg"} <= set(r) for r in records)
        stopping = next(r for r in records if r["msg"] == "stopping")
        assert stopping["signal"] == "SIGTERM"
    finally:
        if svc.proc.poll() is None:
            svc.proc.kill()
            svc.proc.wait()
