"""The announcer: a room that listens to the board's events and says each one once — a
sound and, with the voice on, words — for the person at the board.

It owns only what it has said (so nothing is said twice) and learns everything from the
board's events (``move``, ``game_over``, ``interaction``) and from the seats that hand the
board a move to execute (:meth:`Announcer.execute`) or whose clock runs low
(:meth:`Announcer.low_time`).  In a game with hidden information it speaks for the player
the board serves: another player's move is told from that player's views alone
(:func:`~controller.speech.words.heard_move`).  Where the words go — the Pi's speaker
(:class:`~controller.speech.speaker.Speaker`), the page, a test — is the ``say`` callback's
business."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.interaction import Interaction
from controller.rules.core import Game, Move, Outcome, Position
from controller.speech.lang import speaking
from controller.speech.words import announce_move, event_words, outcome_words, time_words

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Announcement:
    """One thing said: ``sound`` (a name of :data:`~controller.speech.sounds.SOUNDS`, or
    empty) and ``text`` (words in ``lang``; empty: the sound alone).  ``seq`` counts the
    announcements of this announcer, so a page that reconnects can tell new from old."""

    seq: int
    event: str
    sound: str
    text: str
    lang: str


class Announcer:
    """Says the events of ``board`` (a :class:`~controller.board.machine.Board`) once each,
    through ``say``.

    ``listener`` returns the player whose ears these are (None: everyone may know
    everything); ``who`` names a seat that is not the person at the board ("The
    computer"), or returns ""; ``remaining`` a player's seconds on the clock (None: no
    clock).  Both are called while the words are built, in the announcer's language.
    """

    def __init__(self, board: Any, say: Callable[[Announcement], None], *,
                 lang: str = "en", voice: bool = True, sounds: bool = True,
                 listener: Callable[[], int | None] = lambda: None,
                 who: Callable[[int], str] = lambda player: "",
                 remaining: Callable[[int], float | None] = lambda player: None) -> None:
        self._say = say
        self.lang = lang
        self.voice = voice
        self.sounds = sounds
        self._listener = listener
        self._who = who
        self._remaining = remaining
        self.seq = 0
        self._executing: Move | None = None  # announced to execute, not yet made
        self._phase: str | None = None
        self._low = False
        self._ended = False
        self.board = board
        self.attach(board)

    @property
    def game(self) -> Game:
        return self.board.game

    def _position(self) -> Position:
        return self.board.position

    # -- the board's events ---------------------------------------------------------------
    def attach(self, board: Any) -> None:
        """Listen to ``board`` (again after the service built a new one)."""
        self.board = board
        subscribe = board.subscribe
        subscribe("move", self.on_move)
        subscribe("game_over", self.on_game_over)
        subscribe("takeback", self.on_takeback)
        subscribe("interaction", self.on_interaction)

    def on_move(self, move: Move) -> None:
        """A committed move (already on the board's position)."""
        live = self._position()
        last = live.pop()  # the position before the move (a copy keeps no undo log)
        try:
            before = live.copy()
        finally:
            live.push(last)
        after = live.copy()
        sound = ("check" if self._checks(after) else
                 "capture" if move.captures else "move")
        if self._executing is not None and move == self._executing:
            self._executing = None
            self._emit("move", sound, "")  # its words were said when it was shown
            return
        self._executing = None
        mover = self.game.ply_mover(before)
        with speaking(self.lang):
            text = announce_move(self.game, before, move, after, self._ears(after),
                                 self._who(mover))
        self._ended = self.game.outcome(after) is not None
        self._emit("move", "game_end" if self._ended else sound, text)

    def on_takeback(self, moves: list[Move]) -> None:
        self._executing = None
        self._ended = False

    def on_game_over(self, outcome: Outcome) -> None:
        """The end — said here only when no move said it (resignation, time, agreement)."""
        if self._ended:
            return
        self._ended = True
        with speaking(self.lang):
            text = outcome_words(self.game, outcome)
        self._emit("game_over", "game_end", text)

    def on_interaction(self, it: Interaction) -> None:
        """A choice to make, a board that does not match, a move to execute, low time:
        each said when it begins."""
        phase, message = it.phase, it.message or ""
        low = bool(it.low_time)
        if low and not self._low and it.mover is not None:
            seconds = self._remaining(it.mover)
            if seconds is not None:
                self.low_time(it.mover, seconds)
        self._low = low
        if phase != self._phase:
            if phase == "execute":
                move = self.board.progress.execute
                if move is not None and move != self._executing:
                    self.execute(move, self.game.ply_mover(self._position()))
            elif phase == "choice":
                self._emit("choice", "choice", self._words("choice"))
            elif phase == "correction" and self._phase not in ("correction", "setup"):
                illegal = "illegal" in message.lower()
                self._emit("illegal" if illegal else "mismatch",
                           "illegal" if illegal else "mismatch",
                           self._words("illegal" if illegal else "mismatch"))
        self._phase = phase

    # -- the seats' events ----------------------------------------------------------------
    def execute(self, move: Move, player: int) -> None:
        """A seat (the computer, a remote player) handed the board ``move`` to make."""
        if move == self._executing:
            return  # said already
        before = self._position()
        after = before.copy()
        after.push(move)
        self._executing = move
        with speaking(self.lang):
            text = announce_move(self.game, before, move, after, self._ears(after),
                                 self._who(player))
            text = f"{text}. {event_words('execute')}"
        self._emit("execute", "execute", text)

    def low_time(self, player: int, seconds: float) -> None:
        """A clock passed a warning mark."""
        with speaking(self.lang):
            text = time_words(self.game, player, seconds)
        self._emit("low_time", "low_time", text)

    # -- helpers --------------------------------------------------------------------------
    def _ears(self, after: Position) -> int | None:
        """Who hears a move: the listener; in a game with hidden information shared at
        one board (nobody named), the player to move next — never the whole truth."""
        listener = self._listener()
        if listener is None and self.game.hidden_information:
            return self.game.ply_mover(after)
        return listener

    def _checks(self, after: Position) -> bool:
        if self.game.hidden_information:
            view = self.game.player_view(after, self._ears(after))
            return bool(view is not None and view.in_check)
        return self.game.in_check(after)

    def _words(self, event: str) -> str:
        with speaking(self.lang):
            return event_words(event)

    def _emit(self, event: str, sound: str, text: str) -> None:
        sound = sound if self.sounds else ""
        text = text if self.voice else ""
        if not sound and not text:
            return
        self.seq += 1
        try:
            self._say(Announcement(self.seq, event, sound, text, self.lang))
        except Exception:  # a failing speaker must never stop the board
            log.exception("announcement failed", extra={"event": event})


class Recent:
    """The last announcements, for the page (which says what it has not said yet)."""

    KEEP = 12

    def __init__(self) -> None:
        self.items: list[Announcement] = []

    def __call__(self, item: Announcement) -> None:
        self.items = [*self.items[-(self.KEEP - 1):], item]

    def json(self) -> list[dict[str, Any]]:
        return [{"seq": a.seq, "event": a.event, "sound": a.sound, "text": a.text,
                 "lang": a.lang} for a in self.items]
