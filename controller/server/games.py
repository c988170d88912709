"""The server's values: a live game, a seek, a challenge and an open challenge, the
refusal a request gets (:class:`PlayError`), the signal that wakes a game's streams, and
the Board API's names for speeds, results and endings.  The hub (``hub.py``) changes them;
the API, the pages, the link bridge and the board seats read them."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.i18n import Text
from controller.link.messages import SeatView
from controller.rules import GAMES, get_game
from controller.rules.core import Game, Position, RulesError, Termination
from controller.wire import LICHESS_KEYS as WIRE_KEYS
from controller.wire import lichess_game, variant_key

#: the variant keys for chess a seek or challenge may name (lichess's; the variant keys
#: and move texts are ``controller/wire.py``'s, shared with the board's client)
LICHESS_KEYS: dict[str, dict[str, Any]] = {k: v for k, v in WIRE_KEYS.items()
                                           if k != "fromPosition"}
VARIANT_KEYS = LICHESS_KEYS  # (the names listed in a refusal)


class PlayError(ValueError):
    """A request the game refuses: one line and its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Retry(PlayError):
    """Another worker changed the game first (cluster mode): it is read again, and the
    request may be judged again on what the store holds."""

    def __init__(self) -> None:
        super().__init__("the game changed meanwhile: try again", 409)


