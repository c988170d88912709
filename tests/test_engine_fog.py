"""The computer in Lao Tzu Chess plays from its own view: it never sees a hidden piece.

The engine's input is the player's view alone; these tests show that positions drawn
from a view agree with it, and that two different true positions that look the same to
the player give the same answer.
"""

from __future__ import annotations

import random

from controller.engine.fog import ranked_tries, sample_text, unseen_enemies
from controller.engine.search import Limits
from controller.opponent import think_from_view
from controller.rules import get_game
from tests.support.laotzu import lookalike_positions

#: bound by depth (the time is ample): a search cut short by the clock answers by how
#: busy the machine is, and the same view must give the same move for the test to prove
#: anything
LIMITS = Limits(depth=2, movetime=30.0)


def test_two_true_positions_that_look_the_same_give_the_same_move():
    a, pa, b, pb = lookalike_positions()
    va, vb = a.player_view(pa, 0), b.player_view(pb, 0)
    assert va == vb and a.position_text(pa) != b.position_text(pb)
    public = {"castling": "chess960"}
    first = think_from_view("laotzu", public, va, level=4, seed=5, limits=LIMITS)
    second = think_from_view("laotzu", public, vb, level=4, seed=5, limits=LIMITS)
    assert first == second and first


def test_drawn_positions_agree_with_the_view():
    game = get_game("laotzu", seed=11)
    pos = game.start()
    rng = random.Random(3)
    for _ in range(12):
        pos.push(rng.choice(game.legal_moves(pos)))
    me = pos.turn
    view = game.player_view(pos, me)
    drawn = 0
    for k in range(20):
        try:
            sample = game.parse_position(sample_text(view, random.Random(k)))
        except ValueError:
            continue
        drawn += 1
        seen = game.player_view(sample, me)
        assert (seen.own, seen.enemies, seen.visible, seen.hands) == (
            view.own, view.enemies, view.visible, view.hands)
    assert drawn >= 5
    assert sum(unseen_enemies(view).values()) + len(view.enemies) <= 16


def test_the_ranked_tries_are_moves_the_player_may_try():
    game = get_game("laotzu")
    pos = game.start()
    view = game.player_view(pos, 0)
    tries = ranked_tries(game, view, LIMITS, seed=1, samples=3)
    assert sorted(map(repr, tries)) == sorted(map(repr, view.moves()))
