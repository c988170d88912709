"""Cold start: ``fairyboard moves --game G`` for every game against ``python -c "import
chess"`` (python-chess, GPL: only here), on **process CPU time** of the child (user +
system, ``os.wait4``), interleaved in one run so both see the same machine.  The bytecode
is written by a warm-up run first (an installed package has it; ``PYTHONDONTWRITEBYTECODE``
is dropped for the children), so neither side pays for compiling.

The parsed board shapes are read from the user's cache folder (``controller.geometry``),
written by the first command: the children get a cache folder of their own, filled by the
warm-up run; the last column is the same command with an empty cache (its first run).

Run: ``python -m benchmarks.bench_coldstart [rounds]``; prints the machine, then a Markdown
table of the median CPU milliseconds and the ratio to ``import chess`` with its spread over
the rounds.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.benchtools import spread
from controller.rules import GAME_PATHS

ROOT = Path(__file__).resolve().parent.parent
BASELINE = [sys.executable, "-c", "import chess"]


def child_cpu(argv: list[str], cache: str) -> float:
    """CPU seconds (user + system) of one child process running ``argv`` with the cache
    folder ``cache``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: compiled once, then read
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed")
    return usage.ru_utime + usage.ru_stime


def command(game: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli", "moves", "--game", game]


def machine() -> str:
    """The machine the figures were taken on, in one line."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"{platform.node()}: {model or platform.machine()}, {os.cpu_count()} cores, "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}, "
            f"load average {load} at the start")


def main(rounds: int = 15) -> None:
    games = list(GAME_PATHS)
    base: list[float] = []
    runs: dict[str, list[float]] = {g: [] for g in games}
    ratios: dict[str, list[float]] = {g: [] for g in games}
    cold: dict[str, list[float]] = {g: [] for g in games}
    print(f"machine: {machine()}\n")
    with tempfile.TemporaryDirectory() as folder:
        warm = os.path.join(folder, "warm")
        for game in games:  # warm-up: the bytecode and the shape cache written once
            child_cpu(command(game), warm)
        for r in range(rounds):
            for game in games:  # each game right after its own baseline run: same load
                b = child_cpu(BASELINE, warm)
                t = child_cpu(command(game), warm)
                cold[game].append(child_cpu(command(game), os.path.join(folder, f"{r}{game}")))
                base.append(b)
                runs[game].append(t)
                ratios[game].append(t / b)
    print(f"`python -c \"import chess\"`: median {statistics.median(base) * 1000:.0f} ms CPU "
          f"({rounds * len(games)} runs)\n")
    print("| command | CPU ms (median) | ratio to `import chess` (median, min–max) "
          "| CPU ms, empty cache |")
    print("|---|---:|---:|---:|")
    for game in games:
        print(f"| `fairyboard moves --game {game}` | {statistics.median(runs[game]) * 1000:.0f} "
              f"| {spread(ratios[game])} | {statistics.median(cold[game]) * 1000:.0f} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
