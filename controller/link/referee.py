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
runs it on the broker.  Every change is appended to that game's own journal file and
fsynced before anyone is told (:class:`RefereeJournal`), so a referee restarted after a
crash resumes every unfinished game, and a move costs the same after 2,000 games as after
one.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
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

#: ended games kept in memory (a late duplicate attempt is answered with the last view)
KEEP_ENDED = 100

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
    """The referee's record of its games: one append-only file per game (JSON lines, each
    fsynced), so a move costs one short append whatever the history.  ``PATH-games/``
    beside the configured ``PATH`` (``referee.json`` → ``referee-games/``) holds the
    unfinished games, ``archive/`` the finished ones (never read again at start-up) and
    ``quarantine/`` a game whose record is damaged — that game alone; the others go on.
    A journal of the old single-file format at ``PATH`` is taken over once (renamed
    ``PATH.migrated``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.folder = self.path.parent / f"{self.path.stem}-games"
        self.archive = self.folder / "archive"
        self.quarantine = self.folder / "quarantine"
        #: games set aside at start-up (one line each: which, and why)
        self.problems: list[str] = []

    # -- reading (start-up) ------------------------------------------------------------
    def load(self) -> dict[str, dict[str, Any]]:
        """The unfinished games' records, by game id.  A damaged game is moved to
        ``quarantine/`` with one line in :attr:`problems` and the log."""
        self._migrate()
        games: dict[str, dict[str, Any]] = {}
        if not self.folder.is_dir():
            return games
        for file in sorted(self.folder.glob("*.jsonl")):
            try:
                games[file.stem] = self._read(file)
            except LinkError as exc:
                self.set_aside(file.stem, str(exc))
        return games

    def _read(self, file: Path) -> dict[str, Any]:
        if not file.is_file() or file.is_symlink():
            raise LinkError(f"{file.name}: not a regular file")
        if file.stat().st_size > MAX_GAME_BYTES:
            raise LinkError(f"{file.name}: larger than {MAX_GAME_BYTES} bytes")
        data = file.read_bytes()
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        elif lines:  # a torn last line (the power went mid-append): never published
            torn = lines.pop()
            _write_new(file.with_name(f".bad-{file.name}-tail"), torn)
            with open(file, "r+b") as f:
                f.truncate(len(data) - len(torn))
                os.fsync(f.fileno())
            log.warning("referee journal: torn last line cut (kept beside it)",
                        extra={"file": str(file), "bytes": len(torn)})
        try:
            records = [json.loads(line) for line in lines]
        except ValueError:
            raise LinkError(f"{file.name}: a record is not JSON") from None
        if not records or not all(isinstance(r, dict) for r in records):
            raise LinkError(f"{file.name}: no game record")
        head = records[0]
        if head.get("format") != JOURNAL_FORMAT or not (
                isinstance(head.get("game"), str) and isinstance(head.get("options"), dict)
                and isinstance(head.get("seats"), list)):
            raise LinkError(f"{file.name}: not a game of format {JOURNAL_FORMAT}")
        moves: list[str] = []
        refused: dict[str, int] = {}
        for r in records[1:]:
            if isinstance(r.get("move"), str):
                moves.append(r["move"])
                refused = {k: v for k, v in refused.items() if v > len(moves)}
            elif (isinstance(r.get("refused"), list) and len(r["refused"]) == 2
                  and all(isinstance(x, int) for x in r["refused"])):
                refused[str(r["refused"][0])] = r["refused"][1]
            else:
                raise LinkError(f"{file.name}: a record is neither a move nor a refusal")
        return {"game": head["game"], "options": head["options"], "seats": head["seats"],
                "number": head.get("number", 0), "moves": moves, "refused": refused}

    def _migrate(self) -> None:
        """The old format (every game in one JSON file at :attr:`path`): each game to its
        own file, once."""
        if not self.path.is_file():
            return
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError) as exc:
            raise LinkError(f"referee journal {self.path}: unreadable ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != JOURNAL_FORMAT:
            raise LinkError(f"referee journal {self.path}: not format {JOURNAL_FORMAT}")
        games = data.get("games", {})
        if not isinstance(games, dict):
            raise LinkError(f"referee journal {self.path}: 'games' must be an object of "
                            f"games by id, not a {type(games).__name__}")
        for number, (game_id, r) in enumerate(games.items(), start=1):
            if not isinstance(r, dict) or self._file(game_id).exists():
                continue
            lines = [{"format": JOURNAL_FORMAT, "game_id": game_id, "game": r.get("game"),
                      "options": r.get("options"), "seats": r.get("seats"), "number": number}]
            lines += [{"move": m} for m in r.get("moves", [])]
            lines += [{"refused": [int(k), v]} for k, v in r.get("refused", {}).items()]
            self._ensure()
            _write_new(self._file(game_id),
                       b"".join(json.dumps(x, sort_keys=True).encode() + b"\n" for x in lines))
        os.replace(self.path, self.path.with_name(self.path.name + ".migrated"))
        _fsync_dir(self.path.parent)

    def count(self) -> int:
        """Games ever started here (unfinished, finished and set aside)."""
        return sum(len(list(f.glob("*.jsonl"))) for f in
                   (self.folder, self.archive, self.quarantine) if f.is_dir())

    def known(self, game_id: str) -> bool:
        """Whether ``game_id`` was ever started here (a retained request seen again)."""
        name = f"{game_id}.jsonl"
        return any((f / name).exists() for f in (self.folder, self.archive, self.quarantine))

    # -- writing -----------------------------------------------------------------------
    def begin(self, g: RefereedGame, number: int) -> None:
        self._ensure()
        head = {"format": JOURNAL_FORMAT, "game_id": g.game_id, "game": g.name,
                "options": g.options, "seats": list(g.seats), "number": number}
        _write_new(self._file(g.game_id), json.dumps(head, sort_keys=True).encode() + b"\n")
        _fsync_dir(self.folder)

    def move(self, g: RefereedGame, move: str) -> None:
        self._append(g.game_id, {"move": move})

    def refusal(self, g: RefereedGame, seat: int, ply: int) -> None:
        self._append(g.game_id, {"refused": [seat, ply]})

    def finish(self, game_id: str) -> None:
        """The game has ended: out of the folder read at start-up."""
        self.archive.mkdir(mode=0o700, exist_ok=True)
        os.replace(self._file(game_id), self.archive / f"{game_id}.jsonl")
        _fsync_dir(self.folder)
        _fsync_dir(self.archive)

    def set_aside(self, game_id: str, problem: str) -> None:
        """A damaged game to ``quarantine/`` (kept for a person to look at)."""
        line = f"referee journal: game {game_id} set aside ({problem})"
        self.problems.append(line)
        log.error("refereed game set aside", extra={"game_id": game_id, "problem": problem,
                                                    "folder": str(self.quarantine)})
        self.quarantine.mkdir(mode=0o700, exist_ok=True)
        os.replace(self._file(game_id), self.quarantine / f"{game_id}.jsonl")
        _fsync_dir(self.folder)

    def _file(self, game_id: str) -> Path:
        return self.folder / f"{check_name('game id', game_id)}.jsonl"

    def _ensure(self) -> None:
        if not self.folder.is_dir():
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            _fsync_dir(self.folder.parent)

    def _append(self, game_id: str, record: dict[str, Any]) -> None:
        fd = os.open(self._file(game_id), os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, json.dumps(record, sort_keys=True).encode() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)


#: a refereed game's file larger than this is not read (a game is a few kB)
MAX_GAME_BYTES = 4 * 1024 * 1024


def _write_new(file: Path, data: bytes) -> None:
    """``data`` as the new file ``file`` (mode 0600: it holds the hidden set-ups), synced."""
    tmp = file.with_name(f".tmp-{file.name}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, file)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
        #: games ever started (the numbered seed counts them; finished ones are archived)
        self.started = 0
        self._ended: list[str] = []  # ended games still held, oldest first
        if journal is not None:
            for game_id, r in journal.load().items():
                try:
                    self.games[game_id] = RefereedGame(
                        game_id, r["game"], dict(r["options"]), tuple(r["seats"]),
                        list(r["moves"]), {int(k): v for k, v in r["refused"].items()})
                except (RulesError, ValueError, TypeError) as exc:
                    journal.set_aside(game_id, " ".join(str(exc).split())[:200])
            self.started = journal.count()

    # -- messages in -----------------------------------------------------------------------
    def start(self, start: Start, board: str | None = None) -> list[Out]:
        """``board`` (the topic it wrote on; None: the caller vouches) asks for a refereed
        game: draw its secrets, tell each seat its view.  Only a board that plays one of
        its seats may ask for a game."""
        if start.game_id in self.games or (self.journal is not None
                                           and self.journal.known(start.game_id)):
            return []  # a duplicate (QoS 1), a game under way or one ended
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
            game = self.started + 1 if self.numbered else start.game_id
            options["seed"] = (f"{self.seed}-{game}" if self.seed is not None
                               else secrets.token_hex(16))
        try:
            g = RefereedGame(start.game_id, start.game, options, start.seats)
        except RulesError as exc:
            return self._problem(start.game_id, str(exc))
        if g.game.players != len(start.seats):
            return self._problem(start.game_id, f"{g.game.title} has {g.game.players} seats")
        self.games[g.game_id] = g
        self.started += 1
        if self.journal is not None:
            self.journal.begin(g, self.started)
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
            if self.journal is not None:
                self.journal.refusal(g, a.seat, a.ply)
            log.info("attempt refused", extra={"game_id": g.game_id, "ply": a.ply,
                                               "seat": a.seat})
            return [self._view(g, a.seat, ILLEGAL_MOVE)]
        text = game.long_move_text(pos, move)
        if self.journal is not None:
            self.journal.move(g, text)  # on disk before anyone is told
        g.moves.append(text)
        pos.push(move)
        g.refused.pop(a.seat, None)
        log.info("refereed move", extra={"game_id": g.game_id, "ply": a.ply, "seat": a.seat})
        out = [*self._views(g), self._state(g)]
        if game.outcome(pos) is not None:  # ended: archived, no longer read at start-up
            if self.journal is not None:
                self.journal.finish(g.game_id)
            self._ended.append(g.game_id)
            while len(self._ended) > KEEP_ENDED:  # (its views stay retained on the broker)
                self.games.pop(self._ended.pop(0), None)
            log.info("refereed game ended", extra={"game_id": g.game_id})
        return out

    def close(self, game_id: str) -> list[str]:
        """A game ended outside the rules (a resignation, a clock, an agreement: the club
        server's decisions): archived like one the rules ended; its moves, now public."""
        g = self.games.get(game_id)
        if g is None:
            return []
        if game_id not in self._ended:
            if self.journal is not None:
                self.journal.finish(game_id)
            self._ended.append(game_id)
        return list(g.moves)

    def adopt(self, game_id: str, name: str, options: dict[str, Any], seats: tuple[str, ...],
              moves: list[str]) -> list[Out]:
        """Hold a game whose truth is kept elsewhere (the server's store, when several
        workers referee from it: docs/server.md), replacing any copy held here: its seats'
        views.  RulesError when the record is not a game."""
        g = RefereedGame(game_id, name, dict(options), tuple(seats), list(moves))
        self.games[game_id] = g
        if game_id in self._ended:
            self._ended.remove(game_id)
        if g.game.outcome(g.pos) is not None:
            self._ended.append(game_id)
        return self._views(g)

    def resume(self) -> list[Out]:
        """After a restart: every game's views and state again (they are retained, so
        publishing them twice changes nothing)."""
        out: list[Out] = []
        for g in self.games.values():
            if g.game_id not in self._ended:
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
