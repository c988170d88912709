"""A loopback stand-in for lichess's Board API, written from its published documentation
(paths, fields, stream semantics, the rate-limit rule), so the online client is tested
without the internet.  Moves are judged by python-chess (a test-only oracle), clocks run
on the server, and the test drives the opponent and injects faults: a 429, a revoked
token, a stream cut after N lines, a server-side abort.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import chess
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

KEEPALIVE_S = 0.3


@dataclass
class LiveGame:
    id: str
    white: str
    black: str
    initial_ms: int
    increment_ms: int
    board: chess.Board = field(default_factory=chess.Board)
    moves: list[str] = field(default_factory=list)
    times: list[int] = field(default_factory=lambda: [0, 0])
    status: str = "started"
    winner: str | None = None
    draw: str | None = None
    takeback: str | None = None
    turn_started: float = field(default_factory=time.monotonic)
    version: int = 0
    variant: str = "standard"
    initial_fen: str = "startpos"

    def state(self) -> dict[str, Any]:
        now = time.monotonic()
        times = list(self.times)
        if self.status == "started" and len(self.moves) >= 2:
            side = len(self.moves) % 2
            times[side] = max(0, times[side] - int((now - self.turn_started) * 1000))
        out = {"type": "gameState", "moves": " ".join(self.moves), "wtime": times[0],
               "btime": times[1], "winc": self.increment_ms, "binc": self.increment_ms,
               "status": self.status}
        if self.winner:
            out["winner"] = self.winner
        if self.draw:
            out[f"{self.draw[0]}draw"] = True
        if self.takeback:
            out[f"{self.takeback[0]}takeback"] = True
        return out

    def full(self) -> dict[str, Any]:
        return {"type": "gameFull", "id": self.id, "rated": False,
                "variant": {"key": self.variant, "name": self.variant.title(),
                            "short": "Std"},
                "clock": {"initial": self.initial_ms, "increment": self.increment_ms},
                "speed": "rapid", "perf": {"name": "Rapid"}, "createdAt": 0,
                "white": {"id": self.white, "name": self.white, "rating": 1500},
                "black": {"id": self.black, "name": self.black, "rating": 1500},
                "initialFen": self.initial_fen, "state": self.state()}


class FakeLichess:
    """The server: ``tokens`` maps a token to its account; ``opponent`` is the account the
    test plays for (:meth:`play`)."""

    def __init__(self, tokens: dict[str, str], opponent: str = "sparring") -> None:
        self.tokens = dict(tokens)
        self.opponent = opponent
        self.games: dict[str, LiveGame] = {}
        self.events: dict[str, list[dict[str, Any]]] = {u: [] for u in tokens.values()}
        self.events.setdefault(opponent, [])
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []
        self.fail_next: list[int] = []  # statuses the next requests get, in order
        #: lines, then the stream drops (or a function drawing that for each stream)
        self.cut_game_stream_after: Any = None
        self.streams_cut = 0
        self.down = False  # the server answers nothing (connection refused by a 503)
        self._ids = itertools.count(1)
        self.app = Starlette(routes=[
            Route("/api/account", self.account),
            Route("/api/stream/event", self.stream_event),
            Route("/api/board/seek", self.seek, methods=["POST"]),
            Route("/api/challenge/{user}", self.challenge, methods=["POST"]),
            Route("/api/board/game/stream/{gid}", self.stream_game),
            Route("/api/board/game/{gid}/move/{uci}", self.move, methods=["POST"]),
            Route("/api/board/game/{gid}/{action}", self.action, methods=["POST"]),
            Route("/api/board/game/{gid}/{action}/{answer}", self.action, methods=["POST"]),
        ])
        self.port = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    # -- running ------------------------------------------------------------------------
    def start(self) -> FakeLichess:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._server.force_exit = True
        if self._thread is not None:
            self._thread.join(10)

    # -- what the test does as the opponent ----------------------------------------------
    def new_game(self, white: str, black: str, minutes: float = 10, increment: int = 5,
                 fen: str | None = None) -> str:
        gid = f"g{next(self._ids):07d}"
        game = LiveGame(gid, white, black, int(minutes * 60_000), increment * 1000)
        if fen:
            game.board = chess.Board(fen)
            game.initial_fen = fen
            game.variant = "fromPosition"
        game.times = [game.initial_ms, game.initial_ms]
        with self.lock:
            self.games[gid] = game
            for user in (white, black):
                self.events.setdefault(user, []).append({"type": "gameStart", "game": {
                    "gameId": gid, "fullId": gid + "abcd", "color":
                    "white" if user == white else "black", "fen": game.board.fen(),
                    "isMyTurn": (user == white) == game.board.turn, "variant":
                    {"key": game.variant}, "speed": "rapid", "rated": False}})
        return gid

    def play(self, gid: str, uci: str) -> None:
        """The opponent's move."""
        status, answer = self._move(gid, self.opponent, uci)
        assert status == 200, answer

    def end(self, gid: str, status: str, winner: str | None = None) -> None:
        with self.lock:
            game = self.games[gid]
            game.status, game.winner = status, winner
            game.version += 1

    # -- plumbing -------------------------------------------------------------------------
    def _user(self, request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        return self.tokens.get(auth[7:]) if auth.startswith("Bearer ") else None

    def _gate(self, request: Request) -> JSONResponse | str:
        self.requests.append((request.method, request.url.path))
        if self.fail_next:
            status = self.fail_next.pop(0)
            return JSONResponse({"error": "injected"}, status_code=status)
        if self.down:
            return JSONResponse({"error": "down"}, status_code=503)
        user = self._user(request)
        if user is None:
            return JSONResponse({"error": "No such token"}, status_code=401)
        return user

    async def account(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        return JSONResponse({"id": user, "username": user})

    async def stream_event(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user

        async def lines():
            sent = 0
            while True:
                with self.lock:
                    new = self.events[user][sent:]
                sent += len(new)
                for event in new:
                    yield json.dumps(event) + "\n"
                if not new:
                    yield "\n"
                await asyncio.sleep(KEEPALIVE_S)
        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def seek(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        form = await request.form()
        minutes, increment = float(form.get("time", 10)), int(form.get("increment", 0))
        color = form.get("color", "random")
        white, black = ((user, self.opponent) if color in ("white", "random")
                        else (self.opponent, user))

        async def lines():
            yield "\n"
            await asyncio.sleep(0.1)
            self.new_game(white, black, minutes, increment)
        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def challenge(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        form = await request.form()
        target = request.path_params["user"]
        if target != self.opponent:
            return JSONResponse({"error": "No such user"}, status_code=404)
        limit, inc = int(form.get("clock.limit", 600)), int(form.get("clock.increment", 0))
        color = form.get("color", "random")
        white, black = (user, target) if color != "black" else (target, user)
        gid = self.new_game(white, black, limit / 60, inc)
        return JSONResponse({"challenge": {"id": gid, "status": "accepted"}})

    async def stream_game(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        gid = request.path_params["gid"]
        if gid not in self.games:
            return JSONResponse({"error": "No such game"}, status_code=404)
        cut = self.cut_game_stream_after
        if callable(cut):  # a soak draws a new cut for every stream
            cut = cut()

        async def lines():
            game = self.games[gid]
            with self.lock:
                version = game.version
                first = game.full()
            yield json.dumps(first) + "\n"
            count = 1
            while True:
                if (cut is not None and count >= cut) or self.down:
                    self.streams_cut += 1
                    return  # the stream drops (the whole server, when it is down)
                await asyncio.sleep(0.05)
                with self.lock:
                    changed = game.version != version
                    version = game.version
                    state = game.state() if changed else None
                if state is not None:
                    yield json.dumps(state) + "\n"
                    count += 1
                    if game.status != "started":
                        return
                else:
                    yield "\n"
        return StreamingResponse(lines(), media_type="application/x-ndjson")

    def _move(self, gid: str, user: str, uci: str) -> tuple[int, dict[str, Any]]:
        with self.lock:
            game = self.games.get(gid)
            if game is None:
                return 404, {"error": "No such game"}
            if game.status != "started":
                return 400, {"error": "Not your turn, or game already over"}
            side = game.white if game.board.turn == chess.WHITE else game.black
            if user != side:
                return 400, {"error": "Not your turn, or game already over"}
            try:
                move = chess.Move.from_uci(uci)
            except ValueError:
                return 400, {"error": f"Invalid UCI: {uci}"}
            if move not in game.board.legal_moves:
                return 400, {"error": f"Illegal move: {uci}"}
            now = time.monotonic()
            mover = 0 if game.board.turn == chess.WHITE else 1
            if len(game.moves) >= 2:
                game.times[mover] -= int((now - game.turn_started) * 1000)
                game.times[mover] += game.increment_ms
            game.turn_started = now
            game.board.push(move)
            game.moves.append(uci)
            game.draw = game.takeback = None
            outcome = game.board.outcome()
            if outcome is not None:
                game.status = "mate" if outcome.winner is not None else "draw"
                if outcome.termination == chess.Termination.STALEMATE:
                    game.status = "stalemate"
                game.winner = (None if outcome.winner is None
                               else "white" if outcome.winner else "black")
            game.version += 1
        return 200, {"ok": True}

    async def move(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        status, answer = self._move(request.path_params["gid"], user,
                                    request.path_params["uci"])
        return JSONResponse(answer, status_code=status)

    async def action(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        gid, action = request.path_params["gid"], request.path_params["action"]
        answer = request.path_params.get("answer", "yes")
        with self.lock:
            game = self.games.get(gid)
            if game is None:
                return JSONResponse({"error": "No such game"}, status_code=404)
            colour = "white" if user == game.white else "black"
            other = "black" if colour == "white" else "white"
            if action == "resign":
                game.status, game.winner = "resign", other
            elif action == "abort":
                game.status = "aborted"
            elif action == "draw":
                if answer == "yes" and game.draw == other:
                    game.status, game.draw = "draw", None
                elif answer == "yes":
                    game.draw = colour
                else:
                    game.draw = None
            elif action == "takeback":
                if answer == "yes" and game.takeback == other:
                    undo = 2 if (len(game.moves) % 2 == 0) == (colour == "white") else 1
                    for _ in range(min(undo, len(game.moves))):
                        game.board.pop()
                        game.moves.pop()
                    game.takeback = None
                elif answer == "yes":
                    game.takeback = colour
                else:
                    game.takeback = None
            elif action == "claim-victory":
                return JSONResponse({"error": "The opponent is still here"}, status_code=400)
            else:
                return JSONResponse({"error": "No such action"}, status_code=404)
            game.version += 1
        return JSONResponse({"ok": True})
