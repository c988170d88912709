"""Each level's documented depth floor (``Level.floor``: the depth of the level below),
measured over seeded random-play positions of every game: the share of positions where
``Engine.choose`` completed at least that depth on the level's own budget — the floor
search may take up to ``Level.floor_wait`` — in process CPU time (the machine is
shared; ``--wall`` for the board's wall clock).  ``--slowness K`` plays a machine K times
slower, as the board's worker does on a Raspberry Pi: every clock reading is K times the
CPU time and the budgets are stretched by K (so it measures the stretch's arithmetic,
not the Pi's own speed per game).

Each run appends its rows to ``RESULTS``; ``--write-docs`` tables the newest row per game
and level into docs/engine.md (runs of separate games side by side add up).

    python -m benchmarks.engine_depth_floor [--levels 4 5 6] [--positions 100]
        [--games luotuoqi kaleidochess] [--wall] [--slowness 8] [--write-docs]
    python -m benchmarks.engine_depth_floor --games kaleidochess:players=4 --levels 6 7 8 9

A game's options follow its name after a colon (the check only: a ceiling is one per
game name, and a variant keeps its game's).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import time
from dataclasses import replace
from pathlib import Path

from benchmarks.bench_engine import positions
from benchmarks.benchtools import write_section
from controller.engine import FLOOR_WAIT, KEPT_FLOOR, LEVELS, MATE_BOUND, Engine
from controller.rules import GAMES, get_game

RESULTS = Path(__file__).resolve().parent / "results" / "engine_depth_floor.jsonl"
#: the floor searches' depths per game that set ``FLOOR_CEILING`` (``--ceilings``)
CEILINGS = Path(__file__).resolve().parent / "results" / "engine_floor_ceiling.jsonl"
#: the positions' seed of the floor check; the ceilings are measured on another
#: (``CEILING_SEED``), so the check is not of the positions that set them
SEED = 7
CEILING_SEED = 33
DOCS = Path(__file__).resolve().parent.parent / "docs" / "engine.md"
#: the share of positions the goal asks to hold the floor in (issue 33)
GOAL = 0.99


def counted_depth(game, pos, result, floor: int) -> int:
    """The depth a search counts as having completed: a forced mate found (a win in one at
    the root, or a Cube turn's mate at depth 2) or a position with one legal move counts
    as ``floor`` — the search stops there, deeper adds nothing."""
    if abs(result.score) >= MATE_BOUND and result.depth:
        return max(floor, result.depth)
    if result.depth == 0 and len(game.legal_moves(pos)) == 1:
        return floor
    return result.depth


def game_spec(spec: str) -> tuple[str, dict]:
    """A game named on the command line, with options after a colon
    (``kaleidochess:players=4``): its name and its options."""
    name, _, text = spec.partition(":")
    options: dict = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"a game's options are KEY=VALUE, got {item!r} in {spec!r}")
        options[key] = (int(value) if value.lstrip("-").isdigit()
                        else {"true": True, "false": False}.get(value.lower(), value))
    return name, options


def label(r: dict) -> str:
    """A record's game as the table names it: its options beside the name."""
    options = r.get("options") or {}
    return r["game"] + "".join(f" ({k}={v})" for k, v in sorted(options.items()))


def rolled(game, pos, i: int) -> bool:
    """Where the die decides first (KaleidoChess's dice variant) roll it, seeded by the
    position's number: the board asks the engine only after the roll.  False where the
    roll leaves nothing to move."""
    moves = game.legal_moves(pos)
    if moves and moves[0].kind == "roll":
        pos.push(random.Random(i).choice(moves))
    return bool(game.legal_moves(pos))


def held(spec: str, level: int, count: int, clock, slowness: float = 1.0) -> dict:
    """One game (with its options: ``game_spec``) and level: positions searched,
    positions at or past the floor, the depths reached and the seconds each move took (by
    ``clock``), against the floor the level keeps in that game and variant
    (``Level.floor_in``)."""
    name, options = game_spec(spec)
    game = get_game(name, **options)
    floor = LEVELS[level].floor_in(name, game.options)
    depths, seconds = [], []
    for i, pos in enumerate(positions(game, count, SEED)):
        if not rolled(game, pos, i):
            continue
        started = clock()
        result = Engine(game, level, seed=i, clock=clock, slowness=slowness).choose(pos)
        seconds.append((clock() - started) / slowness)
        depths.append(counted_depth(game, pos, result, floor))
    return {"game": name, **({"options": options} if options else {}),
            "level": level, "floor": floor, "positions": len(depths),
            "held": sum(d >= floor for d in depths), "depths": depths,
            "seconds": [round(s, 4) for s in seconds], "slowness": slowness,
            "budget": LEVELS[level].movetime,
            "wait": LEVELS[level].floor_wait,
            "date": time.strftime("%Y-%m-%d")}


def ceiling_depths(spec: str, count: int, clock, seed: int = CEILING_SEED) -> dict:
    """One game (or a variant: ``game_spec``): the depth a floor search completes on the
    floor's budget in each of ``count`` positions — the search ``Engine.choose`` makes
    first, for the capped level with the deepest floor (all capped levels' floor budgets
    are ``FLOOR_WAIT``)."""
    name, options = game_spec(spec)
    game = get_game(name, **options)
    capped = [k for k in LEVELS if LEVELS[k].nodes is not None]
    budgets = {LEVELS[k].floor_budget() for k in capped}
    if budgets != {FLOOR_WAIT}:
        raise SystemExit(f"the capped levels' floor budgets are {sorted(budgets)}, "
                         f"not {FLOOR_WAIT:g} s each: measure a ceiling per budget")
    deepest = max(capped, key=lambda k: LEVELS[k].floor)
    depth = LEVELS[deepest].floor
    depths, seconds = [], []
    for i, pos in enumerate(positions(game, count, seed)):
        if not rolled(game, pos, i):
            continue
        engine = Engine(game, deepest, seed=i, clock=clock)
        limits = replace(engine.limits(), depth=depth, nodes=None, movetime=FLOOR_WAIT)
        result = engine.search.best_move(pos, limits)
        seconds.append(result.seconds)
        depths.append(counted_depth(game, pos, result, depth))
    return {"game": name, **({"options": options} if options else {}),
            "positions": len(depths), "seed": seed, "depth": depth,
            "budget": FLOOR_WAIT, "depths": depths, "load": round(os.getloadavg()[0], 1),
            "seconds": [round(s, 4) for s in seconds], "ceiling": ceiling(depths),
            "date": time.strftime("%Y-%m-%d")}


def ceiling(depths: list[int], goal: float = GOAL) -> int:
    """The deepest depth completed in at least ``goal`` of the positions."""
    ranked = sorted(depths, reverse=True)
    return ranked[max(0, math.ceil(goal * len(ranked)) - 1)]


def wait(r: dict) -> float:
    """The seconds the floor could wait for in a stored run (runs of the first version
    stored a multiple of the budget)."""
    if "wait" in r:
        return max(r["wait"], r["budget"])
    return r["budget"] * r.get("stretch", 1.0)


def row(r: dict) -> str:
    s = sorted(r["seconds"])
    over = sum(x > r["budget"] for x in s)
    return (f"| {label(r)} | {r['level']} | {r['floor']} | {r['budget']:g} | {wait(r):g} "
            f"| {r['held']}/{r['positions']} ({100 * r['held'] / r['positions']:.0f} %) "
            f"| {min(r['depths'])}–{max(r['depths'])} | {statistics.median(s):.2f} "
            f"| {s[-1]:.2f} | {over} |")


HEADER = ("| game | level | floor | budget s | floor waited for up to s | held | depths "
          "| median s | slowest s | moves over the budget |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def table() -> str:
    newest: dict[tuple[str, int], dict] = {}
    for line in RESULTS.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r.get("slowness", 1.0) != 1.0:
            continue
        key = (r["game"], label(r), r["level"])
        now = (LEVELS[r["level"]].floor_in(r["game"], r.get("options"))
               if r["level"] in LEVELS else None)
        # the newest run of the floor the level keeps now; a run of another floor only
        # where none of today's was made (its floor column says which it was)
        if key not in newest or r["floor"] == now or newest[key]["floor"] != now:
            newest[key] = r
    rows = [newest[k] for k in sorted(newest, key=lambda k: (list(GAMES).index(k[0]), k[1:]))]
    dates = sorted({r["date"] for r in rows})
    when = dates[0] if len(dates) == 1 else f"{dates[0]}–{dates[-1]}"
    return "\n".join([HEADER, *map(row, rows), "",
                      f"{when}: `python -m benchmarks.engine_depth_floor --games G "
                      "--levels L --positions N` (N in the held column; seeded random-play "
                      "positions, process CPU time; Lao Tzu searched on the whole position "
                      "— the board's computer decides from its view, without the floor; "
                      "the floor search may take up to the wait column, `Level.floor_wait` "
                      "where longer than the budget)."])


def ceilings_table() -> str:
    """Each game's ceiling as measured (the newest run a game) and the floor every capped
    level keeps there (``Level.floor_in``: what the floor check above holds)."""
    newest = {}
    for line in CEILINGS.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        newest[label(r)] = r
    capped = [k for k in sorted(LEVELS) if LEVELS[k].nodes is not None]
    lines = ["| game | depth completed within the floor's budget: share of positions "
             "| ceiling (≥ 99 %) | " + " | ".join(f"level {k} floor" for k in capped) + " |",
             "|---|---|---|" + "---|" * len(capped)]
    variants = sorted((k for k in newest if k not in GAMES), key=lambda k: (
        list(GAMES).index(newest[k]["game"]), k))
    for shown in [*GAMES, *variants]:
        r = newest.get(shown)
        name, options = (shown, None) if r is None else (r["game"], r.get("options"))
        shares = "not measured" if r is None else ", ".join(
            f"≥ {d}: {sum(x >= d for x in r['depths'])}/{r['positions']}"
            for d in range(min(r["depths"]), min(r["depth"], r["ceiling"] + 1) + 1))
        ceil = "—" if r is None else str(r["ceiling"])
        if r is not None and r["ceiling"] < KEPT_FLOOR:
            ceil += (" (a variant's own: `VARIANT_CEILING`)" if options else
                     f" (none lowers a floor below {KEPT_FLOOR}: `KEPT_FLOOR`)")
        floors = []
        for k in capped:
            now, below = LEVELS[k].floor_in(name, options), LEVELS[k].floor
            floors.append(str(now) if now == below else f"**{now}** (level below: {below})")
        lines.append(f"| {shown} | {shares} | {ceil} | " + " | ".join(floors) + " |")
    dates = sorted({r["date"] for r in newest.values()})
    seeds = sorted({r["seed"] for r in newest.values()})
    when = dates[0] if len(dates) == 1 else f"{dates[0]}–{dates[-1]}"
    lines += ["", f"{when}: `python -m benchmarks.engine_depth_floor --ceilings "
              f"--positions 100` (seed {', '.join(map(str, seeds))}, other positions than "
              f"the check's seed {SEED}; the floor search of the deepest floor, "
              f"{FLOOR_WAIT:g} s of process CPU time; a mate found or a single legal "
              "move counts as complete)."]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, nargs="*", default=[4, 5, 6])
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    ap.add_argument("--wall", action="store_true")
    ap.add_argument("--slowness", type=float, default=1.0)
    ap.add_argument("--ceilings", action="store_true",
                    help="measure each game's floor ceiling (seed CEILING_SEED)")
    ap.add_argument("--write-docs", action="store_true",
                    help="only table the stored results into docs/engine.md")
    args = ap.parse_args()
    if args.write_docs:
        write_section(DOCS, "depth-floor", table())
        write_section(DOCS, "floor-ceilings", ceilings_table())
        return
    base = time.monotonic if args.wall else time.process_time
    clock = base if args.slowness == 1.0 else (lambda: base() * args.slowness)
    if args.ceilings:
        for name in args.games:
            r = ceiling_depths(name, args.positions, base)
            with CEILINGS.open("a", encoding="utf-8") as f:
                f.write(json.dumps(r) + "\n")
            print(name, "ceiling", r["ceiling"], "depths", sorted(r["depths"]), flush=True)
        return
    print(HEADER, flush=True)
    for name in args.games:
        for level in args.levels:
            r = held(name, level, args.positions, clock, args.slowness)
            with RESULTS.open("a", encoding="utf-8") as f:
                f.write(json.dumps(r) + "\n")
            print(row(r), flush=True)


if __name__ == "__main__":
    main()
