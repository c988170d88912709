"""The speed paths of the rules (issue #20) against the rules written plainly.

Each fast listing is compared, move for move (the same Move values in any order), with a
plain reference generator over positions of seeded random play.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from controller.rules import get_game
from controller.rules.core import Game, Move, Position
from controller.rules.kaleidochess import CASTLE_SET, KaleidoChess, destinations


def random_play(game: Game, seed: int, plies: int) -> list[Position]:
    """The positions of one seeded random game (copies, the game not over)."""
    rng = random.Random(seed)
    pos = game.start()
    out = []
    for _ in range(plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        out.append(pos.copy())
        pos.push(rng.choice(moves))
    return out


def kaleido_reference(game: KaleidoChess, pos: Position) -> list[Move]:
    """KaleidoChess's moves without the dice and the repetition ban, each built anew."""
    board = pos.board
    mover = pos.turn
    players = game.players
    cells_of: list[list[int]] = [[] for _ in range(players)]
    for c, p in enumerate(board):
        if p is not None:
            cells_of[p.owner].append(c)
    held = [0] * players
    for c in CASTLE_SET:
        if (p := board[c]) is not None:
            held[p.owner] += 1
    ban = pos.state.get(f"ban{mover}")
    moves = []
    for origin in cells_of[mover]:
        for target in destinations(board, origin):
            if ban is not None and tuple(ban) == (origin, target):
                continue
            if players > 2 and (origin in CASTLE_SET or target in CASTLE_SET):
                moves.append(game._castle_move(board, mover, origin, target, held, cells_of))
            else:
                caps = (target,) if board[target] is not None else ()
                moves.append(Move("move", origin, target, board[origin], None, caps))
    return moves


@pytest.mark.parametrize("players", [2, 3, 4])
def test_kaleidochess_listing_matches_the_plain_generator(players: int) -> None:
    game = get_game("kaleidochess", players=players)
    checked = 0
    for seed in range(40):
        for pos in random_play(game, seed, 120):
            assert Counter(game.legal_moves(pos)) == Counter(kaleido_reference(game, pos))
            checked += 1
    assert checked > 200
