"""The self-play ladder: each level against the one below, per game, with Elo error bars.

For every game and every pair of adjacent levels (``--low``..``--high``) it plays
``--games`` games with the seats swapped every game (``benchmarks.spar.match``; a game that
reaches ``--max-plies`` is a draw) and reports the Elo difference with its 95 % interval,
and the rating of each level over the lowest one (the differences added up, their
intervals added in quadrature).  Independent matches run in ``--jobs`` processes.

    python -m benchmarks.ladder --games 8 --high 6 --write-docs
    python -m benchmarks.ladder --game gnuqi --low 5 --high 8 --games 20
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", nargs="+", default=list(GAMES))
    parser.add_argument("--low", type=int, default=1)
    parser.add_argument("--high", type=int, default=6)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    jobs = [(g, low, args.games, args.max_plies, args.seed)
            for g in args.game for low in range(args.low, args.high)]
    results: dict[tuple[str, int], tuple[Score, float]] = {}
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for game, low, score, seconds in pool.map(run_pair, *zip(*jobs, strict=True)):
            results[(game, low)] = (score, seconds)
            elo, lo, hi = score.elo()
            print(f"{game} {low + 1} v {low}: +{score.wins} ={score.draws} -{score.losses} "
                  f"Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] {seconds:.0f} s", flush=True)
    lines = [HEADER.format(low=args.low)]
    for game in args.game:
        total, var = 0.0, 0.0
        for low in range(args.low, args.high):
            score, seconds = results[(game, low)]
            elo, lo, hi = score.elo()
            half = (hi - lo) / 2
            total += elo
            var += half * half
            points = score.wins + score.draws / 2
            lines.append(f"| {game} | {low + 1} v {low} | {score.games} | {score.wins} "
                         f"| {score.draws} | {score.losses} | {points / score.games:.2f} "
                         f"| {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] "
                         f"| {total:+.0f} ± {math.sqrt(var):.0f} | {seconds / 60:.1f} |")
    table = "\n".join(lines)
    print(table)
    if args.write_docs:
        note = (f"{time.strftime('%Y-%m-%d')}: `python -m benchmarks.ladder --games "
                f"{args.games} --low {args.low} --high {args.high} --max-plies "
                f"{args.max_plies}` ({args.games} games per pair, seats alternating, a "
                f"draw after {args.max_plies} plies; {len(jobs) * args.games} games in "
                f"{(time.monotonic() - started) / 60:.0f} minutes on {args.jobs} "
                f"process(es)). Elo clamped at ±800; ± is the 95 % interval's half-width.")
        write_docs("ladder", note + "\n\n" + table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
