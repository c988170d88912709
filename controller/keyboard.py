"""The keyboard player: a move typed in the game's notation or by its cells ("Nc3",
"b1 c3", "b1-c3", "T2d1-d4", "P@e5", "2G-3D"), the moves it may mean (pure), and the
room that carries the one it means out on the board.

:func:`typed_moves` never guesses: text that fits several moves returns them all, for the
player to pick one.  It is handed the moves the player may try and their texts as he may
be told them (``controller/sight.py``), so in a game with hidden information it cannot
list a move only the truth allows.

:class:`KeyboardHand` is how a typed move reaches the board.  On the simulated board the
simulated hand makes it the way a person would, one action per beat of the simulated
clock, so the board learns of it through its sensors like any move (and a choice the
sensors cannot settle is answered with the move that was typed, which is the player's own
choice, not a guess).  On a real board it is shown like the computer's move (the board's
execute flow: lit on the LEDs, announced, "make this move on the board") and the player
makes it with his own hands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from controller.rules.core import Game, Move, Position

#: seconds of simulated time between two actions of the keyboard's simulated hand
HAND_STEP_S = 0.08
#: how long after its last action the hand waits for a choice the move may open
CHOICE_WAIT_S = 3.0


class KeyboardError(ValueError):
    """A typed move the board cannot carry out now: one line says why."""


def _cells_in(game: Game, text: str) -> list[int]:
    """The cell names in ``text``, left to right, longest name first at each place (any
    letter case; other characters separate them)."""
    names = {name.casefold(): i for i, name in enumerate(game.geometry.cells)}
    longest = max(len(n) for n in names)
    folded = text.casefold()
    found: list[int] = []
    i = 0
    while i < len(folded):
        for size in range(min(longest, len(folded) - i), 0, -1):
            word = folded[i:i + size]
            before = folded[i - 1] if i else " "
            if word in names and not (before.isdigit() and word[:1].isdigit()):
                found.append(names[word])
                i += size
                break
        else:
            i += 1
    return found


def typed_moves(game: Game, pos: Position, moves: Sequence[Move], text: str,
                text_of: Callable[[Move], str]) -> list[Move]:
    """The moves of ``moves`` that ``text`` may mean: the one whose notation (as
    ``text_of`` writes it, or the game's long form) it is — exactly, then in any letter
    case — else those that go between the cells it names (one cell: the moves that end
    there), narrowed by a leading piece letter, a capture mark ``x`` and a promotion
    ``=Q`` when it has them.  Empty: nothing fits."""
    text = text.strip()
    if not text:
        return []
    written = [(m, text_of(m), game.long_move_text(pos, m)) for m in moves]
    for fold in (str, str.casefold):
        exact = [m for m, short, long in written if fold(text) in (fold(short), fold(long))]
        if exact:
            return exact
    body = text.rstrip("+#!?")
    promotion = ""
    if "=" in body:
        body, promotion = body.split("=", 1)
    cells = _cells_in(game, body)
    if not cells or len(cells) > 2:
        return []
    letter = body.lstrip()[:1]
    kind = letter if letter.isupper() and letter in game.piece_names else ""
    if kind and cells and game.geometry.cells[cells[0]].startswith(letter):
        kind = ""  # the letter begins a cell's name (KaleidoChess' fields, say)
    takes = bool(re.search(r"[x×:]", body.casefold()))
    found = []
    for m in moves:
        if len(cells) == 2 and (m.origin, m.target) != (cells[0], cells[1]):
            continue
        if len(cells) == 1 and m.target != cells[0]:
            continue
        if kind and (m.piece is None or m.piece.kind != kind) and not (
                m.origin >= 0 and pos.board[m.origin] is not None
                and pos.board[m.origin].kind == kind):
            continue
        if takes and not m.captures:
            continue
        if promotion and m.promotion.upper() != promotion.strip().upper()[:1]:
            continue
        found.append(m)
    return found


class KeyboardHand:
    """Carries typed moves out on ``service``'s board (see the module's docstring).  It
    owns the simulated hand's pending actions and the move they make."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.pending: list[dict[str, Any]] = []
        self.move: Move | None = None
        self._ticker: Any = None
        self._waits = 0  # beats left to wait for a choice after the last action
        self._plies = 0  # the game's plies when the hand began
        self._until = 0.0  # simulated time by which the hand is done, whatever happens
        self._sim: Any = None  # the simulated board it works on
        self._session: Any = None  # the game it plays

    @property
    def busy(self) -> bool:
        """The hand is still making a move (its actions, or the wait for a choice).  It
        is done once the move is made (the next may be typed at once, not a beat later),
        when the game it played is gone (a new game, a takeback, another simulated board,
        whose clock no longer beats its ticker) and, as a resting simulated board skips
        its tickers, when its time is up."""
        if self._ticker is not None and (self._done() or self.service.sim.now > self._until):
            self._stop()
        return self._ticker is not None

    def _done(self) -> bool:
        """Nothing more for the hand to do on this board: its move made and no action
        left, or the board it was working on gone."""
        service = self.service
        plies = len(service.plies)
        return (service.sim is not self._sim or service.session is not self._session
                or service.stopping or plies < self._plies
                or (plies > self._plies and not self.pending))

    def make(self, move: Move) -> str:
        """Start making ``move`` (legal as the player may know it): "hand" on the
        simulated board, "shown" on a real one."""
        service = self.service
        if self.busy:
            raise KeyboardError("the hand is still making the last move")
        if service.sim is None:
            service.board.execute(move)
            service.changed()
            return "shown"
        from controller.sensing.sim.hand import move_actions

        self.pending = move_actions(service.game, service.position, move, service.layout)
        self.move = move
        self._waits = round(CHOICE_WAIT_S / HAND_STEP_S)
        self._plies = len(service.plies)
        sim = self._sim = service.sim
        self._session = service.session
        self._until = sim.now + HAND_STEP_S * (len(self.pending) + 2) + CHOICE_WAIT_S
        self._ticker = sim.every(HAND_STEP_S, lambda: self._step(sim), phase_s=HAND_STEP_S)
        # the first action at once: a resting board (no change for a while) skips its
        # tickers, and a changed board does not rest
        self._step(sim)
        return "hand"

    def _step(self, sim: Any) -> None:
        service = self.service
        if self._done():  # the move made, a new game or board, or shutting down
            self._stop()
            return
        if not self.pending:
            self._waits -= 1
            if self._answer_choice() or self._waits <= 0:
                self._stop()
            return
        try:
            service.sim_action(self.pending.pop(0))
        except ValueError:  # the board changed under the hand (a new game): give up
            self._stop()

    def _answer_choice(self) -> bool:
        """A choice the sensors could not settle: the move that was typed is the answer
        (True: answered)."""
        service = self.service
        board = service.board
        choice = board.choice if board is not None else None
        if choice is None or self.move not in choice.values:
            return False
        service.answer_choice(list(choice.values).index(self.move))
        return True

    def _stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        self._ticker = None
        self.pending = []
        self.move = None
