"""An online game as the server tells it: pure values built from the game stream's
``gameFull`` and ``gameState`` lines, and the plan that brings the board's game to the
server's move list after any gap (a lost stream, a restart, a power cut).

The server's move list is the truth.  The board's list may lag it (moves to execute) or
run ahead by moves the server never took (sent as the link fell, or refused): those are
taken back on the board.  Nothing here guesses: a move text the rules cannot read is an
error, never skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from controller.i18n import Text, text_of
from controller.rules import get_game
from controller.rules.core import Game, Move, Position, RulesError
from controller.wire import LICHESS_KEYS, read_move, variant_game, variant_keys, wire_move

#: statuses of a game that has ended (the Board API's names)
ENDED = frozenset({"aborted", "mate", "resign", "stalemate", "timeout", "draw", "outoftime",
                   "cheat", "noStart", "unknownFinish", "variantEnd"})
#: lichess's variant keys for chess and the options each stands for (``controller/wire.py``)
VARIANTS: dict[str, dict[str, Any]] = LICHESS_KEYS
START = "startpos"
SIDES = ("white", "black")


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
    """One game as the server last described it.

    A game with hidden information (Lao Tzu Chess) is told as the board's own seat sees it:
    ``view`` (its view position), ``ply`` and ``refused``; its ``moves`` stay empty until
    the game has ended and nothing here ever holds the whole position."""

    id: str
    seat: int  #: the board owner's seat: 0 White, 1 Black, 2… (seat order)
    variant: str  #: the Board API's key
    initial_fen: str
    rated: bool
    speed: str
    clock: tuple[int, int] | None  #: initial and increment, in milliseconds
    players: tuple[Player, ...]  #: every seat's player, seat order
    moves: tuple[str, ...] = ()
    times_ms: tuple[int, ...] | None = None  #: every seat's time left
    status: str = "started"
    winners: tuple[int, ...] = ()
    draw_offer: int | None = None  #: who offers a draw now (another seat first)
    takeback_offer: int | None = None  #: who proposes a takeback now
    game: str = ""  #: the registry's game ("": the key names none known here)
    options: dict[str, Any] = field(default_factory=dict)  #: the game's public options
    turn: int | None = None  #: the seat to move, as the server says (None: not said)
    ply: int | None = None  #: plies played, as the server counts them
    view: str | None = None  #: the owner's view position (hidden information only)
    refused: str = ""  #: the owner's last attempt refused (hidden information)
    result: str | None = None  #: once ended: ``1-0``, ``0-1``, ``1/2-1/2``, ``winner 0,2``
    reason: str = ""

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @property
    def winner(self) -> int | None:
        """The one winner (None: a draw, no result, or several winners)."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def plies(self) -> int:
        """Plies played (a game with hidden information tells their count, not them)."""
        return self.ply if self.ply is not None else len(self.moves)

    @property
    def hidden(self) -> bool:
        """Whether the server tells this game as the owner's view (hidden information)."""
        return self.view is not None

    def mover_of(self, ply: int) -> int:
        """Who makes ply ``ply`` (0-based) of this game (the rules say, so a die roll or
        a third seat counts)."""
        movers = self._movers
        if ply < len(movers):
            return movers[ply]
        if ply == len(self.moves) and self.turn is not None:
            return self.turn
        black_first = self.initial_fen != START and " b " in f" {self.initial_fen} "
        return (ply + black_first) % max(2, len(self.players))

    @property
    def to_move(self) -> int:
        if self.turn is not None:
            return self.turn
        return self.mover_of(len(self.moves))

    @cached_property
    def _movers(self) -> tuple[int, ...]:
        """The mover of each ply of the move list and of the next one (empty: the list
        cannot be replayed here — hidden information, or a game not known)."""
        if self.hidden or not self.game:
            return ()
        try:
            game, pos = self.rules()
            movers = []
            for text in self.moves:
                movers.append(game.ply_mover(pos))
                pos.push(read_move(game, pos, text))
            return (*movers, game.ply_mover(pos))
        except (OnlineGameError, RulesError):
            return ()

    def rules(self) -> tuple[Game, Position]:
        """The rules and the starting position of this game on the board: the position
        the server started from, or in a game with hidden information the owner's view
        now (never more)."""
        if not self.game:
            raise OnlineGameError(Text("variant {variant} is not played on this board (it "
                                       "plays {variants})", variant=repr(self.variant[:40]),
                                       variants=", ".join(variant_keys())))
        try:
            game = get_game(self.game, **self.options)
        except RulesError as exc:
            raise OnlineGameError(Text("game {game}: {problem}", game=self.id,
                                       problem=text_of(exc))) from None
        try:
            if game.hidden_information:
                if self.view is None:
                    raise RulesError("the server sent no view of this seat")
                return game, game.parse_view(self.view)
            pos = game.start() if self.initial_fen == START else game.parse_position(
                self.initial_fen)
        except RulesError as exc:
            raise OnlineGameError(Text("game {game}: its starting position: {problem}",
                                       game=self.id, problem=text_of(exc))) from None
        return game, pos


def _side(name: Any) -> int | None:
    return {"white": 0, "black": 1}.get(str(name)) if name else None