class Signal:
    """Wakes every stream waiting on one game or account (a fresh event per change).

    A stream takes :meth:`watch` *before* it reads what the signal guards and waits on
    that: a change made while it read or sent (its awaits let other tasks run) has set
    it already, so no change waits for the next keep-alive."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    def watch(self) -> asyncio.Event:
        """The event the next change sets."""
        return self._event

    async def wait(self, timeout: float, watch: asyncio.Event | None = None) -> bool:
        """Until the next change (or ``watch``'s) or ``timeout``: whether a change came."""
        event = self._event if watch is None else watch
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        return event.is_set()


def game_and_options(variant: str, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The registry's game and checked public options of a seek or challenge."""
    name, base = ((lichess_game(), LICHESS_KEYS[variant]) if variant in LICHESS_KEYS
                  else (variant, {}))
    cls = GAMES.get(name)
    if cls is None:
        raise PlayError(Text("no game {name} here (games: {games})", name=repr(variant[:40]),
                             games=", ".join([*VARIANT_KEYS, *GAMES])))
    merged = {**base, **options}
    secret = sorted(set(merged) & (cls.hidden_options | {"seed"}))
    if secret:
        raise PlayError(Text("{options}: drawn by the server, never chosen",
                             options=", ".join(secret)))
    try:
        checked = cls.validate_options(merged)
        get_game(name, **checked)
    except RulesError as exc:
        raise PlayError(str(exc)) from None
    return name, checked


def speed_of(clock: tuple[int, int] | None) -> str:
    """lichess's speed from the estimated game time (initial + 40 increments)."""
    if clock is None:
        return "correspondence"
    estimate = clock[0] / 1000 + 40 * clock[1] / 1000
    for limit, name in ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"),
                        (1499, "rapid")):
        if estimate <= limit:
            return name
    return "classical"


def time_control(clock: tuple[int, int] | None) -> dict[str, Any]:
    """A clock (initial and increment, ms) in the Board API's shape."""
    if clock is None:
        return {"type": "unlimited"}
    return {"type": "clock", "limit": clock[0] // 1000, "increment": clock[1] // 1000}


def winners_of(result: str | None) -> tuple[int, ...]:
    if result == "1-0":
        return (0,)
    if result == "0-1":
        return (1,)
    if result and result.startswith("winner "):
        return tuple(int(x) for x in result[7:].split(","))
    return ()


def status_of(reason: str, winners: tuple[int, ...]) -> str:
    """The Board API's status for an ending."""
    return {Termination.CHECKMATE: "mate", Termination.STALEMATE: "stalemate",
            Termination.RESIGNATION: "resign", Termination.TIME_FORFEIT: "outoftime",
            Termination.TIMEOUT_DRAW: "outoftime", Termination.AGREEMENT: "draw"}.get(
        reason, "draw" if not winners else "variantEnd")  # type: ignore[call-overload]


#: the ending's words a status stands for when the rules' own ending is not it (cluster
#: mode: a worker that read an ended game from the store has its status, not its words)
STATUS_WORDS = {"resign": Termination.RESIGNATION, "outoftime": Termination.TIME_FORFEIT,
                "draw": Termination.AGREEMENT, "aborted": "aborted"}


def ending_words(g: LiveGame) -> str:
    """``g``'s ending in words: as told, else the rules' ending of its position, else its
    status's."""
    if g.reason:
        return g.reason
    outcome = g.game.outcome(g.pos) if g.pos is not None else None
    if outcome is not None:
        return str(outcome.reason)
    if g.status == "outoftime" and not g.winners:
        return str(Termination.TIMEOUT_DRAW)
    return str(STATUS_WORDS.get(g.status, ""))


@dataclass
class LiveGame:
    """One game being played (or just ended) on this server."""

    id: str
    name: str
    options: dict[str, Any]  #: public options only
    seats: tuple[str, ...]  #: account ids, seat order
    clock: tuple[int, int] | None  #: initial and increment, ms
    rated: bool
    game: Game
    pos: Position | None  #: None when the referee holds the position
    moves: list[str] = field(default_factory=list)  #: open games (refereed: once ended)
    ply: int = 0
    views: dict[int, SeatView] = field(default_factory=dict)  #: refereed games
    times: list[int] = field(default_factory=list)
    turn_started: float = 0.0
    status: str = "started"
    winners: tuple[int, ...] = ()
    result: str | None = None
    reason: str = ""
    draw_offers: set[int] = field(default_factory=set)
    takeback_offer: int | None = None
    signal: Signal = field(default_factory=Signal)
    #: held while a change is made (its record stored first): one change at a time, in
    #: the order the requests came
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    initial: str = ""  #: the starting position's text (open games)
    #: the challenge it was started from (a linked board's waits for it: linkbridge.py)
    origin: str = ""
    #: the store's version of it (cluster mode: each change made on the version it read)
    version: int = 0

    @property
    def refereed(self) -> bool:
        return self.pos is None

    @property
    def ended(self) -> bool:
        return self.status != "started"

    @property
    def turn(self) -> int:
        """The seat that makes the next ply."""
        if self.pos is not None:
            return self.game.ply_mover(self.pos)
        view = self.views.get(0)
        if view is None:
            return 0
        return self.game.ply_mover(self.game.parse_view(view.position))

    def seat_of(self, account: str) -> int:
        try:
            return self.seats.index(account)
        except ValueError:
            raise PlayError("you do not play in this game", 403) from None


@dataclass
class Seek:
    id: str
    account: str
    name: str
    options: dict[str, Any]
    clock: tuple[int, int] | None
    rated: bool
    color: str
    found: asyncio.Future = field(repr=False)

    def fits(self, other: Seek) -> bool:
        return (self.name, self.options, self.clock, self.rated) == (
            other.name, other.options, other.clock, other.rated) and self.account != other.account


@dataclass
class Challenge:
    id: str
    challenger: str
    dest: str
    name: str
    options: dict[str, Any]
    clock: tuple[int, int] | None
    rated: bool
    color: str

    def json(self, status: str = "created") -> dict[str, Any]:
        return {"id": self.id, "url": f"/{self.id}", "status": status,
                "challenger": {"id": self.challenger, "name": self.challenger},
                "destUser": {"id": self.dest, "name": self.dest},
                "variant": {"key": self.name}, "options": self.options, "rated": self.rated,
                "speed": speed_of(self.clock), "color": self.color,
                "timeControl": time_control(self.clock)}


@dataclass
class OpenChallenge:
    """lichess's open challenge: any two players (or the two ``users`` it names) join it,
    each choosing a colour or not; its maker need not play."""

    id: str
    maker: str
    name: str
    options: dict[str, Any]
    clock: tuple[int, int] | None
    rated: bool
    users: tuple[str, ...] = ()  #: the only two who may join (none: anyone)
    joined: list[tuple[str, str]] = field(default_factory=list)  #: (account, colour)

    def json(self, base: str) -> dict[str, Any]:
        url = f"{base}/{self.id}"
        out = {"id": self.id, "url": url, "status": "created", "challenger": None,
               "destUser": None,
               "variant": {"key": variant_key(self.name, self.options), "game": self.name},
               "options": self.options, "rated": self.rated, "speed": speed_of(self.clock),
               "timeControl": time_control(self.clock),
               "color": "random", "finalColor": "white",
               "urlWhite": f"{url}?color=white", "urlBlack": f"{url}?color=black"}
        if self.users:
            out["open"] = {"userIds": list(self.users)}
        return out


class HubListener(Protocol):
    """A room told of the hub's changes as they happen (in the event loop)."""

    def game_changed(self, g: LiveGame) -> None:
        """``g`` changed (a ply, an offer, its end) or started."""

    def challenge_answered(self, c: Challenge, g: LiveGame | None) -> None:
        """``c`` was accepted (``g`` its game) or declined or cancelled (``g`` None)."""
