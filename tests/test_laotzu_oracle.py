"""Lao Tzu Chess against python-chess (test-only oracle; the product never imports chess).

Independent Chess960 arrays are given to python-chess as a combined Shredder-FEN with
``chess960=True``; positions with hands use ``chess.variant.CrazyhouseBoard``.  Visibility
for the oracle is computed from python-chess's own pseudo-legal moves, so our drop
restriction is checked against an independent reading of laotzu.md §3.2.
"""

from __future__ import annotations

import random

import chess
import chess.variant
import pytest

from controller.rules.laotzu import SQUARE_NAMES, LaoTzu, chess960_array, view


def oracle_board(text: str) -> chess.Board:
    """python-chess board for one of our position texts."""
    if "[]" in text and "~" not in text:
        return chess.Board(text.replace("[]", ""), chess960=True)
    return chess.variant.CrazyhouseBoard(text, chess960=True)


def oracle_visible(board: chess.Board, color: chess.Color) -> set[int]:
    """Own squares + destinations of pseudo-legal moves (no castling, no drops) of ``color``.

    For the side not to move there is no en passant; for the side to move an en passant
    capture also reveals the Pawn it would take (DECISIONS).
    """
    b = board.copy(stack=False)
    if b.turn != color:
        b.turn = color
        b.ep_square = None
    seen = set(chess.SquareSet(b.occupied_co[color]))
    for m in b.generate_pseudo_legal_moves():
        if m.drop or b.is_castling(m):
            continue
        seen.add(m.to_square)
        if b.is_en_passant(m):
            seen.add(m.to_square - 8 if color == chess.WHITE else m.to_square + 8)
    return seen


def oracle_moves(board: chess.Board) -> list[chess.Move]:
    """python-chess legal moves, drops kept only on empty cells the mover can see."""
    moves, drops = [], []
    for m in board.legal_moves:
        (drops if m.drop else moves).append(m)
    if drops:
        seen = oracle_visible(board, board.turn)
        moves += [m for m in drops if m.to_square in seen]
    return moves


def uci(board: chess.Board, m: chess.Move) -> str:
    if m.drop:
        return chess.piece_symbol(m.drop).upper() + "@" + SQUARE_NAMES[m.to_square]
    return m.uci()


def oracle_perft(board: chess.Board, depth: int) -> int:
    moves = oracle_moves(board)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        board.push(m)
        total += oracle_perft(board, depth - 1)
        board.pop()
    return total


def test_arrays_are_scharnagl_numbers_as_python_chess():
    for n in range(960):
        rank1 = chess.Board.from_chess960_pos(n).board_fen().split("/")[-1]
        assert chess960_array(n) == rank1


def _fields(text: str) -> list[str]:
    """Position fields without the half-move clock (drops reset it here, not in python-chess)."""
    f = text.split()
    return f[:4] + f[5:]


def test_random_play_matches_python_chess():
    """≥1,000 positions from random pairs of arrays, played by seeded random moves."""
    rng = random.Random(960)
    positions = with_hands = with_drops = 0
    while positions < 1200:
        game = LaoTzu(white_array=rng.randrange(960), black_array=rng.randrange(960))
        pos = game.start()
        parallel = oracle_board(game.position_text(pos))
        parallel = chess.variant.CrazyhouseBoard(parallel.fen(shredder=True), chess960=True)
        for _ply in range(rng.randrange(20, 160)):
            text = game.position_text(pos)
            board = oracle_board(text)
            ours = game.legal_moves(pos)
            theirs = oracle_moves(board)
            assert sorted(game.long_move_text(pos, m) for m in ours) == sorted(
                uci(board, m) for m in theirs), text
            assert len(ours) == len(set(ours)), text
            for player in (0, 1):
                assert view(pos, player).visible == oracle_visible(board, bool(player == 0)), (
                    text, player)
            assert game.in_check(pos) == board.is_check(), text
            positions += 1
            with_hands += any(pos.hands)
            with_drops += any(m.kind == "drop" for m in ours)
            if not ours or game.outcome(pos):
                break
            move = rng.choice(ours)
            long = game.long_move_text(pos, move)
            pc_move = board.parse_uci(long) if "@" not in long else chess.Move.from_uci(long)
            if not pc_move.drop:
                assert game.move_text(pos, move).rstrip("+#") == board.san(pc_move).rstrip("+#")
            pos.push(move)
            parallel.push(pc_move)
            assert game.in_check(pos) == parallel.is_check()
            mine, other = _fields(game.position_text(pos)), _fields(
                parallel.fen(shredder=True, en_passant="fen"))
            if mine[3] == "-" and other[3] != "-":  # we keep ep only when a Pawn can take
                assert not parallel.has_pseudo_legal_en_passant()
                other[3] = "-"
            assert mine == other
    assert with_hands > 300 and with_drops > 300


#: (white array, black array): orthodox, both corner-King arrays, and three random pairs
START_PAIRS = [(518, 518), (0, 959), (345, 81), (123, 456), (700, 12)]


@pytest.mark.parametrize("white, black", START_PAIRS)
def test_perft_depth4_from_start_pairs(white, black):
    game = LaoTzu(white_array=white, black_array=black)
    pos = game.start()
    board = chess.variant.CrazyhouseBoard(game.position_text(pos), chess960=True)
    assert game.perft(pos, 4) == oracle_perft(board, 4)


MIDGAME_WITH_HANDS = [
    # reached by seeded random play; each side holds pieces, so drops are counted
    "r1b2brn/1np1p2p/pnk4p/3p1p1q/1PPP2q1/1P2P1P1/R4P2/N2BB1KR[Pp] w - - 0 20",
    "1rqbk1r1/p1pppp1p/1R4n1/1b3np1/2PP4/1P4P1/PNR1P1PP/N2BB1KQ[P] w b - 1 14",
    "b2br1kr/p2Nnp1p/n1p5/8/1QpqP1p1/8/PP1R1PPP/BBN2K1R[PPpp] w Hhe - 0 14",
    "rr1knrnn/b6p/1PpB3p/p1P1pPP1/3PP1P1/1q1R1KPb/8/b~B2Q2N[Pp] b - - 0 54",
]


@pytest.mark.parametrize("text", MIDGAME_WITH_HANDS)
def test_perft_with_drops(text):
    game = LaoTzu()
    pos = game.parse_position(text)
    board = chess.variant.CrazyhouseBoard(text, chess960=True)
    assert game.perft(pos, 3) == oracle_perft(board, 3)


def test_position_text_is_crazyhouse_fen_for_python_chess():
    rng = random.Random(5)
    for _ in range(20):
        game = LaoTzu(seed=rng.randrange(10**6))
        pos = game.start()
        for _ in range(rng.randrange(10, 80)):
            moves = game.legal_moves(pos)
            if not moves:
                break
            pos.push(rng.choice(moves))
        text = game.position_text(pos)
        board = chess.variant.CrazyhouseBoard(text, chess960=True)
        assert _fields(board.fen(shredder=True, promoted=True)) == _fields(text)
