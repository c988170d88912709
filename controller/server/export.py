"""Games as PGN from the server's store (lichess's paths: ``GET /game/export/{id}`` and
``GET /api/games/user/{name}``), written by the board's own PGN writer
(:func:`controller.pgn.game_pgn`) so one reader handles the board's and the server's games.

A game with hidden information is exported once it has ended, never while it is played
(its moves, and the set-ups the referee drew, are public only then).
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from controller.journal import GameRecord as JournalRecord
from controller.pgn import PgnSeats, game_pgn
from controller.rules import GAMES, get_game
from controller.server.api import error
from controller.server.store import GameRecord, Store

SITE = "fairyboard server"
MAX_GAMES = 200  #: games of one player in one export, newest last


def clock_text(clock: tuple[int, int] | None) -> str | None:
    """The clock's own text (``controller/clock.py``): minutes, ``+`` increment seconds."""
    if clock is None:
        return None
    minutes = clock[0] / 60_000
    return f"{minutes:g}+{clock[1] // 1000}" if clock[1] else f"{minutes:g}"


def record_pgn(store: Store, record: GameRecord) -> str | None:
    """One game as PGN; None for a game with hidden information still being played."""
    cls = GAMES[record.game]
    ended = record.status != "started"
    if cls.hidden_information and not ended:
        return None
    game = get_game(record.game, **record.options)
    moves = store.moves(record.id)
    reason = {"mate": "checkmate", "resign": "resignation", "outoftime": "time forfeit",
              "draw": "agreement", "aborted": "abandoned"}.get(record.status)
    journal = JournalRecord(
        path=Path(record.id), game=record.game, options=record.options,
        setup=game.position_text(game.start()), players=list(record.seats),
        date=datetime.datetime.fromtimestamp(record.created, datetime.UTC).strftime(
            "%Y-%m-%d"), moves=moves, result=record.result if ended else None,
        reason=reason, clock=clock_text(record.clock), clocks=[None] * len(moves))
    return game_pgn(journal, PgnSeats(tuple(record.seats), clock_text(record.clock)),
                    site=SITE, event=f"{SITE} game {record.id}")


class ExportRoutes:
    """The PGN export; ``io`` runs its store reads off the event loop (the hub's store
    threads)."""

    def __init__(self, store: Store, io: Callable[..., Awaitable[Any]]) -> None:
        self.store = store
        self.io = io

    def routes(self) -> list[Route]:
        return [Route("/game/export/{gid}", self.one),
                Route("/api/games/user/{name}", self.of_player)]

    async def one(self, request: Request) -> Response:
        gid = request.path_params["gid"]
        if not (gid.isalnum() and len(gid) <= 16):
            return error("no such game", 404)
        found = await self.io(self._one, gid)
        if found is None:
            return error("no such game", 404)
        if found == "":
            return error("this game hides its moves until it has ended", 403)
        return PlainTextResponse(found, media_type="application/x-chess-pgn")

    def _one(self, gid: str) -> str | None:
        """The game's PGN ("": hidden until it has ended; None: no such game)."""
        record = self.store.game(gid)
        if record is None:
            return None
        return record_pgn(self.store, record) or ""

    async def of_player(self, request: Request) -> Response:
        name = request.path_params["name"].lower()
        texts = await self.io(self._of_player, name)
        if texts is None:
            return error("no such player", 404)
        return PlainTextResponse("".join(texts), media_type="application/x-chess-pgn")

    def _of_player(self, name: str) -> list[str] | None:
        if self.store.account(name) is None:
            return None
        texts = []
        for gid in self.store.games_of(name)[-MAX_GAMES:]:
            record = self.store.game(gid)
            text = record_pgn(self.store, record) if record else None
            if text is not None:
                texts.append(text)
        return texts
