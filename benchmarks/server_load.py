"""The fairyboard server under many concurrent seats: G games of chess at once between
Board API clients on loopback, random legal moves after a think time, each seat holding
its game stream and (as a board's client does) its event stream open.

    .venv/bin/python -m benchmarks.server_load --games 50 500 [--think 2] [--plies 30]
        [--database URL | --postgres] [--kill-server-at 20] [--client-processes 2]
        [--browsers] [--write-docs]

The server is ``fairyboard server``'s own code (:func:`controller.server.app.serve`) in
a process of its own, so its CPU time and peak memory are its alone; the seats are
asyncio clients in this process (both seats of a game here, so one clock times a move
from its request to the opponent's stream), or with ``--client-processes K`` in K
processes of their own, each game's two seats in one (boards are other machines: 1,000
seats' clients in one process used most of a core and their queue was most of what was
measured — at 1,000 seats thinking 10 s, p99 2.0 s from one process, 0.31 s from two).
Measured per run: a move's request (checked by the rules, stored, answered) and the time
until the opponent's stream shows it, p50/p99; the server's CPU (% of one core, and per
move) and peak RSS. ``--postgres`` starts the distribution's PostgreSQL on loopback for
the run (``tests/support/postgres.py``). Checked: every move answered ``ok`` is in the
store at its ply (none lost), and every seat was told at the end exactly the store's
moves (none doubled or forked). ``--kill-server-at S`` kills the server (SIGKILL) S
seconds into the play and starts it again on the same data: the seats reconnect and play
on; the checks are the same. ``--cluster`` (with ``--postgres``) runs two workers
(``fairyboard server --cluster``) on one PostgreSQL and a Mosquitto of their own, each
game's White on the first worker and Black on the second, so every ply is judged on one
worker and streamed from the other; with ``--kill-server-at S`` the first worker is
killed and not started again: its seats move to the second, which carries every game on.
``--browsers``: each game's Black is a player with only a browser, as the server's play
page plays (:class:`PageSeat`: its session cookie, the seat's drawn board asked again
after every state, moves sent with the CSRF token), against White's board.

Loopback only, bounded in games, plies and time; it stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.benchtools import write_section  # noqa: E402
from controller.rules import get_game  # noqa: E402
from controller.server.api import SESSION_COOKIE  # noqa: E402
from controller.wire import wire_move  # noqa: E402  (the board's client's notation)

DOC = ROOT / "docs" / "performance.md"
#: a seat that hears nothing for this long reconnects (the server's keep-alive is 2 s)
SILENCE_S = 10.0


# -- the server's process -----------------------------------------------------------------
def make_players(folder: Path, players: int, database: str | None) -> None:
    """``players`` accounts, each with a board's token (``tokens.json`` in ``folder``) and
    a browser's logged-in session (``sessions.json``: cookie and CSRF token), made once."""
    from controller.server.accounts import Accounts
    from controller.server.store import SQLITE_DEFAULT, open_store
    from tests.support.clubserver import FAST_HASHER

    tokens_file = folder / "tokens.json"
    if tokens_file.exists():
        return
    store = open_store(database or str(folder / SQLITE_DEFAULT))
    accounts = Accounts(store, FAST_HASHER)
    tokens, sessions = {}, {}
    for n in range(players):
        name = f"p{n}"
        account = accounts.sign_up(name, "correct horse")
        tokens[name] = accounts.issue_token(account, "load")[1]
        cookie, session = accounts.log_in(name, "correct horse", "127.0.0.1")
        sessions[name] = [cookie, session.csrf]
    store.close()
    (folder / "sessions.json").write_text(json.dumps(sessions))
    tokens_file.write_text(json.dumps(tokens))


def serve_main(folder: Path, port: int, players: int, database: str | None,
               cluster: str | None = None) -> None:
    """The server on ``folder`` with ``players`` accounts (a restarted server finds them
    in its store); ``cluster``: ``BROKER:PORT/WORKER``, one worker of several."""
    from controller.server.app import serve
    from controller.server.cluster import cluster_settings

    make_players(folder, players, database)
    if os.environ.get("FAIRYBOARD_LOAD_GC_TRACE"):
        trace_gc_pauses()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(4096)
    settings = None
    if cluster:
        broker, _, worker = cluster.partition("/")
        settings = cluster_settings(broker, worker)
    serve(folder, port=port, database=database, sock=sock, cluster=settings)


