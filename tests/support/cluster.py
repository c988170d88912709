"""Server workers in cluster mode: real ``fairyboard server --cluster`` processes on one real
PostgreSQL and one real Mosquitto (loopback), their accounts made in the store itself;
the streams a test follows on them, and a challenge played on one worker.  The module's
fixture ``cluster`` (one per test module) is in ``tests/conftest.py``."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from controller.online.api import BoardApi, OnlineError
from controller.server.accounts import Accounts
from controller.server.store import open_store
from tests.support.broker import Broker, DynsecBroker, free_port
from tests.support.clubserver import FAST_HASHER, wait_event
from tests.support.postgres import Postgres

ROOT = Path(__file__).resolve().parent.parent.parent
#: the dynamic-security admin the workers log in as (``Cluster(link_boards=True)``)
DYNSEC_ADMIN = ("fairyboard-admin", "admin password of the test broker")


class Worker:
    """One ``fairyboard server --cluster`` process (its log: JSON lines in a file)."""

    def __init__(self, folder: Path, name: str, database: str, broker_port: int,
                 extra: tuple[str, ...] = (), env: dict[str, str] | None = None) -> None:
        self.folder, self.name = folder / name, name
        self.folder.mkdir(parents=True, exist_ok=True)
        self.database, self.broker_port = database, broker_port
        self.extra = extra  #: more arguments (``--use-referees``, ``--referee``)
        self.env = env or {}  #: more environment (the broker's login)
        self.port = free_port()
        self.log = self.folder / "server.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> Worker:
        env = {**os.environ, "FAIRYBOARD_SERVER_DATABASE": self.database,
               "PYTHONPATH": str(ROOT), **self.env}
        cmd = [sys.executable, "-m", "controller.cli", "server", "--data", str(self.folder),
               "--port", str(self.port), "--cluster", f"127.0.0.1:{self.broker_port}",
               "--worker", self.name, "--log-format", "json", *self.extra]
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=out)
        deadline = time.monotonic() + timeout
        while not self.ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"worker {self.name} exited: {self.log.read_text()[-800:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"worker {self.name} did not start")
            time.sleep(0.1)
        return self

    def ready(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"GET /health HTTP/1.0\r\n\r\n")
                return b'"ok":true' in s.recv(4096)
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: no goodbye, nothing flushed."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)  # (uvicorn waits for the streams still open: not for long)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def records(self, message: str) -> list[dict]:
        """The worker's log records with this message."""
        out = []
        for line in self.log.read_text(errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("message", record.get("msg")) == message:
                out.append(record)
        return out


class RefereeProc(Worker):
    """One ``fairyboard server --cluster … --referee`` process: ready once it has
    subscribed at the broker (it serves no page)."""

    def __init__(self, folder: Path, name: str, database: str, broker_port: int,
                 seed: str | None = None) -> None:
        seeded = ("--referee-seed", seed) if seed is not None else ()
        super().__init__(folder, name, database, broker_port, ("--referee", *seeded))

    def ready(self) -> bool:
        return self.log.exists() and bool(self.records("referee ready"))

    def judged(self, game_id: str) -> list[int]:
        """The plies of ``game_id`` this referee judged and stored (its log)."""
        return [r["ply"] for r in self.records("refereed ply stored")
                if r.get("game_id") == game_id]


class Cluster:
    """PostgreSQL, Mosquitto and ``n`` workers; ``player`` makes an account and a token
    in the store (as the sign-up page would).  ``referee_seed``: the referee processes draw
    the hidden set-ups from it and the number of games each started (repeatable).
    ``link_boards``: the workers link boards (``--link-boards``) on a broker with the
    dynamic-security plugin, logged in as its admin."""

    def __init__(self, folder: Path, n: int = 2, referees: int = 0,
                 referee_seed: str | None = None, link_boards: bool = False) -> None:
        self.pg = Postgres().start()
        (folder / "broker").mkdir()
        env: dict[str, str] = {}
        extra: tuple[str, ...] = ("--use-referees",) if referees else ()
        if link_boards:
            self.broker: Broker = DynsecBroker(folder / "broker", *DYNSEC_ADMIN).start()
            env = {"FAIRYBOARD_SERVER_CLUSTER_USER": DYNSEC_ADMIN[0],
                   "FAIRYBOARD_SERVER_CLUSTER_PASSWORD": DYNSEC_ADMIN[1]}
            extra = (*extra, "--link-boards")
        else:
            self.broker = Broker(folder / "broker").start()
        self.store = open_store(self.pg.url)
        self.accounts = Accounts(self.store, FAST_HASHER)
        self.workers = [Worker(folder, f"w{i}", self.pg.url, self.broker.port, extra, env)
                        for i in range(n)]
        self.referees = [RefereeProc(folder, f"r{i}", self.pg.url, self.broker.port,
                                     referee_seed) for i in range(referees)]
        for w in [*self.referees, *self.workers]:
            w.start()

    def player(self, name: str) -> tuple[str, str]:
        account = self.accounts.sign_up(name, "correct horse")
        return account, self.accounts.issue_token(account, f"{name}'s board")[1]

    def client(self, worker: int, token: str) -> BoardApi:
        return BoardApi(self.workers[worker].url, token, silence_s=5.0)

    def stop(self) -> None:
        for w in [*self.workers, *self.referees]:
            w.stop()
        self.store.close()
        self.broker.stop()
        self.pg.stop()


class Follower(threading.Thread):
    """Every line of one game stream, until the game has ended."""

    def __init__(self, api, game_id: str) -> None:
        super().__init__(daemon=True)
        self.api, self.game_id = api, game_id
        self.lines: list[dict] = []
        self.problem: str | None = None
        self.start()

    def run(self) -> None:
        try:
            for line in self.api.stream_game(self.game_id):
                self.lines.append(line)
                if line.get("state", line).get("status", "started") != "started":
                    return
        except OnlineError as exc:
            self.problem = str(exc)

    def plies(self) -> list[int]:
        return [line.get("state", line)["ply"] for line in self.lines
                if line.get("type") in ("gameFull", "gameState")]

    def wait_ply(self, ply: int, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while ply not in self.plies():
            assert time.monotonic() < deadline, f"ply {ply} not told: {self.plies()}"
            time.sleep(0.01)


class Events(threading.Thread):
    """Every event of one account's event stream on one worker."""

    def __init__(self, api) -> None:
        super().__init__(daemon=True)
        self.api = api
        self.events: list[dict] = []
        self.start()

    def run(self) -> None:
        with contextlib.suppress(OnlineError):
            for event in self.api.stream_events():
                self.events.append(event)

    def wait(self, kind: str, game_id: str, timeout: float = 10) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event.get("type") == kind and event["game"]["gameId"] == game_id:
                    return event
            assert time.monotonic() < deadline, f"no {kind}: {self.events}"
            time.sleep(0.01)


def challenge(cluster, a, b, variant="standard", worker=0, seconds=600):
    """A challenges B on ``worker`` (A plays first), B accepts there: the game id."""
    (_, ta), (nb, tb) = a, b
    api_a, api_b = cluster.client(worker, ta), cluster.client(worker, tb)
    events = api_b.stream_events()
    c = api_a.request("POST", f"/api/challenge/{nb}", "challenge", data={
        "variant": variant, "clock.limit": str(seconds), "clock.increment": "0",
        "color": "white"})["challenge"]
    assert wait_event(events, "challenge")["challenge"]["id"] == c["id"]
    api_b.accept_challenge(c["id"])
    game_id = wait_event(events, "gameStart")["game"]["gameId"]
    events.close()
    return game_id


def each_seat_saw_only_its_view(store, game_id: str, seats) -> list[str]:
    """A refereed Lao Tzu game that has ended: every line each seat's stream received
    (``seats``: :class:`~tests.support.clubserver.Seat`) is exactly that seat's view of
    the true position, replayed from the moves revealed at the end — no secret option,
    no move, no enemy piece it cannot see.  The revealed moves."""
    from controller.rules import get_game
    from controller.sight import Sight

    record, moves = store.game(game_id), store.moves(game_id)
    assert record.status != "started" and all(moves)  # revealed once ended
    game = get_game("laotzu", **record.options)  # (the drawn set-up, public now)
    positions = [game.start()]
    for text in moves:
        pos = positions[-1].copy()
        pos.push(game.parse_move(pos, text))
        positions.append(pos)
    for seat, s in enumerate(seats):
        for line in s.lines:
            raw = json.dumps(line)
            for secret in ("white_array", "black_array", "seed"):
                assert secret not in raw
            state = line.get("state", line)
            if state["status"] != "started":
                continue
            assert state["moves"] == ""
            truth = positions[state["ply"]]
            assert state["view"] == game.position_text(game.view_position(truth, seat))
            sight = Sight(game, truth, seat)
            for cell, piece in enumerate(game.parse_view(state["view"]).board):
                if piece is not None and piece.owner != seat:
                    assert cell in sight.visible, f"a hidden piece on {cell} reached {seat}"
    return moves


def refusal_shown_on_both_workers(cluster, a, b) -> None:
    """A Lao Tzu game (``a`` white): ``a``'s attempt refused on worker 0 is shown on
    ``a``'s streams on both workers, and on neither of ``b``'s."""
    import pytest

    gid = challenge(cluster, a, b, "laotzu")
    streams = {(w, seat): Follower(cluster.client(w, token), gid)
               for w in (0, 1) for seat, token in ((0, a[1]), (1, b[1]))}
    for f in streams.values():
        f.wait_ply(0)
    with pytest.raises(OnlineError, match="illegal move"):
        cluster.client(0, a[1]).move(gid, "a1a1")  # judged for worker 0

    def refused(f: Follower) -> list[dict]:
        return [line for line in f.lines if line.get("state", line).get("refused")]

    for w in (0, 1):
        deadline = time.monotonic() + 10
        while not refused(streams[(w, 0)]):
            assert time.monotonic() < deadline, f"worker {w}: {streams[(w, 0)].lines}"
            time.sleep(0.02)
    cluster.client(1, a[1]).resign(gid)
    for f in streams.values():
        f.join(10)
        assert f.problem is None and f.lines[-1]["status"] == "resign"
    for w in (0, 1):  # the other seat is told nothing of it, on either worker
        assert not refused(streams[(w, 1)])
