"""The shortcuts of Lùotuoqí's fast move listing against the rules read literally.

``_plain`` lists legal moves from kept tables, skips make/undo for pieces that cannot
expose the King and generates only evasions in check; ``_cube_moves`` decides the Cube option
from table check tests and one-step *witnesses* of a second move.  Each is compared here
with make/undo of every pseudo-legal move, over random walks from positions chosen to
stress them: the Cube with the mover, pins, checks, many Towers and merges.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.luotuoqi import Luotuoqi
from tests.support.luotuoqi_oracle import literal_cube_options, literal_plain

GAME = Luotuoqi()
STARTS = [
    None,
    # many Towers, the Cube with the mover
    "r1d1k2r/e1et32e1/1eT22m2/3e1E2/2D1T32e/1E3t22/E1E1E1E1/R3K1MR w KQkq w 0 12",
    "k7/2t34t2/1T55T3/3D4/3t44/T46T2/2T55/K3t53 w - w 0 30",
    "1mdt1kdmr/1eee1eee/1T16/3T12T31/5t12/1EE2t22/4E1t4E/2ET3KDMR b K b 4 12",
    # pinned pieces (Tower, Mule, Bypasser) between the King and enemy Towers / Rook-Camels
    "4k3/4t83/8/8/4T23/8/1M6/4K3 w - w 0 30",
    "k3r3/8/8/8/4T33/8/8/4K1T21 w - w 0 30",
    "k7/8/8/7t4/8/5D2/8/3K4 w - w 0 30",
    # in check with the Cube
    "4k3/8/8/8/8/2m5/8/3K2T21 w - w 0 30",
    "4k3/8/8/8/4t33/8/3T1M3/4K3 w - w 0 30",
    # only Towers and the King: the witness must be a Tower step
    "7k/8/8/8/8/2t31r3/1T16/K7 w - w 0 1",
    "7k/8/8/8/8/8/8/KT1t15 w - w 0 1",
    # a lone King in check with the Cube: the witness of a second move is a King step
    "r2t3k3/2e5/3t34/8/8/4t23/8/4K3 w q w 0 10",
    "8/8/8/8/8/8/2k5/K6r w - w 0 30",
    "8/8/8/8/3k4/8/8/1r2K1r1 w - w 0 30",
    "k7/8/8/8/8/4m3/8/4K2r w - w 0 30",
    # and not in check
    "8/8/8/8/3k4/8/6r1/K7 w - w 0 30",
    "r2t3k3/2e5/3t34/4t23/8/8/8/4K3 w q w 0 10",
]


def _check(pos):
    fast = GAME.legal_moves(pos)
    plain = [m for m in fast if not m.token]
    assert sorted(map(repr, plain)) == sorted(map(repr, literal_plain(GAME, pos))), \
        GAME.position_text(pos)
    if pos.tokens.get("cube") == pos.turn and not pos.state.get("cube_second"):
        cube = [m for m in fast if m.token]
        assert sorted(map(repr, cube)) == sorted(map(repr, literal_cube_options(GAME, pos))), \
            GAME.position_text(pos)
    me = pos.turn
    board = pos.board
    king = GAME._king(board, me)
    if not GAME.attacked(board, king, 1 - me):
        _, _, exposers = GAME._checks(board, king, 1 - me, GAME.bypassers(board, 1 - me))
        for c, p in enumerate(board):
            if p is not None and p.owner == me and p.kind != "K":
                assert (c in exposers) == GAME.exposes(board, king, c, 1 - me), (
                    GAME.position_text(pos), c)
    return fast


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(STARTS), st.lists(st.integers(0, 10_000), max_size=16))
def test_fast_listing_equals_the_literal_rules_with_the_cube(start, choices):
    pos = GAME.parse_position(start) if start else GAME.start()
    for choice in choices:
        moves = _check(pos)
        if not moves:
            break
        # hand the Cube back now and then so that the mover holds it again
        pos.push(moves[choice % len(moves)])
        if pos.tokens.get("cube") is not None and choice % 3 == 0:
            pos.tokens["cube"] = pos.turn
            pos.state.pop("cube_second", None)


def test_every_start_is_checked_as_it_stands():
    for start in STARTS:
        pos = GAME.parse_position(start) if start else GAME.start()
        assert _check(pos)


def test_no_cube_when_the_only_evasion_pins_the_blocker():
    # White in check along the first rank; the only answer is the Eaglet stepping back
    # to e1, where it is pinned and cannot move again; the King has no move either: so no
    # Cube turn may start with it, although the Eaglet has empty cells to step to.
    pos = GAME.parse_position("k5t81/8/8/8/8/5m2/4E3/r6K w - w 0 30")
    moves = _check(pos)
    assert [GAME.move_text(pos, m) for m in moves] == ["Ee2-e1"]


def test_no_cube_when_every_step_of_the_lone_king_is_attacked_after_its_evasion():
    # Ka1-a2 answers the check; from a2 every step is attacked once the King has left
    # (a1 along the first rank through the cell it vacated, a3 along the third, b1-b3 by
    # the enemy King): no second move, so no Cube turn
    pos = GAME.parse_position("8/8/8/8/8/7r/2k5/K6r w - w 0 30")
    moves = _check(pos)
    assert [GAME.move_text(pos, m) for m in moves] == ["Ka1-a2"]
