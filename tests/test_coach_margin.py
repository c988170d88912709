"""The coach's margin flags real blunders and leaves good moves alone (issue 30, found 6:
"only 1 of 15 deliberately bad moves drew a Coach remark").

Fifteen bad moves, each hanging a piece or allowing mate, and ten good ones, in fixed
chess positions; every move was judged beforehand by Stockfish 15 at depth 12–14 (a bad
move loses at least 3.6 pawns or allows mate against its best move, a good one at most
0.2 pawn).  The coach judges them with the product's own engine at a fixed depth, so the
answer is the same on every machine and under any load."""

from __future__ import annotations

import pytest

from controller.coach import Advice, Coach, advise, review_words
from controller.i18n import render

DEPTH = 3  #: the coach's search depth here (the service's is its time budget)

RUY = "r1bqk2r/1pppbppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 4 6"
QGD = "rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4"
SICILIAN = "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5"
ITALIAN = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
QUEENS_PAWN = "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"
GIUOCO = "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 6 8"
BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1"
ROOKS = "r4rk1/pp3ppp/2p5/8/8/2N5/PPP2PPP/3R1RK1 w - - 0 1"
QUEEN_ROOK = "2r3k1/5ppp/8/8/8/8/5PPP/1Q4K1 w - - 0 1"
QUEEN_OUT = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
SCHOLAR = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"

#: (position, move, what it does wrong)
BAD = [
    (RUY, "f3d4", "the Knight hangs"),
    (RUY, "a4b5", "the Bishop hangs to the a-Pawn"),
    (QGD, "c3d5", "the Knight hangs to the e-Pawn"),
    (QGD, "c1h6", "the Bishop hangs to the g-Pawn"),
    (SICILIAN, "d1h5", "the Queen hangs to the Knight"),
    (SICILIAN, "f1a6", "the Bishop hangs"),
    (ITALIAN, "f8a3", "the Bishop hangs"),
    (ITALIAN, "d8g5", "the Queen hangs to the Knight"),
    (QUEENS_PAWN, "c1h6", "the Bishop hangs"),
    (GIUOCO, "g5h6", "the Bishop hangs"),
    (BACK_RANK, "g8h8", "allows Rd8 mate"),
    (ROOKS, "d1d8", "the Rook hangs"),
    (ROOKS, "d1d5", "the Rook hangs to the c-Pawn"),
    (QUEEN_ROOK, "b1b3", "allows Rc1 mate"),
    (QUEEN_ROOK, "b1h7", "the Queen hangs to the King"),
]
GOOD = [
    (RUY, "f1e1"), (QGD, "c1g5"), (SICILIAN, "b1c3"), (ITALIAN, "f8c5"),
    (QUEENS_PAWN, "c2c4"), (GIUOCO, "c3d5"), (BACK_RANK, "h7h6"), (QUEEN_ROOK, "h2h3"),
    (QUEEN_OUT, "f3h4"), (SCHOLAR, "h5f7"),
]


def _review(fen: str, move: str) -> Advice:
    return advise("chess", {}, fen, [], move, depth=DEPTH)


@pytest.fixture(scope="module")
def coach() -> Coach:
    return Coach()  # the default margin, as a new board has it (no worker is started)


def test_the_coach_remarks_on_at_least_12_of_15_blunders(coach):
    remarked = [(fen, move) for fen, move, _ in BAD if coach.remarks_on(_review(fen, move))]
    missed = [(move, why) for fen, move, why in BAD if (fen, move) not in remarked]
    assert len(remarked) >= 12, missed


def test_the_coach_says_a_mate_allowed_as_a_mate(coach):
    for fen, move in ((BACK_RANK, "g8h8"), (QUEEN_ROOK, "b1b3")):
        advice = _review(fen, move)
        assert coach.remarks_on(advice)
        assert "allows mate in" in render(review_words(advice), "en"), advice


def test_the_coach_remarks_on_none_of_10_good_moves(coach):
    remarked = [(move, _review(fen, move)) for fen, move in GOOD]
    assert not [(m, a) for m, a in remarked if coach.remarks_on(a)]


def test_a_fixed_depth_gives_the_same_review_every_time():
    assert _review(GIUOCO, "g5h6") == _review(GIUOCO, "g5h6")
