"""KaleidoChess's dice variant: the chance nodes' pruning (Star1, ``Search._chance``)
against the plain expectimax (``Search.chance_pruning = False``), at a fixed depth on
the depth-floor check's seeded positions (``positions`` then ``rolled``), the two
searches interleaved position by position so the machine's load falls on both alike.
Nodes and process CPU time per position; the ratios' median and spread; appended to
``RESULTS``.

    python -m benchmarks.engine_chance [--depth 2] [--positions 24] [--players 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from benchmarks.bench_engine import positions
from benchmarks.engine_depth_floor import SEED, rolled
from controller.engine.search import Limits, Search
from controller.rules import get_game

RESULTS = Path(__file__).resolve().parent / "results" / "engine_chance.jsonl"


def measure(depth: int, count: int, players: int) -> dict:
    """Both searches of each position to ``depth``: nodes, CPU seconds, same answer."""
    game = get_game("kaleidochess", dice=True, players=players)
    rows = []
    for i, pos in enumerate(positions(game, count, SEED)):
        if not rolled(game, pos, i):
            continue
        row: dict = {"position": i}
        for name, pruning in (("plain", False), ("pruned", True)):
            search = Search(game, seed=i, clock=time.process_time)
            search.chance_pruning = pruning
            started = time.process_time()
            result = search.best_move(pos, Limits(depth=depth))
            row[name] = {"nodes": result.nodes,
                         "seconds": round(time.process_time() - started, 4),
                         "move": str(result.move), "score": result.score}
        row["same"] = (row["plain"]["move"], row["plain"]["score"]) == (
            row["pruned"]["move"], row["pruned"]["score"])
        rows.append(row)
    return {"players": players, "depth": depth, "positions": len(rows), "rows": rows,
            "load": round(os.getloadavg()[0], 1), "date": time.strftime("%Y-%m-%d")}


def ratios(record: dict, what: str) -> list[float]:
    """Pruned over plain, per position (positions the plain search settled in no time,
    a win in one, left out)."""
    return [r["pruned"][what] / r["plain"][what] for r in record["rows"]
            if r["plain"][what] > 0 and r["plain"]["nodes"] > 100]


def summary(record: dict) -> str:
    lines = [f"{record['positions']} positions, {record['players']} players, depth "
             f"{record['depth']}, load {record['load']}; same move and score in "
             f"{sum(r['same'] for r in record['rows'])}"]
    for what in ("nodes", "seconds"):
        got = sorted(ratios(record, what))
        if len(got) >= 4:
            q = statistics.quantiles(got, n=4)
            lines.append(f"  {what}: median ratio {statistics.median(got):.2f} "
                         f"(quartiles {q[0]:.2f}-{q[2]:.2f}, range {got[0]:.2f}-"
                         f"{got[-1]:.2f}, {len(got)} positions)")
    plain = sum(r["plain"]["seconds"] for r in record["rows"])
    pruned = sum(r["pruned"]["seconds"] for r in record["rows"])
    lines.append(f"  CPU seconds in all: plain {plain:.1f}, pruned {pruned:.1f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    record = measure(args.depth, args.positions, args.players)
    with RESULTS.open("a") as out:
        out.write(json.dumps(record) + "\n")
    print(summary(record))


if __name__ == "__main__":
    main()
