"""Mates the search finds cheaper: check extensions near the horizon only, and
mate-distance pruning.

In Lùotuoqí's mates in two the defender often holds the Cube, so the mate lies five
plies deep; extending every check let the attacker's chasing checks (check, King step,
check again) each buy another ply, and depth 5 took 200,000 nodes.  A check is now
extended only where it would otherwise meet the horizon.  Node limits, not time, keep
these tests deterministic.
"""

from __future__ import annotations

from controller.engine import Limits, Search
from controller.engine.search import MATE
from controller.rules import get_game

#: Black mates in two (White holds the Cube); tests/data/tactics/mate2/luotuoqi.txt
FIVE_PLIES = "rmd1k2r/1t21t21e1e/1e6/4t23/8/8/8/3T12K1 b - w 0 16"


def test_a_five_ply_cube_mate_is_found_within_a_node_budget_that_was_too_small():
    """Depth 5 used to take about 200,000 nodes here (65,000 ended it inside depth 5);
    now about 60,000."""
    game = get_game("luotuoqi")
    pos = game.parse_position(FIVE_PLIES)
    result = Search(game).best_move(pos, Limits(depth=5, nodes=65_000))
    assert game.move_text(pos, result.move) == "T2e5-g3"
    assert result.mate_in == 4 and result.depth == 5  # 5 plies, two of them Cube first ones


def test_a_node_past_a_mate_already_in_hand_is_not_searched():
    """Mate-distance pruning: at ply 3 nothing can beat a mate at ply 2 for the root
    player, nor be worse than being mated at ply 2: the node ends at once."""
    game = get_game("gnuqi")
    pos = game.start()
    search = Search(game)
    search.root = game.ply_mover(pos)
    assert search._node(pos, 4, MATE - 2, MATE, 3) == MATE - 2
    assert search._node(pos, 4, -MATE, -MATE + 2, 3) == -MATE + 2
    assert search.nodes == 2  # one tick each, no move searched
    assert search._node(pos, 1, -MATE, MATE, 3) not in (MATE - 2, -MATE + 2)
    assert search.nodes > 3


#: Black mates in two by T2e5-e3 or T3d6-d3 (White holds the Cube, and hands it back);
#: Ra8-a1+ mates in three single moves — as many plies (five)
TWO_TURNS_OR_THREE = "r2t3k3/2e5/3t34/4t23/8/8/8/4K3 b q w 0 10"


def test_of_two_mates_as_many_plies_deep_the_one_in_fewer_turns_is_chosen():
    """A Cube turn's first ply counts half toward the mate's distance: the mate in two
    (B, W W, B B) scores above the mate in three (B, W, B, W, B); before, both were five
    plies and the search kept the first it found, Ra8-a1."""
    game = get_game("luotuoqi")
    pos = game.parse_position(TWO_TURNS_OR_THREE)
    result = Search(game).best_move(pos, Limits(depth=5))
    assert game.move_text(pos, result.move) in ("T2e5-e3", "T3d6-d3")
    assert result.mate_in == 4  # five plies, two of them a Cube turn's first
