"""The sparring script's greedy player in a game of hidden information plays from its own
view, as a person at the board would: two true positions that look the same to it give
the same move (for the same seed), and the move is always legal in the true position."""

from __future__ import annotations

from benchmarks.spar import Greedy
from controller.rules import get_game
from tests.support.laotzu import lookalike_positions


def test_greedy_in_the_fog_sees_only_its_view():
    a, pa, b, pb = lookalike_positions()
    assert a.player_view(pa, 0) == b.player_view(pb, 0)
    assert a.position_text(pa) != b.position_text(pb)
    for seed in range(4):
        first = Greedy(a, seed).choose(a, pa, a.legal_moves(pa))
        second = Greedy(b, seed).choose(b, pb, b.legal_moves(pb))
        assert first in a.legal_moves(pa) and second in b.legal_moves(pb)
        assert a.move_text(pa, first) == b.move_text(pb, second)


def test_greedy_with_full_information_takes_the_free_piece():
    game = get_game("chess")
    pos = game.parse_position("6k1/5ppp/8/8/3n4/8/5PPP/3Q2K1 w - - 0 1")
    move = Greedy(game, 0).choose(game, pos, game.legal_moves(pos))
    assert game.move_text(pos, move) == "Qxd4"
