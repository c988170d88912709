"""The simulator's scripted moves (the page's click-click moves and the API) are made the
way the board asks, so each commits — a merge included, whose target Tower must be tapped
(issue 17 #12: a scripted merge never committed)."""

from __future__ import annotations

import pytest

from controller.web.simulator import move_actions
from tests.support.service import make_service

#: rules §8.1: White T4 b7, T2 d7; Black Eaglets f7 b4, Bypasser e4
TOWERS = "7k/1T41T21e2/8/8/1e2d3/8/7K/8 w - b 0 1"


@pytest.mark.parametrize("text", ["T4b7-d7=T6", "T2b7-d7=T4", "T2d7-b7=T6", "T3b7xb4"])
def test_a_scripted_move_commits_exactly_that_move(tmp_path, text):
    svc = make_service(tmp_path)
    try:
        svc.new_game("luotuoqi", {}, TOWERS)
        svc.sim_action({"action": "arrange"})
        svc.step(0.1)
        pos = svc.position
        move = svc.game.parse_move(pos, text)
        for action in move_actions(svc.game, pos, move, svc.layout):
            svc.sim_action(action)
            svc.step(0.05)
        svc.step(0.3)
        if svc.interaction.phase == "choice":  # a split size the sensors cannot tell
            svc.answer_choice(svc.choice_labels().index(text))
            svc.step(0.1)
        assert svc.position.moves[-1:] == [move], svc.interaction
    finally:
        svc.close()
