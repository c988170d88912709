"""Lùotuoqí's listing in check (``_evasions``, ``_cube_evasions``) against the rules read
literally: every pseudo-legal move made and the King tested, the Cube rule by make/undo
(``tests.support.luotuoqi_oracle``) — the same moves in the same order, with and without
the Cube, on seeded positions in check reached by play and on seeded random placements
(double checks, pinned pieces, Bypasser and camel checks), so that the fast path cannot
silently diverge from the plain one."""

from __future__ import annotations

import random

from controller.rules.core import Piece, Position
from controller.rules.luotuoqi import RAYS, Luotuoqi
from tests.support.luotuoqi_oracle import literal_listing, literal_plain

GAME = Luotuoqi()
STARTS = [
    None,
    # many Towers on both sides, the Cube with the mover
    "r1d1k2r/e1et32e1/1eT22m2/3e1E2/2D1T32e/1E3t22/E1E1E1E1/R3K1MR w KQkq w 0 12",
    "k7/2t34t2/1T55T3/3D4/3t44/T46T2/2T55/K3t53 w - w 0 30",
    "1mdt1kdmr/1eee1eee/1T16/3T12T31/5t12/1EE2t22/4E1t4E/2ET3KDMR b K b 4 12",
    # sparse: few pieces to block or witness a second move
    "k3r3/1e6/8/8/2D5/8/1E3T12/4K3 w - w 0 30",
    "4k3/8/8/8/4t33/8/3T1M3/4K3 w - w 0 30",
]


def _attackers(pos: Position) -> set[int]:
    """The cells of the pieces that could capture the mover's King, read literally from
    the other side's pseudo-legal moves."""
    king = GAME._king(pos.board, pos.turn)
    other = pos.copy()
    other.turn = 1 - pos.turn
    return {m.origin for m in GAME.pseudo_moves(other) if king in m.captures}


def _agrees(pos: Position) -> None:
    """The listing equals the literal rules, order included, and so do the plain moves
    and the end-of-game test that share the path."""
    text = GAME.position_text(pos)
    assert GAME.legal_moves(pos) == literal_listing(GAME, pos), text
    plain = literal_plain(GAME, pos)
    assert GAME._legal_plain(pos) == plain, text
    assert GAME.has_legal_move(pos) == bool(plain), text


def _gives_check(pos: Position, move) -> bool:
    pos.push(move, record=False)
    try:
        return GAME.in_check(pos)
    finally:
        pos.pop()


def _checks_reached_by_play(start: str | None, seed: int, plies: int):
    """The positions in check of one seeded game that seeks checks now and then; the
    mover is given the Cube in every other one."""
    rng = random.Random(seed)
    pos = GAME.parse_position(start) if start else GAME.start()
    for _ in range(plies):
        if GAME.rule_outcome(pos) is not None:
            return
        if GAME.in_check(pos):
            if rng.random() < 0.5 and pos.tokens.get("cube") is not None:
                pos.tokens["cube"] = pos.turn
                pos.state.pop("cube_second", None)
            yield pos
        moves = GAME.legal_moves(pos)
        if not moves:
            return
        checking = [m for m in rng.sample(moves, min(6, len(moves))) if _gives_check(pos, m)]
        pos.push(rng.choice(checking) if checking and rng.random() < 0.7 else rng.choice(moves))


def test_in_check_the_listing_equals_every_move_tried_on_positions_reached_by_play():
    seen = with_cube = towers = 0
    for i, start in enumerate(STARTS):
        for seed in range(6):
            for pos in _checks_reached_by_play(start, 100 * i + seed, 40):
                _agrees(pos)
                seen += 1
                with_cube += pos.tokens.get("cube") == pos.turn
                towers += sum(1 for p in pos.board if p is not None
                              and p.owner == pos.turn and p.kind == "T") >= 3
    # the seeded games reach what the fast path must get right
    assert seen >= 150 and with_cube >= 50 and towers >= 30


