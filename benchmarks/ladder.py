"""The self-play ladder: each level against the one below, per game, with Elo error bars.

For every game and every pair of adjacent levels (``--low``..``--high``) it plays
``--games`` games with the seats swapped every game and reports the Elo difference with
its 95 % interval,
and the rating of each level over the lowest one (the differences added up, their
intervals added in quadrature).  Independent matches run in ``--jobs`` processes.

**Adjudication.**  Gnu Qi, Lao Tzu and KaleidoChess games between weak levels rarely end
within a few hundred plies, and counting them all as draws hides the difference between
the levels.  A game that reaches ``--max-plies`` is therefore adjudicated by the game's own
evaluation (``controller.engine.Evaluator``: material, castles held, stacks — the data of
``values.toml``) from White's side: a lead of at least ``--adjudicate`` centipawns (default
300, three Pawns) is a win, anything less a draw; ``--adjudicate 0`` turns it off (every
game at the cap is a draw, as before).  Each pair's record says how many of its games were
adjudicated.

Each finished pair is appended to ``--results`` (JSON lines), so a long ladder can be
stopped and continued: pairs already there are not played again (a pair found twice, from
two runs, counts all its games), and ``--write-docs`` writes the table of every pair in
the file.

    python -m benchmarks.ladder --games 8 --high 6 --write-docs
    python -m benchmarks.ladder --game gnuqi --low 5 --high 8 --games 20
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks.spar import Player, Score, make_player, write_docs
from controller.engine import Evaluator
from controller.rules import GAMES, Game, get_game

#: finished pairs (kept in the repository: the docs' table is made from it)
RESULTS = Path(__file__).resolve().parent / "results" / "ladder.jsonl"
#: centipawns of lead (by the evaluation) that win a game stopped at the ply cap
ADJUDICATE = 300

HEADER = ("| game | levels | games | upper wins | draws | lower wins | adjudicated "
          "| upper score | Elo upper−lower [95 %] | upper over level {low} | minutes |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|")


def play_adjudicated(game: Game, seats: list[Player], max_plies: int, rng: random.Random,
                     margin: int) -> tuple[tuple[int, ...], bool]:
    """One two-player game; its winners and whether it was adjudicated at the cap."""
    pos = game.start()
    for _ in range(max_plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        if moves[0].kind == "roll":
            move = rng.choice(moves)
        else:
            move = seats[game.ply_mover(pos)].choose(game, pos, moves)
            assert move in moves, "illegal move"
        pos.push(move)
        if game.outcome(pos) is not None:
            break
    outcome = game.outcome(pos)
    if outcome is not None:
        return outcome.winners, False
    if not margin:
        return (), False
    lead = Evaluator(game).score(pos, 0)
    return ((0,) if lead >= margin else (1,) if lead <= -margin else ()), True


def run_pair(game: str, low: int, games: int, max_plies: int, seed: int, margin: int,
             ) -> tuple[str, int, Score, int, float]:
    """``games`` games of level ``low + 1`` against ``low``, seats swapped every game."""
    started = time.monotonic()
    rules = get_game(game)
    rng = random.Random(seed)
    score, adjudicated = Score(), 0
    for i in range(games):
        upper = make_player(f"level:{low + 1}", rules, seed + 2 * i)
        lower = make_player(f"level:{low}", rules, seed + 2 * i + 1)
        seat = i % 2
        seats = [upper, lower] if seat == 0 else [lower, upper]
        winners, judged = play_adjudicated(rules, seats, max_plies, rng, margin)
        adjudicated += judged
        if not winners:
            score.draws += 1
        elif seat in winners:
            score.wins += 1
        else:
            score.losses += 1
    return game, low, score, adjudicated, time.monotonic() - started


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
                         f"| {score.draws} | {score.losses} | {r.get('adjudicated', 0)} "
                         f"| {points / score.games:.2f} "
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
    parser.add_argument("--adjudicate", type=int, default=ADJUDICATE,
                        help="centipawns of lead that win at the ply cap (0: a draw)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="JSON lines of finished pairs: appended to, and skipped")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    results: dict[tuple[str, int], dict] = {}
    if args.results is not None and args.results.exists():
        for line in args.results.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            seen = results.get((r["game"], r["low"]))
            if seen is not None:  # the same pair played again: its games add up
                for key in ("wins", "draws", "losses", "seconds", "adjudicated"):
                    r.setdefault(key, 0)
                    seen.setdefault(key, 0)
                    r[key] += seen[key]
                r["max_plies"] = max(r["max_plies"], seen["max_plies"])
            results[(r["game"], r["low"])] = r
    jobs = [(g, low, args.games, args.max_plies, args.seed, args.adjudicate)
            for g in args.game for low in range(args.low, args.high)
            if (g, low) not in results]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        done = pool.map(run_pair, *zip(*jobs, strict=True)) if jobs else []
        for game, low, score, judged, seconds in done:
            r = {"game": game, "low": low, "wins": score.wins, "draws": score.draws,
                 "losses": score.losses, "seconds": round(seconds, 1),
                 "max_plies": args.max_plies, "adjudicated": judged,
                 "margin": args.adjudicate}
            results[(game, low)] = r
            if args.results is not None:
                args.results.parent.mkdir(parents=True, exist_ok=True)
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
                f"{' or '.join(map(str, caps))} plies is adjudicated: a lead of "
                f"{args.adjudicate} centipawns or more by the evaluation wins, less is a "
                f"draw): {games} games in all, "
                f"{minutes:.0f} minutes of matches. Elo clamped at ±800; ± is the 95 % "
                "interval's half-width, the intervals of the pairs added in quadrature.")
        write_docs("ladder", note + "\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
