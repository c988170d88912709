"""The 200-game goals: the top level against the random mover and the greedy player.
In every game and player count (a soak of the engine, not of the board).

Issue 18's goal is ≥ 99 % wins against the random mover and ≥ 90 % against the one-ply
greedy player over 200 games each, at the top level (level 10, 4 s per move).  That is
about 2,000 hours of moves here, so this soak plays level 10 with a **reduced time per
move** (``--movetime``, default 0.1 s; the search stops at that budget, its depth limit
is level 10's): a stronger setting can only do better on average, but that is an
expectation, not a measurement.  Lao Tzu's computer plays from its own view
(``benchmarks.spar.EnginePlayer``: samples of the hidden position, its time an eighth of
the level's per sample set — its figures are at the level's own time).

With three or four players the top level has one seat and every other seat is the
opponent kind; seats rotate game by game.  Only a real win counts: a game that reaches
``--max-plies`` is not one.  Every finished configuration is appended to ``--results``
(JSON lines; configurations found there are not played again, two runs of one add up),
and ``--write-docs`` writes the table of everything in that file into docs/engine.md
between the ``goals200`` markers, with the configurations not run yet listed.

    python -m benchmarks.engine_goals --games 200 --movetime 0.1 --write-docs
    python -m benchmarks.engine_goals --config gnuqi --against random --games 20
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.spar import match, wilson, write_docs
from controller.engine import LEVELS
from controller.rules import get_game

#: every game and player count of the goal: name → (game, options); cheapest first
CONFIGS: dict[str, tuple[str, dict]] = {
    "lotus39-modern": ("lotus39-modern", {}),
    "lotus39": ("lotus39", {}),
    "chess": ("chess", {}),
    "gnuqi": ("gnuqi", {}),
    "kaleidochess": ("kaleidochess", {}),
    "kaleidochess-3": ("kaleidochess", {"players": 3}),
    "kaleidochess-4": ("kaleidochess", {"players": 4}),
    "kaleidochess-dice": ("kaleidochess", {"dice": True}),
    "laotzu": ("laotzu", {}),
    "luotuoqi": ("luotuoqi", {}),
}
#: the goal's share of wins per opponent
GOALS = {"random": 0.99, "greedy": 0.90}
TOP = "level:10"
#: finished configurations (kept in the repository: the docs' table is made from it)
RESULTS = Path(__file__).resolve().parent / "results" / "engine_goals.jsonl"


def run(config: str, against: str, games: int, movetime: float, max_plies: int,
        seed: int, games_log: Path | None = None) -> dict:
    """One configuration against one opponent; ``games_log`` gets every game's moves
    (``spar.match``), so that a lost game can be looked at afterwards."""
    game, options = CONFIGS[config]
    # a game of hidden information is played at the level's own time, whatever --movetime
    # says (spar.EnginePlayer): the row records the time that was used
    if get_game(game, **options).hidden_information:
        movetime = LEVELS[int(TOP.partition(":")[2])].movetime
    started = time.monotonic()
    score = match(game, options, TOP, against, games, max_plies, seed, movetime,
                  games_log=games_log)
    return {"config": config, "against": against, "wins": score.wins, "draws": score.draws,
            "losses": score.losses, "movetime": movetime, "max_plies": max_plies,
            "seconds": round(time.monotonic() - started, 1)}


def table(results: dict[tuple[str, str], dict]) -> str:
    lines = ["| game | against | games | top wins | draws (cap) | losses | wins % "
             "[95 %] | goal | met | budget s/move | minutes |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    missing = []
    for config in CONFIGS:
        for against, goal in GOALS.items():
            r = results.get((config, against))
            if r is None:
                missing.append(f"{config} against {against}")
                continue
            n = r["wins"] + r["draws"] + r["losses"]
            lo, hi = wilson(r["wins"], n)
            share = r["wins"] / n
            met = ("yes" if share >= goal and n >= 200 else
                   "no" if share < goal else f"so far ({n} of 200 games)")
            lines.append(f"| {config} | {against} | {n} | {r['wins']} | {r['draws']} "
                         f"| {r['losses']} | {100 * share:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] "
                         f"| ≥ {100 * goal:.0f} % | {met} | {r['movetime']:g} "
                         f"| {r['seconds'] / 60:.1f} |")
    if missing:
        lines += ["", "Not run yet: " + "; ".join(missing) + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--against", nargs="+", default=list(GOALS), choices=list(GOALS))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--movetime", type=float, default=0.1,
                        help="seconds per move for the top level (level 10: 4 s)")
    parser.add_argument("--max-plies", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--games-log", type=Path,
                        help="a JSON lines file each game (its moves) is appended to")
    args = parser.parse_args(argv)
    results: dict[tuple[str, str], dict] = {}
    if args.results.exists():
        for line in args.results.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            seen = results.get((r["config"], r["against"]))
            if seen is not None:  # the same configuration run again: its games add up
                for key in ("wins", "draws", "losses", "seconds"):
                    r[key] += seen[key]
            results[(r["config"], r["against"])] = r
    for config in args.config:
        for against in args.against:
            if (config, against) in results:
                continue
            r = run(config, against, args.games, args.movetime, args.max_plies, args.seed,
                    args.games_log)
            results[(config, against)] = r
            args.results.parent.mkdir(parents=True, exist_ok=True)
            with args.results.open("a", encoding="utf-8") as out:
                out.write(json.dumps(r) + "\n")
            print(f"{config} v {against}: +{r['wins']} ={r['draws']} -{r['losses']} "
                  f"{r['seconds']:.0f} s", flush=True)
    text = table(results)
    print(text)
    if args.write_docs:
        note = (f"{time.strftime('%Y-%m-%d')}: `python -m benchmarks.engine_goals` — level "
                "10 limited to the time per move in the table (not its 4 s), seats alternating "
                "(rotating with 3–4 players, the top level in one seat), a game reaching "
                f"{args.max_plies} plies counts as not won. Wins % with Wilson's 95 % "
                "interval; \"met\" needs the share and 200 games.")
        write_docs("goals200", note + "\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
