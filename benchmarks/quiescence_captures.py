"""Quiescence's captures-only listing (``Game.legal_captures``, issue 33): the CPU time of
Lùotuoqí's depth-3 search (level 6's floor) on the depth-floor check's positions
(``benchmarks/engine_depth_floor.py``, seed 7), before and after, interleaved in one run
— each position searched by both in turn, the first of the two alternating — so load
drifting over the run weighs on both alike.

"Before" is either the game's hook replaced by :meth:`Game.legal_captures` (the default:
every legal move listed, then filtered; ``--against default``) or the search as it was
at a git revision (``--against REV``: its ``search.py`` loaded from git, so it lists
every move itself, as before the hook).  Both searches must give the same move, score
and node count (the hook changes what is listed, not what is searched).

    python -m benchmarks.quiescence_captures [--against default|REV] [--positions 6 22 ...]
        [--count 22] [--game luotuoqi]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import replace
from pathlib import Path

from benchmarks.bench_engine import positions
from benchmarks.engine_depth_floor import SEED
from controller.engine import Engine
from controller.engine.search import Search
from controller.rules import Game, get_game

ROOT = Path(__file__).resolve().parent.parent
#: the positions of the depth-floor check that missed their floor (issue 33)
MISSED = (6, 22)


def old_search(rev: str) -> type[Search]:
    """The ``Search`` class of ``controller/engine/search.py`` at git revision ``rev``."""
    source = subprocess.run(["git", "show", f"{rev}:controller/engine/search.py"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(f"search_at_{rev}", f.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    os.unlink(f.name)
    return module.Search


def searched(search: Search, pos, limits) -> tuple[float, tuple]:
    """CPU seconds of one search, and what it found (move, score, depth, nodes)."""
    started = time.process_time()
    result = search.best_move(pos.copy(), limits)
    took = time.process_time() - started
    return took, (result.move, result.score, result.depth, result.nodes)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="luotuoqi")
    parser.add_argument("--against", default="default",
                        help="'default' (the hook's default) or a git revision")
    parser.add_argument("--positions", type=int, nargs="*",
                        help="position numbers of the depth-floor check (default: 6, 22 "
                        "and the first --count others)")
    parser.add_argument("--count", type=int, default=22)
    parser.add_argument("--depth", type=int, default=3)
    args = parser.parse_args(argv)
    game = get_game(args.game)
    others = [k for k in range(args.count + len(MISSED)) if k not in MISSED][:args.count]
    chosen = args.positions or sorted({*MISSED, *others})
    every = positions(game, max(chosen) + 1, SEED)
    before_class = Search if args.against == "default" else old_search(args.against)
    default_hook = types.MethodType(Game.legal_captures, game)
    ratios, totals = [], [0.0, 0.0]
    print(f"{args.game}, depth {args.depth}, against {args.against}; "
          f"load {os.getloadavg()[0]:.1f}")
    print("position  before s  after s  ratio  nodes")
    for turn, i in enumerate(chosen):
        pos = every[i]
        runs = {}
        for which in (("before", "after") if turn % 2 == 0 else ("after", "before")):
            engine = Engine(game, 6, seed=i, clock=time.process_time)
            limits = replace(engine.limits(), depth=args.depth, nodes=None, movetime=None)
            if which == "before":
                search = before_class(game, seed=i, clock=time.process_time)
                if args.against == "default":
                    game.legal_captures = default_hook  # the instance's, not the class's
            else:
                search = engine.search
            try:
                runs[which] = searched(search, pos, limits)
            finally:
                game.__dict__.pop("legal_captures", None)
        (before, found_before), (after, found_after) = runs["before"], runs["after"]
        if found_before != found_after:
            raise SystemExit(f"position {i}: before {found_before}, after {found_after}")
        ratios.append(after / before)
        totals[0] += before
        totals[1] += after
        print(f"{i:8d}  {before:8.3f}  {after:7.3f}  {after / before:5.3f}  "
              f"{found_after[3]}")
    q = statistics.quantiles(ratios, n=4)
    print(f"ratio after/before over {len(ratios)} positions: median {statistics.median(ratios):.3f}"
          f", quartiles {q[0]:.3f}–{q[2]:.3f}, range {min(ratios):.3f}–{max(ratios):.3f}; "
          f"in all {totals[0]:.2f} s before, {totals[1]:.2f} s after "
          f"({totals[1] / totals[0]:.3f}); load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