def trace_gc_pauses(over_ms: float = 5.0) -> None:
    """Each garbage collection longer than ``over_ms`` as one line on stderr (is the move
    tail the collector's?). Counting the live objects walks them all, so a traced run's
    latencies are not the figures to publish."""
    import gc

    started: list[float] = []

    def timed(phase: str, info: dict) -> None:
        if phase == "start":
            started[:] = [time.perf_counter()]
        elif started:
            ms = (time.perf_counter() - started[0]) * 1000
            if ms > over_ms:
                print(f"gc generation {info['generation']}: {ms:.1f} ms, "
                      f"{info['collected']} collected, {len(gc.get_objects())} objects",
                      file=sys.stderr, flush=True)

    gc.callbacks.append(timed)


class ServerProcess:
    def __init__(self, folder: Path, port: int, players: int, database: str | None,
                 cluster: str | None = None) -> None:
        self.folder, self.port, self.players, self.database = folder, port, players, database
        self.cluster = cluster  #: BROKER:PORT/WORKER (a worker of several)
        self.proc: subprocess.Popen | None = None
        self.cpu_s = 0.0  # the CPU time of the processes that have ended
        self.peak_kib = 0

    def start(self) -> None:
        cmd = [sys.executable, "-m", "benchmarks.server_load", "--serve", str(self.folder),
               "--port", str(self.port), "--players", str(self.players)]
        if self.cluster:
            cmd += ["--worker-of", self.cluster]
        env = dict(os.environ)
        if self.database:
            env["FAIRYBOARD_SERVER_DATABASE"] = self.database  # (never on a command line)
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env)

    def ready(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"GET /health HTTP/1.0\r\n\r\n")
                return b'"ok":true' in s.recv(4096)
        except OSError:
            return False

    def wait_ready(self, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while not self.ready():
            assert self.proc is not None and self.proc.poll() is None, "the server died"
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.1)

    def cpu_now(self) -> float:
        """CPU seconds of every server process so far (user + system)."""
        return self.cpu_s + self._cpu(self.proc)

    @staticmethod
    def _cpu(proc: subprocess.Popen | None) -> float:
        if proc is None:
            return 0.0
        try:
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def _peak(self) -> int:
        if self.proc is None:
            return 0
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        except OSError:
            pass
        return 0

    def kill(self) -> None:
        assert self.proc is not None
        self.cpu_s += self._cpu(self.proc)
        self.peak_kib = max(self.peak_kib, self._peak())
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.cpu_s += self._cpu(self.proc)
        self.peak_kib = max(self.peak_kib, self._peak())
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# -- the seats ------------------------------------------------------------------------------
@dataclass
class Figures:
    requests: list[float] = field(default_factory=list)  #: a move's request, s
    seen: list[float] = field(default_factory=list)  #: request sent → opponent's stream
    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    acked: dict[tuple[str, int], str] = field(default_factory=dict)  #: answered ok
    told: dict[tuple[str, int], list[str]] = field(default_factory=dict)  #: final moves
    boards: list[float] = field(default_factory=list)  #: a browser's board after a ply, s
    #: a browser's first board (its page opened: every page at the same moment here)
    opened: list[float] = field(default_factory=list)
    refused: int = 0  #: moves answered with an error (none expected but after a kill)
    failed: int = 0  #: requests that got no answer (the server killed)
    reconnects: int = 0


