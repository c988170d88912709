"""Games as PGN, the text every chess program reads (``fairyboard games export``).

Chess and Chess960 are written to the PGN standard (the export format of the PGN
specification, section 8): the seven tag roster first (``Event``, ``Site``, ``Date``,
``Round``, ``White``, ``Black``, ``Result``), a game from a set-up with ``[SetUp "1"]`` and
its ``[FEN]``, ``TimeControl`` in seconds (5 minutes with 3 seconds' increment is
``"300+3"``), the computer named with its level (``"fairyboard level 6"``), ``Variant``
(``Standard``/``Chess960``), ``Termination``, and each move's clock as a ``%clk``
comment.  The variants get the same tags with their own ``Variant`` and their own move
and position text (the only notation they have), so one reader handles every game.

What to write is a small explicit input (:class:`PgnSeats`: the name on each seat and
the time control), read from the journal's start record by :func:`seats_from_record`; the
text is :func:`game_pgn`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from controller.clock import ClockError, TimeControl, parse_time_control
from controller.journal import GameRecord
from controller.rules import Game, get_game
from controller.rules.core import Termination

#: the ``Event`` of a game played on the board
EVENT = "fairyboard game"
#: the ``Site``: where the game was played (the program: the board has no address)
SITE = "fairyboard"
#: the ``Round``: a casual game has none ("-": not applicable, as the standard says)
ROUND = "-"
#: an unknown name, date part or time control (the standard's "?")
UNKNOWN = "?"
#: the longest movetext line (the standard: below 80 characters)
LINE = 79
#: the terminations the standard names; every other ending is "normal"
_TERMINATIONS = {Termination.TIME_FORFEIT: "time forfeit",
                 Termination.TIMEOUT_DRAW: "time forfeit",
                 Termination.ABANDONED: "abandoned"}


def computer_name(level: int) -> str:
    """The computer as a player's name: the program and its strength."""
    return f"fairyboard level {level}"


@dataclass(frozen=True)
class PgnSeats:
    """What the export needs beyond the moves: the name on each seat (in the game's seat
    order; ``"?"`` for a person whose name is not known) and the time control (the clock's
    own text, ``controller/clock.py``; None: no clock)."""

    names: tuple[str, ...]
    time_control: str | None = None
    #: an online game: its address on the server (the ``Site``) and its id (``GameId``)
    url: str | None = None
    online_id: str | None = None


def start_record(record: GameRecord) -> dict[str, Any]:
    """The journal's start record as written (its fields beyond those :class:`GameRecord`
    reads: the seats, when the journal keeps them)."""
    if not record.kept:
        return {}
    try:
        start = json.loads(record.kept[0].rstrip(b"\n").rstrip(b" \t"))
    except ValueError:
        return {}
    return start if isinstance(start, dict) else {}


def seats_from_record(record: GameRecord, game: Game) -> PgnSeats:
    """The seats' names from the start record: the ``"players"`` names (a name that is
    only the seat's colour is not a name: ``"?"``), and the computer's seats and level
    from its ``"seats"`` field (``{"computer": [players], "level": n, ...}``, written by
    the service's session)."""
    count = game.players
    names = [UNKNOWN] * count
    for k, name in enumerate(record.players[:count]):
        names[k] = _person(name, game.player_names[k])
    seats = record.seats or {}
    level = seats.get("level")
    if _whole(level):
        for seat in seats.get("computer", []):
            if _whole(seat) and 0 <= seat < count:
                names[seat] = computer_name(level)
    online = seats.get("online")
    if isinstance(online, dict):  # played on a Board API server: its clock, its address
        return PgnSeats(tuple(names), record.clock or _text(online.get("clock")),
                        _text(online.get("url")), _text(online.get("id")))
    return PgnSeats(tuple(names), record.clock)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _person(name: Any, colour: str) -> str:
    if not isinstance(name, str) or not name.strip() or name.strip() == colour:
        return UNKNOWN
    return " ".join(name.split())


def pgn_time_control(text: str | None) -> str:
    """The clock's time control in PGN's seconds: ``"5"`` → ``"300"``, ``"3+2"`` →
    ``"180+2"``, ``"40/90:30+30"`` → ``"40/5400+30:1800+30"`` (the increment on every
    period), a Bronstein delay ``"5d3"`` → ``"300+3d"`` (python-chess's spelling; PGN has
    none); no clock is ``"-"``, a text that is not a control ``"?"``."""
    if not text:
        return "-"
    try:
        control = parse_time_control(text)
    except ClockError:
        return UNKNOWN
    return _pgn_control(control)


