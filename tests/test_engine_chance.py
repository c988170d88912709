"""KaleidoChess's dice variant: the chance nodes' pruning (Star1, ``Search._chance``)
changes how much is searched, not what is found.

The plain expectimax (``Search.chance_pruning = False``: every face with the full window)
is the reference: in seeded dice positions of the depth-floor check (2 and 4 players)
the pruned search picks the same move with the same score at depths 1 and 2, in fewer
nodes from depth 2 on (at depth 1 the only chance nodes are at the horizon, searched
plainly).  Depth 3 is out of a test's reach: the pruned search alone took 1.5 million
nodes (62 s) in one of these positions.  Node counts, not time: the same on any machine.
"""

from __future__ import annotations

import pytest

from benchmarks.bench_engine import positions
from benchmarks.engine_depth_floor import SEED, rolled
from controller.engine.search import INF, MATE, Limits, Search
from controller.rules import get_game


def dice_positions(players: int, wanted: list[int]) -> list:
    """The depth-floor check's positions ``wanted`` (by number), the die rolled."""
    game = get_game("kaleidochess", dice=True, players=players)
    out = []
    for i, pos in enumerate(positions(game, max(wanted) + 1, SEED)):
        if i in wanted and rolled(game, pos, i):
            out.append((i, pos))
    assert len(out) == len(wanted)
    return out


def search(game, pos, depth: int, pruning: bool, seed: int):
    engine = Search(game, seed=seed)
    engine.chance_pruning = pruning
    return engine.best_move(pos, Limits(depth=depth))


@pytest.mark.parametrize(("players", "depth", "wanted"), [
    (2, 1, [0, 1, 2, 7]),
    (2, 2, [0, 7]),
    (4, 1, [0, 1, 2]),
    (4, 2, [0]),
])
def test_pruned_chance_nodes_find_what_expectimax_finds_in_fewer_nodes(players, depth,
                                                                        wanted):
    game = get_game("kaleidochess", dice=True, players=players)
    pruned_nodes = plain_nodes = 0
    for i, pos in dice_positions(players, wanted):
        plain = search(game, pos, depth, False, i)
        pruned = search(game, pos, depth, True, i)
        assert (pruned.move, pruned.score, pruned.depth) == (
            plain.move, plain.score, plain.depth), f"position {i}"
        assert pruned.nodes <= plain.nodes, f"position {i}"
        pruned_nodes += pruned.nodes
        plain_nodes += plain.nodes
    # at the horizon (depth 1's chance nodes) the faces are searched plainly: Star1's
    # probes cost more there than they save (twice the nodes, measured)
    assert pruned_nodes < plain_nodes if depth > 1 else pruned_nodes <= plain_nodes


@pytest.mark.parametrize("window", [(-INF, INF), (-50, 50), (0, 1), (27_000, 27_001),
                                    (-MATE // 2, -MATE // 2 + 1), (MATE // 7, MATE // 6)])
def test_a_chance_node_is_exact_inside_its_window_and_a_bound_outside(window):
    """Every root move's chance node, pruned with ``window``, against its plain value: the
    same inside the window; past it, a bound on the right side of it."""
    game = get_game("kaleidochess", dice=True)
    ((i, pos),) = dice_positions(2, [0])
    alpha, beta = window
    checked = 0
    for move in game.legal_moves(pos)[:6]:
        values = []
        for pruning, (low, high) in ((False, (-INF, INF)), (True, window)):
            engine = Search(game, seed=i)
            engine.chance_pruning = pruning
            engine.root = engine._evals_for = game.ply_mover(pos)
            pos.push(move)
            try:
                values.append(engine._node(pos, 1, low, high, 2))
            finally:
                pos.pop()
        exact, pruned = values
        if alpha < exact < beta:
            assert pruned == exact, move
        elif exact <= alpha:
            assert exact <= pruned <= alpha, move
        else:
            assert beta <= pruned <= exact, move
        checked += 1
    assert checked
