"""The page simulator's castling is what a person does — both pieces lifted, then both
placed — so it commits on one board even when the King's target is the Rook's origin
or King and Rook swap cells (Chess960 arrays, Lao Tzu set-ups); the piece-by-piece
actions used to end in a correction there.  A swap leaves every cell as occupied as it
was: the sensors cannot tell it, so the board asks to confirm it (a silent move), and
while both pieces are in the hand it shows the two empty cells to fix until they are
put down."""

from __future__ import annotations

import pytest

from controller.web.simulator import move_actions
from tests.support.service import make_service

CHESS960 = ("chess", {"chess960": True})
LAOTZU = ("laotzu", {"castling": "chess960"})
#: (game, options, set-up, castling, a silent swap): King to the Rook's cell; King and
#: Rook swap; the King stays put; an ordinary castling; Lao Tzu's first two on one board
CASES = [(*CHESS960, "4k3/8/8/8/8/8/8/1RK3R1 w GB - 0 1", "O-O", False),
         (*CHESS960, "4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "O-O", True),
         (*CHESS960, "4k3/8/8/8/8/8/8/1RK3R1 w GB - 0 1", "O-O-O", False),
         (*CHESS960, "4k3/8/8/8/8/8/8/R3K2R w HA - 0 1", "O-O", False),
         (*LAOTZU, "4k3/8/8/8/8/8/8/1RK3R1 w GB - 0 1", "O-O", False),
         (*LAOTZU, "4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "O-O", True)]


@pytest.mark.parametrize(("game", "options", "setup", "text", "swap"), CASES)
def test_simulated_castling_commits_without_a_correction(tmp_path, game, options, setup,
                                                         text, swap):
    svc = make_service(tmp_path)
    try:
        svc.new_game(game, options, setup)
        svc.sim_action({"action": "arrange"})
        svc.step(0.1)
        pos = svc.position
        move = svc.game.parse_move(pos, text)
        assert move.also, "not a castling"
        phases = []
        for action in move_actions(svc.game, pos, move, svc.layout):
            svc.sim_action(action)
            svc.step(0.05)
            phases.append(svc.interaction.phase)
        svc.step(0.3)
        phases.append(svc.interaction.phase)
        if swap:  # the board asks: the person confirms the one move it saw
            assert phases[-1] == "choice" and svc.choice_labels() == [text], phases
            svc.answer_choice(0)
            svc.step(0.1)
            assert "correction" not in phases[phases.index("choice"):], phases
        else:
            assert "correction" not in phases, (phases, svc.interaction)
        assert svc.position.moves[-1:] == [move], svc.interaction
    finally:
        svc.close()
