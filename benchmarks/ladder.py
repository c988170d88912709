"""The self-play ladder: each level against the one below, per game, with Elo error bars.

For every game and every pair of adjacent levels (``--low``..``--high``) it plays
``--games`` games with the seats swapped every game (``benchmarks.spar.match``; a game that
reaches ``--max-plies`` is a draw) and reports the Elo difference with its 95 % interval,
and the rating of each level over the lowest one (the differences added up, their
intervals added in quadrature).  Independent matches run in ``--jobs`` processes.

Each finished pair is appended to ``--results`` (JSON lines), so a long ladder can be
stopped and continued: pairs already there are not played again (a pair found twice, from
two runs, counts all its games), and ``--write-docs`` writes the table of every pair in
the file.

    python -m benchmarks.ladder --games 8 --high 6 --results ladder.jsonl --write-docs
    python -m benchmarks.ladder --game gnuqi --low 5 --high 8 --games 20
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks.spar import Score, match, write_docs
from controller.rules import GAMES

HEADER = ("| game | levels | games | upper wins | draws | lower wins | upper score "
          "| Elo upper−lower [95 %] | upper over level {low} | minutes |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def run_pair(game: str, low: int, games: int, max_plies: int, seed: int,
             ) -> tuple[str, int, Score, float]:
    started = time.monotonic()
    score = match(game, {}, f"level:{low + 1}", f"level:{low}", games, max_plies, seed)
    return game, low, score, time.monotonic() - started


def table(results: dict[tuple[str, int], dict], games: list[str]) -> str:
    """The ladder per game: each pair, and each level's rating over the lowest."""
    lows = sorted({low for _, low in results})
    lines = [HEADER.format(low=lows[0] if lows else 1)]
    for game in games:
        total, var = 0.0, 0.0
        for low in lows:
            if (game, low) not in results:
                continue
            r = results[(game, low)]
            score = Score(r["wins"], r["draws"], r["losses"])
            elo, lo, hi = score.elo()
            half = (hi - lo) / 2
            total += elo
            var += half * half
            points = score.wins + score.draws / 2
            lines.append(f"| {game} | {low + 1} v {low} | {score.games} | {score.wins} "
                         f"| {score.draws} | {score.losses} | {points / score.games:.2f} "
                         f"| {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] "
                         f"| {total:+.0f} ± {math.sqrt(var):.0f} | {r['seconds'] / 60:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", nargs="+", default=list(GAMES))
    parser.add_argument("--low", type=int, default=1)
    parser.add_argument("--high", type=int, default=6)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--results", type=Path,
                        help="JSON lines of finished pairs: appended to, and skipped")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    results: dict[tuple[str, int], dict] = {}
    if args.results is not None and args.results.exists():
        for line in args.results.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            seen = results.get((r["game"], r["low"]))
            if seen is not None:  # the same pair played again: its games add up
                for key in ("wins", "draws", "losses", "seconds"):
                    r[key] += seen[key]
                r["max_plies"] = max(r["max_plies"], seen["max_plies"])
            results[(r["game"], r["low"])] = r
    jobs = [(g, low, args.games, args.max_plies, args.seed)
            for g in args.game for low in range(args.low, args.high)
            if (g, low) not in results]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for game, low, score, seconds in pool.map(run_pair, *zip(*jobs, strict=True)):
            r = {"game": game, "low": low, "wins": score.wins, "draws": score.draws,
                 "losses": score.losses, "seconds": round(seconds, 1),
                 "max_plies": args.max_plies}
            results[(game, low)] = r
            if args.results is not None:
                with args.results.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(r) + "\n")
            elo, lo, hi = score.elo()
            print(f"{game} {low + 1} v {low}: +{score.wins} ={score.draws} -{score.losses} "
                  f"Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] {seconds:.0f} s", flush=True)
    text = table(results, args.game)
    print(text)
    if args.write_docs:
        games = sum(r["wins"] + r["draws"] + r["losses"] for r in results.values())
        caps = sorted({r["max_plies"] for r in results.values()})
        minutes = sum(r["seconds"] for r in results.values()) / 60
        note = (f"{time.strftime('%Y-%m-%d')}: `python -m benchmarks.ladder` (levels "
                f"{args.low}–{args.high}; seats alternating; a game reaching "
                f"{' or '.join(map(str, caps))} plies is a draw): {games} games in all, "
                f"{minutes:.0f} minutes of matches. Elo clamped at ±800; ± is the 95 % "
                "interval's half-width, the intervals of the pairs added in quadrature.")
        write_docs("ladder", note + "\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
