"""The board test rig itself (tests/support/rig.py): it recognises a set-up and plays."""

from __future__ import annotations

import random

from tests.support.rig import GAME, Human, Rig


def test_rig_starting_position_is_recognised() -> None:
    rig = Rig()
    assert rig.state == "turn"
    assert rig.interaction.mover == 0
    assert not rig.interaction.missing and not rig.interaction.extra


def test_rig_human_plays_the_first_moves() -> None:
    rig = Rig()
    human = Human(rig, random.Random(1))
    for text in ("Mb1-c3", "Eb7-a6", "Ec2-d3"):
        human.play(GAME.parse_move(rig.position, text))
    assert len(rig.moves) == 3