def _game_of(event: dict[str, Any], key: str) -> tuple[str, dict[str, Any]]:
    """The registry's game and its options named by a ``gameFull`` line: the server's
    extensions (``variant.game``, ``options``) where given, else lichess's key."""
    named = variant_game(key)
    given = (event.get("variant") or {}).get("game")
    if isinstance(given, str) and variant_game(given) is not None and (
            named is None or named[0] == given):
        named = (given, named[1] if named else {})
    if named is None:
        return "", {}
    options = event.get("options")
    return named[0], {**named[1], **(options if isinstance(options, dict) else {})}


def game_full(event: dict[str, Any], me: str) -> ServerGame:
    """The game of a ``gameFull`` line, seen by the account ``me`` (its id, lower case)."""
    try:
        white, black = event["white"], event["black"]
        seats = event.get("seats")
        players = ([Player.of(p) for p in seats] if isinstance(seats, list) and len(seats) >= 2
                   else [Player.of(white), Player.of(black)])
        seat = event.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(players):
            ids = [str(p.get("id", "")).lower() if isinstance(p, dict) else ""
                   for p in (seats if isinstance(seats, list) else [white, black])]
            seat = ids.index(me.lower()) if me.lower() in ids else 1
        clock = event.get("clock")
        key = str((event.get("variant") or {}).get("key", "standard"))
        name, options = _game_of(event, key)
        game = ServerGame(
            id=str(event["id"]), seat=seat, variant=key,
            initial_fen=str(event.get("initialFen") or START), rated=bool(event.get("rated")),
            speed=str(event.get("speed", "")),
            clock=(int(clock["initial"]), int(clock["increment"])) if clock else None,
            players=tuple(players), game=name, options=options)
        return game_state(game, event["state"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise OnlineGameError(Text("the server's game description is incomplete ({problem})",
                                   problem=str(exc))) from None


def _seat_or_none(value: Any, seats: int) -> int | None:
    return value if isinstance(value, int) and 0 <= value < seats else None


def game_state(game: ServerGame, event: dict[str, Any]) -> ServerGame:
    """``game`` after a ``gameState`` line (lichess's fields, and the server's extensions
    where given: every seat's ``times``, ``turn``, ``ply``, ``winners``, the offers as
    seats, and a hidden-information seat's ``view``)."""
    try:
        n = len(game.players)
        moves = tuple(str(event.get("moves", "")).split())
        times = game.times_ms
        if isinstance(event.get("times"), list) and len(event["times"]) == n:
            times = tuple(int(t) for t in event["times"])
        elif "wtime" in event and "btime" in event:
            times = (int(event["wtime"]), int(event["btime"]))
        offers = event.get("drawOffers")
        if isinstance(offers, list):
            others = [s for s in offers if isinstance(s, int) and s != game.seat]
            draw = others[0] if others else (game.seat if game.seat in offers else None)
        else:
            draw = 0 if event.get("wdraw") else 1 if event.get("bdraw") else None
        back = _seat_or_none(event.get("takebackOffer"), n)
        if back is None:
            back = 0 if event.get("wtakeback") else 1 if event.get("btakeback") else None
        winners = event.get("winners")
        if isinstance(winners, list):
            won = tuple(int(w) for w in winners)
        else:
            side = _side(event.get("winner"))
            won = () if side is None else (side,)
        view = event.get("view")
        ply = event.get("ply")
        return replace(game, moves=moves, times_ms=times,
                       status=str(event.get("status", game.status)), winners=won,
                       draw_offer=draw, takeback_offer=back,
                       turn=_seat_or_none(event.get("turn"), n),
                       ply=ply if isinstance(ply, int) else None,
                       view=str(view) if isinstance(view, str) else None,
                       refused=str(event.get("refused") or "")[:80],
                       result=str(event["result"]) if event.get("result") else None,
                       reason=str(event.get("reason") or "")[:40])
    except (TypeError, ValueError) as exc:
        raise OnlineGameError(Text("the server's game state is malformed ({problem})",
                                   problem=str(exc))) from None


def board_uci(game: Game, pos: Position, move: Move, chess960: bool | None = None) -> str:
    """``move`` in the Board API's notation (``controller/wire.py``'s :func:`wire_move`;
    ``chess960`` is the game's own option, kept for old callers)."""
    return wire_move(game, pos, move)


@dataclass(frozen=True)
class Plan:
    """What brings the board to the server: take back ``takeback`` plies of the board's
    own list, then play ``moves`` (the server's, in order) from there."""

    takeback: int
    moves: tuple[Move, ...]
    agree: int  #: plies both already share


def plan(game: Game, start: Position, server: tuple[str, ...],
         board: tuple[Move, ...]) -> Plan:
    """Compare the server's move texts with the board's moves from ``start`` — in every
    game whose moves the server tells (a die roll is a ply like any other).  A game with
    hidden information has no such list while it is played: its board follows the
    owner's view instead (``controller/board/fogsync.py``)."""
    if game.hidden_information:
        raise OnlineGameError(Text("a game with hidden information is followed by its "
                                   "view, not by its moves"))
    pos = start.copy()
    parsed: list[Move] = []
    for i, text in enumerate(server):
        try:
            move = read_move(game, pos, text)
        except RulesError as exc:
            raise OnlineGameError(Text("the server's move {number} ({move}) is not legal "
                                       "here: {problem}", number=i + 1, move=repr(text),
                                       problem=text_of(exc))) from None
        parsed.append(move)
        pos.push(move)
    agree = 0
    while agree < min(len(parsed), len(board)) and parsed[agree] == board[agree]:
        agree += 1
    return Plan(takeback=len(board) - agree, moves=tuple(parsed[agree:]), agree=agree)
