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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.i18n.lang import LANGUAGES, speaking
from controller.interaction import Interaction
from controller.rules.core import Game, Move, Outcome, Piece, Position
from controller.speech.words import (
    announce_move,
    event_words,
    guide_words,
    heard_move,
    outcome_words,
    sentence,
    time_words,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Announcement:
    """One thing said: ``sound`` (a name of :data:`~controller.speech.sounds.SOUNDS`, or
    empty) and ``text`` (words in ``lang``; empty: the sound alone).  ``seq`` counts the
    announcements of this announcer, so a page that reconnects can tell new from old;
    ``texts`` has the words in every language, built at once from what the listener may
    know, so a German page and the Pi's English speaker hear the same event."""

    seq: int
    event: str
    sound: str
    text: str
    lang: str
    #: the same words in every language (a page reads them in its own)
    texts: Mapping[str, str] = field(default_factory=dict)
    #: the player these words were made for (None: anybody may hear them) — in a game with
    #: hidden information a page is given only its own player's, whoever listens later
    ears: int | None = None


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
        #: a board holding a player's view: the guidance step said last, and the pieces
        #: the table held when play last stood (what a piece to take off is)
        self._guided: tuple[int, bool] | None = None
        self._table: list = []
        self._refused = False  # a refusal of his try said (until play stands again)
        #: a board that holds its player's view: the view another player's turn began
        #: with (None: it is his turn)
        self._away: Position | None = None
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
        ears = self._ears(after)
        self._ended = self.game.outcome(after) is not None
        self._emit("move", "game_end" if self._ended else sound, lambda: announce_move(
            self.game, before, move, after, ears, self._who(mover)), ears=ears)

    def on_takeback(self, moves: list[Move]) -> None:
        self._executing = None
        self._away = None
        self._ended = False

    def on_game_over(self, outcome: Outcome) -> None:
        """The end — said here only when no move said it (resignation, time, agreement)."""
        if self._ended:
            return
        self._ended = True
        self._emit("game_over", "game_end", lambda: outcome_words(self.game, outcome))

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
        if getattr(self.board, "referee_judges", False):
            self._heard(it, message)
        if phase == "setup" and getattr(self.board, "referee_judges", False):
            if "illegal" in message.lower() and not self._refused:  # the referee refused
                self._refused = True  # his try; the board guides him back to his view
                self._emit("illegal", "illegal", lambda: event_words("illegal"),
                           ears=self.board.serving)
            self._guide(it)
        else:
            self._refused = False
            self._guided = None
            if phase not in ("correction", "takeback"):
                self._table = list(self.board.position.board)
        if phase != self._phase:
            if phase == "execute":
                move = self.board.progress.execute
                if move is not None and move != self._executing:
                    self.execute(move, self.game.ply_mover(self._position()))
            elif phase == "choice":
                self._emit("choice", "choice", lambda: event_words("choice"))
            elif phase == "correction" and self._phase not in ("correction", "setup"):
                illegal = "illegal" in message.lower()
                kind = "illegal" if illegal else "mismatch"
                self._emit(kind, kind, lambda: event_words(kind))
        self._phase = phase

    def _heard(self, it: Interaction, message: str) -> None:
        """A board that holds its player's view never sees another player's move: the
        referee hands it the view after it.  When the turn comes back to him one ply
        after the view the other's turn began with, that move is said from the two views
        alone (:func:`heard_move`), before the guidance — never for a view that came
        back because his try was refused, nor for another game's first view (a move of
        another player's moves none of his pieces and takes at most one)."""
        serving, after = self.board.serving, self.board.position
        if serving is None or it.mover is None or after is self._away:
            return
        if it.mover != serving:
            self._away = after  # the other's turn: his move made, accepted, a new game
            return
        before, self._away = self._away, None
        if before is None or "illegal" in message.lower() or not _next_ply(before, after):
            return
        game = self.game
        heard = game.player_view(before, serving), game.player_view(after, serving)
        if heard[0] is None or heard[1] is None:
            return
        mine, left = set(heard[0].own), set(heard[1].own)
        if not left <= mine or len(mine - left) > 1:  # not one move of another player's:
            return  # it moves none of his pieces and takes at most one (another game)
        self._emit("move", "check" if heard[1].in_check else "move",
                   lambda: sentence(heard_move(game, *heard)), ears=serving)

    def _guide(self, it: Interaction) -> None:
        """A board that holds its player's view (``controller/board/fogsync.py``) guides
        him to the view he was handed, one piece at a time: each step is said once, in
        his words — a piece to put on is one of his view, a piece to take off one his
        table held (a piece he cannot see is never named, for it is on neither)."""
        spot = it.guide
        if spot is None:
            return
        put = spot not in it.extra
        if self._guided == (spot, put):
            return
        self._guided = (spot, put)
        board, game = self.board, self.game
        where = board.layout.spots[spot]
        n = len(game.geometry.cells)
        pad = spot >= n
        if pad:
            piece = (Piece(where.owner, where.piece) if where.role == "hand"
                     and where.owner is not None and where.piece else None)
        elif put:
            piece = board.position.board[spot]
        else:
            piece = self._table[spot] if spot < len(self._table) else None
        ears = board.serving
        self._emit("guide", "", lambda: guide_words(game, where.name, piece, put, pad),
                   ears=ears)

    # -- the seats' events ----------------------------------------------------------------
    def execute(self, move: Move, player: int) -> None:
        """A seat (the computer, a remote player) handed the board ``move`` to make."""
        if move == self._executing:
            return  # said already
        before = self._position()
        after = before.copy()
        after.push(move)
        self._executing = move
        ears = self._ears(after)
        self._emit("execute", "execute", lambda: (
            f"{announce_move(self.game, before, move, after, ears, self._who(player))}. "
            f"{event_words('execute')}"), ears=ears)

    def low_time(self, player: int, seconds: float) -> None:
        """A clock passed a warning mark."""
        self._emit("low_time", "low_time", lambda: time_words(self.game, player, seconds))

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

    def _emit(self, event: str, sound: str, words: Callable[[], str] | str,
              ears: int | None = None) -> None:
        """Say ``event``: its sound and ``words`` (built in every language) for ``ears``
        (the player whose view built them; None: words anybody may hear)."""
        sound = sound if self.sounds else ""
        texts: dict[str, str] = {}
        if self.voice and words:
            for code in LANGUAGES:
                with speaking(code):
                    texts[code] = words() if callable(words) else words
        text = texts.get(self.lang, "")
        if not sound and not text:
            return
        self.seq += 1
        try:
            self._say(Announcement(self.seq, event, sound, text, self.lang, texts, ears))
        except Exception:  # a failing speaker must never stop the board
            log.exception("announcement failed", extra={"event": event})


def _next_ply(before: Position, after: Position) -> bool:
    """``after`` is one ply after ``before`` by the move counters: the next player's turn
    of the same round, or the first player's of the next."""
    return after.fullmove == before.fullmove + (after.turn <= before.turn)


class Recent:
    """The last announcements, for the page (which says what it has not said yet)."""

    KEEP = 12

    def __init__(self) -> None:
        self.items: list[Announcement] = []

    def __call__(self, item: Announcement) -> None:
        self.items = [*self.items[-(self.KEEP - 1):], item]

    def json(self) -> list[dict[str, Any]]:
        return [{"seq": a.seq, "event": a.event, "sound": a.sound, "text": a.text,
                 "lang": a.lang, "texts": dict(a.texts), "ears": a.ears} for a in self.items]
