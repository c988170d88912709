"""Regression: a split-merge made with the Cube is never committed as the opposite merge.

Found by the random-play property test (seed 18587416): Black hands the Cube over
first, lifts his whole two-stone Tower on d7, puts one stone on his Tower on d6 and the
other back on d7, then lifts d6 to tap it.  At that moment the board shows d6 empty and
d7 full — the picture of the opposite merge d6→d7 with the Cube — and d7 had been seen
empty.  The board kept that "seen empty" because d7 was filled again while something else
was off the board; but the only thing off the board was the Cube, on its way to the other
pad, which never arrives on a cell.  It committed the wrong merge.
"""

from __future__ import annotations

import pytest

from tests.support.rig import GAME, Rig

#: Black to move and holding the Cube: T2 on d7, T1 on d6
POSITION = "7k/3t24/3t14/8/8/8/8/7K b - b 0 1"


@pytest.mark.parametrize("analog", [False, True])
def test_cube_first_then_a_split_merge_tapped_is_that_move(analog):
    rig = Rig(POSITION, analog=analog)
    pos = rig.position
    intended = next(m for m in GAME.legal_moves(pos)
                    if GAME.move_text(pos, m) == "T1d7-d6=T2+cube")
    rig.move("black-cube", "white-cube")
    rig.lift("d7")            # the whole Tower
    rig.place("d6", 1)        # one stone onto the d6 Tower
    rig.place("d7", 1)        # the other back
    rig.lift("d6")            # the tap begins: now d6 empty, d7 full
    rig.wait(0.5)
    assert rig.moves == [], f"committed {rig.moves} while the target was in the hand"
    rig.place("d6", 2)
    rig.wait(0.5)
    if rig.state == "choice":
        rig.answer(intended)
        rig.wait(0.3)
    assert rig.moves == [intended] and rig.takebacks == []
    assert rig.state == "turn"
