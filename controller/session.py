"""The game session and its journal: the only writer of records.

:class:`Scorebook` owns the journal folder, the game being played (:class:`GameSession`)
and its journal file.  It learns about the game from the board's events — a committed
move, a takeback, the end — and writes each as one record before the board shows it
(``GameWriter`` fsyncs).  A refused write (disk full, I/O error) fails the service: the
failure is kept here, and nothing that is not on disk is shown as done.

On start it picks the game to resume from the journal's records; a file that cannot be
read is quarantined (renamed aside) and reported, never in the way of another game.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.clock import GameClock
from controller.i18n import Text, text_of
from controller.journal import GameRecord, GameWriter, Journal, JournalError
from controller.link.messages import Start
from controller.rules import GAMES, Game, Move, Outcome, Position, RulesError, get_game
from controller.rules.core import Termination

log = logging.getLogger("fairyboard.service")


class JournalWriteError(OSError):
    """The journal refused a record (disk full, I/O error): the service stops with
    status 1; nothing that is not on disk is shown as done."""


@dataclass
class GameSession:
    """The game being played and its journal file.  The position itself is the state
    machine's (``board.position``): one truth."""

    game: Game
    setup: str
    options: dict[str, Any]
    writer: GameWriter
    #: (player, notation) per committed ply, in journal order
    plies: list[tuple[int, str]] = field(default_factory=list)
    #: the end record is written
    ended: bool = False
    #: the seats' clocks when the game is played on a clock (``board.clock``)
    game_clock: GameClock | None = None
    #: a fallen flag already acted on (ended the game, or reported with on_flag = report)
    flag: int | None = None
    #: a linked game (controller/link): its start message (seats by board name)
    link: Start | None = None

    @property
    def game_id(self) -> str:
        return self.writer.path.stem


@dataclass(frozen=True)
class Ply:
    """A committed move as the journal wrote it."""

    player: int
    text: str
    long: str
    amend: bool


