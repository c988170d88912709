"""The fairyboard server on a free loopback port in a thread, and its players (a device
token each, through the real sign-up and token issue)."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from pathlib import Path

import uvicorn
from argon2 import PasswordHasher

from controller.online.api import BoardApi
from controller.server.app import build

#: quick argon2 for tests (the product uses the library's recommended parameters)
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


class ClubServer:
    def __init__(self, folder: Path, database: str | None = None,
                 keepalive_s: float = 0.3) -> None:
        self.folder = folder
        self.database = database
        self.keepalive_s = keepalive_s
        self.port = 0

    def start(self, dice_seed: int = 1) -> ClubServer:
        self.server = build(self.folder, self.database, self.keepalive_s, FAST_HASHER,
                            dice=random.Random(dice_seed), referee_seed=f"test-{dice_seed}")
        # (IPPROTO_TCP named: asyncio then sends small writes at once, as on the
        # server's own socket — not each response's body 40 ms after its headers)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.server.app, log_level="warning", lifespan="on")
        self._uvicorn = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._uvicorn.run,
                                        kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._uvicorn.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def hub(self):
        return self.server.hub

    def player(self, name: str, password: str = "correct horse") -> tuple[str, str]:
        """A new account and a board token for it: (account id, token)."""
        accounts = self.server.accounts
        account = accounts.sign_up(name, password)
        _, token = accounts.issue_token(account, f"{name}'s board")
        return account, token

    def client(self, token: str) -> BoardApi:
        return BoardApi(self.url, token, silence_s=5.0)

    def stop(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(10)
        self.server.store.close()


class Seat(threading.Thread):
    """One player through the Board API: follows the game stream and, on its turn, plays a
    move its own rules allow from what the server told it (a refereed game: from its view,
    trying again after each "illegal move").  ``lines`` is everything the stream sent."""

    def __init__(self, api: BoardApi, game_id: str, seed: int, max_plies: int = 600) -> None:
        super().__init__(daemon=True)
        self.api, self.game_id = api, game_id
        self.rnd = random.Random(seed)
        self.max_plies = max_plies
        self.lines: list[dict] = []
        self.refusals = 0
        self.problem: str | None = None
        self.final: dict | None = None

    def run(self) -> None:
        from controller.online.api import OnlineError
        from controller.rules import get_game

        try:
            stream = self.api.stream_game(self.game_id)
            full = next(stream)
            self.lines.append(full)
            seat = full["seat"]
            game = get_game(full["variant"]["game"], **full["options"])
            hidden = game.hidden_information
            pos = None if hidden else game.parse_position(full["initialFen"])
            applied: list[str] = []
            played = -1  # the ply count when this seat last moved
            state = full["state"]
            while True:
                if state["status"] != "started":
                    self.final = state
                    return
                if not hidden:
                    moves = state["moves"].split()
                    if moves[:len(applied)] != applied:  # a takeback: from the start again
                        pos, applied = game.parse_position(full["initialFen"]), []
                    for text in moves[len(applied):]:
                        pos.push(game.parse_move(pos, text))
                        applied.append(text)
                if (state["turn"] == seat and state["ply"] < self.max_plies
                        and state["ply"] > played):  # (a line sent before my move landed)
                    self._play(game, pos, state, hidden)
                    played = state["ply"]
                elif state["ply"] >= self.max_plies and seat == 0:
                    self.api.resign(self.game_id)
                state = next(stream)
                self.lines.append(state)
        except (OnlineError, StopIteration, AssertionError, ValueError) as exc:
            self.problem = f"{type(exc).__name__}: {exc}"

    def _play(self, game, pos, state, hidden: bool) -> None:
        from controller.online.api import OnlineError

        if hidden:
            view = game.parse_view(state["view"])
            candidates = game.board_moves(view)
            texts = [game.long_move_text(view, m) for m in candidates]
        else:  # captures first (random among them), so a random game ends sooner
            legal = game.legal_moves(pos)
            self.rnd.shuffle(legal)
            legal.sort(key=lambda m: not m.captures)
            texts = []
            for m in legal:
                text = game.long_move_text(pos, m)
                texts.append(text if " " not in text else game.move_text(pos, m))
        if hidden:
            self.rnd.shuffle(texts)
        for text in texts:
            try:
                self.api.move(self.game_id, text)
                return
            except OnlineError as exc:
                if "illegal move" not in str(exc):
                    raise
                self.refusals += 1
        raise AssertionError(f"no move of {len(texts)} was taken")


def wait_event(events, kind: str, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    for event in events:
        if event.get("type") == kind:
            return event
        if time.monotonic() > deadline:
            break
    raise AssertionError(f"no {kind} event")


def challenge_game(club, a, b, variant="standard", options=None, minutes=10, inc=0):
    """A challenges B (A plays first), B accepts: the game id."""
    (_, ta), (nb, tb) = a, b
    api_a, api_b = club.client(ta), club.client(tb)
    events_b = api_b.stream_events()
    data = {"variant": variant}
    c = api_a.request("POST", f"/api/challenge/{nb}", "challenge", data={
        **data, "clock.limit": str(minutes * 60), "clock.increment": str(inc),
        "color": "white", "options": json.dumps(options or {})})["challenge"]
    assert wait_event(events_b, "challenge")["challenge"]["id"] == c["id"]
    api_b.accept_challenge(c["id"])
    start = wait_event(events_b, "gameStart")["game"]
    events_b.close()
    return start["gameId"], api_a, api_b


def play(club, apis, game_id, seed=1, max_plies=600):
    seats = [Seat(api, game_id, seed + i, max_plies) for i, api in enumerate(apis)]
    for s in seats:
        s.start()
    deadline = time.monotonic() + 90  # (a 600-ply dice game on a loaded machine)
    for s in seats:
        s.join(max(0.0, deadline - time.monotonic()))
        assert not s.is_alive(), "a seat is still playing"
        assert s.problem is None, s.problem
    return seats


def seek_together(club, tokens, variant, options):
    apis = [club.client(t) for t in tokens]
    found: list[str] = []

    def seek(api):
        for line in api.stream("POST", "/api/board/seek", "seek", data={
                "time": "10", "increment": "0", "variant": variant,
                "options": json.dumps(options)}):
            if "gameId" in line:
                found.append(line["gameId"])
                return

    threads = [threading.Thread(target=seek, args=(api,), daemon=True) for api in apis]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(found) == len(apis) and len(set(found)) == 1
    g = club.hub.games[found[0]]
    order = [next(api for api, t in zip(apis, tokens, strict=True)
                  if club.server.accounts.token_account(t) == account) for account in g.seats]
    return found[0], order