class Seat:
    """One player's board client: the game stream followed, a move after a think time on
    its turn (from the position the stream told), a resignation after ``plies``."""

    def __init__(self, client, bases: list[str], token: str, gid: str, me: int, plies: int,
                 think: float, rng: random.Random, figures: Figures) -> None:
        self.client, self.gid, self.me = client, gid, me
        self.bases = bases  #: its worker first, then the others (cluster: it moves on)
        self.base = bases[0]
        self.headers = self.post_headers = {"Authorization": f"Bearer {token}"}
        self.plies, self.think, self.rng, self.f = plies, think, rng, figures
        self.game = get_game("chess")
        self.initial = ""
        self.playing_for: int | None = None  # the ply count a move is being made for

    async def run(self) -> None:
        import httpx

        while True:
            try:
                if await self._follow():
                    return
            except (httpx.ConnectError, ConnectionRefusedError):
                # nobody answers there (the worker killed): the next worker, in a cluster
                self.base = self.bases[(self.bases.index(self.base) + 1) % len(self.bases)]
            except (httpx.TransportError, OSError, TimeoutError, StopAsyncIteration):
                pass  # the stream broke or fell silent: reconnect, told the game again
            self.f.reconnects += 1
            await asyncio.sleep(0.2)

    async def _follow(self) -> bool:
        """Follow the game stream until the game ends (True) or the stream breaks."""
        url = f"{self.base}/api/board/game/stream/{self.gid}"
        async with self.client.stream("GET", url, headers=self.headers) as response:
            if response.status_code != 200:
                await response.aread()
                return False
            lines = response.aiter_lines()
            state = None
            while True:
                line = await asyncio.wait_for(lines.__anext__(), SILENCE_S)
                if not line.strip():  # a keep-alive: a move that failed is tried again
                    if state is not None:
                        self._turn(state, state["moves"].split())
                    continue
                data = json.loads(line)
                if data["type"] == "gameFull":
                    self.initial, state = data["initialFen"], data["state"]
                else:
                    state = data
                moves = state["moves"].split()
                n = len(moves)
                if n and (n - 1) % 2 != self.me and (self.gid, n) in self.f.sent:
                    self.f.seen.append(time.perf_counter() - self.f.sent.pop((self.gid, n)))
                if state["status"] != "started":
                    self.f.told[(self.gid, self.me)] = moves
                    return True
                self._shown()
                self._turn(state, moves)

    def _shown(self) -> None:
        """A new state told (a browser's page asks for its drawn board then)."""

    def _turn(self, state: dict, moves: list[str]) -> None:
        """On this seat's turn, a move (once for each ply count)."""
        if state["turn"] == self.me and self.playing_for != len(moves):
            self.playing_for = len(moves)
            asyncio.get_running_loop().create_task(self._play(moves))

    async def _play(self, moves: list[str]) -> None:
        import httpx

        n = len(moves)
        await asyncio.sleep(self.think * (0.5 + self.rng.random()))
        if n >= self.plies:
            path, text = f"/api/board/game/{self.gid}/resign", None
        else:
            pos = self.game.parse_position(self.initial)
            for move in moves:
                pos.push(self.game.parse_move(pos, move))
            text = wire_move(self.game, pos, self.rng.choice(self.game.legal_moves(pos)))
            path = f"/api/board/game/{self.gid}/move/{text}"
        start = time.perf_counter()
        if text is not None:
            self.f.sent[(self.gid, n + 1)] = start
        try:
            response = await self.client.post(self.base + path, headers=self.post_headers)
        except (httpx.TransportError, OSError):
            # (a kept-alive connection the server had just closed, or the server killed):
            # tried again from what the stream tells next — the (game, ply) key and the
            # turn make a move that did land refused, never doubled
            self.f.failed += 1
            self.playing_for = None
            return
        if response.status_code == 200:
            if text is not None:
                self.f.requests.append(time.perf_counter() - start)
                self.f.acked[(self.gid, n + 1)] = text
        else:
            self.f.refused += 1
            self.playing_for = None


class PageSeat(Seat):
    """A player with only a browser, as the server's play page plays: logged in by its
    session cookie, the game stream followed, the seat's drawn board (its pieces and legal
    moves, ``/board``) asked again after each state the stream tells, a move sent with
    the session's CSRF token; no event stream (the play page holds none)."""

    def __init__(self, client, bases: list[str], session: list[str], *args) -> None:
        super().__init__(client, bases, "", *args)
        cookie, csrf = session
        self.headers = {"Cookie": f"{SESSION_COOKIE}={cookie}"}
        self.post_headers = {**self.headers, "X-CSRF-Token": csrf}
        self._asking: asyncio.Task | None = None
        self._opened = False

    def _shown(self) -> None:
        if self._asking is None or self._asking.done():  # (the page drops stale answers)
            self._asking = asyncio.get_running_loop().create_task(self._board())

    async def _board(self) -> None:
        import httpx

        start = time.perf_counter()
        try:
            response = await self.client.get(f"{self.base}/api/board/game/{self.gid}/board",
                                             headers=self.headers)
        except (httpx.TransportError, OSError, RuntimeError):  # (or the run's end)
            return
        if response.status_code == 200:
            (self.f.boards if self._opened else self.f.opened).append(
                time.perf_counter() - start)
            self._opened = True


