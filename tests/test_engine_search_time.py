"""The time manager starts an iteration that would have fitted (Lùotuoqí's Cube).

When the defender holds the Cube, depth 2 (its two plies over every first move) costs
dozens of times depth 1, so the growth alone predicts a depth 3 far beyond the budget —
though depth 3 is cheap and finds the mate.  The clock here counts nodes, so the tests
are deterministic whatever the machine's load.
"""

from __future__ import annotations

from controller.engine import Limits, Search
from controller.engine.search import GROWTH, expected_time
from controller.rules import get_game

#: Black to move mates in two; White holds the Cube (tests/data/tactics/mate2/luotuoqi.txt)
CUBE_DEFENDER = "rmdt2k1mr/e1ee2e1/e4ee1/8/8/2E1t4E2/EEE1E2E/RMDT8KDR1 b Qkq w 0 7"
SOLUTIONS = ("T1e3-f2", "T2e3-f2")
NODES_PER_SECOND = 10_000


def _node_clock_search(game) -> Search:
    """A search whose clock is its node count: one second per 10,000 nodes."""
    search = Search(game)
    search.clock = lambda: search.nodes / NODES_PER_SECOND
    return search


def test_an_iteration_is_started_while_a_fair_share_of_the_budget_is_left():
    """Depth 1 takes ~130 nodes and depth 2 ~8,000: the growth (capped at 8) expected
    depth 3 to take 64,000 nodes, half of it beyond the 30,000 budget, so the search used
    to stop at depth 2 without the mate; depth 3 takes ~18,000 more nodes and finds it."""
    game = get_game("luotuoqi")
    pos = game.parse_position(CUBE_DEFENDER)
    result = _node_clock_search(game).best_move(pos, Limits(movetime=3.0))
    assert game.move_text(pos, result.move) in SOLUTIONS
    assert result.mate_in == 3 and result.depth == 3
    assert game.position_text(pos) == game.position_text(game.parse_position(CUBE_DEFENDER))


def test_the_budget_still_ends_the_search():
    """With a tenth of the budget, depth 3 is not started beyond what is left (the
    search stops inside it and answers with depth 2's move)."""
    game = get_game("luotuoqi")
    pos = game.parse_position(CUBE_DEFENDER)
    result = _node_clock_search(game).best_move(pos, Limits(movetime=0.9))
    assert result.depth == 2 and result.mate_in is None
    assert result.nodes <= 0.9 * NODES_PER_SECOND + 512  # the clock is read every 512


def test_the_expected_time_knows_that_every_other_depth_is_dear():
    # a dear depth 4 after a cheap depth 3: the growth before (1.2) predicts depth 5
    assert expected_time([0.5, 0.6, 6.0]) == 6.0 * GROWTH[0]
    # steady growth: the last one's, within the bounds
    assert expected_time([0.1, 0.4, 1.6]) == 1.6 * 4
    assert expected_time([0.0, 0.01, 0.5]) == 0.5 * GROWTH[1]
    assert expected_time([0.0, 0.0, 0.01]) == 0.01 * GROWTH[1]
