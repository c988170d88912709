"""Each level's documented depth floor (``Level.floor``: the depth of the level below),
measured over seeded random-play positions of every game: the share of positions where
``Engine.choose`` completed at least that depth on the level's own budget (process CPU
time, the machine being shared; ``--wall`` for the board's wall clock).

    python -m benchmarks.engine_depth_floor [--levels 4 5 6] [--positions 20] [--wall]
"""

from __future__ import annotations

import argparse
import time

from benchmarks.bench_engine import positions
from controller.engine import LEVELS, Engine
from controller.rules import GAMES, get_game


def held(name: str, level: int, count: int, clock) -> tuple[int, int, list[int]]:
    """Positions searched, positions at or past the floor, and the depths reached."""
    game = get_game(name)
    floor = LEVELS[level].floor
    depths = []
    for i, pos in enumerate(positions(game, count, 7)):
        result = Engine(game, level, seed=i, clock=clock).choose(pos)
        if result.depth == 1 and abs(result.score) >= 990_000 and result.nodes:
            depths.append(floor)  # a win in one found at the root: nothing deeper to see
        else:
            depths.append(result.depth)
    return len(depths), sum(d >= floor for d in depths), depths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, nargs="*", default=[4, 5, 6])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--wall", action="store_true")
    args = ap.parse_args()
    clock = time.monotonic if args.wall else time.process_time
    print("| game | level | floor | held | depths (min–max) |")
    print("|---|---|---|---|---|")
    for name in GAMES:
        for level in args.levels:
            n, ok, depths = held(name, level, args.positions, clock)
            print(f"| {name} | {level} | {LEVELS[level].floor} | {ok}/{n} | "
                  f"{min(depths)}–{max(depths)} |", flush=True)


if __name__ == "__main__":
    main()