async def event_stream(client, bases: list[str], token: str, stop: asyncio.Event) -> None:
    """A board's event stream, held open (and opened again after a break, on the next
    worker in a cluster) until ``stop``."""
    import httpx

    headers = {"Authorization": f"Bearer {token}"}
    turn = 0
    while not stop.is_set():
        base = bases[turn % len(bases)]
        try:
            async with client.stream("GET", f"{base}/api/stream/event",
                                     headers=headers) as response:
                async for _ in response.aiter_lines():
                    if stop.is_set():
                        return
        except (httpx.ConnectError, ConnectionRefusedError):
            turn += 1  # (nobody answers there: the next worker, in a cluster)
        except (httpx.TransportError, OSError):
            pass
        await asyncio.sleep(0.2)


async def set_up(clients: dict, base: str, tokens: dict[str, str],
                 games: int) -> list[tuple]:
    """``games`` games of chess (10 minutes a side), p(2k) against p(2k+1): their ids."""
    async def one(k: int) -> tuple[str, str]:
        white, black = f"p{2 * k}", f"p{2 * k + 1}"
        answer = await clients[white].post(f"{base}/api/challenge/{black}", headers={
            "Authorization": f"Bearer {tokens[white]}"}, data={
            "clock.limit": "600", "clock.increment": "0", "color": "white"})
        cid = answer.json()["challenge"]["id"]
        answer = await clients[black].post(f"{base}/api/challenge/{cid}/accept", headers={
            "Authorization": f"Bearer {tokens[black]}"})
        assert answer.status_code == 200, answer.text
        return white, black

    pairs = []
    for first in range(0, games, 50):
        pairs += await asyncio.gather(*(one(k) for k in range(first, min(games, first + 50))))
    lobby = (await clients["p0"].get(f"{base}/api/lobby", headers={
        "Authorization": f"Bearer {tokens['p0']}"})).json()
    by_seats = {tuple(g["seats"]): g["id"] for g in lobby["games"]}
    return [(by_seats[pair], *pair) for pair in pairs]


def _clients(names: list[str]) -> dict:
    """Each player its own client from its own loopback address, as boards are separate
    machines (the server keeps a few waiting connections per address: slow-loris room)."""
    import httpx

    timeout = httpx.Timeout(30.0, connect=30.0, pool=None)
    return {name: httpx.AsyncClient(timeout=timeout, transport=httpx.AsyncHTTPTransport(
        local_address=f"127.{1 + n // 62500}.{n // 250 % 250}.{n % 250 + 1}"))
        for name in names for n in [int(name[1:])]}


def homes(bases: list[str]) -> list[list[str]]:
    """Each seat's servers, its own first (a cluster: White's on the first worker, Black's
    on the second)."""
    return [bases[me % len(bases):] + bases[:me % len(bases)] for me in (0, 1)]


async def play_seats(bases: list[str], tokens: dict[str, str], played: list, plies: int,
                     think: float, seed: int, figures: Figures, first: int = 0,
                     sessions: dict[str, list[str]] | None = None) -> None:
    """The seats of ``played`` (games ``first``… of the run) played to their ends, the
    boards' event streams held open meanwhile; with ``sessions`` each game's Black plays
    from a browser's play page (:class:`PageSeat`)."""
    names = [name for _, white, black in played for name in (white, black)]
    clients = _clients(names)
    async with contextlib.AsyncExitStack() as stack:
        for client in clients.values():
            await stack.enter_async_context(client)
        stop = asyncio.Event()
        home = homes(bases)
        streams, seats = [], []
        for k, (gid, white, black) in enumerate(played):
            for me, name in enumerate((white, black)):
                rng = random.Random(seed * 100_000 + 2 * (first + k) + me)
                if sessions is not None and me == 1:  # (a browser: no event stream)
                    seats.append(PageSeat(clients[name], home[me], sessions[name], gid, me,
                                          plies, think, rng, figures))
                    continue
                streams.append(asyncio.create_task(event_stream(
                    clients[name], home[me], tokens[name], stop)))
                seats.append(Seat(clients[name], home[me], tokens[name], gid, me, plies,
                                  think, rng, figures))
        tasks = [asyncio.create_task(s.run()) for s in seats]
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), 300 + plies * think * 10)
        except TimeoutError:
            waiting = [s for s in seats if (s.gid, s.me) not in figures.told]
            print(f"{len(waiting)} seats did not finish, e.g. {waiting[0].__dict__}",
                  file=sys.stderr)
        stop.set()
        for t in streams:
            t.cancel()
        await asyncio.gather(*streams, return_exceptions=True)