def _pgn_control(control: TimeControl) -> str:
    bonus = (f"+{_number(control.increment)}" if control.increment
             else f"+{_number(control.delay)}d" if control.delay else "")
    parts = []
    for period in control.periods:
        seconds = str(max(1, round(period.seconds)))
        parts.append((f"{period.moves}/{seconds}" if period.moves else seconds) + bonus)
    return ":".join(parts)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def pgn_clock(seconds: float) -> str:
    """A ``%clk`` reading, H:MM:SS (whole seconds, rounded down as a clock shows them)."""
    whole = max(0, math.floor(seconds)) if math.isfinite(seconds) else 0
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _tag_value(value: Any) -> str:
    """A tag's value on one line, without ``"`` or ``\\``: the standard escapes them, but
    readers differ (python-chess keeps the escapes as text), so a quote becomes ``'`` and
    a backslash ``/`` — the same for every reader."""
    return " ".join(str(value).split()).replace('"', "'").replace("\\", "/")


def _date(date: str) -> str:
    day = date.split("T")[0].split("-")
    if len(day) != 3 or not all(part.isdigit() for part in day):
        return "????.??.??"
    return ".".join(day)


def _termination(result: str | None, reason: str | None) -> str:
    if result is None or result == "*":
        return "unterminated"
    return _TERMINATIONS.get(reason or "", "normal")


def game_pgn(record: GameRecord, seats: PgnSeats | None = None, *, site: str = SITE,
             round_: str = ROUND, event: str = EVENT) -> str:
    """One game of the journal as PGN (a damaged file: the moves before the damage, and a
    ``Damaged`` tag saying what was dropped).  ``seats`` defaults to what the start record
    says (:func:`seats_from_record`)."""
    game, _ = record.replay(salvage=True)
    if seats is None:
        seats = seats_from_record(record, game)
    pos = game.parse_position(record.setup)
    names = list(seats.names) + [UNKNOWN] * max(0, game.players - len(seats.names))
    result = record.result or "*"
    tags: dict[str, str] = {"Event": event, "Site": seats.url or site,
                            "Date": _date(record.date), "Round": round_}
    for colour, name in zip(game.player_names, names, strict=False):
        tags[colour] = name
    tags["Result"] = result
    plain = get_game(record.game)  # the game without options: a Chess960 array is a set-up
    if record.setup != plain.position_text(plain.start()):
        tags["SetUp"] = "1"
        tags["FEN"] = record.setup
    tags["Variant"] = game.pgn_variant()
    tags["TimeControl"] = pgn_time_control(seats.time_control)
    tags["Termination"] = _termination(record.result, record.reason)
    if seats.online_id:
        tags["GameId"] = seats.online_id
    if record.options:
        tags["Options"] = ", ".join(f"{k}={v}" for k, v in sorted(record.options.items()))
    if game.provisional:
        tags["Note"] = game.provisional
    if record.damage:
        tags["Damaged"] = record.damage
    out = [f'[{key} "{_tag_value(value)}"]' for key, value in tags.items()]
    out.append("")
    out.extend(_lines(_movetext(game, pos, record.moves, record.clocks, result)))
    return "\n".join(out) + "\n\n"


def _movetext(game: Game, pos: Any, moves: Sequence[str],
              clocks: Sequence[list[float] | None], result: str) -> list[str]:
    """The move tokens: ``N.`` before the first seat's move, ``N...`` before another
    seat's move that opens the text or follows a comment; each clock as ``{[%clk …]}``."""
    tokens: list[str] = []
    previous: int | None = None
    after_comment = False
    for text, clock in zip(moves, clocks, strict=True):
        move = game.parse_move(pos, text)
        mover = game.ply_mover(pos)
        if mover == 0 and previous != 0:
            tokens.append(f"{pos.fullmove}.")
        elif mover != 0 and (previous is None or after_comment):
            tokens.append(f"{pos.fullmove}...")
        tokens.append("".join(text.split()))
        after_comment = clock is not None and mover < len(clock)
        if after_comment:  # the mover's time left after the move
            tokens.append(f"{{[%clk {pgn_clock(clock[mover])}]}}")
        pos.push(move)
        previous = mover
    tokens.append(result)
    return tokens


def _lines(tokens: Sequence[str]) -> list[str]:
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return lines
