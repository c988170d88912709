"""The engine with three or four players (paranoid and best-reply search) and with dice.

Best-reply search (``opponents="brs"``) searches sequences that cannot happen in play —
one opponent moves while the others pass — so these tests check that what it returns is
always a legal move and that the search leaves the position exactly as it found it.
"""

from __future__ import annotations

import random

import pytest

from controller.engine import Engine
from controller.engine.search import MATE, MATE_BOUND, OPPONENT_MODELS, Limits, Search
from controller.rules import get_game


def _played(players: int, seed: int, plies: int):
    """A KaleidoChess position after ``plies`` seeded random moves (no capitulations)."""
    game = get_game("kaleidochess", players=players)
    rng = random.Random(seed)
    pos = game.start()
    for _ in range(plies):
        moves = [m for m in game.legal_moves(pos) if len(m.captures) <= 1]
        if not moves or game.outcome(pos) is not None:
            break
        pos.push(rng.choice(moves))
    return game, pos


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("opponents", OPPONENT_MODELS)
def test_every_answer_is_legal_and_the_position_is_left_as_it_was(players, opponents):
    for seed in range(6):
        game, pos = _played(players, seed, 6 + 3 * seed)
        if game.outcome(pos) is not None:
            continue
        before, keys, moves = pos.snapshot(), list(pos.keys), list(pos.moves)
        search = Search(game, seed=seed, opponents=opponents)
        result = search.best_move(pos, Limits(depth=3, nodes=4000))
        assert result.move in game.legal_moves(pos)
        assert pos.snapshot() == before and pos.keys == keys and pos.moves == moves


def test_best_reply_search_sees_the_reply_of_an_opponent_who_is_not_next():
    # White's only castle piece is a Pawn on 1J; Black's Roc (not Red, who moves next)
    # can take it whatever White does.  Two plies of paranoid search see only Red's
    # reply; two plies of best-reply search see Black's.
    game = get_game("kaleidochess", players=3)
    pos = game.parse_position("1J=wP,5B=wP,2J=bR,3J=rW,5J=bW w - - - 0 1")
    paranoid = Search(game, opponents="paranoid").best_move(pos, Limits(depth=2))
    brs = Search(game, opponents="brs").best_move(pos, Limits(depth=2))
    assert paranoid.mate_in is None
    assert brs.mate_in == -2
    assert Search(game, opponents="paranoid").best_move(pos, Limits(depth=3)).mate_in == -3


@pytest.mark.parametrize("opponents", OPPONENT_MODELS)
def test_being_put_out_is_a_loss_though_the_others_play_on(opponents):
    # Red's Roc takes White's last castle piece: White is out and Red and Black play on.
    # That is White's loss at once, not a position to evaluate by the pieces left.
    game = get_game("kaleidochess", players=3)
    pos = game.parse_position("1J=wP,5B=wP,2J=rR,3J=rW,5J=bW w - - - 0 1")
    result = Search(game, opponents=opponents).best_move(pos, Limits(depth=2))
    assert result.mate_in == -2


def test_the_opponent_model_is_checked_and_reaches_the_search():
    game = get_game("kaleidochess", players=4)
    assert Engine(game, level=3, opponents="brs").search.opponents == "brs"
    with pytest.raises(ValueError, match="opponents must be one of"):
        Search(game, opponents="maxn")


def test_a_rolled_node_at_the_horizon_whose_every_move_loses_is_not_stood_pat_on():
    # White (roll 3: a Tiger or a Roc) holds one castle, with its Wizard.  The Roc can take
    # Black's Dragon, the Tiger can take a second castle.  Should White roll a 5 next turn
    # (Wizard only) with one castle, every move gives it up and loses.  Two plies reach
    # White's next roll only at the horizon: the search must see that face as a loss.
    game = get_game("kaleidochess", dice=True)
    pos = game.parse_position("1I=wR,1J=wW,2H=wT,5J=bW,7J=bR,8G=bD w - 3 - 0 1")
    castle = game.parse_move(pos, "2H-3J")
    result = Search(game).best_move(pos, Limits(depth=2))
    assert result.move == castle
    assert abs(result.score) < MATE_BOUND


def test_chance_nodes_score_both_players_forced_losses_alike():
    # Mirror images: whoever rolls the Wizard (a 5) with one castle loses.  At depth 2
    # Black's next roll is inside the search and White's at its horizon: Black loses on
    # a sixth of the rolls, White on a sixth of the rest — expectimax over both.
    game = get_game("kaleidochess", dice=True)
    pos = game.parse_position("1J=wW,2H=wP,5J=bW,6H=bP w - 1 - 0 1")
    score = Search(game).best_move(pos, Limits(depth=2)).score
    assert abs(score - MATE * (1 / 6 - 5 / 6 * 1 / 6)) < 100
