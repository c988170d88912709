"""The rules of the five games, pure: no I/O, no clock.

Games are looked up by name; each lives in its own module and is imported on demand.
"""

from __future__ import annotations

import inspect
from importlib import import_module
from typing import Any

from controller.rules.core import (
    Game,
    IllegalMoveError,
    Move,
    Outcome,
    Piece,
    Position,
    PositionError,
    RulesError,
)

__all__ = [
    "GAMES", "Game", "IllegalMoveError", "Move", "Outcome", "Piece", "Position",
    "PositionError", "RulesError", "get_game",
]

#: registry name -> "module:class"
GAMES: dict[str, str] = {
    "luotuoqi": "controller.rules.luotuoqi:Luotuoqi",
    "laotzu": "controller.rules.laotzu:LaoTzu",
    "gnuqi": "controller.rules.gnuqi:GnuQi",
    "kaleidochess": "controller.rules.kaleidochess:KaleidoChess",
    "lotus39": "controller.rules.lotus39:Lotus39",
    "lotus39-modern": "controller.rules.lotus39:ModernLotus39",
}


def available_games() -> list[str]:
    """Names of the games whose module is present in this build."""
    names = []
    for name, target in GAMES.items():
        module = target.split(":")[0]
        try:
            import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        names.append(name)
    return names


def get_game(name: str, **options: Any) -> Game:
    """An instance of the named game with its options (``players=3``, ``dice=True``, …)."""
    if name not in GAMES:
        raise RulesError(f"unknown game {name!r} (known: {', '.join(available_games())})")
    module, cls = GAMES[name].split(":")
    try:
        mod = import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise RulesError(f"game {name!r} is not implemented yet") from None
    game_class = getattr(mod, cls)
    accepted = inspect.signature(game_class).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in accepted.values())
    unknown = sorted(k for k in options if k not in accepted)
    if unknown and not takes_any:
        known = ", ".join(k for k in accepted if k not in ("self", "options")) or "none"
        raise RulesError(f"game {name!r} has no option {unknown[0]!r} (options: {known})")
    return game_class(**options)
