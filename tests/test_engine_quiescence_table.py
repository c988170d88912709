"""Quiescence remembers its results by position (``Search._quiet``): the same values as
searching every capture sequence again, for fewer nodes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchmarks.bench_engine import positions
from controller.engine import Engine
from controller.engine.search import INF, QUIESCENCE_PLIES, Search
from controller.rules import get_game


class Unremembered(Search):
    """The search as it was: every quiescence position searched as if met first."""

    def _quiesce(self, pos, alpha, beta, ply, left, moves=None, in_check=False,
                 counted=False):
        return self._quiesce_position(pos, alpha, beta, ply, left, moves, in_check,
                                      counted, self._key(pos))


def _quiescence(search: Search, pos) -> tuple[int, int]:
    search.root = search.game.ply_mover(pos)
    search.nodes = 0
    value = search._quiesce(pos, -INF, INF, 0, QUIESCENCE_PLIES)
    return value, search.nodes


@pytest.mark.parametrize("name", ["luotuoqi", "chess", "kaleidochess", "gnuqi", "lotus39"])
def test_the_remembered_quiescence_values_are_the_searched_ones(name):
    game = get_game(name)
    fewer = 0
    for pos in positions(game, 40, 5):
        remembered, nodes = _quiescence(Search(game), pos)
        searched, all_nodes = _quiescence(Unremembered(game), pos)
        assert remembered == searched, game.position_text(pos)
        assert nodes <= all_nodes
        fewer += nodes < all_nodes
    assert fewer > 0


def test_luotuoqis_depth_three_costs_fewer_nodes_where_it_missed_its_floor():
    """A seeded position (the depth-floor check's number 6) where depth 3 did not
    complete within the floor's 2 s: with the table it needs over a tenth fewer nodes."""
    game = get_game("luotuoqi")
    pos = list(positions(game, 7, 7))[6]
    engine = Engine(game, 6, seed=6)
    limits = replace(engine.limits(), depth=3, nodes=None, movetime=None)
    with_table = engine.search.best_move(pos, limits)
    plain = Unremembered(game, seed=6).best_move(pos, limits)
    assert with_table.depth == plain.depth == 3
    assert with_table.nodes < 0.9 * plain.nodes
    assert with_table.move in game.legal_moves(pos)
