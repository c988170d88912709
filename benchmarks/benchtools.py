"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/<name>.py``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def per_call(fn: Callable[[], object], min_time: float = 0.3) -> float:
    """Median seconds per call of ``fn`` over five batches of at least ``min_time / 5`` s."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 > min_time / 5:
            break
        n *= 2
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


def chess_perft(board, depth: int) -> int:
    """python-chess perft, the comparison figure (benchmark-only; the product never uses it)."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]
