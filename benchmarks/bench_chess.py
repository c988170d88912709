"""Chess speed against python-chess on the same positions, in one run, on process CPU time.

Run from the repository root: ``python -m benchmarks.bench_chess``.  Prints legal-move
listing and perft times (standard chess and Chess960) and the ratios python-chess time /
our time (≥ 1.0 means we are at least as fast).  python-chess is a test/benchmark-only
dependency (GPL); the product never imports it.  Every timed listing and perft is also
checked against python-chess, so a figure is never printed for a wrong answer.
"""

from __future__ import annotations

import random
import sys
import time

import chess

from benchmarks.benchtools import best_cpu_per_call, chess_perft
from controller.rules.chess import Chess

SEED = 2026
POSITIONS = 100
REPEAT = 20
ROUNDS = 3
#: chessprogramming.org's standard test positions (start, Kiwipete, positions 3-5)
PERFT_POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4),
    ("position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4),
]


def random_positions(n: int, seed: int, chess960: bool) -> list[tuple[Chess, str]]:
    """Positions from seeded random play (from random Chess960 arrays when asked)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        game = Chess(chess960=True, array=rng.randrange(960)) if chess960 else Chess()
        pos = game.start()
        for _ in range(rng.randrange(2, 80)):
            moves = game.legal_moves(pos)
            if not moves or game.outcome(pos):
                break
            pos.push(rng.choice(moves))
        if game.legal_moves(pos):
            out.append((game, game.position_text(pos)))
    return out


def best_time(fn, repeat: int = REPEAT, rounds: int = ROUNDS) -> float:
    """Best mean CPU seconds per call over several rounds (less noise on a shared machine)."""
    return best_cpu_per_call(fn, repeat, rounds)


def bench_listing(samples: list[tuple[Chess, str]], label: str) -> None:
    ours = theirs = 0.0
    moves = 0
    for game, text in samples:
        pos = game.parse_position(text)
        board = chess.Board(text, chess960=game.chess960)
        n = len(game.legal_moves(pos))
        assert n == board.legal_moves.count(), text
        moves += n
        ours += best_time(lambda g=game, p=pos: g.legal_moves(p))
        theirs += best_time(lambda b=board: list(b.legal_moves))
    k = len(samples)
    print(f"legal moves, {k} {label} positions, {moves / k:.1f} moves each:")
    print(f"  ours         {ours / k * 1e6:8.1f} µs/position")
    print(f"  python-chess {theirs / k * 1e6:8.1f} µs/position")
    print(f"  ratio (python-chess / ours) = {theirs / ours:.2f}")


def bench_perft() -> None:
    game = Chess()
    ours_total = theirs_total = 0.0
    for name, fen, depth in PERFT_POSITIONS:
        pos = game.parse_position(fen)
        board = chess.Board(fen)
        t0 = time.process_time()
        n = game.perft(pos, depth)
        t1 = time.process_time()
        m = chess_perft(board, depth)
        t2 = time.process_time()
        assert n == m, (name, n, m)
        ours_total += t1 - t0
        theirs_total += t2 - t1
        print(f"perft {name} depth {depth}: {n} leaves, ours {t1 - t0:.2f} s, "
              f"python-chess {t2 - t1:.2f} s, ratio {(t2 - t1) / (t1 - t0):.2f}")
    print(f"perft total: ours {ours_total:.2f} s, python-chess {theirs_total:.2f} s, "
          f"ratio {theirs_total / ours_total:.2f}")


def main() -> None:
    print(f"python {sys.version.split()[0]}, python-chess {chess.__version__}, seed {SEED}")
    bench_listing(random_positions(POSITIONS, SEED, chess960=False), "standard")
    bench_listing(random_positions(POSITIONS, SEED, chess960=True), "Chess960")
    bench_perft()


if __name__ == "__main__":
    main()
