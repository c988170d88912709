"""Find mate-in-one positions for every game by exhaustive search and store them as data.

Random seeded games are played; in every position each legal move is tried and the
position is kept when at least one move ends the game with the mover winning.  The file
``tests/data/tactics/GAME.txt`` gets one line per position: the position text, a tab, and
every mating move in the game's notation (space separated).  The engine tests and the
tactics benchmark read these files.

    python -m benchmarks.engine_tactics [--count 50] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from controller.rules import GAMES, get_game

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "tactics"
#: the games and options the tactics sets cover (file name → game, options)
SETS = {name: (name, {}) for name in GAMES}
SETS["kaleidochess-3"] = ("kaleidochess", {"players": 3})


def mates(game, pos) -> list:
    mover = game.ply_mover(pos)
    found = []
    for move in game.legal_moves(pos):
        if move.kind == "roll":
            return []
        pos.push(move)
        outcome = game.outcome(pos)
        pos.pop()
        if outcome is not None and outcome.winners == (mover,):
            found.append(move)
    return found


def collect(name: str, count: int, seed: int) -> list[str]:
    game_name, options = SETS[name]
    game = get_game(game_name, **options)
    rng = random.Random(seed)
    lines: list[str] = []
    seen: set[str] = set()
    games = 0
    while len(lines) < count and games < 20_000:
        games += 1
        pos = game.start()
        for _ in range(rng.randint(10, 160)):
            moves = game.legal_moves(pos)
            if not moves:
                break
            found = mates(game, pos)
            text = game.position_text(pos)
            if found and text not in seen:
                seen.add(text)
                lines.append(text + "\t" + " ".join(game.move_text(pos, m) for m in found))
                break
            # prefer captures now and then so that material thins out and mates appear
            captures = [m for m in moves if m.captures]
            move = rng.choice(captures if captures and rng.random() < 0.5 else moves)
            pos.push(move)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", nargs="*", default=list(SETS))
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for name in args.games:
        lines = collect(name, args.count, args.seed)
        (OUT / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{name}: {len(lines)} mate-in-one positions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
