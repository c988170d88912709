"""Timing helpers shared by the benchmarks (run as ``python -m benchmarks.<name>``).

Times are **process CPU time** (``time.process_time``): on a shared machine wall time
counts other processes' work too and flips verdicts from one run to the next.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path


def per_call(fn: Callable[[], object], min_time: float = 0.3) -> float:
    """Median CPU seconds per call of ``fn`` over five batches of at least ``min_time / 5`` s."""
    n = 1
    while True:
        t0 = time.process_time()
        for _ in range(n):
            fn()
        if time.process_time() - t0 > min_time / 5:
            break
        n *= 2
    samples = []
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(n):
            fn()
        samples.append((time.process_time() - t0) / n)
    return statistics.median(samples)


def cpu_per_call(fn: Callable[[], object], repeat: int) -> float:
    """Mean CPU seconds per call over ``repeat`` calls."""
    t0 = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - t0) / repeat


def best_cpu_per_call(fn: Callable[[], object], repeat: int, rounds: int) -> float:
    """The best of ``rounds`` means of CPU seconds per call over ``repeat`` calls (the
    least disturbed round)."""
    return min(cpu_per_call(fn, repeat) for _ in range(rounds))


def chess_perft(board, depth: int) -> int:
    """python-chess perft, the comparison figure (benchmark-only; the product never uses
    it): the same algorithm as ``Game.perft``, the moves at depth 1 counted, not made."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def chess_random_positions(n: int, seed: int, max_plies: int = 80) -> list[str]:
    """FENs of ``n`` positions of seeded random chess play (python-chess, for the ratio)."""
    import chess  # benchmark-only comparison

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(rng.randrange(2, max_plies)):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            board.push(rng.choice(moves))
        if board.legal_moves.count():
            out.append(board.fen())
    return out


def spread(values: list[float]) -> str:
    """``median (min–max)`` of repeated measurements."""
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def write_section(doc: Path, name: str, text: str) -> None:
    """Replace what stands between ``<!-- name -->`` and ``<!-- /name -->`` in ``doc``
    with ``text`` (a benchmark's figures; nothing inside the markers is written by hand)."""
    body = doc.read_text()
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    if start not in body or end not in body:
        raise SystemExit(f"{doc}: no {start} … {end} markers")
    head, rest = body.split(start, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{start}\n{text}\n{end}{tail}")