class Scorebook:
    """The journal and the session it writes.  ``on_fail`` is called once a write was
    refused (the service stops)."""

    def __init__(self, journal: Journal, on_fail: Callable[[], None]) -> None:
        self.journal = journal
        self._on_fail = on_fail
        self.session: GameSession | None = None
        #: journal files that could not be read (quarantined) or were damaged, one line each
        self.problems: list[str] = []
        #: set when a journal write failed: the service stops (exit status 1)
        self.failure: str | None = None
        #: the number of the journal's newest game (see :meth:`resumable`)
        self.last_seq = 0

    # -- writing ---------------------------------------------------------------------
    def write(self, record: Callable[..., Any], *args: Any) -> Any:
        """One journal record; a refusal (disk full, I/O error) fails the service."""
        if self.failure is not None:
            raise JournalWriteError(self.failure)
        try:
            return record(*args)
        except OSError as exc:
            self.fail(f"journal write failed: {exc.strerror or exc}")
            raise JournalWriteError(self.failure) from exc

    def fail(self, message: str) -> None:
        """Keep the first failure (``/health`` says why) and tell the service."""
        if self.failure is None:
            self.failure = message
            log.error("journal write failed; stopping",
                      extra={"problem": message, "journal": str(self.journal.folder)})
        self._on_fail()

    # -- the events ------------------------------------------------------------------
    def move(self, pos: Position, move: Move, amend: bool,
             remaining: list[float] | None) -> Ply:
        """A committed move (already pushed on ``pos``): one ``move`` record, or one
        ``amend`` record when it replaces the last one (a token handed over after it) —
        a kill never leaves the journal without the move the board showed.  Returns once
        the record is on disk."""
        s = self.session
        assert s is not None
        game = s.game
        last = pos.pop()  # notation is written in the position before the move
        try:
            text = game.move_text(pos, move)
            long = game.long_move_text(pos, move)
            player = game.ply_mover(pos)
            shown = game.player_move_text(pos, move)
        finally:
            pos.push(last)
        clock = () if remaining is None else (remaining,)  # a game without a clock: none
        self.write(s.writer.amend if amend else s.writer.move, text, long, *clock)
        if amend:
            s.plies.pop()
        s.plies.append((player, shown))
        return Ply(player, text, long, amend)

    def takeback(self, plies: int) -> None:
        """``plies`` taken back; a takeback after the end reopens the game."""
        s = self.session
        assert s is not None
        self.write(s.writer.takeback, plies)
        del s.plies[len(s.plies) - plies:]
        s.ended = False

    def seats(self, seats: dict[str, Any]) -> None:
        """Who plays and how changed mid-game (the Coach box): one ``seats`` record."""
        s = self.session
        if s is not None and not s.ended:
            self.write(s.writer.seats, seats)

    def end(self, outcome: Outcome) -> bool:
        """The game ended; False when its end record was already written."""
        s = self.session
        assert s is not None
        if s.ended:
            return False
        self.write(s.writer.end, outcome.result, outcome.reason)
        s.ended = True
        return True

    def abandon(self) -> None:
        """The current game is left unfinished (result ``*``) and its file closed."""
        s = self.session
        if s is None:
            return
        if not s.ended:
            self.write(s.writer.end, "*", Termination.ABANDONED)
            s.ended = True
            log.info("game abandoned", extra={"game_id": s.game_id, "plies": len(s.plies)})
        s.writer.close()

    def close(self, remaining: list[float] | None) -> None:
        """Shutdown: the clocks as they stopped (for a restart), the file closed."""
        s = self.session
        if s is None:
            return
        if remaining is not None and not s.ended:
            with contextlib.suppress(Exception):  # shutting down: the moves are kept
                s.writer.clock(remaining)
        s.writer.close()

    # -- starting and resuming ---------------------------------------------------------
    def new(self, game: Game, options: dict[str, Any], setup: str, players: list[str],
            control: str, link: Start | None = None,
            seats: dict[str, Any] | None = None) -> GameSession:
        """A new journal game (not yet the current one: :meth:`install` makes it so).
        ``seats``: who plays and how (the computer, the coach), kept for a resume."""
        link_record = {"game_id": link.game_id, "seats": list(link.seats)} if link else None
        if link_record is not None and game.hidden_information:
            link_record["refereed"] = True  # the journal holds views, never the game
        writer = self.write(self.journal.new_game, game.name, options, setup, players, None,
                            control or None, link_record, seats, self.last_seq + 1)
        self.last_seq += 1
        return GameSession(game, setup, options, writer, link=link)

    def install(self, session: GameSession) -> None:
        self.session = session

    def resumable(self, games: tuple[str, ...] | list[str]) -> Iterator[GameRecord]:
        """The games to try to resume, best first: the most recent unfinished game of one
        of ``games`` (the games this board can play), by the journal's own numbering of
        its games — not by file name, which a clock that ran behind gets wrong — and
        then by start date; when it cannot be read, the one before it, and so on.
        Unreadable files are quarantined first."""
        records, problems = self.journal.scan()
        for problem in problems:
            self.quarantine(problem.path, problem.problem)
        self.last_seq = max((r.seq or 0 for r in records), default=0)
        records.sort(key=recency)
        for record in reversed(records):
            if not record.finished and record.game in games:
                yield record

    def unreadable(self, record: GameRecord, exc: BaseException) -> None:
        """``record`` could not be resumed (the file, not the board): set it aside."""
        problem = exc.problem if isinstance(exc, JournalError) else None
        self.quarantine(record.path, problem or " ".join(str(exc).split()).removeprefix(
            f"{record.path.name}: "))

    def quarantine(self, path: Path, problem: str) -> None:
        try:
            aside: Path | str = self.journal.quarantine(path)
        except OSError as exc:
            aside = Text("(cannot rename: {problem})", problem=str(exc.strerror or exc))
        line = Text("{file}: {problem}; quarantined as {aside}", file=path.name,
                    problem=problem, aside=getattr(aside, "name", aside))  # (page: its language)
        self.problems.append(line)
        log.warning("journal file unreadable; quarantined", extra={
            "file": path.name, "problem": problem, "quarantined": str(aside)})

    def continued(self, record: GameRecord) -> tuple[GameSession, Position]:
        """The unfinished game ``record`` as a session, with its whole history (takebacks,
        repetitions).  JournalError: the file cannot be resumed."""
        try:
            game, pos = record.replay(salvage=True)
            plies = plies_of(game, record)
        except (RulesError, TypeError, ValueError) as exc:
            if isinstance(exc, JournalError):
                raise
            problem = text_of(exc) if isinstance(text_of(exc), Text) else " ".join(
                str(exc).split())
            raise JournalError(Text.join(": ", [record.path.name, problem]), problem) from None
        if record.damage:
            self.problems.append(record.damage)
            log.warning("journal damaged; resuming the moves before the damage", extra={
                "game_id": record.id, "plies": len(plies), "dropped": record.damage})
        writer = self.write(self.journal.continue_game, record)
        return GameSession(game, record.setup, dict(record.options), writer, plies), pos

    def continued_view(self, record: GameRecord, game: Game,
                       link: Start | None) -> GameSession:
        """A refereed game (``link``) or an online one with hidden information: the journal
        holds its first view only (the board never knows more)."""
        return GameSession(game, record.setup, dict(record.options),
                           self.write(self.journal.continue_game, record), link=link)

    def continued_online_view(self, record: GameRecord) -> tuple[GameSession, Position]:
        """An online game with hidden information (:func:`online_view`): its first view,
        which the server's view then brings up to date.  JournalError: it cannot be."""
        try:
            game = get_game(record.game, **record.options)
            pos = game.parse_view(record.setup)
        except RulesError as exc:
            raise JournalError(Text.join(": ", [record.path.name, text_of(exc)]),
                               str(exc)) from None
        return self.continued_view(record, game, None), pos

    def has_link_game(self, game_id: str) -> bool:
        """Whether this board's journal holds the linked game ``game_id``."""
        return any(r.link and r.link.get("game_id") == game_id for r in self.journal.games())


def online_view(record: GameRecord) -> bool:
    """Whether ``record`` is an online game with hidden information: the board plays it
    on its owner's view, so the journal holds that view and his tries, never the game
    (its moves cannot be replayed; the server holds the game)."""
    cls = GAMES.get(record.game)
    return (cls is not None and cls.hidden_information
            and isinstance((record.seats or {}).get("online"), dict))


def recency(record: GameRecord) -> tuple:
    """Sorts a journal's games oldest first: numbered games (in their start order) after
    the games written before they were numbered (by start date, then file name)."""
    if record.seq is not None:
        return (1, record.seq)
    return (0, record.date, record.path.name)


def plies_of(game: Game, record: GameRecord) -> list[tuple[int, str]]:
    """(player, notation as that player sees it) per ply of ``record``."""
    pos = game.parse_position(record.setup)
    out = []
    for text in record.moves:
        player = game.ply_mover(pos)
        move = game.parse_move(pos, text)
        out.append((player, game.player_move_text(pos, move)))
        pos.push(move)
    return out


__all__ = ["GameSession", "JournalWriteError", "Ply", "Scorebook", "plies_of"]
