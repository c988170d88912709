"""The index build's shortcut: the picture after a move is read from the cells the Move
spells out (origin, target, captures, further displacements) and from the pads, not from
the whole board.  Here, for every game and many positions of seeded random play, every
move's expected picture equals what the sensors read after really making it."""

from __future__ import annotations

import random

import pytest

from controller.layout import load_layout
from controller.reconcile import PositionIndex, SensorView, mask_of
from controller.rules import get_game

GAMES = [("luotuoqi", {}, "square8"), ("chess", {}, "square8"), ("laotzu", {}, "square8"),
         ("gnuqi", {}, "square9"), ("kaleidochess", {}, "kaleido89"),
         ("kaleidochess", {"players": 4}, "kaleido89"), ("lotus39", {}, "lotus39")]


@pytest.mark.parametrize(("name", "options", "layout"), GAMES)
def test_expected_picture_after_each_move_is_the_sensors_reading(name, options, layout):
    game = get_game(name, **options)
    view = SensorView(game, load_layout(layout))
    rng = random.Random(11)
    indexed = 0
    for _ in range(12):
        pos = game.start()
        for _ in range(rng.randrange(0, 50)):  # random play, stopping short of the end
            moves = game.legal_moves(pos)
            if not moves:
                break
            pos.push(rng.choice(moves))
            if game.outcome(pos) or not game.legal_moves(pos):
                pos.pop()
                break
        idx = PositionIndex(view, pos)
        for move, effect in zip(idx.moves, idx.effects, strict=True):
            pos.push(move, record=False)
            key = view.expected(pos)
            pos.pop()
            assert effect.key == key, (game.position_text(pos), move)
            assert effect.vacate == idx.emask & ~mask_of(key)
            assert effect.arrive == mask_of(key) & ~idx.emask
        indexed += len(idx.moves)
    assert indexed > 12 * 10