def clients_main(plan: Path, part: int, parts: int) -> None:
    """A client process (``--clients-of PLAN --part I --parts K``): the games I, I+K, …
    of the plan played, their figures written beside it."""
    p = json.loads(plan.read_text())
    mine = [(k, g) for k, g in enumerate(p["played"]) if k % parts == part]
    figures = Figures()

    async def go() -> None:
        # (one slice's games at a time, each from its own index in the run, for its seeds)
        await asyncio.gather(*(play_seats(p["bases"], p["tokens"], [g], p["plies"],
                                          p["think"], p["seed"], figures, k,
                                          p["sessions"])
                               for k, g in mine))
    asyncio.run(go())
    out = {"requests": figures.requests, "seen": figures.seen, "boards": figures.boards,
           "opened": figures.opened,
           "acked": [[g, n, t] for (g, n), t in figures.acked.items()],
           "told": [[g, me, m] for (g, me), m in figures.told.items()],
           "refused": figures.refused, "failed": figures.failed,
           "reconnects": figures.reconnects}
    plan.with_suffix(f".{part}.json").write_text(json.dumps(out))


def _merge(figures: Figures, part: dict) -> None:
    figures.requests += part["requests"]
    figures.seen += part["seen"]
    figures.boards += part["boards"]
    figures.opened += part["opened"]
    figures.acked.update({(g, n): t for g, n, t in part["acked"]})
    figures.told.update({(g, me): m for g, me, m in part["told"]})
    figures.refused += part["refused"]
    figures.failed += part["failed"]
    figures.reconnects += part["reconnects"]


async def play(servers: list[ServerProcess], games: int, plies: int, think: float,
               seed: int, kill_at: float | None, parts: int = 1, browsers: bool = False
               ) -> tuple[Figures, float, float, float | None]:
    """The games set up here and played here (``parts`` 1) or by ``parts`` client
    processes of their own (the boards are other machines: one process's clients
    measured that process's queue as much as the server); ``browsers``: each game's
    Black plays from a browser's play page."""
    server = servers[0]
    tokens = json.loads((server.folder / "tokens.json").read_text())
    sessions = (json.loads((server.folder / "sessions.json").read_text()) if browsers
                else None)
    bases = [f"http://127.0.0.1:{s.port}" for s in servers]
    figures = Figures()
    names = [f"p{n}" for n in range(2 * games)]
    clients = _clients(names)
    async with contextlib.AsyncExitStack() as stack:
        for client in clients.values():
            await stack.enter_async_context(client)
        played = await set_up(clients, bases[0], tokens, games)
    procs: list[subprocess.Popen] = []
    plan = server.folder / "plan.json"
    if parts > 1:
        plan.write_text(json.dumps({"played": played, "tokens": tokens, "bases": bases,
                                    "plies": plies, "think": think, "seed": seed,
                                    "sessions": sessions}))
    cpu0, began = sum(s.cpu_now() for s in servers), time.perf_counter()
    if parts > 1:
        procs = [subprocess.Popen([sys.executable, "-m", "benchmarks.server_load",
                                   "--clients-of", str(plan), "--part", str(i),
                                   "--parts", str(parts)], cwd=ROOT)
                 for i in range(parts)]
        playing = asyncio.get_running_loop().run_in_executor(
            None, lambda: [p.wait() for p in procs])
    else:
        playing = asyncio.ensure_future(play_seats(bases, tokens, played, plies, think,
                                                   seed, figures, 0, sessions))
    recovered = None
    if kill_at is not None:
        await asyncio.sleep(kill_at)
        server.kill()
        if len(servers) == 1:  # (a cluster: the other worker carries every game on)
            killed = time.perf_counter()
            server.start()
            while not server.ready():
                await asyncio.sleep(0.05)
            recovered = time.perf_counter() - killed
    await playing
    took = time.perf_counter() - began
    cpu = sum(s.cpu_now() for s in servers) - cpu0
    for i in range(len(procs)):
        _merge(figures, json.loads(plan.with_suffix(f".{i}.json").read_text()))
    return figures, took, cpu, recovered


