"""Wins in one at the default level, for every game: what is in front of the engine.

Every mate-in-one set of ``tests/data/tactics`` (random-play positions with a win in one,
found exhaustively by ``benchmarks/engine_tactics.py``) is solved by the default level on
its own budget (``Engine(game).choose``, wall clock as at the board) — and, for a game with
hidden information, also from the mover's view (the fog engine the board plays, which
decides from drawn positions; ``controller/engine/fog.py``).  Plus a *crowded* KaleidoChess
set (``--crowded``): positions of seeded random play with at least ``CROWDED`` legal moves
where one move ends the game (the last castle piece taken), the kind the default level
once missed when its first depth was cut short (issue 33).

    python -m benchmarks.engine_win_in_one [--games chess luotuoqi] [--crowded 40]
    python -m benchmarks.engine_win_in_one --write   # store the crowded set as data
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

from benchmarks.bench_engine import SETS, TACTICS
from benchmarks.benchtools import write_section
from controller.engine import DEFAULT_LEVEL, LEVELS, Engine
from controller.engine.fog import choose_try, sample_limits
from controller.rules import get_game

#: the least number of legal moves of a crowded KaleidoChess position
CROWDED = 130
#: the crowded set as data (``--write`` makes it; the tests take a sample)
CROWDED_FILE = TACTICS / "crowded" / "kaleidochess.txt"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "engine.md"


def tactics(name: str) -> list[tuple[str, set[str]]]:
    """A set's positions and their winning moves."""
    out = []
    for line in (TACTICS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        text, moves = line.split("\t")
        out.append((text, set(moves.split())))
    return out


def wins_in_one(game, pos) -> set[str]:
    """The moves after which the mover has won (asked of the game's ``outcome``)."""
    mover = game.ply_mover(pos)
    out = set()
    for move in game.legal_moves(pos):
        pos.push(move)
        try:
            outcome = game.outcome(pos)
        finally:
            pos.pop()
        if outcome is not None and mover in outcome.winners:
            out.add(game.move_text(pos, move))
    return out


def crowded_set(count: int, seed: int = 1) -> list[tuple[str, set[str]]]:
    """``count`` crowded KaleidoChess positions with a win in one, by seeded random play."""
    game = get_game("kaleidochess")
    rng = random.Random(seed)
    found: list[tuple[str, set[str]]] = []
    while len(found) < count:
        pos = game.start()
        for _ in range(rng.randint(10, 80)):
            moves = game.legal_moves(pos)
            if not moves:
                break
            if len(moves) >= CROWDED:
                wins = wins_in_one(game, pos)
                if wins:
                    found.append((game.position_text(pos), wins))
                    break
            pos.push(rng.choice(moves))
    return found


def solve(name: str, problems: list[tuple[str, set[str]]], view: bool = False,
          level: int = DEFAULT_LEVEL) -> tuple[int, float]:
    """Positions solved and the slowest answer (seconds of wall time)."""
    game_name, options = SETS.get(name, (name, {}))
    game = get_game(game_name, **options)
    solved, slowest = 0, 0.0
    for text, wins in problems:
        pos = game.parse_position(text)
        started = time.monotonic()
        if view:
            mover = game.ply_mover(pos)
            move = choose_try(game, game.player_view(pos, mover), game.legal_moves(pos),
                              sample_limits(LEVELS[level]), samples=LEVELS[level].samples)
        else:
            move = Engine(game, level).choose(pos).move
        slowest = max(slowest, time.monotonic() - started)
        solved += move is not None and game.move_text(pos, move) in wins
    return solved, slowest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=None)
    ap.add_argument("--crowded", type=int, default=40)
    ap.add_argument("--level", type=int, default=DEFAULT_LEVEL)
    ap.add_argument("--write", action="store_true",
                    help=f"write the crowded set to {CROWDED_FILE.relative_to(TACTICS.parents[2])}")
    ap.add_argument("--write-docs", action="store_true",
                    help="also write the table into docs/engine.md")
    args = ap.parse_args()
    if args.write:
        CROWDED_FILE.parent.mkdir(exist_ok=True)
        CROWDED_FILE.write_text("".join(f"{text}\t{' '.join(sorted(wins))}\n"
                                        for text, wins in crowded_set(args.crowded)),
                                encoding="utf-8")
        return
    names = args.games or sorted(p.stem for p in TACTICS.glob("*.txt"))
    lines = [f"| set | solved at level {args.level} | slowest answer (s, wall) |",
             "|---|---|---|"]

    def out(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    for line in lines:
        print(line)
    for name in names:
        problems = tactics(name)
        ok, slow = solve(name, problems, level=args.level)
        game_name, options = SETS.get(name, (name, {}))
        hidden = get_game(game_name, **options).hidden_information
        out(f"| {name}{' (whole position)' if hidden else ''} | {ok}/{len(problems)} "
            f"| {slow:.2f} |")
        if hidden:
            ok, slow = solve(name, problems, view=True, level=args.level)
            out(f"| {name}, from the mover's view | {ok}/{len(problems)} | {slow:.2f} |")
    if args.crowded:
        if CROWDED_FILE.exists() and args.crowded <= 40:  # the stored set (same seed)
            problems = tactics("crowded/kaleidochess")[:args.crowded]
        else:
            problems = crowded_set(args.crowded)
        ok, slow = solve("kaleidochess", problems, level=args.level)
        out(f"| kaleidochess, crowded (≥ {CROWDED} moves, seeded random play; "
            f"`tests/data/tactics/crowded/`) | {ok}/{len(problems)} | {slow:.2f} |")
    if args.write_docs:
        lines.append(f"\n{time.strftime('%Y-%m-%d')}: `python -m benchmarks.engine_win_in_one"
                     f"{'' if args.level == DEFAULT_LEVEL else f' --level {args.level}'}` "
                     "(wall clock on the shared machine, load average "
                     f"{os.getloadavg()[0]:.0f} at the end).")
        write_section(DOCS, "win-in-one", "\n".join(lines))


if __name__ == "__main__":
    main()
