"""Standard chess and Chess960 against python-chess (the test-only oracle, GPL: the
product never imports it): perft from the start and the standard test positions, legal
moves, check and game end on 2,000+ random positions, FEN and SAN/UCI round trips."""

from __future__ import annotations

import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.rules import OptionError, get_game

GAME = get_game("chess")

#: (FEN, perft counts) — chessprogramming.org's standard positions
PERFT = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [20, 400, 8902]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486]),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46, 2079]),
]


@pytest.mark.parametrize("fen,counts", PERFT)
def test_perft_matches_the_published_counts(fen, counts):
    pos = GAME.parse_position(fen)
    assert [GAME.perft(pos, d) for d in range(1, len(counts) + 1)] == counts


def _uci(game, pos, move) -> str:
    return game.long_move_text(pos, move)


def _compare(game, pos, board: chess.Board) -> None:
    ours = sorted(_uci(game, pos, m) for m in game.legal_moves(pos))
    theirs = sorted(m.uci() for m in board.legal_moves)
    assert ours == theirs, (game.position_text(pos), set(ours) ^ set(theirs))
    assert game.in_check(pos) == board.is_check()
    outcome = game.outcome(pos)
    if board.is_checkmate():
        assert outcome is not None and outcome.reason == "checkmate"
    elif board.is_stalemate():
        assert outcome is not None and outcome.reason == "stalemate"
    elif board.is_insufficient_material():
        assert outcome is not None and "material" in outcome.reason
    elif pos.halfmove < 100 and not board.is_repetition(3):
        assert outcome is None, (outcome, board.fen())


@pytest.mark.parametrize("chess960", [False, True])
def test_random_positions_agree_with_python_chess(chess960):
    rng = random.Random(7 if chess960 else 3)
    positions = 0
    for _ in range(40 if chess960 else 60):
        number = rng.randrange(960) if chess960 else 518
        game = get_game("chess", chess960=True, array=number) if chess960 else GAME
        board = chess.Board.from_chess960_pos(number) if chess960 else chess.Board()
        board.chess960 = True  # castling written King-to-Rook, as our long form
        pos = game.start()
        for _ in range(rng.randint(20, 120)):
            _compare(game, pos, board)
            positions += 1
            moves = game.legal_moves(pos)
            if not moves or game.outcome(pos) is not None:
                break
            move = rng.choice(moves)
            board.push_uci(_uci(game, pos, move))
            pos.push(move)
            if not chess960:
                assert game.position_text(pos).split()[:4] == board.fen().split()[:4] or (
                    board.ep_square is not None)
    assert positions >= (1000 if chess960 else 1500)


@settings(max_examples=40)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 60))
def test_fen_and_notation_round_trip(seed, plies):
    rng = random.Random(seed)
    pos = GAME.start()
    for _ in range(plies):
        moves = GAME.legal_moves(pos)
        if not moves:
            break
        move = rng.choice(moves)
        for text in (GAME.move_text(pos, move), GAME.long_move_text(pos, move)):
            assert GAME.parse_move(pos, text) == move
        pos.push(move)
    again = GAME.parse_position(GAME.position_text(pos))
    assert GAME.position_text(again) == GAME.position_text(pos)
    assert sorted(map(repr, GAME.legal_moves(again))) == sorted(map(repr, GAME.legal_moves(pos)))


def test_fen_is_standard_and_options_are_checked(capsys):
    assert GAME.position_text(GAME.start()) == chess.STARTING_FEN
    assert main(["moves", "--game", "chess", "--set", "array=3"]) == 2
    assert "array needs chess960" in capsys.readouterr().err
    with pytest.raises(OptionError):
        get_game("chess", chess960=True, array=5, seed=1)
    assert get_game("chess", chess960=True, seed=4).options["array"] == get_game(
        "chess", chess960=True, seed=4).options["array"]
    assert main(["show", "--game", "chess", "--moves", "e2e4", "e7-e5", "Ng1f3", "Nc6"]) == 0
