"""Every move of every game can be typed (``controller.keyboard.typed_moves``, pure): in
its notation and its long form it is the one move found; in lower case, and by its two
cells (with a space or a dash), it is among those found — drops, stacks, the Cube's
double moves, KaleidoChess's fields such as 4E, Lao Tzu's moves as the player's view
writes them.  Positions from seeded random games (the same on every run) of players
who do not lose at once."""

from __future__ import annotations

import random

import pytest

from controller.keyboard import typed_moves
from controller.rules import get_game
from controller.sight import Sight
from tests.support.service import not_losing_at_once

#: (game, games played, plies each, the first moves of each game)
PLAYS = [("chess", 1, 24, ()), ("luotuoqi", 1, 24, ()), ("gnuqi", 1, 24, ()),
         ("kaleidochess", 1, 12, ()), ("lotus39", 2, 24, ()), ("laotzu", 1, 24, ()),
         # both sides with a Pawn in hand at once: the drops
         ("laotzu", 1, 6, ("e4", "d5", "exd5", "Qxd5"))]
#: the moves of each position tried (drawn; all of them when there are fewer)
TRIED = 4


def _typings(game, pos, move, short):
    cells = game.geometry.cells
    yield "exact", short
    yield "exact", game.long_move_text(pos, move)
    yield "among", short.lower()
    if move.origin >= 0 and move.target >= 0 and move.origin != move.target:
        yield "among", f"{cells[move.origin]} {cells[move.target]}"
        yield "among", f"{cells[move.origin].lower()}-{cells[move.target].lower()}"


@pytest.mark.parametrize("name, games, plies, opening", PLAYS)
def test_every_move_can_be_typed(name, games, plies, opening):
    game = get_game(name)
    rng = random.Random(34)
    missed, tried, kinds = [], 0, set()
    for _ in range(games):
        pos = game.start()
        for text in opening:
            pos.push(game.parse_move(pos, text))
        for _ in range(plies):
            legal = game.legal_moves(pos)
            if not legal:
                break
            seen = Sight(game, pos, game.ply_mover(pos) if game.hidden_information else None)
            if seen.view is not None:
                moves, text_of = seen.view.moves(), seen.view.move_text
            else:
                moves = legal
                def text_of(m, pos=pos):
                    return game.move_text(pos, m)
            written = {text_of(m): m for m in moves}
            for move in rng.sample(moves, min(TRIED, len(moves))):
                short = text_of(move)
                for how, typed in _typings(game, pos, move, short):
                    if how == "among" and written.get(typed, move) != move:
                        continue  # "bxc6": the Pawn's capture, not the Bishop's "Bxc6"
                    found = typed_moves(game, pos, moves, typed, text_of)
                    tried += 1
                    kinds.add(move.kind)
                    if found != [move] if how == "exact" else move not in found:
                        missed.append((short, typed, [text_of(m) for m in found][:4]))
            pos.push(rng.choice(not_losing_at_once(game, pos)))  # a game that goes on
    assert tried > 150 if not opening else "drop" in kinds, (tried, kinds)
    assert missed == [], missed[:10]
