"""Regression: a whole Tower lifted for a split that slides over a cell, with the Cube
handed over first, is never committed as two moves of a Cube turn.

Found by the random-play property test (seed 19321): Black hands the Cube over, lifts his
whole three-stone Tower on e6, touches e5 on the way, puts two stones on e4 and the third
back on e6 — the split e6-e4 with the Cube.  The brief stop on e5 showed the picture of
the whole Tower's move e6-e5, which the board did not hold (no *whole* Tower goes on past
e5, only a split does), so it committed e6-e5 with the Cube and then, the Cube turn being
a double move, e5-e4 as the second move: two wrong commits the remainder could not mend.
"""

from __future__ import annotations

import pytest

from tests.support.rig import GAME, Rig

#: the position of the failing game: Black to move, holding the Cube; a three-stone Tower
#: on e6 with e5 and e4 empty
POSITION = "4k2r/8/rt1t11t33/8/3D4/5T22/2T25/R3KT11R b KQk b 5 21"


@pytest.mark.parametrize("analog", [False, True])
def test_whole_tower_slid_over_a_cell_with_the_cube_is_the_split(analog):
    rig = Rig(POSITION, analog=analog)
    pos = rig.position
    intended = next(m for m in GAME.legal_moves(pos)
                    if m.kind == "split" and m.token == "cube"
                    and GAME.geometry.cell("e6") == m.origin
                    and GAME.geometry.cell("e4") == m.target and m.piece.height == 2)
    rig.move("black-cube", "white-cube")
    rig.lift("e6")             # the whole Tower in the hand
    rig.place("e5", 3, 0.03)   # touched on the way …
    rig.lift("e5", None, 0.02)
    rig.place("e4", 2)         # … two stones down on e4
    rig.place("e6", 1)         # the third back
    rig.wait(0.5)
    if rig.state == "choice":
        rig.answer(intended)
        rig.wait(0.3)
    assert rig.position.moves[-1:] == [intended], f"committed {rig.moves}"
    replaced = [m for t in rig.takebacks for m in t]
    assert rig.moves == [*replaced, intended] and len(replaced) == len(rig.takebacks)
    assert rig.state == "turn"
