"""The shortest games each game's rules allow from its start: a helpmate search (both
sides cooperate) by iterative deepening, for the keyboard tests' fixed whole-game lines
(``tests/test_web_access_games.py``).  Prints each line in the game's notation.

    PYTHONPATH=. python benchmarks/shortest_games.py [game [max_plies [option=value ...]]]
"""

from __future__ import annotations

import sys
import time

from controller.rules import get_game
from controller.rules.core import Game, Position


def _ends(game: Game, pos: Position, plies: int, decisive: bool,
          failed: set) -> list | None:
    key = (game.position_key(pos), plies)
    if key in failed:
        return None
    found = _search(game, pos, plies, decisive, failed)
    if found is None:
        failed.add(key)
    return found


def _search(game: Game, pos: Position, plies: int, decisive: bool,
            failed: set) -> list | None:
    if plies == 0:
        outcome = game.outcome(pos)
        if outcome is not None and (outcome.winners or not decisive):
            return []
        return None
    for move in game.legal_moves(pos):
        pos.push(move)
        try:
            if game.outcome(pos) is None:
                found = _ends(game, pos, plies - 1, decisive, failed)
                if found is not None:
                    return [move, *found]
            elif plies == 1:
                outcome = game.outcome(pos)
                if outcome.winners or not decisive:
                    return [move]
        finally:
            pos.pop()
    return None


def shortest(game: Game, max_plies: int, decisive: bool = True) -> list[str] | None:
    """The texts of a shortest line from the start to a decisive end (None: none within
    ``max_plies``)."""
    for plies in range(1, max_plies + 1):
        began = time.monotonic()
        pos = game.start()
        line = _ends(game, pos, plies, decisive, set())
        print(f"  {plies} plies: {'found' if line else 'none'} "
              f"({time.monotonic() - began:.1f} s)", file=sys.stderr)
        if line is not None:
            texts, replay = [], game.start()
            for move in line:
                texts.append(game.move_text(replay, move))
                replay.push(move)
            print(f"  outcome: {game.outcome(replay)}", file=sys.stderr)
            return texts
    return None


def main(argv: list[str]) -> None:
    names = [argv[0]] if argv else ["gnuqi", "kaleidochess", "lotus39", "laotzu"]
    max_plies = int(argv[1]) if len(argv) > 1 else 6
    options = dict(a.split("=", 1) for a in argv[2:])
    options = {k: int(v) if v.isdigit() else v for k, v in options.items()}
    for name in names:
        print(name, options, file=sys.stderr)
        print(name, shortest(get_game(name, **options), max_plies))


if __name__ == "__main__":
    main(sys.argv[1:])
