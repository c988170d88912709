"""Cold start: ``fairyboard moves --game G`` for every game against ``python -c "import
chess"`` (python-chess, GPL: only here), on **process CPU time** of the child (user +
system, ``os.wait4``), interleaved in one run so both see the same machine.  The bytecode
is written by a warm-up run first (an installed package has it; ``PYTHONDONTWRITEBYTECODE``
is dropped for the children), so neither side pays for compiling.

Run: ``python -m benchmarks.bench_coldstart [rounds]``; prints a Markdown table of the
median CPU milliseconds and the ratio to ``import chess`` with its spread over the rounds.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.benchtools import spread
from controller.rules import GAME_PATHS

ROOT = Path(__file__).resolve().parent.parent
BASELINE = [sys.executable, "-c", "import chess"]


def child_cpu(argv: list[str]) -> float:
    """CPU seconds (user + system) of one child process running ``argv``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: compiled once, then read
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed")
    return usage.ru_utime + usage.ru_stime


def command(game: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli", "moves", "--game", game]


def main(rounds: int = 15) -> None:
    games = list(GAME_PATHS)
    base: list[float] = []
    runs: dict[str, list[float]] = {g: [] for g in games}
    ratios: dict[str, list[float]] = {g: [] for g in games}
    for game in games:  # warm-up: the bytecode is written once, as an install does
        child_cpu(command(game))
    for _ in range(rounds):
        for game in games:  # each game right after its own baseline run: same machine load
            b = child_cpu(BASELINE)
            t = child_cpu(command(game))
            base.append(b)
            runs[game].append(t)
            ratios[game].append(t / b)
    print(f"`python -c \"import chess\"`: median {statistics.median(base) * 1000:.0f} ms CPU "
          f"({rounds * len(games)} runs)\n")
    print("| command | CPU ms (median) | ratio to `import chess` (median, min–max) |")
    print("|---|---:|---:|")
    for game in games:
        print(f"| `fairyboard moves --game {game}` | {statistics.median(runs[game]) * 1000:.0f} "
              f"| {spread(ratios[game])} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
