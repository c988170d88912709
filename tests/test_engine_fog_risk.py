"""The computer in Lao Tzu weighs what it cannot see: a move is judged by what it risks
in the positions its view allows, not by how many of them it wins in."""

from __future__ import annotations

import random
from collections import Counter

from controller.engine.fog import (
    draw_positions,
    ranked_tries,
    risk_averse,
    same_try,
    unseen_enemies,
)
from controller.engine.search import Limits
from controller.rules import get_game

#: bound by depth, as in tests/test_engine_fog.py: the same view gives the same answer
LIMITS = Limits(depth=2, movetime=30.0)

#: White's Queen on d2 sees the Black Pawn on d6 down the file; the cells that would
#: defend it (c7, e7, c5, e5, the Queen's and Bishops' lines) are out of White's sight
QUEEN_FOR_A_PAWN = "rnbqkbnr/pp2pppp/3p4/8/8/8/PPPQPPPP/RNB1KBNR[P] w KQkq - 0 5"


def test_a_capture_defended_in_most_consistent_positions_is_declined():
    game = get_game("laotzu")
    view = game.player_view(game.parse_position(QUEEN_FOR_A_PAWN), 0)
    capture = next(m for m in view.moves() if view.move_text(m) == "Qxd6")
    drawn = draw_positions(game, view, random.Random(0), 20)
    defended = 0
    for pos in drawn:
        taken = next(m for m in game.legal_moves(pos) if same_try(m, capture))
        pos.push(taken)
        defended += any(m.target == capture.target for m in game.legal_moves(pos))
        pos.pop()
    assert defended > len(drawn) // 2  # the premise: the Pawn is defended in most of them
    for seed in range(6):  # (the plain vote of before took the Pawn with seed 3)
        first = ranked_tries(game, view, LIMITS, seed=seed)[0]
        assert view.move_text(first) != "Qxd6"


def test_a_move_that_loses_heavily_in_some_positions_ranks_below_a_quiet_one():
    # wins a Pawn in six positions of eight, loses the Queen for it in two
    gamble = [100] * 6 + [-800] * 2
    quiet = [0] * 8
    assert sum(gamble) / len(gamble) < 100  # (the plain mean still says +-ish)
    assert risk_averse(gamble) < risk_averse(quiet)
    assert risk_averse([300] * 8) > risk_averse(quiet)
    # one mate found in one drawn position does not outweigh the others
    assert risk_averse([10**6] + [-200] * 7) < 0


def test_the_unseen_army_counts_pieces_dropped_back():
    # White took a Knight and dropped it: the Knight is White's now, not an unseen
    # Black one; Black took a White Pawn and holds it in hand
    game = get_game("laotzu")
    pos = game.parse_position(
        "r1bqkbnr/pppppppp/8/8/8/5N2/PPPPPPP1/RNBQKBNR[p] w KQkq - 0 5")
    view = game.player_view(pos, 0)
    unseen = unseen_enemies(view) + Counter(p.kind for _, p in view.enemies)
    assert unseen["N"] == 1 and unseen["P"] == 8 and unseen["K"] == 1


def test_the_unseen_army_is_drawn_near_home_early_in_the_game():
    # at the start White sees nothing of Black's army: a uniform draw would put his King
    # on the back rank one time in four (8 of the 32 unseen cells, ranks 5–8); near home
    # it is there in most draws, and his Pawns mostly on their starting rank
    game = get_game("laotzu")
    view = game.player_view(game.start(), 0)
    drawn = draw_positions(game, view, random.Random(7), 20)
    kings_home = pawns_home = pawns = 0
    for pos in drawn:
        for cell, piece in enumerate(pos.board):
            if piece is None or piece.owner != 1:
                continue
            if piece.kind == "K":
                kings_home += cell // 8 == 7
            elif piece.kind == "P":
                pawns += 1
                pawns_home += cell // 8 == 6
    assert kings_home >= 0.75 * len(drawn)
    assert pawns_home >= 0.5 * pawns
