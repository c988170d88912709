"""The linked boards' messages (format 1) and topics: JSON over MQTT, documented in
docs/link.md.

Every message names its format (``v``), its kind (``type``) and the game (``game_id``);
moves carry the ply number (``ply``, 1-based) and a digest of the position after them, so
a message delivered twice or late (MQTT QoS 1 is at-least-once) changes nothing, and two
boards that disagree find out at the first differing ply instead of playing on apart.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

FORMAT = 1
#: the root of every topic; a club is one namespace under it
ROOT = "fairyboard/v1"
#: one MQTT topic level: letters, digits, '-', '_' and '.' (no wildcards, no '/')
NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
MAX_MESSAGE = 64 * 1024


class LinkError(ValueError):
    """A message or a setting the link refuses; the text is one line."""


def check_name(what: str, value: str) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise LinkError(f"{what} {str(value)[:40]!r}: use 1-64 letters, digits, '.', '-' "
                        "or '_'")
    return value


def game_topic(club: str, game_id: str, kind: str) -> str:
    """``fairyboard/v1/CLUB/games/GAME/KIND`` (``start``, ``state``): a refereed game's
    public topics, written by the referee alone (the broker's ACL, docs/link.md)."""
    return f"{ROOT}/{club}/games/{game_id}/{kind}"


def board_game_topic(club: str, board: str, game_id: str, kind: str) -> str:
    """``fairyboard/v1/CLUB/boards/BOARD/games/GAME/KIND`` (``start``, ``moves``,
    ``state``): what ``board`` says of an open linked game.  Only ``board`` may write
    under ``boards/BOARD/`` (the ACL), so the topic names the sender."""
    return f"{ROOT}/{club}/boards/{board}/games/{game_id}/{kind}"


def presence_topic(club: str, board: str) -> str:
    return f"{ROOT}/{club}/boards/{board}/presence"


def invitation_topic(club: str, inviter: str, board: str) -> str:
    """Where ``inviter`` asks ``board`` to join a game (retained: the latest); ``board``
    follows ``boards/+/invite/BOARD``, and the topic names who invites."""
    return f"{ROOT}/{club}/boards/{inviter}/invite/{board}"


def sender(club: str, topic: str) -> str | None:
    """The board that wrote ``topic`` when it lies under ``boards/BOARD/`` or
    ``seats/BOARD/attempt|request`` (the ACL lets only that board write there); None for
    every other topic."""
    prefix = f"{ROOT}/{club}/"
    if not topic.startswith(prefix):
        return None
    parts = topic[len(prefix):].split("/")
    if len(parts) >= 3 and parts[0] == "boards":
        return parts[1]
    if len(parts) == 3 and parts[0] == "seats" and parts[2] in ("attempt", "request"):
        return parts[1]
    return None


def position_digest(position_text: str) -> str:
    """A short fingerprint of a position text: equal positions, equal digests."""
    return hashlib.sha256(position_text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Start:
    """A linked game: what is played, from which set-up, and which board plays each seat
    (``seats[i]`` is the board name of player ``i``)."""

    game_id: str
    game: str
    options: dict[str, Any]
    setup: str
    seats: tuple[str, ...]
    clock: str = ""
    type: str = field(default="start", init=False)


@dataclass(frozen=True)
class MoveMessage:
    """Ply ``ply`` of the game, made by ``seat`` in long notation; ``digest`` is the
    position's after it."""

    game_id: str
    ply: int
    seat: int
    move: str
    digest: str
    type: str = field(default="move", init=False)
    #: takebacks agreed before this ply was made (a copy from before one is stale)
    epoch: int = 0


@dataclass(frozen=True)
class Takeback:
    """The last ``plies`` plies were taken back at ``seat``'s request: ``ply`` plies stand."""

    game_id: str
    ply: int
    seat: int
    digest: str
    type: str = field(default="takeback", init=False)


@dataclass(frozen=True)
class State:
    """The whole game so far (retained): a board that joined late or was away takes the
    plies it missed from it — each with its seat and digest, as a move message would."""

    game_id: str
    moves: tuple[str, ...]
    digest: str
    result: str | None = None
    reason: str | None = None
    seats: tuple[int, ...] = ()
    digests: tuple[str, ...] = ()
    type: str = field(default="state", init=False)
    epoch: int = 0  #: takebacks agreed so far


@dataclass(frozen=True)
class Presence:
    board: str
    online: bool
    type: str = field(default="presence", init=False)


Message = Start | MoveMessage | Takeback | State | Presence


def encode(message: Message) -> bytes:
    if message.type in REFEREE_TYPES:  # format 2 (below)
        return encode_refereed(message)  # type: ignore[arg-type]
    data = {"v": FORMAT, **dataclasses.asdict(message), "type": message.type}
    for key in ("seats", "moves", "digests"):
        if key in data:
            data[key] = list(data[key])
    return json.dumps(data, separators=(",", ":"), sort_keys=True).encode()


def _field(data: dict[str, Any], key: str, typ: type | tuple[type, ...],
           optional: bool = False) -> Any:
    if key not in data or (optional and data[key] is None):
        if optional:
            return None
        raise LinkError(f"link message: '{key}' is missing")
    value = data[key]
    if not isinstance(value, typ) or (isinstance(value, bool) and typ is int):
        raise LinkError(f"link message: '{key}' has the wrong type")
    return value


def decode(payload: bytes) -> Message:
    """One message from its bytes; anything else is a :class:`LinkError` (one line)."""
    if len(payload) > MAX_MESSAGE:
        raise LinkError(f"link message: {len(payload)} bytes, more than {MAX_MESSAGE}")
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise LinkError("link message: not JSON") from None
    if not isinstance(data, dict):
        raise LinkError("link message: not a JSON object")
    version = data.get("v")
    if version == REFEREE_FORMAT and data.get("type") in REFEREE_TYPES:
        return _decode_refereed(data)
    if version != FORMAT:
        raise LinkError(f"link message: format {str(version)[:10]!r}, this board reads "
                        f"format {FORMAT} (update the other board's software)")
    kind = data.get("type")
    if kind == "start":
        seats = _field(data, "seats", list)
        if not 2 <= len(seats) <= 4 or not all(isinstance(s, str) for s in seats):
            raise LinkError("link message: 'seats' must name 2-4 boards")
        options = _field(data, "options", dict)
        return Start(check_name("game id", _field(data, "game_id", str)),
                     _field(data, "game", str), options, _field(data, "setup", str),
                     tuple(seats), _field(data, "clock", str, optional=True) or "")
    if kind == "move":
        ply = _field(data, "ply", int)
        if ply < 1:
            raise LinkError("link message: 'ply' must be 1 or more")
        return MoveMessage(check_name("game id", _field(data, "game_id", str)), ply,
                           _field(data, "seat", int), _field(data, "move", str),
                           _field(data, "digest", str), epoch=_epoch(data))
    if kind == "takeback":
        return Takeback(check_name("game id", _field(data, "game_id", str)),
                        _field(data, "ply", int), _field(data, "seat", int),
                        _field(data, "digest", str))
    if kind == "state":
        moves = _field(data, "moves", list)
        if not all(isinstance(m, str) for m in moves):
            raise LinkError("link message: 'moves' must be move texts")
        seats = _field(data, "seats", list, optional=True) or []
        digests = _field(data, "digests", list, optional=True) or []
        if (seats or digests) and not (
                len(seats) == len(digests) == len(moves)
                and all(isinstance(s, int) and not isinstance(s, bool) for s in seats)
                and all(isinstance(d, str) for d in digests)):
            raise LinkError("link message: 'seats' and 'digests' must match 'moves'")
        return State(check_name("game id", _field(data, "game_id", str)), tuple(moves),
                     _field(data, "digest", str), _field(data, "result", str, True),
                     _field(data, "reason", str, True), tuple(seats), tuple(digests),
                     epoch=_epoch(data))
    if kind == "presence":
        return Presence(_field(data, "board", str), _field(data, "online", bool))
    if kind in ("takeback-request", "takeback-answer"):
        return _decode_takeback(data)
    raise LinkError(f"link message: unknown type {str(kind)[:20]!r}")


# -- linked takebacks (docs/link.md, "Taking moves back") -----------------------------------


@dataclass(frozen=True)
class TakebackRequest:
    """The board of ``seat`` took moves back and asks the others to agree that only
    ``ply`` plies stand (``epoch``: the takebacks agreed before)."""

    game_id: str
    ply: int
    seat: int
    epoch: int
    type: str = field(default="takeback-request", init=False)


@dataclass(frozen=True)
class TakebackAnswer:
    """The answer to a :class:`TakebackRequest` for ``ply``: ``accepted`` (the answering
    board took the same plies back; ``epoch`` is then the new count) or declined."""

    game_id: str
    ply: int
    accepted: bool
    epoch: int
    type: str = field(default="takeback-answer", init=False)


#: every message of format 1, the takebacks' included
Message = Message | TakebackRequest | TakebackAnswer  # type: ignore[misc]


def _epoch(data: dict[str, Any]) -> int:
    """``epoch`` (absent in messages of boards without linked takebacks: 0)."""
    epoch = _field(data, "epoch", int, optional=True) or 0
    if epoch < 0:
        raise LinkError("link message: 'epoch' must be 0 or more")
    return epoch


def _decode_takeback(data: dict[str, Any]) -> TakebackRequest | TakebackAnswer:
    game_id = check_name("game id", _field(data, "game_id", str))
    ply = _field(data, "ply", int)
    if ply < 0:
        raise LinkError("link message: 'ply' must be 0 or more")
    if data["type"] == "takeback-request":
        return TakebackRequest(game_id, ply, _field(data, "seat", int), _epoch(data))
    return TakebackAnswer(game_id, ply, _field(data, "accepted", bool), _epoch(data))


# -- format 2: refereed games (hidden information), docs/link.md ----------------------------
#: the referee's messages; the format-1 messages above are unchanged and still say "v": 1
REFEREE_FORMAT = 2


def seat_topic(club: str, board: str, kind: str) -> str:
    """A board's private topics: ``attempt`` and ``request`` (the board writes: its
    player's move attempts, and its requests for a refereed game) and ``view`` (the
    referee writes, retained; only this board may read it)."""
    return f"{ROOT}/{club}/seats/{board}/{kind}"


@dataclass(frozen=True)
class Attempt:
    """The player of ``seat`` tries ``move`` (long notation, from his view) as ply
    ``ply``; only the referee, who holds the whole position, can say whether it is legal."""

    game_id: str
    ply: int
    seat: int
    move: str
    type: str = field(default="attempt", init=False)


@dataclass(frozen=True)
class SeatView:
    """What ``seat`` may know after ``ply`` plies: ``position`` is the game's
    ``position_text`` of his view position (his pieces, the enemy pieces he sees, the
    public hands; nothing hidden).  ``refused`` names his attempt of the next ply that the
    referee refused ("illegal move"); ``check`` says whether the side to move is in check
    (announced to both); ``result``/``reason`` when the game has ended.  ``options`` never
    hold the game's hidden options."""

    game_id: str
    game: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    seat: int
    ply: int
    position: str
    check: bool = False
    refused: str = ""
    result: str | None = None
    reason: str | None = None
    type: str = field(default="view", init=False)


REFEREE_TYPES = frozenset({"attempt", "view"})
#: a seat of a refereed request naming a player of the club's server rather than a board:
#: ``@NAME`` (the account NAME), ``@`` alone (anyone: a seek) — docs/server.md
ACCOUNT_SEAT = "@"


def encode_refereed(message: Attempt | SeatView) -> bytes:
    data = {**dataclasses.asdict(message), "v": REFEREE_FORMAT, "type": message.type}
    if "seats" in data:
        data["seats"] = list(data["seats"])
    return json.dumps(data, separators=(",", ":"), sort_keys=True).encode()


def _decode_refereed(data: dict[str, Any]) -> Attempt | SeatView:
    game_id = check_name("game id", _field(data, "game_id", str))
    ply = _field(data, "ply", int)
    seat = _field(data, "seat", int)
    if ply < 0 or not 0 <= seat < 4:
        raise LinkError("link message: 'ply' or 'seat' out of range")
    if data["type"] == "attempt":
        return Attempt(game_id, ply, seat, _field(data, "move", str))
    seats = _field(data, "seats", list)
    if not 2 <= len(seats) <= 4 or not all(isinstance(s, str) for s in seats):
        raise LinkError("link message: 'seats' must name 2-4 boards")
    return SeatView(game_id, _field(data, "game", str), _field(data, "options", dict),
                    tuple(seats), seat, ply, _field(data, "position", str),
                    bool(_field(data, "check", bool, True)),
                    _field(data, "refused", str, True) or "",
                    _field(data, "result", str, True), _field(data, "reason", str, True))
