"""The referee of linked games with hidden information (``fairyboard referee``,
docs/link.md "The referee").

It is the only holder of the whole position. Boards ask it to start a game (a
:class:`~controller.link.messages.Start` on its own ``seats/BOARD/request``); each seat's
board then sends its player's move *attempts* on its private ``attempt`` topic and
receives only its own view (:class:`~controller.link.messages.SeatView`, retained) on its
private ``view`` topic. An attempt that a hidden piece makes illegal is refused to that
seat alone ("illegal move"). The club's public ``start`` and ``state`` carry no hidden
option and no move until the game has ended (or, with ``delay``, the moves older than
``delay`` plies).

:class:`Referee` is pure (messages in, messages out, the journal's record); :func:`serve`
runs it on the broker.  The record is written atomically after every change (a temporary
file, fsync, rename), so a referee restarted after a crash resumes every game.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.link.messages import (
    Attempt,
    LinkError,
    Message,
    SeatView,
    Start,
    State,
    check_name,
    game_topic,
    seat_topic,
    sender,
)
from controller.rules import GAMES, get_game
from controller.rules.core import Game, Position, RulesError

log = logging.getLogger("fairyboard.referee")

#: the refusal a seat is told: the same words as on one board, nothing about why
ILLEGAL_MOVE = "illegal move"
JOURNAL_FORMAT = 1

#: (topic, message, retained)
Out = tuple[str, Message | SeatView, bool]


@dataclass
class RefereedGame:
    """One game as only the referee knows it: its true options and every move."""

    game_id: str
    name: str
    options: dict[str, Any]  # the true options, hidden ones included
    seats: tuple[str, ...]
    moves: list[str] = field(default_factory=list)  # long notation
    refused: dict[int, int] = field(default_factory=dict)  # seat -> ply refused last
    game: Game = field(init=False, repr=False)
    pos: Position = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.game = get_game(self.name, **self.options)
        self.pos = self.game.start()
        for text in self.moves:
            self.pos.push(self.game.parse_move(self.pos, text))

    @property
    def public_options(self) -> dict[str, Any]:
        hidden = self.game.hidden_options
        return {k: v for k, v in self.options.items() if k not in hidden}

    def record(self) -> dict[str, Any]:
        return {"game": self.name, "options": self.options, "seats": list(self.seats),
                "moves": self.moves, "refused": {str(k): v for k, v in self.refused.items()}}


class RefereeJournal:
    """The referee's record of its games, one JSON file replaced atomically."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def load(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError) as exc:
            raise LinkError(f"referee journal {self.path}: unreadable ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != JOURNAL_FORMAT:
            raise LinkError(f"referee journal {self.path}: not format {JOURNAL_FORMAT}")
        return dict(data.get("games", {}))

    def save(self, games: dict[str, dict[str, Any]]) -> None:
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"format": JOURNAL_FORMAT, "games": games}, sort_keys=True)
        fd, tmp = tempfile.mkstemp(prefix=".referee-", dir=folder)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        dirfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)


