"""The rules of the games, pure: no I/O, no clock.

The registry is a list of game classes: adding a game is one rules module and one line in
:data:`GAME_CLASSES`.  Everything else the product needs to know about a game (its board
shape, pads, options, hidden information) is data on the class (:class:`Game`).
"""

from __future__ import annotations

from typing import Any

from controller.rules.chess import Chess
from controller.rules.core import (
    Game,
    GameOption,
    IllegalMoveError,
    Move,
    OptionError,
    Outcome,
    PadNeed,
    Piece,
    PlayerView,
    Position,
    PositionError,
    RulesError,
)
from controller.rules.gnuqi import GnuQi
from controller.rules.kaleidochess import KaleidoChess
from controller.rules.laotzu import LaoTzu
from controller.rules.lotus39 import Lotus39, ModernLotus39
from controller.rules.luotuoqi import Luotuoqi

__all__ = [
    "DEFAULT_GAME", "GAMES", "GAME_CLASSES", "Game", "GameOption", "IllegalMoveError", "Move",
    "OptionError", "Outcome", "PadNeed", "Piece", "PlayerView", "Position", "PositionError",
    "RulesError", "game_class", "get_game",
]

#: every game, in the order the command line and the page list them
GAME_CLASSES: tuple[type[Game], ...] = (
    Luotuoqi, LaoTzu, GnuQi, KaleidoChess, Lotus39, ModernLotus39, Chess,
)

#: the game a new board plays until configured otherwise (the first listed)
DEFAULT_GAME: str = GAME_CLASSES[0].name

#: registry name -> game class
GAMES: dict[str, type[Game]] = {cls.name: cls for cls in GAME_CLASSES}


def game_class(name: str) -> type[Game]:
    """The class of the named game (:class:`RulesError` naming the known games if none)."""
    cls = GAMES.get(name)
    if cls is None:
        raise RulesError(f"unknown game {str(name)[:40]!r} (known: {', '.join(GAMES)})")
    return cls


def get_game(name: str, **options: Any) -> Game:
    """An instance of the named game with its options (``players=3``, ``dice=True``, …),
    checked against the game's declared options first (:meth:`Game.validate_options`)."""
    cls = game_class(name)
    return cls(**cls.validate_options(options))