def check(server: ServerProcess, figures: Figures, games: int) -> tuple[int, int]:
    """(moves answered ok but not in the store at their ply, seats told other moves than
    the store's)."""
    from controller.server.store import SQLITE_DEFAULT, open_store

    store = open_store(server.database or str(server.folder / SQLITE_DEFAULT))
    try:
        stored: dict[str, list[str]] = {}
        for (gid, _), _moves in figures.told.items():
            stored.setdefault(gid, store.moves(gid))
        for gid, _ply in figures.acked:
            stored.setdefault(gid, store.moves(gid))
    finally:
        store.close()
    lost = sum(1 for (gid, ply), text in figures.acked.items()
               if len(stored[gid]) < ply or stored[gid][ply - 1] != text)
    forked = sum(1 for (gid, _), moves in figures.told.items() if moves != stored[gid])
    return lost, forked


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(games: int, plies: int, think: float, seed: int, database: str | None,
        kill_at: float | None, broker: int | None = None, parts: int = 1,
        browsers: bool = False) -> dict:
    """One run on one server, or (``broker``: the port of the workers' Mosquitto) on two
    cluster workers."""
    folder = Path(tempfile.mkdtemp(prefix="fairyboard-load-"))
    if broker is None:
        servers = [ServerProcess(folder, _free_port(), 2 * games, database)]
    else:
        make_players(folder, 2 * games, database)  # (once, before either worker starts)
        servers = []
        for n in range(2):
            (folder / f"w{n}").mkdir()
            for made in ("tokens.json", "sessions.json"):
                (folder / f"w{n}" / made).write_text((folder / made).read_text())
            servers.append(ServerProcess(folder / f"w{n}", _free_port(), 2 * games, database,
                                         f"127.0.0.1:{broker}/w{n}"))
    for server in servers:
        server.start()
    try:
        for server in servers:
            server.wait_ready()
        load = os.getloadavg()[0]
        figures, took, cpu, recovered = asyncio.run(
            play(servers, games, plies, think, seed, kill_at, parts, browsers))
    finally:
        for server in servers:
            server.stop()
    server = servers[-1]
    server.peak_kib = max(s.peak_kib for s in servers)
    lost, forked = check(server, figures, games)
    return {"games": games, "seats": 2 * games, "moves": len(figures.requests),
            "took": took, "p50": pct(figures.requests, 0.5), "p99": pct(figures.requests, 0.99),
            "seen50": pct(figures.seen, 0.5), "seen99": pct(figures.seen, 0.99),
            "board50": pct(figures.boards, 0.5), "board99": pct(figures.boards, 0.99),
            "opened99": pct(figures.opened, 0.99),
            "cpu": 100 * cpu / took, "cpu_move": 1000 * cpu / max(1, len(figures.requests)),
            "rss": server.peak_kib / 1024, "lost": lost,
            "forked": forked, "unfinished": 2 * games - len(figures.told),
            "refused": figures.refused, "failed": figures.failed,
            "reconnects": figures.reconnects, "recovered": recovered, "load": load}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[50, 500])
    parser.add_argument("--plies", type=int, default=30)
    parser.add_argument("--think", type=float, default=2.0,
                        help="mean seconds before each move (0.5–1.5 × this)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", help="postgresql://… (default: SQLite)")
    parser.add_argument("--postgres", action="store_true",
                        help="start the distribution's PostgreSQL on loopback for the run")
    parser.add_argument("--kill-server-at", type=float,
                        help="kill the server this many seconds into each run, restart it")
    parser.add_argument("--cluster", action="store_true",
                        help="two workers on one PostgreSQL and a Mosquitto (with --postgres)")
    parser.add_argument("--client-processes", type=int, default=1, metavar="K",
                        help="play the seats from K processes (boards are other machines)")
    parser.add_argument("--browsers", action="store_true",
                        help="each game's Black plays from a browser's play page")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--clients-of", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--part", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--parts", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--worker-of", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--players", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.clients_of:
        clients_main(args.clients_of, args.part, args.parts)
        return 0
    if args.serve:
        serve_main(args.serve, args.port, args.players,
                   os.environ.get("FAIRYBOARD_SERVER_DATABASE"), args.worker_of)
        return 0
    if args.cluster and not (args.postgres or args.database):
        raise SystemExit("--cluster needs PostgreSQL: --postgres or --database")
    rows = []
    cluster = broker = None
    if args.postgres:
        from tests.support.postgres import Postgres

        cluster = Postgres().start()
    if args.cluster:
        from tests.support.broker import Broker

        broker = Broker(Path(tempfile.mkdtemp(prefix="fairyboard-load-broker-"))).start()
    try:
        for n, games in enumerate(args.games):
            database = args.database or (cluster.fresh_database(f"load{n}") if cluster
                                         else None)
            r = run(games, args.plies, args.think, args.seed, database, args.kill_server_at,
                    broker.port if broker else None, args.client_processes, args.browsers)
            print(r, flush=True)
            rows.append(r)
    finally:
        if broker is not None:
            broker.stop()
        if cluster is not None:
            cluster.stop()
    args.database = args.database or ("postgresql://…" if cluster else None)
    kind = "PostgreSQL" if args.database else "SQLite"
    killed = ("" if args.kill_server_at is None else
              f", the first worker killed (SIGKILL) {args.kill_server_at:g} s into each run, "
              "not started again" if args.cluster else
              f", the server killed (SIGKILL) {args.kill_server_at:g} s into each run and "
              "started again")
    if args.client_processes > 1:
        kind += f", the seats played from {args.client_processes} client processes"
    if args.browsers:
        kind += (", each game's Black a browser's play page (its session cookie, the "
                 "drawn board asked after each state, no event stream)")
    if args.cluster:
        kind += ", two cluster workers on one Mosquitto (White's seats on one, Black's on "
        kind += "the other)"
    head = ("| seats | games | moves | p50 ms | p99 ms | seen p50 ms | seen p99 ms "
            "| took s | server CPU % | server CPU ms a move | server RSS MiB | lost "
            "| forked or doubled | unfinished |"
            + (" board p50 ms | board p99 ms | pages opened p99 ms |" if args.browsers
               else "")
            + (" recovered in s | requests cut |" if killed else ""))
    table = [head, "|" + "---:|" * (head.count("|") - 1)]
    for r in rows:
        line = (f"| {r['seats']} | {r['games']} | {r['moves']} | {r['p50']:.1f} | "
                f"{r['p99']:.1f} | {r['seen50']:.1f} | {r['seen99']:.1f} | {r['took']:.0f} | "
                f"{r['cpu']:.0f} | {r['cpu_move']:.1f} | {r['rss']:.0f} | {r['lost']} | "
                f"{r['forked']} | {r['unfinished']} |")
        if args.browsers:
            line += f" {r['board50']:.1f} | {r['board99']:.1f} | {r['opened99']:.0f} |"
        if killed:
            line += (f" {r['recovered']:.1f} |" if r["recovered"] is not None else " – |")
            line += f" {r['failed']} |"
        table.append(line)
    cmd = " ".join(["python -m benchmarks.server_load --games", *map(str, args.games),
                    f"--plies {args.plies} --think {args.think:g}"]
                   + ([f"--kill-server-at {args.kill_server_at:g}"] if killed else [])
                   + (["--cluster"] if args.cluster else [])
                   + (["--browsers"] if args.browsers else [])
                   + ([f"--client-processes {args.client_processes}"]
                      if args.client_processes > 1 else [])
                   + (["--postgres"] if cluster else
                      ["--database postgresql://…"] if args.database else []))
    text = "\n".join([
        f"`{cmd}` ({time.strftime('%Y-%m-%d')}, {kind}{killed}; {os.cpu_count()} cores, "
        f"load average {rows[0]['load']:.1f} at the start):", "", *table])
    print(text)
    if args.write_docs:
        name = ("server_load" + (":browsers" if args.browsers else "")
                + (":cluster" if args.cluster else "")
                + (":kill" if killed else "") + (":pg" if args.database else ""))
        write_section(DOC, name, text)
    return 1 if any(r["lost"] or r["forked"] or r["unfinished"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
