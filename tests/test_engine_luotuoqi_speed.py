"""What made the engine's Lùotuoqí nodes cheaper, held to its behaviour.

Lùotuoqí's node cost is mostly the rules' move list (the Cube holder's, with every Cube
option, is twice as dear as the other side's).  So where only mate ends the game
(``mate_only`` in ``values.toml``: chess, Lùotuoqí) a node not in check is cut by reverse
futility, or stands pat in quiescence, before its moves are listed; and the check status
the search asks at every node is remembered per position and handed to the evaluation
instead of being asked again.  None of it may change a search of any other game.
"""

from __future__ import annotations

import random

import pytest

from controller.engine import Evaluator, Limits, Search
from controller.rules import GAMES, get_game


def _positions(game, count: int, seed: int) -> list:
    """The start and seeded random-play positions with moves left."""
    rng = random.Random(seed)
    out = [game.start()]
    while len(out) < count:
        pos = game.start()
        for _ in range(rng.randint(6, 30)):
            moves = game.legal_moves(pos)
            if not moves or moves[0].kind == "roll":
                break
            pos.push(rng.choice(moves))
        if game.legal_moves(pos) and game.outcome(pos) is None:
            out.append(pos)
    return out


class _AskingEvaluator(Evaluator):
    """The evaluation as before: it asks the rules whether the mover is in check."""

    def score(self, pos, player, in_check=None):
        return super().score(pos, player)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_handing_the_check_status_over_changes_no_search(name):
    game = get_game(name)
    for pos in _positions(game, 3, 7):
        fast = Search(game).best_move(pos, Limits(depth=2))
        asking = Search(game, evaluator=_AskingEvaluator(game)).best_move(pos, Limits(depth=2))
        assert (fast.nodes, fast.move, fast.score) == (asking.nodes, asking.move,
                                                       asking.score), game.position_text(pos)


def test_the_evaluation_with_the_check_status_given_is_the_same():
    game = get_game("luotuoqi")
    evaluator = Evaluator(game)
    for pos in _positions(game, 12, 3):
        checked = game.in_check(pos, game.ply_mover(pos))
        for player in (0, 1):
            assert evaluator.score(pos, player, checked) == evaluator.score(pos, player)


def test_most_luotuoqi_nodes_are_decided_without_a_move_list():
    """Before, nearly every node listed its moves (0.98 lists a node on these searches);
    now the horizon and the nodes cut by reverse futility do not."""
    game = get_game("luotuoqi")
    listed = 0
    plain = game.legal_moves

    def counting(pos):
        nonlocal listed
        listed += 1
        return plain(pos)

    game.legal_moves = counting  # this instance only
    nodes = 0
    for pos in _positions(game, 3, 1):
        nodes += Search(game).best_move(pos, Limits(depth=3)).nodes
    assert nodes > 1000
    assert listed < 0.6 * nodes, (listed, nodes)