class Referee:
    """The games of one club (pure: :meth:`start` and :meth:`attempt` return what to
    publish).  ``delay``: the public state shows the moves older than this many plies
    (None: only once the game has ended).  ``seed``: draws the hidden ``seed`` option of
    new games from this and the game's id (tests) instead of the system's randomness;
    ``numbered``: from this and the game's number instead (``fairyboard referee --seed``:
    a board names its games by the time, so the n-th game is the repeatable one)."""

    def __init__(self, club: str, journal: RefereeJournal | None = None,
                 delay: int | None = None, seed: str | None = None,
                 numbered: bool = False) -> None:
        self.club = check_name("link.club", club)
        self.journal = journal
        self.delay = delay
        self.seed = seed
        self.numbered = numbered
        self.games: dict[str, RefereedGame] = {}
        if journal is not None:
            for game_id, r in journal.load().items():
                self.games[game_id] = RefereedGame(
                    game_id, r["game"], dict(r["options"]), tuple(r["seats"]),
                    list(r["moves"]), {int(k): v for k, v in r.get("refused", {}).items()})

    # -- messages in -----------------------------------------------------------------------
    def start(self, start: Start, board: str | None = None) -> list[Out]:
        """``board`` (the topic it wrote on; None: the caller vouches) asks for a refereed
        game: draw its secrets, tell each seat its view.  Only a board that plays one of
        its seats may ask for a game."""
        if start.game_id in self.games:
            return []  # a duplicate (QoS 1) or a game already under way
        if board is not None and board not in start.seats:
            return self._problem(start.game_id, f"{board} asked for a game it does not play")
        cls = GAMES.get(start.game)
        if cls is None:
            return self._problem(start.game_id, f"no game {start.game!r}")
        secret = sorted(set(start.options) & cls.hidden_options)
        if secret:
            return self._problem(start.game_id, f"{', '.join(secret)} would be known to a "
                                 "board: the referee draws hidden options itself")
        if len(set(start.seats)) != len(start.seats):
            return self._problem(start.game_id, "a refereed game needs one board per seat")
        options = dict(start.options)
        if "seed" in cls.hidden_options and any(o.name == "seed" for o in cls.option_specs):
            game = len(self.games) + 1 if self.numbered else start.game_id
            options["seed"] = (f"{self.seed}-{game}" if self.seed is not None
                               else secrets.token_hex(16))
        try:
            g = RefereedGame(start.game_id, start.game, options, start.seats)
        except RulesError as exc:
            return self._problem(start.game_id, str(exc))
        if g.game.players != len(start.seats):
            return self._problem(start.game_id, f"{g.game.title} has {g.game.players} seats")
        self.games[g.game_id] = g
        self._save()
        log.info("refereed game started", extra={"game_id": g.game_id, "game": g.name,
                                                 "seats": list(g.seats)})
        public = Start(g.game_id, g.name, g.public_options, "", g.seats, start.clock)
        return [(game_topic(self.club, g.game_id, "start"), public, True),
                *self._views(g), self._state(g)]

    def attempt(self, board: str, a: Attempt) -> list[Out]:
        """``board`` (the topic it wrote on) tries a move for ``a.seat``."""
        g = self.games.get(a.game_id)
        if g is None or not 0 <= a.seat < len(g.seats) or g.seats[a.seat] != board:
            log.warning("attempt refused", extra={"game_id": a.game_id, "board": board,
                                                  "problem": "not this board's seat"})
            return []
        ply = len(g.moves)
        if a.ply != ply + 1:  # a duplicate or a stale attempt: the seat's view again
            return [self._view(g, a.seat)]
        game, pos = g.game, g.pos
        if game.outcome(pos) is not None or game.ply_mover(pos) != a.seat:
            return [self._view(g, a.seat)]  # not this seat's turn: its view again
        try:
            move = game.parse_move(pos, a.move)
        except RulesError:
            g.refused[a.seat] = a.ply
            self._save()
            log.info("attempt refused", extra={"game_id": g.game_id, "ply": a.ply,
                                               "seat": a.seat})
            return [self._view(g, a.seat, ILLEGAL_MOVE)]
        g.moves.append(game.long_move_text(pos, move))
        pos.push(move)
        g.refused.pop(a.seat, None)
        self._save()
        log.info("refereed move", extra={"game_id": g.game_id, "ply": a.ply, "seat": a.seat})
        return [*self._views(g), self._state(g)]

    def resume(self) -> list[Out]:
        """After a restart: every game's views and state again (they are retained, so
        publishing them twice changes nothing)."""
        out: list[Out] = []
        for g in self.games.values():
            out += [*self._views(g), self._state(g)]
        return out

    # -- messages out ------------------------------------------------------------------
    def _view(self, g: RefereedGame, seat: int, refused: str = "") -> Out:
        game, pos = g.game, g.pos
        outcome = game.outcome(pos)
        if not refused and g.refused.get(seat) == len(g.moves) + 1:
            refused = ILLEGAL_MOVE  # (a restart keeps the refusal standing)
        view = SeatView(g.game_id, g.name, g.public_options, g.seats, seat, len(g.moves),
                        game.position_text(game.view_position(pos, seat)),
                        bool(outcome is None and game.in_check(pos)), refused,
                        outcome.result if outcome else None,
                        outcome.reason if outcome else None)
        return (seat_topic(self.club, g.seats[seat], "view"), view, True)

    def _views(self, g: RefereedGame) -> list[Out]:
        return [self._view(g, seat) for seat in range(len(g.seats))]

    def _state(self, g: RefereedGame) -> Out:
        """The club's public state: moves only once the game has ended (or ``delay``)."""
        outcome = g.game.outcome(g.pos)
        shown = len(g.moves) if outcome is not None else (
            0 if self.delay is None else max(0, len(g.moves) - self.delay))
        state = State(g.game_id, tuple(g.moves[:shown]), "",
                      outcome.result if outcome else None,
                      outcome.reason if outcome else None)
        return (game_topic(self.club, g.game_id, "state"), state, True)

    def _problem(self, game_id: str, problem: str) -> list[Out]:
        log.warning("refereed game refused", extra={"game_id": game_id, "problem": problem})
        return []

    def _save(self) -> None:
        if self.journal is not None:
            self.journal.save({k: g.record() for k, g in self.games.items()})


def serve(settings: Any, referee: Referee, stop: threading.Event | None = None,
          poll_s: float = 0.005) -> None:
    """Run ``referee`` on the broker of ``settings`` (a
    :class:`~controller.link.client.BrokerSettings`, its ``board`` the referee's name)
    until ``stop`` is set."""
    from controller.link.client import MqttLink

    mqtt = MqttLink(settings)
    stop = stop or threading.Event()
    try:
        mqtt.subscribe(seat_topic(settings.club, "+", "request"))
        mqtt.subscribe(seat_topic(settings.club, "+", "attempt"))
        for topic, message, retain in referee.resume():
            mqtt.publish(topic, message, retain=retain)  # type: ignore[arg-type]
        log.info("referee serving", extra={"club": settings.club,
                                           "games": len(referee.games)})
        while not stop.wait(poll_s):
            for topic, message in mqtt.receive():
                out: list[Out] = []
                board = sender(settings.club, topic)
                if board is None:
                    continue
                if isinstance(message, Start) and topic.endswith("/request"):
                    out = referee.start(message, board)
                elif isinstance(message, Attempt) and topic.endswith("/attempt"):
                    out = referee.attempt(board, message)
                for t, m, retain in out:
                    mqtt.publish(t, m, retain=retain)  # type: ignore[arg-type]
    finally:
        mqtt.close()
