"""Lùotuoqí's fast listing (kept moves, the Cube decided per piece from bitboards and
robust witnesses) against the rules read literally (``tests.support.luotuoqi_oracle``),
on seeded random games where the mover is given the Cube, from the start and from sparse
positions where few pieces can witness a second move."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from controller.rules.luotuoqi import Luotuoqi
from tests.support.luotuoqi_oracle import literal_listing

GAME = Luotuoqi()
STARTS = [
    None,
    # few pieces: fewer than three robust witnesses, Kings on open lines
    "4k3/8/8/8/8/8/1T22E3/4K3 w - w 0 30",
    "3k4/8/3t24/8/8/2M5/8/3KT13 w - w 0 30",
    "k7/8/1T16/8/8/8/6T21/K7 w - w 0 30",
    "k3r3/1e6/8/8/2D5/8/1E3T12/4K3 w - w 0 30",
    "7k/5E2/4T23/8/2R5/8/8/K7 w - w 0 30",
    # a Tower next to the enemy King's lines, merges that would check
    "4k3/8/8/4T13/4T23/8/8/K7 w - w 0 30",
    # Eaglets that may promote (flanked by Mules, by Towers) beside pieces that list in bulk
    "4k3/8/8/8/2T2T24/1MEM4/8/R3K3 w - w 0 30",
    "3k4/8/8/2T1ET13/8/8/1E1E4/4K3 w - w 0 30",
]


def _positions(start: str | None, seed: int, plies: int):
    rng = random.Random(seed)
    pos = GAME.parse_position(start) if start else GAME.start()
    for _ in range(plies):
        # the mover holds the Cube in every position looked at
        pos.tokens["cube"] = pos.turn
        pos.state.pop("cube_second", None)
        if GAME.rule_outcome(pos) is not None:  # a draw by repetition lists nothing
            return
        yield pos
        moves = GAME.legal_moves(pos)
        if not moves:
            return
        pos.push(rng.choice(moves))


@pytest.mark.parametrize("start", STARTS)
def test_listing_with_the_cube_equals_the_literal_rules(start):
    checked = 0
    for seed in range(3):
        for pos in _positions(start, seed, 14):
            assert Counter(GAME.legal_moves(pos)) == Counter(literal_listing(GAME, pos)), \
                GAME.position_text(pos)
            checked += 1
    assert checked >= 10
