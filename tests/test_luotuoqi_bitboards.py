"""Lùotuoqí's bitboard filters (``controller/rules/luotuoqi.py``): the other side's cells by
kind, the King's threats (every attack, every pinned piece) that skip lines without an
attacker, the King's steps that test only the sliders standing where they might attack,
and the reach masks that skip pieces which cannot help in check — each held against the
plain rules on seeded random games."""

from __future__ import annotations

import random

from controller.rules.luotuoqi import BIT, Luotuoqi
from tests.support.luotuoqi_oracle import literal_plain

GAME = Luotuoqi()


def _positions(games: int, plies: int, seed: int):
    """Every position of seeded random games (a copy each)."""
    rng = random.Random(seed)
    for _ in range(games):
        pos = GAME.start()
        for _ in range(plies):
            moves = GAME.legal_moves(pos)
            if not moves or GAME.outcome(pos) is not None:
                break
            yield pos.copy()
            pos.push(rng.choice(moves))


def test_cells_by_kind_are_the_board_read_cell_by_cell():
    for pos in _positions(6, 60, 11):
        for owner in (0, 1):
            by_kind = GAME._cells_by_kind(pos.board, owner)
            for kind, bits in by_kind.items():
                expected = sum(BIT[c] for c, p in enumerate(pos.board)
                               if p is not None and p.owner == owner and p.kind == kind)
                assert bits == expected, (GAME.position_text(pos), owner, kind)


def test_safe_cells_agree_with_attacked_on_every_cell():
    for pos in _positions(6, 60, 12):
        board = pos.board
        for them in (0, 1):
            cells = [c for c, p in enumerate(board) if p is None or p.owner == them]
            sliders = [(c, p) for c, p in enumerate(board)
                       if p is not None and p.owner == them and p.kind in "TRD"]
            safe = GAME._safe_cells(board, cells, sliders, them,
                                    GAME._cells_by_kind(board, them))
            for x in cells:
                assert (x in safe) == (not GAME.attacked(board, x, them)), (
                    GAME.position_text(pos), x, them)


def test_checks_with_bitboards_find_the_check_and_every_exposer():
    for pos in _positions(8, 70, 13):
        board = pos.board
        me = pos.turn
        king = GAME._king(board, me)
        attacks, attackers, exposers = GAME._checks(
            board, king, 1 - me, GAME.bypassers(board, 1 - me),
            GAME._cells_by_kind(board, 1 - me))
        assert bool(attacks) == GAME.attacked(board, king, 1 - me), GAME.position_text(pos)
        assert len(attackers) == len(attacks)
        if not attacks:
            for c, p in enumerate(board):
                if p is not None and p.owner == me and p.kind != "K":
                    assert (c in exposers) == GAME.exposes(board, king, c, 1 - me), (
                        GAME.position_text(pos), c)


def test_listing_in_check_equals_the_literal_rules():
    seen = 0
    for pos in _positions(40, 80, 14):
        if not GAME.in_check(pos):
            continue
        seen += 1
        plain = GAME._legal_plain(pos)
        assert sorted(map(repr, plain)) == sorted(map(repr, literal_plain(GAME, pos))), \
            GAME.position_text(pos)
    assert seen >= 10  # the seeded games do reach enough checks


def test_a_camel_step_that_blocks_a_check_is_listed():
    # the Tower c3 checks e1 through d2; the Rook-Camel e5 blocks on d2 by a camel step
    # only (its lines cross neither d2 nor c3)
    pos = GAME.parse_position("7k/8/8/4R3/8/2t25/8/4K3 w - - 0 1")
    assert GAME.in_check(pos)
    moves = GAME.legal_moves(pos)
    assert sorted(map(repr, moves)) == sorted(map(repr, literal_plain(GAME, pos)))
    assert any(m.origin == GAME.geometry.cell("e5") and m.target == GAME.geometry.cell("d2")
               for m in moves)


def test_attacked_with_bitboards_even_stale_after_a_capture_agrees_without():
    rng = random.Random(15)
    for pos in _positions(6, 60, 15):
        board = list(pos.board)
        for by in (0, 1):
            cells_by_kind = GAME._cells_by_kind(board, by)
            victims = [c for c, p in enumerate(board)
                       if p is not None and p.owner == by and p.kind != "K"]
            after = list(board)
            if victims:  # a capture empties a cell the bitboards still name
                after[rng.choice(victims)] = None
            for b in (board, after):
                for x in range(64):
                    assert GAME.attacked(b, x, by, None, cells_by_kind) == \
                        GAME.attacked(b, x, by), (GAME.position_text(pos), by, x)
