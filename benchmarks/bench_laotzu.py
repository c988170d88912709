"""Lao Tzu Chess speed against python-chess on the same Chess960 positions, in one run.

Run: ``python -m benchmarks.bench_laotzu``.  Prints per-position legal-move listing
times, perft times and the ratios python-chess time / our time (≥ 1.0 means we are at
least as fast), on process CPU time.  python-chess is a test/benchmark-only dependency
(GPL); the product never imports it.

Positions come from seeded random play from random pairs of Chess960 arrays.  For the
like-for-like comparison the hands are emptied (both programs then list exactly the same
moves); positions with hands are timed separately against python-chess Crazyhouse, whose
drops are not restricted to visible cells, so that line is for information only.
"""

from __future__ import annotations

import random
import re
import sys
import time

import chess
import chess.variant

from benchmarks.benchtools import best_cpu_per_call, chess_perft
from controller.rules.laotzu import LaoTzu

SEED = 2024
POSITIONS = 200
REPEAT = 30
ROUNDS = 5


def random_positions(n: int, seed: int) -> list[tuple[LaoTzu, str]]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        game = LaoTzu(white_array=rng.randrange(960), black_array=rng.randrange(960))
        pos = game.start()
        for _ in range(rng.randrange(2, 60)):
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


def bench_listing(samples: list[tuple[LaoTzu, str]]) -> None:
    ours = theirs = 0.0
    moves = 0
    for game, text in samples:
        plain = re.sub(r"\[[^\]]*\]", "[]", text).replace("~", "")
        pos = game.parse_position(plain)
        board = chess.Board(plain.replace("[]", ""), chess960=True)
        n = len(game.legal_moves(pos))
        assert n == board.legal_moves.count(), plain
        moves += n
        ours += best_time(lambda g=game, p=pos: g.legal_moves(p))
        theirs += best_time(lambda b=board: list(b.legal_moves))
    k = len(samples)
    print(f"legal moves, {k} Chess960 positions (hands emptied), {moves / k:.1f} moves each:")
    print(f"  ours         {ours / k * 1e6:8.1f} µs/position")
    print(f"  python-chess {theirs / k * 1e6:8.1f} µs/position")
    print(f"  ratio (python-chess / ours) = {theirs / ours:.2f}")


def bench_hands(samples: list[tuple[LaoTzu, str]]) -> None:
    ours = theirs = 0.0
    ours_n = theirs_n = k = 0
    for game, text in samples:
        pos = game.parse_position(text)
        if not any(pos.hands):
            continue
        board = chess.variant.CrazyhouseBoard(text, chess960=True)
        k += 1
        ours_n += len(game.legal_moves(pos))
        theirs_n += board.legal_moves.count()
        ours += best_time(lambda g=game, p=pos: g.legal_moves(p), repeat=10)
        theirs += best_time(lambda b=board: list(b.legal_moves), repeat=10)
    if not k:
        return
    print(f"legal moves with hands, {k} positions (ours: drops on visible cells only, "
          f"{ours_n / k:.1f} moves; Crazyhouse: all drops, {theirs_n / k:.1f} moves):")
    print(f"  ours         {ours / k * 1e6:8.1f} µs/position")
    print(f"  python-chess {theirs / k * 1e6:8.1f} µs/position (CrazyhouseBoard)")
    print(f"  ratio (information only, different move sets) = {theirs / ours:.2f}")


def bench_perft(pairs: list[tuple[int, int]], depth: int) -> None:
    ours = theirs = 0.0
    nodes = 0
    for white, black in pairs:
        game = LaoTzu(white_array=white, black_array=black)
        pos = game.start()
        board = chess.Board(game.position_text(pos).replace("[]", ""), chess960=True)
        t0 = time.process_time()
        n = game.perft(pos, depth)
        t1 = time.process_time()
        m = chess_perft(board, depth)
        t2 = time.process_time()
        assert n == m, (white, black, n, m)
        nodes += n
        ours += t1 - t0
        theirs += t2 - t1
    print(f"perft depth {depth} from {len(pairs)} start pairs ({nodes} leaves):")
    print(f"  ours         {ours:8.2f} s ({nodes / ours / 1000:.0f} k leaves/s)")
    print(f"  python-chess {theirs:8.2f} s ({nodes / theirs / 1000:.0f} k leaves/s)")
    print(f"  ratio (python-chess / ours) = {theirs / ours:.2f}")


def bench_make_undo(samples: list[tuple[LaoTzu, str]]) -> None:
    ours = theirs = 0.0
    count = 0
    for game, text in samples[:50]:
        plain = re.sub(r"\[[^\]]*\]", "[]", text).replace("~", "")
        pos = game.parse_position(plain)
        board = chess.Board(plain.replace("[]", ""), chess960=True)
        moves = game.legal_moves(pos)
        pc_moves = list(board.legal_moves)
        count += len(moves)

        def ours_all(ms=moves, p=pos):
            for m in ms:
                p.push(m, record=False)
                p.pop()

        def theirs_all(ms=pc_moves, b=board):
            for m in ms:
                b.push(m)
                b.pop()

        ours += best_time(ours_all, repeat=5)
        theirs += best_time(theirs_all, repeat=5)
    print(f"push+pop, {count} moves:")
    print(f"  ours {ours / count * 1e6:.2f} µs/move, python-chess {theirs / count * 1e6:.2f} "
          f"µs/move, ratio {theirs / ours:.2f}")


def main() -> None:
    print(f"python {sys.version.split()[0]}, python-chess {chess.__version__}, seed {SEED}")
    samples = random_positions(POSITIONS, SEED)
    bench_listing(samples)
    bench_hands(samples)
    bench_make_undo(samples)
    rng = random.Random(SEED)
    pairs = [(518, 518)] + [(rng.randrange(960), rng.randrange(960)) for _ in range(4)]
    bench_perft(pairs, 3)
    bench_perft(pairs[:2], 4)


if __name__ == "__main__":
    main()
