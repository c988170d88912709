"""True fog of war on a player's own board (docs/board.md, "A board of one's own: fog of
war through a referee").

In a linked game with hidden information each player has a board of his own and only the
referee (``controller/link/referee.py``) holds the whole position.  The board holds its
player's *view position* (``Game.view_position``: his pieces, the enemy pieces he sees,
the public hands; hidden cells empty) and nothing else.  This module keeps the board's
state machine (:class:`~controller.board.machine.Board`) on that position:

* after every ply — his own, the opponent's, a capture, a drop, a refusal — the referee's
  new view becomes the position the physical board must show, and the machine's set-up
  verification guides the player there one piece at a time (:meth:`Board.resync`): newly
  visible enemy pieces to put on, pieces gone out of sight (or captured) to take off, each
  checked by the sensors before play goes on;
* a move the player makes is not his board's to judge (it cannot see the hidden pieces): it
  goes out as an *attempt* (:attr:`FogSync.outbox`) and the board waits for the referee's
  answer; a refusal brings the previous view back with "illegal move";
* the board serves its own player, whoever moves (``Board.serving``).

Pure: no broker; ``controller/link/remote.py`` carries the attempts and the views.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.board.machine import Board
from controller.rules.core import Move, Outcome, Position

#: a move the next gesture may still change (a Rook moved beside its King: castling)
#: goes to the referee after this long without that change (seconds of board time)
AMEND_WAIT = 1.5


def outcome_of(result: str, reason: str) -> Outcome:
    """The :class:`Outcome` a result text (``1-0``, ``0-1``, ``1/2-1/2``, ``winner 0,2``)
    and its reason describe."""
    if result == "1-0":
        return Outcome((0,), reason)
    if result == "0-1":
        return Outcome((1,), reason)
    if result.startswith("winner "):
        return Outcome(tuple(int(w) for w in result[7:].split(",")), reason)
    return Outcome((), reason)


@dataclass(frozen=True)
class Tried:
    """A move the player made on his board: ply ``ply`` in long notation, for the referee."""

    ply: int
    move: str


class FogSync:
    """``board`` is ``seat``'s own board in a refereed game (see the module docstring)."""

    def __init__(self, board: Board, seat: int) -> None:
        self.board = board
        self.seat = seat
        self.ply = 0  # plies the last view counts
        self.view_text: str | None = None
        self.outbox: list[Tried] = []
        self.result: Outcome | None = None  # the referee's, shown once the board matches
        #: piles on the hand pads whose count changed while they stayed occupied (the
        #: sensors cannot count them): (owner, kind, count), told on the page
        self.hand_notes: list[tuple[int, str, int]] = []
        self._refused = ""  # the refusal shown with the view
        self._then = False  # the board shows the emptied cells first; the view follows
        #: the board as the sensors last confirmed it (in play, matching its position)
        self._verified: list = list(board.position.board)
        board.serving = seat
        board.referee_judges = True
        board.shown.sight = None
        self._held: tuple[Tried, float] | None = None  # a move that may still be amended
        board.subscribe("move", self._moved)
        board.subscribe("takeback", self._amended)

    def detach(self) -> None:
        """The board plays on its own again (another game)."""
        board = self.board
        for kind, fn in (("move", self._moved), ("takeback", self._amended)):
            listeners = getattr(board.listeners, kind)
            if fn in listeners:
                listeners.remove(fn)
        board.serving = None
        board.referee_judges = False
        board.shown.sight = None

    @property
    def waiting(self) -> bool:
        """A move was tried and the referee has not answered yet."""
        return bool(self.outbox) and self.outbox[-1].ply == self.ply + 1

    def rewind(self) -> None:
        """The referee took plies back: the next view is shown, though it counts fewer
        plies than the one shown now."""
        self.ply = 0
        self.outbox = []
        self._held = None

    def show(self, ply: int, position_text: str, refused: str = "",
             result: str | None = None, reason: str | None = None) -> bool:
        """The referee's view after ``ply`` plies: the board must show it before play goes
        on.  A view older than the one shown is ignored (False)."""
        if ply < self.ply or (not self.waiting and (ply, position_text, refused) == (
                self.ply, self.view_text, self._refused)):
            return False  # an older view, or the same again (retained, duplicated)
        board = self.board
        game = board.game
        before = board.position.board
        hands_before = [dict(h) for h in board.position.hands]
        self.ply, self.view_text, self._refused = ply, position_text, refused
        self.outbox = [t for t in self.outbox if t.ply > ply and not refused]
        self._held = None
        self.result = outcome_of(result, reason or "") if result else None
        new = self._position()
        self.hand_notes = [
            (owner, kind, n) for owner, hand in enumerate(new.hands)
            for kind, n in sorted(hand.items())
            if n and hands_before[owner].get(kind, 0) not in (0, n)]
        # a cell whose piece changes but stays occupied (his piece captured where the
        # enemy piece now stands) looks the same to the sensors: it is emptied first —
        # against what the board expected and what it last confirmed (a view may arrive
        # before the player finished the last one)
        swaps = [c for c, p in enumerate(new.board) if p is not None and c < len(before)
                 and any(b[c] is not None and b[c] != p for b in (before, self._verified))]
        if swaps:
            for c in swaps:
                new.put(c, None)
            self._then = True
            board.resync(game.parse_view(game.position_text(new)), refused)
            board.set_away(frozenset(range(game.players)))  # nothing is played meanwhile
        else:
            self._then = False
            self._resync(refused)
        self.poll()
        return True

    def _resync(self, message: str = "") -> None:
        board = self.board
        board.resync(self._position(), message)
        board.set_away(frozenset(range(board.game.players)) - {self.seat})

    def poll(self) -> None:
        """Call after frames: the view follows the emptied cells once the board shows
        them; once the board shows the final view, the game is over."""
        board = self.board
        if board.state in ("turn", "game_over"):
            self._verified = list(board.position.board)
        if self._held is not None and board.now - self._held[1] >= AMEND_WAIT:
            self.outbox.append(self._held[0])
            self._held = None
        if self._then and board.progress.started:
            self._then = False
            self._resync()
        if (self.result is not None and not self._then and board.progress.started
                and board.state not in ("game_over", "paused")):
            board.end_on_time(self.result)

    def _position(self) -> Position:
        assert self.view_text is not None
        return self.board.game.parse_view(self.view_text)

    def _moved(self, move: Move) -> None:
        """The player made a move on his board: it becomes an attempt."""
        if self.view_text is None or self.waiting:
            return
        board = self.board
        self._verified = list(board.position.board)  # the sensors saw the move made
        tried = Tried(self.ply + 1, board.game.long_move_text(self._position(), move))
        if board.reconciler.amendable is not None:
            self._held = (tried, board.now)  # see AMEND_WAIT
        else:
            self.outbox.append(tried)

    def _amended(self, moves: list[Move]) -> None:
        """The board replaced the move just made (castling completed): the held attempt
        goes; the replacement follows through :meth:`_moved`."""
        self._held = None
