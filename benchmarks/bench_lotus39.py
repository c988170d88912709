"""Lotus-39 speed figures: legal-move listing and perft (prints, never asserts).

Run: ``python -m benchmarks.bench_lotus39``.  Middle-game positions come from seeded
random play, so the figures are repeatable on one machine.  Process CPU time (on a shared
machine wall time counts other processes' work).
"""

from __future__ import annotations

import random
import time

from controller.rules import get_game
from controller.rules.core import Position, legal_by_king_safety


def middle_games(game, count: int, plies: int, seed: int = 39) -> list[Position]:
    """Positions after ``plies`` random legal moves (games that end early are skipped)."""
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        pos = game.start()
        for _ in range(plies):
            moves = game.legal_moves(pos)
            if not moves:
                break
            pos.push(rnd.choice(moves))
        else:
            out.append(game.parse_position(game.position_text(pos)))
    return out


def time_it(fn, min_seconds: float = 0.5) -> tuple[float, int]:
    """Seconds per call of ``fn`` (repeated for at least ``min_seconds``) and the calls made."""
    calls, start = 0, time.process_time()
    while True:
        fn()
        calls += 1
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            return elapsed / calls, calls


def bench(name: str) -> None:
    game = get_game(name)
    print(f"== {name} ==")
    positions = [game.start(), *middle_games(game, 20, 30)]
    moves_per_list = sum(len(game.legal_moves(p)) for p in positions) / len(positions)

    def list_all() -> None:
        for p in positions:
            game.legal_moves(p)

    per_call, _ = time_it(list_all)
    per_list = per_call / len(positions)
    print(f"legal_moves: {per_list * 1e6:8.1f} µs per position "
          f"({moves_per_list:.1f} moves on average, {len(positions)} positions)")

    def pseudo_all() -> None:
        for p in positions:
            game.pseudo_moves(p)

    per_call, _ = time_it(pseudo_all)
    print(f"pseudo_moves:{per_call / len(positions) * 1e6:8.1f} µs per position")

    def check_all() -> None:
        for p in positions:
            game.in_check(p)

    per_call, _ = time_it(check_all)
    print(f"in_check:    {per_call / len(positions) * 1e6:8.1f} µs per position")

    def make_undo_all() -> None:  # the generic way: try every move with push/pop
        for p in positions:
            legal_by_king_safety(p, game.pseudo_moves(p), lambda q, me: not game.in_check(q, me))

    per_call, _ = time_it(make_undo_all)
    print(f"  (for comparison, filtering by push/in_check/pop: "
          f"{per_call / len(positions) * 1e6:.1f} µs per position)")

    def perft(pos: Position, depth: int, label: str) -> None:
        start = time.process_time()
        nodes = game.perft(pos, depth)
        elapsed = max(time.process_time() - start, 1e-6)
        print(f"perft({depth}) {label:<12} {nodes:>9} nodes in {elapsed:6.2f} s "
              f"= {nodes / elapsed:>9,.0f} nodes/s")

    for depth in (4, 5):
        perft(game.start(), depth, "start")
    richest = max(positions[1:], key=lambda p: len(game.legal_moves(p)))
    perft(richest, 3, "middle game")
    print(f"  middle game: {game.position_text(richest)}")


if __name__ == "__main__":
    for game_name in ("lotus39", "lotus39-modern"):
        bench(game_name)
