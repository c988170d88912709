"""Regression: Chess960 castling made Rook first when the Rook stands on the King's target.

Found by the soak (``benchmarks/soak.py``, Lao Tzu seeds 211, 244, 310, …): White King e1,
Rook c1, O-O-O puts the King on c1 and the Rook on d1.  The player moves the Rook first —
``Rc1-d1`` is a legal move on its own and is committed — then the King onto c1.  That
completes castling, but the board asked for c1 to have been seen empty *after* the Rook's
commit, although the Rook's move had just left it empty: it showed a mismatch and the
game stuck.  The same with the King's side (Rook on g1).
"""

from __future__ import annotations

import pytest

from tests.support.laotzu import GAME, LaoRig


@pytest.mark.parametrize("position,rook,king,castle", [
    ("4k3/8/8/8/8/8/8/2R1K3[] w C - 0 1", ("c1", "d1"), ("e1", "c1"), "O-O-O"),
    ("4k3/8/8/8/8/8/8/4K1R1[] w G - 0 1", ("g1", "f1"), ("e1", "g1"), "O-O"),
])
def test_rook_first_then_the_king_onto_the_rooks_cell_is_castling(position, rook, king,
                                                                   castle):
    rig = LaoRig(position)
    try:
        start = rig.position.copy()
        intended = GAME.parse_move(start, castle)
        rig.move(*rook)
        rig.wait(0.3)
        assert [GAME.move_text(start, m) for m in rig.moves] == [f"R{rook[1]}"]
        rig.move(*king)
        rig.wait(0.3)
        assert rig.position.moves == [intended], rig.interaction
        assert rig.takebacks == [[rig.moves[0]]]  # the Rook's move, replaced by castling
        assert rig.state == "turn" and not rig.interaction.missing
    finally:
        rig.close()
