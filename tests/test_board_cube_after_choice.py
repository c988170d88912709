"""The Cube handed over right after a move confirmed on a choice (issue 37, Found 10).

A stone moved onto its own Tower changes no sensor of a reed board, so the board asks the
player to confirm the move; handing the Cube over after that confirmation was refused (a
correction was asked for) — only handing it over first worked.  Now the confirmed move is
amended to the same move with the Cube, as after any other move."""

from __future__ import annotations

import random

import pytest

from tests.support.rig import GAME, Human, Rig

#: White to move and holding the Cube: T1 on d8, T2 on c7
POSITION = "3T13k/2T25/8/8/8/8/8/7K w - w 0 1"


@pytest.mark.parametrize("analog", [False, True])
def test_the_cube_handed_over_after_a_confirmed_move_amends_it(analog):
    rig = Rig(POSITION, analog=analog)
    pos = rig.position
    moves = {GAME.move_text(pos, m): m for m in GAME.legal_moves(pos)}
    plain, with_cube = moves["T1c7-d8=T2"], moves["T1c7-d8=T2+cube"]
    for step in Human(rig, random.Random(1)).steps(pos, plain):
        step()
        rig.wait(0.05)
    rig.wait(0.4)
    assert rig.state == "choice"  # a silent move: confirmed on the option pads
    rig.answer(plain)
    rig.wait(0.3)
    assert rig.moves == [plain] and rig.state == "turn"
    rig.move(rig.layout.pad("token", 0, "cube").name, rig.layout.pad("token", 1, "cube").name)
    rig.wait(0.5)
    assert rig.state == "turn", (rig.state, rig.interaction.message)  # was "correction"
    assert rig.position.moves[-1] == with_cube and rig.moves[-1] == with_cube
    assert rig.position.tokens["cube"] == 1
