"""A level never plays shallower than the level below (``Level.floor``), in every game.

A node cap buys different depths in different games: about 130 moves a position in
KaleidoChess, 9 in Lotus-39.  The ladder found KaleidoChess' level 4 (1,000 nodes, which
did not finish depth 2 there) weaker than level 3 (depth 2, no cap).  So a capped level's
cap never ends its search before the depth of the level below is complete; these tests
hold that with a clock that never moves (only depth and nodes end a search: the same
answer whatever the machine's load).
"""

from __future__ import annotations

import pytest

from controller.engine import LEVELS, Engine
from controller.rules import get_game

CAPPED = [k for k in sorted(LEVELS) if LEVELS[k].nodes is not None]


def frozen() -> float:
    """A clock that never moves: only depth and nodes can end a search."""
    return 0.0


def test_a_capped_levels_floor_is_the_depth_of_the_level_below():
    assert CAPPED and min(CAPPED) > 1
    for k in CAPPED:
        level = LEVELS[k]
        assert level.floor == LEVELS[k - 1].depth, k
        assert level.floor <= level.depth, k
    assert all(LEVELS[k].floor == 0 for k in LEVELS if k not in CAPPED)


def test_in_kaleidochess_no_level_plays_shallower_than_the_one_below():
    """Levels 3–5 in the start position (130 moves; depth 2 takes about 2,100 nodes,
    depth 3 9,000 or more): level 5's 4,500 nodes would not finish depth 3, nor level 4's
    3,000 depth 2 in every busier position; the floor makes each finish the depth of the
    level below.  (Deeper levels' floors take seconds there: the rule is held as data
    above, and level by level in Gnu Qi below.)"""
    game = get_game("kaleidochess")
    pos = game.start()
    depths = [Engine(game, k, seed=3, clock=frozen).choose(pos).depth for k in (3, 4, 5)]
    assert depths[0] == LEVELS[3].depth
    assert depths[1] >= depths[0] and depths[1] >= LEVELS[4].floor
    assert depths[2] >= depths[1] and depths[2] >= LEVELS[5].floor


@pytest.mark.parametrize("name,top", [("gnuqi", 7), ("luotuoqi", 6)])
def test_every_capped_level_completes_at_least_its_floor(name, top):
    """In the games whose 4 v 3 did not separate (about 40 moves a position; Lùotuoqí's
    depth 5, level 7's floor, takes some 140,000 nodes: seconds), with the clock
    stopped."""
    game = get_game(name)
    pos = game.start()
    last = 0
    for k in range(4, top + 1):
        result = Engine(game, k, seed=3, clock=frozen).choose(pos)
        assert result.depth >= LEVELS[k].floor, k
        assert result.depth >= last, k
        last = result.depth


def test_a_node_cap_the_caller_gives_is_kept_as_given():
    """Tests and benchmarks ask for few nodes to be quick; the floor is the level's own
    rule, not theirs."""
    game = get_game("kaleidochess")
    result = Engine(game, 5, clock=frozen).choose(game.start(), nodes=500)
    assert result.nodes <= 500
    assert result.move in game.legal_moves(game.start())


def test_a_floor_search_is_the_same_for_a_seed_whatever_the_clock():
    """The floor search and the search after it are both bounded by depth and nodes, so
    a level still plays the same move for a seed on a frozen clock and on one that runs
    at a thousandth of the budget per reading."""
    import itertools

    game = get_game("kaleidochess")
    pos = game.start()
    readings = itertools.count()
    step = LEVELS[4].movetime / 1000
    first = Engine(game, 4, seed=7, clock=frozen).choose(pos)
    again = Engine(game, 4, seed=7, clock=lambda: next(readings) * step).choose(pos)
    assert (again.move, again.nodes, again.depth) == (first.move, first.nodes, first.depth)
