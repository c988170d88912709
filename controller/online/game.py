"""An online game as the server tells it: pure values built from the game stream's
``gameFull`` and ``gameState`` lines, and the plan that brings the board's game to the
server's move list after any gap (a lost stream, a restart, a power cut).

The server's move list is the truth.  The board's list may lag it (moves to execute) or
run ahead by moves the server never took (sent as the link fell, or refused): those are
taken back on the board.  Nothing here guesses: a move text the rules cannot read is an
error, never skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from controller.rules import GAME_CLASSES, get_game
from controller.rules.core import Game, Move, Position, RulesError

#: statuses of a game that has ended (the Board API's names)
ENDED = frozenset({"aborted", "mate", "resign", "stalemate", "timeout", "draw", "outoftime",
                   "cheat", "noStart", "unknownFinish", "variantEnd"})
#: the Board API's variants this board plays, and the options of the game that plays them
#: (the registry's game whose positions and moves are those of UCI chess)
VARIANTS: dict[str, dict[str, Any]] = {"standard": {}, "chess960": {"chess960": True},
                                       "fromPosition": {}}
START = "startpos"


class OnlineGameError(ValueError):
    """The server described a game this board cannot play or a move it cannot read."""


@dataclass(frozen=True)
class Player:
    name: str
    rating: int | None = None
    title: str = ""

    @staticmethod
    def of(data: Any) -> Player:
        if not isinstance(data, dict):
            return Player("?")
        name = str(data.get("name") or data.get("id") or data.get("aiLevel") or "?")
        if data.get("aiLevel"):
            name = f"lichess AI level {data['aiLevel']}"
        rating = data.get("rating")
        return Player(name[:40], rating if isinstance(rating, int) else None,
                      str(data.get("title") or "")[:8])


@dataclass(frozen=True)
class ServerGame:
    """One game as the server last described it."""

    id: str
    seat: int  #: the board owner's side: 0 White, 1 Black
    variant: str
    initial_fen: str
    rated: bool
    speed: str
    clock: tuple[int, int] | None  #: initial and increment, in milliseconds
    players: tuple[Player, Player]
    moves: tuple[str, ...] = ()
    times_ms: tuple[int, int] | None = None  #: White's and Black's time left
    status: str = "started"
    winner: int | None = None
    draw_offer: int | None = None  #: who offers a draw now
    takeback_offer: int | None = None  #: who proposes a takeback now

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    def mover_of(self, ply: int) -> int:
        """Who makes ply ``ply`` (0-based) of this game: 0 White, 1 Black."""
        black_first = self.initial_fen != START and " b " in f" {self.initial_fen} "
        return (ply + black_first) % 2

    @property
    def to_move(self) -> int:
        return self.mover_of(len(self.moves))

    def rules(self) -> tuple[Game, Position]:
        """The rules and the starting position of this game on the board."""
        if self.variant not in VARIANTS:
            raise OnlineGameError(f"variant {self.variant!r} is not played on this board "
                                  f"(it plays {', '.join(VARIANTS)})")
        cls = next(c for c in GAME_CLASSES if c.uci_chess)
        game = get_game(cls.name, **VARIANTS[self.variant])
        try:
            pos = game.start() if self.initial_fen == START else game.parse_position(
                self.initial_fen)
        except RulesError as exc:
            raise OnlineGameError(f"game {self.id}: its starting position: {exc}") from None
        return game, pos


def _side(name: Any) -> int | None:
    return {"white": 0, "black": 1}.get(str(name)) if name else None


def game_full(event: dict[str, Any], me: str) -> ServerGame:
    """The game of a ``gameFull`` line, seen by the account ``me`` (its id, lower case)."""
    try:
        white, black = event["white"], event["black"]
        seat = 0 if str(white.get("id", "")).lower() == me.lower() else 1
        clock = event.get("clock")
        game = ServerGame(
            id=str(event["id"]), seat=seat,
            variant=str((event.get("variant") or {}).get("key", "standard")),
            initial_fen=str(event.get("initialFen") or START), rated=bool(event.get("rated")),
            speed=str(event.get("speed", "")),
            clock=(int(clock["initial"]), int(clock["increment"])) if clock else None,
            players=(Player.of(white), Player.of(black)))
        return game_state(game, event["state"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise OnlineGameError(f"the server's game description is incomplete ({exc})") from None


def game_state(game: ServerGame, event: dict[str, Any]) -> ServerGame:
    """``game`` after a ``gameState`` line."""
    try:
        moves = tuple(str(event.get("moves", "")).split())
        times = ((int(event["wtime"]), int(event["btime"]))
                 if "wtime" in event and "btime" in event else game.times_ms)
        draw = 0 if event.get("wdraw") else 1 if event.get("bdraw") else None
        back = 0 if event.get("wtakeback") else 1 if event.get("btakeback") else None
        return replace(game, moves=moves, times_ms=times,
                       status=str(event.get("status", game.status)),
                       winner=_side(event.get("winner")), draw_offer=draw,
                       takeback_offer=back)
    except (TypeError, ValueError) as exc:
        raise OnlineGameError(f"the server's game state is malformed ({exc})") from None


def board_uci(game: Game, pos: Position, move: Move, chess960: bool) -> str:
    """``move`` in the Board API's notation: UCI, castling as the King's two-cell step in
    standard chess and as King takes Rook in Chess960."""
    if move.kind == "castle" and not chess960:
        cells = game.geometry.cells
        return cells[move.origin] + cells[move.target]
    return game.long_move_text(pos, move)


@dataclass(frozen=True)
class Plan:
    """What brings the board to the server: take back ``takeback`` plies of the board's
    own list, then play ``moves`` (the server's, in order) from there."""

    takeback: int
    moves: tuple[Move, ...]
    agree: int  #: plies both already share


def plan(game: Game, start: Position, server: tuple[str, ...],
         board: tuple[Move, ...]) -> Plan:
    """Compare the server's move texts with the board's moves from ``start``."""
    pos = start.copy()
    parsed: list[Move] = []
    for i, text in enumerate(server):
        try:
            move = game.parse_move(pos, text)
        except RulesError as exc:
            raise OnlineGameError(f"the server's move {i + 1} ({text!r}) is not legal "
                                  f"here: {exc}") from None
        parsed.append(move)
        pos.push(move)
    agree = 0
    while agree < min(len(parsed), len(board)) and parsed[agree] == board[agree]:
        agree += 1
    return Plan(takeback=len(board) - agree, moves=tuple(parsed[agree:]), agree=agree)
