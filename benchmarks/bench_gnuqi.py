"""Gnu Qi move generation speed, with python-chess timed in the same run for scale.

    python -m benchmarks.bench_gnuqi [--quick]

Prints, for Gnu Qi and for python-chess on chess positions with a similar number of
legal moves: microseconds per legal-move list, nanoseconds per move listed, perft time
and leaves per second, and the ratio Gnu Qi / python-chess (below 1 = faster), all on
process CPU time.
python-chess is a test-only tool (GPL); the product never imports it.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import chess

from benchmarks.benchtools import chess_perft
from controller.rules import get_game

GAME = get_game("gnuqi")

#: chess positions with 20-48 legal moves (start, Italian, a middlegame, Kiwipete)
CHESS_FENS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r2q1rk1/pp2bppp/2n1bn2/2pp4/3P4/2N1PN2/PPB2PPP/R1BQ1RK1 w - - 0 10",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
]


def gnuqi_positions() -> list:
    """The start position and positions of seeded random games (plies 10-60)."""
    positions = [GAME.start()]
    rng = random.Random(2024)
    for plies in (10, 20, 30, 40, 60):
        pos = GAME.start()
        for _ in range(plies):
            moves = GAME.legal_moves(pos)
            if not moves:
                break
            pos.push(rng.choice(moves))
        positions.append(GAME.parse_position(GAME.position_text(pos)))
    return positions


def per_call(fn: Callable[[], object], seconds: float) -> float:
    """Best-of-five microseconds of process CPU time per call."""
    n, start = 0, time.process_time()
    while time.process_time() - start < seconds / 10:
        fn()
        n += 1
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, (time.process_time() - t0) / n)
    return best * 1e6


def timed(fn: Callable[[], int]) -> tuple[int, float]:
    t0 = time.process_time()
    nodes = fn()
    return nodes, time.process_time() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter timing runs")
    args = parser.parse_args()
    seconds = 0.5 if args.quick else 2.0

    print("Legal-move listing (best of 5)")
    print(f"  {'position':<58} {'moves':>5} {'us/list':>8} {'ns/move':>8}")
    ours = []
    for pos in gnuqi_positions():
        n = len(GAME.legal_moves(pos))
        us = per_call(lambda pos=pos: GAME.legal_moves(pos), seconds)
        ours.append((n, us))
        print(f"  gnuqi {GAME.position_text(pos)[:52]:<52} {n:>5} {us:>8.1f} {us * 1e3 / n:>8.0f}")
    theirs = []
    for fen in CHESS_FENS:
        board = chess.Board(fen)
        n = board.legal_moves.count()
        us = per_call(lambda board=board: list(board.legal_moves), seconds)
        theirs.append((n, us))
        print(f"  chess {fen[:52]:<52} {n:>5} {us:>8.1f} {us * 1e3 / n:>8.0f}")
    our_avg = mean([us for _, us in ours])
    their_avg = mean([us for _, us in theirs])
    our_ns = sum(us for _, us in ours) * 1e3 / sum(n for n, _ in ours)
    their_ns = sum(us for _, us in theirs) * 1e3 / sum(n for n, _ in theirs)
    print(f"  mean us/list: gnuqi {our_avg:.1f}, python-chess {their_avg:.1f}, "
          f"ratio {our_avg / their_avg:.2f}")
    print(f"  ns per move listed: gnuqi {our_ns:.0f}, python-chess {their_ns:.0f}, "
          f"ratio {our_ns / their_ns:.2f}")

    print("Make/unmake (push then pop every legal move of the positions above)")
    our_push = []
    for pos in gnuqi_positions():
        moves = GAME.legal_moves(pos)
        our_push.append(per_call(lambda pos=pos, moves=moves: push_pop_all(pos, moves), seconds)
                        / max(1, len(moves)))
    their_push = []
    for fen in CHESS_FENS:
        board = chess.Board(fen)
        moves = list(board.legal_moves)
        their_push.append(per_call(lambda b=board, ms=moves: push_pop_all(b, ms), seconds)
                          / len(moves))
    ours_pp, theirs_pp = mean(our_push), mean(their_push)
    print(f"  us per push+pop: gnuqi {ours_pp:.2f}, python-chess {theirs_pp:.2f}, "
          f"ratio {ours_pp / theirs_pp:.2f}")

    print("Perft (same algorithm for both: moves at depth 1 are counted, not made)")
    depth = 3 if args.quick else 4
    runs = [
        ("gnuqi start", depth, lambda d: GAME.perft(GAME.start(), d)),
        ("python-chess start", depth, lambda d: chess_perft(chess.Board(), d)),
        ("python-chess Kiwipete", depth - 1, lambda d: chess_perft(chess.Board(CHESS_FENS[3]), d)),
    ]
    rates = []
    for label, d, fn in runs:
        nodes, secs = timed(lambda fn=fn, d=d: fn(d))
        expanded = sum(fn(k) for k in range(d))  # nodes whose move list was generated
        rates.append(secs * 1e6 / expanded)
        print(f"  {label} perft({d}) = {nodes}: {secs:.2f} s, {nodes / secs / 1e3:.0f} k leaves/s, "
              f"{rates[-1]:.1f} us per expanded node")
    print(f"  us per expanded node, gnuqi / python-chess: {rates[0] / rates[1]:.2f} (start), "
          f"{rates[0] / rates[2]:.2f} (Kiwipete)")


def push_pop_all(board, moves) -> None:
    for m in moves:
        board.push(m)
        board.pop()


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


if __name__ == "__main__":
    main()