def _random_placement(rng: random.Random) -> Position | None:
    """A seeded random sparse position with the mover in check (or None)."""
    board: list[Piece | None] = [None] * len(GAME.geometry.cells)
    cells = rng.sample(range(len(board)), rng.randrange(6, 16))
    board[cells[0]], board[cells[1]] = Piece(0, "K"), Piece(1, "K")
    for c in cells[2:]:
        kind = rng.choice("EMRDTTT")
        board[c] = Piece(rng.randrange(2), kind, rng.randrange(1, 9) if kind == "T" else 1)
    turn = rng.randrange(2)
    if rng.random() < 0.5:  # pin a piece of the mover to its King along a line
        ray = RAYS[rng.choice(list(RAYS))][cells[turn]]
        near, far = sorted(rng.sample(range(len(ray)), 2)) if len(ray) >= 2 else (0, 0)
        if far and cells[1 - turn] not in ray[:far + 1]:
            for c in ray[:far]:
                board[c] = None
            board[ray[near]] = Piece(turn, rng.choice("EMRDT"), 1)
            board[ray[far]] = Piece(1 - turn, "T", 8)
    if GAME.attacked(board, cells[1 - turn], turn) or not GAME.attacked(
            board, cells[turn], 1 - turn):
        return None
    pos = Position(GAME, board, turn)
    pos.state["castling"] = ""
    pos.tokens["cube"] = turn if rng.random() < 0.6 else 1 - turn
    return GAME.parse_position(GAME.position_text(pos))


def test_in_check_the_listing_equals_every_move_tried_on_random_placements():
    rng = random.Random(33)
    seen = double = pinned = 0
    while seen < 300:
        pos = _random_placement(rng)
        if pos is None:
            continue
        _agrees(pos)
        seen += 1
        attackers = _attackers(pos)
        double += len(attackers) >= 2
        # a single checker that some piece other than the King could take, but not legally
        king = GAME._king(pos.board, pos.turn)
        legal = literal_plain(GAME, pos)
        pinned += len(attackers) == 1 and any(
            m not in legal for m in GAME.pseudo_moves(pos)
            if m.origin != king and attackers & set(m.captures))
    assert double >= 20 and pinned >= 10  # the placements reach double checks and pins


def test_a_block_on_a_cell_two_attacks_share_answers_both():
    # Black's King b3 is checked by the Tower b6 down the file (through b5, b4) and by the
    # Bypasser a5, whose slide a5-d2 (path b4 c3 d2) would remove b3 beside b4: the
    # Eaglet c5-b4 blocks both at once and is the one answer besides the King's steps
    pos = GAME.parse_position("7R/8/1T64K1/D1e5/8/1k6/5M2/5t12 b - w 0 1")
    assert len(_attackers(pos)) == 2
    _agrees(pos)
    king = GAME._king(pos.board, pos.turn)
    assert [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)
            if m.origin != king] == ["Ec5-b4"]


def test_a_pinned_piece_may_not_take_the_checker():
    # the Eaglet d2 checks e1; the Mule e2 could take it, but the Tower e8 pins the Mule
    # to the King; the King may take it himself
    pos = GAME.parse_position("4t81k1/8/8/8/8/8/3eM3/4K3 w - - 0 1")
    _agrees(pos)
    texts = [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]
    assert "Me2xd2" not in texts and "Ke1xd2" in texts


def test_a_cube_turn_may_not_start_with_an_evasion_that_uncovers_a_check():
    # the Tower e8 checks e1; the one-stone Tower d4 blocks on e5, e4 or e3, but leaving
    # the fourth rank for e5 or e3 uncovers the Rook-Camel a4's check on h4: only the
    # block on e4 (still on the rank) may start a Cube turn
    pos = GAME.parse_position("4t83/8/8/8/R2T13k/8/8/4K3 w - w 0 1")
    _agrees(pos)
    tower = GAME.geometry.cell("d4")
    assert [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)
            if m.origin == tower] == ["T1d4-e5", "T1d4-e4", "T1d4-e3", "T1d4-e4+cube"]
