"""King of the Hill: chess, and a King that reaches one of the four centre squares wins.

A test-only seventh game (``docs/adding-a-game.md``): one module on :class:`Chess`, its
one ending declared as data, registered by ``tests/conftest.py`` with
:func:`controller.rules.register_game`.  Nothing outside this module and its data (a
layout naming it) changes for the command line, the board, the engine and the page.
"""

from __future__ import annotations

from controller.rules.chess import Chess
from controller.rules.core import Outcome, Position, Termination

#: the hill: d4, e4, d5, e5 (bit numbers, a1 = 0)
HILL = (27, 28, 35, 36)
#: the game's own ending, in its words
KING_ON_THE_HILL = "king on the hill"


class KingOfTheHill(Chess):
    """Chess; a King on d4, e4, d5 or e5 wins at once (after mate and stalemate)."""

    name = "kingofthehill"
    title = "King of the Hill"
    endings = {KING_ON_THE_HILL: Termination.VARIANT_WIN}
    uci_chess = False  # a UCI chess engine would play it as chess: the hill is unknown to it
    guide = "chess"  # a test's game: the players' guide of the game it is built on

    def special_outcome(self, pos: Position) -> Outcome | None:
        board = self.geometry
        for cell in HILL:
            piece = pos.board[board.at(cell % 8, cell // 8)]
            if piece is not None and piece.kind == "K":
                return self.ended((piece.owner,), KING_ON_THE_HILL)
        return super().special_outcome(pos)
