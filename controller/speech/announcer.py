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
    """Says the board's events once each, through ``say``.

    ``position`` returns the board's position now (after a committed move); ``listener``
    the player whose ears these are (None: everyone may know everything); ``who`` names a
    seat that is not the person at the board ("The computer"), or returns "".
    """

    def __init__(self, game: Game, position: Callable[[], Position],
                 say: Callable[[Announcement], None], *, lang: str = "en",
                 voice: bool = True, sounds: bool = True,
                 listener: Callable[[], int | None] = lambda: None,
                 who: Callable[[int], str] = lambda player: "") -> None:
        self.game = game
        self._position = position
        self._say = say
        self.lang = lang
        self.voice = voice
        self.sounds = sounds
        self._listener = listener
        self._who = who
        self.seq = 0
        self._executing: Move | None = None  # announced to execute, not yet made
        self._phase: str | None = None
        self._message = ""
        self._ended = False

    # -- the board's events ---------------------------------------------------------------
    def attach(self, board: object) -> None:
        """Listen to ``board`` (a :class:`~controller.board.machine.Board`)."""
        subscribe = board.subscribe  # type: ignore[attr-defined]
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
            text = announce_move(self.game, before, move, after, self._listener(),
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
        """A choice to make, or a board that does not match: said when it begins."""
        phase, message = it.phase, getattr(it, "message", "") or ""
        if phase != self._phase:
            if phase == "choice":
                self._emit("choice", "choice", self._words("choice"))
            elif phase == "correction" and self._phase not in ("correction", "setup"):
                illegal = "illegal" in message.lower()
                self._emit("illegal" if illegal else "mismatch",
                           "illegal" if illegal else "mismatch",
                           self._words("illegal" if illegal else "mismatch"))
        self._phase = phase
        self._message = message

    # -- the seats' events ----------------------------------------------------------------
    def execute(self, move: Move, player: int) -> None:
        """A seat (the computer, a remote player) hands the board ``move`` to make."""
        before = self._position()
        after = before.copy()
        after.push(move)
        self._executing = move
        with speaking(self.lang):
            text = announce_move(self.game, before, move, after, self._listener(),
                                 self._who(player))
            text = f"{text}. {event_words('execute')}"
        self._emit("execute", "execute", text)

    def low_time(self, player: int, seconds: float) -> None:
        """A clock passed a warning mark."""
        with speaking(self.lang):
            text = time_words(self.game, player, seconds)
        self._emit("low_time", "low_time", text)

    # -- helpers --------------------------------------------------------------------------
    def _checks(self, after: Position) -> bool:
        if self.game.hidden_information:
            listener = self._listener()
            view = self.game.player_view(after, listener if listener is not None else 0)
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
