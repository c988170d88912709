"""Move shapes met in seeded random games, for tests that must cover every kind of move
of every game (the voice, notation)."""

from __future__ import annotations

import random
from functools import cache

from controller.rules import get_game


@cache
def move_shapes(name: str, games: int = 12, plies: int = 140, seed: int = 7):
    """One (position, move) of every distinct move shape met in seeded random games."""
    game = get_game(name)
    rng = random.Random(seed)
    seen = {}
    for _ in range(games):
        pos = game.start()
        for _ in range(plies):
            moves = game.legal_moves(pos)
            if not moves:
                break
            for m in moves:
                key = (m.kind, bool(m.captures), m.captures not in ((), (m.target,)),
                       bool(m.also), m.token, bool(m.promotion), m.left is not None,
                       bool(m.piece and m.piece.height > 1))
                seen.setdefault(key, (pos.copy(), m))
            pos.push(rng.choice(moves))
    return game, list(seen.values())


def product_games() -> list[str]:
    """The games the installed product plays: every registered game but those the tests
    register themselves (the seventh game lives in ``tests/games/``), for tests that run
    the product as a separate program, which knows only its own games."""
    from controller.rules import GAMES

    return [name for name, cls in GAMES.items() if cls.__module__.startswith("controller.")]
