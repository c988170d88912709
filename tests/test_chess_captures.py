"""Chess's captures-only listing (``Chess.legal_captures``, what the engine's quiescence
asks at every node): its legal moves that capture, in their order — wherever checks,
pins, en passant and capturing promotions are — and python-chess's legal captures (the
oracle, test-only); Lao Tzu, which lists drops too, keeps the filtered default."""

from __future__ import annotations

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import Game, get_game
from controller.rules.chess import Chess
from tests.support.captures import filtered, sharp_walk

GAME = get_game("chess")
#: a check to answer by a capture, a pinned piece, en passant (one of them illegal: it
#: would expose the King), promotions that capture, a double check, castling rights
SHARP = [
    "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
    "4k3/4r3/8/8/8/8/4B3/4K2b w - - 0 1",
    "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    "1n2k1r1/P6P/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/1b6/8/3n4/4K3 w - - 0 1",
    "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq e6 0 8",
]


def oracle(pos) -> set[str]:
    board = chess.Board(GAME.position_text(pos))
    return {m.uci() for m in board.generate_legal_captures()}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([None, *SHARP]), st.lists(st.integers(0, 10_000), min_size=1,
                                                  max_size=60))
def test_chess_captures_are_its_legal_moves_that_capture_in_order(start, choices):
    first = GAME.start() if start is None else GAME.parse_position(start)
    for pos in sharp_walk(GAME, first, choices):
        got = GAME.legal_captures(pos)
        assert got == filtered(GAME, pos), GAME.position_text(pos)
        if got is not None and GAME.rule_outcome(pos) is None:
            texts = {GAME.long_move_text(pos, m) for m in got}
            assert texts == oracle(pos), GAME.position_text(pos)


@pytest.mark.parametrize("text", SHARP)
def test_the_sharp_positions_agree_with_python_chess(text):
    pos = GAME.parse_position(text)
    got = GAME.legal_captures(pos)
    assert got == filtered(GAME, pos)
    assert {GAME.long_move_text(pos, m) for m in got} == oracle(pos)


def test_only_where_no_move_is_left_is_there_none():
    mated = GAME.parse_position("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    stalemated = GAME.parse_position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert GAME.legal_captures(mated) is None and GAME.legal_captures(stalemated) is None
    assert GAME.legal_captures(GAME.start()) == []
    ended = GAME.parse_position("4k3/8/8/3p4/2Q5/8/8/4K3 w - - 100 80")  # the move rule
    assert GAME.rule_outcome(ended) is not None and GAME.legal_captures(ended) is None


def test_a_game_listing_more_than_chess_keeps_the_filtered_default():
    laotzu = get_game("laotzu")
    assert isinstance(laotzu, Chess)
    pos = laotzu.start()
    assert laotzu.legal_captures(pos) == Game.legal_captures(laotzu, pos) == []
