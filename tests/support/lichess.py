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


async def _form(request: Request) -> dict[str, str]:
    """A urlencoded body (as the Board API takes its parameters)."""
    from urllib.parse import parse_qsl

    return dict(parse_qsl((await request.body()).decode("utf-8", "replace")))


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
    #: each ply's mover's time left after it (ms, the increment added): the clocks told
    clocks: list[int] = field(default_factory=list)
    status: str = "started"
    winner: str | None = None
    draw: str | None = None
    takeback: str | None = None
    turn_started: float = field(default_factory=time.monotonic)
    version: int = 0
    variant: str = "standard"
    initial_fen: str = "startpos"
    #: the opponent left (``opponentGone`` lines), and since when (claim victory)
    gone: bool = False
    gone_version: int = 0
    #: the chat's lines (``chatLine`` objects), each sent once on the streams open then
    chat: list[dict[str, Any]] = field(default_factory=list)
    ratings: tuple[int, int] = (1500, 1500)

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
                "white": {"id": self.white.lower(), "name": self.white,
                          "rating": self.ratings[0]},
                "black": {"id": self.black.lower(), "name": self.black,
                          "rating": self.ratings[1]},
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
        #: the next this many times a game stream has news (a state line, or a new
        #: stream's gameFull) it drops instead of telling it: a fault per move, not per
        #: second, whatever the board's speed (consumed ones counted in ``news_withheld``)
        self.withhold_news = 0
        self.news_withheld = 0
        #: open game streams lag: they tell nothing new (keep-alives only) while set; a
        #: stream opened meanwhile starts with the game as it is
        self.hold_states = False
        self.game_streams_open = 0  # game streams a board holds open now
        self.down = False  # the server answers nothing (connection refused by a 503)
        self.challenges: dict[str, dict[str, Any]] = {}  # open and incoming, by id
        #: moves taken whose answer is then lost (a 503 after the move is made)
        self.lose_answers = 0
        self.answers_lost = 0
        #: each account's rating (1500 when not named), as gameFull gives it
        self.ratings: dict[str, int] = {}
        self.seeks: list[dict[str, str]] = []  # the seeks' parameters, as sent
        #: an opponent takes every real-time seek at once; when False a seek stays open,
        #: sending keep-alives, until :meth:`take_seek` or the board closes its stream
        self.pair_seeks = True
        self.seek_keepalive = True  # a kept seek's stream sends keep-alives (False: nothing)
        #: plain requests being answered now, the most at once, and how long each takes
        self.in_flight = self.most_in_flight = 0
        self.answer_delay_s = 0.0
        self.open_seeks: dict[str, dict[str, Any]] = {}  # real-time seeks kept open, by id
        self.seeks_withdrawn = 0  # seeks whose stream the board closed (lichess cancels them)
        #: the Chess960 starting array a Chess960 game gets (Scharnagl's number)
        self.chess960_array = 518
        self._ids = itertools.count(1)
        self.app = Starlette(routes=[
            Route("/api/account", self.account),
            Route("/api/stream/event", self.stream_event),
            Route("/api/board/seek", self.seek, methods=["POST"]),
            Route("/api/challenge/open", self.open_challenge, methods=["POST"]),
            Route("/api/challenge/{cid}/accept", self.accept, methods=["POST"]),
            Route("/api/challenge/{cid}/decline", self.decline, methods=["POST"]),
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
        # (IPPROTO_TCP named: asyncio then sends small writes at once, as on the
        # server's own socket — not each response's body 40 ms after its headers)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self._counted, log_level="warning", lifespan="off",
                                interface="asgi3")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    async def _counted(self, scope, receive, send) -> None:
        """The app, counting the plain requests answered at once (streams aside): lichess
        asks a client for one request at a time."""
        path = scope.get("path", "")
        plain = (scope["type"] == "http" and "/stream/" not in path
                 and path != "/api/board/seek")
        if plain:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if plain and self.answer_delay_s:
                await asyncio.sleep(self.answer_delay_s)
            await self.app(scope, receive, send)
        finally:
            if plain:
                self.in_flight -= 1

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
                 fen: str | None = None, variant: str = "standard") -> str:
        gid = f"g{next(self._ids):07d}"
        game = LiveGame(gid, white, black, int(minutes * 60_000), increment * 1000,
                        ratings=(self.ratings.get(white, 1500),
                                 self.ratings.get(black, 1500)))
        if variant == "chess960":  # the server draws the array: its FEN is the game's
            game.board = chess.Board.from_chess960_pos(self.chess960_array)
            game.initial_fen, game.variant = game.board.fen(), "chess960"
        elif fen:
            game.board = chess.Board(fen)
            game.initial_fen = fen
            game.variant = "fromPosition"
        game.times = [game.initial_ms, game.initial_ms]
        with self.lock:
            self.games[gid] = game
            for user in (white, black):
                self.events.setdefault(user, []).append(self._start_event(game, user))
        return gid

    @staticmethod
    def _start_event(game: LiveGame, user: str) -> dict[str, Any]:
        return {"type": "gameStart", "game": {
            "gameId": game.id, "fullId": game.id + "abcd", "color":
            "white" if user == game.white else "black", "fen": game.board.fen(),
            "isMyTurn": (user == game.white) == game.board.turn, "variant":
            {"key": game.variant}, "speed": "rapid", "rated": False}}

    def play(self, gid: str, uci: str) -> None:
        """The opponent's move."""
        status, answer = self._move(gid, self.opponent, uci)
        assert status == 200, answer

    def say(self, gid: str, text: str, user: str | None = None) -> None:
        """A line in the players' chat (by the opponent unless ``user`` is named)."""
        with self.lock:
            self.games[gid].chat.append({"type": "chatLine", "room": "player",
                                         "username": user or self.opponent, "text": text})

    def leave(self, gid: str, gone: bool = True) -> None:
        """The opponent leaves the game (or comes back): ``opponentGone`` on its stream."""
        with self.lock:
            game = self.games[gid]
            game.gone = gone
            game.gone_version += 1

    def answer(self, gid: str, action: str, yes: bool = True) -> None:
        """The opponent offers or answers a draw or a takeback."""
        with self.lock:
            self._act(self.games[gid], self.opponent, action, "yes" if yes else "no")

    def challenge_owner(self, user: str, minutes: float = 10, increment: int = 5) -> str:
        """The opponent challenges ``user``: a ``challenge`` event on his stream."""
        cid = f"c{next(self._ids):07d}"
        with self.lock:
            self.challenges[cid] = {"from": self.opponent, "to": user, "minutes": minutes,
                                    "increment": increment}
            self.events.setdefault(user, []).append({"type": "challenge", "challenge": {
                "id": cid, "status": "created", "rated": False,
                "challenger": {"id": self.opponent, "name": self.opponent},
                "destUser": {"id": user, "name": user}, "variant": {"key": "standard"},
                "timeControl": {"type": "clock", "limit": int(minutes * 60),
                                "increment": increment, "show": f"{minutes:g}+{increment}"},
                "color": "random"}})
        return cid

    def take_open(self, cid: str) -> str:
        """The opponent takes the open challenge ``cid``: the game starts."""
        c = self.challenges.pop(cid)
        return self.new_game(c["from"], self.opponent, c["minutes"], c["increment"],
                             variant=c.get("variant", "standard"))

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

        with self.lock:  # as lichess: the ongoing games first, then what happens
            sent = len(self.events[user])
            ongoing = [g for g in self.games.values()
                       if g.status == "started" and user in (g.white, g.black)]
        first = [self._start_event(g, user) for g in ongoing]

        async def lines():
            nonlocal sent
            for event in first:
                yield json.dumps(event) + "\n"
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
        form = await _form(request)
        if "days" in form:  # correspondence: the seek is kept, nothing to stream
            self.seeks.append(dict(form))
            return JSONResponse({"id": f"s{next(self._ids):07d}"})
        minutes, increment = float(form.get("time", 10)), int(form.get("increment", 0))
        if minutes * 60 + increment * 40 < 480:  # the Board API: rapid and slower only
            return JSONResponse({"error": "Invalid time control"}, status_code=400)
        color = form.get("color", "random")
        white, black = ((user, self.opponent) if color in ("white", "random")
                        else (self.opponent, user))
        variant = form.get("variant", "standard")
        if variant not in ("standard", "chess960"):
            return JSONResponse({"error": f"Unsupported variant: {variant}"}, status_code=400)
        self.seeks.append(dict(form))
        sid = f"s{next(self._ids):07d}"
        with self.lock:
            self.open_seeks[sid] = {"white": white, "black": black, "minutes": minutes,
                                    "increment": increment, "variant": variant}

        async def lines():
            # lichess: the seek lives while its stream is open; closed by the board, it is
            # cancelled; taken, the game starts (on the event stream) and the stream closes
            try:
                if self.seek_keepalive:
                    yield "\n"
                if self.pair_seeks:
                    await asyncio.sleep(0.1)
                    self.take_seek(sid)
                while sid in self.open_seeks:
                    await asyncio.sleep(KEEPALIVE_S)
                    if self.seek_keepalive:
                        yield "\n"
            finally:
                with self.lock:
                    if self.open_seeks.pop(sid, None) is not None:
                        self.seeks_withdrawn += 1
        return StreamingResponse(lines(), media_type="application/x-ndjson")

    def take_seek(self, sid: str | None = None) -> str | None:
        """The opponent takes the open seek ``sid`` (the oldest when None): the game starts
        and the seek's stream closes; its game id (None: no such seek open)."""
        with self.lock:
            sid = sid if sid is not None else next(iter(self.open_seeks), None)
            seek = self.open_seeks.pop(sid, None) if sid is not None else None
        if seek is None:
            return None
        return self.new_game(seek["white"], seek["black"], seek["minutes"],
                             seek["increment"], variant=seek["variant"])

    async def challenge(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        form = await _form(request)
        target = request.path_params["user"]
        if target != self.opponent:
            return JSONResponse({"error": "No such user"}, status_code=404)
        limit, inc = int(form.get("clock.limit", 600)), int(form.get("clock.increment", 0))
        color = form.get("color", "random")
        white, black = (user, target) if color != "black" else (target, user)
        gid = self.new_game(white, black, limit / 60, inc,
                            variant=form.get("variant", "standard"))
        return JSONResponse({"challenge": {"id": gid, "status": "accepted"}})

    async def open_challenge(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        form = await _form(request)
        cid = f"o{next(self._ids):07d}"
        self.challenges[cid] = {"from": user, "minutes": int(form.get("clock.limit", 600)) / 60,
                                "increment": int(form.get("clock.increment", 0)),
                                "variant": form.get("variant", "standard")}
        return JSONResponse({"id": cid, "url": f"{self.url}/{cid}", "status": "created"})

    async def accept(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        c = self.challenges.get(request.path_params["cid"])
        if c is None or c.get("to") != user:
            return JSONResponse({"error": "No such challenge"}, status_code=404)
        self.challenges.pop(request.path_params["cid"])
        self.new_game(user, c["from"], c["minutes"], c["increment"])
        return JSONResponse({"ok": True})

    async def decline(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        cid = request.path_params["cid"]
        if self.challenges.pop(cid, None) is None:
            return JSONResponse({"error": "No such challenge"}, status_code=404)
        return JSONResponse({"ok": True})

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

        async def lines():  # (counted while open: a board lets go of the streams it left)
            self.game_streams_open += 1
            try:
                async for line in told():
                    yield line
            finally:
                self.game_streams_open -= 1

        async def told():
            game = self.games[gid]
            with self.lock:
                version, gone = game.version, game.gone_version
                first = game.full()
                said = len(game.chat)
                withheld = self._withhold()
            if withheld:
                return
            yield json.dumps(first) + "\n"
            count = 1
            while True:
                if (cut is not None and count >= cut) or self.down:
                    self.streams_cut += 1
                    return  # the stream drops (the whole server, when it is down)
                await asyncio.sleep(0.05)
                if self.down:  # (it fell while this stream waited)
                    self.streams_cut += 1
                    return
                if self.hold_states:
                    yield "\n"
                    continue
                with self.lock:
                    changed = game.version != version
                    if changed and self._withhold():
                        return  # the news never told: the board reads it on reconnecting
                    version = game.version
                    state = game.state() if changed else None
                    left = game.gone if game.gone_version != gone else None
                    gone = game.gone_version
                    lines_said, said = game.chat[said:], len(game.chat)
                for chat in lines_said:
                    yield json.dumps(chat) + "\n"
                if left is not None:
                    yield json.dumps({"type": "opponentGone", "gone": left,
                                      **({"claimWinInSeconds": 0} if left else {})}) + "\n"
                if state is not None:
                    yield json.dumps(state) + "\n"
                    count += 1
                    if game.status != "started":
                        return
                else:
                    yield "\n"
        return StreamingResponse(lines(), media_type="application/x-ndjson")

    def _withhold(self) -> bool:
        """Whether a game stream drops now instead of telling its news (under the lock)."""
        if self.withhold_news <= 0:
            return False
        self.withhold_news -= 1
        self.news_withheld += 1
        self.streams_cut += 1
        return True

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
            game.clocks.append(game.times[mover])
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
        if status == 200 and self.lose_answers > 0:  # taken, but the answer never arrives
            self.lose_answers -= 1
            self.answers_lost += 1
            return JSONResponse({"error": "injected"}, status_code=503)
        return JSONResponse(answer, status_code=status)

    async def action(self, request: Request):
        user = self._gate(request)
        if not isinstance(user, str):
            return user
        gid, action = request.path_params["gid"], request.path_params["action"]
        answer = request.path_params.get("answer", "yes")
        if action == "chat":
            form = await _form(request)
            text, room = form.get("text", ""), form.get("room", "")
            if room not in ("player", "spectator") or not 0 < len(text) <= 140:
                return JSONResponse({"error": "Invalid chat line"}, status_code=400)
            if gid not in self.games:
                return JSONResponse({"error": "No such game"}, status_code=404)
            self.say(gid, text, user)
            return JSONResponse({"ok": True})
        with self.lock:
            game = self.games.get(gid)
            if game is None:
                return JSONResponse({"error": "No such game"}, status_code=404)
            return self._act(game, user, action, answer)

    def _act(self, game: LiveGame, user: str, action: str, answer: str) -> JSONResponse:
        """One player's resign, abort, draw, takeback or claim-victory (under the lock)."""
        colour = "white" if user == game.white else "black"
        other = "black" if colour == "white" else "white"
        if action == "resign":
            game.status, game.winner = "resign", other
        elif action == "abort":
            if len(game.moves) >= 2:
                return JSONResponse({"error": "The game can no longer be aborted"},
                                    status_code=400)
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
                # the proposer to move takes back his own move and the reply; else his own
                asked_to_move = (len(game.moves) % 2 == 0) == (game.takeback == "white")
                undo = 2 if asked_to_move else 1
                for _ in range(min(undo, len(game.moves))):
                    game.board.pop()
                    game.moves.pop()
                    game.clocks.pop()
                game.takeback = None
            elif answer == "yes":
                game.takeback = colour
            else:
                game.takeback = None
        elif action == "claim-victory":
            if not game.gone:
                return JSONResponse({"error": "The opponent is still here"},
                                    status_code=400)
            game.status, game.winner = "timeout", colour
        else:
            return JSONResponse({"error": "No such action"}, status_code=404)
        game.version += 1
        return JSONResponse({"ok": True})
